# SPDX-License-Identifier: GPL-2.0
"""KTAP output for the tests whose checks are in Python (tests/fair,
holders, reserve, trace): the same stream as tests/ktap_helpers.sh prints,

    TAP version 13
    # NAME
    ok 1 DESC
    not ok 2 DESC # DETAIL        (more lines of DETAIL: "# " lines)
    ok 3 DESC # SKIP REASON
    1..3
    # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0
    NAME: 1 passed, 1 failed, 1 skipped

The scripts run from the repository's root: sys.path.insert(0, 'tests'),
then `t = Ktap('NAME')`, `t.check(desc, ok, detail)` for each case and
`sys.exit(t.finish())` (1 on a failed case or on none)."""
import sys


class Ktap:
    def __init__(self, name, out=None):
        self.name = name
        self.out = out or sys.stdout
        self.n = self.passed = self.failed = self.skipped = 0
        self._print('TAP version 13')
        self._print('# ' + name)

    def _print(self, line):
        print(line, file=self.out, flush=True)

    def _result(self, result, desc, directive=''):
        self.n += 1
        desc = ' '.join(str(desc).splitlines())
        first, *rest = str(directive).splitlines() or ['']
        self._print(f'{result} {self.n} {desc}' + (f' # {first}' if directive else ''))
        for line in rest:
            self._print('# ' + line)

    def check(self, desc, ok, detail=''):
        """One case: passes when ok is true; a failure shows detail."""
        if ok:
            self.passed += 1
            self._result('ok', desc)
        else:
            self.failed += 1
            self._result('not ok', desc, detail)

    def skip(self, desc, reason=''):
        self.skipped += 1
        self._result('ok', desc, 'SKIP' + (f' {reason}' if reason else ''))

    def diag(self, text):
        for line in str(text).splitlines() or ['']:
            self._print('# ' + line)

    def finish(self):
        """The plan, the Totals line and the summary line; the exit
        status: 1 on a failed case or when no case ran."""
        self._print(f'1..{self.n}')
        self._print(f'# Totals: pass:{self.passed} fail:{self.failed} xfail:0 xpass:0 '
                    f'skip:{self.skipped} error:0')
        skipped = f', {self.skipped} skipped' if self.skipped else ''
        self._print(f'{self.name}: {self.passed} passed, {self.failed} failed{skipped}')
        return 1 if self.failed or not self.n else 0
