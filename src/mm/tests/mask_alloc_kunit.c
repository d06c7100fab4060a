// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the maskable DMA allocator (mm/mask_alloc.c).
 *
 * The suite runs at boot, after the pool has been handed over, and uses
 * the public API, mask_pool_get_stats(), the vm events and one test hook
 * (mask_pool_set_force()).  Placement, cursor, zeroing and exhaustion
 * cases first allocate every free pool page below 16 MB one at a time
 * ("fill"), which gives a pool whose state is known exactly: then they
 * free the few pages they need and check where the next allocation lands.
 *
 * Everything a case allocates is registered with kunit_add_action_or_reset()
 * before it is checked, so a failing case never leaks pool pages into the
 * next one.  Misuse cases print "vm-run: expect-warning:" first, because
 * the allocator reports misuse with WARN_ON_ONCE().
 *
 * The cases assume that nothing else allocates from the pool while the
 * suite runs, which holds at boot.
 */
#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/dmatlb.h>
#include <linux/gfp.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mask_alloc.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/page-flags.h>
#include <linux/panic.h>
#include <linux/pgalloc_tag.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>

#include "../mask_alloc_internal.h"
#include "mask_alloc_kunit.h"

#define MASK22		DMA_BIT_MASK(22)
#define MASK24		DMA_BIT_MASK(24)
#define MASK32		DMA_BIT_MASK(32)
#define EXPECT_WARNING	"vm-run: expect-warning: mm/mask_alloc\\.c\n"

/* ---- snapshots: pool statistics and the MASK_* vm events ---- */

/* Sums the per-CPU counters (all_vm_events()), also right on UP. */
static bool below(struct page *page, size_t size, u64 mask)
{
	return page_to_phys(page) + size - 1 <= mask;
}

/* ---- held allocations, freed by the cleanup if a case stops early ---- */

struct held {
	struct page *page;
	size_t size;	/* alloc_pages_mask() size, if order < 0 */
	int order;	/* >= 0: a page allocator allocation of this order */
};

static void held_free(void *data)
{
	struct held *h = data;

	if (!h->page)
		return;
	if (h->order >= 0)
		__free_pages(h->page, h->order);
	else
		__free_pages_mask(h->page, h->size);
	h->page = NULL;
}

static struct held *hold(struct kunit *test, struct page *page, size_t size,
			 int order)
{
	struct held *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	if (!h) {
		/* Give the page back before the assertion ends the case. */
		struct held tmp = { .page = page, .size = size, .order = order };

		held_free(&tmp);
	}
	KUNIT_ASSERT_NOT_NULL(test, h);
	h->page = page;
	h->size = size;
	h->order = order;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, held_free, h), 0);
	return h;
}

/* alloc_pages_mask(), held; h->page may be NULL. */
static struct held *hold_mask(struct kunit *test, gfp_t gfp, size_t size, u64 mask)
{
	return hold(test, alloc_pages_mask(gfp, size, mask), size, -1);
}

/* alloc_pages(), held; h->page may be NULL. */
static struct held *hold_pages(struct kunit *test, gfp_t gfp, unsigned int order)
{
	return hold(test, alloc_pages(gfp, order), 0, order);
}

/* The case freed the page itself, through the path under test. */
static void disarm(struct held *h)
{
	h->page = NULL;
}

/* ---- filling the pool ---- */

static int cmp_pfn_desc(const void *a, const void *b)
{
	unsigned long pa = page_to_pfn(*(struct page * const *)a);
	unsigned long pb = page_to_pfn(*(struct page * const *)b);

	return pa < pb ? 1 : pa > pb ? -1 : 0;
}

/*
 * Allocate single pages below @mask until the pool has none left (or @max
 * of them).  All must come from the pool.  Sorted by pfn, highest first.
 */
static struct pool_fill *fill_pool_max(struct kunit *test, u64 mask, unsigned long max)
{
	struct mask_pool_stats st;
	struct pool_fill *f;
	unsigned long cap, i, foreign = 0;
	struct page *page;

	mask_pool_get_stats(&st);
	cap = min(max, st.free_pages + 64);
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->pages = kunit_kcalloc(test, cap + 1, sizeof(*f->pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->pages);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fill_release, f), 0);

	while (f->nr < cap) {
		page = alloc_pages_mask(NOWAIT, PAGE_SIZE, mask);
		if (!page)
			break;
		f->pages[f->nr++] = page;
	}
	for (i = 0; i < f->nr; i++)
		if (!mask_pool_page(f->pages[i]) || !below(f->pages[i], PAGE_SIZE, mask))
			foreign++;
	KUNIT_ASSERT_EQ_MSG(test, foreign, 0UL, "pages not from the pool below %#llx", mask);
	if (max == ULONG_MAX)
		KUNIT_ASSERT_LT_MSG(test, f->nr, cap, "the pool kept growing while filled");
	sort(f->pages, f->nr, sizeof(*f->pages), cmp_pfn_desc, NULL);
	return f;
}

static struct pool_fill *fill_pool(struct kunit *test)
{
	struct pool_fill *f = fill_pool_max(test, MASK24, ULONG_MAX);

	/* The cursor cases need some room. */
	KUNIT_ASSERT_GE(test, f->nr, 64UL);
	return f;
}

/* Free slot @i of the fill: that page becomes free in the pool. */
static struct page *fill_free(struct pool_fill *f, unsigned long i)
{
	struct page *page = f->pages[i];

	__free_pages_mask(page, PAGE_SIZE);
	f->pages[i] = NULL;
	return page;
}

/* Allocate one page below @mask into the empty slot @i. */
static struct page *fill_alloc(struct pool_fill *f, unsigned long i, gfp_t gfp, u64 mask)
{
	f->pages[i] = alloc_pages_mask(gfp, PAGE_SIZE, mask);
	return f->pages[i];
}

/* Index of the higher page of a pair pages[i] == pages[i + 1] + 1, lower pfn aligned. */
static unsigned long fill_find_pair(struct kunit *test, struct pool_fill *f,
				    unsigned long align)
{
	unsigned long i, lo;

	for (i = 1; i + 1 < f->nr; i++) {
		lo = page_to_pfn(f->pages[i + 1]);
		if (page_to_pfn(f->pages[i]) == lo + 1 && !(lo & (align - 1)))
			return i;
	}
	KUNIT_FAIL_AND_ABORT(test, "no two adjacent free pool pages");
	return 0;
}

/*
 * Move the cursor next to slot @i: free that page and allocate it again.
 * It is the only free page, so it must come back, and the cursor is left
 * just below it.
 */
static void fill_park_cursor(struct kunit *test, struct pool_fill *f, unsigned long i)
{
	struct page *page = fill_free(f, i);

	KUNIT_ASSERT_PTR_EQ(test, fill_alloc(f, i, NOWAIT, MASK24), page);
}

/* ---- settings restored by cleanup actions ---- */

/* ==== the pool and its counters ==== */

/*
 * The pool is live and its statistics add up.  By default it lies below
 * 16 MB; when dmatlb grew it for swiotlb (memory above 4 GB), below 4 GB.
 */
static void pool_stats_consistent(struct kunit *test)
{
	struct dmatlb_stats bounce;
	struct mask_pool_stats st;

	KUNIT_ASSERT_TRUE(test, mask_pool_enabled());
	mask_pool_get_stats(&st);
	KUNIT_EXPECT_GT(test, st.pool_pages, 0UL);
	KUNIT_EXPECT_EQ(test, st.pool_bytes, (u64)st.pool_pages << PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, st.free_bytes, (u64)st.free_pages << PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, st.used_bytes + st.free_bytes, st.pool_bytes);
	KUNIT_EXPECT_LE(test, st.largest_free_bytes, st.free_bytes);
	KUNIT_EXPECT_LT(test, st.lowest_addr, st.highest_addr);
	dmatlb_get_stats(&bounce);
	if (bounce.grown_bytes)
		KUNIT_EXPECT_LE(test, st.highest_addr, DMA_BIT_MASK(32));
	else
		KUNIT_EXPECT_LE(test, st.highest_addr, MASK24);
	KUNIT_EXPECT_EQ(test, st.highest_addr & ~PAGE_MASK, PAGE_SIZE - 1);
	KUNIT_EXPECT_EQ(test, st.lowest_addr & ~PAGE_MASK, 0ULL);
	KUNIT_EXPECT_FALSE(test, st.force);
	KUNIT_EXPECT_EQ(test, st.timeout_ms, jiffies_to_msecs(READ_ONCE(mask_timeout)));
	KUNIT_EXPECT_TRUE(test, mask_pool_page(pfn_to_page(PHYS_PFN(st.lowest_addr))));
	KUNIT_EXPECT_TRUE(test, mask_pool_page(pfn_to_page(PHYS_PFN(st.highest_addr))));
}

/* The pool replaces ZONE_DMA: no populated zone is called "DMA". */
static void no_dma_zone(struct kunit *test)
{
	struct zone *zone;
	int dma = 0;

	for_each_populated_zone(zone)
		if (!strcmp(zone->name, "DMA"))
			dma++;
	KUNIT_EXPECT_EQ(test, dma, 0);
}

