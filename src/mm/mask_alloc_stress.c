// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency stress of the mask pool, started from debugfs.
 *
 *   /sys/kernel/debug/mask_alloc/stress  write "<threads> <seconds> [<seed>]",
 *                                        read the result of the last run
 *
 * The write starts @threads kernel threads (1 to 64) and returns when
 * they have run for @seconds (1 to 86400) and given back everything.
 * Each thread allocates and frees at random, holding up to
 * STRESS_HELD allocations at a time:
 *
 *   kernel   alloc_pages_mask(GFP_KERNEL), which may wait up to the
 *            pool's timeout (mask_alloc/timeout_ms) for a free
 *   atomic   alloc_pages_mask(GFP_ATOMIC) under a spinlock with
 *            interrupts off; some of the frees are made there too
 *   nowait   alloc_pages_mask(GFP_NOWAIT) in process context
 *   dma      alloc_pages(GFP_KERNEL | GFP_DMA), order 0 to 4 (the
 *            GFP_DMA compatibility path), freed with __free_pages()
 *   bounce   mask_pool_alloc_bounce() and mask_pool_free_bounce(), as
 *            swiotlb uses them
 *   timer    from a timer (softirq) every tick: GFP_NOWAIT allocations
 *            and bounce runs of up to 8 pages, checked and freed at once
 *
 * Masks are DMA_BIT_MASK(24) to DMA_BIT_MASK(32) or the pool's highest
 * address; sizes 1 to 64 pages (16 bytes to 64 pages for the allocation
 * API).  Every page of an allocation is filled with a pattern unique to
 * the allocation and checked when it is freed, so an allocation handed
 * out twice, or written by anyone else, is caught; each allocation must
 * lie below its mask.  Failures to allocate are counted, not errors:
 * the pool may be full.  All requests carry __GFP_NOWARN.
 *
 * The result lists the operations of each kind, the failures, the
 * errors (pattern, range), the pool's misuse count before and after,
 * and its free pages before and after.  "result ok" means no error and
 * no misuse; whether the pool is whole again is for the caller to judge,
 * as other users (disk I/O through dmatlb) may hold pool pages during the
 * run.
 */
#define pr_fmt(fmt) "mask_alloc: " fmt

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mask_alloc.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/uaccess.h>

#define STRESS_MAX_THREADS	64
#define STRESS_MAX_SECONDS	86400
#define STRESS_HELD		16	/* allocations a thread holds at most */
#define STRESS_MAX_PAGES	64
#define STRESS_TIMER_PAGES	8

enum stress_kind {
	STRESS_KERNEL, STRESS_ATOMIC, STRESS_NOWAIT, STRESS_DMA, STRESS_BOUNCE,
	STRESS_TIMER, STRESS_NR_KINDS
};

static const char * const stress_kind_name[STRESS_NR_KINDS] = {
	[STRESS_KERNEL] = "kernel",
	[STRESS_ATOMIC] = "atomic",
	[STRESS_NOWAIT] = "nowait",
	[STRESS_DMA] = "dma",
	[STRESS_BOUNCE] = "bounce",
	[STRESS_TIMER] = "timer",
};

/**
 * struct stress_alloc - one allocation held by a stress thread
 * @page: first page, NULL if the slot is empty
 * @size: bytes requested (whole pages for dma and bounce)
 * @nr: pages
 * @limit: highest address any byte may have
 * @tag: pattern seed, unique to the allocation
 * @kind: how it was allocated
 * @bounce: from mask_pool_alloc_bounce(), freed with mask_pool_free_bounce()
 */
struct stress_alloc {
	struct page *page;
	size_t size;
	unsigned long nr;
	u64 limit;
	u64 tag;
	enum stress_kind kind;
	bool bounce;
};

/**
 * struct stress_counts - what one thread (or the whole run) did
 * @ok: successful allocations per kind
 * @fail: failed allocations per kind
 * @frees: allocations freed (after their check)
 * @atomic_frees: of those, freed under the spinlock with interrupts off
 * @pattern_errors: allocations whose pattern had changed when freed
 * @range_errors: allocations not below their limit
 * @kernel_waits: GFP_KERNEL allocations that took at least a tick
 */
