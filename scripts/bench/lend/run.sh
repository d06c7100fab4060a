#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench, part "lend": what lending the idle pool gives and costs
# (CONFIG_MASK_ALLOC_LEND), side by side in one run, on a 2 GiB guest
# with maskzone=512M (4 CPUs):
#   stock   the tree without the mask allocator (build/obj-nomask, as
#           make test builds it): the memory a stock 6.12 kernel leaves
#   nolend  the bench kernel (build/obj-bench) with maskzone_lend=off
#   lend    the same kernel with maskzone_lend=on
# Each boot (scripts/bench/lend/guest.sh) reads /proc/meminfo after boot,
# starts a filler (tests/lend/filler.c: BENCH_LEND_ANON MiB of anonymous
# memory and a tmpfs file over all but BENCH_LEND_SLACK MiB, each page
# patterned), reads it again (how much of the lent memory page cache and
# anonymous memory borrowed: the page allocator serves movable requests
# from CMA pageblocks first only while they hold over half of the free
# memory, so about half of what the filler leaves free stays unborrowed;
# 64 MiB of slack is a machine under memory pressure), then, in nolend
# and lend, BENCH_LEND_N sleeping 1 MiB allocations below 2^32, 2^30 and
# 2^24 (debugfs mask_alloc/alloc, held 32, 32 and 8 at a time), each
# timed, and checks
# every byte of the filler's memory.  Boots are interleaved (stock, nolend,
# lend, then again) BENCH_LEND_BOOTS times.
# Prints a table, writes build/bench/lend.json (every latency and every
# figure of each boot) and draws build/bench/lend.png.
#
# Variables: BENCH_LEND_N (1000) BENCH_LEND_BOOTS (1) BENCH_LEND_ANON (400)
#            BENCH_LEND_SLACK (64) BENCH_LEND_MEM (2G) BENCH_LEND_SMP (4)
#            BENCH_LEND_POOL (512M)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib.sh"

n=${BENCH_LEND_N:-1000} boots=${BENCH_LEND_BOOTS:-1} anon=${BENCH_LEND_ANON:-400}
slack=${BENCH_LEND_SLACK:-64} mem=${BENCH_LEND_MEM:-2G} smp=${BENCH_LEND_SMP:-4}
pool=${BENCH_LEND_POOL:-512M}
out=$BUILD/bench
mkdir -p "$out"
start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)

stage "bench lend: kernels build/obj-bench (configs/bench.config) and build/obj-nomask"
"$ROOT/scripts/ensure-deps.sh" gnuplot-nox:gnuplot || die "ensure-deps failed"
"$ROOT/scripts/prepare-tree.sh" || die "prepare-tree failed"
# shellcheck disable=SC2015 # die when either step fails
OBJ=$BUILD/obj-bench EXTRA_CONFIG="configs/bench.config ${EXTRA_CONFIG:-}" "$ROOT/scripts/configure.sh" &&
	OBJ=$BUILD/obj-bench "$ROOT/scripts/build-kernel.sh" || die "bench kernel build failed"
grep -q '^CONFIG_MASK_ALLOC_LEND=y' "$BUILD/obj-bench/.config" || die "build/obj-bench has no CONFIG_MASK_ALLOC_LEND"
# shellcheck disable=SC2015 # die when either step fails
OBJ=$BUILD/obj-nomask EXTRA_CONFIG="configs/no-maskalloc.config ${EXTRA_CONFIG:-}" "$ROOT/scripts/configure.sh" &&
	OBJ=$BUILD/obj-nomask "$ROOT/scripts/build-kernel.sh" || die "stock kernel build failed"
gcc -static -O2 -Wall -Wextra -o "$out/lend-filler" "$ROOT/tests/lend/filler.c" || die "filler build failed"

results=()
rm -f "$out"/lend-[0-9]*.* "$out"/lend.png
for boot in $(seq "$boots"); do
	for mode in stock nolend lend; do
		name=lend-$boot-$mode
		case $mode in
		stock) kobj=$BUILD/obj-nomask append="" ;;
		nolend) kobj=$BUILD/obj-bench append="maskzone=$pool maskzone_lend=off" ;;
		lend) kobj=$BUILD/obj-bench append="maskzone=$pool maskzone_lend=on" ;;
		esac
		stage "bench lend: boot $boot/$boots $mode: $mem, $smp CPUs${append:+, $append}"
		cp "$out/lend-filler" "$out/filler"
		"$ROOT/scripts/vm-run.sh" --kernel "$kobj/arch/x86/boot/bzImage" --mem "$mem" --smp "$smp" \
			--timeout 1800 --append "kunit.enable=0 tsc=reliable $append" \
			--console "$out/$name.console" --file "$out/filler" --file "$here/guest.sh" -- \
			sh guest.sh "$mode" "$n" "$anon" "$slack" >"$out/$name.out" 2>"$out/$name.err"
		rc=$?
		if [[ $rc -ne 0 ]] || ! grep -q '^done' "$out/$name.out"; then
			cat "$out/$name.out" "$out/$name.err" >&2
			die "boot $boot $mode failed (vm-run exit $rc; ${out#"$ROOT"/}/$name.*)"
		fi
		results+=("$mode=$out/$name.out")
	done
done
rm -f "$out/filler"
python3 "$here/report.py" --json "$out/lend.json" --n "$n" --mem "$mem" --smp "$smp" \
	--pool "$pool" --anon "$anon" --slack "$slack" --elapsed $(( $(date +%s) - start )) \
	--loadavg "$load0" --loadavg-after "$(cut -d' ' -f1-3 /proc/loadavg)" "${results[@]}"
