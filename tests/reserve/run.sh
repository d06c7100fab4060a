#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The mask pool's atomic reserve, in a guest (tests/reserve/guest.sh).
#
# One boot with a 64 MiB pool ("maskzone=64M,force": every mask
# allocation comes from it) and the default reserve (1/32 of the pool:
# 2 MiB).  Below each of the masks 2^24, 2^25, 2^26, 2^28 and 2^32 - 1,
# blocking allocations fill the pool until they fail, then atomic ones
# must still get exactly the reserve, and everything comes back.  Then the
# same with vm.mask_alloc_reserve_kbytes set to 0 (blocking allocations
# get everything) and to 4096, and the sysctl refuses bad input.
#
# Below a mask that ends inside the pool the reserve is its share of the
# pool pages below the mask (as the zones' watermarks scale with their size).
#
# Prints KTAP (tests/ktap_out.py), one "# reserve:" line per mask
# with the figures, and as its last line "reserve: N passed, N failed".
# Logs: $TEST_OUT/reserve/ (default build/test/reserve).
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
logs=${TEST_OUT:-$BUILD/test}/reserve
mkdir -p "$logs"

rc=0
run_stage --watch "$logs/console.log" "reserve: boot with a 64 MiB pool, fill below each mask" \
	scripts/vm-run.sh --mem 1G --timeout 600 --append "kunit.enable=0 maskzone=64M,force" \
	--file tests/reserve/guest.sh --console "$logs/console.log" -- sh guest.sh \
	>"$logs/guest.out" 2>"$logs/guest.err" || rc=$?

python3 - "$logs" "$rc" <<'PY'
import sys

sys.path.insert(0, 'tests')
from ktap_out import Ktap  # noqa: E402

logs, rc = sys.argv[1], int(sys.argv[2])
out = open(f'{logs}/guest.out', errors='replace').read().splitlines()
t = Ktap('reserve')
check = t.check     # check(name, ok, detail='')


check('boot with maskzone=64M,force: vm-run exit status 0', rc == 0, f'exit {rc}')
if rc:
    for l in out:
        print('# ' + l)
    for l in open(f'{logs}/guest.err', errors='replace'):
        print('# vm-run: ' + l.rstrip())
c = {}
for l in out:
    if l.startswith('C '):
        k, _, v = l[2:].partition(' ')
        c[k + (' ' + v.split()[0] if k.startswith(('bad_status', 'after_bad')) else '')] = v.split()[-1]
rounds = []
for l in out:
    if l.startswith('R '):
        rounds.append(dict(x.split('=', 1) for x in l[2:].split()))
pool_kb = int(c.get('pool_kb', '0'))
top = int(c.get('top', '0'), 16)
check(f"the pool is 64 MiB ({pool_kb} KiB)", pool_kb == 65536)
check(f"vm.mask_alloc_lend=0 accepted (status {c.get('lend_off')})", c.get('lend_off') == '0')
check(f"vm.mask_alloc_reserve_kbytes is 1/32 of the pool by default ({c.get('default')} KiB)",
      c.get('default') == str(pool_kb // 32))
boot = [l[2:] for l in out if l.startswith('K ')]
check('the boot log names the reserve', any(f'atomic reserve {pool_kb // 32} KiB' in l for l in boot),
      str(boot))
default = [r for r in rounds if r['label'] == 'default']
check('five masks filled (24, 25, 26, 28 and 32 bits)', len(default) == 5, str(len(default)))
for r in rounds:
    res_pages = int(r['reserve_kb']) // 4
    b, a = int(r['blocking']), int(r['atomic'])
    print(f"# reserve: mask {r['mask']} ({r['label']}): {b} pages blocking, then {a} atomic; "
          f"reserve {res_pages} pages, {int(r['free_kb']) // 4} free before")
    # below a mask that ends inside the pool: its share of the pages below it
    share = res_pages if int(r['mask'], 16) >= top else res_pages * (a + b) // (pool_kb // 4)
    check(f"mask {r['mask']}, reserve {r['reserve_kb']} KiB: blocking allocations got {b} pages, "
          f"then atomic ones exactly the reserve below the mask ({a} of {share} pages)",
          b > 0 and a == share)
    check(f"mask {r['mask']} ({r['label']}): everything came back ({r['free_after_kb']} of {r['free_kb']} KiB free)",
          r['free_after_kb'] == r['free_kb'])
# below 2^26 - 1 and 2^28 - 1 and 2^32 - 1 the pool is the same: the same counts
wide = [(r['blocking'], r['atomic']) for r in default if int(r['bits']) >= 28]
check('2^28 and 2^32: the same figures (the whole pool lies below both)', len(set(wide)) == 1, str(wide))
off = [r for r in rounds if r['label'] == 'off']
d26 = [int(r['blocking']) + int(r['atomic']) for r in default if r['bits'] == '26']
check('reserve 0: blocking allocations take everything below the mask, atomic ones find nothing',
      len(off) == 1 and off[0]['atomic'] == '0' and [int(off[0]['blocking'])] == d26,
      f'{off} against {d26}')
m4 = [r for r in rounds if r['label'] == '4M']
check('reserve 4 MiB: the same pages below the mask, split differently',
      len(m4) == 1 and [int(m4[0]['blocking']) + int(m4[0]['atomic'])] == d26, f'{m4} against {d26}')
check('the sysctl takes 0 and 4096', c.get('set0_status') == '0' and c.get('set4096_status') == '0'
      and c.get('after4096') == '4096')
for bad in ('banana', '-1', '99999999'):
    check(f'the sysctl refuses {bad} and keeps 4096',
          c.get(f'bad_status {bad}', '0') != '0' and c.get(f'after_bad {bad}') == '4096',
          f"status {c.get(f'bad_status {bad}')}, reads {c.get(f'after_bad {bad}')}")
sys.exit(t.finish())
PY
