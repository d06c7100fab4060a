#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make test`: everything the project has, one line per suite, then
# "tooling: N passed, N failed" and "kernel: N passed, N failed" (the
# tooling's own self-tests, ktap-parser, lib and vm-run, and all the
# rest; when the run had any of the former), and as the last line "N
# passed, N failed", the sum (", N skipped" when any were skipped).
# Exits non-zero on any failure.  Every test prints KTAP
# (tests/ktap_helpers.sh, tests/ktap_out.py); scripts/ktap.py tap
# validates its log and gives its counts.
#   1. the KTAP parser's own tests (tests/ktap); the stage runner's
#      (tests/lib, scripts/lib.sh's run_stage)
#   2. userspace harnesses under build/linux/tools/testing/*/ (each prints
#      "<name>: N passed, N failed" as its last line)
#   3. the kernel: prepare, configure, build; vm-run's self-tests
#      (tests/vmrun), coherent DMA on QEMU's edu device (tests/edu), the
#      trace events, /proc/meminfo and the timeout sysctl (tests/trace), the
#      atomic reserve below each mask in a 64 MiB pool (tests/reserve), the
#      holders of pool memory by call site and device (tests/holders),
#      lending the idle pool to a filler's page cache and anonymous memory
#      and taking it back (tests/lend), a
#      64-page waiter served in order in a churn of small requests, with
#      fairness on and off (tests/fair; not in the debug profile) and
#      disk I/O bounced by swiotlb with dmatlb=off and on (tests/disk, one
#      line per device and mode); the pool stress beside disk I/O, then
#      exhaustion and recovery (tests/stress, one boot of about 20 s);
#      boots without a pool, with maskzone= clamped, a memory offline
#      of pool blocks, and dmatlb's growth and swiotlb_exit() (tests/boot);
#      an untrusted device behind an Intel IOMMU on q35, bouncing through
#      dma-iommu and dmatlb's pools (tests/iommu); 8 CPUs on 2 NUMA nodes
#      with virtio-blk, NVMe and the 28-bit edu device bouncing at once
#      under swiotlb=force, swiotlb=262144 and 524288, and 60 idle seconds
#      without shrink work (tests/machines);
#      boot under QEMU with 5 GiB (8 CPUs on 2 nodes in the normal
#      profile), KUnit suites run at boot, KTAP parsed
#      from the console log; in the same boot, a smoke check of the mask
#      pool microbenchmark in debugfs (tests/pool-bench/smoke.sh)
#   4. with SLOW=1 (CI does) or T=nomask: the tree without the mask
#      allocator (build/obj-nomask), booted
#
# PROFILE=debug (make test PROFILE=debug) is the debug profile instead: the
# parser tests, then a kernel with configs/debug.config (KASAN, lockdep,
# DEBUG_VM, DEBUG_PAGEALLOC, PAGE_OWNER, DMA-API debugging) in
# build/obj-debug, every boot with init_on_free=1 debug_pagealloc=on
# page_owner=on; the edu, disk and KUnit tests in it, and checks that the
# debug options really are on.  Any KASAN, lockdep, bad page or DMA-API
# report fails the boot (scripts/ktap.py scan).  Logs in build/test-debug/.
#
# PROFILE=distro is the distro profile: the parser tests, then a kernel
# built from Debian's amd64 configuration (scripts/configure.sh with
# KCONFIG_BASE=distro: localyesconfig with configs/distro.lsmod, the test
# fragments and configs/distro.config) in build/obj-distro; every boot with
# 2 CPUs on 2 NUMA nodes (VMRUN_SMP, VMRUN_NUMA); the edu, disk, stress and
# KUnit tests in it, the mm-stress test (tests/mm-stress: compaction, THP,
# memory offlining, the pool stress and disk I/O at once), and checks that
# the guest really has 2 nodes, 2 CPUs, dynamic preemption and THP.  Logs in
# build/test-distro/.
#
# T="PATTERN..." (make test T=lend, T="kunit*") runs only the tests whose
# name matches one of the shell patterns, building the kernel only when one
# of them boots it; LIST=1 prints the profile's tests, name and what each
# covers, and runs nothing.  A T that matches nothing is an error.
#
# Every stage prints "==> what (log: file)" when it starts, a line every
# minute while it runs ("... still running, N min, <the log's last line>")
# and "what: done in N s" or "what: FAILED after N s (...), see <log>" when
# it ends, on stderr; V=1 streams each stage's output as well.  No test
# waits longer than TEST_TIMEOUT seconds (900) for a hang: its stage is
# stopped then and fails, naming its log; every guest boot gives up a
# minute earlier (VMRUN_MAX_TIMEOUT), so that vm-run says which one.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

