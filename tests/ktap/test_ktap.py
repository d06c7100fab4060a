# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/ktap.py on crafted console logs (tests/ktap/logs/).

`ktap.py parse` uses the kernel's tools/testing/kunit/kunit_parser.py from
$TREE or build/linux.  Before the tree is prepared (make test runs these
tests first), the two files come from the kernel source tarball instead
(scripts/lib.sh's TARBALL)."""
import contextlib
import glob
import io
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, '..', '..', 'scripts', 'ktap.py')
sys.path.insert(0, os.path.dirname(SCRIPT))
import ktap  # noqa: E402

KUNIT = os.path.join('tools', 'testing', 'kunit')
_tmp = None


def setUpModule():
    """Find the kernel's kunit_parser: $TREE or build/linux, else the
    tarball (exported as TREE for the command line tests)."""
    global _tmp
    if os.path.isfile(os.path.join(ktap.default_tree(), KUNIT, 'kunit_parser.py')):
        return
    tarball = os.environ.get('TARBALL', '/usr/src/linux-source-6.12.tar.xz')
    _tmp = tempfile.mkdtemp(prefix='ktap-kunit-')
    subprocess.run(['tar', '-xJf', tarball, '-C', _tmp, '--wildcards',
                    '*/%s/kunit_parser.py' % KUNIT, '*/%s/kunit_printer.py' % KUNIT],
                   check=False, capture_output=True)
    found = glob.glob(os.path.join(_tmp, '*', KUNIT, 'kunit_parser.py'))
    if not found:
        raise unittest.SkipTest('no kernel tree (%s) and no kunit_parser.py in %s'
                                % (ktap.default_tree(), tarball))
    os.environ['TREE'] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(found[0]))))


