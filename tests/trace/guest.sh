# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2320 # $? after an echo: the status of its write to a kernel file, what is checked
# Guest side of tests/trace/run.sh (busybox sh).  Enables the mask_alloc
# trace events, makes each of them happen once or more, and prints the
# trace buffer, /proc/meminfo's pool lines, the pool summary and what the
# vm.mask_alloc_timeout_ms sysctl did with good and bad input.
#   - a pool allocation below 16 MiB and one the zones serve (32 bits),
#     both freed (start, finish, release);
#   - the pool filled, then a GFP_KERNEL request that waits 100 ms for
#     frees and times out (wait, wait_end, finish with reason=timeout);
#   - one request failed by fault injection (fail_mask_alloc, once):
#     finish with reason=injected;
#   - streaming maps of QEMU's edu device (28-bit DMA): swiotlb bounces
#     them through a pool it grows from the mask pool below 2^28, and
#     gives back when told to (bounce_grow, bounce_shrink).
# Output lines: "T <trace line>", "M <meminfo line>", "S <summary line>",
# "C <key> <value>" (sysctl checks), "E <step> <status>" (write results).
# Lending is switched off first: the checks count every page of the pool,
# and a lent block is not free (tests/lend checks lending's events).
t=/sys/kernel/tracing
d=/sys/kernel/debug/mask_alloc
sys=/proc/sys/vm/mask_alloc_timeout_ms
mount -t tracefs nodev $t 2>/dev/null
[ -d $t/events ] || { echo "error: no tracefs events in $t"; exit 1; }
[ -d $t/events/mask_alloc ] || { echo "error: no $t/events/mask_alloc"; exit 1; }
# shellcheck disable=SC2012 # tracefs names: event names
ls $t/events/mask_alloc | sed 's/^/L /'

summary() { sed 's/^/S /' $d/summary; }
meminfo() { grep -E '^(MemTotal|MemFree|MaskPoolTotal|MaskPoolFree):' /proc/meminfo | sed 's/^/M /'; }

echo 0 >/proc/sys/vm/mask_alloc_lend; echo "E lend_off $?"

# The sysctl: default, a good value, bad values (refused, value kept).
echo "C default $(cat $sys)"
echo 100 >$sys; echo "C set100_status $?"; echo "C after100 $(cat $sys)"
echo banana >$sys 2>/dev/null; echo "C banana_status $?"; echo "C after_banana $(cat $sys)"
echo 3600001 >$sys 2>/dev/null; echo "C toolarge_status $?"; echo "C after_toolarge $(cat $sys)"
echo -5 >$sys 2>/dev/null; echo "C negative_status $?"; echo "C after_negative $(cat $sys)"

meminfo; summary
echo 64 >$t/buffer_size_kb
echo >$t/trace
echo 1 >$t/events/mask_alloc/enable

# One request failed by fault injection: 8 KiB below 16 MiB, once.
f=/sys/kernel/debug/fail_mask_alloc
if [ -d $f ]; then
	echo 0 >$f/ignore-gfp-wait; echo 0 >$f/verbose; echo 1 >$f/times
	echo 100 >$f/probability
	echo "8192 0xffffff" >$d/alloc 2>/dev/null; echo "E injected $?"
	echo 0 >$f/probability
else
	echo "E injected no_fail_mask_alloc"
fi

# One pool allocation below 16 MiB (the zones cannot serve it: no ZONE_DMA)
# and one the zones serve, then both freed.
echo "12288 0xffffff" >$d/alloc; echo "E pool $?"
echo "4096 0xffffffff" >$d/alloc; echo "E zones $?"
sed 's/^/A /' $d/allocations
echo all >$d/free; echo "E free $?"

# Fill the pool with its largest free runs, then wait for a page.
# A mask at the pool's highest address: only the pool can serve it.
top=$(sed -n 's/^highest_addr: //p' $d/summary)
# No atomic reserve: the blocking debugfs allocations fill all of it.
res=/proc/sys/vm/mask_alloc_reserve_kbytes
[ -w $res ] && echo 0 >$res
i=0
while [ $i -lt 256 ]; do
	big=$(sed -n 's/^largest_free_bytes: //p' $d/summary)
	[ "$big" -gt 0 ] || break
	echo "$big $top" >$d/alloc 2>/dev/null || break
	i=$((i + 1))
done
echo "E fill_runs $i"
summary
echo "4096 $top" >$d/alloc 2>/dev/null; echo "E wait $?"
echo all >$d/free; echo "E free_all $?"

# Bouncing: grow a swiotlb pool below 2^28, then shrink it.
echo 0 >$d/bounce_idle_ms
if [ -e /sys/kernel/debug/maskalloc_edu/stream ]; then
	grep -E '^stream_(result|maps|map_errors):' /sys/kernel/debug/maskalloc_edu/stream | sed 's/^/B /'
else
	echo "error: no maskalloc_edu/stream"
fi
echo 1 >$d/bounce_shrink; echo "E shrink $?"
sed 's/^/B /' $d/bounce

echo 0 >$t/events/mask_alloc/enable
sed -n 's/^/T /p' $t/trace | grep -v '^T #'
meminfo; summary
echo "C dma_api_errors $(cat /sys/kernel/debug/dma-api/error_count 2>/dev/null)"
