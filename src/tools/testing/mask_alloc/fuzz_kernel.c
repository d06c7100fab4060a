// SPDX-License-Identifier: GPL-2.0
/*
 * mm/mask_alloc.c, unchanged, plus what the fuzzer needs to see and reset
 * its static state: the fuzzer boots a fresh pool for every input in one
 * process.  Only the fuzz build compiles this file instead of mask_alloc.c.
 */
#include "mask_alloc.c"

#include <stdio.h>
#include "fuzz_kernel.h"

void fk_reset(void)
{
	memset(&mask_pool, 0, sizeof(mask_pool));
	mask_pool.lock = (spinlock_t)__SPIN_LOCK_UNLOCKED(mask_pool.lock);
	memset(mask_ranges, 0, sizeof(mask_ranges));
	mask_nr_ranges = 0;
	mask_zone_size = 0;
	mask_zone_set = false;
	mask_meta_bytes = 0;
	mask_pool_key.enabled = false;
	mask_pool_span_base = 0;
	mask_pool_span_pages = 0;
	mask_timeout = 5 * HZ;
}

void fk_view(struct fk_view *v)
{
	*v = (struct fk_view){
		.owned = mask_pool.owned,
		.used = mask_pool.used,
		.head = mask_pool.head,
		.cont = mask_pool.cont,
		.base_pfn = mask_pool.base_pfn,
		.max_pfn = mask_pool.max_pfn,
		.nbits = mask_pool.nbits,
		.cursor = mask_pool.cursor,
		.pool_pages = mask_pool.pool_pages,
		.free_pages = mask_pool.free_pages,
		.misuse = atomic_long_read(&mask_pool.misuse),
		.force = mask_pool.force,
	};
}

void fk_set_force(bool force)
{
	mask_pool.force = force;
}

static char fk_msg[160];

/* The exact summary of leaf @leaf, as mask_sum_leaf() defines it. */
static struct mask_sum fk_leaf_exact(unsigned long leaf)
{
	unsigned long lo = leaf * MASK_SUM_LEAF_BITS, i, run = 0;
	struct mask_sum s = { 0, 0, 0 };
	bool prefix = true;

	for (i = lo; i < lo + MASK_SUM_LEAF_BITS; i++) {
		if (i < mask_pool.nbits && !test_bit(i, mask_pool.used)) {
			run++;
			s.best = max_t(u32, s.best, run);
			if (prefix)
				s.pre = run;
		} else {
			run = 0;
			prefix = false;
		}
	}
	s.suf = run;
	return s;
}

static bool fk_check_leaf(unsigned long leaf)
{
	const struct mask_sum *s = &mask_pool.sum[mask_pool.sum_leaves + leaf];
	struct mask_sum e = fk_leaf_exact(leaf);

	if (s->pre != e.pre || s->suf != e.suf || s->best < e.best ||
	    (s->best != e.best && !test_bit(leaf, mask_pool.sum_stale))) {
		snprintf(fk_msg, sizeof(fk_msg),
			 "leaf %lu: pre/suf/best %u/%u/%u, exact %u/%u/%u, %s",
			 leaf, s->pre, s->suf, s->best, e.pre, e.suf, e.best,
			 test_bit(leaf, mask_pool.sum_stale) ? "stale" : "not stale");
		return false;
	}
	return true;
}

/* Inner node @node, whose children span @half bits each. */
static bool fk_check_inner(unsigned long node, u32 half)
{
	const struct mask_sum *s = &mask_pool.sum[node];
	const struct mask_sum *l = &mask_pool.sum[2 * node], *r = &mask_pool.sum[2 * node + 1];
	struct mask_sum e;

	e.pre = l->pre == half ? half + r->pre : l->pre;
	e.suf = r->suf == half ? half + l->suf : r->suf;
	e.best = max3(l->best, r->best, l->suf + r->pre);
	if (s->pre != e.pre || s->suf != e.suf || s->best != e.best) {
		snprintf(fk_msg, sizeof(fk_msg),
			 "node %lu: pre/suf/best %u/%u/%u, from its children %u/%u/%u",
			 node, s->pre, s->suf, s->best, e.pre, e.suf, e.best);
		return false;
	}
	return true;
}

const char *fk_check_summary(unsigned long lo, unsigned long hi)
{
	unsigned long leaf, node, first, last;
	u32 half;

	if (!mask_pool.nbits || !mask_pool.sum_leaves || lo > hi)
		return NULL;
	first = lo / MASK_SUM_LEAF_BITS;
	last = min(hi / MASK_SUM_LEAF_BITS, mask_pool.sum_leaves - 1);
	for (leaf = first; leaf <= last; leaf++)
		if (!fk_check_leaf(leaf))
			return fk_msg;
	/* The inner nodes above those leaves, level by level. */
	first = (first + mask_pool.sum_leaves) / 2;
	last = (last + mask_pool.sum_leaves) / 2;
	for (half = MASK_SUM_LEAF_BITS; first; first /= 2, last /= 2, half *= 2)
		for (node = first; node <= last; node++)
			if (!fk_check_inner(node, half))
				return fk_msg;
	return NULL;
}
