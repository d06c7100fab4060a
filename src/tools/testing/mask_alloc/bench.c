// SPDX-License-Identifier: GPL-2.0
/*
 * Pool search benchmark: mm/mask_alloc.c (search summary) against ref.c
 * (the seed's linear scan), on the same pool states and requests.
 *
 * For each pool size, a fresh pool (maskzone=SIZE, in a child process) is
 * filled with random runs of 1-64 pages until full, then random runs are
 * freed until the fill level is reached, which leaves free holes spread
 * over the pool.  The reference follows every step and must place every
 * run where the kernel code does.  Then both time allocate+free pairs
 * with the same random requests: masks of 24, 28, 30, 31 and 32 bits,
 * 1-64 pages.
 * searches and updates its bitmap, so the comparison favours the linear
 * scan.  Each figure is the median of --runs runs.
 *
 *   ./bench [--sizes MiB,MiB,...] [--fills 50,90,99] [--max-pages 64] [--runs N]
 *           [--seed S] [--json FILE]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* perf.c: user-space instruction counts, if the machine has a PMU. */
int perf_open(void);
void perf_start(void);
long long perf_stop(void);

static const unsigned int mask_bits[] = { 24, 28, 30, 31, 32 };

struct req {
	unsigned long nr;
	u64 limit;
};

/* Request sizes: 1..max_pages pages. */
static unsigned long max_pages = 64;

static void next_req(struct req *r)
{
	u64 x = rnd();

	r->nr = 1 + x % max_pages;
	r->limit = DMA_BIT_MASK(mask_bits[(x >> 8) % ARRAY_SIZE(mask_bits)]);
}

struct alloc {
	struct page *page;
	unsigned long nr;
};

static struct ref_pool ref;

static struct page *kalloc(const struct req *q)
{
	struct page *p = mask_pool_alloc_bounce(q->nr, q->limit, 0, 0, ~0UL);

	return IS_ERR(p) ? NULL : p;
}

static unsigned long ralloc(const struct req *q)
{
	unsigned long end = (q->limit >> PAGE_SHIFT) + 1;

	if (q->nr > min(end, ref.max_pfn + 1) - ref.base_pfn)
		return REF_NO_PFN;
	return ref_find(&ref, q->nr, end, 0, 0, ~0UL);
}

enum mode { M_SUMMARY, M_LINEAR, M_LINEAR_K, M_API, NR_MODES };
static const char *const mode_name[NR_MODES] = {
	"summary", "linear", "linear_kernel", "summary_api"
};

/* Head bits of the reference, for M_LINEAR_K. */
static unsigned long *ref_head;
static volatile bool sink;

/*
 * The seed's pool side around its linear search: what mask_pool_find()
 * and mask_pool_release() do besides searching and updating the summary
 * (head bit, the release's owned/used checks, head handover test).  The
 * reference has no owned bitmap; the used bitmap stands in for it.
 */
static void linear_kernel_pair(const struct req *q)
{
	unsigned long pfn = ralloc(q), lo, hi;

	if (pfn == REF_NO_PFN)
		return;
	lo = ref.max_pfn - (pfn + q->nr - 1);
	hi = ref.max_pfn - pfn;
	__set_bit(hi, ref_head);
	if (find_next_zero_bit(ref.used, hi + 1, lo) <= hi ||
	    find_next_zero_bit(ref.used, hi + 1, lo) <= hi)
		abort();
	sink = test_bit(hi, ref_head);
	bitmap_clear(ref.used, lo, q->nr);
	bitmap_clear(ref_head, lo, q->nr);
	if (lo)
		sink = test_bit(lo - 1, ref.used) && test_bit(lo - 1, ref.used) &&
		       !test_bit(lo - 1, ref_head);
}

static void pair(enum mode m, const struct req *q)
{
	unsigned long pfn, flags;
	struct page *p;

	switch (m) {
	case M_SUMMARY:
		spin_lock_irqsave(&mask_pool.lock, flags);
		pfn = mask_pool_find(q->nr, (q->limit >> PAGE_SHIFT) + 1, 0, 0, ~0UL);
		spin_unlock_irqrestore(&mask_pool.lock, flags);
		if (pfn != MASK_NO_PFN)
			mask_pool_release(pfn_to_page(pfn), q->nr);
		break;
	case M_LINEAR:
		pfn = ralloc(q);
		if (pfn != REF_NO_PFN)
			ref_release(&ref, pfn, q->nr);
		break;
	case M_LINEAR_K:
		linear_kernel_pair(q);
		break;
	default:
		p = kalloc(q);
		if (p)
			mask_pool_free_bounce(p, q->nr);
		break;
	}
}

