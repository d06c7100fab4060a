#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Table, plots and JSON for the dma-map part of `make bench` (issue 16).

usage: report.py --json FILE --svg-dir DIR [facts...] SECTION:MODE=OUTPUT...

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
import json
import math
import os
import statistics
import sys

PAGE = 4096
NB_TARGET = 1.02
FORCE_TARGET = 1.00
LOW_TARGET = 1.10
MODES = ('off', 'on', 'nodm')
COLORS = {'off': '#4c72b0', 'on': '#dd8452', 'nodm': '#55a868'}
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


def esc(s):
    return (str(s).replace('&', '&amp;').replace('<', '&lt;')
            .replace('>', '&gt;'))


def bar_svg(path, title, ylabel, groups, modes, ref_line=None):
    """Grouped bars with min-max whiskers.

    groups: [(label, {mode: (median, min, max) or None})]
    ref_line: (value, label) drawn across, or None.
    """
    bw, gap, left, top, bottom, h = 14, 18, 70, 40, 90, 260
    width = left + 20 + len(groups) * (len(modes) * bw + gap) + 180
    vals = [v[2] for _, d in groups for v in d.values() if v]
    if ref_line:
        vals.append(ref_line[0])
    ymax = max(vals) * 1.1 if vals else 1
    if ref_line and ylabel == 'ratio':
        ymax = max(ymax, ref_line[0] * 1.15)

    def y(v):
        return top + h - v / ymax * h
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
         f'height="{top + h + bottom}" font-family="sans-serif" '
         'font-size="11">',
         f'<rect width="100%" height="100%" fill="white"/>',
         f'<text x="{left}" y="20" font-size="14">{esc(title)}</text>',
         f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + h}" '
         'stroke="black"/>',
         f'<line x1="{left}" y1="{top + h}" x2="{width - 180}" '
         f'y2="{top + h}" stroke="black"/>',
         f'<text x="14" y="{top + h / 2}" transform="rotate(-90 14 '
         f'{top + h / 2})" text-anchor="middle">{esc(ylabel)}</text>']
    for i in range(6):
        v = ymax * i / 5
        o.append(f'<line x1="{left - 4}" y1="{y(v):.1f}" x2="{left}" '
                 f'y2="{y(v):.1f}" stroke="black"/>')
        o.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" '
                 f'text-anchor="end">{v:.3g}</text>')
    x = left + 10
    for label, d in groups:
        x0 = x
        for m in modes:
            v = d.get(m)
            if v:
                mv, lo, hi = v
                o.append(f'<rect x="{x}" y="{y(mv):.1f}" width="{bw - 2}" '
                         f'height="{top + h - y(mv):.1f}" '
                         f'fill="{COLORS.get(m, "#999")}">'
                         f'<title>{esc(m)}: {mv:.4g}</title></rect>')
                cx = x + (bw - 2) / 2
                o.append(f'<line x1="{cx}" y1="{y(lo):.1f}" x2="{cx}" '
                         f'y2="{y(hi):.1f}" stroke="black"/>')
            x += bw
        cx = (x0 + x) / 2
        o.append(f'<text x="{cx}" y="{top + h + 12}" text-anchor="end" '
                 f'transform="rotate(-45 {cx} {top + h + 12})">'
                 f'{esc(label)}</text>')
        x += gap
    if ref_line:
        o.append(f'<line x1="{left}" y1="{y(ref_line[0]):.1f}" '
                 f'x2="{width - 180}" y2="{y(ref_line[0]):.1f}" '
                 'stroke="red" stroke-dasharray="4 3"/>')
        o.append(f'<text x="{width - 176}" y="{y(ref_line[0]) + 4:.1f}" '
                 f'fill="red">{esc(ref_line[1])}</text>')
    for i, m in enumerate(modes):
        ly = top + 10 + i * 16
        o.append(f'<rect x="{width - 170}" y="{ly - 9}" width="10" '
                 f'height="10" fill="{COLORS.get(m, "#999")}"/>')
        o.append(f'<text x="{width - 155}" y="{ly}">{esc(LABELS.get(m, m))}'
                 '</text>')
    o.append('</svg>')
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(o) + '\n')


def plots(rows, svg_dir):
    def stat(r, m):
        xs = r.get(f'{m}_samples')
        return (r[m], min(xs), max(xs)) if xs and r.get(m) else None

    def label(r):
        return (f"{r['bits']}b {size_label(r['size'])} {r['threads']}t"
                + ('' if r['op'] == 'map+unmap' else f" {r['op']}"))
    written = []
    nb = [r for r in rows if r['section'] == 'nobounce' and
          r['tool'] == 'dma_bench']
    if nb:
        p = os.path.join(svg_dir, 'dma-map-nobounce.svg')
        bar_svg(p, 'no bounce, 64-bit mask: ns per dma_map_page+unmap pair '
                '(median, min-max of rounds)', 'ns per pair',
                [(label(r), {m: stat(r, m) for m in MODES}) for r in nb],
                MODES)
        written.append(p)
    fr = [r for r in rows if r['section'] in ('force', 'low')]
    if fr:
        p = os.path.join(svg_dir, 'dma-map-force.svg')
        bar_svg(p, 'swiotlb=force: dma_map_benchmark latency (median, '
                'min-max); a missing bar is a mode that failed', 'us',
                [(label(r), {m: stat(r, m) for m in ('off', 'on')})
                 for r in fr], ('off', 'on'))
        written.append(p)
    rr = [r for r in rows if r.get('on_off') is not None]
    if rr:
        p = os.path.join(svg_dir, 'dma-map-ratios.svg')
        groups = []
        for r in rr:
            d = {'on': (r['on_off'], r['on_off'], r['on_off'])}
            if r.get('on_nodm') is not None:
                d['nodm'] = (r['on_nodm'], r['on_nodm'], r['on_nodm'])
            groups.append((f"{r['section']} {label(r)}"
                           + (' ns' if r['tool'] == 'dma_bench' else ''), d))
        bar_svg(p, 'ratios: dmatlb=on / dmatlb=off (orange), dmatlb=on / '
                'kernel without dmatlb (green)', 'ratio', groups,
                ('on', 'nodm'), ref_line=(1.0, 'ratio 1.0'))
        written.append(p)
    return written


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--json', required=True)
    ap.add_argument('--svg-dir')
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
    ap.add_argument('runs', nargs='+', help='SECTION:MODE=FILE')
    a = ap.parse_args()

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

    written = plots(rows, a.svg_dir) if a.svg_dir else []
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
        'plots': [os.path.basename(p) for p in written],
    }
    with open(a.json, 'w', encoding='utf-8') as out:
        json.dump(doc, out, indent=1)
        out.write('\n')
    print(f'JSON: {a.json}')
    for p in written:
        print(f'plot: {p}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
