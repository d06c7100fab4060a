#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Table and JSON for the pool part of `make bench`.

usage: report.py --json FILE [facts...] GUEST_OUTPUT...
       report.py --replot build/bench/pool.json   (redraw the PNG from it)

The PNG (gnuplot, through scripts/bench/plot.py) goes next to the JSON,
with its name: build/bench/pool.png.

Each guest output (one per boot, from scripts/bench/pool/guest.sh) holds
"key: value" facts and the lines of /sys/kernel/debug/mask_alloc/bench of
each run, prefixed with "bench RUN ":

  bench 1 # iterations 2000 rounds 5 clock_ns 30 pool_free_pages_before ...
  bench 1 pool24 pages 1 ns 812.4 alloc_pages_ns 301.0 ratio 2.698 pairs ...

Every run measures every path beside alloc_pages() in the same boot, so
its ratio is the unit here: per path and size the table shows the run
with the median ratio (the lower median of an even count): the path's ns
per allocate+free pair, alloc_pages' ns and their ratio, all from that
run, and the spread (max/min) of all the runs' ratios.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import plot  # noqa: E402  scripts/bench/plot.py

PAGE = 4096
PATHS = {
    'pool24': 'the pool alone below 2^24: mask_pool_alloc_bounce + mask_pool_free_bounce',
    'pool32': 'the pool alone below 2^32: mask_pool_alloc_bounce + mask_pool_free_bounce',
    'api24': 'alloc_pages_mask(GFP_KERNEL, size, DMA_BIT_MASK(24)) + __free_pages_mask',
    'api32': 'alloc_pages_mask(GFP_KERNEL, size, DMA_BIT_MASK(32)) + __free_pages_mask',
}


def parse(path):
    facts, runs = {}, {}
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            w = line.split()
            if len(w) > 2 and w[0] == 'bench':
                run = runs.setdefault(int(w[1]), {'header': {}, 'rows': []})
                kv = w[3:] if w[2] == '#' else w[2:]
                d = {}
                if w[2] != '#':
                    d['path'] = kv.pop(0)
                for k, v in zip(kv[::2], kv[1::2]):
                    d[k] = float(v) if '.' in v else int(v)
                if w[2] == '#':
                    run['header'] = d
                else:
                    run['rows'].append(d)
            elif ': ' in line:
                k, v = line.rstrip('\n').split(': ', 1)
                facts[k] = v
    return facts, runs


def size_label(n):
    return f'{n // 1024} KiB' if n % 1024 == 0 else f'{n} B'


# the plot's series: path, legend, colour
SERIES = [
    ('alloc_pages', 'alloc_pages + __free_pages (stock page allocator)', plot.STOCK),
    ('pool24', 'the pool alone, below 2^24', '#e6550d'),
    ('pool32', 'the pool alone, below 2^32', '#fdae6b'),
    ('api24', 'alloc_pages_mask, 24-bit mask', '#31a354'),
    ('api32', 'alloc_pages_mask, 32-bit mask', '#a1d99b'),
]


