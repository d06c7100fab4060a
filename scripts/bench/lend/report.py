#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Table, JSON and PNG of make bench's part "lend".

usage: report.py --json OUT.json [options] MODE=GUEST.out ...
       report.py --replot build/bench/lend.json   (redraw the PNG from it)

MODE is stock, nolend or lend; each GUEST.out is the output of one boot of
scripts/bench/lend/guest.sh.  With several boots per mode the memory
figures are the median of the boots, and the latencies are pooled.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import plot  # noqa: E402  scripts/bench/plot.py

MODES = ('stock', 'nolend', 'lend')
TITLES = {'stock': 'stock 6.12 (no mask allocator)',
          'nolend': 'the pool, maskzone_lend=off',
          'lend': 'the pool, maskzone_lend=on'}
COLOURS = {'stock': plot.STOCK, 'nolend': plot.OTHER, 'lend': plot.PATCHED}
GOALS = {'borrowed_pct': 90, 'success_pct': 100, 'p50_ms': 1.0, 'p99_ms': 10.0}


def kv(s):
    return dict(x.split('=', 1) for x in s.split() if '=' in x)


def parse(path):
    """One boot: {'phases': {phase: {key: int}}, 'allocs': {bits: {...}},
    'verify': {...}}."""
    b = {'phases': {}, 'allocs': {}, 'verify': None}
    cur = None
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('K '):
                d = kv(line[2:])
                phase = d.pop('phase')
                b['phases'][phase] = {k: int(v) for k, v in d.items()}
            elif line.startswith('R '):
                d = kv(line[2:])
                cur = {'bits': int(d['bits']), 'batch': int(d['batch'])}
                b['allocs'][str(cur['bits'])] = cur
            elif line.startswith('A ') and cur is not None:
                cur.update({k: int(v) for k, v in kv(line[2:]).items()})
            elif line.startswith('L') and cur is not None:
                cur['us'] = [int(x) for x in line[1:].split()]
            elif line.startswith('V '):
                d = kv(line[2:].split(' file ')[0])
                b['verify'] = {'file_rc': int(d.get('file', 1)),
                               'anon_rc': int(d.get('anon', 1)), 'text': line[2:]}
    return b


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, len(xs) * p // 100)] if xs else None


def summarise(doc):
    """Per mode: memory medians and pooled latency figures."""
    out = {}
    for mode in MODES:
        boots = [b for b in doc['boots'] if b['mode'] == mode]
        if not boots:
            continue
        mem = {}
        for phase in ('boot', 'filled'):
            keys = set().union(*(b['phases'].get(phase, {}).keys() for b in boots))
            mem[phase] = {k: statistics.median(b['phases'][phase][k] for b in boots
                                               if k in b['phases'].get(phase, {}))
                          for k in keys}
        al = {}
        for bits in ('32', '30', '24'):
            rs = [b['allocs'][bits] for b in boots if bits in b['allocs']]
            if not rs:
                continue
            us = [u for r in rs for u in r.get('us', [])]
            ok = sum(r.get('ok', 0) for r in rs)
            fail = sum(r.get('fail', 0) for r in rs)
            al[bits] = {'ok': ok, 'fail': fail, 'batch': rs[0]['batch'],
                        'success_pct': 100.0 * ok / (ok + fail) if ok + fail else 0.0,
                        'p50_us': pct(us, 50), 'p99_us': pct(us, 99),
                        'max_us': max(us) if us else None}
        f = mem.get('filled', {})
        lent = f.get('cma_kb', 0)
        out[mode] = {'memory': mem, 'allocs': al,
                     'borrowed_kb': lent - f.get('cmafree_kb', 0) if lent else 0,
                     'borrowed_pct': 100.0 * (lent - f.get('cmafree_kb', 0)) / lent if lent else 0.0,
                     'data_ok': all(b['verify'] and not b['verify']['file_rc'] and
                                    not b['verify']['anon_rc'] for b in boots)}
    return out


