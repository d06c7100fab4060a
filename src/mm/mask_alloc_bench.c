// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel microbenchmark of the mask pool against the buddy allocator
 * (model: kernel/dma/map_benchmark.c).
 *
 *   /sys/kernel/debug/mask_alloc/bench   write "<iterations> [<rounds>]",
 *                                        read the results of the last run
 *
 * For every size of 1 to 64 pages, each path allocates and frees
 * @iterations times in a row, timed with ktime_get_ns(), @rounds times;
 * the result is the median of the rounds in nanoseconds per
 * allocate+free pair, and its ratio to alloc_pages() of the same size
 * in the same run:
 *
 *   pool24, pool32  mask_pool_alloc_bounce() + mask_pool_free_bounce()
 *                   below 2^24 and 2^32: the pool alone (the bitmap search
 *                   and the page preparation), no buddy, no waiting
 *   api24           alloc_pages_mask(GFP_KERNEL, size, DMA_BIT_MASK(24)) +
 *                   __free_pages_mask(): the public API below a mask that
 *                   (with the default pool) ends inside the pool's span,
 *                   so the zones are not tried and the pages come from
 *                   the pool
 *   api32           the same below DMA_BIT_MASK(32): the zones (DMA32)
 *                   serve it, as their final answer when the mask covers
 *                   all of ZONE_DMA32
 *   alloc_pages     alloc_pages(GFP_KERNEL, get_order(size)) +
 *                   __free_pages()
 *
 * Rounds are outermost, so a slow drift of the machine spreads over every
 * path.  A round that ends before the clock has moved 20 of its steps
 * (a jiffies clocksource moves in steps of a tick) is continued with more
 * pairs, so that every result is measured rather than rounded to zero.
 * Every allocation is freed before the next one, so the pool ends as it
 * started.
 */
#define pr_fmt(fmt) "mask_alloc: " fmt

#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mask_alloc.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define BENCH_MAX_ITERS		100000
#define BENCH_MAX_ROUNDS	21
#define BENCH_DEF_ROUNDS	5
#define BENCH_NR_SIZES		7	/* 1, 2, 4 ... 64 pages */
#define BENCH_CLOCK_STEPS	20	/* a round lasts at least this many clock steps */

enum bench_path {
	BENCH_POOL24, BENCH_POOL32, BENCH_API24, BENCH_API32, BENCH_BUDDY,
	BENCH_NR_PATHS
};

static const char * const bench_path_name[BENCH_NR_PATHS] = {
	[BENCH_POOL24] = "pool24",
	[BENCH_POOL32] = "pool32",
	[BENCH_API24] = "api24",
	[BENCH_API32] = "api32",
	[BENCH_BUDDY] = "alloc_pages",
};

/**
 * struct mask_bench_row - result for one path and one size
 * @dns: median over the rounds of the time per pair, in tenths of a ns
 * @pairs: allocate+free pairs made, over all rounds
 * @zones: allocations of the api24 and api32 paths that the zones served
 */
struct mask_bench_row {
	u64 dns;
	u64 pairs;
	u64 zones;
};

/**
 * struct mask_bench - state of the benchmark
 * @iters: pairs per round (at least), of the last run
 * @rounds: rounds of the last run
 * @clock_ns: step of ktime_get_ns() measured before the last run
 * @pool_free_before: free pool pages before the last run
 * @pool_free_after: free pool pages after the last run
 * @err: 0, or the error that stopped the last run
 * @done: true once a run has finished, successfully or not
 * @row: results of the last run, per path and size
 * @samples: per-round times of the row being measured, in tenths of a ns
 *
 * Everything is protected by mask_bench_lock.
 */
struct mask_bench {
	unsigned int iters;
	unsigned int rounds;
	u64 clock_ns;
	unsigned long pool_free_before;
	unsigned long pool_free_after;
	int err;
	bool done;
	struct mask_bench_row row[BENCH_NR_PATHS][BENCH_NR_SIZES];
	u64 samples[BENCH_NR_PATHS][BENCH_NR_SIZES][BENCH_MAX_ROUNDS];
};

/* Held for a whole run: a second writer gets -EBUSY, a reader waits. */
static DEFINE_MUTEX(mask_bench_lock);
static struct mask_bench mask_bench;

