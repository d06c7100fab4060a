#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Who holds the mask pool: debugfs mask_alloc/holders, read in a guest.
#
# One boot (1 GiB, "-device edu", "maskzone=force" so that the edu
# device's coherent buffers come from the pool) runs tests/holders/guest.sh:
# a debugfs allocation must show under its call site (mm/mask_alloc/debug.c,
# by its alloc tag) with its bytes and count and disappear when freed; the
# edu device must show as the holder of a coherent buffer it keeps; every
# listing's total must equal the summary's used_bytes (pool used = sum of
# holders), and the lines must add up to the total, largest first.  The
# "below" table and a largest_free query are checked for consistency.
# The listing with both holders is printed as "# " lines.
#
# Prints KTAP (tests/ktap_out.py) and as its last line
# "holders: N passed, N failed".  Logs: $TEST_OUT/holders/ (default
# build/test/holders).
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
vm=scripts/vm-run.sh
logs=${TEST_OUT:-$BUILD/test}/holders
mkdir -p "$logs"

rc=0
run_stage --watch "$logs/console.log" "holders: boot with -device edu, maskzone=force" \
	$vm --mem 1G --timeout 300 --append "kunit.enable=0 maskzone=force" --qemu-args "-device edu" \
	--file tests/holders/guest.sh --console "$logs/console.log" -- sh guest.sh \
	>"$logs/guest.out" 2>"$logs/guest.err" || rc=$?

python3 - "$logs" "$rc" <<'PY'
import re
import sys

sys.path.insert(0, 'tests')
from ktap_out import Ktap  # noqa: E402

logs, rc = sys.argv[1], int(sys.argv[2])
out = open(f'{logs}/guest.out', errors='replace').read().splitlines()
t = Ktap('holders')
check = t.check     # check(name, ok, detail='')


def tagged(tag):
    return [l[len(tag) + 1:] for l in out if l.startswith(tag + ' ')]


def holders(k):
    """(rows, total): rows are (bytes, count, holder text)."""
    rows, total = [], None
    for l in tagged(f'H{k}'):
        m = re.match(r'^\s*(\d+)\s+(\d+)\s+(.*)$', l)
        if not m:
            continue
        b, c, who = int(m[1]), int(m[2]), m[3].strip()
        if who == 'total':
            total = (b, c)
        else:
            rows.append((b, c, who))
    return rows, total


def summary(k):
    return {a.strip(): v.strip() for a, _, v in (l.partition(':') for l in tagged(f'S{k}'))}


check('boot: vm-run exit status 0', rc == 0, f'exit {rc}')
if rc:
    for l in out:
        print('# ' + l)
    for l in open(f'{logs}/guest.err', errors='replace'):
        print('# vm-run: ' + l.rstrip())

e = {k: v[-1] for k, v in ((a, [b]) for a, _, b in (l.partition(' ') for l in tagged('E')))}
check('the debugfs allocation and the edu buffer were made',
      e.get('alloc') == '0' and e.get('hold') == '0', str(e))
H = [holders(k) for k in range(4)]
S = [summary(k) for k in range(4)]
for k in range(4):
    rows, total = H[k]
    used = int(S[k].get('used_bytes', '-1'))
    check(f'listing {k}: total {total} = summary used_bytes {used}',
          total is not None and total[0] == used, str(total))
    check(f'listing {k}: the lines add up to the total, largest first',
          total is not None and sum(r[0] for r in rows) == total[0] and
          sum(r[1] for r in rows) == total[1] and
          all(rows[i][0] >= rows[i + 1][0] for i in range(len(rows) - 1)), str(rows))


def site(rows):
    return [r for r in rows if r[2].startswith('site ') and 'mask_alloc/debug.c' in r[2]]


s0, s1, s3 = site(H[0][0]), site(H[1][0]), site(H[3][0])
check('no debugfs allocation before', not s0, str(s0))
check('the debugfs allocation shows under its call site: 20480 bytes, 1 allocation',
      len(s1) == 1 and s1[0][0] == 20480 and s1[0][1] == 1 and 'mask_debug_alloc_write' in s1[0][2],
      str(s1))
check('and is gone once freed', not s3, str(s3))
d = {a.strip(): v.strip() for a, _, v in (l.partition(':') for l in tagged('D'))}
dev = d.get('device', '?')
check(f'the edu buffer ({dev}) came from the pool', d.get('pool') == '1' and d.get('size') == '12288', str(d))
dv = [r for r in H[2][0] if r[2] == f'name {dev}']
check(f'the edu device {dev} holds its coherent buffer: 12288 bytes, 1 allocation',
      len(dv) == 1 and dv[0][0] == 12288 and dv[0][1] == 1, str(H[2][0]))
check('the device holds nothing once the buffer is freed',
      not [r for r in H[3][0] if r[2] == f'name {dev}'], str(H[3][0]))
check('total before and after are the same', H[0][1] == H[3][1], f'{H[0][1]} {H[3][1]}')

# the "below" table: mask, free bytes below it, largest free run below it
B = []
for l in tagged('B'):
    p = l.split()
    if len(p) == 3 and p[0].startswith('0x'):
        B.append((int(p[0], 16), int(p[1]), int(p[2])))
free3 = int(S[3].get('free_bytes', '-1'))
check(f'below: 6 masks (24, 28, 30, 31, 32 bits, the pool top), free and largest monotone, '
      f'largest <= free <= pool free {free3}',
      len(B) == 6 and all(b[2] <= b[1] <= free3 for b in B) and
      all(B[i][1] <= B[i + 1][1] and B[i][2] <= B[i + 1][2] for i in range(4)), str(B))
top = B[5] if len(B) == 6 else None
check('below the pool top: all free memory, the largest run of the summary',
      top is not None and top[1] == free3 and top[2] == int(S[3].get('largest_free_bytes', '-1')),
      f'{top} {S[3]}')
L = tagged('L')
b28 = [b for b in B if b[0] == 0xfffffff]
check(f'largest_free below 0xfffffff ({L}) = its "below" line',
      len(L) == 1 and b28 and int(L[0]) == b28[0][2], f'{L} {b28}')
print('# holders listing with the debugfs allocation and the edu buffer:')
for l in tagged('H2'):
    print('#   ' + l)
sys.exit(t.finish())
PY
