#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: run every benchmark part, scripts/bench/*/run, in name
# order (BENCH_PARTS="dma-map ..." picks some).  Each part builds what it
# needs, prints its own table and writes build/bench/<part>.json.  A new
# part is a new directory with an executable "run".  Exits non-zero when
# any part failed.  Each part is a stage (scripts/lib.sh run_stage): its
# output goes to the terminal and to build/bench/<part>.log, a line every
# minute says it is still running when it has been silent that long, and
# its duration ends it.  A hung boot is stopped by vm-run (--timeout, and
# --idle-timeout: 10 minutes without a line from the guest).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

here=$ROOT/scripts/bench
parts=${BENCH_PARTS:-$(for r in "$here"/*/run; do [[ -x $r ]] && basename "$(dirname "$r")"; done)}
failed=()
for p in $parts; do
	[[ -x $here/$p/run.sh ]] || { echo "bench: no part $p" >&2; failed+=("$p"); continue; }
	run_stage --tee --log "$BUILD/bench/$p.log" "bench: $p" "$here/$p/run.sh" || failed+=("$p")
done
[[ ${#failed[@]} -eq 0 ]] || die "bench parts failed: ${failed[*]}"
