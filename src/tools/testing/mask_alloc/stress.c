// SPDX-License-Identifier: GPL-2.0
/*
 * Seeded random stress of mm/mask_alloc.c against a reference model.
 *
 * The model is a plain array of page states (hole / free / used by
 * allocation id) with the allocator's @head and @cont bits: a head on the
 * first page of a run; a release (one mask_pool_release() call) clears
 * the bits of its range and gives the page after it, if that page is
 * allocated and has no head, a head marked cont, so that every allocated
 * piece starts with a head (map 'H' for an allocation, 'h' for a piece);
 * MASK_FREE is counted by the release that starts at an allocation's own
 * head.  Each free path's releases are listed before the call, in the
 * chunks and order in which it makes them, and checked one at a time as
 * they happen (harness_release_watch): the range, the model's consent
 * (mask_free_range_ok()), then the map and the counters.  Between two
 * releases of one free, another "CPU" sometimes allocates and frees (the
 * window of a multi-chunk free).  After every step the debugfs map, the
 * stats, the struct page states and the vm events are compared with the
 * model.  A failed non-blocking pool allocation is an error if the model
 * has a fit.  Misuse: wrong sizes, releases and free checks of random
 * ranges (against the model's answer), and __free_pages_mask() or
 * mask_pool_free_bounce() of a piece that is not an allocation.
 *
 *   ./stress --seed S --iters N       (or MASK_STRESS_SEED=S ./stress)
 *
 * Built a second time with -DSTRESS_AS_CASE into mask_alloc_test, which
 * runs it with a fixed and with a random seed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "stress.h"

/* 16 MB + 4 MB + 3 pages increase: an odd end makes alignment matter */
#define POOL_END	((M(20) >> PAGE_SHIFT) + 3)
#define M(x)		((u64)(x) << 20)
#define MAX_RECS	4096

enum { S_HOLE, S_FREE, S_USED };

struct mpage {
	int state;
	int id;
	bool head;	/* the allocator's @head bit */
	bool cont;	/* and its @cont bit: the head of a piece */
};

enum kind { K_API, K_COMPAT };

struct rec {
	bool live;
	bool pool;
	bool split;	/* pages freed one by one from now on */
	bool comp;
	enum kind kind;
	unsigned long pfn;
	unsigned long nr;
	unsigned int order;
	size_t size;
};

static struct mpage model[POOL_END];
static struct rec recs[MAX_RECS];
static unsigned long nr_pool_allocs, expect_misuse, expect_frees;
static unsigned long nr_releases, nr_conts, nr_window_ops, nr_misuse;

/*
 * The releases the current free is to make, in order: [exp_pos, exp_cnt).
 * A free made between two releases of another (depth 1) appends its own
 * and consumes them before the outer one goes on.
 */
#define MAX_EXP		8192
static struct { unsigned long pfn, n; } exp_rel[MAX_EXP];
static unsigned long exp_pos, exp_cnt;
static int depth;
static u64 rng_state;
static unsigned long step;
static const char *op = "boot";
static int bad;
static char mapc[POOL_END];

static bool parse_map(void);
static int map_char_of(unsigned long pfn);

#define FAILF(fmt, ...) do {						\
	fprintf(stderr, "stress: step %lu (%s): " fmt "\n", step, op, ##__VA_ARGS__); \
	bad = 1;							\
} while (0)

static u64 rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static unsigned long rnd_below(unsigned long n)
{
	return n ? rnd() % n : 0;
}

static int new_rec(void)
{
	int i;

	for (i = 1; i < MAX_RECS; i++)
		if (!recs[i].live)
			return i;
	return -1;
}

static int pick_rec(void)
{
	int i, start = rnd_below(MAX_RECS);

	for (i = 0; i < MAX_RECS; i++) {
		int r = (start + i) % MAX_RECS;

		if (recs[r].live)
			return r;
	}
	return -1;
}

