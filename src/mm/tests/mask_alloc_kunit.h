/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the mask allocator KUnit suites (mask_alloc and
 * mask_alloc_coherent): snapshots of the pool statistics and the MASK_*
 * vm events, pool filling, settings restored by cleanup actions, and a
 * free from a delayed work item.
 */
#ifndef _MM_TESTS_MASK_ALLOC_KUNIT_H
#define _MM_TESTS_MASK_ALLOC_KUNIT_H

#include <kunit/test.h>
#include <linux/mask_alloc.h>
#include <linux/mm.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>

#include "../mask_alloc_internal.h"

#define NOWAIT		(GFP_NOWAIT | __GFP_NOWARN)
#define NR_MASK_EVENTS	(MASK_FAIL - MASK_ALLOC + 1)

/* Both suites need the pool: fail the whole suite clearly without it. */
static inline int mask_alloc_kunit_suite_init(struct kunit_suite *suite)
{
	if (!mask_pool_enabled()) {
		pr_err("%s: KUnit suite needs the mask pool, which is not in use\n",
		       suite->name);
		return -ENODEV;
	}
	return 0;
}

struct snap {
	struct mask_pool_stats st;
	unsigned long ev[NR_MASK_EVENTS];
};

static inline void take_snap(struct kunit *test, struct snap *s)
{
	unsigned long *all;
	int i;

	all = kunit_kcalloc(test, NR_VM_EVENT_ITEMS, sizeof(*all), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, all);
	all_vm_events(all);
	for (i = 0; i < NR_MASK_EVENTS; i++)
		s->ev[i] = all[MASK_ALLOC + i];
	kunit_kfree(test, all);
	mask_pool_get_stats(&s->st);
}

static inline unsigned long ev_delta(const struct snap *a, const struct snap *b,
				     enum vm_event_item item)
{
	return b->ev[item - MASK_ALLOC] - a->ev[item - MASK_ALLOC];
}

static inline bool addr_below(void *p, size_t size, u64 mask)
{
	return virt_to_phys(p) + size - 1 <= mask;
}

struct pool_fill {
	struct page **pages;	/* single pages, highest pfn first */
	unsigned long nr;
};

static inline void fill_release(void *data)
{
	struct pool_fill *f = data;
	unsigned long i;

	for (i = 0; i < f->nr; i++) {
		if (f->pages[i])
			__free_pages_mask(f->pages[i], PAGE_SIZE);
		f->pages[i] = NULL;
	}
}

static inline void restore_timeout(void *data)
{
	WRITE_ONCE(mask_timeout, (unsigned long)data);
}

static inline void set_timeout(struct kunit *test, unsigned long timeout)
{
	void *old = (void *)READ_ONCE(mask_timeout);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_timeout, old), 0);
	WRITE_ONCE(mask_timeout, timeout);
}

static inline void restore_force(void *data)
{
	mask_pool_set_force(!!data);
}

static inline void set_force(struct kunit *test, bool force)
{
	void *old = (void *)(unsigned long)mask_pool_set_force(force);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_force, old), 0);
}

struct delayed_free {
	struct delayed_work work;
	struct page *page;
};

static inline void delayed_free_fn(struct work_struct *work)
{
	struct delayed_free *df = container_of(to_delayed_work(work),
					       struct delayed_free, work);

	__free_pages_mask(df->page, PAGE_SIZE);
}

static inline void delayed_free_cancel(void *data)
{
	struct delayed_free *df = data;

	/* Not run yet: the page is still ours. */
	if (cancel_delayed_work_sync(&df->work))
		__free_pages_mask(df->page, PAGE_SIZE);
}

#endif /* _MM_TESTS_MASK_ALLOC_KUNIT_H */
