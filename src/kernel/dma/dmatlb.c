// SPDX-License-Identifier: GPL-2.0
/*
 * dmatlb: swiotlb bounce buffers from the mask pool.
 *
 * Stock swiotlb bounces through one fixed buffer below 4 GB.  dmatlb
 * bounces through the mask pool instead (mm/mask_alloc.c), the same
 * memory that serves GFP_DMA and coherent allocations below small masks:
 *
 *  - Each bounce buffer is searched below the mapping device's own DMA
 *    limit, top-down, so it lies as low as the device needs and no lower.
 *    A device with a 24- or 28-bit mask can bounce; with stock swiotlb its
 *    mapping fails.
 *  - The pool grows at boot by the swiotlb size (64 MB, or swiotlb=) when
 *    stock swiotlb would have reserved its buffer.  Otherwise bouncing is
 *    still available for devices with small masks, from the pool as it is.
 *  - Bounce buffers are whole pages.  The bounce address keeps the
 *    original's offset within the page, and its bits under the device's
 *    min_align_mask; the buffer's first page is aligned to
 *    alloc_align_mask + 1, as in stock swiotlb, and the buffer does not
 *    cross the device's DMA segment boundary.
 *  - The mapping is recorded in the bounce pages' own struct page (page
 *    type PGTY_dmatlb, see mm_types.h), so syncs of any sub-range work and
 *    swiotlb_find_pool() recognises a bounce buffer exactly: other pool
 *    pages never carry the page type.
 *
 * Only the default io_tlb_mem uses dmatlb.  Xen (remapped swiotlb),
 * SWIOTLB_ANY users, memory-encrypted guests and restricted-dma-pool
 * devices keep stock swiotlb, as does "dmatlb=off".  swiotlb.c calls in
 * here from swiotlb_init_remap(), swiotlb_tbl_map_single(), the unmap and
 * sync functions, and swiotlb_find_pool(), when io_tlb_mem.maskpool is set.
 */

#define pr_fmt(fmt) "dmatlb: " fmt

#include <linux/atomic.h>
#include <linux/cc_platform.h>
#include <linux/debugfs.h>
#include <linux/dma-direct.h>
#include <linux/dma-map-ops.h>
#include <linux/dmatlb.h>
#include <linux/err.h>
#include <linux/init.h>
#include <linux/kmsan-checks.h>
#include <linux/mask_alloc.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/swiotlb.h>
#include <linux/vmstat.h>

/* The five words of struct page that dmatlb uses hold physical addresses. */
static_assert(sizeof(phys_addr_t) <= sizeof(unsigned long));
static_assert(offsetof(struct page, _dmatlb_mapping) ==
	      offsetof(struct page, mapping));

/* Bounce pages are order-0 folios of type dmatlb. */
static inline bool dmatlb_page(const struct page *page)
{
	return folio_test_dmatlb(page_folio(page));
}

/* Slabs of stock swiotlb per page, for its debugfs counters. */
#define DMATLB_SLABS_PER_PAGE	(PAGE_SIZE >> IO_TLB_SHIFT)

/* The pool lies below 4 GB: bigger mappings can never fit. */
#define DMATLB_MAX_SIZE		((size_t)SZ_4G)

/* The low 24 bits of page_type are ours: pages in the bounce buffer. */
#define DMATLB_NR_MASK		0xffffffU

DEFINE_STATIC_KEY_FALSE(dmatlb_key);
EXPORT_SYMBOL_GPL(dmatlb_key);

/* Never dereferenced: swiotlb_find_pool() returns it for bounce pages. */
struct io_tlb_pool dmatlb_pool;
EXPORT_SYMBOL_GPL(dmatlb_pool);

static bool dmatlb_on __initdata = true;	/* dmatlb=on|off */
static struct io_tlb_mem *dmatlb_mem __ro_after_init;
static unsigned long dmatlb_grown_bytes __ro_after_init;

