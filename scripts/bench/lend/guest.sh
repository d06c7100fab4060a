# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Guest side of scripts/bench/lend/run.sh (busybox sh, in /vmrun next to
# ./filler, tests/lend/filler.c).
#
#   sh guest.sh MODE N ANON_MIB SLACK_MIB
#
# MODE is stock (no mask allocator), nolend or lend.  Prints "K phase=...
# key=value" memory figures after boot and after the filler, then for
# nolend and lend, below 2^32, 2^30 and 2^24: N sleeping 1 MiB allocations
# held in batches ("R bits=B batch=K" + filler's "A" and "L" lines), and
# "V file=RC anon=RC" (0: every byte as written) after them.  Last line
# "done".
mode=$1 n=$2 anon_mib=$3 slack=$4
echo 1 >/proc/sys/kernel/printk
mi() { v=$(sed -n "s/^$1: *\([0-9]*\) kB/\1/p" /proc/meminfo); echo "${v:-0}"; }
snap() {
	echo "K phase=$1 memtotal_kb=$(mi MemTotal) memfree_kb=$(mi MemFree) avail_kb=$(mi MemAvailable) pool_kb=$(mi MaskPoolTotal) poolfree_kb=$(mi MaskPoolFree) lent_kb=$(mi MaskPoolLent) cma_kb=$(mi CmaTotal) cmafree_kb=$(mi CmaFree)"
}
snap boot
mkdir -p /mnt && mount -t tmpfs -o size=95% tmpfs /mnt
./filler anon "$anon_mib" /tmp/go >/tmp/anon.out 2>&1 &
anon=$!
i=0
while ! grep -q ready /tmp/anon.out 2>/dev/null && [ $i -lt 900 ]; do sleep 0.2; i=$((i + 1)); done
./filler file /mnt/fill $(( $(mi MemAvailable) / 1024 - slack ))
snap filled
if [ "$mode" != stock ]; then
	for spec in 32:32 30:32 24:8; do
		b=${spec%:*} k=${spec#*:}
		echo "R bits=$b batch=$k"
		./filler alloc "$n" 1048576 "$(printf '0x%x' $(( (1 << b) - 1 )))" "$k"
	done
	snap allocs
fi
./filler verify /mnt/fill >/tmp/verify.out 2>&1
f=$?
touch /tmp/go
wait $anon
echo "V file=$f anon=$? $(cat /tmp/verify.out) $(tail -n1 /tmp/anon.out)"
echo "done"
