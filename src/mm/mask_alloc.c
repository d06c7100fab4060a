// SPDX-License-Identifier: GPL-2.0
/*
 * Maskable DMA page allocator.
 *
 * Devices that cannot address all of memory (24, 28, 30, 31 bit masks...)
 * need buffers below an arbitrary physical address.  The buddy allocator
 * only knows its fixed zones, so this file keeps a pool of low memory,
 * taken from memblock at boot, and hands it out with a bitmap allocator
 * that can search below any limit.
 *
 * Boot:
 *   mask_pool_reserve_low()  all free memory below 16 MB (or exactly the
 *                            size given with maskzone=), memblock reserved
 *   increase_mask_zone()     optional growth, lowest free memory first
 *   mask_pool_handover()     after memblock_free_all(): the reserved pages
 *                            become free pool pages, like __free_pages_core()
 *
 * Allocation (alloc_pages_mask_node()):
 *   1. Unless "maskzone=force", try the buddy allocator first.  A result
 *      above the mask is given back.  If the mask covers all of low memory
 *      the buddy result is final and the pool is never touched.
 *   2. Search the pool.  The bitmaps are indexed in reverse (the highest
 *      pool pfn is bit 0), so a forward search runs top-down below the mask
 *      and keeps the lowest memory for the narrowest masks.  A rotating
 *      cursor makes repeated allocations roughly O(1); it is only used
 *      while it lies in the upper half of the range allowed by the mask.
 *   3. If nothing fits and the caller may sleep, wait for frees, bounded
 *      by mask_timeout (see mask_pool_alloc() for the gfp rules).
 *
 * Sizes are rounded up to pages, not to powers of two.  A run of pages is
 * prepared with mm's own hooks in naturally sized chunks (post_alloc_hook(),
 * kmsan_alloc_page() and the memcg charge for __GFP_ACCOUNT per power-of-two
 * chunk, largest first), and freed in the same chunks, so KASAN,
 * init_on_alloc/free, page_owner, memcg and alloc tagging see ordinary
 * buddy-sized allocations.  Every free path of the page allocator goes
 * through free_pages_prepare(), which first refuses a free of pool pages
 * that does not lie inside one allocation (mask_pool_free_ok()), before
 * anything touches the pages, and at its end gives them back through
 * mask_pool_release(); frees of any sub-range of an allocation work.
 *
 * Per-page state lives in four bitmaps: @owned (the pool has holes:
 * kernel text, firmware, the bitmaps themselves), @used (holes are marked
 * used so that searches skip them), @head (first page of each allocated
 * run, and of each piece of one left after another piece was freed) and
 * @cont (which of those heads start such a piece).  They allow misuse
 * (double free, wrong size) to be detected and counted instead of
 * corrupting the pool.
 *
 * Concurrency: one spinlock, taken with interrupts disabled because pool
 * pages can be freed from any context that may free pages, protects the
 * @used and @head bitmaps, the cursor and the free counters.  @owned and
 * the pool geometry are written only at boot, before the static key is
 * enabled, and are read-only afterwards.  No locks are held while calling
 * into the page allocator or while sleeping.  There is no reserve for
 * atomic allocations: an atomic caller fails when the pool is full.
 *
 * A page that memory_failure() marks HWPoison while it is free in the pool
 * is found when an allocation takes it, and is kept out of use for good.
 * Memory offline and alloc_contig_range() see pool pages as unmovable.
 */

#define pr_fmt(fmt) "mask_alloc: " fmt

#include "mask_alloc_internal.h"

/* Boot-time list of reserved ranges; more are ignored with a warning. */
#define MASK_POOL_MAX_RANGES	64

/*
 * Search summary over the @used bitmap (protected by the pool lock).
 *
 * The bitmap is cut into leaves of MASK_SUM_LEAF_BITS bits.  An implicit
 * binary tree over the leaves (node 1 is the root, node i has the children
 * 2i and 2i + 1, leaf j is node sum_leaves + j) stores for each node the
 * number of free bits at its start (@pre) and at its end (@suf), and its
 * longest free run (@best).  Bits past the end of the bitmap count as
 * used.  "First free run of n bits at or after an index" goes up the tree
 * from the leaf of that index and down where the run is, in
 * O(log(leaves)) nodes and few leaf scans.
 *
 * @pre and @suf are always exact.  @best is exact or too high, never too
 * low, so a node whose @best is below the request can be skipped.  An
 * allocation only lowers @pre and @suf (O(1), no bitmap access) and marks
 * its leaves stale, since it may have split their longest run.  A free
 * finds the free run it joins (usually within a word or two) and can only
 * raise @best.  A search that scans a whole stale leaf without finding the
 * run its @best promised has seen all its free runs and stores the
 * longest; mask_pool_get_stats() recomputes all stale leaves.
 */
struct mask_sum {
	u32 pre;
	u32 suf;
	u32 best;
};

#define MASK_SUM_LEAF_BITS	(MASK_SUM_LEAF_WORDS * BITS_PER_LONG)

/**
 * struct mask_pool - the pool of low memory
 * @lock:	protects @used, @head, @cont, @cursor, @free_pages and @free_seq.
 *		Taken with spin_lock_irqsave() since mask_pool_release() runs
 *		on every free path, including from interrupts.
 * @owned:	bit set if the page belongs to the pool.  Written at boot only.
 * @used:	bit set if the page is allocated or is a hole.
 * @head:	bit set on the first (lowest) page of each allocated run, and of
 *		each piece of one that is left when a middle piece goes.
 * @cont:	bit set on a @head page that starts such a remaining piece,
 *		not an allocation: a free that starts there is not a free
 *		of an allocation, and does not count as one.
 * @base_pfn:	lowest pfn covered by the bitmaps.
 * @max_pfn:	highest pfn covered by the bitmaps; bit index = @max_pfn - pfn.
 * @nbits:	number of bits in each bitmap (@max_pfn - @base_pfn + 1).
 * @cursor:	bit index where the next search may start.
 * @sum:	search summary over @used, see struct mask_sum.
 * @sum_stale:	bit set if the leaf's @best may be too high, see struct mask_sum.
 * @sum_leaves:	number of leaves of @sum (a power of two).
 * @pool_pages:	pages owned by the pool.  Written at boot only.
 * @free_pages:	pages currently free.
 * @free_seq:	incremented on every release, so a waiter that saw the pool
 *		full cannot miss a free that happened before it slept.
 * @misuse:	API misuse detected (counted even after WARN_ON_ONCE fired).
 * @injected:	allocations failed by fault injection (fail_mask_alloc).
 * @hwpoison:	pages found HWPoison and kept used for good (under @lock).
 * @force:	"maskzone=force": never try the buddy allocator first.
 */
struct mask_pool {
	spinlock_t lock;		/* protects the allocation state, see above */
	unsigned long *owned;
	unsigned long *used;
	unsigned long *head;
	unsigned long *cont;
	struct mask_sum *sum;
	unsigned long *sum_stale;
	unsigned long sum_leaves;
	unsigned long base_pfn;
	unsigned long max_pfn;
	unsigned long nbits;
	unsigned long cursor;
	unsigned long pool_pages;
	unsigned long free_pages;
	unsigned long free_seq;
	atomic_long_t misuse;
	atomic_long_t injected;
	unsigned long hwpoison;
	bool force;
};

static struct mask_pool mask_pool = {
	.lock = __SPIN_LOCK_UNLOCKED(mask_pool.lock),
	.misuse = ATOMIC_LONG_INIT(0),
	.injected = ATOMIC_LONG_INIT(0),
};

static DECLARE_WAIT_QUEUE_HEAD(mask_pool_wait);

DEFINE_STATIC_KEY_FALSE(mask_pool_key);
EXPORT_SYMBOL_GPL(mask_pool_key);

/* Bound for blocking allocations, in jiffies. */
unsigned long mask_timeout __read_mostly = 5 * HZ;
EXPORT_SYMBOL_GPL(mask_timeout);

/*
 * The pool's span, for the inline range check of mask_pool_page(): written
 * once at boot before mask_pool_key is enabled.  Zero pages: no pool.
 */
unsigned long mask_pool_span_base __read_mostly;
EXPORT_SYMBOL_GPL(mask_pool_span_base);
unsigned long mask_pool_span_pages __read_mostly;
EXPORT_SYMBOL_GPL(mask_pool_span_pages);

/* Boot state: ranges reserved from memblock ([start, end), page aligned). */
struct mask_range {
	phys_addr_t start;
	phys_addr_t end;
};

static struct mask_range mask_ranges[MASK_POOL_MAX_RANGES] __initdata;
static unsigned int mask_nr_ranges __initdata;
static u64 mask_zone_size __initdata;	/* maskzone=size, 0: default */
static bool mask_zone_set __initdata;	/* maskzone=size given, even if clamped to 0 */
static size_t mask_meta_bytes __initdata;	/* bitmaps and summary */

#define MASK_NO_PFN	ULONG_MAX

static inline unsigned long pfn_to_idx(unsigned long pfn)
{
	return mask_pool.max_pfn - pfn;
}

static inline unsigned long idx_to_pfn(unsigned long idx)
{
	return mask_pool.max_pfn - idx;
}

static inline bool pfn_in_span(unsigned long pfn)
{
	return mask_pool.nbits && pfn >= mask_pool.base_pfn &&
	       pfn <= mask_pool.max_pfn;
}

/* Number of pages needed for @size bytes, without overflowing. */
static inline unsigned long size_to_pages(size_t size)
{
	return (size >> PAGE_SHIFT) + !!(size & ~PAGE_MASK);
}

/* First pfn whose page does not lie entirely at or below @mask. */
static inline unsigned long mask_end_pfn(u64 mask)
{
	return (mask >> PAGE_SHIFT) + (((mask & ~PAGE_MASK) + 1) >> PAGE_SHIFT);
}

static void mask_misuse(void)
{
	atomic_long_inc(&mask_pool.misuse);
}

