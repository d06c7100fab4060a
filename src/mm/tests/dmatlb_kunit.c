// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for swiotlb pools carved from the mask pool ("dmatlb",
 * kernel/dma/dmatlb.c and the CONFIG_SWIOTLB_MASK_ALLOC parts of
 * kernel/dma/swiotlb.c).
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
 *  - stock slots: a mapping takes nr_slots() 2 KiB slots (one for any
 *    mapping up to 2 KiB), starts on a slot (a page for a page or more),
 *    keeps the bits under min_align_mask and the alignment asked by
 *    alloc_align_mask, and does not cross the device's segment boundary
 *    in DMA address space;
 *  - the bounce buffer lies in a pool that lies entirely below
 *    min(DMA mask, bus limit) in the device's DMA address space, also
 *    through a dma_range_map; a limit below every window fails the map;
 *  - when no pool below the limit has room, the map is served from a
 *    transient pool (also in atomic context) and a pool is grown below
 *    the limit; grown pools go back to the mask pool when idle, or at
 *    once with dmatlb_shrink_now();
 *  - scatter-gather lists, also one that fails part way;
 *  - a full mask pool gives DMA_MAPPING_ERROR and a ratelimited message
 *    unless DMA_ATTR_NO_WARN;
 *  - mask pool memory that serves GFP_DMA or coherent memory is never a
 *    bounce buffer (no swiotlb pool holds it);
 *  - an unmap of an address that is not the start of a mapping, or a sync
 *    outside any mapping, warns once and neither copies nor frees;
 *  - the counters (dmatlb_get_stats() and the swiotlb_* vm events) move by
 *    exactly what each mapping uses;
 *  - transient pools failed by fault injection (fail_mask_alloc,
 *    bounce-only) fail the map cleanly, also in the middle of a
 *    scatter-gather list.
 *
 * Devices use the default io_tlb_mem, as a real driver does.  Cases that
 * need every mapping to bounce set its force_bounce for their duration
 * (a cleanup action puts it back); default_mem and pool_buffers_not_bounce
 * clear it for theirs, so that they also run under swiotlb=force.  The
 * "device" writes straight into the bounce buffer through the direct map.
 *
 * Everything a case maps or allocates is registered with
 * kunit_add_action_or_reset() first, so a failing case never leaks into the
 * next one.  Each case starts and ends with dmatlb_shrink_now(), and checks
 * at the end that no slot, mapping or transient pool is left and that the
 * mask pool has every page back.  The cases assume that nothing else maps
 * through swiotlb while the suite runs, which holds at boot.  All mappings
 * are DMA-API-debug clean (CONFIG_DMA_API_DEBUG): every handle is checked,
 * syncs use the mapping's direction, no two live mappings other than
 * DMA_TO_DEVICE ones share a cache line, and misuse goes to swiotlb
 * directly, never through the DMA API.
 *
 * With "dmatlb=off" on the command line every case is skipped; otherwise
 * dmatlb must be active, and the suite fails if it is not.
 */
#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/console.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-direct.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/dmatlb.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/mask_alloc.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/swiotlb.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>

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

/* The WARN_ONCE()s of swiotlb that misuse cases provoke on purpose. */
#define EXPECT_SWIOTLB_WARNING	"vm-run: expect-warning: kernel/dma/swiotlb\\.c\n"

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

/* ---- snapshots: slots, pools, mask pool, swiotlb_* vm events ---- */

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

static long delta(unsigned long a, unsigned long b)
{
	return (long)(b - a);
}

/*
 * Slots in use moved by exactly @slots and live mappings by @maps (a
 * mapping in a transient pool is counted by its pool, not in st.maps).
 */
static void expect_in_use(struct kunit *test, const struct tsnap *a,
			  const struct tsnap *b, long slots, long maps)
{
	KUNIT_EXPECT_EQ(test, delta(a->tlb.used_slots, b->tlb.used_slots), slots);
	KUNIT_EXPECT_EQ(test, delta(a->tlb.maps + a->tlb.transient,
				    b->tlb.maps + b->tlb.transient), maps);
}

/* Nothing bounced between @a and @b. */
static void expect_no_bounce(struct kunit *test, const struct tsnap *a,
			     const struct tsnap *b)
{
	int i;

	expect_in_use(test, a, b, 0, 0);
	KUNIT_EXPECT_EQ(test, b->tlb.transient, a->tlb.transient);
	for (i = 0; i < NR_EV; i++)
		KUNIT_EXPECT_EQ_MSG(test, ev(a, b, i), 0L, "event %s",
				    vm_event_name(tlb_events[i]));
}

/* ---- the default io_tlb_mem and its pools ---- */

static struct io_tlb_mem *tlb_mem(struct device *dev)
{
	return dev->dma_io_tlb_mem;
}

/* Let the dyn_alloc worker finish the growth asked for so far. */
static void grow_flush(struct device *dev)
{
	flush_work(&tlb_mem(dev)->dyn_alloc);
}

/* The swiotlb pool that holds @phys, for any device of the default mem. */
static struct io_tlb_pool *pool_of(struct device *dev, phys_addr_t phys)
{
	return __swiotlb_find_pool(dev, phys);
}

/* Is @phys a pool address for @dev, as swiotlb_find_pool() sees it? */
static bool any_pool(struct device *dev, phys_addr_t phys, size_t size)
{
	phys_addr_t p;

	for (p = phys; p < phys + size; p = PAGE_ALIGN(p + 1))
		if (pool_of(dev, p))
			return true;
	return false;
}

/* The limit a bounce buffer must lie below, in DMA address space. */
static u64 dev_limit(struct device *dev)
{
	return min_not_zero(*dev->dma_mask, dev->bus_dma_limit);
}

/* Does all of @pool lie in one window of @dev's DMA space, at or below @limit? */
static bool pool_below(struct device *dev, struct io_tlb_pool *pool, u64 limit)
{
	dma_addr_t first = phys_to_dma(dev, pool->start);
	dma_addr_t last = phys_to_dma(dev, pool->end - 1);

	return first != DMA_MAPPING_ERROR && last != DMA_MAPPING_ERROR &&
	       last - first == pool->end - 1 - pool->start && last <= limit;
}

/* Pools of the default mem (transient ones are per device, not counted). */
static unsigned long nr_pools(struct device *dev, u64 limit)
{
	struct io_tlb_pool *pool;
	unsigned long n = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(pool, &tlb_mem(dev)->pools, node)
		n += !limit || pool_below(dev, pool, limit);
	rcu_read_unlock();
	return n;
}

/* 2 KiB slots that @size bytes at @orig take on @dev (no alloc_align_mask). */
static unsigned long slots_for(struct device *dev, phys_addr_t orig, size_t size)
{
	unsigned int off = orig & dma_get_min_align_mask(dev) & (IO_TLB_SIZE - 1);

	return DIV_ROUND_UP(size + off, IO_TLB_SIZE);
}

/* ---- per-case setup: dmatlb must be on; everything is back at the end ---- */

struct whole {
	struct kunit *test;
	struct tsnap s0;
};

static void expect_whole(void *data)
{
	struct whole *w = data;
	struct kunit *test = w->test;
	struct tsnap *s0 = &w->s0, s1;

	/* Grown pools go back, transient ones after their grace period. */
	dmatlb_shrink_now();
	tsnap(test, &s1);
	KUNIT_EXPECT_EQ_MSG(test, s1.tlb.used_slots, s0->tlb.used_slots, "slots left in use");
	KUNIT_EXPECT_EQ_MSG(test, s1.tlb.maps, s0->tlb.maps, "mappings left");
	KUNIT_EXPECT_EQ_MSG(test, s1.tlb.transient, s0->tlb.transient, "transient pools left");
	KUNIT_EXPECT_EQ_MSG(test, s1.tlb.pools, s0->tlb.pools, "grown pools not given back");
	KUNIT_EXPECT_EQ_MSG(test, s1.pool.free_pages, s0->pool.free_pages,
			    "mask pool pages not given back");
	KUNIT_EXPECT_EQ(test, s1.pool.misuse, s0->pool.misuse);
	KUNIT_EXPECT_EQ(test, ev(s0, &s1, EV_ALLOCS), ev(s0, &s1, EV_FREES));
}

/* Did the command line say "dmatlb=off" (the last dmatlb= wins)? */
static bool cmdline_dmatlb_off(void)
{
	const char *p = saved_command_line, *val = NULL;

	while (p && (p = strstr(p, "dmatlb="))) {
		if (p == saved_command_line || p[-1] == ' ')
			val = p + strlen("dmatlb=");
		p += strlen("dmatlb=");
	}
	return val && !strncmp(val, "off", 3) && (val[3] == ' ' || !val[3]);
}

static int dmatlb_test_init(struct kunit *test)
{
	struct dmatlb_stats st;
	struct whole *w;

	dmatlb_get_stats(&st);
	if (!st.active) {
		if (cmdline_dmatlb_off())
			kunit_skip(test, "dmatlb=off");
		/* CONFIG_SWIOTLB_MASK_ALLOC=y and no dmatlb=off: it must be on. */
		KUNIT_FAIL(test, "dmatlb is off, but the command line does not say dmatlb=off");
		return -ENODEV;
	}
	/* A boot where nothing above 4 GB needs bouncing (1 GiB, no force). */
	if (st.low_only && strcmp(test->name, "after_swiotlb_exit"))
		kunit_skip(test, "after swiotlb_exit() only limits below 32 bits bounce");
	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	w->test = test;
	/* Start without idle grown pools, as expect_whole() ends. */
	dmatlb_shrink_now();
	tsnap(test, &w->s0);
	/* Registered first, so it runs last, after every other cleanup. */
	return kunit_add_action_or_reset(test, expect_whole, w);
}

/* ---- bouncing on or off for the whole default io_tlb_mem ---- */

struct force_saved {
	struct io_tlb_mem *mem;
	bool force;
};

static void restore_force_bounce(void *data)
{
	struct force_saved *f = data;

	WRITE_ONCE(f->mem->force_bounce, f->force);
}

/*
 * Make every mapping through @dev's io_tlb_mem bounce (@force), or only
 * those that must (!@force), until the case ends.
 */
static void set_force_bounce(struct kunit *test, struct device *dev, bool force)
{
	struct force_saved *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->mem = tlb_mem(dev);
	f->force = f->mem->force_bounce;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_force_bounce, f), 0);
	WRITE_ONCE(f->mem->force_bounce, force);
}

/* ---- fake devices ---- */

static atomic_t dev_seq = ATOMIC_INIT(0);

