// SPDX-License-Identifier: GPL-2.0
/*
 * Pool search benchmark: mm/mask_alloc.c (search summary) against ref.c
 * (the seed's linear scan), on the same pool states and operations.
 *
 * For each pool size, a fresh pool (maskzone=SIZE, in a child process) is
 * filled with random runs of 1-64 pages until full (the references follow
 * and must place every run where the kernel code does).  For each fill
 * level, fullest first, random runs are freed down to it and the pool is
 * churned to a steady state: an operation allocates a random request
 * (masks of 24, 28, 30, 31 and 32 bits, 1-64 pages) and frees random runs
 * until the fill level is reached again.  Then each search runs the same
 * --ops operations from the same state, timed; afterwards all pools must
 * be identical.  Each figure is the median of --runs runs.  Under
 * callgrind each timed run is dumped as "search MiB fill ops".
 *
 * The timed operations replay a script recorded beforehand, untimed, on a
 * copy of the reference pool: each request, where it must land, and the
 * runs freed after it.  Choosing a live run to free at random is the
 * benchmark's bookkeeping, not the pool's: a kernel caller holds its own
 * pointer, while the list of live runs has up to 58000 entries (928 KB at
 * 8 GiB), and a random read from it per free cost a cache miss that grew
 * with the pool and was counted as the pool's.
 *
 *   ./bench [--sizes MiB,MiB,...] [--fills 50,90,99] [--max-pages 64]
 *           [--runs N] [--ops N] [--warm ROUNDS] [--seed S] [--json FILE]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif

#include "harness.h"
#include "ref.h"
/* The kernel file itself, to time its search without the page hooks. */
#undef pr_fmt
#include "mask_alloc.c"

#define MAX_SIZES	8
#define MAX_FILLS	8
#define MAX_RUNS	15
#define RUN_NS		20000000ULL	/* a run lasts about 20 ms */

static u64 rng;

static u64 rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#include "perf.h"

#ifndef noinline
#define noinline __attribute__((noinline))
#endif

/*
 * The masks.  The widest is widened to reach the top of pools
 * above 4 GB (the harness's 8 GiB pool): otherwise nothing could ever be
 * allocated above 4 GB, and the upper half of that pool would drain.
 */
static unsigned int mask_bits[] = { 24, 28, 30, 31, 32 };

struct req {
	unsigned long nr;
	u64 limit;
};

static unsigned long churn_ops = 20000, warm_rounds = 4;

/* Request sizes: 1..max_pages pages. */
static unsigned long max_pages = 64;

static void next_req(struct req *r)
{
	u64 x = rnd();

	r->nr = 1 + x % max_pages;
	r->limit = DMA_BIT_MASK(mask_bits[(x >> 8) % ARRAY_SIZE(mask_bits)]);
}

/* A live allocation: the same list in every mode, by construction. */
struct alloc {
	unsigned long pfn;
	unsigned long nr;
};

/*
 * M_FLOOR is no search at all: in the timed runs it puts each request
 * where the script says it lands and does the rest of M_LINEAR_K's
 * bookkeeping (used and head bits, the release's checks).  Its cost is
 * the memory traffic that any search pays for the same operations on a
 * pool of that size, so summary - floor is what the search itself costs.
 */
enum mode { M_SUMMARY, M_LINEAR, M_LINEAR_K, M_FLOOR, NR_MODES };
static const char *const mode_name[NR_MODES] = {
	"summary", "linear", "linear_kernel", "floor"
};

/*
 * Each mode has its own pool: M_SUMMARY the kernel's (mask_pool), the
 * others a reference pool each, so that all of them can run the same
 * operations from the same state.
 */
static struct ref_pool ref[NR_MODES];
static unsigned long *ref_head;		/* head bits of ref[M_LINEAR_K] */
static unsigned long *floor_head;	/* head bits of ref[M_FLOOR] */
/* Owned bits (the pool's, which never change), one copy per mode. */
static unsigned long *lk_owned[NR_MODES];
static struct alloc *live[NR_MODES];
static unsigned long nlive[NR_MODES], used[NR_MODES], pool_pages, target;
static volatile bool sink;

static unsigned long ralloc(struct ref_pool *r, const struct req *q)
{
	unsigned long end = (q->limit >> PAGE_SHIFT) + 1;

	if (q->nr > min(end, r->max_pfn + 1) - r->base_pfn)
		return REF_NO_PFN;
	return ref_find(r, q->nr, end, 0, 0, ~0UL);
}

