/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Harness replacement for mm/mask_alloc_internal.h: the same names, backed
 * by the fakes in shim.h and harness.c.  mm/mask_alloc.c is compiled
 * unchanged against this file.
 */
#ifndef _MM_MASK_ALLOC_INTERNAL_H
#define _MM_MASK_ALLOC_INTERNAL_H

#include "shim.h"
#include "../../../include/linux/mask_alloc.h"

/* The benchmark builds pools above 4 GB; the search does not care. */
#ifndef MASK_POOL_LIMIT
#define MASK_POOL_LIMIT		SZ_4G
#endif

/* Tests build with tiny leaves too, to exercise deep trees. */
#ifndef MASK_SUM_LEAF_WORDS
#define MASK_SUM_LEAF_WORDS	8
#endif

static inline u64 mask_compat_limit(void)
{
	return DMA_BIT_MASK(24);
}

/* As in the kernel's mm/mask_alloc_internal.h. */
struct fail_mask_alloc_attr {
	struct fault_attr attr;
	bool ignore_gfp_reclaim;
	bool bounce_only;
	u32 min_pages;
};

extern struct fail_mask_alloc_attr fail_mask_alloc;

static inline bool mask_free_prepare(struct page *page, unsigned int order)
{
	return free_pages_prepare(page, order);
}

#endif /* _MM_MASK_ALLOC_INTERNAL_H */