static atomic_long_t dmatlb_in_use_pages = ATOMIC_LONG_INIT(0);
static atomic_long_t dmatlb_in_use_maps = ATOMIC_LONG_INIT(0);
static atomic_long_t dmatlb_hiwater_pages = ATOMIC_LONG_INIT(0);
static atomic_long_t dmatlb_failed = ATOMIC_LONG_INIT(0);

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
 * dmatlb_init - take over the default swiotlb allocator, if allowed
 * @mem: the default io_tlb_mem
 * @reserve: stock swiotlb would reserve its buffer now (memory above the
 *	     32-bit limit, or swiotlb=force): grow the pool by @bytes
 * @flags: the SWIOTLB_* flags of swiotlb_init_remap()
 * @remap: swiotlb_init_remap() was given a remap function (Xen)
 * @bytes: the swiotlb size (64 MB, or what swiotlb= asked for)
 *
 * Context: Early boot, memblock active, before the mask pool is handed over.
 * Return: true if dmatlb serves @mem; false to set up stock swiotlb.
 */
bool __init dmatlb_init(struct io_tlb_mem *mem, bool reserve,
			unsigned int flags, bool remap, unsigned long bytes)
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
		increase_mask_zone(bytes);
		dmatlb_grown_bytes = bytes;
	}
	mem->maskpool = true;
	/* Nonzero for is_swiotlb_active(); the pool size once it is known. */
	mem->nslabs = max(bytes >> IO_TLB_SHIFT, 1UL);
	dmatlb_mem = mem;
	static_branch_enable(&dmatlb_key);
	return true;
}

static void __init dmatlb_print_info(void)
{
	struct mask_pool_stats st;

	mask_pool_get_stats(&st);
	pr_info("bounce buffers from the mask pool [mem %#llx-%#llx] (%llu MB)%s\n",
		st.lowest_addr, st.highest_addr, st.pool_bytes >> 20,
		dmatlb_mem && dmatlb_mem->force_bounce ? ", forced" : "");
}

static int __init dmatlb_late_init(void)
{
	struct mask_pool_stats st;

	if (!dmatlb_mem)
		return 0;
	mask_pool_get_stats(&st);
	if (!st.pool_pages)
		pr_warn("no mask pool: every bounce mapping will fail\n");
	else
		dmatlb_mem->nslabs = st.pool_pages * DMATLB_SLABS_PER_PAGE;
	dmatlb_print_info();
	return 0;
}
core_initcall(dmatlb_late_init);

/**
 * dmatlb_find_pool - is @paddr inside a dmatlb bounce buffer?
 * @paddr: physical address
 *
 * Exact: GFP_DMA and coherent memory from the mask pool is never a bounce
 * buffer, because only bounce pages carry the PGTY_dmatlb page type.
 *
 * Context: Any context.
 * Return: &dmatlb_pool if @paddr lies in a bounce buffer, else NULL.
 */
struct io_tlb_pool *dmatlb_find_pool(phys_addr_t paddr)
{
	unsigned long pfn = PHYS_PFN(paddr);

	if (!pfn_valid(pfn) || !dmatlb_page(pfn_to_page(pfn)))
		return NULL;
	return &dmatlb_pool;
}
EXPORT_SYMBOL_GPL(dmatlb_find_pool);

/* The highest physical address a bounce buffer for @dev may use. */
static phys_addr_t dmatlb_phys_limit(struct device *dev)
{
	u64 dma_limit;

#ifdef CONFIG_IOMMU_DMA
	/* dma-iommu maps the bounce buffer through the IOMMU: anywhere will do. */
	if (dev->dma_iommu)
		return PHYS_ADDR_MAX;
#endif
	dma_limit = min_not_zero(dma_get_mask(dev), dev->bus_dma_limit);
	return dma_to_phys(dev, dma_limit);
}

/*
 * Copy between the original buffer and the bounce buffer, for @size bytes
 * from bounce address @tlb_addr, which may be anywhere inside a mapping.
 */
