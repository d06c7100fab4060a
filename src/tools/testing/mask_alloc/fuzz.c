// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for mm/mask_alloc.c (built with clang, ASan and UBSan).
 *
 * Each input boots a fresh pool (harness_reset() + fk_reset(), then
 * harness_boot() with options taken from the first bytes: holes, a
 * maskzone= value or raw parameter text, growth, the low limit, the fake
 * buddy allocator) and is then decoded into a sequence of operations:
 *
 *   allocations   alloc_pages_mask(), alloc_pages_mask_node(),
 *                 get_pages_mask(), mask_pool_alloc_compat() and
 *                 mask_pool_alloc_bounce() with any size, mask, gfp,
 *                 alignment and segment boundary; blocking ones whose
 *                 waits free other allocations (__GFP_NOFAIL too)
 *   frees         every way: __free_pages_mask(), free_pages_mask(),
 *                 __free_pages(), folio put, mask_pool_free_bounce(),
 *                 page by page after a split, with an extra reference
 *   misuse        sizes below MASK_MIN_SIZE and SIZE_MAX, zone modifiers,
 *                 wrong free sizes, the middle of a block, double frees,
 *                 free pages, holes and foreign pages given to the release
 *                 and bounce paths, bad bounce arguments
 *   settings      maskzone=force on and off, the wait timeout (debugfs),
 *                 the buddy allocator failing or not
 *
 * After every step: a pool placement or failure must be the one of the
 * seed's linear search (ref.c, which runs on its own copy of the bitmap,
 * cursor included, compared whole); the free page count, the misuse
 * count, the WARN_ON_ONCE reports and the MASK_ALLOC events must be the
 * expected ones; the @head and @cont bitmaps, the struct pages and the
 * search summary (fk_check_summary) must match a per-page model around the pages
 * the step touched, and everywhere after misuse and every 16 steps.
 * Misuse must be counted once, warned once per call site, and change
 * nothing.  At the end every allocation is freed and the pool must be
 * whole again.  Any difference aborts with a description of the step.
 *
 * The model's head and cont bits follow mm/mask_alloc.c's rule, one
 * release call at a time in the order the free paths make them: a head on
 * the first page of a run; a release clears the bits of its range and
 * gives the page after it, if that page is allocated and has no head, a
 * head marked cont, so that every allocated piece starts with a head;
 * MASK_FREE is counted by the release that starts at an allocation's own
 * head.  The releases the allocator makes (harness_release_watch) must be
 * the model's, range by range and in order.  Every free is made as it
 * comes, and misuse that runs into a remainder or takes a remainder for
 * an allocation must be refused.
 *
 *   make fuzz && ./mask_alloc_fuzz fuzz-corpus/      (see the Makefile)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "ref.h"
#include "fuzz_kernel.h"

#define MAX_RECS	48
#define MAX_STEPS	400

enum kind {
	R_API,		/* alloc_pages_mask{,_node}() from the pool */
	R_ADDR,		/* get_pages_mask() from the pool */
	R_COMPAT,	/* mask_pool_alloc_compat(), not compound */
	R_COMP,		/* mask_pool_alloc_compat() with __GFP_COMP */
	R_BOUNCE,	/* mask_pool_alloc_bounce() */
	R_BUDDY,	/* an alloc_pages_mask() served by the normal zones */
};

struct rec {
	bool live;
	bool split;	/* each remaining page holds its own reference */
	enum kind kind;
	unsigned long pfn;
	unsigned long nr;
	size_t size;
	unsigned int order;
};

/* WARN_ON_ONCE() call sites of mm/mask_alloc.c, for the expected reports. */
enum site {
	S_ALLOC_SIZE, S_ALLOC_GFP, S_FREE_ARGS, S_FREE_CHECK, S_RELEASE,
	S_BALLOC, S_BFREE_ARGS, S_BFREE_CHECK, NR_SITES
};

#define OWN_HOLE	(-2)
#define OWN_FREE	(-1)

static struct rec recs[MAX_RECS];
static int *owner;		/* per pfn of the span: OWN_*, or a rec index */
static bool *mhead;		/* per pfn of the span: the allocator's head bit */
static bool *mcont;		/* per pfn of the span: and its cont bit */
static unsigned long *pristine;	/* @used right after boot */
static struct ref_pool ref;
static struct fk_view pv;
static bool enabled;
static unsigned long model_free, exp_misuse, exp_warn, exp_allocs, exp_frees;
static bool fired[NR_SITES];
static const uint8_t *in;
static size_t in_len, in_pos;
static unsigned long step;
static const char *opname = "boot";
static unsigned long dirty_lo = ULONG_MAX, dirty_hi;	/* pfns touched */
static bool check_everything;
static char opdesc[256];

static __printf(1, 2) void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mask_alloc_fuzz: step %lu (%s: %s): ", step, opname, opdesc);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static __printf(2, 3) void op(const char *name, const char *fmt, ...)
{
	va_list ap;

	opname = name;
	va_start(ap, fmt);
	vsnprintf(opdesc, sizeof(opdesc), fmt, ap);
	va_end(ap);
	if (harness_verbose)
		fprintf(stderr, "step %lu: %s %s\n", step, opname, opdesc);
}

/* ---------------- input ---------------- */

static uint8_t get8(void)
{
	return in_pos < in_len ? in[in_pos++] : 0;
}

static uint16_t get16(void)
{
	return get8() | (uint16_t)get8() << 8;
}

static uint32_t get32(void)
{
	return get16() | (uint32_t)get16() << 16;
}

static u64 get64(void)
{
	return get32() | (u64)get32() << 32;
}

/* ---------------- model ---------------- */

static bool in_span(unsigned long pfn)
{
	return enabled && pfn >= pv.base_pfn && pfn <= pv.max_pfn;
}

static int own(unsigned long pfn)
{
	return in_span(pfn) ? owner[pfn - pv.base_pfn] : OWN_HOLE;
}

/* A head, of an allocation or (cont) of a piece of one. */
static bool head_of(unsigned long pfn)
{
	return in_span(pfn) && mhead[pfn - pv.base_pfn];
}

static bool cont_of(unsigned long pfn)
{
	return in_span(pfn) && mcont[pfn - pv.base_pfn];
}

static void set_head(unsigned long pfn, bool head, bool cont)
{
	mhead[pfn - pv.base_pfn] = head;
	mcont[pfn - pv.base_pfn] = cont;
}

/* An allocated page without a head bit: the allocator's "continues a run". */
static bool headless_used(unsigned long pfn)
{
	return own(pfn) >= 0 && !head_of(pfn);
}

