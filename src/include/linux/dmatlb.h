/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmatlb: swiotlb pools carved from the mask pool.
 *
 * With CONFIG_SWIOTLB_MASK_ALLOC and "dmatlb=on" (the default), the
 * default swiotlb allocator takes the memory of its pools from the mask
 * pool, each pool below a physical limit.  A device searches only the
 * pools that lie below its own DMA limit, a new pool is taken below that
 * limit when none has room, and pools that stay idle go back to the mask
 * pool.  Slots, areas and the bounce itself are stock swiotlb.  See
 * Documentation/core-api/mask-allocator.rst.
 */
#ifndef _LINUX_DMATLB_H
#define _LINUX_DMATLB_H

#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/types.h>

struct io_tlb_mem;
struct page;

/**
 * struct dmatlb_stats - swiotlb pools from the mask pool, for tests and debugfs
 * @active: the default swiotlb allocator takes its pools from the mask pool
 * @grown_bytes: bytes dmatlb really added to the mask pool at boot
 * @pools: pools now, the default one included, transient ones not
 * @pool_slots: 2 KiB slots in those pools
 * @used_slots: slots mapped now (transient pools included)
 * @maps: live mappings, counted in the slot metadata (exact when idle)
 * @transient: transient pools now
 * @grown: pools added since boot because a device found no room below
 *	   its limit
 * @grow_failed: growths that found no mask pool memory below the limit
 * @shrunk: pools given back to the mask pool since boot
 * @idle_ms: how long a grown pool must stay unused before it goes back
 * @low_only: swiotlb_exit() ran: only devices whose limit is below 32 bits
 *	      bounce, on demand
 */
struct dmatlb_stats {
	bool active;
	unsigned long grown_bytes;
	unsigned long pools;
	unsigned long pool_slots;
	unsigned long used_slots;
	unsigned long maps;
	unsigned long transient;
	unsigned long grown;
	unsigned long grow_failed;
	unsigned long shrunk;
	unsigned int idle_ms;
	bool low_only;
};

#ifdef CONFIG_SWIOTLB_MASK_ALLOC

DECLARE_STATIC_KEY_FALSE(dmatlb_key);

/**
 * dmatlb_enabled - are swiotlb pools carved from the mask pool?
 *
 * Return: true once dmatlb has been set up at boot ("dmatlb=on").
 */
static inline bool dmatlb_enabled(void)
{
	return static_branch_unlikely(&dmatlb_key);
}

/* For kernel/dma/swiotlb.c. */
bool __init dmatlb_init(bool reserve, unsigned int flags, bool remap,
			unsigned long bytes);
struct page *dmatlb_alloc_tlb(size_t bytes, phys_addr_t limit);
void dmatlb_free_tlb(void *vaddr, size_t bytes);
unsigned long dmatlb_idle_jiffies(void);
void swiotlb_dmatlb_stats(struct dmatlb_stats *st);

void dmatlb_get_stats(struct dmatlb_stats *st);
int dmatlb_parse(const char *s, bool *on);
void dmatlb_shrink_now(void);

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
