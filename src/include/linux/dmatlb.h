/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmatlb: swiotlb bounce buffers taken from the mask pool.
 *
 * With CONFIG_SWIOTLB_MASK_ALLOC and "dmatlb=on" (the default), the
 * default swiotlb allocator bounces through the mask pool instead of its
 * own fixed buffer.  Each bounce buffer is placed below the mapping
 * device's own DMA limit, so devices with masks below 32 bits can bounce
 * too.  See Documentation/core-api/mask-allocator.rst.
 */
#ifndef _LINUX_DMATLB_H
#define _LINUX_DMATLB_H

#include <linux/dma-direction.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/types.h>

struct device;
struct io_tlb_mem;
struct io_tlb_pool;

/**
 * struct dmatlb_stats - bounce buffer usage, for tests and debugfs
 * @active: the default swiotlb allocator bounces through the mask pool
 * @in_use_pages: pool pages held by bounce buffers now
 * @in_use_maps: bounce buffers mapped now
 * @hiwater_pages: highest @in_use_pages seen since boot
 * @failed: mappings that could not get a bounce buffer
 * @grown_bytes: bytes dmatlb asked to add to the mask pool at boot
 */
struct dmatlb_stats {
	bool active;
	unsigned long grown_bytes;
	unsigned long in_use_pages;
	unsigned long in_use_maps;
	unsigned long hiwater_pages;
	unsigned long failed;
};

/* The pseudo pool that swiotlb_find_pool() returns for bounce pages. */
extern struct io_tlb_pool dmatlb_pool;

struct io_tlb_pool *dmatlb_find_pool(phys_addr_t paddr);

/*
 * For kernel/dma/swiotlb.c only, which calls them behind
 * IS_ENABLED(CONFIG_SWIOTLB_MASK_ALLOC) or io_tlb_mem.maskpool.
 */
bool __init dmatlb_init(struct io_tlb_mem *mem, bool reserve,
			unsigned int flags, bool remap, unsigned long bytes);
phys_addr_t dmatlb_map(struct device *dev, phys_addr_t orig_addr,
		       size_t mapping_size, unsigned int alloc_align_mask,
		       enum dma_data_direction dir, unsigned long attrs,
		       unsigned long *nslabs);
unsigned long dmatlb_unmap(struct device *dev, phys_addr_t tlb_addr,
			   size_t mapping_size, enum dma_data_direction dir,
			   unsigned long attrs);
void dmatlb_sync_for_device(struct device *dev, phys_addr_t tlb_addr,
			    size_t size, enum dma_data_direction dir);
void dmatlb_sync_for_cpu(struct device *dev, phys_addr_t tlb_addr,
			 size_t size, enum dma_data_direction dir);

#ifdef CONFIG_SWIOTLB_MASK_ALLOC

DECLARE_STATIC_KEY_FALSE(dmatlb_key);

/**
 * dmatlb_enabled - may any io_tlb_mem bounce through the mask pool?
 *
 * Return: true once dmatlb has been set up at boot ("dmatlb=on").
 */
static inline bool dmatlb_enabled(void)
{
	return static_branch_unlikely(&dmatlb_key);
}

void dmatlb_get_stats(struct dmatlb_stats *st);
int dmatlb_parse(const char *s, bool *on);

#else /* !CONFIG_SWIOTLB_MASK_ALLOC */

static inline bool dmatlb_enabled(void)
{
	return false;
}

static inline void dmatlb_get_stats(struct dmatlb_stats *st)
{
	*st = (struct dmatlb_stats){ };
}

#endif /* CONFIG_SWIOTLB_MASK_ALLOC */

#endif /* _LINUX_DMATLB_H */
