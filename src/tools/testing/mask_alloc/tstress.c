// SPDX-License-Identifier: GPL-2.0
/*
 * Multi-threaded stress of mm/mask_alloc.c, built with ThreadSanitizer
 * and HARNESS_THREADS (a real mutex for the pool lock, real atomics, wait
 * queues that sleep on a condition variable, locked fakes in harness.c).
 *
 * N threads (default 4) allocate and free under random masks and sizes:
 * alloc_pages_mask() atomic or waiting (GFP_KERNEL, __GFP_NORETRY,
 * __GFP_RETRY_MAYFAIL, and __GFP_NOFAIL while the thread holds nothing),
 * GFP_DMA compat allocations, bounce runs with alignment and boundary;
 * they free whole, page by page after a split (any page, the middle
 * too), with an extra reference held, and pass allocations to each other
 * to be freed by another thread.  Allocation API runs have any number of
 * pages, so __free_pages_mask() releases several chunks, and other
 * threads allocate and free in between (--single-chunk: powers of two).
 * Every page carries its owner's stamp, checked at free time, so a page
 * handed out twice is caught (and TSan sees the conflicting writes).
 * Waits are real: mask_timeout is 20 ms, and a waiter sleeps until a free
 * wakes it.  A thread that runs out of work does not keep the pool full:
 * NOFAIL needs a free by someone else, so it is only used with nothing held.
 *
 * At the end every allocation is freed and the pool must be whole again:
 * free == pool, the map all free, the largest free run as after boot,
 * MASK_FREE == MASK_ALLOC (each pool allocation counted back once), no
 * misuse, no warning, no bad page, no harness error; and TSan must report
 * nothing (TSAN_OPTIONS=halt_on_error=1 exitcode=66 in the Makefile).
 *
 *   ./tstress [--seed S] [--threads N] [--ops N | --seconds S] [--warn]
 *             [--single-chunk | --multi-chunk] [-v]
 *
 * --ops is per thread (default 20000).  The seed is always printed; the
 * interleaving of threads is not reproducible, the operations are.
 * HARNESS_BROKEN_LOCK (make tstress_broken) drops the pool lock: TSan must
 * then report data races.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define MAX_THREADS	64
#define MAX_HELD	48
#define MAILBOX		32
#define M(x)		((u64)(x) << 20)

enum kind { K_API, K_COMPAT, K_COMP, K_BOUNCE, K_BUDDY };

struct held {
	enum kind kind;
	struct page *page;
	unsigned long nr;
	size_t size;
	unsigned int order;
	bool split;		/* each page holds its own reference */
	unsigned long live;	/* pages not freed yet: bit i (i < 64) */
	u64 stamp;
};

struct thread {
	pthread_t tid;
	unsigned int id;
	u64 rng;
	struct held held[MAX_HELD];
	unsigned int nheld;
	unsigned long ops, allocs, fails, frees, handoffs, nofail;
	int bad;
};

static struct thread threads[MAX_THREADS];
static unsigned int nthreads = 4;
static unsigned long ops_per_thread = 20000;
static double seconds;
static bool warn;	/* failures without __GFP_NOWARN (see the README) */
static bool multi_chunk = true;	/* API runs of any size, or powers of two */
static struct timespec t0;

static pthread_mutex_t mailbox_lock = PTHREAD_MUTEX_INITIALIZER;
static struct held mailbox[MAILBOX];
static unsigned int nmail;

static unsigned long base_longest;

#define TFAIL(t, fmt, ...) do {						\
	fprintf(stderr, "tstress: thread %u op %lu: " fmt "\n",	\
		(t)->id, (t)->ops, ##__VA_ARGS__);			\
	(t)->bad = 1;							\
} while (0)

static u64 rnd(struct thread *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 2685821657736338717ULL;
}

static unsigned long rnd_below(struct thread *t, unsigned long n)
{
	return n ? rnd(t) % n : 0;
}

static double elapsed(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9;
}

/* ---------------- page stamps ---------------- */

static void stamp(struct held *h)
{
	unsigned long i;

	for (i = 0; i < h->nr; i++)
		memcpy(page_address(h->page + i), &h->stamp, sizeof(h->stamp));
}