static unsigned long mask_end(u64 mask)
{
	return (mask >> PAGE_SHIFT) + (((mask & ~PAGE_MASK) + 1) >> PAGE_SHIFT);
}

/* Does the model have @nr free pages below @end, first pfn aligned? */
static bool model_fits(unsigned long nr, unsigned long end, unsigned long align)
{
	unsigned long p, run = 0;

	end = min(end, (unsigned long)POOL_END);
	for (p = 0; p < end; p++) {
		if (model[p].state != S_FREE) {
			run = 0;
			continue;
		}
		run++;
		if (run >= nr && (p + 1 - nr) % align == 0)
			return true;
	}
	return false;
}

static void model_take(int id, unsigned long pfn, unsigned long nr)
{
	unsigned long i;

	for (i = 0; i < nr; i++) {
		if (pfn + i >= POOL_END || model[pfn + i].state != S_FREE)
			FAILF("pfn %lu handed out but not free in the model", pfn + i);
		else
			model[pfn + i] = (struct mpage){ S_USED, id, i == 0, false };
	}
}

static bool used(unsigned long pfn)
{
	return pfn < POOL_END && model[pfn].state == S_USED;
}

/* mask_free_range_ok(): all allocated, no head after the first page. */
static bool model_range_ok(unsigned long pfn, unsigned long nr)
{
	unsigned long i;

	if (!nr)
		return false;
	for (i = 0; i < nr; i++)
		if (!used(pfn + i) || (i && model[pfn + i].head))
			return false;
	return true;
}

/* One mask_pool_release(pfn, nr) of allocated pages, as mm/mask_alloc.c does it. */
static void model_release(unsigned long pfn, unsigned long nr)
{
	bool ended;
	int id;
	unsigned long i;

	if (!model_range_ok(pfn, nr)) {
		FAILF("release of pfn %lu + %lu, which the model refuses", pfn, nr);
		return;
	}
	id = model[pfn].id;
	ended = model[pfn].head && !model[pfn].cont;
	for (i = 0; i < nr; i++)
		model[pfn + i] = (struct mpage){ S_FREE, 0, false, false };
	if (used(pfn + nr) && !model[pfn + nr].head) {
		/* every piece starts with a head: this one is @id's own */
		if (model[pfn + nr].id != id)
			FAILF("pfn %lu, without a head, is not of %d", pfn + nr, id);
		model[pfn + nr].head = model[pfn + nr].cont = true;
		nr_conts++;
	}
	expect_frees += ended;
	nr_releases++;
}

/* The next release the current free makes. */
static void expect_release(unsigned long pfn, unsigned long n)
{
	if (exp_cnt == MAX_EXP) {
		FAILF("too many releases expected");
		return;
	}
	exp_rel[exp_cnt].pfn = pfn;
	exp_rel[exp_cnt++].n = n;
}

/* Order of the first chunk of a run of @nr pages (mask_chunk_order()). */
static unsigned int chunk_order(unsigned long nr)
{
	return min_t(unsigned int, ilog2(nr), MAX_PAGE_ORDER);
}

/* mask_run_free_chunks(pfn, nr, from): the chunks at or after @from, in order. */
static void expect_chunks(unsigned long pfn, unsigned long nr, unsigned long from)
{
	unsigned long i, n;

	for (i = 0; i < nr; i += n) {
		n = 1UL << chunk_order(nr - i);
		if (i >= from)
			expect_release(pfn + i, n);
	}
}

/* __free_pages() with a reference left on @pfn: the rest of its 2^order. */
static void expect_tail_rule(unsigned long pfn, unsigned int order)
{
	while (order-- > 0)
		expect_release(pfn + (1UL << order), 1UL << order);
}

static void verify(void);
static void verify_light(void);
static void window_op(void);

