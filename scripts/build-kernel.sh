#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build build/obj/arch/x86/boot/bzImage from the prepared, configured tree.
# Skipped when neither the tree (HEAD, clean) nor the .config changed since
# the last successful build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

img=$OBJ/arch/x86/boot/bzImage
key="$(git -C "$TREE" rev-parse HEAD) $(sha1sum <"$OBJ/.config" | cut -d' ' -f1)"
dirty=
git -C "$TREE" diff-index --quiet HEAD -- || dirty=1
if [[ -z $dirty && -f $img && $(cat "$OBJ/.build.stamp" 2>/dev/null) == "$key" ]]; then
	info "kernel up to date ($(cat "$OBJ/include/config/kernel.release"))"
	exit 0
fi
# The first build's time, measured with an empty ccache on 2 cores
# (2026-12): the test configurations 5.5-6.5 min, distro 25; debug 15.5
# in the background of a CI run (kernel/configs/debug.config, 2026-12-08).
first=
if [[ ! -f $img ]]; then
	if grep -q '^CONFIG_KASAN=y' "$OBJ/.config"; then first=15
	elif [[ $(grep -c '=[ym]$' "$OBJ/.config") -gt 1200 ]]; then first=25
	else first=6; fi
	first=" (first build: about $first minutes with an empty ccache on 2 CPUs)"
fi
log=$OBJ.build.log
# V=1: kbuild prints its commands, and the stage streams them
if ! run_stage --log "$log" "build: ${OBJ#"$ROOT"/} bzImage with -j$JOBS${dirty:+ (tree has uncommitted edits)}$first" \
	kmake ${W:+W=$W} ${V:+V=$V} bzImage; then
	grep -E '(error|warning):|Error [0-9]' "$log" | head -40 >&2
	die "kernel build failed (full log: ${log#"$ROOT"/})"
fi
grep -E '(warning|error):' "$log" | sort -u >"$OBJ.build.warnings" || true
if [[ -s $OBJ.build.warnings ]]; then
	info "$(wc -l <"$OBJ.build.warnings") compiler warnings (${OBJ#"$ROOT"/}.build.warnings)"
fi
[[ -n $dirty ]] || echo "$key" >"$OBJ/.build.stamp"
info "built $(cat "$OBJ/include/config/kernel.release"): $(stat -c %s "$img") bytes"
