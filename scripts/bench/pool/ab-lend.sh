#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What lending costs the pool's paths that do not lend: the pool
# microbenchmark (scripts/bench/pool/guest.sh, as the pool part runs it)
# on three kernels, booted in turn BENCH_AB_BOOTS times (A1 B1 C1 A2 B2
# C2 ...), so that the host's load hits all three alike:
#   nolend    build/obj-bench-nolend: configs/bench.config and
#             configs/bench-nolend.config, no CONFIG_MASK_ALLOC_LEND and
#             no CMA (the series as it was before lending)
#   lend-off  build/obj-bench with maskzone_lend=off
#   lend-on   build/obj-bench with lending on (the default)
# and with BENCH_AB_CMA=1 a fourth, to tell CMA's cost from lending's:
#   cma       build/obj-bench-cma: nolend's configuration with CONFIG_CMA
#             (configs/bench-cma.config)
# each with BENCH_POOL_APPEND (maskzone=64M), 1 CPU, 1 GiB.  ab.py
# compares them, nolend the reference: build/bench/ab-lend.json and its
# tables (per path and size, the median of the per-boot ratios).
#
# usage: scripts/bench/pool/ab-lend.sh
# Variables: BENCH_AB_BOOTS (3), BENCH_AB_CMA (0), and pool's BENCH_POOL_ITERS (2000)
#            BENCH_POOL_ROUNDS (5) BENCH_POOL_RUNS (3) BENCH_POOL_APPEND
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib.sh"

boots=${BENCH_AB_BOOTS:-3} iters=${BENCH_POOL_ITERS:-2000}
rounds=${BENCH_POOL_ROUNDS:-5} runs=${BENCH_POOL_RUNS:-3}
pappend=${BENCH_POOL_APPEND-maskzone=64M}
out=$BUILD/bench
mkdir -p "$out"

"$ROOT/scripts/prepare-tree.sh" || die "prepare-tree failed"
kernels=(obj-bench:"configs/bench.config"
	obj-bench-nolend:"configs/bench.config configs/bench-nolend.config")
modes=(nolend lend-off lend-on)
if [[ ${BENCH_AB_CMA:-0} == 1 ]]; then
	kernels+=(obj-bench-cma:"configs/bench.config configs/bench-nolend.config configs/bench-cma.config")
	modes+=(cma)
fi
for k in "${kernels[@]}"; do
	OBJ=$BUILD/${k%%:*} EXTRA_CONFIG="${k#*:} ${EXTRA_CONFIG:-}" "$ROOT/scripts/configure.sh" ||
		die "${k%%:*} configure failed"
	OBJ=$BUILD/${k%%:*} "$ROOT/scripts/build-kernel.sh" || die "${k%%:*} build failed"
done
grep -q '^CONFIG_MASK_ALLOC_LEND=y' "$BUILD/obj-bench/.config" || die "build/obj-bench has no lending"
grep -q '^CONFIG_MASK_ALLOC_LEND=y' "$BUILD/obj-bench-nolend/.config" && die "build/obj-bench-nolend lends"
grep -q '^CONFIG_CMA=y' "$BUILD/obj-bench-nolend/.config" && die "build/obj-bench-nolend has CMA"

declare -A outs=()
rm -f "$out"/ab-lend-*.out
for boot in $(seq "$boots"); do
	for mode in "${modes[@]}"; do
		case $mode in
		cma) kobj=$BUILD/obj-bench-cma append=$pappend ;;
		nolend) kobj=$BUILD/obj-bench-nolend append=$pappend ;;
		lend-off) kobj=$BUILD/obj-bench append="$pappend maskzone_lend=off" ;;
		lend-on) kobj=$BUILD/obj-bench append=$pappend ;;
		esac
		name=ab-lend-$boot-$mode
		stage "bench pool ab-lend: boot $boot/$boots $mode: $append"
		"$ROOT/scripts/vm-run.sh" --kernel "$kobj/arch/x86/boot/bzImage" --mem 1G --smp 1 \
			--timeout 1200 --append "kunit.enable=0 tsc=reliable $append" \
			--console "$out/$name.console" --file "$here/guest.sh" -- \
			sh guest.sh "$iters" "$rounds" "$runs" >"$out/$name.out" 2>"$out/$name.err"
		rc=$?
		if [[ $rc -ne 0 ]] || ! grep -q '^done: ok' "$out/$name.out"; then
			cat "$out/$name.out" "$out/$name.err" >&2
			die "boot $boot $mode failed (vm-run exit $rc; ${out#"$ROOT"/}/$name.*)"
		fi
		outs[$mode]+=${outs[$mode]:+,}$out/$name.out
	done
done
args=()
for mode in "${modes[@]}"; do args+=("$mode=${outs[$mode]}"); done
python3 "$here/ab.py" --json "$out/ab-lend.json" "${args[@]}"
