#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (scripts/bench/pool/run.sh copies it in with vm-run --file).
# usage: sh guest.sh ITERATIONS ROUNDS RUNS
# Runs the mask pool microbenchmark (/sys/kernel/debug/mask_alloc/bench,
# mm/mask_alloc/bench.c) RUNS times with ITERATIONS pairs per round and
# ROUNDS rounds, and prints each result line as "bench RUN <line>", plus
# "key: value" facts about the boot and the pool before and after.
set -u
iters=$1 rounds=$2 runs=$3
dbg=/sys/kernel/debug
bench=$dbg/mask_alloc/bench
summary=$dbg/mask_alloc/summary
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource

[ -e $bench ] || { echo "error: no $bench (CONFIG_MASK_ALLOC_DEBUGFS)"; exit 1; }
# A jiffies clocksource moves in steps of 4 ms: the bench would still
# measure (its rounds grow to 20 steps), but slowly and coarsely.
clock_ok() {
	case $(cat $cs) in
	*jiffies*) echo "error: clocksource $(cat $cs): the times would be coarse"; exit 1 ;;
	esac
}
clock_ok
echo "cpus: $(grep -c '^processor' /proc/cpuinfo)"
echo "clocksource: $(cat $cs)"
echo "cmdline: $(cat /proc/cmdline)"
echo "kernel: $(uname -r)"
sed 's/^/pool_before_/' $summary
grep -E '^mask_(alloc|free|higher|fail) ' /proc/vmstat | sed 's/^\([a-z_]*\) /vmstat_\1_before: /'

for r in $(seq "$runs"); do
	echo "$iters $rounds" >$bench || { echo "error: bench run $r failed"; dmesg | tail -n 5; exit 1; }
	cat $bench | sed "s/^/bench $r /"
done

clock_ok
echo "clocksource_after: $(cat $cs)"
sed 's/^/pool_after_/' $summary
grep -E '^mask_(alloc|free|higher|fail) ' /proc/vmstat | sed 's/^\([a-z_]*\) /vmstat_\1_after: /'
echo "done: ok"
