#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read what a booted kernel printed on its serial console.

  ktap.py scan  LOG [--allow-warning RE]... [--vmlinux F]
                    kernel problems (panic, Oops, BUG, unexpected WARNING,
                    KASAN, lockdep, bad page, DMA-API, hung task, RCU
                    stall, lockup)
  ktap.py parse LOG [--results FILE] [--vmlinux F] [--tree DIR] [--verbose]
                    KUnit results
  ktap.py tap   LOG
                    a test's own KTAP output (tests/ktap_helpers.sh,
                    tests/ktap_out.py): prints "PASSED FAILED SKIPPED"

`parse` reads the KTAP output with the kernel's own parser
(DIR/tools/testing/kunit/kunit_parser.py, as `kunit.py parse` does; DIR is
--tree, else $TREE, else build/linux next to this script).  It prints one
line per suite and, for every failing case, its name (suite.case, or
suite.case.param) and its diagnostic lines (the EXPECTATION FAILED lines,
and whatever the kernel printed while the case ran).  A skipped case counts
as skipped, never as passed.  --verbose also prints the kernel parser's own
report.

On top of the kernel parser, stricter checks: `parse` also fails (exit 1) on
a kernel crash or debug checker report anywhere in the log (after the last
result too), a missing KTAP header or plan (top level and suites; only
parameterised cases may go without one), a suite or case that never
finished, a plan that does not match the results, zero test cases, or any
"not ok".  With --results it appends "kunit:<suite> <passed> <failed>
<skipped>" records for scripts/run-tests.sh (cases that never ran count as
failed), and "kunit:<log> 0 <errors> 0" when any of the checks failed.

A kernel report with a call trace (the lines from "BUG:", "Oops:",
"WARNING:", "Kernel panic" ... to "---[ end ...") is shown after the
verdict, passed through DIR/scripts/decode_stacktrace.sh with --vmlinux
(the booted kernel's vmlinux); without --vmlinux, or when decoding fails,
the raw lines are shown.  The test kernels have CONFIG_KALLSYMS
(configs/base.config), so a trace names symbol+offset and the decoder
disassembles the "Code:" line; file:line needs debug info as well, which
the test kernels leave out (DWARF5 costs about +12% CPU time to build and
+470 MB per object directory, and the distro profile turns it off): build
with a fragment holding CONFIG_DEBUG_INFO_DWARF5=y in EXTRA_CONFIG to get
it.  A scan with --vmlinux shows the reports in the same way.

`tap` validates the KTAP stream that a test script printed (its log under
make test): a "TAP version" (or "KTAP version") header, results numbered
1, 2, 3... in order, one plan ("1..N") before the first result or after
the last that matches their count, a "# Totals:" line that agrees with
them, and, when the stream ends with a "NAME: N passed, N failed[, N
skipped]" line, that line agreeing too.  Zero cases, no plan (a test that
stopped midway), a "Bail out!" or a second plan fail it.  A "# SKIP"
result counts as skipped.  Indented lines (subtests) and lines of any
other form are not results.  When a log holds several streams, the last
one is checked (from the last header on): a host script that runs a guest
script relays the guest's cases into its own stream (ktap_relay), with
the guest's other lines as "# " lines, so that its log has one stream,
and the smoke check of the KUnit boot is the last stream of its vm-run
output.  It prints "PASSED FAILED SKIPPED" of that stream, and each
problem on stderr; exit 1 on any problem.

A test declares that it provokes a warning on purpose by printing, before
it does so, a console line containing
    vm-run: expect-warning: <regex>
