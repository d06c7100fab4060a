// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for coherent DMA and mempools below a DMA mask, served by the
 * maskable DMA allocator (mm/mask_alloc.c, kernel/dma/direct.c,
 * mm/mempool.c).
 *
 * Fake devices (kunit_device_register()) with coherent masks of 24, 28,
 * 30, 31, 32 and 64 bits allocate with dma_alloc_coherent() and friends;
 * every buffer must lie below its mask, be zeroed and go back exactly
 * (pool statistics, the MASK_* vm events, no misuse).  Pools of pages
 * below a mask (mempool_create_pool_pmask()) must keep their reserve and
 * hand it out under pressure.  Under fault injection (fail_mask_alloc)
 * both see a full pool and take their failure paths.
 *
 * "Force" (mask_pool_set_force()) makes the pool the only source below
 * 4 GB, so that pool use does not depend on where the zones put their
 * pages.  Everything a case allocates is registered with
 * kunit_add_action_or_reset() first, so a failing case never leaks pool
 * pages into the next one.  The cases assume that nothing else allocates
 * from the pool while the suite runs, which holds at boot.
 */
#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/mask_alloc.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>

#include "../mask_alloc_internal.h"
#include "mask_alloc_kunit.h"

#define MASK24		DMA_BIT_MASK(24)
#define MASK28		DMA_BIT_MASK(28)
#define DIRT		0xa5
#define SIZE_12K	(3 * SZ_4K)
#define MP_MIN_NR	4
#define MP_SIZE		SIZE_12K

/* ---- snapshots: pool statistics and the MASK_* vm events ---- */

/* Sums the per-CPU counters (all_vm_events()), also right on UP. */
static bool page_below(struct page *page, size_t size, u64 mask)
{
	return page_to_phys(page) + size - 1 <= mask;
}

/* Exactly back: same free bytes, no misuse, no failure. */
static void expect_same_pool(struct kunit *test, const struct snap *a,
			     const struct snap *b)
{
	KUNIT_EXPECT_EQ(test, b->st.free_bytes, a->st.free_bytes);
	KUNIT_EXPECT_EQ(test, b->st.misuse, a->st.misuse);
}

/* ---- settings restored by cleanup actions ---- */

/* ---- fake devices and coherent buffers ---- */

/* A device on the KUnit bus with both masks set to DMA_BIT_MASK(@bits). */
static struct device *coh_dev(struct kunit *test, unsigned int bits)
{
	struct device *dev = kunit_device_register(test, "mask_alloc_coherent");

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	dev->dma_mask = &dev->coherent_dma_mask;
	KUNIT_ASSERT_EQ_MSG(test, dma_set_mask_and_coherent(dev, DMA_BIT_MASK(bits)), 0,
			    "%u bits", bits);
	return dev;
}

struct coh_buf {
	struct device *dev;
	size_t size;
	void *cpu;
	dma_addr_t dma;
};

static void coh_buf_free(void *data)
{
	struct coh_buf *b = data;

	if (b->cpu)
		dma_free_coherent(b->dev, b->size, b->cpu, b->dma);
	b->cpu = NULL;
}

/* dma_alloc_coherent(), freed by the cleanup unless coh_put() ran; b->cpu may be NULL. */
static struct coh_buf *coh_get(struct kunit *test, struct device *dev,
			       size_t size, gfp_t gfp)
{
	struct coh_buf *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	b->dev = dev;
	b->size = size;
	b->cpu = dma_alloc_coherent(dev, size, &b->dma, gfp);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, coh_buf_free, b), 0);
	return b;
}

static void coh_put(struct kunit *test, struct coh_buf *b)
{
	kunit_release_action(test, coh_buf_free, b);
}

/* The buffer lies below @mask, through its handle and its CPU address. */
static void expect_coh_below(struct kunit *test, struct coh_buf *b, u64 mask)
{
	KUNIT_EXPECT_LE_MSG(test, (u64)b->dma + b->size - 1, mask,
			    "%zu bytes at %pad", b->size, &b->dma);
	KUNIT_EXPECT_TRUE_MSG(test, addr_below(b->cpu, b->size, mask),
			      "%zu bytes at %pa", b->size, &(phys_addr_t){ virt_to_phys(b->cpu) });
	/* dma-direct without offsets: the handle is the physical address. */
	KUNIT_EXPECT_EQ(test, (u64)b->dma, (u64)virt_to_phys(b->cpu));
}

static bool coh_from_pool(struct coh_buf *b)
{
	return mask_pool_page(virt_to_page(b->cpu));
}

/* ---- filling the pool ---- */

/*
 * Allocate single pool pages below @mask with @gfp until the pool has none
 * left there.  With force on, the pool is the only source; with a
 * blocking @gfp the last attempt waits mask_timeout, so callers set a
 * short one.
 */
static struct pool_fill *fill_pool(struct kunit *test, gfp_t gfp, u64 mask)
{
	struct mask_pool_stats st;
	unsigned long cap, i, foreign = 0;
	struct pool_fill *f;
	struct page *page;

	mask_pool_get_stats(&st);
	cap = st.free_pages + 64;
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->pages = kunit_kcalloc(test, cap, sizeof(*f->pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->pages);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fill_release, f), 0);

	while (f->nr < cap) {
		page = alloc_pages_mask(gfp | __GFP_NOWARN, PAGE_SIZE, mask);
		if (!page)
			break;
		f->pages[f->nr++] = page;
	}
	for (i = 0; i < f->nr; i++)
		if (!mask_pool_page(f->pages[i]) ||
		    !page_below(f->pages[i], PAGE_SIZE, mask))
			foreign++;
	KUNIT_ASSERT_EQ_MSG(test, foreign, 0UL, "pages not from the pool below %#llx", mask);
	KUNIT_ASSERT_LT_MSG(test, f->nr, cap, "the pool kept growing while filled");
	return f;
}