/* mask_run_is_alloc(): is [pfn, pfn + nr) one run for the allocator? */
static bool model_run_is_alloc(unsigned long pfn, unsigned long nr)
{
	unsigned long i;

	if (!nr || !in_span(pfn) || nr - 1 > pv.max_pfn - pfn || cont_of(pfn))
		return false;
	for (i = 0; i < nr; i++)
		if (own(pfn + i) < 0 || head_of(pfn + i) != !i)
			return false;
	return !headless_used(pfn + nr);
}

/* mask_free_range_ok(): may the allocator release [pfn, pfn + nr)? */
static bool model_free_range_ok(unsigned long pfn, unsigned long nr)
{
	unsigned long i;

	if (!nr || !in_span(pfn) || nr - 1 > pv.max_pfn - pfn)
		return false;
	for (i = 0; i < nr; i++)
		if (own(pfn + i) < 0 || (i && head_of(pfn + i)))
			return false;
	return true;
}

static unsigned long mask_end(u64 mask)
{
	return (mask >> PAGE_SHIFT) + (((mask & ~PAGE_MASK) + 1) >> PAGE_SHIFT);
}

static unsigned long pages_of(size_t size)
{
	return (size >> PAGE_SHIFT) + !!(size & ~PAGE_MASK);
}

static void expect_misuse(enum site s)
{
	exp_misuse++;
	if (!fired[s]) {
		fired[s] = true;
		exp_warn++;
	}
}

static int new_rec(void)
{
	int i;

	for (i = 0; i < MAX_RECS; i++)
		if (!recs[i].live)
			return i;
	return -1;
}

/* A live record chosen by the input, or -1. */
static int pick_rec(void)
{
	int i, start = get8() % MAX_RECS;

	for (i = 0; i < MAX_RECS; i++)
		if (recs[(start + i) % MAX_RECS].live)
			return (start + i) % MAX_RECS;
	return -1;
}

static bool rec_pool(const struct rec *r)
{
	return r->kind != R_BUDDY;
}

/* Pages [@pfn, @pfn + @nr) changed: check them and their neighbours. */
static void dirty(unsigned long pfn, unsigned long nr)
{
	dirty_lo = min(dirty_lo, pfn ? pfn - 1 : 0);
	dirty_hi = max(dirty_hi, pfn + nr);
}

/* Pages of @id in the model; the record dies with its last page. */
static void model_take(int id, unsigned long pfn, unsigned long nr)
{
	unsigned long i;

	dirty(pfn, nr);
	for (i = 0; i < nr; i++) {
		if (own(pfn + i) != OWN_FREE)
			fail("pfn %lu handed out but not free in the model (%d)",
			     pfn + i, own(pfn + i));
		owner[pfn + i - pv.base_pfn] = id;
		set_head(pfn + i, !i, false);
	}
	model_free -= nr;
}

/*
 * The releases the allocator made (harness_release_watch) and the model
 * has not yet: each free path's model_release() calls take them in order.
 */
#define REL_RING	64
static struct { unsigned long pfn, n; } rel_ring[REL_RING];
static unsigned long rel_head, rel_tail;

static void watch_release(struct page *page, unsigned long n)
{
	if (rel_head - rel_tail == REL_RING)
		fail("more than %d releases not modelled", REL_RING);
	rel_ring[rel_head % REL_RING].pfn = page_to_pfn(page);
	rel_ring[rel_head++ % REL_RING].n = n;
}

/* One mask_pool_release(pfn, nr) of pages of @id, as mm/mask_alloc.c does it. */
static void model_release(int id, unsigned long pfn, unsigned long nr)
{
	bool ended = head_of(pfn) && !cont_of(pfn);
	unsigned long i;

	if (rel_tail == rel_head)
		fail("model: release of pfn %lu + %lu not made", pfn, nr);
	if (rel_ring[rel_tail % REL_RING].pfn != pfn || rel_ring[rel_tail % REL_RING].n != nr)
		fail("release of pfn %lu + %lu made, the model's is pfn %lu + %lu",
		     rel_ring[rel_tail % REL_RING].pfn, rel_ring[rel_tail % REL_RING].n,
		     pfn, nr);
	rel_tail++;
	if (!model_free_range_ok(pfn, nr))
		fail("model: release of pfn %lu + %lu refused", pfn, nr);
	dirty(pfn, nr + 1);
	for (i = 0; i < nr; i++) {
		if (own(pfn + i) != id)
			fail("model: pfn %lu is not held by %d", pfn + i, id);
		owner[pfn + i - pv.base_pfn] = OWN_FREE;
		set_head(pfn + i, false, false);
	}
	/* every allocated piece starts with a head: this one is of @id */
	if (headless_used(pfn + nr)) {
		if (own(pfn + nr) != id)
			fail("model: pfn %lu without a head is of %d, not %d", pfn + nr,
			     own(pfn + nr), id);
		set_head(pfn + nr, true, true);
	}
	exp_frees += ended;
	model_free += nr;
	ref_release(&ref, pfn, nr);
}

/* Order of the first chunk of a run of @nr pages (mask_chunk_order()). */
static unsigned int chunk_order(unsigned long nr)
{
	return min_t(unsigned int, ilog2(nr), MAX_PAGE_ORDER);
}

/* mask_run_free_chunks(pfn, nr, from): the chunks at or after @from, in order. */
static void model_release_chunks(int id, unsigned long pfn, unsigned long nr,
				 unsigned long from)
{
	unsigned long i, n;

	for (i = 0; i < nr; i += n) {
		n = 1UL << chunk_order(nr - i);
		if (i >= from)
			model_release(id, pfn + i, n);
	}
}

/* __free_pages() with a reference left on @pfn: the rest of its 2^@order. */
static void model_release_tail(int id, unsigned long pfn, unsigned int order)
{
	while (order-- > 0)
		model_release(id, pfn + (1UL << order), 1UL << order);
}

static void rec_check_done(int id)
{
	struct rec *r = &recs[id];
	unsigned long i;

	for (i = 0; i < r->nr; i++)
		if (own(r->pfn + i) == id)
			return;
	r->live = false;
}

/* Would @nr pages below @end_pfn, first pfn aligned to @align, fit an empty pool? */
static bool fits_empty(unsigned long nr, unsigned long end_pfn, unsigned long align)
{
	unsigned long pfn, run = 0;

	if (!enabled)
		return false;
	for (pfn = pv.base_pfn; pfn <= pv.max_pfn && pfn < end_pfn; pfn++) {
		if (test_bit(pv.max_pfn - pfn, pristine)) {
			run = 0;
			continue;
		}
		if (++run >= nr && (pfn + 1 - nr) % align == 0)
			return true;
	}
	return false;
}

/* The expected reference count of pool page @pfn held by @id. */
static int want_ref(int id, unsigned long pfn)
{
	const struct rec *r = &recs[id];

	if (r->split || r->kind == R_BOUNCE)
		return 1;
	return pfn == r->pfn;
}

