// SPDX-License-Identifier: GPL-2.0
/*
 * Seeded random stress of mm/mask_alloc.c against a reference model.
 *
 * The model is a plain array of page states (hole / free / used by
 * allocation id) with the head bits of mm/mask_alloc.c: set on the first
 * page of a run, moved by a release that starts at one to the page after
 * it if that page is allocated and has none, and otherwise gone (and
 * MASK_FREE counted).  Releases are modelled one mask_pool_release() call
 * at a time, in the chunks and order in which the free paths make them.
 * After every step the debugfs map, the stats, the struct page states and
 * the vm events are compared with it.  A failed non-blocking pool
 * allocation is an error if the model has a fit.
 *
 * A middle piece freed first leaves the rest of its allocation without a
 * head bit.  mm/mask_alloc.c then refuses __free_pages_mask() of a whole
 * run that ends right below such a headless page (mask_run_is_alloc():
 * "the page after the run must not continue it"), and accepts a free one
 * page too large into it.  Those frees are deferred here (counted, printed
 * by ./stress) until the remainder is gone; see known_* in tests.c.
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
	bool head;	/* the allocator's head bit */
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
static unsigned long nr_pool_allocs, expect_misuse, expect_frees, deferred, adopted;
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
			model[pfn + i] = (struct mpage){ S_USED, id, i == 0 };
	}
}

/* An allocated page without a head bit: the allocator's "continues a run". */
static bool headless_used(unsigned long pfn)
{
	return pfn < POOL_END && model[pfn].state == S_USED && !model[pfn].head;
}

/* One mask_pool_release(pfn, nr) of allocated pages, as mm/mask_alloc.c does it. */
static void model_release(unsigned long pfn, unsigned long nr)
{
	bool ended = model[pfn].head;
	int id = model[pfn].id;
	unsigned long i;

	for (i = 0; i < nr; i++)
		model[pfn + i] = (struct mpage){ S_FREE, 0, false };
	if (ended && headless_used(pfn + nr)) {
		/* the page after may be another allocation's remainder */
		adopted += model[pfn + nr].id != id;
		model[pfn + nr].head = true;
		ended = false;
	}
	expect_frees += ended;
}

/* Order of the first chunk of a run of @nr pages (mask_chunk_order()). */
static unsigned int chunk_order(unsigned long nr)
{
	return min_t(unsigned int, ilog2(nr), MAX_PAGE_ORDER);
}

