# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2320 # $? after an echo: the status of its write to a kernel file, what is checked
# Guest side of tests/reserve/run.sh (busybox sh).  The pool is 64 MiB
# (maskzone=64M,force).  For each mask: fill the pool below it with
# blocking (GFP_KERNEL) allocations through debugfs until they fail, then
# with atomic (GFP_ATOMIC) ones, count both in pages, and free everything.
# The same with the reserve set to 0 by the sysctl, and the sysctl's
# answers to bad input.
# Output: "R <key>=<value> ..." per mask, "C <key> <value>" for the sysctl.
# Lending is switched off first: the checks count every page of the pool,
# and a lent block is not free (tests/lend and the mask_lend KUnit suite
# check that atomic callers use the hot part while lending is on).
d=/sys/kernel/debug/mask_alloc
res=/proc/sys/vm/mask_alloc_reserve_kbytes
echo 0 >/proc/sys/vm/mask_alloc_lend; echo "C lend_off $?"
echo 0 >/proc/sys/vm/mask_alloc_timeout_ms
# debugfs prints a line per allocation; keep the console quiet
echo 1 >/proc/sys/kernel/printk

free_kb() { echo $(( $(sed -n 's/^free_bytes: //p' $d/summary) / 1024 )); }

# fill MASK [atomic]: allocate 1 MiB, then 64 KiB, then 4 KiB pieces until
# each fails; print the pages taken.
fill() {
	n=0
	for sz in 1048576 65536 4096; do
		while echo "$sz $1 $2" >$d/alloc 2>/dev/null; do
			n=$((n + sz / 4096))
		done
	done
	echo $n
}

round() {
	m=$(printf '0x%x' $(( (1 << $1) - 1 )))
	before=$(free_kb)
	b=$(fill "$m")
	a=$(fill "$m" atomic)
	echo all >$d/free
	echo "R label=$2 bits=$1 mask=$m reserve_kb=$(cat $res) free_kb=$before blocking=$b atomic=$a free_after_kb=$(free_kb)"
}

echo "C default $(cat $res)"
echo "C pool_kb $(( $(sed -n 's/^pool_bytes: //p' $d/summary) / 1024 ))"
echo "C top $(sed -n 's/^highest_addr: //p' $d/summary)"
for bits in 24 25 26 28 32; do
	round $bits default
done
echo 0 >$res; echo "C set0_status $?"
round 26 off
echo 4096 >$res; echo "C set4096_status $?"; echo "C after4096 $(cat $res)"
round 26 4M
for bad in banana -1 99999999; do
	echo $bad >$res 2>/dev/null; echo "C bad_status $bad $?"; echo "C after_bad $bad $(cat $res)"
done
dmesg | grep -E 'mask_alloc: pool ' | sed 's/^/K /'