/* First word in which the first @nbits bits of @a and @b differ, or ULONG_MAX. */
static unsigned long bitmap_diff(const unsigned long *a, const unsigned long *b,
				 unsigned long nbits)
{
	unsigned long i, n = BITS_TO_LONGS(nbits), m;

	for (i = 0; i < n; i++) {
		m = i == n - 1 ? BITMAP_LAST_WORD_MASK(nbits) : ~0UL;
		if ((a[i] ^ b[i]) & m)
			return i;
	}
	return ULONG_MAX;
}

static void check_all(void)
{
	unsigned long pfn, i, lo, hi;
	const char *why;
	int id, w;

	if (harness_errors)
		fail("%lu harness errors", harness_errors);
	if (harness_bad_pages)
		fail("%lu bad pages", harness_bad_pages);
	fk_view(&pv);
	if (harness_warnings != exp_warn)
		fail("%lu warnings, expected %lu", harness_warnings, exp_warn);
	if (pv.misuse != exp_misuse)
		fail("misuse %lu, expected %lu", pv.misuse, exp_misuse);
	if (harness_vm_events[MASK_ALLOC] != exp_allocs)
		fail("MASK_ALLOC %lu, expected %lu", harness_vm_events[MASK_ALLOC], exp_allocs);
	if (harness_vm_events[MASK_FREE] != exp_frees)
		fail("MASK_FREE %lu, expected %lu", harness_vm_events[MASK_FREE], exp_frees);
	if (rel_head != rel_tail)
		fail("release of pfn %lu + %lu made, not in the model",
		     rel_ring[rel_tail % REL_RING].pfn, rel_ring[rel_tail % REL_RING].n);
	for (id = 0; id < MAX_RECS; id++)
		if (recs[id].live && recs[id].kind == R_BUDDY &&
		    pfn_to_page(recs[id].pfn)->state != HPS_ALLOCATED)
			fail("buddy allocation %d lost its state", id);
	if (!enabled)
		return;
	if (pv.free_pages != model_free)
		fail("free_pages %lu, model %lu", pv.free_pages, model_free);
	if (pv.cursor != ref.cursor)
		fail("cursor %lu, reference %lu", pv.cursor, ref.cursor);
	i = bitmap_diff(pv.used, ref.used, pv.nbits);
	if (i != ULONG_MAX)
		fail("used word %lu: %#lx, reference %#lx", i, pv.used[i], ref.used[i]);
	lo = pv.base_pfn;
	hi = pv.max_pfn;
	if (!check_everything && step % 16) {
		lo = max(lo, dirty_lo);
		hi = min(hi, dirty_hi);
	}
	check_everything = false;
	dirty_lo = ULONG_MAX;
	dirty_hi = 0;
	for (pfn = lo; pfn <= hi; pfn++) {
		struct page *pg = pfn_to_page(pfn);
		unsigned long idx = pv.max_pfn - pfn;
		bool head;

		w = own(pfn);
		head = head_of(pfn);
		if (head && w < 0)
			fail("model: head bit on pfn %lu, owner %d", pfn, w);
		if (cont_of(pfn) && !head)
			fail("model: cont bit without head on pfn %lu", pfn);
		if (w >= 0 && !head && own(pfn - 1) != w)
			fail("model: pfn %lu starts a piece of %d without a head", pfn, w);
		if (test_bit(idx, pv.head) != head)
			fail("pfn %lu: head bit %d, model %d (owner %d)", pfn,
			     test_bit(idx, pv.head), head, w);
		if (test_bit(idx, pv.cont) != cont_of(pfn))
			fail("pfn %lu: cont bit %d, model %d (owner %d)", pfn,
			     test_bit(idx, pv.cont), cont_of(pfn), w);
		if (test_bit(idx, pv.used) != (w != OWN_FREE))
			fail("pfn %lu: used bit %d, model owner %d", pfn,
			     test_bit(idx, pv.used), w);
		if (w == OWN_FREE && (pg->state != HPS_FREE || pg->_refcount ||
				      pg->in_buddy || (pg->flags & (PG_head | PG_tail))))
			fail("free pfn %lu: state %d ref %d buddy %d flags %#lx", pfn,
			     pg->state, pg->_refcount, pg->in_buddy, pg->flags);
		if (w >= 0 && (pg->state != HPS_ALLOCATED || pg->_refcount != want_ref(w, pfn)))
			fail("pfn %lu of %d: state %d ref %d, want ref %d", pfn, w,
			     pg->state, pg->_refcount, want_ref(w, pfn));
	}
	why = lo <= hi ? fk_check_summary(pv.max_pfn - hi, pv.max_pfn - lo) : NULL;
	if (why)
		fail("summary: %s", why);
}

/* Longest free run of the model, for mask_pool_get_stats(). */
static unsigned long model_longest(void)
{
	unsigned long pfn, run = 0, best = 0;

	if (!enabled)
		return 0;
	for (pfn = pv.base_pfn; pfn <= pv.max_pfn; pfn++) {
		run = own(pfn) == OWN_FREE ? run + 1 : 0;
		best = max(best, run);
	}
	return best;
}

/* ---------------- boot ---------------- */