struct stress_counts {
	unsigned long ok[STRESS_NR_KINDS];
	unsigned long fail[STRESS_NR_KINDS];
	unsigned long frees;
	unsigned long atomic_frees;
	unsigned long pattern_errors;
	unsigned long range_errors;
	unsigned long kernel_waits;
};

/**
 * struct stress_thread - one stress thread and its timer
 * @task: the kthread
 * @rnd: its random state
 * @timer_rnd: the timer's random state
 * @lock: held around the atomic allocations and frees
 * @timer: allocates and frees from softirq context every tick
 * @stop: set when the run ends; the timer does not re-arm then
 * @held: the allocations it holds
 * @c: its counts, from process context
 * @tc: its timer's counts
 * @id: thread number
 * @next_tag: tag of the next allocation
 * @pool_limit: highest pool address, one of the limits
 * @end_ns: ktime_get_ns() at which it stops (not jiffies: under an
 *	emulator that is short of host CPU, ticks get lost and jiffies fall
 *	behind the clock)
 * @done: completed when the thread has run and given everything back; a
 *	kthread that kthread_stop() reaches before it ever ran never runs
 */
struct stress_thread {
	struct task_struct *task;
	struct rnd_state rnd;
	struct rnd_state timer_rnd;
	spinlock_t lock;		/* around the atomic allocations and frees */
	struct timer_list timer;
	bool stop;
	struct stress_alloc held[STRESS_HELD];
	struct stress_counts c;
	struct stress_counts tc;
	unsigned int id;
	u64 next_tag;
	u64 pool_limit;
	u64 end_ns;
	struct completion done;
};

/* Serialises runs and guards the result. */
static DEFINE_MUTEX(stress_lock);
static char *stress_result;

static u64 stress_pick_limit(struct rnd_state *rnd, u64 pool_limit)
{
	u32 r = prandom_u32_state(rnd) % 10;

	if (r == 9 && pool_limit)
		return pool_limit;
	return DMA_BIT_MASK(24 + r);
}

/* The pattern word at index @i of the allocation tagged @tag. */
static inline u64 stress_word(u64 tag, unsigned long i)
{
	return (tag << 20) ^ (i * 0x9e3779b97f4a7c15ULL) ^ i;
}

static void stress_fill(struct stress_alloc *a)
{
	unsigned long p, i, words = PAGE_SIZE / sizeof(u64);

	for (p = 0; p < a->nr; p++) {
		u64 *w = page_address(a->page + p);

		for (i = 0; i < words; i++)
			w[i] = stress_word(a->tag, p * words + i);
	}
}

/* Check the pattern and the range of @a; count what is wrong in @c. */
static void stress_check(struct stress_alloc *a, struct stress_counts *c)
{
	unsigned long p, i, words = PAGE_SIZE / sizeof(u64), bad = 0;
	u64 phys = page_to_phys(a->page);

	for (p = 0; p < a->nr; p++) {
		u64 *w = page_address(a->page + p);

		for (i = 0; i < words; i++) {
			u64 want = stress_word(a->tag, p * words + i);

			if (likely(w[i] == want))
				continue;
			if (!bad++)
				pr_err("stress: %s allocation %#llx at %#llx, %lu pages: word %lu is %#llx, not %#llx\n",
				       stress_kind_name[a->kind], a->tag, phys,
				       a->nr, p * words + i, w[i], want);
		}
	}
	if (bad)
		c->pattern_errors++;
}

static bool stress_in_range(struct stress_alloc *a, struct stress_counts *c)
{
	u64 phys = page_to_phys(a->page);

	if (phys + a->size - 1 <= a->limit)
		return true;
	pr_err("stress: %s allocation at %#llx, %zu bytes, is not below %#llx\n",
	       stress_kind_name[a->kind], phys, a->size, a->limit);
	c->range_errors++;
	return false;
}