def draw(doc, png):
    """pool's PNG from its JSON document: None or what went wrong."""
    rows = doc['rows']
    p = doc.get('params', {})
    f0 = doc['boots'][0]['facts'] if doc.get('boots') else {}
    runs = [(b, run) for b in doc.get('boots', []) for run in b['runs']]
    hdr0 = runs[0][1]['header'] if runs else {}
    # every run's value, for the whiskers (min-max over the runs)
    every = {}
    for _, run in runs:
        for r in run['rows']:
            every.setdefault((r['path'], r['pages']), []).append(r)
    pool_mib = int(f0.get('pool_before_pool_bytes', 0) or 0) >> 20
    title = (f"pool: the mask pool's allocate+free against alloc_pages() + __free_pages() "
             f"of the same size, in one boot (mm/mask_alloc/bench.c)\n"
             f"kernel {f0.get('kernel', '?')}, {p.get('mem', '?')}, {f0.get('cpus', '?')} CPU, "
             f"{p.get('append') or 'default pool'} (pool {f0.get('pool_before_lowest_addr', '?')}"
             f"-{f0.get('pool_before_highest_addr', '?')}, {pool_mib} MiB), clocksource "
             f"{f0.get('clocksource', '?')} (step {hdr0.get('clock_ns', '?')} ns)\n"
             f"each bar: median of {p.get('rounds', '?')} rounds x {p.get('iterations', '?')} "
             f"pairs, from the run with the median ratio of {len(runs)} run(s); whiskers: "
             f"min-max over the runs; host load {doc.get('host_loadavg', '?')}")
    sizes = sorted({r['pages'] for r in rows})
    by = {(r['path'], r['pages']): r for r in rows}
    present = [s for s in SERIES if any((s[0], n) in by for n in sizes)]

    def legend(k, t):
        z = sum(r['zones'] for r in rows if r['path'] == k)
        return f'{t} (zones served {z})' if z else t

    def val(k, n, key):
        r = by.get((k, n))
        if r is None:
            return None
        xs = [x[key] for x in every.get((k, n), []) if key in x]
        return (r[key], min(xs), max(xs)) if len(xs) > 1 else r[key]

    fig = plot.Figure(png, title, rows=[[1], [1]], heights=[1, 1], width=1600, height=1150)
    fig.bars('time per allocate+free pair, by size',
             'ns per allocate+free pair (median)',
             [(plot.size_label(n * 4096) + f'\n{n} page' + ('s' if n > 1 else ''),
               {k: val(k, n, 'ns') for k, _, _ in present}) for n in sizes],
             [(k, legend(k, t), c) for k, t, c in present], fmt='%.0f',
             whisker_title='min-max of the runs', key='above horizontal maxcols 3')
    rs = [s for s in present if s[0] != 'alloc_pages']
    fig.bars('ratio to alloc_pages of the same run (log scale; 1 = as fast as alloc_pages, '
             'above 1: slower)', 'path ns / alloc_pages ns',
             [(plot.size_label(n * 4096), {k: val(k, n, 'ratio') for k, _, _ in rs})
              for n in sizes],
             [(k, legend(k, t), c) for k, t, c in rs], base=1.0, logy=True, fmt='%.2f',
             targets=[(1.0, 'alloc_pages (ratio 1)', plot.STOCK)],
             whisker_title='min-max of the runs',
             key='above horizontal maxcols 3')
    return fig.render()