/*
 * A device on the KUnit bus, both masks DMA_BIT_MASK(@bits), with
 * dma_parms (for min_align_mask and the segment boundary), on the default
 * io_tlb_mem.  @force: every mapping through that mem bounces for the
 * rest of the case.
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
	/* swiotlb_dev_init() gave it the default io_tlb_mem, carved by dmatlb. */
	KUNIT_ASSERT_NOT_NULL(test, dev->dma_io_tlb_mem);
	KUNIT_ASSERT_TRUE(test, dev->dma_io_tlb_mem->maskpool);
	if (force)
		set_force_bounce(test, dev, true);
	return dev;
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

/* What the device sees, through the direct map (pools are low memory). */
static u8 *tmap_bounce(struct tmap *m)
{
	return phys_to_virt(tmap_phys(m));
}

static struct io_tlb_pool *tmap_pool(struct tmap *m)
{
	return pool_of(m->dev, tmap_phys(m));
}

/*
 * @size bytes at DMA address @dma bounced for the original at @orig: in
 * a swiotlb pool of mask pool memory that lies entirely below the
 * device's limit, on a slot (a page for a page or more) or at the
 * original's bits under min_align_mask.
 */
static void expect_bounce_at(struct kunit *test, struct device *dev, dma_addr_t dma,
			     size_t size, phys_addr_t orig)
{
	unsigned int min_align = dma_get_min_align_mask(dev);
	phys_addr_t phys = dma_to_phys(dev, dma);
	u64 limit = dev_limit(dev);
	struct io_tlb_pool *pool;

	KUNIT_EXPECT_NE(test, phys, orig);
	KUNIT_EXPECT_LE_MSG(test, (u64)dma + size - 1, limit, "%zu bytes at %pad", size, &dma);
	pool = pool_of(dev, phys);
	KUNIT_ASSERT_NOT_NULL_MSG(test, pool, "%pa is in no swiotlb pool", &phys);
	KUNIT_EXPECT_PTR_EQ(test, swiotlb_find_pool(dev, phys), pool);
	KUNIT_EXPECT_LE_MSG(test, (u64)phys + size, (u64)pool->end, "%zu bytes at %pa", size,
			    &phys);
	KUNIT_EXPECT_TRUE_MSG(test, pool_below(dev, pool, limit),
			      "pool [%pa-%pa) not below %#llx", &pool->start, &pool->end, limit);
	KUNIT_EXPECT_TRUE(test, pool->maskpool);
	KUNIT_EXPECT_TRUE(test, mask_pool_page(pfn_to_page(PHYS_PFN(phys))));
	if (min_align) {
		KUNIT_EXPECT_EQ_MSG(test, phys & min_align, orig & min_align,
				    "bounce %pa for %pa", &phys, &orig);
	} else {
		KUNIT_EXPECT_EQ_MSG(test, phys & (IO_TLB_SIZE - 1), 0ULL, "bounce %pa", &phys);
		if (size >= PAGE_SIZE)
			KUNIT_EXPECT_EQ_MSG(test, offset_in_page(phys), 0UL, "bounce %pa", &phys);
	}
}

static void expect_bounced(struct kunit *test, struct tmap *m)
{
	phys_addr_t orig = virt_to_phys(m->cpu);

	KUNIT_ASSERT_NE_MSG(test, m->dma, DMA_MAPPING_ERROR, "%zu bytes at %pa, limit %#llx",
			    m->size, &orig, dev_limit(m->dev));
	expect_bounce_at(test, m->dev, m->dma, m->size, orig);
}

/* @m did not bounce: the handle is the original's address. */
static void expect_direct(struct kunit *test, struct tmap *m)
{
	phys_addr_t orig = virt_to_phys(m->cpu);

	KUNIT_ASSERT_NE(test, m->dma, DMA_MAPPING_ERROR);
	KUNIT_EXPECT_EQ(test, (u64)tmap_phys(m), (u64)orig);
	KUNIT_EXPECT_FALSE(test, any_pool(m->dev, orig, m->size));
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

/* ---- many mappings of one buffer, unmapped together ---- */

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

/* Room for @cap DMA_TO_DEVICE mappings of a CHUNK buffer on @dev. */
static struct map_set *map_set_new(struct kunit *test, struct device *dev, unsigned long cap)
{
	struct map_set *ms = kunit_kzalloc(test, sizeof(*ms), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ms);
	ms->dev = dev;
	ms->cpu = obuf(test, CHUNK);
	pat_fill(ms->cpu, CHUNK, 0, SEED_ORIG);
	ms->cap = cap;
	ms->dma = kunit_kcalloc(test, cap, sizeof(*ms->dma), GFP_KERNEL);
	ms->size = kunit_kcalloc(test, cap, sizeof(*ms->size), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ms->dma);
	KUNIT_ASSERT_NOT_NULL(test, ms->size);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, map_set_release, ms), 0);
	return ms;
}

/* Enough for every slot of every pool and every free mask pool page. */
static unsigned long map_set_cap(void)
{
	struct mask_pool_stats pool;
	struct dmatlb_stats st;

	dmatlb_get_stats(&st);
	mask_pool_get_stats(&pool);
	return st.pool_slots / 2 + pool.free_pages + 64;
}

/*
 * Map @size bytes of ms->cpu once more (DMA_TO_DEVICE, NO_WARN).  Return
 * its pool, or NULL if the mapping failed.
 */
static struct io_tlb_pool *map_one(struct kunit *test, struct map_set *ms, size_t size)
{
	dma_addr_t dma;

	if (ms->nr >= ms->cap) {
		KUNIT_FAIL(test, "still mapping after %lu mappings", ms->nr);
		return NULL;
	}
	dma = dma_map_single_attrs(ms->dev, ms->cpu, size, DMA_TO_DEVICE, DMA_ATTR_NO_WARN);
	if (dma_mapping_error(ms->dev, dma))
		return NULL;
	ms->dma[ms->nr] = dma;
	ms->size[ms->nr++] = size;
	KUNIT_EXPECT_LE(test, (u64)dma + size - 1, dev_limit(ms->dev));
	return pool_of(ms->dev, dma_to_phys(ms->dev, dma));
}

/*
 * Map @size bytes until a mapping fails even after the growth it asked
 * for: then no pool below the limit has room, and the mask pool cannot
 * give a transient pool or a grown one there.  Return the mappings made.
 */
static unsigned long map_until_full(struct kunit *test, struct map_set *ms, size_t size)
{
	unsigned long n = 0;

	for (;;) {
		if (map_one(test, ms, size)) {
			n++;
			continue;
		}
		if (ms->nr >= ms->cap)
			return n;
		grow_flush(ms->dev);
		if (!map_one(test, ms, size))
			return n;
		n++;
	}
}

/* ---- the mask pool below a mask, taken away ---- */

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

/* Give back @n pages of the fill. */
static void fill_give_back(struct pool_fill *f, unsigned long n)
{
	while (n-- && f->nr) {
		f->nr--;
		__free_pages_mask(f->pages[f->nr], PAGE_SIZE);
		f->pages[f->nr] = NULL;
	}
}

/*
 * A 24-bit device with no room below 16 MB but @pages single mask pool
 * pages: no pool lies below 16 MB (dmatlb_test_init() gave the idle
 * grown ones back, and every other pool is larger than 16 MB or in use
 * by the suite), and a grown pool (at least IO_TLB_SEGSIZE slots) cannot
 * fit.  Each mapping of up to a page takes a transient pool of one page.
 */
static struct device *dev24_no_room(struct kunit *test, unsigned long pages)
{
	struct device *dev = tlb_dev(test, 24, true);
	struct pool_fill *f;

	KUNIT_ASSERT_EQ_MSG(test, nr_pools(dev, MASK24), 0UL, "a pool below 16 MB is in use");
	f = fill_below(test, MASK24);
	KUNIT_ASSERT_GE_MSG(test, f->nr, pages, "only %lu pool pages below 16 MB", f->nr);
	fill_give_back(f, pages);
	KUNIT_ASSERT_LT(test, pages, (unsigned long)IO_TLB_SEGSIZE / 2);
	return dev;
}

/* ---- parameters ---- */

static const unsigned int all_bits[] = { 24, 28, 32, 64 };

static void bits_desc(const unsigned int *bits, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u bits", *bits);
}

KUNIT_ARRAY_PARAM(bits, all_bits, bits_desc);

static const unsigned int low_bits[] = { 24, 28, 32 };

KUNIT_ARRAY_PARAM(low_bits, low_bits, bits_desc);

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

/* ---- console capture: was a message printed? ---- */

/* A console that counts one message (printk has no tracepoint here). */
static struct {
	const char *needle;
	atomic_t seen;
} capture;

static void capture_write(struct console *con, const char *s, unsigned int n)
{
	const char *needle = READ_ONCE(capture.needle);

	if (needle && strnstr(s, needle, n))
		atomic_inc(&capture.seen);
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
	atomic_set(&capture.seen, 0);
	/* unregister_console() clears CON_ENABLED. */
	capture_console.flags = CON_ENABLED;
	register_console(&capture_console);
	KUNIT_ASSERT_TRUE(test, console_is_registered(&capture_console));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, capture_stop, NULL), 0);
}

/* Look for another message from now on. */
static void capture_needle(const char *needle)
{
	WRITE_ONCE(capture.needle, needle);
}

/* How many times was the message printed since the last call? */
static int capture_seen(void)
{
	/* Flush what printk() may have left to the console owner. */
	console_lock();
	console_unlock();
	return atomic_xchg(&capture.seen, 0);
}

/* ==== basics ==== */

/*
 * dmatlb is on: the default io_tlb_mem carves its pools from the mask
 * pool, is active for every device (also before it has a pool), and the
 * maximum mapping is stock's 256 KiB (less min_align_mask).  When the mask
 * pool grew for swiotlb at boot, the default pool lies below 4 GB.  The vm
 * event names are in the right order.
 */