static void boot(void)
{
	struct harness_boot_opts o = { 0 };
	uint8_t b = get8(), len, i;
	char param[32];
	unsigned long pfn;

	o.holes = b & 1;
	if (b & 0x80) {
		/* raw parameter text: the parser sees anything */
		len = get8() % 16;
		for (i = 0; i < len; i++)
			param[i] = get8();
		param[len] = '\0';
		o.has_param = true;
		o.param = get8() & 1 ? param : NULL;
	} else {
		switch ((b >> 1) & 3) {
		case 0:
			break;
		case 1:
			pfn = get16() % 7000 + 1;
			if (pfn % 256)
				snprintf(param, sizeof(param), "%lu", pfn * PAGE_SIZE);
			else
				snprintf(param, sizeof(param), "%luM", pfn / 256);
			o.has_param = true;
			o.param = param;
			break;
		case 2:
			o.has_param = true;
			o.param = "force";
			break;
		default:
			snprintf(param, sizeof(param), "%uK,force", (get16() % 7000 + 1) * 4);
			o.has_param = true;
			o.param = param;
			break;
		}
	}
	if (b & 8)
		o.increase = (get16() % 3000 + 1) * PAGE_SIZE - (get8() & 1);
	if (b & 0x10)
		o.low_limit = PFN_PHYS(get16() % ARENA_PAGES + 1) - (get8() & 3) * 1000;
	harness_boot(&o);
	harness_buddy_fail = b & 0x20;
	harness_buddy_floor_pfn = b & 0x40 ? SZ_16M >> PAGE_SHIFT : 0;

	fk_view(&pv);
	enabled = mask_pool_enabled();
	if (enabled != !!pv.pool_pages)
		fail("pool enabled %d with %lu pages", enabled, pv.pool_pages);
	if (!enabled)
		return;
	owner = malloc(pv.nbits * sizeof(*owner));
	mhead = calloc(pv.nbits, sizeof(*mhead));
	mcont = calloc(pv.nbits, sizeof(*mcont));
	pristine = calloc(BITS_TO_LONGS(pv.nbits) + 1, sizeof(long));
	ref = (struct ref_pool){
		.used = calloc(BITS_TO_LONGS(pv.nbits) + 1, sizeof(long)),
		.base_pfn = pv.base_pfn, .max_pfn = pv.max_pfn, .nbits = pv.nbits,
		.cursor = pv.cursor, .pool_pages = pv.pool_pages,
	};
	if (!owner || !mhead || !mcont || !pristine || !ref.used)
		fail("out of memory");
	memcpy(ref.used, pv.used, BITS_TO_LONGS(pv.nbits) * sizeof(long));
	memcpy(pristine, pv.used, BITS_TO_LONGS(pv.nbits) * sizeof(long));
	model_free = 0;
	for (pfn = pv.base_pfn; pfn <= pv.max_pfn; pfn++) {
		bool free = test_bit(pv.max_pfn - pfn, pv.owned);

		if (free == test_bit(pv.max_pfn - pfn, pv.used))
			fail("%s: pfn %lu owned %d used %d", __func__, pfn, free, !free);
		owner[pfn - pv.base_pfn] = free ? OWN_FREE : OWN_HOLE;
		model_free += free;
	}
	if (model_free != pv.pool_pages || pv.free_pages != pv.pool_pages)
		fail("%s: %lu owned pages, pool_pages %lu, free %lu", __func__, model_free,
		     pv.pool_pages, pv.free_pages);
}

/* ---------------- choices ---------------- */

static u64 pick_mask(void)
{
	unsigned long pfn, bits;

	switch (get8() % 8) {
	case 0:
		bits = 12 + get8() % 53;
		return DMA_BIT_MASK(bits);
	case 1:
		return U64_MAX;
	case 2:		/* around the pool, page aligned or not */
		pfn = (enabled ? pv.base_pfn : 0) + get16() % ((enabled ? pv.nbits : 4096) + 64);
		pfn = pfn > 32 ? pfn - 32 : pfn;
		return get8() & 1 ? PFN_PHYS(pfn) - 1 : PFN_PHYS(pfn) + get16() % PAGE_SIZE;
	case 3:		/* masks with holes */
		return get32();
	case 4:
		return get64();
	case 5:
		return SZ_16M - 1;
	case 6:		/* below the pool (with holes) */
		return get16();
	default:
		return PFN_PHYS(get16()) + get16() % PAGE_SIZE;
	}
}

/* A size of at least MASK_MIN_SIZE. */
static size_t pick_size(void)
{
	size_t s;

	switch (get8() % 8) {
	case 0:
		s = get8();
		break;
	case 1:
		s = (get8() % 8 + 1) * PAGE_SIZE;
		break;
	case 2:
		s = get16();
		break;
	case 3:
		s = get32() % (2 * ((enabled ? pv.nbits : 4096) << PAGE_SHIFT) + 1);
		break;
	case 4:
		s = SIZE_MAX - get8();
		break;
	case 5:
		s = PFN_PHYS(get16() % ((enabled ? pv.nbits : 4096) + 2)) + get8();
		break;
	case 6:
		s = get32();
		break;
	default:
		s = get64();
		break;
	}
	return max_t(size_t, s, MASK_MIN_SIZE);
}

static gfp_t pick_gfp(bool may_block)
{
	static const gfp_t base[] = {
		GFP_ATOMIC, GFP_NOWAIT, 0, GFP_KERNEL, GFP_KERNEL | __GFP_NORETRY,
		GFP_KERNEL | __GFP_RETRY_MAYFAIL,
	};
	uint8_t g = get8();
	gfp_t gfp = base[g % (may_block ? 6 : 3)];

	if (g & 0x08)
		gfp |= __GFP_ZERO;
	if (!(g & 0x10))
		gfp |= __GFP_NOWARN;
	if (g & 0x20)
		gfp |= __GFP_HIGH;
	return gfp;
}

/* ---------------- allocations ---------------- */

static void scribble(struct page *page, unsigned long nr)
{
	unsigned long i;

	for (i = 0; i < nr; i++) {
		unsigned char *p = page_address(page + i);

		p[0] = 0xa5;
		p[PAGE_SIZE - 1] = 0xa5;
	}
}

static void check_zero(struct page *page, unsigned long nr)
{
	unsigned long i;

	for (i = 0; i < nr; i++) {
		unsigned char *p = page_address(page + i);

		if (p[0] || p[PAGE_SIZE - 1])
			fail("__GFP_ZERO page %lu of %lu not zeroed", i, nr);
	}
}

static int wait_id = -1;	/* the allocation being waited for */
static unsigned int wait_frees;	/* frees left for the wait callback */

static void free_whole(int id, bool vary);

/* A wait of a blocking allocation: another "task" frees a pool allocation. */
static void wait_cb(void)
{
	int id;

	if (!wait_frees)
		return;
	for (id = 0; id < MAX_RECS; id++)
		if (recs[id].live && rec_pool(&recs[id]) && id != wait_id)
			break;
	if (id == MAX_RECS)
		return;
	wait_frees--;
	free_whole(id, false);
}

/*
 * Check a pool allocation (or failure) against the reference, then record
 * it.  @nr pages at or below @end_pfn with @align_mask/@align_pfn.
 */
static void pool_result(int id, struct page *page, enum kind kind, unsigned long nr,
			size_t size, unsigned long end_pfn, unsigned long align_mask,
			unsigned long align_pfn, unsigned long boundary, unsigned int order,
			gfp_t gfp)
{
	unsigned long want = enabled ? ref_find(&ref, nr, end_pfn, align_mask, align_pfn,
						 boundary) : REF_NO_PFN;
	unsigned long got = page ? page_to_pfn(page) : REF_NO_PFN;

	if (got != want)
		fail("placed at pfn %ld, reference %ld", (long)got, (long)want);
	if (!page)
		return;
	if (PFN_PHYS(got + nr) - 1 > PFN_PHYS(end_pfn) - 1)
		fail("run ends above the mask");
	if ((got & align_mask) != align_pfn)
		fail("pfn %lu does not match alignment %#lx/%#lx", got, align_mask, align_pfn);
	if (((got ^ (got + nr - 1)) & ~boundary))
		fail("run crosses a boundary of %#lx pages", boundary + 1);
	recs[id] = (struct rec){ .live = true, .kind = kind, .pfn = got, .nr = nr,
				 .size = size, .order = order };
	model_take(id, got, nr);
	exp_allocs++;
	if (gfp & __GFP_ZERO)
		check_zero(page, nr);
	scribble(page, nr);
}

