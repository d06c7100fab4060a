#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A/B(/C) comparison of pool-bench outputs from different kernels.

usage: ab.py --json OUT.json NAME=OUT[,OUT...] NAME=OUT[,OUT...] [...]

Each NAME is a kernel (or a boot variant of one); each OUT the output of
one boot of scripts/bench/pool/guest.sh, parsed with report.py's parse().
The first NAME is the reference.  Boot i of every NAME is meant to come
from the same interleaved round (A1 B1 C1 A2 B2 C2 ...), so that it ran
under about the same host load.  report.py compares the paths of one
boot; this compares one path across kernels.

Table 1, ns per allocate+free pair, per path and size:
  ns        median over all runs of all boots (a run's ns is already the
            median of its rounds); (min-max) of the boots' own medians
  ratio     ns / ns of the reference, then the median [min-max] over i
            of the per-boot ratio boot i / reference boot i
  gmean     per path, the geometric mean of the ratios over the sizes
alloc_pages runs none of the mask pool's code: its ratios show what
merely booting another binary does (noise and code layout).

Table 2, excess over alloc_pages: a run's ns minus the alloc_pages ns
of the same run and size, which cancels the speed of the boot.  Median
over all runs per kernel; the difference to the reference, then the
median [25th-75th percentile] over i of boot i's difference.  This is
exact for api32 when the zones serve it (it is alloc_pages plus the
API's own code), but not for the pool paths, which share no code with
alloc_pages: there a layout shift of alloc_pages moves the excess the
other way, and table 1 is the one to read.
"""
import argparse
import json
import math
import os
import statistics as st
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import parse  # noqa: E402

PATHS = ['pool24', 'pool32', 'api24', 'api32', 'alloc_pages']


def load(outs):
    """{(path, pages): [[(ns, alloc_pages ns) of each run] per boot]}, facts."""
    data, facts = {}, []
    for b, out in enumerate(outs):
        f, runs = parse(out)
        if f.get('done') != 'ok':
            sys.exit(f'error: {out}: no "done: ok"')
        facts.append(f)
        for r in runs.values():
            if r['header'].get('error', 0):
                sys.exit(f'error: {out}: a run reports error {r["header"]["error"]}')
            for row in r['rows']:
                per = data.setdefault((row['path'], row['pages']), [[] for _ in outs])
                per[b].append((row['ns'], row['alloc_pages_ns']))
    return data, facts


def quart(v):
    """25th and 75th percentiles."""
    q = st.quantiles(v, n=4, method='inclusive')
    return q[0], q[2]


def gmean(rows, path, name):
    """Geometric mean over the sizes of @name's ratios on @path."""
    return math.exp(st.mean(math.log(r[name]['ratio']) for r in rows if r['path'] == path))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--json', required=True)
    ap.add_argument('kernels', nargs='+', metavar='NAME=OUT[,OUT...]')
    a = ap.parse_args()
    names, k = [], {}
    for arg in a.kernels:
        name, outs = arg.split('=', 1)
        names.append(name)
        k[name] = load(outs.split(','))
    ref = names[0]
    nboots = min(len(k[n][1]) for n in names)
    sizes = sorted({p for (_, p) in k[ref][0]})
    rows = []
    for path in PATHS:
        for pages in sizes:
            row = {'path': path, 'pages': pages}
            for n in names:
                per = k[n][0][(path, pages)]
                row[n] = {'ns': st.median(x for b in per for x, _ in b),
                          'boot_medians': [st.median(x for x, _ in b) for b in per],
                          'excess': st.median(x - y for b in per for x, y in b),
                          'boot_excess': [st.median(x - y for x, y in b) for b in per],
                          'runs': sum(map(len, per))}
            for n in names[1:]:
                r, r0 = row[n], row[ref]
                r['ratio'] = r['ns'] / r0['ns']
                r['pair_ratios'] = [x / y for x, y in
                                    zip(r['boot_medians'][:nboots], r0['boot_medians'])]
                r['excess_diff'] = r['excess'] - r0['excess']
                r['pair_excess_diffs'] = [x - y for x, y in
                                          zip(r['boot_excess'][:nboots], r0['boot_excess'])]
            rows.append(row)

    others = names[1:]
    print(f'{len(names)} kernels, {nboots} interleaved boots each; reference {ref}')
    print('\nTable 1: ns per allocate+free pair: median of all runs (min-max of the '
          'boot medians);\nratio to the reference: of the medians, then median '
          '[min-max] of the boot pairs')
    for path in PATHS:
        h = f"{path:<11}" + ''.join(f"{n:>19}" for n in names) + \
            ''.join(f"{n + '/' + ref:>27}" for n in others)
        print('\n' + h + '\n' + '-' * len(h))
        for r in (r for r in rows if r['path'] == path):
            s = f"{r['pages']:>5} pages"
            for n in names:
                bm = r[n]['boot_medians']
                s += f"{r[n]['ns']:.0f} ({min(bm):.0f}-{max(bm):.0f})".rjust(19)
            for n in others:
                pr = r[n]['pair_ratios']
                s += (f"{r[n]['ratio']:.3f} {st.median(pr):.2f} "
                      f"[{min(pr):.2f}-{max(pr):.2f}]").rjust(27)
            print(s)
        print(f"{'gmean':<11}" + ' ' * 19 * len(names) +
              ''.join(f"{gmean(rows, path, n):.3f}".ljust(21).rjust(27) for n in others))

    print('\nTable 2: excess over alloc_pages of the same run, ns: median of all '
          'runs;\ndifference to the reference: of the medians, then median '
          '[25th-75th percentile] of the boot pairs')
    for path in PATHS[:-1]:
        h = f"{path:<11}" + ''.join(f"{n:>10}" for n in names) + \
            ''.join(f"{n + '-' + ref:>27}" for n in others)
        print('\n' + h + '\n' + '-' * len(h))
        for r in (r for r in rows if r['path'] == path):
            s = f"{r['pages']:>5} pages" + ''.join(f"{r[n]['excess']:>10.0f}" for n in names)
            for n in others:
                d = r[n]['pair_excess_diffs']
                lo, hi = quart(d)
                s += (f"{r[n]['excess_diff']:+.0f} {st.median(d):+.0f} "
                      f"[{lo:+.0f} {hi:+.0f}]").rjust(27)
            print(s)

    doc = {'reference': ref, 'interleaved_boots': nboots,
           'kernels': {n: {'boots': len(k[n][1]), 'kernel': k[n][1][0].get('kernel'),
                           'cmdline': sorted({f.get('cmdline') for f in k[n][1]})}
                       for n in names},
           'gmean': {n: {p: gmean(rows, p, n) for p in PATHS} for n in others},
           'rows': rows}
    with open(a.json, 'w', encoding='utf-8') as f:
        json.dump(doc, f, indent=1)
        f.write('\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
