// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for swiotlb bouncing through the mask pool ("dmatlb",
 * kernel/dma/dmatlb.c).
 *
 * Fake devices (kunit_device_register()) with 24-, 28-, 32- and 64-bit
 * masks map buffers through the DMA API and check the swiotlb contract:
 *
 *  - every direction copies as stock swiotlb does: the bounce buffer is
 *    always filled from the original on map (the 2022 info-leak fix), syncs
 *    and unmaps copy back only towards the CPU for FROM_DEVICE and
 *    BIDIRECTIONAL, towards the device only for TO_DEVICE and
 *    BIDIRECTIONAL; sub-range syncs copy exactly their bytes;
 *  - DMA_ATTR_SKIP_CPU_SYNC skips the copy back on unmap, never the copy
 *    on map;
 *  - the bounce buffer lies below min(DMA mask, bus limit), in the pool,
 *    at the original's offset within the page, keeps the bits under
 *    min_align_mask and the alignment asked by alloc_align_mask;
 *  - scatter-gather lists, also one that fails part way;
 *  - a full pool gives DMA_MAPPING_ERROR and a ratelimited message unless
 *    DMA_ATTR_NO_WARN;
 *  - pool pages that serve GFP_DMA or coherent memory are never taken for
 *    bounce buffers (swiotlb_find_pool() is NULL for them);
 *  - the counters (dmatlb_get_stats() and the swiotlb_* vm events) move by
 *    exactly what each mapping uses;
 *  - bounce buffers failed by fault injection (fail_mask_alloc) look like
 *    a full pool, also in the middle of a scatter-gather list;
 *  - addresses that were never mapped are never taken for bounce buffers.
 *
 * Most devices get a private io_tlb_mem that forces bouncing through the
 * mask pool, so that every mapping bounces wherever the original buffer
 * lies; default_mem and pool_buffers_not_bounce also use the default
 * io_tlb_mem, as a real driver does (they skip under swiotlb=force).  The
 * "device" writes straight into the bounce buffer through the direct map.
 * With dmatlb=off every case is skipped.
 *
 * Everything a case maps or allocates is registered with
 * kunit_add_action_or_reset() first, so a failing case never leaks pool
 * pages into the next one; each case ends by checking that the pool and
 * the bounce counts are back where they started.  The cases assume that
 * nothing else uses the pool while the suite runs, which holds at boot.
 * All mappings are DMA-API-debug clean (CONFIG_DMA_API_DEBUG): every
 * handle is checked, syncs use the mapping's direction, and no two live
 * mappings other than DMA_TO_DEVICE ones share a cache line.
 */
#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/console.h>
#include <linux/dma-direct.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/dmatlb.h>
#include <linux/gfp.h>
#include <linux/mask_alloc.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/swiotlb.h>
#include <linux/vmstat.h>

#include "../mask_alloc_internal.h"
#include "mask_alloc_kunit.h"

#define MASK24		DMA_BIT_MASK(24)
#define MASK28		DMA_BIT_MASK(28)
#define MASK32		DMA_BIT_MASK(32)

/* Seeds of the byte patterns: who wrote a byte last. */
#define SEED_ORIG	0x11	/* the original buffer before mapping */
#define SEED_DEV	0x5a	/* the "device", into the bounce buffer */
#define SEED_CPU	0xc3	/* the CPU, into the original while mapped */
#define SEED_DEV2	0x96	/* the device again */
#define SEED_OLD	0x3c	/* an earlier mapping's data */

#define CHUNK		SZ_256K	/* swiotlb_max_mapping_size() */

/* ---- byte patterns ---- */

/*
 * Byte @i of the pattern @seed.  Two seeds differ at every byte, and a
 * copy shifted by any number of pages or by a few bytes does not match.
 */
static u8 pat(size_t i, u8 seed)
{
	return seed + i * 7 + (i >> 9);
}

static void pat_fill(u8 *p, size_t len, size_t start, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(start + i, seed);
}

/* The first byte of @p[0..@len) that is not pattern @seed from @start, or -1. */
static long pat_mismatch(const u8 *p, size_t len, size_t start, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pat(start + i, seed))
			return i;
	return -1;
}

/* @p[0..@len) holds pattern @seed from @start; @what names it in a failure. */
static void expect_pat(struct kunit *test, const u8 *p, size_t len, size_t start,
		       u8 seed, const char *what)
{
	long bad = pat_mismatch(p, len, start, seed);

	KUNIT_EXPECT_EQ_MSG(test, bad, -1L, "%s: not pattern %#x (%zu bytes; byte %ld is %#x)",
			    what, seed, len, bad, bad < 0 ? 0 : p[bad]);
}

/* ---- snapshots: bounce counts, pool, swiotlb_* vm events ---- */

enum { EV_PAGES, EV_WASTED, EV_ALLOCS, EV_FREES, NR_EV };

static const enum vm_event_item tlb_events[NR_EV] = {
	[EV_PAGES] = SWIOTLB_USED_PAGES,
	[EV_WASTED] = SWIOTLB_BYTES_WASTED,
	[EV_ALLOCS] = SWIOTLB_NUM_ALLOCS,
	[EV_FREES] = SWIOTLB_NUM_FREES,
};

struct tsnap {
	struct dmatlb_stats tlb;
	struct mask_pool_stats pool;
	unsigned long ev[NR_EV];
};

static void tsnap(struct kunit *test, struct tsnap *s)
{
	unsigned long *all;
	int i;

	/* Plain kcalloc(): this also runs in a cleanup action. */
	all = kcalloc(NR_VM_EVENT_ITEMS, sizeof(*all), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, all);
	all_vm_events(all);
	for (i = 0; i < NR_EV; i++)
		s->ev[i] = all[tlb_events[i]];
	kfree(all);
	dmatlb_get_stats(&s->tlb);
	mask_pool_get_stats(&s->pool);
}

static long ev(const struct tsnap *a, const struct tsnap *b, int i)
{
	return b->ev[i] - a->ev[i];
}

/* Pages and mappings in use, and pool pages, moved by exactly this. */
static void expect_in_use(struct kunit *test, const struct tsnap *a,
			  const struct tsnap *b, long pages, long maps)
{
	KUNIT_EXPECT_EQ(test, (long)(b->tlb.in_use_pages - a->tlb.in_use_pages), pages);
	KUNIT_EXPECT_EQ(test, (long)(b->tlb.in_use_maps - a->tlb.in_use_maps), maps);
	KUNIT_EXPECT_EQ(test, (long)(a->pool.free_pages - b->pool.free_pages), pages);
	KUNIT_EXPECT_GE(test, b->tlb.hiwater_pages, b->tlb.in_use_pages);
	KUNIT_EXPECT_GE(test, b->tlb.hiwater_pages, a->tlb.hiwater_pages);
}

/* Nothing bounced between @a and @b. */
static void expect_no_bounce(struct kunit *test, const struct tsnap *a,
			     const struct tsnap *b)
{
	int i;

	expect_in_use(test, a, b, 0, 0);
	KUNIT_EXPECT_EQ(test, b->tlb.failed, a->tlb.failed);
	for (i = 0; i < NR_EV; i++)
		KUNIT_EXPECT_EQ_MSG(test, ev(a, b, i), 0L, "event %s",
				    vm_event_name(tlb_events[i]));
}

/* Pages used by a bounce of @size bytes at @phys (same offset in the page). */
static unsigned long bounce_pages(phys_addr_t phys, size_t size)
{
	return DIV_ROUND_UP(offset_in_page(phys) + size, PAGE_SIZE);
}

/* ---- per-case setup: dmatlb must be on; the pool is whole at the end ---- */

struct whole {
	struct kunit *test;
	struct tsnap s0;
};

static void expect_whole(void *data)
{
	struct whole *w = data;
	struct kunit *test = w->test;
	struct tsnap *s0 = &w->s0, s1;

	tsnap(test, &s1);
	KUNIT_EXPECT_EQ_MSG(test, s1.tlb.in_use_pages, s0->tlb.in_use_pages,
			    "bounce pages left in use");
	KUNIT_EXPECT_EQ_MSG(test, s1.tlb.in_use_maps, s0->tlb.in_use_maps,
			    "bounce mappings left");
	KUNIT_EXPECT_EQ_MSG(test, s1.pool.free_pages, s0->pool.free_pages,
			    "pool pages not given back");
	KUNIT_EXPECT_EQ(test, s1.pool.misuse, s0->pool.misuse);
	KUNIT_EXPECT_EQ(test, ev(s0, &s1, EV_ALLOCS), ev(s0, &s1, EV_FREES));
}

static int dmatlb_test_init(struct kunit *test)
{
	struct dmatlb_stats st;
	struct whole *w;

	dmatlb_get_stats(&st);
	if (!st.active)
		kunit_skip(test, "dmatlb is off (dmatlb=off or no swiotlb)");
	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	w->test = test;
	tsnap(test, &w->s0);
	/* Registered first, so it runs last, after every other cleanup. */
	return kunit_add_action_or_reset(test, expect_whole, w);
}

/* ---- fake devices ---- */

/*
 * A private io_tlb_mem that bounces every mapping through the mask pool:
 * dma-direct sees force_bounce, swiotlb_tbl_map_single() sees maskpool.
 */
static struct io_tlb_mem force_mem = {
	.maskpool = true,
	.force_bounce = true,
	.nslabs = 1,
};

static atomic_t dev_seq = ATOMIC_INIT(0);

/*
 * A device on the KUnit bus, both masks DMA_BIT_MASK(@bits), with
 * dma_parms (for min_align_mask; max segment 64 KiB).  @force: bounce
 * every mapping; otherwise the default io_tlb_mem, as for a real device.
 */
static struct device *tlb_dev(struct kunit *test, unsigned int bits, bool force)
{
	struct device_dma_parameters *parms;
	struct device *dev;
	char *name;

	/* Allocated first, so it outlives the device. */
	parms = kunit_kzalloc(test, sizeof(*parms), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, parms);
	/* Each device, and the driver KUnit makes for it, needs its own name. */
	name = kunit_kzalloc(test, 16, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, name);
	snprintf(name, 16, "dmatlb%d", atomic_inc_return(&dev_seq));
	dev = kunit_device_register(test, name);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	dev->dma_parms = parms;
	dev->dma_mask = &dev->coherent_dma_mask;
	KUNIT_ASSERT_EQ_MSG(test, dma_set_mask_and_coherent(dev, DMA_BIT_MASK(bits)), 0,
			    "%u bits", bits);
	/* swiotlb_dev_init() gave it the default io_tlb_mem. */
	KUNIT_ASSERT_NOT_NULL(test, dev->dma_io_tlb_mem);
	KUNIT_ASSERT_PTR_NE(test, dev->dma_io_tlb_mem, &force_mem);
	if (force)
		dev->dma_io_tlb_mem = &force_mem;
	return dev;
}

