/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the kernel names mm/mask_alloc.c uses.
 *
 * "Physical memory" is a malloc'd arena of ARENA_PAGES pages with a struct
 * page array; memblock, the buddy allocator and mm's alloc/free hooks are
 * small fakes in harness.c that track page state so that double frees, bad
 * refcounts and memblock use after memblock_free_all() are caught.
 *
 * Without HARNESS_PRODUCTION these fakes check page state as a kernel with
 * CONFIG_DEBUG_VM or check_pages_enabled does (bad_page(), VM_BUG_ON);
 * with it they do only what a kernel without those does (harness.c).
 *
 * Everything is single threaded, unless HARNESS_THREADS is defined (the
 * ThreadSanitizer build, tstress.c): then the spinlock is a real mutex,
 * atomics and READ_ONCE()/WRITE_ONCE() are real atomic accesses, the wait
 * queue really sleeps (on a condition variable, with jiffies of real time)
 * and the fakes in harness.c take their own locks.
 */
#ifndef MASK_HARNESS_SHIM_H
#define MASK_HARNESS_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <ctype.h>
#include <limits.h>
#include <errno.h>
#ifdef HARNESS_THREADS
#include <pthread.h>
#include <time.h>
#define HARNESS_TLS	__thread
#else
#define HARNESS_TLS
#endif

#define CONFIG_MASK_ALLOC 1
#define CONFIG_DEBUG_FS 1
#define CONFIG_FAIL_MASK_ALLOC 1	/* without FAULT_INJECTION_DEBUG_FS */
#define CONFIG_64BIT 1
#define CONFIG_MEMORY_FAILURE 1		/* as in Debian's kernel */

/* IS_ENABLED() as in include/linux/kconfig.h (no modules here). */
#define __ARG_PLACEHOLDER_1 0,
#define __take_second_arg(__ignored, val, ...) val
#define ____is_defined(arg1_or_junk)	__take_second_arg(arg1_or_junk 1, 0)
#define ___is_defined(val)		____is_defined(__ARG_PLACEHOLDER_##val)
#define __is_defined(x)			___is_defined(x)
#define IS_ENABLED(option)		__is_defined(option)

/* ---- types ---- */
typedef uint64_t u64;
typedef uint32_t u32;
typedef uint8_t u8;
typedef unsigned int gfp_t;
typedef u64 phys_addr_t;

#define U64_MAX		UINT64_MAX

/* ---- compiler / misc ---- */
#define __init
#define __initdata
#define __read_mostly
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __weak		__attribute__((weak))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#ifdef HARNESS_THREADS
#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* data_race(): reads ThreadSanitizer is told to ignore, as KCSAN is. */
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
#define data_race(expr) ({						\
	AnnotateIgnoreReadsBegin(__FILE__, __LINE__);			\
	__auto_type __v = (expr);					\
	AnnotateIgnoreReadsEnd(__FILE__, __LINE__);			\
	__v; })
#else
#define READ_ONCE(x)	(*(volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v) do { *(volatile typeof(x) *)&(x) = (v); } while (0)
#define data_race(expr)	(expr)
#endif
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define EXPORT_SYMBOL_GPL(sym)	extern typeof(sym) sym
#define SMP_CACHE_BYTES	64
#define NUMA_NO_NODE	(-1)
#ifndef EINVAL
#define EINVAL		22
#endif

/* ---- sizes and pages ---- */
#define SZ_64K		0x00010000ULL
#define SZ_1M		0x00100000ULL
#define SZ_16M		0x01000000ULL
#define SZ_64M		0x04000000ULL
#define SZ_2G		0x80000000ULL
#define SZ_4G		0x100000000ULL
#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define PAGE_ALIGN(x)	(((x) + PAGE_SIZE - 1) & ~((typeof(x))PAGE_SIZE - 1))
#define PHYS_ADDR_MAX	(~(phys_addr_t)0)
#define PFN_PHYS(x)	((phys_addr_t)(x) << PAGE_SHIFT)
#define PFN_DOWN(x)	((unsigned long)((x) >> PAGE_SHIFT))
#define PFN_UP(x)	((unsigned long)(((x) + PAGE_SIZE - 1) >> PAGE_SHIFT))
#define MAX_PAGE_ORDER	10

static inline unsigned int ilog2(unsigned long v)
{
	return 8 * sizeof(v) - 1 - __builtin_clzl(v);
}