/* Recompute leaf @leaf of the summary from the bitmap, one free run at a time. */
static void mask_sum_leaf(unsigned long leaf)
{
	struct mask_sum *s = &mask_pool.sum[mask_pool.sum_leaves + leaf];
	unsigned long lo = leaf * MASK_SUM_LEAF_BITS;
	unsigned long end = lo + MASK_SUM_LEAF_BITS;
	unsigned long hi = min(end, mask_pool.nbits), i, e;
	u32 best = 0;

	s->pre = 0;
	s->suf = 0;
	for (i = find_next_zero_bit(mask_pool.used, hi, lo); i < hi;
	     i = find_next_zero_bit(mask_pool.used, hi, e)) {
		e = find_next_bit(mask_pool.used, hi, i);
		best = max_t(u32, best, e - i);
		if (i == lo)
			s->pre = e - lo;
		/* Bits past the end of the bitmap count as used. */
		if (e == end)
			s->suf = e - i;
	}
	s->best = best;
}

/*
 * Recompute node @node from its children, which span @span bits each.
 * Returns false if nothing changed.
 */
static inline bool mask_sum_pull(unsigned long node, u32 span)
{
	struct mask_sum *s = mask_pool.sum;
	const struct mask_sum *l = &s[2 * node], *r = &s[2 * node + 1];
	struct mask_sum n;

	n.pre = l->pre == span ? span + r->pre : l->pre;
	n.suf = r->suf == span ? span + l->suf : r->suf;
	n.best = max3(l->best, r->best, l->suf + r->pre);
	if (n.pre == s[node].pre && n.suf == s[node].suf &&
	    n.best == s[node].best)
		return false;
	s[node] = n;
	return true;
}

/* One past the last used bit in [@lo, @i), or @lo; @lo is word aligned. */
static unsigned long mask_used_before(unsigned long lo, unsigned long i)
{
	unsigned long w, base;

	while (i > lo) {
		base = (i - 1) & ~(BITS_PER_LONG - 1UL);
		w = mask_pool.used[base / BITS_PER_LONG] & BITMAP_LAST_WORD_MASK(i);
		if (w)
			return base + __fls(w) + 1;
		i = base;
	}
	return lo;
}

/* The first used bit in [@i, @end), or @end; at most a leaf apart. */
static unsigned long mask_used_from(unsigned long i, unsigned long end)
{
	unsigned long base = i - i % BITS_PER_LONG, w;

	if (i >= end)
		return end;
	w = mask_pool.used[i / BITS_PER_LONG] & (~0UL << (i % BITS_PER_LONG));
	while (!w) {
		base += BITS_PER_LONG;
		if (base >= end)
			return end;
		w = mask_pool.used[base / BITS_PER_LONG];
	}
	return min(base + __ffs(w), end);
}

/* Recompute the summary's path above leaf @leaf, while something changes. */
static void mask_sum_pull_path(unsigned long leaf)
{
	unsigned long node = (mask_pool.sum_leaves + leaf) / 2;
	u32 span = MASK_SUM_LEAF_BITS;

	for (; node && mask_sum_pull(node, span); node /= 2)
		span *= 2;
}

/* Make stale leaf @leaf exact again. */
static void mask_sum_tighten(unsigned long leaf)
{
	__clear_bit(leaf, mask_pool.sum_stale);
	mask_sum_leaf(leaf);
	mask_sum_pull_path(leaf);
}

/*
 * Bits [@start, @start + @nr) were just set.  In each leaf they touch,
 * the free prefix or suffix shrinks if the bits are in it, without a look
 * at the bitmap, and @best may now be too high (they may have split the
 * longest run): the leaf becomes stale.
 */
static void mask_sum_set(unsigned long start, unsigned long nr)
{
	unsigned long leaf = start / MASK_SUM_LEAF_BITS;
	unsigned long lo = leaf * MASK_SUM_LEAF_BITS, end = start + nr;
	struct mask_sum *s = &mask_pool.sum[mask_pool.sum_leaves + leaf];
	unsigned long a, b;
	bool changed;

	for (;; leaf++, s++, lo += MASK_SUM_LEAF_BITS) {
		a = max(start, lo) - lo;
		b = min(end - lo, MASK_SUM_LEAF_BITS);
		changed = false;
		if (a < s->pre) {
			s->pre = a;
			changed = true;
		}
		if (MASK_SUM_LEAF_BITS - b < s->suf) {
			s->suf = MASK_SUM_LEAF_BITS - b;
			changed = true;
		}
		__set_bit(leaf, mask_pool.sum_stale);
		if (changed)
			mask_sum_pull_path(leaf);
		if (end - lo <= MASK_SUM_LEAF_BITS)
			break;
	}
}

/*
 * Bits [@start, @start + @nr) were just cleared.  In each leaf they touch,
 * the free run around them is found from the bitmap; the exact prefix and
 * suffix tell without a look whether it reaches the leaf's ends.  It can
 * only make @best longer.
 */
static void mask_sum_clear(unsigned long start, unsigned long nr)
{
	unsigned long leaf = start / MASK_SUM_LEAF_BITS;
	unsigned long lo = leaf * MASK_SUM_LEAF_BITS, end = start + nr;
	struct mask_sum *s = &mask_pool.sum[mask_pool.sum_leaves + leaf];
	unsigned long a, b, l, r;
	bool changed;

	for (;; leaf++, s++, lo += MASK_SUM_LEAF_BITS) {
		a = max(start, lo);
		b = min(end, lo + MASK_SUM_LEAF_BITS);
		changed = false;
		/* The free run around [a, b) now, [l, r). */
		l = a - lo <= s->pre ? lo : mask_used_before(lo, a);
		if (lo + MASK_SUM_LEAF_BITS - b <= s->suf) {
			r = lo + MASK_SUM_LEAF_BITS;
			s->suf = r - l;
			changed = true;
		} else {
			r = mask_used_from(b, min(lo + MASK_SUM_LEAF_BITS,
						  mask_pool.nbits));
		}
		if (l == lo) {
			s->pre = r - lo;
			changed = true;
		}
		if (r - l > s->best) {
			s->best = r - l;
			changed = true;
		}
		if (changed)
			mask_sum_pull_path(leaf);
		if (end - lo <= MASK_SUM_LEAF_BITS)
			break;
	}
}

/* Build the whole summary from the bitmap. */
static void mask_sum_build(void)
{
	unsigned long node, lo;
	u32 span = MASK_SUM_LEAF_BITS;

	bitmap_zero(mask_pool.sum_stale, mask_pool.sum_leaves);
	for (node = 0; node < mask_pool.sum_leaves; node++)
		mask_sum_leaf(node);
	for (lo = mask_pool.sum_leaves / 2; lo; lo /= 2, span *= 2)
		for (node = lo; node < 2 * lo; node++)
			mask_sum_pull(node, span);
}

/*
 * Scan bits [@i, @end) of one leaf, one free run at a time, as
 * bitmap_find_next_zero_area() does, for @nr free bits: @carry free bits
 * lie just before @i.  Returns the start of the first run that, with the
 * carry, is long enough, or ULONG_MAX with @carry set to the free bits
 * at @end and @longest (unless NULL) raised to the longest run seen in
 * [@i, @end).  Inlined, so that a scan without @longest does not pay
 * for it.  The words are read here rather than through find_next_bit() and
 * find_next_zero_bit(): a leaf is a few words, and a call per run end
 * cost more than the scan.
 */
static inline unsigned long mask_sum_scan(unsigned long i, unsigned long end,
					  unsigned long nr, unsigned long *carry,
					  unsigned long *longest)
{
	const unsigned long *p = &mask_pool.used[i / BITS_PER_LONG];
	unsigned long base = i - i % BITS_PER_LONG, start = i - *carry;
	unsigned long mask = ~0UL << (i % BITS_PER_LONG), w = *p, x, e;
	bool in_run = *carry;

	for (;;) {
		if (!in_run) {
			/* The next free bit starts a run. */
			x = ~w & mask;
			while (!x) {
				base += BITS_PER_LONG;
				if (base >= end)
					goto none;
				w = *++p;
				x = ~w;
			}
			start = base + __ffs(x);
			if (start >= end)
				goto none;
			mask = ~0UL << (start % BITS_PER_LONG);
		}
		in_run = false;
		/* The next used bit ends it. */
		x = w & mask;
		while (!x) {
			base += BITS_PER_LONG;
			if (base >= end || base - start >= nr)
				break;
			w = *++p;
			x = w;
		}
		e = x ? base + __ffs(x) : base;
		if (e >= end) {
			if (end - start >= nr)
				return start;
			if (longest)
				*longest = max(*longest, end - max(start, i));
			*carry = end - start;
			return ULONG_MAX;
		}
		if (e - start >= nr)
			return start;
		if (longest)
			*longest = max(*longest, e - max(start, i));
		/* Bit e is used: the free bits after it. */
		mask = ~0UL << (e % BITS_PER_LONG);
	}
none:
	*carry = 0;
	return ULONG_MAX;
}

/*
 * Scan the whole of leaf node @node, up to @size, as mask_sum_scan().  A
 * leaf scanned without the run that its @best promised was stale, and
 * the scan saw all its free runs: it stores the longest.
 */
static unsigned long mask_sum_scan_leaf(unsigned long node, unsigned long size,
					unsigned long nr, unsigned long *carry)
{
	unsigned long leaf = node - mask_pool.sum_leaves, longest = 0, idx;
	unsigned long lo = leaf * MASK_SUM_LEAF_BITS, hi = lo + MASK_SUM_LEAF_BITS;

	idx = mask_sum_scan(lo, min(hi, size), nr, carry, &longest);
	if (idx == ULONG_MAX && min(hi, mask_pool.nbits) <= size &&
	    __test_and_clear_bit(leaf, mask_pool.sum_stale)) {
		mask_pool.sum[node].best = longest;
		mask_sum_pull_path(leaf);
	}
	return idx;
}

/*
 * First free run of @nr bits at or after index @from that ends at or
 * before @size.  Returns an index above @size - @nr if there is none.
 *
 * The leaf of @from first, then the nodes to its right in order: up the
 * tree while the node is a right child, then to its right sibling, and
 * down from there.  A node whose prefix completes the carried run ends
 * the search; a node whose @best is too short is skipped (the carried
 * free bits become its suffix, or grow by its size); a leaf that may hold
 * the run is scanned.  A run near the start costs the height of its
 * subtree, not of the tree.
 */