/* alloc_pages_mask() and friends; @gfp may block only if @cb. */
static void do_alloc(gfp_t gfp, size_t size, u64 mask, bool cb)
{
	unsigned long end = mask_end(mask), nr = pages_of(size);
	/* the zones are not asked below a mask that ends inside the span */
	bool inside = enabled && end <= pv.max_pfn + 1;
	bool final = !pv.force && !inside && end >= max_low_pfn;
	int id = new_rec(), how = get8() % 3;
	struct page *page;
	void *addr;

	if (id < 0)
		return;
	op(cb ? "alloc_wait" : "alloc", "%s gfp %#x size %zu mask %#llx force %d%s",
	   how == 0 ? "alloc_pages_mask" : how == 1 ? "get_pages_mask" : "alloc_pages_mask_node",
	   gfp, size, (unsigned long long)mask, pv.force, final ? " final" : "");
	if (cb) {
		wait_id = id;
		harness_wait_cb = wait_cb;
	}
	if (how == 0) {
		page = alloc_pages_mask(gfp, size, mask);
	} else if (how == 1) {
		addr = get_pages_mask(gfp, size, mask);
		page = addr ? virt_to_page(addr) : NULL;
	} else {
		page = alloc_pages_mask_node(get8() % 2 - 1, gfp, size, mask);
	}
	harness_wait_cb = NULL;
	wait_id = -1;
	if (page && !mask_pool_page(page)) {
		if (pv.force)
			fail("normal zones used under maskzone=force");
		if (inside)
			fail("normal zones used below a mask inside the pool's span");
		/* byte exact here, whole pages from the pool */
		if (page_to_phys(page) + size - 1 > mask)
			fail("normal-zone page %lu above the mask", page_to_pfn(page));
		if (in_span(page_to_pfn(page)) && own(page_to_pfn(page)) != OWN_HOLE)
			fail("normal-zone page %lu inside the pool", page_to_pfn(page));
		if (gfp & __GFP_ZERO)
			check_zero(page, nr);
		recs[id] = (struct rec){ .live = true, .kind = R_BUDDY,
					 .pfn = page_to_pfn(page), .nr = nr, .size = size };
		return;
	}
	if (final) {
		if (page)
			fail("pool used although the normal zones were final");
		return;
	}
	pool_result(id, page, how == 1 ? R_ADDR : R_API, nr, size, end, 0, 0, ~0UL, 0, gfp);
}

static void do_compat(gfp_t gfp, bool cb)
{
	unsigned int order = get8() % 12;
	unsigned long nr = 1UL << order;
	int id = new_rec();
	struct page *page;
	u8 z = get8();

	if (id < 0)
		return;
	/* zone modifiers are stripped here, not misuse */
	gfp |= (z & 1 ? __GFP_DMA : 0) | (z & 2 ? __GFP_DMA32 : 0) |
	       (z & 4 ? __GFP_COMP : 0) | (z & 8 ? __GFP_MOVABLE : 0);
	op(cb ? "compat_wait" : "compat", "order %u gfp %#x", order, gfp);
	if (cb) {
		wait_id = id;
		harness_wait_cb = wait_cb;
	}
	page = mask_pool_alloc_compat(gfp, order);
	harness_wait_cb = NULL;
	wait_id = -1;
	if (order > MAX_PAGE_ORDER) {
		if (page)
			fail("order above MAX_PAGE_ORDER served");
		return;
	}
	pool_result(id, page, order && (gfp & __GFP_COMP) ? R_COMP : R_COMPAT, nr,
		    PAGE_SIZE << order, mask_end(DMA_BIT_MASK(24)), nr - 1, 0, ~0UL,
		    order, gfp);
	if (page && recs[id].kind == R_COMP &&
	    (!(page->flags & PG_head) || page->compound_order != order ||
	     !(page[nr - 1].flags & PG_tail)))
		fail("compound page not prepared");
}

/*
 * Alignment masks are 2^k - 1, as dmatlb passes them.  Other masks give
 * neither (pfn & mask) == align_pfn nor the reference's placement.
 */
static unsigned long pick_align(void)
{
	return (1UL << (get8() % 11)) - 1;
}

static void do_bounce(void)
{
	unsigned long nr, am, ap, bm, end, want, got;
	int id = new_rec();
	struct page *page;
	u64 limit;
	uint8_t b;

	if (id < 0)
		return;
	b = get8();
	nr = b < 128 ? 1 + b % 8 : b < 224 ? 1 + get8() : 1 + get16() % 8192;
	limit = pick_mask();
	am = pick_align();
	ap = get16() & am;
	b = get8();
	bm = b < 128 ? ~0UL : b < 240 ? (1UL << (b % 13)) - 1 : get16();
	op("bounce", "nr %lu limit %#llx align %#lx/%#lx boundary %#lx", nr,
	   (unsigned long long)limit, am, ap, bm);
	end = mask_end(limit);
	if (bm & (bm + 1)) {
		/* A boundary that is not 2^k - 1 pages is misuse. */
		page = mask_pool_alloc_bounce(nr, limit, am, ap, bm);
		if (!IS_ERR(page) || PTR_ERR(page) != -EINVAL)
			fail("boundary %#lx: not -EINVAL", bm);
		expect_misuse(S_BALLOC);
		check_everything = true;
		return;
	}
	if (!enabled || end <= pv.base_pfn)
		want = -ERANGE;
	else if (nr > pv.pool_pages || nr - 1 > bm ||
		 nr > min(end, pv.max_pfn + 1) - pv.base_pfn)
		want = -E2BIG;
	else
		want = 0;
	page = mask_pool_alloc_bounce(nr, limit, am, ap, bm);
	if (want) {
		got = IS_ERR(page) ? (unsigned long)PTR_ERR(page) : page_to_pfn(page);
		if (got != want)
			fail("got %ld, expected %ld", (long)got, (long)want);
		return;
	}
	if (IS_ERR(page) && PTR_ERR(page) != -ENOMEM)
		fail("error %ld", PTR_ERR(page));
	pool_result(id, IS_ERR(page) ? NULL : page, R_BOUNCE, nr, nr << PAGE_SHIFT,
		    end, am, ap, bm, 0, GFP_ATOMIC);
}