static void check_stamp(struct thread *t, const struct held *h, unsigned long i)
{
	u64 v;

	memcpy(&v, page_address(h->page + i), sizeof(v));
	if (v != h->stamp)
		TFAIL(t, "pfn %lu: stamp %#llx, expected %#llx (handed out twice?)",
		      page_to_pfn(h->page + i), (unsigned long long)v,
		      (unsigned long long)h->stamp);
}

/* ---------------- allocations ---------------- */

static const u64 masks[] = {
	0xfffff, 0x3fffff, 0x7fffff, 0xabcdef, 0xffffff, 0x13fffff,
	0x1000000, 0x17fffff, 0x1ffffff, DMA_BIT_MASK(32), U64_MAX,
};

static void add_held(struct thread *t, struct held h)
{
	h.stamp = ((u64)t->id << 48) ^ (t->ops << 8) ^ 0x5a5a;
	h.live = h.nr >= 64 ? ~0UL : (1UL << h.nr) - 1;
	stamp(&h);
	t->held[t->nheld++] = h;
	t->allocs++;
}

static gfp_t pick_gfp(struct thread *t, bool *nofail)
{
	gfp_t gfp;

	*nofail = false;
	switch (rnd_below(t, 8)) {
	case 0: case 1: case 2:
		gfp = GFP_ATOMIC;
		break;
	case 3:
		gfp = GFP_NOWAIT;
		break;
	case 4:
		gfp = GFP_KERNEL | __GFP_NORETRY;
		break;
	case 5:
		gfp = GFP_KERNEL | __GFP_RETRY_MAYFAIL;
		break;
	case 6:
		gfp = GFP_KERNEL;
		break;
	default:
		/*
		 * Forever: only while this thread holds nothing and nothing
		 * waits in the mailbox, so that the threads that do hold pages
		 * are running and will free them.
		 */
		pthread_mutex_lock(&mailbox_lock);
		*nofail = !t->nheld && !nmail;
		pthread_mutex_unlock(&mailbox_lock);
		gfp = GFP_KERNEL | (*nofail ? __GFP_NOFAIL : 0);
		break;
	}
	if (!rnd_below(t, 8))
		gfp |= __GFP_ZERO;
	return gfp | (warn ? 0 : __GFP_NOWARN);
}

static void op_alloc(struct thread *t)
{
	u64 mask = masks[rnd_below(t, ARRAY_SIZE(masks))];
	bool nofail;
	gfp_t gfp = pick_gfp(t, &nofail);
	struct page *page;
	size_t size;

	switch (rnd_below(t, 4)) {
	case 0:
		size = 16 + rnd_below(t, PAGE_SIZE);
		break;
	case 1:
		size = (1 + rnd_below(t, 8)) * PAGE_SIZE;
		break;
	case 2:
		size = 16 + rnd_below(t, 64 * PAGE_SIZE);
		break;
	default:
		size = 16 + rnd_below(t, 1024 * PAGE_SIZE);
		break;
	}
	if (nofail) {
		/* small enough to fit below 16 MB in any state of the others' frees */
		size = 16 + rnd_below(t, 4 * PAGE_SIZE - 16);
		mask = max(mask, (u64)M(16) - 1);
		t->nofail++;
	}
	/* --single-chunk: a power-of-two number of pages, one chunk */
	if (!multi_chunk && size > PAGE_SIZE) {
		unsigned long nr = roundup_pow_of_two(DIV_ROUND_UP(size, PAGE_SIZE));

		size = (nr - 1) * PAGE_SIZE + 1 + rnd_below(t, PAGE_SIZE);
	}
	page = alloc_pages_mask(gfp, size, mask);
	if (!page) {
		if (nofail)
			TFAIL(t, "__GFP_NOFAIL allocation failed");
		t->fails++;
		return;
	}
	if (mask_pool_page(page) ? PFN_PHYS(page_to_pfn(page) + DIV_ROUND_UP(size, PAGE_SIZE)) - 1 > mask
				 : page_to_phys(page) + size - 1 > mask)
		TFAIL(t, "pfn %lu + %zu bytes above mask %#llx", page_to_pfn(page), size,
		      (unsigned long long)mask);
	if ((gfp & __GFP_ZERO) && *(unsigned char *)page_address(page))
		TFAIL(t, "__GFP_ZERO page not zeroed");
	add_held(t, (struct held){ .kind = mask_pool_page(page) ? K_API : K_BUDDY,
				   .page = page, .size = size,
				   .nr = DIV_ROUND_UP(size, PAGE_SIZE) });
}

