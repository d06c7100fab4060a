#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boots that put the pool in the situations a distribution kernel meets,
# each checked from the console and from the guest:
#
#   nopool     all of [1 MB, 16 MB) reserved (memmap=15M$1M, as a kdump
#              kernel whose crash region lies elsewhere): the boot log says
#              why the pool is empty, and GFP_DMA fails cleanly, never
#              returning memory above 16 MB (KUnit suite mask_alloc_nopool:
#              kmalloc(GFP_DMA), __get_dma_pages(), alloc_pages(GFP_DMA),
#              the bulk allocator);
#   clamp128   maskzone=120M on a 128 MiB guest, and
#   clamp3g    maskzone=3G on a 3 GiB guest: the size is clamped with one
#              boot message, and the kernel boots and runs a command;
#   offline    memory offline of a block that holds pool pages (maskzone=
#              512M on 2 GiB, so the pool covers whole 128 MiB blocks) fails
#              at once with EBUSY, where it used to loop until a signal;
#              the block stays online and the pool whole;
#   memcg      a __GFP_ACCOUNT allocation of 4 MiB below 2^24 from the pool
#              (mask_alloc/alloc "... account") is charged to the writer's
#              memory cgroup, and uncharged when freed;
#   dmatlb-*   what the boot log and debugfs say about swiotlb's pools is
#              what happened: swiotlb=force grows the mask pool
#              by 64 MiB and carves a 64 MiB default pool (grow);
#              maskzone=24M stops the growth and the default pool takes
#              what the pool has (nogrow); iommu=off on 5 GiB: x86 reserves
#              nothing and calls swiotlb_exit(), after which no pool is
#              left and the mask pool is whole (exit).
#
# Needs the test kernel (make kernel: CONFIG_MEMORY_HOTPLUG and
# CONFIG_MEMORY_HOTREMOVE, CONFIG_MEMCG are in configs/kunit.config).  KERNEL_OBJ=dir
# picks another build.  Prints KTAP (tests/ktap_helpers.sh) and, last,
# "boot: N passed, N failed".  Logs in $TEST_OUT/boot (build/test/boot).
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
obj=${KERNEL_OBJ:-build/obj}
kernel=$obj/arch/x86/boot/bzImage
out=${TEST_OUT:-build/test}/boot
mkdir -p "$out"
. tests/ktap_helpers.sh
check() { ktap_check "$2" "$1" "${3:-}"; } # name ok(1/0) [detail]
ktap_header boot
vm() { # label vm-run args...: one boot, as a stage
	local label=$1; shift
	run_stage --watch "$out/$label-console.log" "boot: $label" \
		scripts/vm-run.sh --kernel "$kernel" --console "$out/$label-console.log" "$@" \
		>"$out/$label.out" 2>&1
}
has() { grep -Eq "$1" "$2" && echo 1 || echo 0; }

# --- nopool: the KUnit suite that only runs without a pool ---
# shellcheck disable=SC2016 # memmap=15M$1M is literal
vm nopool --mem 1G --timeout 300 \
	--append 'memmap=15M$1M kunit.filter_glob=mask_alloc_nopool' -- true
rc=$?
check "nopool: boots (vm-run exit $rc)" "$([[ $rc == 0 ]] && echo 1 || echo 0)"
python3 scripts/ktap.py parse "$out/nopool-console.log" --results "$out/nopool.results" --vmlinux "$obj/vmlinux" --tree "$TREE" >/dev/null
read -r _ p f s < <(grep '^kunit:mask_alloc_nopool ' "$out/nopool.results" || echo "x 0 0 0")
check "nopool: mask_alloc_nopool ran and passed ($p passed, $f failed, $s skipped)" \
	"$([[ $p -ge 1 && $f == 0 && $s == 0 ]] && echo 1 || echo 0)"
check "nopool: the boot log says why the pool is empty" \
	"$(has 'mask_alloc: no free memory below 0x1000000 \(all of it is reserved\)' "$out/nopool-console.log")"
check "nopool: GFP_DMA failure reported (no mask pool)" \
	"$(has 'cannot allocate 4096 bytes below 0xffffff.*there is no mask pool' "$out/nopool-console.log")"

