#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make run` demo, run inside the guest by scripts/vm-run.
echo "== kernel"
uname -r
cat /proc/version
echo
echo "== command line"
cat /proc/cmdline
echo
echo "== zones (/proc/zoneinfo)"
awk '/^Node/ { zone = $0; print zone }
     /^ +(spanned|present|managed) / { printf "    %-8s %8d pages (%d MiB)\n", $1, $2, $2 / 256 }
     /^ +start_pfn:/ { printf "    %-8s %#x (%#x)\n", "start", $2, $2 * 4096 }' /proc/zoneinfo
echo
echo "== DMA-related /proc/vmstat lines"
grep -iE 'dma|mask' /proc/vmstat || echo "(none: no DMA zone and no mask allocator counters in this kernel)"

d=/sys/kernel/debug/mask_alloc
if [ ! -d $d ]; then
	echo
	echo "(this kernel has no mask allocator)"
	exit 0
fi
echo
echo "== mask pool (from the boot log)"
dmesg | grep 'mask_alloc: pool' || true
echo
echo "== $d/summary"
cat $d/summary
echo
echo "== mask counters before"
grep '^mask_' /proc/vmstat
echo
echo "== allocate 12 KiB under 24-, 28-, 30- and 32-bit masks ($d/alloc)"
for bits in 24 28 30 32; do
	mask=$(printf '%#x' $(((1 << bits) - 1)))
	echo "12288 $mask" >$d/alloc || echo "  $bits bits: allocation failed"
done
cat $d/allocations | sed 's/^/  /'
echo
echo "== pool while they are held"
grep -E '^(free_bytes|used_bytes|largest_free_bytes):' $d/summary | sed 's/^/  /'
if [ -e $d/holders ]; then
	echo
	echo "== who holds the pool ($d/holders)"
	sed 's/^/  /' $d/holders
	echo
	echo "== free memory below each mask ($d/below)"
	sed 's/^/  /' $d/below
fi
echo all >$d/free
echo
echo "== mask counters after freeing them"
grep '^mask_' /proc/vmstat
echo
echo "== pool after"
grep -E '^(free_bytes|used_bytes):' $d/summary | sed 's/^/  /'

e=/sys/kernel/debug/maskalloc_edu/run
if [ -e $e ]; then
	echo
	echo "== coherent DMA through QEMU's edu device (28-bit DMA engine, $e)"
	cat $e | sed 's/^/  /'
	echo
	echo "== mask counters after the edu run"
	grep -E '^mask_(alloc|free|higher|fail) ' /proc/vmstat
fi
