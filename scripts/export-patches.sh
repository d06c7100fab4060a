#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Export the kernel tree's history (build/linux, branch maskalloc, every
# commit after tag "base") back into patches/ as a postable series:
#   - git format-patch, numbered, with a cover letter
#     (0000-cover-letter.patch).  The cover letter's subject and text are
#     kept from the old one; the shortlog and diffstat are regenerated.
#   - patches/series lists the patches in order.  Comment lines that
#     preceded a patch with the same subject in the old series are kept.
# Then the tree is rebuilt from what was exported, which proves that the
# export round-trips.  Work this way: commit in build/linux (fixups:
# `git commit --fixup`, `git rebase -i --autosquash base`), run this,
# review `git diff` here, commit.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

G() { git -C "$TREE" "$@"; }
G rev-parse -q --verify base >/dev/null || die "no kernel tree; run 'make tree' first"
G diff-index --quiet HEAD -- || die "build/linux has uncommitted changes; commit them first"
before=$(G rev-parse HEAD)
n=$(G rev-list --count base..HEAD)
[[ $n -gt 0 ]] || die "no commits after base"

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
G -c user.name="maskalloc team" -c user.email=team@maskalloc.invalid format-patch -q -n --cover-letter --zero-commit --no-signature --stat=80 \
	-o "$tmp" base..HEAD

# Cover letter: keep the old subject and text, take the new shortlog and
# diffstat.  The text is what lies between the headers and the shortlog
# line "<author> (<n>):".
cover=$tmp/0000-cover-letter.patch old=$PATCHES/0000-cover-letter.patch
if [[ -f $old ]]; then
	python3 - "$old" "$cover" <<'PY'
import re, sys
old, new = (open(f).read() for f in sys.argv[1:3])
def parts(s):
    head, body = s.split('\n\n', 1)
    m = re.search(r'^\S.* \(\d+\):$', body, re.M)
    return head, body[:m.start()], body[m.start():]
oh, ob, _ = parts(old)
nh, _, ns = parts(new)
subj = re.search(r'^Subject: \[PATCH \d+/\d+\] (.*(?:\n .*)*)', oh, re.M).group(1)
for key in ('From', 'Date'):
    m = re.search(r'^%s: .*$' % key, oh, re.M)
    if m:
        nh = re.sub(r'^%s: .*$' % key, lambda _: m.group(0), nh, count=1, flags=re.M)
nh = re.sub(r'(^Subject: \[PATCH 0+/\d+\] )\*\*\* SUBJECT HERE \*\*\*', lambda m: m.group(1) + subj, nh, flags=re.M)
open(sys.argv[2], 'w').write(nh + '\n\n' + ob + ns)
PY
else
	info "no cover letter yet: write the subject and text into patches/0000-cover-letter.patch"
fi

old=$PATCHES/series
new=$tmp/series
# Header: comment lines before the first patch entry.
awk '/^[[:space:]]*[^#[:space:]]/ {exit} {print}' "$old" 2>/dev/null >"$new" || true
for p in "$tmp"/*.patch; do
	name=$(basename "$p")
	slug=${name#[0-9][0-9][0-9][0-9]-}
	# comment block that preceded the old entry with the same slug
	awk -v slug="$slug" '
		/^[[:space:]]*#/ || /^[[:space:]]*$/ { blk = blk $0 "\n"; next }
		{ n = $1; sub(/^[0-9][0-9][0-9][0-9]-/, "", n); if (n == slug) { if (seen) printf "%s", blk; exit } blk = ""; seen = 1 }
	' "$old" 2>/dev/null >>"$new" || true
	echo "$name" >>"$new"
done

rm -f "$PATCHES"/*.patch
cp "$tmp"/*.patch "$PATCHES"/
cp "$new" "$PATCHES/series"
info "exported $n patches and the cover letter"
# Rebuild the tree's history from what was exported (same content, so the
# checkout touches no file); this also proves the export round-trips.
echo "exported $before" >"$BUILD/tree.stamp"
"$ROOT/scripts/prepare-tree.sh"
G diff --quiet "$before" HEAD || die "round trip differs: the tree rebuilt from patches/ is not $before"