/* harness_release_watch: one release made by a free path. */
static void watch_release(struct page *page, unsigned long n)
{
	unsigned long pfn = page_to_pfn(page);

	if (exp_pos >= exp_cnt) {
		FAILF("release of pfn %lu + %lu, none expected", pfn, n);
		return;
	}
	if (exp_rel[exp_pos].pfn != pfn || exp_rel[exp_pos].n != n)
		FAILF("release of pfn %lu + %lu, expected pfn %lu + %lu", pfn, n,
		      exp_rel[exp_pos].pfn, exp_rel[exp_pos].n);
	exp_pos++;
	if (bad)
		return;
	model_release(pfn, n);
	verify_light();
	/* another CPU in the window between two releases of one free */
	if (!depth && exp_pos < exp_cnt && !bad && rnd_below(4) == 0)
		window_op();
}

/* Start and end one free's list of releases (nested inside a window). */
struct frame {
	unsigned long pos, cnt;
};

static struct frame free_begin(void)
{
	struct frame f = { exp_pos, exp_cnt };

	exp_pos = exp_cnt;
	return f;
}

static void free_end(struct frame f)
{
	if (exp_pos != exp_cnt && !bad)
		FAILF("%lu of %lu expected releases made (next: pfn %lu + %lu)",
		      exp_pos - f.cnt, exp_cnt - f.cnt, exp_rel[exp_pos].pfn,
		      exp_rel[exp_pos].n);
	exp_cnt = f.cnt;
	exp_pos = f.pos;
}

static bool rec_page_live(int id, unsigned long pfn)
{
	return pfn < POOL_END && model[pfn].state == S_USED && model[pfn].id == id;
}

static void rec_check_done(int id)
{
	struct rec *r = &recs[id];
	unsigned long i;

	if (!r->pool) {
		r->live = false;
		return;
	}
	for (i = 0; i < r->nr; i++)
		if (rec_page_live(id, r->pfn + i))
			return;
	r->live = false;
}

/* ---------------- verification ---------------- */

static char mapbuf[1 << 17];

/* The map, the invariants and the counters against the model. */
static void verify_light(void)
{
	struct mask_pool_stats st;
	unsigned long p, nfree = 0, run = 0, best = 0;

	if (!parse_map()) {
		FAILF("map read failed");
		return;
	}
	for (p = 0; p < POOL_END && !bad; p++) {
		const struct mpage *m = &model[p];
		char want, got = mapc[p];

		if (m->state == S_HOLE)
			want = ' ';
		else if (m->state == S_FREE)
			want = '.';
		else
			want = m->cont ? 'h' : m->head ? 'H' : '#';
		if (want != got)
			FAILF("pfn %lu: map '%c', model '%c'", p, got, want);
		/* every allocated piece starts with a head */
		if (m->state == S_USED && !m->head &&
		    (!p || model[p - 1].state != S_USED || model[p - 1].id != m->id))
			FAILF("pfn %lu: an allocated piece of %d without a head", p, m->id);
		if (m->cont && !m->head)
			FAILF("pfn %lu: cont without head in the model", p);
		if (m->state == S_FREE) {
			nfree++;
			run++;
			best = max(best, run);
		} else {
			run = 0;
		}
	}
	if (bad)
		return;
	mask_pool_get_stats(&st);
	if (st.free_bytes != (u64)nfree << PAGE_SHIFT)
		FAILF("free_bytes %llu, model %lu pages", (unsigned long long)st.free_bytes, nfree);
	if (st.largest_free_bytes != (u64)best << PAGE_SHIFT)
		FAILF("largest_free %llu, model %lu pages",
		      (unsigned long long)st.largest_free_bytes, best);
	if (st.misuse != expect_misuse)
		FAILF("misuse %lu, expected %lu", st.misuse, expect_misuse);
	if (harness_vm_events[MASK_ALLOC] != nr_pool_allocs)
		FAILF("MASK_ALLOC %lu, model %lu", harness_vm_events[MASK_ALLOC], nr_pool_allocs);
	if (harness_vm_events[MASK_FREE] != expect_frees)
		FAILF("MASK_FREE %lu, model %lu", harness_vm_events[MASK_FREE], expect_frees);
}