# --- clamp: maskzone= larger than the kernel can spare ---
for c in "clamp128 128M 120M" "clamp3g 3G 3G"; do
	read -r label mem size <<<"$c"
	vm "$label" --mem "$mem" --timeout 300 --append "kunit.enable=0 maskzone=$size" -- \
		'grep -E "^(pool_bytes|free_bytes):" /sys/kernel/debug/mask_alloc/summary; grep MemFree /proc/meminfo'
	rc=$?
	check "$label: maskzone=$size on $mem boots and runs a command (vm-run exit $rc)" \
		"$([[ $rc == 0 ]] && echo 1 || echo 0)"
	k=$(grep -c "mask_alloc: maskzone=.* would leave too little memory for the kernel.*the pool is clamped to" \
		"$out/$label-console.log")
	check "$label: one clamp message ($k)" "$([[ $k == 1 ]] && echo 1 || echo 0)"
	pool=$(sed -n 's/^pool_bytes: //p' "$out/$label.out" | tail -n1)
	free=$(sed -n 's/^MemFree: *\([0-9]*\) kB/\1/p' "$out/$label.out" | tail -n1)
	# what is left for the kernel: at least 64 MiB less what boot used
	check "$label: pool ${pool:-?} bytes, MemFree ${free:-?} kB" \
		"$([[ -n $pool && -n $free && $pool -gt 0 && $pool -lt $(numfmt --from=iec "$size") && $free -gt 32768 ]] && echo 1 || echo 0)"
done

# --- offline: a memory block that holds pool pages ---
cat >"$out/offline.sh" <<'EOF'
bs=$(( 0x$(cat /sys/devices/system/memory/block_size_bytes) ))
lo=$(( $(sed -n 's/^lowest_addr: //p' /sys/kernel/debug/mask_alloc/summary) ))
hi=$(( $(sed -n 's/^highest_addr: //p' /sys/kernel/debug/mask_alloc/summary) ))
free0=$(sed -n 's/^free_bytes: //p' /sys/kernel/debug/mask_alloc/summary)
echo "block_size $bs pool $lo-$hi"
found=0
for d in /sys/devices/system/memory/memory*; do
	i=${d##*memory}
	start=$((i * bs)) end=$(((i + 1) * bs - 1))
	[ $start -ge $lo ] && [ $end -le $hi ] || continue
	[ "$(cat $d/state)" = online ] || continue
	found=1
	t0=$(cut -d' ' -f1 /proc/uptime)
	err=$(timeout -s INT 20 sh -c "echo offline > $d/state" 2>&1)
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	echo "offline memory$i: rc $rc, $(awk "BEGIN {print $t1 - $t0}") s: $err"
	echo "state memory$i: $(cat $d/state)"
	break
done
echo "found $found"
echo "free_bytes $free0 $(sed -n 's/^free_bytes: //p' /sys/kernel/debug/mask_alloc/summary)"
EOF
vm offline --mem 2G --timeout 300 --append "kunit.enable=0 maskzone=512M" \
	--file "$out/offline.sh" -- sh offline.sh
rc=$?
check "offline: boots (vm-run exit $rc)" "$([[ $rc == 0 ]] && echo 1 || echo 0)"
o=$out/offline.out
check "offline: a block lies inside the pool ($(grep -a '^block_size' "$o"))" \
	"$(has '^found 1' "$o")"
line=$(grep -a '^offline memory' "$o")
secs=$(sed -n 's/.*rc [0-9]*, \([0-9.]*\) s:.*/\1/p' <<<"$line")
check "offline: refused at once with EBUSY ($line)" \
	"$([[ $line == *'Device or resource busy'* && $line != *'rc 0,'* ]] &&
		awk "BEGIN {exit !(${secs:-99} < 5)}" && echo 1 || echo 0)"
check "offline: the block is still online" "$(has '^state memory[0-9]+: online' "$o")"
read -r _ f0 f1 < <(grep -a '^free_bytes ' "$o" || echo "x a b")
check "offline: the pool is as before ($f0 -> $f1 bytes free)" "$([[ $f0 == "$f1" ]] && echo 1 || echo 0)"

# --- memcg: __GFP_ACCOUNT pool allocations are charged to the cgroup ---
cat >"$out/memcg.sh" <<'EOF'
cg=/sys/fs/cgroup
mount -t cgroup2 none $cg || exit 1
echo +memory >$cg/cgroup.subtree_control
mkdir $cg/t && echo $$ >$cg/t/cgroup.procs || exit 1
kern() { sed -n 's/^kernel //p' $cg/t/memory.stat; }
k0=$(kern)
echo "4194304 0xffffff account" >/sys/kernel/debug/mask_alloc/alloc || echo "alloc failed"
k1=$(kern)
grep pool /sys/kernel/debug/mask_alloc/allocations | head -1
echo all >/sys/kernel/debug/mask_alloc/free
k2=$(kern)
echo "memcg kernel $k0 $k1 $k2"
EOF
vm memcg --mem 1G --timeout 300 --append "kunit.enable=0" --file "$out/memcg.sh" -- sh memcg.sh
rc=$?
check "memcg: boots (vm-run exit $rc)" "$([[ $rc == 0 ]] && echo 1 || echo 0)"
read -r _ _ k0 k1 k2 < <(grep -a '^memcg kernel ' "$out/memcg.out" || echo "x x 0 0 0")
check "memcg: 4 MiB below 2^24 with __GFP_ACCOUNT charged to the cgroup (kernel $k0 -> $k1 -> $k2 bytes)" \
	"$([[ $((k1 - k0)) -ge $((4194304 - 65536)) && $((k1 - k2)) -ge $((4194304 - 65536)) ]] && echo 1 || echo 0)"

