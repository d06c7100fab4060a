#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (scripts/bench/dma-map/run.sh copies it in with vm-run
# --file, next to the static dma_map_benchmark tool).
# usage: sh guest.sh KEY=VALUE...
#   secs reps dir      dma_map_benchmark: seconds per run, rounds, direction
#   rows               "BITS:GRANULE:THREADS ..." rows of dma_map_benchmark
#   knob_rounds knob_pairs knob_rows ("SIZE:THREADS ...", bits 64)
#                      the ns instrument /sys/kernel/debug/mask_alloc/dma_bench
#                      (mm/mask_alloc/bench.c), on the same device
# Binds the kernel's dma_map_benchmark driver to QEMU's pci-testdev
# (1b36:0005, no driver of its own in our configuration), then, REPS rounds
# (rounds outermost, so a slow drift of the host spreads over every row),
# runs dma_map_benchmark for every row and prints one line per run:
#   sample ROUND BITS GRANULE THREADS MAP_US MAP_SD UNMAP_US UNMAP_SD
#   fail ROUND BITS GRANULE THREADS   (the tool failed: a map failed)
# then KNOB_ROUNDS rounds of the ns instrument per knob row:
#   knob ROUND SIZE THREADS NS_PER_PAIR WALL_NS THREAD_NS_PER_PAIR...
# plus "key: value" facts about the boot and the swiotlb counters before
# and after, and "# ..." progress lines on stderr.  Ends with "done: ok"
# unless something broke.
set -u
secs=5 reps=1 dir=0 rows='' knob_rounds=0 knob_pairs=100000 knob_rows=''
for kv in "$@"; do
	case $kv in
	secs=*|reps=*|dir=*|rows=*|knob_rounds=*|knob_pairs=*|knob_rows=*)
		eval "${kv%%=*}=\"\${kv#*=}\"" ;;
	*) echo "error: guest.sh: unknown argument $kv"; exit 1 ;;
	esac
done
tool=./dma_map_benchmark
dbg=/sys/kernel/debug
knob=$dbg/mask_alloc/dma_bench

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
if [ -n "$knob_rows" ] && [ "$knob_rounds" -gt 0 ] && [ ! -e $knob ]; then
	echo "error: no $knob (CONFIG_MASK_ALLOC_DEBUGFS)"
	exit 1
fi

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
if [ -e /proc/config.gz ]; then
	echo "swiotlb_mask_alloc: $(zcat /proc/config.gz | grep -c '^CONFIG_SWIOTLB_MASK_ALLOC=y')"
fi
for f in io_tlb_nslabs io_tlb_used_hiwater; do
	[ -e $dbg/swiotlb/$f ] && echo "${f}_before: $(cat $dbg/swiotlb/$f)"
done
grep '^swiotlb_' /proc/vmstat | sed 's/^\([a-z_]*\) /vmstat_\1_before: /'

# One short warm-up run: first-touch costs stay out of the samples.
$tool -s 1 -t 1 -g 1 -d "$dir" -b 32 >/dev/null 2>&1 || { echo "error: warm-up run failed"; exit 1; }

for r in $(seq "$reps"); do
	for row in $rows; do
		b=${row%%:*} g=${row#*:} t=${row##*:}
		g=${g%%:*}
		echo "# round $r, $b-bit, $g pages, $t threads" >&2
		if ! out=$($tool -s "$secs" -t "$t" -g "$g" -d "$dir" -b "$b" 2>&1); then
			# A map failed (the driver logs it, the ioctl returns
			# ENOMEM): expected of stock swiotlb below 32 bits only.
			[ "$b" -lt 32 ] || { echo "error: dma_map_benchmark -b $b -g $g -t $t failed: $out"; exit 1; }
			echo "fail $r $b $g $t"
			echo "fail_output: $(echo "$out" | tail -1)"
			continue
		fi
		m=$(echo "$out" | sed -n 's/^average map latency(us):\([0-9.]*\) standard deviation:\([0-9.]*\)$/\1 \2/p')
		u=$(echo "$out" | sed -n 's/^average unmap latency(us):\([0-9.]*\) standard deviation:\([0-9.]*\)$/\1 \2/p')
		# shellcheck disable=SC2015 # the error when either is empty, as meant
		[ -n "$m" ] && [ -n "$u" ] || { echo "error: cannot parse: $out"; exit 1; }
		echo "sample $r $b $g $t $m $u"
	done
done

if [ -n "$knob_rows" ]; then
	# warm-up, untimed
	echo "pairs=1000 bits=64 dev=$bdf" >$knob || { echo "error: $knob warm-up failed"; exit 1; }
fi
for r in $(seq "$knob_rounds"); do
	for row in $knob_rows; do
		s=${row%%:*} t=${row#*:}
		echo "# dma_bench round $r, $s bytes, $t threads" >&2
		echo "pairs=$knob_pairs size=$s bits=64 threads=$t dir=$dir dev=$bdf" >$knob ||
			{ echo "error: $knob failed: $(head -1 $knob)"; exit 1; }
		# dev ... wall_ns W ns_per_pair N, then "thread I ns T ns_per_pair N"
		res=$(cat $knob)
		w=$(echo "$res" | sed -n '1s/.* wall_ns \([0-9]*\) ns_per_pair \([0-9.]*\)$/\2 \1/p')
		th=$(echo "$res" | sed -n 's/^thread [0-9]* ns [0-9]* ns_per_pair \([0-9.]*\)$/\1/p' | tr '\n' ' ')
		# shellcheck disable=SC2015 # the error when either is empty, as meant
		[ -n "$w" ] && [ -n "$th" ] || { echo "error: cannot parse: $res"; exit 1; }
		echo "knob $r $s $t $w $th"
	done
done

clock_ok
echo "clocksource_after: $(cat $cs)"
for f in io_tlb_used io_tlb_used_hiwater; do
	[ -e $dbg/swiotlb/$f ] && echo "${f}_after: $(cat $dbg/swiotlb/$f)"
done
grep '^swiotlb_' /proc/vmstat | sed 's/^\([a-z_]*\) /vmstat_\1_after: /'
echo "done: ok"