static unsigned long mask_sum_find(unsigned long size, unsigned long from,
				   unsigned long nr)
{
	unsigned long node, lo, hi, span = MASK_SUM_LEAF_BITS, carry = 0, idx;
	const struct mask_sum *s;

	if (from >= size || nr > size - from)
		return size;
	node = mask_pool.sum_leaves + from / MASK_SUM_LEAF_BITS;
	lo = from - from % MASK_SUM_LEAF_BITS;
	hi = lo + MASK_SUM_LEAF_BITS;
	s = &mask_pool.sum[node];
	if (s->best < nr) {
		carry = min_t(unsigned long, s->suf, hi - from);
	} else {
		/* Only a whole leaf scan can make a stale leaf exact. */
		if (from == lo)
			idx = mask_sum_scan_leaf(node, size, nr, &carry);
		else
			idx = mask_sum_scan(from, min(hi, size), nr, &carry, NULL);
		if (idx != ULONG_MAX)
			return idx;
	}
	for (lo = hi; lo < size; lo = hi) {
		while (node & 1) {
			node /= 2;
			span *= 2;
		}
		node++;
		/* Down from @node, which covers [@lo, @lo + @span). */
		for (;;) {
			s = &mask_pool.sum[node];
			hi = lo + span;
			if (hi > size) {
				/* Past @size only the carried run counts. */
				idx = min_t(unsigned long, s->pre, size - lo);
				if (s->best < nr)
					return carry + idx >= nr ? lo - carry : size;
			} else {
				if (carry + s->pre >= nr)
					return lo - carry;
				if (s->best < nr) {
					carry = s->pre == span ? carry + span : s->suf;
					break;
				}
			}
			if (span == MASK_SUM_LEAF_BITS) {
				idx = mask_sum_scan_leaf(node, size, nr, &carry);
				if (idx != ULONG_MAX)
					return idx;
				break;
			}
			node *= 2;
			span /= 2;
		}
	}
	return size;
}

/*
 * First free run of @nr bits at or after index @from that ends at or
 * before @size, with the alignment of bitmap_find_next_zero_area_off(),
 * whose pages do not cross a multiple of @boundary_mask + 1 pages.
 * Returns an index above @size - @nr if there is none.
 *
 * This is the lowest index that satisfies all three conditions, exactly
 * what a linear bitmap_find_next_zero_area_off() scan finds.  Each round
 * takes the first free run from the summary; if it is misaligned or
 * crosses a boundary, no index before the next aligned one, or before the
 * segment below, can do better, and the search goes on from there.
 */
static unsigned long mask_find_area(unsigned long size, unsigned long from,
				    unsigned long nr, unsigned long align_mask,
				    unsigned long align_off,
				    unsigned long boundary_mask)
{
	unsigned long idx, start, hi, lo;

	for (;;) {
		if (from > size - nr)
			return from;
		idx = mask_sum_find(size, from, nr);
		if (idx > size - nr)
			return idx;
		start = ((idx + align_off + align_mask) & ~align_mask) - align_off;
		if (start != idx) {
			from = start;
			continue;
		}
		hi = idx_to_pfn(idx);
		lo = hi - (nr - 1);
		if (!((lo ^ hi) & ~boundary_mask))
			return idx;
		/* The next run down must end below the boundary it crossed. */
		from = pfn_to_idx((hi & ~boundary_mask) - 1);
	}
}

/*
 * Search @nr free pages that all lie below @end_pfn, with a first pfn that
 * satisfies (pfn & @align_mask) == @align_pfn, and that do not cross a
 * multiple of @boundary_mask + 1 pages (~0UL: no boundary).  Marks them
 * used and the first one as head.  Returns the first (lowest) pfn, or
 * MASK_NO_PFN.  Called with the lock held.
 */
static unsigned long mask_pool_find(unsigned long nr, unsigned long end_pfn,
				    unsigned long align_mask,
				    unsigned long align_pfn,
				    unsigned long boundary_mask)
{
	unsigned long size = mask_pool.nbits, first, mid, idx, from, pfn;
	unsigned long align_off = 0;
	bool found = false;

	lockdep_assert_held(&mask_pool.lock);

	if (!size || end_pfn <= mask_pool.base_pfn)
		return MASK_NO_PFN;
	/* Index of the highest pfn allowed by the mask. */
	first = end_pfn > mask_pool.max_pfn ? 0 : pfn_to_idx(end_pfn - 1);
	if (nr > size - first || nr - 1 > boundary_mask)
		return MASK_NO_PFN;
	/*
	 * The run at index idx starts at pfn max_pfn + 1 - nr - idx, and
	 * bitmap_find_next_zero_area_off() returns an idx with
	 * ((idx + align_off) & align_mask) == 0.
	 */
	if (align_mask)
		align_off = (nr + align_pfn - mask_pool.max_pfn - 1) & align_mask;

	/* Upper half of the allowed range: start at the cursor. */
	mid = first + (size - first) / 2;
	from = mask_pool.cursor;
	if (from >= first && from < mid && nr <= mid - from) {
		idx = mask_find_area(mid, from, nr, align_mask, align_off,
				     boundary_mask);
		found = idx <= mid - nr;
	}
	if (!found) {
		from = first;
		idx = mask_find_area(size, from, nr, align_mask, align_off,
				     boundary_mask);
		found = idx <= size - nr;
	}
	if (!found)
		return MASK_NO_PFN;

	count_vm_events(MASK_BITMAP_SKIP, idx - from);
	bitmap_set(mask_pool.used, idx, nr);
	mask_sum_set(idx, nr);
	pfn = idx_to_pfn(idx + nr - 1);
	__set_bit(pfn_to_idx(pfn), mask_pool.head);
	/* Written under the lock, read without it by the warnings. */
	WRITE_ONCE(mask_pool.free_pages, mask_pool.free_pages - nr);
	mask_pool.cursor = idx + nr < size ? idx + nr : 0;
	return pfn;
}

/*
 * Fault injection (CONFIG_FAIL_MASK_ALLOC), like mm/fail_page_alloc.c:
 * "fail_mask_alloc=<interval>,<probability>,<space>,<times>" at boot and
 * /sys/kernel/debug/fail_mask_alloc/ later, with the knobs below.  It is
 * asked at the two entry points of the pool, mask_pool_alloc() and
 * mask_pool_alloc_bounce(), once a request could fit, and an injected
 * failure returns what a full pool returns there, before any page is
 * taken: callers take their exhaustion path, with its counters and
 * messages.  The size given to the attribute (for @space) is in pages.
 */
#ifdef CONFIG_FAIL_MASK_ALLOC
struct fail_mask_alloc_attr fail_mask_alloc = {
	.attr = FAULT_ATTR_INITIALIZER,
	.ignore_gfp_reclaim = true,
	.min_pages = 1,
};
EXPORT_SYMBOL_IF_KUNIT(fail_mask_alloc);

/* An early parameter, so that it also covers allocations during boot. */
static int __init setup_fail_mask_alloc(char *str)
{
	if (!str) {
		pr_err("fail_mask_alloc needs a value: fail_mask_alloc=<interval>,<probability>,<space>,<times>; nothing armed\n");
		return -EINVAL;
	}
	/* It reports what it cannot parse, and then changes nothing. */
	return setup_fault_attr(&fail_mask_alloc.attr, str) ? 0 : -EINVAL;
}
early_param("fail_mask_alloc", setup_fail_mask_alloc);

/* Fail this request of @nr pages?  @bounce: from mask_pool_alloc_bounce(). */
static bool should_fail_mask_alloc(gfp_t gfp, unsigned long nr, bool bounce)
{
	if (gfp & __GFP_NOFAIL)
		return false;
	if (nr < READ_ONCE(fail_mask_alloc.min_pages))
		return false;
	if (!bounce && READ_ONCE(fail_mask_alloc.bounce_only))
		return false;
	if (READ_ONCE(fail_mask_alloc.ignore_gfp_reclaim) &&
	    (gfp & __GFP_DIRECT_RECLAIM))
		return false;
	if (!should_fail_ex(&fail_mask_alloc.attr, nr,
			    (gfp & __GFP_NOWARN) ? FAULT_NOWARN : 0))
		return false;
	atomic_long_inc(&mask_pool.injected);
	return true;
}

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
static int __init fail_mask_alloc_debugfs(void)
{
	umode_t mode = S_IFREG | 0600;
	struct dentry *dir;

	dir = fault_create_debugfs_attr("fail_mask_alloc", NULL,
					&fail_mask_alloc.attr);
	debugfs_create_bool("ignore-gfp-wait", mode, dir,
			    &fail_mask_alloc.ignore_gfp_reclaim);
	debugfs_create_bool("bounce-only", mode, dir,
			    &fail_mask_alloc.bounce_only);
	debugfs_create_u32("min-pages", mode, dir, &fail_mask_alloc.min_pages);
	return 0;
}
late_initcall(fail_mask_alloc_debugfs);
#endif /* CONFIG_FAULT_INJECTION_DEBUG_FS */
#else /* !CONFIG_FAIL_MASK_ALLOC */
static inline bool should_fail_mask_alloc(gfp_t gfp, unsigned long nr,
					  bool bounce)
{
	return false;
}
#endif /* CONFIG_FAIL_MASK_ALLOC */

/*
 * Could @nr pool pages below @end_pfn, aligned to 1 << @order, ever be
 * free together?  The pool's own holes can make the answer no for a
 * request that fits its size and span.  @owned is read-only after boot,
 * so no lock; the pool has few ranges, so this is cheap.
 */
static bool mask_pool_can_fit(unsigned long nr, unsigned long end_pfn,
			      unsigned int order)
{
	unsigned long size = mask_pool.nbits, i, e, lo, hi;

	i = end_pfn > mask_pool.max_pfn ? 0 : pfn_to_idx(end_pfn - 1);
	for (; (i = find_next_bit(mask_pool.owned, size, i)) < size; i = e) {
		e = find_next_zero_bit(mask_pool.owned, size, i);
		/* The owned run [i, e) holds pfns idx_to_pfn(e - 1)..idx_to_pfn(i). */
		lo = round_up(idx_to_pfn(e - 1), 1UL << order);
		hi = idx_to_pfn(i);
		if (lo <= hi && hi - lo + 1 >= nr)
			return true;
	}
	return false;
}