/* Write DIRT over every free pool page, so that zeroing can be seen. */
static void dirty_pool(struct kunit *test)
{
	struct mask_pool_stats st;
	struct pool_fill *f;
	unsigned long i;

	mask_pool_get_stats(&st);
	set_force(test, true);
	f = fill_pool(test, NOWAIT, U64_MAX);
	mask_pool_set_force(st.force);
	for (i = 0; i < f->nr; i++)
		memset(page_address(f->pages[i]), DIRT, PAGE_SIZE);
	kunit_release_action(test, fill_release, f);
}

static void suite_param_desc_bits(const unsigned int *bits, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u bits", *bits);
}

/* ==== every size, every mask: below the mask, zeroed, returned exactly ==== */

static const size_t coh_sizes[] = {
	1, 100, 4095, 4096, 4097, SIZE_12K, SZ_64K + 1, SZ_1M, SZ_4M,
};

struct coh_param {
	unsigned int bits;
	bool force;
};

static const struct coh_param coh_params[] = {
	{ 24, false }, { 28, false }, { 30, false }, { 31, false },
	{ 32, false }, { 64, false },
	{ 24, true }, { 28, true }, { 30, true }, { 31, true },
	{ 32, true }, { 64, true },
};

static void coh_param_desc(const struct coh_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u bits%s", p->bits,
		 p->force ? ", force" : "");
}

KUNIT_ARRAY_PARAM(coh, coh_params, coh_param_desc);

/* Is every byte of @p[0..@len) zero? */
static bool all_zero(const u8 *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/*
 * One size: dirty a first buffer, free it, then allocate the buffer under
 * test and check it.  Returns true if the second buffer reused the first.
 */
static bool coh_one_size(struct kunit *test, struct device *dev,
			 const struct coh_param *p, size_t size)
{
	u64 mask = DMA_BIT_MASK(p->bits);
	size_t asize = PAGE_ALIGN(size);
	struct coh_buf *dirty, *b;
	struct snap s0, s1, s2;
	dma_addr_t old;
	bool pool;

	dirty = coh_get(test, dev, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL_MSG(test, dirty->cpu, "%zu bytes (dirty)", size);
	memset(dirty->cpu, DIRT, asize);
	old = dirty->dma;
	coh_put(test, dirty);

	take_snap(test, &s0);
	b = coh_get(test, dev, size, GFP_KERNEL);
	take_snap(test, &s1);
	KUNIT_ASSERT_NOT_NULL_MSG(test, b->cpu, "%zu bytes", size);
	expect_coh_below(test, b, mask);
	/* dma-direct page-aligns: even the tail of the last page is zeroed. */
	KUNIT_EXPECT_TRUE_MSG(test, all_zero(b->cpu, asize), "%zu bytes not zeroed", size);

	pool = coh_from_pool(b);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), 0UL);
	if (p->bits >= 32) {
		/* The stock path: the mask allocator is not involved. */
		KUNIT_EXPECT_FALSE(test, pool);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 0UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGHER), 0UL);
		KUNIT_EXPECT_EQ(test, s1.st.free_bytes, s0.st.free_bytes);
	} else if (pool) {
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 1UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGHER), 0UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_LOW_WASTE), 0UL);
		KUNIT_EXPECT_EQ(test, s0.st.free_bytes - s1.st.free_bytes, (u64)asize);
	} else {
		/* The zones served it; only possible without force. */
		KUNIT_EXPECT_FALSE(test, p->force);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 0UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGHER), 1UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGH_WASTE),
				(PAGE_SIZE << get_order(asize)) - asize);
		KUNIT_EXPECT_EQ(test, s1.st.free_bytes, s0.st.free_bytes);
	}

	coh_put(test, b);
	take_snap(test, &s2);
	expect_same_pool(test, &s0, &s2);
	KUNIT_EXPECT_EQ(test, ev_delta(&s1, &s2, MASK_FREE), pool ? 1UL : 0UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s1, &s2, MASK_ALLOC), 0UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s1, &s2, MASK_FAIL), 0UL);
	return b->dma == old;
}

/*
 * dma_alloc_coherent() of 1 byte to 4 MiB: below the mask through both the
 * handle and the CPU address, zeroed over dirtied memory (the whole pool
 * is dirtied first, and so is a previous buffer of the same size), and
 * returned exactly.  Below 32 bits it is the pool (MASK_ALLOC, no waste)
 * or, without force, the zones (MASK_HIGHER); at 32 and 64 bits the mask
 * allocator is never involved, force or not.  A size is left out only if
 * the pool is its only source and has no free run that large.
 */
static void coherent_sizes(struct kunit *test)
{
	const struct coh_param *p = test->param_value;
	unsigned int i, reused = 0, tested = 0;
	struct mask_pool_stats st;
	struct device *dev;
	bool pool_only;

	dev = coh_dev(test, p->bits);
	if (p->force)
		set_force(test, true);
	dirty_pool(test);
	/* Below 16 MB the zones have no memory: the pool owns all of it. */
	pool_only = p->bits < 32 && (p->force || p->bits <= 24);

	for (i = 0; i < ARRAY_SIZE(coh_sizes); i++) {
		mask_pool_get_stats(&st);
		if (pool_only && coh_sizes[i] > st.largest_free_bytes) {
			kunit_info(test, "%zu bytes left out: the pool, the only memory below %#llx here, has no free run that large (largest %llu bytes)\n",
				   coh_sizes[i], DMA_BIT_MASK(p->bits),
				   st.largest_free_bytes);
			continue;
		}
		reused += coh_one_size(test, dev, p, coh_sizes[i]);
		tested++;
	}
	kunit_info(test, "%u sizes, %u reused the dirtied buffer\n", tested, reused);
	KUNIT_EXPECT_GE(test, tested, (unsigned int)ARRAY_SIZE(coh_sizes) - 1);
}

