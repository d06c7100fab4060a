#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Memory management under load beside the mask pool, in one guest boot with
# 2 CPUs on 2 NUMA nodes (tests/mm-stress/guest.sh does the work and the
# checks): compaction in a loop, THP allocations in a loop
# (tests/mm-stress/thp.c, static), the pool's in-kernel stress, disk I/O on
# virtio-blk and NVMe bouncing through the pool (swiotlb=force, dmatlb),
# and memory offlining: a block inside the pool must be refused at once
# with EBUSY (offline-pool), a ZONE_MOVABLE block must go offline and come
# back (offline-movable).  Afterwards the pool must be whole and no byte
# may differ; vm-run fails the boot on any kernel report.
#
# The guest gets 4 GiB on 2 nodes, "maskzone=512M" (a pool that covers
# whole memory blocks; block size 128 MiB), "movablecore=1G" (ZONE_MOVABLE
# blocks that can go offline), swiotlb=force and nokaslr (the kernel image
# stays in the first block, away from the pool block that is offlined).
#
#   tests/mm-stress/run.sh [--seconds S] [--threads N] [--seed S] [--bytes N]
#                       [--kernel-obj DIR]
#
# Default: 60 s, 2 stress threads, 8 MiB per diskpat pass, the kernel of
# $OBJ (build/obj-distro in make test PROFILE=distro; the kernel must have
# NUMA, SMP, THP, COMPACTION and MEMORY_HOTREMOVE, as the distro kernel
# does).  MM_BREAK="leak corrupt thp warn" (any of them) makes it fail
# on purpose (see guest.sh).  Prints KTAP, the guest's cases relayed, one line
# "mm-stress-result LABEL PASSED FAILED" and last "mm-stress: N passed, N failed".
# Logs: build/test/mm-stress/ (TEST_OUT/mm-stress/ under make test).
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
. tests/ktap_helpers.sh

secs=60 threads=2 seed=1 bytes=$((8 << 20)) obj=$OBJ
while [[ $# -gt 0 ]]; do
	case $1 in
	--seconds) secs=$2; shift ;;
	--threads) threads=$2; shift ;;
	--seed) seed=$2; shift ;;
	--bytes) bytes=$2; shift ;;
	--kernel-obj) obj=$2; shift ;;
	*) die "usage: tests/mm-stress/run.sh [--seconds S] [--threads N] [--seed S] [--bytes N] [--kernel-obj DIR]" ;;
	esac
	shift
done
[[ $secs =~ ^[0-9]+$ && $secs -gt 0 ]] || die "bad duration '$secs'"

logs=${TEST_OUT:-$BUILD/test}/mm-stress dir=$BUILD/mm-stress
mkdir -p "$logs" "$dir"
ktap_header mm-stress
# shellcheck disable=SC2015 # the block runs when either build fails, as meant
gcc -static -O2 -Wall -Wextra -o "$dir/diskpat" tests/disk/diskpat.c &&
	gcc -static -O2 -Wall -Wextra -o "$dir/thp" tests/mm-stress/thp.c || {
	ktap_check 0 "build the static tools"
	ktap_finish
	exit 1
}
trap 'rm -f "$dir"/*.img' EXIT
kernel=$obj/arch/x86/boot/bzImage
[[ -f $kernel ]] || die "no kernel at $kernel (make kernel)"

args=() guest=() s=3000
for spec in virtio:virtio:vda nvme:nvme:nvme0n1; do
	IFS=: read -r name type dev <<<"$spec"
	rm -f "$dir/$name.img"; truncate -s "$bytes" "$dir/$name.img"
	args+=(--disk "$dir/$name.img:$type")
	guest+=("$name:$dev:$s")
	s=$((s + 100000))
done
label=mm-stress
out=$logs/$label.out
env=(MM_BREAK="'${MM_BREAK:-}'" STRESS="'$threads $secs $seed'")
# a 60 s run takes about 70 s: the default waits 13 minutes at most
run_stage --watch "$logs/$label-console.log" \
	"mm-stress: ${secs}s: compaction, THP, offline, $threads stress threads, disk I/O; -smp 2, 2 nodes, ${kernel#"$ROOT"/}" \
scripts/vm-run.sh --kernel "$kernel" --mem 4G --smp 2 --numa 2 --timeout $((secs * 3 + 600)) \
	--append "kunit.enable=0 maskzone=512M movablecore=1G swiotlb=force nokaslr" \
	--file "$dir/thp" --file "$dir/diskpat" --file tests/mm-stress/guest.sh --file tests/ktap_helpers.sh \
	--console "$logs/$label-console.log" --qemu-cmd "$logs/$label.qemu-cmd" "${args[@]}" -- \
	"${env[*]} sh guest.sh $secs $bytes ${guest[*]}" >"$out" 2>"$logs/$label.err"
rc=$?
# the guest's cases become this stream's, its other lines "# " lines
ktap_relay "$out" || ktap_check 0 "the guest did not finish"
[[ $rc -eq 0 ]] || sed 's/^/# vm-run: /' "$logs/$label.err"
if [[ $rc -eq 0 ]]; then
	ktap_check 1 "vm-run exit status 0 (no kernel report)"
else
	ktap_check 0 "vm-run exit status $rc"
fi
echo "# $SECONDS seconds"
echo "mm-stress-result $label $KTAP_CNT_PASS $KTAP_CNT_FAIL"
ktap_finish