def replot(path):
    return plot.replot(path, draw, 'pool')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--replot', metavar='JSON',
                    help='only redraw the PNG from this JSON (written next to it)')
    ap.add_argument('--json')
    ap.add_argument('--iters', type=int)
    ap.add_argument('--rounds', type=int)
    ap.add_argument('--mem')
    ap.add_argument('--smp')
    ap.add_argument('--append')
    ap.add_argument('--elapsed', type=int)
    ap.add_argument('--loadavg')
    ap.add_argument('--loadavg-after')
    ap.add_argument('outputs', nargs='*')
    a = ap.parse_args()
    if a.replot:
        return replot(a.replot)
    if not (a.json and a.outputs):
        ap.error('--json and the guest outputs are needed (or --replot JSON)')

    boots, samples = [], []
    for boot, path in enumerate(a.outputs, 1):
        facts, runs = parse(path)
        boots.append({'facts': facts,
                      'runs': [{'run': r, **runs[r]} for r in sorted(runs)]})
        for r in sorted(runs):
            if runs[r]['header'].get('error', 0) != 0:
                print(f'error: boot {boot} run {r}: error {runs[r]["header"]["error"]}',
                      file=sys.stderr)
                return 1
            for row in runs[r]['rows']:
                samples.append({'boot': boot, 'run': r, **row})
    if not samples:
        print('error: no bench results', file=sys.stderr)
        return 1

    rows = []
    for p in list(PATHS) + ['alloc_pages']:
        for pages in sorted({s['pages'] for s in samples}):
            ss = sorted((s for s in samples if s['path'] == p and s['pages'] == pages),
                        key=lambda s: s['ratio'])
            ratios = [s['ratio'] for s in ss]
            # the run with the median ratio (the lower one of an even count),
            # so that the three numbers of a row come from one run
            mid = ss[(len(ss) - 1) // 2]
            rows.append({
                'path': p, 'pages': pages, 'size': pages * PAGE,
                'ns': mid['ns'], 'alloc_pages_ns': mid['alloc_pages_ns'],
                'ratio': mid['ratio'], 'boot': mid['boot'], 'run': mid['run'],
                'spread': round(max(ratios) / min(ratios), 2) if min(ratios) > 0 else None,
                'zones': sum(s['zones'] for s in ss),
                'runs': len(ss),
            })

    f0 = boots[0]['facts']
    hdr0 = boots[0]['runs'][0]['header']
    nruns = len({(s['boot'], s['run']) for s in samples})
    print(f"mask pool microbenchmark (mm/mask_alloc/bench.c): {a.mem}, "
          f"{f0.get('cpus', '?')} CPU, clocksource {f0.get('clocksource', '?')} "
          f"(step {hdr0.get('clock_ns', '?')} ns), {a.append or 'default pool'}; "
          f"pool {f0.get('pool_before_lowest_addr', '?')}-"
          f"{f0.get('pool_before_highest_addr', '?')}, "
          f"{int(f0.get('pool_before_pool_bytes', 0)) >> 20} MiB")
    print(f"ns per allocate+free pair, each the median of {a.rounds} rounds x "
          f"{a.iters} pairs; ratio: path / alloc_pages of the same run; each "
          f"row is the run with the median ratio of {nruns} runs in "
          f"{len(boots)} boot(s); spread: max/min of the runs' ratios")
    print(f"host loadavg {a.loadavg} (start), {a.loadavg_after} (end)")
    for p, what in PATHS.items():
        print(f'\n{p}: {what}')
        if p in ('api24', 'api32'):
            z = sum(r['zones'] for r in rows if r['path'] == p)
            print('  the zones are tried first (without reclaim) unless the '
                  'mask ends inside the pool\'s span\n  or maskzone=force; '
                  'pool runs are prepared and freed in power-of-two chunks.  '
                  f'Allocations the zones served: {z}')
        h = f"{'size':>7} {p + ' ns':>10} {'alloc_pages ns':>14} {'ratio':>6} {'spread':>6}"
        print(h)
        print('-' * len(h))
        for r in rows:
            if r['path'] != p:
                continue
            sp = f"{r['spread']:>6.2f}" if r['spread'] is not None else f"{'-':>6}"
            print(f"{size_label(r['size']):>7} {r['ns']:>10.1f} "
                  f"{r['alloc_pages_ns']:>14.1f} {r['ratio']:>6.2f} {sp}")

    pool_ok = all(run['header'].get('pool_free_pages_before') ==
                  run['header'].get('pool_free_pages_after')
                  for b in boots for run in b['runs'])
    if not pool_ok:
        print('note: the pool did not end as it started in some run '
              '(pool_free_pages_before/after in the JSON)')
    doc = {
        'benchmark': 'mask_alloc/bench',
        'params': {'iterations': a.iters, 'rounds': a.rounds, 'mem': a.mem,
                   'smp': a.smp, 'append': a.append,
                   'statistic': 'per run: median over rounds; per row: the run '
                                'with the median ratio (lower median)'},
        'paths': {**PATHS, 'alloc_pages': 'alloc_pages(GFP_KERNEL, order) + __free_pages'},
        'elapsed_s': a.elapsed,
        'host_loadavg': a.loadavg,
        'host_loadavg_after': a.loadavg_after,
        'pool_whole_after_every_run': pool_ok,
        'rows': rows,
        'boots': boots,
    }
    return plot.write_report(a.json, doc, draw, 'pool', blank_line=True)


if __name__ == '__main__':
    sys.exit(main())
