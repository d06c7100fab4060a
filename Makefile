# SPDX-License-Identifier: GPL-2.0
# maskalloc: the maskable DMA allocator for Linux 6.12 LTS.
#
# `make help` lists the targets and the variables, from the "## " comment
# of each target and the "#: " lines below: document a new one there.

#: APPEND kernel parameters for make run
#: MEM guest memory for make run (default 512M)
#: INTERACTIVE 1: make run gives a shell in the guest
#: PROFILE make test: normal (default), debug or distro
#: T make test: only the tests whose name matches one of these shell patterns (T="lend kunit*")
#: LIST 1: make test lists the profile's tests (names for T) and runs nothing
#: SLOW 1: make test also builds and boots the tree without the mask allocator (CI does)
#: TEST_TIMEOUT make test: seconds before a test counts as hung (default 900)
#: EXTRA_CONFIG more Kconfig fragments, merged last
#: JOBS parallel build jobs (default: the number of CPUs)
#: W 1: extra compiler warnings (W=1)
#: V 1: stages stream their output and kbuild its commands, vm-run the console
#: BENCH_PARTS make bench: the parts to run (default all)
#: ARCHES 1: make check builds x86_64 on/off, i386, arm64
#: DISTRO 1: make check builds the touched files with Debian's config
#: BISECT 1: make check builds and tests every commit (BISECT_FROM=N)
#: ZERODAY 1: make check also builds with LLVM=1, runs make htmldocs and coccicheck
SHELL := /bin/bash
export EXTRA_CONFIG JOBS W V PROFILE T LIST SLOW
MEM ?= 512M
APPEND ?=

.PHONY: all run test bench deps tree config kernel initramfs export-patches check \
	reset-tree clean distclean help

all: kernel ## build the kernel (same as kernel)

help: ## this list, generated from the Makefile's own comments
	@echo "Targets:"
	@sed -n 's/^\([a-z-]*\):.*## \(.*\)/  make \1\t\2/p' $(firstword $(MAKEFILE_LIST)) | expand -t 24
	@echo "Variables:"
	@sed -n 's/^#: \([A-Z_]*\) \(.*\)/  \1\t\2/p' $(firstword $(MAKEFILE_LIST)) | expand -t 24

deps: ## install the Debian packages the build and tests need (apt)
	@scripts/ensure-deps.sh

tree: deps ## build/linux: the pristine 6.12 tree + patches/ as git commits
	@scripts/prepare-tree.sh

config: tree ## build/obj/.config: tinyconfig + configs/*.config (+ EXTRA_CONFIG)
	@scripts/configure.sh

kernel: config ## build build/obj/arch/x86/boot/bzImage
	@scripts/build-kernel.sh

initramfs: tree ## the busybox initramfs the guests boot
	@scripts/mkinitramfs.sh

run: kernel initramfs ## build what is missing, boot, run the demo (INTERACTIVE=1: a shell)
ifeq ($(INTERACTIVE),1)
	@scripts/vm-run.sh --interactive --mem $(MEM) --append "kunit.enable=0 $(APPEND)" \
		--qemu-args "-device edu"
else
	@scripts/vm-run.sh --mem $(MEM) --append "kunit.enable=0 $(APPEND)" \
		--qemu-args "-device edu" --file scripts/guest/demo.sh -- sh demo.sh
endif

test: deps ## every test; the last line is "N passed, N failed" (PROFILE=debug|distro)
	@scripts/run-tests.sh

# Every part under scripts/bench/ in turn (BENCH_PARTS= picks some).
bench: deps ## the benchmarks under scripts/bench/ (BENCH_PARTS=...): build/bench/<part>.json and .png
	@scripts/bench/run.sh

# Work in build/linux's git history, then bring it back here.
export-patches: ## build/linux history -> patches/ (format-patch, cover letter, series)
	@scripts/export-patches.sh

# Throw away local edits and commits in build/linux and re-apply.
reset-tree: ## throw away local commits and edits in build/linux and re-apply
	@git -C build/linux checkout -q -f maskalloc 2>/dev/null; \
	 git -C build/linux reset -q --hard base; rm -f build/tree.stamp; \
	 scripts/prepare-tree.sh

clean: ## remove what builds, tests and benchmarks left (keeps the tree and build/deps.log)
	rm -rf build/obj build/obj-* build/obj.* build/*.stamp build/test build/test-* \
		build/bench build/check-fragments build/initramfs* build/tools \
		build/ci-background-builds.log

distclean: ## remove build/ entirely
	rm -rf build

# The review checks (scripts/check-style.sh): shellcheck and pyflakes on the
# scripts, every profile's fragments (configure, no build), checkpatch
# --strict, kernel-doc, git am, sparse and W=1 by default; ARCHES=1,
# DISTRO=1, BISECT=1, ZERODAY=1 (LLVM=1, htmldocs, coccicheck) on demand.
check: tree ## shellcheck, pyflakes, fragments, checkpatch, kernel-doc, git am, sparse, W=1 (ARCHES=1 DISTRO=1 BISECT=1 ZERODAY=1)
	@scripts/check-style.sh