Any later "WARNING:" line that the regex matches is then not a problem.
The same can be passed from the host with --allow-warning <regex>.  The
debugging checkers' reports (REPORTS) are never excused that way.
"""
import argparse
import io
import os
import re
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TIMESTAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')
EXPECT_DECL = re.compile(r'vm-run: expect-warning: (.*?)\s*$')

# Reports of the kernel's debugging checkers (the debug profile: KASAN,
# lockdep, DEBUG_VM, DEBUG_PAGEALLOC, PAGE_OWNER, DMA-API debugging, SLUB
# debugging, debugobjects).  They
# are matched before the generic kinds below, and an expected-warning
# declaration never excuses them: a test may provoke a WARN() on purpose,
# never a memory, locking or DMA-API bug.
REPORTS = [
    (re.compile(r'\bBUG: KASAN: '), 'KASAN report'),
    # lockdep's and PROVE_RCU's report headlines
    (re.compile(r'^WARNING: (possible (circular locking|recursive locking|irq lock inversion)'
                r'|inconsistent lock state|\S+-safe -> \S+-unsafe lock order'
                r'|bad unlock balance|held lock freed|lock held when returning'
                r'|\S+ still has locks held|Nested lock was not taken|bad contention'
                r'|chain_key collision|suspicious RCU usage)'), 'lockdep report'),
    # lockdep switching itself off: nothing after it is checked.  Some of
    # these are KERN_DEBUG and never reach the console, so vm-run's /init
    # also prints "vm-run: lockdep off" when debug_locks dropped to 0.
    (re.compile(r'\bBUG: (MAX_\w+ too low|looking up invalid subclass|key \S+ has not been registered)'
                r'|DEBUG_LOCKS_WARN_ON\(|turning off the locking correctness validator'
                r'|INFO: lockdep is turned off|^vm-run: lockdep off'), 'lockdep report'),
    # Memory offlining dumps the page that made it refuse ("unmovable
    # page", mm/page_isolation.c) or that it will retry ("migration
    # failure", mm/memory_hotplug.c): reasons given, not page corruption.
    (re.compile(r'\bBUG: Bad (page|rss)|\bpage dumped because: (?!unmovable page$|migration failure$)'),
     'bad page'),
    # dma-debug starts every line with "DMA-API: "; only its boot lines
    # are not reports.  It WARN()s only for its first error, so vm-run's
    # /init also prints "vm-run: DMA-API: error_count N" when it counted any.
    (re.compile(r'DMA-API: (?!preallocated \d+ debug entries$|debugging enabled by kernel config$'
                r'|dma_debug_entry pool grown to )'), 'DMA-API debug report'),
    # SLUB debugging (slub_debug, SLUB_DEBUG_ON): "BUG <cache> (<taint>): <what>"
    (re.compile(r'^BUG \S+ \((Not tainted|Tainted: [^)]*)\): '), 'SLUB debug report'),
    # debugobjects: "ODEBUG: <op> <state> object: ..." (its WARN follows);
    # its boot self-test line is not a report
    (re.compile(r'^ODEBUG: (?!selftest passed$)'), 'debugobjects report'),
]

# (regex, description) of lines that mean the kernel is in trouble.
PROBLEMS = REPORTS + [
    (re.compile(r'Kernel panic - not syncing'), 'kernel panic'),
    (re.compile(r'\bOops\b'), 'Oops'),
    (re.compile(r'\bBUG: '), 'BUG'),
    (re.compile(r'kernel BUG at '), 'BUG'),
    (re.compile(r'general protection fault'), 'general protection fault'),
    (re.compile(r'\bUBSAN: '), 'UBSAN report'),
    (re.compile(r'Unable to handle kernel'), 'bad kernel access'),
    (re.compile(r'^WARNING: '), 'WARNING'),
    # The watchdogs: a task blocked for too long, an RCU grace period that
    # stalled, a CPU stuck with interrupts off (soft lockups and
    # workqueue lockups say "BUG:" and are caught above).
    (re.compile(r'^INFO: task \S+ blocked for more than \d+ seconds'), 'hung task'),
    (re.compile(r'\brcu: INFO: \S+ (self-)?detected stalls?\b|\brcu_\w+ detected stalls? on'),
     'RCU stall'),
    (re.compile(r'Watchdog detected hard LOCKUP'), 'hard lockup'),
]


def strip(line):
    """Drop the printk timestamp and the line ending."""
    return TIMESTAMP.sub('', line.rstrip('\r\n'))


def scan(text, allowed=()):
    """Return a list of (line number, kind, line) kernel problems."""
    allow = [re.compile(a) for a in allowed]
    found = []
    for no, raw in enumerate(text.splitlines(), 1):
        line = strip(raw)
        m = EXPECT_DECL.search(line)
        if m:
            try:
                allow.append(re.compile(m.group(1)))
            except re.error:
                found.append((no, 'bad expect-warning regex', line))
            continue
        for rx, kind in PROBLEMS:
            if rx.search(line):
                if kind == 'WARNING' and any(a.search(line) for a in allow):
                    break
                found.append((no, kind, line))
                break
    return found


# --- crash reports and scripts/decode_stacktrace.sh ---

REPORT_BEFORE = re.compile(r'^-+\[ cut here \]-+$|^={20,}$')   # a line that opens a report
REPORT_END = re.compile(r'^---\[ end ')
TASK_END = re.compile(r'^\s*</(TASK|IRQ)>$')
TRACE = re.compile(r'Call Trace:|\bRIP: |^Code: |\+0x[0-9a-f]+/0x[0-9a-f]+')
REPORT_MAX = 150


def report_end(lines, no, kind):
    """The last line (1-based) of the report whose problem line is NO, or
    None.  It ends with its "---[ end" line (Oops, WARNING, panic), KASAN's
    closing "=====" line, the "</TASK>" of its last trace (lockdep), before
    the next report's opening line, or where the log ends (the kernel
    stopped)."""
    last_task = None
    for i in range(no + 1, min(no + REPORT_MAX, len(lines)) + 1):
        line = lines[i - 1]
        if REPORT_END.match(line):
            return i
        if REPORT_BEFORE.match(line):
            return i if kind == 'KASAN report' and line.startswith('=') else i - 1
        if TASK_END.match(line):
            last_task = i
        elif last_task is not None and i - last_task > 6:
            return last_task
    if no + REPORT_MAX >= len(lines):
        return len(lines)
    return last_task


def crash_reports(text, found):
    """The kernel reports around the problems FOUND (scan()), as [(first,
    last, kind, lines)] with 1-based console line numbers.  A report runs
    from the problem line (with the "cut here" or "=====" line before it)
    to its end (report_end()); only reports that hold a call trace, a RIP,
    a Code: line or a symbol+offset are kept."""
    lines = [strip(x) for x in text.splitlines()]
    reports = []
    for no, kind, _ in found:
        if reports and reports[-1][0] <= no <= reports[-1][1]:
            continue
        first = no
        if first >= 2 and REPORT_BEFORE.match(lines[first - 2]):
            first -= 1
        last = report_end(lines, no, kind)
        if last is None:
            continue
        while last > no and not lines[last - 1].strip():
            last -= 1
        body = lines[first - 1:last]
        if any(TRACE.search(x) for x in body):
            reports.append((first, last, kind, body))
    return reports


def decode(lines, vmlinux, tree):
    """Pass report lines through the tree's scripts/decode_stacktrace.sh.
    Returns (lines, how): the decoded lines, or the raw ones when there is
    no vmlinux or decoding failed, with the reason."""
    if not vmlinux:
        return lines, 'raw: no --vmlinux given'
    if not os.path.isfile(vmlinux):
        return lines, 'raw: %s not found' % vmlinux
    script = os.path.join(tree, 'scripts', 'decode_stacktrace.sh')
    if not os.path.isfile(script):
        return lines, 'raw: %s not found' % script
    # "auto": the script strips the source prefix that addr2line prints for
    # init/main.c; with O= builds that is OBJ/../tree, not the tree itself.
    try:
        p = subprocess.run(['bash', script, vmlinux, 'auto'], input='\n'.join(lines) + '\n',
                           capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as e:
        return lines, 'raw: decode_stacktrace.sh failed: %s' % e
    out = p.stdout.splitlines()
    err = [x for x in p.stderr.splitlines() if 'ERROR' in x]
    if not out or err:
        return lines, 'raw: decode_stacktrace.sh failed: %s' % (
            (err or p.stderr.splitlines() or ['no output (exit %d)' % p.returncode])[0])
    return [x.rstrip() for x in out], 'decoded by %s' % os.path.relpath(script, tree)


def format_reports(reports, vmlinux, tree):
    out = []
    for first, last, kind, body in reports:
        shown, how = decode(body, vmlinux, tree)
        out.append('---- kernel report (%s), console lines %d-%d, %s ----' % (kind, first, last, how))
        out += ['    ' + x if x else '' for x in shown]
        out.append('---- end of kernel report ----')
    return out


# --- KUnit results, with the kernel's kunit_parser ---

def default_tree():
    return os.environ.get('TREE') or os.path.join(ROOT, 'build', 'linux')


_kunit = None


def load_kunit_parser(tree=None):
    """Import kunit_parser and kunit_printer from TREE/tools/testing/kunit.
    kunit_parser records its parse errors only by printing them; each
    Test object also keeps them here, in .ktap_errors."""
    global _kunit
    if _kunit is not None:
        return _kunit
    d = os.path.join(tree or default_tree(), 'tools', 'testing', 'kunit')
    if not os.path.isfile(os.path.join(d, 'kunit_parser.py')):
        raise ImportError('no kunit_parser.py in %s' % d)
    sys.path.insert(0, d)
    try:
        import kunit_parser
        import kunit_printer
    finally:
        sys.path.remove(d)
    orig = kunit_parser.Test.add_error

    def add_error(self, message):
        self.__dict__.setdefault('ktap_errors', []).append(message)
        orig(self, message)
    kunit_parser.Test.add_error = add_error

    class Capture(kunit_printer.Printer):
        """kunit_parser's printer, into a buffer, without time stamps."""
        def print_with_timestamp(self, message):
            self.print(message)

    _kunit = (kunit_parser, Capture)
    return _kunit


