#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench, part "alloc": read the harness benchmark's JSON and, if
given, the callgrind pass; print the table and the goals of the pool search;
write one JSON and a PNG plot (gnuplot, through scripts/bench/plot.py).

usage: report.py --json FILE --png FILE [facts...] TIMING_JSON
       report.py --replot build/bench/alloc.json   (redraw the PNG, next
                                                    to the JSON, from it)"""
import argparse
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plot  # noqa: E402  scripts/bench/plot.py

SEARCHES = ("summary", "linear", "linear_kernel", "floor")
FILL_COLOURS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e"]


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


def size_name(mib):
    return "%d GiB" % (mib // 1024) if mib >= 1024 and mib % 1024 == 0 else "%d MiB" % mib


def draw(doc, png):
    """alloc's PNG from its JSON document: None or what went wrong."""
    rows = doc["results"]
    by = {(r["search"], r["pool_mib"], r["fill_pct"]): r for r in rows}
    sizes = sorted({r["pool_mib"] for r in rows})
    fills = sorted({r["fill_pct"] for r in rows}, reverse=True)
    r0 = rows[0] if rows else {}
    has_ins = any(r.get("instructions_per_pair") for r in rows)
    has_upkeep = any("upkeep_ns_per_pair" in r for r in rows)
    title = ("alloc: the mask pool's summary search (mm/mask_alloc/search.c, patched) against the "
             "seed's linear scan, in userspace (tools/testing/mask_alloc)\n"
             "steady state: allocate 1-64 pages below a 24-32 bit mask + the random frees "
             "that keep the fill level; median of %s runs x %s operations\nseed %s%s%s"
             % (r0.get("runs", "?"), r0.get("ops", "?"), doc.get("seed", "?"),
                ", host load %s" % doc["loadavg"] if doc.get("loadavg") else "",
                "; tree " + doc["tree"] if doc.get("tree") else ""))
    fig = plot.Figure(png, title, rows=[[1, 1], [1, 1]], heights=[1.1, 1], height=1250)
    xtics = [(size_name(m), m) for m in sizes]

    def curves(key, label_summary):
        out = []
        for s, dt, pt, name in (("summary", 1, 7, "summary search (patched)"),
                                ("linear", 2, 4, "linear scan (seed)")):
            for k, fill in enumerate(fills):
                col = FILL_COLOURS[k % len(FILL_COLOURS)]
                pts = [(m, by[(s, m, fill)].get(key)) for m in sizes
                       if (s, m, fill) in by and by[(s, m, fill)].get(key)]
                # the emptiest pool is the dearest: its values above, the
                # others below
                if pts:
                    out.append(("%s, %d%% full" % (name, fill), col, dt, pt, pts,
                                ("above" if fill <= 50 else "below")
                                if s == "summary" and label_summary else None))
        return out

    fig.lines("time per allocate+free (log-log; values: the summary search)",
              "pool size", "ns per allocate+free (median)",
              curves("ns_per_pair", True), logx=True, logy=True, xtics=xtics,
              fmt="%.0f", key="above horizontal maxcols %d" % max(1, len(fills)),
              xrange=(sizes[0] / 1.5, sizes[-1] * 1.5) if sizes else None)
    if has_ins:
        fig.lines("instructions per allocate+free, under callgrind (log-log; values: "
                  "the summary search)", "pool size", "instructions per allocate+free",
                  curves("instructions_per_pair", True), logx=True, logy=True,
                  xtics=xtics, fmt="%.0f", key="above horizontal maxcols %d" % max(1, len(fills)),
                  xrange=(sizes[0] / 1.5, sizes[-1] * 1.5) if sizes else None)
    else:
        fig.panel(["unset border", "unset tics", "unset key",
                   "set label 'no callgrind pass in this run (no instruction counts)' "
                   "at graph 0.5, graph 0.5 center", "plot [0:1][0:1] NaN notitle"])

    # where the kernel pool's time goes: its upkeep (bench --kfloor 1) and
    # its search, beside the reference pool that does no search (floor)
    groups = []
    for m in sizes:
        for fill in sorted(fills):
            r = by.get(("summary", m, fill))
            if not r:
                continue
            d = {"summary": r["ns_per_pair"]}
            if "upkeep_ns_per_pair" in r:
                d["upkeep"] = r["upkeep_ns_per_pair"]
            fl = by.get(("floor", m, fill))
            if fl:
                d["floor"] = fl["ns_per_pair"]
            groups.append(("%d%% full" % fill, d))
    series = [("summary", "kernel pool: search + upkeep (summary)", plot.PATCHED)]
    if has_upkeep:
        series.append(("upkeep", "kernel pool without the search (bench --kfloor 1)",
                       plot.OTHER))
    series.append(("floor", "reference pool, no search (floor)", plot.STOCK))
    fig.bars("the summary search's own cost: ns per allocate+free, by pool size and fill",
             "ns per allocate+free (median)", groups, series, fmt="%.0f",
             sections=[(size_name(m), i * len(fills), i * len(fills) + len(fills) - 1)
                       for i, m in enumerate(sizes)])

    # the goals of the pool search, each against its own target
    goals = [g for g in doc.get("goals", []) if g.get("value") is not None]
    c = ["set title 'goals of the pool search: value (bar) against its target (red tick)' font ',11'",
         "set logscale x", "set xlabel 'ratio (log scale)'", "unset key",
         "set grid xtics lc rgb '#dddddd'", "set lmargin 52", "set border 1",
         "set ytics scale 0 font ',9' ("
         + ", ".join("%s %d" % (plot.qt(g["goal"]), -i) for i, g in enumerate(goals)) + ")",
         "set yrange [%f:0.7]" % (-len(goals) + 0.3)]
    ok_rows, bad_rows, tgt_rows = [], [], []
    vals = [1.0]
    for i, g in enumerate(goals):
        v = g["value"]
        (ok_rows if g["ok"] else bad_rows).append((v, -i, min(1, v), max(1, v), -i - 0.35,
                                                   -i + 0.35))
        vals.append(v)
        m = re.search(r"(>=|<=|<|>)\s*([0-9.]+)", g["goal"])
        if m:
            t = float(m.group(2))
            vals.append(t)
            tgt_rows.append((t, -i))
            c.append("set label %s at first %g, first %d left offset 0.8,0 font ',8' "
                     "tc rgb '%s' front" % (plot.q("%.2f %s" % (v, "met" if g["ok"] else "NOT met")),
                                            max(v, t), -i, "#1a7f37" if g["ok"] else plot.TARGET))
    lo, hi = min(vals), max(vals)
    c.append("set xrange [%g:%g]" % (lo / 2, hi * 8))
    c.append("set arrow from first 1, graph 0 to first 1, graph 1 nohead lc rgb 'black' back")
    pl = []
    for rows_, col in ((ok_rows, "#2ca02c"), (bad_rows, "#d62728")):
        if rows_:
            pl.append("%s using 1:2:3:4:5:6 with boxxyerror lc rgb '%s' notitle"
                      % (fig.block(rows_), col))
    if tgt_rows:
        b = fig.block(tgt_rows)
        pl += ["%s using 1:2:(0):(%s) with vectors nohead lc rgb '%s' lw 3 notitle"
               % (b, d, plot.TARGET) for d in ("0.45", "-0.45")]
    c.append("plot " + (", ".join(pl) or "NaN notitle"))
    fig.panel(c)
    return fig.render()


