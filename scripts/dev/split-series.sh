#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Rewrite build/linux's series with mm/mask_alloc.c split by concern
# (scripts/dev/split-mask-alloc.py at every commit), onto branch
# "split": the same patches, each diff in the files of its concern, the
# commit messages' paths renamed.  build/linux's own branch is untouched;
# review "git log -p base..split", then move maskalloc there and export.
# The series before the split was 18c4734 (patches/ at c9f7b7c^ in the
# project's history).
#
# usage: scripts/dev/split-series.sh [SOURCE]  (default: branch presplit, the
#        series before the split, or maskalloc if there is none)
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

wt=$BUILD/split-wt
G() { git -C "$TREE" "$@"; }
G worktree remove -f "$wt" >/dev/null 2>&1 || true
rm -rf "$wt"
G worktree prune
G worktree add -q --detach "$wt" base
parent=$(G rev-parse base)
n=0
src=${1:-presplit}
G rev-parse -q --verify "$src" >/dev/null || src=maskalloc
for c in $(G rev-list --reverse "base..$src"); do
	n=$((n + 1))
	git -C "$wt" checkout -q -f "$c"
	git -C "$wt" clean -fdq
	if [[ -f $wt/mm/mask_alloc.c ]]; then
		python3 "$ROOT/scripts/dev/split-mask-alloc.py" "$wt"
	fi
	git -C "$wt" add -A .
	tree=$(git -C "$wt" write-tree)
	msg=$(G log -1 --format=%B "$c" | python3 "$ROOT/scripts/dev/split-mask-alloc.py" --msg)
	parent=$(GIT_AUTHOR_NAME=$(G log -1 --format=%an "$c") GIT_AUTHOR_EMAIL=$(G log -1 --format=%ae "$c") \
		GIT_AUTHOR_DATE=$(G log -1 --format=%aD "$c") GIT_COMMITTER_DATE=$(G log -1 --format=%cD "$c") \
		git -C "$wt" commit-tree "$tree" -p "$parent" -m "$msg")
	echo "$n $(G log -1 --format=%s "$c")"
done
G branch -f split "$parent"
G worktree remove -f "$wt"
echo "split: $(G rev-list --count base..split) commits; compare: git -C build/linux diff maskalloc split --stat"