/* The limit a bounce buffer must lie below. */
static u64 dev_limit(struct device *dev)
{
	return min_not_zero(*dev->dma_mask, dev->bus_dma_limit);
}

/* A page-aligned original buffer (naturally aligned up to its size). */
static u8 *obuf(struct kunit *test, size_t size)
{
	u8 *p = kunit_kmalloc(test, roundup_pow_of_two(max_t(size_t, size, PAGE_SIZE)),
			      GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

/* ---- mappings, unmapped by the cleanup unless tmap_put() ran ---- */

struct tmap {
	struct device *dev;
	u8 *cpu;
	size_t size;
	enum dma_data_direction dir;
	unsigned long unmap_attrs;
	dma_addr_t dma;
};

static void tmap_release(void *data)
{
	struct tmap *m = data;

	if (m->dma != DMA_MAPPING_ERROR)
		dma_unmap_single_attrs(m->dev, m->dma, m->size, m->dir, m->unmap_attrs);
	m->dma = DMA_MAPPING_ERROR;
}

/* dma_map_single_attrs(); m->dma is DMA_MAPPING_ERROR if it failed. */
static struct tmap *tmap_get(struct kunit *test, struct device *dev, void *cpu,
			     size_t size, enum dma_data_direction dir,
			     unsigned long attrs)
{
	struct tmap *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->dev = dev;
	m->cpu = cpu;
	m->size = size;
	m->dir = dir;
	m->dma = dma_map_single_attrs(dev, cpu, size, dir, attrs);
	/* DMA-API debug insists that every handle is checked. */
	if (dma_mapping_error(dev, m->dma))
		m->dma = DMA_MAPPING_ERROR;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tmap_release, m), 0);
	return m;
}

static void tmap_put(struct kunit *test, struct tmap *m, unsigned long attrs)
{
	m->unmap_attrs = attrs;
	kunit_release_action(test, tmap_release, m);
}

static phys_addr_t tmap_phys(struct tmap *m)
{
	return dma_to_phys(m->dev, m->dma);
}

/* What the device sees, through the direct map (the pool is low memory). */
static u8 *tmap_bounce(struct tmap *m)
{
	return phys_to_virt(tmap_phys(m));
}

/* Does @phys lie in a page of type dmatlb (an order-0 folio)? */
static bool dmatlb_type(phys_addr_t phys)
{
	return folio_test_dmatlb(page_folio(pfn_to_page(PHYS_PFN(phys))));
}

/* Is every page of [@phys, @phys + @size) a bounce page for @dev? */
static bool is_bounce(struct device *dev, phys_addr_t phys, size_t size)
{
	phys_addr_t p;

	for (p = phys; p < phys + size; p = PAGE_ALIGN(p + 1))
		if (!swiotlb_find_pool(dev, p) || !dmatlb_type(p) ||
		    !mask_pool_page(pfn_to_page(PHYS_PFN(p))))
			return false;
	return true;
}

/* Is any page of [@phys, @phys + @size) taken for a bounce page? */
static bool any_bounce(struct device *dev, phys_addr_t phys, size_t size)
{
	phys_addr_t p;

	for (p = phys; p < phys + size; p = PAGE_ALIGN(p + 1))
		if (swiotlb_find_pool(dev, p) || dmatlb_type(p))
			return true;
	return false;
}

/*
 * @m bounced: a pool buffer below the device's limit, at the original's
 * offset within the page, every page of it a bounce page.
 */
static void expect_bounced(struct kunit *test, struct tmap *m)
{
	phys_addr_t orig = virt_to_phys(m->cpu), phys;
	u64 limit = dev_limit(m->dev);
	struct mask_pool_stats st;

	KUNIT_ASSERT_NE_MSG(test, m->dma, DMA_MAPPING_ERROR, "%zu bytes at %pa, limit %#llx",
			    m->size, &orig, limit);
	phys = tmap_phys(m);
	mask_pool_get_stats(&st);
	KUNIT_EXPECT_NE(test, phys, orig);
	KUNIT_EXPECT_LE_MSG(test, (u64)m->dma + m->size - 1, limit, "%zu bytes at %pad",
			    m->size, &m->dma);
	KUNIT_EXPECT_GE(test, (u64)phys, st.lowest_addr);
	KUNIT_EXPECT_LE(test, (u64)phys + m->size - 1, st.highest_addr);
	KUNIT_EXPECT_EQ_MSG(test, offset_in_page(phys), offset_in_page(orig),
			    "bounce %pa for %pa", &phys, &orig);
	KUNIT_EXPECT_TRUE_MSG(test, is_bounce(m->dev, phys, m->size),
			      "%zu bytes at %pa not all bounce pages", m->size, &phys);
}

/* @m did not bounce: the handle is the original's address. */
static void expect_direct(struct kunit *test, struct tmap *m)
{
	phys_addr_t orig = virt_to_phys(m->cpu);

	KUNIT_ASSERT_NE(test, m->dma, DMA_MAPPING_ERROR);
	KUNIT_EXPECT_EQ(test, (u64)tmap_phys(m), (u64)orig);
	KUNIT_EXPECT_FALSE(test, any_bounce(m->dev, orig, m->size));
}

static const char *dir_name(enum dma_data_direction dir)
{
	switch (dir) {
	case DMA_BIDIRECTIONAL:
		return "bidirectional";
	case DMA_TO_DEVICE:
		return "to device";
	case DMA_FROM_DEVICE:
		return "from device";
	default:
		return "none";
	}
}

static bool dir_to_dev(enum dma_data_direction dir)
{
	return dir == DMA_TO_DEVICE || dir == DMA_BIDIRECTIONAL;
}

static bool dir_from_dev(enum dma_data_direction dir)
{
	return dir == DMA_FROM_DEVICE || dir == DMA_BIDIRECTIONAL;
}

/* ---- parameters ---- */

static const unsigned int all_bits[] = { 24, 28, 32, 64 };

static void bits_desc(const unsigned int *bits, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u bits", *bits);
}

KUNIT_ARRAY_PARAM(bits, all_bits, bits_desc);

struct dir_param {
	unsigned int bits;
	enum dma_data_direction dir;
};

static const struct dir_param dir_params[] = {
	{ 24, DMA_BIDIRECTIONAL }, { 24, DMA_TO_DEVICE }, { 24, DMA_FROM_DEVICE },
	{ 28, DMA_BIDIRECTIONAL }, { 28, DMA_TO_DEVICE }, { 28, DMA_FROM_DEVICE },
	{ 32, DMA_BIDIRECTIONAL }, { 32, DMA_TO_DEVICE }, { 32, DMA_FROM_DEVICE },
	{ 64, DMA_BIDIRECTIONAL }, { 64, DMA_TO_DEVICE }, { 64, DMA_FROM_DEVICE },
};

static void dir_desc(const struct dir_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u bits, %s", p->bits, dir_name(p->dir));
}

KUNIT_ARRAY_PARAM(dirs, dir_params, dir_desc);

static const enum dma_data_direction all_dirs[] = {
	DMA_BIDIRECTIONAL, DMA_TO_DEVICE, DMA_FROM_DEVICE,
};

static void dir_only_desc(const enum dma_data_direction *dir, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", dir_name(*dir));
}

KUNIT_ARRAY_PARAM(dir_only, all_dirs, dir_only_desc);

/* ==== basics ==== */

/*
 * dmatlb is on: the default io_tlb_mem bounces through the mask pool, is
 * active for every device, and the maximum mapping is stock's 256 KiB
 * (less min_align_mask) wherever swiotlb may bounce.  The vm event names
 * are in the right order.
 */
static void dmatlb_basics(struct kunit *test)
{
	struct device *dev64 = tlb_dev(test, 64, false);
	struct device *dev24 = tlb_dev(test, 24, false);
	struct device *forced = tlb_dev(test, 64, true);
	struct mask_pool_stats pool;
	struct dmatlb_stats st;

	dmatlb_get_stats(&st);
	mask_pool_get_stats(&pool);
	KUNIT_EXPECT_TRUE(test, st.active);
	/* What dmatlb added at boot (swiotlb's size) is part of the pool. */
	KUNIT_EXPECT_GE(test, pool.pool_bytes, (u64)st.grown_bytes);
	kunit_info(test, "pool %llu KiB, grown by %lu KiB for swiotlb\n",
		   pool.pool_bytes >> 10, st.grown_bytes >> 10);
	KUNIT_EXPECT_TRUE(test, dev64->dma_io_tlb_mem->maskpool);
	KUNIT_EXPECT_NE(test, dev64->dma_io_tlb_mem->nslabs, 0UL);
	KUNIT_EXPECT_TRUE(test, is_swiotlb_allocated());
	KUNIT_EXPECT_TRUE(test, is_swiotlb_active(dev64));
	KUNIT_EXPECT_TRUE(test, is_swiotlb_force_bounce(forced));
	if (is_swiotlb_force_bounce(dev64))
		kunit_info(test, "swiotlb=force: every device bounces\n");

	KUNIT_EXPECT_EQ(test, swiotlb_max_mapping_size(dev24), (size_t)CHUNK);
	KUNIT_EXPECT_EQ(test, dma_max_mapping_size(dev24), (size_t)CHUNK);
	KUNIT_EXPECT_EQ(test, dma_max_mapping_size(forced), (size_t)CHUNK);
	dma_set_min_align_mask(forced, 0xfff);
	KUNIT_EXPECT_EQ(test, dma_max_mapping_size(forced), (size_t)CHUNK - SZ_4K);
	dma_set_min_align_mask(forced, 0x3fff);
	KUNIT_EXPECT_EQ(test, dma_max_mapping_size(forced), (size_t)CHUNK - SZ_16K);

	KUNIT_EXPECT_STREQ(test, vm_event_name(SWIOTLB_USED_PAGES), "swiotlb_used_pages");
	KUNIT_EXPECT_STREQ(test, vm_event_name(SWIOTLB_BYTES_WASTED), "swiotlb_bytes_wasted");
	KUNIT_EXPECT_STREQ(test, vm_event_name(SWIOTLB_NUM_ALLOCS), "swiotlb_num_allocs");
	KUNIT_EXPECT_STREQ(test, vm_event_name(SWIOTLB_NUM_FREES), "swiotlb_num_frees");
}

/* ==== every direction ==== */

/*
 * One mapping of 3 pages + 100 bytes at offset 0x234, in each direction,
 * through map, sync for the CPU, sync for the device and unmap:
 *
 *   map             always copies the original into the bounce buffer;
 *   sync for cpu    copies back for FROM_DEVICE and BIDIRECTIONAL only;
 *   sync for device copies in for TO_DEVICE and BIDIRECTIONAL only;
 *   unmap           copies back for FROM_DEVICE and BIDIRECTIONAL only.
 *
 * The bytes around the mapping never change.  The first bounce mapping of
 * a device clears dma_skip_sync, or its syncs would be skipped; after the
 * unmap the bounce pages are no longer bounce pages.
 */