/* A blocking allocation; waits free other allocations. */
static void do_alloc_wait(void)
{
	static const gfp_t mod[] = { 0, __GFP_NORETRY, __GFP_RETRY_MAYFAIL, __GFP_NOFAIL };
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN | mod[get8() % 4];
	unsigned long chunk = max(READ_ONCE(mask_timeout), 1UL);
	bool compat = get8() & 1;
	unsigned int order;
	u64 mask = 0;
	size_t size = 0;

	harness_wait_cb_delay = get16() % (2 * chunk + 1);
	wait_frees = get8() % 6;
	if (compat) {
		order = in_pos < in_len ? in[in_pos] % 12 : 0;
	} else {
		size = pick_size();
		mask = pick_mask();
	}
	if (gfp & __GFP_NOFAIL) {
		/* Only what an empty pool can hold, with a wait that frees. */
		unsigned long nr = compat ? 1UL << order : pages_of(size);
		unsigned long end = compat ? mask_end(DMA_BIT_MASK(24)) : mask_end(mask);

		if ((compat && order > MAX_PAGE_ORDER) || (!compat && end >= max_low_pfn) ||
		    !fits_empty(nr, end, compat ? nr : 1))
			gfp &= ~__GFP_NOFAIL;
		harness_wait_cb_delay %= chunk;
		wait_frees = MAX_RECS;
	}
	if (compat)
		do_compat(gfp, true);
	else
		do_alloc(gfp, size, mask, true);
}

/* ---------------- frees ---------------- */

/* Free what is left of @id, the way its kind is freed. */
static void free_whole(int id, bool vary)
{
	struct rec *r = &recs[id];
	struct page *page = pfn_to_page(r->pfn);
	unsigned long i;
	size_t size;

	if (r->split) {
		op("free_rest", "rec %d pfn %lu nr %lu", id, r->pfn, r->nr);
		for (i = 0; i < r->nr; i++) {
			if (own(r->pfn + i) != id)
				continue;
			__free_pages(page + i, 0);
			model_release(id, r->pfn + i, 1);
		}
		r->live = false;
		return;
	}
	op("free", "rec %d kind %d pfn %lu nr %lu size %zu", id, r->kind, r->pfn, r->nr,
	   r->size);
	switch (r->kind) {
	case R_API:
	case R_ADDR:
		size = r->size;
		/* any size with the same number of pages is the same size */
		if (vary && get8() & 1) {
			size = PFN_PHYS(r->nr - 1) + 1 + get16() % PAGE_SIZE;
			size = max_t(size_t, MASK_MIN_SIZE, size);
		}
		if (r->kind == R_ADDR)
			free_pages_mask(page_address(page), size);
		else
			__free_pages_mask(page, size);
		/* the chunks after the first, then the first */
		model_release_chunks(id, r->pfn, r->nr, 1UL << chunk_order(r->nr));
		model_release(id, r->pfn, 1UL << chunk_order(r->nr));
		break;
	case R_COMPAT:
		__free_pages(page, r->order);
		model_release(id, r->pfn, r->nr);
		break;
	case R_COMP:
		if (vary && get8() & 1)
			__free_pages(page, r->order);
		else
			put_page(page);
		model_release(id, r->pfn, r->nr);
		break;
	case R_BOUNCE:
		mask_pool_free_bounce(page, r->nr);
		model_release_chunks(id, r->pfn, r->nr, 0);
		break;
	case R_BUDDY:
		__free_pages_mask(page, r->size);
		break;
	}
	r->live = false;
}

/* Split a pool allocation into single pages and free some of them. */
static void free_partial(int id)
{
	struct rec *r = &recs[id];
	struct page *page = pfn_to_page(r->pfn);
	unsigned long i, start = get16() % r->nr, n = 1 + get8() % 4;

	if (r->kind == R_BUDDY || r->kind == R_COMP)
		return;
	op("free_partial", "rec %d kind %d pfn %lu nr %lu from %lu n %lu", id, r->kind,
	   r->pfn, r->nr, start, n);
	if (!r->split) {
		if (r->kind == R_COMPAT)
			split_page(page, r->order);
		else if (r->kind != R_BOUNCE)
			for (i = 1; i < r->nr; i++)
				set_page_refcounted(page + i);
		r->split = true;
		check_all();
	}
	for (i = start; i < r->nr && n; i++) {
		if (own(r->pfn + i) != id)
			continue;
		__free_pages(page + i, 0);
		model_release(id, r->pfn + i, 1);
		n--;
	}
	rec_check_done(id);
}

/* Free with a speculative reference held: the head goes last. */
static void free_extra_ref(int id)
{
	struct rec *r = &recs[id];
	struct page *page = pfn_to_page(r->pfn);

	if (r->split || (r->kind != R_API && r->kind != R_ADDR &&
			 (r->kind != R_COMPAT || !r->order)))
		return;
	op("free_extra_ref", "rec %d kind %d pfn %lu nr %lu", id, r->kind, r->pfn, r->nr);
	get_page(page);
	if (r->kind == R_COMPAT) {
		__free_pages(page, r->order);	/* the tail rule */
		model_release_tail(id, r->pfn, r->order);
	} else {
		unsigned int order = chunk_order(r->nr);

		/* the chunks after the first, then the first's tail rule */
		__free_pages_mask(page, r->size);
		model_release_chunks(id, r->pfn, r->nr, 1UL << order);
		model_release_tail(id, r->pfn, order);
	}
	if (!head_of(r->pfn) || cont_of(r->pfn))
		fail("model: the referenced page lost its head");
	r->split = true;	/* the head holds its reference */
	check_all();
	put_page(page);
	model_release(id, r->pfn, 1);
	r->live = false;
}

/* ---------------- misuse ---------------- */

/* A pfn inside the arena: pool, hole, normal zones. */
static unsigned long pick_pfn(void)
{
	int id;

	switch (get8() % 4) {
	case 0:
		id = pick_rec();
		if (id >= 0)
			return recs[id].pfn + get16() % recs[id].nr;
		fallthrough;
	case 1:
		if (enabled)
			return pv.base_pfn + get16() % pv.nbits;
		fallthrough;
	default:
		return get16() % ARENA_PAGES;
	}
}

/*
 * The first piece of split @id that starts with a cont head, freed whole
 * by __free_pages_mask() or mask_pool_free_bounce(): not an allocation.
 */
static void misuse_piece(int id)
{
	const struct rec *r = &recs[id];
	unsigned long pfn, n;

	for (pfn = r->pfn; pfn < r->pfn + r->nr; pfn++)
		if (own(pfn) == id && cont_of(pfn))
			break;
	if (pfn == r->pfn + r->nr)
		return;
	for (n = 1; own(pfn + n) == id && !head_of(pfn + n); n++)
		;
	op("misuse_free_piece", "rec %d pfn %lu nr %lu", id, pfn, n);
	if (get8() & 1) {
		__free_pages_mask(pfn_to_page(pfn), PFN_PHYS(n) - (get8() & 1));
		expect_misuse(S_FREE_CHECK);
	} else {
		mask_pool_free_bounce(pfn_to_page(pfn), n);
		expect_misuse(S_BFREE_CHECK);
	}
}

