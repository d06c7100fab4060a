/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Maskable DMA page allocator: allocate pages below an arbitrary physical
 * address limit ("mask") from a boot-time pool of low memory.
 *
 * Sizes are in bytes and are rounded up to whole pages, never to a power
 * of two.  The mask is an address limit: every byte of the allocation lies
 * at or below it.  See mm/mask_alloc.c for the design.
 */
#ifndef _LINUX_MASK_ALLOC_H
#define _LINUX_MASK_ALLOC_H

#include <linux/types.h>
#include <linux/init.h>
#include <linux/gfp.h>
#include <linux/jump_label.h>
#include <linux/mm.h>

/* Sizes below this are almost surely an order passed by mistake. */
#define MASK_MIN_SIZE	16

/**
 * struct mask_pool_stats - snapshot of the pool, for tests and debugfs
 * @pool_bytes: bytes owned by the pool (holes excluded)
 * @free_bytes: bytes currently free in the pool
 * @used_bytes: bytes currently allocated from the pool
 * @lowest_addr: physical address of the lowest pool page
 * @highest_addr: physical address of the last byte of the highest pool page
 * @largest_free_bytes: size of the largest free contiguous run
 * @misuse: API misuse detected so far (bad sizes, flags, double frees...)
 * @injected: allocations failed on purpose by fault injection
 *	(CONFIG_FAIL_MASK_ALLOC) so far
 * @pool_pages: pages owned by the pool
 * @free_pages: pages currently free
 * @force: true if "maskzone=force" disabled the normal-zone attempt
 * @timeout_ms: current bound for blocking allocations, in milliseconds
 * @hwpoison_pages: pool pages found marked HWPoison by an allocation and
 *	kept out of use for good
 *
 * All fields are zero before the pool has been handed over.
 */
struct mask_pool_stats {
	u64 pool_bytes;
	u64 free_bytes;
	u64 used_bytes;
	u64 lowest_addr;
	u64 highest_addr;
	u64 largest_free_bytes;
	unsigned long misuse;
	unsigned long injected;
	unsigned long pool_pages;
	unsigned long free_pages;
	bool force;
	unsigned int timeout_ms;
	unsigned long hwpoison_pages;
};

#ifdef CONFIG_MASK_ALLOC

DECLARE_STATIC_KEY_FALSE(mask_pool_key);

extern unsigned long mask_timeout;
/* The pfns the pool's bitmaps cover: [mask_pool_span_base, + _pages). */
extern unsigned long mask_pool_span_base;
extern unsigned long mask_pool_span_pages;

/*
 * The allocation functions are wrapped in alloc_hooks(), as the page
 * allocator's are in <linux/gfp.h>, so that memory allocation profiling
 * charges the pages to the caller.  Allocators that forward a caller's
 * request (mempools) call the _noprof versions.
 */
struct page *alloc_pages_mask_node_noprof(int nid, gfp_t gfp, size_t size,
					  u64 mask);
#define alloc_pages_mask_node(...) \
	alloc_hooks(alloc_pages_mask_node_noprof(__VA_ARGS__))
struct page *alloc_pages_mask_noprof(gfp_t gfp, size_t size, u64 mask);
#define alloc_pages_mask(...)	alloc_hooks(alloc_pages_mask_noprof(__VA_ARGS__))
void *get_pages_mask_noprof(gfp_t gfp, size_t size, u64 mask);
#define get_pages_mask(...)	alloc_hooks(get_pages_mask_noprof(__VA_ARGS__))
void __free_pages_mask(struct page *page, size_t size);
void free_pages_mask(void *addr, size_t size);

/* Hooks for the core page allocator. */
bool __mask_pool_page(const struct page *page);
bool mask_pool_free_ok(struct page *page, unsigned int nr_pages);
void mask_pool_release(struct page *page, unsigned int nr_pages);
struct page *mask_pool_alloc_compat(gfp_t gfp, unsigned int order);

/* Bounce buffers for swiotlb (kernel/dma/dmatlb.c): pool only, no waiting. */
struct page *mask_pool_alloc_bounce_noprof(unsigned long nr, u64 limit,
					   unsigned long align_mask,
					   unsigned long align_pfn,
					   unsigned long boundary_mask);
#define mask_pool_alloc_bounce(...) \
	alloc_hooks(mask_pool_alloc_bounce_noprof(__VA_ARGS__))
void mask_pool_free_bounce(struct page *page, unsigned long nr);

/* Boot: reserve (memblock active), then hand over after memblock_free_all(). */
void __init mask_pool_reserve_low(phys_addr_t limit);
unsigned long __init increase_mask_zone(unsigned long size);
void __init mask_pool_handover(void);

void mask_pool_get_stats(struct mask_pool_stats *st);
u64 mask_pool_min_mask(void);
int mask_zone_parse(const char *s, u64 *size, bool *force);