static void map_directions(struct kunit *test)
{
	const struct dir_param *p = test->param_value;
	struct device *dev = tlb_dev(test, p->bits, true);
	const size_t off = 0x234, size = 3 * PAGE_SIZE + 100;
	const size_t total = PAGE_SIZE * 4 + SZ_4K;
	bool to = dir_to_dev(p->dir), from = dir_from_dev(p->dir);
	struct tsnap s0, s1, s2;
	phys_addr_t phys;
	struct tmap *m;
	u8 *buf, *b;

	buf = obuf(test, total);
	pat_fill(buf, total, 0, SEED_ORIG);
#ifdef CONFIG_DMA_NEED_SYNC
	KUNIT_EXPECT_TRUE(test, dev->dma_skip_sync);
#endif
	tsnap(test, &s0);
	m = tmap_get(test, dev, buf + off, size, p->dir, 0);
	tsnap(test, &s1);
	expect_bounced(test, m);
#ifdef CONFIG_DMA_NEED_SYNC
	KUNIT_EXPECT_FALSE_MSG(test, dev->dma_skip_sync,
			       "the first bounce mapping must clear dma_skip_sync");
#endif
	phys = tmap_phys(m);
	b = tmap_bounce(m);
	expect_in_use(test, &s0, &s1, bounce_pages(phys, size), 1);
	expect_pat(test, b, size, off, SEED_ORIG, "bounce after map");

	/* The device writes; the CPU takes ownership. */
	pat_fill(b, size, off, SEED_DEV);
	dma_sync_single_for_cpu(dev, m->dma, size, p->dir);
	expect_pat(test, buf + off, size, off, from ? SEED_DEV : SEED_ORIG,
		   "original after sync for cpu");
	expect_pat(test, b, size, off, SEED_DEV, "bounce after sync for cpu");

	/* The CPU writes; the device takes ownership. */
	pat_fill(buf + off, size, off, SEED_CPU);
	dma_sync_single_for_device(dev, m->dma, size, p->dir);
	expect_pat(test, b, size, off, to ? SEED_CPU : SEED_DEV, "bounce after sync for device");
	expect_pat(test, buf + off, size, off, SEED_CPU, "original after sync for device");

	/* The device writes again; unmap. */
	pat_fill(b, size, off, SEED_DEV2);
	tmap_put(test, m, 0);
	tsnap(test, &s2);
	expect_pat(test, buf + off, size, off, from ? SEED_DEV2 : SEED_CPU,
		   "original after unmap");
	expect_pat(test, buf, off, 0, SEED_ORIG, "bytes before the mapping");
	expect_pat(test, buf + off + size, total - off - size, off + size, SEED_ORIG,
		   "bytes after the mapping");
	expect_in_use(test, &s0, &s2, 0, 0);
	KUNIT_EXPECT_FALSE_MSG(test, any_bounce(dev, phys, size),
			       "%pa still a bounce buffer after unmap", &phys);
}

/* ---- filling the pool below a mask ---- */

/* Every free pool page below @mask, one at a time (force on: pool only). */
static struct pool_fill *fill_below(struct kunit *test, u64 mask)
{
	struct mask_pool_stats st;
	struct pool_fill *f;
	struct page *page;
	unsigned long cap;

	set_force(test, true);
	mask_pool_get_stats(&st);
	cap = st.free_pages + 1;
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->pages = kunit_kcalloc(test, cap, sizeof(*f->pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->pages);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fill_release, f), 0);
	while (f->nr < cap) {
		page = alloc_pages_mask(NOWAIT, PAGE_SIZE, mask);
		if (!page)
			break;
		f->pages[f->nr++] = page;
		KUNIT_ASSERT_TRUE(test, mask_pool_page(page));
	}
	KUNIT_ASSERT_LT(test, f->nr, cap);
	return f;
}

/* Give back @n pages of the fill (the lowest ones). */
static void fill_give_back(struct pool_fill *f, unsigned long n)
{
	while (n-- && f->nr) {
		f->nr--;
		__free_pages_mask(f->pages[f->nr], PAGE_SIZE);
		f->pages[f->nr] = NULL;
	}
}

/* ==== the bounce buffer is always filled from the original ==== */

/*
 * The 2022 swiotlb info-leak fix.  A FROM_DEVICE mapping that the device
 * never writes gives back the original bytes on unmap, never what an
 * earlier mapping left in the same pool pages; a device that writes only
 * half of it leaves the other half of the original intact.  The pool is
 * filled below the mask while the first mapping is alive, so that the
 * later mappings can only get its pages.
 */
static void from_device_no_leak(struct kunit *test)
{
	const unsigned int *bits = test->param_value;
	struct device *dev = tlb_dev(test, *bits, true);
	const size_t off = 0x80, size = 2 * PAGE_SIZE + 0x300;
	struct pool_fill *f;
	phys_addr_t old;
	u8 *x, *y, *b;
	struct tmap *m;

	x = obuf(test, off + size);
	y = obuf(test, off + size);

	/* An earlier mapping leaves SEED_OLD in its bounce pages. */
	pat_fill(x + off, size, off, SEED_ORIG);
	m = tmap_get(test, dev, x + off, size, DMA_FROM_DEVICE, 0);
	expect_bounced(test, m);
	old = tmap_phys(m);
	pat_fill(tmap_bounce(m), size, off, SEED_OLD);
	f = fill_below(test, DMA_BIT_MASK(*bits));
	tmap_put(test, m, 0);
	expect_pat(test, x + off, size, off, SEED_OLD, "first original after unmap");

	/* The same size again: only the first mapping's pages are free. */
	pat_fill(y + off, size, off, SEED_ORIG);
	m = tmap_get(test, dev, y + off, size, DMA_FROM_DEVICE, 0);
	expect_bounced(test, m);
	KUNIT_EXPECT_EQ(test, tmap_phys(m), old);
	expect_pat(test, tmap_bounce(m), size, off, SEED_ORIG, "bounce after FROM_DEVICE map");
	tmap_put(test, m, 0);
	expect_pat(test, y + off, size, off, SEED_ORIG, "original after unwritten FROM_DEVICE");

	/* Partial device write: the rest of the original survives. */
	m = tmap_get(test, dev, y + off, size, DMA_FROM_DEVICE, 0);
	expect_bounced(test, m);
	KUNIT_EXPECT_EQ(test, tmap_phys(m), old);
	b = tmap_bounce(m);
	pat_fill(b, size / 2, off, SEED_DEV);
	tmap_put(test, m, 0);
	expect_pat(test, y + off, size / 2, off, SEED_DEV, "written half");
	expect_pat(test, y + off + size / 2, size - size / 2, off + size / 2, SEED_ORIG,
		   "unwritten half");
	kunit_release_action(test, fill_release, f);
}

/* ==== sub-range syncs ==== */

struct range_param {
	enum dma_data_direction dir;
	bool for_cpu;
};

static const struct range_param range_params[] = {
	{ DMA_FROM_DEVICE, true }, { DMA_BIDIRECTIONAL, true },
	{ DMA_TO_DEVICE, false }, { DMA_BIDIRECTIONAL, false },
};

static void range_desc(const struct range_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s, for %s", dir_name(p->dir),
		 p->for_cpu ? "cpu" : "device");
}

KUNIT_ARRAY_PARAM(range, range_params, range_desc);

/*
 * dma_sync_single_range_for_{cpu,device}() of pieces of a 4-page mapping
 * at offset 0x321: single bytes, a page boundary, exactly one page, two
 * boundaries, the last bytes.  Each sync copies exactly its bytes, from
 * the right page of the original.
 */
static void sync_sub_ranges(struct kunit *test)
{
	const struct range_param *p = test->param_value;
	struct device *dev = tlb_dev(test, 28, true);
	const size_t off = 0x321, size = 4 * PAGE_SIZE + 300;
	const size_t first = PAGE_SIZE - off;	/* bytes in the first page */
	const struct {
		size_t start, len;
	} ranges[] = {
		{ 0, 1 }, { 1, 99 }, { first - 8, 16 }, { first, PAGE_SIZE },
		{ first + PAGE_SIZE + 100, 2 * PAGE_SIZE }, { size - 1, 1 },
		{ size - 5000, 4000 }, { 2 * PAGE_SIZE, 1 },
	};
	u8 *buf, *exp, *b, *target;
	struct tmap *m;
	unsigned int i;

	buf = obuf(test, off + size);
	exp = kunit_kmalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, exp);
	pat_fill(buf + off, size, off, SEED_ORIG);
	m = tmap_get(test, dev, buf + off, size, p->dir, 0);
	expect_bounced(test, m);
	b = tmap_bounce(m);
	memcpy(exp, buf + off, size);

	if (p->for_cpu) {
		pat_fill(b, size, off, SEED_DEV);
		target = buf + off;
	} else {
		pat_fill(buf + off, size, off, SEED_CPU);
		target = b;
	}
	for (i = 0; i < ARRAY_SIZE(ranges); i++) {
		size_t s = ranges[i].start, len = ranges[i].len;

		if (p->for_cpu)
			dma_sync_single_range_for_cpu(dev, m->dma, s, len, p->dir);
		else
			dma_sync_single_range_for_device(dev, m->dma, s, len, p->dir);
		pat_fill(exp + s, len, off + s, p->for_cpu ? SEED_DEV : SEED_CPU);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(target, exp, size), 0,
				    "after syncing %zu bytes at %zu", len, s);
	}
	/* Unmap without copying back, so the check above is the last word. */
	tmap_put(test, m, DMA_ATTR_SKIP_CPU_SYNC);
}

/* ==== offsets within a page ==== */

/*
 * Offsets 0 to 0xfff and sizes 1 byte to 3 pages + 1, without
 * min_align_mask: the bounce buffer keeps the original's offset in the
 * page, and uses DIV_ROUND_UP(offset + size, PAGE_SIZE) pages, counted
 * exactly (used pages, wasted bytes, allocations, frees).
 */