static void dmatlb_basics(struct kunit *test)
{
	struct device *dev64 = tlb_dev(test, 64, false);
	struct device *dev24 = tlb_dev(test, 24, false);
	struct mask_pool_stats pool;
	struct io_tlb_pool *first;
	struct dmatlb_stats st;

	dmatlb_get_stats(&st);
	mask_pool_get_stats(&pool);
	KUNIT_EXPECT_TRUE(test, st.active);
	KUNIT_EXPECT_TRUE(test, dmatlb_enabled());
	KUNIT_EXPECT_GT(test, st.idle_ms, 0U);
	/* What dmatlb added at boot (swiotlb's size) is part of the pool. */
	KUNIT_EXPECT_GE(test, pool.pool_bytes, (u64)st.grown_bytes);
	kunit_info(test, "mask pool %llu KiB, grown by %lu KiB for swiotlb; %lu pools, %lu slots\n",
		   pool.pool_bytes >> 10, st.grown_bytes >> 10, st.pools, st.pool_slots);
	KUNIT_EXPECT_EQ(test, st.pools, nr_pools(dev64, 0));
	KUNIT_EXPECT_EQ(test, st.transient, 0UL);
	if (st.grown_bytes) {
		/* The default pool is carved first, below 4 GB. */
		rcu_read_lock();
		first = list_first_or_null_rcu(&tlb_mem(dev64)->pools, struct io_tlb_pool, node);
		KUNIT_EXPECT_NOT_NULL(test, first);
		if (first) {
			KUNIT_EXPECT_LE(test, (u64)first->end - 1, MASK32);
			KUNIT_EXPECT_LE(test, (u64)(first->end - first->start),
					(u64)st.grown_bytes);
			KUNIT_EXPECT_TRUE(test, first->maskpool);
			KUNIT_EXPECT_FALSE(test, first->transient);
		}
		rcu_read_unlock();
	}
	/* The default pool: only when swiotlb would have reserved one. */
	KUNIT_EXPECT_EQ(test, is_swiotlb_allocated(), st.pools > 0);
	KUNIT_EXPECT_TRUE(test, is_swiotlb_active(dev64));
	KUNIT_EXPECT_TRUE(test, is_swiotlb_active(dev24));
	if (is_swiotlb_force_bounce(dev64))
		kunit_info(test, "swiotlb=force: every device bounces\n");

	KUNIT_EXPECT_EQ(test, swiotlb_max_mapping_size(dev24), (size_t)CHUNK);
	KUNIT_EXPECT_EQ(test, dma_max_mapping_size(dev24), (size_t)CHUNK);
	set_force_bounce(test, dev64, true);
	KUNIT_EXPECT_EQ(test, dma_max_mapping_size(dev64), (size_t)CHUNK);
	dma_set_min_align_mask(dev64, 0xfff);
	KUNIT_EXPECT_EQ(test, dma_max_mapping_size(dev64), (size_t)CHUNK - SZ_4K);
	dma_set_min_align_mask(dev64, 0x3fff);
	KUNIT_EXPECT_EQ(test, dma_max_mapping_size(dev64), (size_t)CHUNK - SZ_16K);

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
 * a device clears dma_skip_sync, or its syncs would be skipped; the
 * mapping takes nr_slots(size) slots and gives them back on unmap.
 */
static void map_directions(struct kunit *test)
{
	const struct dir_param *p = test->param_value;
	struct device *dev = tlb_dev(test, p->bits, true);
	const size_t off = 0x234, size = 3 * PAGE_SIZE + 100;
	const size_t total = PAGE_SIZE * 4 + SZ_4K;
	bool to = dir_to_dev(p->dir), from = dir_from_dev(p->dir);
	struct tsnap s0, s1, s2;
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
	b = tmap_bounce(m);
	expect_in_use(test, &s0, &s1, DIV_ROUND_UP(size, IO_TLB_SIZE), 1);
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
}

/* ==== the bounce buffer is always filled from the original ==== */

/*
 * The 2022 swiotlb info-leak fix.  A FROM_DEVICE mapping that the device
 * never writes gives back the original bytes on unmap, never what an
 * earlier mapping left in the slots; a device that writes only half of it
 * leaves the other half of the original intact.  Earlier mappings of the
 * same size leave SEED_OLD in slots that later ones may reuse.
 */
static void from_device_no_leak(struct kunit *test)
{
	const unsigned int *bits = test->param_value;
	struct device *dev = tlb_dev(test, *bits, true);
	const size_t off = 0x80, size = 2 * PAGE_SIZE + 0x300;
	unsigned int i;
	struct tmap *m;
	u8 *x, *y, *b;

	x = obuf(test, off + size);
	y = obuf(test, off + size);

	/* Earlier mappings leave SEED_OLD in their slots. */
	for (i = 0; i < 4; i++) {
		pat_fill(x + off, size, off, SEED_ORIG);
		m = tmap_get(test, dev, x + off, size, DMA_FROM_DEVICE, 0);
		expect_bounced(test, m);
		pat_fill(tmap_bounce(m), size, off, SEED_OLD);
		tmap_put(test, m, 0);
		expect_pat(test, x + off, size, off, SEED_OLD, "earlier original after unmap");
	}

	pat_fill(y + off, size, off, SEED_ORIG);
	for (i = 0; i < 4; i++) {
		m = tmap_get(test, dev, y + off, size, DMA_FROM_DEVICE, 0);
		expect_bounced(test, m);
		expect_pat(test, tmap_bounce(m), size, off, SEED_ORIG,
			   "bounce after FROM_DEVICE map");
		tmap_put(test, m, 0);
		expect_pat(test, y + off, size, off, SEED_ORIG,
			   "original after unwritten FROM_DEVICE");
	}

	/* Partial device write: the rest of the original survives. */
	m = tmap_get(test, dev, y + off, size, DMA_FROM_DEVICE, 0);
	expect_bounced(test, m);
	b = tmap_bounce(m);
	pat_fill(b, size / 2, off, SEED_DEV);
	tmap_put(test, m, 0);
	expect_pat(test, y + off, size / 2, off, SEED_DEV, "written half");
	expect_pat(test, y + off + size / 2, size - size / 2, off + size / 2, SEED_ORIG,
		   "unwritten half");
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
 * at offset 0x321: single bytes, a page boundary, a slot boundary,
 * exactly one page, two boundaries, the last bytes.  Each sync copies
 * exactly its bytes, from the right place of the original.
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
		{ IO_TLB_SIZE - 3, 6 }, { first + PAGE_SIZE + 100, 2 * PAGE_SIZE },
		{ size - 1, 1 }, { size - 5000, 4000 }, { 2 * PAGE_SIZE, 1 },
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

/* ==== placement in slots ==== */

/*
 * Offsets 0 to 0xfff and sizes 1 byte to 3 pages + 1, without
 * min_align_mask: the bounce buffer starts on a slot (on a page for a page
 * or more), takes nr_slots(size) slots whatever the original's offset,
 * and the counters move by exactly that (slots in use, bytes wasted,
 * allocations, frees).
 */
static void in_page_offsets(struct kunit *test)
{
	static const size_t offs[] = { 0, 1, 0x200, 0x7ff, 0x800, 0xfff };
	static const size_t sizes[] = { 1, 64, PAGE_SIZE - 1, PAGE_SIZE, PAGE_SIZE + 1,
					3 * PAGE_SIZE + 1 };
	const unsigned int *bits = test->param_value;
	struct device *dev = tlb_dev(test, *bits, true);
	struct tsnap s0, s1, s2;
	unsigned long slots;
	unsigned int i, j;
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
			slots = DIV_ROUND_UP(size, IO_TLB_SIZE);
			expect_in_use(test, &s0, &s1, slots, 1);
			KUNIT_EXPECT_EQ_MSG(test, ev(&s0, &s1, EV_WASTED),
					    (long)(slots * IO_TLB_SIZE - size),
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
			KUNIT_EXPECT_EQ(test, ev(&s1, &s2, EV_WASTED), 0L);
		}
	}
}

/*
 * One 2 KiB slot per small mapping: 64, 128, 512, 1500 and 2048 bytes,
 * all alive at once, each take exactly one more slot and waste
 * 2048 - size bytes; 2049 bytes take two.  The slots come back on unmap.
 */
static void small_mapping_slots(struct kunit *test)
{
	static const size_t sizes[] = { 64, 128, 512, 1500, 2048, 2049 };
	const unsigned int *bits = test->param_value;
	struct device *dev = tlb_dev(test, *bits, true);
	struct tmap *m[ARRAY_SIZE(sizes)];
	struct tsnap s0, s, prev;
	unsigned int i;

	tsnap(test, &s0);
	s = s0;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		/* A page each: no two FROM_DEVICE mappings share a cache line. */
		u8 *buf = obuf(test, PAGE_SIZE);
		long slots = sizes[i] > IO_TLB_SIZE ? 2 : 1;

		pat_fill(buf, sizes[i], 0, SEED_ORIG + i);
		prev = s;
		m[i] = tmap_get(test, dev, buf, sizes[i], DMA_BIDIRECTIONAL, 0);
		tsnap(test, &s);
		expect_bounced(test, m[i]);
		KUNIT_EXPECT_EQ_MSG(test, delta(prev.tlb.used_slots, s.tlb.used_slots), slots,
				    "%zu bytes", sizes[i]);
		KUNIT_EXPECT_EQ_MSG(test, ev(&prev, &s, EV_WASTED),
				    (long)(slots * IO_TLB_SIZE - sizes[i]), "%zu bytes", sizes[i]);
		expect_pat(test, tmap_bounce(m[i]), sizes[i], 0, SEED_ORIG + i, "bounce");
	}
	expect_in_use(test, &s0, &s, ARRAY_SIZE(sizes) + 1, ARRAY_SIZE(sizes));
	kunit_info(test, "%zu mappings of 64 to 2049 bytes: %ld slots, swiotlb_bytes_wasted +%ld\n",
		   ARRAY_SIZE(sizes), delta(s0.tlb.used_slots, s.tlb.used_slots),
		   ev(&s0, &s, EV_WASTED));
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		tmap_put(test, m[i], 0);
	tsnap(test, &s);
	expect_in_use(test, &s0, &s, 0, 0);
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
 * those above the slot and page size, and the mapping takes
 * nr_slots(offset in its slot + size) slots.
 */
static void min_align_mask_kept(struct kunit *test)
{
	static const size_t offs[] = { 0, 0x123, 0x1000, 0x1fff, 0x2ff0, 0x3fff, 0x4567 };
	static const size_t sizes[] = { 1, 100, PAGE_SIZE, 10000 };
	const unsigned int *mask = test->param_value;
	struct device *devs[] = { tlb_dev(test, 28, true), tlb_dev(test, 64, true) };
	u8 *buf = obuf(test, SZ_32K);	/* 32 KiB aligned */
	struct tsnap s0, s1;
	unsigned int d, i, j;
	phys_addr_t orig;
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
				expect_in_use(test, &s0, &s1, slots_for(devs[d], orig, size), 1);
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
 * alloc_align_mask + 1 boundary and the bounce address lies the
 * original's offset under both masks past it; the allocation is rounded
 * up to alloc_align_mask + 1 (slots in use); the data is copied in on map
 * and back on unmap.  A mask above a page makes swiotlb warn once that
 * the largest mappings may not fit.
 */
static void alloc_align_mask_honoured(struct kunit *test)
{
	static const size_t offs[] = { 0, 0x10, 0xfff, 0x1234, 0x2800 };
	static const size_t sizes[] = { 1, 512, PAGE_SIZE, 3 * PAGE_SIZE + 7 };
	const struct align_param *p = test->param_value;
	struct device *dev = tlb_dev(test, 32, true);
	unsigned int amask = p->alloc_align_mask;
	u8 *buf = obuf(test, SZ_32K);
	phys_addr_t orig, tlb, start;
	struct tsnap s0, s1;
	struct tbl_map *t;
	unsigned int i, j;
	size_t off_in;

	if (amask > ~PAGE_MASK)
		pr_info(EXPECT_SWIOTLB_WARNING);
	dma_set_min_align_mask(dev, p->min_align_mask);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		for (j = 0; j < ARRAY_SIZE(sizes); j++) {
			size_t off = offs[i], size = sizes[j];

			orig = virt_to_phys(buf + off);
			off_in = orig & p->min_align_mask & (amask | (IO_TLB_SIZE - 1));
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
			start = tlb - off_in;
			KUNIT_EXPECT_LE(test, (u64)tlb + size - 1, MASK32);
			KUNIT_EXPECT_NOT_NULL(test, pool_of(dev, tlb));
			KUNIT_EXPECT_EQ_MSG(test, start & amask, 0ULL,
					    "%zu bytes at %#zx: bounce %pa", size, off, &tlb);
			KUNIT_EXPECT_EQ_MSG(test, tlb & p->min_align_mask,
					    orig & p->min_align_mask,
					    "%zu bytes at %#zx: bounce %pa", size, off, &tlb);
			expect_in_use(test, &s0, &s1,
				      DIV_ROUND_UP(ALIGN(size + off_in, amask + 1), IO_TLB_SIZE),
				      1);
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
 * each entry bounces on its own, below the mask, on its own slots;
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
	unsigned long slots = 0;
	u8 *bufs[SG_N], *b;
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
		expect_bounce_at(test, dev, sg_dma_address(sg), lens[i],
				 virt_to_phys(bufs[i] + offs[i]));
		expect_pat(test, phys_to_virt(phys), lens[i], offs[i], SEED_ORIG + i, "bounce");
		pat_fill(phys_to_virt(phys), lens[i], offs[i], SEED_DEV + i);
		slots += DIV_ROUND_UP(lens[i], IO_TLB_SIZE);
	}
	expect_in_use(test, &s0, &s1, slots, SG_N);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_ALLOCS), (long)SG_N);

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
 * A 24-bit device, no pool below 16 MB and two single mask pool pages
 * left there, and an sg list of four one-page entries: the first two get
 * a transient pool each, the third fails, dma_map_sg() returns 0 and
 * dma_map_sgtable() an error, the two mapped entries are unmapped again
 * (without copying back into the originals) and their transient pools
 * go.  The two pages are back: a two-entry list maps, and nothing more.
 */
static void sg_mid_list_failure(struct kunit *test)
{
	static const size_t offs[4] = { 0, 0, 0, 0 };
	static const size_t lens[4] = { PAGE_SIZE, PAGE_SIZE, PAGE_SIZE, PAGE_SIZE };
	struct device *dev = dev24_no_room(test, 2);
	struct tsnap s0, s1, s2, s3;
	struct scatterlist *sg;
	u8 *bufs[4];
	struct tsg *s;
	struct tmap *m;
	int i, ret;

	s = tsg_build(test, dev, 4, offs, lens, bufs);
	tsnap(test, &s0);

	ret = dma_map_sg_attrs(dev, s->t.sgl, 4, DMA_BIDIRECTIONAL, DMA_ATTR_NO_WARN);
	grow_flush(dev);
	rcu_barrier();
	tsnap(test, &s1);
	KUNIT_EXPECT_EQ(test, ret, 0);
	expect_in_use(test, &s0, &s1, 0, 0);
	KUNIT_EXPECT_EQ(test, s1.tlb.transient, s0.tlb.transient);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_ALLOCS), 2L);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_FREES), 2L);
	KUNIT_EXPECT_EQ(test, s1.tlb.grown, s0.tlb.grown);
	KUNIT_EXPECT_EQ(test, s1.pool.free_pages, s0.pool.free_pages);

	ret = dma_map_sgtable(dev, &s->t, DMA_FROM_DEVICE, 0);
	grow_flush(dev);
	rcu_barrier();
	tsnap(test, &s2);
	KUNIT_EXPECT_LT(test, ret, 0);
	expect_in_use(test, &s0, &s2, 0, 0);
	KUNIT_EXPECT_EQ(test, ev(&s1, &s2, EV_ALLOCS), 2L);
	KUNIT_EXPECT_EQ(test, ev(&s1, &s2, EV_FREES), 2L);
	KUNIT_EXPECT_EQ(test, s2.pool.free_pages, s0.pool.free_pages);
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
	expect_in_use(test, &s0, &s3, 2 * (PAGE_SIZE / IO_TLB_SIZE), 2);
	KUNIT_EXPECT_EQ(test, s3.tlb.transient - s0.tlb.transient, 2UL);
	for_each_sgtable_dma_sg(&s->t, sg, i)
		expect_bounce_at(test, dev, sg_dma_address(sg), PAGE_SIZE, virt_to_phys(bufs[i]));
	/* ... and were the last ones below 16 MB. */
	m = tmap_get(test, dev, bufs[2], PAGE_SIZE, DMA_TO_DEVICE, DMA_ATTR_NO_WARN);
	KUNIT_EXPECT_EQ(test, m->dma, DMA_MAPPING_ERROR);
	kunit_release_action(test, tsg_release, s);
}

