#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench, part "alloc": the pool search of mm/mask_alloc/search.c in userspace,
# through tools/testing/mask_alloc (the kernel file compiled unchanged),
# the search summary against the seed's linear scan (ref.c), on the same
# pool states and the same operations.
#
# Pools of 16 MiB, 256 MiB, 2 GiB and 8 GiB (the harness lifts the 4 GB
# pool limit; its arena is not backed) are filled with runs of 1-64
# pages, freed at random down to 99, 90 and 50 %, and churned there to a
# steady state.  Timed: ALLOC_OPS operations of that steady state, each an
# allocation (masks of 24, 28, 30, 31 and 32 bits, 1-64 pages) and the
# random frees that keep the fill level: the same operations from the
# same state for each search.  They are replayed from a script recorded
# beforehand (bench.c): the caller's pick of the run to free, a random
# read from a list of up to 58000 live runs, is not timed, as a kernel
# caller holds its own pointer.  ns per pair is the median of ALLOC_RUNS
# runs.  Instructions per pair come from a second, shorter pass under
# callgrind (no PMU in this VM, so no perf stat), where valgrind exists.
# A fourth mode, "floor", does no search: it puts each request where the
# script says and does the same bitmap bookkeeping, so summary - floor is
# the search's own cost (printed, not a goal).  A second timing pass with
# --kfloor 1 does the same for the kernel pool itself: its upkeep (bitmaps,
# summary, release checks) without the search; the report prints it
# beside the pages each search skipped (MASK_BITMAP_SKIP).
# Writes build/bench/alloc.json and build/bench/alloc.png (gnuplot: time
# and instructions against pool size, the search's own cost, the goals);
# scripts/bench/alloc/report.py --replot build/bench/alloc.json redraws it.
#
# Variables: ALLOC_SIZES (MiB list, "16,256,2048,8192") ALLOC_FILLS
#            ("50,90,99") ALLOC_RUNS (5) ALLOC_OPS (20000) ALLOC_SEED
#            (random, printed) ALLOC_CALLGRIND (1; 0 skips the pass)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib.sh"

sizes=${ALLOC_SIZES:-16,256,2048,8192} fills=${ALLOC_FILLS:-50,90,99}
runs=${ALLOC_RUNS:-5} ops=${ALLOC_OPS:-20000}
seed=${ALLOC_SEED:-$(( (RANDOM << 15 | RANDOM) + 1 ))}
out=$BUILD/bench
mkdir -p "$out"
"$ROOT/scripts/ensure-deps.sh" gnuplot-nox:gnuplot valgrind:valgrind || die "ensure-deps failed"

"$ROOT/scripts/prepare-tree.sh" >/dev/null || die "cannot prepare the kernel tree"
h=$TREE/tools/testing/mask_alloc
make -s -C "$h" bench >&2 || die "cannot build the harness benchmark"

info "bench alloc: sizes $sizes MiB, fills $fills %, $ops ops x $runs runs, seed $seed"
"$h/bench" --sizes "$sizes" --fills "$fills" --runs "$runs" --ops "$ops" \
	--seed "$seed" --json "$out/alloc-time.json" || die "bench failed"

info "bench alloc: the same, with the kernel pool's search left out (--kfloor 1)"
"$h/bench" --sizes "$sizes" --fills "$fills" --runs "$runs" --ops "$ops" \
	--seed "$seed" --kfloor 1 --json "$out/alloc-upkeep.json" || die "bench --kfloor 1 failed"

cg=()
if [ "${ALLOC_CALLGRIND:-1}" != 0 ] && command -v valgrind >/dev/null; then
	d=$out/alloc-callgrind
	rm -rf "$d" && mkdir -p "$d"
	info "bench alloc: instructions under callgrind (1000 ops, about 3 minutes)"
	valgrind --tool=callgrind --callgrind-out-file="$d/cg.%p" --collect-atstart=no \
		--toggle-collect=churn_summary --toggle-collect=churn_linear \
		--toggle-collect=churn_linear_kernel --toggle-collect=churn_floor \
		"$h/bench" --sizes "$sizes" --fills "$fills" --runs 1 --ops 1000 --warm 1 \
		--seed "$seed" >/dev/null 2>"$d/valgrind.log" ||
		die "callgrind pass failed, see $d/valgrind.log"
	cg=(--callgrind "$d")
fi
python3 "$here/report.py" --json "$out/alloc.json" --png "$out/alloc.png" \
	--loadavg "$(cut -d' ' -f1-3 /proc/loadavg)" --upkeep "$out/alloc-upkeep.json" \
	--tree "$(git -C "$TREE" log -1 --format='%h %s' 2>/dev/null)" \
	"${cg[@]}" "$out/alloc-time.json"
