#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Lending the idle pool (CONFIG_MASK_ALLOC_LEND), in a guest with real
# borrowers (tests/lend/guest.sh does the work and the checks).
#
# One boot: 2 GiB, 4 CPUs, "maskzone=512M,force", lending on by default.  The
# pool lends all but its hot part at boot; a static filler
# (tests/lend/filler.c) holds 400 MiB of anonymous memory with a pattern
# and writes a tmpfs file over most of the rest, so page cache and
# anonymous pages borrow lent blocks.  Then sleeping 1 MiB allocations
# below 2^32, 2^30 and 2^24 (200 each, freed at once) and 64 held at once
# below 2^32, which must take lent blocks back; every page of the file and
# of the anonymous memory is checked after the migrations; 200 more beside
# short-term pins (O_DIRECT on /dev/vda) and writeback (ext2 on /dev/vdb),
# every byte of both checked; memory offline
# of a block with lent memory is refused; vm.mask_alloc_lend=0 takes
# everything back, 1 lends again, 2 is refused.
#
# Prints KTAP, the guest's cases relayed and its figures ("# lend: ..."), and
# as its last line "lend: N passed, N failed".  Logs: $TEST_OUT/lend/
# (default build/test/lend).
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
. tests/ktap_helpers.sh
ktap_header lend
logs=${TEST_OUT:-$BUILD/test}/lend dir=${TEST_OUT:-$BUILD/test}/lend
mkdir -p "$logs" "$dir"
if ! gcc -static -O2 -Wall -Wextra -o "$dir/filler" tests/lend/filler.c 2>"$logs/gcc.err"; then
	ktap_diag "$(cat "$logs/gcc.err")"
	ktap_check 0 "build tests/lend/filler.c"
	ktap_finish
	exit 1
fi
# /dev/vda for the O_DIRECT pins, /dev/vdb for ext2 and its writeback
rm -f "$dir/pin.img" "$dir/wb.img"
truncate -s 64M "$dir/pin.img" && truncate -s 256M "$dir/wb.img" || exit 1
rc=0
run_stage --watch "$logs/console.log" "lend: 2 GiB, maskzone=512M,force, lending on, a filler and allocations below 2^32, 2^30, 2^24" \
	scripts/vm-run.sh --mem 2G --smp 4 --timeout 900 --append "kunit.enable=0 maskzone=512M,force" \
	--disk "$dir/pin.img:virtio" --disk "$dir/wb.img:virtio" \
	--file "$dir/filler" --file tests/lend/guest.sh --file tests/ktap_helpers.sh --console "$logs/console.log" -- sh guest.sh \
	>"$logs/guest.out" 2>"$logs/guest.err" || rc=$?
# the guest's cases become this stream's; its figures ("M", "A") are
# "# lend: " lines, its other lines "# " lines
sed 's/^[MA] /lend: /' "$logs/guest.out" >"$logs/guest.ktap"
ktap_relay "$logs/guest.ktap"
complete=$?
if [[ $rc -ne 0 ]]; then
	ktap_check 0 "the guest ran to the end (vm-run exit $rc)"
	sed 's/^/# vm-run: /' "$logs/guest.err" | tail -n 20
elif [[ $complete -ne 0 ]]; then
	ktap_check 0 "the guest ran to the end (its KTAP output stops before the plan)"
fi
[[ $KTAP_TESTNO -eq 0 ]] && ktap_check 0 "the guest reported no check"
ktap_finish
