#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Compile mm/mask_alloc/ and mm/tests/ with W=1 at every commit of branch
# BRANCH (default "split") of build/linux that has mm/mask_alloc/, in the
# test configuration (tinyconfig + the test fragments), in a worktree of
# its own: a quick check that each patch of the rewritten series builds
# where the rewrite touched it.  make check BISECT=1 is the full check.
#
# usage: scripts/dev/check-split.sh [BRANCH]
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

branch=${1:-split}
wt=$BUILD/check-split-wt o=$BUILD/obj-check-split
git -C "$TREE" worktree remove -f "$wt" >/dev/null 2>&1
rm -rf "$wt"
git -C "$TREE" worktree prune
git -C "$TREE" worktree add -q --detach "$wt" base || exit 1
frags=()
for f in $TEST_FRAGMENTS; do frags+=("$ROOT/configs/$f.config"); done
bad=0 n=0
for c in $(git -C "$TREE" rev-list --reverse "base..$branch"); do
	n=$((n + 1))
	git -C "$wt" checkout -q -f "$c"
	[[ -d $wt/mm/mask_alloc ]] || continue
	s=$(git -C "$wt" log -1 --format='%s' | cut -c1-60)
	mkdir -p "$o"
	TREE=$wt OBJ=$o kmake -s tinyconfig >/dev/null 2>&1
	(cd "$o" && "$wt/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "${frags[@]}" >/dev/null 2>&1)
	TREE=$wt OBJ=$o kmake -s olddefconfig >/dev/null 2>&1
	dirs=(mm/mask_alloc/)
	grep -q '^CONFIG_MASK_ALLOC_KUNIT_TEST=y\|^CONFIG_[A-Z_]*KUNIT_TEST=y' "$o/.config" && [[ -d $wt/mm/tests ]] && dirs+=(mm/tests/)
	if TREE=$wt OBJ=$o kmake W=1 "${dirs[@]}" >"$o.log" 2>&1; then
		w=$(grep -c 'warning:' "$o.log")
		echo "[$n] $s: ok ($w warnings)"
		[[ $w -eq 0 ]] || { grep 'warning:' "$o.log" | head -5; bad=1; }
	else
		echo "[$n] $s: FAILED"
		grep -E 'error' "$o.log" | head -10
		bad=1
	fi
done
git -C "$TREE" worktree remove -f "$wt"
exit $bad