/* One allocate+free pair of @nr pages on @path; counts zone pages in @zones. */
static int mask_bench_pair(enum bench_path path, unsigned long nr, u64 *zones)
{
	size_t size = nr << PAGE_SHIFT;
	struct page *page;

	switch (path) {
	case BENCH_POOL24:
	case BENCH_POOL32:
		page = mask_pool_alloc_bounce(nr, path == BENCH_POOL24 ?
					      DMA_BIT_MASK(24) : DMA_BIT_MASK(32),
					      0, 0, ~0UL);
		if (IS_ERR(page))
			return PTR_ERR(page);
		mask_pool_free_bounce(page, nr);
		return 0;
	case BENCH_API24:
	case BENCH_API32:
		page = alloc_pages_mask(GFP_KERNEL | __GFP_NOWARN, size,
					path == BENCH_API24 ? DMA_BIT_MASK(24) :
					DMA_BIT_MASK(32));
		if (!page)
			return -ENOMEM;
		if (!mask_pool_page(page))
			(*zones)++;
		__free_pages_mask(page, size);
		return 0;
	case BENCH_BUDDY:
		page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, get_order(size));
		if (!page)
			return -ENOMEM;
		__free_pages(page, get_order(size));
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * One round: at least @iters pairs, and more until @min_ns have passed.
 * Returns 0 and the time per pair in tenths of a ns in @dns.
 */
static int mask_bench_round(enum bench_path path, unsigned long nr,
			    unsigned int iters, u64 min_ns,
			    struct mask_bench_row *row, u64 *dns)
{
	u64 t0, elapsed, n = 0;
	unsigned int i;
	int ret;

	t0 = ktime_get_ns();
	do {
		for (i = 0; i < iters; i++) {
			ret = mask_bench_pair(path, nr, &row->zones);
			if (ret)
				return ret;
			if (!(++n & 1023))
				cond_resched();
		}
		elapsed = ktime_get_ns() - t0;
	} while (elapsed < min_ns);
	row->pairs += n;
	*dns = div64_u64(elapsed * 10, n);
	return 0;
}

/* The next value of ktime_get_ns() after @t. */
static u64 mask_bench_clock_next(u64 t)
{
	u64 now;

	while ((now = ktime_get_ns()) == t)
		cpu_relax();
	return now;
}

/*
 * The step of ktime_get_ns(): the shortest of a few whole steps, so that
 * an interrupt in one of them does not count.  A jiffies clocksource
 * gives a tick, a TSC the time ktime_get_ns() itself takes.
 */
static u64 mask_bench_clock_step(void)
{
	u64 t0, t1, step = U64_MAX;
	int i;

	t0 = mask_bench_clock_next(ktime_get_ns());	/* on an edge */
	for (i = 0; i < 3; i++) {
		t1 = mask_bench_clock_next(t0);
		step = min(step, t1 - t0);
		t0 = t1;
	}
	return step;
}

static int mask_bench_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 mask_bench_median(u64 *v, unsigned int n)
{
	sort(v, n, sizeof(*v), mask_bench_cmp, NULL);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static unsigned long mask_bench_pool_free(void)
{
	struct mask_pool_stats st;

	mask_pool_get_stats(&st);
	return st.free_pages;
}

/* The whole run; called with mask_bench_lock held. */
static int mask_bench_run(struct mask_bench *b, unsigned int iters,
			  unsigned int rounds)
{
	unsigned int r, s, p, warm;
	u64 min_ns, zones = 0;
	int ret = 0;

	memset(b, 0, sizeof(*b));
	b->iters = iters;
	b->rounds = rounds;
	b->clock_ns = mask_bench_clock_step();
	b->pool_free_before = mask_bench_pool_free();
	min_ns = BENCH_CLOCK_STEPS * b->clock_ns;

	/* Warm up every path and size once, untimed. */
	warm = min(iters, 64U);
	for (s = 0; s < BENCH_NR_SIZES && !ret; s++)
		for (p = 0; p < BENCH_NR_PATHS && !ret; p++)
			for (r = 0; r < warm && !ret; r++)
				ret = mask_bench_pair(p, 1UL << s, &zones);

	for (r = 0; r < rounds && !ret; r++) {
		for (s = 0; s < BENCH_NR_SIZES && !ret; s++) {
			for (p = 0; p < BENCH_NR_PATHS && !ret; p++)
				ret = mask_bench_round(p, 1UL << s, iters, min_ns,
						       &b->row[p][s],
						       &b->samples[p][s][r]);
		}
		if (!ret && fatal_signal_pending(current))
			ret = -EINTR;
		cond_resched();
	}
	if (ret) {
		pr_warn("bench: stopped, error %d\n", ret);
	} else {
		for (p = 0; p < BENCH_NR_PATHS; p++)
			for (s = 0; s < BENCH_NR_SIZES; s++)
				b->row[p][s].dns =
					mask_bench_median(b->samples[p][s], rounds);
	}
	b->pool_free_after = mask_bench_pool_free();
	b->err = ret;
	b->done = true;
	return ret;
}

static ssize_t mask_bench_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	unsigned int iters, rounds = BENCH_DEF_ROUNDS;
	char buf[32], *s, *tok;
	int ret;

	if (len >= sizeof(buf)) {
		pr_warn("bench: input too long; expected \"<iterations> [<rounds>]\"\n");
		return -EINVAL;
	}
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	s = strim(buf);
	tok = strsep(&s, " \t");
	if (kstrtouint(tok, 10, &iters) || !iters || iters > BENCH_MAX_ITERS ||
	    (s && (kstrtouint(strim(s), 10, &rounds) || !rounds ||
		   rounds > BENCH_MAX_ROUNDS))) {
		pr_warn("bench: expected \"<iterations> [<rounds>]\", iterations 1..%u, rounds 1..%u (default %u)\n",
			BENCH_MAX_ITERS, BENCH_MAX_ROUNDS, BENCH_DEF_ROUNDS);
		return -EINVAL;
	}
	if (!mask_pool_enabled()) {
		pr_warn("bench: no mask pool\n");
		return -ENODEV;
	}
	if (!mutex_trylock(&mask_bench_lock)) {
		pr_warn("bench: already running\n");
		return -EBUSY;
	}
	pr_info("bench: %u iterations x %u rounds\n", iters, rounds);
	ret = mask_bench_run(&mask_bench, iters, rounds);
	mutex_unlock(&mask_bench_lock);
	return ret ? ret : len;
}

/* Tenths as "N.N". */
static void mask_bench_put_dec1(struct seq_file *m, const char *key, u64 v)
{
	seq_printf(m, " %s %llu.%llu", key, v / 10, v % 10);
}

static int mask_bench_show(struct seq_file *m, void *v)
{
	struct mask_bench *b = &mask_bench;
	const struct mask_bench_row *row, *buddy;
	unsigned int p, s;
	u64 ratio;
	int ret;

	ret = mutex_lock_interruptible(&mask_bench_lock);
	if (ret)
		return ret;
	if (!b->done) {
		seq_puts(m, "# no run yet: write \"<iterations> [<rounds>]\"\n");
		goto out;
	}
	seq_printf(m, "# iterations %u rounds %u clock_ns %llu pool_free_pages_before %lu pool_free_pages_after %lu error %d\n",
		   b->iters, b->rounds, b->clock_ns, b->pool_free_before,
		   b->pool_free_after, b->err);
	if (b->err)
		goto out;
	for (p = 0; p < BENCH_NR_PATHS; p++) {
		for (s = 0; s < BENCH_NR_SIZES; s++) {
			row = &b->row[p][s];
			buddy = &b->row[BENCH_BUDDY][s];
			/* Rounds last at least 20 clock steps: never zero. */
			ratio = div64_u64(row->dns * 1000, max(buddy->dns, 1ULL));
			seq_printf(m, "%s pages %u", bench_path_name[p], 1U << s);
			mask_bench_put_dec1(m, "ns", row->dns);
			mask_bench_put_dec1(m, "alloc_pages_ns", buddy->dns);
			seq_printf(m, " ratio %llu.%03llu pairs %llu zones %llu\n",
				   ratio / 1000, ratio % 1000, row->pairs, row->zones);
		}
	}
out:
	mutex_unlock(&mask_bench_lock);
	return 0;
}

static int mask_bench_open(struct inode *inode, struct file *file)
{
	return single_open(file, mask_bench_show, NULL);
}

static const struct file_operations mask_bench_fops = {
	.open = mask_bench_open,
	.read = seq_read,
	.write = mask_bench_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int __init mask_alloc_bench_init(void)
{
	struct dentry *dir = debugfs_lookup("mask_alloc", NULL);

	if (!dir)
		dir = debugfs_create_dir("mask_alloc", NULL);
	else
		dput(dir);	/* the directory lives as long as debugfs */
	debugfs_create_file("bench", 0600, dir, NULL, &mask_bench_fops);
	return 0;
}
late_initcall_sync(mask_alloc_bench_init);
