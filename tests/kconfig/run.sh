#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The series' Kconfig, resolved by the tree's own kconfig on x86_64
# tinyconfig with configs/base.config and configs/maskalloc.config, no
# build: dmatlb (SWIOTLB_MASK_ALLOC) depends on SWIOTLB_DYNAMIC and does
# not turn it on behind the user's back (a "select" did, issue 27 point
# 9); with SWIOTLB_DYNAMIC it is on by default; without MASK_ALLOC it is
# off; the symbols the series exports only for its KUnit suites are
# EXPORT_SYMBOL_IF_KUNIT, not EXPORT_SYMBOL_GPL.  TREE=dir picks another
# tree.  Prints KTAP (tests/ktap_helpers.sh) and, last, "kconfig: N
# passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh
. tests/ktap_helpers.sh
check() { ktap_check "$2" "$1" "${3:-}"; } # name ok(1/0) [detail]
ktap_header kconfig
[[ -f $TREE/Makefile ]] || die "$TREE: no kernel tree (make tree)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# resolve NAME LINE...: tinyconfig + the fragments + LINEs, olddefconfig
# in one object directory (kconfig's host tools are built once); the
# .config in $tmp/NAME.config
o=$tmp/obj
resolve() {
	local name=$1; shift
	# shellcheck disable=SC2015 # the block runs when any step fails, as meant
	make -s -C "$TREE" O="$o" ARCH=x86_64 tinyconfig >>"$tmp/log" 2>&1 &&
		cat "$ROOT/configs/base.config" "$ROOT/configs/maskalloc.config" >>"$o/.config" &&
		printf '%s\n' "$@" >>"$o/.config" &&
		make -s -C "$TREE" O="$o" ARCH=x86_64 olddefconfig >>"$tmp/log" 2>&1 &&
		cp "$o/.config" "$tmp/$name.config" ||
		{ cat "$tmp/log" >&2; die "kconfig failed for $name"; }
}
# val NAME SYMBOL: y, m or n
val() {
	local v
	v=$(sed -n "s/^CONFIG_$2=//p" "$tmp/$1.config")
	echo "${v:-n}"
}

resolve nodyn '# CONFIG_SWIOTLB_DYNAMIC is not set' 'CONFIG_SWIOTLB_MASK_ALLOC=y'
d=$(val nodyn SWIOTLB_DYNAMIC) t=$(val nodyn SWIOTLB_MASK_ALLOC)
check "SWIOTLB_DYNAMIC off stays off with dmatlb asked for" "$([[ $d == n ]] && echo 1)" "SWIOTLB_DYNAMIC=$d"
check "dmatlb is off without SWIOTLB_DYNAMIC" "$([[ $t == n ]] && echo 1)" "SWIOTLB_MASK_ALLOC=$t"

resolve dyn 'CONFIG_SWIOTLB_DYNAMIC=y'
d=$(val dyn SWIOTLB_DYNAMIC) t=$(val dyn SWIOTLB_MASK_ALLOC) m=$(val dyn MASK_ALLOC)
check "dmatlb is on by default with SWIOTLB_DYNAMIC and MASK_ALLOC" \
	"$([[ $d == y && $t == y && $m == y ]] && echo 1)" "SWIOTLB_DYNAMIC=$d MASK_ALLOC=$m SWIOTLB_MASK_ALLOC=$t"

resolve nomask 'CONFIG_SWIOTLB_DYNAMIC=y' '# CONFIG_MASK_ALLOC is not set'
t=$(val nomask SWIOTLB_MASK_ALLOC)
check "dmatlb is off without MASK_ALLOC" "$([[ $t == n ]] && echo 1)" "SWIOTLB_MASK_ALLOC=$t"

# The KUnit-only hooks: each is EXPORT_SYMBOL_IF_KUNIT where it is
# defined, and no EXPORT_SYMBOL_GPL of it exists.
bad=
for s in swiotlb_parse swiotlb_limit_nareas dmatlb_grow_now dmatlb_shrink_now \
	dmatlb_get_stats mask_pool_set_force mask_pool_set_reserve mask_pool_unpoison \
	mask_pool_holder_usage; do
	git -C "$TREE" grep -q "^EXPORT_SYMBOL_IF_KUNIT($s);" -- '*.c' || bad+=" $s(no IF_KUNIT export)"
	git -C "$TREE" grep -q "^EXPORT_SYMBOL\(_GPL\)\?($s);" -- '*.c' && bad+=" $s(EXPORT_SYMBOL)"
done
check "KUnit-only hooks are EXPORT_SYMBOL_IF_KUNIT" "$([[ -z $bad ]] && echo 1)" "${bad# }"

ktap_finish