def tearDownModule():
    if _tmp:
        shutil.rmtree(_tmp, ignore_errors=True)


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
        suites, errors = ktap.evaluate(log('unfinished.log'))
        self.assertTrue(any('"beta" never finished (log ends after 1 results)' in e
                            for e in errors), errors)
        # the two cases the plan announced and that never came count as failed
        self.assertEqual(suites, [('alpha', 2, 0, 0), ('beta', 1, 2, 0)])

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


    def test_misnumbered_case_fails(self):
        _, errors = ktap.evaluate(log('numbering.log'))
        self.assertIn('alpha.second_case: test 2 reported as number 3', errors)

    def test_suite_without_cases_fails(self):
        suites, errors = ktap.evaluate(log('emptysuite.log'))
        self.assertIn(('empty', 0, 0, 0), suites)
        self.assertIn('empty: no test cases', errors)

    def test_suite_not_ok_with_passing_cases_counts_a_failure(self):
        suites, errors = ktap.evaluate(log('suitefail.log'))
        self.assertEqual(suites, [('alpha', 1, 1, 0)])
        self.assertIn('suite alpha: not ok', errors)

    def test_other_kunit_parser_errors_fail(self):
        _, errors = ktap.evaluate('KTAP version 2\n1..1\n    KTAP version 1\n'
                                  '    # Subtest: a\n    1..1\n    ok 1 x\nok 1 a\n')
        self.assertEqual(errors, ['top level: KTAP version higer than expected! (kunit_parser)'])

    def test_timestamps_of_any_width(self):
        text = ''.join('[%s] %s\n' % (t, l) for t, l in [
            ('    9.999998', 'KTAP version 1'), ('    9.999999', '1..1'),
            ('   10.000000', '    # Subtest: a'), ('10000.000001', '    1..1'),
            ('10000.000002', '    ok 1 x'), ('10000.000003', 'ok 1 a')])
        self.assertEqual(ktap.evaluate(text), ([('a', 1, 0, 0)], []))

    def test_kunit_parser_prints_nothing(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            for name in ('good.log', 'crash.log', 'failcase.log', 'nothing.log'):
                ktap.evaluate(log(name))
        self.assertEqual(out.getvalue(), '')


class Failures(unittest.TestCase):
    """A failing case is named, with its diagnostic lines."""

    def test_failing_cases_named_with_diagnostics(self):
        a = ktap.analyse(log('failcase.log'))
        self.assertEqual([(n, how) for n, how, _ in a.failures],
                         [('alpha.second_case', 'failed'), ('beta.b3.28 bits', 'failed')])
        diag = dict((n, l) for n, _, l in a.failures)
        self.assertIn('    # second_case: EXPECTATION FAILED at mm/tests/alpha_kunit.c:42',
                      diag['alpha.second_case'])
        self.assertIn('            limit == 268435455 (0xfffffff)', diag['beta.b3.28 bits'])

    def test_skipped_cases_are_skipped_not_passed(self):
        suites, errors = ktap.evaluate(log('failcase.log'))
        self.assertEqual(suites, [('alpha', 1, 1, 1), ('beta', 2, 1, 1)])
        self.assertIn('suite alpha: not ok', errors)

    def test_faulted_case_fails_and_the_oops_fails_the_log(self):
        a = ktap.analyse(log('faulted.log'))
        self.assertEqual(a.suites, [('alpha', 1, 1, 0)])
        self.assertEqual([n for n, _, _ in a.failures], ['alpha.second_case'])
        self.assertTrue(any('try faulted' in l for l in a.failures[0][2]))
        self.assertTrue(any(e.startswith('kernel Oops at line 10') for e in a.errors), a.errors)

    def test_suite_that_never_finished_shows_its_last_lines(self):
        a = ktap.analyse(log('crash.log'))
        self.assertEqual([(n, how) for n, how, _ in a.failures], [('beta', 'never finished')])
        self.assertIn('BUG: kernel NULL pointer dereference, address: 0000000000000000',
                      a.failures[0][2])

    def test_crash_report_extent(self):
        text = log('faulted.log')
        reports = ktap.crash_reports(text, ktap.scan(text))
        self.assertEqual([(f, l, k) for f, l, k, _ in reports], [(8, 19, 'BUG')])
        self.assertEqual(reports[0][3][-1], '---[ end trace 0000000000000000 ]---')
        # KASAN: from the opening to the closing "=====" line
        text = log('kasan.log')
        self.assertEqual([(f, l) for f, l, _, _ in ktap.crash_reports(text, ktap.scan(text))],
                         [(3, 12)])


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

    def test_watchdogs(self):
        # hung tasks, RCU stalls and lockups fail the scan; RCU's boot
        # lines and other "INFO:" lines do not
        kinds = [k for _, k, _ in ktap.scan(log('watchdogs.log'), ['.'])]
        self.assertEqual(kinds, ['hung task', 'RCU stall', 'RCU stall', 'BUG', 'hard lockup'])

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

    def test_slub_and_debugobjects_despite_catch_all_declaration(self):
        # slub_odebug.log declares "expect-warning: ." first; the WARNING
        # that follows ODEBUG's line is excused, the reports are not, and
        # neither SLUB's nor debugobjects' boot lines count
        kinds = self.kinds('slub_odebug.log', ['.'])
        self.assertEqual(kinds, ['SLUB debug report', 'debugobjects report',
                                 'SLUB debug report'])

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


class CliFailures(unittest.TestCase):
    """What `ktap.py parse` prints: failing cases with their diagnostics,
    skipped cases as skipped, and kernel reports decoded."""

    def test_failing_case_name_and_diagnostics_shown(self):
        with tempfile.TemporaryDirectory() as d:
            res = os.path.join(d, 'r')
            r = run_cli('parse', os.path.join(HERE, 'logs', 'failcase.log'), '--results', res)
            with open(res) as f:
                self.assertEqual(f.read(), 'kunit:alpha 1 1 1\nkunit:beta 2 1 1\nkunit:<log> 0 2 0\n')
        self.assertEqual(r.returncode, 1)
        out = r.stdout.splitlines()
        i = out.index('FAIL kunit: alpha.second_case failed:')
        self.assertEqual(out[i + 1:i + 5], [
            '        # second_case: EXPECTATION FAILED at mm/tests/alpha_kunit.c:42',
            '        Expected st.pool_bytes == st.pool_pages << 12, but',
            '            st.pool_bytes == 82837504 (0x4f00000)',
            '            st.pool_pages << 12 == 165675008 (0x9e00000)'])
        i = out.index('FAIL kunit: beta.b3.28 bits failed:')
        self.assertEqual(out[i + 1], '        # b3: ASSERTION FAILED at mm/tests/beta_kunit.c:77')
        self.assertIn('FAIL kunit: alpha                        1 passed, 1 failed, 1 skipped', out)
        # kunit_parser's own report only with --verbose
        self.assertNotIn('[FAILED]', r.stdout)
        v = run_cli('parse', '--verbose', os.path.join(HERE, 'logs', 'failcase.log'))
        self.assertIn('[FAILED] second_case', v.stdout)
        self.assertIn('[SKIPPED] third_case', v.stdout)

    def test_skipped_shown_as_skipped(self):
        r = run_cli('parse', os.path.join(HERE, 'logs', 'allskip.log'))
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn('ok   kunit: delta                        0 passed, 0 failed, 1 skipped', r.stdout)

    def test_report_in_a_case_is_shown_once(self):
        r = run_cli('parse', os.path.join(HERE, 'logs', 'faulted.log'))
        out = r.stdout.splitlines()
        i = out.index('FAIL kunit: alpha.second_case failed:')
        self.assertEqual(out[i + 1:i + 3], [
            '        [12 lines of a kernel report: below]',
            '        # second_case: try faulted: last line seen mm/tests/alpha_kunit.c:50'])
        self.assertEqual(r.stdout.count('RIP: 0010:second_case+0x15/0xb1'), 1)
        self.assertIn('---- kernel report (BUG), console lines 8-19, raw: no --vmlinux given ----', out)

    def test_crash_report_raw_when_vmlinux_missing(self):
        r = run_cli('parse', os.path.join(HERE, 'logs', 'crash.log'), '--vmlinux', '/nonexistent/vmlinux')
        self.assertEqual(r.returncode, 1)
        self.assertIn('---- kernel report (BUG), console lines 18-22, raw: /nonexistent/vmlinux not found ----',
                      r.stdout)
        self.assertIn('    RIP: 0010:b2_case+0x10/0x20', r.stdout.splitlines())

    def stub_tree(self, d, script):
        """A tree with the real kunit_parser and a stub decode_stacktrace.sh."""
        os.makedirs(os.path.join(d, 'tools', 'testing'))
        os.symlink(os.path.join(os.environ.get('TREE') or ktap.default_tree(), KUNIT),
                   os.path.join(d, KUNIT))
        os.makedirs(os.path.join(d, 'scripts'))
        path = os.path.join(d, 'scripts', 'decode_stacktrace.sh')
        with open(path, 'w') as f:
            f.write(textwrap.dedent(script))
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
        vmlinux = os.path.join(d, 'vmlinux')
        open(vmlinux, 'w').close()
        return vmlinux

    def test_crash_report_passed_through_decode_stacktrace(self):
        with tempfile.TemporaryDirectory() as d:
            vmlinux = self.stub_tree(d, r"""
                echo "$*" >"$(dirname "$0")/args"
                sed -E 's/([a-z_0-9]+)\+0x[0-9a-f]+\/0x[0-9a-f]+/\1 (mm\/fake.c:7)/'
                """)
            r = run_cli('parse', os.path.join(HERE, 'logs', 'faulted.log'), '--vmlinux', vmlinux, '--tree', d)
            with open(os.path.join(d, 'scripts', 'args')) as f:
                self.assertEqual(f.read(), vmlinux + ' auto\n')
        out = r.stdout.splitlines()
        self.assertIn('---- kernel report (BUG), console lines 8-19, '
                      'decoded by scripts/decode_stacktrace.sh ----', out)
        self.assertIn('    RIP: 0010:second_case (mm/fake.c:7)', out)
        self.assertIn('     ? kthread (mm/fake.c:7)', out)
        self.assertEqual(r.returncode, 1)

    def test_raw_report_when_decoding_fails(self):
        with tempfile.TemporaryDirectory() as d:
            vmlinux = self.stub_tree(d, """
                echo "ERROR! vmlinux image must be specified" >&2
                exit 1
                """)
            r = run_cli('parse', os.path.join(HERE, 'logs', 'faulted.log'), '--vmlinux', vmlinux, '--tree', d)
        self.assertIn('---- kernel report (BUG), console lines 8-19, raw: decode_stacktrace.sh failed: '
                      'ERROR! vmlinux image must be specified ----', r.stdout)
        self.assertIn('    RIP: 0010:second_case+0x15/0xb1', r.stdout.splitlines())

    def test_real_decode_stacktrace_gives_file_and_line(self):
        script = os.path.join(os.environ.get('TREE') or ktap.default_tree(), 'scripts', 'decode_stacktrace.sh')
        if not os.path.isfile(script) or not all(shutil.which(t) for t in ('gcc', 'nm', 'addr2line')):
            self.skipTest('needs the kernel tree, gcc, nm and addr2line')
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, 'fake_case.c')
            with open(src, 'w') as f:
                f.write('volatile int sink;\n'
                        'void second_case(int *p)\n{\n' + '\tsink += p[0];\n' * 40 + '}\n'
                        'int main(void) { second_case((int *)&sink); return 0; }\n')
            exe = os.path.join(d, 'vmlinux')
            subprocess.run(['gcc', '-g', '-O0', '-o', exe, src], check=True)
            r = run_cli('parse', os.path.join(HERE, 'logs', 'faulted.log'), '--vmlinux', exe)
        rip = [l for l in r.stdout.splitlines() if 'RIP: ' in l]
        self.assertEqual(len(rip), 1, r.stdout)
        self.assertRegex(rip[0], r'RIP: 0010:second_case \(\S*fake_case\.c:\d+\)')

    def test_missing_kunit_parser_fails(self):
        with tempfile.TemporaryDirectory() as d:
            res = os.path.join(d, 'r')
            r = run_cli('parse', os.path.join(HERE, 'logs', 'good.log'), '--tree', d, '--results', res)
            with open(res) as f:
                self.assertEqual(f.read(), 'kunit:<log> 0 1 0\n')
        self.assertEqual(r.returncode, 1)
        self.assertIn("FAIL kunit: cannot load the kernel's KUnit parser", r.stdout)

    def test_scan_shows_reports_only_with_vmlinux(self):
        plain = run_cli('scan', os.path.join(HERE, 'logs', 'crash.log'))
        self.assertEqual(len(plain.stdout.splitlines()), 3)
        withv = run_cli('scan', os.path.join(HERE, 'logs', 'crash.log'), '--vmlinux', '/nonexistent')
        self.assertEqual(withv.returncode, 1)
        self.assertIn('---- kernel report (BUG), console lines 18-22, raw: /nonexistent not found ----',
                      withv.stdout)


