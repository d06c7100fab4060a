# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC2320 # $? after an echo: the status of its write to a kernel file, what is checked
# Guest side of tests/fair/run.sh (busybox sh): the fairness stress
# (debugfs mask_alloc/fair_stress) with fair waiters on, then off.
#   sh guest.sh [THREADS [SECONDS [SEED]]]
# Output lines: "R1 <key> <value>" (fair on), "R0 <key> <value>" (fair
# off), "S <summary line>" after both, "E <step> <status>" (write results).
d=/sys/kernel/debug/mask_alloc
threads=${1:-4} secs=${2:-20} seed=${3:-1}
[ -e $d/fair_stress ] || { echo "error: no $d/fair_stress"; exit 1; }
echo "E timeout_ms $(cat /proc/sys/vm/mask_alloc_timeout_ms)"
# No atomic reserve: the small threads allocate with GFP_NOWAIT, which may
# take it, and while they keep fewer free pages than the reserve no
# blocking request is served, fair or not.  This measures the order of
# the blocking ones among themselves.
res=/proc/sys/vm/mask_alloc_reserve_kbytes
[ -w $res ] && echo 0 >$res
echo "E fair_default $(cat $d/fair)"
echo 2 >$d/fair 2>/dev/null; echo "E fair_bad_value $?"
for fair in 1 0; do
	echo $fair >$d/fair; echo "E fair_set$fair $?"
	echo "$threads $secs $seed" >$d/fair_stress; echo "E run$fair $?"
	sed "s/^/R$fair /" $d/fair_stress
done
echo 1 >$d/fair
sed 's/^/S /' $d/summary