/* ==== exhaustion ==== */

/*
 * Fill every pool below the mask, and the mask pool below it, with
 * 256 KiB mappings and then single pages until mapping fails even after
 * the growth it asked for: DMA_MAPPING_ERROR, no crash; a message naming
 * the device unless DMA_ATTR_NO_WARN (ratelimited to 10 per 5 s; the
 * suite provokes 5); exact counts of slots and allocations.  Below
 * 32 bits a 64-bit device still bounces above the mask.  Everything
 * unmapped and shrunk, the mask pool is whole again (checked by the
 * cleanup).
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
	ms = map_set_new(test, dev, map_set_cap());
	big = map_until_full(test, ms, CHUNK);
	small = map_until_full(test, ms, PAGE_SIZE);
	grow_flush(dev);
	tsnap(test, &s1);
	kunit_info(test, "%lu x 256 KiB + %lu pages mapped; %lu pools (%lu grown, %lu transient); %lu mask pool pages left\n",
		   big, small, s1.tlb.pools, s1.tlb.grown - s0.tlb.grown, s1.tlb.transient,
		   s1.pool.free_pages);
	KUNIT_EXPECT_GT(test, big, 0UL);
	expect_in_use(test, &s0, &s1,
		      big * (CHUNK / IO_TLB_SIZE) + small * (PAGE_SIZE / IO_TLB_SIZE), big + small);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_ALLOCS), (long)(big + small));
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_FREES), 0L);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_WASTED), 0L);
	/* The last growths found nothing below the limit. */
	KUNIT_EXPECT_GT(test, s1.tlb.grow_failed, s0.tlb.grow_failed);

	/* Full: an error and a message, or an error and silence. */
	capture_start(test, dev_name(dev));
	dma = dma_map_single(dev, ms->cpu, PAGE_SIZE, DMA_TO_DEVICE);
	KUNIT_EXPECT_TRUE(test, dma_mapping_error(dev, dma));
	KUNIT_EXPECT_EQ_MSG(test, capture_seen(), 1, "no message for a full pool");
	dma = dma_map_single_attrs(dev, ms->cpu, PAGE_SIZE, DMA_TO_DEVICE, DMA_ATTR_NO_WARN);
	KUNIT_EXPECT_TRUE(test, dma_mapping_error(dev, dma));
	KUNIT_EXPECT_EQ_MSG(test, capture_seen(), 0, "a message despite DMA_ATTR_NO_WARN");
	kunit_release_action(test, capture_stop, NULL);
	grow_flush(dev);
	tsnap(test, &s2);
	expect_in_use(test, &s1, &s2, 0, 0);
	KUNIT_EXPECT_EQ(test, ev(&s1, &s2, EV_ALLOCS), 0L);

	/* Pools, or mask pool pages, above the mask still serve a wider device. */
	if (*bits < 32 &&
	    (s1.pool.free_pages || nr_pools(dev, 0) > nr_pools(dev, dev_limit(dev)))) {
		struct device *wide = tlb_dev(test, 64, true);

		m = tmap_get(test, wide, ms->cpu, PAGE_SIZE, DMA_TO_DEVICE, 0);
		expect_bounced(test, m);
		KUNIT_EXPECT_GT(test, (u64)m->dma, DMA_BIT_MASK(*bits));
		tmap_put(test, m, 0);
	}

	kunit_release_action(test, map_set_release, ms);
	tsnap(test, &s2);
	expect_in_use(test, &s0, &s2, 0, 0);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s2, EV_FREES), ev(&s0, &s2, EV_ALLOCS));
}

/* ==== pools lie below each device's limit ==== */

/*
 * Fake devices with 24-, 28- and 32-bit masks bounce buffers of many
 * sizes, 64 of them alive at once: every DMA address + size - 1 is at or
 * below the mask, and the pool it lies in lies entirely below the mask (a
 * 28-bit device never gets a slot in a pool above 256 MiB, a 24-bit one
 * never in the default pool when that lies above 16 MiB).
 */
static void pools_below_limit(struct kunit *test)
{
	static const size_t sizes[] = { 1, 100, 2048, PAGE_SIZE, 10000, SZ_64K, CHUNK };
	const unsigned int *bits = test->param_value;
	struct device *dev = tlb_dev(test, *bits, true);
	u64 mask = DMA_BIT_MASK(*bits);
	struct io_tlb_pool *pool;
	struct map_set *ms;
	unsigned int i;

	ms = map_set_new(test, dev, 64);
	for (i = 0; i < ms->cap; i++) {
		size_t size = sizes[i % ARRAY_SIZE(sizes)];

		pool = map_one(test, ms, size);
		KUNIT_ASSERT_NOT_NULL_MSG(test, pool, "mapping %u of %zu bytes", i, size);
		expect_bounce_at(test, dev, ms->dma[i], size, virt_to_phys(ms->cpu));
		KUNIT_EXPECT_LE_MSG(test, (u64)pool->end - 1, mask, "pool [%pa-%pa)",
				    &pool->start, &pool->end);
		if (!pool->transient)
			KUNIT_EXPECT_LE(test, (u64)pool->limit, MASK32);
	}
	kunit_info(test, "%lu pools below %#llx of %lu\n", nr_pools(dev, mask), mask,
		   nr_pools(dev, 0));
}