/*
 * memory_failure() may mark a page HWPoison while it is free in the pool;
 * such a page must never be handed out (the page allocator drops them in
 * check_new_pages()).  Check the run [@pfn, @pfn + @nr) just taken: if it
 * holds such pages, they stay used for good, each a run of its own that
 * nothing frees (free_pages_prepare() keeps HWPoison pages), the others go
 * back, and the caller searches again.  Returns true if the run is clean.
 */
static bool mask_run_clean(unsigned long pfn, unsigned long nr)
{
	unsigned long i, flags, idx, bad = 0;

	if (!IS_ENABLED(CONFIG_MEMORY_FAILURE))
		return true;
	for (i = 0; i < nr; i++)
		bad += !!PageHWPoison(pfn_to_page(pfn + i));
	if (likely(!bad))
		return true;

	spin_lock_irqsave(&mask_pool.lock, flags);
	for (i = 0; i < nr; i++) {
		idx = pfn_to_idx(pfn + i);
		if (PageHWPoison(pfn_to_page(pfn + i))) {
			__set_bit(idx, mask_pool.head);
			continue;
		}
		__clear_bit(idx, mask_pool.head);
		__clear_bit(idx, mask_pool.used);
		mask_sum_clear(idx, 1);
	}
	mask_pool.hwpoison += bad;
	WRITE_ONCE(mask_pool.free_pages, mask_pool.free_pages + nr - bad);
	WRITE_ONCE(mask_pool.free_seq, mask_pool.free_seq + 1);
	spin_unlock_irqrestore(&mask_pool.lock, flags);
	pr_warn_ratelimited("%lu HWPoison page(s) in pfns %#lx-%#lx kept out of use\n",
			    bad, pfn, pfn + nr - 1);
	return false;
}

/*
 * Allocate @nr pool pages below @end_pfn, aligned to 1 << @order.
 *
 * Waiting, only if gfpflags_allow_blocking(@gfp):
 *   default              at most mask_timeout jiffies in total
 *   __GFP_NORETRY        no waiting
 *   __GFP_RETRY_MAYFAIL  wait while frees keep arriving; fail after one
 *                        full mask_timeout without any free
 *   __GFP_NOFAIL         wait forever (unless the request can never fit)
 *
 * Unless __GFP_NOFAIL, a fatal signal ends the wait with a failure.
 */
static struct page *mask_pool_alloc(gfp_t gfp, unsigned long nr,
				    unsigned long end_pfn, unsigned int order)
{
	bool can_block = gfpflags_allow_blocking(gfp);
	bool nofail = gfp & __GFP_NOFAIL, checked = false;
	unsigned long timeout = READ_ONCE(mask_timeout), start = jiffies;
	unsigned long flags, pfn, seq, chunk, waited, left, t0;
	long ret;

	might_sleep_if(can_block);

	if (!mask_pool_enabled())
		return NULL;
	/* Never fits, whatever is freed: do not wait for it. */
	if (end_pfn <= mask_pool.base_pfn || nr > mask_pool.pool_pages ||
	    nr > min(end_pfn, mask_pool.max_pfn + 1) - mask_pool.base_pfn)
		return NULL;
	/* Injected: fail as a full pool does, before taking anything. */
	if (should_fail_mask_alloc(gfp, nr, false))
		return NULL;

	for (;;) {
		spin_lock_irqsave(&mask_pool.lock, flags);
		pfn = mask_pool_find(nr, end_pfn, (1UL << order) - 1, 0, ~0UL);
		seq = mask_pool.free_seq;
		spin_unlock_irqrestore(&mask_pool.lock, flags);

		if (pfn != MASK_NO_PFN) {
			if (mask_run_clean(pfn, nr))
				return pfn_to_page(pfn);
			continue;
		}
		if (!can_block)
			return NULL;
		/*
		 * The time left is measured from @start on the clock, not
		 * summed from what wait_event_timeout() returns: that is at
		 * least 1 whenever the waiter is woken, so a waiter with one
		 * jiffy left that a free (too small for it) wakes every jiffy
		 * would never time out.
		 */
		left = timeout - min(jiffies - start, timeout);
		if (!nofail && ((gfp & __GFP_NORETRY) || !left))
			return NULL;
		/* Before the first wait: not even __GFP_NOFAIL waits forever. */
		if (!checked && !mask_pool_can_fit(nr, end_pfn, order)) {
			WARN_ON_ONCE(nofail);
			return NULL;
		}
		checked = true;

		chunk = nofail ? max(timeout, 1UL) : left;
		t0 = jiffies;
		if (nofail)
			ret = wait_event_timeout(mask_pool_wait,
						 READ_ONCE(mask_pool.free_seq) != seq,
						 chunk);
		else
			ret = wait_event_killable_timeout(mask_pool_wait,
							  READ_ONCE(mask_pool.free_seq) != seq,
							  chunk);
		waited = ret ? min(jiffies - t0, chunk) : chunk;
		count_vm_events(MASK_WAIT, waited);
		/* A fatal signal: the task is going away, do not keep it. */
		if (ret < 0)
			return NULL;

		/* __GFP_RETRY_MAYFAIL: a free came, so a full timeout again */
		if (ret && (gfp & __GFP_RETRY_MAYFAIL))
			start = jiffies;
	}
}

static void mask_alloc_warn(gfp_t gfp, size_t size, u64 mask)
{
	count_vm_event(MASK_FAIL);
	if (gfp & __GFP_NOWARN)
		return;
	if (!mask_pool_enabled()) {
		pr_warn_ratelimited("%s: cannot allocate %zu bytes below %#llx, gfp %pGg: there is no mask pool (see the boot log)\n",
				    current->comm, size, (unsigned long long)mask,
				    &gfp);
		return;
	}
	pr_warn_ratelimited("%s: cannot allocate %zu bytes below %#llx, gfp %pGg, %lu KiB free in the pool\n",
			    current->comm, size, (unsigned long long)mask, &gfp,
			    READ_ONCE(mask_pool.free_pages) << (PAGE_SHIFT - 10));
}

/*
 * Try the normal zones; give back anything above the mask.  Unless this is
 * the @final answer (the mask covers all of ZONE_DMA32, so the zones'
 * answer cannot be above it), it is only a trial before the pool: no
 * reclaim, no compaction, no retries, no warning.  Reclaiming for pages
 * that may well land above the mask would cost the caller for nothing.
 */
static struct page *mask_alloc_normal(int nid, gfp_t gfp, size_t size,
				      u64 mask, bool final)
{
	unsigned int order = get_order(size);
	struct page *page;

	if (order > MAX_PAGE_ORDER)
		return NULL;
	if (!final)
		gfp = (gfp & ~(__GFP_NOFAIL | __GFP_RECLAIM | __GFP_RETRY_MAYFAIL)) |
		      __GFP_NOWARN | __GFP_NORETRY;
	if (mask < SZ_4G)
		gfp |= GFP_DMA32;

	page = alloc_pages_node_noprof(nid, gfp, order);
	if (page && page_to_phys(page) + size - 1 > mask) {
		__free_pages(page, order);
		/*
		 * A mask at or above 4 GB got memory above it from ZONE_NORMAL,
		 * but covers all of ZONE_DMA32: try there before the pool.
		 */
		page = NULL;
		if (!(gfp & __GFP_DMA32))
			page = alloc_pages_node_noprof(nid, gfp | GFP_DMA32, order);
		if (page && page_to_phys(page) + size - 1 > mask) {
			__free_pages(page, order);
			page = NULL;
		}
	}
	if (!page)
		return NULL;
	count_vm_event(MASK_HIGHER);
	count_vm_events(MASK_HIGH_WASTE, (PAGE_SIZE << order) - size);
	return page;
}

/* Order of the largest naturally sized chunk that starts a run of @nr pages. */
static unsigned int mask_chunk_order(unsigned long nr)
{
	return min_t(unsigned int, ilog2(nr), MAX_PAGE_ORDER);
}

/*
 * Free the chunks of the run of @nr pages at @page that start at or after
 * page @from, through mm's free preparation, which hands each back to the
 * pool through mask_pool_release().  Their refcounts are zero.
 */
static void mask_run_free_chunks(struct page *page, unsigned long nr,
				 unsigned long from)
{
	unsigned int order;
	unsigned long i;

	for (i = 0; i < nr; i += 1UL << order) {
		order = mask_chunk_order(nr - i);
		if (i >= from)
			mask_free_prepare(page + i, order);
	}
}

/*
 * Prepare a run just taken from the pool as the page allocator prepares its
 * pages, in naturally sized chunks, largest first: post_alloc_hook(),
 * kmsan_alloc_page() and, with __GFP_ACCOUNT, the memcg charge.  Freed in
 * the same chunks, so that every hook sees the order it saw here.  If a
 * charge fails, the whole run goes back and false is returned.
 */
static bool mask_run_prep(struct page *page, unsigned long nr, gfp_t gfp)
{
	unsigned int order;
	unsigned long i;

	for (i = 0; i < nr; i += 1UL << order) {
		order = mask_chunk_order(nr - i);
		post_alloc_hook(page + i, order, gfp);
		kmsan_alloc_page(page + i, order, gfp);
	}
	if (!(gfp & __GFP_ACCOUNT))
		return true;
	for (i = 0; i < nr; i += 1UL << order) {
		order = mask_chunk_order(nr - i);
		if (memcg_kmem_charge_page(page + i, gfp, order)) {
			mask_run_free_chunks(page, nr, 0);
			return false;
		}
	}
	return true;
}

/* Does the mask end inside the pool's span, where the pool took all memory? */
static inline bool mask_inside_span(unsigned long end_pfn)
{
	return mask_pool_enabled() && end_pfn <= mask_pool.max_pfn + 1;
}