static void in_page_offsets(struct kunit *test)
{
	static const size_t offs[] = { 0, 1, 0x200, 0x7ff, 0x800, 0xfff };
	static const size_t sizes[] = { 1, 64, PAGE_SIZE - 1, PAGE_SIZE, PAGE_SIZE + 1,
					3 * PAGE_SIZE + 1 };
	const unsigned int *bits = test->param_value;
	struct device *dev = tlb_dev(test, *bits, true);
	struct tsnap s0, s1, s2;
	unsigned int i, j;
	unsigned long pages;
	struct tmap *m;
	u8 *buf = obuf(test, 5 * PAGE_SIZE);

	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		for (j = 0; j < ARRAY_SIZE(sizes); j++) {
			size_t off = offs[i], size = sizes[j];

			pat_fill(buf + off, size, off, SEED_ORIG);
			tsnap(test, &s0);
			m = tmap_get(test, dev, buf + off, size, DMA_BIDIRECTIONAL, 0);
			tsnap(test, &s1);
			expect_bounced(test, m);
			pages = DIV_ROUND_UP(off + size, PAGE_SIZE);
			expect_in_use(test, &s0, &s1, pages, 1);
			KUNIT_EXPECT_EQ_MSG(test, ev(&s0, &s1, EV_PAGES), (long)pages,
					    "%zu bytes at %#zx", size, off);
			KUNIT_EXPECT_EQ_MSG(test, ev(&s0, &s1, EV_WASTED),
					    (long)(pages * PAGE_SIZE - size),
					    "%zu bytes at %#zx", size, off);
			KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_ALLOCS), 1L);
			KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_FREES), 0L);
			expect_pat(test, tmap_bounce(m), size, off, SEED_ORIG, "bounce");
			pat_fill(tmap_bounce(m), size, off, SEED_DEV);
			tmap_put(test, m, 0);
			tsnap(test, &s2);
			expect_pat(test, buf + off, size, off, SEED_DEV, "original after unmap");
			expect_in_use(test, &s0, &s2, 0, 0);
			KUNIT_EXPECT_EQ(test, ev(&s1, &s2, EV_FREES), 1L);
			KUNIT_EXPECT_EQ(test, ev(&s1, &s2, EV_ALLOCS), 0L);
			KUNIT_EXPECT_EQ(test, ev(&s1, &s2, EV_PAGES), 0L);
			KUNIT_EXPECT_EQ(test, ev(&s1, &s2, EV_WASTED), 0L);
		}
	}
}

/* ==== min_align_mask ==== */

static const unsigned int min_align_masks[] = { 0xfff, 0x3fff };

static void min_align_desc(const unsigned int *mask, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "min_align_mask %#x", *mask);
}

KUNIT_ARRAY_PARAM(min_align, min_align_masks, min_align_desc);

/*
 * With min_align_mask (NVMe: 0xfff; 0x3fff for a 16 KiB controller page)
 * the bounce address keeps every bit of the original under the mask, also
 * those above PAGE_SHIFT, and uses only the pages from the original's
 * page on: DIV_ROUND_UP(offset in page + size, PAGE_SIZE).
 */
static void min_align_mask_kept(struct kunit *test)
{
	static const size_t offs[] = { 0, 0x123, 0x1000, 0x1fff, 0x2ff0, 0x3fff, 0x4567 };
	static const size_t sizes[] = { 1, 100, PAGE_SIZE, 10000 };
	const unsigned int *mask = test->param_value;
	struct device *devs[] = { tlb_dev(test, 24, true), tlb_dev(test, 64, true) };
	u8 *buf = obuf(test, SZ_32K);	/* 32 KiB aligned */
	struct tsnap s0, s1;
	unsigned int d, i, j;
	phys_addr_t orig, phys;
	struct tmap *m;

	for (d = 0; d < ARRAY_SIZE(devs); d++) {
		dma_set_min_align_mask(devs[d], *mask);
		KUNIT_EXPECT_EQ(test, dma_get_min_align_mask(devs[d]), *mask);
		for (i = 0; i < ARRAY_SIZE(offs); i++) {
			for (j = 0; j < ARRAY_SIZE(sizes); j++) {
				size_t off = offs[i], size = sizes[j];

				orig = virt_to_phys(buf + off);
				pat_fill(buf + off, size, off, SEED_ORIG);
				tsnap(test, &s0);
				m = tmap_get(test, devs[d], buf + off, size, DMA_BIDIRECTIONAL, 0);
				tsnap(test, &s1);
				expect_bounced(test, m);
				phys = tmap_phys(m);
				KUNIT_EXPECT_EQ_MSG(test, phys & *mask, orig & *mask,
						    "bounce %pa for %pa", &phys, &orig);
				expect_in_use(test, &s0, &s1,
					      DIV_ROUND_UP(offset_in_page(orig) + size, PAGE_SIZE),
					      1);
				expect_pat(test, tmap_bounce(m), size, off, SEED_ORIG, "bounce");
				pat_fill(tmap_bounce(m), size, off, SEED_DEV);
				tmap_put(test, m, 0);
				expect_pat(test, buf + off, size, off, SEED_DEV, "after unmap");
			}
		}
	}
}

/* ==== alloc_align_mask (swiotlb_tbl_map_single(), as dma-iommu calls it) ==== */

struct tbl_map {
	struct device *dev;
	phys_addr_t tlb;
	size_t size;
	enum dma_data_direction dir;
	unsigned long unmap_attrs;
};

static void tbl_map_release(void *data)
{
	struct tbl_map *t = data;

	if (t->tlb != (phys_addr_t)DMA_MAPPING_ERROR)
		swiotlb_tbl_unmap_single(t->dev, t->tlb, t->size, t->dir, t->unmap_attrs);
	t->tlb = (phys_addr_t)DMA_MAPPING_ERROR;
}

struct align_param {
	unsigned int alloc_align_mask;
	unsigned int min_align_mask;
};

static const struct align_param align_params[] = {
	{ 0xfff, 0 }, { 0x3fff, 0 }, { 0xffff, 0 },
	{ 0xfff, 0xfff }, { 0x3fff, 0xfff }, { 0x3fff, 0x3fff },
};

static void align_desc(const struct align_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "alloc_align_mask %#x, min_align_mask %#x",
		 p->alloc_align_mask, p->min_align_mask);
}

KUNIT_ARRAY_PARAM(align, align_params, align_desc);

/*
 * swiotlb_tbl_map_single() with an alloc_align_mask, as dma-iommu maps an
 * untrusted device's buffer: the allocation starts on an
 * alloc_align_mask + 1 boundary, so the bounce address has, within that
 * block, only the page bits that min_align_mask asks to keep; the offset
 * in the page is kept; the data is copied in on map and back on unmap.
 */
static void alloc_align_mask_honoured(struct kunit *test)
{
	static const size_t offs[] = { 0, 0x10, 0xfff, 0x1234, 0x2800 };
	static const size_t sizes[] = { 1, 512, PAGE_SIZE, 3 * PAGE_SIZE + 7 };
	const struct align_param *p = test->param_value;
	struct device *dev = tlb_dev(test, 32, true);
	unsigned int amask = p->alloc_align_mask;
	u8 *buf = obuf(test, SZ_32K);
	phys_addr_t orig, tlb;
	struct tsnap s0, s1;
	struct tbl_map *t;
	unsigned int i, j;

	dma_set_min_align_mask(dev, p->min_align_mask);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		for (j = 0; j < ARRAY_SIZE(sizes); j++) {
			size_t off = offs[i], size = sizes[j];

			orig = virt_to_phys(buf + off);
			pat_fill(buf + off, size, off, SEED_ORIG);
			tsnap(test, &s0);
			tlb = swiotlb_tbl_map_single(dev, orig, size, amask,
						     DMA_BIDIRECTIONAL, 0);
			KUNIT_ASSERT_NE_MSG(test, tlb, (phys_addr_t)DMA_MAPPING_ERROR,
					    "%zu bytes at %#zx", size, off);
			*t = (struct tbl_map){ dev, tlb, size, DMA_BIDIRECTIONAL, 0 };
			KUNIT_ASSERT_EQ(test,
					kunit_add_action_or_reset(test, tbl_map_release, t), 0);
			tsnap(test, &s1);
			KUNIT_EXPECT_LE(test, (u64)tlb + size - 1, MASK32);
			KUNIT_EXPECT_TRUE(test, is_bounce(dev, tlb, size));
			KUNIT_EXPECT_EQ_MSG(test, offset_in_page(tlb), offset_in_page(orig),
					    "%zu bytes at %#zx: bounce %pa", size, off, &tlb);
			KUNIT_EXPECT_EQ_MSG(test, tlb & amask & PAGE_MASK,
					    orig & amask & PAGE_MASK & p->min_align_mask,
					    "%zu bytes at %#zx: bounce %pa", size, off, &tlb);
			KUNIT_EXPECT_EQ(test, (long)(s1.tlb.in_use_maps - s0.tlb.in_use_maps), 1L);
			KUNIT_EXPECT_GE(test, (long)(s1.tlb.in_use_pages - s0.tlb.in_use_pages),
					(long)bounce_pages(tlb, size));
			expect_pat(test, phys_to_virt(tlb), size, off, SEED_ORIG, "bounce");
			pat_fill(phys_to_virt(tlb), size, off, SEED_DEV);
			kunit_release_action(test, tbl_map_release, t);
			expect_pat(test, buf + off, size, off, SEED_DEV, "after unmap");
		}
	}
}

/* ==== DMA_ATTR_SKIP_CPU_SYNC ==== */

/*
 * SKIP_CPU_SYNC on map still fills the bounce buffer (whatever the
 * direction); on unmap it skips the copy back, so neither device data
 * nor, after an explicit sync, the bounce buffer overwrites what the CPU
 * wrote in the meantime.
 */
static void skip_cpu_sync(struct kunit *test)
{
	const enum dma_data_direction *dir = test->param_value;
	struct device *dev = tlb_dev(test, 24, true);
	const size_t off = 0x40, size = PAGE_SIZE + 0x100;
	bool from = dir_from_dev(*dir);
	struct tmap *m;
	u8 *buf;

	buf = obuf(test, off + size);
	pat_fill(buf + off, size, off, SEED_ORIG);
	m = tmap_get(test, dev, buf + off, size, *dir, DMA_ATTR_SKIP_CPU_SYNC);
	expect_bounced(test, m);
	expect_pat(test, tmap_bounce(m), size, off, SEED_ORIG, "bounce after SKIP_CPU_SYNC map");
	pat_fill(tmap_bounce(m), size, off, SEED_DEV);
	tmap_put(test, m, DMA_ATTR_SKIP_CPU_SYNC);
	expect_pat(test, buf + off, size, off, SEED_ORIG, "original after SKIP_CPU_SYNC unmap");

	m = tmap_get(test, dev, buf + off, size, *dir, DMA_ATTR_SKIP_CPU_SYNC);
	expect_bounced(test, m);
	pat_fill(tmap_bounce(m), size, off, SEED_DEV);
	dma_sync_single_for_cpu(dev, m->dma, size, *dir);
	expect_pat(test, buf + off, size, off, from ? SEED_DEV : SEED_ORIG,
		   "original after explicit sync");
	pat_fill(buf + off, size, off, SEED_CPU);
	tmap_put(test, m, DMA_ATTR_SKIP_CPU_SYNC);
	expect_pat(test, buf + off, size, off, SEED_CPU, "CPU data after SKIP_CPU_SYNC unmap");
}

/* ==== scatter-gather ==== */

struct tsg {
	struct device *dev;
	struct sg_table t;
	enum dma_data_direction dir;
	bool mapped;
};

static void tsg_release(void *data)
{
	struct tsg *s = data;

	if (s->mapped)
		dma_unmap_sgtable(s->dev, &s->t, s->dir, 0);
	s->mapped = false;
}

