// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite asserting the physical zone layout of the running kernel as
 * seen by DMA users: which zones exist, where they start and end, and where
 * GFP_DMA32 and GFP_KERNEL memory really comes from.
 *
 * The cases that need memory above 4 GiB skip themselves on smaller guests;
 * boot with "-m 5G" to run them.
 */
#include <kunit/test.h>
#include <linux/dma-direct.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/sizes.h>
#include <asm/dma.h>

#define PFN_4G		(SZ_4G >> PAGE_SHIFT)

static struct zone *node0_zone(enum zone_type t)
{
	return &NODE_DATA(first_online_node)->node_zones[t];
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

/* ZONE_DMA32 exists, is populated and ends at or below 4 GiB. */
static void dma32_zone_below_4g(struct kunit *test)
{
	struct zone *z = node0_zone(ZONE_DMA32);

	KUNIT_ASSERT_TRUE(test, populated_zone(z));
	KUNIT_EXPECT_LE(test, zone_end_pfn(z), PFN_4G);
	KUNIT_EXPECT_STREQ(test, z->name, "DMA32");
	KUNIT_EXPECT_GT(test, zone_managed_pages(z), 0UL);
}

/* Memory above 4 GiB is ZONE_NORMAL and starts at 4 GiB. */
static void normal_zone_above_4g(struct kunit *test)
{
	struct zone *z = node0_zone(ZONE_NORMAL);

	if (!has_memory_above_4g())
		kunit_skip(test, "guest has no memory above 4 GiB (max_pfn %#lx)", max_pfn);

	KUNIT_ASSERT_TRUE(test, populated_zone(z));
	KUNIT_EXPECT_GE(test, z->zone_start_pfn, PFN_4G);
	KUNIT_EXPECT_EQ(test, zone_end_pfn(z), max_pfn);
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

/* With memory above 4 GiB, GFP_KERNEL prefers ZONE_NORMAL. */
static void gfp_kernel_from_normal(struct kunit *test)
{
	struct page *page;

	if (!has_memory_above_4g())
		kunit_skip(test, "guest has no memory above 4 GiB");

	page = alloc_page(GFP_KERNEL);
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