/**
 * alloc_pages_mask_node - allocate pages below a physical address limit
 * @nid: preferred node for the normal-zone attempt, or NUMA_NO_NODE
 * @gfp: GFP flags; no zone modifiers and no __GFP_COMP
 * @size: size in bytes, rounded up to whole pages (not to a power of two)
 * @mask: highest physical address any byte of the allocation may have
 *
 * Tries the normal zones first, then the mask pool.  The zones are tried
 * without reclaim, compaction or retries, unless the mask covers all of
 * ZONE_DMA32 (then their answer is final); they are not tried with
 * "maskzone=force", nor when the mask ends inside the pool's span, where
 * the pool holds all the memory below it.  Pool allocations are not
 * compound: the first page holds the reference, the others have a zero
 * refcount, like a non-compound high-order buddy allocation.  Free with
 * __free_pages_mask() and the same @size.  __GFP_ACCOUNT charges the
 * pages to the current memory cgroup.
 *
 * Context: Process context if @gfp allows blocking (may then sleep up to
 * mask_timeout jiffies, or forever with __GFP_NOFAIL); any context
 * otherwise.
 * Return: the first page, or NULL on failure or misuse.
 */
struct page *alloc_pages_mask_node_noprof(int nid, gfp_t gfp, size_t size,
					  u64 mask)
{
	unsigned long end_pfn = mask_end_pfn(mask);
	unsigned long nr;
	struct page *page;

	if (WARN_ON_ONCE(size < MASK_MIN_SIZE) ||
	    WARN_ON_ONCE(gfp & (GFP_ZONEMASK | __GFP_COMP))) {
		mask_misuse();
		return NULL;
	}
	nr = size_to_pages(size);

	if (!READ_ONCE(mask_pool.force) && !mask_inside_span(end_pfn)) {
		bool final = end_pfn >= max_low_pfn;

		page = mask_alloc_normal(nid, gfp, size, mask, final);
		if (page)
			return page;
		if (final) {
			/* The zones already warned, unless __GFP_NOWARN. */
			count_vm_event(MASK_FAIL);
			return NULL;
		}
	}

	page = mask_pool_alloc(gfp, nr, end_pfn, 0);
	if (!page) {
		mask_alloc_warn(gfp, size, mask);
		return NULL;
	}
	/* Counted before the charge: a run that fails it is freed again. */
	count_vm_event(MASK_ALLOC);
	if (!mask_run_prep(page, nr, gfp)) {
		mask_alloc_warn(gfp, size, mask);
		return NULL;
	}
	set_page_refcounted(page);
	count_vm_events(MASK_LOW_WASTE, nr * PAGE_SIZE - size);
	return page;
}
EXPORT_SYMBOL_GPL(alloc_pages_mask_node_noprof);

/**
 * alloc_pages_mask - allocate pages below a physical address limit
 * @gfp: GFP flags; no zone modifiers and no __GFP_COMP
 * @size: size in bytes, rounded up to whole pages
 * @mask: highest physical address any byte of the allocation may have
 *
 * alloc_pages_mask_node() on any node.
 *
 * Context: See alloc_pages_mask_node().
 * Return: the first page, or NULL.
 */
struct page *alloc_pages_mask_noprof(gfp_t gfp, size_t size, u64 mask)
{
	return alloc_pages_mask_node_noprof(NUMA_NO_NODE, gfp, size, mask);
}
EXPORT_SYMBOL_GPL(alloc_pages_mask_noprof);

/**
 * get_pages_mask - allocate memory below a physical address limit
 * @gfp: GFP flags; no zone modifiers, no __GFP_COMP, no __GFP_HIGHMEM
 * @size: size in bytes, rounded up to whole pages
 * @mask: highest physical address any byte of the allocation may have
 *
 * Context: See alloc_pages_mask_node().
 * Return: the kernel virtual address of the memory, or NULL.
 */
void *get_pages_mask_noprof(gfp_t gfp, size_t size, u64 mask)
{
	struct page *page = alloc_pages_mask_noprof(gfp, size, mask);

	return page ? page_address(page) : NULL;
}
EXPORT_SYMBOL_GPL(get_pages_mask_noprof);

/* Is [pfn, pfn + nr) exactly one allocated run?  Called with the lock held. */
static bool mask_run_is_alloc(unsigned long pfn, unsigned long nr)
{
	unsigned long lo, hi, after;

	if (!nr || !pfn_in_span(pfn) || nr - 1 > mask_pool.max_pfn - pfn)
		return false;
	lo = pfn_to_idx(pfn + nr - 1);
	hi = pfn_to_idx(pfn);
	if (find_next_zero_bit(mask_pool.owned, hi + 1, lo) <= hi ||
	    find_next_zero_bit(mask_pool.used, hi + 1, lo) <= hi)
		return false;
	/* An allocation's head at the first page, no head elsewhere in the run. */
	if (!test_bit(hi, mask_pool.head) || test_bit(hi, mask_pool.cont) ||
	    find_next_bit(mask_pool.head, hi, lo) < hi)
		return false;
	/* The page after the run must not continue it. */
	if (!lo)
		return true;
	after = lo - 1;
	return !test_bit(after, mask_pool.owned) ||
	       !test_bit(after, mask_pool.used) ||
	       test_bit(after, mask_pool.head);
}

/**
 * __free_pages_mask - free pages allocated with alloc_pages_mask()
 * @page: first page of the allocation
 * @size: size in bytes, exactly as passed to the allocation
 *
 * Pages that came from the normal zones go back with __free_pages(), if
 * @size is one the zones can have served.  Pool pages are checked first:
 * @page must start an allocated run of exactly @size (rounded up to
 * pages); anything else is reported once
 * with a warning, counted as misuse, and nothing is freed.  If someone
 * still holds a reference to @page, the other pages are freed now and
 * @page when that reference is dropped (the __free_pages() rule).
 *
 * Context: Any context that may free pages.
 */
void __free_pages_mask(struct page *page, size_t size)
{
	unsigned long nr, flags;
	struct alloc_tag *tag;
	unsigned int order;
	bool ok;

	if (WARN_ON_ONCE(!page || size < MASK_MIN_SIZE)) {
		mask_misuse();
		return;
	}
	if (!mask_pool_page(page)) {
		/* The zones never gave out more than MAX_PAGE_ORDER. */
		if (WARN_ON_ONCE(get_order(size) > MAX_PAGE_ORDER)) {
			mask_misuse();
			return;
		}
		__free_pages(page, get_order(size));
		return;
	}

	nr = size_to_pages(size);
	spin_lock_irqsave(&mask_pool.lock, flags);
	ok = mask_run_is_alloc(page_to_pfn(page), nr);
	spin_unlock_irqrestore(&mask_pool.lock, flags);
	if (WARN_ON_ONCE(!ok)) {
		mask_misuse();
		return;
	}

	/*
	 * In the chunks it was prepared in: all but the first now, then the
	 * first.  The run keeps its head until the end.
	 */
	order = mask_chunk_order(nr);
	mask_run_free_chunks(page, nr, 1UL << order);
	tag = pgalloc_tag_get(page);
	if (put_page_testzero(page)) {
		mask_free_prepare(page, order);
		return;
	}
	/*
	 * Someone holds a speculative reference to @page: as __free_pages()
	 * does, the rest of its chunk goes now and @page when that reference
	 * is dropped.  The chunk's alloc tag stays with @page, for one page;
	 * the pages freed now carry none.
	 */
	pgalloc_tag_sub_pages(tag, (1 << order) - 1);
	while (order-- > 0) {
		clear_page_tag_ref(page + (1 << order));
		mask_free_prepare(page + (1 << order), order);
	}
}
EXPORT_SYMBOL_GPL(__free_pages_mask);

/**
 * free_pages_mask - free memory allocated with get_pages_mask()
 * @addr: address returned by get_pages_mask(), or NULL
 * @size: size in bytes, exactly as passed to the allocation
 *
 * Context: Any context that may free pages.
 */
void free_pages_mask(void *addr, size_t size)
{
	if (addr)
		__free_pages_mask(virt_to_page(addr), size);
}
EXPORT_SYMBOL_GPL(free_pages_mask);

/**
 * __mask_pool_page - out-of-line part of mask_pool_page()
 * @page: any page
 *
 * Context: Any context.
 * Return: true if @page is owned by the pool.
 */
bool __mask_pool_page(const struct page *page)
{
	unsigned long pfn = page_to_pfn(page);

	return pfn_in_span(pfn) && test_bit(pfn_to_idx(pfn), mask_pool.owned);
}
EXPORT_SYMBOL_GPL(__mask_pool_page);

/* True if bits [@lo, @end) are all set in @owned and in @used. */
static bool mask_owned_used(unsigned long lo, unsigned long end)
{
	unsigned long k = lo / BITS_PER_LONG, last = (end - 1) / BITS_PER_LONG;
	unsigned long m = ~0UL << (lo % BITS_PER_LONG), w;

	for (;; k++, m = ~0UL) {
		if (k == last)
			m &= BITMAP_LAST_WORD_MASK(end);
		w = mask_pool.owned[k] & mask_pool.used[k];
		if ((w & m) != m)
			return false;
		if (k == last)
			return true;
	}
}

/*
 * May [@pfn, @pfn + @nr) be freed?  Only if it lies inside one allocation:
 * every page owned and allocated, and no head (of an allocation or of a
 * piece of one) inside it after its first page (a range that runs past
 * the end of its piece into the next one, or into free pages, is
 * refused).  A range may start in the
 * middle of an allocation: __free_pages() with a speculative reference,
 * split_page() and alloc_pages_exact() free such pieces.  On success the
 * bitmap indices of the range are in [*@lo, *@hi].  Called with the lock
 * held, or see mask_pool_free_ok().
 */
static bool mask_free_range_ok(unsigned long pfn, unsigned long nr,
			       unsigned long *lo, unsigned long *hi)
{
	if (!nr || !pfn_in_span(pfn) || nr - 1 > mask_pool.max_pfn - pfn)
		return false;
	*lo = pfn_to_idx(pfn + nr - 1);
	*hi = pfn_to_idx(pfn);
	return mask_owned_used(*lo, *hi + 1) &&
	       find_next_bit(mask_pool.head, *hi, *lo) >= *hi;
}

