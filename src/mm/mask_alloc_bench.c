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
 *
 *   /sys/kernel/debug/mask_alloc/dma_bench   write "key=value ...",
 *                                            read the result of the last run
 *
 * times streaming DMA maps, with a resolution of nanoseconds where
 * dma_map_benchmark (kernel/dma/map_benchmark.c) reports in steps of
 * 100 ns.  Each of @threads kernel threads maps and unmaps its own buffer
 * of @size bytes @pairs times in a row with dma_map_page() and
 * dma_unmap_page(), and reads ktime_get_ns() only before and after the
 * whole loop; the threads start together.  The device is a platform
 * device of this file's own (no driver, dma-direct, the default swiotlb of
 * the machine), or the PCI device named by @dev (for example the device
 * that the dma_map_benchmark driver is bound to); its DMA mask is set to
 * @bits for the run and restored afterwards.  Keys (defaults): pairs
 * (100000), size (4096), bits (64), threads (1), dir (0 bidirectional,
 * 1 to the device, 2 from the device, as in dma_map_benchmark), dev (none).
 * The result is the time per map+unmap pair of each thread, their mean,
 * and the wall time from the first start to the last end.  It needs
 * neither the mask pool nor dmatlb, so that a kernel without
 * CONFIG_SWIOTLB_MASK_ALLOC is measured the same way.
 */
#define pr_fmt(fmt) "mask_alloc: " fmt

#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mask_alloc.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
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

#define DMA_BENCH_MAX_PAIRS	10000000
#define DMA_BENCH_DEF_PAIRS	100000
#define DMA_BENCH_MAX_THREADS	16
#define DMA_BENCH_MAX_SIZE	(64 * PAGE_SIZE)
#define DMA_BENCH_NAME_LEN	32

/**
 * struct dma_bench_thread - one thread of a dma_bench run
 * @run: the run it belongs to
 * @task: the kernel thread
 * @start_ns: ktime_get_ns() before its first map
 * @end_ns: ktime_get_ns() after its last unmap
 * @done: pairs completed
 * @err: 0, or the error that stopped it (-ENOMEM: a map failed)
 */
struct dma_bench_thread {
	struct dma_bench_run *run;
	struct task_struct *task;
	u64 start_ns;
	u64 end_ns;
	u64 done;
	int err;
};

/**
 * struct dma_bench_run - parameters, state and result of a dma_bench run
 * @dev: the device mapped for, or NULL before the first run
 * @name: the device's name, kept for the result
 * @pairs: map+unmap pairs per thread
 * @size: bytes per map
 * @bits: DMA mask of the device during the run
 * @threads: threads that run at once
 * @dir: 0 bidirectional, 1 to the device, 2 from the device
 * @ready: threads that have not yet reached the start line
 * @running: threads that have not yet finished their pairs
 * @all_ready: completed when @ready reaches zero
 * @start: completed to start every thread at once
 * @all_done: completed when @running reaches zero
 * @err: 0, or the first error of the run
 * @done: true once a run has finished, successfully or not
 * @thr: the threads
 *
 * Protected by dma_bench_lock, except what the threads write to their own
 * @thr entry while the run goes on.
 */
struct dma_bench_run {
	struct device *dev;
	char name[DMA_BENCH_NAME_LEN];
	u64 pairs;
	size_t size;
	unsigned int bits;
	unsigned int threads;
	unsigned int dir;
	atomic_t ready;
	atomic_t running;
	struct completion all_ready;
	struct completion start;
	struct completion all_done;
	int err;
	bool done;
	struct dma_bench_thread thr[DMA_BENCH_MAX_THREADS];
};

static const enum dma_data_direction dma_bench_dirs[] = {
	DMA_BIDIRECTIONAL, DMA_TO_DEVICE, DMA_FROM_DEVICE,
};

/* Held for a whole run: a second writer gets -EBUSY, a reader waits. */
static DEFINE_MUTEX(dma_bench_lock);
static struct dma_bench_run dma_bench;
static struct platform_device *dma_bench_pdev;

/**
 * dma_bench_thread_fn() - one thread of a dma_bench run
 * @data: its struct dma_bench_thread
 *
 * Maps and unmaps a buffer of its own @pairs times, with ktime_get_ns()
 * read only before the first map and after the last unmap.
 *
 * Return: 0, or -ENOMEM when the buffer or a map failed.
 */
