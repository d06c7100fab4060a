#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# dmatlb on the machines people run, not only on our 1-CPU defaults:
#
#   smp8-numa2   8 vCPUs on 2 NUMA nodes, 2 GiB, swiotlb=force (every
#                mapping bounces, as in a confidential-computing guest):
#                virtio-blk (iommu_platform) and NVMe, both 64-bit, write
#                and verify a pattern with O_DIRECT at the same time as
#                the edu device (28-bit) streams bounced mappings; then a
#                24-bit allocation from the mask pool and edu's 28-bit
#                coherent allocations are still served.
#   slabs-262144 4 GiB, swiotlb=262144,force (512 MiB) and
#   slabs-524288 swiotlb=524288,force (1 GiB): a default pool of that
#                size, no warning, virtio-blk I/O byte for byte; then 60 s
#                idle with no grown pool (524288 only): the shrink worker
#                never runs.
#
# Any differing byte, failed mapping or growth, DMA-API error, kernel
# warning, or "swiotlb buffer is full" fails it.  KERNEL_OBJ=dir picks
# another build; MACHINES_BYTES (default 32 MiB per disk) and
# MACHINES_IDLE (default 60 s) scale it.  Prints KTAP (tests/ktap_helpers.sh)
# and, last, "machines: N passed, N failed".  Logs in
# $TEST_OUT/machines (build/test/machines).
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
obj=${KERNEL_OBJ:-build/obj}
kernel=$obj/arch/x86/boot/bzImage
bytes=${MACHINES_BYTES:-$((32 << 20))}
idle=${MACHINES_IDLE:-60}
dir=$BUILD/machines out=${TEST_OUT:-$BUILD/test}/machines
mkdir -p "$dir" "$out"
. tests/ktap_helpers.sh
check() { ktap_check "$2" "$1" "${3:-}"; } # name ok(1/0) [detail]
ktap_header machines
t() { [ "$@" ] 2>/dev/null && echo 1 || echo 0; }

tool=$dir/diskpat
gcc -static -O2 -Wall -Wextra -o "$tool" tests/disk/diskpat.c || {
	check "build tests/disk/diskpat.c (gcc -static)" 0
	ktap_finish
	exit 1
}
trap 'rm -f "$dir"/*.img' EXIT

# boot LABEL MEM SMP NUMA APPEND IDLE EDU(0/1) TYPE:DEV...
boot() {
	local label=$1 mem=$2 smp=$3 numa=$4 append=$5 idl=$6 edu=$7 spec type dev
	local args=() guest=() seed=500 rc o c
	shift 7
	o=$out/$label.out c=$out/$label-console.log
	for spec in "$@"; do
		IFS=: read -r type dev <<<"$spec"
		rm -f "$dir/$label-$dev.img"; truncate -s "$bytes" "$dir/$label-$dev.img"
		args+=(--disk "$dir/$label-$dev.img:$type")
		guest+=("$dev:$seed")
		seed=$((seed + 100))
	done
	[[ $edu == 1 ]] && args+=(--qemu-args "-device edu")
	run_stage --watch "$c" "machines: $label (-m $mem, $smp CPUs, $numa nodes, $append)" \
	scripts/vm-run.sh --kernel "$kernel" --mem "$mem" --smp "$smp" --numa "$numa" --timeout 900 \
		--append "kunit.enable=0 $append" --file "$tool" --file tests/machines/guest.sh \
		--console "$c" "${args[@]}" -- "sh guest.sh $bytes $idl ${guest[*]}" >"$o" 2>&1
	rc=$?
	grep -v '^R ' "$o" | sed 's/^/# /'
	r() { awk -v a="$1" -v k="$2" '$1 == "R" && $2 == a && $3 == k { v = $4 } END { print v }' "$o"; }
	check "$label: boots, runs and powers off (vm-run exit $rc)" "$(t $rc == 0)"
	check "$label: $smp CPUs on $((numa ? numa : 1)) nodes ($(r - cpus) CPUs, $(r - nodes) nodes)" \
		"$(t "$(r - cpus)" == "$smp" -a "$(r - nodes)" == "$((numa ? numa : 1))")"
	for spec in "$@"; do
		IFS=: read -r type dev <<<"$spec"
		check "$label: $type /dev/$dev: every byte read back ($(r "$dev" verified) of $bytes, $(r "$dev" bad_bytes) differ)" \
			"$(t "$(r "$dev" write_status)" == 0 -a "$(r "$dev" verify_status)" == 0 -a \
				"$(r "$dev" verified)" == "$bytes" -a "$(r "$dev" bad_bytes)" == 0)"
	done
	if [[ $edu == 1 ]]; then
		check "$label: edu (28-bit) streamed at the same time, every byte back ($(r edu streams_ok) of $(r edu streams) runs)" \
			"$(t "$(r edu streams)" -gt 0 -a "$(r edu streams_ok)" == "$(r edu streams)")"
		check "$label: then a 24-bit allocation is served below 16 MiB (status $(r alloc24 status), $(r alloc24 below16m) held)" \
			"$(t "$(r alloc24 status)" == 0 -a "$(r alloc24 below16m)" == 1)"
		maxdma=$(r edu run_max_dma)
		check "$label: and edu's 28-bit coherent allocations ($(r edu run_result), max DMA address $(r edu run_max_dma))" \
			"$(t "$(r edu run_result)" == pass -a $(( ${maxdma:-0xffffffff} < 0x10000000 )) == 1)"
	fi
	check "$label: every pool growth found memory (grow_failed $(r - grow_failed)), no full swiotlb ($(r - bounce_failures))" \
		"$(t "$(r - grow_failed)" == 0 -a "$(r - bounce_failures)" == 0)"
	check "$label: no DMA-API error ($(r - dma_api_errors)), no kernel warning ($(r - warnings))" \
		"$(t "$(r - dma_api_errors)" == 0 -a "$(r - warnings)" == 0)"
	if [[ $idl -gt 0 ]]; then
		check "$label: $idl s idle without a grown pool: no shrink work (shrink_runs $(r - shrink_runs_before) -> $(r - shrink_runs_after), grown $(r - grown))" \
			"$(t "$(r - grown)" == 0 -a "$(r - shrink_runs_before)" == 0 -a "$(r - shrink_runs_after)" == 0)"
	fi
	rm -f "$dir/$label"-*.img
}

boot smp8-numa2 2G 8 2 "swiotlb=force" 0 1 virtio:vda nvme:nvme0n1
for slabs in 262144 524288; do
	boot "slabs-$slabs" 4G 2 0 "swiotlb=$slabs,force" "$([[ $slabs == 524288 ]] && echo "$idle" || echo 0)" 0 virtio:vda
	mb=$((slabs * 2048 >> 20))
	check "slabs-$slabs: a default pool of ${mb} MB" \
		"$(t "$(grep -cE "dmatlb: default pool \[mem 0x[0-9a-f]+-0x[0-9a-f]+\] \(${mb}MB\) from the mask pool" "$out/slabs-$slabs-console.log")" == 1)"
	check "slabs-$slabs: swiotlb has $slabs slabs ($(awk '$1 == "R" && $2 == "-" && $3 == "nslabs" { print $4 }' "$out/slabs-$slabs.out"))" \
		"$(t "$(awk '$1 == "R" && $2 == "-" && $3 == "nslabs" { print $4 }' "$out/slabs-$slabs.out")" == "$slabs")"
done

echo "# $SECONDS seconds"
ktap_finish