/* After a step: verify_light(), the struct pages and the harness's counts. */
static void verify(void)
{
	unsigned long p;
	int i;

	if (harness_errors || harness_bad_pages) {
		FAILF("%lu harness errors, %lu bad pages", harness_errors, harness_bad_pages);
		harness_errors = harness_bad_pages = 0;
	}
	verify_light();
	for (p = 0; p < POOL_END && !bad; p++) {
		const struct mpage *m = &model[p];
		struct page *pg = pfn_to_page(p);

		if (m->state == S_FREE && (pg->state != HPS_FREE || pg->_refcount))
			FAILF("free pfn %lu: state %d ref %d", p, pg->state, pg->_refcount);
		if (m->state == S_USED) {
			const struct rec *r = &recs[m->id];
			int ref = 0;

			if (r->split || p == r->pfn)
				ref = 1;
			if (pg->state != HPS_ALLOCATED || pg->_refcount != ref)
				FAILF("used pfn %lu: state %d ref %d (want %d)",
				      p, pg->state, pg->_refcount, ref);
		}
	}
	for (i = 0; i < MAX_RECS && !bad; i++)
		if (recs[i].live && !recs[i].pool &&
		    pfn_to_page(recs[i].pfn)->state != HPS_ALLOCATED)
			FAILF("buddy allocation %d lost its state", i);
}

/* ---------------- operations ---------------- */

static const u64 masks[] = {
	0xfffff, 0x3fffff, 0x7fffff, 0x9fffff, 0xabcdef, 0xffffff,
	0x13fffff, 0x1000000, 0x17fffff, 0x1ffffff,
};

static int last_alloc;	/* the rec of the last op_alloc_api_size(), or -1 */

static void op_alloc_api_size(size_t size)
{
	u64 mask = masks[rnd_below(ARRAY_SIZE(masks))];
	unsigned long nr, end = mask_end(mask);
	gfp_t gfp = GFP_ATOMIC | __GFP_NOWARN;
	bool fits, zero = rnd_below(8) == 0;
	struct page *page;
	int id = new_rec();

	op = "alloc_api";
	last_alloc = -1;
	if (id < 0)
		return;
	if (zero)
		gfp |= __GFP_ZERO;
	nr = DIV_ROUND_UP(size, PAGE_SIZE);
	fits = model_fits(nr, end, 1);
	page = alloc_pages_mask(gfp, size, mask);
	if (!page) {
		if (fits && harness_buddy_fail)
			FAILF("alloc %zu below %#llx failed but the model fits",
			      size, (unsigned long long)mask);
		return;
	}
	if (page_to_phys(page) + size - 1 > mask)
		FAILF("allocation at %#llx + %zu above mask %#llx",
		      (unsigned long long)page_to_phys(page), size,
		      (unsigned long long)mask);
	recs[id] = (struct rec){ .live = true, .kind = K_API, .pfn = page_to_pfn(page),
				 .nr = nr, .size = size };
	last_alloc = id;
	if (mask_pool_page(page)) {
		recs[id].pool = true;
		nr_pool_allocs++;
		model_take(id, recs[id].pfn, nr);
	} else if (page_to_pfn(page) < POOL_END) {
		FAILF("non-pool page inside the pool range");
	}
	if (zero) {
		unsigned char *d = page_address(page);
		size_t i;

		for (i = 0; i < size; i++)
			if (d[i]) {
				FAILF("__GFP_ZERO allocation not zeroed");
				break;
			}
	}
	memset(page_address(page), 0x5a, size);
}

static void op_alloc_api(void)
{
	size_t size;

	switch (rnd_below(4)) {
	case 0:
		size = 16 + rnd_below(PAGE_SIZE);
		break;
	case 1:
		size = (1 + rnd_below(8)) * PAGE_SIZE;
		break;
	case 2:
		size = 16 + rnd_below(64 * PAGE_SIZE);
		break;
	default:
		size = 16 + rnd_below(600 * PAGE_SIZE);
		break;
	}
	op_alloc_api_size(size);
}

