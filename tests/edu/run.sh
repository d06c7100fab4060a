#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Coherent and streaming DMA below a 28-bit mask on a real (emulated)
# device: QEMU's edu, whose DMA engine masks every address with 28 bits.
# For each setting, boot with 1 GiB and "-device edu", read
# /sys/kernel/debug/maskalloc_edu/run (drivers/misc/maskalloc_edu.c: coherent
# buffers of 1 byte to 4 pages, a pattern copied through the device and
# back, every byte compared) and check its report, /proc/vmstat and what
# QEMU reported about the device: QEMU 7.2's edu prints "EDU: clamping DMA"
# on its stdout, later versions log it as a guest error (-d guest_errors).
# Then read .../stream: streaming maps (dma_map_single/page, all three
# directions, sub-range syncs) of buffers above 256 MiB.  With dmatlb=on
# (the default) swiotlb bounces them through the mask pool, so every map
# succeeds below 2^28 and every byte arrives.  With dmatlb=off (stock
# 6.12) a 1 GiB guest has no swiotlb at all, so every map must fail with
# DMA_MAPPING_ERROR and dma-direct warns once "DMA addr ... overflow": only
# our path can serve this device.  DMA-API debugging must count no error.
# Needs a kernel with CONFIG_MASKALLOC_EDU (make kernel).
# EDU_DEVICE_ARGS (e.g. ",dma_mask=0xfffff") is appended to "-device edu"
# to check that the test catches a device that cannot reach the buffers.
# Prints KTAP (tests/ktap_helpers.sh), the guest reports as "# " lines,
# and as its last line "edu: N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
vm=scripts/vm-run.sh
run=/sys/kernel/debug/maskalloc_edu/run
stream=/sys/kernel/debug/maskalloc_edu/stream
mask=$((0xfffffff))
# the streaming cases of drivers/misc/maskalloc_edu.c, three mappings each
stream_cases=14
. tests/ktap_helpers.sh
check() { ktap_check "$2" "$1" "${3:-}"; } # name ok(1/0) [detail]
ktap_header edu
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# key VALUE from "key: value" lines of a file; empty when absent
get() { sed -n "s/^$1: //p" "$2" | tail -n1; }
vmstat() { sed -n "s/^$1 $2 //p" "$3" | tail -n1; } # before|after counter file
# after - before of a counter; empty when the kernel does not have it
delta() {
	local a b
	a=$(vmstat after "$1" "$2") b=$(vmstat before "$1" "$2")
	[[ -n $a && -n $b ]] && echo $((a - b))
}

