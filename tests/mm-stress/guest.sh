# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# shellcheck disable=SC3043 # busybox sh has local
# Guest side of tests/mm-stress/run.sh (busybox sh, run by vm-run in /vmrun
# next to the static tools thp and diskpat).
#
#   sh guest.sh SECONDS BYTES NAME:DEV:SEED...
#
# For SECONDS, all at once: memory compaction in a loop (/proc/sys/vm/
# compact_memory and each node's compact file), THP allocations in a loop
# (./thp: MADV_HUGEPAGE memory filled with a pattern and verified while it
# may be migrated), the pool's in-kernel stress (mask_alloc/stress, with
# STRESS="THREADS SECONDS SEED"), disk I/O bouncing through the pool on
# each NAME:DEV (diskpat write + verify, BYTES per pass), and memory
# offlining:
#   - offline-pool-idle (before the load, when the block holds only free
#     pool pages) and offline-pool-busy (during the load): a memory block
#     inside the pool (mask_alloc/summary lowest_addr..highest_addr, not
#     block 0) must refuse to go offline at once with EBUSY; a write that
#     is still blocked after OFFLINE_POOL_S seconds (default 20) is killed
#     by busybox timeout and fails the check;
#   - offline-movable: the lowest ZONE_MOVABLE block (movablecore=) must
#     go offline (within OFFLINE_MOVABLE_S, default 180 s, MemTotal down by
#     a block) and come back with online_movable (MemTotal as before).
# Then, with everything idle, the pool must be whole: free bytes and
# misuse as before, mask_alloc == mask_free and swiotlb_num_allocs ==
# swiotlb_num_frees over the run, dmatlb idle, mask_alloc/map agreeing
# with the summary, no DMA-API error or streaming mapping left.
#
# MM_BREAK (one or more, space-separated) shows that the checks fail:
# leak (a page of the pool kept),
# corrupt (a sector overwritten between write and verify), thp (one word
# flipped by the first thp run), warn (a "WARNING:" line on the console,
# which vm-run reports as a kernel problem).
#
# Prints KTAP (tests/ktap_helpers.sh), "R KEY VALUE" lines for the host,
# and last "mm-stress: N passed, N failed".
set -u
secs=$1 bytes=$2
shift 2
dbg=/sys/kernel/debug
ma=$dbg/mask_alloc
mem=/sys/devices/system/memory
# shellcheck source=tests/ktap_helpers.sh # vm-run --file puts it next to guest.sh
. ./ktap_helpers.sh
check() { ktap_check "$2" "$1" "${3:-}"; } # name ok(1/0) [detail]
ktap_header mm-stress
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
brk() { # MM_BREAK contains $1
	case " ${MM_BREAK:-} " in *" $1 "*) return 0 ;; esac
	return 1
}
now_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}
memtotal() {
	awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo
}
map_used() { # pages marked used in mask_alloc/map
	sed 's/^[0-9a-f]* //' $ma/map | tr -cd 'Hh#' | wc -c
}
snap() {
	eval "free_$1=$(sv free_bytes) misuse_$1=$(sv misuse)"
	eval "ma_$1=$(vm mask_alloc) mf_$1=$(vm mask_free)"
	eval "sa_$1=$(vm swiotlb_num_allocs) sf_$1=$(vm swiotlb_num_frees)"
}
# whole TAG: the pool is as at snap 0
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
	check "$1: vmstat swiotlb_num_allocs +$dsa == swiotlb_num_frees +$dsf, and > 0 (bounced)" \
		"$(if [ "$dsa" = "$dsf" ] && [ "$dsa" -gt 0 ]; then echo 1; else echo 0; fi)"
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