static void do_misuse(void)
{
	unsigned long pfn, nr, am, ap, before;
	struct page *page;
	size_t size;
	u64 mask;
	int id;

	check_everything = true;	/* misuse must change nothing anywhere */
	switch (get8() % 11) {
	case 0:		/* size below MASK_MIN_SIZE */
		size = get8() % MASK_MIN_SIZE;
		mask = pick_mask();
		op("misuse_size", "size %zu", size);
		if (get8() & 1)
			page = alloc_pages_mask(pick_gfp(false) | (get8() & 1 ? GFP_DMA : 0),
						size, mask);
		else
			page = get_pages_mask(GFP_ATOMIC, size, mask) ? (void *)1 : NULL;
		if (page)
			fail("allocated");
		expect_misuse(S_ALLOC_SIZE);
		break;
	case 1:		/* zone modifiers or __GFP_COMP */
		size = pick_size();
		mask = pick_mask();
		op("misuse_gfp", "size %zu", size);
		if (alloc_pages_mask(GFP_KERNEL | (1u << (get8() % 4)) |
				     (get8() & 1 ? __GFP_COMP : 0), size, mask))
			fail("allocated");
		expect_misuse(S_ALLOC_GFP);
		break;
	case 2:		/* wrong size, or a piece freed as an allocation */
		id = pick_rec();
		if (id >= 0 && recs[id].split) {
			misuse_piece(id);
			return;
		}
		if (id < 0 || (recs[id].kind != R_API && recs[id].kind != R_ADDR))
			return;
		size = get8() & 1 ? get32() : recs[id].size + (get8() & 1 ? PAGE_SIZE : -PAGE_SIZE);
		op("misuse_free_size", "rec %d nr %lu size %zu", id, recs[id].nr, size);
		if (size >= MASK_MIN_SIZE && pages_of(size) == recs[id].nr)
			return;
		/* short, or into what follows (a free page, a head): refused */
		if (size >= MASK_MIN_SIZE && model_run_is_alloc(recs[id].pfn, pages_of(size)))
			fail("model: a wrong size is a run");
		__free_pages_mask(pfn_to_page(recs[id].pfn), size);
		expect_misuse(size < MASK_MIN_SIZE ? S_FREE_ARGS : S_FREE_CHECK);
		break;
	case 3:		/* the middle of a block, a free page, a hole: in the pool span */
		pfn = pick_pfn();
		size = pick_size();
		op("misuse_free_page", "pfn %lu size %zu owner %d", pfn, size, own(pfn));
		/*
		 * A hole or a buddy page goes to __free_pages(), a run is
		 * freed (an allocation, or a piece with its head that the
		 * allocator cannot tell from one); a piece that starts with a
		 * cont head is refused.
		 */
		if (!in_span(pfn) || own(pfn) == OWN_HOLE ||
		    model_run_is_alloc(pfn, pages_of(size)))
			return;
		__free_pages_mask(pfn_to_page(pfn), size);
		expect_misuse(S_FREE_CHECK);
		break;
	case 4:
		op("misuse_free_args", "NULL or tiny");
		if (get8() & 1)
			__free_pages_mask(NULL, pick_size());
		else
			__free_pages_mask(pfn_to_page(pick_pfn()), get8() % MASK_MIN_SIZE);
		expect_misuse(S_FREE_ARGS);
		free_pages_mask(NULL, pick_size());	/* no-op, like free_pages(0) */
		break;
	case 5:		/* release of free pages or holes */
		pfn = pick_pfn();
		nr = get8() & 1 ? get8() % 8 : get32();
		op("misuse_release", "pfn %lu nr %lu", pfn, nr);
		/* allocated, no other first page inside: a real release */
		if (model_free_range_ok(pfn, nr))
			return;
		mask_pool_release(pfn_to_page(pfn), nr);
		expect_misuse(S_RELEASE);
		break;
	case 6:
		op("misuse_bounce_free_args", "NULL or 0");
		if (get8() & 1)
			mask_pool_free_bounce(NULL, get8());
		else
			mask_pool_free_bounce(pfn_to_page(pick_pfn()), 0);
		expect_misuse(S_BFREE_ARGS);
		break;
	case 7:		/* mask_pool_free_bounce() of anything but a bounce run */
		pfn = pick_pfn();
		nr = 1 + get8() % 16;
		op("misuse_bounce_free", "pfn %lu nr %lu owner %d", pfn, nr, own(pfn));
		if (model_run_is_alloc(pfn, nr)) {
			unsigned long i;

			for (i = 0; i < nr && page_ref_count(pfn_to_page(pfn + i)) == 1; i++)
				;
			if (i == nr)
				return;	/* taken: a valid free, or a piece with its head */
		}
		mask_pool_free_bounce(pfn_to_page(pfn), nr);
		expect_misuse(S_BFREE_CHECK);
		break;
	case 8:		/* bad bounce arguments */
		nr = get8() & 1 ? 0 : 1 + get8();
		am = pick_align();
		ap = nr ? (am + 1) | get16() : get16() & am;
		if (!(ap & ~am))
			ap |= ~am & -~am;	/* a bit outside the mask */
		op("misuse_bounce_alloc", "nr %lu align %#lx/%#lx", nr, am, ap);
		page = mask_pool_alloc_bounce(nr, pick_mask(), am, ap, ~0UL);
		if (!IS_ERR(page) || PTR_ERR(page) != -EINVAL)
			fail("not -EINVAL");
		expect_misuse(S_BALLOC);
		break;
	case 9:		/* double free */
		id = pick_rec();
		if (id < 0 || recs[id].split ||
		    (recs[id].kind != R_API && recs[id].kind != R_ADDR &&
		     recs[id].kind != R_BOUNCE))
			return;
		pfn = recs[id].pfn;
		nr = recs[id].nr;
		size = recs[id].size;
		before = recs[id].kind;
		free_whole(id, false);
		check_all();
		op("misuse_double_free", "pfn %lu nr %lu", pfn, nr);
		if (before == R_BOUNCE) {
			mask_pool_free_bounce(pfn_to_page(pfn), nr);
			expect_misuse(S_BFREE_CHECK);
		} else {
			__free_pages_mask(pfn_to_page(pfn), size);
			expect_misuse(S_FREE_CHECK);
		}
		break;
	default:	/* SIZE_MAX: not misuse, just impossible */
		op("size_max", "");
		if (alloc_pages_mask(pick_gfp(true), SIZE_MAX - get8(), pick_mask()))
			fail("SIZE_MAX allocated");
		break;
	}
}

/* ---------------- settings and reads ---------------- */