profile=${PROFILE:-normal}
out=$BUILD/test
# no_timer_check, in both profiles: the slow early boot under TCG on a busy
# host can fail the IO-APIC timer check ("IO-APIC + timer doesn't work!"
# panic); the test kernels all have an IO-APIC.
export VMRUN_APPEND="no_timer_check ${VMRUN_APPEND:-}"
case $profile in
normal) ;;
debug)
	out=$BUILD/test-debug
	export OBJ=$BUILD/obj-debug
	export EXTRA_CONFIG="configs/debug.config ${EXTRA_CONFIG:-}"
	# watchdog_thresh=60: a soft lockup after 120 s, not 20: with KASAN
	# and lockdep, stop_machine() at boot takes 26-60 s on 4 vCPUs of a
	# busy two-core TCG host (the first CI run with kernel/configs/
	# debug.config), a lockup that is the host's, not the kernel's
	export VMRUN_APPEND="init_on_free=1 debug_pagealloc=on page_owner=on watchdog_thresh=60 $VMRUN_APPEND"
	# KASAN, lockdep and init_on_free make every boot several times slower
	export VMRUN_TIMEOUT_SCALE=${VMRUN_TIMEOUT_SCALE:-4}
	;;
distro)
	out=$BUILD/test-distro
	export OBJ=$BUILD/obj-distro
	export KCONFIG_BASE=distro
	export VMRUN_SMP=2 VMRUN_NUMA=2
	# a larger kernel on two emulated CPUs: boots take longer
	export VMRUN_TIMEOUT_SCALE=${VMRUN_TIMEOUT_SCALE:-2}
	;;
*) die "PROFILE=$profile: want normal, debug or distro" ;;
esac
export TEST_OUT=$out
limit=${TEST_TIMEOUT:-900}
[[ $limit =~ ^[1-9][0-9]*$ && $limit -gt 60 ]] || die "TEST_TIMEOUT=$limit: want seconds, more than 60"
export VMRUN_MAX_TIMEOUT=${VMRUN_MAX_TIMEOUT:-$((limit - 60))}
mkdir -p "$out"
results=$out/results
[[ ${LIST:-} == 1 || ${BUILD_ONLY:-} == 1 ]] || : >"$results"
# record NAME PASSED FAILED [SKIPPED [tooling]]: a line of $results
# (.ci/run sums its fields 2-4); "tooling" marks the tooling's own
# self-tests (ktap-parser, lib, vm-run), counted apart at the end
record() { echo "$1 $2 $3 ${4:-0}${5:+ $5}" >>"$results"; }
line() { # name passed failed skipped
	local v="ok  "; [[ $3 -gt 0 ]] && v="FAIL"
	printf '%s %-36s %d passed, %d failed%s\n' "$v" "$1" "$2" "$3" "$([[ ${4:-0} -gt 0 ]] && echo ", $4 skipped")"
}

# select_test NAME WHAT: is test NAME part of this run?  T="PATTERN..."
# (make test T=...) keeps the tests whose name matches one of the shell
# patterns; LIST=1 prints "NAME  WHAT" instead and runs nothing.
selected=0
select_test() {
	local pat
	if [[ ${LIST:-} == 1 ]]; then printf '%-18s %s\n' "$1" "$2"; return 1; fi
	if [[ -n ${T:-} ]]; then
		for pat in $T; do
			# shellcheck disable=SC2053 # a pattern on purpose
			[[ $1 == $pat ]] && { selected=$((selected + 1)); return 0; }
		done
		return 1
	fi
	selected=$((selected + 1))
}