def errors_of(t):
    return t.__dict__.get('ktap_errors', [])


def n_missing(t):
    """kunit_parser appends a crashed stand-in for each case the plan
    announced that never came ("missing expected subtest!"): always the
    last ones."""
    return errors_of(t).count('missing expected subtest!')


def real_subtests(t):
    n = n_missing(t)
    return t.subtests[:len(t.subtests) - n]


class Analysis:
    def __init__(self):
        self.suites = []        # [(name, passed, failed, skipped)]
        self.never_ran = {}     # suite -> cases the plan announced that never came
        self.failures = []      # [(suite.case, 'failed'|'crashed', [log lines])]
        self.errors = []        # strings: the stricter checks
        self.problems = []      # scan() of the whole log
        self.kunit_output = ''  # kunit_parser's own report


def analyse(text, tree=None):
    """Parse with the kernel's kunit_parser, then the stricter checks."""
    kp, Capture = load_kunit_parser(tree)
    S = kp.TestStatus
    a = Analysis()
    a.problems = scan(text)
    a.errors = ['kernel %s at line %d: %s' % (k, n, l) for n, k, l in a.problems
                if k != 'WARNING']

    buf = io.StringIO()
    saved = kp.stdout
    kp.stdout = Capture(buf)
    try:
        main = kp.parse_run_tests(strip(x) for x in text.splitlines())
    finally:
        kp.stdout = saved
    a.kunit_output = buf.getvalue()

    if main.status == S.FAILURE_TO_PARSE_TESTS:
        a.errors.append('no KTAP output (no "KTAP version" line)')
        return a

    def counts(t):
        if not t.subtests:
            if t.status == S.SUCCESS:
                return 1, 0, 0
            if t.status == S.SKIPPED:
                return 0, 0, 1
            if t.status == S.NO_TESTS:
                return 0, 0, 0
            return 0, 1, 0      # failed, crashed, or never ran
        p = f = s = 0
        for c in t.subtests:
            x, y, z = counts(c)
            p, f, s = p + x, f + y, s + z
        # a parent that failed with all its children passing still failed
        if t.status in (S.FAILURE, S.TEST_CRASHED) and f == 0:
            f = 1
        return p, f, s

    def is_parent(t):
        return t.subtests or t.expected_count is None or t.status == S.NO_TESTS

    def failures(t, path):
        """Record the failing cases below t, or t itself when none of its
        cases failed (a suite that failed or never finished); True if any."""
        found = False
        for c in real_subtests(t):
            found = failures(c, '%s.%s' % (path, c.name)) or found
        if found:
            return True
        if t.status == S.FAILURE or (t.status == S.TEST_CRASHED and not n_missing(t)):
            a.failures.append((path, 'failed' if t.status == S.FAILURE else 'crashed', t.log))
            return True
        if 'missing subtest result line!' in errors_of(t):
            # what the kernel printed before it stopped
            log = t.log + (t.subtests[-n_missing(t)].log if n_missing(t) else [])
            a.failures.append((path, 'never finished', log))
            return True
        return False

    def check(t, path, depth):
        errs = errors_of(t)
        reported = len(real_subtests(t))
        if 'missing subtest result line!' in errs:
            a.errors.append('suite/test "%s" never finished (log ends after %d results)'
                            % (path, reported))
        elif is_parent(t):
            if t.expected_count is None:
                if depth == 1:
                    a.errors.append('%s: missing plan' % path)
            elif t.expected_count != reported:
                a.errors.append('%s: plan says %d tests, %d reported'
                                % (path, t.expected_count, reported))
            if not t.subtests:
                a.errors.append('%s: no test cases' % path)
        for e in errs:
            m = re.match(r'Expected test number (\d+) but found (\d+)', e)
            if m:
                a.errors.append('%s: test %s reported as number %s' % (path, m.group(1), m.group(2)))
            elif e not in ('missing subtest result line!', 'missing expected subtest!',
                           '0 tests run!'):
                a.errors.append('%s: %s (kunit_parser)' % (path, e))
        for c in real_subtests(t):
            check(c, '%s.%s' % (path, c.name), depth + 1)

    # the top level: the list of suites
    for e in errors_of(main):
        if e not in ('missing expected subtest!', '0 tests run!'):
            a.errors.append('top level: %s (kunit_parser)' % e)
    suites = real_subtests(main)
    if main.expected_count is None:
        a.errors.append('missing top-level plan ("1..N")')
    elif main.expected_count != len(suites):
        a.errors.append('top-level plan says %d suites, %d reported'
                        % (main.expected_count, len(suites)))
    for s in suites:
        check(s, s.name, 1)
        p, f, k = counts(s)
        a.suites.append((s.name, p, f, k))
        missing = n_missing(s) + sum(n_missing(c) for c in s.subtests)
        if missing:
            a.never_ran[s.name] = missing
        if s.status == S.FAILURE:
            a.errors.append('suite %s: not ok' % s.name)
        failures(s, s.name)
    if sum(p + f for _, p, f, _ in a.suites) == 0:
        a.errors.append('zero test cases ran')
    return a