static void dmatlb_bounce(struct device *dev, phys_addr_t tlb_addr,
			  size_t size, enum dma_data_direction dir)
{
	struct page *page = pfn_to_page(PHYS_PFN(tlb_addr));
	unsigned long off, left;
	void *orig, *tlb;

	if (tlb_addr < page->dmatlb_tlb ||
	    tlb_addr - page->dmatlb_tlb > page->dmatlb_size) {
		dev_WARN_ONCE(dev, 1, "dmatlb: sync at %pa is outside the mapping at %#lx+%lu\n",
			      &tlb_addr, page->dmatlb_tlb, page->dmatlb_size);
		return;
	}
	off = tlb_addr - page->dmatlb_tlb;
	left = page->dmatlb_size - off;
	if (size > left) {
		dev_WARN_ONCE(dev, 1,
			      "Buffer overflow detected. Allocation size: %lu. Mapping size: %zu.\n",
			      left, size);
		size = left;
	}
	orig = phys_to_virt(page->dmatlb_orig + off);
	tlb = phys_to_virt(tlb_addr);
	if (dir == DMA_TO_DEVICE) {
		memcpy(tlb, orig, size);
	} else {
		kmsan_unpoison_memory(tlb, size);
		memcpy(orig, tlb, size);
	}
}

static void dmatlb_account_map(unsigned long nr)
{
	long used = atomic_long_add_return(nr, &dmatlb_in_use_pages);
	long old = atomic_long_read(&dmatlb_hiwater_pages);

	while (used > old &&
	       !atomic_long_try_cmpxchg(&dmatlb_hiwater_pages, &old, used))
		;
	atomic_long_inc(&dmatlb_in_use_maps);
}

static void dmatlb_map_failed(struct device *dev, size_t size, phys_addr_t limit,
			      long err, unsigned long attrs)
{
	struct mask_pool_stats st;
	const char *why;

	atomic_long_inc(&dmatlb_failed);
	if (attrs & DMA_ATTR_NO_WARN)
		return;
	switch (err) {
	case -ERANGE:
		why = "no pool memory lies below the device's DMA limit";
		break;
	case -E2BIG:
		why = "too big for the pool below the device's DMA limit or for its DMA segment";
		break;
	case -ENOMEM:
		why = "the pool is full below the device's DMA limit";
		break;
	default:
		why = "invalid request";
	}
	mask_pool_get_stats(&st);
	dev_warn_ratelimited(dev, "dmatlb: cannot bounce %zu bytes below %pa: %s (%llu KiB of %llu KiB free)\n",
			     size, &limit, why, st.free_bytes >> 10,
			     st.pool_bytes >> 10);
}

/**
 * dmatlb_map - map a bounce buffer from the mask pool
 * @dev: the device
 * @orig_addr: physical address of the original buffer
 * @mapping_size: bytes to map
 * @alloc_align_mask: the buffer's first page is aligned to this plus one
 * @dir: DMA direction
 * @attrs: DMA attributes (DMA_ATTR_NO_WARN is honoured)
 * @nslabs: set to the stock swiotlb slabs the buffer stands for
 *
 * The bounce buffer is filled from the original whatever @dir and @attrs
 * say, so a device that writes only part of it cannot expose stale data.
 *
 * Context: Any context; never sleeps.
 * Return: the bounce address, or DMA_MAPPING_ERROR.
 */