static void stress_release(struct stress_alloc *a)
{
	if (a->bounce)
		mask_pool_free_bounce(a->page, a->nr);
	else if (a->kind == STRESS_DMA)
		__free_pages(a->page, get_order(a->size));
	else
		__free_pages_mask(a->page, a->size);
	a->page = NULL;
}

/* Check @a, free it, count it. */
static void stress_free(struct stress_alloc *a, struct stress_counts *c)
{
	stress_check(a, c);
	stress_release(a);
	c->frees++;
}

/* Allocate @a (kind, limit, size, nr set) in the current context. */
static bool stress_get(struct stress_alloc *a, gfp_t gfp)
{
	struct page *page;

	if (a->bounce) {
		page = mask_pool_alloc_bounce(a->nr, a->limit, 0, 0, ~0UL);
		if (IS_ERR(page))
			page = NULL;
	} else if (a->kind == STRESS_DMA) {
		page = alloc_pages(gfp | GFP_DMA, get_order(a->size));
	} else {
		page = alloc_pages_mask(gfp, a->size, a->limit);
	}
	a->page = page;
	return page;
}

/* Pick kind, limit and size of a new allocation. */
static void stress_pick(struct stress_thread *t, struct rnd_state *rnd,
			struct stress_alloc *a, enum stress_kind kind,
			unsigned long max_pages)
{
	unsigned long nr = 1 + prandom_u32_state(rnd) % max_pages;

	a->kind = kind;
	a->tag = ((u64)t->id << 40) | t->next_tag++;
	a->limit = stress_pick_limit(rnd, t->pool_limit);
	a->nr = nr;
	a->size = nr * PAGE_SIZE;
	/* the timer alternates between the two */
	a->bounce = kind == STRESS_BOUNCE ||
		    (kind == STRESS_TIMER && (a->tag & 1));
	if (a->bounce)
		return;
	switch (kind) {
	case STRESS_DMA:
		a->nr = 1UL << (prandom_u32_state(rnd) % 5);
		a->size = a->nr * PAGE_SIZE;
		a->limit = zone_dma_limit;
		break;
	default:
		/* any byte count that needs nr pages */
		a->size -= prandom_u32_state(rnd) % (PAGE_SIZE - MASK_MIN_SIZE + 1);
		break;
	}
}

/* After a successful allocation: check the range, fill the pattern. */
static void stress_got(struct stress_alloc *a, struct stress_counts *c)
{
	c->ok[a->kind]++;
	stress_in_range(a, c);
	stress_fill(a);
}

static void stress_timer_fn(struct timer_list *timer)
{
	struct stress_thread *t = from_timer(t, timer, timer);
	struct stress_alloc a;

	stress_pick(t, &t->timer_rnd, &a, STRESS_TIMER, STRESS_TIMER_PAGES);
	if (stress_get(&a, GFP_NOWAIT | __GFP_NOWARN)) {
		stress_got(&a, &t->tc);
		stress_free(&a, &t->tc);
	} else {
		t->tc.fail[STRESS_TIMER]++;
	}
	if (!READ_ONCE(t->stop))
		mod_timer(&t->timer, jiffies + 1);
}

static void stress_alloc_one(struct stress_thread *t, struct stress_alloc *a)
{
	u32 r = prandom_u32_state(&t->rnd) % 16;
	unsigned long flags, start;
	enum stress_kind kind;
	bool got;

	if (r < 5)
		kind = STRESS_KERNEL;
	else if (r < 8)
		kind = STRESS_ATOMIC;
	else if (r < 10)
		kind = STRESS_NOWAIT;
	else if (r < 12)
		kind = STRESS_DMA;
	else
		kind = STRESS_BOUNCE;
	stress_pick(t, &t->rnd, a, kind, STRESS_MAX_PAGES);

	switch (kind) {
	case STRESS_KERNEL:
		start = jiffies;
		got = stress_get(a, GFP_KERNEL | __GFP_NOWARN);
		if (time_after(jiffies, start))
			t->c.kernel_waits++;
		break;
	case STRESS_ATOMIC:
		spin_lock_irqsave(&t->lock, flags);
		got = stress_get(a, GFP_ATOMIC | __GFP_NOWARN);
		if (got)
			stress_got(a, &t->c);
		spin_unlock_irqrestore(&t->lock, flags);
		if (!got)
			t->c.fail[kind]++;
		return;
	case STRESS_DMA:
		got = stress_get(a, GFP_KERNEL | __GFP_NOWARN);
		break;
	default:
		got = stress_get(a, GFP_NOWAIT | __GFP_NOWARN);
		break;
	}
	if (got)
		stress_got(a, &t->c);
	else
		t->c.fail[kind]++;
}