static void op_compat(struct thread *t)
{
	unsigned int order = rnd_below(t, 5);
	bool nofail, comp = order && rnd_below(t, 2);
	gfp_t gfp = pick_gfp(t, &nofail) & ~__GFP_NOFAIL;
	unsigned long n = 1UL << order;
	struct page *page;

	if (comp)
		gfp |= __GFP_COMP;
	page = mask_pool_alloc_compat(gfp | __GFP_DMA, order);
	if (!page) {
		t->fails++;
		return;
	}
	if (page_to_pfn(page) % n || PFN_PHYS(page_to_pfn(page) + n) > M(16))
		TFAIL(t, "compat order %u at pfn %lu", order, page_to_pfn(page));
	add_held(t, (struct held){ .kind = comp ? K_COMP : K_COMPAT, .page = page,
				   .nr = n, .order = order, .size = n << PAGE_SHIFT });
}

static void op_bounce(struct thread *t)
{
	unsigned long nr = 1 + rnd_below(t, rnd_below(t, 4) ? 8 : 64);
	unsigned long am = (1UL << rnd_below(t, 5)) - 1, ap = rnd(t) & am;
	unsigned long bm = rnd_below(t, 2) ? ~0UL : (1UL << (6 + rnd_below(t, 6))) - 1;
	u64 limit = masks[rnd_below(t, ARRAY_SIZE(masks))];
	struct page *page;
	unsigned long pfn;

	page = mask_pool_alloc_bounce(nr, limit, am, ap, bm);
	if (IS_ERR(page)) {
		if (PTR_ERR(page) != -ENOMEM && PTR_ERR(page) != -E2BIG)
			TFAIL(t, "bounce nr %lu: error %ld", nr, PTR_ERR(page));
		t->fails++;
		return;
	}
	pfn = page_to_pfn(page);
	if ((pfn & am) != ap || PFN_PHYS(pfn + nr) - 1 > limit ||
	    ((pfn ^ (pfn + nr - 1)) & ~bm))
		TFAIL(t, "bounce nr %lu at pfn %lu: align %#lx/%#lx boundary %#lx limit %#llx",
		      nr, pfn, am, ap, bm, (unsigned long long)limit);
	add_held(t, (struct held){ .kind = K_BOUNCE, .page = page, .nr = nr,
				   .size = nr << PAGE_SHIFT });
}

/* ---------------- frees ---------------- */

static void drop(struct thread *t, unsigned int i)
{
	t->held[i] = t->held[--t->nheld];
	t->frees++;
}

static void free_whole(struct thread *t, struct held *h)
{
	unsigned long i;

	for (i = 0; i < h->nr; i++)
		if (i >= 64 || (h->live & (1UL << i)))
			check_stamp(t, h, i);
	if (h->split) {
		for (i = 0; i < h->nr; i++)
			if (i >= 64 || (h->live & (1UL << i)))
				__free_pages(h->page + i, 0);
		return;
	}
	switch (h->kind) {
	case K_API:
	case K_BUDDY:
		if (h->kind == K_API && rnd_below(t, 4) == 0) {
			get_page(h->page);	/* a speculative reference */
			__free_pages_mask(h->page, h->size);
			put_page(h->page);
		} else {
			__free_pages_mask(h->page, h->size);
		}
		break;
	case K_COMPAT:
		__free_pages(h->page, h->order);
		break;
	case K_COMP:
		put_page(h->page);
		break;
	case K_BOUNCE:
		mask_pool_free_bounce(h->page, h->nr);
		break;
	}
}

/*
 * Split into single pages and free a few; the rest stays held.  From
 * either end of what is left or from anywhere in it: a middle page leaves
 * a remainder after it that starts with a cont head, and runs that other
 * threads get right below it, or in the hole, must free as usual.
 */
static bool free_some(struct thread *t, struct held *h)
{
	unsigned long i, n = 1 + rnd_below(t, 3), first, last;
	unsigned int where = rnd_below(t, 3);	/* 0: first, 1: last, 2: any */

	if (h->kind == K_BUDDY || h->kind == K_COMP || h->nr > 64)
		return false;
	if (!h->split) {
		if (h->kind == K_COMPAT)
			split_page(h->page, h->order);
		else if (h->kind == K_API)
			for (i = 1; i < h->nr; i++)
				set_page_refcounted(h->page + i);
		h->split = true;
	}
	for (; n && h->live; n--) {
		first = __builtin_ctzl(h->live);
		last = BITS_PER_LONG - 1 - __builtin_clzl(h->live);
		i = where == 0 ? first : where == 1 ? last : first + rnd_below(t, last - first + 1);
		while (!(h->live & (1UL << i)))
			i++;		/* the next live page; last is one */
		check_stamp(t, h, i);
		__free_pages(h->page + i, 0);
		h->live &= ~(1UL << i);
	}
	return !h->live;
}