/* ==== who serves what ==== */

/* 28 bits, zones useless (force): pool memory, counted, returned. */
static void coherent_28bit_uses_pool(struct kunit *test)
{
	struct device *dev = coh_dev(test, 28);
	struct snap s0, s1, s2;
	struct coh_buf *b;

	set_force(test, true);
	take_snap(test, &s0);
	b = coh_get(test, dev, SIZE_12K, GFP_KERNEL);
	take_snap(test, &s1);
	KUNIT_ASSERT_NOT_NULL(test, b->cpu);
	KUNIT_EXPECT_TRUE(test, coh_from_pool(b));
	expect_coh_below(test, b, MASK28);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 1UL);
	KUNIT_EXPECT_EQ(test, s0.st.free_bytes - s1.st.free_bytes, (u64)SIZE_12K);
	coh_put(test, b);
	take_snap(test, &s2);
	KUNIT_EXPECT_EQ(test, ev_delta(&s1, &s2, MASK_FREE), 1UL);
	expect_same_pool(test, &s0, &s2);
}

/* 28 bits, zones first: whoever serves it, it is below 256 MB. */
static void coherent_28bit_zones_first(struct kunit *test)
{
	struct device *dev = coh_dev(test, 28);
	struct snap s0, s1;
	struct coh_buf *b;
	int i;

	set_force(test, false);
	for (i = 0; i < 16; i++) {
		take_snap(test, &s0);
		b = coh_get(test, dev, SIZE_12K, GFP_KERNEL);
		take_snap(test, &s1);
		KUNIT_ASSERT_NOT_NULL(test, b->cpu);
		expect_coh_below(test, b, MASK28);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC) +
				ev_delta(&s0, &s1, MASK_HIGHER), 1UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC),
				coh_from_pool(b) ? 1UL : 0UL);
		if (!i)
			kunit_info(test, "first buffer from the %s\n",
				   coh_from_pool(b) ? "pool" : "zones");
	}
}

/* 32 and 64 bits behave as stock, even with force: no pool, no events. */
static void coherent_wide_is_stock(struct kunit *test)
{
	const unsigned int *bits = test->param_value;
	struct device *dev = coh_dev(test, *bits);
	struct snap s0, s1;
	struct coh_buf *b;
	int force;

	for (force = 0; force <= 1; force++) {
		set_force(test, force);
		take_snap(test, &s0);
		b = coh_get(test, dev, SIZE_12K, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, b->cpu);
		expect_coh_below(test, b, DMA_BIT_MASK(*bits));
		KUNIT_EXPECT_FALSE(test, coh_from_pool(b));
		coh_put(test, b);
		take_snap(test, &s1);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 0UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGHER), 0UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FREE), 0UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), 0UL);
		expect_same_pool(test, &s0, &s1);
	}
}

static const unsigned int wide_bits[] = { 32, 64 };

KUNIT_ARRAY_PARAM(wide, wide_bits, suite_param_desc_bits);

/* ==== dma_set_mask_and_coherent() ==== */

/*
 * Every mask from 21 to 64 bits is accepted (21 bits covers the lowest
 * pool page at 1 MB); masks below the lowest pool page fail with -EIO and
 * leave the masks unchanged.  The boundary is mask_pool_min_mask().
 */
static void set_mask_range(struct kunit *test)
{
	struct device *dev = coh_dev(test, 32);
	u64 min = mask_pool_min_mask();
	unsigned int bits;
	int want;

	KUNIT_ASSERT_NE(test, min, 0ULL);
	kunit_info(test, "lowest pool page ends at %#llx\n", min);
	/* The pool starts at 1 MB on x86: 20 bits is just too narrow. */
	KUNIT_EXPECT_GT(test, min, DMA_BIT_MASK(20));
	KUNIT_EXPECT_LE(test, min, DMA_BIT_MASK(21));

	for (bits = 24; bits <= 64; bits++) {
		KUNIT_EXPECT_EQ_MSG(test, dma_set_mask_and_coherent(dev, DMA_BIT_MASK(bits)), 0,
				    "%u bits", bits);
		KUNIT_EXPECT_EQ(test, dev->coherent_dma_mask, DMA_BIT_MASK(bits));
		KUNIT_EXPECT_EQ(test, dma_get_mask(dev), DMA_BIT_MASK(bits));
	}
	KUNIT_EXPECT_EQ(test, dma_set_mask_and_coherent(dev, DMA_BIT_MASK(21)), 0);
	KUNIT_EXPECT_EQ(test, dma_set_mask_and_coherent(dev, DMA_BIT_MASK(32)), 0);
	KUNIT_EXPECT_EQ(test, dma_set_mask_and_coherent(dev, DMA_BIT_MASK(20)), -EIO);
	KUNIT_EXPECT_EQ(test, dev->coherent_dma_mask, DMA_BIT_MASK(32));
	KUNIT_EXPECT_EQ(test, dma_set_mask_and_coherent(dev, min - 1), -EIO);
	KUNIT_EXPECT_EQ(test, dma_set_mask_and_coherent(dev, min), 0);

	/* Below 32 bits exactly the masks that reach the lowest pool page. */
	for (bits = 1; bits < 32; bits++) {
		want = DMA_BIT_MASK(bits) >= min ? 0 : -EIO;
		KUNIT_EXPECT_EQ_MSG(test, dma_set_mask_and_coherent(dev, DMA_BIT_MASK(bits)),
				    want, "%u bits", bits);
	}
}