#define MAX_ERRNO	4095
static inline void *ERR_PTR(long error)
{
	return (void *)error;
}

static inline long PTR_ERR(const void *ptr)
{
	return (long)ptr;
}

static inline bool IS_ERR(const void *ptr)
{
	return (unsigned long)ptr >= (unsigned long)-MAX_ERRNO;
}
#define DMA_BIT_MASK(n)	(((n) == 64) ? ~0ULL : ((1ULL << (n)) - 1))

#ifndef ARENA_BYTES
#define ARENA_BYTES	(64ULL << 20)
#endif
#define ARENA_PAGES	(ARENA_BYTES >> PAGE_SHIFT)
/*
 * Memory the fake machine has by default: the arena's first
 * HARNESS_MEM_BYTES; the rest is absent (memblock-reserved, never in the
 * buddy allocator) unless a boot asks for more (harness_boot_opts.mem).
 * The unit builds have a larger arena than memory, so that cases can boot
 * machines of several sizes (mask_zone_max() depends on it).
 */
#ifndef HARNESS_MEM_BYTES
#define HARNESS_MEM_BYTES	ARENA_BYTES
#endif

/* ---- gfp ---- */
#define __GFP_DMA		0x01u
#define __GFP_HIGHMEM		0x02u
#define __GFP_DMA32		0x04u
#define __GFP_MOVABLE		0x08u
#define GFP_ZONEMASK		(__GFP_DMA | __GFP_HIGHMEM | __GFP_DMA32 | __GFP_MOVABLE)
#define __GFP_HIGH		0x20u
#define __GFP_IO		0x40u
#define __GFP_FS		0x80u
#define __GFP_ZERO		0x100u
#define __GFP_DIRECT_RECLAIM	0x400u
#define __GFP_KSWAPD_RECLAIM	0x800u
#define __GFP_NOWARN		0x2000u
#define __GFP_RETRY_MAYFAIL	0x4000u
#define __GFP_NOFAIL		0x8000u
#define __GFP_NORETRY		0x10000u
#define __GFP_COMP		0x40000u
#define __GFP_ACCOUNT		0x400000u
#define __GFP_RECLAIM		(__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM)
#define GFP_ATOMIC	(__GFP_HIGH | __GFP_KSWAPD_RECLAIM)
#define GFP_NOWAIT	(__GFP_KSWAPD_RECLAIM)
#define GFP_KERNEL	(__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_DMA		__GFP_DMA
#define GFP_DMA32	__GFP_DMA32

static inline bool gfpflags_allow_blocking(gfp_t gfp)
{
	return gfp & __GFP_DIRECT_RECLAIM;
}

/* ---- harness reporting (harness.c) ---- */
void harness_warn(bool *once, const char *file, int line, const char *cond);
__printf(2, 3) void harness_log(char level, const char *fmt, ...);
__printf(1, 2) void harness_error(const char *fmt, ...);
extern HARNESS_TLS int harness_locks_held;

/* harness_warn() remembers @once, so that harness_reset() can re-arm it. */
#ifdef HARNESS_THREADS
#define HARNESS_WARN_FIRST(once) !__atomic_exchange_n(once, true, __ATOMIC_RELAXED)
#else
#define HARNESS_WARN_FIRST(once) (!*(once) && (*(once) = true))
#endif
#define WARN_ON_ONCE(cond) ({						\
	static bool __warned;						\
	bool __c = !!(cond);						\
	if (__c && HARNESS_WARN_FIRST(&__warned))			\
		harness_warn(&__warned, __FILE__, __LINE__, #cond);	\
	__c;								\
})

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif
#define pr_err(fmt, ...)	harness_log('E', pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	harness_log('W', pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	harness_log('I', pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn_ratelimited(fmt, ...) harness_log('W', pr_fmt(fmt), ##__VA_ARGS__)

/* ---- locking, atomics, scheduling ---- */
#ifdef HARNESS_THREADS
/*
 * A real lock.  There is one spinlock, so harness_locks_held (per thread)
 * tells whether it is held by the caller: a second lock is recursion.
 * HARNESS_BROKEN_LOCK drops the mutex, to show that TSan then complains.
 */
