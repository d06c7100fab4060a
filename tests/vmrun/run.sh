#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Self-tests of scripts/vm-run.sh against the built kernel: it must pass the
# command's status and output through, and fail on a crash, an undeclared
# WARNING and a timeout.  Needs a built kernel (make kernel).
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
# vm LABEL VM-RUN-ARGS...: one boot, as a stage (its progress on stderr)
vm() { local what=$1; shift; run_stage "vm-run: $what" scripts/vm-run.sh "$@"; }
. tests/ktap_helpers.sh
check() { # name expected-status actual-status [output-check]
	ktap_check "$([[ $2 == "$3" && ${4-1} == 1 ]] && echo 1)" "$1" "expected status $2, got $3"
}
ktap_header vm-run
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

out=$(vm "status (expects exit 7)" -- 'echo out-line; exit 7' 2>/dev/null); rc=$?
check "exit status and output pass through" 7 $rc "$([[ $out == out-line ]] && echo 1)"

out=$(vm "no newline (expects exit 3)" -- 'printf no-newline; exit 3' 2>/dev/null); rc=$?
check "output without a final newline still reports the status" 3 $rc "$([[ $out == no-newline ]] && echo 1)"

echo payload-42 >"$tmp/payload.txt"
out=$(vm "--file" --file "$tmp/payload.txt:/data/p.txt" -- 'cat /data/p.txt; mount | grep -c -E "debugfs|devtmpfs|proc|sysfs"' 2>/dev/null); rc=$?
check "--file lands in the guest; proc, sys, debugfs, devtmpfs mounted" 0 $rc \
	"$([[ $out == $'payload-42\n4' ]] && echo 1)"

out=$(vm "--append" --append "maskalloc.selftest=1" -- 'grep -o maskalloc.selftest=1 /proc/cmdline' 2>/dev/null); rc=$?
check "--append reaches the kernel command line" 0 $rc "$([[ $out == maskalloc.selftest=1 ]] && echo 1)"

vm "crash (expects exit 125)" -- 'echo c >/proc/sysrq-trigger; sleep 30' >/dev/null 2>"$tmp/err"; rc=$?
check "a kernel crash is reported (status 125)" 125 $rc "$(grep -q 'kernel problem' "$tmp/err" && echo 1)"

vm "undeclared WARNING (expects exit 125)" -- 'echo "WARNING: CPU: 0 PID: 1 at fake.c:1 fake+0x0/0x0" >/dev/kmsg' >/dev/null 2>&1; rc=$?
check "an undeclared WARNING fails the run (status 125)" 125 $rc

vm "declared WARNING" -- 'echo "vm-run: expect-warning: at fake\.c:" >/dev/kmsg; echo "WARNING: CPU: 0 PID: 1 at fake.c:1 fake+0x0/0x0" >/dev/kmsg' >/dev/null 2>&1; rc=$?
check "a declared WARNING is accepted" 0 $rc

vm "--allow-warning" --allow-warning 'fake\.c' -- 'echo "WARNING: CPU: 0 PID: 1 at fake.c:1 fake+0x0/0x0" >/dev/kmsg' >/dev/null 2>&1; rc=$?
check "--allow-warning accepts a WARNING" 0 $rc

# The debug profile's report classes fail a run even when every WARNING is
# declared: KASAN, lockdep, bad page, DMA-API debugging (the lines are fakes
# in the kernel's formats, written to the console through /dev/kmsg).
# shellcheck disable=SC2016 # run by the guest's shell
vm "debug reports (expects exit 125)" -- 'for l in "vm-run: expect-warning: ." \
	"BUG: KASAN: slab-use-after-free in fake+0x0/0x0" \
	"WARNING: possible circular locking dependency detected" \
	"BUG: Bad page state in process sh  pfn:01234" \
	"DMA-API: fake 0000:00:00.0: device driver frees DMA memory with different size"; do
	echo "$l" >/dev/kmsg; done' >/dev/null 2>"$tmp/err"; rc=$?
got=$(grep -oE '^  console line [0-9]+: (KASAN report|lockdep report|bad page|DMA-API debug report):' "$tmp/err" |
	sed 's/.*: \(.*\):$/\1/' | tr '\n' ,)
check "KASAN, lockdep, bad page and DMA-API reports fail the run (status 125)" 125 $rc \
	"$([[ $got == 'KASAN report,lockdep report,bad page,DMA-API debug report,' ]] && echo 1)"
[[ $got == 'KASAN report,lockdep report,bad page,DMA-API debug report,' ]] || echo "# got: $got"

# Every --disk type is attached and readable through its driver (the two
# ide disks come after four others); --qemu-cmd keeps the command line.
disks=() i=0
for t in virtio virtio-legacy ahci nvme ide ide; do
	i=$((i + 1))
	echo "vmrun-disk-$i-$t" >"$tmp/d$i.img"
	truncate -s 1M "$tmp/d$i.img"
	disks+=(--disk "$tmp/d$i.img:$t")
done
want="vmrun-disk-1-virtio vmrun-disk-2-virtio-legacy vmrun-disk-3-ahci vmrun-disk-4-nvme vmrun-disk-5-ide vmrun-disk-6-ide "
# shellcheck disable=SC2016 # run by the guest's shell
out=$(vm "--disk" --append kunit.enable=0 --qemu-cmd "$tmp/qcmd" "${disks[@]}" -- \
	'for b in /sys/block/*; do head -n 1 "/dev/${b##*/}"; done | sort | tr "\n" " "' 2>/dev/null); rc=$?
check "--disk: virtio, virtio-legacy, ahci, nvme and 2 ide disks readable; --qemu-cmd" 0 $rc \
	"$([[ $out == "$want" && $(grep -c 'iommu_platform=on' "$tmp/qcmd") == 1 ]] && echo 1)"
[[ $out == "$want" ]] || echo "# got: $out"

vm "hung command (expects exit 124)" --timeout 20 -- 'sleep 600' >/dev/null 2>&1; rc=$?
check "a hung command times out (status 124)" 124 $rc

# A guest that prints nothing for --idle-timeout seconds is stopped as hung
# long before --timeout.
vm "silent guest (expects exit 124)" --idle-timeout 15 -- 'sleep 600' >/dev/null 2>"$tmp/err"; rc=$?
check "a silent guest is stopped as hung (status 124)" 124 $rc "$(grep -q '^vm-run: hang: no console or command output for 15 s' "$tmp/err" && echo 1)"

ktap_finish