/* An sg table over @n separate original buffers of @lens bytes at @offs. */
static struct tsg *tsg_build(struct kunit *test, struct device *dev, unsigned int n,
			     const size_t *offs, const size_t *lens, u8 **bufs)
{
	struct tsg *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct scatterlist *sgl;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	sgl = kunit_kcalloc(test, n, sizeof(*sgl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sgl);
	sg_init_table(sgl, n);
	for (i = 0; i < n; i++) {
		bufs[i] = obuf(test, offs[i] + lens[i]);
		pat_fill(bufs[i] + offs[i], lens[i], offs[i], SEED_ORIG + i);
		sg_set_buf(&sgl[i], bufs[i] + offs[i], lens[i]);
	}
	s->dev = dev;
	s->t.sgl = sgl;
	s->t.orig_nents = n;
	s->t.nents = n;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tsg_release, s), 0);
	return s;
}

#define SG_N	5

/*
 * dma_map_sgtable() of five entries with different offsets and lengths:
 * each entry bounces on its own, below the mask at its own offset;
 * dma_sync_sgtable_for_{cpu,device}() and dma_unmap_sgtable() copy with
 * the direction rules of single mappings; five allocations, five frees.
 */
static void sg_map_sync_unmap(struct kunit *test)
{
	static const size_t offs[SG_N] = { 0, 0x10, 0x800, 0xfff, 0x123 };
	static const size_t lens[SG_N] = { PAGE_SIZE, 100, 3 * PAGE_SIZE, 2, SZ_64K - 0x123 };
	const struct dir_param *p = test->param_value;
	struct device *dev = tlb_dev(test, p->bits, true);
	bool to = dir_to_dev(p->dir), from = dir_from_dev(p->dir);
	struct tsnap s0, s1, s2;
	struct scatterlist *sg;
	u8 *bufs[SG_N], *b;
	unsigned long pages = 0;
	struct tsg *s;
	int i;

	s = tsg_build(test, dev, SG_N, offs, lens, bufs);
	s->dir = p->dir;
	tsnap(test, &s0);
	KUNIT_ASSERT_EQ(test, dma_map_sgtable(dev, &s->t, p->dir, 0), 0);
	s->mapped = true;
	tsnap(test, &s1);
	KUNIT_EXPECT_EQ(test, s->t.nents, (unsigned int)SG_N);
	for_each_sgtable_dma_sg(&s->t, sg, i) {
		phys_addr_t phys = dma_to_phys(dev, sg_dma_address(sg));

		KUNIT_EXPECT_EQ(test, sg_dma_len(sg), (unsigned int)lens[i]);
		KUNIT_EXPECT_LE(test, (u64)sg_dma_address(sg) + lens[i] - 1, dev_limit(dev));
		KUNIT_EXPECT_EQ(test, offset_in_page(phys), offs[i] & ~PAGE_MASK);
		KUNIT_EXPECT_TRUE_MSG(test, is_bounce(dev, phys, lens[i]), "entry %d", i);
		expect_pat(test, phys_to_virt(phys), lens[i], offs[i], SEED_ORIG + i, "bounce");
		pat_fill(phys_to_virt(phys), lens[i], offs[i], SEED_DEV + i);
		pages += bounce_pages(phys, lens[i]);
	}
	expect_in_use(test, &s0, &s1, pages, SG_N);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_ALLOCS), (long)SG_N);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_PAGES), (long)pages);

	dma_sync_sgtable_for_cpu(dev, &s->t, p->dir);
	for (i = 0; i < SG_N; i++) {
		expect_pat(test, bufs[i] + offs[i], lens[i], offs[i],
			   from ? SEED_DEV + i : SEED_ORIG + i, "original after sync for cpu");
		pat_fill(bufs[i] + offs[i], lens[i], offs[i], SEED_CPU + i);
	}
	dma_sync_sgtable_for_device(dev, &s->t, p->dir);
	for_each_sgtable_dma_sg(&s->t, sg, i) {
		b = phys_to_virt(dma_to_phys(dev, sg_dma_address(sg)));
		expect_pat(test, b, lens[i], offs[i], to ? SEED_CPU + i : SEED_DEV + i,
			   "bounce after sync for device");
		pat_fill(b, lens[i], offs[i], SEED_DEV2 + i);
	}
	kunit_release_action(test, tsg_release, s);
	tsnap(test, &s2);
	for (i = 0; i < SG_N; i++)
		expect_pat(test, bufs[i] + offs[i], lens[i], offs[i],
			   from ? SEED_DEV2 + i : SEED_CPU + i, "original after unmap");
	expect_in_use(test, &s0, &s2, 0, 0);
	KUNIT_EXPECT_EQ(test, ev(&s1, &s2, EV_FREES), (long)SG_N);
}

/*
 * A 24-bit device, the pool below 16 MB full but for two pages, and an sg
 * list of four one-page entries: the third entry fails, dma_map_sg()
 * returns 0 and dma_map_sgtable() an error, the two mapped entries are
 * unmapped again (without copying back into the originals) and the pool
 * has its two pages back, which a two-entry list then maps.
 */
static void sg_mid_list_failure(struct kunit *test)
{
	static const size_t offs[4] = { 0, 0, 0, 0 };
	static const size_t lens[4] = { PAGE_SIZE, PAGE_SIZE, PAGE_SIZE, PAGE_SIZE };
	struct device *dev = tlb_dev(test, 24, true);
	struct tsnap s0, s1, s2, s3;
	struct pool_fill *f;
	u8 *bufs[4];
	struct tsg *s;
	struct tmap *m;
	int i, ret;

	s = tsg_build(test, dev, 4, offs, lens, bufs);
	f = fill_below(test, MASK24);
	fill_give_back(f, 2);
	tsnap(test, &s0);

	ret = dma_map_sg_attrs(dev, s->t.sgl, 4, DMA_BIDIRECTIONAL, DMA_ATTR_NO_WARN);
	tsnap(test, &s1);
	KUNIT_EXPECT_EQ(test, ret, 0);
	expect_in_use(test, &s0, &s1, 0, 0);
	KUNIT_EXPECT_EQ(test, s1.tlb.failed - s0.tlb.failed, 1UL);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_ALLOCS), 2L);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_FREES), 2L);

	ret = dma_map_sgtable(dev, &s->t, DMA_FROM_DEVICE, 0);
	tsnap(test, &s2);
	KUNIT_EXPECT_LT(test, ret, 0);
	expect_in_use(test, &s0, &s2, 0, 0);
	KUNIT_EXPECT_EQ(test, s2.tlb.failed - s1.tlb.failed, 1UL);
	KUNIT_EXPECT_EQ(test, ev(&s1, &s2, EV_ALLOCS), 2L);
	KUNIT_EXPECT_EQ(test, ev(&s1, &s2, EV_FREES), 2L);
	for (i = 0; i < 4; i++)
		expect_pat(test, bufs[i], PAGE_SIZE, 0, SEED_ORIG + i, "original after failure");

	/* The two pages really are free again. */
	s->t.nents = 2;
	s->t.orig_nents = 2;
	sg_mark_end(&s->t.sgl[1]);
	s->dir = DMA_TO_DEVICE;
	KUNIT_ASSERT_EQ(test, dma_map_sgtable(dev, &s->t, DMA_TO_DEVICE, 0), 0);
	s->mapped = true;
	tsnap(test, &s3);
	expect_in_use(test, &s0, &s3, 2, 2);
	/* ... and were the last ones below 16 MB. */
	m = tmap_get(test, dev, bufs[2], PAGE_SIZE, DMA_TO_DEVICE, DMA_ATTR_NO_WARN);
	KUNIT_EXPECT_EQ(test, m->dma, DMA_MAPPING_ERROR);
	kunit_release_action(test, tsg_release, s);
}

/* ==== exhaustion ==== */

/* A console that notices messages naming one device (printk has no tracepoint here). */
static struct {
	const char *needle;
	bool seen;
} capture;

static void capture_write(struct console *con, const char *s, unsigned int n)
{
	const char *needle = READ_ONCE(capture.needle);

	if (needle && strnstr(s, needle, n))
		WRITE_ONCE(capture.seen, true);
}

static struct console capture_console = {
	.name = "dmatlbk",
	.write = capture_write,
	.flags = CON_ENABLED,
	.index = -1,
};

static void capture_stop(void *data)
{
	unregister_console(&capture_console);
	WRITE_ONCE(capture.needle, NULL);
}

static void capture_start(struct kunit *test, const char *needle)
{
	WRITE_ONCE(capture.needle, needle);
	WRITE_ONCE(capture.seen, false);
	/* unregister_console() clears CON_ENABLED. */
	capture_console.flags = CON_ENABLED;
	register_console(&capture_console);
	KUNIT_ASSERT_TRUE(test, console_is_registered(&capture_console));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, capture_stop, NULL), 0);
}

/* Was a message naming the device printed since the last call? */
static bool capture_seen(void)
{
	bool seen;

	/* Flush what printk() may have left to the console owner. */
	console_lock();
	console_unlock();
	seen = READ_ONCE(capture.seen);
	WRITE_ONCE(capture.seen, false);
	return seen;
}

struct map_set {
	struct device *dev;
	void *cpu;
	dma_addr_t *dma;
	size_t *size;
	unsigned long nr, cap;
};

static void map_set_release(void *data)
{
	struct map_set *ms = data;

	while (ms->nr) {
		ms->nr--;
		dma_unmap_single(ms->dev, ms->dma[ms->nr], ms->size[ms->nr], DMA_TO_DEVICE);
	}
}

/* Map @size bytes of ms->cpu (DMA_TO_DEVICE, NO_WARN) until a mapping fails. */
static unsigned long map_until_full(struct kunit *test, struct map_set *ms, size_t size)
{
	unsigned long n = 0;
	dma_addr_t dma;

	while (ms->nr < ms->cap) {
		dma = dma_map_single_attrs(ms->dev, ms->cpu, size, DMA_TO_DEVICE,
					   DMA_ATTR_NO_WARN);
		if (dma_mapping_error(ms->dev, dma))
			return n;
		KUNIT_EXPECT_LE(test, (u64)dma + size - 1, dev_limit(ms->dev));
		ms->dma[ms->nr] = dma;
		ms->size[ms->nr++] = size;
		n++;
	}
	KUNIT_FAIL(test, "still mapping after %lu mappings", ms->nr);
	return n;
}

/*
 * Fill the pool below the mask with 256 KiB mappings, then single pages,
 * until mapping fails: DMA_MAPPING_ERROR, no crash; a message naming the
 * device unless DMA_ATTR_NO_WARN (the message is ratelimited to 10 per
 * 5 s, and the whole suite provokes 5); exact in-use counts.  Below 32 bits the
 * pool fills below the mask first: pages above it still serve a 64-bit
 * device.  Everything unmapped, the pool is whole again.
 */
