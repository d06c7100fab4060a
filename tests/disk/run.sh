#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Streaming DMA on real (emulated) disks, data verified: for dmatlb=off
# (stock swiotlb) and dmatlb=on (swiotlb bouncing through the mask pool),
#   - virtio-blk (disable-legacy=on,iommu_platform=on), AHCI and NVMe on a
#     1 GiB guest with swiotlb=force, in one boot;
#   - PIIX IDE (ata_piix, 32-bit DMA mask) on a 5 GiB guest without force,
#     so the page cache above 4 GiB must bounce;
# tests/disk/diskpat (static, built here) writes a seeded pattern in which
# every 8-byte word names its sector, through the guest's block layer,
# buffered (fsync) and then with O_DIRECT, drops the caches, reads it back
# and compares every byte (tests/disk/guest.sh).  The host then checks the
# image file itself.  Each device and mode must show that it bounced:
# io_tlb_used_hiwater > 0, /proc/vmstat swiotlb_num_allocs up and
# swiotlb_num_frees caught up (the events count in both modes), and
# mask_alloc/bounce active with dmatlb=on only.  Any differing byte, DMA-API debug
# error or "DMA-API" report, failed bounce mapping, leaked streaming
# mapping, swiotlb slot or bounce buffer, or kernel problem fails it.
#
# Prints KTAP (tests/ktap_helpers.sh), the guest's output as "# " lines,
# the QEMU command line of a boot that failed, one line
# "disk-result DEVICE:dmatlb=MODE BYTES PASSED FAILED" per device and mode,
# and as its last line "disk: N passed, N failed".
# Environment: DISK_BYTES (default 64 MiB per pass), DISK_MODES (default
# "off on"), DISK_CORRUPT=flip|dev (see tests/disk/guest.sh) or =host
# (the host corrupts each image before checking it) to show that it fails,
# DISK_KEEP=1 keeps the images in build/disk.
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
vm=scripts/vm-run.sh
bytes=${DISK_BYTES:-$((64 << 20))}
modes=${DISK_MODES:-off on}
dir=$BUILD/disk logs=${TEST_OUT:-$BUILD/test}/disk
mkdir -p "$dir" "$logs"
. tests/ktap_helpers.sh
check() { ktap_check "$2" "$1" "${3:-}"; } # name ok(1/0) [detail]
ktap_header disk

tool=$dir/diskpat
gcc -static -O2 -Wall -Wextra -o "$tool" tests/disk/diskpat.c || {
	check "build tests/disk/diskpat.c (gcc -static)" 0
	ktap_finish
	exit 1
}
[[ ${DISK_KEEP:-} == 1 ]] || trap 'rm -f "$dir"/*.img' EXIT

# R lines of the guest: r NAME PASS KEY -> value
r() { awk -v a="$1" -v b="$2" -v k="$3" '$1 == "R" && $2 == a && $3 == b && $4 == k { v = $5 } END { print v }' "$out"; }
isnum() { [[ $1 =~ ^[0-9]+$ ]]; }