/* A 21-bit device (just the lowest megabyte of the pool) gets its buffer. */
static void coherent_21bit(struct kunit *test)
{
	struct device *dev = coh_dev(test, 21);
	struct coh_buf *b;
	struct snap s0, s1;

	take_snap(test, &s0);
	b = coh_get(test, dev, SIZE_12K, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->cpu);
	KUNIT_EXPECT_TRUE(test, coh_from_pool(b));
	expect_coh_below(test, b, DMA_BIT_MASK(21));
	coh_put(test, b);
	take_snap(test, &s1);
	expect_same_pool(test, &s0, &s1);
}

/* ==== exhaustion ==== */

static const unsigned int narrow_bits[] = { 24, 28, 30, 31 };

KUNIT_ARRAY_PARAM(narrow, narrow_bits, suite_param_desc_bits);

/*
 * The pool full below the mask (force on): GFP_ATOMIC and GFP_NOWAIT
 * coherent allocations fail at once and count MASK_FAIL; GFP_KERNEL waits
 * mask_timeout and fails.  After one page is freed a GFP_ATOMIC
 * allocation gets exactly that page; after the fill is gone, 12K too.
 */
static void coherent_exhausted(struct kunit *test)
{
	const unsigned int *bits = test->param_value;
	u64 mask = DMA_BIT_MASK(*bits);
	struct device *dev = coh_dev(test, *bits);
	unsigned long start, took, timeout = max(HZ / 10, 2);
	static const gfp_t gfps[] = { GFP_ATOMIC, GFP_NOWAIT };
	struct pool_fill *f;
	struct snap s0, s1;
	struct coh_buf *b;
	struct page *page;
	int i;

	set_force(test, true);
	set_timeout(test, 1);
	f = fill_pool(test, GFP_KERNEL, mask);
	KUNIT_ASSERT_GT(test, f->nr, 0UL);
	set_timeout(test, 10 * HZ);

	for (i = 0; i < ARRAY_SIZE(gfps); i++) {
		take_snap(test, &s0);
		start = jiffies;
		b = coh_get(test, dev, PAGE_SIZE, gfps[i] | __GFP_NOWARN);
		took = jiffies - start;
		take_snap(test, &s1);
		KUNIT_EXPECT_NULL_MSG(test, b->cpu, "gfp %pGg", &gfps[i]);
		KUNIT_EXPECT_LT(test, took, (unsigned long)HZ);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), 1UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_WAIT), 0UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 0UL);
		KUNIT_EXPECT_EQ(test, s1.st.misuse, s0.st.misuse);
	}

	/* GFP_KERNEL: bounded wait, then NULL. */
	set_timeout(test, timeout);
	take_snap(test, &s0);
	start = jiffies;
	b = coh_get(test, dev, PAGE_SIZE, GFP_KERNEL | __GFP_NOWARN);
	took = jiffies - start;
	take_snap(test, &s1);
	KUNIT_EXPECT_NULL(test, b->cpu);
	KUNIT_EXPECT_GE(test, took, timeout);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_WAIT), timeout);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), 1UL);

	/* One page back: an atomic allocation gets exactly it. */
	page = f->pages[f->nr / 2];
	__free_pages_mask(page, PAGE_SIZE);
	f->pages[f->nr / 2] = NULL;
	b = coh_get(test, dev, PAGE_SIZE, GFP_ATOMIC);
	KUNIT_ASSERT_NOT_NULL(test, b->cpu);
	KUNIT_EXPECT_PTR_EQ(test, virt_to_page(b->cpu), page);
	expect_coh_below(test, b, mask);
	KUNIT_EXPECT_TRUE(test, all_zero(b->cpu, PAGE_SIZE));

	/* Everything back: 12K without waiting. */
	kunit_release_action(test, fill_release, f);
	b = coh_get(test, dev, SIZE_12K, GFP_NOWAIT);
	KUNIT_ASSERT_NOT_NULL(test, b->cpu);
	KUNIT_EXPECT_TRUE(test, coh_from_pool(b));
	expect_coh_below(test, b, mask);
}

/* The pool full: a GFP_KERNEL coherent allocation is woken by a free. */
static void coherent_waiter_woken(struct kunit *test)
{
	struct device *dev = coh_dev(test, 24);
	unsigned long start, took;
	struct delayed_free *df;
	struct pool_fill *f;
	struct snap s0, s1;
	struct coh_buf *b;

	set_force(test, true);
	f = fill_pool(test, NOWAIT, MASK24);
	KUNIT_ASSERT_GT(test, f->nr, 0UL);
	set_timeout(test, 20 * HZ);
	df = kunit_kzalloc(test, sizeof(*df), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, df);
	INIT_DELAYED_WORK(&df->work, delayed_free_fn);
	df->page = f->pages[0];
	f->pages[0] = NULL;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, delayed_free_cancel, df), 0);

	take_snap(test, &s0);
	start = jiffies;
	schedule_delayed_work(&df->work, max(HZ / 10, 1));
	b = coh_get(test, dev, PAGE_SIZE, GFP_KERNEL);
	took = jiffies - start;
	take_snap(test, &s1);
	KUNIT_ASSERT_NOT_NULL(test, b->cpu);
	KUNIT_EXPECT_PTR_EQ(test, virt_to_page(b->cpu), df->page);
	KUNIT_EXPECT_LT(test, took, 20UL * HZ);
	KUNIT_EXPECT_GT(test, ev_delta(&s0, &s1, MASK_WAIT), 0UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), 0UL);
}

/* ==== the other dma-direct entry points ==== */

