#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (scripts/bench/dma-map/run copies it in with vm-run
# --file, next to the static dma_map_benchmark tool).
# usage: sh guest.sh SECONDS REPS "GRANULES" "THREADS" DIR BITS
# Binds the kernel's dma_map_benchmark driver to QEMU's pci-testdev
# (1b36:0005, no driver of its own in our configuration), then runs
# dma_map_benchmark for every granule and thread count, REPS rounds, and
# prints one "sample ..." line per run plus "key: value" facts about the
# boot and the swiotlb/mask-pool counters before and after.
set -u
secs=$1 reps=$2 granules=$3 threads=$4 dir=$5 bits=$6
tool=./dma_map_benchmark
dbg=/sys/kernel/debug

dev=
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor")" = 0x1b36 ] && [ "$(cat "$d/device")" = 0x0005 ] && dev=$d
done
[ -n "$dev" ] || { echo "error: no pci-testdev (1b36:0005)"; exit 1; }
bdf=${dev##*/}
if [ -e "$dev/driver" ]; then
	echo "error: $bdf is already bound to $(basename "$(readlink "$dev/driver")")"
	exit 1
fi
echo dma_map_benchmark >"$dev/driver_override" || exit 1
echo "$bdf" >/sys/bus/pci/drivers/dma_map_benchmark/bind || exit 1
[ -e $dbg/dma_map_benchmark ] || { echo "error: no $dbg/dma_map_benchmark"; exit 1; }

cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
echo "device: $bdf"
echo "cpus: $(grep -c '^processor' /proc/cpuinfo)"
echo "clocksource: $(cat $cs)"
# ktime_get() on jiffies has a resolution of milliseconds
clock_ok() {
	case $(cat $cs) in
	*jiffies*) echo "error: clocksource $(cat $cs): the latencies would be meaningless"; exit 1 ;;
	esac
}
clock_ok
echo "cmdline: $(cat /proc/cmdline)"
echo "kernel: $(uname -r)"
for f in io_tlb_nslabs io_tlb_used_hiwater; do
	[ -e $dbg/swiotlb/$f ] && echo "${f}_before: $(cat $dbg/swiotlb/$f)"
done
[ -e $dbg/mask_alloc/bounce ] && sed 's/^\([a-z_]*\) /bounce_\1_before: /' $dbg/mask_alloc/bounce
grep '^swiotlb_' /proc/vmstat | sed 's/^\([a-z_]*\) /vmstat_\1_before: /'

# One short warm-up run: first-touch costs stay out of the samples.
$tool -s 1 -t 1 -g 1 -d "$dir" -b "$bits" >/dev/null || { echo "error: warm-up run failed"; exit 1; }

# Rounds outermost, so slow drift of the host spreads over every row.
for r in $(seq "$reps"); do
	for g in $granules; do
		for t in $threads; do
			out=$($tool -s "$secs" -t "$t" -g "$g" -d "$dir" -b "$bits") ||
				{ echo "error: dma_map_benchmark -g $g -t $t failed"; exit 1; }
			m=$(echo "$out" | sed -n 's/^average map latency(us):\([0-9.]*\) standard deviation:\([0-9.]*\)$/\1 \2/p')
			u=$(echo "$out" | sed -n 's/^average unmap latency(us):\([0-9.]*\) standard deviation:\([0-9.]*\)$/\1 \2/p')
			[ -n "$m" ] && [ -n "$u" ] || { echo "error: cannot parse: $out"; exit 1; }
			# sample ROUND GRANULE THREADS MAP_US MAP_SD UNMAP_US UNMAP_SD
			echo "sample $r $g $t $m $u"
		done
	done
done

clock_ok
echo "clocksource_after: $(cat $cs)"
for f in io_tlb_used io_tlb_used_hiwater; do
	[ -e $dbg/swiotlb/$f ] && echo "${f}_after: $(cat $dbg/swiotlb/$f)"
done
[ -e $dbg/mask_alloc/bounce ] && sed 's/^\([a-z_]*\) /bounce_\1_after: /' $dbg/mask_alloc/bounce
grep '^swiotlb_' /proc/vmstat | sed 's/^\([a-z_]*\) /vmstat_\1_after: /'
echo "done: ok"
