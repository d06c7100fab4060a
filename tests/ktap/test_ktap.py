# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/ktap.py on crafted console logs (tests/ktap/logs/)."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, '..', '..', 'scripts', 'ktap.py')
sys.path.insert(0, os.path.dirname(SCRIPT))
import ktap  # noqa: E402


def log(name):
    with open(os.path.join(HERE, 'logs', name)) as f:
        return f.read()


def run_cli(*args):
    return subprocess.run([sys.executable, SCRIPT] + list(args),
                          capture_output=True, text=True)


class Parse(unittest.TestCase):
    def test_good_log_passes_with_counts(self):
        suites, errors = ktap.evaluate(log('good.log'))
        self.assertEqual(errors, [])
        self.assertEqual(suites, [('alpha', 2, 0, 0), ('beta', 3, 0, 2)])

    def test_parameterised_cases_count_each_parameter(self):
        suites, _ = ktap.evaluate(log('good.log'))
        # beta: b1 + b3's three parameters (one skipped) + b2 skipped
        self.assertEqual(dict((s[0], s[1:]) for s in suites)['beta'], (3, 0, 2))

    def test_not_ok_fails(self):
        suites, errors = ktap.evaluate(log('notok.log'))
        self.assertEqual(suites[0], ('alpha', 1, 1, 0))
        self.assertIn('suite alpha: not ok', errors)

    def test_crash_fails(self):
        _, errors = ktap.evaluate(log('crash.log'))
        self.assertTrue(any('kernel Oops' in e or 'kernel BUG' in e for e in errors), errors)
        self.assertTrue(any('kernel panic' in e for e in errors), errors)
        self.assertTrue(any('"beta" never finished' in e for e in errors), errors)

    def test_panic_after_all_suites_fails(self):
        suites, errors = ktap.evaluate(log('panic_after.log'))
        self.assertEqual(len(suites), 2)
        self.assertTrue(any('kernel panic' in e for e in errors), errors)

    def test_kernel_bug_at_fails(self):
        _, errors = ktap.evaluate(log('kbug.log'))
        self.assertTrue(any('kernel BUG' in e for e in errors), errors)

    def test_unfinished_suite_fails(self):
        _, errors = ktap.evaluate(log('unfinished.log'))
        self.assertTrue(any('never finished' in e for e in errors), errors)

    def test_missing_top_plan_fails(self):
        _, errors = ktap.evaluate(log('noplan_top.log'))
        self.assertIn('missing top-level plan ("1..N")', errors)

    def test_missing_suite_plan_fails(self):
        _, errors = ktap.evaluate(log('noplan_suite.log'))
        self.assertIn('beta: missing plan', errors)

    def test_suite_missing_from_top_plan_fails(self):
        _, errors = ktap.evaluate(log('missing_suite.log'))
        self.assertIn('top-level plan says 3 suites, 2 reported', errors)

    def test_case_missing_from_suite_plan_fails(self):
        _, errors = ktap.evaluate(log('plan_mismatch.log'))
        self.assertIn('alpha: plan says 3 tests, 2 reported', errors)

    def test_zero_tests_fails(self):
        suites, errors = ktap.evaluate(log('zero.log'))
        self.assertEqual(suites, [])
        self.assertIn('zero test cases ran', errors)

    def test_no_ktap_fails(self):
        _, errors = ktap.evaluate(log('nothing.log'))
        self.assertTrue(any('no KTAP output' in e for e in errors), errors)

    def test_skipped_suite_is_skipped_not_passed(self):
        suites, errors = ktap.evaluate(log('allskip.log'))
        self.assertEqual(errors, [])
        self.assertEqual(suites, [('gamma', 1, 0, 0), ('delta', 0, 0, 1)])

    def test_unexpected_warning_does_not_fail_parse_but_fails_scan(self):
        # The KTAP verdict is about tests; vm-run's scan judges warnings.
        _, errors = ktap.evaluate(log('warn_unexpected.log'))
        self.assertEqual(errors, [])
        found = ktap.scan(log('warn_unexpected.log'))
        self.assertEqual([k for _, k, _ in found], ['WARNING'])