def evaluate(text, tree=None):
    """Full verdict.  Returns (suites, errors); suites = [(name, p, f, s)]."""
    a = analyse(text, tree)
    return a.suites, a.errors


DIAG_MAX = 40       # diagnostic lines shown per failing case (the last ones)
CASES_MAX = 20      # failing cases shown with their diagnostics


def show_log(log, hidden):
    """A failing case's diagnostic lines, dedented, without the lines of
    kernel reports (shown separately, decoded), and at most DIAG_MAX."""
    kept = [x.rstrip() for x in log if x.rstrip() not in hidden]
    kept = iter(textwrap.dedent('\n'.join(kept)).splitlines() if kept else [])
    out, run = [], 0
    for line in log:
        if line.rstrip() in hidden:
            run += 1
            continue
        if run:
            out.append('[%d lines of a kernel report: below]' % run)
            run = 0
        out.append(next(kept, ''))
    if run:
        out.append('[%d lines of a kernel report: below]' % run)
    if len(out) > DIAG_MAX:
        out = ['[... %d earlier lines: see the console log]' % (len(out) - DIAG_MAX)] + out[-DIAG_MAX:]
    return out


TAP_HEADER = re.compile(r'^K?TAP version \d+\s*$')
TAP_RESULT = re.compile(r'^(ok|not ok)\b(?: (\d+))?(.*)$')
TAP_PLAN = re.compile(r'^1\.\.(\d+)\b')
TAP_TOTALS = re.compile(r'^# Totals: pass:(\d+) fail:(\d+) xfail:(\d+) xpass:(\d+) skip:(\d+) error:(\d+)\s*$')
TAP_SUMMARY = re.compile(r'^\S+: (\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$')
TAP_SKIP = re.compile(r'\s#\s*SKIP\b', re.I)