/* vmstat_text[] and enum vm_event_item agree on every MASK_* event. */
static void vm_event_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, vm_event_name(MASK_ALLOC), "mask_alloc");
	KUNIT_EXPECT_STREQ(test, vm_event_name(MASK_FREE), "mask_free");
	KUNIT_EXPECT_STREQ(test, vm_event_name(MASK_BITMAP_SKIP), "mask_bitmap_skip");
	KUNIT_EXPECT_STREQ(test, vm_event_name(MASK_WAIT), "mask_wait");
	KUNIT_EXPECT_STREQ(test, vm_event_name(MASK_HIGHER), "mask_higher");
	KUNIT_EXPECT_STREQ(test, vm_event_name(MASK_LOW_WASTE), "mask_low_waste");
	KUNIT_EXPECT_STREQ(test, vm_event_name(MASK_HIGH_WASTE), "mask_high_waste");
	KUNIT_EXPECT_STREQ(test, vm_event_name(MASK_FAIL), "mask_fail");
#ifdef CONFIG_SWIOTLB_MASK_ALLOC
	KUNIT_EXPECT_STREQ(test, vm_event_name(SWIOTLB_USED_PAGES), "swiotlb_used_pages");
	KUNIT_EXPECT_STREQ(test, vm_event_name(SWIOTLB_BYTES_WASTED), "swiotlb_bytes_wasted");
	KUNIT_EXPECT_STREQ(test, vm_event_name(SWIOTLB_NUM_ALLOCS), "swiotlb_num_allocs");
	KUNIT_EXPECT_STREQ(test, vm_event_name(SWIOTLB_NUM_FREES), "swiotlb_num_frees");
	KUNIT_EXPECT_EQ(test, (int)SWIOTLB_NUM_FREES + 1, (int)NR_VM_EVENT_ITEMS);
#else
	KUNIT_EXPECT_EQ(test, (int)MASK_FAIL + 1, (int)NR_VM_EVENT_ITEMS);
#endif
}

/* mask_alloc and mask_free count pool allocations and frees, not zone ones. */
static void events_count_pool_only(struct kunit *test)
{
	struct held *a, *b, *c, *z;
	struct snap s0, s1, s2;

	take_snap(test, &s0);
	a = hold_mask(test, GFP_KERNEL, PAGE_SIZE, MASK24);
	b = hold_mask(test, GFP_KERNEL, 5 * PAGE_SIZE, MASK24);
	c = hold_pages(test, GFP_KERNEL | GFP_DMA, 1);
	z = hold_mask(test, GFP_KERNEL, PAGE_SIZE, MASK32);
	KUNIT_ASSERT_NOT_NULL(test, a->page);
	KUNIT_ASSERT_NOT_NULL(test, b->page);
	KUNIT_ASSERT_NOT_NULL(test, c->page);
	KUNIT_ASSERT_NOT_NULL(test, z->page);
	take_snap(test, &s1);
	held_free(a);
	held_free(b);
	held_free(c);
	held_free(z);
	take_snap(test, &s2);

	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 3UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FREE), 0UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGHER), 1UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s1, &s2, MASK_FREE), 3UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s1, &s2, MASK_ALLOC), 0UL);
	KUNIT_EXPECT_EQ(test, s2.st.free_bytes, s0.st.free_bytes);
}

/* ==== maskzone= parser ==== */

struct parse_case {
	const char *in;
	int ret;
	u64 size;
	bool force;
};

static const struct parse_case parse_cases[] = {
	{ "",		-EINVAL },
	{ NULL,		-EINVAL },
	{ "16M",	0, SZ_16M, false },
	{ "force",	0, 0, true },
	{ "16M,force",	0, SZ_16M, true },
	{ "force,16M",	0, SZ_16M, true },
	{ "junk",	-EINVAL },
	{ "0",		-EINVAL },
	{ "99999G",	-EINVAL },
	{ "18446744073709551617", -EINVAL },
	{ "1T",		-EINVAL },
	{ "4194304K",	0, SZ_4G, false },
	{ "16M,",	-EINVAL },
	{ ",force",	-EINVAL },
	{ "1G",		0, SZ_1G, false },
	{ "4G",		0, SZ_4G, false },
	{ "4097M",	-EINVAL },
	{ "force,force", -EINVAL },
	{ "16M,32M",	-EINVAL },
	{ "forced",	-EINVAL },
	{ "16Mx",	-EINVAL },
	{ "64k",	0, SZ_64K, false },
};

static void parse_case_desc(const struct parse_case *c, char *desc)
{
	if (c->in)
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->in);
	else
		strscpy(desc, "NULL", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(maskzone, parse_cases, parse_case_desc);

/* mask_zone_parse() returns what the table says, and on error touches nothing. */
static void maskzone_parse(struct kunit *test)
{
	const struct parse_case *c = test->param_value;
	u64 size = 0x5a5a;
	bool force = !c->force;
	bool force_in = force;

	KUNIT_EXPECT_EQ(test, mask_zone_parse(c->in, &size, &force), c->ret);
	if (c->ret) {
		KUNIT_EXPECT_EQ(test, size, 0x5a5aULL);
		KUNIT_EXPECT_EQ(test, force, force_in);
	} else {
		KUNIT_EXPECT_EQ(test, size, c->size);
		KUNIT_EXPECT_EQ(test, force, c->force);
	}
}

/* ==== placement ==== */

/* With a 24-bit mask the normal zones cannot help: the pool serves it. */
static void mask24_from_pool(struct kunit *test)
{
	struct snap s0, s1;
	struct held *h;

	take_snap(test, &s0);
	h = hold_mask(test, GFP_KERNEL, 3 * PAGE_SIZE, MASK24);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	take_snap(test, &s1);
	KUNIT_EXPECT_TRUE(test, mask_pool_page(h->page));
	KUNIT_EXPECT_TRUE(test, below(h->page, 3 * PAGE_SIZE, MASK24));
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 1UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGHER), 0UL);
	KUNIT_EXPECT_EQ(test, s1.st.used_bytes - s0.st.used_bytes, 3 * PAGE_SIZE);
}

/* A pool run is not compound: the first page holds the only reference. */
static void pool_run_refcounts(struct kunit *test)
{
	struct held *h = hold_mask(test, GFP_KERNEL, 3 * PAGE_SIZE, MASK24);

	KUNIT_ASSERT_NOT_NULL(test, h->page);
	KUNIT_EXPECT_EQ(test, page_count(h->page), 1);
	KUNIT_EXPECT_EQ(test, page_count(h->page + 1), 0);
	KUNIT_EXPECT_EQ(test, page_count(h->page + 2), 0);
	KUNIT_EXPECT_FALSE(test, PageCompound(h->page));
}

/* A block that ends exactly at the mask is placed there. */
static void block_ending_at_mask(struct kunit *test)
{
	struct pool_fill *f = fill_pool(test);
	unsigned long i = fill_find_pair(test, f, 1), x;
	struct held *h;

	fill_free(f, i);
	x = page_to_pfn(fill_free(f, i + 1));
	/* Only pfns x and x + 1 are free: a 2-page block ends at the mask. */
	h = hold_mask(test, NOWAIT, 2 * PAGE_SIZE, PFN_PHYS(x + 2) - 1);
	KUNIT_EXPECT_PTR_EQ(test, h->page, pfn_to_page(x));
	held_free(h);
	/* Not page sized: the pool still needs whole pages below the mask. */
	h = hold_mask(test, NOWAIT, PAGE_SIZE + 100, PFN_PHYS(x + 2) - 1);
	KUNIT_EXPECT_PTR_EQ(test, h->page, pfn_to_page(x));
	held_free(h);
	/* One page that ends exactly at the mask. */
	h = hold_mask(test, NOWAIT, PAGE_SIZE, PFN_PHYS(x + 1) - 1);
	KUNIT_EXPECT_PTR_EQ(test, h->page, pfn_to_page(x));
}

/* A block that would end one page (or one byte) over the mask is not placed there. */
static void block_over_mask(struct kunit *test)
{
	struct pool_fill *f = fill_pool(test);
	unsigned long i = fill_find_pair(test, f, 1), x;
	struct snap s0, s1;
	struct held *h;

	fill_free(f, i);
	x = page_to_pfn(fill_free(f, i + 1));
	take_snap(test, &s0);
	h = hold_mask(test, NOWAIT, 2 * PAGE_SIZE, PFN_PHYS(x + 1) - 1);
	KUNIT_EXPECT_NULL(test, h->page);
	h = hold_mask(test, NOWAIT, 2 * PAGE_SIZE, PFN_PHYS(x + 2) - 2);
	KUNIT_EXPECT_NULL(test, h->page);
	h = hold_mask(test, NOWAIT, PAGE_SIZE, PFN_PHYS(x + 1) - 2);
	KUNIT_EXPECT_NULL(test, h->page);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), 3UL);
	KUNIT_EXPECT_EQ(test, s1.st.free_pages, s0.st.free_pages);
}