if __name__ == '__main__':
    unittest.main()


class Tap(unittest.TestCase):
    """`ktap.py tap`: a test script's own KTAP stream (tests/ktap_helpers.sh,
    tests/ktap_out.py)."""
    def tap(self, name):
        return ktap.tap(log(name))

    def test_good_stream_counts_pass_fail_skip(self):
        self.assertEqual(self.tap('tap_good.log'), ((2, 1, 1), []))

    def test_plan_first_is_fine(self):
        self.assertEqual(self.tap('tap_plan_first.log'), ((2, 0, 0), []))

    def test_missing_plan_fails(self):
        counts, problems = self.tap('tap_no_plan.log')
        self.assertEqual(counts, (2, 0, 0))
        self.assertTrue(any('no plan' in p for p in problems), problems)

    def test_zero_cases_fail(self):
        counts, problems = self.tap('tap_zero.log')
        self.assertEqual(counts, (0, 0, 0))
        self.assertIn('no test case ran', problems)

    def test_misnumbered_results_fail(self):
        counts, problems = self.tap('tap_misnumbered.log')
        self.assertEqual(counts, (3, 0, 0))
        self.assertTrue(any('result 2 is numbered 3' in p for p in problems), problems)
        self.assertTrue(any('result 3 is numbered nothing' in p for p in problems), problems)

    def test_plan_that_does_not_match_fails(self):
        _, problems = self.tap('tap_plan_mismatch.log')
        self.assertIn('the plan says 3 cases, 2 ran', problems)

    def test_plan_in_the_middle_fails(self):
        _, problems = self.tap('tap_plan_middle.log')
        self.assertTrue(any('neither first nor last' in p for p in problems), problems)

    def test_totals_and_summary_must_agree(self):
        counts, problems = self.tap('tap_bad_totals.log')
        self.assertEqual(counts, (1, 1, 0))
        self.assertTrue(any(p.startswith('"# Totals: pass:2') for p in problems), problems)
        self.assertTrue(any(p.startswith('the summary line says') for p in problems), problems)

    def test_missing_totals_fails(self):
        _, problems = ktap.tap('TAP version 13\nok 1 a\n1..1\n')
        self.assertEqual(problems, ['no "# Totals:" line'])

    def test_no_header_fails(self):
        counts, problems = self.tap('tap_no_header.log')
        self.assertEqual(counts, (0, 0, 0))
        self.assertTrue(problems and 'header' in problems[0], problems)

    def test_bail_out_fails(self):
        _, problems = self.tap('tap_bail.log')
        self.assertTrue(any('bailed out' in p for p in problems), problems)

    def test_last_stream_is_checked(self):
        self.assertEqual(self.tap('tap_two_streams.log'), ((1, 1, 0), []))

    def test_cli(self):
        r = run_cli('tap', os.path.join(HERE, 'logs', 'tap_good.log'))
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, '2 1 1\n', ''))
        r = run_cli('tap', os.path.join(HERE, 'logs', 'tap_no_plan.log'))
        self.assertEqual((r.returncode, r.stdout), (1, '2 0 0\n'))
        self.assertIn('tap_no_plan.log: no plan', r.stderr)
        r = run_cli('tap', os.path.join(HERE, 'logs', 'no-such.log'))
        self.assertEqual((r.returncode, r.stdout), (1, '0 0 0\n'))
        self.assertIn('no-such.log', r.stderr)