typedef struct { pthread_mutex_t m; } spinlock_t;
#define __SPIN_LOCK_UNLOCKED(x)	{ PTHREAD_MUTEX_INITIALIZER }
#ifdef HARNESS_BROKEN_LOCK
#define harness_mutex_lock(m)	((void)(m))
#define harness_mutex_unlock(m)	((void)(m))
#else
#define harness_mutex_lock(m)	pthread_mutex_lock(m)
#define harness_mutex_unlock(m)	pthread_mutex_unlock(m)
#endif
#define spin_lock_irqsave(l, flags) do {				\
	if (harness_locks_held)						\
		harness_error("recursive spinlock");			\
	harness_mutex_lock(&(l)->m);					\
	harness_locks_held++;						\
	(flags) = 0;							\
} while (0)
#define spin_unlock_irqrestore(l, flags) do {				\
	if (!harness_locks_held)					\
		harness_error("unlock of unlocked spinlock");		\
	harness_locks_held--;						\
	harness_mutex_unlock(&(l)->m);					\
	(void)(flags);							\
} while (0)
#define lockdep_assert_held(l) do {					\
	if (!harness_locks_held)					\
		harness_error("lock not held at %s:%d", __FILE__, __LINE__); \
} while (0)
#else
typedef struct { int locked; } spinlock_t;
#define __SPIN_LOCK_UNLOCKED(x)	{ 0 }
#define spin_lock_irqsave(l, flags) do {				\
	if ((l)->locked)						\
		harness_error("recursive spinlock");			\
	(l)->locked = 1;						\
	harness_locks_held++;						\
	(flags) = 0;							\
} while (0)
#define spin_unlock_irqrestore(l, flags) do {				\
	if (!(l)->locked)						\
		harness_error("unlock of unlocked spinlock");		\
	(l)->locked = 0;						\
	harness_locks_held--;						\
	(void)(flags);							\
} while (0)
#define lockdep_assert_held(l) do {					\
	if (!(l)->locked)						\
		harness_error("lock not held at %s:%d", __FILE__, __LINE__); \
} while (0)
#endif
#define might_sleep_if(cond) do {					\
	if ((cond) && harness_locks_held)				\
		harness_error("might sleep with a lock held");	\
} while (0)

typedef struct { long counter; } atomic_long_t;
#define ATOMIC_LONG_INIT(i)	{ (i) }
#ifdef HARNESS_THREADS
#define atomic_long_inc(v)	((void)__atomic_fetch_add(&(v)->counter, 1, __ATOMIC_RELAXED))
#define atomic_long_read(v)	__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
/* Counters that the kernel keeps per cpu or atomically. */
#define HARNESS_COUNT(x, n)	((void)__atomic_fetch_add(&(x), (n), __ATOMIC_RELAXED))
#else
#define atomic_long_inc(v)	((void)((v)->counter++))
#define atomic_long_read(v)	((v)->counter)
#define HARNESS_COUNT(x, n)	((void)((x) += (n)))
#endif

struct task_struct { char comm[16]; };
extern struct task_struct harness_current;
#define current (&harness_current)

/* ---- jiffies ---- */
#define HZ 250
#ifdef HARNESS_THREADS
/* Threads sleep in real time (harness_wait_step), so jiffies are the clock's. */
unsigned long harness_jiffies(void);
#define jiffies harness_jiffies()
#else
extern unsigned long jiffies;
#endif
static inline unsigned int jiffies_to_msecs(unsigned long j)
{
	return (unsigned int)(j * 1000 / HZ);
}

static inline unsigned long msecs_to_jiffies(u64 ms)
{
	return (unsigned long)DIV_ROUND_UP(ms * HZ, 1000);
}

#ifdef HARNESS_THREADS
/*
 * Wait queues that really sleep: the condition is checked under the
 * queue's mutex and wake_up() broadcasts under it, so no wakeup is lost
 * (prepare_to_wait() in the kernel).  A jiffy is 1000 / HZ ms of real time.
 */
typedef struct { pthread_mutex_t m; pthread_cond_t c; } wait_queue_head_t;
#define DECLARE_WAIT_QUEUE_HEAD(name)					\
	wait_queue_head_t name = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER }
