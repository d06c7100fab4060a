#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Smoke check of the mask pool microbenchmark, run in the guest of the
# KUnit boot of `make test` (scripts/run-tests.sh copies it in with vm-run
# --file): /sys/kernel/debug/mask_alloc/bench (mm/mask_alloc/bench.c) must
# reject bad input with EINVAL and a message, run a tiny benchmark, print
# one well-formed line per path and size with positive times, and leave
# the pool as it found it.  No timing is asserted.
# Prints KTAP (tests/ktap_helpers.sh, which run-tests copies in next to
# it) and, last, "pool-bench: N passed, N failed"; exits 0 (the checks
# fail, not the boot).  POOL_BENCH_ARGS ("10 3") is what the good run
# writes.
set -u
bench=/sys/kernel/debug/mask_alloc/bench
summary=/sys/kernel/debug/mask_alloc/summary
args=${POOL_BENCH_ARGS:-10 3}
# shellcheck source=tests/ktap_helpers.sh # vm-run --file puts it next to smoke.sh
. ./ktap_helpers.sh
check() { ktap_check "$2" "$1" "${3:-}"; } # name ok(1/0) [detail]
finish() {
	ktap_finish
	exit 0
}
ktap_header pool-bench
tmp=/tmp/pool-bench.$$
mkdir -p $tmp

if [ ! -e $bench ]; then
	check "$bench exists" 0
	finish
fi
check "$bench exists" 1

# Bad input: each write fails with EINVAL and says why in the kernel log.
msgs0=$(dmesg | grep -c 'mask_alloc: bench: expected')
nbad=0
for bad in 0 100001 4294967296 -1 abc 10x "10 0" "10 22" "10 x" "10 3 1" ""; do
	nbad=$((nbad + 1))
	if echo "$bad" 2>$tmp/err >$bench; then
		check "bad input '$bad' rejected" 0 "accepted"
	else
		grep -q 'Invalid argument' $tmp/err
		# shellcheck disable=SC2181 # $? of the grep just above
		check "bad input '$bad' rejected with EINVAL" "$([ $? = 0 ] && echo 1)" \
			"$(cat $tmp/err)"
	fi
done
msgs1=$(dmesg | grep -c 'mask_alloc: bench: expected')
check "every bad input explained in the kernel log ($((msgs1 - msgs0)) of $nbad)" \
	"$([ $((msgs1 - msgs0)) = $nbad ] && echo 1)"

# A tiny run.
free0=$(sed -n 's/^free_bytes: //p' $summary)
ran=0
echo "$args" 2>$tmp/err >$bench && ran=1
check "'$args' runs" $ran "$(cat $tmp/err; dmesg | grep 'bench:' | tail -n 2)"
free1=$(sed -n 's/^free_bytes: //p' $summary)
cat $bench >$tmp/out
sed 's/^/# /' $tmp/out

# shellcheck disable=SC2086 # split "ITERS ROUNDS" into $1 $2 on purpose
set -- $args
iters=$1 rounds=${2:-5}
head -n 1 $tmp/out | grep -qE "^# iterations $iters rounds $rounds clock_ns [1-9][0-9]* pool_free_pages_before [0-9]+ pool_free_pages_after [0-9]+ error 0\$"
# shellcheck disable=SC2181 # $? of the grep just above
check "header line" "$([ $? = 0 ] && echo 1)" "$(head -n 1 $tmp/out)"

# One line per path and size, every number positive, alloc_pages' ratio 1.
bad=$(awk -v min=$((iters * rounds)) '
	NR == 1 { next }
	$1 ~ /^(pool24|pool32|api24|api32|alloc_pages)$/ && $2 == "pages" &&
	$3 ~ /^(1|2|4|8|16|32|64)$/ && $4 == "ns" && $5 ~ /^[0-9]+\.[0-9]$/ &&
	$6 == "alloc_pages_ns" && $7 ~ /^[0-9]+\.[0-9]$/ && $8 == "ratio" &&
	$9 ~ /^[0-9]+\.[0-9][0-9][0-9]$/ && $10 == "pairs" && $11 ~ /^[0-9]+$/ &&
	$12 == "zones" && $13 ~ /^[0-9]+$/ && NF == 13 &&
	$5 > 0 && $7 > 0 && $9 > 0 && $11 >= min &&
	($1 != "alloc_pages" || ($9 == "1.000" && $5 == $7)) &&
	!seen[$1 " " $3]++ { good++; next }
	{ print "line " NR ": " $0; exit }
	END { if (good != 35) print good + 0 " good lines of 35" }' $tmp/out)
check "35 well-formed lines (5 paths x 7 sizes), positive times" \
	"$([ -z "$bad" ] && echo 1)" "$bad"

before=$(sed -n 's/.* pool_free_pages_before \([0-9]*\) .*/\1/p' $tmp/out)
after=$(sed -n 's/.* pool_free_pages_after \([0-9]*\) .*/\1/p' $tmp/out)
check "the pool ends as it started (free pages $before -> $after, free_bytes $free0 -> $free1)" \
	"$([ -n "$before" ] && [ "$before" -gt 0 ] && [ "$before" = "$after" ] &&
	   [ -n "$free0" ] && [ "$free0" = "$free1" ] && echo 1)"
rm -rf $tmp
finish