/* dma_alloc_pages() of a size that is not a page multiple: exact return. */
static void dma_pages_below_mask(struct kunit *test)
{
	struct device *dev = coh_dev(test, 24);
	struct snap s0, s1, s2;
	struct page *page;
	dma_addr_t dma;

	take_snap(test, &s0);
	page = dma_alloc_pages(dev, 5000, &dma, DMA_BIDIRECTIONAL, GFP_KERNEL);
	take_snap(test, &s1);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_TRUE(test, mask_pool_page(page));
	KUNIT_EXPECT_TRUE(test, page_below(page, 5000, MASK24));
	KUNIT_EXPECT_LE(test, (u64)dma + 5000 - 1, MASK24);
	KUNIT_EXPECT_EQ(test, s0.st.free_bytes - s1.st.free_bytes, 2ULL * PAGE_SIZE);
	dma_free_pages(dev, 5000, page, dma, DMA_BIDIRECTIONAL);
	take_snap(test, &s2);
	KUNIT_EXPECT_EQ(test, ev_delta(&s1, &s2, MASK_FREE), 1UL);
	expect_same_pool(test, &s0, &s2);
}

/* DMA_ATTR_NO_KERNEL_MAPPING takes its own path; it frees exactly too. */
static void dma_no_kernel_mapping(struct kunit *test)
{
	struct device *dev = coh_dev(test, 24);
	struct snap s0, s1, s2;
	dma_addr_t dma;
	void *cookie;

	take_snap(test, &s0);
	cookie = dma_alloc_attrs(dev, SIZE_12K + 1, &dma, GFP_KERNEL,
				 DMA_ATTR_NO_KERNEL_MAPPING);
	take_snap(test, &s1);
	KUNIT_ASSERT_NOT_NULL(test, cookie);
	KUNIT_EXPECT_LE(test, (u64)dma + SIZE_12K, MASK24);
	KUNIT_EXPECT_EQ(test, s0.st.free_bytes - s1.st.free_bytes, 4ULL * PAGE_SIZE);
	dma_free_attrs(dev, SIZE_12K + 1, cookie, dma, DMA_ATTR_NO_KERNEL_MAPPING);
	take_snap(test, &s2);
	KUNIT_EXPECT_EQ(test, ev_delta(&s1, &s2, MASK_FREE), 1UL);
	expect_same_pool(test, &s0, &s2);
}

/*
 * A 32-bit device that can only reach the first 16 MB (a dma_range_map
 * window): dma_to_phys() of its mask is all ones, so dma-direct takes its
 * stock path, the zones' pages lie outside the window, and the GFP_DMA
 * retry must find pool memory.  dma_free_coherent() frees pool pages by
 * exact size, so a 3-page buffer must be a 3-page pool allocation, not an
 * order-2 GFP_DMA run.
 */
static void coherent_dma_window(struct kunit *test)
{
	struct device *dev = coh_dev(test, 32);
	struct bus_dma_region *map;
	struct snap s0, s1, s2;
	struct coh_buf *b;

	/* Freed with the device, by device_release(). */
	map = kcalloc(2, sizeof(*map), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, map);
	map[0].size = SZ_16M;
	dev->dma_range_map = map;

	take_snap(test, &s0);
	b = coh_get(test, dev, SIZE_12K, GFP_KERNEL);
	take_snap(test, &s1);
	KUNIT_ASSERT_NOT_NULL(test, b->cpu);
	KUNIT_EXPECT_TRUE(test, coh_from_pool(b));
	expect_coh_below(test, b, SZ_16M - 1);
	KUNIT_EXPECT_TRUE(test, all_zero(b->cpu, SIZE_12K));
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 1UL);
	KUNIT_EXPECT_EQ(test, s0.st.free_bytes - s1.st.free_bytes, (u64)SIZE_12K);
	coh_put(test, b);
	take_snap(test, &s2);
	KUNIT_EXPECT_EQ(test, ev_delta(&s1, &s2, MASK_FREE), 1UL);
	expect_same_pool(test, &s0, &s2);
}

/* ==== counters ==== */

/*
 * A pool-served coherent allocation counts one MASK_ALLOC and, since
 * dma-direct page-aligns the size, no MASK_LOW_WASTE; its free counts one
 * MASK_FREE.  alloc_pages_mask() of the same size does count the waste.
 */
static void coherent_counters(struct kunit *test)
{
	static const size_t sizes[] = { 1, 100, 4095, 4096, 4097, SIZE_12K, SZ_64K + 1 };
	const unsigned int *bits = test->param_value;
	struct device *dev = coh_dev(test, *bits);
	struct snap s0, s1, s2;
	struct coh_buf *b;
	struct page *page;
	int i;

	set_force(test, true);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		take_snap(test, &s0);
		b = coh_get(test, dev, sizes[i], GFP_KERNEL);
		take_snap(test, &s1);
		KUNIT_ASSERT_NOT_NULL(test, b->cpu);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 1UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_LOW_WASTE), 0UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGHER), 0UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FREE), 0UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), 0UL);
		KUNIT_EXPECT_EQ(test, s0.st.free_bytes - s1.st.free_bytes,
				(u64)PAGE_ALIGN(sizes[i]));
		coh_put(test, b);
		take_snap(test, &s2);
		KUNIT_EXPECT_EQ(test, ev_delta(&s1, &s2, MASK_FREE), 1UL);
		KUNIT_EXPECT_EQ(test, ev_delta(&s1, &s2, MASK_ALLOC), 0UL);
		expect_same_pool(test, &s0, &s2);
	}

	/* The allocator itself counts rounding waste. */
	take_snap(test, &s0);
	page = alloc_pages_mask(GFP_KERNEL, 4097, DMA_BIT_MASK(*bits));
	take_snap(test, &s1);
	KUNIT_ASSERT_NOT_NULL(test, page);
	__free_pages_mask(page, 4097);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_LOW_WASTE), 2UL * PAGE_SIZE - 4097);
}

/* ==== fault injection (fail_mask_alloc): callers see a full pool ==== */