static void do_setting(void)
{
	u64 ms;
	int ret;

	switch (get8() % 4) {
	case 0:
		ms = get8() & 1 ? get8() % 64 : get64();
		op("timeout", "%llu ms", (unsigned long long)ms);
		ret = harness_debugfs_write("timeout_ms", ms);
		if (ret != (ms > UINT_MAX ? -EINVAL : 0))
			fail("timeout_ms write returned %d", ret);
		if (!ret && READ_ONCE(mask_timeout) != msecs_to_jiffies(ms))
			fail("timeout not set");
		break;
	case 1:
		op("force", "toggle");
		fk_set_force(!pv.force);
		break;
	case 2:
		op("buddy_fail", "toggle");
		harness_buddy_fail = !harness_buddy_fail;
		break;
	default:
		op("buddy_floor", "");
		harness_buddy_floor_pfn = get16() % ARENA_PAGES;
		break;
	}
}

static char mapbuf[1 << 16];

static void do_read(void)
{
	struct mask_pool_stats st;
	unsigned long pfn, n;
	char *l, *nl;

	op("stats", "");
	mask_pool_get_stats(&st);
	if (st.misuse != exp_misuse || st.force != pv.force ||
	    st.timeout_ms != jiffies_to_msecs(READ_ONCE(mask_timeout)))
		fail("stats: misuse %lu force %d timeout %u", st.misuse, st.force, st.timeout_ms);
	if (!enabled) {
		if (st.pool_pages || st.free_bytes || st.largest_free_bytes)
			fail("stats of a disabled pool");
		return;
	}
	if (st.pool_pages != pv.pool_pages || st.free_pages != model_free ||
	    st.pool_bytes != PFN_PHYS(st.pool_pages) || st.free_bytes != PFN_PHYS(model_free) ||
	    st.used_bytes != st.pool_bytes - st.free_bytes)
		fail("stats: pool %lu free %lu (model %lu)", st.pool_pages, st.free_pages,
		     model_free);
	if (st.largest_free_bytes != PFN_PHYS(model_longest()))
		fail("largest free %llu pages, model %lu",
		     (unsigned long long)(st.largest_free_bytes >> PAGE_SHIFT), model_longest());
	for (pfn = pv.base_pfn; own(pfn) == OWN_HOLE; pfn++)
		;
	if (st.lowest_addr != PFN_PHYS(pfn))
		fail("lowest_addr %#llx", (unsigned long long)st.lowest_addr);
	for (pfn = pv.max_pfn; own(pfn) == OWN_HOLE; pfn--)
		;
	if (st.highest_addr != PFN_PHYS(pfn + 1) - 1 ||
	    mask_pool_min_mask() != st.lowest_addr + PAGE_SIZE - 1)
		fail("highest_addr %#llx", (unsigned long long)st.highest_addr);
	if (!(get8() & 1))
		return;
	/* The debugfs files: summary, timeout_ms and the map. */
	op("debugfs", "");
	snprintf(opdesc, sizeof(opdesc), "free_bytes: %llu\n",
		 (unsigned long long)st.free_bytes);
	if (harness_debugfs_read("summary", mapbuf, sizeof(mapbuf)) < 0 ||
	    !strstr(mapbuf, opdesc))
		fail("summary: %s", mapbuf);
	snprintf(opdesc, sizeof(opdesc), "%u\n", st.timeout_ms);
	if (harness_debugfs_read("timeout_ms", mapbuf, sizeof(mapbuf)) < 0 ||
	    strcmp(mapbuf, opdesc))
		fail("timeout_ms: %s", mapbuf);
	op("map", "");
	if (harness_debugfs_read("map", mapbuf, sizeof(mapbuf)) < 0)
		fail("map read");
	for (l = mapbuf, pfn = pv.base_pfn; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		if (!nl || strtoul(l, NULL, 16) != pfn)
			fail("map line for pfn %lu", pfn);
		for (n = 9; l + n < nl; n++, pfn++) {
			int w = own(pfn);
			char want = w == OWN_HOLE ? ' ' : w == OWN_FREE ? '.' :
				    cont_of(pfn) ? 'h' : head_of(pfn) ? 'H' : '#';

			if (l[n] != want)
				fail("map pfn %lu: '%c', model '%c'", pfn, l[n], want);
		}
	}
	if (pfn != pv.max_pfn + 1)
		fail("map ends at pfn %lu", pfn);
}

/* ---------------- one input ---------------- */

static void teardown(void)
{
	free(owner);
	free(mhead);
	free(mcont);
	free(pristine);
	ref_destroy(&ref);
	owner = NULL;
	mhead = NULL;
	mcont = NULL;
	pristine = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int id;

	in = data;
	in_len = size;
	in_pos = 0;
	step = 0;
	op("boot", "");
	memset(recs, 0, sizeof(recs));
	memset(fired, 0, sizeof(fired));
	exp_misuse = 0;
	exp_warn = 0;
	exp_allocs = 0;
	exp_frees = 0;
	enabled = false;
	harness_reset();
	harness_verbose = getenv("MASK_FUZZ_VERBOSE");
	fk_reset();
	rel_head = 0;
	rel_tail = 0;
	boot();
	harness_release_watch = watch_release;
	check_everything = true;
	check_all();

	for (step = 1; step <= MAX_STEPS && in_pos < in_len; step++) {
		switch (get8() % 16) {
		case 0: case 1: case 2:
			do_alloc(pick_gfp(false), pick_size(), pick_mask(), false);
			break;
		case 3:
			do_compat(pick_gfp(false), false);
			break;
		case 4: case 5:
			do_bounce();
			break;
		case 6:
			do_alloc_wait();
			break;
		case 7: case 8: case 9:
			id = pick_rec();
			if (id >= 0)
				free_whole(id, true);
			break;
		case 10:
			id = pick_rec();
			if (id >= 0)
				free_partial(id);
			break;
		case 11:
			id = pick_rec();
			if (id >= 0)
				free_extra_ref(id);
			break;
		case 12: case 13:
			do_misuse();
			break;
		case 14:
			do_setting();
			break;
		default:
			do_read();
			break;
		}
		check_all();
	}

	/* Everything back, in any order. */
	for (id = 0; id < MAX_RECS; id++)
		if (recs[id].live)
			free_whole(id, false);
	op("end", "");
	check_everything = true;
	check_all();
	if (enabled) {
		if (pv.free_pages != pv.pool_pages)
			fail("pool not whole: %lu of %lu pages free", pv.free_pages, pv.pool_pages);
		if (bitmap_diff(pv.used, pristine, pv.nbits) != ULONG_MAX)
			fail("used bitmap differs from the one after boot");
		if (exp_frees != exp_allocs)
			fail("MASK_FREE %lu for %lu pool allocations", exp_frees, exp_allocs);
	}
	teardown();
	return 0;
}
