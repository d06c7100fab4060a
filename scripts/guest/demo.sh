#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make run` demo, run inside the guest by scripts/vm-run.
echo "== kernel"
uname -r
cat /proc/version
echo
echo "== command line"
cat /proc/cmdline
echo
echo "== zones (/proc/zoneinfo)"
awk '/^Node/ { zone = $0; print zone }
     /^ +(spanned|present|managed) / { printf "    %-8s %8d pages (%d MiB)\n", $1, $2, $2 / 256 }
     /^ +start_pfn:/ { printf "    %-8s %#x (%#x)\n", "start", $2, $2 * 4096 }' /proc/zoneinfo
echo
echo "== DMA-related /proc/vmstat lines"
grep -iE 'dma|mask' /proc/vmstat || echo "(none: no DMA zone and no mask allocator counters in this kernel)"