static void op_free(struct thread *t)
{
	unsigned int i;

	if (!t->nheld)
		return;
	i = rnd_below(t, t->nheld);
	if (rnd_below(t, 4) == 0) {
		if (free_some(t, &t->held[i]))
			drop(t, i);
		return;
	}
	free_whole(t, &t->held[i]);
	drop(t, i);
}

/* Pass an allocation to whoever takes it next, or take one. */
static void op_mailbox(struct thread *t)
{
	pthread_mutex_lock(&mailbox_lock);
	if (t->nheld && nmail < MAILBOX && rnd_below(t, 2)) {
		unsigned int i = rnd_below(t, t->nheld);

		mailbox[nmail++] = t->held[i];
		t->held[i] = t->held[--t->nheld];
		t->handoffs++;
	} else if (nmail && t->nheld < MAX_HELD) {
		t->held[t->nheld++] = mailbox[--nmail];
	}
	pthread_mutex_unlock(&mailbox_lock);
}

static void op_stats(struct thread *t)
{
	struct mask_pool_stats st;

	mask_pool_get_stats(&st);
	if (st.free_pages > st.pool_pages || st.largest_free_bytes > st.free_bytes ||
	    st.misuse)
		TFAIL(t, "stats: free %lu of %lu pages, largest %llu, misuse %lu",
		      st.free_pages, st.pool_pages,
		      (unsigned long long)st.largest_free_bytes, st.misuse);
}

static void *thread_fn(void *arg)
{
	struct thread *t = arg;
	unsigned int r;

	for (t->ops = 0; !t->bad; t->ops++) {
		if (seconds ? (t->ops % 64 == 0 && elapsed() >= seconds) : t->ops >= ops_per_thread)
			break;
		r = rnd_below(t, 100);
		if (t->nheld == MAX_HELD && r < 55)
			r = 60;
		if (r < 33)
			op_alloc(t);
		else if (r < 43)
			op_compat(t);
		else if (r < 55)
			op_bounce(t);
		else if (r < 90)
			op_free(t);
		else if (r < 97)
			op_mailbox(t);
		else if (r < 99)
			op_stats(t);
		else
			while (t->nheld)	/* then __GFP_NOFAIL may be used */
				op_free(t);
	}
	while (t->nheld) {
		free_whole(t, &t->held[t->nheld - 1]);
		drop(t, t->nheld - 1);
	}
	return NULL;
}

/* ---------------- main ---------------- */

static unsigned long longest_free(const char *map)
{
	unsigned long run = 0, best = 0;
	const char *l, *c;

	for (l = map; *l; l = strchr(l, '\n') + 1) {
		for (c = l + 9; *c && *c != '\n'; c++) {
			run = *c == '.' ? run + 1 : 0;	/* holes end runs too */
			best = max(best, run);
		}
		if (!strchr(l, '\n'))
			break;
	}
	return best;
}

static char mapbuf[1 << 17];