/* ==== growth and shrink ==== */

/* Is @pool one of the @n pools in @old? */
static bool pool_in(struct io_tlb_pool *pool, struct io_tlb_pool **old, unsigned long n)
{
	while (n--)
		if (old[n] == pool)
			return true;
	return false;
}

/*
 * 24-, 28- and 32-bit devices map 256 KiB until the pools below their limit
 * are full and a pool is grown (maps that find no room go to transient
 * pools meanwhile): every grown pool lies below the device's limit, was
 * asked below it, and is 256 KiB to 4 MiB of mask pool memory.  After
 * unmapping, dmatlb_shrink_now() gives every grown pool back: the pool
 * count, the slots and the mask pool's free pages are what they were.
 */
static void grow_and_shrink(struct kunit *test)
{
	const unsigned int *bits = test->param_value;
	struct device *dev = tlb_dev(test, *bits, true);
	u64 mask = DMA_BIT_MASK(*bits);
	struct io_tlb_pool *pool, **old;
	unsigned long nold = 0, grown = 0, cap;
	struct tsnap s0, s1, s2;
	struct map_set *ms;

	tsnap(test, &s0);
	cap = s0.tlb.pools + 1;
	old = kunit_kcalloc(test, cap, sizeof(*old), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, old);
	rcu_read_lock();
	list_for_each_entry_rcu(pool, &tlb_mem(dev)->pools, node)
		if (nold < cap)
			old[nold++] = pool;
	rcu_read_unlock();

	ms = map_set_new(test, dev, map_set_cap());
	do {
		pool = map_one(test, ms, CHUNK);
		KUNIT_ASSERT_NOT_NULL_MSG(test, pool, "mapping %lu failed", ms->nr);
		if (pool->transient) {
			grow_flush(dev);
			tsnap(test, &s1);
		}
	} while (!pool->transient || s1.tlb.grown == s0.tlb.grown);
	/* A few more, into the grown pool. */
	map_one(test, ms, CHUNK);
	map_one(test, ms, CHUNK);
	grow_flush(dev);
	tsnap(test, &s1);
	KUNIT_EXPECT_EQ(test, s1.tlb.grow_failed, s0.tlb.grow_failed);

	rcu_read_lock();
	list_for_each_entry_rcu(pool, &tlb_mem(dev)->pools, node) {
		if (pool_in(pool, old, nold))
			continue;
		grown++;
		KUNIT_EXPECT_TRUE(test, pool->maskpool);
		KUNIT_EXPECT_FALSE(test, pool->transient);
		KUNIT_EXPECT_LE_MSG(test, (u64)pool->limit, mask, "pool [%pa-%pa)",
				    &pool->start, &pool->end);
		KUNIT_EXPECT_TRUE_MSG(test, pool_below(dev, pool, mask), "pool [%pa-%pa)",
				      &pool->start, &pool->end);
		KUNIT_EXPECT_GE(test, (u64)(pool->end - pool->start), (u64)SZ_256K);
		KUNIT_EXPECT_LE(test, (u64)(pool->end - pool->start), (u64)SZ_4M);
	}
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, grown, s1.tlb.grown - s0.tlb.grown);
	KUNIT_EXPECT_EQ(test, s1.tlb.pools, s0.tlb.pools + grown);
	kunit_info(test, "%lu mappings, %lu pools grown below %#llx\n", ms->nr, grown, mask);

	kunit_release_action(test, map_set_release, ms);
	dmatlb_shrink_now();
	tsnap(test, &s2);
	KUNIT_EXPECT_EQ(test, s2.tlb.shrunk - s1.tlb.shrunk, grown);
	KUNIT_EXPECT_EQ(test, s2.tlb.pools, s0.tlb.pools);
	KUNIT_EXPECT_EQ(test, s2.tlb.pool_slots, s0.tlb.pool_slots);
	KUNIT_EXPECT_EQ(test, s2.tlb.used_slots, s0.tlb.used_slots);
	KUNIT_EXPECT_EQ(test, s2.tlb.transient, s0.tlb.transient);
	KUNIT_EXPECT_EQ(test, s2.pool.free_pages, s0.pool.free_pages);
	kunit_info(test, "grown: %lu slots, mask pool free pages %lu -> %lu -> %lu; shrunk %lu\n",
		   s1.tlb.pool_slots - s0.tlb.pool_slots, s0.pool.free_pages,
		   s1.pool.free_pages, s2.pool.free_pages, s2.tlb.shrunk - s1.tlb.shrunk);
}

/* The idle period's u32 behind debugfs mask_alloc/bounce_idle_ms. */
static u32 *idle_ms_ptr(struct kunit *test)
{
	struct dentry *dir, *d;
	u32 *p = NULL;

	if (!IS_ENABLED(CONFIG_DEBUG_FS))
		kunit_skip(test, "needs CONFIG_DEBUG_FS");
	dir = debugfs_lookup("mask_alloc", NULL);
	KUNIT_ASSERT_NOT_NULL(test, dir);
	d = debugfs_lookup("bounce_idle_ms", dir);
	dput(dir);
	KUNIT_ASSERT_NOT_NULL(test, d);
	p = d_inode(d)->i_private;
	dput(d);
	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

struct idle_saved {
	u32 *p;
	u32 old;
};

static void restore_idle_ms(void *data)
{
	struct idle_saved *s = data;

	WRITE_ONCE(*s->p, s->old);
}

/* Set the idle period to @ms until the case ends. */
static void set_idle_ms(struct kunit *test, u32 ms)
{
	struct idle_saved *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->p = idle_ms_ptr(test);
	s->old = READ_ONCE(*s->p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_idle_ms, s), 0);
	WRITE_ONCE(*s->p, ms);
}

/*
 * A grown pool that stays unused for the idle period (bounce_idle_ms, set
 * to 200 ms here) goes back to the mask pool by itself, without
 * dmatlb_shrink_now(): a 24-bit device's first mapping finds no pool below
 * 16 MB, is served from a transient pool and has one grown; once it is
 * unmapped, the grown pool is shrunk within a few seconds and the mask
 * pool has its pages back.
 */
static void idle_pool_returns(struct kunit *test)
{
	struct device *dev = tlb_dev(test, 24, true);
	unsigned long timeout;
	struct tsnap s0, s1;
	struct tmap *m;
	u8 *buf;

	set_idle_ms(test, 200);
	KUNIT_ASSERT_EQ_MSG(test, nr_pools(dev, MASK24), 0UL, "a pool below 16 MB is in use");
	buf = obuf(test, PAGE_SIZE);
	pat_fill(buf, PAGE_SIZE, 0, SEED_ORIG);
	tsnap(test, &s0);
	m = tmap_get(test, dev, buf, PAGE_SIZE, DMA_TO_DEVICE, 0);
	expect_bounced(test, m);
	KUNIT_EXPECT_TRUE(test, tmap_pool(m)->transient);
	grow_flush(dev);
	tsnap(test, &s1);
	KUNIT_EXPECT_EQ(test, s1.tlb.grown - s0.tlb.grown, 1UL);
	KUNIT_EXPECT_EQ(test, s1.tlb.transient - s0.tlb.transient, 1UL);
	tmap_put(test, m, 0);

	timeout = jiffies + 10 * HZ;
	do {
		msleep(50);
		tsnap(test, &s1);
	} while (s1.tlb.shrunk == s0.tlb.shrunk && time_before(jiffies, timeout));
	rcu_barrier();
	tsnap(test, &s1);
	KUNIT_EXPECT_EQ(test, s1.tlb.shrunk - s0.tlb.shrunk, 1UL);
	KUNIT_EXPECT_EQ(test, s1.tlb.pools, s0.tlb.pools);
	KUNIT_EXPECT_EQ(test, s1.tlb.transient, s0.tlb.transient);
	KUNIT_EXPECT_EQ(test, s1.pool.free_pages, s0.pool.free_pages);
	KUNIT_EXPECT_EQ(test, nr_pools(dev, MASK24), 0UL);
}

/* ==== min_align_mask in a transient pool ==== */

static const size_t transient_offs[] = { 0x123, 0x800, 0xfff };

static void transient_off_desc(const size_t *off, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "offset %#zx, min_align_mask 0xfff", *off);
}

KUNIT_ARRAY_PARAM(transient_off, transient_offs, transient_off_desc);

/*
 * NVMe's min_align_mask (0xfff) when only a transient pool can serve the
 * map (a 24-bit device, no room below 16 MB but for a few single pages):
 * the map succeeds and keeps the original's offset in the page, also when
 * that lies in the second 2 KiB of the page; the transient pool goes at
 * unmap.  (A device's first maps go to transient pools whenever dmatlb
 * has no pool below its limit yet, which is the usual state below 4 GB.)
 */
static void transient_min_align(struct kunit *test)
{
	const size_t *off = test->param_value;
	struct device *dev = dev24_no_room(test, 8);
	const size_t size = 512;
	struct tsnap s0, s1;
	struct tmap *m;
	u8 *buf;

	dma_set_min_align_mask(dev, 0xfff);
	buf = obuf(test, *off + size);
	pat_fill(buf + *off, size, *off, SEED_ORIG);
	tsnap(test, &s0);
	m = tmap_get(test, dev, buf + *off, size, DMA_BIDIRECTIONAL, DMA_ATTR_NO_WARN);
	expect_bounced(test, m);
	KUNIT_EXPECT_TRUE(test, tmap_pool(m)->transient);
	tsnap(test, &s1);
	expect_in_use(test, &s0, &s1, slots_for(dev, virt_to_phys(buf + *off), size), 1);
	expect_pat(test, tmap_bounce(m), size, *off, SEED_ORIG, "bounce");
	pat_fill(tmap_bounce(m), size, *off, SEED_DEV);
	tmap_put(test, m, 0);
	expect_pat(test, buf + *off, size, *off, SEED_DEV, "original after unmap");
	grow_flush(dev);
	rcu_barrier();
	tsnap(test, &s1);
	expect_in_use(test, &s0, &s1, 0, 0);
	KUNIT_EXPECT_EQ(test, s1.tlb.transient, s0.tlb.transient);
	KUNIT_EXPECT_EQ(test, s1.pool.free_pages, s0.pool.free_pages);
}