static void exhaustion(struct kunit *test)
{
	const unsigned int *bits = test->param_value;
	struct device *dev = tlb_dev(test, *bits, true);
	struct tsnap s0, s1, s2;
	unsigned long big, small;
	struct map_set *ms;
	struct tmap *m;
	dma_addr_t dma;

	tsnap(test, &s0);
	ms = kunit_kzalloc(test, sizeof(*ms), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ms);
	ms->dev = dev;
	ms->cpu = obuf(test, CHUNK);
	pat_fill(ms->cpu, CHUNK, 0, SEED_ORIG);
	ms->cap = s0.pool.free_pages + 1;
	ms->dma = kunit_kcalloc(test, ms->cap, sizeof(*ms->dma), GFP_KERNEL);
	ms->size = kunit_kcalloc(test, ms->cap, sizeof(*ms->size), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ms->dma);
	KUNIT_ASSERT_NOT_NULL(test, ms->size);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, map_set_release, ms), 0);

	big = map_until_full(test, ms, CHUNK);
	small = map_until_full(test, ms, PAGE_SIZE);
	tsnap(test, &s1);
	kunit_info(test, "%lu x 256 KiB + %lu pages mapped; %lu pool pages left free\n",
		   big, small, s1.pool.free_pages);
	KUNIT_EXPECT_GT(test, big, 0UL);
	expect_in_use(test, &s0, &s1, big * (CHUNK / PAGE_SIZE) + small, big + small);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_ALLOCS), (long)(big + small));
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_FREES), 0L);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_WASTED), 0L);
	/* Each map_until_full() ended with one failed mapping. */
	KUNIT_EXPECT_EQ(test, s1.tlb.failed - s0.tlb.failed, 2UL);

	/* Full: an error and a message, or an error and silence. */
	capture_start(test, dev_name(dev));
	dma = dma_map_single(dev, ms->cpu, PAGE_SIZE, DMA_TO_DEVICE);
	KUNIT_EXPECT_TRUE(test, dma_mapping_error(dev, dma));
	KUNIT_EXPECT_TRUE_MSG(test, capture_seen(), "no message for a full pool");
	dma = dma_map_single_attrs(dev, ms->cpu, PAGE_SIZE, DMA_TO_DEVICE, DMA_ATTR_NO_WARN);
	KUNIT_EXPECT_TRUE(test, dma_mapping_error(dev, dma));
	KUNIT_EXPECT_FALSE_MSG(test, capture_seen(), "a message despite DMA_ATTR_NO_WARN");
	kunit_release_action(test, capture_stop, NULL);
	tsnap(test, &s2);
	KUNIT_EXPECT_EQ(test, s2.tlb.failed - s1.tlb.failed, 2UL);
	expect_in_use(test, &s1, &s2, 0, 0);

	if (*bits < 32 && s1.pool.free_pages) {
		struct device *wide = tlb_dev(test, 64, true);

		m = tmap_get(test, wide, ms->cpu, PAGE_SIZE, DMA_TO_DEVICE, 0);
		expect_bounced(test, m);
		KUNIT_EXPECT_GT(test, (u64)m->dma, DMA_BIT_MASK(*bits));
		tmap_put(test, m, 0);
	}

	kunit_release_action(test, map_set_release, ms);
	tsnap(test, &s2);
	expect_in_use(test, &s0, &s2, 0, 0);
	KUNIT_EXPECT_EQ(test, ev(&s1, &s2, EV_FREES), (long)(big + small) +
			(*bits < 32 && s1.pool.free_pages ? 1 : 0));
	KUNIT_EXPECT_GE(test, s2.tlb.hiwater_pages, s1.tlb.in_use_pages);
}

/* ==== pool pages that are not bounce buffers ==== */

static void kfree_action(void *p)
{
	kfree(p);
}

struct pmask {
	struct page *page;
	size_t size;
};

static void pmask_free(void *data)
{
	struct pmask *pm = data;

	__free_pages_mask(pm->page, pm->size);
}

struct coh {
	struct device *dev;
	size_t size;
	void *cpu;
	dma_addr_t dma;
};

static void coh_free(void *data)
{
	struct coh *c = data;

	dma_free_coherent(c->dev, c->size, c->cpu, c->dma);
}

/*
 * Map @len bytes at @cpu, a buffer below 16 MB that is not a bounce
 * buffer: never seen as one, not bounced on a capable device, and the
 * unmap leaves the pool and the data alone.  On a forcing device it
 * bounces, and the unmap frees the bounce pages only.
 */
static void map_pool_buffer(struct kunit *test, struct device *dev24,
			    struct device *forced, void *cpu, size_t len,
			    enum dma_data_direction dir, const char *what)
{
	phys_addr_t phys = virt_to_phys(cpu);
	struct tsnap s0, s1, s2;
	struct tmap *m;

	KUNIT_EXPECT_TRUE_MSG(test, mask_pool_page(virt_to_page(cpu)), "%s", what);
	KUNIT_EXPECT_LE_MSG(test, (u64)phys + len - 1, MASK24, "%s", what);
	KUNIT_EXPECT_FALSE_MSG(test, any_bounce(dev24, phys, len), "%s", what);
	KUNIT_EXPECT_FALSE_MSG(test, any_bounce(forced, phys, len), "%s", what);

	pat_fill(cpu, len, 0, SEED_ORIG);
	tsnap(test, &s0);
	m = tmap_get(test, dev24, cpu, len, dir, 0);
	tsnap(test, &s1);
	expect_direct(test, m);
	expect_no_bounce(test, &s0, &s1);
	tmap_put(test, m, 0);
	tsnap(test, &s2);
	expect_no_bounce(test, &s0, &s2);
	KUNIT_EXPECT_TRUE_MSG(test, mask_pool_page(virt_to_page(cpu)), "%s", what);
	expect_pat(test, cpu, len, 0, SEED_ORIG, what);

	m = tmap_get(test, forced, cpu, len, dir, 0);
	expect_bounced(test, m);
	pat_fill(tmap_bounce(m), len, 0, SEED_DEV);
	tmap_put(test, m, 0);
	tsnap(test, &s2);
	expect_in_use(test, &s0, &s2, 0, 0);
	expect_pat(test, cpu, len, 0, dir_from_dev(dir) ? SEED_DEV : SEED_ORIG, what);
	KUNIT_EXPECT_FALSE_MSG(test, any_bounce(dev24, phys, len), "%s", what);
}

/*
 * Pool pages also serve GFP_DMA (small and large kmalloc), coherent
 * memory and alloc_pages_mask(): swiotlb_find_pool() is NULL for them,
 * mapping them on a 24-bit device does not bounce, and unmapping them
 * frees nothing into the pool.
 */
static void pool_buffers_not_bounce(struct kunit *test)
{
	struct device *dev24 = tlb_dev(test, 24, false);
	struct device *forced = tlb_dev(test, 24, true);
	struct kmem_cache *cache = kmalloc_caches[KMALLOC_DMA][kmalloc_index(64)];
	struct coh *coh;
	struct pmask *pm;
	void *p;

	if (is_swiotlb_force_bounce(dev24))
		kunit_skip(test, "swiotlb=force: every mapping bounces");

	p = kmalloc(64, GFP_KERNEL | GFP_DMA);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kfree_action, p), 0);
	map_pool_buffer(test, dev24, forced, p, 64, DMA_BIDIRECTIONAL, "kmalloc(64, GFP_DMA)");
	kunit_release_action(test, kfree_action, p);
	if (cache)
		kmem_cache_shrink(cache);

	p = kmalloc(SZ_8K + SZ_4K, GFP_KERNEL | GFP_DMA);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kfree_action, p), 0);
	map_pool_buffer(test, dev24, forced, p, SZ_8K + SZ_4K, DMA_BIDIRECTIONAL,
			"kmalloc(12K, GFP_DMA)");

	coh = kunit_kzalloc(test, sizeof(*coh), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, coh);
	coh->dev = dev24;
	coh->size = 3 * PAGE_SIZE;
	coh->cpu = dma_alloc_coherent(dev24, coh->size, &coh->dma, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, coh->cpu);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, coh_free, coh), 0);
	KUNIT_EXPECT_EQ(test, (u64)coh->dma, (u64)virt_to_phys(coh->cpu));
	/* DMA-API debug tracks it as a bidirectional mapping already. */
	map_pool_buffer(test, dev24, forced, coh->cpu, coh->size, DMA_TO_DEVICE,
			"dma_alloc_coherent()");

	pm = kunit_kzalloc(test, sizeof(*pm), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	pm->size = 2 * PAGE_SIZE;
	pm->page = alloc_pages_mask(GFP_KERNEL, pm->size, MASK24);
	KUNIT_ASSERT_NOT_NULL(test, pm->page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pmask_free, pm), 0);
	map_pool_buffer(test, dev24, forced, page_address(pm->page), pm->size,
			DMA_BIDIRECTIONAL, "alloc_pages_mask()");
}

/* ==== the default io_tlb_mem, as a real driver uses it ==== */

/* An original buffer above @mask, or NULL if GFP_KERNEL gives none. */
static u8 *obuf_above(struct kunit *test, size_t size, u64 mask)
{
	u8 *p;
	int i;

	for (i = 0; i < 16; i++) {
		p = obuf(test, size);
		if (virt_to_phys(p) > mask)
			return p;
	}
	return NULL;
}

/*
 * A device with the default io_tlb_mem bounces a buffer above its mask
 * (below the mask, data copied both ways) and maps a buffer below its mask
 * directly; a 64-bit device never bounces.
 */
static void default_mem(struct kunit *test)
{
	const unsigned int *bits = test->param_value;
	struct device *dev = tlb_dev(test, *bits, false);
	const size_t off = 0x100, size = 2 * PAGE_SIZE;
	u64 mask = DMA_BIT_MASK(*bits);
	struct tsnap s0, s1;
	struct pmask *pm;
	struct tmap *m;
	u8 *buf;

	if (is_swiotlb_force_bounce(dev))
		kunit_skip(test, "swiotlb=force: every mapping bounces");

	buf = obuf_above(test, off + size, *bits < 64 ? mask : 0);
	if (!buf)
		kunit_skip(test, "no GFP_KERNEL memory above %#llx", mask);
	pat_fill(buf + off, size, off, SEED_ORIG);
	tsnap(test, &s0);
	m = tmap_get(test, dev, buf + off, size, DMA_BIDIRECTIONAL, 0);
	tsnap(test, &s1);
	if (*bits == 64) {
		expect_direct(test, m);
		expect_no_bounce(test, &s0, &s1);
		tmap_put(test, m, 0);
		return;
	}
	expect_bounced(test, m);
	expect_in_use(test, &s0, &s1, bounce_pages(tmap_phys(m), size), 1);
	expect_pat(test, tmap_bounce(m), size, off, SEED_ORIG, "bounce");
	pat_fill(tmap_bounce(m), size, off, SEED_DEV);
	tmap_put(test, m, 0);
	expect_pat(test, buf + off, size, off, SEED_DEV, "after unmap");

	/* Below the mask: direct. */
	pm = kunit_kzalloc(test, sizeof(*pm), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	pm->size = size;
	pm->page = alloc_pages_mask(GFP_KERNEL, size, mask);
	KUNIT_ASSERT_NOT_NULL(test, pm->page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pmask_free, pm), 0);
	tsnap(test, &s0);
	m = tmap_get(test, dev, page_address(pm->page), size, DMA_BIDIRECTIONAL, 0);
	tsnap(test, &s1);
	expect_direct(test, m);
	expect_no_bounce(test, &s0, &s1);
	tmap_put(test, m, 0);
}