/* A mask below the whole pool fails at once, even for a caller that may wait. */
static void mask_below_pool(struct kunit *test)
{
	struct mask_pool_stats st;
	struct snap s0, s1;
	unsigned long start;
	struct held *h;

	mask_pool_get_stats(&st);
	if (st.lowest_addr < PAGE_SIZE)
		kunit_skip(test, "the pool starts at page 0");
	set_timeout(test, 10 * HZ);
	take_snap(test, &s0);
	start = jiffies;
	h = hold_mask(test, GFP_KERNEL | __GFP_NOWARN, PAGE_SIZE, st.lowest_addr - 1);
	KUNIT_EXPECT_NULL(test, h->page);
	KUNIT_EXPECT_LT(test, jiffies - start, (unsigned long)HZ);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_WAIT), 0UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), 1UL);
}

/* A request larger than the pool fails at once, even for a caller that may wait. */
static void larger_than_pool(struct kunit *test)
{
	struct mask_pool_stats st;
	struct snap s0, s1;
	unsigned long start;
	struct held *h;

	mask_pool_get_stats(&st);
	set_timeout(test, 10 * HZ);
	take_snap(test, &s0);
	start = jiffies;
	h = hold_mask(test, GFP_KERNEL | __GFP_NOWARN, st.pool_bytes + PAGE_SIZE, MASK24);
	KUNIT_EXPECT_NULL(test, h->page);
	KUNIT_EXPECT_LT(test, jiffies - start, (unsigned long)HZ);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_WAIT), 0UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), 1UL);
}

/*
 * With the cursor out of the way, the first allocation under a mask takes
 * the highest free page below it.
 */
static void top_down_placement(struct kunit *test)
{
	struct pool_fill *f = fill_pool(test);
	unsigned long m = f->nr / 2;
	struct page *top, *mid, *page;

	/* Cursor in the lower half of every mask's range: it is ignored. */
	fill_park_cursor(test, f, f->nr - 2);
	top = fill_free(f, 0);

	/* The highest free page below 16 MB... */
	page = fill_alloc(f, 0, NOWAIT, MASK24);
	KUNIT_EXPECT_PTR_EQ(test, page, top);
	/* ...and, under a mask that ends at "mid", the highest below that. */
	fill_park_cursor(test, f, f->nr - 2);
	mid = fill_free(f, m);
	fill_free(f, m + 1);
	page = fill_alloc(f, m, NOWAIT, PFN_PHYS(page_to_pfn(mid) + 1) - 1);
	KUNIT_EXPECT_PTR_EQ(test, page, mid);
}

/*
 * The cursor rotates: after an allocation, the next one continues below it
 * instead of reusing the page just freed above it, and wraps to the top of
 * the range when nothing is left below.
 */
static void cursor_rotation(struct kunit *test)
{
	struct pool_fill *f = fill_pool(test);
	struct page *h1, *h2, *h3, *page;

	fill_park_cursor(test, f, f->nr - 2);
	h1 = fill_free(f, 0);
	h2 = fill_free(f, 1);
	h3 = fill_free(f, 2);

	page = fill_alloc(f, 0, NOWAIT, MASK24);
	KUNIT_ASSERT_PTR_EQ(test, page, h1);
	fill_free(f, 0);
	/* h1 is free again, but the cursor has moved below it. */
	KUNIT_EXPECT_PTR_EQ(test, fill_alloc(f, 1, NOWAIT, MASK24), h2);
	KUNIT_EXPECT_PTR_EQ(test, fill_alloc(f, 2, NOWAIT, MASK24), h3);
	/* Nothing free below the cursor: back to the top. */
	KUNIT_EXPECT_PTR_EQ(test, fill_alloc(f, 0, NOWAIT, MASK24), h1);
}

/* The cursor is used only while it lies in the upper half of the mask's range. */
static void cursor_upper_half_rule(struct kunit *test)
{
	struct pool_fill *f = fill_pool(test);
	unsigned long u = f->nr / 8, l = f->nr - 2;
	struct page *top, *next;

	/* Cursor in the upper half, just above "next": it is used. */
	fill_park_cursor(test, f, u);
	top = fill_free(f, 0);
	next = fill_free(f, u + 1);
	KUNIT_EXPECT_PTR_EQ(test, fill_alloc(f, u + 1, NOWAIT, MASK24), next);
	KUNIT_EXPECT_PTR_EQ(test, fill_alloc(f, 0, NOWAIT, MASK24), top);

	/* Cursor in the lower half, just above "next": ignored, top first. */
	fill_park_cursor(test, f, l);
	top = fill_free(f, 0);
	next = fill_free(f, l + 1);
	KUNIT_EXPECT_PTR_EQ(test, fill_alloc(f, 0, NOWAIT, MASK24), top);
	KUNIT_EXPECT_PTR_EQ(test, fill_alloc(f, l + 1, NOWAIT, MASK24), next);
}

/*
 * Wide masks take the highest memory first, so a narrow (22-bit) mask is
 * still served after wide (24-bit) allocations took everything above 4 MB.
 * (x86 keeps the first 1 MB for itself, so the pool starts at 1 MB.)
 */
static void narrow_after_wide(struct kunit *test)
{
	struct pool_fill *narrow, *wide;
	unsigned long n20, n24, i, low = 0;
	struct held *h;

	narrow = fill_pool_max(test, MASK22, ULONG_MAX);
	n20 = narrow->nr;
	fill_release(narrow);
	wide = fill_pool_max(test, MASK24, ULONG_MAX);
	n24 = wide->nr;
	fill_release(wide);
	if (!n20)
		kunit_skip(test, "no pool memory below 4 MB");
	KUNIT_ASSERT_GT(test, n24, n20);

	wide = fill_pool_max(test, MASK24, n24 - n20);
	KUNIT_ASSERT_EQ(test, wide->nr, n24 - n20);
	for (i = 0; i < wide->nr; i++)
		if (below(wide->pages[i], PAGE_SIZE, MASK22))
			low++;
	KUNIT_EXPECT_EQ(test, low, 0UL);
	h = hold_mask(test, NOWAIT, PAGE_SIZE, MASK22);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	KUNIT_EXPECT_TRUE(test, below(h->page, PAGE_SIZE, MASK22));
}

/* GFP_DMA runs of order n are naturally aligned, like buddy pages. */
static void gfp_dma_runs_aligned(struct kunit *test)
{
	unsigned int order;
	struct held *h;

	for (order = 0; order <= 4; order++) {
		h = hold_pages(test, GFP_KERNEL | GFP_DMA, order);
		KUNIT_ASSERT_NOT_NULL(test, h->page);
		KUNIT_EXPECT_EQ(test, page_to_pfn(h->page) & ((1UL << order) - 1), 0UL);
	}
}

/* ==== sizes and waste ==== */

/* 12 KiB uses three pages, not four: sizes are rounded to pages only. */
static void size_rounded_to_pages(struct kunit *test)
{
	struct snap s0, s1;
	struct held *h;

	take_snap(test, &s0);
	h = hold_mask(test, GFP_KERNEL, SZ_8K + SZ_4K, MASK24);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, s1.st.used_bytes - s0.st.used_bytes, 3 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, s0.st.free_bytes - s1.st.free_bytes, 3 * PAGE_SIZE);
	held_free(h);

	take_snap(test, &s0);
	h = hold_mask(test, GFP_KERNEL, 5 * PAGE_SIZE + 1, MASK24);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, s1.st.used_bytes - s0.st.used_bytes, 6 * PAGE_SIZE);
	held_free(h);

	take_snap(test, &s0);
	h = hold_mask(test, GFP_KERNEL, MASK_MIN_SIZE, MASK24);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, s1.st.used_bytes - s0.st.used_bytes, PAGE_SIZE);
}

/* mask_low_waste grows by pages * PAGE_SIZE - size for pool allocations. */
static void low_waste_counted(struct kunit *test)
{
	struct snap s0, s1;
	struct held *h;

	take_snap(test, &s0);
	h = hold_mask(test, GFP_KERNEL, 2 * PAGE_SIZE + 100, MASK24);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_LOW_WASTE), PAGE_SIZE - 100);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGH_WASTE), 0UL);

	take_snap(test, &s0);
	h = hold_mask(test, GFP_KERNEL, 4 * PAGE_SIZE, MASK24);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_LOW_WASTE), 0UL);
}

/* mask_high_waste grows by (PAGE_SIZE << order) - size for zone allocations. */
static void high_waste_counted(struct kunit *test)
{
	struct snap s0, s1;
	struct held *h;

	take_snap(test, &s0);
	h = hold_mask(test, GFP_KERNEL, 3 * PAGE_SIZE, MASK32);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGHER), 1UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGH_WASTE), PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_LOW_WASTE), 0UL);

	take_snap(test, &s0);
	h = hold_mask(test, GFP_KERNEL, 100, MASK32);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGH_WASTE), PAGE_SIZE - 100);
}

/* ==== the normal zones ==== */

/*
 * A mask that covers all of low memory (32 bits) is served by the normal
 * zones, and the pool is never touched.
 */