/* ==== a map in atomic context, from a transient pool ==== */

static const bool atomic_irq[] = { true, false };

static void atomic_desc(const bool *irq, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", *irq ? "interrupts off" : "spinlock held");
}

KUNIT_ARRAY_PARAM(atomic, atomic_irq, atomic_desc);

static DEFINE_SPINLOCK(atomic_lock);

/*
 * With no pool below 16 MB that has room and no room in the mask pool for
 * a grown one, a 24-bit device maps 1 KiB with interrupts off or under a
 * spinlock: the map succeeds from a transient pool of one slot (one page
 * of the mask pool) below 16 MB (GFP_NOWAIT), the data is there, and after the unmap (also in
 * atomic context) no transient pool is left and the page is back.
 */
static void atomic_map_transient(struct kunit *test)
{
	const bool *irq = test->param_value;
	struct device *dev = dev24_no_room(test, 4);
	const size_t size = SZ_1K;
	struct tsnap s0, s1, s2;
	struct io_tlb_pool *pool;
	unsigned long flags;
	dma_addr_t dma;
	u8 *buf;

	buf = obuf(test, PAGE_SIZE);
	pat_fill(buf, size, 0, SEED_ORIG);
	tsnap(test, &s0);
	if (*irq)
		local_irq_save(flags);
	else
		spin_lock(&atomic_lock);
	dma = dma_map_single(dev, buf, size, DMA_BIDIRECTIONAL);
	if (*irq)
		local_irq_restore(flags);
	else
		spin_unlock(&atomic_lock);
	KUNIT_ASSERT_FALSE(test, dma_mapping_error(dev, dma));
	tsnap(test, &s1);
	expect_bounce_at(test, dev, dma, size, virt_to_phys(buf));
	pool = pool_of(dev, dma_to_phys(dev, dma));
	KUNIT_ASSERT_NOT_NULL(test, pool);
	KUNIT_EXPECT_TRUE(test, pool->transient);
	/* One slot, in one page of the mask pool. */
	KUNIT_EXPECT_EQ(test, (u64)(pool->end - pool->start), (u64)IO_TLB_SIZE);
	KUNIT_EXPECT_EQ(test, s1.tlb.transient - s0.tlb.transient, 1UL);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_PAGES), 1L);
	expect_in_use(test, &s0, &s1, 1, 1);
	expect_pat(test, phys_to_virt(dma_to_phys(dev, dma)), size, 0, SEED_ORIG, "bounce");
	pat_fill(phys_to_virt(dma_to_phys(dev, dma)), size, 0, SEED_DEV);

	if (*irq)
		local_irq_save(flags);
	else
		spin_lock(&atomic_lock);
	dma_unmap_single(dev, dma, size, DMA_BIDIRECTIONAL);
	if (*irq)
		local_irq_restore(flags);
	else
		spin_unlock(&atomic_lock);
	expect_pat(test, buf, size, 0, SEED_DEV, "original after unmap");
	grow_flush(dev);
	rcu_barrier();
	tsnap(test, &s2);
	KUNIT_EXPECT_EQ(test, s2.tlb.transient, s0.tlb.transient);
	expect_in_use(test, &s0, &s2, 0, 0);
	KUNIT_EXPECT_EQ(test, s2.pool.free_pages, s0.pool.free_pages);
	KUNIT_EXPECT_EQ(test, s2.tlb.grown, s0.tlb.grown);
}

/* ==== misuse: unmaps and syncs at addresses swiotlb did not return ==== */

#define UNMAP_WARNING	": not the start of a mapping"
#define SYNC_WARNING	": not inside a mapping"

/*
 * swiotlb_tbl_unmap_single() (what dma-direct calls) at the mapping's
 * address + 1, in its middle (the next slot, the next page) and at an
 * address in the pool that is mapped no more: nothing is copied back into
 * the original (FROM_DEVICE, no SKIP_CPU_SYNC) and nothing is freed
 * (slots, mappings and frees unchanged), and swiotlb warns once.  A sync
 * at the stale address copies nothing and warns once too.  The correct
 * unmap then copies back and frees.  Misuse goes to swiotlb directly, so
 * that DMA-API debugging, which would report it first, stays quiet.
 */
static void unmap_misuse(struct kunit *test)
{
	struct device *dev = tlb_dev(test, 28, true);
	const size_t size = 3 * PAGE_SIZE;
	phys_addr_t tlb, stale, bad[4];
	struct tsnap s0, s1;
	struct tmap *m, *m2;
	unsigned int i;
	u8 *buf, *buf2;

	buf = obuf(test, size);
	buf2 = obuf(test, PAGE_SIZE);
	pat_fill(buf, size, 0, SEED_ORIG);
	/* A slot of a pool that stays: not a transient pool, which goes. */
	for (i = 0; i < 3; i++) {
		m2 = tmap_get(test, dev, buf2, PAGE_SIZE, DMA_TO_DEVICE, 0);
		expect_bounced(test, m2);
		stale = tmap_phys(m2);
		if (!tmap_pool(m2)->transient)
			break;
		tmap_put(test, m2, 0);
		grow_flush(dev);
	}
	tmap_put(test, m2, 0);
	m = tmap_get(test, dev, buf, size, DMA_FROM_DEVICE, 0);
	expect_bounced(test, m);
	tlb = tmap_phys(m);
	pat_fill(tmap_bounce(m), size, 0, SEED_DEV);
	KUNIT_ASSERT_NOT_NULL(test, swiotlb_find_pool(dev, stale));

	bad[0] = tlb + 1;
	bad[1] = tlb + IO_TLB_SIZE;
	bad[2] = tlb + PAGE_SIZE;
	bad[3] = stale;
	pr_info(EXPECT_SWIOTLB_WARNING);
	capture_start(test, UNMAP_WARNING);
	tsnap(test, &s0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		swiotlb_tbl_unmap_single(dev, bad[i], size, DMA_FROM_DEVICE, 0);
		/* WARN_ONCE: the first misuse of the boot warns. */
		if (i == 0)
			KUNIT_EXPECT_EQ_MSG(test, capture_seen(), 1, "no warning for %pa", &bad[i]);
		else
			KUNIT_EXPECT_EQ(test, capture_seen(), 0);
		tsnap(test, &s1);
		expect_no_bounce(test, &s0, &s1);
		expect_pat(test, buf, size, 0, SEED_ORIG, "original after a bad unmap");
		expect_pat(test, tmap_bounce(m), size, 0, SEED_DEV, "bounce after a bad unmap");
	}

	capture_needle(SYNC_WARNING);
	swiotlb_sync_single_for_cpu(dev, stale, PAGE_SIZE, DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ_MSG(test, capture_seen(), 1, "no warning for a sync at %pa", &stale);
	swiotlb_sync_single_for_device(dev, stale, PAGE_SIZE, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, capture_seen(), 0);
	tsnap(test, &s1);
	expect_no_bounce(test, &s0, &s1);
	expect_pat(test, buf, size, 0, SEED_ORIG, "original after a bad sync");
	kunit_release_action(test, capture_stop, NULL);

	/* The real unmap still works. */
	tmap_put(test, m, 0);
	tsnap(test, &s1);
	expect_pat(test, buf, size, 0, SEED_DEV, "original after the real unmap");
	expect_in_use(test, &s0, &s1, -(long)(size / IO_TLB_SIZE), -1);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_FREES), 1L);
}

/* ==== a DMA address space that is not the physical one ==== */

/* DMA address = physical address + this, over the first 1 TiB. */
#define RANGE_OFFSET	0x10008000ULL

/*
 * Give @dev a dma_range_map of one window, [0, 1 TiB) at DMA address
 * RANGE_OFFSET, and DMA mask @mask.  The device's release frees the map.
 */
static void set_range_map(struct kunit *test, struct device *dev, u64 mask)
{
	struct bus_dma_region *map = kcalloc(2, sizeof(*map), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, map);
	map[0].cpu_start = 0;
	map[0].dma_start = RANGE_OFFSET;
	map[0].size = 1ULL << 40;
	dev->dma_range_map = map;
	/* Not dma_set_mask(): a mask below the window is what (a) tests. */
	dev->coherent_dma_mask = mask;
	KUNIT_ASSERT_EQ(test, (u64)phys_to_dma(dev, 0), RANGE_OFFSET);
}

/*
 * A device whose DMA limit (28 bits) lies below its only dma_range_map
 * window (which starts at 256 MiB + 32 KiB): no pool can lie below it, so
 * the map fails at once, without a transient pool or a growth.
 */
static void range_map_limit_below_windows(struct kunit *test)
{
	struct device *dev = tlb_dev(test, 64, true);
	struct tsnap s0, s1;
	struct tmap *m;
	u8 *buf;

	set_range_map(test, dev, MASK28);
	buf = obuf(test, PAGE_SIZE);
	pat_fill(buf, PAGE_SIZE, 0, SEED_ORIG);
	tsnap(test, &s0);
	m = tmap_get(test, dev, buf, PAGE_SIZE, DMA_BIDIRECTIONAL, DMA_ATTR_NO_WARN);
	grow_flush(dev);
	tsnap(test, &s1);
	KUNIT_EXPECT_EQ(test, m->dma, DMA_MAPPING_ERROR);
	expect_no_bounce(test, &s0, &s1);
	KUNIT_EXPECT_EQ(test, s1.tlb.grown, s0.tlb.grown);
	KUNIT_EXPECT_EQ(test, s1.tlb.grow_failed, s0.tlb.grow_failed);
	KUNIT_EXPECT_EQ(test, s1.tlb.transient, s0.tlb.transient);
	KUNIT_EXPECT_EQ(test, s1.pool.free_pages, s0.pool.free_pages);
	expect_pat(test, buf, PAGE_SIZE, 0, SEED_ORIG, "original after a failed map");
}

/*
 * The same window with a 29-bit limit (pools below about 256 MiB qualify)
 * and a 64 KiB segment boundary: 48 mappings of up to 64 KiB, alive at
 * once, all lie below the limit in DMA address space, in pools entirely
 * below it, and none crosses a 64 KiB boundary in DMA address space
 * (which, with this offset, is not a 64 KiB boundary in physical space).
 */