static void op_alloc_compat(void)
{
	unsigned int order = rnd_below(5);
	bool comp = order && rnd_below(2);
	gfp_t gfp = GFP_ATOMIC | __GFP_NOWARN | (comp ? __GFP_COMP : 0);
	unsigned long n = 1UL << order;
	bool fits = model_fits(n, M(16) >> PAGE_SHIFT, n);
	struct page *page;
	int id = new_rec();

	op = "alloc_compat";
	if (id < 0)
		return;
	page = mask_pool_alloc_compat(gfp, order);
	if (!page) {
		if (fits)
			FAILF("compat order %u failed but the model fits", order);
		return;
	}
	if (page_to_pfn(page) % n || page_to_phys(page) + (n << PAGE_SHIFT) > M(16))
		FAILF("compat order %u at pfn %lu misplaced", order, page_to_pfn(page));
	recs[id] = (struct rec){ .live = true, .pool = true, .kind = K_COMPAT,
				 .pfn = page_to_pfn(page), .nr = n, .order = order,
				 .comp = comp, .size = n << PAGE_SHIFT };
	nr_pool_allocs++;
	model_take(id, recs[id].pfn, n);
}

/* Free what is left of @id, the way its kind is freed. */
static void free_whole(int id)
{
	struct rec *r = &recs[id];
	struct page *page = pfn_to_page(r->pfn);
	bool extra_ref = rnd_below(4) == 0;
	struct frame f = free_begin();
	unsigned long i;

	if (r->split) {
		op = "free_rest_of_split";
		for (i = 0; i < r->nr && !bad; i++) {
			if (rec_page_live(id, r->pfn + i)) {
				expect_release(r->pfn + i, 1);
				__free_pages(page + i, 0);
			}
		}
	} else if (r->kind == K_API) {
		op = extra_ref && r->pool ? "free_api_extra_ref" : "free_api";
		if (!r->pool) {
			__free_pages_mask(page, r->size);
		} else if (extra_ref) {
			unsigned int order = chunk_order(r->nr);

			/* the other chunks, then the first's rest, then the page */
			expect_chunks(r->pfn, r->nr, 1UL << order);
			expect_tail_rule(r->pfn, order);
			get_page(page);
			__free_pages_mask(page, r->size);
			if (!bad && map_char_of(r->pfn) != 'H')
				FAILF("head lost while a reference is held");
			expect_release(r->pfn, 1);
			put_page(page);
		} else {
			/* the chunks after the first, then the first */
			expect_chunks(r->pfn, r->nr, 1UL << chunk_order(r->nr));
			expect_release(r->pfn, 1UL << chunk_order(r->nr));
			__free_pages_mask(page, r->size);
		}
	} else if (r->comp) {
		op = "folio_put";
		expect_release(r->pfn, r->nr);
		put_page(page);
	} else if (extra_ref && r->order) {
		op = "free_pages_tail_rule";
		expect_tail_rule(r->pfn, r->order);
		get_page(page);
		__free_pages(page, r->order);
		expect_release(r->pfn, 1);
		put_page(page);
	} else {
		op = "free_pages";
		expect_release(r->pfn, r->nr);
		__free_pages(page, r->order);
	}
	free_end(f);
	r->live = false;
}

static void free_partial(int id)
{
	struct rec *r = &recs[id];
	struct page *page = pfn_to_page(r->pfn);
	unsigned long i, n, start;
	struct frame f;

	op = "free_partial";
	if (!r->pool || r->comp)
		return;
	if (!r->split) {
		if (r->kind == K_COMPAT) {
			split_page(page, r->order);
		} else {
			for (i = 1; i < r->nr; i++)
				set_page_refcounted(page + i);
		}
		r->split = true;
	}
	start = rnd_below(r->nr);
	n = 1 + rnd_below(3);
	f = free_begin();
	for (i = start; i < r->nr && n && !bad; i++) {
		if (!rec_page_live(id, r->pfn + i))
			continue;
		expect_release(r->pfn + i, 1);
		__free_pages(page + i, 0);
		n--;
	}
	free_end(f);
	rec_check_done(id);
}

