// SPDX-License-Identifier: GPL-2.0
/*
 * The fake kernel under mm/mask_alloc.c: a physical memory arena with a
 * struct page array, a page-granular memblock, a trivial buddy allocator
 * over whatever memblock_free_all() released, and state-tracking
 * versions of post_alloc_hook()/free_pages_prepare() and friends.
 *
 * With HARNESS_THREADS (the ThreadSanitizer build) the counters are atomic,
 * the log ring and the fake buddy allocator have their own locks, and
 * waits sleep on a condition variable.  harness_reset() puts the fake
 * kernel back to its state before the first boot, for the fuzzer, which
 * runs many inputs in one process.
 */
#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>

#include "harness.h"

struct page *harness_pages;
unsigned char *harness_mem;
unsigned long max_low_pfn;
#ifndef HARNESS_THREADS
unsigned long jiffies;
#endif
struct task_struct harness_current = { .comm = "harness" };
unsigned long harness_vm_events[NR_VM_EVENT_ITEMS];
HARNESS_TLS int harness_locks_held;

unsigned long harness_warnings, harness_errors, harness_bad_pages;
bool harness_verbose;

bool harness_buddy_fail;
unsigned long harness_buddy_floor_pfn;
gfp_t harness_buddy_last_gfp;
unsigned long harness_buddy_calls;

harness_wait_cb_t harness_wait_cb;
long harness_wait_cb_delay = 10;
unsigned long harness_wait_calls, harness_wakeups;
unsigned long harness_wait_limit = 100000;

static unsigned char reserved[ARENA_PAGES];
static bool memblock_active;

#ifdef HARNESS_THREADS
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t zone_lock = PTHREAD_MUTEX_INITIALIZER;
#define LOCK(l)		pthread_mutex_lock(&(l))
#define UNLOCK(l)	pthread_mutex_unlock(&(l))
#else
#define LOCK(l)		do { } while (0)
#define UNLOCK(l)	do { } while (0)
#endif

bool harness_fatal_signal;
void (*harness_release_cb)(void);
void (*harness_release_watch)(struct page *page, unsigned long n);

/* mask_pool_release(), then harness_release_watch, then harness_release_cb once. */
static void pool_release(struct page *page, unsigned long n)
{
	void (*cb)(void) = harness_release_cb;

	mask_pool_release(page, n);
	if (harness_release_watch)
		harness_release_watch(page, n);
	if (cb) {
		harness_release_cb = NULL;
		cb();
	}
}

struct harness_hook_call harness_hook_log[HARNESS_HOOK_LOG];
unsigned long harness_hook_nr;

static void hook_log(char what, struct page *page, unsigned int order)
{
	LOCK(log_lock);
	harness_hook_log[harness_hook_nr++ % HARNESS_HOOK_LOG] =
		(struct harness_hook_call){ what, page_to_pfn(page), order };
	UNLOCK(log_lock);
}

void harness_hook_log_clear(void)
{
	memset(harness_hook_log, 0, sizeof(harness_hook_log));
	harness_hook_nr = 0;
}

/* WARN_ON_ONCE() flags that fired, re-armed by harness_reset(). */
static bool *warn_flags[64];
static unsigned int warn_nr;

/* ---------------- diagnostics ---------------- */

#define LOG_LINES	128
#define LOG_LEN		256
static char log_ring[LOG_LINES][LOG_LEN];
static unsigned int log_next;

void harness_log(char level, const char *fmt, ...)
{
	char *line;
	va_list ap;
	int n;

	LOCK(log_lock);
	line = log_ring[log_next++ % LOG_LINES];
	n = snprintf(line, LOG_LEN, "<%c> ", level);
	va_start(ap, fmt);
	vsnprintf(line + n, LOG_LEN - n, fmt, ap);
	va_end(ap);
	if (harness_verbose)
		fprintf(stderr, "  log: %s", line);
	UNLOCK(log_lock);
}

bool harness_log_contains(const char *s)
{
	unsigned int i;

	for (i = 0; i < LOG_LINES; i++)
		if (strstr(log_ring[i], s))
			return true;
	return false;
}