void harness_wait_begin(wait_queue_head_t *wq, long timeout, struct timespec *deadline);
long harness_wait_step(wait_queue_head_t *wq, const struct timespec *deadline);
void harness_wait_end(wait_queue_head_t *wq);
void harness_wake_up(wait_queue_head_t *wq);
#define wake_up(wq)	harness_wake_up(wq)
#define wq_has_sleeper(wq)	true
#define wait_event_timeout(wq, condition, timeout) ({			\
	long __ret = (timeout);						\
	struct timespec __dl;						\
	harness_wait_begin(&(wq), __ret, &__dl);			\
	while (!(condition) && __ret > 0)				\
		__ret = harness_wait_step(&(wq), &__dl);		\
	if (!(condition))						\
		__ret = 0;						\
	else if (!__ret)						\
		__ret = 1;						\
	harness_wait_end(&(wq));					\
	__ret;								\
})
#else
/* ---- wait queues: a wait "sleeps" by advancing jiffies (harness.c) ---- */
typedef struct { int unused; } wait_queue_head_t;
#define DECLARE_WAIT_QUEUE_HEAD(name) wait_queue_head_t name = { 0 }
long harness_wait(wait_queue_head_t *wq, long timeout);
void harness_wake_up(wait_queue_head_t *wq);
#define wake_up(wq)	harness_wake_up(wq)
#define wq_has_sleeper(wq)	true
#define wait_event_timeout(wq, condition, timeout) ({			\
	long __ret = (timeout);						\
	if (condition) {						\
		if (!__ret)						\
			__ret = 1;					\
	} else {							\
		__ret = harness_wait(&(wq), __ret);			\
		if (condition) {					\
			if (!__ret)					\
				__ret = 1;				\
		} else {						\
			/* back to sleep until the deadline */		\
			jiffies += __ret;				\
			__ret = 0;					\
		}							\
	}								\
	__ret;								\
})
#endif

#ifndef ERESTARTSYS
#define ERESTARTSYS	512
#endif
#ifdef HARNESS_THREADS
/* No task of the threaded stress gets a fatal signal. */
#define wait_event_killable_timeout(wq, condition, timeout)		\
	wait_event_timeout(wq, condition, timeout)
#else
/*
 * A fatal signal is a flag (harness_fatal_signal, set by a case or by its
 * wait callback): pending before the wait, or arriving during it, it ends
 * the wait with -ERESTARTSYS unless the condition came true, as
 * ___wait_event() does for TASK_KILLABLE.
 */
extern bool harness_fatal_signal;
#define wait_event_killable_timeout(wq, condition, timeout) ({		\
	long __ret = (timeout);						\
	if (condition) {						\
		if (!__ret)						\
			__ret = 1;					\
	} else if (harness_fatal_signal) {				\
		__ret = -ERESTARTSYS;					\
	} else {							\
		__ret = harness_wait(&(wq), __ret);			\
		if (condition) {					\
			if (!__ret)					\
				__ret = 1;				\
		} else if (harness_fatal_signal) {			\
			__ret = -ERESTARTSYS;				\
		} else {						\
			jiffies += __ret;				\
			__ret = 0;					\
		}							\
	}								\
	__ret;								\
})
#endif

/* ---- static keys ---- */
struct static_key_false { bool enabled; };
#define DEFINE_STATIC_KEY_FALSE(name)	struct static_key_false name = { false }
#define DECLARE_STATIC_KEY_FALSE(name)	extern struct static_key_false name
#define static_branch_unlikely(k)	((k)->enabled)
#define static_branch_enable(k)		((void)((k)->enabled = true))

/* ---- vm events ---- */
enum vm_event_item {
	MASK_ALLOC, MASK_FREE, MASK_BITMAP_SKIP, MASK_WAIT, MASK_HIGHER,
	MASK_LOW_WASTE, MASK_HIGH_WASTE, MASK_FAIL, NR_VM_EVENT_ITEMS
};
extern unsigned long harness_vm_events[NR_VM_EVENT_ITEMS];
#define count_vm_event(e)	HARNESS_COUNT(harness_vm_events[e], 1)
#define count_vm_events(e, n)	HARNESS_COUNT(harness_vm_events[e], (n))

/* ---- bitmaps (bitmap.c) ---- */
#define BITS_PER_LONG	64
#define BITS_TO_LONGS(n) DIV_ROUND_UP((n), BITS_PER_LONG)
bool test_bit(unsigned long nr, const unsigned long *addr);
void __set_bit(unsigned long nr, unsigned long *addr);
void __clear_bit(unsigned long nr, unsigned long *addr);
bool __test_and_clear_bit(unsigned long nr, unsigned long *addr);
void bitmap_set(unsigned long *map, unsigned long start, unsigned long nbits);
void bitmap_clear(unsigned long *map, unsigned long start, unsigned long nbits);
void bitmap_zero(unsigned long *map, unsigned long nbits);
void bitmap_fill(unsigned long *map, unsigned long nbits);
unsigned long find_next_bit(const unsigned long *addr, unsigned long size,
			    unsigned long offset);
