# SPDX-License-Identifier: GPL-2.0
# Common settings for the maskalloc build scripts.  Source, do not run.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
TREE=${TREE:-$BUILD/linux}              # extracted 6.12 tree, a git repository
OBJ=${OBJ:-$BUILD/obj}         # out-of-tree kbuild output (O=)
TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
PATCHES=$ROOT/patches          # the patch series (git format-patch) + series
JOBS=${JOBS:-$(nproc)}

# Print a stage banner on stderr so it never mixes with command output.
stage() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
info() { printf '    %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The fragments every test kernel merges on top of tinyconfig, in order.
TEST_FRAGMENTS="base maskalloc kunit edu iommu"

# kmake ARGS...: make in the kernel tree, out of tree in $OBJ, with ccache.
# KARCH (default x86_64) and CROSS_COMPILE pick another architecture.
kmake() {
	local cc="${CROSS_COMPILE:-}gcc" hostcc="gcc"
	if command -v ccache >/dev/null; then cc="ccache $cc"; hostcc="ccache gcc"; fi
	CCACHE_BASEDIR=$ROOT CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros \
	KBUILD_BUILD_TIMESTAMP="${KBUILD_BUILD_TIMESTAMP:-2024-11-17}" \
	KBUILD_BUILD_USER=maskalloc KBUILD_BUILD_HOST=build \
	make -C "$TREE" O="$OBJ" ARCH="${KARCH:-x86_64}" ${CROSS_COMPILE:+CROSS_COMPILE=$CROSS_COMPILE} \
		CC="$cc" HOSTCC="$hostcc" -j"$JOBS" "$@"
}
