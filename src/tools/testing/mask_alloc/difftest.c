// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test of the pool search: mm/mask_alloc.c (search summary)
 * against ref.c (the seed's linear scan), on seeded random operations.
 *
 * Each round boots a fresh pool (in a child process: the allocator's
 * state is static) with a random size, holes and growth, copies its
 * bitmap into the reference, and then runs random bounce allocations
 * (random masks, 1-512 pages, alignments, segment boundaries), GFP_DMA
 * compat allocations (aligned orders) and frees, drifting between empty
 * and nearly full.  Every placement of the real allocator must be the
 * reference's, and so must every failure; every 256 steps the largest
 * free run in mask_pool_get_stats() must be the reference's.  The first
 * difference stops the run with the seed, the round and the step.
 *
 *   ./difftest [--seed S] [--ops N] [--round-ops R]
 *
 * Without --seed a random seed is used; it is always printed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "ref.h"

#define MAX_RECS	8192

struct rec {
	struct page *page;
	unsigned long nr;
	int order;		/* compat allocation of this order, -1: bounce */
};

static struct rec recs[MAX_RECS];
static unsigned int nrecs;
static u64 rng;
static u64 seed;
static unsigned long round_no, step;

static u64 rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static unsigned long rnd_below(unsigned long n)
{
	return n ? rnd() % n : 0;
}

#define FAIL(fmt, ...) do {						\
	fprintf(stderr, "difftest: seed %" PRIu64 " round %lu step %lu: " fmt "\n", \
		seed, round_no, step, ##__VA_ARGS__);			\
	exit(1);							\
} while (0)

static unsigned long mask_end(u64 mask)
{
	return (mask >> PAGE_SHIFT) + (((mask & ~PAGE_MASK) + 1) >> PAGE_SHIFT);
}

static unsigned long rnd_nr(void)
{
	switch (rnd_below(4)) {
	case 0:
		return 1;
	case 1:
		return 1 + rnd_below(16);
	case 2:
		return 1 + rnd_below(64);
	default:
		return 1 + rnd_below(512);
	}
}

static u64 rnd_limit(const struct ref_pool *r)
{
	unsigned long pfn;

	switch (rnd_below(4)) {
	case 0:
		return DMA_BIT_MASK(20 + rnd_below(13));
	case 1:
		return U64_MAX;
	default:
		/* Anywhere around the pool, sometimes not page aligned. */
		pfn = r->base_pfn + rnd_below(r->nbits + 32);
		pfn = pfn > 16 ? pfn - 16 : pfn;
		return rnd_below(4) ? PFN_PHYS(pfn) - 1 : PFN_PHYS(pfn) + rnd_below(PAGE_SIZE);
	}
}

static void do_bounce(struct ref_pool *r)
{
	unsigned long nr = rnd_nr(), am, ap, bm, end, want, got;
	u64 limit = rnd_limit(r);
	struct page *page;

	am = (1UL << rnd_below(7)) - 1;
	ap = rnd() & am;
	bm = rnd_below(2) ? ~0UL : (1UL << rnd_below(12)) - 1;
	if (nr - 1 > bm && rnd_below(4))
		bm = ~0UL;

	end = mask_end(limit);
	if (end <= r->base_pfn)
		want = -ERANGE;
	else if (nr > r->pool_pages || nr - 1 > bm ||
		 nr > min(end, r->max_pfn + 1) - r->base_pfn)
		want = -E2BIG;
	else
		want = ref_find(r, nr, end, am, ap, bm);
	if (want == REF_NO_PFN)
		want = -ENOMEM;

	page = mask_pool_alloc_bounce(nr, limit, am, ap, bm);
	got = IS_ERR(page) ? (unsigned long)PTR_ERR(page) : page_to_pfn(page);
	if (got != want)
		FAIL("bounce nr %lu limit %#llx align %#lx/%#lx boundary %#lx: got %ld, reference %ld",
		     nr, (unsigned long long)limit, am, ap, bm, (long)got, (long)want);
	if (!IS_ERR(page) && nrecs < MAX_RECS)
		recs[nrecs++] = (struct rec){ page, nr, -1 };
	else if (!IS_ERR(page))
		mask_pool_free_bounce(page, nr), ref_release(r, got, nr);
}

static void do_compat(struct ref_pool *r)
{
	unsigned int order = rnd_below(7);
	unsigned long nr = 1UL << order, end = mask_end(DMA_BIT_MASK(24));
	unsigned long want = REF_NO_PFN, got;
	struct page *page;

	if (!(end <= r->base_pfn || nr > r->pool_pages ||
	      nr > min(end, r->max_pfn + 1) - r->base_pfn))
		want = ref_find(r, nr, end, nr - 1, 0, ~0UL);
	page = mask_pool_alloc_compat(GFP_NOWAIT | __GFP_NOWARN, order);
	got = page ? page_to_pfn(page) : REF_NO_PFN;
	if (got != want)
		FAIL("compat order %u: got %ld, reference %ld", order, (long)got, (long)want);
	if (page && nrecs < MAX_RECS)
		recs[nrecs++] = (struct rec){ page, nr, order };
	else if (page)
		__free_pages(page, order), ref_release(r, got, nr);
}

static void do_free(struct ref_pool *r)
{
	unsigned int i = rnd_below(nrecs);
	struct rec rc = recs[i];

	recs[i] = recs[--nrecs];
	if (rc.order < 0)
		mask_pool_free_bounce(rc.page, rc.nr);
	else
		__free_pages(rc.page, rc.order);
	ref_release(r, page_to_pfn(rc.page), rc.nr);
}

static void boot_random(void)
{
	struct harness_boot_opts o = { 0 };
	char param[64];

	o.holes = rnd_below(2);
	switch (rnd_below(3)) {
	case 0:		/* default 16 MB pool, maybe grown */
		if (rnd_below(2))
			o.increase = PAGE_SIZE * (1 + rnd_below(8192));
		break;
	default:	/* any size up to 40 MB */
		snprintf(param, sizeof(param), "%lu",
			 PAGE_SIZE * (1 + rnd_below(10240)));
		o.has_param = true;
		o.param = param;
		break;
	}
	harness_boot(&o);
}

/* Longest run of free pages in the reference. */
static unsigned long ref_longest(const struct ref_pool *r)
{
	unsigned long i = 0, j, best = 0;

	while ((i = find_next_zero_bit(r->used, r->nbits, i)) < r->nbits) {
		j = find_next_bit(r->used, r->nbits, i);
		best = max(best, j - i);
		i = j;
	}
	return best;
}

/* The summary's largest free run (made exact by the stats) is the real one. */
static void check_longest(const struct ref_pool *r)
{
	struct mask_pool_stats st;

	mask_pool_get_stats(&st);
	if (st.largest_free_bytes != (u64)ref_longest(r) << PAGE_SHIFT)
		FAIL("largest free run %llu pages, reference %lu",
		     (unsigned long long)(st.largest_free_bytes >> PAGE_SHIFT),
		     ref_longest(r));
}

/* One round in this (child) process. */
static void round_run(unsigned long ops)
{
	struct ref_pool r;
	unsigned long fill_target = 0, s;

	boot_random();
	if (ref_init_from_map(&r))
		FAIL("no pool after boot");
	for (s = 0; s < ops; s++, step++) {
		/* Drift to a new target fill level now and then. */
		if (!(s % 2048))
			fill_target = rnd_below(5) ? 50 + rnd_below(50) : rnd_below(100);
		if (nrecs && (rnd_below(100) >= fill_target || nrecs == MAX_RECS))
			do_free(&r);
		else if (rnd_below(5))
			do_bounce(&r);
		else
			do_compat(&r);
		if (!(s % 256))
			check_longest(&r);
	}
	while (nrecs)
		do_free(&r);
	check_longest(&r);
	/* Everything back: the pool must be whole again. */
	if (ref_find(&r, r.pool_pages, ULONG_MAX, 0, 0, ~0UL) == REF_NO_PFN &&
	    r.pool_pages == r.nbits)
		FAIL("reference pool not empty after freeing everything");
	if (harness_errors || harness_bad_pages || harness_warnings)
		FAIL("%lu harness errors, %lu bad pages, %lu warnings",
		     harness_errors, harness_bad_pages, harness_warnings);
	ref_destroy(&r);
}

int main(int argc, char **argv)
{
	unsigned long ops = 200000, round_ops = 20000, done = 0;
	bool have_seed = false;
	int a, status;
	pid_t pid;

	for (a = 1; a + 1 < argc; a += 2) {
		if (!strcmp(argv[a], "--seed")) {
			seed = strtoull(argv[a + 1], NULL, 0);
			have_seed = true;
		} else if (!strcmp(argv[a], "--ops")) {
			ops = strtoul(argv[a + 1], NULL, 0);
		} else if (!strcmp(argv[a], "--round-ops")) {
			round_ops = strtoul(argv[a + 1], NULL, 0);
		} else {
			break;
		}
	}
	if (a < argc || !round_ops) {
		fprintf(stderr, "usage: %s [--seed S] [--ops N] [--round-ops R]\n", argv[0]);
		return 2;
	}
	if (!have_seed && getenv("MASK_DIFF_SEED")) {
		seed = strtoull(getenv("MASK_DIFF_SEED"), NULL, 0);
		have_seed = true;
	}
	if (!have_seed)
		seed = ((u64)time(NULL) << 20) ^ ((u64)getpid() << 4);
	printf("# %s: seed %" PRIu64 ", %lu ops\n", argv[0],
	       seed, ops);
	fflush(stdout);
	for (round_no = 0; done < ops; round_no++, done += round_ops) {
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (!pid) {
			rng = seed * 0x9e3779b97f4a7c15ULL + round_no + 1;
			if (!rng)
				rng = 1;
			step = done;
			round_run(min(round_ops, ops - done));
			exit(0);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			printf("not ok difftest seed %" PRIu64 " (round %lu)\n", seed, round_no);
			return 1;
		}
	}
	printf("ok %s seed %" PRIu64 ": %lu ops, placement identical\n", argv[0], seed, ops);
	return 0;
}