void harness_log_clear(void)
{
	memset(log_ring, 0, sizeof(log_ring));
	log_next = 0;
}

void harness_warn(bool *once, const char *file, int line, const char *cond)
{
	unsigned int i;

	HARNESS_COUNT(harness_warnings, 1);
	LOCK(log_lock);
	for (i = 0; i < warn_nr && warn_flags[i] != once; i++)
		;
	if (i == warn_nr && warn_nr < ARRAY_SIZE(warn_flags))
		warn_flags[warn_nr++] = once;
	UNLOCK(log_lock);
	harness_log('W', "WARNING: %s:%d: %s\n", file, line, cond);
}

void harness_error(const char *fmt, ...)
{
	va_list ap;

	HARNESS_COUNT(harness_errors, 1);
	fprintf(stderr, "  HARNESS ERROR: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Only the debug kernel's free_pages_prepare() calls bad_page(). */
#ifndef HARNESS_PRODUCTION
static void bad_page(struct page *page, const char *why)
{
	HARNESS_COUNT(harness_bad_pages, 1);
	if (harness_verbose)
		fprintf(stderr, "  bad page pfn %lu: %s\n", page_to_pfn(page), why);
}
#endif

/* ---------------- arena ---------------- */

unsigned long harness_mem_pages;

void harness_arena_init_mem(phys_addr_t mem)
{
	unsigned long pfn;

	if (!mem || mem > ARENA_BYTES)
		mem = mem ? ARENA_BYTES : HARNESS_MEM_BYTES;
	harness_mem_pages = PFN_DOWN(mem);

	/* A second boot in the same process (the fuzzer) reuses the arena. */
	if (!harness_mem)
		harness_mem = calloc(1, ARENA_BYTES);
	if (!harness_pages)
		harness_pages = calloc(ARENA_PAGES, sizeof(struct page));
	if (!harness_mem || !harness_pages) {
		fprintf(stderr, "out of memory for the arena\n");
		exit(2);
	}
	/* Like __init_single_page() + reserve_bootmem_region(). */
	for (pfn = 0; pfn < ARENA_PAGES; pfn++) {
		struct page *p = &harness_pages[pfn];

		memset(p, 0, sizeof(*p));
		p->flags = PG_reserved;
		p->_refcount = 1;
		p->_mapcount = -1;
		p->state = HPS_RESERVED;
		p->tag = -1;	/* must be cleared before the first free */
	}
	/* The arena above the machine's memory is absent: reserved for good. */
	memset(reserved, 0, sizeof(reserved));
	memset(reserved + harness_mem_pages, 1, ARENA_PAGES - harness_mem_pages);
	memblock_active = true;
	max_low_pfn = harness_mem_pages;
	harness_buddy_floor_pfn = 0;
}

void harness_arena_init(void)
{
	harness_arena_init_mem(0);
}

struct page *pfn_to_page(unsigned long pfn)
{
	if (pfn >= ARENA_PAGES) {
		harness_error("%s(%lu) outside the arena", __func__, pfn);
		abort();
	}
	return &harness_pages[pfn];
}

unsigned long page_to_pfn(const struct page *page)
{
	if (page < harness_pages || page >= harness_pages + ARENA_PAGES) {
		harness_error("%s() of a page outside the arena", __func__);
		abort();
	}
	return page - harness_pages;
}

void *page_address(const struct page *page)
{
	return harness_mem + (page_to_pfn(page) << PAGE_SHIFT);
}

struct page *virt_to_page(const void *addr)
{
	const unsigned char *a = addr;

	if (a < harness_mem || a >= harness_mem + ARENA_BYTES) {
		harness_error("%s() of an address outside the arena", __func__);
		abort();
	}
	return &harness_pages[(a - harness_mem) >> PAGE_SHIFT];
}

/* ---------------- memblock ---------------- */

static void memblock_check(const char *what)
{
	if (!memblock_active)
		harness_error("%s() after memblock_free_all()", what);
}

int memblock_reserve(phys_addr_t base, phys_addr_t size)
{
	unsigned long pfn;

	memblock_check("memblock_reserve");
	for (pfn = PFN_DOWN(base); pfn < PFN_UP(base + size) && pfn < ARENA_PAGES; pfn++)
		reserved[pfn] = 1;
	return 0;
}

int memblock_phys_free(phys_addr_t base, phys_addr_t size)
{
	unsigned long pfn;

	memblock_check("memblock_phys_free");
	for (pfn = PFN_DOWN(base); pfn < PFN_UP(base + size) && pfn < ARENA_PAGES; pfn++)
		reserved[pfn] = 0;
	return 0;
}

bool harness_memblock_is_reserved(unsigned long pfn)
{
	return reserved[pfn];
}

/* Top-down, like the default memblock allocator. */
void *memblock_alloc(phys_addr_t size, phys_addr_t align)
{
	unsigned long nr = PFN_UP(size), pfn, i;

	(void)align;
	memblock_check("memblock_alloc");
	for (pfn = ARENA_PAGES - nr + 1; pfn-- > 0; ) {
		for (i = 0; i < nr && !reserved[pfn + i]; i++)
			;
		if (i == nr) {
			memset(reserved + pfn, 1, nr);
			memset(harness_mem + PFN_PHYS(pfn), 0, nr * PAGE_SIZE);
			return harness_mem + PFN_PHYS(pfn);
		}
	}
	return NULL;
}

void memblock_free(void *ptr, size_t size)
{
	memblock_phys_free((unsigned char *)ptr - harness_mem, size);
}

void harness_next_free_range(u64 *idx, phys_addr_t *start, phys_addr_t *end)
{
	unsigned long pfn = *idx, e;

	while (pfn < ARENA_PAGES && reserved[pfn])
		pfn++;
	if (pfn >= ARENA_PAGES) {
		*idx = U64_MAX;
		return;
	}
	for (e = pfn; e < ARENA_PAGES && !reserved[e]; e++)
		;
	*start = PFN_PHYS(pfn);
	*end = PFN_PHYS(e);
	*idx = e;
}

void accept_memory(phys_addr_t start, unsigned long size)
{
	(void)start;
	(void)size;
}

/* Like mm's memblock_free_all(): every unreserved page goes to buddy. */
void harness_memblock_free_all(void)
{
	unsigned long pfn;

	memblock_check("memblock_free_all");
	for (pfn = 0; pfn < ARENA_PAGES; pfn++) {
		struct page *p = &harness_pages[pfn];

		if (reserved[pfn])
			continue;
		p->flags &= ~PG_reserved;
		p->_refcount = 0;
		p->tag = 0;
		p->state = HPS_FREE;
		p->in_buddy = true;
	}
	memblock_active = false;
}

int kstrtoull(const char *s, unsigned int base, u64 *res)
{
	unsigned long long v;
	char *end;

	if (!*s || isspace((unsigned char)*s) || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || (*end && !(end[0] == '\n' && !end[1])))
		return -EINVAL;
	*res = v;
	return 0;
}

/* ---------------- page state hooks ---------------- */

#ifdef HARNESS_PRODUCTION
const bool harness_production = true;
#else
const bool harness_production;
#endif

/*
 * put_page_testzero(): VM_BUG_ON_PAGE(page_ref_count(page) == 0) and then
 * page_ref_dec_and_test().  Without CONFIG_DEBUG_VM (and without
 * CONFIG_DEBUG_PAGE_REF) a refcount of 0 just goes to -1.
 */
bool put_page_testzero(struct page *page)
{
#ifndef HARNESS_PRODUCTION
	if (page->_refcount <= 0) {
		harness_error("%s() on pfn %lu with refcount %d", __func__,
			      page_to_pfn(page), page->_refcount);
		return false;
	}
#endif
	return --page->_refcount == 0;
}

/* folio_get(): the overflow check is a VM_BUG_ON_FOLIO. */
void get_page(struct page *page)
{
#ifndef HARNESS_PRODUCTION
	if (page->_refcount <= 0)
		harness_error("%s() on a free page", __func__);
#endif
	page->_refcount++;
}

/* set_page_refcounted(): both checks are VM_BUG_ON_PAGE. */
void set_page_refcounted(struct page *page)
{
#ifndef HARNESS_PRODUCTION
	if (page->flags & PG_tail)
		harness_error("%s() on a tail page", __func__);
	if (page->_refcount)
		harness_error("%s() on pfn %lu with refcount %d", __func__,
			      page_to_pfn(page), page->_refcount);
#endif
	page->_refcount = 1;
}

void post_alloc_hook(struct page *page, unsigned int order, gfp_t gfp)
{
	unsigned long i, n = 1UL << order;

	if (harness_locks_held)
		harness_error("%s() with a spinlock held", __func__);
	hook_log('A', page, order);
	for (i = 0; i < n; i++) {
		struct page *p = page + i;

		/*
		 * Not a kernel check: the allocator must hand out only pages
		 * it holds free.  In production a refcount of 0 may have been
		 * taken below 0 by a double put (set_page_refcounted() then
		 * sets it to 1, as in the kernel), so only the state counts.
		 */
		if (p->state != HPS_FREE || p->in_buddy ||
		    (!harness_production && p->_refcount) ||
		    (p->flags & PG_reserved))
			harness_error("%s() on busy pfn %lu (state %d ref %d)", __func__,
				      page_to_pfn(p), p->state, p->_refcount);
		p->state = HPS_ALLOCATED;
		p->private = 0;
		p->tag = i == 0;
		if (gfp & __GFP_ZERO)
			memset(page_address(p), 0, PAGE_SIZE);
	}
}

void prep_new_page(struct page *page, unsigned int order, gfp_t gfp,
		   unsigned int alloc_flags)
{
	unsigned long i;

	(void)alloc_flags;
	post_alloc_hook(page, order, gfp);
	set_page_refcounted(page);
	if (order && (gfp & __GFP_COMP)) {
		page->flags |= PG_head;
		page->compound_order = order;
		for (i = 1; i < (1UL << order); i++)
			page[i].flags |= PG_tail;
	}
}

/*
 * The allocator's own check of a pool range before anything touches it
 * (mask_pool_free_ok() of mm/mask_alloc.c).  Called where patch 0005
 * ("mm: route GFP_DMA allocations and pool frees through the mask pool")
 * calls it in free_pages_prepare(); keep the two in step.
 */
static bool pool_free_ok(struct page *page, unsigned long n)
{
	if (!mask_pool_page(page))
		return true;
	return mask_pool_free_ok(page, n);
}

/* init_on_free, which the kernel does in kernel_init_pages(). */
static void poison_freed(struct page *page)
{
#if !defined(HARNESS_BENCH) && !defined(HARNESS_NO_POISON)
	/* the benchmark's arena is not backed */
	memset(page_address(page), 0x6b, PAGE_SIZE);
#else
	(void)page;
#endif
}

/* The PAGE_FLAGS_CHECK_AT_PREP bits of the harness's flags. */
#define HARNESS_FLAGS_AT_PREP	(PG_reserved | PG_head)

#ifdef HARNESS_PRODUCTION
/*
 * free_pages_prepare() of 6.12 (mm/page_alloc.c) with the series applied,
 * in a kernel without CONFIG_DEBUG_VM and with check_pages_enabled off:
 * VM_BUG_ON_PAGE() is compiled out and free_page_is_bad() is never
 * called, so nothing about the page's state is checked.
 * mem_debugging_and_hardening_init() turns check_pages_enabled on with
 * init_on_alloc, init_on_free, page poisoning or debug_pagealloc; Debian's
 * CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y does, so this is Debian booted with
 * init_on_alloc=0, or a kernel built without that default.  The 0x6b
 * init_on_free fill stays all the same: it shows a page freed by mistake.
 * Step by step:
 *
 *   VM_BUG_ON_PAGE(PageTail(page))            compiled out
 *   mask_pool_page(page)                      mask_pool_free_ok(), if
 *                                             mm/mask_alloc.c has it
 *   PageHWPoison(page) && !order              return false, page kept out
 *   VM_BUG_ON_PAGE(compound && order differs) compiled out
 *   order > 0: each page + i                  free_tail_page_prepare() if
 *                                             compound (clears the tail
 *                                             link, checks nothing), then
 *                                             flags &= ~CHECK_AT_PREP
 *   page                                      flags &= ~CHECK_AT_PREP,
 *                                             private = 0
 *   kernel_init_pages()                       init_on_free: here 0x6b
 *   mask_pool_page(page)                      mask_pool_release(), false
 */
bool free_pages_prepare(struct page *page, unsigned int order)
{
	unsigned long i, n = 1UL << order;
	bool compound = page->flags & (PG_head | PG_tail);	/* PageCompound() */

	if (harness_locks_held)
		harness_error("%s() with a spinlock held", __func__);
	hook_log('F', page, order);
	if (!pool_free_ok(page, n))
		return false;
	if (PageHWPoison(page) && !order) {
		/* "Do not let hwpoison pages hit pcplists/buddy" */
		clear_page_tag_ref(page);
		return false;
	}
	if (compound && order)
		page->compound_order = 0;	/* page[1].flags &= ~PAGE_FLAGS_SECOND */
	for (i = 1; i < n; i++) {
		struct page *p = page + i;

		if (compound)
			p->flags &= ~PG_tail;	/* free_tail_page_prepare() */
		p->flags &= ~HARNESS_FLAGS_AT_PREP;
	}
	page->flags &= ~HARNESS_FLAGS_AT_PREP;
	page->private = 0;
	for (i = 0; i < n; i++) {
		struct page *p = page + i;

		/* The harness's own bookkeeping, no kernel state. */
		p->state = HPS_FREE;
		p->tag = 0;
		poison_freed(p);
	}
	if (mask_pool_page(page)) {
		pool_release(page, n);
		return false;
	}
	return true;
}
#else
/*
 * free_pages_prepare() as a kernel with CONFIG_DEBUG_VM or
 * check_pages_enabled runs it: a tail page or a wrong compound order is
 * a VM_BUG_ON, and any page in a bad state (free_page_is_bad(): refcount,
 * mapcount, PG_reserved) is reported with bad_page() and not freed.  The
 * harness also refuses pages it knows are free already (a double free,
 * which a real kernel only sees for buddy pages) and leaked alloc tags.
 */
bool free_pages_prepare(struct page *page, unsigned int order)
{
	unsigned long i, n = 1UL << order;
	bool compound = page->flags & PG_head;
	int bad = 0;

	if (harness_locks_held)
		harness_error("%s() with a spinlock held", __func__);
	hook_log('F', page, order);
	if (page->flags & PG_tail) {
		bad_page(page, "tail page freed");
		return false;
	}
	if (!pool_free_ok(page, n))
		return false;
	if (PageHWPoison(page) && !order) {
		clear_page_tag_ref(page);
		return false;
	}
	if (compound && page->compound_order != order) {
		bad_page(page, "compound order mismatch");
		return false;
	}
	for (i = 0; i < n; i++) {
		struct page *p = page + i;

		if (compound && i && !(p->flags & PG_tail)) {
			bad_page(p, "compound tail without PG_tail");
			bad++;
		}
		if ((p->flags & PG_reserved) || p->_refcount || p->_mapcount != -1 ||
		    p->in_buddy || p->state == HPS_FREE) {
			bad_page(p, "bad state at free");
			bad++;
		}
		if (p->tag < 0 || (i && p->tag)) {
			bad_page(p, "alloc tag not cleared / would leak");
			bad++;
		}
	}
	if (bad)
		return false;
	for (i = 0; i < n; i++) {
		struct page *p = page + i;

		p->flags &= ~(PG_head | PG_tail);
		p->compound_order = 0;
		p->state = HPS_FREE;
		p->tag = 0;
		p->private = 0;
		poison_freed(p);
	}
	if (mask_pool_page(page)) {
		pool_release(page, n);
		return false;
	}
	return true;
}
#endif

/* ---------------- buddy ---------------- */

unsigned long harness_buddy_free_pages(void)
{
	unsigned long pfn, n = 0;

	for (pfn = 0; pfn < ARENA_PAGES; pfn++)
		n += harness_pages[pfn].in_buddy;
	return n;
}

struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{
	unsigned long n = 1UL << order, pfn, i;

	(void)nid;
	if (harness_locks_held)
		harness_error("%s() with a spinlock held", __func__);
	LOCK(zone_lock);
	harness_buddy_calls++;
	harness_buddy_last_gfp = gfp;
	if (harness_buddy_fail || order > MAX_PAGE_ORDER) {
		UNLOCK(zone_lock);
		return NULL;
	}
	pfn = (harness_buddy_floor_pfn + n - 1) & ~(n - 1);
	for (; pfn + n <= ARENA_PAGES; pfn += n) {
		for (i = 0; i < n && harness_pages[pfn + i].in_buddy; i++)
			;
		if (i < n)
			continue;
		for (i = 0; i < n; i++)
			harness_pages[pfn + i].in_buddy = false;
		UNLOCK(zone_lock);
		prep_new_page(&harness_pages[pfn], order, gfp, 0);
		return &harness_pages[pfn];
	}
	UNLOCK(zone_lock);
	return NULL;
}

void free_unref_page(struct page *page, unsigned int order)
{
	unsigned long i;

	if (free_pages_prepare(page, order)) {
		LOCK(zone_lock);
		for (i = 0; i < (1UL << order); i++)
			page[i].in_buddy = true;
		UNLOCK(zone_lock);
	}
}

void __free_pages_ok(struct page *page, unsigned int order)
{
	free_unref_page(page, order);
}

/* The 6.12 rule, including the speculative-reference tail handling. */
void __free_pages(struct page *page, unsigned int order)
{
	bool head = page->flags & PG_head;

	if (put_page_testzero(page)) {
		free_unref_page(page, order);
	} else if (!head) {
		while (order-- > 0)
			free_unref_page(page + (1UL << order), order);
	}
}

/* put_page() -> folio_put() -> free_unref_page(page, folio_order). */
void put_page(struct page *page)
{
#ifdef HARNESS_PRODUCTION
	/* page_folio(): the folio of a tail page is its head */
	while ((page->flags & PG_tail) && page > harness_pages)
		page--;
#else
	if (page->flags & PG_tail) {
		harness_error("%s() on a tail page", __func__);
		return;
	}
#endif
	if (put_page_testzero(page))
		free_unref_page(page, (page->flags & PG_head) ? page->compound_order : 0);
}

void split_page(struct page *page, unsigned int order)
{
	unsigned long i;

#ifndef HARNESS_PRODUCTION
	/* VM_BUG_ON_PAGE(PageCompound(page)) */
	if (page->flags & PG_head)
		harness_error("%s() of a compound page", __func__);
#endif
	for (i = 1; i < (1UL << order); i++) {
		set_page_refcounted(page + i);
		page[i].tag = 1;	/* pgalloc_tag_split() */
	}
}

/* ---------------- waits ---------------- */

#ifdef HARNESS_THREADS
unsigned long harness_jiffies(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * HZ + ts.tv_nsec / (1000000000L / HZ);
}

/* Real sleeps: a jiffy is 1000 / HZ ms; @deadline is CLOCK_REALTIME. */
void harness_wait_begin(wait_queue_head_t *wq, long timeout, struct timespec *deadline)
{
	long ms = timeout * (1000 / HZ);

	if (harness_locks_held)
		harness_error("sleeping with a spinlock held");
	HARNESS_COUNT(harness_wait_calls, 1);
	clock_gettime(CLOCK_REALTIME, deadline);
	deadline->tv_sec += ms / 1000;
	deadline->tv_nsec += (ms % 1000) * 1000000L;
	if (deadline->tv_nsec >= 1000000000L) {
		deadline->tv_sec++;
		deadline->tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&wq->m);
}

/* Sleep until woken or @deadline; return the jiffies left (0: timed out). */
long harness_wait_step(wait_queue_head_t *wq, const struct timespec *deadline)
{
	struct timespec now;
	long ms;

	pthread_cond_timedwait(&wq->c, &wq->m, deadline);
	clock_gettime(CLOCK_REALTIME, &now);
	ms = (deadline->tv_sec - now.tv_sec) * 1000 +
	     (deadline->tv_nsec - now.tv_nsec) / 1000000L;
	return ms > 0 ? DIV_ROUND_UP(ms, 1000 / HZ) : 0;
}

void harness_wait_end(wait_queue_head_t *wq)
{
	pthread_mutex_unlock(&wq->m);
}

void harness_wake_up(wait_queue_head_t *wq)
{
	HARNESS_COUNT(harness_wakeups, 1);
	pthread_mutex_lock(&wq->m);
	pthread_cond_broadcast(&wq->c);
	pthread_mutex_unlock(&wq->m);
}
#else
long harness_wait(wait_queue_head_t *wq, long timeout)
{
	(void)wq;
	if (harness_locks_held)
		harness_error("sleeping with a spinlock held");
	if (++harness_wait_calls > harness_wait_limit) {
		harness_error("wait loop never ends");
		exit(3);
	}
	if (harness_wait_cb && harness_wait_cb_delay < timeout) {
		harness_wait_cb_t cb = harness_wait_cb;

		jiffies += harness_wait_cb_delay;
		cb();
		return timeout - harness_wait_cb_delay;
	}
	jiffies += timeout;
	return 0;
}

void harness_wake_up(wait_queue_head_t *wq)
{
	(void)wq;
	harness_wakeups++;
}
#endif

/* ---------------- debugfs ---------------- */

struct dfs_file {
	const char *name;
	const struct file_operations *fops;
};

static struct dfs_file dfs_files[8];
static unsigned int dfs_nr;
static char dfs_dir;

struct dentry *debugfs_create_dir(const char *name, struct dentry *parent)
{
	(void)parent;
	if (strcmp(name, "mask_alloc"))
		harness_error("unexpected debugfs dir %s", name);
	return (struct dentry *)&dfs_dir;
}

struct dentry *debugfs_create_file(const char *name, unsigned short mode,
				   struct dentry *parent, void *data,
				   const struct file_operations *fops)
{
	(void)mode;
	(void)data;
	if (parent != (struct dentry *)&dfs_dir)
		harness_error("debugfs file %s outside mask_alloc/", name);
	if (dfs_nr < ARRAY_SIZE(dfs_files))
		dfs_files[dfs_nr++] = (struct dfs_file){ name, fops };
	return (struct dentry *)&dfs_dir;
}

static const struct file_operations *dfs_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < dfs_nr; i++)
		if (!strcmp(dfs_files[i].name, name))
			return dfs_files[i].fops;
	return NULL;
}