# kernel_ready: build the profile's kernel once, before the first test
# that boots it; a failed build is recorded once and fails every later call.
kstate=
kernel_ready() {
	if [[ -z $kstate ]]; then
		kstate=failed
		build_kernel kernel && kstate=ok
	fi
	[[ $kstate == ok ]]
}

# tap LOG: p, f and s (the caller's) from the KTAP stream that a test
# printed to LOG (tests/ktap_helpers.sh, tests/ktap_out.py), as
# scripts/ktap.py tap validates it: the last stream of LOG, numbered
# results, its plan, Totals and summary lines.  A stream that fails the
# validation (no header, no plan: a test that died midway, zero cases, a
# count that disagrees) counts at least one failure, and its problems are
# shown on stderr; the status is then 1.
tap() {
	local r rc
	r=$(python3 "$ROOT/scripts/ktap.py" tap "$1" 2>"$out/ktap-tap.err"); rc=$?
	read -r p f s <<<"$r"
	[[ $p =~ ^[0-9]+$ && $f =~ ^[0-9]+$ && $s =~ ^[0-9]+$ ]] || { p=0 f=0 s=0 rc=1; }
	[[ $rc -eq 0 ]] && return 0
	[[ $f -gt 0 ]] || f=1
	if [[ -s $out/ktap-tap.err ]]; then sed 's/^/KTAP: /' "$out/ktap-tap.err" >&2
	else echo "KTAP: scripts/ktap.py tap $1 failed (exit $rc)" >&2; fi
	return 1
}