phys_addr_t dmatlb_map(struct device *dev, phys_addr_t orig_addr,
		       size_t mapping_size, unsigned int alloc_align_mask,
		       enum dma_data_direction dir, unsigned long attrs,
		       unsigned long *nslabs)
{
	unsigned long min_mask = dma_get_min_align_mask(dev) | ~PAGE_MASK;
	unsigned long align = (unsigned long)alloc_align_mask | ~PAGE_MASK;
	phys_addr_t limit = dmatlb_phys_limit(dev), tlb_addr;
	unsigned long pad, nr, i, start;
	struct page *page;

	if (WARN_ON_ONCE(!dmatlb_enabled()) ||
	    WARN_ON_ONCE(!valid_dma_direction(dir))) {
		atomic_long_inc(&dmatlb_failed);
		return (phys_addr_t)DMA_MAPPING_ERROR;
	}
	if (unlikely(!mapping_size || mapping_size >= DMATLB_MAX_SIZE)) {
		dev_WARN_ONCE(dev, !mapping_size, "dmatlb: zero-sized mapping\n");
		dmatlb_map_failed(dev, mapping_size, limit,
				  mapping_size ? -E2BIG : -EINVAL, attrs);
		return (phys_addr_t)DMA_MAPPING_ERROR;
	}

	/*
	 * Bits of the original address kept in the bounce address: the
	 * offset within the page, always; above it, the min_align_mask bits.
	 * Those inside alloc_align_mask become padding pages after an
	 * aligned start, the others constrain the first pfn.
	 */
	pad = orig_addr & min_mask & align & PAGE_MASK;
	nr = PFN_UP(pad + (orig_addr & ~PAGE_MASK) + mapping_size);
	nr = ALIGN(nr, (align >> PAGE_SHIFT) + 1);
	/*
	 * The whole buffer stays inside one DMA segment (64 KB for libata,
	 * for example).  Boundaries below a page need nothing more: the
	 * bounce address has the original's offset within the page.
	 */
	page = mask_pool_alloc_bounce(nr, limit, (min_mask | align) >> PAGE_SHIFT,
				      (orig_addr & min_mask & ~align) >> PAGE_SHIFT,
				      dma_get_seg_boundary(dev) >> PAGE_SHIFT);
	if (IS_ERR(page)) {
		dmatlb_map_failed(dev, mapping_size, limit, PTR_ERR(page), attrs);
		return (phys_addr_t)DMA_MAPPING_ERROR;
	}

	start = page_to_phys(page);
	tlb_addr = start + pad + (orig_addr & ~PAGE_MASK);
	for (i = 0; i < nr; i++) {
		struct page *p = page + i;

		p->dmatlb_start = start;
		p->dmatlb_orig = orig_addr;
		p->dmatlb_tlb = tlb_addr;
		p->dmatlb_size = mapping_size;
		__folio_set_dmatlb(page_folio(p));
		p->page_type |= nr;
	}

	count_vm_events(SWIOTLB_USED_PAGES, nr);
	count_vm_events(SWIOTLB_BYTES_WASTED, nr * PAGE_SIZE - mapping_size);
	count_vm_event(SWIOTLB_NUM_ALLOCS);
	dmatlb_account_map(nr);
	*nslabs = nr * DMATLB_SLABS_PER_PAGE;

	/* Like stock swiotlb: later syncs must not be skipped. */
	dma_reset_need_sync(dev);
	dmatlb_bounce(dev, tlb_addr, mapping_size, DMA_TO_DEVICE);
	return tlb_addr;
}

/**
 * dmatlb_unmap - copy back if needed, and free a bounce buffer
 * @dev: the device
 * @tlb_addr: bounce address returned by dmatlb_map()
 * @mapping_size: bytes mapped
 * @dir: DMA direction
 * @attrs: DMA attributes (DMA_ATTR_SKIP_CPU_SYNC is honoured)
 *
 * Context: Any context.
 * Return: the stock swiotlb slabs the buffer stood for, 0 on misuse.
 */
unsigned long dmatlb_unmap(struct device *dev, phys_addr_t tlb_addr,
			   size_t mapping_size, enum dma_data_direction dir,
			   unsigned long attrs)
{
	struct page *page = pfn_to_page(PHYS_PFN(tlb_addr)), *first;
	unsigned long nr, i, tlb0;

	/* swiotlb_find_pool() said so; do not trust the fields otherwise. */
	if (WARN_ON_ONCE(!dmatlb_page(page)))
		return 0;
	tlb0 = page->dmatlb_tlb;
	if (!(attrs & DMA_ATTR_SKIP_CPU_SYNC) &&
	    (dir == DMA_FROM_DEVICE || dir == DMA_BIDIRECTIONAL))
		dmatlb_bounce(dev, tlb_addr, mapping_size, DMA_FROM_DEVICE);

	dev_WARN_ONCE(dev, tlb_addr != tlb0,
		      "dmatlb: unmap of %pa inside the mapping at %#lx\n",
		      &tlb_addr, tlb0);
	first = pfn_to_page(PHYS_PFN(page->dmatlb_start));
	nr = page->page_type & DMATLB_NR_MASK;
	for (i = 0; i < nr; i++) {
		struct page *p = first + i;

		if (WARN_ON_ONCE(!dmatlb_page(p) || p->dmatlb_tlb != tlb0))
			return 0;	/* corrupted: leak rather than free */
	}
	for (i = 0; i < nr; i++) {
		struct page *p = first + i;

		p->dmatlb_start = 0;
		p->dmatlb_orig = 0;
		p->dmatlb_tlb = 0;
		p->dmatlb_size = 0;
		__folio_clear_dmatlb(page_folio(p));
	}
	mask_pool_free_bounce(first, nr);

	count_vm_event(SWIOTLB_NUM_FREES);
	atomic_long_sub(nr, &dmatlb_in_use_pages);
	atomic_long_dec(&dmatlb_in_use_maps);
	return nr * DMATLB_SLABS_PER_PAGE;
}

