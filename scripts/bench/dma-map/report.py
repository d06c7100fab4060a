#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Table, plots and JSON for the dma-map part of `make bench`.

usage: report.py --json FILE [facts...] SECTION:MODE=OUTPUT...
       report.py --replot build/bench/dma-map.json   (redraw the PNG from it)

The PNG (gnuplot, through scripts/bench/plot.py) goes next to the JSON,
with its name: build/bench/dma-map.png.

SECTION is "nobounce" (no swiotlb=force, 64-bit mask) or "force"
(swiotlb=force; the 32-bit rows and the low-mask rows).  MODE is "off"
(stock swiotlb, dmatlb=off), "on" (dmatlb) or "nodm" (a kernel built
without CONFIG_SWIOTLB_MASK_ALLOC).  A pair may come several times, one
file per boot.  Each guest output (scripts/bench/dma-map/guest.sh) holds
"key: value" facts and these lines:

  sample ROUND BITS GRANULE THREADS MAP_US MAP_SD UNMAP_US UNMAP_SD
  fail ROUND BITS GRANULE THREADS
  knob ROUND SIZE THREADS NS_PER_PAIR WALL_NS THREAD_NS_PER_PAIR...

One table holds every row: the median over all rounds of all boots of a
mode, the ratios, the spread and the verdict against the targets:

  nobounce, ns instrument   on/off <= 1.02 and on/nodmatlb <= 1.02
  nobounce, dma_map_benchmark  shown only ("info"): steps of 0.1 us
  force, 32-bit             on/off <= 1.00
  force, low mask           off fails every map, on maps every time with
                            at most 1.1x the latency of the 32-bit row