static void range_map_seg_boundary(struct kunit *test)
{
	static const size_t sizes[] = { 3000, 20000, 40000, SZ_64K, 60000, PAGE_SIZE };
	struct device *dev = tlb_dev(test, 64, true);
	const u64 mask = DMA_BIT_MASK(29);
	struct map_set *ms;
	unsigned int i;

	set_range_map(test, dev, mask);
	dma_set_seg_boundary(dev, SZ_64K - 1);
	KUNIT_ASSERT_EQ(test, dma_get_seg_boundary(dev), (unsigned long)SZ_64K - 1);
	ms = map_set_new(test, dev, 48);
	for (i = 0; i < ms->cap; i++) {
		size_t size = sizes[i % ARRAY_SIZE(sizes)];
		dma_addr_t dma;

		KUNIT_ASSERT_NOT_NULL_MSG(test, map_one(test, ms, size), "mapping %u of %zu bytes",
					  i, size);
		dma = ms->dma[i];
		expect_bounce_at(test, dev, dma, size, virt_to_phys(ms->cpu));
		KUNIT_EXPECT_EQ_MSG(test, dma & ~(dma_addr_t)(SZ_64K - 1),
				    (dma + size - 1) & ~(dma_addr_t)(SZ_64K - 1),
				    "%zu bytes at %pad cross a 64 KiB boundary", size, &dma);
		KUNIT_EXPECT_EQ(test, (u64)dma, (u64)dma_to_phys(dev, dma) + RANGE_OFFSET);
	}
}

/* ==== fault injection (fail_mask_alloc, bounce-only) ==== */

/*
 * Fault injection fails the mask pool allocations of the mapping thread;
 * with dmatlb those are its transient pools (growth runs in the dyn_alloc
 * worker, which is not failed).  A 24-bit device with no room below
 * 16 MB but for a few single pages, so that only a transient pool can
 * serve it: with injection on, two maps fail, the first with the message
 * of a full swiotlb, the second (DMA_ATTR_NO_WARN) silently; no slot, no
 * transient pool and no page is taken, and the original is untouched.
 * Bounce-only spares the allocation API.  Once injection stops, the next
 * map succeeds from a transient pool.
 */
static void inject_map_single(struct kunit *test)
{
	struct device *dev = dev24_no_room(test, 8);
	u8 *cpu = obuf(test, PAGE_SIZE);
	struct tmap *m, *m2;
	struct tsnap s0, s1, s2;
	struct page *page;

	pat_fill(cpu, PAGE_SIZE, 0, SEED_ORIG);
	fail_arm(test, -1, 0, true);
	capture_start(test, dev_name(dev));
	tsnap(test, &s0);
	m = tmap_get(test, dev, cpu, PAGE_SIZE, DMA_TO_DEVICE, 0);
	m2 = tmap_get(test, dev, cpu, PAGE_SIZE, DMA_TO_DEVICE, DMA_ATTR_NO_WARN);
	KUNIT_EXPECT_EQ(test, m->dma, DMA_MAPPING_ERROR);
	KUNIT_EXPECT_EQ(test, m2->dma, DMA_MAPPING_ERROR);
	KUNIT_EXPECT_EQ_MSG(test, capture_seen(), 1,
			    "one message for the injected failure, none with NO_WARN");
	kunit_release_action(test, capture_stop, NULL);
	grow_flush(dev);
	rcu_barrier();
	tsnap(test, &s1);
	expect_no_bounce(test, &s0, &s1);
	KUNIT_EXPECT_EQ(test, s1.pool.injected - s0.pool.injected, 2UL);
	KUNIT_EXPECT_EQ(test, s1.pool.free_pages, s0.pool.free_pages);
	KUNIT_EXPECT_EQ(test, s1.tlb.grown, s0.tlb.grown);
	expect_pat(test, cpu, PAGE_SIZE, 0, SEED_ORIG, "original after failed maps");

	/* bounce-only: the allocation API is not failed. */
	page = alloc_pages_mask(GFP_KERNEL, PAGE_SIZE, MASK24);
	KUNIT_EXPECT_NOT_NULL(test, page);
	if (page)
		__free_pages_mask(page, PAGE_SIZE);

	fail_disarm();
	m = tmap_get(test, dev, cpu, PAGE_SIZE, DMA_TO_DEVICE, 0);
	expect_bounced(test, m);
	KUNIT_EXPECT_TRUE(test, tmap_pool(m)->transient);
	expect_pat(test, tmap_bounce(m), PAGE_SIZE, 0, SEED_ORIG, "bounce");
	tmap_put(test, m, 0);
	tsnap(test, &s2);
	expect_in_use(test, &s0, &s2, 0, 0);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s2, EV_ALLOCS), 1L);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s2, EV_FREES), 1L);
	KUNIT_EXPECT_EQ(test, s2.pool.injected, s1.pool.injected);
}

static const unsigned int fail_at[] = { 1, 3, SG_N };

static void fail_at_desc(const unsigned int *k, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "entry %u of %u", *k, SG_N);
}

KUNIT_ARRAY_PARAM(fail_at, fail_at, fail_at_desc);

/*
 * dma_map_sg() of five one-page entries on a 24-bit device with no pool
 * below 16 MB and no room for a grown one, so that each entry takes a
 * transient pool of one page, with the k-th of them failed on purpose
 * (space: k - 1 pages go through first): it returns 0, the k - 1 entries
 * mapped before are unmapped again without copying back and their
 * transient pools given back; dma_map_sgtable() then maps all five.
 */
static void inject_sg_entry_k(struct kunit *test)
{
	static const size_t offs[SG_N] = { 0, 0, 0, 0, 0 };
	static const size_t lens[SG_N] = { PAGE_SIZE, PAGE_SIZE, PAGE_SIZE, PAGE_SIZE,
					   PAGE_SIZE };
	const unsigned int *k = test->param_value;
	struct device *dev = dev24_no_room(test, 2 * SG_N);
	struct tsnap s0, s1, s2;
	u8 *bufs[SG_N];
	struct tsg *s;
	int i, ret;

	s = tsg_build(test, dev, SG_N, offs, lens, bufs);
	/* A page goes through while space is above it: k - 1 of them. */
	fail_arm(test, 1, *k, true);
	tsnap(test, &s0);
	ret = dma_map_sg_attrs(dev, s->t.sgl, SG_N, DMA_BIDIRECTIONAL, DMA_ATTR_NO_WARN);
	grow_flush(dev);
	rcu_barrier();
	tsnap(test, &s1);
	KUNIT_EXPECT_EQ(test, ret, 0);
	expect_in_use(test, &s0, &s1, 0, 0);
	KUNIT_EXPECT_EQ(test, s1.tlb.transient, s0.tlb.transient);
	KUNIT_EXPECT_EQ(test, s1.pool.injected - s0.pool.injected, 1UL);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_ALLOCS), (long)*k - 1);
	KUNIT_EXPECT_EQ(test, ev(&s0, &s1, EV_FREES), (long)*k - 1);
	KUNIT_EXPECT_EQ(test, s1.pool.free_pages, s0.pool.free_pages);
	KUNIT_EXPECT_EQ(test, s1.tlb.grown, s0.tlb.grown);
	for (i = 0; i < SG_N; i++)
		expect_pat(test, bufs[i], PAGE_SIZE, 0, SEED_ORIG + i, "original after failure");

	/* times used up: the whole list maps. */
	s->dir = DMA_TO_DEVICE;
	KUNIT_ASSERT_EQ(test, dma_map_sgtable(dev, &s->t, DMA_TO_DEVICE, 0), 0);
	s->mapped = true;
	tsnap(test, &s2);
	expect_in_use(test, &s0, &s2, SG_N * (PAGE_SIZE / IO_TLB_SIZE), SG_N);
	KUNIT_EXPECT_EQ(test, s2.tlb.transient - s0.tlb.transient, (unsigned long)SG_N);
	KUNIT_EXPECT_EQ(test, s2.pool.injected, s1.pool.injected);
	kunit_release_action(test, tsg_release, s);
}

/* ==== mask pool memory that is not a bounce buffer ==== */

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
 * Map @len bytes at @cpu, mask pool memory below 16 MB that is not a
 * bounce buffer: no swiotlb pool holds it, also for a device that has
 * bounced (swiotlb_find_pool() looks at the pools then), a capable
 * device maps it directly, and the unmap leaves the slots and the data
 * alone.  With every mapping forced to bounce, it bounces into a pool,
 * and the unmap frees the slots only.
 */
static void map_pool_buffer(struct kunit *test, struct device *dev24, void *cpu, size_t len,
			    enum dma_data_direction dir, const char *what)
{
	phys_addr_t phys = virt_to_phys(cpu);
	struct tsnap s0, s1, s2;
	struct tmap *m;

	KUNIT_EXPECT_TRUE_MSG(test, mask_pool_page(virt_to_page(cpu)), "%s", what);
	KUNIT_EXPECT_LE_MSG(test, (u64)phys + len - 1, MASK24, "%s", what);
	KUNIT_EXPECT_FALSE_MSG(test, any_pool(dev24, phys, len), "%s", what);
	KUNIT_EXPECT_NULL_MSG(test, swiotlb_find_pool(dev24, phys), "%s", what);

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

	set_force_bounce(test, dev24, true);
	m = tmap_get(test, dev24, cpu, len, dir, 0);
	expect_bounced(test, m);
	pat_fill(tmap_bounce(m), len, 0, SEED_DEV);
	tmap_put(test, m, 0);
	set_force_bounce(test, dev24, false);
	tsnap(test, &s2);
	expect_in_use(test, &s0, &s2, 0, 0);
	expect_pat(test, cpu, len, 0, dir_from_dev(dir) ? SEED_DEV : SEED_ORIG, what);
	KUNIT_EXPECT_FALSE_MSG(test, any_pool(dev24, phys, len), "%s", what);
	KUNIT_EXPECT_NULL_MSG(test, swiotlb_find_pool(dev24, phys), "%s", what);
}

/*
 * Mask pool memory also serves GFP_DMA (small and large kmalloc),
 * coherent memory and alloc_pages_mask(): no swiotlb pool holds it,
 * mapping it on a 24-bit device does not bounce, and unmapping it frees
 * nothing.  Bouncing is off for the case (also under swiotlb=force).
 */