static void zones_serve_wide_mask(struct kunit *test)
{
	struct snap s0, s1;
	struct held *h;
	int i;

	take_snap(test, &s0);
	for (i = 0; i < 8; i++) {
		h = hold_mask(test, GFP_KERNEL, (i + 1) * PAGE_SIZE, MASK32);
		KUNIT_ASSERT_NOT_NULL(test, h->page);
		KUNIT_EXPECT_FALSE(test, mask_pool_page(h->page));
		KUNIT_EXPECT_TRUE(test, below(h->page, (i + 1) * PAGE_SIZE, MASK32));
	}
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGHER), 8UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 0UL);
	KUNIT_EXPECT_EQ(test, s1.st.free_bytes, s0.st.free_bytes);
}

/* Even with the pool full, a 32-bit mask never takes pool pages. */
static void wide_mask_never_pool(struct kunit *test)
{
	struct snap s0, s1;
	struct held *h;

	fill_pool(test);
	take_snap(test, &s0);
	h = hold_mask(test, NOWAIT, PAGE_SIZE, MASK32);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	KUNIT_EXPECT_FALSE(test, mask_pool_page(h->page));
	h = hold_mask(test, NOWAIT, PAGE_SIZE, DMA_BIT_MASK(64));
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	KUNIT_EXPECT_FALSE(test, mask_pool_page(h->page));
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGHER), 2UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 0UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), 0UL);
}

/* A 31-bit mask is always honoured, by the zones or by the pool. */
static void mask31_below_mask(struct kunit *test)
{
	struct held *h;
	int i;

	for (i = 0; i < 16; i++) {
		h = hold_mask(test, GFP_KERNEL, 2 * PAGE_SIZE, DMA_BIT_MASK(31));
		KUNIT_ASSERT_NOT_NULL(test, h->page);
		KUNIT_EXPECT_TRUE(test, below(h->page, 2 * PAGE_SIZE, DMA_BIT_MASK(31)));
	}
}

/*
 * A mask above 4 GiB but below the top of memory: ZONE_NORMAL hands out
 * pages above it, but all of ZONE_DMA32 lies below it, so the zones still
 * serve it and the pool is left alone.  Take three times more than there
 * is between 4 GiB and the mask, and more than the whole pool.
 */
static void mask_between_4g_and_top(struct kunit *test)
{
	u64 mask = SZ_4G + SZ_32M - 1;
	struct held *h;
	int i;

	if (PFN_PHYS((u64)max_pfn) <= mask + 1)
		kunit_skip(test, "no memory above %#llx", mask);
	for (i = 0; i < 3 * SZ_32M / SZ_2M; i++) {
		h = hold_mask(test, GFP_KERNEL | __GFP_NOWARN, SZ_2M, mask);
		KUNIT_ASSERT_NOT_NULL_MSG(test, h->page, "allocation %d failed", i);
		KUNIT_EXPECT_TRUE(test, below(h->page, SZ_2M, mask));
		KUNIT_EXPECT_FALSE(test, mask_pool_page(h->page));
	}
}

/*
 * A failure of the zones is final for a mask that covers all of memory
 * (max_low_pfn is max_pfn on x86_64): the pool is not tried even when the
 * zones cannot serve the size, and the failure is counted.
 */
static void wide_mask_failure_counted(struct kunit *test)
{
	struct snap s0, s1;
	struct held *h;

	take_snap(test, &s0);
	h = hold_mask(test, GFP_KERNEL | __GFP_NOWARN,
		      (PAGE_SIZE << MAX_PAGE_ORDER) + PAGE_SIZE, DMA_BIT_MASK(64));
	KUNIT_EXPECT_NULL(test, h->page);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), 1UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 0UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_WAIT), 0UL);
	KUNIT_EXPECT_EQ(test, s1.st.free_bytes, s0.st.free_bytes);
}

/* "force" skips the normal zones: even a 32-bit mask is served by the pool. */
static void force_uses_pool(struct kunit *test)
{
	struct mask_pool_stats st;
	struct snap s0, s1;
	struct held *h;

	set_force(test, true);
	mask_pool_get_stats(&st);
	KUNIT_EXPECT_TRUE(test, st.force);
	take_snap(test, &s0);
	h = hold_mask(test, GFP_KERNEL, 2 * PAGE_SIZE, MASK32);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	KUNIT_EXPECT_TRUE(test, mask_pool_page(h->page));
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 1UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGHER), 0UL);
	KUNIT_EXPECT_EQ(test, s0.st.free_bytes - s1.st.free_bytes, 2 * PAGE_SIZE);

	/* Off again: back to the zones. */
	mask_pool_set_force(false);
	h = hold_mask(test, GFP_KERNEL, PAGE_SIZE, MASK32);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	KUNIT_EXPECT_FALSE(test, mask_pool_page(h->page));
}

/* ==== zeroing ==== */

/* __GFP_ZERO zeroes a pool run that was dirty when it was freed. */
static void gfp_zero_pool(struct kunit *test)
{
	struct pool_fill *f = fill_pool(test);
	unsigned long i = fill_find_pair(test, f, 1);
	struct page *lo = f->pages[i + 1];
	struct held *h;

	memset(page_address(f->pages[i]), 0xa5, PAGE_SIZE);
	memset(page_address(lo), 0x5a, PAGE_SIZE);
	fill_free(f, i);
	fill_free(f, i + 1);
	h = hold_mask(test, NOWAIT | __GFP_ZERO, 2 * PAGE_SIZE, MASK24);
	KUNIT_ASSERT_PTR_EQ(test, h->page, lo);
	KUNIT_EXPECT_NULL(test, memchr_inv(page_address(lo), 0, 2 * PAGE_SIZE));
}

/* GFP_DMA | __GFP_ZERO from the page allocator zeroes pool pages too. */
static void gfp_zero_compat(struct kunit *test)
{
	struct pool_fill *f = fill_pool(test);
	unsigned long i = fill_find_pair(test, f, 2);
	struct page *lo = f->pages[i + 1];
	struct held *h;

	memset(page_address(f->pages[i]), 0xa5, PAGE_SIZE);
	memset(page_address(lo), 0x5a, PAGE_SIZE);
	fill_free(f, i);
	fill_free(f, i + 1);
	h = hold_pages(test, GFP_NOWAIT | __GFP_NOWARN | GFP_DMA | __GFP_ZERO, 1);
	KUNIT_ASSERT_PTR_EQ(test, h->page, lo);
	KUNIT_EXPECT_NULL(test, memchr_inv(page_address(lo), 0, 2 * PAGE_SIZE));
}

/* ==== exhaustion and waiting ==== */

static void exhausted_no_wait(struct kunit *test, gfp_t gfp)
{
	struct snap s0, s1;
	unsigned long start;
	struct held *h;

	fill_pool(test);
	set_timeout(test, 10 * HZ);
	take_snap(test, &s0);
	start = jiffies;
	h = hold_mask(test, gfp | __GFP_NOWARN, PAGE_SIZE, MASK24);
	KUNIT_EXPECT_NULL(test, h->page);
	KUNIT_EXPECT_LT(test, jiffies - start, (unsigned long)HZ);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), 1UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_WAIT), 0UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 0UL);
	KUNIT_EXPECT_EQ(test, s1.st.misuse, s0.st.misuse);
}

/* Pool full, GFP_NOWAIT: NULL at once, counted as a failure. */
static void exhausted_nowait(struct kunit *test)
{
	exhausted_no_wait(test, GFP_NOWAIT);
}

/* Pool full, GFP_ATOMIC: NULL at once, counted as a failure. */
static void exhausted_atomic(struct kunit *test)
{
	exhausted_no_wait(test, GFP_ATOMIC);
}

/* Pool full, GFP_KERNEL | __GFP_NORETRY: no waiting either. */
static void exhausted_noretry(struct kunit *test)
{
	exhausted_no_wait(test, GFP_KERNEL | __GFP_NORETRY);
}

/* Pool full, GFP_DMA page allocation without waiting: NULL, counted. */
static void exhausted_gfp_dma(struct kunit *test)
{
	struct snap s0, s1;
	struct held *h;

	fill_pool(test);
	take_snap(test, &s0);
	h = hold_pages(test, GFP_NOWAIT | __GFP_NOWARN | GFP_DMA, 0);
	KUNIT_EXPECT_NULL(test, h->page);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), 1UL);
}

/* Pool full, GFP_KERNEL: waits mask_timeout jiffies, then fails. */
static void exhausted_wait_bounded(struct kunit *test)
{
	unsigned long timeout = max(HZ / 10, 2), start, took;
	struct snap s0, s1;
	struct held *h;

	fill_pool(test);
	set_timeout(test, timeout);
	take_snap(test, &s0);
	start = jiffies;
	h = hold_mask(test, GFP_KERNEL | __GFP_NOWARN, PAGE_SIZE, MASK24);
	took = jiffies - start;
	KUNIT_EXPECT_NULL(test, h->page);
	take_snap(test, &s1);
	KUNIT_EXPECT_GE(test, took, timeout);
	KUNIT_EXPECT_LT(test, took, timeout + 2 * HZ);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_WAIT), timeout);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), 1UL);
}