# name|kernel parameters|streaming: pass (dmatlb bounces), fail (no
# swiotlb: every map must fail) or empty (not run).  With "force" in the
# parameters every coherent buffer must come from the pool.  The default
# pool is all free memory below 16 MiB; the zones are tried first.  With
# "force" the pool is the only source.
settings=(
	"default||pass"
	"force|maskzone=force|pass"
	"64M,force|maskzone=64M,force|pass"
	"dmatlb=off|dmatlb=off|fail"
)
for s in "${settings[@]}"; do
	IFS='|' read -r name append smode <<<"$s"
	out=$tmp/$KTAP_TESTNO.out qlog=$tmp/$KTAP_TESTNO.qemu.log qout=$tmp/$KTAP_TESTNO.qemu.out con=$tmp/$KTAP_TESTNO.console
	: >"$qlog"; : >"$qout"
	scmd=:
	if [[ -n $smode ]]; then
		scmd="if [ -e $stream ]; then cat $stream; else echo 'error: no $stream'; fi"
		# stock dma-direct warns once when it cannot map: declare it
		[[ $smode == fail ]] &&
			scmd="echo 'vm-run: expect-warning: kernel/dma/direct\\.h' >/dev/kmsg; $scmd"
	fi
	run_stage --watch "$con" "edu: boot $name" \
	$vm --mem 1G --timeout 300 --append "kunit.enable=0 $append" \
		--qemu-args "-device edu${EDU_DEVICE_ARGS:-} -d guest_errors -D $qlog" \
		--qemu-output "$qout" --console "$con" -- \
		"grep -E '^(mask_|swiotlb_)' /proc/vmstat | sed 's/^/before /'
		 if [ -e $run ]; then cat $run; else echo 'error: no $run'; fi
		 $scmd
		 echo \"dma_api_errors: \$(cat /sys/kernel/debug/dma-api/error_count)\"
		 b=/sys/kernel/debug/mask_alloc/bounce
		 [ -e \$b ] && sed 's/^/bounce_/; s/ /: /' \$b
		 grep -E '^(mask_|swiotlb_)' /proc/vmstat | sed 's/^/after /'" >"$out" 2>"$tmp/err"
	rc=$?
	sed 's/^/# /' "$out"
	[[ $rc -eq 0 ]] || sed 's/^/# vm-run: /' "$tmp/err"
	cat "$qlog" "$qout" | sed 's/^/# qemu: /'

	check "$name: vm-run exit status 0" "$([[ $rc -eq 0 ]] && echo 1)" "exit $rc"
	dev=$(get device "$out")
	check "$name: the edu device is bound and reports" \
		"$([[ -n $dev && -n $(get result "$out") ]] && echo 1)" \
		"$(grep -m1 '^error:' "$out" || echo 'no report')"
	cmask=$(get coherent_dma_mask "$out")
	check "$name: coherent DMA mask is 28 bits" \
		"$([[ $cmask == 0xfffffff ]] && echo 1)" "got '${cmask:-none}'"

	bufs=$(get buffers "$out") checked=$(get bytes_checked "$out")
	mism=$(get mismatches "$out") oom=$(get out_of_mask "$out")
	maxa=$(get max_dma_addr "$out") inpool=$(get in_pool "$out")
	# the bytes the report's buffer lines add up to
	want=$(sed -n 's/^buffer[0-9]*: size \([0-9]*\) src .*/\1/p' "$out" | awk '{s += $1} END {print s + 0}')
	check "$name: every byte came back ($checked of $want bytes, ${mism:-?} mismatches)" \
		"$([[ -n $checked && $checked -gt 0 && $checked == "$want" && $mism == 0 ]] && echo 1)"
	check "$name: at least 8 buffer pairs, all within 28 bits (max_dma_addr ${maxa:-?})" \
		"$([[ -n $bufs && $bufs -ge 16 && $oom == 0 && -n $maxa && $((maxa)) -le $mask ]] && echo 1)" \
		"buffers ${bufs:-?}, out_of_mask ${oom:-?}"
	check "$name: QEMU reported no clamping and no EDU error" \
		"$(! cat "$qlog" "$qout" | grep -qiE 'clamping|EDU:' && echo 1)" \
		"$(cat "$qlog" "$qout" | grep -m1 -iE 'clamping|EDU:')"

	# Every coherent buffer went through the mask allocator: from the pool
	# (mask_alloc) or, when allowed, from the zones (mask_higher).
	a0=$(vmstat before mask_alloc "$out") a1=$(vmstat after mask_alloc "$out")
	h0=$(vmstat before mask_higher "$out") h1=$(vmstat after mask_higher "$out")
	f0=$(vmstat before mask_free "$out") f1=$(vmstat after mask_free "$out")
	da=$((${a1:-0} - ${a0:-0})) dh=$((${h1:-0} - ${h0:-0})) df=$((${f1:-0} - ${f0:-0}))
	check "$name: the mask allocator served every buffer (mask_alloc +$da, mask_higher +$dh)" \
		"$([[ -n $bufs && -n $a1 && $((da + dh)) -ge $bufs ]] && echo 1)"
	if [[ $append == *force* ]]; then
		check "$name: every buffer from the pool and back (in_pool ${inpool:-?}, mask_free +$df)" \
			"$([[ -n $bufs && $inpool == "$bufs" && $da -ge $bufs && $df -ge $bufs ]] && echo 1)"
	fi
	check "$name: the driver reports pass" "$([[ $(get result "$out") == pass ]] && echo 1)"
	derr=$(get dma_api_errors "$out")
	check "$name: DMA-API debugging counted no error (error_count ${derr:-?})" \
		"$([[ $derr == 0 ]] && echo 1)"

	[[ -n $smode ]] || continue
	# streaming maps of memory above 256 MiB
	smaps=$(get stream_maps "$out") serr=$(get stream_map_errors "$out")
	soom=$(get stream_out_of_mask "$out") sphys=$(get stream_min_phys "$out")
	smax=$(get stream_max_dma_addr "$out") schecked=$(get stream_bytes_checked "$out")
	smism=$(get stream_mismatches "$out") ssync=$(get stream_sync_mismatches "$out")
	sres=$(get stream_result "$out")
	swant=$(sed -n 's/^stream[0-9]*: size \([0-9]*\) offset .*/\1/p' "$out" | awk '{s += 3 * $1} END {print s + 0}')
	nmaps=$((3 * stream_cases))
	overflow=$(grep -c 'DMA addr .* overflow' "$con")
	sa=$(delta swiotlb_num_allocs "$out") sf=$(delta swiotlb_num_frees "$out")
	check "$name: stream: every buffer lies above 256 MiB (lowest ${sphys:-?})" \
		"$([[ -n $sphys && $((sphys)) -gt $mask && $sphys != 0xffffffffffffffff ]] && echo 1)"
	if [[ $smode == pass ]]; then
		check "$name: stream: all $nmaps mappings succeeded (maps ${smaps:-?}, errors ${serr:-?})" \
			"$([[ $smaps == "$nmaps" && $serr == 0 ]] && echo 1)"
		check "$name: stream: every DMA address below 2^28 (highest ${smax:-?}, out of mask ${soom:-?})" \
			"$([[ $soom == 0 && -n $smax && $((smax)) -gt 0 && $((smax)) -le $mask ]] && echo 1)"
		check "$name: stream: every byte came back (${schecked:-?} of $swant bytes, ${smism:-?} mismatches, ${ssync:-?} after sync_for_cpu)" \
			"$([[ -n $schecked && $schecked -gt 0 && $schecked == "$swant" && $smism == 0 && $ssync == 0 ]] && echo 1)"
		check "$name: stream: the driver reports pass" "$([[ $sres == pass ]] && echo 1)"
		check "$name: stream: dma-direct did not warn of an overflow" "$([[ $overflow == 0 ]] && echo 1)"
		check "$name: stream: the mask pool bounced every map and freed it (swiotlb_num_allocs +${sa:-?}, frees +${sf:-?})" \
			"$([[ -n $sa && $sa -ge $nmaps && $sa == "$sf" ]] && echo 1)"
		inuse=$(get bounce_in_use_maps "$out")
		check "$name: stream: no bounce mapping left (in_use_maps ${inuse:-?})" \
			"$([[ $inuse == 0 ]] && echo 1)"
	else
		check "$name: stream: every mapping failed: only dmatlb can serve it (maps ${smaps:-?}, errors ${serr:-?})" \
			"$([[ $smaps == "$nmaps" && $serr == "$nmaps" && $schecked == 0 && $sres == fail ]] && echo 1)"
		check "$name: stream: dma-direct warned once of an overflow (${overflow} warnings)" \
			"$([[ $overflow == 1 ]] && echo 1)"
		check "$name: stream: nothing went through the mask pool (swiotlb_num_allocs +${sa:-?})" \
			"$([[ ${sa:-0} == 0 ]] && echo 1)"
	fi
done

ktap_finish