static void pool_buffers_not_bounce(struct kunit *test)
{
	struct device *dev24 = tlb_dev(test, 24, false);
	struct kmem_cache *cache = kmalloc_caches[KMALLOC_DMA][kmalloc_index(64)];
	struct tmap *warm;
	struct coh *coh;
	struct pmask *pm;
	void *p;

	/* Bounce once, so that swiotlb_find_pool() searches for this device. */
	set_force_bounce(test, dev24, true);
	p = obuf(test, PAGE_SIZE);
	warm = tmap_get(test, dev24, p, 64, DMA_TO_DEVICE, 0);
	expect_bounced(test, warm);
	tmap_put(test, warm, 0);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(dev24->dma_uses_io_tlb));
	set_force_bounce(test, dev24, false);

	p = kmalloc(64, GFP_KERNEL | GFP_DMA);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kfree_action, p), 0);
	map_pool_buffer(test, dev24, p, 64, DMA_BIDIRECTIONAL, "kmalloc(64, GFP_DMA)");
	kunit_release_action(test, kfree_action, p);
	if (cache)
		kmem_cache_shrink(cache);

	p = kmalloc(SZ_8K + SZ_4K, GFP_KERNEL | GFP_DMA);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kfree_action, p), 0);
	map_pool_buffer(test, dev24, p, SZ_8K + SZ_4K, DMA_BIDIRECTIONAL,
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
	map_pool_buffer(test, dev24, coh->cpu, coh->size, DMA_TO_DEVICE, "dma_alloc_coherent()");

	pm = kunit_kzalloc(test, sizeof(*pm), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	pm->size = 2 * PAGE_SIZE;
	pm->page = alloc_pages_mask(GFP_KERNEL, pm->size, MASK24);
	KUNIT_ASSERT_NOT_NULL(test, pm->page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pmask_free, pm), 0);
	map_pool_buffer(test, dev24, page_address(pm->page), pm->size, DMA_BIDIRECTIONAL,
			"alloc_pages_mask()");
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
 * Bouncing only where needed (also under swiotlb=force): a device bounces
 * a buffer above its mask (below the mask, data copied both ways) and
 * maps a buffer below its mask directly; a 64-bit device never bounces.
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

	set_force_bounce(test, dev, false);
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
	expect_in_use(test, &s0, &s1, DIV_ROUND_UP(size, IO_TLB_SIZE), 1);
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
 * The bounce buffer goes below min(DMA mask, bus_dma_limit), in a pool
 * below it: a 64-bit device behind a 28-bit bus, a 32-bit device behind
 * a 24-bit bus, and a 24-bit device behind a wider bus.
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
		KUNIT_EXPECT_LE(test, (u64)tmap_pool(m)->end - 1, cases[i].limit);
		expect_pat(test, tmap_bounce(m), size, 0, SEED_ORIG, "bounce");
		tmap_put(test, m, 0);
	}
}

/* ==== after swiotlb_exit() ==== */

/*
 * x86 calls swiotlb_exit() when nothing above 4 GB needs bouncing: dmatlb
 * then gives its pools back and bounces only for limits below 32 bits,
 * which stock swiotlb never served.  A forced 64-bit map fails (quietly
 * with DMA_ATTR_NO_WARN); a 28-bit one still bounces below its limit.
 */
static void after_swiotlb_exit(struct kunit *test)
{
	const size_t size = 2 * PAGE_SIZE;
	struct device *dev28, *dev64;
	struct dmatlb_stats st;
	struct tmap *m;
	u8 *buf;

	dmatlb_get_stats(&st);
	if (!st.low_only)
		kunit_skip(test, "swiotlb_exit() did not run (memory above 4 GB, or force)");
	buf = obuf(test, size);
	dev64 = tlb_dev(test, 64, true);
	KUNIT_EXPECT_FALSE(test, is_swiotlb_active(dev64));
	m = tmap_get(test, dev64, buf, size, DMA_TO_DEVICE, DMA_ATTR_NO_WARN);
	KUNIT_EXPECT_EQ(test, m->dma, DMA_MAPPING_ERROR);
	tmap_put(test, m, 0);

	dev28 = tlb_dev(test, 28, true);
	KUNIT_EXPECT_TRUE(test, is_swiotlb_active(dev28));
	pat_fill(buf, size, 0, SEED_ORIG);
	m = tmap_get(test, dev28, buf, size, DMA_BIDIRECTIONAL, 0);
	KUNIT_ASSERT_NE(test, m->dma, DMA_MAPPING_ERROR);
	expect_bounced(test, m);
	KUNIT_EXPECT_LE(test, (u64)m->dma + size - 1, (u64)MASK28);
	expect_pat(test, tmap_bounce(m), size, 0, SEED_ORIG, "bounce");
	tmap_put(test, m, 0);
}

/* ==== counters ==== */

/*
 * Four mappings alive at once and unmapped in another order: slots in
 * use, live mappings, the high-water mark and the four vm events move by
 * exactly what each mapping uses (swiotlb_used_pages only when a pool is
 * made: a transient or a grown one); swiotlb's io_tlb_used counts the
 * same slots.
 */
static void counters(struct kunit *test)
{
	static const struct {
		size_t off, size;
		unsigned long slots;
	} maps[] = {
		{ 0, 1, 1 }, { 0x800, PAGE_SIZE + 1, 3 }, { 0, PAGE_SIZE, 2 }, { 0xf00, 0x200, 1 },
	};
	static const unsigned int order[] = { 1, 3, 0, 2 };
	const unsigned int *bits = test->param_value;
	struct device *dev = tlb_dev(test, *bits, true);
	struct tmap *m[ARRAY_SIZE(maps)];
	struct io_tlb_mem *mem = tlb_mem(dev);
	unsigned long slots = 0, wasted = 0;
	struct tsnap s0, s, prev;
	unsigned int i, k;
#ifdef CONFIG_DEBUG_FS
	long used0 = atomic_long_read(&mem->total_used);
#endif

	tsnap(test, &s0);
	s = s0;
	for (i = 0; i < ARRAY_SIZE(maps); i++) {
		u8 *buf = obuf(test, 2 * PAGE_SIZE);

		prev = s;
		m[i] = tmap_get(test, dev, buf + maps[i].off, maps[i].size, DMA_TO_DEVICE, 0);
		tsnap(test, &s);
		expect_bounced(test, m[i]);
		slots += maps[i].slots;
		wasted += maps[i].slots * IO_TLB_SIZE - maps[i].size;
		expect_in_use(test, &prev, &s, maps[i].slots, 1);
		KUNIT_EXPECT_EQ(test, ev(&prev, &s, EV_WASTED),
				(long)(maps[i].slots * IO_TLB_SIZE - maps[i].size));
		KUNIT_EXPECT_EQ(test, ev(&prev, &s, EV_ALLOCS), 1L);
		KUNIT_EXPECT_EQ(test, ev(&prev, &s, EV_FREES), 0L);
		if (tmap_pool(m[i])->transient)
			KUNIT_EXPECT_EQ(test, ev(&prev, &s, EV_PAGES),
					(long)PFN_UP(maps[i].slots * IO_TLB_SIZE));
	}
	expect_in_use(test, &s0, &s, slots, ARRAY_SIZE(maps));
#ifdef CONFIG_DEBUG_FS
	/* swiotlb's debugfs io_tlb_used counts the same 2 KiB slots. */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&mem->total_used) - used0, (long)slots);
	KUNIT_EXPECT_GE(test, atomic_long_read(&mem->used_hiwater), used0 + (long)slots);
#endif
	KUNIT_EXPECT_EQ(test, ev(&s0, &s, EV_WASTED), (long)wasted);

	for (k = 0; k < ARRAY_SIZE(order); k++) {
		i = order[k];
		prev = s;
		tmap_put(test, m[i], 0);
		tsnap(test, &s);
		expect_in_use(test, &prev, &s, -(long)maps[i].slots, -1);
		KUNIT_EXPECT_EQ(test, ev(&prev, &s, EV_FREES), 1L);
		KUNIT_EXPECT_EQ(test, ev(&prev, &s, EV_ALLOCS), 0L);
		KUNIT_EXPECT_EQ(test, ev(&prev, &s, EV_WASTED), 0L);
	}
	expect_in_use(test, &s0, &s, 0, 0);
#ifdef CONFIG_DEBUG_FS
	KUNIT_EXPECT_EQ(test, atomic_long_read(&mem->total_used), used0);
#endif
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

static struct kunit_case dmatlb_cases[] = {
	KUNIT_CASE(dmatlb_basics),
	KUNIT_CASE(after_swiotlb_exit),
	/* copies in every direction */
	KUNIT_CASE_PARAM(map_directions, dirs_gen_params),
	KUNIT_CASE_PARAM(from_device_no_leak, bits_gen_params),
	KUNIT_CASE_PARAM(sync_sub_ranges, range_gen_params),
	KUNIT_CASE_PARAM(skip_cpu_sync, dir_only_gen_params),
	/* placement in slots and pools */
	KUNIT_CASE_PARAM(in_page_offsets, bits_gen_params),
	KUNIT_CASE_PARAM(small_mapping_slots, bits_gen_params),
	KUNIT_CASE_PARAM(min_align_mask_kept, min_align_gen_params),
	KUNIT_CASE_PARAM(alloc_align_mask_honoured, align_gen_params),
	KUNIT_CASE(bus_dma_limit),
	KUNIT_CASE_PARAM(pools_below_limit, low_bits_gen_params),
	KUNIT_CASE(range_map_limit_below_windows),
	KUNIT_CASE(range_map_seg_boundary),
	KUNIT_CASE_PARAM(default_mem, bits_gen_params),
	/* scatter-gather */
	KUNIT_CASE_PARAM(sg_map_sync_unmap, dirs_gen_params),
	KUNIT_CASE(sg_mid_list_failure),
	/* mask pool memory that is not a bounce buffer */
	KUNIT_CASE(pool_buffers_not_bounce),
	/* growth, transient pools, shrink, exhaustion */
	KUNIT_CASE_PARAM(grow_and_shrink, low_bits_gen_params),
	KUNIT_CASE(idle_pool_returns),
	KUNIT_CASE_PARAM(atomic_map_transient, atomic_gen_params),
	KUNIT_CASE_PARAM(transient_min_align, transient_off_gen_params),
	KUNIT_CASE_PARAM(exhaustion, bits_gen_params),
	/* counters */
	KUNIT_CASE_PARAM(counters, bits_gen_params),
	/* fault injection */
	KUNIT_CASE(inject_map_single),
	KUNIT_CASE_PARAM(inject_sg_entry_k, fail_at_gen_params),
	/* bad input */
	KUNIT_CASE(unmap_misuse),
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

MODULE_DESCRIPTION("KUnit test of swiotlb pools carved from the mask pool (dmatlb)");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