/*
 * Another CPU between two releases of one free: a small allocation,
 * freed again at once or later.
 */
static void window_op(void)
{
	const char *outer = op;
	int id;

	depth++;
	nr_window_ops++;
	op_alloc_api_size(MASK_MIN_SIZE + rnd_below(8 * PAGE_SIZE));
	id = last_alloc;
	if (!bad && id >= 0 && rnd_below(2))
		free_whole(id);
	if (!bad)
		verify_light();
	op = outer;
	depth--;
}

/* A piece of @id that starts with a cont head, and its length; false: none. */
static bool find_piece(int id, unsigned long *pfn, unsigned long *len)
{
	const struct rec *r = &recs[id];
	unsigned long i, n;

	for (i = 0; i < r->nr; i++) {
		if (!rec_page_live(id, r->pfn + i) || !model[r->pfn + i].cont)
			continue;
		for (n = 1; rec_page_live(id, r->pfn + i + n) &&
			    !model[r->pfn + i + n].head; n++)
			;
		*pfn = r->pfn + i;
		*len = n;
		return true;
	}
	return false;
}

static void op_misuse(void)
{
	int id = pick_rec();
	unsigned long p, n;
	bool ok;

	op = "misuse";
	switch (rnd_below(5)) {
	case 0:
		/* a wrong size: short of the run, or into what follows it */
		if (id < 0 || recs[id].kind != K_API || !recs[id].pool || recs[id].split)
			return;
		op = "misuse_free_size";
		if (rnd_below(2))
			__free_pages_mask(pfn_to_page(recs[id].pfn), recs[id].size + PAGE_SIZE);
		else
			__free_pages_mask(pfn_to_page(recs[id].pfn), recs[id].size - PAGE_SIZE);
		expect_misuse++;
		break;
	case 1:
		/* a release of a range the allocator must refuse */
		op = "misuse_release";
		p = rnd_below(POOL_END);
		n = 1 + rnd_below(rnd_below(2) ? 2 : 8);
		if (model_range_ok(p, n) || model[p].state == S_HOLE)
			return;
		mask_pool_release(pfn_to_page(p), n);
		expect_misuse++;
		break;
	case 2:
		/* free_pages_prepare()'s check of any range, as the model answers */
		op = "free_ok";
		p = rnd_below(POOL_END);
		n = 1 + rnd_below(rnd_below(2) ? 2 : 8);
		ok = mask_pool_free_ok(pfn_to_page(p), n);
		if (ok != model_range_ok(p, n))
			FAILF("mask_pool_free_ok(pfn %lu, %lu) %d, model %d", p, n, ok, !ok);
		expect_misuse += !ok;
		break;
	case 3:
		/* a piece freed as if it were an allocation */
		if (id < 0 || !find_piece(id, &p, &n))
			return;
		if (rnd_below(2)) {
			op = "misuse_free_mask_piece";
			__free_pages_mask(pfn_to_page(p), n * PAGE_SIZE);
		} else {
			op = "misuse_free_bounce_piece";
			mask_pool_free_bounce(pfn_to_page(p), n);
		}
		expect_misuse++;
		break;
	default:
		op = "misuse_tiny";
		if (alloc_pages_mask(GFP_ATOMIC, rnd_below(MASK_MIN_SIZE), M(16) - 1))
			FAILF("tiny size accepted");
		expect_misuse++;
		break;
	}
	nr_misuse++;
}

/* Read the debugfs map into mapc[], one char per pfn. */
static bool parse_map(void)
{
	char *l = mapbuf, *nl;
	unsigned long base, i;

	memset(mapc, ' ', sizeof(mapc));
	if (harness_debugfs_read("map", mapbuf, sizeof(mapbuf)) < 0)
		return false;
	for (; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		if (!nl || nl - l < 10 || l[8] != ' ')
			return false;
		base = strtoul(l, NULL, 16);
		for (i = 0; l + 9 + i < nl; i++)
			if (base + i < POOL_END)
				mapc[base + i] = l[9 + i];
	}
	return true;
}