unsigned long find_next_zero_bit(const unsigned long *addr, unsigned long size,
				 unsigned long offset);
unsigned long find_first_bit(const unsigned long *addr, unsigned long size);
unsigned long find_first_zero_bit(const unsigned long *addr, unsigned long size);
unsigned long find_last_bit(const unsigned long *addr, unsigned long size);
#define for_each_set_bit(bit, addr, size) \
	for ((bit) = 0; ((bit) = find_next_bit((addr), (size), (bit))) < (size); (bit)++)
unsigned long bitmap_find_next_zero_area_off(unsigned long *map,
					     unsigned long size,
					     unsigned long start,
					     unsigned int nr,
					     unsigned long align_mask,
					     unsigned long align_offset);

#define BITMAP_LAST_WORD_MASK(nbits) (~0UL >> (-(nbits) & (BITS_PER_LONG - 1)))
static inline unsigned long __ffs(unsigned long w)
{
	return __builtin_ctzl(w);
}

static inline unsigned long __fls(unsigned long w)
{
	return BITS_PER_LONG - 1 - __builtin_clzl(w);
}

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << (BITS_PER_LONG - __builtin_clzl(n - 1));
}

static inline unsigned int hweight_long(unsigned long w)
{
	return __builtin_popcountl(w);
}

#define max3(a, b, c)	max(max(a, b), c)
#define round_up(x, y)	((((x) - 1) | ((typeof(x))(y) - 1)) + 1)
#define round_down(x, y) ((x) & ~((typeof(x))(y) - 1))

/* ---- struct page and the arena (harness.c) ---- */
#define PG_reserved	0x1UL
#define PG_head		0x2UL
#define PG_tail		0x4UL	/* the kernel keeps it in compound_head */
#define PG_hwpoison	0x8UL	/* memory_failure() marked the page */

enum harness_page_state {
	HPS_RESERVED,	/* memblock reserved, refcount 1 */
	HPS_FREE,	/* went through free_pages_prepare() */
	HPS_ALLOCATED,	/* went through post_alloc_hook() */
};

struct page {
	unsigned long flags;
	int _refcount;
	int _mapcount;
	unsigned long private;
	unsigned int compound_order;	/* head of a compound page */
	enum harness_page_state state;
	int tag;			/* emulated alloc tag reference */
	bool in_buddy;			/* free in the fake buddy allocator */
};

extern struct page *harness_pages;
extern unsigned char *harness_mem;
extern unsigned long max_low_pfn;

struct page *pfn_to_page(unsigned long pfn);
unsigned long page_to_pfn(const struct page *page);
static inline phys_addr_t page_to_phys(const struct page *page)
{
	return PFN_PHYS(page_to_pfn(page));
}

void *page_address(const struct page *page);
struct page *virt_to_page(const void *addr);

static inline unsigned int get_order(unsigned long size)
{
	unsigned int order = 0;

	size = (size - 1) >> PAGE_SHIFT;
	while (size) {
		order++;
		size >>= 1;
	}
	return order;
}

static inline void set_page_count(struct page *page, int v)
{
	page->_refcount = v;
}

static inline int page_ref_count(const struct page *page)
{
	return page->_refcount;
}

static inline void ClearPageReserved(struct page *page)
{
	page->flags &= ~PG_reserved;
}

static inline void clear_page_tag_ref(struct page *page)
{
	page->tag = 0;
}

static inline bool PageHWPoison(const struct page *page)
{
	return page->flags & PG_hwpoison;
}

static inline void SetPageHWPoison(struct page *page)
{
	page->flags |= PG_hwpoison;
}

static inline void ClearPageHWPoison(struct page *page)
{
	page->flags &= ~PG_hwpoison;
}

/* No KMSAN and no memcg in the harness: nothing to do, every charge succeeds. */
static inline void kmsan_alloc_page(struct page *page, unsigned int order, gfp_t gfp)
{
}

static inline int memcg_kmem_charge_page(struct page *page, gfp_t gfp, int order)
{
	return 0;
}

/*
 * Memory allocation profiling (alloc_hooks() in <linux/alloc_tag.h>) is off:
 * no tag to find, nothing to subtract.  The per-page reference (page->tag)
 * is still checked at free.
 */
struct alloc_tag;

static inline struct alloc_tag *pgalloc_tag_get(struct page *page)
{
	return NULL;
}