static int stress_thread_fn(void *data)
{
	struct stress_thread *t = data;
	unsigned long flags;
	unsigned int i;

	mod_timer(&t->timer, jiffies + 1);
	/* kthread_stop() only collects the thread: it runs until t->end_ns */
	while (ktime_get_ns() < t->end_ns) {
		struct stress_alloc *a;
		u32 r = prandom_u32_state(&t->rnd);

		a = &t->held[r % STRESS_HELD];
		if (!a->page) {
			stress_alloc_one(t, a);
		} else if ((r >> 8) % 4 == 0) {
			spin_lock_irqsave(&t->lock, flags);
			stress_free(a, &t->c);
			t->c.atomic_frees++;
			spin_unlock_irqrestore(&t->lock, flags);
		} else {
			stress_free(a, &t->c);
		}
		/* now and then, hold what we have for a while */
		if ((r >> 12) % 64 == 0)
			usleep_range(500, 2000);
		cond_resched();
	}
	WRITE_ONCE(t->stop, true);
	timer_shutdown_sync(&t->timer);
	for (i = 0; i < STRESS_HELD; i++)
		if (t->held[i].page)
			stress_free(&t->held[i], &t->c);
	complete(&t->done);
	return 0;
}

static void stress_add(struct stress_counts *sum, const struct stress_counts *c)
{
	unsigned int k;

	for (k = 0; k < STRESS_NR_KINDS; k++) {
		sum->ok[k] += c->ok[k];
		sum->fail[k] += c->fail[k];
	}
	sum->frees += c->frees;
	sum->atomic_frees += c->atomic_frees;
	sum->pattern_errors += c->pattern_errors;
	sum->range_errors += c->range_errors;
	sum->kernel_waits += c->kernel_waits;
}

static char *stress_report(unsigned int nthreads, unsigned int seconds, u32 seed,
			   u64 ms, const struct stress_counts *sum,
			   const struct mask_pool_stats *s0,
			   const struct mask_pool_stats *s1, int err)
{
	size_t len = 2048;
	char *buf = kmalloc(len, GFP_KERNEL);
	unsigned long ops = 0, allocs = 0;
	bool ok;
	int n;
	unsigned int k;

	if (!buf)
		return NULL;
	for (k = 0; k < STRESS_NR_KINDS; k++) {
		allocs += sum->ok[k];
		ops += sum->ok[k] + sum->fail[k];
	}
	ops += sum->frees;
	ok = !err && !sum->pattern_errors && !sum->range_errors &&
	     s1->misuse == s0->misuse && allocs == sum->frees;
	n = scnprintf(buf, len,
		      "threads %u\nseconds %u\nseed %u\nduration_ms %llu\nops %lu\nallocs %lu\nfrees %lu\natomic_frees %lu\nkernel_waits %lu\n",
		      nthreads, seconds, seed, ms, ops, allocs, sum->frees,
		      sum->atomic_frees, sum->kernel_waits);
	for (k = 0; k < STRESS_NR_KINDS; k++)
		n += scnprintf(buf + n, len - n, "%s_ok %lu\n%s_fail %lu\n",
			       stress_kind_name[k], sum->ok[k],
			       stress_kind_name[k], sum->fail[k]);
	n += scnprintf(buf + n, len - n,
		       "pattern_errors %lu\nrange_errors %lu\nmisuse_before %lu\nmisuse_after %lu\npool_pages %lu\nfree_pages_before %lu\nfree_pages_after %lu\nerror %d\nresult %s\n",
		       sum->pattern_errors, sum->range_errors, s0->misuse,
		       s1->misuse, s1->pool_pages, s0->free_pages,
		       s1->free_pages, err, ok ? "ok" : "FAIL");
	return buf;
}

