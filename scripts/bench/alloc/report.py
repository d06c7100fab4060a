#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench, part "alloc": read the harness benchmark's JSON and, if
given, the callgrind pass; print the table and the goals of issue 6;
write one JSON and a PNG plot of cost against pool size (gnuplot)."""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

SEARCHES = ("summary", "linear", "linear_kernel", "floor")


def callgrind(d):
    """Instructions per op, by (search, MiB, fill), from the dumps that
    bench.c makes with CALLGRIND_DUMP_STATS_AT("search MiB fill ops")."""
    out = {}
    for path in glob.glob(os.path.join(d, "cg.*.*")):
        desc, total = None, None
        with open(path) as f:
            for line in f:
                m = re.match(r"desc: Trigger: Client Request: (\S+) (\d+) (\d+) (\d+)", line)
                if m:
                    desc = m.groups()
                m = re.match(r"(?:summary|totals): (\d+)", line)
                if m and total is None:
                    total = int(m.group(1))
        if desc and total is not None:
            s, mib, fill, ops = desc
            out[(s, int(mib), int(fill))] = total / int(ops)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--png", required=True)
    ap.add_argument("--loadavg", default="")
    ap.add_argument("--callgrind")
    ap.add_argument("--upkeep", help="the timing JSON of bench --kfloor 1")
    ap.add_argument("timing")
    a = ap.parse_args()

    with open(a.timing) as f:
        d = json.load(f)
    rows = d["results"]
    ins = callgrind(a.callgrind) if a.callgrind else {}
    for r in rows:
        v = ins.get((r["search"], r["pool_mib"], r["fill_pct"]))
        r["instructions_per_pair"] = round(v) if v is not None else None
    by = {(r["search"], r["pool_mib"], r["fill_pct"]): r for r in rows}
    sizes = sorted({r["pool_mib"] for r in rows})
    fills = sorted({r["fill_pct"] for r in rows})

    def get(s, mib, fill, k="ns_per_pair"):
        r = by.get((s, mib, fill))
        return r[k] if r else None

    print("alloc: one steady-state operation (allocate 1-64 pages below a "
          "24-32 bit mask, free at random to the fill level), seed %s, load %s"
          % (d["seed"], a.loadavg))
    print("%7s %5s | %9s %9s %9s %7s %7s | %9s %9s %7s" %
          ("pool", "fill", "summary", "linear", "lin_kern", "floor", "speedup",
           "sum_ins", "lin_ins", "ins_x"))
    for mib in sizes:
        for fill in fills:
            s, l, lk, fl = (get(x, mib, fill) for x in SEARCHES)
            si, li = (get(x, mib, fill, "instructions_per_pair")
                      for x in ("summary", "linear"))
            print("%6dM %4d%% | %9.1f %9.1f %9.1f %7s %6.1fx | %9s %9s %7s" %
                  (mib, fill, s, l, lk, "%.1f" % fl if fl is not None else "-",
                   l / s, si or "-", li or "-",
                   "%.1fx" % (li / si) if si and li else "-"))

    def goal(name, v, ok):
        return {"goal": name, "value": round(v, 2) if v is not None else None,
                "ok": bool(ok) if v is not None else None}

    goals = []
    for k in ("ns_per_pair", "instructions_per_pair"):
        unit = "ns" if k == "ns_per_pair" else "instructions"
        s, l = get("summary", 2048, 90, k), get("linear", 2048, 90, k)
        goals.append(goal("2 GiB 90%%: linear/summary >= 20 (%s)" % unit,
                          l / s if s and l else None, s and l and l / s >= 20))
        for fill in fills:
            lo, hi = get("summary", 16, fill, k), get("summary", 8192, fill, k)
            goals.append(goal("summary 8 GiB / 16 MiB at %d%% < 2 (%s)" % (fill, unit),
                              hi / lo if lo and hi else None, lo and hi and hi / lo < 2))
        s, l = get("summary", 16, 50, k), get("linear", 16, 50, k)
        goals.append(goal("16 MiB 50%%: summary/linear <= 1 (%s)" % unit,
                          s / l if s and l else None, s and l and s <= l))
    for mib in sizes:
        r = by.get(("summary", mib, fills[0]))
        if r and "summary_bytes" in r:
            print("summary memory at %5d MiB: %7d bytes = %.1f%% of the %d-byte used bitmap"
                  % (mib, r["summary_bytes"], 100.0 * r["summary_bytes"] / r["bitmap_bytes"],
                     r["bitmap_bytes"]))
    # Not a goal: the search's own cost, above the floor (no search, the
    # same bitmap bookkeeping), and how it grows from 16 MiB to 8 GiB.
    for fill in fills:
        lo = [get(x, 16, fill) for x in ("summary", "floor")]
        hi = [get(x, 8192, fill) for x in ("summary", "floor")]
        if None not in lo + hi and lo[0] > lo[1]:
            print("summary - floor at %d%%: %.1f ns at 16 MiB, %.1f ns at 8 GiB (x%.2f);"
                  " floor %.1f -> %.1f ns" % (fill, lo[0] - lo[1], hi[0] - hi[1],
                                             (hi[0] - hi[1]) / (lo[0] - lo[1]), lo[1], hi[1]))
    # Not a goal: the kernel pool's ns split into its upkeep (bench --kfloor
    # 1: the same operations without the search) and its search, beside
    # the distance the seed's placement makes each search go.
    upkeep = {}
    if a.upkeep:
        with open(a.upkeep) as f:
            for r in json.load(f)["results"]:
                if r["search"] == "summary":
                    upkeep[(r["pool_mib"], r["fill_pct"])] = r["ns_per_pair"]
    for r in rows:
        if r["search"] == "summary" and (r["pool_mib"], r["fill_pct"]) in upkeep:
            r["upkeep_ns_per_pair"] = upkeep[(r["pool_mib"], r["fill_pct"])]
    if upkeep:
        print("kernel pool: upkeep = the same operations without the search "
              "(bench --kfloor 1), search = summary - upkeep")
        print("%7s %5s | %9s %9s %9s | %12s" %
              ("pool", "fill", "summary", "upkeep", "search", "skip pages"))
        for mib in sizes:
            for fill in fills:
                r = by.get(("summary", mib, fill))
                u = upkeep.get((mib, fill))
                if r is None or u is None:
                    continue
                print("%6dM %4d%% | %9.1f %9.1f %9.1f | %12s" %
                      (mib, fill, r["ns_per_pair"], u, r["ns_per_pair"] - u,
                       "%.0f" % r["skip_pages_per_op"] if "skip_pages_per_op" in r else "-"))
        for fill in fills:
            lo, hi = get("summary", 16, fill), upkeep.get((8192, fill))
            if lo and hi:
                print("growth budget at %d%%: 8 GiB must stay under 2 x %.1f = %.1f ns;"
                      " its upkeep alone is %.1f ns (%.0f%% of that)"
                      % (fill, lo, 2 * lo, hi, 50.0 * hi / lo))
    for g in goals:
        if g["value"] is not None:
            print("goal %-48s %8.2f  %s" % (g["goal"], g["value"], "met" if g["ok"] else "NOT met"))

    with open(a.json, "w") as f:
        json.dump({"part": "alloc", "seed": d["seed"], "leaf_words": d["leaf_words"],
                   "loadavg": a.loadavg,
                   "goals": goals, "results": rows}, f, indent=1)
        f.write("\n")

    # Plot: ns per pair against pool size, colour by fill level, solid for
    # the summary and dashed for the linear scan.
    colours = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e"]
    with tempfile.TemporaryDirectory() as tmp:
        gp = [
            "set terminal pngcairo size 1000,650",
            "set output '%s'" % a.png,
            "set title 'mask pool search, steady state, 1-64 pages, 24-32 bit masks: "
            "median ns per allocate+free'",
            "set logscale xy",
            "set xlabel 'pool size (MiB)'",
            "set ylabel 'ns per allocate+free'",
            "set xtics (%s)" % ", ".join("'%d' %d" % (m, m) for m in sizes),
            "set key outside right",
            "set grid",
        ]
        plots = []
        for s in ("summary", "linear"):
            for k, fill in enumerate(fills):
                path = os.path.join(tmp, "%s-%d.dat" % (s, fill))
                with open(path, "w") as f:
                    for mib in sizes:
                        v = get(s, mib, fill)
                        if v is not None:
                            f.write("%d %f\n" % (mib, v))
                plots.append("'%s' using 1:2 with linespoints lc rgb '%s' dt %d "
                             "pt %d lw 2 title '%s, %d%% full'"
                             % (path, colours[k % len(colours)],
                                1 if s == "summary" else 2,
                                7 if s == "summary" else 4, s, fill))
        gp.append("plot " + ", ".join(plots))
        r = subprocess.run(["gnuplot"], input="\n".join(gp), text=True,
                           capture_output=True)
        if r.returncode:
            sys.stderr.write(r.stderr)
            return 1
    print("wrote %s and %s" % (a.json, a.png))
    return 0


if __name__ == "__main__":
    sys.exit(main())