HELPERS = os.path.join(HERE, '..', 'ktap_helpers.sh')


class Helpers(unittest.TestCase):
    """tests/ktap_helpers.sh under every shell that runs it (bash on the
    host, busybox sh in the guest; dash as a stand-in for any POSIX sh) and
    tests/ktap_out.py print streams that `ktap.py tap` accepts."""
    SCRIPT = textwrap.dedent('''\
        . "$HELPERS"
        ktap_header demo
        ktap_check 1 "first"
        ktap_check 0 "second" "a detail"
        ktap_check "" "third" "line one
        line two"
        ktap_skip "fourth" "no device"
        ktap_check 1 "a description
        on two lines"
        ktap_diag "a diagnostic"
        ktap_relay "$GUEST"; echo "# relay status $?"
        ktap_relay "$BROKEN"; echo "# relay status $?"
        ktap_finish; echo "# finish status $?"
        ''')
    GUEST = textwrap.dedent('''\
        TAP version 13
        # guest
        ok 1 guest one
        R key value
        not ok 2 guest two # why
        ok 3 guest three # SKIP nothing to do
        1..3
        # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0
        guest: 1 passed, 1 failed, 1 skipped
        ''')
    WANT = textwrap.dedent('''\
        TAP version 13
        # demo
        ok 1 first
        not ok 2 second # a detail
        not ok 3 third # line one
        # line two
        ok 4 fourth # SKIP no device
        ok 5 a description on two lines
        # a diagnostic
        # TAP version 13
        # # guest
        ok 6 guest one
        # R key value
        not ok 7 guest two # why
        ok 8 guest three # SKIP nothing to do
        # 1..3
        # # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0
        # guest: 1 passed, 1 failed, 1 skipped
        # relay status 0
        # TAP version 13
        ok 9 died midway
        # relay status 1
        1..9
        # Totals: pass:4 fail:3 xfail:0 xpass:0 skip:2 error:0
        demo: 4 passed, 3 failed, 2 skipped
        # finish status 1
        ''')

    def run_sh(self, shell):
        with tempfile.TemporaryDirectory() as d:
            files = {'GUEST': self.GUEST, 'BROKEN': 'TAP version 13\nok 1 died midway\n'}
            env = dict(os.environ, HELPERS=HELPERS)
            for k, text in files.items():
                env[k] = os.path.join(d, k)
                with open(env[k], 'w') as f:
                    f.write(text)
            return subprocess.run(shell + ['-c', self.SCRIPT], env=env, capture_output=True,
                                  text=True)

    def check_shell(self, shell):
        if not shutil.which(shell[0]):
            self.skipTest('no ' + shell[0])
        r = self.run_sh(shell)
        self.assertEqual((r.stdout, r.stderr, r.returncode), (self.WANT, '', 0))
        self.assertEqual(ktap.tap(r.stdout), ((4, 3, 2), []))

    def test_bash(self):
        self.check_shell(['bash'])

    def test_busybox_sh(self):
        self.check_shell(['busybox', 'sh'])

    def test_dash(self):
        self.check_shell(['dash'])

    def test_finish_fails_on_zero_cases_and_passes_on_success(self):
        r = subprocess.run(['sh', '-c', '. "$1"; ktap_header z; ktap_finish', 'sh', HELPERS],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(ktap.tap(r.stdout)[1], ['no test case ran'])
        r = subprocess.run(['sh', '-c', '. "$1"; ktap_header y; ktap_check 1 a; ktap_finish', 'sh', HELPERS],
                           capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout.splitlines()[-1]), (0, 'y: 1 passed, 0 failed'))

    def test_python_helper_prints_the_same(self):
        sys.path.insert(0, os.path.join(HERE, '..'))
        try:
            from ktap_out import Ktap
        finally:
            sys.path.pop(0)
        out = io.StringIO()
        t = Ktap('demo', out)
        t.check('first', True)
        t.check('second', False, 'a detail')
        t.check('third', 0, 'line one\nline two')
        t.skip('fourth', 'no device')
        t.check('a description\non two lines', 1)
        t.diag('a diagnostic')
        self.assertEqual(t.finish(), 1)
        want = self.WANT.splitlines()
        want = want[:9] + ['1..5', '# Totals: pass:2 fail:2 xfail:0 xpass:0 skip:1 error:0',
                           'demo: 2 passed, 2 failed, 1 skipped']
        self.assertEqual(out.getvalue().splitlines(), want)
        self.assertEqual(ktap.tap(out.getvalue()), ((2, 2, 1), []))
        t = Ktap('none', io.StringIO())
        self.assertEqual(t.finish(), 1)