/* The kernel pool: its search and its release, without the page hooks. */
static noinline unsigned long kalloc(const struct req *q)
{
	unsigned long pfn, flags, end = (q->limit >> PAGE_SHIFT) + 1;

	if (q->nr > min(end, mask_pool.max_pfn + 1) - mask_pool.base_pfn)
		return REF_NO_PFN;
	spin_lock_irqsave(&mask_pool.lock, flags);
	pfn = mask_pool_find(q->nr, end, 0, 0, ~0UL);
	spin_unlock_irqrestore(&mask_pool.lock, flags);
	return pfn == MASK_NO_PFN ? REF_NO_PFN : pfn;
}

/*
 * The linear scan with the rest of the pool's bookkeeping, as the seed's
 * kernel would do it: the head bit, the release's checks of the owned and
 * the used bitmap, the head handover (three bitmaps, as in the kernel).
 */
static unsigned long *lk_head(enum mode m)
{
	return m == M_FLOOR ? floor_head : ref_head;
}

static unsigned long lk_alloc(enum mode m, const struct req *q)
{
	unsigned long pfn = ralloc(&ref[m], q);

	if (pfn != REF_NO_PFN)
		__set_bit(ref[m].max_pfn - pfn, lk_head(m));
	return pfn;
}

/*
 * With --kfloor, the summary mode does not search either: it puts each
 * request where the script says, through the pool's own bookkeeping
 * (bitmaps, summary upkeep, cursor), so that summary ns with and without
 * --kfloor split the kernel pool's cost into search and upkeep.
 */
static bool kfloor;

static void kplace(unsigned long pfn, unsigned long nr)
{
	unsigned long idx = pfn_to_idx(pfn + nr - 1), flags;

	spin_lock_irqsave(&mask_pool.lock, flags);
	bitmap_set(mask_pool.used, idx, nr);
	mask_sum_set(idx, nr);
	__set_bit(pfn_to_idx(pfn), mask_pool.head);
	WRITE_ONCE(mask_pool.free_pages, mask_pool.free_pages - nr);
	mask_pool.cursor = idx + nr < mask_pool.nbits ? idx + nr : 0;
	spin_unlock_irqrestore(&mask_pool.lock, flags);
}

/* M_FLOOR's allocation in the timed runs: @nr pages at @pfn, no search. */
static void floor_place(unsigned long pfn, unsigned long nr)
{
	struct ref_pool *r = &ref[M_FLOOR];
	unsigned long lo = r->max_pfn - (pfn + nr - 1);

	bitmap_set(r->used, lo, nr);
	__set_bit(r->max_pfn - pfn, floor_head);
	r->cursor = lo + nr < r->nbits ? lo + nr : 0;
}

static void lk_free(enum mode m, unsigned long pfn, unsigned long nr)
{
	struct ref_pool *r = &ref[m];
	unsigned long *ref_head = lk_head(m);
	unsigned long lo = r->max_pfn - (pfn + nr - 1), hi = r->max_pfn - pfn;

	if (find_next_zero_bit(lk_owned[m], hi + 1, lo) <= hi ||
	    find_next_zero_bit(r->used, hi + 1, lo) <= hi)
		abort();
	sink = test_bit(hi, ref_head);
	bitmap_clear(r->used, lo, nr);
	bitmap_clear(ref_head, lo, nr);
	if (lo)
		sink = test_bit(lo - 1, lk_owned[m]) && test_bit(lo - 1, r->used) &&
		       !test_bit(lo - 1, ref_head);
}

static unsigned long do_alloc(enum mode m, const struct req *q)
{
	switch (m) {
	case M_SUMMARY:
		return kalloc(q);
	case M_LINEAR:
		return ralloc(&ref[M_LINEAR], q);
	default:
		return lk_alloc(m, q);
	}
}

static void do_free(enum mode m, unsigned long pfn, unsigned long nr)
{
	switch (m) {
	case M_SUMMARY:
		mask_pool_release(pfn_to_page(pfn), nr);
		break;
	case M_LINEAR:
		ref_release(&ref[M_LINEAR], pfn, nr);
		break;
	default:
		lk_free(m, pfn, nr);
		break;
	}
}