static int stress_run(unsigned int nthreads, unsigned int seconds, u32 seed)
{
	struct mask_pool_stats s0, s1;
	struct stress_counts sum = { };
	struct stress_thread *t;
	u64 start, end, ms;
	unsigned int i, started = 0;
	int err = 0;
	char *res;

	t = kcalloc(nthreads, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	mask_pool_get_stats(&s0);
	start = ktime_get_ns();
	end = start + (u64)seconds * NSEC_PER_SEC;
	for (i = 0; i < nthreads; i++) {
		t[i].id = i;
		t[i].end_ns = end;
		t[i].pool_limit = s0.highest_addr;
		prandom_seed_state(&t[i].rnd, seed * 1000003ULL + 2 * i);
		prandom_seed_state(&t[i].timer_rnd, seed * 1000003ULL + 2 * i + 1);
		spin_lock_init(&t[i].lock);
		timer_setup(&t[i].timer, stress_timer_fn, 0);
		init_completion(&t[i].done);
		t[i].task = kthread_create(stress_thread_fn, &t[i], "mask_stress/%u", i);
		if (IS_ERR(t[i].task)) {
			err = PTR_ERR(t[i].task);
			t[i].task = NULL;
			break;
		}
		get_task_struct(t[i].task);
		started++;
	}
	if (err)
		for (i = 0; i < started; i++)
			t[i].end_ns = 0;	/* make the started ones stop at once */
	for (i = 0; i < started; i++)
		wake_up_process(t[i].task);
	for (i = 0; i < started; i++) {
		wait_for_completion(&t[i].done);
		kthread_stop(t[i].task);
		put_task_struct(t[i].task);
		stress_add(&sum, &t[i].c);
		stress_add(&sum, &t[i].tc);
	}
	ms = div_u64(ktime_get_ns() - start, NSEC_PER_MSEC);
	mask_pool_get_stats(&s1);

	res = stress_report(nthreads, seconds, seed, ms, &sum, &s0, &s1, err);
	pr_info("stress: %u threads, %llu ms, %lu frees, %lu pattern and %lu range errors\n",
		nthreads, ms, sum.frees, sum.pattern_errors, sum.range_errors);
	kfree(stress_result);
	stress_result = res;
	kfree(t);
	return err;
}

static ssize_t stress_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	unsigned int nthreads, seconds, seed = 1;
	char buf[64];
	int n, err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	n = sscanf(buf, "%u %u %u", &nthreads, &seconds, &seed);
	if (n < 2 || !nthreads || nthreads > STRESS_MAX_THREADS ||
	    !seconds || seconds > STRESS_MAX_SECONDS)
		return -EINVAL;
	if (!mask_pool_enabled())
		return -ENODEV;
	if (!mutex_trylock(&stress_lock))
		return -EBUSY;
	err = stress_run(nthreads, seconds, seed);
	mutex_unlock(&stress_lock);
	return err ? err : len;
}

static int stress_show(struct seq_file *m, void *v)
{
	mutex_lock(&stress_lock);
	if (stress_result)
		seq_puts(m, stress_result);
	mutex_unlock(&stress_lock);
	return 0;
}

static int stress_open(struct inode *inode, struct file *file)
{
	return single_open(file, stress_show, NULL);
}

static const struct file_operations stress_fops = {
	.open = stress_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = stress_write,
};

static int __init mask_alloc_stress_init(void)
{
	struct dentry *dir = debugfs_lookup("mask_alloc", NULL);

	if (!dir)
		dir = debugfs_create_dir("mask_alloc", NULL);
	else
		dput(dir);	/* the directory lives as long as debugfs */
	debugfs_create_file("stress", 0600, dir, NULL, &stress_fops);
	return 0;
}
late_initcall_sync(mask_alloc_stress_init);