A missed target is a FAIL row; the exit status is 0 unless the input is
broken.
"""
import argparse
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import plot  # noqa: E402  scripts/bench/plot.py

PAGE = 4096
NB_TARGET = 1.02
FORCE_TARGET = 1.00
LOW_TARGET = 1.10
MODES = ('off', 'on', 'nodm')
COLORS = {'off': plot.STOCK, 'on': plot.PATCHED, 'nodm': plot.OTHER}
LABELS = {'off': 'dmatlb=off (stock)', 'on': 'dmatlb=on',
          'nodm': 'kernel without dmatlb'}


def parse(path):
    facts, samples, fails, knobs = {}, [], [], []
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith('#'):
                continue  # progress
            if w[0] == 'sample' and len(w) == 9:
                samples.append({
                    'round': int(w[1]), 'bits': int(w[2]),
                    'granule': int(w[3]), 'threads': int(w[4]),
                    'map_us': float(w[5]), 'map_stdev_us': float(w[6]),
                    'unmap_us': float(w[7]), 'unmap_stdev_us': float(w[8]),
                })
            elif w[0] == 'fail' and len(w) == 5:
                fails.append({'round': int(w[1]), 'bits': int(w[2]),
                              'granule': int(w[3]), 'threads': int(w[4])})
            elif w[0] == 'knob' and len(w) >= 7:
                knobs.append({
                    'round': int(w[1]), 'size': int(w[2]),
                    'threads': int(w[3]), 'ns_per_pair': float(w[4]),
                    'wall_ns': int(w[5]),
                    'thread_ns_per_pair': [float(x) for x in w[6:]],
                })
            elif ': ' in line:
                k, v = line.rstrip('\n').split(': ', 1)
                facts[k] = v
    return facts, samples, fails, knobs


def size_label(n):
    return f'{n // 1024} KiB' if n % 1024 == 0 else f'{n} B'


def med(xs):
    return statistics.median(xs) if xs else None


def spread(xs):
    return max(xs) / min(xs) if xs and min(xs) > 0 else None


def rel_se(xs):
    """Relative standard error of the median of xs (normal approximation)."""
    if len(xs) < 2 or not statistics.median(xs):
        return None
    return 1.2533 * statistics.stdev(xs) / math.sqrt(len(xs)) / \
        statistics.median(xs)


def ratio(a, b):
    return round(a / b, 4) if a is not None and b else None


def combine_se(a, b):
    if a is None or b is None:
        return None
    return math.sqrt(a * a + b * b)


def build_rows(data, low_bits):
    rows = []

    def of(section, mode):
        return data.get((section, mode), {'samples': [], 'fails': [],
                                          'knobs': []})

    # nobounce: the ns instrument, then dma_map_benchmark
    keys = sorted({(k['size'], k['threads']) for m in MODES
                   for k in of('nobounce', m)['knobs']})
    for size, t in keys:
        row = {'section': 'nobounce', 'tool': 'dma_bench', 'bits': 64,
               'size': size, 'threads': t, 'op': 'map+unmap', 'unit': 'ns'}
        for m in MODES:
            xs = [k['ns_per_pair'] for k in of('nobounce', m)['knobs']
                  if k['size'] == size and k['threads'] == t]
            row[m] = med(xs)
            row[f'{m}_samples'] = xs
            row[f'{m}_rel_se'] = rel_se(xs)
        row['on_off'] = ratio(row['on'], row['off'])
        row['on_nodm'] = ratio(row['on'], row['nodm'])
        # the fastest round: what the host's load cannot make faster
        for m in MODES:
            row[f'{m}_min'] = min(row[f'{m}_samples'], default=None)
        row['on_off_min'] = ratio(row['on_min'], row['off_min'])
        row['on_nodm_min'] = ratio(row['on_min'], row['nodm_min'])
        row['on_off_resolution'] = combine_se(row['on_rel_se'],
                                              row['off_rel_se'])
        row['on_nodm_resolution'] = combine_se(row['on_rel_se'],
                                               row['nodm_rel_se'])
        row['spread'] = max((s for s in (spread(row[f'{m}_samples'])
                                         for m in MODES) if s), default=None)
        rs = [r for r in (row['on_off'], row['on_nodm']) if r is not None]
        row['target'] = f'<= {NB_TARGET:.2f}'
        row['verdict'] = ('PASS' if rs and all(r <= NB_TARGET for r in rs)
                          else 'FAIL' if rs else '-')
        rows.append(row)

    def tool_rows(section, bits_set, verdict):
        keys = sorted({(s['bits'], s['granule'], s['threads'])
                       for m in MODES for s in
                       of(section, m)['samples'] + of(section, m)['fails']
                       if s['bits'] in bits_set},
                      key=lambda k: (-k[0], k[1], k[2]))
        for bits, g, t in keys:
            for op in ('map', 'unmap'):
                row = {'section': section, 'tool': 'dma_map_benchmark',
                       'bits': bits, 'size': g * PAGE, 'threads': t,
                       'op': op, 'unit': 'us'}
                for m in MODES:
                    d = of(section, m)
                    xs = [s[f'{op}_us'] for s in d['samples']
                          if (s['bits'], s['granule'], s['threads']) ==
                          (bits, g, t)]
                    nf = sum(1 for s in d['fails']
                             if (s['bits'], s['granule'], s['threads']) ==
                             (bits, g, t))
                    row[m] = med(xs)
                    row[f'{m}_samples'] = xs
                    row[f'{m}_stdev'] = med(
                        [s[f'{op}_stdev_us'] for s in d['samples']
                         if (s['bits'], s['granule'], s['threads']) ==
                         (bits, g, t)])
                    row[f'{m}_fails'] = nf
                    row[f'{m}_runs'] = nf + len(xs)
                row['on_off'] = ratio(row['on'], row['off'])
                row['on_nodm'] = ratio(row['on'], row['nodm'])
                row['spread'] = max((s for s in (spread(row[f'{m}_samples'])
                                                 for m in MODES) if s),
                                    default=None)
                verdict(row)
                rows.append(row)

    def nb_verdict(row):
        row['target'] = 'info (0.1 us steps)'
        row['verdict'] = 'info'

    def force_verdict(row):
        row['target'] = f'<= {FORCE_TARGET:.2f}'
        if row['on_fails'] or row['off_fails']:
            row['verdict'] = 'FAIL'
        elif row['on_off'] is None:
            row['verdict'] = '-'
        else:
            row['verdict'] = 'PASS' if row['on_off'] <= FORCE_TARGET else 'FAIL'

    tool_rows('nobounce', {64}, nb_verdict)
    force_bits = {s['bits'] for m in MODES for s in
                  of('force', m)['samples'] + of('force', m)['fails']}
    tool_rows('force', force_bits - {low_bits}, force_verdict)

    # low mask: off must fail every run, on must map every run, at most
    # LOW_TARGET times the 32-bit dmatlb row of the same size and threads
    ref = {(r['size'], r['threads'], r['op']): r for r in rows
           if r['section'] == 'force' and r['bits'] == 32}

    def low_verdict(row):
        r32 = ref.get((row['size'], row['threads'], row['op']))
        row['ref32_on'] = r32['on'] if r32 else None
        row['on_ref32'] = ratio(row['on'], row['ref32_on'])
        row['target'] = f'off fails, on <= {LOW_TARGET:.1f}x 32-bit'
        off_all_fail = row['off_runs'] > 0 and \
            row['off_fails'] == row['off_runs']
        on_ok = row['on_runs'] > 0 and row['on_fails'] == 0
        if not row['off_runs'] and not row['on_runs']:
            row['verdict'] = '-'
        elif not (off_all_fail and on_ok):
            row['verdict'] = 'FAIL'
        elif row['on_ref32'] is None:
            row['verdict'] = '-'  # no 32-bit row to compare with
        else:
            row['verdict'] = 'PASS' if row['on_ref32'] <= LOW_TARGET \
                else 'FAIL'

    if low_bits:
        row0 = len(rows)
        tool_rows('force', {low_bits}, low_verdict)
        for r in rows[row0:]:
            r['section'] = 'low'
    return rows


def fmt(x, w, p=1):
    return f'{x:>{w}.{p}f}' if x is not None else f"{'-':>{w}}"


def cell(row, m, w):
    if row.get(f'{m}_runs') and row.get(f'{m}_fails') == row[f'{m}_runs']:
        return f"{'fails':>{w}}"
    v = fmt(row.get(m), w)
    if row.get(f'{m}_fails'):
        v = f"{'fail ' + str(row[f'{m}_fails']) + '/' + str(row[f'{m}_runs']):>{w}}"
    return v


def print_table(rows):
    hdr = (f"{'section':<8} {'tool':<17} {'bits':>4} {'size':>6} {'thr':>3} "
           f"{'op':<9} {'unit':<4} {'off':>9} {'on':>9} {'on/off':>7} "
           f"{'nodmatlb':>9} {'on/nodm':>7} {'on/32bit':>8} {'±%':>5} "
           f"{'spread':>6} {'target':<27} verdict")
    print(hdr)
    print('-' * len(hdr))
    for r in rows:
        res = max((x for x in (r.get('on_off_resolution'),
                               r.get('on_nodm_resolution')) if x),
                  default=None)
        print(f"{r['section']:<8} {r['tool']:<17} {r['bits']:>4} "
              f"{size_label(r['size']):>6} {r['threads']:>3} {r['op']:<9} "
              f"{r['unit']:<4} {cell(r, 'off', 9)} {cell(r, 'on', 9)} "
              f"{fmt(r.get('on_off'), 7, 3)} {cell(r, 'nodm', 9)} "
              f"{fmt(r.get('on_nodm'), 7, 3)} {fmt(r.get('on_ref32'), 8, 3)} "
              f"{fmt(res * 100 if res else None, 5, 1)} "
              f"{fmt(r.get('spread'), 6, 2)} {r['target']:<27} {r['verdict']}")


def draw(doc, png):
    """dma-map's PNG from its JSON document: None or what went wrong."""
    rows = doc['rows']
    p = doc.get('params', {})
    tg = p.get('targets', {})
    nb_t = tg.get('nobounce', NB_TARGET)
    f_t = tg.get('force', FORCE_TARGET)
    low_t = tg.get('low_vs_32bit', LOW_TARGET)
    low_bits = p.get('low_bits')
    title = (f"dma-map: streaming DMA map+unmap cost, dmatlb=on (patched) against "
             f"dmatlb=off (stock swiotlb), alternating boots of one kernel\n"
             f"kernel {doc.get('kernel') or '?'} ({doc.get('tree') or '?'})\n"
             f"{p.get('dir', '?')}, {p.get('mem', '?')}; boots per mode "
             f"{', '.join(f'{k} {v}' for k, v in (doc.get('boots_per_mode') or {}).items())}; "
             f"bars: median over all rounds of all boots of a mode\ntargets: "
             f"{doc.get('passed', '?')} PASS, {doc.get('failed', '?')} FAIL (red values: "
             f"missed); host load {doc.get('host_loadavg') or '?'}")
    fig = plot.Figure(png, title, rows=[[1, 1], [1, 1], [1]], heights=[1, 1, 1.1],
                      width=1700, height=1750)

    def stat(r, m):
        xs = r.get(f'{m}_samples')
        if r.get(f'{m}_runs') and r.get(f'{m}_fails') == r[f'{m}_runs']:
            return 'fails'
        if r.get(m) is None:
            return None
        return (r[m], min(xs), max(xs)) if xs and len(xs) > 1 else r[m]

    def thr(t):
        return f"{t} thread{'s' if t > 1 else ''}"

    # nobounce: the ns instrument, each mode, and the ratios to the target
    nb = [r for r in rows if r['section'] == 'nobounce' and r['tool'] == 'dma_bench']
    nb_series = [(m, LABELS[m], COLORS[m]) for m in MODES]
    fig.bars(f"no bounce (64-bit mask, no swiotlb=force, -smp {p.get('nobounce_smp', '?')}): "
             f"one dma_map_page+unmap pair (mask_alloc/dma_bench)",
             'ns per map+unmap pair', [(f"{size_label(r['size'])}\n{thr(r['threads'])}",
                                        {m: stat(r, m) for m in MODES}) for r in nb],
             nb_series, fmt='%.1f', rotate=False)

    def ratio_whisker(r, k, res):
        v = r.get(k)
        if v is None:
            return None
        e = r.get(res)
        return (v, v * (1 - e), v * (1 + e)) if e else v
    bad = {}
    for gi, r in enumerate(nb):
        for k in ('on_off', 'on_nodm'):
            if r.get(k) is not None and r[k] > nb_t:
                bad[(gi, k)] = plot.TARGET
    fig.bars('no bounce: dmatlb=on over dmatlb=off and over a kernel without dmatlb '
             '(above 1: dmatlb is slower)', 'ratio of medians',
             [(f"{size_label(r['size'])}\n{thr(r['threads'])}",
               {'on_off': ratio_whisker(r, 'on_off', 'on_off_resolution'),
                'on_nodm': ratio_whisker(r, 'on_nodm', 'on_nodm_resolution')})
              for r in nb],
             [('on_off', 'dmatlb=on / dmatlb=off', COLORS['on']),
              ('on_nodm', 'dmatlb=on / kernel without dmatlb', COLORS['nodm'])],
             base=1.0, fmt='%.3f', rotate=False,
             targets=[(nb_t, f'target <= {nb_t:.2f}', plot.TARGET)],
             whisker_title='± standard error of the ratio', label_colours=bad)

    # force and low: dma_map_benchmark latency, map and unmap
    fr = {(r['section'], r['size'], r['threads'], r['op']): r for r in rows
          if r['section'] in ('force', 'low')}
    keys = sorted({(sz, t) for (_, sz, t, _) in fr})
    fbits = p.get('force_bits', 32)
    for op in ('map', 'unmap'):
        groups = []
        for sz, t in keys:
            d = {}
            r = fr.get(('force', sz, t, op))
            if r:
                d['off'], d['on'] = stat(r, 'off'), stat(r, 'on')
            r = fr.get(('low', sz, t, op))
            if r:
                d['low_off'], d['low_on'] = stat(r, 'off'), stat(r, 'on')
            groups.append((f'{size_label(sz)}\n{thr(t)}', d))
        if not groups:
            continue
        series = [('off', f'{fbits}-bit mask, dmatlb=off (stock)', COLORS['off']),
                  ('on', f'{fbits}-bit mask, dmatlb=on', COLORS['on'])]
        if low_bits and any('low_on' in d for _, d in groups):
            series += [('low_off', f'{low_bits}-bit mask, dmatlb=off ("fails": every map failed)',
                        '#666666'),
                       ('low_on', f'{low_bits}-bit mask, dmatlb=on', '#a6520e')]
        fig.bars(f"swiotlb=force (every map bounces), -smp {p.get('smp', '?')}: "
                 f"dma_map_benchmark {op} latency (log scale)",
                 f'us per {op} (median)', groups, series, base=1, logy=True,
                 fmt='%.1f', key='above horizontal maxcols 3')

    # force and low: the ratios against their targets
    groups, bad = [], {}
    for op in ('map', 'unmap'):
        for sz, t in keys:
            d = {}
            r = fr.get(('force', sz, t, op))
            if r and r.get('on_off') is not None:
                d['on_off'] = r['on_off']
                if r['verdict'] == 'FAIL':
                    bad[(len(groups), 'on_off')] = plot.TARGET
            r = fr.get(('low', sz, t, op))
            if r and r.get('on_ref32') is not None:
                d['on_ref32'] = r['on_ref32']
                if r['verdict'] == 'FAIL':
                    bad[(len(groups), 'on_ref32')] = plot.TARGET
            groups.append((f'{size_label(sz)}\n{t} thr', d))
    if groups:
        n = len(keys)
        series = [('on_off', f'{fbits}-bit: dmatlb=on / dmatlb=off (target <= {f_t:.2f})',
                   COLORS['on'])]
        targets = [(f_t, f'target on/off <= {f_t:.2f}', plot.TARGET)]
        if low_bits and any('on_ref32' in d for _, d in groups):
            series.append(('on_ref32', f'{low_bits}-bit dmatlb=on / {fbits}-bit dmatlb=on '
                           f'(target <= {low_t:.2f}; stock fails every {low_bits}-bit map)',
                           '#a6520e'))
            targets.append((low_t, f'target {low_bits}/{fbits}-bit <= {low_t:.2f}', '#7b3294'))
        fig.bars('swiotlb=force: the ratios of medians against their targets (above 1: '
                 'dmatlb slower)', 'ratio', groups, series, base=1.0, fmt='%.3f',
                 targets=targets, label_colours=bad,
                 sections=[('map', 0, n - 1), ('unmap', n, 2 * n - 1)])
    return fig.render()


