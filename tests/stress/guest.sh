# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC3043 # busybox sh has local
# Guest side of tests/stress/run.sh (busybox sh, run by vm-run in /vmrun next
# to the static diskpat binary of tests/disk).
#
#   sh guest.sh BYTES NAME:DEV:SEED...
#
# Environment:
#   STRESS="THREADS SECONDS [SEED]"  run the pool stress
#            (/sys/kernel/debug/mask_alloc/stress) while the disks are busy
#   STRESS_TIMEOUT_MS  vm.mask_alloc_timeout_ms during the stress (200)
#   SOAK=SECONDS   keep the disks busy this long (after the stress, if any)
#   FAIL=1         fail_mask_alloc on bounce allocations only, 1 %, every
#                  request, no limit (bounce-only=Y probability=1
#                  interval=1 times=-1) while the disks are busy
#   EXHAUST=1      afterwards, the exhaustion and recovery checks (needs
#                  "maskzone=force", so that the debugfs alloc knob can
#                  fill the whole pool)
#   STRESS_BREAK=leak|corrupt  show that the checks fail: leak keeps a page
#                  of the pool; corrupt makes the I/O loop of the first
#                  device overwrite a sector between write and verify
#
# Each device gets an I/O loop (in the background, all at once): diskpat
# write then verify, BYTES from offset 0, alternately with O_DIRECT and
# buffered, a new seed each round, until the run ends (at least one round).
# A round whose write fails is counted as a write error and not verified;
# a verify that stops early on an error is a read error; a byte read that
# differs is corruption, and fails the test.  Then, with the disks idle,
# the pool must be whole again: free bytes and misuse as before, every
# mask_alloc event matched by a mask_free and every swiotlb_num_allocs by
# a swiotlb_num_frees, no bounce buffer in use, and mask_alloc/map must
# show exactly the used pages of mask_alloc/summary.
#
# Prints KTAP (tests/ktap_helpers.sh), "R KEY VALUE" lines for the host,
# and last "stress: N passed, N failed".
set -u
bytes=$1
shift
dbg=/sys/kernel/debug
ma=$dbg/mask_alloc
fi=$dbg/fail_mask_alloc
# shellcheck source=tests/ktap_helpers.sh # vm-run --file puts it next to guest.sh
. ./ktap_helpers.sh
check() { ktap_check "$2" "$1" "${3:-}"; } # name ok(1/0) [detail]
ktap_header stress
yes() { # one test... -> 1 or 0 (several: $(if A && B; then echo 1; else echo 0; fi))
	if "$@"; then echo 1; else echo 0; fi
}
sv() { # summary key -> value
	awk -v k="$1:" '$1 == k { print $2 }' $ma/summary
}
vm() { # vmstat event -> value, 0 when absent
	awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' /proc/vmstat
}
bv() { # mask_alloc/bounce key -> value, 0 when absent
	awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' $ma/bounce 2>/dev/null
}
now_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}
map_used() { # pages marked used in mask_alloc/map
	sed 's/^[0-9a-f]* //' $ma/map | tr -cd 'Hh#' | wc -c
}
warns() { # allocation failure messages in the log so far
	dmesg | grep -cE 'cannot allocate .* below|page allocation failure'
}

# snap TAG: what must come back to where it was
snap() {
	eval "free_$1=$(sv free_bytes) misuse_$1=$(sv misuse)"
	eval "ma_$1=$(vm mask_alloc) mf_$1=$(vm mask_free)"
	eval "sa_$1=$(vm swiotlb_num_allocs) sf_$1=$(vm swiotlb_num_frees)"
}

