// SPDX-License-Identifier: GPL-2.0
/*
 * dmatlb: swiotlb pools carved from the mask pool.
 *
 * Stock swiotlb bounces through a buffer reserved at boot below 4 GB, so a
 * device whose DMA mask is below 32 bits cannot bounce at all, and memory
 * that swiotlb grows (CONFIG_SWIOTLB_DYNAMIC) is never given back.  dmatlb
 * keeps all of swiotlb's machinery (2 KiB slots, per-CPU areas, slot
 * metadata, min_align_mask and alloc_align_mask, transient pools) and
 * changes where pool memory comes from and which pools a device may use:
 *
 *  - Every pool of the default io_tlb_mem is a run of the mask pool
 *    (mm/mask_alloc.c), taken below a physical limit.  The default pool is
 *    one of them, below 4 GB; the mask pool grows at boot by the swiotlb
 *    size when stock swiotlb would have reserved its buffer.
 *  - A device searches only the pools that lie below its own limit, in its
 *    DMA address space (swiotlb_find_slots()).  When none has room, the
 *    mapping is served from a transient pool below that limit, and a
 *    worker adds a pool below it.  So a 28-bit device bounces below
 *    256 MB instead of failing.
 *  - Grown pools that stay unused for the idle period go back to the mask
 *    pool.
 *  - A device that never bounced never looks further than
 *    dev->dma_uses_io_tlb, as with stock CONFIG_SWIOTLB_DYNAMIC.
 *
 * The pool memory is taken with mask_pool_alloc_bounce(), which never
 * sleeps and never tries the buddy allocator: pools must come from the
 * mask pool to go back to it.  This file holds the parameter, the boot
 * decision, the memory source and the statistics; the pool logic lives in
 * kernel/dma/swiotlb.c.  Xen (remapped swiotlb), SWIOTLB_ANY users,
 * memory-encrypted guests, restricted-dma-pool devices and "dmatlb=off"
 * keep stock swiotlb.
 */

#define pr_fmt(fmt) "dmatlb: " fmt

#include <linux/cc_platform.h>
#include <linux/debugfs.h>
#include <linux/dmatlb.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/jiffies.h>
#include <linux/mask_alloc.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/swiotlb.h>

DEFINE_STATIC_KEY_FALSE(dmatlb_key);

static bool dmatlb_on __initdata = true;	/* dmatlb=on|off */
static unsigned long dmatlb_grown_bytes __ro_after_init;

/* How long a grown pool must stay unused before it goes back (debugfs). */
static u32 dmatlb_idle_ms = 10000;

/**
 * dmatlb_parse - parse the value of the dmatlb= parameter
 * @s: "on" or "off", exactly; NULL for a bare "dmatlb"
 * @on: set to true for "on" and false for "off"; untouched on error
 *
 * Context: Any context.
 * Return: 0, or -EINVAL for anything else.
 */
int dmatlb_parse(const char *s, bool *on)
{
	if (s && !strcmp(s, "on"))
		*on = true;
	else if (s && !strcmp(s, "off"))
		*on = false;
	else
		return -EINVAL;
	return 0;
}

static int __init setup_dmatlb(char *s)
{
	if (dmatlb_parse(s, &dmatlb_on))
		pr_err("dmatlb=%s not understood (use on or off), keeping %s\n",
		       s ?: "", dmatlb_on ? "on" : "off");
	return 0;
}
early_param("dmatlb", setup_dmatlb);

/**
 * dmatlb_init - let the default swiotlb allocator take its pools from the
 *	mask pool, if allowed
 * @reserve: stock swiotlb would reserve its buffer now (memory above the
 *	     32-bit limit, or swiotlb=force): grow the mask pool by @bytes
 * @flags: the SWIOTLB_* flags of swiotlb_init_remap()
 * @remap: swiotlb_init_remap() was given a remap function (Xen)
 * @bytes: the swiotlb size (64 MB, or what swiotlb= asked for)
 *
 * Context: Early boot, memblock active, before the mask pool is handed over.
 * Return: true if dmatlb serves the default io_tlb_mem; false for stock.
 */