/**
 * mask_pool_free_ok - may these pool pages be freed?
 * @page: first page of the range, a pool page
 * @nr_pages: number of pages
 *
 * Called at the start of free_pages_prepare() for pool pages, before any
 * check, poisoning or init_on_free touches them, so that a free that does
 * not match an allocation (an order larger than the allocation, a range
 * that starts in one allocation and runs into the next, a double free)
 * changes nothing, whatever debug options the kernel has.  Such a free is
 * reported once with a warning and counted as misuse.
 *
 * The bitmaps are read without the lock.  For a range that the caller
 * owns, nobody else may change its bits, and the words they share with
 * other pages are written whole, so the answer is exact; only a free that
 * is wrong and races with an allocation of the same pages can be let
 * through here, and mask_pool_release() checks again under the lock.
 *
 * Context: Any context that may free pages.
 * Return: true if the range lies inside one allocation.
 */
bool mask_pool_free_ok(struct page *page, unsigned int nr_pages)
{
	unsigned long lo, hi;
	bool ok;

	/* Lockless: the caller's own bits cannot change under it, see above. */
	ok = data_race(mask_free_range_ok(page_to_pfn(page), nr_pages, &lo, &hi));
	if (WARN_ON_ONCE(!ok))
		mask_misuse();
	return ok;
}

/**
 * mask_pool_release - give pool pages back to the pool
 * @page: first page of the range
 * @nr_pages: number of pages
 *
 * Called at the end of free_pages_prepare() for pool pages, after mm's
 * free checks and poisoning, so every way of freeing pages works for any
 * sub-range of an allocation: __free_pages() including its tail rule,
 * split_page() followed by free_page(), free_pages_exact(), folio_put()
 * of a compound allocation, and __free_pages_mask().  The page after the
 * range, if still allocated and not a head, becomes the head of the piece
 * left after it (a continuation, @cont).  A range that mask_pool_free_ok() would
 * refuse (a double free that raced with another) is reported once with a
 * warning, counted as misuse, and nothing changes.
 *
 * Context: Any context that may free pages.
 */
void mask_pool_release(struct page *page, unsigned int nr_pages)
{
	unsigned long flags, lo, hi, after;
	bool ended;

	spin_lock_irqsave(&mask_pool.lock, flags);
	if (!mask_free_range_ok(page_to_pfn(page), nr_pages, &lo, &hi)) {
		spin_unlock_irqrestore(&mask_pool.lock, flags);
		WARN_ON_ONCE(1);
		mask_misuse();
		return;
	}

	/*
	 * An allocation counts as returned when the piece with its first
	 * page goes.  Whatever of it follows the freed range becomes a
	 * piece of its own, with a head marked as a continuation, so that
	 * every allocated piece starts with a head: a free that runs into
	 * it is refused, and a free of the run below it is not taken for
	 * one that runs on into it.
	 */
	ended = test_bit(hi, mask_pool.head) && !test_bit(hi, mask_pool.cont);
	bitmap_clear(mask_pool.used, lo, nr_pages);
	mask_sum_clear(lo, nr_pages);
	bitmap_clear(mask_pool.head, lo, nr_pages);
	bitmap_clear(mask_pool.cont, lo, nr_pages);
	after = lo - 1;
	if (lo && test_bit(after, mask_pool.owned) &&
	    test_bit(after, mask_pool.used) &&
	    !test_bit(after, mask_pool.head)) {
		__set_bit(after, mask_pool.head);
		__set_bit(after, mask_pool.cont);
	}
	WRITE_ONCE(mask_pool.free_pages, mask_pool.free_pages + nr_pages);
	WRITE_ONCE(mask_pool.free_seq, mask_pool.free_seq + 1);
	spin_unlock_irqrestore(&mask_pool.lock, flags);

	if (ended)
		count_vm_event(MASK_FREE);
	/* Pairs with the barrier in prepare_to_wait() of a sleeping allocator. */
	if (wq_has_sleeper(&mask_pool_wait))
		wake_up(&mask_pool_wait);
}

/**
 * mask_pool_alloc_compat - serve a __GFP_DMA page allocation from the pool
 * @gfp: GFP flags of the request, with __GFP_DMA already removed
 * @order: allocation order
 *
 * Allocates a naturally aligned run of 1 << @order pages below the
 * GFP_DMA limit and prepares it like the buddy allocator does
 * (prep_new_page(): compound with __GFP_COMP, zeroed with __GFP_ZERO or
 * init_on_alloc).  Free it like any buddy page.
 *
 * Context: May sleep only if gfpflags_allow_blocking(@gfp).
 * Return: the first page, or NULL.
 */
struct page *mask_pool_alloc_compat(gfp_t gfp, unsigned int order)
{
	u64 limit = mask_compat_limit();
	struct page *page;

	if (order > MAX_PAGE_ORDER)
		return NULL;
	gfp &= ~GFP_ZONEMASK;
	page = mask_pool_alloc(gfp, 1UL << order, mask_end_pfn(limit), order);
	if (!page) {
		mask_alloc_warn(gfp, PAGE_SIZE << order, limit);
		return NULL;
	}
	prep_new_page(page, order, gfp, 0);
	count_vm_event(MASK_ALLOC);
	return page;
}

/**
 * mask_pool_alloc_bounce - take a run of pool pages for a bounce buffer
 * @nr: number of pages
 * @limit: highest physical address any byte of the run may have
 * @align_mask: the first pfn must satisfy (pfn & @align_mask) == @align_pfn;
 *	2^k - 1
 * @align_pfn: see @align_mask
 * @boundary_mask: the run must not cross a multiple of @boundary_mask + 1
 *	pages (the device's segment boundary), 2^k - 1; ~0UL for none
 *
 * For swiotlb bouncing through the pool (kernel/dma/dmatlb.c).  Pool only:
 * the buddy allocator is never tried, and the caller never waits.  The
 * pages are prepared by post_alloc_hook() in the same power-of-two chunks
 * that mask_pool_free_bounce() frees, and each page has a refcount of one.
 * Failures are not reported here; the caller knows what to say.
 *
 * Context: Any context.
 * Return: the first page; ERR_PTR(-ERANGE) if no pool page lies below
 * @limit, ERR_PTR(-E2BIG) if @nr pages can never fit below @limit,
 * ERR_PTR(-ENOMEM) if they do not fit now, ERR_PTR(-EINVAL) on misuse.
 */
struct page *mask_pool_alloc_bounce_noprof(unsigned long nr, u64 limit,
					   unsigned long align_mask,
					   unsigned long align_pfn,
					   unsigned long boundary_mask)
{
	unsigned long end_pfn = mask_end_pfn(limit), flags, pfn, i;
	struct page *page;

	/* Both masks are 2^k - 1, as dma_get_min_align_mask() and friends. */
	if (WARN_ON_ONCE(!nr || (align_pfn & ~align_mask) ||
			 (align_mask & (align_mask + 1)) ||
			 (boundary_mask & (boundary_mask + 1)))) {
		mask_misuse();
		return ERR_PTR(-EINVAL);
	}
	if (!mask_pool_enabled() || end_pfn <= mask_pool.base_pfn)
		return ERR_PTR(-ERANGE);
	if (nr > mask_pool.pool_pages || nr - 1 > boundary_mask ||
	    nr > min(end_pfn, mask_pool.max_pfn + 1) - mask_pool.base_pfn)
		return ERR_PTR(-E2BIG);
	/* Injected: fail as a full pool does, before taking anything. */
	if (should_fail_mask_alloc(GFP_ATOMIC, nr, true))
		return ERR_PTR(-ENOMEM);

	do {
		spin_lock_irqsave(&mask_pool.lock, flags);
		pfn = mask_pool_find(nr, end_pfn, align_mask, align_pfn,
				     boundary_mask);
		spin_unlock_irqrestore(&mask_pool.lock, flags);
		if (pfn == MASK_NO_PFN)
			return ERR_PTR(-ENOMEM);
	} while (!mask_run_clean(pfn, nr));

	page = pfn_to_page(pfn);
	mask_run_prep(page, nr, GFP_ATOMIC);
	for (i = 0; i < nr; i++)
		set_page_refcounted(page + i);
	count_vm_event(MASK_ALLOC);
	return page;
}
EXPORT_SYMBOL_GPL(mask_pool_alloc_bounce_noprof);

/**
 * mask_pool_free_bounce - give back a run from mask_pool_alloc_bounce()
 * @page: first page of the run
 * @nr: number of pages, as allocated
 *
 * The run must be exactly one allocation and each page must hold only the
 * reference it was allocated with.  Anything else is reported once with a
 * warning, counted as misuse, and nothing is freed.
 *
 * Context: Any context that may free pages.
 */
void mask_pool_free_bounce(struct page *page, unsigned long nr)
{
	unsigned long flags, i;
	bool ok;

	if (WARN_ON_ONCE(!page || !nr)) {
		mask_misuse();
		return;
	}
	spin_lock_irqsave(&mask_pool.lock, flags);
	ok = mask_run_is_alloc(page_to_pfn(page), nr);
	spin_unlock_irqrestore(&mask_pool.lock, flags);
	for (i = 0; ok && i < nr; i++)
		ok = page_ref_count(page + i) == 1;
	if (WARN_ON_ONCE(!ok)) {
		mask_misuse();
		return;
	}
	for (i = 0; i < nr; i++)
		set_page_count(page + i, 0);
	mask_run_free_chunks(page, nr, 0);
}
EXPORT_SYMBOL_GPL(mask_pool_free_bounce);

/**
 * mask_pool_get_stats - snapshot of the pool state
 * @st: filled in
 *
 * Context: Any context; takes the pool lock.
 */
void mask_pool_get_stats(struct mask_pool_stats *st)
{
	unsigned long flags, size = mask_pool.nbits, best, leaf;

	*st = (struct mask_pool_stats){ };
	st->misuse = atomic_long_read(&mask_pool.misuse);
	st->injected = atomic_long_read(&mask_pool.injected);
	st->force = READ_ONCE(mask_pool.force);
	st->timeout_ms = jiffies_to_msecs(READ_ONCE(mask_timeout));
	if (!mask_pool.pool_pages)
		return;

	spin_lock_irqsave(&mask_pool.lock, flags);
	st->pool_pages = mask_pool.pool_pages;
	st->free_pages = mask_pool.free_pages;
	st->hwpoison_pages = mask_pool.hwpoison;
	/* The root of the search summary holds the longest free run. */
	for_each_set_bit(leaf, mask_pool.sum_stale, mask_pool.sum_leaves)
		mask_sum_tighten(leaf);
	best = mask_pool.sum[1].best;
	spin_unlock_irqrestore(&mask_pool.lock, flags);

	/* @owned is read-only after boot. */
	st->highest_addr = PFN_PHYS(idx_to_pfn(find_first_bit(mask_pool.owned, size)) + 1) - 1;
	st->lowest_addr = PFN_PHYS(idx_to_pfn(find_last_bit(mask_pool.owned, size)));
	st->pool_bytes = (u64)st->pool_pages << PAGE_SHIFT;
	st->free_bytes = (u64)st->free_pages << PAGE_SHIFT;
	st->used_bytes = st->pool_bytes - st->free_bytes;
	st->largest_free_bytes = (u64)best << PAGE_SHIFT;
}
EXPORT_SYMBOL_GPL(mask_pool_get_stats);

