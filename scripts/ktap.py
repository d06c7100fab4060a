#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read what a booted kernel printed on its serial console.

  ktap.py scan  LOG [--allow-warning RE]...   kernel problems (panic, Oops,
                                              BUG, unexpected WARNING, KASAN,
                                              lockdep, bad page, DMA-API)
  ktap.py parse LOG [--results FILE]          KUnit KTAP results

`parse` fails (exit 1) on a kernel crash, a missing KTAP header or plan, a
suite or case that never finished, a plan that does not match the results,
zero test cases, or any "not ok".  It prints one line per suite.  With
--results it appends "kunit:<suite> <passed> <failed> <skipped>" records
for scripts/run-tests.

A test declares that it provokes a warning on purpose by printing, before
it does so, a console line containing
    vm-run: expect-warning: <regex>
Any later "WARNING:" line that the regex matches is then not a problem.
The same can be passed from the host with --allow-warning <regex>.  The
debugging checkers' reports (REPORTS) are never excused that way.
"""
import argparse
import re
import sys

TIMESTAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')
EXPECT_DECL = re.compile(r'vm-run: expect-warning: (.*?)\s*$')

# Reports of the kernel's debugging checkers (the debug profile: KASAN,
# lockdep, DEBUG_VM, DEBUG_PAGEALLOC, PAGE_OWNER, DMA-API debugging).  They
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


RESULT = re.compile(r'^(ok|not ok) (\d+)(?: (?:- )?([^#]*?))?\s*(?:#\s*(\S+)\s*(.*))?$')
PLAN = re.compile(r'^1\.\.(\d+)')
HEADER = re.compile(r'^(?:KTAP version \d+|TAP version \d+)$')
SUBTEST = re.compile(r'^# Subtest: (.*)$')


class Group:
    """One KTAP (sub)test list: a header, a plan and results."""

    def __init__(self, indent, name=None):
        self.indent = indent
        self.name = name
        self.plan = None
        self.results = []       # [Result]


class Result:
    def __init__(self, ok, num, name, directive, children):
        self.ok = ok
        self.num = num
        self.name = name
        self.skip = directive is not None and directive.upper() == 'SKIP'
        self.children = children  # Group or None


class ParseError(Exception):
    pass


def parse(text):
    """Parse KUnit KTAP output.  Returns (top Group, [error strings])."""
    errors = []
    lines = [strip(x) for x in text.splitlines()]
    start = None
    for i, line in enumerate(lines):
        if HEADER.match(line):
            start = i
            break
    if start is None:
        return None, ['no KTAP output (no "KTAP version" line at column 0)']

    top = Group(0, '<top>')
    stack = [top]
    for line in lines[start + 1:]:
        body = line.lstrip(' ')
        indent = len(line) - len(body)
        if not body:
            continue
        cur = stack[-1]
        if HEADER.match(body):
            if indent > cur.indent:
                stack.append(Group(indent))
            continue
        m = SUBTEST.match(body)
        if m:
            if indent > cur.indent:
                stack.append(Group(indent, m.group(1).strip()))
            elif indent == cur.indent and cur.name is None:
                cur.name = m.group(1).strip()
            continue
        m = PLAN.match(body)
        if m:
            if indent == cur.indent:
                cur.plan = int(m.group(1))
            elif indent > cur.indent:
                g = Group(indent)
                g.plan = int(m.group(1))
                stack.append(g)
            continue
        m = RESULT.match(body)
        if m:
            # Only result lines that line up with an open list count; other
            # "ok"-looking text (a test's own output) is ignored.
            if not any(g.indent == indent for g in stack):
                continue
            child = None
            while stack[-1].indent > indent:
                child = stack.pop()
            res = Result(m.group(1) == 'ok', int(m.group(2)),
                         (m.group(3) or '').strip(), m.group(4), child)
            stack[-1].results.append(res)
            continue
        # Anything else (diagnostics, kernel messages) is ignored.

    # Lists still open at the end never finished: the kernel stopped early.
    for g in stack[1:]:
        errors.append('suite/test "%s" never finished (log ends after %d results)'
                      % (g.name or '?', len(g.results)))
    if top.plan is None:
        errors.append('missing top-level plan ("1..N")')
    return top, errors


def leaf_counts(res):
    """(passed, failed, skipped) over the leaf test cases below a result."""
    g = res.children
    if g is None or not g.results:
        if res.skip:
            return 0, 0, 1
        return (1, 0, 0) if res.ok else (0, 1, 0)
    p = f = s = 0
    for r in g.results:
        a, b, c = leaf_counts(r)
        p, f, s = p + a, f + b, s + c
    # A parent that failed with all children passing still counts as a failure.
    if not res.ok and f == 0:
        f = 1
    return p, f, s


def check_group(g, path, errors, depth=1):
    """Plan and numbering checks, recursively.  KUnit prints no plan for
    the parameters of a parameterised case (depth > 1), so a plan is only
    required of suites."""
    if g.plan is None:
        if depth == 1:
            errors.append('%s: missing plan' % path)
    elif g.plan != len(g.results):
        errors.append('%s: plan says %d tests, %d reported' % (path, g.plan, len(g.results)))
    for i, r in enumerate(g.results, 1):
        if r.num != i:
            errors.append('%s: test %d reported as number %d' % (path, i, r.num))
        if r.children is not None:
            check_group(r.children, '%s/%s' % (path, r.name), errors, depth + 1)


def evaluate(text):
    """Full verdict.  Returns (suites, errors); suites = [(name, p, f, s)]."""
    errors = ['kernel %s at line %d: %s' % (k, n, l) for n, k, l in scan(text)
              if k != 'WARNING']
    top, perr = parse(text)
    errors += perr
    suites = []
    if top is None:
        return suites, errors
    for r in top.results:
        if r.children is not None:
            check_group(r.children, r.name, errors)
        p, f, s = leaf_counts(r)
        suites.append((r.name, p, f, s))
        if not r.ok and not r.skip:
            errors.append('suite %s: not ok' % r.name)
    if top.plan is not None and top.plan != len(top.results):
        errors.append('top-level plan says %d suites, %d reported' % (top.plan, len(top.results)))
    if sum(p + f for _, p, f, _ in suites) == 0:
        errors.append('zero test cases ran')
    return suites, errors


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('scan')
    s.add_argument('log')
    s.add_argument('--allow-warning', action='append', default=[])
    p = sub.add_parser('parse')
    p.add_argument('log')
    p.add_argument('--results')
    a = ap.parse_args(argv)
    with open(a.log, errors='replace') as f:
        text = f.read()

    if a.cmd == 'scan':
        found = scan(text, a.allow_warning)
        for no, kind, line in found:
            print('console line %d: %s: %s' % (no, kind, line))
        return 1 if found else 0

    suites, errors = evaluate(text)
    for name, p_, f_, s_ in suites:
        verdict = 'FAIL' if f_ else 'ok  '
        extra = ', %d skipped' % s_ if s_ else ''
        print('%s kunit: %-28s %d passed, %d failed%s' % (verdict, name, p_, f_, extra))
    for e in errors:
        print('FAIL kunit: ' + e)
    if a.results:
        with open(a.results, 'a') as f:
            for name, p_, f_, s_ in suites:
                f.write('kunit:%s %d %d %d\n' % (name, p_, f_, s_))
            if errors:
                f.write('kunit:<log> 0 %d 0\n' % len(errors))
    return 1 if errors or any(f_ for _, _, f_, _ in suites) else 0


if __name__ == '__main__':
    sys.exit(main())
