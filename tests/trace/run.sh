#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The mask_alloc trace events, /proc/meminfo's MaskPoolTotal/MaskPoolFree
# and the vm.mask_alloc_timeout_ms sysctl, read in a guest.
#
# Boot 1 (1 GiB, "-device edu", the default pool: all free memory below
# 16 MiB) runs tests/trace/guest.sh: it enables events/mask_alloc in
# tracefs, allocates from the pool and from the zones through debugfs,
# fills the pool and lets a GFP_KERNEL request wait 100 ms and time out,
# bounces the edu device's streaming maps through swiotlb pools grown
# below 2^28 and shrinks them, then prints the trace buffer.  Every field
# of every event is checked against what the guest did and against the
# pool's own counters (debugfs mask_alloc/summary and bounce).
# Boot 2 ("maskzone=64M") gives a larger pool: the pool's pages are taken
# from memblock before the page allocator sees them, so MemTotal less the
# pool's lent memory (MaskPoolLent, which MemTotal counts) shrinks by what
# MaskPoolTotal grows (give or take the pool's bitmaps).  Boot 1 switches
# lending off before it reads anything.
#
# Prints KTAP (tests/ktap_out.py), the guest output of a failed boot
# as "# " lines, and as its last line "trace: N passed, N failed".
# Logs: $TEST_OUT/trace/ (default build/test/trace).
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
vm=scripts/vm-run.sh
logs=${TEST_OUT:-$BUILD/test}/trace
mkdir -p "$logs"

rc1=0 rc2=0
run_stage --watch "$logs/pool-console.log" "trace: boot with the default pool, events on" \
	$vm --mem 1G --timeout 300 --append "kunit.enable=0" --qemu-args "-device edu" \
	--file tests/trace/guest.sh --console "$logs/pool-console.log" -- sh guest.sh \
	>"$logs/pool.out" 2>"$logs/pool.err" || rc1=$?
run_stage --watch "$logs/pool64-console.log" "trace: boot with a 64 MiB pool (maskzone=64M)" \
	$vm --mem 1G --timeout 300 --append "kunit.enable=0 maskzone=64M" \
	--console "$logs/pool64-console.log" -- \
	"grep -E '^(MemTotal|MaskPoolTotal|MaskPoolFree|MaskPoolLent):' /proc/meminfo | sed 's/^/M /'" \
	>"$logs/pool64.out" 2>"$logs/pool64.err" || rc2=$?

python3 - "$logs" "$rc1" "$rc2" <<'PY'
import re
import sys

sys.path.insert(0, 'tests')
from ktap_out import Ktap  # noqa: E402

logs, rc1, rc2 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = open(f'{logs}/pool.out', errors='replace').read().splitlines()
pool64 = open(f'{logs}/pool64.out', errors='replace').read().splitlines()
t = Ktap('trace')
check = t.check     # check(name, ok, detail='')


def tagged(lines, tag):
    return [l[len(tag) + 1:] for l in lines if l.startswith(tag + ' ')]


def kv(lines, tag, sep=': '):
    """Every "TAG key<sep>value" line, as lists of values per key."""
    d = {}
    for l in tagged(lines, tag):
        k, _, v = l.partition(sep)
        d.setdefault(k.strip(), []).append(v.strip())
    return d


def kb(v):
    return int(v.split()[0])


check('boot with the pool: vm-run exit status 0', rc1 == 0, f'exit {rc1}')
check('boot with the pool: vm.mask_alloc_lend=0 accepted',
      kv(out, 'E', ' ').get('lend_off') == ['0'], str(kv(out, 'E', ' ').get('lend_off')))
check('boot with maskzone=64M: vm-run exit status 0', rc2 == 0, f'exit {rc2}')
if rc1 or rc2:
    for l in out:
        print('# ' + l)
    for f in ('pool.err', 'pool64.err'):
        for l in open(f'{logs}/{f}', errors='replace'):
            print('# vm-run: ' + l.rstrip())

events = ['mask_alloc_start', 'mask_alloc_finish', 'mask_alloc_wait',
          'mask_alloc_wait_end', 'mask_alloc_release',
          'mask_alloc_bounce_grow', 'mask_alloc_bounce_shrink']
have = set(tagged(out, 'L'))
check('tracefs lists the seven mask_alloc events',
      all(e in have for e in events), f'missing {sorted(set(events) - have)}')

# ---- the sysctl ----
c = {k: v[-1] for k, v in kv(out, 'C', ' ').items()}
check('vm.mask_alloc_timeout_ms reads 5000 by default', c.get('default') == '5000',
      f"got {c.get('default')}")
check('vm.mask_alloc_timeout_ms takes 100', c.get('set100_status') == '0' and
      c.get('after100') == '100', f"status {c.get('set100_status')}, reads {c.get('after100')}")
for bad in ('banana', 'toolarge', 'negative'):
    check(f'vm.mask_alloc_timeout_ms refuses {bad} input and keeps 100',
          c.get(f'{bad}_status', '0') != '0' and c.get(f'after_{bad}') == '100',
          f"status {c.get(f'{bad}_status')}, reads {c.get(f'after_{bad}')}")