/**
 * mask_pool_enabled - has the pool been handed over and is it in use?
 *
 * Context: Any context.
 * Return: true once mask_pool_handover() has put at least one page in the pool.
 */
static __always_inline bool mask_pool_enabled(void)
{
	return static_branch_unlikely(&mask_pool_key);
}

/**
 * mask_pool_page - is @page owned by the mask pool?
 * @page: any page
 *
 * Every page free runs this: a static key, then one inline range check of
 * the pfn against the pool's span, and only for pages inside the span the
 * out-of-line ownership test.  Holes in the pool (kernel text, firmware)
 * are not pool pages.
 *
 * Context: Any context.
 * Return: true if @page belongs to the pool and must be returned to it.
 */
static __always_inline bool mask_pool_page(const struct page *page)
{
	return mask_pool_enabled() &&
	       page_to_pfn(page) - mask_pool_span_base < mask_pool_span_pages &&
	       __mask_pool_page(page);
}

#else /* !CONFIG_MASK_ALLOC */

#include <linux/dma-mapping.h>

/*
 * Without the pool, pick the smallest zone that satisfies the mask and
 * reject results above it.  There is no guarantee that memory is found.
 */
static inline gfp_t mask_alloc_zone_gfp(u64 mask)
{
	if (IS_ENABLED(CONFIG_ZONE_DMA) && mask < DMA_BIT_MASK(32))
		return GFP_DMA;
	if (IS_ENABLED(CONFIG_ZONE_DMA32) && mask < DMA_BIT_MASK(64))
		return GFP_DMA32;
	return 0;
}

static inline struct page *alloc_pages_mask_node_noprof(int nid, gfp_t gfp,
							size_t size, u64 mask)
{
	unsigned int order;
	struct page *page;

	if (WARN_ON_ONCE(size < MASK_MIN_SIZE))
		return NULL;
	order = get_order(size);
	page = alloc_pages_node_noprof(nid, gfp | mask_alloc_zone_gfp(mask), order);
	if (page && page_to_phys(page) + size - 1 > mask) {
		__free_pages(page, order);
		page = NULL;
	}
	return page;
}

static inline struct page *alloc_pages_mask_noprof(gfp_t gfp, size_t size,
						   u64 mask)
{
	return alloc_pages_mask_node_noprof(NUMA_NO_NODE, gfp, size, mask);
}

static inline void *get_pages_mask_noprof(gfp_t gfp, size_t size, u64 mask)
{
	struct page *page = alloc_pages_mask_noprof(gfp, size, mask);

	return page ? page_address(page) : NULL;
}

static inline void __free_pages_mask(struct page *page, size_t size)
{
	if (!WARN_ON_ONCE(size < MASK_MIN_SIZE))
		__free_pages(page, get_order(size));
}

static inline void free_pages_mask(void *addr, size_t size)
{
	if (addr)
		__free_pages_mask(virt_to_page(addr), size);
}

static __always_inline bool mask_pool_enabled(void)
{
	return false;
}

static __always_inline bool mask_pool_page(const struct page *page)
{
	return false;
}

static inline bool mask_pool_free_ok(struct page *page, unsigned int nr_pages)
{
	return true;
}

static inline void mask_pool_release(struct page *page, unsigned int nr_pages)
{
}

static inline struct page *mask_pool_alloc_compat(gfp_t gfp, unsigned int order)
{
	return NULL;
}

static inline void mask_pool_reserve_low(phys_addr_t limit)
{
}

static inline unsigned long increase_mask_zone(unsigned long size)
{
	return 0;
}

static inline void mask_pool_handover(void)
{
}

static inline void mask_pool_get_stats(struct mask_pool_stats *st)
{
	*st = (struct mask_pool_stats){ };
}

static inline u64 mask_pool_min_mask(void)
{
	return 0;
}

#define alloc_pages_mask_node(...) \
	alloc_hooks(alloc_pages_mask_node_noprof(__VA_ARGS__))
#define alloc_pages_mask(...)	alloc_hooks(alloc_pages_mask_noprof(__VA_ARGS__))
#define get_pages_mask(...)	alloc_hooks(get_pages_mask_noprof(__VA_ARGS__))

#endif /* CONFIG_MASK_ALLOC */

#define alloc_page_mask(gfp, mask)	alloc_pages_mask(gfp, PAGE_SIZE, mask)
#define get_page_mask(gfp, mask)	get_pages_mask(gfp, PAGE_SIZE, mask)
#define __free_page_mask(page)		__free_pages_mask(page, PAGE_SIZE)
#define free_page_mask(addr)		free_pages_mask(addr, PAGE_SIZE)

#endif /* _LINUX_MASK_ALLOC_H */