/*
 * One operation of the steady state: allocate a random request, then
 * free random live allocations until the fill level is reached again.
 * Whether the allocation succeeds and which run is freed depend only on
 * the random stream and on the placement, which is the same in every mode.
 * With @rec, the operation is recorded in the script.
 */
static struct req *s_req;		/* the script: requests, */
static unsigned long *s_pfn;		/* where they land (or REF_NO_PFN), */
static unsigned long *s_nfree;		/* end of each operation's frees */
static struct alloc *s_free;		/* in this list */
static struct alloc *s_live;		/* the live runs after the script */
static unsigned long s_nlive, s_used, s_nf;
static struct ref_pool scratch;		/* the pool the script is recorded on */
static bool replay_bad;

static inline void churn_op(enum mode m, bool rec, unsigned long i)
{
	struct alloc *l = rec ? s_live : live[m];
	unsigned long *n = rec ? &s_nlive : &nlive[m], *u = rec ? &s_used : &used[m];
	unsigned long pfn, j;
	struct req q;

	next_req(&q);
	pfn = rec ? ralloc(&scratch, &q) : do_alloc(m, &q);
	if (rec) {
		s_req[i] = q;
		s_pfn[i] = pfn;
	}
	if (pfn != REF_NO_PFN) {
		l[(*n)++] = (struct alloc){ pfn, q.nr };
		*u += q.nr;
	}
	while (*u > target) {
		j = rnd() % *n;
		if (rec) {
			s_free[s_nf++] = l[j];
			ref_release(&scratch, l[j].pfn, l[j].nr);
		} else {
			do_free(m, l[j].pfn, l[j].nr);
		}
		*u -= l[j].nr;
		l[j] = l[--*n];
	}
	if (rec)
		s_nfree[i] = s_nf;
}

/* Random churn of @ops operations in mode @m, untimed. */
static void churn_random(enum mode m, unsigned long ops)
{
	while (ops--)
		churn_op(m, false, 0);
}

/*
 * Record the script of @ops operations from the random stream @seed, on a
 * copy of the linear pool (all pools are in the same state).
 */
static void record_script(u64 seed, unsigned long ops)
{
	struct ref_pool *r = &ref[M_LINEAR];
	unsigned long *bits = scratch.used, i;

	scratch = *r;
	scratch.used = bits;
	memcpy(scratch.used, r->used, BITS_TO_LONGS(r->nbits) * sizeof(long));
	memcpy(s_live, live[M_LINEAR], nlive[M_LINEAR] * sizeof(*s_live));
	s_nlive = nlive[M_LINEAR];
	s_used = used[M_LINEAR];
	rng = seed;
	s_nf = 0;
	for (i = 0; i < ops; i++)
		churn_op(M_LINEAR, true, i);
}

/*
 * One operation of the script in mode @m: the request, then the frees
 * that follow it (from *@k on).  The live list is not touched: after the
 * run it becomes the script's.
 */
static inline void replay_op(enum mode m, unsigned long i, unsigned long *k)
{
	unsigned long end = s_nfree[i];

	if (m == M_FLOOR || (m == M_SUMMARY && kfloor)) {
		if (s_pfn[i] == REF_NO_PFN)
			;
		else if (m == M_FLOOR)
			floor_place(s_pfn[i], s_req[i].nr);
		else
			kplace(s_pfn[i], s_req[i].nr);
	} else if (do_alloc(m, &s_req[i]) != s_pfn[i]) {
		replay_bad = true;
	}
	for (; *k < end; ++*k)
		do_free(m, s_free[*k].pfn, s_free[*k].nr);
}

/*
 * The timed loops, one function per mode: callgrind's --toggle-collect
 * needs a function name for each.
 */
#define CHURN_FN(name, mode)					\
static noinline void name(unsigned long ops)			\
{								\
	unsigned long i, k = 0;					\
								\
	for (i = 0; i < ops; i++)				\
		replay_op(mode, i, &k);				\
}

CHURN_FN(churn_summary, M_SUMMARY)
CHURN_FN(churn_linear, M_LINEAR)
CHURN_FN(churn_linear_kernel, M_LINEAR_K)
CHURN_FN(churn_floor, M_FLOOR)

static void (*const churn[NR_MODES])(unsigned long) = {
	churn_summary, churn_linear, churn_linear_kernel, churn_floor
};

