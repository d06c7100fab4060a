#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fair waiters in a guest: one boot with a 4 MiB pool ("maskzone=4M,force")
# runs the fairness stress (debugfs mask_alloc/fair_stress, see
# mm/mask_alloc/stress.c) with mask_alloc/fair = 1, then 0: one thread asks
# for 64 contiguous pages with GFP_KERNEL again and again while small
# threads churn 1..4-page allocations that keep the pool nearly full.
#
# With fairness, the large waiter must never time out and its longest wait
# must stay below half of vm.mask_alloc_timeout_ms (5000 ms): its window
# is whole once every small allocation in it has been freed once, which
# the churn does in a fraction of a second (see the commit message for the
# figures); a wait of half the timeout would mean it is starved again.
# Without fairness nothing is checked but that the run completes: the
# figures are printed for the comparison.  The atomic reserve is set to 0
# (vm.mask_alloc_reserve_kbytes): the small threads use GFP_NOWAIT, which
# may take it, and while they keep fewer pages free than the reserve no
# blocking request is served at all, fair or not.
#
#   tests/fair/run.sh [--threads N] [--seconds S] [--seed S]
#
# Prints KTAP (tests/ktap_out.py), both runs' figures as "# " lines
# and as its last line "fair: N passed, N failed".
# Logs: $TEST_OUT/fair/ (default build/test/fair).
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
vm=scripts/vm-run.sh
logs=${TEST_OUT:-$BUILD/test}/fair
mkdir -p "$logs"

threads=4 secs=20 seed=1
while [[ $# -gt 0 ]]; do
	case $1 in
	--threads) threads=$2; shift 2 ;;
	--seconds) secs=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	*) echo "usage: $0 [--threads N] [--seconds S] [--seed S]" >&2; exit 2 ;;
	esac
done

rc=0
run_stage --watch "$logs/console.log" "fair: fairness stress, fair on and off (maskzone=4M,force)" \
	$vm --mem 1G --timeout $((4 * secs + 300)) --append "kunit.enable=0 maskzone=4M,force" \
	--file tests/fair/guest.sh --console "$logs/console.log" -- \
	sh guest.sh "$threads" "$secs" "$seed" >"$logs/guest.out" 2>"$logs/guest.err" || rc=$?

python3 - "$logs" "$rc" "$seed" <<'PY'
import sys

sys.path.insert(0, 'tests')
from ktap_out import Ktap  # noqa: E402

logs, rc, seed = sys.argv[1], int(sys.argv[2]), sys.argv[3]
out = open(f'{logs}/guest.out', errors='replace').read().splitlines()
t = Ktap('fair')
check = t.check     # check(name, ok, detail='')


def kv(tag):
    d = {}
    for l in out:
        if l.startswith(tag + ' '):
            k, _, v = l[len(tag) + 1:].partition(' ')
            d[k] = v.strip()
    return d


check('boot: vm-run exit status 0', rc == 0, f'exit {rc}')
e, on, off = kv('E'), kv('R1'), kv('R0')
print(f'# seed {seed}')
if rc or not on or not off:
    for l in out:
        print('# ' + l)
    for l in open(f'{logs}/guest.err', errors='replace'):
        print('# vm-run: ' + l.rstrip())
timeout = int(e.get('timeout_ms', '5000'))
check('mask_alloc/fair reads 1 by default', e.get('fair_default') == '1', str(e.get('fair_default')))
check('mask_alloc/fair refuses 2', e.get('fair_bad_value', '0') != '0')
check('both runs completed', e.get('run1') == '0' and e.get('run0') == '0',
      f"{e.get('run1')} {e.get('run0')}")
for tag, r in (('fair on', on), ('fair off', off)):
    check(f'{tag}: result ok (no range error, no misuse)', r.get('result') == 'ok', str(r))
    print(f"# {tag}: large waiter {r.get('large_ok')} ok, {r.get('large_fail')} timed out, "
          f"longest wait {r.get('large_max_wait_ms')} ms, mean {r.get('large_mean_wait_ms')} ms; "
          f"small {r.get('small_ok')} ok, {r.get('small_fail')} failed")
try:
    bound = timeout // 2
    check(f"fair on: the large waiter got its 64 pages ({on['large_ok']} times)",
          int(on['large_ok']) >= 1)
    check(f"fair on: the large waiter never timed out ({on['large_fail']} failures)",
          int(on['large_fail']) == 0)
    check(f"fair on: longest wait {on['large_max_wait_ms']} ms < {bound} ms (half the timeout)",
          int(on['large_max_wait_ms']) < bound)
    check(f"fair on: the small threads kept going ({on['small_ok']} allocations)",
          int(on['small_ok']) > 100 * int(on['large_ok']))
    print(f"# longest wait of the large waiter: {on['large_max_wait_ms']} ms with fairness, "
          f"{off['large_max_wait_ms']} ms without")
except (KeyError, ValueError) as ex:
    check('the runs printed their figures', False, repr(ex))
s = kv('S')
check('after both runs: no page left claimed, no waiter', s.get('claimed_bytes:') == '0' and
      s.get('waiters:') == '0', str(s))
sys.exit(t.finish())
PY
