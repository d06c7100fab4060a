// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs knobs to allocate from and free to the mask allocator by hand,
 * for demonstrations and boot-time tests (model: mm/cma_debug.c).
 *
 *   /sys/kernel/debug/mask_alloc/alloc        write "<size> <mask> [account]"
 *   /sys/kernel/debug/mask_alloc/free         write "<phys address>" or "all"
 *   /sys/kernel/debug/mask_alloc/allocations  read: what is held
 *
 * Allocations are made with GFP_KERNEL (with "account", GFP_KERNEL_ACCOUNT:
 * charged to the writer's memory cgroup) and held until freed here.
 */
#define pr_fmt(fmt) "mask_alloc: " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mask_alloc.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/**
 * struct mask_debug_alloc - one allocation held by the debugfs knobs
 * @list: entry in mask_debug_list
 * @page: first page
 * @size: size in bytes, as requested
 * @mask: address mask it was allocated under
 * @pool: true if it came from the mask pool
 */
struct mask_debug_alloc {
	struct list_head list;
	struct page *page;
	size_t size;
	u64 mask;
	bool pool;
};

/* Protects mask_debug_list. */
static DEFINE_MUTEX(mask_debug_lock);
static LIST_HEAD(mask_debug_list);

/* Copy a short command from user space into @buf, NUL-terminated and trimmed. */
static char *mask_debug_get_cmd(char *buf, size_t size, const char __user *ubuf,
				size_t len)
{
	if (len >= size)
		return ERR_PTR(-EINVAL);
	if (copy_from_user(buf, ubuf, len))
		return ERR_PTR(-EFAULT);
	buf[len] = '\0';
	return strim(buf);
}

static ssize_t mask_debug_alloc_write(struct file *file, const char __user *ubuf,
				      size_t len, loff_t *ppos)
{
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN;
	struct mask_debug_alloc *a;
	char buf[64], *s, *tok;
	u64 size, mask;

	s = mask_debug_get_cmd(buf, sizeof(buf), ubuf, len);
	if (IS_ERR(s))
		return PTR_ERR(s);
	tok = strsep(&s, " \t");
	if (!tok || kstrtou64(tok, 0, &size))
		return -EINVAL;
	tok = strsep(&s, " \t");
	if (!tok || kstrtou64(tok, 0, &mask))
		return -EINVAL;
	if (s) {
		if (strcmp(strim(s), "account"))
			return -EINVAL;
		gfp |= __GFP_ACCOUNT;
	}
	if (size < MASK_MIN_SIZE || size > SZ_1G)
		return -EINVAL;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	a->page = alloc_pages_mask(gfp, size, mask);
	if (!a->page) {
		kfree(a);
		pr_info("debugfs: %llu bytes below %#llx: no memory\n", size, mask);
		return -ENOMEM;
	}
	a->size = size;
	a->mask = mask;
	a->pool = mask_pool_page(a->page);
	pr_info("debugfs: %llu bytes below %#llx at %pa (%s)\n", size, mask,
		&(phys_addr_t){ page_to_phys(a->page) }, a->pool ? "pool" : "zones");
	mutex_lock(&mask_debug_lock);
	list_add_tail(&a->list, &mask_debug_list);
	mutex_unlock(&mask_debug_lock);
	return len;
}

static void mask_debug_release(struct mask_debug_alloc *a)
{
	list_del(&a->list);
	__free_pages_mask(a->page, a->size);
	kfree(a);
}

static ssize_t mask_debug_free_write(struct file *file, const char __user *ubuf,
				     size_t len, loff_t *ppos)
{
	struct mask_debug_alloc *a, *n;
	char buf[32], *s;
	bool all;
	u64 phys = 0;
	int found = 0;

	s = mask_debug_get_cmd(buf, sizeof(buf), ubuf, len);
	if (IS_ERR(s))
		return PTR_ERR(s);
	all = !strcmp(s, "all");
	if (!all && kstrtou64(s, 0, &phys))
		return -EINVAL;

	mutex_lock(&mask_debug_lock);
	list_for_each_entry_safe(a, n, &mask_debug_list, list) {
		if (all || page_to_phys(a->page) == phys) {
			mask_debug_release(a);
			found++;
			if (!all)
				break;
		}
	}
	mutex_unlock(&mask_debug_lock);
	return found || all ? len : -ENOENT;
}

static int mask_debug_allocations_show(struct seq_file *m, void *v)
{
	struct mask_debug_alloc *a;

	mutex_lock(&mask_debug_lock);
	list_for_each_entry(a, &mask_debug_list, list)
		seq_printf(m, "%#llx size %zu mask %#llx %s\n",
			   (u64)page_to_phys(a->page), a->size, a->mask,
			   a->pool ? "pool" : "zones");
	mutex_unlock(&mask_debug_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mask_debug_allocations);

static const struct file_operations mask_debug_alloc_fops = {
	.write = mask_debug_alloc_write,
};

static const struct file_operations mask_debug_free_fops = {
	.write = mask_debug_free_write,
};

static int __init mask_alloc_debug_init(void)
{
	struct dentry *dir = debugfs_lookup("mask_alloc", NULL);

	if (!dir)
		dir = debugfs_create_dir("mask_alloc", NULL);
	else
		dput(dir);	/* the directory lives as long as debugfs */
	debugfs_create_file("alloc", 0200, dir, NULL, &mask_debug_alloc_fops);
	debugfs_create_file("free", 0200, dir, NULL, &mask_debug_free_fops);
	debugfs_create_file("allocations", 0444, dir, NULL, &mask_debug_allocations_fops);
	return 0;
}
late_initcall_sync(mask_alloc_debug_init);