/*
 * Pages the kernel pool's search skipped per operation in the last
 * M_SUMMARY run: its MASK_BITMAP_SKIP vm event, the distance from where a
 * search starts (cursor, or the highest page the mask allows) to where
 * the run is found.  The seed's placement decides it, not the search.
 */
static double skip_per_op;

/* ns per operation of the script's @ops operations in mode @m. */
static double timed_run(enum mode m, unsigned long ops, long long *ins,
			const char *label)
{
	unsigned long skip = harness_vm_events[MASK_BITMAP_SKIP];
	u64 t0, t;

#ifdef CALLGRIND_ZERO_STATS
	CALLGRIND_ZERO_STATS;
#endif
	perf_start();
	t0 = now_ns();
	churn[m](ops);
	t = now_ns() - t0;
	*ins = perf_stop();
	if (m == M_SUMMARY)
		skip_per_op = (double)(harness_vm_events[MASK_BITMAP_SKIP] - skip) / ops;
#ifdef CALLGRIND_DUMP_STATS_AT
	CALLGRIND_DUMP_STATS_AT(label);
#endif
	memcpy(live[m], s_live, s_nlive * sizeof(*s_live));
	nlive[m] = s_nlive;
	used[m] = s_used;
	return (double)t / ops;
}

/* All pools must hold exactly the same runs. */
static int same_state(void)
{
	unsigned long i, idx, pfn;
	int m;

	for (m = 1; m < NR_MODES; m++)
		if (nlive[m] != nlive[0] || used[m] != used[0] ||
		    memcmp(live[m], live[0], nlive[0] * sizeof(*live[0])) ||
		    memcmp(ref[m].used, ref[M_LINEAR].used,
			   BITS_TO_LONGS(ref[m].nbits) * sizeof(long)))
			return 0;
	for (i = 0; i < ref[M_LINEAR].nbits; i++) {
		pfn = ref[M_LINEAR].max_pfn - i;
		idx = mask_pool.max_pfn - pfn;
		if (pfn < mask_pool.base_pfn || pfn > mask_pool.max_pfn)
			continue;
		if (!!test_bit(i, ref[M_LINEAR].used) != !!test_bit(idx, mask_pool.used))
			return 0;
	}
	return 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Untimed churn to the steady state, in the kernel pool only (the linear
 * scan would take minutes at 8 GiB under callgrind); then the reference
 * pools become copies of it.  Placement was checked while filling and is
 * checked again after every timed run.
 */
static void warm_up(u64 seed, unsigned long ops)
{
	int m;

	rng = seed;
	churn_random(M_SUMMARY, ops);
	for (m = 1; m < NR_MODES; m++) {
		memcpy(ref[m].used, mask_pool.used,
		       BITS_TO_LONGS(mask_pool.nbits) * sizeof(long));
		ref[m].cursor = mask_pool.cursor;
		memcpy(live[m], live[M_SUMMARY], nlive[M_SUMMARY] * sizeof(*live[m]));
		nlive[m] = nlive[M_SUMMARY];
		used[m] = used[M_SUMMARY];
	}
	memcpy(ref_head, mask_pool.head, BITS_TO_LONGS(mask_pool.nbits) * sizeof(long));
	memcpy(floor_head, mask_pool.head, BITS_TO_LONGS(mask_pool.nbits) * sizeof(long));
}

/* Fill each pool completely with runs of 1-max_pages pages, any mask. */
static int fill_all(u64 seed)
{
	unsigned long pfn;
	struct req q;
	u64 r;
	int m;

	for (m = 0; m < NR_MODES; m++) {
		rng = seed;
		for (;;) {
			next_req(&q);
			q.limit = U64_MAX;
			pfn = do_alloc(m, &q);
			if (pfn == REF_NO_PFN) {
				if (q.nr == 1)
					break;
				continue;
			}
			live[m][nlive[m]++] = (struct alloc){ pfn, q.nr };
			used[m] += q.nr;
		}
		r = rng;
	}
	rng = r;
	return same_state();
}

/* One pool size, all fill levels; prints JSON objects to @out. */
static int bench_size(unsigned long mib, const unsigned int *fills, int nfills,
		      int runs, u64 seed, FILE *out, bool *first)
{
	struct harness_boot_opts o = { .has_param = true };
	char param[32], label[96];
	int f, m;

	snprintf(param, sizeof(param), "%luM", mib);
	o.param = param;
	harness_boot(&o);
	for (m = 0; m < NR_MODES; m++)
		if (ref_init_from_map(&ref[m]) || !ref[m].pool_pages) {
			fprintf(stderr, "bench: no %lu MiB pool\n", mib);
			return 1;
		}
	pool_pages = ref[0].pool_pages;
	if (ref[0].max_pfn != mask_pool.max_pfn || ref[0].nbits != mask_pool.nbits) {
		fprintf(stderr, "bench: the reference does not cover the pool's bitmap\n");
		return 1;
	}
	mask_bits[ARRAY_SIZE(mask_bits) - 1] =
		max(32, 64 - __builtin_clzll(PFN_PHYS(ref[0].max_pfn + 1) - 1));
	ref_head = calloc(BITS_TO_LONGS(ref[0].nbits) + 1, sizeof(unsigned long));
	floor_head = calloc(BITS_TO_LONGS(ref[0].nbits) + 1, sizeof(unsigned long));
	for (m = M_LINEAR_K; m <= M_FLOOR; m++) {
		lk_owned[m] = malloc(BITS_TO_LONGS(ref[0].nbits) * sizeof(long));
		if (!lk_owned[m])
			return 1;
		memcpy(lk_owned[m], mask_pool.owned,
		       BITS_TO_LONGS(ref[0].nbits) * sizeof(long));
	}
	for (m = 0; m < NR_MODES; m++)
		live[m] = malloc((pool_pages + 1) * sizeof(*live[m]));
	s_live = malloc((pool_pages + 1) * sizeof(*s_live));
	s_free = malloc((pool_pages + churn_ops + 1) * sizeof(*s_free));
	s_req = malloc(churn_ops * sizeof(*s_req));
	s_pfn = malloc(churn_ops * sizeof(*s_pfn));
	s_nfree = malloc(churn_ops * sizeof(*s_nfree));
	scratch.used = malloc(BITS_TO_LONGS(ref[0].nbits) * sizeof(long));
	if (!s_live || !s_free || !s_req || !s_pfn || !s_nfree || !scratch.used) {
		fprintf(stderr, "bench: out of memory\n");
		return 1;
	}
	/*
	 * Fill completely, then free at random down to each fill level
	 * (fullest first), then churn there: the steady state of that fill.
	 */
	if (!fill_all(seed ^ mib)) {
		fprintf(stderr, "bench: placement differs from the reference while filling (seed %" PRIu64 ")\n",
			seed);
		return 1;
	}
	for (f = 0; f < nfills; f++) {
		double ns[NR_MODES][MAX_RUNS], ins[NR_MODES][MAX_RUNS], skip[MAX_RUNS];
		unsigned long warm;
		long long n;
		int r;

		target = (u64)pool_pages * fills[f] / 100;
		warm = warm_rounds * (nlive[0] + 1);
		warm_up(seed * 7 + f, warm);
		/* Each run: the same operations in each mode, from the same state. */
		for (r = 0; r < runs; r++) {
			record_script(seed * 31 + r, churn_ops);
			for (m = 0; m < NR_MODES; m++) {
				snprintf(label, sizeof(label), "%s %lu %u %lu",
					 mode_name[m], mib, fills[f], churn_ops);
				ns[m][r] = timed_run(m, churn_ops, &n, label);
				ins[m][r] = n < 0 ? -1 : (double)n / churn_ops;
			}
			skip[r] = skip_per_op;
			if (replay_bad || !same_state()) {
				fprintf(stderr, "bench: placement differs from the reference (seed %" PRIu64 ", %lu MiB, %u%%, run %d)\n",
					seed, mib, fills[f], r);
				return 1;
			}
		}
		for (m = 0; m < NR_MODES; m++) {
			double t = median(ns[m], runs), i = median(ins[m], runs);

			fprintf(out, "%s  {\"search\": \"%s\", \"pool_mib\": %lu, \"fill_pct\": %u, "
				"\"max_pages\": %lu, \"ns_per_pair\": %.1f, \"instructions_per_pair\": ",
				*first ? "" : ",\n", mode_name[m], mib, fills[f],
				max_pages, t);
			if (i < 0)
				fprintf(out, "null");
			else
				fprintf(out, "%.0f", i);
			fprintf(out, ", \"runs\": %d, \"ops\": %lu, \"live\": %lu, "
				"\"bitmap_bytes\": %lu, \"summary_bytes\": %lu", runs,
				churn_ops, nlive[0],
				BITS_TO_LONGS(mask_pool.nbits) * sizeof(long),
				2 * mask_pool.sum_leaves * sizeof(struct mask_sum) +
				BITS_TO_LONGS(mask_pool.sum_leaves) * sizeof(long));
			if (m == M_SUMMARY && !kfloor)
				fprintf(out, ", \"skip_pages_per_op\": %.1f",
					median(skip, runs));
			fprintf(out, "}");
			*first = false;
			fprintf(stderr, "  %5lu MiB %2u%% %-14s %10.1f ns/pair\n",
				mib, fills[f], mode_name[m], t);
		}
	}
	fflush(out);
	return 0;
}

static int parse_list(const char *s, unsigned long *v, int max)
{
	int n = 0;

	while (*s && n < max) {
		char *end;

		v[n++] = strtoul(s, &end, 0);
		s = *end == ',' ? end + 1 : end;
		if (end == s && *s)
			return -1;
	}
	return n;
}

int main(int argc, char **argv)
{
	unsigned long sizes[MAX_SIZES] = { 16, 256, 2048, 8192 }, tmp[MAX_FILLS];
	unsigned int fills[MAX_FILLS] = { 50, 90, 99 };
	int nsizes = 4, nfills = 3, runs = 5, a, i, status;
	const char *json = NULL;
	bool perf_ok;
	u64 seed = 0;
	FILE *out;

	for (a = 1; a + 1 < argc; a += 2) {
		if (!strcmp(argv[a], "--sizes")) {
			nsizes = parse_list(argv[a + 1], sizes, MAX_SIZES);
		} else if (!strcmp(argv[a], "--fills")) {
			nfills = parse_list(argv[a + 1], tmp, MAX_FILLS);
			for (i = 0; i < nfills; i++)
				fills[i] = tmp[i];
		} else if (!strcmp(argv[a], "--max-pages")) {
			max_pages = strtoul(argv[a + 1], NULL, 0);
		} else if (!strcmp(argv[a], "--runs")) {
			runs = atoi(argv[a + 1]);
		} else if (!strcmp(argv[a], "--seed")) {
			seed = strtoull(argv[a + 1], NULL, 0);
		} else if (!strcmp(argv[a], "--ops")) {
			churn_ops = strtoul(argv[a + 1], NULL, 0);
		} else if (!strcmp(argv[a], "--warm")) {
			warm_rounds = strtoul(argv[a + 1], NULL, 0);
		} else if (!strcmp(argv[a], "--kfloor")) {
			kfloor = atoi(argv[a + 1]);
		} else if (!strcmp(argv[a], "--json")) {
			json = argv[a + 1];
		} else {
			break;
		}
	}
	if (a < argc || nsizes <= 0 || nfills <= 0 || runs < 1 || runs > MAX_RUNS ||
	    !max_pages || !churn_ops) {
		fprintf(stderr, "usage: %s [--sizes MiB,...] [--fills pct,...] [--max-pages N] [--runs N] [--ops N] [--warm R] [--seed S] [--kfloor 0|1] [--json FILE]\n",
			argv[0]);
		return 2;
	}
	for (a = 1; a < nfills; a++)
		for (i = a; i > 0 && fills[i] > fills[i - 1]; i--) {
			unsigned int t = fills[i];

			fills[i] = fills[i - 1];
			fills[i - 1] = t;
		}
	if (!seed)
		seed = ((u64)time(NULL) << 20) ^ getpid();
	fprintf(stderr, "# bench: seed %" PRIu64 ", %d runs per figure, 1-%lu pages\n",
		seed, runs, max_pages);
	out = json ? fopen(json, "w") : stdout;
	if (!out) {
		perror(json);
		return 2;
	}
	perf_ok = !perf_open();
	fprintf(out, "{\"seed\": %" PRIu64 ", \"leaf_words\": %d, \"perf\": %s, \"results\": [\n",
		seed, MASK_SUM_LEAF_WORDS, perf_ok ? "true" : "false");
	fflush(out);
	for (i = 0; i < nsizes; i++) {
		bool first = i == 0;
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (!pid)
			exit(bench_size(sizes[i], fills, nfills, runs, seed, out, &first));
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			return 1;
	}
	fprintf(out, "\n]}\n");
	return 0;
}
