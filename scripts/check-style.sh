#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: what a reviewer and, with ZERODAY=1 and ARCHES=1, the 0-day
# robot run on the series.
#
# By default (a few minutes once the tree is prepared):
#   linters    the shellcheck part: every shell script of scripts/, tests/
#              and .ci/ (found by shebang; the guest scripts as POSIX sh),
#              settings in .shellcheckrc; the pyflakes part: every Python
#              script there (pyflakes3); any finding fails
#   fragments  scripts/configure.sh, no build, for every configuration the
#              tooling builds (profiles normal, debug, distro; the
#              no-mask kernel; the bench kernels) in build/check-fragments/:
#              a fragment symbol that olddefconfig drops fails (about a
#              minute; an unchanged configuration is not redone)
#   series     checkpatch.pl --strict on every patch of patches/
#   files      checkpatch.pl --strict -f and kernel-doc -Wall on every file
#              the series adds (tools/testing/ excepted: user space)
#   am         `git am --empty=drop patches/*.patch` on a scratch worktree
#              of the pristine tree gives exactly the prepared tree
#   sparse     sparse (C=2) and W=1 on every .c file the series adds or
#              changes that the x86_64 configuration builds (feature on);
#              a warning on a line the series added or changed fails, one
#              on a stock line is listed as pre-existing
# On demand:
#   ARCHES=1   full builds: x86_64 tinyconfig with the feature on (the test
#              configuration) and off (ZONE_DMA kept), i386 tinyconfig (the
#              allocator is not selectable there) and arm64 tinyconfig with
#              aarch64-linux-gnu-gcc (no mask allocator either)
#   DISTRO=1   Debian's amd64 configuration, feature on and off: every .c
#              file the series adds or changes that it builds
#   ZERODAY=1  the rest of what the 0-day robot runs: the x86_64 test
#              configuration built with LLVM=1 W=1 (clang, lld), make
#              htmldocs for the core-api and admin-guide books, and
#              coccicheck (MODE=report) on every .c file the series adds or
#              changes that the x86_64 configuration builds; a warning or a
#              report in a file the series touches fails
#   BISECT=1   every commit of the series built on its own with the
#              feature on and off; where KUnit suites exist at that commit,
#              the "on" kernel is booted and they must pass
#              (BISECT_FROM=N starts at the N-th commit)
# Each part prints "check: <part>: ok|FAIL (<seconds> s)".  Builds and boots
# run as stages (scripts/lib.sh run_stage): a line when they start, naming
# their log, one a minute while they run, one with their duration.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
"$ROOT/scripts/prepare-tree.sh" >/dev/null || exit 1
cd "$TREE" || exit 1
bad=0
declare -a summary=()
part_start() { t0=$SECONDS; pbad=0; }
part_end() {
	local r=ok; [[ $pbad -eq 0 ]] || { r=FAIL; bad=1; }
	summary+=("check: $1: $r ($((SECONDS - t0)) s)")
	echo "check: $1: $r ($((SECONDS - t0)) s)"
}
mapfile -t series < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PATCHES/series")
mapfile -t added < <(git diff --name-only --diff-filter=A base HEAD)
mapfile -t changed_c < <(git diff --name-only --diff-filter=AM base HEAD -- '*.c' ':!tools/')

# The linters of the tooling's scripts, and what checkpatch needs (below).
"$ROOT/scripts/ensure-deps.sh" shellcheck:shellcheck pyflakes3:pyflakes3 \
	python3-ply:/usr/lib/python3/dist-packages/ply \
	python3-git:/usr/lib/python3/dist-packages/git >/dev/null || true

# --- the tooling's own scripts -------------------------------------------------
# Every shell and Python script under scripts/, tests/ and .ci/ (tracked or
# new, not ignored), by its shebang or its .sh/.py suffix: scripts/lib.sh
# and the guest scripts have no shebang ("# shellcheck shell=sh" in each
# guest script: busybox sh runs them).  .shellcheckrc lets shellcheck
# follow the sources of scripts/lib.sh.
mapfile -t own < <(cd "$ROOT" && { git ls-files --cached --others --exclude-standard -- scripts tests .ci 2>/dev/null ||
	find scripts tests .ci -type f; } | sort -u)