bool __init dmatlb_init(bool reserve, unsigned int flags, bool remap,
			unsigned long bytes)
{
	const char *why = NULL;

	if (!dmatlb_on)
		why = "dmatlb=off";
	else if (remap)
		why = "remapped bounce buffer (Xen)";
	else if (flags & SWIOTLB_ANY)
		why = "bounce buffer allowed anywhere";
	else if (cc_platform_has(CC_ATTR_MEM_ENCRYPT))
		why = "memory encryption";
	if (why) {
		pr_info("stock swiotlb: %s\n", why);
		return false;
	}

	if (reserve) {
		dmatlb_grown_bytes = increase_mask_zone(bytes);
		if (dmatlb_grown_bytes)
			pr_info("the mask pool grows by %lu MB for swiotlb\n",
				dmatlb_grown_bytes >> 20);
		else
			pr_info("the mask pool does not grow for swiotlb (maskzone= is set, or no memory): the default pool is taken from it as it is\n");
	} else {
		pr_info("no default pool: nothing needs bouncing yet; pools are taken on demand below each device's limit\n");
	}
	static_branch_enable(&dmatlb_key);
	return true;
}

/**
 * dmatlb_alloc_tlb - memory for a swiotlb pool, from the mask pool
 * @bytes: size of the pool
 * @limit: highest physical address any byte of it may have
 *
 * Context: Any context; never sleeps.
 * Return: the first page of a run of PFN_UP(@bytes) pages, or NULL.
 */
struct page *dmatlb_alloc_tlb(size_t bytes, phys_addr_t limit)
{
	struct page *page;

	page = mask_pool_alloc_bounce(PFN_UP(bytes), limit, 0, 0, ~0UL);
	return IS_ERR(page) ? NULL : page;
}

/**
 * dmatlb_free_tlb - give the memory of a swiotlb pool back
 * @vaddr: its start, as dmatlb_alloc_tlb() gave it
 * @bytes: its size
 *
 * Context: Any context that may free pages.
 */
void dmatlb_free_tlb(void *vaddr, size_t bytes)
{
	mask_pool_free_bounce(virt_to_page(vaddr), PFN_UP(bytes));
}

/**
 * dmatlb_idle_jiffies - how long a grown pool must stay unused
 *
 * Context: Any context.
 * Return: the idle period in jiffies.
 */
unsigned long dmatlb_idle_jiffies(void)
{
	return msecs_to_jiffies(READ_ONCE(dmatlb_idle_ms));
}

/**
 * dmatlb_get_stats - the pools now, and what happened to them since boot
 * @st: filled in
 *
 * Context: Any context; walks the pools under RCU.
 */
void dmatlb_get_stats(struct dmatlb_stats *st)
{
	*st = (struct dmatlb_stats){ };
	swiotlb_dmatlb_stats(st);
	st->grown_bytes = dmatlb_grown_bytes;
	st->idle_ms = READ_ONCE(dmatlb_idle_ms);
}
EXPORT_SYMBOL_GPL(dmatlb_get_stats);

#ifdef CONFIG_DEBUG_FS
static int dmatlb_bounce_show(struct seq_file *m, void *v)
{
	struct dmatlb_stats st;

	dmatlb_get_stats(&st);
	seq_printf(m, "active %d\n", st.active);
	seq_printf(m, "grown_bytes %lu\n", st.grown_bytes);
	seq_printf(m, "pools %lu\n", st.pools);
	seq_printf(m, "pool_slots %lu\n", st.pool_slots);
	seq_printf(m, "in_use_slots %lu\n", st.used_slots);
	seq_printf(m, "in_use_maps %lu\n", st.maps);
	seq_printf(m, "transient %lu\n", st.transient);
	seq_printf(m, "grown %lu\n", st.grown);
	seq_printf(m, "grow_failed %lu\n", st.grow_failed);
	seq_printf(m, "shrunk %lu\n", st.shrunk);
	seq_printf(m, "idle_ms %u\n", st.idle_ms);
	seq_printf(m, "low_only %d\n", st.low_only);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dmatlb_bounce);

static int dmatlb_shrink_set(void *data, u64 val)
{
	if (val != 1)
		return -EINVAL;
	dmatlb_shrink_now();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(dmatlb_shrink_fops, NULL, dmatlb_shrink_set, "%llu\n");

/* After mm/mask_alloc.c's late_initcall has created mask_alloc/. */
static int __init dmatlb_debugfs_init(void)
{
	struct dentry *dir = debugfs_lookup("mask_alloc", NULL);

	if (!dir) {
		debugfs_create_dir("mask_alloc", NULL);
		dir = debugfs_lookup("mask_alloc", NULL);
	}
	debugfs_create_file("bounce", 0444, dir, NULL, &dmatlb_bounce_fops);
	debugfs_create_u32("bounce_idle_ms", 0644, dir, &dmatlb_idle_ms);
	debugfs_create_file_unsafe("bounce_shrink", 0200, dir, NULL,
				   &dmatlb_shrink_fops);
	dput(dir);
	return 0;
}
late_initcall_sync(dmatlb_debugfs_init);
#endif /* CONFIG_DEBUG_FS */
