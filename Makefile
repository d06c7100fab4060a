# SPDX-License-Identifier: GPL-2.0
# maskalloc: the maskable DMA allocator for Linux 6.12 LTS.
#
#   make run                 build what is missing, boot, run the demo
#   make run INTERACTIVE=1   ... and give a shell in the guest instead
#   make test                every test: parser, userspace harness, KUnit
#   make test PROFILE=debug  the debug profile: KASAN, lockdep, DEBUG_VM,
#                            DEBUG_PAGEALLOC, PAGE_OWNER, DMA-API debug,
#                            init_on_free=1; edu, disk, KUnit (12-15 min)
#   make test PROFILE=distro the distro profile: Debian's amd64 config, -smp 2,
#                            2 NUMA nodes; edu, disk, stress, mm-stress, KUnit
#   make bench               benchmarks (scripts/bench/*/run), build/bench/*.json
#
# Variables: APPEND="kernel params"  MEM=512M  EXTRA_CONFIG=path/frag.config
#            JOBS=N  W=1 (extra compiler warnings)  PROFILE=debug|distro

SHELL := /bin/bash
export EXTRA_CONFIG JOBS W PROFILE
MEM ?= 512M
APPEND ?=

.PHONY: all run test bench deps tree config kernel initramfs export-patches check \
	reset-tree check-series clean distclean help

all: kernel

help:
	@sed -n '2,16p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@scripts/ensure-deps

tree: deps
	@scripts/prepare-tree

config: tree
	@scripts/configure

kernel: config
	@scripts/build-kernel

initramfs: tree
	@scripts/mkinitramfs

run: kernel initramfs
ifeq ($(INTERACTIVE),1)
	@scripts/vm-run --interactive --mem $(MEM) --append "kunit.enable=0 $(APPEND)" \
		--qemu-args "-device edu"
else
	@scripts/vm-run --mem $(MEM) --append "kunit.enable=0 $(APPEND)" \
		--qemu-args "-device edu" --file scripts/guest/demo.sh -- sh demo.sh
endif

test: deps
	@scripts/run-tests

# Every part under scripts/bench/ in turn (BENCH_PARTS= picks some).
bench: deps
	@scripts/bench/run

# Work in build/linux's git history, then bring it back here.
export-patches:
	@scripts/export-patches

# Throw away local edits and commits in build/linux and re-apply.
reset-tree:
	@git -C build/linux checkout -q -f maskalloc 2>/dev/null; \
	 git -C build/linux reset -q --hard base; rm -f build/tree.stamp; \
	 scripts/prepare-tree

clean:
	rm -rf build/obj build/*.stamp build/test build/initramfs.cpio.gz

distclean:
	rm -rf build

# The 0-day checks (scripts/check-style): checkpatch --strict, kernel-doc,
# git am, sparse and W=1 by default; ARCHES=1, DISTRO=1, BISECT=1 on demand.
check: tree
	@scripts/check-style
