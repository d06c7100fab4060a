#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Before/after of a change to the DMA paths: scripts/bench/dma-map/run.sh
# with kernel A (before) in the column "off" and kernel B (after) in the
# column "on", both booted with dmatlb=on and alternating, so that the
# host's load hits both alike: "on/off" in its table is after/before.
# The default section is "force" (swiotlb=force: the 32-bit rows and the
# low-mask rows); BENCH_SECTIONS="nobounce force" adds the rows that do not
# bounce (BENCH_NB_MODES="off on nodm" also the kernel without the option).
#
# usage: scripts/bench/dma-map/ab.sh OBJ_A
#   OBJ_A: the kbuild output directory of a kernel built with
#   configs/bench.config, for example for an older commit of the series:
#     git -C build/linux worktree add --detach ../wt-before <commit>
#     TREE=$PWD/build/wt-before OBJ=$PWD/build/obj-bench-before \
#       EXTRA_CONFIG=configs/bench.config scripts/configure.sh
#     TREE=$PWD/build/wt-before OBJ=$PWD/build/obj-bench-before scripts/build-kernel.sh
#   Kernel B is build/obj-bench (BENCH_OBJ), built from build/linux here.
# Every other variable is run's.  Output: build/bench/ab-dma-map-*,
# build/bench/ab-dma-map.json and .png.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib.sh"
[[ $# -eq 1 ]] || die "usage: $0 OBJ_A"
export BENCH_OBJ_OFF=$1 BENCH_TAG=ab-dma-map
export BENCH_OFF_APPEND=dmatlb=on BENCH_ON_APPEND=dmatlb=on
export BENCH_SECTIONS=${BENCH_SECTIONS:-force} BENCH_NB_MODES=${BENCH_NB_MODES:-off on}
echo "A (column off): ${BENCH_OBJ_OFF#"$ROOT"/}, B (column on): ${BENCH_OBJ:-build/obj-bench}"
exec "$here/run.sh"