# run_test [--kernel] [--tooling] NAME WHAT [CMD...]: CMD (default
# tests/NAME/run.sh) as a stage, logged to $out/NAME.log; its KTAP stream
# gives the counts (tap), a failing exit counts at least one failure, and
# its "not ok" lines and vm-run or qemu complaints are shown when it
# fails.  --kernel: it boots the profile's kernel (built first:
# kernel_ready).  --tooling: one of the tooling's own self-tests.
run_test() {
	local kernel=0 tooling='' name what rc p f s
	while :; do
		case $1 in
		--kernel) kernel=1 ;;
		--tooling) tooling=tooling ;;
		*) break ;;
		esac
		shift
	done
	name=$1 what=$2
	shift 2
	select_test "$name" "$what" || return 0
	[[ $kernel == 1 ]] && { kernel_ready || return 0; }
	[[ $# -gt 0 ]] || set -- "$ROOT/tests/$name/run.sh"
	run_stage --log "$out/$name.log" --timeout "$limit" "test: $what" "$@"
	rc=$?
	tap "$out/$name.log"
	[[ $rc -ne 0 && $f -eq 0 ]] && f=1
	[[ $f -gt 0 ]] && { grep -aE '^not ok|^# (vm-run|qemu): ' "$out/$name.log" || tail -n 20 "$out/$name.log"; } >&2
	record "$name" "$p" "$f" "$s" $tooling; line "$name" "$p" "$f" "$s"
}

# 1. parser tests
# build_kernel LABEL: prepare, configure and build; record a failure.
# Configure and build hold $OBJ.lock: a build of the same $OBJ in the
# background (BUILD_ONLY=1, as .ci/run starts one) is waited for, and then
# found up to date.
build_kernel() {
	local step
	for step in ensure-deps prepare-tree configure build-kernel; do
		if [[ $step == configure || $step == build-kernel ]]; then
			(
				exec 9>"$OBJ.lock"
				flock -n 9 || { info "waiting for the other build of ${OBJ#"$ROOT"/} (its log: ${OBJ#"$ROOT"/}.build.log)"; flock 9; }
				"$ROOT/scripts/$step.sh"
			) && continue
		else
			"$ROOT/scripts/$step.sh" && continue
		fi
		record "$1:$step" 0 1 0; line "$1:$step" 0 1
		return 1
	done
}

# BUILD_ONLY=1: build the profile's kernel (the normal profile's with
# SLOW=1 also the one without the mask allocator), run no test and record
# nothing.  .ci/run builds the later profiles' kernels so, in the
# background, while the normal profile's tests run.
if [[ ${BUILD_ONLY:-} == 1 ]]; then
	record() { :; }
	line() { :; }
	rc=0
	build_kernel "$profile" || rc=1
	if [[ $profile == normal && ${SLOW:-} == 1 ]]; then
		OBJ=$BUILD/obj-nomask EXTRA_CONFIG="configs/no-maskalloc.config ${EXTRA_CONFIG:-}" build_kernel nomask || rc=1
	fi
	exit $rc
fi

if select_test ktap-parser "the KTAP parser's own tests (tests/ktap)"; then
run_stage --watch "$out/ktap-unittest.log" --timeout "$limit" "test: KTAP parser (tests/ktap)" \
	python3 - "$ROOT/tests/ktap" "$out/ktap-unittest.log" <<'PY' >"$out/ktap.counts"
import sys, unittest
suite = unittest.defaultTestLoader.discover(sys.argv[1], pattern='test_*.py')
with open(sys.argv[2], 'w') as log:
    r = unittest.TextTestRunner(stream=log, verbosity=2).run(suite)
bad = len(r.failures) + len(r.errors) + len(r.unexpectedSuccesses)
print(r.testsRun - bad - len(r.skipped), bad, len(r.skipped))
PY
read -r p f s <"$out/ktap.counts" || { p=0 f=1 s=0; }
[[ $f -gt 0 ]] && grep -E '(FAIL|ERROR)' "$out/ktap-unittest.log" | head >&2
record ktap-parser "$p" "$f" "$s" tooling; line ktap-parser "$p" "$f" "$s"
fi

# the stage runner of scripts/lib.sh that every stage here uses (tests/lib)
[[ $profile == normal ]] && run_test --tooling lib "stage runner self-tests (tests/lib)"

# 2. userspace harnesses (they do not depend on the kernel's profile)
# They live in the series, so the tree is prepared first.  The fuzz corpus
# stays in this repository (tests/fuzz-corpus), out of the kernel tree.
[[ $profile == normal && ${LIST:-} != 1 ]] && { "$ROOT/scripts/prepare-tree.sh" || exit 1; }
# the series' Kconfig as kconfig resolves it (tests/kconfig, no build)
[[ $profile == normal ]] && run_test kconfig "the series' Kconfig dependencies and KUnit-only exports (tests/kconfig)"
# shellcheck disable=SC2043 # one Makefile or none: a loop for continue and break
for mk in "$TREE"/tools/testing/mask_alloc/Makefile; do
	[[ $profile == normal ]] || break
	[[ -f $mk || ${LIST:-} == 1 ]] || continue
	dir=$(dirname "$mk") name=harness:$(basename "$(dirname "$mk")")
	select_test "$name" "the userspace harness, ASan/UBSan, fuzz corpus (tools/testing/mask_alloc)" || continue
	run_stage --log "$out/${name#harness:}.log" --timeout "$limit" \
		"test: userspace harness ${dir#"$ROOT"/} (corpus tests/fuzz-corpus)" \
		make -s -C "$dir" FUZZ_CORPUS="$ROOT/tests/fuzz-corpus" ENSURE_DEPS="$ROOT/scripts/ensure-deps.sh" test
	rc=$?
	last=$(grep -E ': [0-9]+ passed, [0-9]+ failed' "$out/${name#harness:}.log" | tail -n1)
	if [[ $last =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)? ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[4]:-0}
	else
		p=0 f=0 s=0
	fi
	if [[ $rc -ne 0 && $f -eq 0 ]]; then f=1; fi
	[[ $f -gt 0 ]] && tail -n 30 "$out/${name#harness:}.log" >&2
	record "$name" "$p" "$f" "$s"; line "$name" "$p" "$f" "$s"
done

# 3. the kernel and its KUnit suites
# kunit_boot LABEL [pool-bench]: boot build/obj's kernel with 5 GiB, parse
# KUnit, check that every suite left its results in debugfs.  With
# "pool-bench", the same boot then runs the smoke check of the mask pool
# microbenchmark (tests/pool-bench/smoke.sh).  Extra boot parameters
# (KUNIT_APPEND) go on the command line.
kunit_boot() {
	local label=$1 smoke=${2:-} log=$out/$1-console.log rc name s p f
	local cmd='ls /sys/kernel/debug/kunit/ | sed "s/^/kunit debugfs: /"' files=()
	if [[ $smoke == pool-bench ]]; then
		cmd+='; sh smoke.sh'
		files=(--file "$ROOT/tests/pool-bench/smoke.sh" --file "$ROOT/tests/ktap_helpers.sh")
	fi
	[[ $profile == debug ]] && cmd+="; $profile_cmd"
	[[ $profile == distro ]] && cmd+="; $distro_cmd"
	# shellcheck disable=SC2086 # KUNIT_SMP holds several options: split on purpose
	run_stage --watch "$log" --timeout "$limit" "test: KUnit suites at boot ($label, -m 5G)${smoke:+, then $smoke}" \
		"$ROOT/scripts/vm-run.sh" --kernel "$OBJ/arch/x86/boot/bzImage" --mem 5G ${KUNIT_SMP:-} --timeout 600 --console "$log" \
		${KUNIT_APPEND:+--append "$KUNIT_APPEND"} "${files[@]}" -- "$cmd" >"$out/$label-vm-run.out" 2>&1
	rc=$?
	if [[ $rc -ne 0 ]]; then
		cat "$out/$label-vm-run.out" >&2
		record "$label:vm-run" 0 1 0; line "$label:vm-run (exit $rc)" 0 1
	fi
	: >"$out/$label.results"
	python3 "$ROOT/scripts/ktap.py" parse "$log" --results "$out/$label.results" --vmlinux "$OBJ/vmlinux" --tree "$TREE" | sed "s/kunit: /$label: /"
	while read -r name p f s; do
		echo "$label:${name#kunit:} $p $f $s" >>"$results"
		s=${name#kunit:}
		[[ $s == "<log>" ]] && continue
		grep -q "kunit debugfs: $s\$" "$out/$label-vm-run.out" ||
			{ record "$label-debugfs:$s" 0 1 0; line "$label-debugfs:$s (missing)" 0 1; }
	done <"$out/$label.results"
	[[ -n $smoke ]] || return 0
	# the smoke check's KTAP stream is the last one of the guest's output
	tap "$out/$label-vm-run.out"
	[[ $f -gt 0 ]] && grep -a -E '^(not ok|pool-bench: )' "$out/$label-vm-run.out" >&2
	record "$label:pool-bench" "$p" "$f" "$s"; line "$label:pool-bench" "$p" "$f" "$s"
}

# bad_params LABEL: the messages for the malformed parameters of the boot,
# and the pool and dmatlb set up as by default.
bad_params() {
	local log=$out/$1-console.log p=0 f=0 re
	for re in \
		'mask_alloc: invalid maskzone=junk .*; keeping the default pool' \
		'mask_alloc: invalid maskzone_reserve=junk .*; keeping the default reserve' \
		'mask_lend: maskzone_lend=junk: expected on or off; lending stays on' \
		'dmatlb: dmatlb=junk not understood \(use on or off\), keeping on' \
		'FAULT_INJECTION: failed to parse arguments' \
		'software IO TLB: swiotlb= not understood \(use <slabs>\[,<areas>\]\[,force\|noforce\]\), ignored' \
		'software IO TLB: swiotlb=junk not understood' \
		'software IO TLB: swiotlb=100000000000 slabs \([0-9]+ MB\) is larger than memory \([0-9]+ MB\); keeping the default size' \
		'mask_alloc: pool 0x[0-9a-f]+-0x[0-9a-f]+ \([0-9]+ KiB' \
		'dmatlb: default pool \[mem 0x[0-9a-f]+-0x[0-9a-f]+\] \(64MB\) from the mask pool'; do
		if grep -Eq "$re" "$log"; then p=$((p + 1)); else f=$((f + 1)); echo "missing in $log: $re" >&2; fi
	done
	record "$1:bad-boot-params" "$p" "$f" 0; line "$1:bad-boot-params" "$p" "$f"
}


# The debug profile: what the guest reports of its debug options (run in
# the KUnit boot), and what its console must show.
# shellcheck disable=SC2016 # run by the guest's shell
profile_cmd='grep -E "^DirectMap(4k|2M|1G):" /proc/meminfo | sed "s/^/profile: /"
	[ -e /sys/kernel/debug/page_owner ] && echo "profile: page_owner: on"
	echo "profile: dma-api disabled: $(cat /sys/kernel/debug/dma-api/disabled)"
	sed -n "s/^ *\(lock-classes\|debug_locks\): */profile: lockdep \1: /p" /proc/lockdep_stats'
pget() { sed -n "s/^profile: $1: *//p" "$2" | tail -n1; }
pcheck() { # name(no spaces) detail ok(1/0)
	if [[ $3 == 1 ]]; then
		record "profile:$1" 1 0 0; line "profile:$1 ($2)" 1 0
	else
		record "profile:$1" 0 1 0; line "profile:$1 ($2)" 0 1
	fi
}
# profile_checks LABEL: every debug option is on in that boot
profile_checks() {
	local v=$out/$1-vm-run.out con=$out/$1-console.log k dl lc m4 m2 m1
	stage "test: the debug options are on (the $1 boot)"
	k=$(grep -c 'KernelAddressSanitizer initialized' "$con")
	pcheck kasan "initialized: $k" "$([[ $k -ge 1 ]] && echo 1)"
	dl=$(pget 'lockdep debug_locks' "$v") lc=$(pget 'lockdep lock-classes' "$v")
	lc=${lc%% *}
	pcheck lockdep "debug_locks ${dl:-?}, ${lc:-?} lock classes" \
		"$([[ $dl == 1 && $lc =~ ^[0-9]+$ && $lc -gt 0 ]] && grep -q 'Lock dependency validator' "$con" && echo 1)"
	pcheck init_on_free "$(grep -m1 -o 'heap free:[a-z]*' "$con")" \
		"$(grep -q 'mem auto-init: .*heap free:on' "$con" && echo 1)"
	# debug_pagealloc maps all memory with 4 KiB pages (no DirectMap1G
	# line without gbpages)
	m4=$(pget DirectMap4k "$v") m2=$(pget DirectMap2M "$v") m1=$(pget DirectMap1G "$v")
	pcheck debug_pagealloc "DirectMap4k ${m4:-?}, 2M ${m2:-?}, 1G ${m1:-none}" \
		"$([[ $m4 =~ ^[1-9][0-9]*\ kB$ && $m2 == '0 kB' && ${m1:-0 kB} == '0 kB' ]] && echo 1)"
	pcheck page_owner "debugfs page_owner: $(pget page_owner "$v")" "$([[ $(pget page_owner "$v") == on ]] && echo 1)"
	pcheck dma_api_debug "disabled: $(pget 'dma-api disabled' "$v")" \
		"$([[ $(pget 'dma-api disabled' "$v") == N ]] && echo 1)"
}

# The distro profile: what the guest reports of its machine and kernel (run
# in the KUnit boot).
# shellcheck disable=SC2016 # run by the guest's shell
distro_cmd='echo "profile: nodes: $(ls -d /sys/devices/system/node/node[0-9]* | wc -l)"
	echo "profile: cpus: $(grep -c ^processor /proc/cpuinfo)"
	echo "profile: preempt: $(cat /sys/kernel/debug/sched/preempt 2>/dev/null)"
	echo "profile: thp: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
	echo "profile: memory blocks: $(ls -d /sys/devices/system/memory/memory[0-9]* 2>/dev/null | wc -l)"
	echo "profile: zone dma: $(grep -c "zone *DMA\$" /proc/zoneinfo)"'
# distro_checks LABEL: the distro kernel's machine in that boot
distro_checks() {
	local v=$out/$1-vm-run.out x
	stage "test: the distro kernel's machine (the $1 boot)"
	x=$(pget nodes "$v"); pcheck numa-nodes "$x nodes" "$([[ $x == 2 ]] && echo 1)"
	x=$(pget cpus "$v"); pcheck smp "$x CPUs" "$([[ $x == 2 ]] && echo 1)"
	x=$(pget preempt "$v"); pcheck preempt-dynamic "${x:-?}" "$([[ $x == *'('*')'* ]] && echo 1)"
	x=$(pget thp "$v"); pcheck thp "${x:-?}" "$([[ $x == *'['*']'* ]] && echo 1)"
	x=$(pget 'memory blocks' "$v"); pcheck memory-hotplug "${x:-?} memory blocks" "$([[ $x =~ ^[1-9] ]] && echo 1)"
	x=$(pget 'zone dma' "$v"); pcheck no-zone-dma "${x:-?} DMA zones" "$([[ $x == 0 ]] && echo 1)"
}

# the kernel's tests, each after kernel_ready
[[ $profile == normal ]] && run_test --kernel --tooling vm-run "vm-run self-tests (tests/vmrun)" "$ROOT/tests/vmrun/run.sh"
run_test --kernel edu "coherent DMA below 28 bits on QEMU's edu device (tests/edu)"
run_test --kernel trace "mask_alloc trace events, /proc/meminfo and the timeout sysctl (tests/trace)"
run_test --kernel reserve "the atomic reserve below each mask, its sysctl (tests/reserve)"
run_test --kernel holders "who holds the pool: debugfs holders against the summary, the edu device (tests/holders)"
run_test --kernel lend "lending the idle pool: borrowers, take-back below 2^32, 2^30, 2^24, data, offline, the switch (tests/lend)"
# A timing bound: not on the debug kernel, whose checks slow the churn.
[[ $profile != debug ]] &&
	run_test --kernel fair "fair waiters: a 64-page waiter in a churn, fairness on and off (tests/fair)"

if select_test disk "disk I/O bounced by swiotlb, dmatlb=off and on (tests/disk)" && kernel_ready; then
	run_stage --log "$out/disk.log" --timeout "$limit" "test: disk I/O bounced by swiotlb, dmatlb=off and on (tests/disk)" \
		"$ROOT/tests/disk/run.sh"
	rc=$?
	df=0
	# one line per device and mode: "disk-result NAME BYTES PASSED FAILED"
	while read -r _ name bytes p f1; do
		record "disk:$name" "$p" "$f1" 0
		line "disk:$name ($((bytes >> 20)) MiB)" "$p" "$f1"
		df=$((df + f1))
	done < <(grep '^disk-result ' "$out/disk.log")
	# the cases are counted there; the stream must still be whole
	if ! tap "$out/disk.log"; then
		record disk:ktap 0 1 0; line "disk (its KTAP output)" 0 1
		df=$((df + 1))
	elif [[ $rc -ne 0 && $df -eq 0 ]]; then
		tail -n 20 "$out/disk.log" >&2
		record disk 0 1 0; line "disk (exit $rc)" 0 1
	fi
	[[ $df -gt 0 ]] && grep -E '^not ok|^# qemu: ' "$out/disk.log" >&2
fi
# The debug kernel is SMP: its stress runs on 4 CPUs (tests/stress
# --stress), with AHCI as well, under KASAN and lockdep.
stress_args=()
[[ $profile == debug ]] && stress_args=(--stress 10 --kernel-obj "$OBJ")
[[ $profile == distro ]] && stress_args=(--kernel-obj "$OBJ")
run_test --kernel stress "pool stress beside disk I/O, exhaustion, recovery (tests/stress${stress_args:+ ${stress_args[*]}})" \
	"$ROOT/tests/stress/run.sh" "${stress_args[@]}"
if [[ $profile == normal ]]; then
	run_test --kernel boot "boots without a pool, with maskzone= clamped, memory offline (tests/boot)" \
		env KERNEL_OBJ="$OBJ" "$ROOT/tests/boot/run.sh"
	run_test --kernel iommu "untrusted device behind an Intel IOMMU bouncing through dmatlb (tests/iommu)" \
		env KERNEL_OBJ="$OBJ" "$ROOT/tests/iommu/run.sh"
	run_test --kernel machines "8 CPUs on 2 nodes with wide and narrow devices bouncing at once, swiotlb=262144/524288, idle shrink work (tests/machines)" \
		env KERNEL_OBJ="$OBJ" "$ROOT/tests/machines/run.sh"
fi
# The distro kernel has NUMA, THP, compaction and memory hot-remove:
# all of them at once beside the pool (tests/mm-stress).
[[ $profile == distro ]] &&
	run_test --kernel mm-stress "compaction, THP, memory offline, pool stress, disk I/O at once (tests/mm-stress)" \
		"$ROOT/tests/mm-stress/run.sh" --kernel-obj "$OBJ"
# Malformed values of the project's boot parameters ride along: each
# must be reported and change nothing (the suites see the default
# pool and dmatlb on; the pool and dmatlb lines are those of a boot
# without them).
# swiotlb: a bare "swiotlb", junk, and a size larger than memory.
# The normal profile runs the suites on 8 CPUs in 2 NUMA nodes: the
# threaded cases race for real, and swiotlb has 8 areas.
smp=
[[ $profile == normal ]] && smp="--smp 8 --numa 2"
if select_test kunit "KUnit suites at boot, malformed boot parameters, the microbenchmark's smoke check" &&
	kernel_ready; then
	KUNIT_APPEND="maskzone=junk maskzone_reserve=junk maskzone_lend=junk dmatlb=junk fail_mask_alloc=junk swiotlb swiotlb=junk swiotlb=100000000000" \
		KUNIT_SMP=$smp kunit_boot kunit pool-bench
	bad_params kunit
	[[ $profile == debug ]] && profile_checks kunit
	[[ $profile == distro ]] && distro_checks kunit
fi
# The mask_lend suite needs a pool that can lend blocks: a boot of its own.
if select_test kunit-lend "the mask_lend KUnit suite, maskzone=256M" && kernel_ready; then
	KUNIT_APPEND="kunit.filter_glob=mask_lend maskzone=256M" KUNIT_SMP=$smp kunit_boot lend
fi

# The same tree without the mask allocator must still build and boot
# (its own build/obj-nomask; ccache makes this cheap).
# A kernel of its own, which rarely breaks: with SLOW=1 (CI) or when T
# names it, not in a plain make test.
if [[ $profile == normal ]] && [[ ${SLOW:-0} == 1 || -n ${T:-} || ${LIST:-} == 1 ]] &&
	select_test nomask "the tree without the mask allocator builds and boots (build/obj-nomask; SLOW=1 or T=nomask)" &&
	OBJ=$BUILD/obj-nomask EXTRA_CONFIG="configs/no-maskalloc.config ${EXTRA_CONFIG:-}" build_kernel nomask; then
	OBJ=$BUILD/obj-nomask kunit_boot nomask
fi

[[ ${LIST:-} == 1 ]] && exit 0
[[ -n ${T:-} && $selected -eq 0 ]] && die "T=$T: no test of the $profile profile matches (make test LIST=1 lists them)"
# the tooling's own self-tests apart from the kernel's, then as the last
# line the grand total (the sum of both)
counts() { # [LABEL] PASSED FAILED SKIPPED
	local l=${1:+$1: }
	shift
	if [[ $3 -gt 0 ]]; then echo "$l$1 passed, $2 failed, $3 skipped"; else echo "$l$1 passed, $2 failed"; fi
}
read -r P F S TN TP TF TS < <(awk '{p += $2; f += $3; s += $4}
	$5 == "tooling" {tn++; tp += $2; tf += $3; ts += $4}
	END {print p+0, f+0, s+0, tn+0, tp+0, tf+0, ts+0}' "$results")
if [[ $TN -gt 0 ]]; then
	counts tooling "$TP" "$TF" "$TS"
	counts kernel $((P - TP)) $((F - TF)) $((S - TS))
fi
counts "" "$P" "$F" "$S"
[[ $F -eq 0 ]]
