// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite asserting the physical zone layout of the running kernel as
 * seen by DMA users: which zones exist, where they start and end, and where
 * GFP_DMA32 and GFP_KERNEL memory really comes from.
 *
 * The cases that need memory above 4 GiB skip themselves on smaller guests;
 * boot with "-m 5G" to run them.  They look at every online node: on a NUMA
 * machine the first node may hold no memory above 4 GiB, or none below.
 */
#include <kunit/test.h>
#include <linux/dma-direct.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/sizes.h>
#include <asm/dma.h>

#define PFN_4G		(SZ_4G >> PAGE_SHIFT)

/* The first online node with a populated zone @t, or NUMA_NO_NODE. */
static int node_with_zone(enum zone_type t)
{
	int nid;

	for_each_online_node(nid)
		if (populated_zone(&NODE_DATA(nid)->node_zones[t]))
			return nid;
	return NUMA_NO_NODE;
}

static bool has_memory_above_4g(void)
{
	return max_pfn > PFN_4G;
}

/* With CONFIG_ZONE_DMA=n no populated zone may be called "DMA". */
static void zone_dma_absent(struct kunit *test)
{
	struct zone *zone;
	int dma = 0;

	for_each_populated_zone(zone)
		if (!strcmp(zone->name, "DMA"))
			dma++;

	if (IS_ENABLED(CONFIG_ZONE_DMA))
		KUNIT_EXPECT_GT(test, dma, 0);
	else
		KUNIT_EXPECT_EQ(test, dma, 0);
}

/* ZONE_DMA32 exists, is populated and ends at or below 4 GiB, on every node. */
static void dma32_zone_below_4g(struct kunit *test)
{
	unsigned long managed = 0;
	struct zone *z;
	int nid;

	KUNIT_ASSERT_NE(test, node_with_zone(ZONE_DMA32), NUMA_NO_NODE);
	for_each_online_node(nid) {
		z = &NODE_DATA(nid)->node_zones[ZONE_DMA32];
		if (!populated_zone(z))
			continue;
		KUNIT_EXPECT_LE(test, zone_end_pfn(z), PFN_4G);
		KUNIT_EXPECT_STREQ(test, z->name, "DMA32");
		managed += zone_managed_pages(z);
	}
	KUNIT_EXPECT_GT(test, managed, 0UL);
}

/*
 * Memory above 4 GiB is ZONE_NORMAL: every populated ZONE_NORMAL starts at
 * or above 4 GiB, and the highest one ends at max_pfn.
 */
static void normal_zone_above_4g(struct kunit *test)
{
	unsigned long end = 0;
	struct zone *z;
	int nid;

	if (!has_memory_above_4g())
		kunit_skip(test, "guest has no memory above 4 GiB (max_pfn %#lx)", max_pfn);

	KUNIT_ASSERT_NE(test, node_with_zone(ZONE_NORMAL), NUMA_NO_NODE);
	for_each_online_node(nid) {
		z = &NODE_DATA(nid)->node_zones[ZONE_NORMAL];
		if (!populated_zone(z))
			continue;
		KUNIT_EXPECT_GE(test, z->zone_start_pfn, PFN_4G);
		end = max(end, zone_end_pfn(z));
	}
	KUNIT_EXPECT_EQ(test, end, max_pfn);
}

/* Every GFP_DMA32 page is below 4 GiB and comes from ZONE_DMA32. */
static void gfp_dma32_below_4g(struct kunit *test)
{
	struct page *pages[32];
	int i;

	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		pages[i] = alloc_pages(GFP_KERNEL | GFP_DMA32, i % 3);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
	}
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		phys_addr_t end = page_to_phys(pages[i]) + (PAGE_SIZE << (i % 3)) - 1;

		KUNIT_EXPECT_LE(test, end, (phys_addr_t)DMA_BIT_MASK(32));
		KUNIT_EXPECT_EQ(test, page_zonenum(pages[i]), ZONE_DMA32);
		__free_pages(pages[i], i % 3);
	}
}

/*
 * With memory above 4 GiB, GFP_KERNEL prefers ZONE_NORMAL on a node that has
 * one (a node without one falls back to its own ZONE_DMA32 first).
 */
static void gfp_kernel_from_normal(struct kunit *test)
{
	struct page *page;
	int nid;

	if (!has_memory_above_4g())
		kunit_skip(test, "guest has no memory above 4 GiB");

	nid = node_with_zone(ZONE_NORMAL);
	KUNIT_ASSERT_NE(test, nid, NUMA_NO_NODE);
	page = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_EQ(test, page_zonenum(page), ZONE_NORMAL);
	KUNIT_EXPECT_GE(test, page_to_pfn(page), PFN_4G);
	__free_page(page);
}

/* Without ZONE_DMA, __GFP_DMA selects no zone of its own. */
static void gfp_dma_zone_mapping(struct kunit *test)
{
#ifdef CONFIG_ZONE_DMA
	KUNIT_EXPECT_EQ(test, gfp_zone(GFP_DMA), ZONE_DMA);
#else
	KUNIT_EXPECT_EQ(test, gfp_zone(GFP_DMA), ZONE_NORMAL);
#endif
	KUNIT_EXPECT_EQ(test, gfp_zone(GFP_DMA32), ZONE_DMA32);
	KUNIT_EXPECT_EQ(test, gfp_zone(GFP_KERNEL), ZONE_NORMAL);
}

/* The traditional ISA limits are still defined: 16 MiB and 24 bits. */
static void isa_dma_limits(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, (u64)__pa(MAX_DMA_ADDRESS), (u64)SZ_16M);
	KUNIT_EXPECT_EQ(test, zone_dma_limit, DMA_BIT_MASK(24));
	KUNIT_EXPECT_EQ(test, (u64)MAX_DMA32_PFN, (u64)PFN_4G);
}

static struct kunit_case dma_zone_layout_cases[] = {
	KUNIT_CASE(zone_dma_absent),
	KUNIT_CASE(dma32_zone_below_4g),
	KUNIT_CASE(normal_zone_above_4g),
	KUNIT_CASE(gfp_dma32_below_4g),
	KUNIT_CASE(gfp_kernel_from_normal),
	KUNIT_CASE(gfp_dma_zone_mapping),
	KUNIT_CASE(isa_dma_limits),
	{}
};

static struct kunit_suite dma_zone_layout_suite = {
	.name = "dma_zone_layout",
	.test_cases = dma_zone_layout_cases,
};

kunit_test_suite(dma_zone_layout_suite);

MODULE_DESCRIPTION("KUnit test of the DMA zone layout");
MODULE_LICENSE("GPL");