static int dma_bench_thread_fn(void *data)
{
	struct dma_bench_thread *t = data;
	struct dma_bench_run *run = t->run;
	enum dma_data_direction dir = dma_bench_dirs[run->dir];
	struct device *dev = run->dev;
	size_t size = run->size;
	struct page *page = NULL;
	dma_addr_t addr;
	void *buf;
	u64 i;

	buf = alloc_pages_exact(size, GFP_KERNEL);
	if (buf) {
		memset(buf, 0x66, size);
		page = virt_to_page(buf);
	} else {
		t->err = -ENOMEM;
	}
	if (atomic_dec_and_test(&run->ready))
		complete(&run->all_ready);
	wait_for_completion(&run->start);
	if (t->err)
		goto out;

	t->start_ns = ktime_get_ns();
	for (i = 0; i < run->pairs; i++) {
		addr = dma_map_page(dev, page, 0, size, dir);
		if (unlikely(dma_mapping_error(dev, addr))) {
			t->err = -ENOMEM;
			break;
		}
		dma_unmap_page(dev, addr, size, dir);
		if (!((i + 1) & 1023))
			cond_resched();
	}
	t->end_ns = ktime_get_ns();
	t->done = i;
	free_pages_exact(buf, size);
out:
	if (atomic_dec_and_test(&run->running))
		complete(&run->all_done);
	return t->err;
}

/**
 * dma_bench_get_dev() - the device to map for
 * @name: a PCI device name, or an empty string for our platform device
 *
 * Return: the device with a reference held, or an ERR_PTR().
 */
static struct device *dma_bench_get_dev(const char *name)
{
	struct platform_device_info info = {
		.name = "mask_alloc_dma_bench",
		.id = PLATFORM_DEVID_NONE,
		.dma_mask = DMA_BIT_MASK(64),
	};
	struct device *dev = NULL;

	if (*name) {
#ifdef CONFIG_PCI
		dev = bus_find_device_by_name(&pci_bus_type, NULL, name);
#endif
		return dev ? dev : ERR_PTR(-ENODEV);
	}
	if (!dma_bench_pdev) {
		dma_bench_pdev = platform_device_register_full(&info);
		if (IS_ERR(dma_bench_pdev)) {
			dev = ERR_CAST(dma_bench_pdev);
			dma_bench_pdev = NULL;
			return dev;
		}
	}
	return get_device(&dma_bench_pdev->dev);
}

/**
 * dma_bench_start() - start one kernel thread per @run->threads
 * @run: the run, its parameters set
 *
 * Return: 0 when every thread waits at the start line, or the error of
 * kthread_create(); then the threads already created are stopped.
 */
static int dma_bench_start(struct dma_bench_run *run)
{
	struct task_struct *tsk;
	unsigned int i;

	atomic_set(&run->ready, run->threads);
	atomic_set(&run->running, run->threads);
	init_completion(&run->all_ready);
	init_completion(&run->start);
	init_completion(&run->all_done);
	for (i = 0; i < run->threads; i++) {
		run->thr[i].run = run;
		tsk = kthread_create(dma_bench_thread_fn, &run->thr[i],
				     "dma_bench/%u", i);
		if (IS_ERR(tsk)) {
			/* stop the others before they reach their loop */
			run->pairs = 0;
			complete_all(&run->start);
			while (i--)
				kthread_stop_put(run->thr[i].task);
			return PTR_ERR(tsk);
		}
		get_task_struct(tsk);
		run->thr[i].task = tsk;
		wake_up_process(tsk);
	}
	wait_for_completion(&run->all_ready);
	return 0;
}

/**
 * dma_bench_run() - one run of the dma_bench knob
 * @run: the run, its parameters set; called with dma_bench_lock held
 *
 * Return: 0, or the first error of the device lookup, the mask or a thread.
 */
static int dma_bench_run(struct dma_bench_run *run)
{
	u64 old_mask, old_coherent;
	unsigned int i;
	int ret;

	run->dev = dma_bench_get_dev(run->name);
	if (IS_ERR(run->dev)) {
		ret = PTR_ERR(run->dev);
		run->dev = NULL;
		pr_warn("dma_bench: no device \"%s\": %d\n", run->name, ret);
		return ret;
	}
	if (!run->dev->dma_mask) {
		pr_warn("dma_bench: %s cannot do DMA\n", dev_name(run->dev));
		ret = -EINVAL;
		goto put;
	}
	strscpy(run->name, dev_name(run->dev), sizeof(run->name));
	old_mask = *run->dev->dma_mask;
	old_coherent = run->dev->coherent_dma_mask;
	ret = dma_set_mask_and_coherent(run->dev, DMA_BIT_MASK(run->bits));
	if (ret) {
		pr_warn("dma_bench: %s: no %u-bit DMA mask: %d\n",
			run->name, run->bits, ret);
		goto put;
	}

	ret = dma_bench_start(run);
	if (!ret) {
		complete_all(&run->start);
		wait_for_completion(&run->all_done);
		for (i = 0; i < run->threads; i++) {
			kthread_stop_put(run->thr[i].task);
			run->thr[i].task = NULL;
			if (!ret)
				ret = run->thr[i].err;
		}
	}
	*run->dev->dma_mask = old_mask;
	run->dev->coherent_dma_mask = old_coherent;
put:
	put_device(run->dev);
	run->dev = NULL;
	return ret;
}