sh_files=() py_files=()
for f in "${own[@]}"; do
	case $f in tests/fuzz-corpus/* | tests/ktap/logs/* | *.[ch] | *.config) continue ;; esac
	[[ -f $ROOT/$f ]] || continue
	first=''; IFS= read -r first <"$ROOT/$f" || true
	if [[ $f == *.py || $first =~ ^\#!.*python ]]; then py_files+=("$f")
	elif [[ $f == *.sh || $first =~ ^\#!.*[/[:space:]](ba)?sh([[:space:]]|$) ]]; then sh_files+=("$f")
	fi
done
# lint NAME TOOL ARGS... FILES: run TOOL in $ROOT, list its findings
lint() {
	local name=$1 tool=$2 o rc; shift 2
	if ! command -v "$tool" >/dev/null; then
		echo "$name: $tool not installed and could not be installed"; pbad=1; return
	fi
	o=$(cd "$ROOT" && "$tool" "$@" 2>&1); rc=$?
	if [[ $rc -eq 0 && -z $o ]]; then
		echo "$name: clean"
	else
		echo "$o"; echo "$name: $(grep -c . <<<"$o") findings (exit $rc)"; pbad=1
	fi
}
part_start
lint shellcheck shellcheck -f gcc "${sh_files[@]}"
part_end "shellcheck on ${#sh_files[@]} shell scripts"
part_start
lint pyflakes pyflakes3 "${py_files[@]}"
part_end "pyflakes on ${#py_files[@]} Python scripts"

# --- every profile's fragments on its base configuration ------------------------
# scripts/configure.sh (merge_config.sh, olddefconfig, no build) for each
# configuration the tooling builds, each in its own build/check-fragments/
# <name>: the test profiles of scripts/run-tests.sh (normal, debug, distro),
# its no-mask-allocator kernel, and the bench kernels of scripts/bench/
# (and tests/stress).  configure fails, naming them, on fragment symbols
# that did not survive olddefconfig (and, for distro, on Debian options of
# configs/distro-keep.list that were lost), so a symbol one base drops
# fails here before any build.  EXTRA_CONFIG is merged last, as there.  A
# configuration whose inputs did not change since it last passed is not
# redone (configure's stamp: tree, fragments, Debian config, configure).
frag_profiles=(	# name|KCONFIG_BASE|fragments after configs/$TEST_FRAGMENTS
	"normal|tinyconfig|"
	"debug|tinyconfig|configs/debug.config"
	"distro|distro|"
	"nomask|tinyconfig|configs/no-maskalloc.config"
	"bench|tinyconfig|configs/bench.config"
	"bench-nodmatlb|tinyconfig|configs/bench.config configs/bench-nodmatlb.config"
	"bench-nolend|tinyconfig|configs/bench.config configs/bench-nolend.config"
	"bench-cma|tinyconfig|configs/bench.config configs/bench-nolend.config configs/bench-cma.config"
)
part_start
fo=$BUILD/check-fragments
mkdir -p "$fo"
for p in "${frag_profiles[@]}"; do
	IFS='|' read -r name kbase extra <<<"$p"
	label="$kbase + the test fragments${extra:+ + ${extra//configs\//}}"
	t1=$SECONDS
	if OBJ=$fo/$name KCONFIG_BASE=$kbase EXTRA_CONFIG="$extra ${EXTRA_CONFIG:-}" \
		"$ROOT/scripts/configure.sh" >"$fo/$name.check.log" 2>&1; then
		r=ok; grep -q 'config up to date' "$fo/$name.check.log" && r="ok, unchanged since it passed"
		echo "fragments: $name: $label: $r ($((SECONDS - t1)) s)"
	else
		sed -e 's/\x1b\[[0-9;]*m//g' -e 's/^/    /' "$fo/$name.check.log"
		echo "fragments: $name: $label: FAIL ($((SECONDS - t1)) s, log: ${fo#"$ROOT"/}/$name.check.log)"
		pbad=1
	fi
done
part_end "fragments of ${#frag_profiles[@]} configurations against their base (no build)"

# --- series and files ----------------------------------------------------------
# checkpatch runs spdxcheck.py with the system python3 (python3-ply,
# python3-git, installed above).  The tree has no upstream history, so
# commit ids in Fixes: tags cannot be looked up (UNKNOWN_COMMIT_ID).  A
# patch that only adds user-space code under tools/testing/ is reported,
# not gated: it follows the harness's own conventions (libFuzzer, TSan
# hooks, C11).
chk() { PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict --terse --no-summary \
	--ignore UNKNOWN_COMMIT_ID "$@" 2>&1; }
# checkpatch asks "does MAINTAINERS need updating?" of any patch that adds
# a file and leaves MAINTAINERS alone.  That is answered here instead: the
# warning is dropped when every file the patch adds already lies under an
# F: pattern of the tree's MAINTAINERS (a directory or the file itself).
covered() { # PATCHFILE: all its added files covered?
	local f pat ok
	while read -r f; do
		ok=
		while read -r pat; do
			[[ $f == "$pat" || ( $pat == */ && $f == "$pat"* ) ]] && { ok=1; break; }
		done < <(sed -n 's/^F:\t*//p' MAINTAINERS)
		[[ -n $ok ]] || return 1
	done < <(awk '/^--- \/dev\/null/ { getline; sub(/^\+\+\+ b\//, ""); print }' "$1")
}
part_start
for p in "${series[@]}"; do
	[[ $p == 0000-* ]] && continue
	o=$(chk "$PATCHES/$p")
	if grep -q 'does MAINTAINERS need updating' <<<"$o" && covered "$PATCHES/$p"; then
		o=$(grep -v 'does MAINTAINERS need updating' <<<"$o")
		echo "checkpatch: $p: the files it adds are already in MAINTAINERS"
	fi
	if ! grep '^+++ b/' "$PATCHES/$p" | grep -qv '^+++ b/tools/testing/\|^+++ b/MAINTAINERS'; then
		echo "checkpatch: $p: user space only, $(grep -c . <<<"$o") findings (not gated)"
	elif [[ -n $o ]]; then echo "$o"; pbad=1; else echo "checkpatch: $p: clean"; fi