/*
 * Every pool request failed on purpose, the pool itself nearly empty of
 * users: a 24-bit coherent allocation (force on: the pool is the only
 * source) returns NULL at once for GFP_KERNEL too, counts MASK_FAIL and
 * the injected failures, takes no page and is not misuse.  Disarmed, the
 * same allocation succeeds from the pool.
 */
static void coherent_injected_failure(struct kunit *test)
{
	struct device *dev = coh_dev(test, 24);
	unsigned long start, took;
	struct snap s0, s1, s2;
	struct coh_buf *b;

	set_force(test, true);
	set_timeout(test, 10 * HZ);
	fail_arm(test, -1, 0, false);
	take_snap(test, &s0);
	start = jiffies;
	b = coh_get(test, dev, SIZE_12K, GFP_KERNEL | __GFP_NOWARN);
	took = jiffies - start;
	take_snap(test, &s1);
	KUNIT_EXPECT_NULL(test, b->cpu);
	KUNIT_EXPECT_LT(test, took, (unsigned long)HZ);
	KUNIT_EXPECT_GE(test, s1.st.injected - s0.st.injected, 1UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), s1.st.injected - s0.st.injected);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 0UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_WAIT), 0UL);
	KUNIT_EXPECT_EQ(test, s1.st.largest_free_bytes, s0.st.largest_free_bytes);
	expect_same_pool(test, &s0, &s1);

	fail_disarm();
	b = coh_get(test, dev, SIZE_12K, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->cpu);
	KUNIT_EXPECT_TRUE(test, coh_from_pool(b));
	expect_coh_below(test, b, MASK24);
	coh_put(test, b);
	take_snap(test, &s2);
	KUNIT_EXPECT_EQ(test, s2.st.injected, s1.st.injected);
	expect_same_pool(test, &s0, &s2);
}

/* ==== mempools below a mask ==== */

static void mempool_destroy_action(void *data)
{
	mempool_destroy(data);
}

static mempool_t *mp_create(struct kunit *test, int min_nr, size_t size, u64 mask)
{
	mempool_t *mp = mempool_create_pool_pmask(min_nr, size, mask);

	KUNIT_ASSERT_NOT_NULL(test, mp);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mempool_destroy_action, mp), 0);
	return mp;
}

struct mp_elem {
	mempool_t *mp;
	struct page *page;
};

static void mp_elem_free(void *data)
{
	struct mp_elem *e = data;

	if (e->page)
		mempool_free(e->page, e->mp);
	e->page = NULL;
}

/* mempool_alloc(), given back by the cleanup (before the pool is destroyed). */
static struct mp_elem *mp_get(struct kunit *test, mempool_t *mp, gfp_t gfp)
{
	struct mp_elem *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->mp = mp;
	e->page = mempool_alloc(mp, gfp);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mp_elem_free, e), 0);
	return e;
}

/*
 * Creation reserves min_nr elements below the mask from the pool (free
 * bytes drop by min_nr * 12K); mempool_destroy() gives all of them back.
 */
static void mempool_reserve_and_destroy(struct kunit *test)
{
	struct snap s0, s1, s2;
	mempool_t *mp;
	int i;

	take_snap(test, &s0);
	mp = mp_create(test, MP_MIN_NR, MP_SIZE, MASK24);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, mp->curr_nr, MP_MIN_NR);
	KUNIT_EXPECT_EQ(test, s0.st.free_bytes - s1.st.free_bytes, (u64)MP_MIN_NR * MP_SIZE);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), (unsigned long)MP_MIN_NR);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_LOW_WASTE), 0UL);
	for (i = 0; i < mp->curr_nr; i++) {
		struct page *page = mp->elements[i];

		KUNIT_EXPECT_TRUE(test, mask_pool_page(page));
		KUNIT_EXPECT_TRUE(test, page_below(page, MP_SIZE, MASK24));
	}
	kunit_release_action(test, mempool_destroy_action, mp);
	take_snap(test, &s2);
	KUNIT_EXPECT_EQ(test, ev_delta(&s1, &s2, MASK_FREE), (unsigned long)MP_MIN_NR);
	expect_same_pool(test, &s0, &s2);
}

/* Elements handed out in normal conditions lie below the mask as well. */
static void mempool_elements_below_mask(struct kunit *test)
{
	mempool_t *mp = mp_create(test, MP_MIN_NR, MP_SIZE, MASK24);
	struct mp_elem *e;
	int i;

	for (i = 0; i < 3 * MP_MIN_NR; i++) {
		e = mp_get(test, mp, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, e->page);
		KUNIT_EXPECT_TRUE(test, page_below(e->page, MP_SIZE, MASK24));
		KUNIT_EXPECT_TRUE(test, mask_pool_page(e->page));
	}
}

/*
 * The pool exhausted below the mask: GFP_NOWAIT hands out exactly the
 * min_nr reserved elements, then NULL.
 */
static void mempool_nowait_uses_reserve(struct kunit *test)
{
	struct page *reserved[MP_MIN_NR];
	struct mp_elem *e[MP_MIN_NR + 1];
	struct snap s0, s1;
	mempool_t *mp;
	int i, j, found;

	set_force(test, true);
	mp = mp_create(test, MP_MIN_NR, MP_SIZE, MASK24);
	KUNIT_ASSERT_EQ(test, mp->curr_nr, MP_MIN_NR);
	memcpy(reserved, mp->elements, sizeof(reserved));
	fill_pool(test, NOWAIT, MASK24);

	take_snap(test, &s0);
	for (i = 0; i <= MP_MIN_NR; i++)
		e[i] = mp_get(test, mp, GFP_NOWAIT);
	take_snap(test, &s1);
	for (i = 0; i < MP_MIN_NR; i++) {
		KUNIT_ASSERT_NOT_NULL_MSG(test, e[i]->page, "element %d", i);
		KUNIT_EXPECT_TRUE(test, page_below(e[i]->page, MP_SIZE, MASK24));
		for (j = 0, found = 0; j < MP_MIN_NR; j++)
			found += e[i]->page == reserved[j];
		KUNIT_EXPECT_EQ_MSG(test, found, 1, "element %d is not a reserved one", i);
	}
	KUNIT_EXPECT_NULL(test, e[MP_MIN_NR]->page);
	KUNIT_EXPECT_EQ(test, mp->curr_nr, 0);
	/* Each mempool_alloc() asked the allocator first, and it failed. */
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), MP_MIN_NR + 1UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 0UL);
	KUNIT_EXPECT_EQ(test, s1.st.free_bytes, s0.st.free_bytes);
}