def replot(path):
    return plot.replot(path, draw, 'alloc')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--replot", metavar="JSON",
                    help="only redraw the PNG from this JSON (written next to it)")
    ap.add_argument("--json")
    ap.add_argument("--png")
    ap.add_argument("--loadavg", default="")
    ap.add_argument("--tree", help="the kernel tree's commit, for the record")
    ap.add_argument("--callgrind")
    ap.add_argument("--upkeep", help="the timing JSON of bench --kfloor 1")
    ap.add_argument("timing", nargs="?")
    a = ap.parse_args()
    if a.replot:
        return replot(a.replot)
    if not (a.json and a.png and a.timing):
        ap.error("--json, --png and the timing JSON are needed (or --replot JSON)")

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

    doc = {"part": "alloc", "seed": d["seed"], "leaf_words": d["leaf_words"],
           "loadavg": a.loadavg, "goals": goals, "results": rows}
    if a.tree:
        doc["tree"] = a.tree
    # Plot: ns per pair against pool size, colour by fill level, solid for
    # the summary and dashed for the linear scan; the same in instructions;
    # the search's own cost; the goals.
    err = draw(doc, a.png)
    doc["plots"] = [] if err else [os.path.basename(a.png)]
    with open(a.json, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    if err:
        print("alloc: no plot: %s (redraw: %s --replot %s)" % (err, sys.argv[0], a.json),
              file=sys.stderr)
        return 1
    print("wrote %s and %s" % (a.json, a.png))
    return 0


if __name__ == "__main__":
    sys.exit(main())