# whole TAG: the pool is as at snap 0, checked against snap TAG
# shellcheck disable=SC2154 # free_0, misuse_0, dma... are set through eval
whole() {
	local free used pool mapu
	sync
	echo 3 >/proc/sys/vm/drop_caches
	# the swiotlb pools grown under load go back when idle (10 s); now
	[ -w $dbg/mask_alloc/bounce_shrink ] && echo 1 >$dbg/mask_alloc/bounce_shrink
	echo "R dmatlb_$1 pools $(bv pools) grown $(bv grown) shrunk $(bv shrunk) grow_failed $(bv grow_failed)"
	snap "$1"
	pool=$(sv pool_bytes) free=$(eval echo "\$free_$1") used=$(sv used_bytes)
	mapu=$(map_used)
	echo "R pool_bytes_$1 $pool"
	echo "R free_bytes_$1 $free"
	check "$1: pool whole again (free_bytes $free_0 -> $free, pool_bytes $pool)" \
		"$(yes [ "$free" = "$free_0" ])"
	check "$1: no misuse (misuse $misuse_0 -> $(eval echo "\$misuse_$1"))" \
		"$(yes [ "$(eval echo "\$misuse_$1")" = "$misuse_0" ])"
	eval "dma=\$((ma_$1 - ma_0)) dmf=\$((mf_$1 - mf_0))"
	eval "dsa=\$((sa_$1 - sa_0)) dsf=\$((sf_$1 - sf_0))"
	check "$1: vmstat mask_alloc +$dma == mask_free +$dmf" "$(yes [ "$dma" = "$dmf" ])"
	check "$1: vmstat swiotlb_num_allocs +$dsa == swiotlb_num_frees +$dsf" \
		"$(yes [ "$dsa" = "$dsf" ])"
	check "$1: dmatlb idle (in_use_slots $(bv in_use_slots), in_use_maps $(bv in_use_maps))" \
		"$(if [ "$(bv in_use_slots)" = 0 ] && [ "$(bv in_use_maps)" = 0 ]; then echo 1; else echo 0; fi)"
	check "$1: mask_alloc/map shows $mapu used pages, summary used_bytes $used" \
		"$(yes [ $((mapu * 4096)) = "$used" ])"
	if [ -r $dbg/dma-api/error_count ]; then
		local e s
		e=$(cat $dbg/dma-api/error_count)
		s=$(grep -cv ' coherent ' $dbg/dma-api/dump)
		check "$1: DMA-API debug: error_count $e, $s streaming mappings left" \
			"$(if [ "$e" = 0 ] && [ "$s" = 0 ]; then echo 1; else echo 0; fi)"
	fi
}

# io_loop NAME DEV SEED: rounds until ./stop exists; prints R lines
io_loop() {
	local name="$1" dev="$2" seed="$3" r=0 wr=0 ver=0 werr=0 rerr=0 bad=0 opt st b bb
	while [ $r -eq 0 ] || [ ! -e stop ]; do
		opt=-d
		[ $((r % 2)) = 1 ] && opt=
		if ./diskpat write $opt -n "$bytes" -s "$seed" "/dev/$dev" >/dev/null 2>>"err.$name"; then
			wr=$((wr + bytes))
			if [ "${STRESS_BREAK:-}" = corrupt ] && [ $r = 0 ] && [ "$name" = "$first" ]; then
				dd if="/dev/$dev" of="/dev/$dev" bs=512 skip=10 seek=20 count=1 \
					conv=notrunc,fsync 2>/dev/null
			fi
			./diskpat verify $opt -n "$bytes" -s "$seed" "/dev/$dev" >"v.$name" 2>>"err.$name"
			st=$?
			b=$(sed -n 's/.* bytes=\([0-9]*\) bad_bytes=\([0-9]*\).*/\1/p' "v.$name")
			bb=$(sed -n 's/.* bytes=\([0-9]*\) bad_bytes=\([0-9]*\).*/\2/p' "v.$name")
			ver=$((ver + ${b:-0}))
			if [ "${bb:-0}" != 0 ]; then
				bad=$((bad + 1))
				sed "s/^/$name: /" "v.$name"
			elif [ $st != 0 ]; then
				rerr=$((rerr + 1))
			fi
		else
			werr=$((werr + 1))
		fi
		seed=$((seed + 1)) r=$((r + 1))
	done
	echo "R io_$name rounds $r written $wr verified $ver write_errors $werr read_errors $rerr corrupt $bad"
	sort "err.$name" 2>/dev/null | uniq -c | head -5 | sed "s/^/$name: /"
}

fail_arm() { # probability
	[ -d $fi ] || return 1
	echo Y >$fi/bounce-only
	echo 0 >$fi/verbose
	echo 0 >$fi/space
	echo 1 >$fi/interval
	echo -1 >$fi/times
	echo "$1" >$fi/probability
}

echo "cmdline: $(cat /proc/cmdline)"
echo "cpus: $(grep -c ^processor /proc/cpuinfo)"
sed 's/^/summary: /' $ma/summary
first=${1%%:*}
devs="$*"
snap 0
warns_0=$(warns)
inj_0=$(sv injected)
rm -f stop
t0=$(now_ms)

# --- the disks busy, the stress and/or the soak meanwhile ---------------
if [ "${FAIL:-}" = 1 ]; then
	fail_arm 1
	st=$?
	check "fail_mask_alloc armed: bounce-only, 1 %, interval 1, times -1" "$(yes [ $st = 0 ])"
