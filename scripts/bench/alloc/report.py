#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench, part "alloc": merge the harness benchmark's JSON files,
print the table and the goals of issue 6, write one JSON and a PNG plot
of cost against pool size (gnuplot)."""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--png", required=True)
    ap.add_argument("--loadavg", default="")
    ap.add_argument("parts", nargs="+")
    a = ap.parse_args()

    rows, meta = [], {}
    for p in a.parts:
        with open(p) as f:
            d = json.load(f)
        meta = {k: d[k] for k in ("seed", "leaf_words", "perf")}
        rows += d["results"]
    by = {}
    for r in rows:
        by[(r["max_pages"], r["pool_mib"], r["fill_pct"], r["search"])] = r

    def ns(mp, mib, fill, s):
        r = by.get((mp, mib, fill, s))
        return r["ns_per_pair"] if r else None

    sizes = sorted({r["pool_mib"] for r in rows})
    fills = sorted({r["fill_pct"] for r in rows})
    maxes = sorted({r["max_pages"] for r in rows})
    print("alloc: pool side of an allocate+free pair, ns (median), seed %s" % meta["seed"])
    print("%-6s %8s %5s %10s %10s %8s %14s %12s" %
          ("pages", "pool", "fill", "summary", "linear", "speedup", "linear_kernel",
           "summary_api"))
    for mp in maxes:
        for mib in sizes:
            for fill in fills:
                s, l, api = ns(mp, mib, fill, "summary"), ns(mp, mib, fill, "linear"), \
                    ns(mp, mib, fill, "summary_api")
                lk = ns(mp, mib, fill, "linear_kernel") or 0
                if s is None:
                    continue
                print("1-%-4d %6dM %4d%% %10.1f %10.1f %7.1fx %14.1f %12.1f" %
                      (mp, mib, fill, s, l, l / s, lk, api))

    goals = []
    for mp in maxes:
        g = {"max_pages": mp}
        s, l = ns(mp, 2048, 90, "summary"), ns(mp, 2048, 90, "linear")
        if s and l:
            g["speedup_2g_90"] = round(l / s, 2)
            g["speedup_2g_90_ok"] = l / s >= 20
        lo, hi = ns(mp, 16, 90, "summary"), ns(mp, 8192, 90, "summary")
        if lo and hi:
            g["growth_16m_8g_90"] = round(hi / lo, 2)
            g["growth_16m_8g_90_ok"] = hi / lo < 2
        s, l = ns(mp, 16, 50, "summary"), ns(mp, 16, 50, "linear")
        if s and l:
            g["ratio_16m_50"] = round(s / l, 2)
            g["ratio_16m_50_ok"] = s <= l
        goals.append(g)
        print("goals, 1-%d pages: %s" % (mp, ", ".join(
            "%s=%s" % (k, v) for k, v in g.items() if k != "max_pages")))

    with open(a.json, "w") as f:
        json.dump({"part": "alloc", **meta, "loadavg": a.loadavg, "goals": goals,
                   "results": rows}, f, indent=1)
        f.write("\n")

    # Plot: ns per pair against pool size; one panel per size mix, colour
    # by fill level, solid for the summary and dashed for the linear scan.
    colours = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e"]
    with tempfile.TemporaryDirectory() as tmp:
        gp = [
            "set terminal pngcairo size 1400,650",
            "set output '%s'" % a.png,
            "set multiplot layout 1,%d title 'mask pool search: allocate+free pair "
            "(pool side) vs pool size, median ns'" % len(maxes),
            "set logscale xy",
            "set xlabel 'pool size (MiB)'",
            "set ylabel 'ns per pair'",
            "set xtics (%s)" % ", ".join("'%d' %d" % (m, m) for m in sizes),
            "set yrange [10:20000]",
            "set key top left",
            "set grid",
        ]
        for mp in maxes:
            plots = []
            for s in ("summary", "linear"):
                for k, fill in enumerate(fills):
                    path = os.path.join(tmp, "%s-%d-%d.dat" % (s, mp, fill))
                    with open(path, "w") as f:
                        for mib in sizes:
                            v = ns(mp, mib, fill, s)
                            if v is not None:
                                f.write("%d %f\n" % (mib, v))
                    plots.append("'%s' using 1:2 with linespoints lc rgb '%s' dt %d "
                                 "pt %d lw 2 title '%s, %d%% full'"
                                 % (path, colours[k % len(colours)],
                                    1 if s == "summary" else 2,
                                    7 if s == "summary" else 4, s, fill))
            gp.append("set title 'requests of 1-%d pages'" % mp)
            gp.append("plot " + ", ".join(plots))
        gp.append("unset multiplot")
        r = subprocess.run(["gnuplot"], input="\n".join(gp), text=True,
                           capture_output=True)
        if r.returncode:
            sys.stderr.write(r.stderr)
            return 1
    print("wrote %s and %s" % (a.json, a.png))
    return 0


if __name__ == "__main__":
    sys.exit(main())