bool harness_debugfs_exists(const char *name)
{
	return dfs_find(name);
}

void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (m->count >= m->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(m->buf + m->count, m->size - m->count, fmt, ap);
	va_end(ap);
	m->count = n < 0 ? m->size : min(m->size, m->count + (size_t)n);
}

int harness_debugfs_read(const char *name, char *buf, size_t size)
{
	const struct file_operations *f = dfs_find(name);
	struct seq_file m = { buf, size, 0 };
	u64 val;

	buf[0] = '\0';
	if (!f)
		return -1;
	if (f->show) {
		f->show(&m, NULL);
	} else {
		if (f->get(NULL, &val))
			return -1;
		snprintf(buf, size, "%llu\n", (unsigned long long)val);
		return strlen(buf);
	}
	if (m.count >= size)
		return -1;
	return m.count;
}

int harness_debugfs_write(const char *name, u64 val)
{
	const struct file_operations *f = dfs_find(name);

	if (!f || !f->set)
		return -1;
	return f->set(NULL, val);
}

/* ---------------- fault injection ---------------- */

unsigned long harness_should_fail_calls;

/*
 * lib/fault-inject.c without fail-nth, task filter, stack filter and
 * interval: probability (rand() below 100), times and space.
 */
bool should_fail_ex(struct fault_attr *attr, long size, int flags)
{
	__atomic_fetch_add(&harness_should_fail_calls, 1, __ATOMIC_RELAXED);
	if (!attr->probability || !attr->times)
		return false;
	if (attr->space > size) {
		attr->space -= size;
		return false;
	}
	if (attr->probability <= (unsigned long)(rand() % 100))
		return false;
	if (!(flags & FAULT_NOWARN) && attr->verbose)
		harness_log('N', "FAULT_INJECTION: forcing a failure.\n");
	if (attr->times > 0)
		attr->times--;
	return true;
}