fi
for spec in $devs; do
	name=${spec%%:*} rest=${spec#*:}
	io_loop "$name" "${rest%%:*}" "${rest#*:}" >"io.$name" 2>&1 &
done
if [ -n "${STRESS:-}" ]; then
	# GFP_KERNEL requests of the stress wait this long at most
	tmo=$(cat /proc/sys/vm/mask_alloc_timeout_ms)
	echo "${STRESS_TIMEOUT_MS:-200}" >/proc/sys/vm/mask_alloc_timeout_ms
	echo "$STRESS" >$ma/stress
	# shellcheck disable=SC2320 # $? of the echo: the status of its write to a kernel file, what is checked
	st=$?
	echo "$tmo" >/proc/sys/vm/mask_alloc_timeout_ms
	sed 's/^/R stress_/' $ma/stress
	res=$(awk '$1 == "result" { print $2 }' $ma/stress)
	check "stress \"$STRESS\" ran (write status $st), result ${res:-none}" \
		"$(if [ $st = 0 ] && [ "$res" = ok ]; then echo 1; else echo 0; fi)"
	nz=1
	for k in kernel atomic nowait dma bounce timer; do
		[ "$(awk -v k=${k}_ok '$1 == k { print $2 }' $ma/stress)" -gt 0 ] 2>/dev/null || nz=0
	done
	check "stress: every kind of allocation succeeded at least once" $nz
	check "stress: no \"stress:\" error in the kernel log" \
		"$(yes [ "$(dmesg | grep -c 'mask_alloc: stress: .* not ')" = 0 ])"
fi
[ -n "${SOAK:-}" ] && sleep "$SOAK"
touch stop
wait
t1=$(now_ms)
if [ "${FAIL:-}" = 1 ]; then
	echo 0 >$fi/probability
fi
echo "R busy_ms $((t1 - t0))"
inj=$(($(sv injected) - inj_0))
echo "R injected $inj"
[ "${FAIL:-}" = 1 ] && check "faults were injected ($inj)" "$(yes [ "$inj" -gt 0 ])"
for spec in $devs; do
	name=${spec%%:*}
	cat "io.$name"
	rounds=$(awk '$1 == "R" { print $4 }' "io.$name")
	ver=$(awk '$1 == "R" { print $8 }' "io.$name")
	bad=$(awk '$1 == "R" { print $14 }' "io.$name")
	check "$name: ${ver:-0} bytes verified in ${rounds:-0} rounds, ${bad:-?} corrupt" \
		"$(if [ "${bad:-x}" = 0 ] && [ "${ver:-0}" -gt 0 ]; then echo 1; else echo 0; fi)"
done
echo "R mask_fail $(vm mask_fail) mask_wait $(vm mask_wait) dmatlb_grow_failed $(bv grow_failed)"
# with the faults off again, every disk must work again
if [ "${FAIL:-}" = 1 ]; then
	for spec in $devs; do
		name=${spec%%:*} rest=${spec#*:}
		./diskpat write -d -n "$bytes" -s 98 "/dev/${rest%%:*}" >/dev/null 2>&1 &&
			./diskpat verify -d -n "$bytes" -s 98 "/dev/${rest%%:*}" >"v.$name" 2>&1
		st=$?
		cat "v.$name" 2>/dev/null
		why=""
		[ $st != 0 ] && why=$(dmesg | grep -E 'ata[0-9.]*: (disable device|revalidation failed)' | tail -n 2 | tr '\n' ' ')
		check "faults off: $name: write and verify pass again" "$(yes [ $st = 0 ])" "$why"
	done
fi
[ "${STRESS_BREAK:-}" = leak ] && echo "4096 0xffffffff" >$ma/alloc
whole busy

# --- exhaustion and recovery ----------------------------------------------
if [ "${EXHAUST:-}" = 1 ]; then
	tmo=$(cat /proc/sys/vm/mask_alloc_timeout_ms)
	echo 0 >/proc/sys/vm/mask_alloc_timeout_ms
	# No atomic reserve: the blocking debugfs allocations fill all of it.
	[ -w /proc/sys/vm/mask_alloc_reserve_kbytes ] && echo 0 >/proc/sys/vm/mask_alloc_reserve_kbytes
	fill() {
		for sz in 1048576 65536 4096; do
			while echo "$sz 0xffffffff" >$ma/alloc 2>/dev/null; do :; done
		done
	}
	fill
	check "exhaust: pool filled through mask_alloc/alloc (free_bytes $(sv free_bytes))" \
		"$(yes [ "$(sv free_bytes)" = 0 ])"
	check "exhaust: __GFP_NOWARN failures logged nothing ($(($(warns) - warns_0)) messages)" \
		"$(yes [ "$(warns)" = "$warns_0" ])"

	# a sleeping allocation times out after vm.mask_alloc_timeout_ms
	echo 500 >/proc/sys/vm/mask_alloc_timeout_ms
	w0=$(vm mask_wait) a=$(now_ms)
	echo "4096 0xffffffff" >$ma/alloc 2>/dev/null
	# shellcheck disable=SC2320 # $? of the echo: the status of its write to a kernel file, what is checked
	st=$? b=$(now_ms)
	echo "R timeout_ms 500 waited_ms $((b - a)) mask_wait_jiffies $(($(vm mask_wait) - w0))"
	check "exhaust: GFP_KERNEL fails after the 500 ms timeout (took $((b - a)) ms, status $st)" \
		"$(if [ $st != 0 ] && [ $((b - a)) -ge 480 ] && [ $((b - a)) -lt 3000 ]; then echo 1; else echo 0; fi)"

	# a waiter is woken by a free and succeeds
	echo 30000 >/proc/sys/vm/mask_alloc_timeout_ms
	# shellcheck disable=SC2320 # $? of the echo: the status of its write to a kernel file, what is checked
	(a=$(now_ms); echo "8192 0xffffffff" >$ma/alloc 2>/dev/null; echo "$? $(($(now_ms) - a))" >waiter) &
	sleep 2
	w=$(awk 'NR == 1 { print $1 }' $ma/allocations)
	echo "$w" >$ma/free
	wait
	read -r st took <waiter
	echo "R waiter_ms $took"
	check "exhaust: a waiter is woken by a free 2 s later and succeeds (status $st, $took ms)" \
		"$(if [ "$st" = 0 ] && [ "$took" -ge 1500 ] && [ "$took" -lt 15000 ]; then echo 1; else echo 0; fi)"

	# I/O while the mask pool is full: the swiotlb pools were carved from
	# it before, so bouncing goes on in them; a growth may fail (counted in
	# grow_failed), a mapping may fail if every pool is full, but data is
	# never wrong.
	echo 0 >/proc/sys/vm/mask_alloc_timeout_ms
	fill
	check "exhaust: pool full again (free_bytes $(sv free_bytes))" "$(yes [ "$(sv free_bytes)" = 0 ])"
	g0=$(bv grow_failed)
	for spec in $devs; do
		name=${spec%%:*} rest=${spec#*:}
		(
			./diskpat write -d -n 1048576 -s 77 "/dev/${rest%%:*}" >/dev/null 2>"full.$name"
			echo "write $?" >"fullst.$name"
		) &
	done
	# Keep the mask pool full for at most 5 s: an AHCI write error makes
	# libata's error handler revalidate the disk with IDENTIFY, and libata
	# disables the disk for good when that fails three times, about 6 s
	# after the first.
	i=0
	while [ $i -lt 5 ]; do
		sleep 1
		i=$((i + 1))
		done_all=1
		for spec in $devs; do
			[ -e "fullst.${spec%%:*}" ] || done_all=0
		done
		[ $done_all = 1 ] && break
	done
	echo "R full_pool_seconds $i"
	for spec in $devs; do
		name=${spec%%:*}
		echo "R full_$name $(cat "fullst.$name" 2>/dev/null || echo still-waiting)"
	done
	echo "R full_pool_grow_failed $(($(bv grow_failed) - g0))"
	echo all >$ma/free
	echo "$tmo" >/proc/sys/vm/mask_alloc_timeout_ms
	wait
	for spec in $devs; do
		name=${spec%%:*} rest=${spec#*:}
		read -r _ st <"fullst.$name"
		if [ "$st" = 0 ]; then
			./diskpat verify -d -n 1048576 -s 77 "/dev/${rest%%:*}" >"v.$name" 2>&1
			vst=$?
			cat "v.$name"
			check "exhaust: $name: the write while the mask pool was full completed; data correct" \
				"$(yes [ $vst = 0 ])"
		else
			bb=$(./diskpat verify -d -n 1048576 -s 77 "/dev/${rest%%:*}" 2>&1 |
				sed -n 's/.* bad_bytes=\([0-9]*\).*/\1/p')
			echo "$name: write failed ($(head -1 "full.$name")); the data is undefined"
			check "exhaust: $name: the write while the mask pool was full reported an error" 1
		fi
	done
	# recovery: a full round on every device passes again
	for spec in $devs; do
		name=${spec%%:*} rest=${spec#*:}
		./diskpat write -d -n "$bytes" -s 99 "/dev/${rest%%:*}" >/dev/null &&
			./diskpat verify -d -n "$bytes" -s 99 "/dev/${rest%%:*}" >"v.$name"
		st=$?
		cat "v.$name"
		check "recovered: $name: write and verify pass" "$(yes [ $st = 0 ])"
	done
	whole recovered
fi
# the host counts the cases (ktap_relay): the status stays 0, as vm-run's
ktap_finish || :