# io_loop NAME DEV SEED: diskpat rounds until ./stop exists; prints an R line
io_loop() {
	local name="$1" dev="$2" seed="$3" r=0 wr=0 ver=0 werr=0 rerr=0 bad=0 opt st b bb
	while [ $r -eq 0 ] || [ ! -e stop ]; do
		opt=-d
		[ $((r % 2)) = 1 ] && opt=
		if ./diskpat write $opt -n "$bytes" -s "$seed" "/dev/$dev" >/dev/null 2>>"err.$name"; then
			wr=$((wr + bytes))
			if brk corrupt && [ $r = 0 ] && [ "$name" = "$first" ]; then
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

# compact_loop: whole-system and per-node compaction until ./stop exists
compact_loop() {
	local r=0 err=0 nd
	while [ $r -eq 0 ] || [ ! -e stop ]; do
		echo 1 >/proc/sys/vm/compact_memory || err=$((err + 1))
		for nd in /sys/devices/system/node/node*/compact; do
			echo 1 >"$nd" || err=$((err + 1))
		done
		r=$((r + 1))
	done
	echo "R compact rounds $r errors $err"
}

# thp_loop: ./thp runs until ./stop exists
thp_loop() {
	local r=0 bad=0 nohuge=0 err=0 st seed=1
	while [ $r -eq 0 ] || [ ! -e stop ]; do
		if brk thp && [ $r = 0 ]; then
			THP_BREAK=1 ./thp "$THP_MIB" $seed >thp.out 2>&1
		else
			./thp "$THP_MIB" $seed >thp.out 2>&1
		fi
		st=$?
		case $st in
		0) ;;
		1) bad=$((bad + 1)); cat thp.out ;;
		2) nohuge=$((nohuge + 1)); cat thp.out ;;
		*) err=$((err + 1)); cat thp.out ;;
		esac
		[ $r = 0 ] && cat thp.out
		seed=$((seed + 1)) r=$((r + 1))
	done
	echo "R thp rounds $r corrupt $bad no_huge $nohuge errors $err"
}

# offline BLOCK LIMIT_S: echo offline under busybox timeout; prints
# "STATUS ELAPSED_MS MESSAGE"
offline() {
	local a b st
	a=$(now_ms)
	timeout "$2" sh -c "echo offline >$mem/memory$1/state" 2>off.err
	st=$?
	b=$(now_ms)
	echo "$st $((b - a)) $(tr '\n' ' ' <off.err)"
}

echo "cmdline: $(cat /proc/cmdline)"
echo "cpus online: $(cat /sys/devices/system/cpu/online)"
sed 's/^/summary: /' $ma/summary
first=${1%%:*}
devs="$*"
THP_MIB=${THP_MIB:-128}

# --- the machine: 2 CPUs on 2 NUMA nodes, memory blocks, THP ----------------
# shellcheck disable=SC2012 # sysfs names: nodeN
nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
for nd in /sys/devices/system/node/node[0-9]*; do
	echo "${nd##*/}: cpus $(cat "$nd/cpulist"), $(awk '/MemTotal/ { print $4, $5 }' "$nd/meminfo")"
done
check "the guest sees 2 NUMA nodes (/sys/devices/system/node: $nodes)" "$(yes [ "$nodes" = 2 ])"
ncpu=$(grep -c ^processor /proc/cpuinfo)
check "the guest has 2 CPUs online ($ncpu)" "$(yes [ "$ncpu" = 2 ])"
echo "thp: enabled $(cat /sys/kernel/mm/transparent_hugepage/enabled), defrag $(cat /sys/kernel/mm/transparent_hugepage/defrag)"
bs=$((0x$(cat $mem/block_size_bytes)))
lo=$(sv lowest_addr) hi=$(sv highest_addr)
lo=$((lo)) hi=$((hi))
echo "R block_size $bs"
echo "R pool_range $lo $hi"
# a block inside the pool (not block 0, which holds the real-mode and BIOS
# areas), the highest such
pool_blk=
b=1
while [ $((b * bs)) -le "$hi" ]; do
	[ $((b * bs)) -ge "$lo" ] && [ $(((b + 1) * bs - 1)) -le "$hi" ] &&
		[ -e $mem/memory$b/state ] && pool_blk=$b
	b=$((b + 1))