int setup_fault_attr(struct fault_attr *attr, char *str)
{
	unsigned long probability, interval;
	int times, space;

	if (sscanf(str, "%lu,%lu,%d,%d", &interval, &probability, &space,
		   &times) < 4) {
		harness_log('W', "FAULT_INJECTION: failed to parse arguments\n");
		return 0;
	}
	attr->probability = probability;
	attr->interval = interval;
	attr->times = times;
	attr->space = space;
	return 1;
}

/* ---------------- boot ---------------- */

extern const struct harness_param __start_harness_params[], __stop_harness_params[];

/* The early_param() handler of mm/mask_alloc.c for @name. */
int (*harness_param(const char *name))(char *s)
{
	const struct harness_param *p;

	for (p = __start_harness_params; p < __stop_harness_params; p++)
		if (!strcmp(p->name, name))
			return p->fn;
	harness_error("no early_param(\"%s\")", name);
	abort();
}

void harness_boot(const struct harness_boot_opts *o)
{
	char param[128];

	harness_arena_init_mem(o->mem);
	if (o->holes) {
		memblock_reserve(HOLE0_START, HOLE0_END - HOLE0_START);
		memblock_reserve(HOLE1_START, HOLE1_END - HOLE1_START);
		memblock_reserve(HOLE2_START, HOLE2_END - HOLE2_START);
	}
	if (o->has_param) {
		if (o->param) {
			snprintf(param, sizeof(param), "%s", o->param);
			harness_param("maskzone")(param);
		} else {
			harness_param("maskzone")(NULL);
		}
	}
	if (o->fail_param) {
		snprintf(param, sizeof(param), "%s", o->fail_param);
		harness_param("fail_mask_alloc")(param);
	}
	mask_pool_reserve_low(o->low_limit ? o->low_limit : SZ_16M);
	if (o->increase)
		increase_mask_zone(o->increase);
	harness_memblock_free_all();
	if (o->no_handover)
		return;
	mask_pool_handover();
	harness_late_initcall();
}

/*
 * Back to the state before the first boot: the fuzzer boots once per
 * input in the same process.  The kernel file's own static state is reset
 * separately (fuzz_kernel.c).
 */
void harness_reset(void)
{
	unsigned int i;

	for (i = 0; i < warn_nr; i++)
		*warn_flags[i] = false;
	warn_nr = 0;
	harness_log_clear();
#ifndef HARNESS_THREADS
	jiffies = 0;
#endif
	memset(harness_vm_events, 0, sizeof(harness_vm_events));
	harness_locks_held = 0;
	harness_warnings = harness_errors = harness_bad_pages = 0;
	harness_buddy_fail = false;
	harness_buddy_floor_pfn = 0;
	harness_buddy_last_gfp = 0;
	harness_buddy_calls = 0;
	harness_wait_cb = NULL;
	harness_wait_cb_delay = 10;
	harness_wait_calls = harness_wakeups = 0;
	harness_wait_limit = 100000;
	harness_fatal_signal = false;
	harness_release_cb = NULL;
	harness_release_watch = NULL;
	harness_hook_log_clear();
	dfs_nr = 0;
}

void harness_boot_default(void)
{
	struct harness_boot_opts o = { 0 };

	harness_boot(&o);
}
