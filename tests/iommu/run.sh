#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Streaming DMA behind an Intel IOMMU (QEMU q35 with "-device intel-iommu"),
# with the device marked untrusted: dma-iommu bounces every mapping that
# does not fill whole IOMMU pages through swiotlb, whose pools dmatlb takes
# from the mask pool.  QEMU's edu device (28-bit DMA engine)
# moves the patterns of drivers/misc/maskalloc_edu.c's "stream" run
# (maskalloc_edu.untrusted=1) through the IOMMU.  The guest has 5 GiB, so
# x86 keeps swiotlb (no swiotlb=force) and dmatlb carves its default pool.
#
# Checks: the IOMMU is on and translates for the device, every mapping
# succeeds and every byte comes back, the mappings bounced (swiotlb events
# up, and in dmatlb's pools), every bounce slot is returned, no DMA-API
# error and no kernel warning.  Once with dmatlb=on and once with
# dmatlb=off (stock swiotlb) for comparison.
#
# KERNEL_OBJ=dir picks another build (it needs configs/iommu.config).
# Prints KTAP (tests/ktap_helpers.sh) and, last, "iommu: N passed, N
# failed".  Logs in $TEST_OUT/iommu (build/test/iommu).
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
obj=${KERNEL_OBJ:-build/obj}
kernel=$obj/arch/x86/boot/bzImage
out=${TEST_OUT:-build/test}/iommu
mkdir -p "$out"
. tests/ktap_helpers.sh
check() { ktap_check "$2" "$1" "${3:-}"; } # name ok(1/0) [detail]
ktap_header iommu
has() { grep -Eq "$1" "$2" && echo 1 || echo 0; }
get() { sed -n "s/^$1: //p" "$2" | tail -n1; }

if ! grep -q '^CONFIG_INTEL_IOMMU=y' "$obj/.config" 2>/dev/null; then
	check "$obj has CONFIG_INTEL_IOMMU (configs/iommu.config)" 0
	ktap_finish
	exit 1
fi

# shellcheck disable=SC2016 # run by the guest's shell
guest='vm() { sed -n "s/^$1 //p" /proc/vmstat; }
b=/sys/kernel/debug/mask_alloc/bounce
echo "allocs_before: $(vm swiotlb_num_allocs)"
echo "frees_before: $(vm swiotlb_num_frees)"
cat /sys/kernel/debug/maskalloc_edu/stream
echo "allocs_after: $(vm swiotlb_num_allocs)"
echo "frees_after: $(vm swiotlb_num_frees)"
echo "io_tlb_used: $(cat /sys/kernel/debug/swiotlb/io_tlb_used)"
echo "io_tlb_used_hiwater: $(cat /sys/kernel/debug/swiotlb/io_tlb_used_hiwater)"
[ -e $b ] && sed "s/^/bounce_/; s/ /: /" $b
echo "group: $(ls /sys/bus/pci/devices/*/iommu_group -d 2>/dev/null | wc -l)"
echo "domain: $(cat /sys/kernel/iommu_groups/*/type 2>/dev/null | sort | uniq -c | tr "\n" " ")"
echo "dma_api_errors: $(cat /sys/kernel/debug/dma-api/error_count)"'

for mode in on off; do
	name=dmatlb-$mode
	o=$out/$name.out c=$out/$name-console.log
	run_stage --watch "$c" "iommu: boot $name" \
	scripts/vm-run.sh --kernel "$kernel" --machine q35 --mem 5G --timeout 300 \
		--append "kunit.enable=0 intel_iommu=on iommu.strict=1 maskalloc_edu.untrusted=1 dmatlb=$mode" \
		--qemu-args "-device intel-iommu,intremap=off -device edu" \
		--console "$c" -- "$guest" >"$o" 2>&1
	rc=$?
	check "$name: boots on q35 with intel-iommu (vm-run exit $rc)" "$([[ $rc == 0 ]] && echo 1 || echo 0)"
	check "$name: the IOMMU is on" "$(has 'DMAR: Intel\(R\) Virtualization Technology for Directed I/O' "$c")"
	check "$name: the edu device is untrusted and in a DMA domain ($(get domain "$o"))" \
		"$([[ $(has 'maskalloc_edu .*28-bit DMA mask, untrusted' "$c") == 1 && $(get domain "$o") == *DMA* ]] && echo 1 || echo 0)"
	maps=$(get stream_maps "$o") errs=$(get stream_map_errors "$o")
	chk=$(get stream_bytes_checked "$o") mism=$(get stream_mismatches "$o") sync=$(get stream_sync_mismatches "$o")
	check "$name: every mapping succeeded (maps ${maps:-?}, errors ${errs:-?})" \
		"$([[ -n $maps && $maps -gt 0 && $errs == 0 ]] && echo 1 || echo 0)"
	check "$name: every byte came back (${chk:-?} bytes, ${mism:-?} mismatches, ${sync:-?} after sync_for_cpu)" \
		"$([[ -n $chk && $chk -gt 0 && $mism == 0 && $sync == 0 && $(get stream_result "$o") == pass ]] && echo 1 || echo 0)"
	a0=$(get allocs_before "$o") a1=$(get allocs_after "$o") f0=$(get frees_before "$o") f1=$(get frees_after "$o")
	check "$name: dma-iommu bounced through swiotlb (swiotlb_num_allocs +$((a1 - a0)), frees +$((f1 - f0)), hiwater $(get io_tlb_used_hiwater "$o"))" \
		"$([[ -n $a1 && $((a1 - a0)) -gt 0 && $((a1 - a0)) == $((f1 - f0)) && $(get io_tlb_used_hiwater "$o") -gt 0 ]] && echo 1 || echo 0)"
	check "$name: every slot returned (io_tlb_used $(get io_tlb_used "$o"))" \
		"$([[ $(get io_tlb_used "$o") == 0 ]] && echo 1 || echo 0)"
	if [[ $mode == on ]]; then
		check "$name: the pools are dmatlb's (active $(get bounce_active "$o"), pools $(get bounce_pools "$o"), in_use_maps $(get bounce_in_use_maps "$o"))" \
			"$([[ $(get bounce_active "$o") == 1 && $(get bounce_pools "$o") -ge 1 && $(get bounce_in_use_maps "$o") == 0 ]] && echo 1 || echo 0)"
	else
		check "$name: stock swiotlb (bounce active $(get bounce_active "$o"))" \
			"$([[ $(get bounce_active "$o") == 0 ]] && echo 1 || echo 0)"
	fi
	check "$name: DMA-API debugging counted no error ($(get dma_api_errors "$o"))" \
		"$([[ $(get dma_api_errors "$o") == 0 ]] && echo 1 || echo 0)"
done
ktap_finish