/**
 * struct churn - frees and takes back one page of a full pool every jiffy
 * @timer: runs churn_fn()
 * @f: the fill; slot 0 is the page that goes and comes back
 * @left: rounds to go; the timer stops at 0 or when the page is lost
 * @rounds: rounds done
 */
struct churn {
	struct timer_list timer;
	struct pool_fill *f;
	unsigned long left;
	unsigned long rounds;
};

static void churn_fn(struct timer_list *timer)
{
	struct churn *c = from_timer(c, timer, timer);

	fill_free(c->f, 0);
	c->rounds++;
	if (fill_alloc(c->f, 0, GFP_ATOMIC | __GFP_NOWARN, MASK24) && --c->left)
		mod_timer(&c->timer, jiffies + 1);
}

static void churn_stop(void *data)
{
	struct churn *c = data;

	timer_shutdown_sync(&c->timer);
}

/*
 * Pool full, GFP_KERNEL for two pages while one page is freed and taken
 * back every jiffy: each free wakes the waiter, none lets it fit, and it
 * must still fail after mask_timeout.  (It once kept a last jiffy
 * forever: wait_event_timeout() returns at least 1 when woken.)
 */
static void exhausted_wait_bounded_churn(struct kunit *test)
{
	unsigned long timeout = max(HZ / 10, 2), start, took;
	struct pool_fill *f = fill_pool(test);
	struct churn *c;
	struct held *h;

	set_timeout(test, timeout);
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->f = f;
	c->left = 10 * HZ;	/* without the bound, the case takes this long */
	timer_setup(&c->timer, churn_fn, 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, churn_stop, c), 0);

	start = jiffies;
	mod_timer(&c->timer, jiffies + 1);
	h = hold_mask(test, GFP_KERNEL | __GFP_NOWARN, 2 * PAGE_SIZE, MASK24);
	took = jiffies - start;
	churn_stop(c);
	KUNIT_EXPECT_NULL(test, h->page);
	KUNIT_EXPECT_GT(test, c->rounds, 0UL);
	KUNIT_EXPECT_GE(test, took, timeout);
	KUNIT_EXPECT_LT(test, took, timeout + HZ);
}

/* A blocked allocation is woken by a free, long before the timeout. */
static void waiter_woken_by_free(struct kunit *test)
{
	struct pool_fill *f = fill_pool(test);
	unsigned long start, took;
	struct delayed_free *df;
	struct snap s0, s1;
	struct page *page;

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
	page = fill_alloc(f, 0, GFP_KERNEL, MASK24);
	took = jiffies - start;
	take_snap(test, &s1);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_PTR_EQ(test, page, df->page);
	KUNIT_EXPECT_LT(test, took, 20UL * HZ);
	KUNIT_EXPECT_GT(test, ev_delta(&s0, &s1, MASK_WAIT), 0UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FAIL), 0UL);
}

/* ==== misuse: counted, warned about once, and nothing changes ==== */

static void misuse_begin(struct kunit *test, struct snap *s)
{
	pr_info(EXPECT_WARNING);
	take_snap(test, s);
}

static void misuse_end(struct kunit *test, const struct snap *s0)
{
	struct snap s1;
	int i;

	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, s1.st.misuse, s0->st.misuse + 1);
	KUNIT_EXPECT_EQ(test, s1.st.free_pages, s0->st.free_pages);
	KUNIT_EXPECT_EQ(test, s1.st.used_bytes, s0->st.used_bytes);
	KUNIT_EXPECT_EQ(test, s1.st.largest_free_bytes, s0->st.largest_free_bytes);
	for (i = 0; i < NR_MASK_EVENTS; i++)
		KUNIT_EXPECT_EQ_MSG(test, s1.ev[i], s0->ev[i], "%s changed",
				    vm_event_name(MASK_ALLOC + i));
	/* WARN_ON_ONCE() fired the first time (WARN is a no-op without BUG). */
	if (IS_ENABLED(CONFIG_BUG))
		KUNIT_EXPECT_TRUE(test, test_taint(TAINT_WARN));
}

static void misuse_alloc(struct kunit *test, gfp_t gfp, size_t size)
{
	struct snap s0;
	struct held *h;

	misuse_begin(test, &s0);
	h = hold_mask(test, gfp, size, MASK24);
	KUNIT_EXPECT_NULL(test, h->page);
	misuse_end(test, &s0);
}

static void misuse_size_zero(struct kunit *test)
{
	misuse_alloc(test, GFP_KERNEL, 0);
}

static void misuse_size_below_min(struct kunit *test)
{
	misuse_alloc(test, GFP_KERNEL, MASK_MIN_SIZE - 1);
	misuse_alloc(test, GFP_KERNEL, 2);	/* an order, passed as a size */
}

static void misuse_gfp_dma(struct kunit *test)
{
	misuse_alloc(test, GFP_KERNEL | __GFP_DMA, PAGE_SIZE);
}

static void misuse_gfp_dma32(struct kunit *test)
{
	misuse_alloc(test, GFP_KERNEL | __GFP_DMA32, PAGE_SIZE);
}

static void misuse_gfp_highmem(struct kunit *test)
{
	misuse_alloc(test, GFP_KERNEL | __GFP_HIGHMEM, PAGE_SIZE);
}

static void misuse_gfp_movable(struct kunit *test)
{
	misuse_alloc(test, GFP_KERNEL | __GFP_MOVABLE, PAGE_SIZE);
}

static void misuse_gfp_comp(struct kunit *test)
{
	misuse_alloc(test, GFP_KERNEL | __GFP_COMP, 4 * PAGE_SIZE);
}

static void misuse_free(struct kunit *test, struct page *page, size_t size)
{
	struct snap s0;

	misuse_begin(test, &s0);
	__free_pages_mask(page, size);
	misuse_end(test, &s0);
}

static void misuse_double_free(struct kunit *test)
{
	struct held *h = hold_mask(test, GFP_KERNEL, 2 * PAGE_SIZE, MASK24);
	struct page *page = h->page;

	KUNIT_ASSERT_NOT_NULL(test, page);
	held_free(h);
	misuse_free(test, page, 2 * PAGE_SIZE);
}

static void misuse_free_too_small(struct kunit *test)
{
	struct held *h = hold_mask(test, GFP_KERNEL, 3 * PAGE_SIZE, MASK24);

	KUNIT_ASSERT_NOT_NULL(test, h->page);
	misuse_free(test, h->page, 2 * PAGE_SIZE);
	misuse_free(test, h->page, PAGE_SIZE);
}

static void misuse_free_too_big(struct kunit *test)
{
	struct held *h = hold_mask(test, GFP_KERNEL, 2 * PAGE_SIZE, MASK24);
	struct held *next;

	KUNIT_ASSERT_NOT_NULL(test, h->page);
	misuse_free(test, h->page, 3 * PAGE_SIZE);
	misuse_free(test, h->page, 64 * PAGE_SIZE);
	/* Also when the page after the run starts another allocation. */
	next = hold_mask(test, GFP_KERNEL, PAGE_SIZE, MASK24);
	h = hold_mask(test, GFP_KERNEL, 2 * PAGE_SIZE, MASK24);
	KUNIT_ASSERT_NOT_NULL(test, next->page);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	/* The cursor moves down: the second run sits just below the first. */
	KUNIT_ASSERT_PTR_EQ(test, h->page + 2, next->page);
	misuse_free(test, h->page, 3 * PAGE_SIZE);
}

static void misuse_free_not_start(struct kunit *test)
{
	struct held *h = hold_mask(test, GFP_KERNEL, 3 * PAGE_SIZE, MASK24);

	KUNIT_ASSERT_NOT_NULL(test, h->page);
	misuse_free(test, h->page + 1, 2 * PAGE_SIZE);
	misuse_free(test, h->page + 2, PAGE_SIZE);
}

static void misuse_free_bad_args(struct kunit *test)
{
	struct held *h = hold_mask(test, GFP_KERNEL, PAGE_SIZE, MASK24);

	KUNIT_ASSERT_NOT_NULL(test, h->page);
	misuse_free(test, h->page, 0);
	misuse_free(test, NULL, PAGE_SIZE);
}

/* Fill the pages of a run with a pattern that names them. */
static void run_pattern(struct page *page, unsigned long nr)
{
	unsigned long i;

	for (i = 0; i < nr; i++)
		memset(page_address(page + i), 0x5a ^ (int)i, PAGE_SIZE);
}

static bool run_pattern_intact(struct page *page, unsigned long nr)
{
	unsigned long i, j;
	u8 *p;

	for (i = 0; i < nr; i++) {
		p = page_address(page + i);
		for (j = 0; j < PAGE_SIZE; j++)
			if (p[j] != (u8)(0x5a ^ i))
				return false;
	}
	return true;
}

/*
 * Two pool runs next to each other: @lo just below @hi (the cursor moves
 * down, so the second allocation lies right below the first), each of
 * @nr pages, both patterned.
 */
