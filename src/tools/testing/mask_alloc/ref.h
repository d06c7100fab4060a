/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The seed's linear pool search, kept as the reference for the search
 * summary in mm/mask_alloc.c.  It runs on its own copy of the @used bitmap.
 */
#ifndef MASK_HARNESS_REF_H
#define MASK_HARNESS_REF_H

#include "shim.h"

#define REF_NO_PFN	ULONG_MAX

struct ref_pool {
	unsigned long *used;	/* bit set: allocated or hole */
	unsigned long base_pfn;
	unsigned long max_pfn;	/* bit index = max_pfn - pfn */
	unsigned long nbits;
	unsigned long cursor;
	unsigned long pool_pages;
	unsigned long skipped;	/* MASK_BITMAP_SKIP of the reference */
};

/* Copy the live pool state from debugfs "map" (cursor 0, as after boot). */
int ref_init_from_map(struct ref_pool *r);
void ref_destroy(struct ref_pool *r);
/* mask_pool_find() with the linear scan: first pfn or REF_NO_PFN. */
unsigned long ref_find(struct ref_pool *r, unsigned long nr,
		       unsigned long end_pfn, unsigned long align_mask,
		       unsigned long align_pfn, unsigned long boundary_mask);
void ref_release(struct ref_pool *r, unsigned long pfn, unsigned long nr);

#endif