/**
 * dmatlb_sync_for_device - copy the original into the bounce buffer
 * @dev: the device
 * @tlb_addr: bounce address, anywhere inside a mapping
 * @size: bytes to sync
 * @dir: DMA direction of the mapping
 *
 * Context: Any context.
 */
void dmatlb_sync_for_device(struct device *dev, phys_addr_t tlb_addr,
			    size_t size, enum dma_data_direction dir)
{
	if (dir == DMA_TO_DEVICE || dir == DMA_BIDIRECTIONAL)
		dmatlb_bounce(dev, tlb_addr, size, DMA_TO_DEVICE);
	else
		WARN_ON_ONCE(dir != DMA_FROM_DEVICE);
}

/**
 * dmatlb_sync_for_cpu - copy the bounce buffer back to the original
 * @dev: the device
 * @tlb_addr: bounce address, anywhere inside a mapping
 * @size: bytes to sync
 * @dir: DMA direction of the mapping
 *
 * Context: Any context.
 */
void dmatlb_sync_for_cpu(struct device *dev, phys_addr_t tlb_addr,
			 size_t size, enum dma_data_direction dir)
{
	if (dir == DMA_FROM_DEVICE || dir == DMA_BIDIRECTIONAL)
		dmatlb_bounce(dev, tlb_addr, size, DMA_FROM_DEVICE);
	else
		WARN_ON_ONCE(dir != DMA_TO_DEVICE);
}

/**
 * dmatlb_get_stats - bounce buffer usage now
 * @st: filled in
 *
 * Context: Any context.
 */
void dmatlb_get_stats(struct dmatlb_stats *st)
{
	st->active = dmatlb_mem && dmatlb_mem->maskpool;
	st->grown_bytes = dmatlb_grown_bytes;
	st->in_use_pages = atomic_long_read(&dmatlb_in_use_pages);
	st->in_use_maps = atomic_long_read(&dmatlb_in_use_maps);
	st->hiwater_pages = atomic_long_read(&dmatlb_hiwater_pages);
	st->failed = atomic_long_read(&dmatlb_failed);
}
EXPORT_SYMBOL_GPL(dmatlb_get_stats);

#ifdef CONFIG_DEBUG_FS
static int dmatlb_bounce_show(struct seq_file *m, void *v)
{
	struct dmatlb_stats st;

	dmatlb_get_stats(&st);
	seq_printf(m, "active %d\n", st.active);
	seq_printf(m, "in_use_pages %lu\n", st.in_use_pages);
	seq_printf(m, "in_use_maps %lu\n", st.in_use_maps);
	seq_printf(m, "hiwater_pages %lu\n", st.hiwater_pages);
	seq_printf(m, "failed %lu\n", st.failed);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dmatlb_bounce);

/* After mm/mask_alloc.c's late_initcall has created mask_alloc/. */
static int __init dmatlb_debugfs_init(void)
{
	struct dentry *dir = debugfs_lookup("mask_alloc", NULL);

	if (!dir) {
		debugfs_create_dir("mask_alloc", NULL);
		dir = debugfs_lookup("mask_alloc", NULL);
	}
	debugfs_create_file("bounce", 0444, dir, NULL, &dmatlb_bounce_fops);
	dput(dir);
	return 0;
}
late_initcall_sync(dmatlb_debugfs_init);
#endif /* CONFIG_DEBUG_FS */
