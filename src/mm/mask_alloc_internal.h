/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mask_alloc_internal.h - everything mm/mask_alloc.c uses from the kernel.
 *
 * mm/mask_alloc.c includes only this header.  The userspace harness in
 * tools/testing/mask_alloc/ supplies its own file of the same name, with
 * the same names backed by a fake memory arena, and compiles
 * mm/mask_alloc.c unchanged.  Anything new that mask_alloc.c needs from
 * the kernel must be added here and to the harness.
 *
 * Kernel names used (all of them):
 *  - pages:     page_to_pfn, pfn_to_page, page_to_phys, page_address,
 *               virt_to_page, put_page_testzero, set_page_count,
 *               ClearPageReserved, clear_page_tag_ref, get_order
 *  - mm/internal.h: post_alloc_hook, set_page_refcounted, prep_new_page
 *               (made non-static for this file), free_pages_prepare
 *  - buddy:     alloc_pages_node_noprof, __free_pages, max_low_pfn
 *  - hooks:     kmsan_alloc_page, memcg_kmem_charge_page, PageHWPoison,
 *               ClearPageHWPoison, alloc_hooks (in <linux/mask_alloc.h>)
 *  - memblock:  for_each_free_mem_range, PHYS_ADDR_MAX, memblock_reserve, memblock_alloc,
 *               memblock_free, accept_memory
 *  - sync:      spinlock, wait queue (wait_event_killable_timeout), jiffies,
 *               static key, atomic_long
 *  - vmstat:    count_vm_event(s) with the MASK_* events
 *  - bits:      __ffs, __fls, hweight_long, roundup_pow_of_two, round_up,
 *               BITMAP_LAST_WORD_MASK
 *  - misc:      kstrtoull, WARN_ON_ONCE, pr_*, debugfs/seq_file,
 *               early_param, late_initcall, zone_dma_limit
 *  - fault injection (CONFIG_FAIL_MASK_ALLOC): struct fault_attr,
 *               FAULT_ATTR_INITIALIZER, should_fail_ex, setup_fault_attr,
 *               fault_create_debugfs_attr, debugfs_create_bool/u32
 */
#ifndef _MM_MASK_ALLOC_INTERNAL_H
#define _MM_MASK_ALLOC_INTERNAL_H

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/dma-direct.h>
#include <linux/export.h>
#include <linux/fault-inject.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/jiffies.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/kmsan.h>
#include <linux/log2.h>
#include <linux/mask_alloc.h>
#include <linux/memblock.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/pgalloc_tag.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmstat.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "internal.h"

/* The pool never extends above this physical address. */
#ifdef CONFIG_64BIT
#define MASK_POOL_LIMIT		SZ_4G
#else
#define MASK_POOL_LIMIT		SZ_2G
#endif

/*
 * Words of the used bitmap per leaf of the search summary: 8 (512 pages,
 * 2 MiB of pool) bounds a leaf scan to 8 words and makes the summary
 * 24 bytes per 64 bytes of bitmap (24 KiB for a 2 GiB pool).  Larger
 * leaves cost less memory but make a search in a nearly full pool longer
 * (Documentation/core-api/mask-allocator.rst).
 */
#define MASK_SUM_LEAF_WORDS	8

/* The address limit GFP_DMA stands for (16 MB on x86). */
static inline u64 mask_compat_limit(void)
{
	return zone_dma_limit;
}

/*
 * Run mm's normal free preparation (checks, KASAN/init_on_free, page_owner,
 * alloc tag, debug_pagealloc) on pool pages.  free_pages_prepare() ends in
 * the mask_pool_release() hook for pool pages once the pool is enabled.
 */
static inline bool mask_free_prepare(struct page *page, unsigned int order)
{
	return free_pages_prepare(page, order);
}

#ifdef CONFIG_FAIL_MASK_ALLOC
/**
 * struct fail_mask_alloc_attr - fault injection into the pool (fail_mask_alloc)
 * @attr: the standard attribute: probability, interval, times, space (in
 *	pages), verbose, task-filter...
 * @ignore_gfp_reclaim: "ignore-gfp-wait": never fail requests that may sleep
 * @bounce_only: "bounce-only": fail only mask_pool_alloc_bounce() (swiotlb
 *	bounce buffers), never the allocation API, GFP_DMA or coherent DMA
 * @min_pages: "min-pages": never fail requests of fewer pages
 *
 * Written from debugfs or by KUnit, read without a lock: a change applies
 * to the requests that start after it.
 */
struct fail_mask_alloc_attr {
	struct fault_attr attr;
	bool ignore_gfp_reclaim;
	bool bounce_only;
	u32 min_pages;
};

extern struct fail_mask_alloc_attr fail_mask_alloc;
#endif

#if IS_ENABLED(CONFIG_KUNIT)
/* Hooks for mm/tests/mask_alloc_kunit.c only. */
bool mask_pool_set_force(bool force);
bool mask_pool_unpoison(struct page *page);
#endif

#endif /* _MM_MASK_ALLOC_INTERNAL_H */