/* ==== bus_dma_limit ==== */

/*
 * The bounce buffer goes below min(DMA mask, bus_dma_limit): a 64-bit
 * device behind a 28-bit bus, a 32-bit device behind a 24-bit bus, and a
 * 24-bit device behind a wider bus.
 */
static void bus_dma_limit(struct kunit *test)
{
	static const struct {
		unsigned int bits;
		u64 bus;
		u64 limit;
	} cases[] = {
		{ 64, MASK28, MASK28 }, { 32, MASK24, MASK24 }, { 24, MASK28, MASK24 },
	};
	const size_t size = 3 * PAGE_SIZE;
	unsigned int i;
	struct tmap *m;
	u8 *buf = obuf(test, size);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct device *dev = tlb_dev(test, cases[i].bits, true);

		dev->bus_dma_limit = cases[i].bus;
		KUNIT_EXPECT_EQ(test, dev_limit(dev), cases[i].limit);
		pat_fill(buf, size, 0, SEED_ORIG);
		m = tmap_get(test, dev, buf, size, DMA_BIDIRECTIONAL, 0);
		expect_bounced(test, m);
		KUNIT_EXPECT_LE(test, (u64)m->dma + size - 1, cases[i].limit);
		expect_pat(test, tmap_bounce(m), size, 0, SEED_ORIG, "bounce");
		tmap_put(test, m, 0);
	}
}

/* ==== fault injection (fail_mask_alloc, bounce-only) ==== */

/*
 * Bounce buffers failed on purpose, the pool itself with room: a mapping
 * returns DMA_MAPPING_ERROR with the message of a full pool (none with
 * DMA_ATTR_NO_WARN), counts as failed, takes no page.  Bounce-only spares
 * the allocation API.  Disarmed, the same mapping bounces.
 */
static void inject_map_single(struct kunit *test)
{
	struct device *dev = tlb_dev(test, 28, true);
	u8 *cpu = obuf(test, PAGE_SIZE);
	struct tsnap s0, s1, s2;
	struct page *page;
	struct tmap *m;

	pat_fill(cpu, PAGE_SIZE, 0, SEED_ORIG);
	fail_arm(test, -1, 0, true);
	capture_start(test, dev_name(dev));
	tsnap(test, &s0);
	m = tmap_get(test, dev, cpu, PAGE_SIZE, DMA_TO_DEVICE, 0);
	KUNIT_EXPECT_EQ(test, m->dma, DMA_MAPPING_ERROR);
	KUNIT_EXPECT_TRUE_MSG(test, capture_seen(), "no message for an injected failure");
	m = tmap_get(test, dev, cpu, PAGE_SIZE, DMA_TO_DEVICE, DMA_ATTR_NO_WARN);
	KUNIT_EXPECT_EQ(test, m->dma, DMA_MAPPING_ERROR);
	KUNIT_EXPECT_FALSE_MSG(test, capture_seen(), "a message despite DMA_ATTR_NO_WARN");
	kunit_release_action(test, capture_stop, NULL);
	tsnap(test, &s1);
	expect_in_use(test, &s0, &s1, 0, 0);
	KUNIT_EXPECT_EQ(test, s1.tlb.failed - s0.tlb.failed, 2UL);
	KUNIT_EXPECT_EQ(test, s1.pool.injected - s0.pool.injected, 2UL);
	KUNIT_EXPECT_EQ(test, s1.pool.largest_free_bytes, s0.pool.largest_free_bytes);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_ALLOCS), 0L);

	/* bounce-only: the allocation API is not failed. */
	page = alloc_pages_mask(GFP_KERNEL, PAGE_SIZE, MASK28);
	KUNIT_EXPECT_NOT_NULL(test, page);
	if (page)
		__free_pages_mask(page, PAGE_SIZE);

	fail_disarm();
	m = tmap_get(test, dev, cpu, PAGE_SIZE, DMA_TO_DEVICE, 0);
	expect_bounced(test, m);
	tmap_put(test, m, 0);
	tsnap(test, &s2);
	expect_in_use(test, &s0, &s2, 0, 0);
	KUNIT_EXPECT_EQ(test, s2.pool.injected, s1.pool.injected);
}

static const unsigned int fail_at[] = { 1, 3, SG_N };

static void fail_at_desc(const unsigned int *k, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "entry %u of %u", *k, SG_N);
}

KUNIT_ARRAY_PARAM(fail_at, fail_at, fail_at_desc);

/*
 * dma_map_sg() of five one-page entries with the k-th bounce buffer failed
 * on purpose (space: k - 1 pages go through first): it returns 0, the
 * k - 1 entries mapped before are unmapped again without copying back,
 * and the pool is whole; dma_map_sgtable() then maps all five.
 */
static void inject_sg_entry_k(struct kunit *test)
{
	static const size_t offs[SG_N] = { 0, 0, 0, 0, 0 };
	static const size_t lens[SG_N] = { PAGE_SIZE, PAGE_SIZE, PAGE_SIZE, PAGE_SIZE,
					   PAGE_SIZE };
	const unsigned int *k = test->param_value;
	struct device *dev = tlb_dev(test, 24, true);
	struct tsnap s0, s1, s2;
	u8 *bufs[SG_N];
	struct tsg *s;
	int i, ret;

	s = tsg_build(test, dev, SG_N, offs, lens, bufs);
	/* A page goes through while space is above it: k - 1 of them. */
	fail_arm(test, 1, *k, true);
	tsnap(test, &s0);
	ret = dma_map_sg_attrs(dev, s->t.sgl, SG_N, DMA_BIDIRECTIONAL, DMA_ATTR_NO_WARN);
	tsnap(test, &s1);
	KUNIT_EXPECT_EQ(test, ret, 0);
	expect_in_use(test, &s0, &s1, 0, 0);
	KUNIT_EXPECT_EQ(test, s1.tlb.failed - s0.tlb.failed, 1UL);
	KUNIT_EXPECT_EQ(test, s1.pool.injected - s0.pool.injected, 1UL);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_ALLOCS), (long)*k - 1);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_FREES), (long)*k - 1);
	KUNIT_EXPECT_EQ(test, s1.pool.largest_free_bytes, s0.pool.largest_free_bytes);
	for (i = 0; i < SG_N; i++)
		expect_pat(test, bufs[i], PAGE_SIZE, 0, SEED_ORIG + i, "original after failure");

	/* times used up: the whole list maps. */
	s->dir = DMA_TO_DEVICE;
	KUNIT_ASSERT_EQ(test, dma_map_sgtable(dev, &s->t, DMA_TO_DEVICE, 0), 0);
	s->mapped = true;
	tsnap(test, &s2);
	expect_in_use(test, &s0, &s2, SG_N, SG_N);
	KUNIT_EXPECT_EQ(test, s2.pool.injected, s1.pool.injected);
	kunit_release_action(test, tsg_release, s);
}

/* ==== bad input: addresses that were never mapped ==== */

#define EXPECT_DMATLB_WARNING	"vm-run: expect-warning: kernel/dma/dmatlb\\.c\n"

/*
 * Syncs and unmaps reach dmatlb only for addresses that swiotlb_find_pool()
 * finds.  It finds none for a pool page from alloc_pages_mask(), a page
 * outside the pool, or a bounce buffer already unmapped (a stale handle;
 * pool_buffers_not_bounce covers GFP_DMA and coherent memory), so dma-direct
 * neither copies nor frees there.  dmatlb_unmap() called for such an
 * address anyway warns once, frees nothing and reports 0 slabs; the pool
 * does not change.
 */
static void never_mapped_not_found(struct kunit *test)
{
	struct device *dev = tlb_dev(test, 24, true);
	u8 *cpu = obuf(test, PAGE_SIZE);
	struct tsnap s0, s1;
	struct pmask *pm;
	phys_addr_t stale;
	struct page *page;
	struct tmap *m;

	pm = kunit_kzalloc(test, sizeof(*pm), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	pm->size = PAGE_SIZE;
	pm->page = alloc_pages_mask(GFP_KERNEL, pm->size, MASK24);
	KUNIT_ASSERT_NOT_NULL(test, pm->page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pmask_free, pm), 0);

	m = tmap_get(test, dev, cpu, PAGE_SIZE, DMA_TO_DEVICE, 0);
	expect_bounced(test, m);
	stale = tmap_phys(m);
	tmap_put(test, m, 0);

	/* A pool page from alloc_pages_mask(), and the freed bounce page. */
	page = pm->page;
	tsnap(test, &s0);
	KUNIT_EXPECT_NULL(test, swiotlb_find_pool(dev, stale));
	KUNIT_EXPECT_NULL(test, swiotlb_find_pool(dev, page_to_phys(page)));
	KUNIT_EXPECT_NULL(test, swiotlb_find_pool(dev, page_to_phys(page) + 0x10));
	KUNIT_EXPECT_NULL(test, swiotlb_find_pool(dev, virt_to_phys(cpu)));

	pr_info(EXPECT_DMATLB_WARNING);
	KUNIT_EXPECT_EQ(test, dmatlb_unmap(dev, page_to_phys(page), PAGE_SIZE,
					   DMA_BIDIRECTIONAL, 0), 0UL);
	KUNIT_EXPECT_EQ(test, dmatlb_unmap(dev, stale, PAGE_SIZE, DMA_TO_DEVICE, 0), 0UL);
	tsnap(test, &s1);
	expect_in_use(test, &s0, &s1, 0, 0);
	KUNIT_EXPECT_EQ(test, s1.pool.misuse, s0.pool.misuse);
	KUNIT_EXPECT_EQ(test, s1.pool.largest_free_bytes, s0.pool.largest_free_bytes);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_FREES), 0L);
	KUNIT_EXPECT_TRUE(test, mask_pool_page(page));
	KUNIT_EXPECT_FALSE(test, dmatlb_type(page_to_phys(page)));
}

/* ==== bad input: the dmatlb= parameter ==== */

struct dmatlb_parse_case {
	const char *in;
	int ret;
	bool on;
};