/*
 * The allocator failed on purpose (the pool itself has room): GFP_NOWAIT
 * mempool_alloc() falls back to exactly the min_nr reserved elements,
 * then returns NULL; each attempt asked the allocator first and was
 * failed.  Everything goes back: the pool is whole.
 */
static void mempool_injected_uses_reserve(struct kunit *test)
{
	struct page *reserved[MP_MIN_NR];
	struct mp_elem *e[MP_MIN_NR + 1];
	struct snap s0, s1, s2;
	mempool_t *mp;
	int i, j, found;

	set_force(test, true);
	take_snap(test, &s0);
	mp = mp_create(test, MP_MIN_NR, MP_SIZE, MASK24);
	KUNIT_ASSERT_EQ(test, mp->curr_nr, MP_MIN_NR);
	memcpy(reserved, mp->elements, sizeof(reserved));

	fail_arm(test, -1, 0, false);
	take_snap(test, &s1);
	for (i = 0; i <= MP_MIN_NR; i++)
		e[i] = mp_get(test, mp, GFP_NOWAIT);
	take_snap(test, &s2);
	for (i = 0; i < MP_MIN_NR; i++) {
		KUNIT_ASSERT_NOT_NULL_MSG(test, e[i]->page, "element %d", i);
		for (j = 0, found = 0; j < MP_MIN_NR; j++)
			found += e[i]->page == reserved[j];
		KUNIT_EXPECT_EQ_MSG(test, found, 1, "element %d is not a reserved one", i);
	}
	KUNIT_EXPECT_NULL(test, e[MP_MIN_NR]->page);
	KUNIT_EXPECT_EQ(test, mp->curr_nr, 0);
	KUNIT_EXPECT_EQ(test, s2.st.injected - s1.st.injected, MP_MIN_NR + 1UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s1, &s2, MASK_FAIL), MP_MIN_NR + 1UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s1, &s2, MASK_ALLOC), 0UL);
	KUNIT_EXPECT_EQ(test, s2.st.free_bytes, s1.st.free_bytes);
	KUNIT_EXPECT_GE(test, s2.st.free_bytes, (u64)MP_SIZE);

	/* Elements back into the reserve, the pool destroyed: whole again. */
	fail_disarm();
	for (i = 0; i <= MP_MIN_NR; i++)
		kunit_release_action(test, mp_elem_free, e[i]);
	KUNIT_EXPECT_EQ(test, mp->curr_nr, MP_MIN_NR);
	kunit_release_action(test, mempool_destroy_action, mp);
	take_snap(test, &s2);
	expect_same_pool(test, &s0, &s2);
}

struct mp_delayed_free {
	struct delayed_work work;
	mempool_t *mp;
	struct page *page;
};

static void mp_delayed_free_fn(struct work_struct *work)
{
	struct mp_delayed_free *df = container_of(to_delayed_work(work),
						  struct mp_delayed_free, work);

	mempool_free(df->page, df->mp);
}

static void mp_delayed_free_cancel(void *data)
{
	struct mp_delayed_free *df = data;

	if (cancel_delayed_work_sync(&df->work))
		mempool_free(df->page, df->mp);
}

/*
 * Reserve and pool exhausted: a sleeping mempool_alloc(GFP_KERNEL) blocks
 * until a delayed work frees an element, then returns that element.
 */
static void mempool_blocking_waits_for_free(struct kunit *test)
{
	unsigned long delay = max(HZ / 5, 2), start, took;
	struct mp_delayed_free *df;
	struct mp_elem *e[MP_MIN_NR], *got;
	mempool_t *mp;
	int i;

	set_force(test, true);
	set_timeout(test, HZ);
	mp = mp_create(test, MP_MIN_NR, MP_SIZE, MASK24);
	fill_pool(test, NOWAIT, MASK24);
	for (i = 0; i < MP_MIN_NR; i++) {
		e[i] = mp_get(test, mp, GFP_NOWAIT);
		KUNIT_ASSERT_NOT_NULL(test, e[i]->page);
	}
	KUNIT_ASSERT_EQ(test, mp->curr_nr, 0);

	df = kunit_kzalloc(test, sizeof(*df), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, df);
	INIT_DELAYED_WORK(&df->work, mp_delayed_free_fn);
	df->mp = mp;
	df->page = e[1]->page;
	e[1]->page = NULL;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mp_delayed_free_cancel, df), 0);

	start = jiffies;
	schedule_delayed_work(&df->work, delay);
	got = mp_get(test, mp, GFP_KERNEL);
	took = jiffies - start;
	KUNIT_ASSERT_NOT_NULL(test, got->page);
	KUNIT_EXPECT_PTR_EQ(test, got->page, df->page);
	KUNIT_EXPECT_TRUE(test, page_below(got->page, MP_SIZE, MASK24));
	/* It really waited for the free, and not for mempool's 5 s retry. */
	KUNIT_EXPECT_GE(test, took, delay - 1);
	KUNIT_EXPECT_LT(test, took, 5UL * HZ);
}

