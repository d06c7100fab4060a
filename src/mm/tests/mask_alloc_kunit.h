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
#include <linux/fault-inject.h>
#include <linux/mask_alloc.h>
#include <linux/mm.h>
#include <linux/sched.h>
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

/*
 * Fault injection (CONFIG_FAIL_MASK_ALLOC): arm fail_mask_alloc for the
 * calling task only (task-filter and make_it_fail, so that nothing else
 * that uses the pool while a case runs is failed), quietly (verbose 0).
 * Every request that could fit fails, @times times (-1: no limit), once
 * @space pages went through; with @bounce_only only bounce buffers fail.
 * A cleanup action puts every setting back.  The KUnit case runs in a
 * thread of its own, which ends with the case: make_it_fail dies with it.
 */
struct fail_saved {
	unsigned long probability, interval, verbose;
	int times, space;
	bool task_filter, ignore_gfp_reclaim, bounce_only;
	u32 min_pages;
};

#ifdef CONFIG_FAIL_MASK_ALLOC
static inline void fail_restore(void *data)
{
	struct fail_saved *s = data;
	struct fail_mask_alloc_attr *f = &fail_mask_alloc;

	/* Probability first: nothing fails while the rest is put back. */
	WRITE_ONCE(f->attr.probability, 0);
	f->attr.interval = s->interval;
	f->attr.verbose = s->verbose;
	atomic_set(&f->attr.times, s->times);
	atomic_set(&f->attr.space, s->space);
	f->attr.task_filter = s->task_filter;
	WRITE_ONCE(f->ignore_gfp_reclaim, s->ignore_gfp_reclaim);
	WRITE_ONCE(f->bounce_only, s->bounce_only);
	WRITE_ONCE(f->min_pages, s->min_pages);
	WRITE_ONCE(f->attr.probability, s->probability);
}

static inline void fail_arm(struct kunit *test, int times, int space, bool bounce_only)
{
	struct fail_mask_alloc_attr *f = &fail_mask_alloc;
	struct fail_saved *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	*s = (struct fail_saved){
		.probability = f->attr.probability, .interval = f->attr.interval,
		.verbose = f->attr.verbose, .times = atomic_read(&f->attr.times),
		.space = atomic_read(&f->attr.space), .task_filter = f->attr.task_filter,
		.ignore_gfp_reclaim = f->ignore_gfp_reclaim,
		.bounce_only = f->bounce_only, .min_pages = f->min_pages,
	};
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fail_restore, s), 0);
	WRITE_ONCE(f->attr.probability, 0);
	current->make_it_fail = 1;
	f->attr.task_filter = true;
	f->attr.interval = 1;
	f->attr.verbose = 0;
	atomic_set(&f->attr.times, times);
	atomic_set(&f->attr.space, space);
	WRITE_ONCE(f->ignore_gfp_reclaim, false);
	WRITE_ONCE(f->bounce_only, bounce_only);
	WRITE_ONCE(f->min_pages, 1);
	WRITE_ONCE(f->attr.probability, 100);
}

/* Stop failing for the rest of the case (the cleanup still restores). */
static inline void fail_disarm(void)
{
	atomic_set(&fail_mask_alloc.attr.times, 0);
}
#else
static inline void fail_arm(struct kunit *test, int times, int space, bool bounce_only)
{
	kunit_skip(test, "needs CONFIG_FAIL_MASK_ALLOC");
}

static inline void fail_disarm(void)
{
}
#endif

#endif /* _MM_TESTS_MASK_ALLOC_KUNIT_H */