class Scan(unittest.TestCase):
    def test_clean_log(self):
        self.assertEqual(ktap.scan(log('good.log')), [])

    def test_declared_warning_is_allowed(self):
        self.assertEqual(ktap.scan(log('warn_expected.log')), [])

    def test_host_allowed_warning(self):
        self.assertEqual(ktap.scan(log('warn_unexpected.log'), [r'page_alloc\.c']), [])

    def test_allow_list_is_specific(self):
        found = ktap.scan(log('warn_unexpected.log'), [r'mask_alloc\.c'])
        self.assertEqual(len(found), 1)

    def test_crash_kinds(self):
        kinds = [k for _, k, _ in ktap.scan(log('crash.log'))]
        self.assertEqual(kinds, ['BUG', 'Oops', 'kernel panic'])


class DebugReports(unittest.TestCase):
    """The debug profile's checkers: each report fails the scan, and no
    expected-warning declaration excuses it."""

    def kinds(self, name, allowed=()):
        return [k for _, k, _ in ktap.scan(log(name), allowed)]

    def test_kasan_report(self):
        self.assertEqual(self.kinds('kasan.log'), ['KASAN report'])

    def test_lockdep_reports_despite_catch_all_declaration(self):
        # lockdep.log declares "expect-warning: ." before its reports
        kinds = self.kinds('lockdep.log', ['.'])
        self.assertEqual(kinds, ['lockdep report'] * 7)
        lines = [l for _, _, l in ktap.scan(log('lockdep.log'))]
        for want in ('circular locking', 'inconsistent lock state', 'recursive locking',
                     'suspicious RCU usage', 'bad unlock balance',
                     'turning off the locking', 'vm-run: lockdep off'):
            self.assertTrue(any(want in l for l in lines), want)

    def test_bad_page(self):
        self.assertEqual(self.kinds('badpage.log'), ['bad page', 'bad page'])

    def test_memory_offline_dumps_are_not_bad_pages(self):
        # offline_pages() names the page it refused for or will retry
        self.assertEqual(ktap.scan(log('offline_dumps.log')), [])

    def test_dma_api_report_despite_declared_warning(self):
        # the WARNING line itself is declared; the DMA-API lines are not excusable
        self.assertEqual(self.kinds('dma_api.log'),
                         ['DMA-API debug report', 'DMA-API debug report'])

    def test_debug_boot_lines_are_not_reports(self):
        self.assertEqual(ktap.scan(log('debug_clean.log')), [])

    def test_reports_fail_the_kunit_verdict_too(self):
        for name in ('kasan.log', 'lockdep.log', 'badpage.log', 'dma_api.log'):
            _, errors = ktap.evaluate(log(name))
            self.assertTrue(any(e.startswith('kernel ') and ('report' in e or 'bad page' in e)
                                for e in errors), (name, errors))


class Cli(unittest.TestCase):
    def test_parse_exit_status_and_results_file(self):
        with tempfile.TemporaryDirectory() as d:
            res = os.path.join(d, 'r')
            ok = run_cli('parse', os.path.join(HERE, 'logs', 'good.log'), '--results', res)
            self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
            self.assertIn('beta', ok.stdout)
            with open(res) as f:
                self.assertEqual(f.read(), 'kunit:alpha 2 0 0\nkunit:beta 3 0 2\n')
            bad = run_cli('parse', os.path.join(HERE, 'logs', 'unfinished.log'))
            self.assertEqual(bad.returncode, 1)

    def test_scan_exit_status_on_debug_reports(self):
        for name in ('kasan.log', 'lockdep.log', 'badpage.log', 'dma_api.log'):
            bad = run_cli('scan', '--allow-warning', '.', os.path.join(HERE, 'logs', name))
            self.assertEqual(bad.returncode, 1, name)
            self.assertIn('report' if name != 'badpage.log' else 'bad page', bad.stdout)

    def test_scan_exit_status(self):
        self.assertEqual(run_cli('scan', os.path.join(HERE, 'logs', 'good.log')).returncode, 0)
        bad = run_cli('scan', os.path.join(HERE, 'logs', 'warn_unexpected.log'))
        self.assertEqual(bad.returncode, 1)
        self.assertIn('WARNING', bad.stdout)


if __name__ == '__main__':
    unittest.main()
