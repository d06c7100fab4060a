#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Turn the Debian 6.12 tarball plus patches/ into a kernel tree.
#
#   build/linux            git repository of the kernel tree
#     tag "base"           the pristine tarball (Debian's top-level "/*"
#                          .gitignore rule dropped, so new files show)
#     commits 1..          one per entry of patches/series, in order: what
#                          `git am patches/*.patch` makes of the series
#                          (the cover letter carries no diff)
#
# The commits are built as git am builds them (git mailinfo, then the diff
# applied to the index), but in a private index, so the work tree is only
# touched by the final checkout, and that rewrites only the files whose
# content changed.  Unchanged files keep their mtime and kbuild does not
# rebuild them.  A patch that does not apply stops the script with its
# name.  `make check` also runs the real `git am` on a scratch worktree and
# compares the result.  Prints the kernel version and the Debian package
# version it extracted.
#
# It refuses to overwrite work in build/linux that is not in patches/
# (uncommitted changes, or commits made since the last run): export it
# with `make export-patches`, or discard it with `make reset-tree`.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

G() { git -C "$TREE" "$@"; }
STAMP=$BUILD/tree.stamp

[[ -r $TARBALL ]] || die "$TARBALL missing (run scripts/ensure-deps.sh)"
mkdir -p "$BUILD"
tarball_id=$(stat -c '%s %Y' "$TARBALL")

# --- extract -----------------------------------------------------------------
if ! G rev-parse -q --verify base >/dev/null 2>&1 ||
   [[ $(cat "$BUILD/tarball.id" 2>/dev/null) != "$tarball_id" ]]; then
	extract() {
		rm -rf "$TREE" "$BUILD/extract.tmp" "$STAMP" &&
		mkdir -p "$BUILD/extract.tmp" &&
		tar -C "$BUILD/extract.tmp" -xvf "$TARBALL" &&
		mv "$BUILD/extract.tmp"/linux-source-6.12 "$TREE" &&
		rmdir "$BUILD/extract.tmp"
	}
	run_stage --log "$BUILD/extract.log" "extract: $TARBALL -> build/linux (about 2 minutes)" extract ||
		die "extracting $TARBALL failed"
	base_commit() {
		local pkgver
		G init -q -b pristine &&
		G config core.autocrlf false &&
		G config gc.auto 0 &&
		G config feature.manyFiles true &&
		G config user.name "maskalloc build" &&
		G config user.email "build@maskalloc.invalid" &&
		# Debian's tarball ignores every top-level path ("/*" in .gitignore),
		# which would hide new files from git; drop just that rule.
		sed -i -e '/^\/\*$/d' -e '/^!\/debian\/$/d' "$TREE/.gitignore" &&
		G add -A -f --verbose . &&
		pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown) &&
		GIT_AUTHOR_DATE=2024-11-17T12:00:00Z GIT_COMMITTER_DATE=2024-11-17T12:00:00Z \
			G commit -q -m "base: Debian linux-source-6.12 $pkgver (pristine; Debian .gitignore \"/*\" rule dropped)" &&
		G tag -f base
	}
	run_stage --log "$BUILD/base-commit.log" "extract: git init (pristine base commit)" base_commit ||
		die "the base commit failed"
	echo "$tarball_id" >"$BUILD/tarball.id"
fi
kver=$(make -s -C "$TREE" kernelversion 2>/dev/null)
info "kernel $kver from Debian linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo '?')"

# --- inputs ------------------------------------------------------------------
mapfile -t series < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$PATCHES/series" 2>/dev/null || true)
for p in "${series[@]}"; do [[ -f $PATCHES/$p ]] || die "patches/series lists $p, which does not exist"; done

inputs_hash=$( { echo "$tarball_id"
	for p in "${series[@]}"; do echo "$p $(sha1sum <"$PATCHES/$p")"; done
	sha1sum <"$0"; } | sha1sum | cut -d' ' -f1)

head=$(G rev-parse -q --verify HEAD 2>/dev/null || true)
read -r old_hash old_head 2>/dev/null <"$STAMP" || true
if [[ ${old_hash:-} == "$inputs_hash" && ${old_head:-} == "$head" ]]; then
	info "tree up to date ($(G rev-list --count base..HEAD) commits on base)"
	exit 0
fi

# Refuse to destroy local work done in the kernel tree.
if [[ -n ${old_head:-} && $head != "$old_head" && $head != $(G rev-parse base) ]]; then
	die "build/linux has commits that are not in patches/ (HEAD moved since the last prepare).
       Export them with 'make export-patches', or discard them with 'make reset-tree'."
fi
if ! G diff-index --quiet HEAD --; then
	die "build/linux has uncommitted changes.  Commit them and run 'make export-patches',
       or discard them with 'make reset-tree'."
fi

# --- the series, built in a private index -------------------------------------
stage "patch: ${#series[@]} patches"
t0=$SECONDS
export GIT_INDEX_FILE=$BUILD/prepare.index
rm -f "$GIT_INDEX_FILE"
G read-tree base
commit=$(G rev-parse base)

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for p in "${series[@]}"; do
	git mailinfo "$tmp/msg" "$tmp/diff" <"$PATCHES/$p" >"$tmp/info" ||
		die "patch $p: cannot read its mail header"
	subject=$(sed -n 's/^Subject: //p' "$tmp/info")
	author=$(sed -n 's/^Author: //p' "$tmp/info")
	email=$(sed -n 's/^Email: //p' "$tmp/info")
	date=$(sed -n 's/^Date: //p' "$tmp/info")
	if [[ ! -s $tmp/diff ]]; then
		info "skipped $p (no diff: the cover letter)"
		continue
	fi
	if ! G apply --cached --whitespace=nowarn "$tmp/diff" 2>"$tmp/err"; then
		cat "$tmp/err" >&2
		die "patch $p does not apply (on top of $(G log -1 --format=%s "$commit"))"
	fi
	tree=$(G write-tree)
	commit=$( { echo "$subject"; echo; cat "$tmp/msg"; } |
		GIT_AUTHOR_NAME=${author:-unknown} GIT_AUTHOR_EMAIL=${email:-unknown} \
		GIT_AUTHOR_DATE=${date:-2024-11-17T12:00:02Z} GIT_COMMITTER_DATE=${date:-2024-11-17T12:00:02Z} \
		GIT_COMMITTER_NAME="maskalloc build" GIT_COMMITTER_EMAIL=build@maskalloc.invalid \
		G commit-tree "$tree" -p "$commit")
	info "applied $p"
done
unset GIT_INDEX_FILE
rm -f "$BUILD/prepare.index"

# Switching commits rewrites only the files that differ.
G checkout -q -f -B maskalloc "$commit"
echo "$inputs_hash $(G rev-parse HEAD)" >"$STAMP"
info "tree at $(G rev-parse --short HEAD): $(G rev-list --count base..HEAD) commits on base"
info "patch: done in $((SECONDS - t0)) s"