int main(int argc, char **argv)
{
	struct harness_boot_opts o = { .holes = true, .increase = M(4) + 3 * PAGE_SIZE };
	unsigned long total = 0, allocs = 0, fails = 0, frees = 0, handoffs = 0, nofail = 0;
	const char *env = getenv("MASK_TSTRESS_SEED");
	u64 seed = env ? strtoull(env, NULL, 0) : 0;
	bool have_seed = env != NULL;
	struct mask_pool_stats st;
	unsigned int i;
	int a, bad = 0;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--seed") && a + 1 < argc) {
			seed = strtoull(argv[++a], NULL, 0);
			have_seed = true;
		} else if (!strcmp(argv[a], "--threads") && a + 1 < argc) {
			nthreads = strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--ops") && a + 1 < argc) {
			ops_per_thread = strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--seconds") && a + 1 < argc) {
			seconds = strtod(argv[++a], NULL);
		} else if (!strcmp(argv[a], "--warn")) {
			warn = true;
		} else if (!strcmp(argv[a], "-v")) {
			harness_verbose = true;
		} else if (!strcmp(argv[a], "--multi-chunk")) {
			multi_chunk = true;
		} else if (!strcmp(argv[a], "--single-chunk")) {
			multi_chunk = false;
		} else {
			fprintf(stderr, "usage: %s [--seed S] [--threads N] [--ops N | --seconds S] [--warn]"
				" [--single-chunk | --multi-chunk] [-v]\n",
				argv[0]);
			return 2;
		}
	}
	if (!nthreads || nthreads > MAX_THREADS) {
		fprintf(stderr, "tstress: 1 to %d threads\n", MAX_THREADS);
		return 2;
	}
	if (!have_seed)
		seed = (u64)time(NULL) ^ ((u64)getpid() << 32);
	if (seconds)
		printf("tstress: seed %" PRIu64 " threads %u seconds %g%s\n", seed, nthreads,
		       seconds, multi_chunk ? "" : " single-chunk");
	else
		printf("tstress: seed %" PRIu64 " threads %u ops %lu per thread%s\n", seed,
		       nthreads, ops_per_thread, multi_chunk ? "" : " single-chunk");
	fflush(stdout);

	harness_boot(&o);
	/* The buddy allocator answers too: low masks give its pages back. */
	harness_buddy_fail = false;
	harness_buddy_floor_pfn = 0;
	if (harness_debugfs_write("timeout_ms", 20))
		return 2;
	if (harness_debugfs_read("map", mapbuf, sizeof(mapbuf)) < 0)
		return 2;
	base_longest = longest_free(mapbuf);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < nthreads; i++) {
		threads[i].id = i;
		threads[i].rng = (seed + 1) * 0x9e3779b97f4a7c15ULL + i;
		if (!threads[i].rng)
			threads[i].rng = 1;
		if (pthread_create(&threads[i].tid, NULL, thread_fn, &threads[i])) {
			perror("pthread_create");
			return 2;
		}
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(threads[i].tid, NULL);
		bad |= threads[i].bad;
		total += threads[i].ops;
		allocs += threads[i].allocs;
		fails += threads[i].fails;
		frees += threads[i].frees;
		handoffs += threads[i].handoffs;
		nofail += threads[i].nofail;
	}
	/* What is still in the mailbox goes back too. */
	while (nmail) {
		free_whole(&threads[0], &mailbox[--nmail]);
		bad |= threads[0].bad;
	}

	mask_pool_get_stats(&st);
	if (harness_debugfs_read("map", mapbuf, sizeof(mapbuf)) < 0 ||
	    strchr(mapbuf, '#') || strchr(mapbuf, 'H') || strchr(mapbuf, 'h')) {
		fprintf(stderr, "tstress: pages still used in the map\n");
		bad = 1;
	}
	if (st.free_pages != st.pool_pages || st.misuse ||
	    st.largest_free_bytes != PFN_PHYS(base_longest) ||
	    longest_free(mapbuf) != base_longest) {
		fprintf(stderr, "tstress: pool not whole: %lu of %lu pages free, largest %llu (boot %lu pages), misuse %lu\n",
			st.free_pages, st.pool_pages,
			(unsigned long long)st.largest_free_bytes >> PAGE_SHIFT,
			base_longest, st.misuse);
		bad = 1;
	}
	if (harness_vm_events[MASK_FREE] != harness_vm_events[MASK_ALLOC]) {
		fprintf(stderr, "tstress: MASK_FREE %lu for %lu pool allocations\n",
			harness_vm_events[MASK_FREE], harness_vm_events[MASK_ALLOC]);
		bad = 1;
	}
	if (harness_errors || harness_bad_pages || harness_warnings) {
		fprintf(stderr, "tstress: %lu harness errors, %lu bad pages, %lu warnings\n",
			harness_errors, harness_bad_pages, harness_warnings);
		bad = 1;
	}
	printf("tstress: %lu ops in %.1f s (%u threads): %lu allocations (%lu pool, %lu nofail), %lu failed, %lu frees, %lu handed over, %lu waits, %lu wakeups\n",
	       total, elapsed(), nthreads, allocs, harness_vm_events[MASK_ALLOC], nofail,
	       fails, frees, handoffs, harness_wait_calls, harness_wakeups);
	printf("%s tstress seed %" PRIu64 "\n", bad ? "not ok" : "ok", seed);
	return bad;
}