static void hold_pair(struct kunit *test, unsigned long nr, struct held **lo,
		      struct held **hi)
{
	set_force(test, true);
	*hi = hold_mask(test, GFP_KERNEL, nr * PAGE_SIZE, MASK24);
	*lo = hold_mask(test, GFP_KERNEL, nr * PAGE_SIZE, MASK24);
	KUNIT_ASSERT_NOT_NULL(test, (*hi)->page);
	KUNIT_ASSERT_NOT_NULL(test, (*lo)->page);
	KUNIT_ASSERT_PTR_EQ(test, (*lo)->page + nr, (*hi)->page);
	run_pattern((*lo)->page, nr);
	run_pattern((*hi)->page, nr);
}

/*
 * __free_pages() with an order larger than the allocation, whose pages past
 * its end belong to the next allocation: refused before anything touches
 * them, whatever the kernel's debug options (free_pages_prepare() asks the
 * pool first); the neighbour keeps its pages and its bytes.
 */
static void misuse_free_order_into_neighbour(struct kunit *test)
{
	struct held *lo, *hi;
	struct snap s0;

	hold_pair(test, 2, &lo, &hi);
	misuse_begin(test, &s0);
	__free_pages(lo->page, 2);
	misuse_end(test, &s0);
	/* put_page_testzero() dropped the reference the free did not use. */
	set_page_count(lo->page, 1);
	KUNIT_EXPECT_TRUE(test, run_pattern_intact(hi->page, 2));
	KUNIT_EXPECT_TRUE(test, run_pattern_intact(lo->page, 2));
}

/*
 * A range that starts inside one allocation and runs into the next, as
 * free_pages_prepare() sees it (a tail freed with a wrong order), and
 * free_pages_mask() with a size that runs into the next allocation.
 */
static void misuse_free_range_into_next(struct kunit *test)
{
	struct held *lo, *hi;
	struct snap s0;

	hold_pair(test, 4, &lo, &hi);
	misuse_begin(test, &s0);
	KUNIT_EXPECT_FALSE(test, mask_free_prepare(lo->page + 2, 2));
	misuse_end(test, &s0);
	misuse_begin(test, &s0);
	KUNIT_EXPECT_FALSE(test, mask_free_prepare(lo->page + 3, 1));
	misuse_end(test, &s0);
	misuse_begin(test, &s0);
	free_pages_mask(page_address(lo->page), 6 * PAGE_SIZE);
	misuse_end(test, &s0);
	KUNIT_EXPECT_TRUE(test, run_pattern_intact(hi->page, 4));
	KUNIT_EXPECT_TRUE(test, run_pattern_intact(lo->page, 4));
}

/* A page freed twice, the second time as far as free_pages_prepare(). */
static void misuse_double_free_prepare(struct kunit *test)
{
	struct held *lo, *hi;
	struct page *page;
	struct snap s0;

	hold_pair(test, 1, &lo, &hi);
	page = lo->page;
	held_free(lo);
	misuse_begin(test, &s0);
	KUNIT_EXPECT_FALSE(test, mask_free_prepare(page, 0));
	misuse_end(test, &s0);
	/* Order 1: the free page and the live neighbour. */
	misuse_begin(test, &s0);
	KUNIT_EXPECT_FALSE(test, mask_free_prepare(page, 1));
	misuse_end(test, &s0);
	KUNIT_EXPECT_TRUE(test, run_pattern_intact(hi->page, 1));
}

/* ==== free paths: every one gives pool pages back to the pool ==== */

static void expect_back(struct kunit *test, const struct snap *s0, unsigned long frees)
{
	struct snap s1;

	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, s1.st.free_bytes, s0->st.free_bytes);
	KUNIT_EXPECT_EQ(test, ev_delta(s0, &s1, MASK_FREE), frees);
	KUNIT_EXPECT_EQ(test, s1.st.misuse, s0->st.misuse);
}

/* Take a held GFP_DMA allocation, check it is a pool run below 16 MB. */
static struct held *hold_dma(struct kunit *test, gfp_t gfp, unsigned int order)
{
	struct held *h = hold_pages(test, GFP_KERNEL | GFP_DMA | gfp, order);

	KUNIT_ASSERT_NOT_NULL(test, h->page);
	KUNIT_EXPECT_TRUE(test, mask_pool_page(h->page));
	KUNIT_EXPECT_TRUE(test, below(h->page, PAGE_SIZE << order, MASK24));
	return h;
}

static void free_path_free_pages_mask(struct kunit *test)
{
	struct snap s0;
	void *addr;
	struct held *h;

	take_snap(test, &s0);
	h = hold_mask(test, GFP_KERNEL, 5 * PAGE_SIZE, MASK24);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	__free_pages_mask(h->page, 5 * PAGE_SIZE);
	disarm(h);
	expect_back(test, &s0, 1);

	take_snap(test, &s0);
	addr = get_pages_mask(GFP_KERNEL, 3 * PAGE_SIZE - 1, MASK24);
	KUNIT_ASSERT_NOT_NULL(test, addr);
	h = hold(test, virt_to_page(addr), 3 * PAGE_SIZE - 1, -1);
	KUNIT_EXPECT_TRUE(test, addr_below(addr, 3 * PAGE_SIZE - 1, MASK24));
	free_pages_mask(addr, 3 * PAGE_SIZE - 1);
	disarm(h);
	expect_back(test, &s0, 1);
}

static void free_path___free_pages(struct kunit *test)
{
	struct snap s0;
	struct held *h;

	take_snap(test, &s0);
	h = hold_dma(test, 0, 2);
	__free_pages(h->page, 2);
	disarm(h);
	expect_back(test, &s0, 1);
}

static void free_path_free_pages(struct kunit *test)
{
	unsigned long addr;
	struct snap s0;
	struct held *h;

	take_snap(test, &s0);
	addr = __get_free_pages(GFP_KERNEL | GFP_DMA, 1);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	h = hold(test, virt_to_page((void *)addr), 0, 1);
	KUNIT_EXPECT_TRUE(test, mask_pool_page(h->page));
	KUNIT_EXPECT_TRUE(test, addr_below((void *)addr, 2 * PAGE_SIZE, MASK24));
	free_pages(addr, 1);
	disarm(h);
	expect_back(test, &s0, 1);

	take_snap(test, &s0);
	addr = __get_dma_pages(GFP_KERNEL, 0);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	h = hold(test, virt_to_page((void *)addr), 0, 0);
	KUNIT_EXPECT_TRUE(test, mask_pool_page(h->page));
	KUNIT_EXPECT_TRUE(test, addr_below((void *)addr, PAGE_SIZE, MASK24));
	free_page(addr);
	disarm(h);
	expect_back(test, &s0, 1);
}

static void free_path_put_page_compound(struct kunit *test)
{
	struct snap s0;
	struct held *h;

	take_snap(test, &s0);
	h = hold_dma(test, __GFP_COMP, 2);
	KUNIT_EXPECT_TRUE(test, PageHead(h->page));
	KUNIT_EXPECT_EQ(test, folio_order(page_folio(h->page)), 2U);
	put_page(h->page);
	disarm(h);
	expect_back(test, &s0, 1);
}

static void free_path_folio_put(struct kunit *test)
{
	struct folio *folio;
	struct snap s0;
	struct held *h;

	take_snap(test, &s0);
	folio = folio_alloc(GFP_KERNEL | GFP_DMA, 3);
	KUNIT_ASSERT_NOT_NULL(test, folio);
	h = hold(test, &folio->page, 0, 3);
	KUNIT_EXPECT_TRUE(test, mask_pool_page(&folio->page));
	KUNIT_EXPECT_TRUE(test, below(&folio->page, folio_size(folio), MASK24));
	folio_put(folio);
	disarm(h);
	expect_back(test, &s0, 1);
}

/* __free_pages() with a speculative reference frees the tails now, the head later. */
static void free_path_speculative_ref(struct kunit *test)
{
	struct snap s0, s1;
	struct held *h;

	/*
	 * 6.12's __free_pages() frees the tail pieces of a non-compound page
	 * whose head is still referenced without clearing their alloc tag
	 * references, and CONFIG_MEM_ALLOC_PROFILING_DEBUG then warns "alloc_tag
	 * was not set", for buddy pages as for these: a stock warning, not the
	 * pool's (__free_pages_mask() clears them, see the next case).
	 */
	if (mem_alloc_profiling_enabled() && IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG))
		pr_info("vm-run: expect-warning: include/linux/alloc_tag\\.h\n");
	take_snap(test, &s0);
	h = hold_dma(test, 0, 2);
	get_page(h->page);
	__free_pages(h->page, 2);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, s0.st.free_bytes - s1.st.free_bytes, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_FREE), 0UL);
	put_page(h->page);
	disarm(h);
	expect_back(test, &s0, 1);
}

/* The same rule through __free_pages_mask() on a pool run. */
static void free_path_mask_speculative_ref(struct kunit *test)
{
	struct snap s0, s1;
	struct held *h;

	take_snap(test, &s0);
	h = hold_mask(test, GFP_KERNEL, 3 * PAGE_SIZE, MASK24);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	get_page(h->page);
	__free_pages_mask(h->page, 3 * PAGE_SIZE);
	take_snap(test, &s1);
	KUNIT_EXPECT_EQ(test, s0.st.free_bytes - s1.st.free_bytes, PAGE_SIZE);
	put_page(h->page);
	disarm(h);
	expect_back(test, &s0, 1);
}