def tap(text):
    """Validate a test's KTAP stream (the last one in text).  Returns
    ((passed, failed, skipped), problems)."""
    lines = [strip(x) for x in text.splitlines()]
    starts = [i for i, x in enumerate(lines) if TAP_HEADER.match(x)]
    if not starts:
        return (0, 0, 0), ['no "TAP version" header: not a KTAP stream']
    problems = []
    p = f = s = 0
    n = 0
    plans = []          # (line index, count, results before it)
    totals = summary = None
    for i, line in enumerate(lines[starts[-1] + 1:], starts[-1] + 1):
        m = TAP_RESULT.match(line)
        if m:
            n += 1
            if m[2] is None or int(m[2]) != n:
                problems.append('result %d is numbered %s: %s' % (n, m[2] or 'nothing', line))
            if TAP_SKIP.search(m[3]):
                s += 1
            elif m[1] == 'ok':
                p += 1
            else:
                f += 1
            continue
        m = TAP_PLAN.match(line)
        if m:
            plans.append((i, int(m[1]), n))
            continue
        m = TAP_TOTALS.match(line)
        if m:
            totals = [int(x) for x in m.groups()]
            continue
        if line.startswith('Bail out!'):
            problems.append('the test bailed out: ' + line)
            continue
        m = TAP_SUMMARY.match(line)
        if m:
            summary = (int(m[1]), int(m[2]), int(m[3] or 0))
    if not plans:
        problems.append('no plan ("1..N"): the test stopped before its end?')
    elif len(plans) > 1:
        problems.append('%d plans (lines %s)' % (len(plans), ', '.join(str(i + 1) for i, _, _ in plans)))
    else:
        _, count, before = plans[0]
        if before not in (0, n):
            problems.append('the plan comes after %d of %d results: neither first nor last' % (before, n))
        if count != n:
            problems.append('the plan says %d cases, %d ran' % (count, n))
    if n == 0:
        problems.append('no test case ran')
    if totals is None:
        problems.append('no "# Totals:" line')
    elif totals != [p, f, 0, 0, s, 0]:
        problems.append('"# Totals: pass:%d fail:%d xfail:%d xpass:%d skip:%d error:%d" disagrees with '
                        'the results: pass:%d fail:%d skip:%d' % tuple(totals + [p, f, s]))
    if summary is not None and summary != (p, f, s):
        problems.append('the summary line says %d passed, %d failed, %d skipped; the results: %d, %d, %d'
                        % (summary + (p, f, s)))
    return (p, f, s), problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('scan')
    s.add_argument('log')
    s.add_argument('--allow-warning', action='append', default=[])
    p = sub.add_parser('parse')
    p.add_argument('log')
    p.add_argument('--results')
    p.add_argument('--verbose', action='store_true', help="also print kunit_parser's own report")
    t = sub.add_parser('tap')
    t.add_argument('log')
    for x in (s, p):
        x.add_argument('--vmlinux', help='the booted kernel, to decode crash reports')
        x.add_argument('--tree', help='kernel source tree (default: $TREE, else build/linux)')
    a = ap.parse_args(argv)
    try:
        with open(a.log, errors='replace') as f:
            text = f.read()
    except OSError as e:
        if a.cmd != 'tap':
            raise
        text = ''
        print('%s: %s' % (a.log, e.strerror), file=sys.stderr)
    if a.cmd == 'tap':
        counts, problems = tap(text)
        print('%d %d %d' % counts)
        for x in problems:
            print('%s: %s' % (a.log, x), file=sys.stderr)
        return 1 if problems else 0
    tree = a.tree or default_tree()

    if a.cmd == 'scan':
        found = scan(text, a.allow_warning)
        for no, kind, line in found:
            print('console line %d: %s: %s' % (no, kind, line))
        if found and a.vmlinux:
            for line in format_reports(crash_reports(text, found), a.vmlinux, tree):
                print(line)
        return 1 if found else 0

    try:
        r = analyse(text, tree)
    except ImportError as e:
        print("FAIL kunit: cannot load the kernel's KUnit parser: %s" % e)
        if a.results:
            with open(a.results, 'a') as f:
                f.write('kunit:<log> 0 1 0\n')
        return 1
    if a.verbose:
        print("---- kunit_parser's report ----")
        print(r.kunit_output.rstrip('\n'))
        print('---- end of kunit_parser\'s report ----')
    reports = crash_reports(text, [x for x in r.problems if x[1] != 'WARNING'])
    hidden = set(x.rstrip() for _, _, _, body in reports for x in body)
    shown = 0
    for name, p_, f_, s_ in r.suites:
        verdict = 'FAIL' if f_ else 'ok  '
        extra = ', %d skipped' % s_ if s_ else ''
        if name in r.never_ran:
            extra += ' (%d never ran)' % r.never_ran[name]
        print('%s kunit: %-28s %d passed, %d failed%s' % (verdict, name, p_, f_, extra))
        for case, how, log in r.failures:
            if case != name and not case.startswith(name + '.'):
                continue
            shown += 1
            if shown > CASES_MAX:
                print('FAIL kunit: %s %s' % (case, how))
                continue
            print('FAIL kunit: %s %s:' % (case, how))
            for line in show_log(log, hidden) or ['(no diagnostic lines)']:
                print('        ' + line)
    for e in r.errors:
        print('FAIL kunit: ' + e)
    for line in format_reports(reports, a.vmlinux, tree):
        print(line)
    if a.results:
        with open(a.results, 'a') as f:
            for name, p_, f_, s_ in r.suites:
                f.write('kunit:%s %d %d %d\n' % (name, p_, f_, s_))
            if r.errors:
                f.write('kunit:<log> 0 %d 0\n' % len(r.errors))
    return 1 if r.errors or any(f_ for _, _, f_, _ in r.suites) else 0


if __name__ == '__main__':
    sys.exit(main())
