#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The mask pool under concurrent load, exhaustion and injected faults, in
# one guest boot with real (emulated) disks bouncing through dmatlb
# (tests/stress/guest.sh does the work and the checks; tests/disk/diskpat
# writes and verifies every byte).
#
#   tests/stress/run.sh              the short run of `make test`: the test
#                                 kernel (build/obj), a 5-second stress with
#                                 4 threads while virtio-blk and NVMe bounce,
#                                 then exhaustion and recovery
#   tests/stress/run.sh --stress S   the same with an S-second stress on an SMP
#                                 kernel (build/obj-bench, configs/bench.config)
#                                 booted with --smp 4 and AHCI as well
#   tests/stress/run.sh --soak D     the soak: D (600, 10m, 1h) of disk I/O on
#                                 virtio-blk, AHCI and NVMe with fail_mask_alloc
#                                 failing 1 % of the swiotlb pool memory
#                                 allocations (build/obj, -smp 1, a 1 MiB
#                                 default swiotlb pool, so that pools grow)
#
# Stress and exhaustion boot with "maskzone=4M,force swiotlb=512,force":
# every mask allocation and every swiotlb pool comes from a 4 MiB pool.
# dmatlb carves a 1 MiB default swiotlb pool from it at boot; the stress
# threads and the pools that swiotlb grows (and transient pools) compete
# for the other 3 MiB (allocations fail and wait, pool growths fail,
# bounce mappings may fail and virtio-blk and NVMe requeue).  The soak
# boots with "swiotlb=512,force": a 1 MiB default pool, pools that grow.
#
# Options: --smp N, --threads N, --bytes N (per diskpat pass), --seed S,
# --kernel-obj DIR.  STRESS_BREAK=leak|corrupt (see guest.sh) shows that
# the checks fail.  Prints KTAP, the guest's cases relayed, one line
# "stress-result LABEL PASSED FAILED" and last "stress: N passed, N failed".
# Logs: build/test/stress/ (build/test-debug/stress/ in the debug profile).
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
. tests/ktap_helpers.sh

mode=quick secs=5 smp=1 threads=4 seed=1 bytes='' obj=''
while [[ $# -gt 0 ]]; do
	case $1 in
	--stress) mode=stress secs=$2; shift ;;
	--soak) mode=soak secs=$2; shift ;;
	--smp) smp=$2; shift ;;
	--threads) threads=$2; shift ;;
	--bytes) bytes=$2; shift ;;
	--seed) seed=$2; shift ;;
	--kernel-obj) obj=$2; shift ;;
	*) die "usage: tests/stress/run.sh [--stress SECONDS | --soak DURATION] [--smp N] [--threads N] [--bytes N] [--seed S] [--kernel-obj DIR]" ;;
	esac
	shift
done
case $secs in
*h) secs=$((${secs%h} * 3600)) ;;
*m) secs=$((${secs%m} * 60)) ;;
*s) secs=${secs%s} ;;
esac
[[ $secs =~ ^[0-9]+$ && $secs -gt 0 ]] || die "bad duration '$secs'"

logs=${TEST_OUT:-$BUILD/test}/stress dir=$BUILD/stress/$mode
mkdir -p "$logs" "$dir"
tool=$dir/diskpat
gcc -static -O2 -Wall -Wextra -o "$tool" tests/disk/diskpat.c || die "cannot build diskpat"
trap 'rm -f "$dir"/*.img' EXIT

env=(STRESS_BREAK="${STRESS_BREAK:-}")
disks=(virtio:virtio:vda nvme:nvme:nvme0n1)
append="kunit.enable=0 maskzone=4M,force swiotlb=512,force"
case $mode in
quick)
	bytes=${bytes:-$((8 << 20))}
	env+=(STRESS="'$threads $secs $seed'" EXHAUST=1)
	timeout=400
	;;
stress)
	[[ $smp == 1 ]] && smp=4
	bytes=${bytes:-$((16 << 20))}
	disks+=(ahci:ahci:sda)
	env+=(STRESS="'$threads $secs $seed'" EXHAUST=1)
	timeout=$((secs * 3 + 600))
	if [[ -z $obj ]]; then
		# an SMP kernel: the bench kernel (test config + configs/bench.config)
		export OBJ=$BUILD/obj-bench
		EXTRA_CONFIG="configs/bench.config ${EXTRA_CONFIG:-}" scripts/configure.sh ||
			die "configure failed"
		scripts/build-kernel.sh || die "kernel build failed"
		obj=$OBJ
	fi
	;;
soak)
	bytes=${bytes:-$((16 << 20))}
	disks+=(ahci:ahci:sda)
	# a 1 MiB default swiotlb pool: three disks need grown and transient
	# pools, whose memory is what the injection fails
	append="kunit.enable=0 swiotlb=512,force"
	env+=(SOAK="$secs" FAIL=1)
	timeout=$((secs * 2 + 600))
	;;
esac
obj=${obj:-$BUILD/obj}
kernel=$obj/arch/x86/boot/bzImage
[[ -f $kernel ]] || die "no kernel at $kernel (make kernel)"

args=() guest=() s=2000
for spec in "${disks[@]}"; do
	IFS=: read -r name type dev <<<"$spec"
	rm -f "$dir/$name.img"; truncate -s "$bytes" "$dir/$name.img"
	args+=(--disk "$dir/$name.img:$type")
	guest+=("$name:$dev:$s")
	s=$((s + 100000))
done
label=$mode
out=$logs/$label.out
run_stage --watch "$logs/$label-console.log" \
	"stress: $mode (${secs}s, $threads threads, -smp $smp, ${kernel#"$ROOT"/}, $((bytes >> 20)) MiB per pass on ${disks[*]%%:*})" \
scripts/vm-run.sh --kernel "$kernel" --mem 1G --smp "$smp" --timeout "$timeout" --append "$append" \
	--file "$tool" --file tests/stress/guest.sh --file tests/ktap_helpers.sh --console "$logs/$label-console.log" \
	--qemu-cmd "$logs/$label.qemu-cmd" "${args[@]}" -- \
	"${env[*]} sh guest.sh $bytes ${guest[*]}" >"$out" 2>"$logs/$label.err"
rc=$?
# the guest's cases become this stream's, its other lines "# " lines
ktap_header stress
ktap_relay "$out" || ktap_check 0 "the guest did not finish"
[[ $rc -eq 0 ]] || sed 's/^/# vm-run: /' "$logs/$label.err"
if [[ $rc -eq 0 ]]; then
	ktap_check 1 "vm-run exit status 0"
else
	ktap_check 0 "vm-run exit status $rc"
fi
echo "# $SECONDS seconds"
echo "stress-result $label $KTAP_CNT_PASS $KTAP_CNT_FAIL"
ktap_finish
