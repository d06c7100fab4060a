#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Table and JSON for the dma-map part of `make bench`.

usage: report.py --json FILE [facts...] MODE=GUEST_OUTPUT...

MODE is "off" (stock swiotlb) or "on" (dmatlb); a mode may come several
times (one file per boot).  Each guest output holds
"key: value" facts and "sample ROUND GRANULE THREADS MAP_US MAP_SD
UNMAP_US UNMAP_SD" lines from scripts/bench/dma-map/guest.sh.  Per row
(granule, threads, map or unmap) the table shows the median over the
rounds of all boots of the tool's average latency in each mode, the median of the
standard deviation it printed, and the ratio dmatlb / stock.
"""
import argparse
import json
import statistics
import sys

PAGE = 4096


def parse(path):
    facts, samples = {}, []
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('sample '):
                w = line.split()
                samples.append({
                    'round': int(w[1]), 'granule': int(w[2]),
                    'threads': int(w[3]),
                    'map_us': float(w[4]), 'map_stdev_us': float(w[5]),
                    'unmap_us': float(w[6]), 'unmap_stdev_us': float(w[7]),
                })
            elif ': ' in line:
                k, v = line.split(': ', 1)
                facts[k] = v
    return facts, samples


def size_label(n):
    return f'{n // 1024} KiB' if n % 1024 == 0 else f'{n} B'


def med(xs):
    return statistics.median(xs) if xs else None


def bounce_active(facts):
    """1/0 from the mask pool's debugfs, None when the kernel has none."""
    v = facts.get('bounce_active_before')
    return None if v is None else v.strip() == '1'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--json', required=True)
    ap.add_argument('--seconds', type=int)
    ap.add_argument('--reps', type=int)
    ap.add_argument('--dir', type=int)
    ap.add_argument('--bits', type=int)
    ap.add_argument('--mem')
    ap.add_argument('--elapsed', type=int)
    ap.add_argument('--loadavg')
    ap.add_argument('--boots', type=int, default=1)
    ap.add_argument('runs', nargs='+', help='MODE=FILE')
    a = ap.parse_args()

    modes = {}
    for boot, r in enumerate(a.runs):
        mode, path = r.split('=', 1)
        facts, samples = parse(path)
        for s in samples:
            s['boot'] = boot
        m = modes.setdefault(mode, {'facts': facts, 'samples': [],
                                    'boot_facts': [],
                                    'bounce_active': bounce_active(facts)})
        m['samples'] += samples
        m['boot_facts'].append(facts)
        # active only if it was active in every boot of this mode
        if m['bounce_active'] is not None:
            m['bounce_active'] = m['bounce_active'] and bounce_active(facts)
    keys = sorted({(s['granule'], s['threads'])
                   for m in modes.values() for s in m['samples']})

    rows = []
    for g, t in keys:
        for op in ('map', 'unmap'):
            row = {'size': g * PAGE, 'granule': g, 'threads': t, 'op': op}
            for mode, col in (('off', 'stock'), ('on', 'dmatlb')):
                ss = [s for s in modes.get(mode, {}).get('samples', [])
                      if s['granule'] == g and s['threads'] == t]
                row[f'{col}_us'] = med([s[f'{op}_us'] for s in ss])
                row[f'{col}_stdev_us'] = med([s[f'{op}_stdev_us'] for s in ss])
                row[f'{col}_samples_us'] = [s[f'{op}_us'] for s in ss]
            st, dm = row['stock_us'], row['dmatlb_us']
            row['ratio'] = round(dm / st, 3) if st and dm is not None else None
            spreads = [max(x) / min(x) for x in (row['stock_samples_us'],
                                                 row['dmatlb_samples_us'])
                       if x and min(x) > 0]
            row['spread'] = round(max(spreads), 2) if spreads else None
            rows.append(row)

    on = modes.get('on', {}).get('bounce_active')
    dirs = {0: 'BIDIRECTIONAL', 1: 'TO_DEVICE', 2: 'FROM_DEVICE'}
    facts_on = modes.get('on', modes.get('off', {})).get('facts', {})
    print(f"dma_map_benchmark: swiotlb=force, {dirs.get(a.dir, a.dir)}, "
          f"{a.bits}-bit mask, {a.mem}, {facts_on.get('cpus', '?')} CPUs, "
          f"clocksource {facts_on.get('clocksource', '?')}")
    print(f"median of {a.boots} boots x {a.reps} rounds x {a.seconds} s per "
          "mode, boots alternating; sd: median of the tool's standard "
          "deviation; spread: largest max/min of one mode's samples")
    if on is not True:
        print('note: the dmatlb=on boot did not bounce through the mask pool '
              f"(mask_alloc/bounce active: {'absent' if on is None else 0}): "
              'both columns are stock swiotlb')
    hdr = (f"{'size':>7} {'thr':>3} {'op':<5} {'stock us':>9} {'(sd)':>7} "
           f"{'dmatlb us':>9} {'(sd)':>7} {'dmatlb/stock':>12} {'spread':>6}")
    print(hdr)
    print('-' * len(hdr))

    def f(x, w):
        return f'{x:>{w}.1f}' if x is not None else f"{'-':>{w}}"
    for r in rows:
        ratio = f"{r['ratio']:>12.2f}" if r['ratio'] is not None else f"{'-':>12}"
        spread = f"{r['spread']:>6.2f}" if r['spread'] is not None else f"{'-':>6}"
        print(f"{size_label(r['size']):>7} {r['threads']:>3} {r['op']:<5} "
              f"{f(r['stock_us'], 9)} {f(r['stock_stdev_us'], 7)} "
              f"{f(r['dmatlb_us'], 9)} {f(r['dmatlb_stdev_us'], 7)} {ratio} "
              f"{spread}")

    doc = {
        'benchmark': 'dma_map_benchmark',
        'params': {'swiotlb': 'force', 'dir': dirs.get(a.dir, a.dir),
                   'dma_bits': a.bits, 'mem': a.mem, 'seconds': a.seconds,
                   'rounds_per_boot': a.reps, 'boots_per_mode': a.boots,
                   'statistic': 'median over all rounds of all boots'},
        'dmatlb_active': on,
        'elapsed_s': a.elapsed,
        'host_loadavg': a.loadavg,
        'rows': rows,
        'modes': {mode: {'boot_facts': m['boot_facts'],
                         'samples': m['samples']}
                  for mode, m in modes.items()},
    }
    with open(a.json, 'w', encoding='utf-8') as out:
        json.dump(doc, out, indent=1)
        out.write('\n')
    print(f'JSON: {a.json}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