# ---- /proc/meminfo ----
m = kv(out, 'M', ':')
s = kv(out, 'S', ':')
ok = len(m.get('MaskPoolTotal', [])) == 2 and len(s.get('pool_bytes', [])) == 3
check('/proc/meminfo has MaskPoolTotal and MaskPoolFree', ok and len(m.get('MaskPoolFree', [])) == 2)
if ok:
    pool_kb = int(s['pool_bytes'][0]) >> 10
    check(f'MaskPoolTotal is the pool ({m["MaskPoolTotal"][0]} = {pool_kb} kB)',
          all(kb(v) == pool_kb for v in m['MaskPoolTotal']) and pool_kb > 0)
    # idle before and after: the summary printed right after meminfo
    check(f'MaskPoolFree is its free memory, before and after ({m["MaskPoolFree"]})',
          kb(m['MaskPoolFree'][0]) == int(s['free_bytes'][0]) >> 10 and
          kb(m['MaskPoolFree'][1]) == int(s['free_bytes'][2]) >> 10)
    m64 = kv(pool64, 'M', ':')
    try:
        lent64 = kb(m64['MaskPoolLent'][0])
        mt, mt64 = kb(m['MemTotal'][0]), kb(m64['MemTotal'][0]) - lent64
        p64 = kb(m64['MaskPoolTotal'][0])
        check(f'maskzone=64M: MaskPoolTotal {p64} kB, all free or lent '
              f'({kb(m64["MaskPoolFree"][0])} + {lent64} kB)',
              p64 == 65536 and kb(m64['MaskPoolFree'][0]) + lent64 == p64 and lent64 > 0)
        # the pool's bitmaps and search summary are a few KiB of memblock
        check(f'MemTotal does not include the pool: {mt} kB with a {pool_kb} kB pool, '
              f'{mt64} kB with a {p64} kB one ({mt - mt64} kB less for {p64 - pool_kb} kB more)',
              abs((mt - mt64) - (p64 - pool_kb)) <= 64)
    except (KeyError, IndexError, ValueError) as e:
        check('the boot with maskzone=64M printed its meminfo lines', False, repr(e))
    total_pages = pool_kb >> 2
else:
    total_pages = 0

# ---- the trace ----
LINE = re.compile(r'^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[\d+\]\s+\S+\s+[\d.]+: (?P<ev>\w+): (?P<f>.*)$')
recs = []
for l in tagged(out, 'T'):
    mt = LINE.match(l)
    if not mt:
        continue
    f = dict(x.split('=', 1) for x in mt['f'].split() if '=' in x)
    recs.append((mt['ev'], f, l))
by = {e: [f for ev, f, _ in recs if ev == e] for e in events}
for e in events:
    check(f'{e}: seen ({len(by[e])} events)', len(by[e]) > 0)

lo = int(s['lowest_addr'][0], 16) if s.get('lowest_addr') else 0
hi = int(s['highest_addr'][0], 16) if s.get('highest_addr') else 0
PAGE = 4096
starts = by['mask_alloc_start']
fins = by['mask_alloc_finish']
check('every mask_alloc_start has its mask_alloc_finish with the same size, mask and gfp',
      len(starts) == len(fins) and all(
          (a['size'], a['mask'], a['gfp_flags']) == (b['size'], b['mask'], b['gfp_flags'])
          for a, b in zip(starts, fins)),
      f'{len(starts)} starts, {len(fins)} finishes')
pool = [f for f in fins if f.get('size') == '12288' and f.get('mask') == '0xffffff']
check('the 12 KiB request below 16 MiB: source=pool reason=none err=0, a pfn inside the pool below the mask',
      len(pool) == 1 and pool[0]['source'] == 'pool' and pool[0]['err'] == '0' and
      pool[0].get('reason') == 'none' and
      lo <= int(pool[0]['pfn'], 16) * PAGE and int(pool[0]['pfn'], 16) * PAGE + 12288 - 1 <= min(hi, 0xffffff),
      str(pool))
check('gfp_flags decode: GFP_KERNEL|__GFP_NOWARN (what debugfs asks for)',
      all(f.get('gfp_flags') == 'GFP_KERNEL|__GFP_NOWARN' for f in starts), str({f.get('gfp_flags') for f in starts}))
zones = [f for f in fins if f.get('size') == '4096' and f.get('mask') == '0xffffffff']
check('the 4 KiB request below 4 GiB: source=zones err=0, a pfn outside the pool below the mask',
      len(zones) == 1 and zones[0]['source'] == 'zones' and zones[0]['err'] == '0' and
      not (lo <= int(zones[0]['pfn'], 16) * PAGE <= hi) and
      int(zones[0]['pfn'], 16) * PAGE + 4095 <= 0xffffffff, str(zones))
fill = [f for f in fins if int(f.get('size', '0')) > 12288]
check('the fill: source=pool err=0 for every run, as many pages as the pool has',
      fill and all(f['source'] == 'pool' and f['err'] == '0' for f in fill) and
      sum(int(f['size']) for f in fill) == total_pages * PAGE, str(fill))
