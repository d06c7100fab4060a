#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The PNG plots of `make bench`, drawn by gnuplot (Debian gnuplot-nox).

As a module, for the parts' report.py: Figure, one PNG of one or more
panels (a gnuplot multiplot), with grouped bars (Figure.bars), lines
(Figure.lines) and raw gnuplot panels (Figure.panel).  Every part draws
its PNG from its own JSON, so a PNG can be redrawn without a new run.

As a command: redraw the PNG of each JSON given (by default every
build/bench/<part>.json there is), through the part's report.py --replot:

  scripts/bench/plot.py [build/bench/pool.json ...]

A JSON's part is its "part" or "benchmark" field; the PNG goes next to
it, with the JSON's name (pool-before-issue15.json gives
pool-before-issue15.png).
"""
import json
import math
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PARTS = ('alloc', 'dma-map', 'lend', 'pool')
INSTALL_HINT = 'scripts/ensure-deps.sh gnuplot-nox:gnuplot'

# one colour per role, the same in every part where it makes sense
STOCK = '#4c72b0'      # stock 6.12 / dmatlb=off / alloc_pages
PATCHED = '#dd8452'    # the series' code: dmatlb=on, the pool
OTHER = '#55a868'      # a third kernel or path
PALETTE = ['#4c72b0', '#dd8452', '#55a868', '#c44e52', '#8172b3',
           '#937860', '#da8bc3', '#8c8c8c', '#ccb974', '#64b5cd']
TARGET = '#d62728'


def q(s):
    """A gnuplot double-quoted string (the terminal is noenhanced, so _
    and ^ are plain characters)."""
    return '"' + (str(s).replace('\\', '\\\\').replace('"', '\\"')
                  .replace('\n', '\\n')) + '"'


def qt(s):
    """A tic label: gnuplot formats those, so % is written %%."""
    return q(str(s).replace('%', '%%'))


def png_for(json_path):
    return os.path.splitext(json_path)[0] + '.png'


def size_label(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f'{n >> 20} MiB'
    return f'{n >> 10} KiB' if n % 1024 == 0 else f'{n} B'


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and \
        v is not None and math.isfinite(v)


def log_tics(lo, hi):
    """1-2-5 tics from lo to hi."""
    out = []
    for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            t = float(f'{m * 10.0 ** e:.12g}')
            if lo <= t <= hi:
                out.append(t)
    return out


class Figure:
    """One PNG: a title (one or more lines) over rows of panels.

    rows: a list of rows, each a list of relative panel widths, e.g.
    [[1, 1], [1]] is two panels over one wide one; heights: the relative
    height of each row.  Panels are filled in that order."""

    def __init__(self, png, title, rows=((1,),), heights=None, width=1600,
                 height=None, font='DejaVu Sans,10'):
        self.png, self.width = png, width
        heights = list(heights or [1] * len(rows))
        self.height = height or int(80 + 420 * sum(heights))
        tlines = str(title).count('\n') + 1
        top = min(0.3, (16 + 19 * tlines) / self.height)
        self.slots = []
        y = 1 - top
        total = sum(heights)
        for row, h in zip(rows, heights):
            rh = (1 - top) * h / total
            y -= rh
            x = 0.0
            for w in row:
                rw = w / sum(row)
                self.slots.append((x, y, rw, rh))
                x += rw
        self.cmds = [
            f'set terminal pngcairo noenhanced size {width},{self.height} '
            f'font {q(font)} background rgb "white"',
            f'set output {q(png)}',
            'set encoding utf8',
            f'set multiplot title {q(title)} font ",13"',
        ]
        self.nblock = 0
        self.npanel = 0

    def block(self, rows):
        """A gnuplot datablock of rows (tuples of numbers); its name."""
        self.nblock += 1
        name = f'$d{self.nblock}'
        self.cmds.append(f'{name} << EOD')
        self.cmds += [' '.join(f'{v:.9g}' if _num(v) else 'NaN' for v in r)
                      for r in rows] or ['NaN NaN']
        self.cmds.append('EOD')
        return name

    def panel(self, cmds):
        """A panel of raw gnuplot commands, in the next slot."""
        if self.npanel >= len(self.slots):
            raise ValueError('more panels than the layout has')
        x, y, w, h = self.slots[self.npanel]
        self.npanel += 1
        self.cmds += ['reset', 'unset label', 'unset arrow', 'unset object',
                      f'set origin {x:.4f},{y:.4f}', f'set size {w:.4f},{h:.4f}',
                      'set style fill solid 0.85 noborder',
                      'set errorbars small', 'set border 3',
                      'set tics nomirror', 'set grid ytics lc rgb "#dddddd"']
        self.cmds += cmds

    def bars(self, title, ylabel, groups, series, base=0.0, logy=False,
             yrange=None, targets=(), fmt='%.1f', rotate=None,
             sections=(), key='above horizontal', whisker_title='min-max of rounds',
             xlabel='', label_colours=None):
        """Grouped bars.

        groups: [(label, {series key: value})], the label may hold \\n;
        a value is a number, (number, low, high) for a whisker, a string
        (written at the base instead of a bar, e.g. "fails") or None.
        series: [(key, legend title, colour)].  base: where bars start (1
        for ratios: above 1 is slower).  targets: [(y, legend title,
        colour)] drawn across.  fmt: the values written on the bars
        (None: no values); rotate: write them upwards (default when the
        bars are many).  sections: [(label, first group, last group)]
        separated by a line and named at the top.  label_colours:
        {(group index, series key): colour} of the values written (e.g.
        red for a missed target)."""
        label_colours = label_colours or {}
        if not groups:
            self.panel([f'set title {q(title)} font ",11"', 'unset border',
                        'unset tics', 'unset key',
                        'set label "not measured in this run" at graph 0.5, '
                        'graph 0.5 center', 'plot [0:1][0:1] NaN notitle'])
            return
        n = len(series)
        gap = 1.0 if n > 1 else 0.6
        pitch = n + gap
        nbars = sum(1 for _, d in groups for k, _, _ in series
                    if d.get(k) is not None)
        if rotate is None:
            rotate = nbars > 24 or n * len(groups) > 24
        tops, bots = [], []
        bar_rows = {k: [] for k, _, _ in series}
        whisk = {k: [] for k, _, _ in series}
        labels = []
        for gi, (_, d) in enumerate(groups):
            for si, (k, _, colour) in enumerate(series):
                v = d.get(k)
                x = gi * pitch + si + 0.5
                if v is None:
                    continue
                if isinstance(v, str):
                    labels.append((x, base, v, colour, True, True))
                    continue
                lo = hi = None
                if isinstance(v, tuple):
                    v, lo, hi = v
                if not _num(v):
                    continue
                bar_rows[k].append((x, v, base))
                up = v >= base
                if lo is not None and hi is not None:
                    whisk[k].append((x, v, lo, hi))
                    edge = max(v, hi) if up else min(v, lo)
                    tops.append(max(v, hi))
                    bots.append(min(v, lo))
                else:
                    edge = v
                    tops.append(v)
                    bots.append(v)
                if fmt:
                    labels.append((x, edge, fmt % v,
                                   label_colours.get((gi, k), 'black'), up, False))
        for y, _, _ in targets:
            tops.append(y)
            bots.append(y)
        if yrange is None:
            hi = max(tops + [base]) if tops else base + 1
            lo = min(bots + [base]) if bots else base
            room = 0.22 if rotate else 0.12
            if logy:
                lo = min(lo, base)
                span = math.log10(hi / lo) or 1
                yrange = (lo / 10 ** (span * room) if lo < base else base,
                          hi * 10 ** (span * room * 1.3))
            elif base == 0 and lo >= 0:
                yrange = (0, hi + (hi - lo or 1) * room)
            else:
                span = (hi - lo) or abs(base) * 0.05 or 1
                yrange = (lo - span * (room if lo < base else 0.05),
                          hi + span * room)
                if lo >= 0:
                    yrange = (max(0, yrange[0]), yrange[1])
        c = [f'set title {q(title)} font ",11"',
             f'set ylabel {q(ylabel)}',
             f'set xlabel {q(xlabel)}' if xlabel else 'unset xlabel',
             f'set xrange [{-gap / 2 - 0.2}:{len(groups) * pitch - gap / 2 + 0.2}]',
             f'set yrange [{yrange[0]:.6g}:{yrange[1]:.6g}]',
             'set xtics scale 0 (' + ', '.join(
                 f'{qt(lab)} {gi * pitch + n / 2:.3f}'
                 for gi, (lab, _) in enumerate(groups)) + ')',
             f'set key {key} font ",10"']
        nl = max((str(lab).count('\n') for lab, _ in groups), default=0)
        c.append(f'set bmargin {nl + 2.5 + (2 if xlabel else 0)}')
        if logy:
            c.append('set logscale y')
            c.append('set ytics (' + ', '.join(
                f'"{t:g}" {t:g}' for t in log_tics(*yrange)) + ')')
        if base != 0 and not logy:
            c.append(f'set arrow from graph 0, first {base} to graph 1, '
                     f'first {base} nohead lc rgb "black" lw 1 back')
        for lab, g0, g1 in sections:
            if g0 > 0:
                xs = g0 * pitch - gap / 2
                c.append(f'set arrow from first {xs}, graph 0 to first {xs}, '
                         'graph 1 nohead lc rgb "#666666" dt 3 lw 1 back')
            xm = (g0 * pitch + (g1 + 1) * pitch - gap) / 2
            c.append(f'set label {q(lab)} at first {xm}, graph 0.97 center '
                     'font ",10" tc rgb "#333333" front')
        for x, y, text, colour, up, is_text in labels:
            if rotate or is_text:
                where = ('left offset 0,0.4' if up else 'right offset 0,-0.4')
                c.append(f'set label {q(text)} at first {x:.3f}, first '
                         f'{y:.6g} rotate by 90 {where} font ",8" '
                         f'tc rgb {q(colour)} front')
            else:
                off = '0,0.6' if up else '0,-0.6'
                c.append(f'set label {q(text)} at first {x:.3f}, first '
                         f'{y:.6g} center offset {off} font ",8" '
                         f'tc rgb {q(colour)} front')
        plots = []
        for k, t, colour in series:
            if not bar_rows[k]:  # only text (e.g. "fails"): a legend entry
                plots.append(f'keyentry with boxes lc rgb {q(colour)} title {q(t)}')
                continue
            b = self.block(bar_rows[k])
            plots.append(f'{b} using 1:2:($1-0.45):($1+0.45):3:2 with '
                         f'boxxyerror lc rgb {q(colour)} title {q(t)}')
        first = True
        for k, _, _ in series:
            if whisk[k]:
                b = self.block(whisk[k])
                wt = q(whisker_title) if first else '""'
                plots.append(f'{b} using 1:3:(0):($4-$3) with vectors nohead '
                             f'lc rgb "black" lw 1 title {wt}')
                first = False
        for y, t, colour in targets:
            plots.append(f'{y} with lines lc rgb {q(colour)} dt 2 lw 2 '
                         f'title {q(t)}')
        c.append('plot ' + ', \\\n     '.join(plots))
        self.panel(c)

    def lines(self, title, xlabel, ylabel, series, logx=False, logy=False,
              xtics=None, targets=(), fmt=None, key='above horizontal',
              yrange=None, xrange=None):
        """Lines with points.  series: [(title, colour, dash type, point
        type, [(x, y)], values)]: values "above" or "below" writes each
        value there, next to its point (with fmt); None writes none."""
        c = [f'set title {q(title)} font ",11"',
             f'set xlabel {q(xlabel)}', f'set ylabel {q(ylabel)}',
             f'set key {key} font ",10"',
             'set grid xtics ytics lc rgb "#dddddd"']
        if logx:
            c.append('set logscale x')
        if logy:
            c.append('set logscale y')
            c.append('set format y "%.0f"')
        if xtics:
            c.append('set xtics (' + ', '.join(f'{qt(l)} {x}' for l, x in xtics)
                     + ')')
        if yrange:
            c.append(f'set yrange [{yrange[0]}:{yrange[1]}]')
        if xrange:
            c.append(f'set xrange [{xrange[0]}:{xrange[1]}]')
        plots = []
        for t, colour, dt, pt, pts, values in series:
            b = self.block(pts)
            plots.append(f'{b} using 1:2 with linespoints lc rgb {q(colour)} '
                         f'dt {dt} pt {pt} ps 1.2 lw 2 title {q(t)}')
            if values and fmt:
                off = '0.6,-0.7' if values == 'below' else '0.6,0.6'
                for x, y in pts:
                    if _num(y):
                        c.append(f'set label {q(fmt % y)} at first {x}, first '
                                 f'{y} left offset {off} font ",8" '
                                 f'tc rgb {q(colour)} front')
        for y, t, colour in targets:
            plots.append(f'{y} with lines lc rgb {q(colour)} dt 2 lw 2 '
                         f'title {q(t)}')
        c.append('plot ' + ', \\\n     '.join(plots))
        self.panel(c)

    def render(self):
        """Run gnuplot; None, or the reason it failed."""
        if not shutil.which('gnuplot'):
            return f'gnuplot is missing (install it: {INSTALL_HINT})'
        script = '\n'.join(self.cmds + ['unset multiplot', 'set output']) + '\n'
        if os.environ.get('PLOT_KEEP_SCRIPT'):  # for debugging: keep it
            with open(self.png + '.gp', 'w', encoding='utf-8') as f:
                f.write(script)
        r = subprocess.run(['gnuplot'], input=script, text=True,
                           capture_output=True)
        if r.returncode or not os.path.exists(self.png):
            err = r.stderr.strip().splitlines()
            return 'gnuplot failed: ' + (' / '.join(err[-6:]) or
                                         f'exit {r.returncode}')
        # gnuplot reports some problems as warnings only
        warn = [l for l in r.stderr.splitlines() if l.strip()]
        if warn:
            sys.stderr.write('gnuplot: ' + '\n'.join(warn[-6:]) + '\n')
        return None


def write_report(json_path, doc, draw, part, blank_line=False):
    """Draw a part's PNG from doc with draw(doc, png), record it in
    doc["plots"], write the JSON and say where both are; 0, or 1 if the
    plot failed (the JSON is written either way)."""
    png = png_for(json_path)
    err = draw(doc, png)
    doc['plots'] = [] if err else [os.path.basename(png)]
    with open(json_path, 'w', encoding='utf-8') as out:
        json.dump(doc, out, indent=1)
        out.write('\n')
    print(f"{chr(10) if blank_line else ''}JSON: {json_path}")
    if err:
        print(f'{part}: no plot: {err} (redraw: {sys.argv[0]} --replot {json_path})',
              file=sys.stderr)
        return 1
    print(f'plot: {png}')
    return 0


def add_plots(json_path, doc, pngs):
    """Record the PNGs (file names next to the JSON) in doc["plots"] and
    rewrite the JSON if that changed it."""
    names = [os.path.basename(p) for p in pngs]
    if doc.get('plots') == names:
        return
    # the plots of an older report.py (dma-map's SVGs) are replaced
    for old in doc.get('plots') or []:
        stale = os.path.join(os.path.dirname(json_path), os.path.basename(old))
        if old not in names and old.endswith(('.svg', '.png')) and \
                os.path.isfile(stale):
            os.remove(stale)
    doc['plots'] = names
    with open(json_path, 'w', encoding='utf-8') as out:
        json.dump(doc, out, indent=1)
        out.write('\n')


def replot(path, draw, part):
    """Redraw the PNG of a part's JSON at path with its draw(doc, png),
    record it in the JSON and print where it is; 0, or 1 on failure."""
    with open(path, encoding='utf-8') as f:
        doc = json.load(f)
    png = png_for(path)
    err = draw(doc, png)
    if err:
        print(f'{part}: {path}: {err}', file=sys.stderr)
        return 1
    add_plots(path, doc, [png])
    print(f'plot: {png}')
    return 0


def part_of(doc):
    """The part whose report.py wrote doc, or None (e.g. the alloc
    harness's own timing JSON, which the report reads)."""
    p = doc.get('part') or doc.get('benchmark')
    if p == 'mask_alloc/bench':
        return 'pool'
    return p if p in PARTS else None


def main(argv):
    paths = argv or [p for p in (os.path.join(ROOT, 'build', 'bench', f'{x}.json')
                                 for x in PARTS) if os.path.exists(p)]
    if not paths:
        print('plot.py: no build/bench/<part>.json: run make bench first',
              file=sys.stderr)
        return 1
    rc = 0
    for p in paths:
        try:
            with open(p, encoding='utf-8') as f:
                part = part_of(json.load(f))
        except (OSError, ValueError) as e:
            print(f'plot.py: {p}: {e}', file=sys.stderr)
            rc = 1
            continue
        if part is None:
            print(f'plot.py: {p}: not the JSON of a bench part\'s report', file=sys.stderr)
            rc = 1
            continue
        r = subprocess.run([sys.executable, os.path.join(HERE, part, 'report.py'),
                            '--replot', p])
        rc = rc or r.returncode
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