static int map_char_of(unsigned long pfn)
{
	return parse_map() ? mapc[pfn] : '?';
}

int stress_run(u64 seed, unsigned long iters)
{
	struct harness_boot_opts o = { .holes = true, .increase = M(4) + 3 * PAGE_SIZE };
	struct mask_pool_stats st;
	unsigned long p;
	int id;

	rng_state = seed ? seed : 0x9e3779b97f4a7c15ULL;
	harness_boot(&o);
	harness_buddy_fail = true;
	harness_release_watch = watch_release;
	for (p = 0; p < POOL_END; p++)
		model[p].state = mask_pool_page(pfn_to_page(p)) ? S_FREE : S_HOLE;
	verify();

	for (step = 1; step <= iters && !bad; step++) {
		unsigned int r = rnd_below(100);

		if (rnd_below(50) == 0) {
			/* occasionally let the buddy allocator answer */
			harness_buddy_fail = !harness_buddy_fail;
			harness_buddy_floor_pfn = rnd_below(2) ? 0 : M(40) >> PAGE_SHIFT;
		}
		if (r < 38) {
			op_alloc_api();
		} else if (r < 52) {
			op_alloc_compat();
		} else if (r < 82) {
			id = pick_rec();
			if (id >= 0)
				free_whole(id);
		} else if (r < 97) {
			id = pick_rec();
			if (id >= 0)
				free_partial(id);
		} else {
			op_misuse();
		}
		verify();
	}
	/*
	 * Drain, in any order: every free must be taken, and the pool whole
	 * again.  What a window allocates in the first pass goes in the
	 * second, without windows.
	 */
	for (p = 0; p < 2 && !bad; p++) {
		for (id = 0; id < MAX_RECS && !bad; id++) {
			if (recs[id].live)
				free_whole(id);
			if (!bad && recs[id].live)
				FAILF("rec %d still live after its free", id);
		}
		depth = 1;
	}
	depth = 0;
	op = "drain";
	verify();
	harness_release_watch = NULL;
	mask_pool_get_stats(&st);
	if (!bad && st.free_pages != st.pool_pages)
		FAILF("pool not whole after drain");
	if (!bad && expect_frees != nr_pool_allocs)
		FAILF("MASK_FREE %lu for %lu pool allocations", expect_frees, nr_pool_allocs);
	return bad;
}

#ifndef STRESS_AS_CASE
int main(int argc, char **argv)
{
	unsigned long iters = 20000;
	const char *env = getenv("MASK_STRESS_SEED");
	u64 seed = env ? strtoull(env, NULL, 0) : 0;
	bool have_seed = env != NULL;
	int a, rc;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--seed") && a + 1 < argc) {
			seed = strtoull(argv[++a], NULL, 0);
			have_seed = true;
		} else if (!strcmp(argv[a], "--iters") && a + 1 < argc) {
			iters = strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "-v")) {
			harness_verbose = true;
		} else {
			fprintf(stderr, "usage: %s [--seed S] [--iters N] [-v]\n", argv[0]);
			return 2;
		}
	}
	if (!have_seed)
		seed = (u64)time(NULL) ^ ((u64)getpid() << 32);
	printf("stress: seed %" PRIu64 " iters %lu\n", seed, iters);
	fflush(stdout);
	rc = stress_run(seed, iters);
	printf("%s stress seed %" PRIu64 " (%lu pool allocations, %lu releases, %lu cont heads,"
	       " %lu window ops, %lu misuse)\n",
	       rc ? "FAILED" : "passed", seed, nr_pool_allocs, nr_releases, nr_conts,
	       nr_window_ops, nr_misuse);
	return rc;
}
#endif