/* __free_pages_mask() of a whole run: the other chunks, then the first. */
static void model_release_run(unsigned long pfn, unsigned long nr)
{
	unsigned long first = 1UL << chunk_order(nr);

	if (nr > first)
		model_release(pfn + first, nr - first);
	model_release(pfn, first);
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

static void verify(void)
{
	struct mask_pool_stats st;
	unsigned long p, nfree = 0, run = 0, best = 0;
	int i;

	if (harness_errors || harness_bad_pages) {
		FAILF("%lu harness errors, %lu bad pages", harness_errors, harness_bad_pages);
		harness_errors = harness_bad_pages = 0;
	}
	if (!parse_map()) {
		FAILF("map read failed");
		return;
	}
	for (p = 0; p < POOL_END; p++) {
		const struct mpage *m = &model[p];
		struct page *pg = pfn_to_page(p);
		char want, got = mapc[p];

		if (m->state == S_HOLE)
			want = ' ';
		else if (m->state == S_FREE)
			want = '.';
		else
			want = m->head ? 'H' : '#';
		if (want != got)
			FAILF("pfn %lu: map '%c', model '%c'", p, got, want);

		if (m->state == S_FREE) {
			nfree++;
			run++;
			best = max(best, run);
			if (pg->state != HPS_FREE || pg->_refcount)
				FAILF("free pfn %lu: state %d ref %d", p, pg->state, pg->_refcount);
		} else {
			run = 0;
		}
		if (m->state == S_USED) {
			const struct rec *r = &recs[m->id];
			int ref = 0;

			if (r->split || p == r->pfn)
				ref = 1;
			if (pg->state != HPS_ALLOCATED || pg->_refcount != ref)
				FAILF("used pfn %lu: state %d ref %d (want %d)",
				      p, pg->state, pg->_refcount, ref);
		}
		if (bad)
			return;
	}
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

static void op_alloc_api(void)
{
	u64 mask = masks[rnd_below(ARRAY_SIZE(masks))];
	unsigned long nr, end = mask_end(mask);
	gfp_t gfp = GFP_ATOMIC | __GFP_NOWARN;
	bool fits, zero = rnd_below(8) == 0;
	struct page *page;
	size_t size;
	int id = new_rec();

	op = "alloc_api";
	if (id < 0)
		return;
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

/* Free what is left of @id; false if deferred (see the top of the file). */
static bool free_whole(int id)
{
	struct rec *r = &recs[id];
	struct page *page = pfn_to_page(r->pfn);
	bool extra_ref = rnd_below(4) == 0;
	unsigned long i;

	if (r->split) {
		op = "free_rest_of_split";
		for (i = 0; i < r->nr; i++) {
			if (rec_page_live(id, r->pfn + i)) {
				__free_pages(page + i, 0);
				model_release(r->pfn + i, 1);
			}
		}
		rec_check_done(id);
		return true;
	}
	if (r->kind == K_API && r->pool && headless_used(r->pfn + r->nr)) {
		deferred++;
		return false;
	}
	if (r->kind == K_API) {
		op = extra_ref ? "free_api_extra_ref" : "free_api";
		if (!r->pool) {
			__free_pages_mask(page, r->size);
		} else if (extra_ref) {
			get_page(page);
			__free_pages_mask(page, r->size);
			if (r->nr > 1)
				model_release(r->pfn + 1, r->nr - 1);
			if (map_char_of(r->pfn) != 'H')
				FAILF("head lost while a reference is held");
			put_page(page);
			model_release(r->pfn, 1);
		} else {
			__free_pages_mask(page, r->size);
			model_release_run(r->pfn, r->nr);
		}
	} else if (r->comp) {
		op = "folio_put";
		put_page(page);
		model_release(r->pfn, r->nr);
	} else if (extra_ref && r->order) {
		op = "free_pages_tail_rule";
		get_page(page);
		__free_pages(page, r->order);
		model_release(r->pfn + 1, r->nr - 1);
		put_page(page);
		model_release(r->pfn, 1);
	} else {
		op = "free_pages";
		__free_pages(page, r->order);
		model_release(r->pfn, r->nr);
	}
	r->live = false;
	return true;
}

static void free_partial(int id)
{
	struct rec *r = &recs[id];
	struct page *page = pfn_to_page(r->pfn);
	unsigned long i, n, start;

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
	for (i = start; i < r->nr && n; i++) {
		if (!rec_page_live(id, r->pfn + i))
			continue;
		__free_pages(page + i, 0);
		model_release(r->pfn + i, 1);
		n--;
	}
	rec_check_done(id);
}

static void op_misuse(void)
{
	int id = pick_rec();
	unsigned long p;

	op = "misuse";
	switch (rnd_below(3)) {
	case 0:
		if (id < 0 || recs[id].kind != K_API || !recs[id].pool || recs[id].split)
			return;
		/* One page too many into a headless remainder is not refused. */
		if (rnd_below(2)) {
			if (headless_used(recs[id].pfn + recs[id].nr)) {
				deferred++;
				return;
			}
			__free_pages_mask(pfn_to_page(recs[id].pfn), recs[id].size + PAGE_SIZE);
		} else {
			__free_pages_mask(pfn_to_page(recs[id].pfn), recs[id].size - PAGE_SIZE);
		}
		expect_misuse++;
		break;
	case 1:
		p = rnd_below(POOL_END);
		if (model[p].state != S_FREE)
			return;
		mask_pool_release(pfn_to_page(p), 1);
		expect_misuse++;
		break;
	default:
		if (alloc_pages_mask(GFP_ATOMIC, rnd_below(MASK_MIN_SIZE), M(16) - 1))
			FAILF("tiny size accepted");
		expect_misuse++;
		break;
	}
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
	unsigned long p, live;
	int id;

	rng_state = seed ? seed : 0x9e3779b97f4a7c15ULL;
	harness_boot(&o);
	harness_buddy_fail = true;
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
	 * Drain and check that the pool is whole again: a deferred free
	 * waits for the split allocation after it, which always goes.
	 */
	op = "drain";
	for (p = 0, live = 1; live && !bad; p++) {
		if (p > 2) {
			FAILF("drain makes no progress");
			break;
		}
		for (id = 0, live = 0; id < MAX_RECS && !bad; id++)
			while (recs[id].live && !bad)
				if (!free_whole(id)) {
					live++;
					break;
				}
	}
	verify();
	mask_pool_get_stats(&st);
	if (!bad && st.free_pages != st.pool_pages)
		FAILF("pool not whole after drain");
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
	printf("%s stress seed %" PRIu64 " (%lu frees deferred: a headless remainder follows;"
	       " %lu heads taken over by another allocation's remainder)\n",
	       rc ? "FAILED" : "passed", seed, deferred, adopted);
	return rc;
}
#endif