static void free_path_split_page(struct kunit *test)
{
	struct page *page;
	struct snap s0;
	struct held *h;
	int i;

	take_snap(test, &s0);
	h = hold_dma(test, 0, 2);
	page = h->page;
	split_page(page, 2);
	disarm(h);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, page_count(page + i), 1);
	for (i = 0; i < 4; i++)
		__free_page(page + i);
	expect_back(test, &s0, 1);
}

/* Pieces of one allocation freed in any order: one mask_free, at the first page. */
static void free_path_split_any_order(struct kunit *test)
{
	static const int orders[][4] = {
		{ 1, 0, 2, 3 }, { 2, 3, 1, 0 }, { 3, 1, 0, 2 }, { 0, 3, 2, 1 },
	};
	struct page *page;
	struct snap s0;
	struct held *h;
	int i, k;

	for (k = 0; k < ARRAY_SIZE(orders); k++) {
		take_snap(test, &s0);
		h = hold_dma(test, 0, 2);
		page = h->page;
		split_page(page, 2);
		disarm(h);
		for (i = 0; i < 4; i++)
			__free_page(page + orders[k][i]);
		expect_back(test, &s0, 1);
	}
}

/* alloc_pages_exact() keeps 3 pages for 12 KiB; free_pages_exact() gives them back. */
static void free_path_pages_exact(struct kunit *test)
{
	struct snap s0, s1;
	void *p;

	take_snap(test, &s0);
	p = alloc_pages_exact(3 * PAGE_SIZE, GFP_KERNEL | GFP_DMA);
	KUNIT_ASSERT_NOT_NULL(test, p);
	take_snap(test, &s1);
	KUNIT_EXPECT_TRUE(test, mask_pool_page(virt_to_page(p)));
	KUNIT_EXPECT_TRUE(test, addr_below(p, 3 * PAGE_SIZE, MASK24));
	KUNIT_EXPECT_EQ(test, s1.st.used_bytes - s0.st.used_bytes, 3 * PAGE_SIZE);
	free_pages_exact(p, 3 * PAGE_SIZE);
	expect_back(test, &s0, 1);
}

KUNIT_DEFINE_ACTION_WRAPPER(kfree_action, kfree, const void *);
KUNIT_DEFINE_ACTION_WRAPPER(cache_destroy_action, kmem_cache_destroy, struct kmem_cache *);

/* Small GFP_DMA kmalloc: from a dma-kmalloc slab in the pool, back after shrinking. */
static void kmalloc_dma_small(struct kunit *test)
{
	struct kmem_cache *s = kmalloc_caches[KMALLOC_DMA][kmalloc_index(64)];
	struct snap s0, s1;
	void *p;

	KUNIT_ASSERT_NOT_NULL(test, s);
	kmem_cache_shrink(s);
	take_snap(test, &s0);
	p = kmalloc(64, GFP_KERNEL | GFP_DMA);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kfree_action, p), 0);
	take_snap(test, &s1);
	KUNIT_EXPECT_TRUE(test, mask_pool_page(virt_to_page(p)));
	KUNIT_EXPECT_TRUE(test, addr_below(p, 64, MASK24));
	KUNIT_EXPECT_GT(test, ev_delta(&s0, &s1, MASK_ALLOC), 0UL);
	kunit_release_action(test, kfree_action, p);
	kmem_cache_shrink(s);
	expect_back(test, &s0, ev_delta(&s0, &s1, MASK_ALLOC));
}

/* Large GFP_DMA kmalloc (12 KiB): a compound pool run, back on kfree(). */
static void kmalloc_dma_large(struct kunit *test)
{
	struct snap s0, s1;
	void *p;

	take_snap(test, &s0);
	p = kmalloc(SZ_8K + SZ_4K, GFP_KERNEL | GFP_DMA);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kfree_action, p), 0);
	take_snap(test, &s1);
	KUNIT_EXPECT_TRUE(test, mask_pool_page(virt_to_page(p)));
	KUNIT_EXPECT_TRUE(test, addr_below(p, SZ_8K + SZ_4K, MASK24));
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 1UL);
	KUNIT_EXPECT_EQ(test, s1.st.used_bytes - s0.st.used_bytes,
			PAGE_SIZE << get_order(SZ_8K + SZ_4K));
	kunit_release_action(test, kfree_action, p);
	expect_back(test, &s0, 1);
}

/* A SLAB_CACHE_DMA cache takes its slabs from the pool and gives them back when destroyed. */
static void kmem_cache_dma(struct kunit *test)
{
	struct kmem_cache *c;
	struct snap s0;
	void *objs[4];
	int i;

	take_snap(test, &s0);
	c = kmem_cache_create("mask_alloc_kunit", 512, 0, SLAB_CACHE_DMA | SLAB_NO_MERGE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cache_destroy_action, c), 0);
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = kmem_cache_alloc(c, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		KUNIT_EXPECT_TRUE(test, mask_pool_page(virt_to_page(objs[i])));
		KUNIT_EXPECT_TRUE(test, addr_below(objs[i], 512, MASK24));
	}
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		kmem_cache_free(c, objs[i]);
	kunit_release_action(test, cache_destroy_action, c);
	expect_back(test, &s0, 1);
}

/* ==== GFP_DMA users below 16 MB ==== */

/* alloc_pages(GFP_DMA) of every small order: a pool run below 16 MB. */
static void gfp_dma_alloc_pages(struct kunit *test)
{
	struct snap s0, s1;
	unsigned int order;

	for (order = 0; order <= 3; order++) {
		take_snap(test, &s0);
		hold_dma(test, 0, order);
		take_snap(test, &s1);
		KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 1UL);
		KUNIT_EXPECT_EQ(test, s0.st.free_bytes - s1.st.free_bytes, PAGE_SIZE << order);
	}
}

/* dma_set_mask() accepts 24, 28, 30, 31 and 32 bits; below 16 MB it cannot help. */
static void dma_set_mask_narrow(struct kunit *test)
{
	static const int bits[] = { 24, 28, 30, 31, 32 };
	struct device *dev;
	int i;

	dev = kunit_device_register(test, "mask_alloc_kunit");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	dev->dma_mask = &dev->coherent_dma_mask;
	for (i = 0; i < ARRAY_SIZE(bits); i++) {
		KUNIT_EXPECT_EQ_MSG(test, dma_set_mask(dev, DMA_BIT_MASK(bits[i])), 0,
				    "%d bits", bits[i]);
		KUNIT_EXPECT_EQ(test, dma_get_mask(dev), DMA_BIT_MASK(bits[i]));
	}
	KUNIT_EXPECT_EQ(test, dma_set_mask(dev, DMA_BIT_MASK(20)), -EIO);
}

/*
 * A page marked HWPoison while free in the pool is never handed out again:
 * the lowest pool page, the only one below its own mask, is freed, marked,
 * and an allocation below that mask must then fail.
 */
static void hwpoison_page_not_handed_out(struct kunit *test)
{
	struct mask_pool_stats st;
	struct page *page;
	struct held *h;
	u64 mask;

	if (!IS_ENABLED(CONFIG_MEMORY_FAILURE))
		kunit_skip(test, "needs CONFIG_MEMORY_FAILURE");
	mask = mask_pool_min_mask();
	h = hold_mask(test, NOWAIT, PAGE_SIZE, mask);
	KUNIT_ASSERT_NOT_NULL_MSG(test, h->page, "the lowest pool page is in use");
	page = h->page;
	KUNIT_ASSERT_EQ(test, page_to_phys(page) + PAGE_SIZE - 1, mask);
	held_free(h);

	SetPageHWPoison(page);
	h = hold_mask(test, NOWAIT, PAGE_SIZE, mask);
	mask_pool_get_stats(&st);
	KUNIT_EXPECT_NULL(test, h->page);
	KUNIT_EXPECT_EQ(test, st.hwpoison_pages, 1UL);
	/* Still kept out the second time, and by bounce buffers. */
	h = hold_mask(test, NOWAIT, PAGE_SIZE, mask);
	KUNIT_EXPECT_NULL(test, h->page);
	KUNIT_EXPECT_TRUE(test, IS_ERR(mask_pool_alloc_bounce(1, mask, 0, 0, ~0UL)));

	KUNIT_ASSERT_TRUE(test, mask_pool_unpoison(page));
	KUNIT_EXPECT_FALSE(test, PageHWPoison(page));
	h = hold_mask(test, NOWAIT, PAGE_SIZE, mask);
	KUNIT_EXPECT_PTR_EQ(test, h->page, page);
}

struct kill_waiter {
	struct completion done;
	struct page *page;
	unsigned long took;
};

static int kill_waiter_fn(void *data)
{
	struct kill_waiter *w = data;
	unsigned long start = jiffies;

	allow_signal(SIGKILL);
	w->page = alloc_pages_mask(GFP_KERNEL | __GFP_NOWARN, PAGE_SIZE, MASK24);
	w->took = jiffies - start;
	complete(&w->done);
	/* Wait for kthread_stop(), which owns the task_struct. */
	while (!kthread_should_stop())
		schedule_timeout_uninterruptible(1);
	return 0;
}

