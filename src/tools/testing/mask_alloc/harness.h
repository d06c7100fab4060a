/* SPDX-License-Identifier: GPL-2.0 */
/* Test-side API of the fake kernel in harness.c. */
#ifndef MASK_HARNESS_H
#define MASK_HARNESS_H

#include "shim.h"
#include "../../../include/linux/mask_alloc.h"

struct harness_boot_opts {
	bool has_param;		/* call the early_param handler ... */
	const char *param;	/* ... with this value (NULL: bare "maskzone") */
	bool holes;		/* reserve firmware/kernel holes below 16 MB */
	unsigned long increase;	/* increase_mask_zone() bytes, 0: not called */
	phys_addr_t low_limit;	/* mask_pool_reserve_low() limit, 0: 16 MB */
	bool no_handover;	/* stop before mask_pool_handover() */
	const char *fail_param;	/* fail_mask_alloc= value, or NULL */
	phys_addr_t mem;	/* memory of the machine, 0: HARNESS_MEM_BYTES */
};

/* Holes made by .holes = true (byte ranges). */
#define HOLE0_START	0x0ULL
#define HOLE0_END	0x10000ULL	/* 64 KB "BIOS" */
#define HOLE1_START	0x100000ULL
#define HOLE1_END	0x300000ULL	/* 2 MB "kernel text" */
#define HOLE2_START	0x501000ULL
#define HOLE2_END	0x504000ULL	/* 3 pages "firmware" */

void harness_arena_init(void);		/* HARNESS_MEM_BYTES of memory */
void harness_arena_init_mem(phys_addr_t mem);	/* @mem bytes (page aligned) */
extern unsigned long harness_mem_pages;	/* pfns below this are memory */
void harness_boot(const struct harness_boot_opts *o);
void harness_boot_default(void);	/* no param, no holes, 16 MB */
void harness_reset(void);		/* before booting again in the same process */
void harness_memblock_free_all(void);
bool harness_memblock_is_reserved(unsigned long pfn);

/* Fake buddy allocator. */
extern bool harness_buddy_fail;
extern unsigned long harness_buddy_floor_pfn;
extern gfp_t harness_buddy_last_gfp;
extern unsigned long harness_buddy_calls;
unsigned long harness_buddy_free_pages(void);
void free_unref_page(struct page *page, unsigned int order);

/* Waits: a wait calls harness_wait_cb after harness_wait_cb_delay jiffies. */
typedef void (*harness_wait_cb_t)(void);
extern harness_wait_cb_t harness_wait_cb;
extern long harness_wait_cb_delay;
extern unsigned long harness_wait_calls;
extern unsigned long harness_wakeups;
extern unsigned long harness_wait_limit;

/*
 * Called once (then cleared) at the end of the next free_pages_prepare()
 * that gives pool pages back: what another CPU does between two releases
 * of one free.
 */
extern void (*harness_release_cb)(void);

/*
 * Called after every mask_pool_release() that free_pages_prepare() makes,
 * with its range (refused or not), until cleared.
 */
extern void (*harness_release_watch)(struct page *page, unsigned long n);

/* A fatal signal for the current task: killable waits end (see shim.h). */
extern bool harness_fatal_signal;

/*
 * The last HARNESS_HOOK_LOG calls of post_alloc_hook() ('A') and
 * free_pages_prepare() ('F'), oldest first from harness_hook_nr - n.
 */
#define HARNESS_HOOK_LOG	64
struct harness_hook_call {
	char what;
	unsigned long pfn;
	unsigned int order;
};

extern struct harness_hook_call harness_hook_log[HARNESS_HOOK_LOG];
extern unsigned long harness_hook_nr;
void harness_hook_log_clear(void);

/* Fault injection: calls of should_fail_ex(), failed or not. */
extern unsigned long harness_should_fail_calls;

/*
 * true in the HARNESS_PRODUCTION build: the page fakes do what a kernel
 * without CONFIG_DEBUG_VM and without check_pages_enabled does.
 */
extern const bool harness_production;

/* Diagnostics. */
extern unsigned long harness_warnings;
extern unsigned long harness_errors;
extern unsigned long harness_bad_pages;
extern bool harness_verbose;
bool harness_log_contains(const char *s);
void harness_log_clear(void);
int harness_debugfs_read(const char *name, char *buf, size_t size);
int harness_debugfs_write(const char *name, u64 val);
bool harness_debugfs_exists(const char *name);

#endif /* MASK_HARNESS_H */