static inline void pgalloc_tag_sub_pages(struct alloc_tag *tag, unsigned int nr)
{
}

#ifndef alloc_hooks
#define alloc_hooks(_do_alloc)	(_do_alloc)
#endif

bool put_page_testzero(struct page *page);
void get_page(struct page *page);
void put_page(struct page *page);
void set_page_refcounted(struct page *page);
void post_alloc_hook(struct page *page, unsigned int order, gfp_t gfp);
void prep_new_page(struct page *page, unsigned int order, gfp_t gfp,
		   unsigned int alloc_flags);
bool free_pages_prepare(struct page *page, unsigned int order);
struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order);
#define alloc_pages_node_noprof	alloc_pages_node
void __free_pages(struct page *page, unsigned int order);
void split_page(struct page *page, unsigned int order);
void __free_pages_ok(struct page *page, unsigned int order);

/* ---- memblock (harness.c) ---- */
#define MEMBLOCK_NONE	0
int memblock_reserve(phys_addr_t base, phys_addr_t size);
void *memblock_alloc(phys_addr_t size, phys_addr_t align);
void memblock_free(void *ptr, size_t size);
int memblock_phys_free(phys_addr_t base, phys_addr_t size);
void harness_next_free_range(u64 *idx, phys_addr_t *start, phys_addr_t *end);
#define for_each_free_mem_range(i, nid, flags, p_start, p_end, p_nid)	\
	for ((void)(nid), (void)(flags), (void)(p_nid), i = 0,		\
	     harness_next_free_range(&i, p_start, p_end);		\
	     i != U64_MAX; harness_next_free_range(&i, p_start, p_end))
void accept_memory(phys_addr_t start, unsigned long size);

/* kstrtoull(): whole string, one trailing newline allowed, -ERANGE on overflow. */
int kstrtoull(const char *s, unsigned int base, u64 *res);
#define fallthrough	__attribute__((__fallthrough__))

/* ---- fault injection: should_fail_ex() is a fake in harness.c ---- */
struct fault_attr {
	unsigned long probability;	/* percent */
	unsigned long interval;		/* ignored */
	int times;			/* -1: no limit */
	int space;			/* size to let through first */
	unsigned long verbose;
	bool task_filter;		/* ignored */
};
#define FAULT_ATTR_INITIALIZER	{ .interval = 1, .times = 1, .verbose = 2 }
enum fault_flags { FAULT_NOWARN = 1 << 0 };
bool should_fail_ex(struct fault_attr *attr, long size, int flags);
int setup_fault_attr(struct fault_attr *attr, char *str);
extern unsigned long harness_should_fail_calls;
#define EXPORT_SYMBOL_IF_KUNIT(sym)	extern typeof(sym) sym

/* ---- init calls and parameters ---- */
/* Early parameters go to a section; harness_param() finds them by name. */
struct harness_param {
	const char *name;
	int (*fn)(char *s);
};
#define early_param(str, fn)						\
	static const struct harness_param __harness_param_##fn		\
	__attribute__((used, section("harness_params"),		\
		       aligned(sizeof(void *)))) = { str, fn }
int (*harness_param(const char *name))(char *s);
extern int (*harness_late_initcall)(void);
#define late_initcall(fn)	int (*harness_late_initcall)(void) = fn

/* ---- debugfs / seq_file ---- */
struct seq_file {
	char *buf;
	size_t size;
	size_t count;
};
__printf(2, 3) void seq_printf(struct seq_file *m, const char *fmt, ...);
struct dentry;
struct file_operations {
	int (*show)(struct seq_file *m, void *v);
	int (*get)(void *data, u64 *val);
	int (*set)(void *data, u64 val);
};
#define DEFINE_SHOW_ATTRIBUTE(__name)					\
	static const struct file_operations __name ## _fops = {	\
		.show = __name ## _show,				\
	}
#define DEFINE_DEBUGFS_ATTRIBUTE(__fops, __get, __set, __fmt)		\
	static const struct file_operations __fops = {			\
		.get = __get, .set = __set,				\
	}
struct dentry *debugfs_create_dir(const char *name, struct dentry *parent);
struct dentry *debugfs_create_file(const char *name, unsigned short mode,
				   struct dentry *parent, void *data,
				   const struct file_operations *fops);
#define debugfs_create_file_unsafe debugfs_create_file

#endif /* MASK_HARNESS_SHIM_H */