/**
 * mask_pool_min_mask - the narrowest address mask the pool can serve
 *
 * dma_direct_supported() uses it: a device mask below the lowest pool page
 * cannot be served by anything.
 *
 * Context: Any context.
 * Return: the address of the last byte of the lowest pool page, or 0 if
 * the pool is not in use.
 */
u64 mask_pool_min_mask(void)
{
	unsigned long idx;

	if (!mask_pool_enabled())
		return 0;
	/* @owned is read-only after boot; the lowest pfn has the last bit. */
	idx = find_last_bit(mask_pool.owned, mask_pool.nbits);
	return PFN_PHYS(idx_to_pfn(idx) + 1) - 1;
}
EXPORT_SYMBOL_GPL(mask_pool_min_mask);

/**
 * mask_zone_parse - parse the value of the maskzone= parameter
 * @s: "size[KMG][,force]", "force" or "size"; size is decimal or 0x hex,
 *      with an optional K, M or G suffix
 * @size: set to the size in bytes, or 0 if only "force" was given
 * @force: set to true if "force" was given
 *
 * Pure: touches nothing but @size and @force, and only on success.  Zero
 * sizes, sizes above the pool limit, empty items, repeated items and
 * anything else are rejected.
 *
 * Context: Any context.
 * Return: 0 on success, -EINVAL on any error.
 */
int mask_zone_parse(const char *s, u64 *size, bool *force)
{
	bool have_size = false, have_force = false;
	u64 sz = 0;

	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		if (!strncmp(s, "force", 5) && (s[5] == ',' || !s[5])) {
			if (have_force)
				return -EINVAL;
			have_force = true;
			s += 5;
		} else if (isdigit(*s)) {
			/* Not memparse(): it wraps silently on overflow. */
			size_t len = strcspn(s, ",");
			unsigned int shift = 0;
			char num[24];
			u64 val;

			if (have_size || len >= sizeof(num))
				return -EINVAL;
			memcpy(num, s, len);
			num[len] = '\0';
			switch (num[len - 1]) {
			case 'G': case 'g':
				shift += 10;
				fallthrough;
			case 'M': case 'm':
				shift += 10;
				fallthrough;
			case 'K': case 'k':
				shift += 10;
				num[len - 1] = '\0';
				break;
			}
			if (kstrtoull(num, 0, &val) || !val ||
			    val > (MASK_POOL_LIMIT >> shift))
				return -EINVAL;
			sz = val << shift;
			have_size = true;
			s += len;
		} else {
			return -EINVAL;
		}
		if (!*s)
			break;
		if (*s != ',' || !s[1])
			return -EINVAL;
		s++;
	}
	*size = sz;
	*force = have_force;
	return 0;
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * mask_pool_set_force - switch "maskzone=force" at run time, for KUnit
 * @force: true to skip the normal-zone attempt, false to make it
 *
 * Context: Any context.
 * Return: the previous setting, to be restored by the caller.
 */
VISIBLE_IF_KUNIT bool mask_pool_set_force(bool force)
{
	bool old = READ_ONCE(mask_pool.force);

	WRITE_ONCE(mask_pool.force, force);
	return old;
}
EXPORT_SYMBOL_IF_KUNIT(mask_pool_set_force);

/**
 * mask_pool_unpoison - give back a page kept out for HWPoison, for KUnit
 * @page: a pool page that an allocation found HWPoison
 *
 * Clears the flag and returns the page to the pool, as unpoison_memory()
 * would for a buddy page.
 *
 * Context: Any context.
 * Return: true if @page was a kept-out HWPoison pool page.
 */
VISIBLE_IF_KUNIT bool mask_pool_unpoison(struct page *page)
{
	unsigned long pfn = page_to_pfn(page), flags, idx;
	bool ok;

	spin_lock_irqsave(&mask_pool.lock, flags);
	idx = pfn_to_idx(pfn);
	ok = __mask_pool_page(page) && PageHWPoison(page) &&
	     test_bit(idx, mask_pool.used) && test_bit(idx, mask_pool.head) &&
	     mask_pool.hwpoison;
	if (ok) {
		ClearPageHWPoison(page);
		__clear_bit(idx, mask_pool.head);
		__clear_bit(idx, mask_pool.cont);
		__clear_bit(idx, mask_pool.used);
		mask_sum_clear(idx, 1);
		mask_pool.hwpoison--;
		mask_pool.free_pages++;
		mask_pool.free_seq++;
	}
	spin_unlock_irqrestore(&mask_pool.lock, flags);
	return ok;
}
EXPORT_SYMBOL_IF_KUNIT(mask_pool_unpoison);
#endif

static int __init setup_maskzone(char *s)
{
	u64 size;
	bool force;

	if (!s) {
		pr_err("maskzone needs a value: maskzone=size[KMG][,force] or maskzone=force; keeping the default pool\n");
		return -EINVAL;
	}
	if (mask_zone_parse(s, &size, &force)) {
		pr_err("invalid maskzone=%s (expected size[KMG][,force] or force, size 1..%llu); keeping the default pool\n",
		       s, (unsigned long long)MASK_POOL_LIMIT);
		return -EINVAL;
	}
	if (size & ~PAGE_MASK)
		pr_warn("maskzone=%s is not a whole number of pages; the pool gets %llu bytes\n",
			s, (unsigned long long)PAGE_ALIGN(size));
	mask_zone_size = size;
	mask_zone_set = size;
	mask_pool.force = force;
	return 0;
}
early_param("maskzone", setup_maskzone);

/*
 * Take up to @want bytes of free memblock memory in [@from, @to), lowest
 * first.  Ranges are recorded first and reserved afterwards, because
 * reserving changes the region arrays under the iterator.
 */
static u64 __init mask_pool_grab(phys_addr_t from, phys_addr_t to, u64 want)
{
	unsigned int first = mask_nr_ranges, n;
	phys_addr_t start, end;
	u64 got = 0, i;

	for_each_free_mem_range(i, NUMA_NO_NODE, MEMBLOCK_NONE, &start, &end, NULL) {
		start = max(PAGE_ALIGN(start), PAGE_ALIGN(from));
		end = min(end, to) & PAGE_MASK;
		if (start >= end)
			continue;
		if (end - start > want - got)
			end = start + ((want - got) & PAGE_MASK);
		if (start >= end)
			break;
		if (mask_nr_ranges == MASK_POOL_MAX_RANGES) {
			pr_warn("too many memory ranges, pool stops at %pa\n", &start);
			break;
		}
		mask_ranges[mask_nr_ranges].start = start;
		mask_ranges[mask_nr_ranges].end = end;
		mask_nr_ranges++;
		got += end - start;
		if (got >= want)
			break;
	}
	for (n = first; n < mask_nr_ranges; n++)
		memblock_reserve(mask_ranges[n].start,
				 mask_ranges[n].end - mask_ranges[n].start);
	return got;
}

/*
 * Size the bitmaps and the search summary for the reserved ranges.  They
 * come from memblock, so this must run while memblock is active, never
 * after memblock_free_all().
 */
static void __init mask_pool_setup_bitmaps(void)
{
	unsigned long base = ULONG_MAX, top = 0, nbits, leaves;
	size_t bytes, total;
	unsigned int n;
	void *mem;

	for (n = 0; n < mask_nr_ranges; n++) {
		base = min(base, PFN_DOWN(mask_ranges[n].start));
		top = max(top, PFN_DOWN(mask_ranges[n].end));
	}
	if (!mask_nr_ranges)
		return;
	nbits = top - base;
	bytes = BITS_TO_LONGS(nbits) * sizeof(unsigned long);
	leaves = roundup_pow_of_two(DIV_ROUND_UP(nbits, MASK_SUM_LEAF_BITS));
	total = 4 * bytes + 2 * leaves * sizeof(struct mask_sum) +
		BITS_TO_LONGS(leaves) * sizeof(unsigned long);
	if (total > mask_meta_bytes) {
		if (mask_meta_bytes)
			memblock_free(mask_pool.owned, mask_meta_bytes);
		mem = memblock_alloc(total, SMP_CACHE_BYTES);
		if (!mem) {
			pr_err("no memory for the pool bitmaps, pool disabled\n");
			for (n = 0; n < mask_nr_ranges; n++)
				memblock_phys_free(mask_ranges[n].start,
						   mask_ranges[n].end - mask_ranges[n].start);
			mask_nr_ranges = 0;
			mask_meta_bytes = 0;
			mask_pool.nbits = 0;
			return;
		}
		mask_meta_bytes = total;
	} else {
		mem = mask_pool.owned;
	}
	/* Each bitmap is a whole number of longs; the summary follows. */
	mask_pool.owned = mem;
	mask_pool.used = mem + bytes;
	mask_pool.head = mem + 2 * bytes;
	mask_pool.cont = mem + 3 * bytes;
	mask_pool.sum = mem + 4 * bytes;
	mask_pool.sum_stale = (void *)(mask_pool.sum + 2 * leaves);
	mask_pool.sum_leaves = leaves;
	mask_pool.base_pfn = base;
	mask_pool.max_pfn = top - 1;
	mask_pool.nbits = nbits;
}

/* Free memblock memory in [@from, @to), in bytes. */
static u64 __init mask_free_bytes(phys_addr_t from, phys_addr_t to)
{
	phys_addr_t start, end;
	u64 sum = 0, i;

	for_each_free_mem_range(i, NUMA_NO_NODE, MEMBLOCK_NONE, &start, &end, NULL) {
		start = max(start, from);
		end = min(end, to);
		if (start < end)
			sum += end - start;
	}
	return sum;
}