def replot(path):
    return plot.replot(path, draw, 'dma-map')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--replot', metavar='JSON',
                    help='only redraw the PNG from this JSON (written next to it)')
    ap.add_argument('--json')
    ap.add_argument('--seconds', type=int)
    ap.add_argument('--reps', type=int)
    ap.add_argument('--knob-rounds', type=int)
    ap.add_argument('--knob-pairs', type=int)
    ap.add_argument('--dir', type=int, default=0)
    ap.add_argument('--bits', type=int, default=32)
    ap.add_argument('--low-bits', type=int, default=28)
    ap.add_argument('--mem')
    ap.add_argument('--smp', type=int)
    ap.add_argument('--nb-smp', type=int)
    ap.add_argument('--elapsed', type=int)
    ap.add_argument('--loadavg')
    ap.add_argument('--kernel')
    ap.add_argument('--tree')
    ap.add_argument('runs', nargs='*', help='SECTION:MODE=FILE')
    a = ap.parse_args()
    if a.replot:
        return replot(a.replot)
    if not (a.json and a.runs):
        ap.error('--json and SECTION:MODE=FILE runs are needed (or --replot JSON)')

    data, boots = {}, []
    for i, r in enumerate(a.runs):
        key, path = r.split('=', 1)
        section, mode = key.split(':', 1)
        if mode not in MODES or section not in ('nobounce', 'force'):
            print(f'report.py: bad run {r}', file=sys.stderr)
            return 2
        facts, samples, fails, knobs = parse(path)
        if facts.get('done') != 'ok':
            print(f'report.py: {path} did not finish', file=sys.stderr)
            return 2
        for x in samples + fails + knobs:
            x['boot'] = i
        d = data.setdefault((section, mode), {'samples': [], 'fails': [],
                                              'knobs': [], 'boots': 0})
        d['samples'] += samples
        d['fails'] += fails
        d['knobs'] += knobs
        d['boots'] += 1
        boots.append({'boot': i, 'section': section, 'mode': mode,
                      'file': os.path.basename(path), 'facts': facts})
    rows = build_rows(data, a.low_bits)

    dirs = {0: 'BIDIRECTIONAL', 1: 'TO_DEVICE', 2: 'FROM_DEVICE'}
    nboots = {f'{s}:{m}': d['boots'] for (s, m), d in sorted(data.items())}
    f0 = boots[0]['facts'] if boots else {}
    print(f"dma-map: kernel {a.kernel or '?'} ({a.tree or '?'}), "
          f"{dirs.get(a.dir, a.dir)}, {a.mem}, clocksource "
          f"{f0.get('clocksource', '?')}; boots {nboots}")
    print(f"nobounce: no swiotlb=force, 64-bit mask, -smp {a.nb_smp}; "
          f"dma_bench = mask_alloc/dma_bench, {a.knob_pairs} "
          f"dma_map_page+unmap pairs per thread timed as a whole, "
          f"{a.knob_rounds} rounds per boot, ns per pair (mean of the "
          "threads); nodmatlb = kernel built without "
          "CONFIG_SWIOTLB_MASK_ALLOC")
    print(f"force/low: swiotlb=force, -smp {a.smp}, dma_map_benchmark "
          f"{a.reps} rounds x {a.seconds} s per boot; low = {a.low_bits}-bit "
          "mask, on/32bit = its dmatlb latency over the 32-bit dmatlb row")
    print("values: median over all rounds of all boots of a mode; ±%: "
          "standard error of the ratio of medians; spread: largest max/min "
          "of one mode's samples")
    print_table(rows)
    knob = [r for r in rows if r['tool'] == 'dma_bench']
    if knob:
        print()
        print('dma_bench detail (ns per pair): median and fastest round of '
              'each mode, ratios of medians and of fastest rounds, rounds')
        hdr = (f"{'size':>6} {'thr':>3} {'off':>7} {'min':>7} {'on':>7} "
               f"{'min':>7} {'nodm':>7} {'min':>7} {'on/off':>7} "
               f"{'(min)':>7} {'on/nodm':>7} {'(min)':>7} rounds")
        print(hdr)
        print('-' * len(hdr))
        for r in knob:
            n = '/'.join(str(len(r[f'{m}_samples'])) for m in MODES)
            print(f"{size_label(r['size']):>6} {r['threads']:>3} "
                  + ' '.join(f"{fmt(r.get(m), 7)} {fmt(r.get(m + '_min'), 7)}"
                             for m in MODES)
                  + f" {fmt(r.get('on_off'), 7, 3)} "
                  f"{fmt(r.get('on_off_min'), 7, 3)} "
                  f"{fmt(r.get('on_nodm'), 7, 3)} "
                  f"{fmt(r.get('on_nodm_min'), 7, 3)} {n}")
        print()
    npass = sum(r['verdict'] == 'PASS' for r in rows)
    nfail = sum(r['verdict'] == 'FAIL' for r in rows)
    print(f'targets: {npass} PASS, {nfail} FAIL')

    doc = {
        'benchmark': 'dma-map',
        'params': {'dir': dirs.get(a.dir, a.dir), 'force_bits': a.bits,
                   'low_bits': a.low_bits, 'mem': a.mem, 'smp': a.smp,
                   'nobounce_smp': a.nb_smp, 'seconds': a.seconds,
                   'rounds_per_boot': a.reps, 'knob_rounds': a.knob_rounds,
                   'knob_pairs': a.knob_pairs,
                   'targets': {'nobounce': NB_TARGET, 'force': FORCE_TARGET,
                               'low_vs_32bit': LOW_TARGET},
                   'statistic': 'median over all rounds of all boots'},
        'kernel': a.kernel, 'tree': a.tree,
        'elapsed_s': a.elapsed, 'host_loadavg': a.loadavg,
        'boots_per_mode': nboots,
        'passed': npass, 'failed': nfail,
        'rows': rows,
        'boots': boots,
        'raw': {f'{s}:{m}': {k: d[k] for k in ('samples', 'fails', 'knobs')}
                for (s, m), d in sorted(data.items())},
    }
    return plot.write_report(a.json, doc, draw, 'dma-map')


if __name__ == '__main__':
    sys.exit(main())
