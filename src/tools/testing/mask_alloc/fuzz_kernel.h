/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A window into mm/mask_alloc.c's private state for the fuzzer
 * (fuzz_kernel.c includes the kernel file, so it sees its statics).
 */
#ifndef MASK_HARNESS_FUZZ_KERNEL_H
#define MASK_HARNESS_FUZZ_KERNEL_H

#include "shim.h"

struct fk_view {
	const unsigned long *owned;
	const unsigned long *used;
	const unsigned long *head;
	const unsigned long *cont;
	unsigned long base_pfn;
	unsigned long max_pfn;
	unsigned long nbits;
	unsigned long cursor;
	unsigned long pool_pages;
	unsigned long free_pages;
	unsigned long misuse;
	bool force;
};

/* Static state of mm/mask_alloc.c back to its initial values. */
void fk_reset(void);
void fk_view(struct fk_view *v);
void fk_set_force(bool force);
/*
 * Check the search summary over bits [@lo, @hi] of the @used bitmap (0,
 * ULONG_MAX: all of it) without changing it: @pre and @suf exact, @best
 * exact or too high (never too low) and exact unless the leaf is marked
 * stale, every inner node above them the combination of its children.
 * Returns NULL, or what is wrong.
 */
const char *fk_check_summary(unsigned long lo, unsigned long hi);

#endif