# boot MODE LABEL MEM APPEND NAME:TYPE:DEV...: one boot, every device checked
boot() {
	local mode=$1 label=$2 mem=$3 append=$4 spec name type dev seed img args=() guest=() rc
	local p0 f0 p a0 a1 fr0 fr1 u0 u1 hw v bad ok want got pfx drv failed
	shift 4
	out=$logs/$label.out
	local con=$logs/$label-console.log qcmd=$logs/$label.qemu-cmd
	seed=100
	[[ $mode == on ]] && seed=1100
	for spec in "$@"; do
		IFS=: read -r name type dev <<<"$spec"
		img=$dir/$name.img
		rm -f "$img"; truncate -s "$bytes" "$img"
		args+=(--disk "$img:$type")
		guest+=("$name:$dev:$seed")
		seed=$((seed + 100))
	done
	run_stage --watch "$con" "disk: dmatlb=$mode: $label (-m $mem,${append:+ $append,} $bytes bytes per pass)" \
	$vm --mem "$mem" --timeout 600 --append "kunit.enable=0 dmatlb=$mode $append" \
		--file "$tool" --file tests/disk/guest.sh --console "$con" --qemu-cmd "$qcmd" "${args[@]}" -- \
		"DISK_CORRUPT=${DISK_CORRUPT:-} sh guest.sh $bytes ${guest[*]}" >"$out" 2>"$logs/$label.err"
	rc=$?
	sed -e '/^R .*_\(before\|after\) /d' -e 's/^/# /' "$out"
	[[ $rc -eq 0 ]] || sed 's/^/# vm-run: /' "$logs/$label.err"
	failed=0

	for spec in "$@"; do
		IFS=: read -r name type dev <<<"$spec"
		p0=$KTAP_CNT_PASS f0=$KTAP_CNT_FAIL pfx="$name, dmatlb=$mode"
		check "$pfx: vm-run exit status 0" "$([[ $rc -eq 0 ]] && echo 1)" "exit $rc"
		case $type in
		virtio) want='virtio_blk<virtio-pci@' ;;
		ahci) want='sd<ahci@' ;;
		nvme) want='nvme@' ;;
		ide) want='sd<ata_piix@' ;;
		esac
		drv=$(r "$name" - driver)
		check "$pfx: /dev/$dev is driven by $want…" "$([[ $drv == "$want"* ]] && echo 1)" "got '${drv:-none}'"
		for p in buffered direct; do
			v=$(r "$name" $p verified) bad=$(r "$name" $p bad_bytes)
			check "$pfx, $p: every byte read back (${v:-0} of $bytes bytes, ${bad:-?} differ)" \
				"$([[ $(r "$name" $p write_status) == 0 && $(r "$name" $p verify_status) == 0 &&
				     $v == "$bytes" && $bad == 0 ]] && echo 1)"
			# the pass bounced, through the path the mode selects
			hw=$(r "$name" $p hiwater)
			a0=$(r "$name" $p allocs_before) a1=$(r "$name" $p allocs_after)
			fr0=$(r "$name" $p frees_before) fr1=$(r "$name" $p frees_after)
			ok=0
			if isnum "$hw" && isnum "$a0" && isnum "$a1" && isnum "$fr0" && isnum "$fr1"; then
				if [[ $mode == off ]]; then
					# stock swiotlb: the swiotlb_* events count it too, but
					# the pools are not from the mask pool (bounce active 0)
					[[ $hw -gt 0 && $a1 -gt $a0 && $((a1 - fr1)) -eq $((a0 - fr0)) &&
					   $(r "$name" $p active_after) != 1 ]] && ok=1
					got="io_tlb_used_hiwater $hw, swiotlb_num_allocs +$((a1 - a0)), swiotlb_num_frees +$((fr1 - fr0)), bounce active $(r "$name" $p active_after)"
				else
					[[ $hw -gt 0 && $a1 -gt $a0 && $((a1 - fr1)) -eq $((a0 - fr0)) &&
					   $(r "$name" $p active_after) == 1 ]] && ok=1
					got="swiotlb_num_allocs +$((a1 - a0)), swiotlb_num_frees +$((fr1 - fr0)), io_tlb_used_hiwater $hw, bounce active $(r "$name" $p active_after)"
				fi
			else
				got="hiwater '$hw', allocs '$a0'->'$a1', frees '$fr0'->'$fr1'"
			fi
			check "$pfx, $p: bounced ($got)" $ok
			u0=$(r "$name" $p used_before) u1=$(r "$name" $p used_after)
			check "$pfx, $p: swiotlb slots all returned (io_tlb_used $u0 -> $u1)" \
				"$([[ -n $u0 && $u0 == "$u1" ]] && echo 1)"
			if [[ $mode == on ]]; then
				u0=$(r "$name" $p in_use_maps_before) u1=$(r "$name" $p in_use_maps_after)
				check "$pfx, $p: bounce maps all returned (in_use_maps $u0 -> $u1)" \
					"$([[ -n $u0 && $u0 == "$u1" ]] && echo 1)"
				u0=$(r "$name" $p grow_failed_before) u1=$(r "$name" $p grow_failed_after)
				check "$pfx, $p: every pool growth found mask pool memory (grow_failed $u0 -> $u1)" \
					"$([[ -n $u0 && $u0 == "$u1" ]] && echo 1)"
			fi
		done
		# what the device model stored: the last pass's pattern
		img=$dir/$name.img
		[[ ${DISK_CORRUPT:-} == host ]] &&
			printf '\x5a' | dd of="$img" bs=1 seek=$((bytes / 3)) conv=notrunc status=none
		got=$("$tool" verify -k -n "$bytes" -s "$(r "$name" direct seed)" "$img" 2>&1)
		ok=$?
		echo "# host: $got"
		check "$pfx: the image on the host holds the pattern" "$([[ $ok -eq 0 ]] && echo 1)"
		v=$(r - - dma_api_errors) bad=$(r - - dmesg_dma_api)
		check "$pfx: DMA-API debug: error_count ${v:-?}, ${bad:-?} reports, disabled $(r - - dma_api_disabled)" \
			"$([[ $v == 0 && $bad == 0 && $(r - - dma_api_disabled) == N ]] && echo 1)"
		v=$(r - - bounce_failures)
		check "$pfx: no \"swiotlb buffer is full\" or \"dmatlb: no mask pool memory\" (${v:-?})" \
			"$([[ $v == 0 ]] && echo 1)"
		v=$(r - - dma_api_streaming)
		check "$pfx: no streaming DMA mapping left after the I/O (${v:-?})" "$([[ $v == 0 ]] && echo 1)"
		v=0
		for p in buffered direct; do got=$(r "$name" $p verified); v=$((v + ${got:-0})); done
		[[ $KTAP_CNT_FAIL -gt $f0 ]] && failed=1
		echo "disk-result $name:dmatlb=$mode $v $((KTAP_CNT_PASS - p0)) $((KTAP_CNT_FAIL - f0))"
	done
	[[ $failed -eq 0 ]] || echo "# qemu: $(cat "$qcmd")"
}

for mode in $modes; do
	boot "$mode" "force-$mode" 1G "swiotlb=force" \
		virtio:virtio:vda ahci:ahci:sda nvme:nvme:nvme0n1
	boot "$mode" "ide-$mode" 5G "" ide:ide:sda
done

echo "# $SECONDS seconds"
ktap_finish