# --- dmatlb: what the boot log and debugfs say about the pools is true ---
# shellcheck disable=SC2016 # run by the guest's shell
dm='b=/sys/kernel/debug/mask_alloc; sed "s/^/bounce /" $b/bounce;
	grep -E "^(pool_bytes|free_bytes):" $b/summary; sed "s/^/pools /" /sys/kernel/debug/swiotlb/pools'
bval() { sed -n "s/^bounce $1 //p" "$2" | tail -n1; }
sval() { sed -n "s/^$1: //p" "$2" | tail -n1; }
# grow: swiotlb=force grows the mask pool by 64 MiB for the default pool
vm dmatlb-grow --mem 1G --timeout 300 --append "kunit.enable=0 swiotlb=force" -- "$dm"
rc=$? o=$out/dmatlb-grow.out c=$out/dmatlb-grow-console.log
check "dmatlb-grow: boots (vm-run exit $rc)" "$([[ $rc == 0 ]] && echo 1 || echo 0)"
check "dmatlb-grow: the log says the mask pool grows by 64 MB" "$(has 'dmatlb: the mask pool grows by 64 MB for swiotlb' "$c")"
check "dmatlb-grow: debugfs grown_bytes $(bval grown_bytes "$o")" "$([[ $(bval grown_bytes "$o") == 67108864 ]] && echo 1 || echo 0)"
def=$(grep -a '^pools .* default$' "$o")
check "dmatlb-grow: one default pool of 32768 slots, logged as 64MB ($def)" \
	"$([[ $(awk '{print $5}' <<<"$def") == 32768 ]] && [[ $(has 'dmatlb: default pool \[mem .*\] \(64MB\) from the mask pool, forced' "$c") == 1 ]] && echo 1 || echo 0)"
# nogrow: maskzone= stops the growth; the default pool takes what there is
vm dmatlb-nogrow --mem 1G --timeout 300 --append "kunit.enable=0 maskzone=24M swiotlb=force" -- "$dm"
rc=$? o=$out/dmatlb-nogrow.out c=$out/dmatlb-nogrow-console.log
check "dmatlb-nogrow: boots (vm-run exit $rc)" "$([[ $rc == 0 ]] && echo 1 || echo 0)"
check "dmatlb-nogrow: the log says the mask pool does not grow" \
	"$(has 'dmatlb: the mask pool does not grow for swiotlb \(maskzone= is set' "$c")"
check "dmatlb-nogrow: debugfs grown_bytes $(bval grown_bytes "$o")" "$([[ $(bval grown_bytes "$o") == 0 ]] && echo 1 || echo 0)"
def=$(grep -a '^pools .* default$' "$o") slots=$(awk '{print $5}' <<<"$def")
mb=$(sed -n 's/.*dmatlb: default pool \[mem .*\] (\([0-9]*\)MB).*/\1/p' "$c")
check "dmatlb-nogrow: the default pool is what the log says (${mb:-?} MB, $slots slots) and fits the 24 MiB pool" \
	"$([[ -n $slots && -n $mb && $((slots * 2048 >> 20)) == "$mb" && $mb -lt 24 ]] && echo 1 || echo 0)"
check "dmatlb-nogrow: the log says the default pool is short" \
	"$(has "dmatlb: the default pool is $slots of 32768 slabs: the mask pool is short" "$c")"
# exit: iommu=off makes x86 call swiotlb_exit(): every pool goes back
vm dmatlb-exit --mem 5G --timeout 300 --append "kunit.enable=0 iommu=off" -- "$dm"
rc=$? o=$out/dmatlb-exit.out c=$out/dmatlb-exit-console.log
check "dmatlb-exit: boots (vm-run exit $rc)" "$([[ $rc == 0 ]] && echo 1 || echo 0)"
check "dmatlb-exit: nothing reserved, and swiotlb_exit() gave the pools back" \
	"$([[ $(has 'dmatlb: no default pool: nothing needs bouncing yet' "$c") == 1 && $(has 'dmatlb: giving the pools back; bouncing only below 32 bits, on demand' "$c") == 1 ]] && echo 1 || echo 0)"
check "dmatlb-exit: no pool left (pools $(bval pools "$o"), $(grep -ac '^pools 0x' "$o") listed)" \
	"$([[ $(bval pools "$o") == 0 && $(grep -ac '^pools 0x' "$o") == 0 ]] && echo 1 || echo 0)"
check "dmatlb-exit: the mask pool is whole ($(sval free_bytes "$o") of $(sval pool_bytes "$o") bytes free)" \
	"$([[ -n $(sval free_bytes "$o") && $(sval free_bytes "$o") == "$(sval pool_bytes "$o")" ]] && echo 1 || echo 0)"

ktap_finish