def table(doc):
    s = doc['summary']
    modes = [m for m in MODES if m in s]
    mib = lambda kb: f'{kb / 1024:.0f}' if kb is not None else '-'  # noqa: E731
    lines = [f"lend: {doc['params']['mem']} guest, {doc['params']['smp']} CPUs, "
             f"maskzone={doc['params']['pool']}; filler {doc['params']['anon']} MiB anonymous "
             f"+ tmpfs up to {doc['params']['slack']} MiB short of MemAvailable", '']
    lines.append(f"{'memory (MiB)':34}" + ''.join(f'{m:>10}' for m in modes))
    for label, phase, key in (('MemTotal after boot', 'boot', 'memtotal_kb'),
                              ('MemAvailable after boot', 'boot', 'avail_kb'),
                              ('pool (MaskPoolTotal)', 'boot', 'pool_kb'),
                              ('lent after boot (MaskPoolLent)', 'boot', 'lent_kb'),
                              ('MemAvailable with the filler', 'filled', 'avail_kb')):
        lines.append(f'{label:34}' + ''.join(
            f"{mib(s[m]['memory'].get(phase, {}).get(key)):>10}" for m in modes))
    lines.append(f"{'borrowed by the filler':34}" + ''.join(
        f"{mib(s[m]['borrowed_kb']):>10}" for m in modes))
    if 'lend' in s:
        lines.append(f"{'borrowed, % of lent (goal 90+)':34}" + ''.join(
            f"{s[m]['borrowed_pct']:>9.0f}%" if m == 'lend' else f"{'-':>10}" for m in modes))
        if 'nolend' in s:
            d = s['lend']['memory']['boot'].get('avail_kb', 0) - \
                s['nolend']['memory']['boot'].get('avail_kb', 0)
            lines.append(f"{'MemAvailable gained by lending':34}{'':>10}{'':>10}{mib(d):>10}")
    lines += ['', f"{'1 MiB sleeping allocations':30}{'mode':>8}{'ok':>9}{'p50 ms':>9}"
              f"{'p99 ms':>9}{'max ms':>9}{'p50 x':>8}{'p99 x':>8}"]
    for bits in ('32', '30', '24'):
        for m in ('nolend', 'lend'):
            a = s.get(m, {}).get('allocs', {}).get(bits)
            if not a:
                continue
            ref = s.get('nolend', {}).get('allocs', {}).get(bits, {})
            rx = lambda k: (f"{a[k] / ref[k]:.2f}" if ref.get(k) and a.get(k) is not None  # noqa: E731
                            else '-')
            ms = lambda v: f'{v / 1000:.3f}' if v is not None else '-'  # noqa: E731
            label = f"below 2^{bits}, held {a['batch']} at a time"
            lines.append(f"{label:30}"
                         f"{m:>8}{a['ok']:>5}/{a['ok'] + a['fail']:<4}{ms(a['p50_us']):>8}"
                         f"{ms(a['p99_us']):>9}{ms(a['max_us']):>9}{rx('p50_us'):>8}{rx('p99_us'):>8}")
    lines.append('')
    lines.append('every byte of the filler as written after the allocations: ' +
                 ', '.join(f"{m} {'yes' if s[m]['data_ok'] else 'NO'}" for m in modes))
    if 'lend' in s:
        goals = []
        al = s['lend']['allocs'].values()
        goals.append(('borrowed >= 90% of lent', s['lend']['borrowed_pct'] >= GOALS['borrowed_pct']))
        goals.append(('success 100%', all(a['success_pct'] >= 100 for a in al)))
        goals.append(('p50 <= 1 ms', all((a['p50_us'] or 0) <= 1000 for a in al)))
        goals.append(('p99 <= 10 ms', all((a['p99_us'] or 0) <= 10000 for a in al)))
        lines.append('goals (lend): ' + ', '.join(f"{g}: {'met' if ok else 'MISSED'}" for g, ok in goals))
    return '\n'.join(lines)


def draw(doc, png):
    s = doc['summary']
    modes = [m for m in MODES if m in s]
    p = doc['params']
    title = (f"lend: lending the idle mask pool, {p['mem']} guest, {p['smp']} CPUs, "
             f"maskzone={p['pool']}, {len([b for b in doc['boots'] if b['mode'] == 'lend'])} boot(s) "
             f"per mode\nfiller: {p['anon']} MiB anonymous + tmpfs; allocations: "
             f"{p['n']} x 1 MiB per mask, sleeping; host load {doc.get('host_loadavg', '?')}")
    fig = plot.Figure(png, title, rows=[[1], [1]], heights=[1, 1], width=1400, height=1100)
    groups = []
    for label, phase, key in (('MemAvailable\nafter boot', 'boot', 'avail_kb'),
                              ('lent\nafter boot', 'boot', 'lent_kb'),
                              ('MemAvailable\nwith the filler', 'filled', 'avail_kb')):
        groups.append((label, {m: s[m]['memory'].get(phase, {}).get(key, 0) / 1024 for m in modes}))
    groups.append(('borrowed by\nthe filler', {m: s[m]['borrowed_kb'] / 1024 for m in modes}))
    fig.bars('memory (MiB)', 'MiB', groups, [(m, TITLES[m], COLOURS[m]) for m in modes],
             fmt='%.0f')
    lg = []
    for bits in ('32', '30', '24'):
        for stat in ('p50', 'p99', 'max'):
            d = {}
            for m in ('nolend', 'lend'):
                a = s.get(m, {}).get('allocs', {}).get(bits)
                if a and a.get(f'{stat}_us') is not None:
                    d[m] = max(a[f'{stat}_us'], 1) / 1000
            lg.append((f'2^{bits}\n{stat}', d))
    fig.bars('1 MiB sleeping allocations: latency (ms, log scale)', 'ms', lg,
             [(m, TITLES[m], COLOURS[m]) for m in ('nolend', 'lend') if m in s],
             base=0.01, logy=True, fmt='%.2f',
             targets=[(1.0, 'goal p50 1 ms', plot.TARGET), (10.0, 'goal p99 10 ms', '#8c8c8c')])
    return fig.render()


def replot(path):
    return plot.replot(path, draw, 'lend')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--replot', metavar='JSON')
    ap.add_argument('--json')
    for k in ('n', 'mem', 'smp', 'pool', 'anon', 'slack', 'elapsed', 'loadavg', 'loadavg_after'):
        ap.add_argument('--' + k.replace('_', '-'), default='?')
    ap.add_argument('outs', nargs='*')
    a = ap.parse_args()
    if a.replot:
        return replot(a.replot)
    if not a.json or not a.outs:
        ap.error('--json and MODE=GUEST.out arguments are needed (or --replot JSON)')
    boots = []
    for arg in a.outs:
        mode, _, path = arg.partition('=')
        if mode not in MODES:
            ap.error(f'unknown mode in {arg}')
        b = parse(path)
        b['mode'], b['file'] = mode, os.path.basename(path)
        boots.append(b)
    doc = {'part': 'lend', 'benchmark': 'lend',
           'params': {'n': a.n, 'mem': a.mem, 'smp': a.smp, 'pool': a.pool,
                      'anon': a.anon, 'slack': a.slack},
           'goals': GOALS, 'elapsed_s': a.elapsed, 'host_loadavg': a.loadavg,
           'host_loadavg_after': a.loadavg_after, 'boots': boots}
    doc['summary'] = summarise(doc)
    print(table(doc))
    return plot.write_report(a.json, doc, draw, 'lend', blank_line=True)


if __name__ == '__main__':
    sys.exit(main())