/* ns per pair (and instructions per pair) of one timed run. */
static double run_pairs(enum mode m, u64 seed, double *instr)
{
	unsigned long pairs = 0;
	struct req q;
	long long ins;
	u64 t0, t;
	int i;

	rng = seed;
	perf_start();
	t0 = now_ns();
	do {
		for (i = 0; i < 16; i++, pairs++) {
			next_req(&q);
			pair(m, &q);
		}
		t = now_ns() - t0;
	} while (t < RUN_NS);
	ins = perf_stop();
	*instr = ins < 0 ? -1 : (double)ins / pairs;
	return (double)t / pairs;
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

/* One pool size, all fill levels; prints JSON objects to @out. */
static int bench_size(unsigned long mib, const unsigned int *fills, int nfills,
		      int runs, u64 seed, FILE *out, bool *first)
{
	unsigned long pages, nallocs = 0, used = 0, cap, i, pfn;
	struct harness_boot_opts o = { .has_param = true };
	struct alloc *allocs;
	char param[32];
	int f;

	snprintf(param, sizeof(param), "%luM", mib);
	o.param = param;
	harness_boot(&o);
	if (ref_init_from_map(&ref) || !ref.pool_pages) {
		fprintf(stderr, "bench: no %lu MiB pool\n", mib);
		return 1;
	}
	pages = ref.pool_pages;
	ref_head = calloc(BITS_TO_LONGS(ref.nbits) + 1, sizeof(unsigned long));
	cap = pages;
	allocs = malloc(cap * sizeof(*allocs));
	rng = seed ^ mib;
	/* Fill completely with runs of 1-64 pages (any mask). */
	for (;;) {
		struct req q = { 1 + rnd() % 64, U64_MAX };
		struct page *p = kalloc(&q);

		pfn = ralloc(&q);
		if ((p ? page_to_pfn(p) : REF_NO_PFN) != pfn) {
			fprintf(stderr, "bench: placement differs from the reference\n");
			return 1;
		}
		if (!p) {
			if (q.nr == 1)
				break;
			continue;
		}
		allocs[nallocs++] = (struct alloc){ p, q.nr };
		used += q.nr;
	}
	/* Fullest first: each level is reached by freeing more. */
	for (f = 0; f < nfills; f++) {
		double ns[NR_MODES][MAX_RUNS], ins[NR_MODES][MAX_RUNS];
		int r, m;

		/* Random frees down to the fill level. */
		while (nallocs && used * 100 > (u64)pages * fills[f]) {
			i = rnd() % nallocs;
			mask_pool_free_bounce(allocs[i].page, allocs[i].nr);
			ref_release(&ref, page_to_pfn(allocs[i].page), allocs[i].nr);
			used -= allocs[i].nr;
			allocs[i] = allocs[--nallocs];
		}
		/* Same requests for every mode; the pairs leave the bitmap as it was. */
		for (r = 0; r < runs; r++)
			for (m = 0; m < NR_MODES; m++)
				ns[m][r] = run_pairs(m, seed * 31 + r, &ins[m][r]);
		for (m = 0; m < NR_MODES; m++) {
			double t = median(ns[m], runs), n = median(ins[m], runs);

			fprintf(out, "%s  {\"search\": \"%s\", \"pool_mib\": %lu, \"fill_pct\": %u, "
				"\"max_pages\": %lu, \"ns_per_pair\": %.1f, \"instructions_per_pair\": ",
				*first ? "" : ",\n", mode_name[m], mib, fills[f],
				max_pages, t);
			if (n < 0)
				fprintf(out, "null");
			else
				fprintf(out, "%.0f", n);
			fprintf(out, ", \"runs\": %d}", runs);
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
		} else if (!strcmp(argv[a], "--json")) {
			json = argv[a + 1];
		} else {
			break;
		}
	}
	if (a < argc || nsizes <= 0 || nfills <= 0 || runs < 1 || runs > MAX_RUNS ||
	    !max_pages) {
		fprintf(stderr, "usage: %s [--sizes MiB,...] [--fills pct,...] [--max-pages N] [--runs N] [--seed S] [--json FILE]\n",
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