/* A fatal signal ends a wait for frees at once, with a failure. */
static void wait_killed_by_fatal_signal(struct kunit *test)
{
	struct kill_waiter *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct task_struct *t;
	bool done;

	KUNIT_ASSERT_NOT_NULL(test, w);
	init_completion(&w->done);
	fill_pool(test);
	set_timeout(test, 30 * HZ);
	t = kthread_run(kill_waiter_fn, w, "mask_kill_waiter");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	get_task_struct(t);
	msleep(200);
	send_sig(SIGKILL, t, 1);
	done = wait_for_completion_timeout(&w->done, 5 * HZ);
	KUNIT_EXPECT_TRUE_MSG(test, done, "the waiter was still waiting 5 s after SIGKILL");
	if (!done)
		wait_for_completion(&w->done);
	kthread_stop_put(t);
	if (w->page)
		__free_pages_mask(w->page, PAGE_SIZE);
	KUNIT_EXPECT_NULL(test, w->page);
	KUNIT_EXPECT_LT(test, w->took, 5UL * HZ);
}

/*
 * Memory allocation profiling charges pool pages to the caller's call
 * site (alloc_hooks()), not to whatever tag the task holds.
 */
static void alloc_tag_names_caller(struct kunit *test)
{
	struct alloc_tag *tag;
	struct held *h;

	if (!mem_alloc_profiling_enabled())
		kunit_skip(test, "memory allocation profiling is off");
	set_force(test, true);
	h = hold_mask(test, GFP_KERNEL, 3 * PAGE_SIZE, MASK24);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	tag = pgalloc_tag_get(h->page);
	KUNIT_ASSERT_NOT_NULL(test, tag);
	KUNIT_EXPECT_NOT_NULL(test, strstr(tag->ct.filename, "mask_alloc_kunit.c"));
}

/* alloc_pages_mask() below a mask inside the pool's span does not try the zones. */
static void zones_skipped_inside_span(struct kunit *test)
{
	struct snap s0, s1;
	struct held *h;

	take_snap(test, &s0);
	h = hold_mask(test, GFP_KERNEL, PAGE_SIZE, MASK24);
	take_snap(test, &s1);
	KUNIT_ASSERT_NOT_NULL(test, h->page);
	KUNIT_EXPECT_TRUE(test, mask_pool_page(h->page));
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_HIGHER), 0UL);
	KUNIT_EXPECT_EQ(test, ev_delta(&s0, &s1, MASK_ALLOC), 1UL);
}

static struct kunit_case mask_alloc_cases[] = {
	/* the pool and its counters */
	KUNIT_CASE(pool_stats_consistent),
	KUNIT_CASE(no_dma_zone),
	KUNIT_CASE(vm_event_names),
	KUNIT_CASE(events_count_pool_only),
	KUNIT_CASE_PARAM(maskzone_parse, maskzone_gen_params),
	/* placement */
	KUNIT_CASE(mask24_from_pool),
	KUNIT_CASE(pool_run_refcounts),
	KUNIT_CASE(block_ending_at_mask),
	KUNIT_CASE(block_over_mask),
	KUNIT_CASE(mask_below_pool),
	KUNIT_CASE(larger_than_pool),
	KUNIT_CASE(top_down_placement),
	KUNIT_CASE(cursor_rotation),
	KUNIT_CASE(cursor_upper_half_rule),
	KUNIT_CASE(narrow_after_wide),
	KUNIT_CASE(gfp_dma_runs_aligned),
	/* sizes and waste */
	KUNIT_CASE(size_rounded_to_pages),
	KUNIT_CASE(low_waste_counted),
	KUNIT_CASE(high_waste_counted),
	/* the normal zones and force */
	KUNIT_CASE(zones_serve_wide_mask),
	KUNIT_CASE(wide_mask_never_pool),
	KUNIT_CASE(mask31_below_mask),
	KUNIT_CASE(mask_between_4g_and_top),
	KUNIT_CASE(wide_mask_failure_counted),
	KUNIT_CASE(force_uses_pool),
	/* zeroing */
	KUNIT_CASE(gfp_zero_pool),
	KUNIT_CASE(gfp_zero_compat),
	/* exhaustion and waiting */
	KUNIT_CASE(exhausted_nowait),
	KUNIT_CASE(exhausted_atomic),
	KUNIT_CASE(exhausted_noretry),
	KUNIT_CASE(exhausted_gfp_dma),
	KUNIT_CASE(exhausted_wait_bounded),
	KUNIT_CASE(exhausted_wait_bounded_churn),
	KUNIT_CASE(waiter_woken_by_free),
	KUNIT_CASE(wait_killed_by_fatal_signal),
	/* misuse */
	KUNIT_CASE(misuse_size_zero),
	KUNIT_CASE(misuse_size_below_min),
	KUNIT_CASE(misuse_gfp_dma),
	KUNIT_CASE(misuse_gfp_dma32),
	KUNIT_CASE(misuse_gfp_highmem),
	KUNIT_CASE(misuse_gfp_movable),
	KUNIT_CASE(misuse_gfp_comp),
	KUNIT_CASE(misuse_double_free),
	KUNIT_CASE(misuse_free_too_small),
	KUNIT_CASE(misuse_free_too_big),
	KUNIT_CASE(misuse_free_not_start),
	KUNIT_CASE(misuse_free_bad_args),
	KUNIT_CASE(misuse_free_order_into_neighbour),
	KUNIT_CASE(misuse_free_range_into_next),
	KUNIT_CASE(misuse_double_free_prepare),
	/* free paths */
	KUNIT_CASE(free_path_free_pages_mask),
	KUNIT_CASE(free_path___free_pages),
	KUNIT_CASE(free_path_free_pages),
	KUNIT_CASE(free_path_put_page_compound),
	KUNIT_CASE(free_path_folio_put),
	KUNIT_CASE(free_path_speculative_ref),
	KUNIT_CASE(free_path_mask_speculative_ref),
	KUNIT_CASE(free_path_split_page),
	KUNIT_CASE(free_path_split_any_order),
	KUNIT_CASE(free_path_pages_exact),
	KUNIT_CASE(kmalloc_dma_small),
	KUNIT_CASE(kmalloc_dma_large),
	KUNIT_CASE(kmem_cache_dma),
	/* GFP_DMA users */
	KUNIT_CASE(gfp_dma_alloc_pages),
	KUNIT_CASE(dma_set_mask_narrow),
	/* what page allocations get */
	KUNIT_CASE(hwpoison_page_not_handed_out),
	KUNIT_CASE(alloc_tag_names_caller),
	KUNIT_CASE(zones_skipped_inside_span),
	{}
};

static struct kunit_suite mask_alloc_suite = {
	.name = "mask_alloc",
	.suite_init = mask_alloc_kunit_suite_init,
	.test_cases = mask_alloc_cases,
};

/*
 * Without a pool (all memory below 16 MB reserved, as in a kdump kernel
 * whose crash region lies elsewhere; boot with memmap=15M$1M), GFP_DMA
 * fails cleanly and never returns memory above the 16 MB limit.
 */
static void gfp_dma_fails_without_pool(struct kunit *test)
{
	struct page *pages[4] = { };
	unsigned long addr;
	struct page *page;
	void *p;

	if (mask_pool_enabled())
		kunit_skip(test, "the pool is in use (boot with memmap=15M$1M to run this)");
	p = kmalloc(64, GFP_KERNEL | GFP_DMA | __GFP_NOWARN);
	KUNIT_EXPECT_NULL(test, p);
	kfree(p);
	addr = __get_dma_pages(GFP_KERNEL | __GFP_NOWARN, 0);
	KUNIT_EXPECT_EQ(test, addr, 0UL);
	if (addr)
		free_page(addr);
	page = alloc_pages(GFP_KERNEL | GFP_DMA | __GFP_NOWARN, 1);
	KUNIT_EXPECT_NULL(test, page);
	if (page)
		__free_pages(page, 1);
	KUNIT_EXPECT_EQ(test, alloc_pages_bulk_array(GFP_KERNEL | GFP_DMA | __GFP_NOWARN,
						     ARRAY_SIZE(pages), pages), 0UL);
	/* With a warning, once: the caller learns why. */
	page = alloc_pages(GFP_KERNEL | GFP_DMA, 0);
	KUNIT_EXPECT_NULL(test, page);
	if (page)
		__free_pages(page, 0);
}

static struct kunit_case mask_alloc_nopool_cases[] = {
	KUNIT_CASE(gfp_dma_fails_without_pool),
	{}
};

static struct kunit_suite mask_alloc_nopool_suite = {
	.name = "mask_alloc_nopool",
	.test_cases = mask_alloc_nopool_cases,
};

kunit_test_suites(&mask_alloc_suite, &mask_alloc_nopool_suite);

MODULE_DESCRIPTION("KUnit test of the maskable DMA allocator");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
