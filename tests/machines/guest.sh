# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Guest side of tests/machines/run.sh (busybox sh, run by vm-run in /vmrun
# next to the static diskpat binary of tests/disk).
#
#   sh guest.sh BYTES IDLE_S DEV:SEED...
#
# Writes and verifies a seeded pattern (tests/disk/diskpat, O_DIRECT) on
# every DEV at the same time, while the edu device (28-bit DMA mask, if
# present) streams bounced mappings through maskalloc_edu's "stream" run:
# wide and narrow devices bouncing at once.  Then, with that traffic gone,
# a 24-bit allocation from the mask pool (the memory GFP_DMA uses, through
# debugfs mask_alloc/alloc) and the edu device's 28-bit coherent
# allocations ("run").  Last, IDLE_S seconds idle, counting the shrink
# worker's runs (debugfs mask_alloc/bounce shrink_runs) before and after.
#
# Machine-readable lines are "R NAME KEY VALUE" (NAME "-" for global values).
bytes=$1 idle=$2
shift 2
bounce=/sys/kernel/debug/mask_alloc/bounce
edu=/sys/kernel/debug/maskalloc_edu
dbg=/sys/kernel/debug/mask_alloc

val() { if [ -r "$1" ]; then cat "$1"; else echo none; fi; }
bval() { awk -v k="$1" '$1 == k { print $2 }' $bounce; }

echo "R - cpus $(grep -c ^processor /proc/cpuinfo)"
# shellcheck disable=SC2012 # sysfs names: nodeN
echo "R - nodes $(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)"
echo "R - nslabs $(val /sys/kernel/debug/swiotlb/io_tlb_nslabs)"
echo "R - force $(grep -c 'swiotlb=[0-9,]*force' /proc/cmdline)"
sed 's/^/bounce: /' $bounce

# The wide devices and the narrow one, all at once.
pids=""
for spec in "$@"; do
	dev=${spec%%:*} seed=${spec#*:}
	(
		./diskpat write -d -n "$bytes" -s "$seed" "/dev/$dev" >"w-$dev.out" 2>&1
		echo "$?" >"w-$dev.rc"
		./diskpat verify -d -n "$bytes" -s "$seed" "/dev/$dev" >"v-$dev.out" 2>&1
		echo "$?" >"v-$dev.rc"
	) &
	pids="$pids $!"
done
if [ -d $edu ]; then
	(
		i=0
		while [ $i -lt 4 ]; do
			cat $edu/stream >stream-$i.out 2>&1
			i=$((i + 1))
		done
	) &
	pids="$pids $!"
fi
for p in $pids; do wait "$p"; done

for spec in "$@"; do
	dev=${spec%%:*}
	cat "v-$dev.out"
	echo "R $dev write_status $(cat "w-$dev.rc")"
	echo "R $dev verify_status $(cat "v-$dev.rc")"
	sed -n 's/.* bytes=\([0-9]*\) bad_bytes=\([0-9]*\).*/\1 \2/p' "v-$dev.out" | {
		read -r b bad
		echo "R $dev verified ${b:-0}"
		echo "R $dev bad_bytes ${bad:-none}"
	}
done
if [ -d $edu ]; then
	ok=0 n=0
	for f in stream-*.out; do
		n=$((n + 1))
		grep -q '^stream_mismatches: 0$' "$f" && grep -q '^stream_map_errors: 0$' "$f" &&
			grep -q '^stream_sync_mismatches: 0$' "$f" && ok=$((ok + 1))
	done
	cat stream-0.out
	echo "R edu streams $n"
	echo "R edu streams_ok $ok"
fi

# Narrow allocations after the all-bounce traffic.
if echo "65536 0xffffff" >$dbg/alloc 2>/dev/null; then
	echo "R alloc24 status 0"
else
	echo "R alloc24 status 1"
fi
sed 's/^/allocations: /' $dbg/allocations
n=0
while read -r addr _ size _; do
	case $addr in 0x*) [ $((addr + size)) -le $((0x1000000)) ] && n=$((n + 1)) ;; esac
done <$dbg/allocations
echo "R alloc24 below16m $n"
echo all >$dbg/free
if [ -d $edu ]; then
	cat $edu/run >run.out 2>&1
	cat run.out
	echo "R edu run_result $(sed -n 's/^result: //p' run.out)"
	echo "R edu run_in_pool $(sed -n 's/^in_pool: //p' run.out)"
	echo "R edu run_max_dma $(sed -n 's/^max_dma_addr: //p' run.out)"
fi
sed 's/^/pools: /' /sys/kernel/debug/swiotlb/pools 2>/dev/null
sed 's/^/bounce: /' $bounce
echo "R - grown $(bval grown)"
echo "R - grow_failed $(bval grow_failed)"

# Idle: no grown pool, no shrink work.
if [ "$idle" -gt 0 ]; then
	echo "R - idle_pools_before $(bval pools)"
	echo "R - shrink_runs_before $(bval shrink_runs)"
	sleep "$idle"
	echo "R - shrink_runs_after $(bval shrink_runs)"
	echo "R - idle_pools_after $(bval pools)"
fi
echo "R - dma_api_errors $(val /sys/kernel/debug/dma-api/error_count)"
echo "R - bounce_failures $(dmesg | grep -cE 'swiotlb buffer is full|dmatlb: no mask pool memory')"
echo "R - warnings $(dmesg | grep -cE 'WARNING:|BUG:|Call Trace:')"
true