done
# the lowest block in ZONE_MOVABLE: boot-time (memblock) allocations are
# made top-down and can sit in the highest blocks of a node, reserved and
# unmovable even there
mov_blk=
for d in "$mem"/memory[0-9]*; do
	b=${d##*memory}
	# shellcheck disable=SC2015 # continue unless both hold, as meant
	[ "$(cat "$d/state")" = online ] && [ "$(cat "$d/valid_zones")" = Movable ] || continue
	if [ -z "$mov_blk" ] || [ "$b" -lt "$mov_blk" ]; then mov_blk=$b; fi
done
echo "R pool_block ${pool_blk:-none} $([ -n "$pool_blk" ] && cat $mem/memory$pool_blk/valid_zones)"
echo "R movable_block ${mov_blk:-none}"
check "a memory block lies inside the pool (block size $bs, pool $(printf '%#x-%#x' $lo $hi))" \
	"$(yes [ -n "$pool_blk" ])"
check "a memory block is in ZONE_MOVABLE (movablecore=)" "$(yes [ -n "$mov_blk" ])"

# offline_pool TAG: the pool block must refuse to go offline at once, EBUSY
offline_pool() {
	local lim="${OFFLINE_POOL_S:-20}" st ms msg state why
	[ -n "$pool_blk" ] || return 0
	read -r st ms msg <<EOF
$(offline "$pool_blk" "$lim")
EOF
	state=$(cat $mem/memory$pool_blk/state)
	echo "R offline_pool_$1 block $pool_blk status $st ms $ms state $state msg $msg"
	why="status $st after $ms ms: ${msg:-no message}"
	[ "$ms" -ge $((lim * 1000)) ] && why="timed out after $lim s, killed (status $st)"
	check "offline-pool-$1: block $pool_blk (in the pool) refused at once with EBUSY, still $state" \
		"$(if [ "$st" = 1 ] && [ "$ms" -lt $((lim * 1000)) ] && [ "$state" = online ] &&
			echo "$msg" | grep -q 'busy'; then echo 1; else echo 0; fi)" "$why"
	# if it went offline after all, bring it back
	[ "$state" = offline ] && echo online >$mem/memory$pool_blk/state
}

# --- the pool block, idle: only free pool pages in it ------------------------------
offline_pool idle