static const struct dmatlb_parse_case dmatlb_parse_cases[] = {
	{ "on", 0, true },
	{ "off", 0, false },
	{ NULL, -EINVAL },	/* a bare "dmatlb" */
	{ "", -EINVAL },
	{ "junk", -EINVAL },
	{ "ON", -EINVAL },
	{ "Off", -EINVAL },
	{ "on,", -EINVAL },
	{ "on ", -EINVAL },
	{ " on", -EINVAL },
	{ "onx", -EINVAL },
	{ "o", -EINVAL },
	{ "offf", -EINVAL },
	{ "on,off", -EINVAL },
	{ "1", -EINVAL },
	{ "0", -EINVAL },
	{ "yes", -EINVAL },
	{ "force", -EINVAL },
};

static void dmatlb_parse_desc(const struct dmatlb_parse_case *c, char *desc)
{
	if (c->in)
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->in);
	else
		strscpy(desc, "NULL", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(dmatlb_parse, dmatlb_parse_cases, dmatlb_parse_desc);

/*
 * dmatlb_parse() takes exactly "on" and "off" and on error touches
 * nothing; setup_dmatlb() then reports the value and keeps the default
 * (checked at boot by scripts/run-tests with "dmatlb=junk").
 */
static void dmatlb_param_parse(struct kunit *test)
{
	const struct dmatlb_parse_case *c = test->param_value;
	bool on, in;

	for (in = false; ; in = true) {
		on = in;
		KUNIT_EXPECT_EQ(test, dmatlb_parse(c->in, &on), c->ret);
		KUNIT_EXPECT_EQ(test, on, c->ret ? in : c->on);
		if (in)
			break;
	}
}

struct swiotlb_parse_case {
	const char *in;
	int ret;
	unsigned long nslabs;
	unsigned int nareas;
	int force;
};

static const struct swiotlb_parse_case swiotlb_parse_cases[] = {
	/* the forms stock 6.12 takes */
	{ "65536", 0, 65536 },
	{ "0x10000", 0, 65536 },
	{ "100", 0, 100 },	/* setup_io_tlb_npages() rounds it up */
	{ "65536,4", 0, 65536, 4 },
	{ "65536,4,force", 0, 65536, 4, 1 },
	{ "65536,force", 0, 65536, 0, 1 },
	{ "65536,,noforce", 0, 65536, 0, -1 },
	{ ",4", 0, 0, 4 },
	{ ",4,force", 0, 0, 4, 1 },
	{ ",force", 0, 0, 0, 1 },
	{ "force", 0, 0, 0, 1 },
	{ "noforce", 0, 0, 0, -1 },
	{ "1,65536", 0, 1, SWIOTLB_MAX_AREAS },
	/* malformed: nothing is set */
	{ NULL, -EINVAL },	/* a bare "swiotlb": stock dereferenced NULL */
	{ "", -EINVAL },
	{ ",", -EINVAL },
	{ ",,", -EINVAL },
	{ "junk", -EINVAL },
	{ "0", -EINVAL },
	{ "0,4", -EINVAL },
	{ "65536,0", -EINVAL },
	{ "64k", -EINVAL },
	{ "64M", -EINVAL },
	{ "-1", -EINVAL },
	{ " 65536", -EINVAL },
	{ "65536 ", -EINVAL },
	{ "65536,4,force,", -EINVAL },
	{ "65536,4,8", -EINVAL },
	{ "force,65536", -EINVAL },
	{ "force,noforce", -EINVAL },
	{ "FORCE", -EINVAL },
	{ "forced", -EINVAL },
	{ "65536,forc", -EINVAL },
	{ "18446744073709551616", -ERANGE },
	{ "0xffffffffffffffff", -ERANGE },
	{ "1,65537", -ERANGE },
	{ "1,4294967296", -ERANGE },
	{ "1234567890123456789012345678901234567890123456789012345678901234567890",
	  -EINVAL },
};

static void swiotlb_parse_desc(const struct swiotlb_parse_case *c, char *desc)
{
	if (c->in)
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->in);
	else
		strscpy(desc, "NULL", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(swiotlb_parse, swiotlb_parse_cases, swiotlb_parse_desc);

/*
 * swiotlb_parse() takes every form stock 6.12 documents and on error
 * writes nothing; setup_io_tlb_npages() then reports the value and
 * ignores it (checked at boot by scripts/run-tests with a bare "swiotlb",
 * "swiotlb=junk" and a size larger than memory).
 */
static void swiotlb_param_parse(struct kunit *test)
{
	const struct swiotlb_parse_case *c = test->param_value;
	unsigned long nslabs = 12345;
	unsigned int nareas = 678;
	int force = 9;

	KUNIT_EXPECT_EQ(test, swiotlb_parse(c->in, &nslabs, &nareas, &force),
			c->ret);
	if (c->ret) {
		KUNIT_EXPECT_EQ(test, nslabs, 12345UL);
		KUNIT_EXPECT_EQ(test, nareas, 678U);
		KUNIT_EXPECT_EQ(test, force, 9);
		return;
	}
	KUNIT_EXPECT_EQ(test, nslabs, c->nslabs);
	KUNIT_EXPECT_EQ(test, nareas, c->nareas);
	KUNIT_EXPECT_EQ(test, force, c->force);
}

/* ==== counters ==== */

/*
 * Three mappings alive at once and unmapped in another order: in-use
 * pages and mappings, the high-water mark and the four vm events move by
 * exactly what each mapping uses, the pool's free pages with them.
 */
static void counters(struct kunit *test)
{
	static const struct {
		size_t off, size;
		unsigned long pages;
	} maps[] = {
		{ 0, 1, 1 }, { 0x800, PAGE_SIZE + 1, 2 }, { 0, PAGE_SIZE, 1 }, { 0xf00, 0x200, 2 },
	};
	static const unsigned int order[] = { 1, 3, 0, 2 };
	const unsigned int *bits = test->param_value;
	struct device *dev = tlb_dev(test, *bits, true);
	struct tmap *m[ARRAY_SIZE(maps)];
	struct tsnap s0, s, prev;
	unsigned long pages = 0, wasted = 0;
	unsigned int i, k;
#ifdef CONFIG_DEBUG_FS
	long used0 = atomic_long_read(&force_mem.total_used);
#endif

	tsnap(test, &s0);
	s = s0;
	for (i = 0; i < ARRAY_SIZE(maps); i++) {
		u8 *buf = obuf(test, 2 * PAGE_SIZE);

		prev = s;
		m[i] = tmap_get(test, dev, buf + maps[i].off, maps[i].size, DMA_TO_DEVICE, 0);
		tsnap(test, &s);
		expect_bounced(test, m[i]);
		pages += maps[i].pages;
		wasted += maps[i].pages * PAGE_SIZE - maps[i].size;
		expect_in_use(test, &prev, &s, maps[i].pages, 1);
		KUNIT_EXPECT_EQ(test, ev(&prev, &s, EV_PAGES), (long)maps[i].pages);
		KUNIT_EXPECT_EQ(test, ev(&prev, &s, EV_WASTED),
				(long)(maps[i].pages * PAGE_SIZE - maps[i].size));
		KUNIT_EXPECT_EQ(test, ev(&prev, &s, EV_ALLOCS), 1L);
		KUNIT_EXPECT_EQ(test, ev(&prev, &s, EV_FREES), 0L);
	}
	expect_in_use(test, &s0, &s, pages, ARRAY_SIZE(maps));
	KUNIT_EXPECT_GE(test, s.tlb.hiwater_pages, s0.tlb.in_use_pages + pages);
#ifdef CONFIG_DEBUG_FS
	/* swiotlb's debugfs io_tlb_used counts the pages in 2 KiB slabs. */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&force_mem.total_used) - used0,
			(long)(pages * (PAGE_SIZE >> IO_TLB_SHIFT)));
#endif
	KUNIT_EXPECT_EQ(test, ev(&s0, &s, EV_WASTED), (long)wasted);

	for (k = 0; k < ARRAY_SIZE(order); k++) {
		i = order[k];
		prev = s;
		tmap_put(test, m[i], 0);
		tsnap(test, &s);
		expect_in_use(test, &prev, &s, -(long)maps[i].pages, -1);
		KUNIT_EXPECT_EQ(test, ev(&prev, &s, EV_FREES), 1L);
		KUNIT_EXPECT_EQ(test, ev(&prev, &s, EV_ALLOCS), 0L);
		KUNIT_EXPECT_EQ(test, ev(&prev, &s, EV_PAGES), 0L);
		KUNIT_EXPECT_EQ(test, ev(&prev, &s, EV_WASTED), 0L);
		/* The high-water mark never goes down. */
		KUNIT_EXPECT_EQ(test, s.tlb.hiwater_pages, prev.tlb.hiwater_pages);
	}
	expect_in_use(test, &s0, &s, 0, 0);
	KUNIT_EXPECT_EQ(test, s.tlb.failed, s0.tlb.failed);
#ifdef CONFIG_DEBUG_FS
	KUNIT_EXPECT_EQ(test, atomic_long_read(&force_mem.total_used), used0);
#endif
}

static struct kunit_case dmatlb_cases[] = {
	KUNIT_CASE(dmatlb_basics),
	/* copies in every direction */
	KUNIT_CASE_PARAM(map_directions, dirs_gen_params),
	KUNIT_CASE_PARAM(from_device_no_leak, bits_gen_params),
	KUNIT_CASE_PARAM(sync_sub_ranges, range_gen_params),
	KUNIT_CASE_PARAM(skip_cpu_sync, dir_only_gen_params),
	/* placement */
	KUNIT_CASE_PARAM(in_page_offsets, bits_gen_params),
	KUNIT_CASE_PARAM(min_align_mask_kept, min_align_gen_params),
	KUNIT_CASE_PARAM(alloc_align_mask_honoured, align_gen_params),
	KUNIT_CASE(bus_dma_limit),
	KUNIT_CASE_PARAM(default_mem, bits_gen_params),
	/* scatter-gather */
	KUNIT_CASE_PARAM(sg_map_sync_unmap, dirs_gen_params),
	KUNIT_CASE(sg_mid_list_failure),
	/* pool pages that are not bounce buffers */
	KUNIT_CASE(pool_buffers_not_bounce),
	/* full pool */
	KUNIT_CASE_PARAM(exhaustion, bits_gen_params),
	/* counters */
	KUNIT_CASE_PARAM(counters, bits_gen_params),
	/* fault injection */
	KUNIT_CASE(inject_map_single),
	KUNIT_CASE_PARAM(inject_sg_entry_k, fail_at_gen_params),
	/* bad input */
	KUNIT_CASE(never_mapped_not_found),
	KUNIT_CASE_PARAM(dmatlb_param_parse, dmatlb_parse_gen_params),
	KUNIT_CASE_PARAM(swiotlb_param_parse, swiotlb_parse_gen_params),
	{}
};

static struct kunit_suite dmatlb_suite = {
	.name = "dmatlb",
	.suite_init = mask_alloc_kunit_suite_init,
	.init = dmatlb_test_init,
	.test_cases = dmatlb_cases,
};

kunit_test_suite(dmatlb_suite);

MODULE_DESCRIPTION("KUnit test of swiotlb bouncing through the mask pool (dmatlb)");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