done
part_end "checkpatch --strict on ${#series[@]} patches"

part_start
n=0
for f in "${added[@]}"; do
	[[ $f == *.[ch] && $f != tools/* ]] || continue
	n=$((n + 1))
	o=$(chk -f "$f")
	if [[ -n $o ]]; then echo "$o"; pbad=1; else echo "checkpatch: $f: clean"; fi
	o=$(scripts/kernel-doc -Wall -none "$f" 2>&1)
	if [[ -n $o ]]; then echo "$o"; pbad=1; else echo "kernel-doc: $f: clean"; fi
done
part_end "checkpatch -f and kernel-doc -Wall on $n new files"

# --- git am on the pristine tree -------------------------------------------------
part_start
wt=$BUILD/am-check
git worktree remove -f "$wt" >/dev/null 2>&1; rm -rf "$wt"; git worktree prune
# shellcheck disable=SC2317 # run through run_stage
am_check() {
	git worktree add -q --detach "$wt" base &&
	git -C "$wt" -c user.name=check -c user.email=check@invalid am -q --empty=drop "$PATCHES"/*.patch
}
if run_stage --log "$BUILD/am-check.log" "check: git am patches/*.patch on a worktree of the pristine tree" am_check; then
	n=$(git -C "$wt" rev-list --count base..HEAD)
	if [[ $(git -C "$wt" rev-parse "HEAD^{tree}") == $(git rev-parse "HEAD^{tree}") ]]; then
		echo "am: git am applied $n patches on the pristine tree; the result is the prepared tree"
	else
		echo "am: the tree from git am differs from the prepared tree"; pbad=1
	fi
else
	cat "$BUILD/am-check.log" 2>/dev/null; echo "am: git am failed"; pbad=1
fi
git worktree remove -f "$wt" >/dev/null 2>&1; rm -rf "$wt"; git worktree prune
part_end "git am patches/*.patch on the pristine tree"

# --- helpers for builds ----------------------------------------------------------
# xmake OBJDIR ARCH CROSS ARGS...: kmake in OBJDIR for ARCH
xmake() {
	local o=$1 arch=$2 cross=$3; shift 3
	OBJ=$o KARCH=$arch CROSS_COMPILE=$cross kmake "$@"
}
# tinycfg OBJDIR ARCH CROSS FRAGMENTS...: tinyconfig + fragments
# shellcheck disable=SC2317 # called from full_build, which run_stage runs
tinycfg() {
	local o=$1 arch=$2 cross=$3; shift 3
	mkdir -p "$o"
	xmake "$o" "$arch" "$cross" -s tinyconfig >/dev/null 2>&1 || return 1
	(cd "$o" && ARCH=$arch CROSS_COMPILE=$cross "$TREE/scripts/kconfig/merge_config.sh" -m -O "$o" \
		"$o/.config" "$@" >"$o.merge.log" 2>&1) || return 1
	xmake "$o" "$arch" "$cross" -s olddefconfig >/dev/null 2>&1
}
frag_on=() frag_off=()
for f in $TEST_FRAGMENTS; do
	frag_on+=("$ROOT/configs/$f.config")
	[[ $f == maskalloc ]] || frag_off+=("$ROOT/configs/$f.config")
done
frag_off+=("$ROOT/configs/no-maskalloc.config")
# full_build OBJDIR ARCH CROSS TARGET FRAGMENTS...: tinyconfig + fragments, then TARGET
# shellcheck disable=SC2317 # run through run_stage
full_build() {
	local o=$1 arch=$2 cross=$3 target=$4; shift 4
	tinycfg "$o" "$arch" "$cross" "$@" && xmake "$o" "$arch" "$cross" "$target"
}
# added_lines FILE: "a-b" ranges of lines the series added or changed
added_lines() {
	git diff -U0 base HEAD -- "$1" | sed -n 's/^@@ .* +\([0-9]*\)\(,\([0-9]*\)\)\? @@.*/\1 \3/p' |
		awk '{n = ($2 == "") ? 1 : $2; if (n > 0) print $1 "-" $1 + n - 1}'
}
# objs_built OBJDIR FILES...: the files whose object a full build in OBJDIR made
objs_built() {
	local o=$1 f; shift
	for f in "$@"; do
		[[ -f $o/${f%.c}.o ]] && echo "$f"
	done
}

# --- sparse and W=1 ----------------------------------------------------------------
part_start
if ! command -v sparse >/dev/null; then
	"$ROOT/scripts/ensure-deps.sh" sparse:sparse >/dev/null || true
fi
if command -v sparse >/dev/null; then
	o=$BUILD/obj-check
	if [[ ! -f $o/vmlinux ]] || ! cmp -s "$OBJ/.config" "$o/.config"; then
		"$ROOT/scripts/configure.sh" >/dev/null || pbad=1
		mkdir -p "$o"; cp "$OBJ/.config" "$o/.config"
		xmake "$o" x86_64 "" olddefconfig >/dev/null 2>&1
		run_stage --log "$o.log" "check: a build of the test configuration in ${o#"$ROOT"/} (once)" \
			xmake "$o" x86_64 "" vmlinux || { tail -20 "$o.log"; pbad=1; }
	fi
	mapfile -t files < <(objs_built "$o" "${changed_c[@]}")
	objs=(); for f in "${files[@]}"; do objs+=("${f%.c}.o"); done
	run_stage --log "$o.sparse.log" "check: sparse (C=2) and W=1 on ${#objs[@]} objects" \
		xmake "$o" x86_64 "" C=2 W=1 "${objs[@]}" || { tail -20 "$o.sparse.log"; pbad=1; }
	new=0 old=0 lim=0
	while IFS=: read -r file line rest; do
		file=${file#"$TREE"/}; file=${file#../linux/}
		hit=0
		for r in $(added_lines "$file"); do
			[[ $line -ge ${r%-*} && $line -le ${r#*-} ]] && hit=1
		done
		# sparse cannot expand a TRACE_EVENT whose TP_printk() holds
		# show_gfp_flags() and more symbolic tables (its token limit;
		# stock kmem.h events hit it too): a limit of the tool, listed.
		if [[ $hit -eq 1 && $file == include/trace/events/* && $rest == *'too long token expansion'* ]]; then
			lim=$((lim + 1)); echo "sparse limit: $file:$line:$rest"
		elif [[ $hit -eq 1 ]]; then echo "new: $file:$line:$rest"; new=$((new + 1))
		else old=$((old + 1)); echo "pre-existing: $file:$line:$rest"; fi
	done < <(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error)' "$o.sparse.log" | sort -u)
	echo "sparse+W=1: ${#objs[@]} files (${objs[*]}): $new new warnings, $old on stock lines, $lim at sparse's token limit"
	[[ $new -eq 0 ]] || pbad=1
else
	echo "sparse: not installed and could not be installed"; pbad=1
fi
part_end "sparse (C=2) and W=1 on the files the series touches"

# --- other architectures and configurations ----------------------------------------
build_full() {	# LABEL OBJDIR ARCH CROSS TARGET FRAGMENTS...
	local label=$1 o=$2 arch=$3 cross=$4 target=$5; shift 5
	part_start
	if run_stage --log "$o.log" "check: build $label" full_build "$o" "$arch" "$cross" "$target" "$@"; then
		echo "build: $label: $(grep -c 'warning:' "$o.log") warnings; MASK_ALLOC=$(grep -c '^CONFIG_MASK_ALLOC=y' "$o/.config")"
	else
		tail -20 "$o.log" 2>/dev/null; pbad=1
	fi
	part_end "build $label"
}
if [[ ${ARCHES:-0} == 1 ]]; then
	build_full "x86_64 tinyconfig, feature on" "$BUILD/obj-x86-on" x86_64 "" bzImage "${frag_on[@]}"
	grep -q '^CONFIG_MASK_ALLOC=y' "$BUILD/obj-x86-on/.config" || { echo "x86_64 on: MASK_ALLOC did not stay on"; bad=1; }
	build_full "x86_64 tinyconfig, feature off" "$BUILD/obj-x86-off" x86_64 "" bzImage "${frag_off[@]}"
	build_full "i386 tinyconfig + fragments" "$BUILD/obj-i386" i386 "" bzImage "${frag_on[@]}"
	grep -q '^CONFIG_MASK_ALLOC=y' "$BUILD/obj-i386/.config" && { echo "i386: MASK_ALLOC is selectable"; bad=1; }
	if ! command -v aarch64-linux-gnu-gcc >/dev/null; then
		"$ROOT/scripts/ensure-deps.sh" gcc-aarch64-linux-gnu:aarch64-linux-gnu-gcc >/dev/null || true
	fi
	build_full "arm64 tinyconfig + fragments" "$BUILD/obj-arm64" arm64 aarch64-linux-gnu- Image "${frag_on[@]}"
	grep -q '^CONFIG_MASK_ALLOC=y' "$BUILD/obj-arm64/.config" && { echo "arm64: MASK_ALLOC is selectable"; bad=1; }
fi

if [[ ${DISTRO:-0} == 1 ]]; then
	debconf=${DISTRO_CONFIG:-/usr/src/linux-config-6.12/config.amd64_none_amd64.xz}
	for mode in on off; do
		part_start
		o=$BUILD/obj-distro-files-$mode
		mkdir -p "$o"
		xz -dc "$debconf" >"$o/.config"
		if [[ $mode == on ]]; then
			printf 'CONFIG_EXPERT=y\n# CONFIG_ZONE_DMA is not set\nCONFIG_MASK_ALLOC=y\nCONFIG_MASK_ALLOC_DEBUGFS=y\nCONFIG_SWIOTLB_MASK_ALLOC=y\nCONFIG_FAIL_MASK_ALLOC=y\nCONFIG_MASKALLOC_EDU=m\n' >"$o/frag"
			(cd "$o" && "$TREE/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "$o/frag" >"$o.merge.log" 2>&1)
		fi
		xmake "$o" x86_64 "" olddefconfig >/dev/null 2>&1
		want=n; [[ $mode == on ]] && want=y
		[[ $(grep -c '^CONFIG_MASK_ALLOC=y' "$o/.config") -eq $([[ $want == y ]] && echo 1 || echo 0) ]] ||
			{ echo "distro $mode: CONFIG_MASK_ALLOC is not $want"; pbad=1; }
		objs=()
		for f in "${changed_c[@]}"; do
			d=$(dirname "$f") b=$(basename "${f%.c}")
			# the option that builds it (continuation lines joined)
			# shellcheck disable=SC2016 # sed scripts: $ is sed's
			sym=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$d/Makefile" |
				grep -E "^obj-\\\$\(CONFIG_[A-Z0-9_]+\)[[:space:]]*\+=.*\b$b\.o\b" |
				sed -n 's/^obj-\$(\(CONFIG_[A-Z0-9_]*\)).*/\1/p' | head -1)
			if [[ -z $sym ]] || grep -qE "^$sym=(y|m)" "$o/.config"; then objs+=("${f%.c}.o"); fi
		done
		if run_stage --log "$o.log" "check: distro $mode: W=1 on ${#objs[@]} objects" xmake "$o" x86_64 "" W=1 "${objs[@]}"; then
			echo "distro $mode: built ${#objs[@]} objects (${objs[*]}); $(grep 'warning:' "$o.log" | grep -vc '/scripts/') warnings outside scripts/"
		else
			grep -E 'error|warning:' "$o.log" | head -20; pbad=1
		fi
		part_end "Debian amd64 config, feature $mode: the files the series touches"
	done
fi

# --- the rest of what the 0-day robot runs -----------------------------------------
# touched FILE...: the lines of warnings ("path:line:...") in files the series touches
mapfile -t touched < <(git diff --name-only base HEAD)
touched() {
	local f
	grep -E '(warning|error|ERROR|WARNING):' "$@" | while IFS= read -r l; do
		for f in "${touched[@]}"; do
			[[ $l == *"$f:"* ]] && { echo "$l"; break; }
		done
	done | sort -u
}
if [[ ${ZERODAY:-0} == 1 ]]; then
	"$ROOT/scripts/ensure-deps.sh" clang:clang lld:ld.lld llvm:llvm-ar coccinelle:spatch \
		python3-sphinx:sphinx-build python3-sphinx-rtd-theme:/usr/lib/python3/dist-packages/sphinx_rtd_theme \
		>/dev/null || true
	# clang: the test configuration, LLVM=1 W=1
	part_start
	o=$BUILD/obj-llvm
	# shellcheck disable=SC2317 # run through run_stage
	llvm_build() {
		tinycfg "$o" x86_64 "" "${frag_on[@]}" && KCC=clang xmake "$o" x86_64 "" LLVM=1 W=1 bzImage
	}
	if KCC=clang run_stage --log "$o.log" "check: build x86_64 test configuration with LLVM=1 W=1" llvm_build; then
		w=$(touched "$o.log")
		echo "llvm: $(grep -c 'warning:' "$o.log") warnings, $(grep -c . <<<"$w") in files the series touches${w:+:}"
		[[ -z $w ]] || { echo "$w"; pbad=1; }
	else
		grep -E 'error' "$o.log" | head -20; pbad=1
	fi
	part_end "LLVM=1 W=1 build of the x86_64 test configuration"
	# the documentation
	part_start
	o=$BUILD/htmldocs
	if run_stage --log "$o.log" "check: make htmldocs SPHINXDIRS=\"core-api admin-guide\"" \
		make -C "$TREE" O="$o" SPHINXDIRS="core-api admin-guide" htmldocs; then
		w=$(touched "$o.log")
		echo "htmldocs: $(grep -cE '(WARNING|ERROR|warning):' "$o.log") warnings, $(grep -c . <<<"$w") about files the series touches${w:+:}"
		[[ -z $w ]] || { echo "$w"; pbad=1; }
	else
		tail -20 "$o.log"; pbad=1
	fi
	part_end "make htmldocs (core-api, admin-guide)"
	# coccinelle, as the robot runs it on the files it builds
	part_start
	# the sparse part's build of the test configuration
	o=$BUILD/obj-check
	mapfile -t files < <(objs_built "$o" "${changed_c[@]}")
	objs=(); for f in "${files[@]}"; do objs+=("${f%.c}.o"); done
	if run_stage --log "$o.cocci.log" "check: coccicheck (MODE=report) on ${#objs[@]} files" \
		xmake "$o" x86_64 "" C=2 CHECK="$TREE/scripts/coccicheck" MODE=report "${objs[@]}"; then
		r=$(grep -E '^[^ ]+\.[ch]:[0-9]+:[0-9]+-[0-9]+: ' "$o.cocci.log" | sort -u)
		echo "coccicheck: ${#objs[@]} files, $(grep -c . <<<"$r") reports${r:+:}"
		[[ -z $r ]] || { echo "$r"; pbad=1; }
	else
		tail -20 "$o.cocci.log"; pbad=1
	fi
	part_end "coccicheck on the files the series touches"
fi

# --- every commit on its own --------------------------------------------------------
if [[ ${BISECT:-0} == 1 ]]; then
	part_start
	mapfile -t commits < <(git rev-list --reverse base..HEAD)
	# A worktree of its own, so that build/linux (and builds from it) are
	# not disturbed while every commit is checked out in turn.
	wt=$BUILD/bisect-wt
	git worktree remove -f "$wt" >/dev/null 2>&1; rm -rf "$wt"; git worktree prune
	git worktree add -q --detach "$wt" base || exit 1
	TREE=$wt
	cd "$wt" || exit 1
	for mode in on off; do
		o=$BUILD/obj-bisect-$mode
		if [[ $mode == on ]]; then frags=("${frag_on[@]}"); else frags=("${frag_off[@]}"); fi
		i=0
		for c in "${commits[@]}"; do
			i=$((i + 1))
			[[ $i -ge ${BISECT_FROM:-1} ]] || continue
			git checkout -q "$c" || { pbad=1; break; }
			s=$(git log -1 --format='%h %s' "$c")
			t1=$SECONDS
			# Configure at every commit: kbuild drops what the commit does not know.
			if ! run_stage --log "$o.log" "check: bisect $mode [$i] $s: build" full_build "$o" x86_64 "" bzImage "${frags[@]}"; then
				echo "bisect $mode [$i] $s: does not build"; grep -E 'error' "$o.log" | head -10; pbad=1
				continue
			fi
			ma=$(grep -c '^CONFIG_MASK_ALLOC=y' "$o/.config")
			kres=
			if [[ $mode == on ]] && grep -qE '^CONFIG_[A-Z_]*KUNIT_TEST=y' "$o/.config"; then
				log=$o.console.log
				run_stage --watch "$log" "check: bisect $mode [$i]: KUnit at boot" \
					"$ROOT/scripts/vm-run.sh" --kernel "$o/arch/x86/boot/bzImage" --mem 5G --timeout 600 \
					--console "$log" -- true >"$o.vm.out" 2>&1
				rc=$?
				r=$(python3 "$ROOT/scripts/ktap.py" parse "$log" 2>&1)
				krc=$?
				kres=" kunit:$(awk '{printf " %s %s/%s", $3, $4, $6}' <<<"$r") (vm-run exit $rc)"
				[[ $rc -eq 0 && $krc -eq 0 && -n $r ]] || { pbad=1; echo "$r"; }
			fi
			echo "bisect $mode [$i] $s: builds (MASK_ALLOC=$ma, $((SECONDS - t1)) s)$kres"
		done
	done
	cd "$ROOT/build/linux" && TREE=$ROOT/build/linux
	git worktree remove -f "$wt" >/dev/null 2>&1; git worktree prune
	part_end "every commit built with the feature on and off, KUnit where it exists"
fi

printf '%s\n' "${summary[@]}"
exit $bad