/**
 * dma_bench_parse() - parse "key=value ..." into @run
 * @run: the run, cleared; gets the defaults and then the values
 * @s: the input, a NUL-terminated string
 *
 * Return: 0, or -EINVAL on an unknown key or a value out of range.
 */
static int dma_bench_parse(struct dma_bench_run *run, char *s)
{
	unsigned long long v;
	char *tok, *val;

	run->pairs = DMA_BENCH_DEF_PAIRS;
	run->size = PAGE_SIZE;
	run->bits = 64;
	run->threads = 1;
	run->dir = 0;
	while ((tok = strsep(&s, " \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "dev")) {
			if (strscpy(run->name, val, sizeof(run->name)) < 0)
				return -EINVAL;
			continue;
		}
		if (kstrtoull(val, 0, &v))
			return -EINVAL;
		if (!strcmp(tok, "pairs") && v && v <= DMA_BENCH_MAX_PAIRS)
			run->pairs = v;
		else if (!strcmp(tok, "size") && v && v <= DMA_BENCH_MAX_SIZE)
			run->size = v;
		else if (!strcmp(tok, "bits") && v >= 20 && v <= 64)
			run->bits = v;
		else if (!strcmp(tok, "threads") && v &&
			 v <= DMA_BENCH_MAX_THREADS)
			run->threads = v;
		else if (!strcmp(tok, "dir") && v < ARRAY_SIZE(dma_bench_dirs))
			run->dir = v;
		else
			return -EINVAL;
	}
	return 0;
}

static ssize_t dma_bench_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct dma_bench_run *run = &dma_bench;
	char buf[160];
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (!mutex_trylock(&dma_bench_lock)) {
		pr_warn("dma_bench: already running\n");
		return -EBUSY;
	}
	memset(run, 0, sizeof(*run));
	ret = dma_bench_parse(run, buf);
	if (ret) {
		pr_warn("dma_bench: expected \"key=value ...\": pairs 1..%u, size 1..%lu, bits 20..64, threads 1..%u, dir 0..2, dev <PCI device>\n",
			DMA_BENCH_MAX_PAIRS, DMA_BENCH_MAX_SIZE,
			DMA_BENCH_MAX_THREADS);
	} else {
		ret = dma_bench_run(run);
		run->err = ret;
		run->done = true;
	}
	mutex_unlock(&dma_bench_lock);
	return ret ? ret : len;
}

/* Nanoseconds per pair, in tenths of a ns, of @ns for @pairs. */
static u64 dma_bench_dns(u64 ns, u64 pairs)
{
	return pairs ? div64_u64(ns * 10, pairs) : 0;
}

static int dma_bench_show(struct seq_file *m, void *v)
{
	struct dma_bench_run *run = &dma_bench;
	const struct dma_bench_thread *t;
	u64 first = U64_MAX, last = 0, sum = 0, pairs = 0;
	unsigned int i;
	int ret;

	ret = mutex_lock_interruptible(&dma_bench_lock);
	if (ret)
		return ret;
	if (!run->done) {
		seq_puts(m, "# no run yet: write \"key=value ...\" (pairs size bits threads dir dev)\n");
		goto out;
	}
	for (i = 0; i < run->threads; i++) {
		t = &run->thr[i];
		first = min(first, t->start_ns);
		last = max(last, t->end_ns);
		sum += dma_bench_dns(t->end_ns - t->start_ns, t->done);
		pairs += t->done;
	}
	seq_printf(m, "dev %s bits %u size %zu dir %u threads %u pairs %llu done %llu error %d",
		   run->name, run->bits, run->size, run->dir, run->threads,
		   run->pairs, pairs, run->err);
	if (!run->err) {
		sum = div_u64(sum, run->threads);
		seq_printf(m, " wall_ns %llu", last - first);
		mask_bench_put_dec1(m, "ns_per_pair", sum);
	}
	seq_putc(m, '\n');
	for (i = 0; i < run->threads && !run->err; i++) {
		t = &run->thr[i];
		seq_printf(m, "thread %u ns %llu", i, t->end_ns - t->start_ns);
		mask_bench_put_dec1(m, "ns_per_pair",
				    dma_bench_dns(t->end_ns - t->start_ns, t->done));
		seq_putc(m, '\n');
	}
out:
	mutex_unlock(&dma_bench_lock);
	return 0;
}

static int dma_bench_open(struct inode *inode, struct file *file)
{
	return single_open(file, dma_bench_show, NULL);
}

static const struct file_operations dma_bench_fops = {
	.open = dma_bench_open,
	.read = seq_read,
	.write = dma_bench_write,
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
	debugfs_create_file("dma_bench", 0600, dir, NULL, &dma_bench_fops);
	return 0;
}
late_initcall_sync(mask_alloc_bench_init);
