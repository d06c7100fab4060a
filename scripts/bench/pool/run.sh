#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench, part "pool": the mask pool's allocate+free cost beside
# alloc_pages() + __free_pages() of the same sizes, in the same boot.
#
# Boots the bench kernel build/obj-bench (the same one as the dma-map
# part: configs/bench.config on top of the test configuration, which has
# CONFIG_MASK_ALLOC_DEBUGFS) with 1 GiB and runs the in-kernel
# microbenchmark /sys/kernel/debug/mask_alloc/bench (mm/mask_alloc/bench.c)
# BENCH_POOL_RUNS times.  Each run times, for 1 to 64 pages, BENCH_POOL_ROUNDS
# rounds of BENCH_POOL_ITERS allocate+free pairs on each path: the pool alone
# below 2^24 and 2^32 (mask_pool_alloc_bounce), the public API below 2^24
# and 2^32 (alloc_pages_mask + __free_pages_mask) and alloc_pages +
# __free_pages.
# Prints a table per path (median ns per pair, the alloc_pages ns, the
# ratio), writes everything to build/bench/pool.json and draws
# build/bench/pool.png from it (gnuplot: ns per pair and the ratio to
# alloc_pages, by size; scripts/bench/pool/report.py --replot JSON redraws
# it).
#
# Variables: BENCH_POOL_ITERS (2000) BENCH_POOL_ROUNDS (5) BENCH_POOL_RUNS (3)
#            BENCH_POOL_BOOTS (1) BENCH_MEM (1G) BENCH_POOL_SMP (1)
#            BENCH_POOL_APPEND ("maskzone=64M": a pool that reaches above
#            16 MiB, so that the 24- and 32-bit limits differ; "" keeps the
#            default pool, all free memory below 16 MiB)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib.sh"

iters=${BENCH_POOL_ITERS:-2000} rounds=${BENCH_POOL_ROUNDS:-5} runs=${BENCH_POOL_RUNS:-3}
boots=${BENCH_POOL_BOOTS:-1} mem=${BENCH_MEM:-1G} smp=${BENCH_POOL_SMP:-1}
pappend=${BENCH_POOL_APPEND-maskzone=64M}
OBJ=${BENCH_OBJ:-$BUILD/obj-bench}
export OBJ
out=$BUILD/bench
mkdir -p "$out"
start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)

stage "bench pool: kernel ${OBJ#"$ROOT"/} (configs/bench.config)"
"$ROOT/scripts/ensure-deps.sh" gnuplot-nox:gnuplot || die "ensure-deps failed"
"$ROOT/scripts/prepare-tree.sh" || die "prepare-tree failed"
EXTRA_CONFIG="configs/bench.config ${EXTRA_CONFIG:-}" "$ROOT/scripts/configure.sh" ||
	die "configure failed"
"$ROOT/scripts/build-kernel.sh" || die "kernel build failed"
grep -q '^CONFIG_MASK_ALLOC_DEBUGFS=y' "$OBJ/.config" ||
	die "${OBJ#"$ROOT"/} has no CONFIG_MASK_ALLOC_DEBUGFS"

results=()
rm -f "$out"/pool-[0-9]*.* "$out"/pool.png	# not pool-<name>.json kept for comparison
for boot in $(seq "$boots"); do
	name=pool-$boot
	stage "bench pool: boot $boot/$boots ${pappend:-default pool}, $runs runs x $rounds rounds x $iters pairs"
	"$ROOT/scripts/vm-run.sh" --kernel "$OBJ/arch/x86/boot/bzImage" --mem "$mem" --smp "$smp" \
		--timeout 1200 --append "kunit.enable=0 tsc=reliable $pappend" \
		--console "$out/$name.console" --file "$here/guest.sh" -- \
		sh guest.sh "$iters" "$rounds" "$runs" >"$out/$name.out" 2>"$out/$name.err"
	rc=$?
	if [[ $rc -ne 0 ]] || ! grep -q '^done: ok' "$out/$name.out"; then
		cat "$out/$name.out" "$out/$name.err" >&2
		die "boot $boot failed (vm-run exit $rc; ${out#"$ROOT"/}/$name.*)"
	fi
	results+=("$out/$name.out")
done

python3 "$here/report.py" --json "$out/pool.json" --iters "$iters" --rounds "$rounds" \
	--mem "$mem" --smp "$smp" --append "$pappend" --elapsed $(( $(date +%s) - start )) \
	--loadavg "$load0" --loadavg-after "$(cut -d' ' -f1-3 /proc/loadavg)" "${results[@]}"