bad = [f for f in fins if f.get('err') not in (None, '0')]
tmo = [f for f in bad if f.get('size') == '4096']
check('the request into the full pool: source=none reason=timeout err=-110 (ETIMEDOUT) pfn=-1',
      len(tmo) == 1 and tmo[0]['source'] == 'none' and tmo[0]['err'] == '-110' and
      tmo[0].get('reason') == 'timeout' and
      tmo[0]['pfn'] == '0xffffffffffffffff', str(tmo))
inj = [f for f in bad if f.get('size') == '8192']
check('the request failed by fail_mask_alloc: source=none reason=injected err=-125 (ECANCELED) pfn=-1',
      len(inj) == 1 and inj[0]['source'] == 'none' and inj[0].get('reason') == 'injected' and
      inj[0]['err'] == '-125' and inj[0]['pfn'] == '0xffffffffffffffff', str(inj))
check('no other failure', len(bad) == 2, str(bad))
check('every successful finish says reason=none',
      all(f.get('reason') == 'none' for f in fins if f.get('err') == '0'))
w, we = by['mask_alloc_wait'], by['mask_alloc_wait_end']
# the time left when it sleeps: 100 ms, less a jiffy or two spent queueing
check('mask_alloc_wait: nr_pages=1 below the pool top, free_pages=0, timeout_ms=90..100',
      len(w) == 1 and w[0]['nr_pages'] == '1' and int(w[0]['mask'], 16) == hi and
      w[0]['free_pages'] == '0' and 90 <= int(w[0]['timeout_ms']) <= 100, str(w))
check('mask_alloc_wait_end: result=timeout after all of that',
      len(we) == 1 and we[0]['result'] == 'timeout' and
      int(w[0]['timeout_ms']) <= int(we[0]['waited_ms']) <= 200
      and we[0]['mask'] == w[0]['mask'], str(we))
rel = by['mask_alloc_release']
inside = all(lo <= int(f['pfn'], 16) * PAGE and
             (int(f['pfn'], 16) + int(f['nr_pages'])) * PAGE - 1 <= hi for f in rel)
check(f'mask_alloc_release: every run inside the pool ({len(rel)} releases)', rel and inside)
# the releases between the zones' finish and the next start: the free
i0 = next((i for i, (ev, f, _) in enumerate(recs) if ev == 'mask_alloc_finish' and
           f.get('source') == 'zones'), len(recs))
i1 = next((i for i, (ev, _, _) in enumerate(recs) if i > i0 and ev == 'mask_alloc_start'), len(recs))
p0 = int(pool[0]['pfn'], 16) if len(pool) == 1 else -1
mine = [f for ev, f, _ in recs[i0:i1] if ev == 'mask_alloc_release']
mine = [f for f in mine if p0 <= int(f['pfn'], 16) < p0 + 3]
check('mask_alloc_release: the 12 KiB pool allocation came back as its 3 pages',
      sum(int(f['nr_pages']) for f in mine) == 3, str(mine))
check('mask_alloc_release: free_pages never above the pool, and the pool ends full of free pages',
      rel and all(int(f['free_pages']) <= total_pages for f in rel) and
      int(rel[-1]['free_pages']) == total_pages if rel else False,
      f"last free_pages {rel[-1]['free_pages'] if rel else None} of {total_pages}")
b = {k: v[-1] for k, v in kv(out, 'B', ' ').items()}
g, sh = by['mask_alloc_bounce_grow'], by['mask_alloc_bounce_shrink']
check(f"edu streaming maps all succeeded ({b.get('stream_maps:')} maps, {b.get('stream_map_errors:')} errors)",
      b.get('stream_result:') == 'pass')
check('mask_alloc_bounce_grow: below the 28-bit limit, inside the mask pool, err=0',
      g and all(f['limit'] == '0xfffffff' and f['err'] == '0' and int(f['size']) > 0 and
                lo <= int(f['start'], 16) and int(f['start'], 16) + int(f['size']) - 1 <= min(hi, 0xfffffff)
                for f in g), str(g[:3]))
check(f"mask_alloc_bounce_grow: as many as dmatlb counted (grown {b.get('grown')})",
      str(len(g)) == b.get('grown'))
check('mask_alloc_bounce_shrink: each gives back a grown pool, start and size',
      sh and sorted((f['start'], f['size']) for f in sh) == sorted((f['start'], f['size']) for f in g),
      f'{len(sh)} shrinks for {len(g)} grows')
check(f"mask_alloc_bounce_shrink: as many as dmatlb counted (shrunk {b.get('shrunk')})",
      str(len(sh)) == b.get('shrunk'))
c2 = c.get('dma_api_errors')
check(f'DMA-API debugging counted no error ({c2})', c2 == '0')
# one sample of each event, for the reader of the log
for e in events:
    line = next((l for ev, _, l in recs if ev == e), None)
    if line:
        print('# sample: ' + ' '.join(line.split()))
sys.exit(t.finish())
PY