# --- everything at once ---------------------------------------------------------
snap 0
rm -f stop
t0=$(now_ms)
for spec in $devs; do
	name=${spec%%:*} rest=${spec#*:}
	io_loop "$name" "${rest%%:*}" "${rest#*:}" >"io.$name" 2>&1 &
done
compact_loop >compact.out 2>&1 &
thp_loop >thp.loop 2>&1 &
if [ -n "${STRESS:-}" ]; then
	tmo=$(cat /proc/sys/vm/mask_alloc_timeout_ms)
	echo "${STRESS_TIMEOUT_MS:-200}" >/proc/sys/vm/mask_alloc_timeout_ms
	# shellcheck disable=SC2320 # $? of the echo: the status of its write to a kernel file, what is checked
	(echo "$STRESS" >$ma/stress; echo $? >stress.st) &
fi
brk warn && echo "WARNING: CPU: 0 PID: 1 at tests/mm-stress MM_BREAK=warn" >/dev/kmsg
sleep 3

offline_pool busy
# offline-movable: must go offline and come back
if [ -n "$mov_blk" ]; then
	lim=${OFFLINE_MOVABLE_S:-180}
	m0=$(memtotal)
	read -r st ms msg <<EOF
$(offline "$mov_blk" "$lim")
EOF
	state=$(cat "$mem/memory$mov_blk/state") m1=$(memtotal)
	echo "R offline_movable block $mov_blk status $st ms $ms state $state memtotal $m0 $m1 msg $msg"
	check "offline-movable: block $mov_blk went offline ($ms ms), MemTotal $m0 -> $m1 kB" \
		"$(if [ "$st" = 0 ] && [ "$state" = offline ] && [ $((m0 - m1)) = $((bs / 1024)) ]; then echo 1; else echo 0; fi)" \
		"status $st${msg:+: $msg}"
	if [ "$state" = offline ]; then
		echo online_movable >"$mem/memory$mov_blk/state"
		# shellcheck disable=SC2320 # $? of the echo: the status of its write to a kernel file, what is checked
		st=$?
		state=$(cat "$mem/memory$mov_blk/state") m2=$(memtotal)
		check "offline-movable: block $mov_blk online again (status $st, $(cat "$mem/memory$mov_blk/valid_zones")), MemTotal $m2 kB" \
			"$(if [ "$st" = 0 ] && [ "$state" = online ] && [ "$m2" = "$m0" ]; then echo 1; else echo 0; fi)"
	fi
fi

# the rest of the run, then everything stops
while [ $(($(now_ms) - t0)) -lt $((secs * 1000)) ]; do sleep 1; done
touch stop
wait
t1=$(now_ms)
echo "R busy_ms $((t1 - t0))"
[ -n "${STRESS:-}" ] && echo "$tmo" >/proc/sys/vm/mask_alloc_timeout_ms

cat compact.out thp.loop
cr=$(awk '$2 == "compact" { print $4 }' compact.out)
ce=$(awk '$2 == "compact" { print $6 }' compact.out)
check "compaction: ${cr:-0} rounds, ${ce:-?} write errors" "$(if [ "${cr:-0}" -gt 0 ] && [ "${ce:-x}" = 0 ]; then echo 1; else echo 0; fi)"
tr=$(awk '$2 == "thp" { print $4 }' thp.loop)
tb=$(awk '$2 == "thp" { print $6 }' thp.loop)
tn=$(awk '$2 == "thp" { print $8 }' thp.loop)
te=$(awk '$2 == "thp" { print $10 }' thp.loop)
check "thp: ${tr:-0} runs of $THP_MIB MiB, ${tb:-?} with a differing word" "$(if [ "${tr:-0}" -gt 0 ] && [ "${tb:-x}" = 0 ]; then echo 1; else echo 0; fi)"
check "thp: every run got huge pages (${tn:-?} without), no error (${te:-?})" \
	"$(if [ "${tn:-x}" = 0 ] && [ "${te:-x}" = 0 ]; then echo 1; else echo 0; fi)"
echo "R vmstat thp_fault_alloc $(vm thp_fault_alloc) thp_fault_fallback $(vm thp_fault_fallback) compact_stall $(vm compact_stall) compact_success $(vm compact_success) pgmigrate_success $(vm pgmigrate_success) pgmigrate_fail $(vm pgmigrate_fail)"
if [ -n "${STRESS:-}" ]; then
	sed 's/^/R stress_/' $ma/stress
	st=$(cat stress.st 2>/dev/null)
	res=$(awk '$1 == "result" { print $2 }' $ma/stress)
	check "stress \"$STRESS\" ran (write status ${st:-?}), result ${res:-none}" \
		"$(if [ "$st" = 0 ] && [ "$res" = ok ]; then echo 1; else echo 0; fi)"
	ops=$(awk '$1 == "ops" { print $2 }' $ma/stress)
	nz=1
	for k in kernel atomic nowait dma bounce timer; do
		[ "$(awk -v k=${k}_ok '$1 == k { print $2 }' $ma/stress)" -gt 0 ] 2>/dev/null || nz=0
	done
	check "stress: the threads ran (ops ${ops:-?}, $(awk '$1 == "duration_ms" { print $2 }' $ma/stress) ms) and every kind of allocation succeeded at least once" \
		"$(if [ "${ops:-0}" -gt 0 ] && [ $nz = 1 ]; then echo 1; else echo 0; fi)"
	check "stress: no \"stress:\" error in the kernel log" \
		"$(yes [ "$(dmesg | grep -c 'mask_alloc: stress: .* not ')" = 0 ])"
fi
for spec in $devs; do
	name=${spec%%:*}
	cat "io.$name"
	rounds=$(awk '$1 == "R" { print $4 }' "io.$name")
	ver=$(awk '$1 == "R" { print $8 }' "io.$name")
	bad=$(awk '$1 == "R" { print $14 }' "io.$name")
	check "$name: ${ver:-0} bytes verified in ${rounds:-0} rounds, ${bad:-?} corrupt" \
		"$(if [ "${bad:-x}" = 0 ] && [ "${ver:-0}" -gt 0 ]; then echo 1; else echo 0; fi)"
done
# a 24-bit mask: without maskzone=force only the pool has pages that low
brk leak && echo "4096 0xffffff" >$ma/alloc
whole after
# the host counts the cases (ktap_relay): the status stays 0, as vm-run's
ktap_finish || :