/*
 * The largest pool maskzone= may ask for: what is free below the pool
 * limit, less what the rest of the kernel needs to boot and run, a quarter
 * of all free memory and at least MASK_ZONE_KEEP.
 */
#define MASK_ZONE_KEEP	SZ_64M

static u64 __init mask_zone_max(void)
{
	u64 all = mask_free_bytes(0, PHYS_ADDR_MAX);
	u64 keep = max_t(u64, all / 4, MASK_ZONE_KEEP);
	u64 below = mask_free_bytes(0, MASK_POOL_LIMIT);

	if (all <= keep)
		return 0;
	return round_down(min(below, all - keep), PAGE_SIZE);
}

/**
 * mask_pool_reserve_low - reserve the pool's low memory from memblock
 * @limit: take all free memory below this address (16 MB on x86)
 *
 * Phase A of the boot sequence.  Without maskzone=size, all free memblock
 * memory below @limit goes to the pool.  With maskzone=size, that many
 * bytes are taken, lowest free memory first, continuing above @limit if
 * needed (up to MASK_POOL_LIMIT); a size that would leave the kernel too
 * little free memory (see mask_zone_max()) is clamped, with one message.
 * If the pool gets no memory at all, the boot log says why.
 *
 * Context: Early boot, memblock active, before memblock_free_all().
 */
void __init mask_pool_reserve_low(phys_addr_t limit)
{
	u64 max, got;

	if (mask_zone_size) {
		max = mask_zone_max();
		if (PAGE_ALIGN(mask_zone_size) > max) {
			pr_warn("maskzone=%lluK would leave too little memory for the kernel (%lluK free, %lluK below %#llx); the pool is clamped to %lluK\n",
				(unsigned long long)mask_zone_size >> 10,
				(unsigned long long)mask_free_bytes(0, PHYS_ADDR_MAX) >> 10,
				(unsigned long long)mask_free_bytes(0, MASK_POOL_LIMIT) >> 10,
				(unsigned long long)MASK_POOL_LIMIT,
				(unsigned long long)max >> 10);
			mask_zone_size = max;
		}
	}
	if (mask_zone_size) {
		got = mask_pool_grab(0, MASK_POOL_LIMIT,
				     PAGE_ALIGN(mask_zone_size));
		if (got < mask_zone_size)
			pr_warn("maskzone: only %llu of %llu bytes were free\n",
				(unsigned long long)got,
				(unsigned long long)mask_zone_size);
	} else {
		got = mask_pool_grab(0, min_t(u64, limit, MASK_POOL_LIMIT),
				     U64_MAX);
		if (!got)
			pr_warn("no free memory below %#llx (all of it is reserved): the pool is empty until it grows, and GFP_DMA allocations fail\n",
				(unsigned long long)min_t(u64, limit, MASK_POOL_LIMIT));
	}
	mask_pool_setup_bitmaps();
}

/**
 * increase_mask_zone - grow the pool at boot
 * @size: bytes to add
 *
 * Phase B of the boot sequence, for subsystems that need more pool (for
 * example a swiotlb replacement).  Takes the lowest free memory above the
 * current pool first.  Ignored if maskzone= gave an explicit size.
 *
 * Context: Early boot, memblock active, before memblock_free_all().
 * Return: the bytes really added, 0 if none.
 */
unsigned long __init increase_mask_zone(unsigned long size)
{
	phys_addr_t from = 0;
	unsigned int n;
	u64 got;

	if (mask_zone_set || !size)
		return 0;
	if (WARN_ON_ONCE(mask_pool.pool_pages))
		return 0;
	for (n = 0; n < mask_nr_ranges; n++)
		from = max(from, mask_ranges[n].end);
	got = mask_pool_grab(from, MASK_POOL_LIMIT, PAGE_ALIGN((u64)size));
	if (got < size)
		pr_warn("pool increase: only %llu of %lu bytes were free\n",
			(unsigned long long)got, size);
	mask_pool_setup_bitmaps();
	return got;
}

/**
 * mask_pool_handover - turn the reserved memory into free pool pages
 *
 * Mirrors __free_pages_core(): the reserved pages lose PG_reserved, get a
 * zero refcount and no alloc tag, and go through free_pages_prepare() so
 * that they look exactly like freshly freed buddy pages.  Then the static
 * key is enabled and the pool is live.
 *
 * Context: Boot, after memblock_free_all() and before the first user.
 */
void __init mask_pool_handover(void)
{
	unsigned long pfn, idx, bad = 0;
	struct mask_pool_stats st;
	struct page *page;
	unsigned int n;

	if (!mask_pool.nbits) {
		pr_warn("no pool: GFP_DMA allocations and allocations below masks the zones cannot serve will fail\n");
		return;
	}
	bitmap_zero(mask_pool.owned, mask_pool.nbits);
	bitmap_fill(mask_pool.used, mask_pool.nbits);
	bitmap_zero(mask_pool.head, mask_pool.nbits);
	bitmap_zero(mask_pool.cont, mask_pool.nbits);

	for (n = 0; n < mask_nr_ranges; n++) {
		accept_memory(mask_ranges[n].start,
			      mask_ranges[n].end - mask_ranges[n].start);
		for (pfn = PFN_DOWN(mask_ranges[n].start);
		     pfn < PFN_DOWN(mask_ranges[n].end); pfn++) {
			page = pfn_to_page(pfn);
			ClearPageReserved(page);
			set_page_count(page, 0);
			clear_page_tag_ref(page);
			/* The static key is still off: no hook, just prepare. */
			if (!mask_free_prepare(page, 0)) {
				bad++;
				continue;
			}
			idx = pfn_to_idx(pfn);
			__set_bit(idx, mask_pool.owned);
			__clear_bit(idx, mask_pool.used);
			mask_pool.pool_pages++;
		}
	}
	mask_sum_build();
	mask_pool.free_pages = mask_pool.pool_pages;
	mask_pool.cursor = 0;
	if (bad)
		pr_warn("%lu bad pages left out of the pool\n", bad);
	if (!mask_pool.pool_pages) {
		pr_warn("no pool (no usable page): GFP_DMA allocations and allocations below masks the zones cannot serve will fail\n");
		return;
	}
	/* mask_pool_page() reads the span without the lock, once the key is on. */
	mask_pool_span_base = mask_pool.base_pfn;
	mask_pool_span_pages = mask_pool.nbits;
	static_branch_enable(&mask_pool_key);

	mask_pool_get_stats(&st);
	pr_info("pool 0x%llx-0x%llx (%llu KiB, %lu pages)\n",
		(unsigned long long)st.lowest_addr,
		(unsigned long long)st.highest_addr,
		(unsigned long long)(st.pool_bytes >> 10), st.pool_pages);
}

#ifdef CONFIG_DEBUG_FS
static int mask_summary_show(struct seq_file *m, void *v)
{
	struct mask_pool_stats st;

	mask_pool_get_stats(&st);
	seq_printf(m, "pool_bytes: %llu\n", (unsigned long long)st.pool_bytes);
	seq_printf(m, "free_bytes: %llu\n", (unsigned long long)st.free_bytes);
	seq_printf(m, "lowest_addr: 0x%llx\n", (unsigned long long)st.lowest_addr);
	seq_printf(m, "highest_addr: 0x%llx\n", (unsigned long long)st.highest_addr);
	seq_printf(m, "largest_free_bytes: %llu\n",
		   (unsigned long long)st.largest_free_bytes);
	seq_printf(m, "used_bytes: %llu\n", (unsigned long long)st.used_bytes);
	seq_printf(m, "misuse: %lu\n", st.misuse);
	seq_printf(m, "injected: %lu\n", st.injected);
	seq_printf(m, "force: %d\n", st.force);
	seq_printf(m, "timeout_ms: %u\n", st.timeout_ms);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mask_summary);

#define MASK_MAP_WIDTH	64

/*
 * One char per page: '.' free, '#' used, 'H' first page of an allocation,
 * 'h' first page of a piece left after another piece was freed, ' ' hole.
 */
static int mask_map_show(struct seq_file *m, void *v)
{
	char line[MASK_MAP_WIDTH + 1];
	unsigned long pfn, flags, idx;
	unsigned int n;

	if (!mask_pool.pool_pages)
		return 0;
	for (pfn = mask_pool.base_pfn; pfn <= mask_pool.max_pfn; ) {
		unsigned long start = pfn;

		spin_lock_irqsave(&mask_pool.lock, flags);
		for (n = 0; n < MASK_MAP_WIDTH && pfn <= mask_pool.max_pfn; n++, pfn++) {
			idx = pfn_to_idx(pfn);
			if (!test_bit(idx, mask_pool.owned))
				line[n] = ' ';
			else if (test_bit(idx, mask_pool.cont))
				line[n] = 'h';
			else if (test_bit(idx, mask_pool.head))
				line[n] = 'H';
			else if (test_bit(idx, mask_pool.used))
				line[n] = '#';
			else
				line[n] = '.';
		}
		spin_unlock_irqrestore(&mask_pool.lock, flags);
		line[n] = '\0';
		seq_printf(m, "%08lx %s\n", start, line);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mask_map);

static int mask_timeout_get(void *data, u64 *val)
{
	*val = jiffies_to_msecs(READ_ONCE(mask_timeout));
	return 0;
}

static int mask_timeout_set(void *data, u64 val)
{
	if (val > UINT_MAX)
		return -EINVAL;
	WRITE_ONCE(mask_timeout, msecs_to_jiffies(val));
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(mask_timeout_fops, mask_timeout_get, mask_timeout_set,
			 "%llu\n");

static int __init mask_alloc_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("mask_alloc", NULL);

	debugfs_create_file("summary", 0444, dir, NULL, &mask_summary_fops);
	debugfs_create_file("map", 0444, dir, NULL, &mask_map_fops);
	debugfs_create_file_unsafe("timeout_ms", 0644, dir, NULL,
				   &mask_timeout_fops);
	return 0;
}
late_initcall(mask_alloc_debugfs_init);
#endif /* CONFIG_DEBUG_FS */