struct embedded_pool {
	unsigned long before;
	mempool_t pool;
	unsigned long after;
};

static void mempool_exit_action(void *data)
{
	mempool_exit(data);
}

/*
 * mempool_init_pool_pmask() on an embedded mempool_t with an odd mask:
 * 0x17ffffff is rounded down to DMA_BIT_MASK(28), and every element lies
 * below that, even from the zones.  mempool_exit() gives everything back.
 */
static void mempool_init_embedded_odd_mask(struct kunit *test)
{
	const u64 odd = 0x17ffffff;
	struct embedded_pool *ep;
	struct mp_elem *e[32];
	struct snap s0, s1;
	int i;

	ep = kunit_kzalloc(test, sizeof(*ep), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ep);
	ep->before = 0x1234;
	ep->after = 0x5678;
	take_snap(test, &s0);
	KUNIT_ASSERT_EQ(test, mempool_init_pool_pmask(&ep->pool, 2, MP_SIZE, odd), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mempool_exit_action, &ep->pool), 0);
	KUNIT_EXPECT_EQ(test, mempool_pmask_mask(ep->pool.pool_data), MASK28);
	KUNIT_EXPECT_EQ(test, mempool_pmask_size(ep->pool.pool_data), (size_t)MP_SIZE);
	KUNIT_EXPECT_EQ(test, ep->pool.curr_nr, 2);

	/* Zones first: a page between 256 and 384 MB must be refused. */
	for (i = 0; i < ARRAY_SIZE(e); i++) {
		e[i] = mp_get(test, &ep->pool, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, e[i]->page);
		KUNIT_EXPECT_TRUE_MSG(test, page_below(e[i]->page, MP_SIZE, MASK28),
				      "element at %pa",
				      &(phys_addr_t){ page_to_phys(e[i]->page) });
	}
	/* Elements back to the reserve or the allocator, then the reserve. */
	for (i = 0; i < ARRAY_SIZE(e); i++)
		kunit_release_action(test, mp_elem_free, e[i]);
	KUNIT_EXPECT_EQ(test, ep->pool.curr_nr, 2);
	kunit_release_action(test, mempool_exit_action, &ep->pool);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, ep->before, 0x1234UL);
	KUNIT_EXPECT_EQ(test, ep->after, 0x5678UL);
	expect_same_pool(test, &s0, &s1);
}

/* pool_data encodes the size and the mask rounded down to DMA_BIT_MASK(n). */
static void mempool_pmask_encoding(struct kunit *test)
{
	static const struct {
		u64 in;
		u64 out;
	} masks[] = {
		{ DMA_BIT_MASK(24), DMA_BIT_MASK(24) },
		{ 0x17ffffff, DMA_BIT_MASK(28) },
		{ 0x1000000, DMA_BIT_MASK(24) },
		{ 0x1fffffe, DMA_BIT_MASK(24) },
		{ DMA_BIT_MASK(32), DMA_BIT_MASK(32) },
		{ DMA_BIT_MASK(63), DMA_BIT_MASK(63) },
		{ U64_MAX - 1, DMA_BIT_MASK(63) },
		{ U64_MAX, U64_MAX },
	};
	static const size_t sizes[] = { 1, PAGE_SIZE, SIZE_12K, SZ_4M + 1 };
	void *data;
	int i, j;

	for (i = 0; i < ARRAY_SIZE(masks); i++) {
		for (j = 0; j < ARRAY_SIZE(sizes); j++) {
			data = mempool_pmask_data(sizes[j], masks[i].in);
			KUNIT_EXPECT_EQ_MSG(test, mempool_pmask_mask(data), masks[i].out,
					    "mask %#llx", masks[i].in);
			KUNIT_EXPECT_EQ(test, mempool_pmask_size(data), sizes[j]);
		}
	}
}

static struct kunit_case coherent_cases[] = {
	/* dma_alloc_coherent() below every mask, every size */
	KUNIT_CASE_PARAM(coherent_sizes, coh_gen_params),
	/* who serves what */
	KUNIT_CASE(coherent_28bit_uses_pool),
	KUNIT_CASE(coherent_28bit_zones_first),
	KUNIT_CASE_PARAM(coherent_wide_is_stock, wide_gen_params),
	/* dma_set_mask_and_coherent() */
	KUNIT_CASE(set_mask_range),
	KUNIT_CASE(coherent_21bit),
	/* exhaustion */
	KUNIT_CASE_PARAM(coherent_exhausted, narrow_gen_params),
	KUNIT_CASE(coherent_waiter_woken),
	KUNIT_CASE(coherent_injected_failure),
	/* other dma-direct paths */
	KUNIT_CASE(dma_pages_below_mask),
	KUNIT_CASE(dma_no_kernel_mapping),
	KUNIT_CASE(coherent_dma_window),
	/* counters */
	KUNIT_CASE_PARAM(coherent_counters, narrow_gen_params),
	/* mempools below a mask */
	KUNIT_CASE(mempool_reserve_and_destroy),
	KUNIT_CASE(mempool_elements_below_mask),
	KUNIT_CASE(mempool_nowait_uses_reserve),
	KUNIT_CASE(mempool_injected_uses_reserve),
	KUNIT_CASE(mempool_blocking_waits_for_free),
	KUNIT_CASE(mempool_init_embedded_odd_mask),
	KUNIT_CASE(mempool_pmask_encoding),
	{}
};

static struct kunit_suite coherent_suite = {
	.name = "mask_alloc_coherent",
	.suite_init = mask_alloc_kunit_suite_init,
	.test_cases = coherent_cases,
};

kunit_test_suite(coherent_suite);

MODULE_DESCRIPTION("KUnit test of coherent DMA and mempools below a DMA mask");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
