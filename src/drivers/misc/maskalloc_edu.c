// SPDX-License-Identifier: GPL-2.0
/*
 * maskalloc_edu: coherent DMA below a 28-bit mask on QEMU's "edu" device.
 *
 * QEMU's educational PCI device (1234:11e8, docs/specs/edu.txt in QEMU)
 * has a DMA engine that moves up to 4096 bytes between guest memory and a
 * buffer inside the device.  The engine masks every guest address it is
 * given with its dma_mask property, 28 bits by default, so memory above
 * 256 MiB is out of its reach: exactly the kind of device that the mask
 * allocator serves.
 *
 * Reading /sys/kernel/debug/maskalloc_edu/run allocates pairs of coherent
 * buffers under the device's 28-bit mask, fills the first of each pair with
 * a pattern, copies it through the device into the second one and compares
 * every byte.  The result comes back as "key: value" lines.
 *
 * Reading /sys/kernel/debug/maskalloc_edu/stream does the same with
 * streaming mappings of ordinary kernel memory that lies above 256 MiB,
 * out of the device's reach: dma_map_single() and dma_map_page() must
 * bounce it below the mask (swiotlb), or fail with DMA_MAPPING_ERROR when
 * nothing can bounce it.  Each case maps three buffers of one size and
 * in-page offset: a TO_DEVICE source, a FROM_DEVICE destination and a
 * BIDIRECTIONAL buffer that changes hands through sub-range
 * dma_sync_single_range_for_cpu() and _for_device() calls.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/iopoll.h>
#include <linux/mask_alloc.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/seq_buf.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/time64.h>

#define EDU_VENDOR_ID		0x1234
#define EDU_DEVICE_ID		0x11e8

#define EDU_REG_ID		0x00	/* 0xRRrr00ed */
#define EDU_REG_ALIVE		0x04	/* reads back the inverted value */
#define EDU_REG_DMA_SRC		0x80
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_COUNT	0x90
#define EDU_REG_DMA_CMD		0x98

#define EDU_ID_MAGIC		0xed
#define EDU_DMA_RUN		BIT(0)	/* start; cleared by the device when done */
#define EDU_DMA_TO_RAM		BIT(1)	/* 0: RAM -> device, 1: device -> RAM */

#define EDU_BUF_ADDR		0x40000	/* device buffer, as a DMA address */
#define EDU_BUF_SIZE		4096
/*
 * Up to QEMU 7.2 the device's range check treats a transfer that ends at
 * the last byte of its buffer as out of bounds and stops the whole VM
 * (hw_error()), so a transfer never fills the buffer completely.
 */
#define EDU_CHUNK_MAX		(EDU_BUF_SIZE - 1)
#define EDU_DMA_BITS		28

/*
 * The device finishes a transfer 100 ms (virtual time) after it was
 * started.  Poll every millisecond and give up after two seconds.
 */
#define EDU_POLL_US		1000
#define EDU_TIMEOUT_US		(2 * USEC_PER_SEC)

#define EDU_REPORT_SIZE		8192

/* Buffer sizes of one run: sub-page, page-sized and multi-page buffers. */
static const size_t edu_sizes[] = {
	1, 7, 100, 1000, 4095, 4096, 4097, 8191, 12288, 16384,
};

/*
 * Streaming cases: sizes from one byte to four pages less one byte, at
 * in-page offsets that put the buffer at the start or the end of a page or
 * across page boundaries.  offset + size never exceeds EDU_STREAM_SPAN.
 */
static const struct {
	size_t size;
	unsigned int offset;
} edu_stream_cases[] = {
	{ 1, 0 }, { 1, 4095 }, { 7, 3 }, { 100, 4090 }, { 1000, 17 },
	{ 2048, 2048 }, { 4095, 0 }, { 4095, 1 }, { 4096, 0 },
	{ 4097, 4095 }, { 8191, 1 }, { 12288, 0 }, { 16383, 1 },
	{ 16320, 64 },
};

/* Each streaming buffer lives in its own block of four pages. */
#define EDU_STREAM_ORDER	2
#define EDU_STREAM_SPAN		(PAGE_SIZE << EDU_STREAM_ORDER)
/* There are no more blocks than this below the mask. */
#define EDU_STREAM_MAX_REJECTS	(BIT_ULL(EDU_DMA_BITS) / EDU_STREAM_SPAN)

/* The three mappings of one streaming case. */
enum { EDU_S_SRC, EDU_S_DST, EDU_S_BIDI, EDU_S_NR };

static const enum dma_data_direction edu_stream_dir[EDU_S_NR] = {
	[EDU_S_SRC] = DMA_TO_DEVICE,
	[EDU_S_DST] = DMA_FROM_DEVICE,
	[EDU_S_BIDI] = DMA_BIDIRECTIONAL,
};

/**
 * struct edu_dev - one bound edu device
 * @pdev: the PCI device
 * @regs: BAR 0
 * @dir: debugfs directory
 * @lock: serialises runs
 * @dead: an engine timeout left a transfer in flight; refuse to run again
 */
struct edu_dev {
	struct pci_dev *pdev;
	void __iomem *regs;
	struct dentry *dir;
	struct mutex lock;	/* one run at a time: a single DMA engine */
	bool dead;
};

/**
 * struct edu_buf - a source/destination pair of coherent buffers
 * @size: bytes in each buffer
 * @src: CPU address of the buffer filled with the pattern
 * @dst: CPU address of the buffer the device copies into
 * @src_dma: device address of @src
 * @dst_dma: device address of @dst
 */
struct edu_buf {
	size_t size;
	u8 *src;
	u8 *dst;
	dma_addr_t src_dma;
	dma_addr_t dst_dma;
};

/**
 * struct edu_smap - one streaming mapping of a streaming case
 * @page: first page of the block that holds the buffer
 * @cpu: CPU address of the buffer (in @page's block, at the case's offset)
 * @dma: device address returned by dma_map_single() or dma_map_page()
 * @mapped: @dma is a live mapping that must be unmapped
 */
struct edu_smap {
	struct page *page;
	u8 *cpu;
	dma_addr_t dma;
	bool mapped;
};

/**
 * struct edu_stream_stats - totals of one streaming run
 * @maps: mappings attempted
 * @map_errors: mappings that returned DMA_MAPPING_ERROR
 * @out_of_mask: mappings that returned an address the device cannot reach
 * @mismatches: bytes that differ after the final unmap
 * @sync_mismatches: bytes that differ right after dma_sync_*_for_cpu()
 * @checked: bytes compared after the final unmap
 * @rejected: blocks allocated below the mask and set aside
 * @min_phys: lowest physical address of a mapped buffer
 * @max_dma: highest device address of a mapped buffer
 */
struct edu_stream_stats {
	unsigned long maps;
	unsigned long map_errors;
	unsigned long out_of_mask;
	unsigned long mismatches;
	unsigned long sync_mismatches;
	u64 checked;
	unsigned long rejected;
	u64 min_phys;
	u64 max_dma;
};

/* Only one edu device gets the debugfs directory. */
static DEFINE_MUTEX(edu_dir_lock);
static bool edu_dir_taken;

/*
 * The byte at @off of buffer @idx: differs between buffers and between
 * pages of one buffer, so a transfer from the wrong place shows up.
 */
static u8 edu_pattern(unsigned int idx, size_t off)
{
	u32 x = (idx + 1) * 0x9e3779b1U ^ (u32)off * 0x85ebca6bU;

	x ^= x >> 15;
	return x ^ (x >> 8);
}

/* Run one transfer of @count bytes and wait for the engine, bounded. */
static int edu_dma(struct edu_dev *edu, u64 src, u64 dst, u32 count, u32 dir)
{
	u32 cmd;
	int ret;

	writeq(src, edu->regs + EDU_REG_DMA_SRC);
	writeq(dst, edu->regs + EDU_REG_DMA_DST);
	writeq(count, edu->regs + EDU_REG_DMA_COUNT);
	/* writeq() orders the buffer writes before the start of the DMA. */
	writeq(EDU_DMA_RUN | dir, edu->regs + EDU_REG_DMA_CMD);

	/* readl() orders the completion before later reads of the buffer. */
	ret = readl_poll_timeout(edu->regs + EDU_REG_DMA_CMD, cmd,
				 !(cmd & EDU_DMA_RUN), EDU_POLL_US,
				 EDU_TIMEOUT_US);
	if (ret)
		dev_err(&edu->pdev->dev,
			"DMA %#llx -> %#llx (%u bytes) timed out, cmd %#x\n",
			src, dst, count, cmd);
	return ret;
}

/* Copy @b->src to @b->dst through the device buffer, a chunk at a time. */
static int edu_copy(struct edu_dev *edu, struct edu_buf *b)
{
	size_t off, len;
	int ret;

	for (off = 0; off < b->size; off += len) {
		len = min_t(size_t, b->size - off, EDU_CHUNK_MAX);
		ret = edu_dma(edu, b->src_dma + off, EDU_BUF_ADDR, len, 0);
		if (ret)
			return ret;
		ret = edu_dma(edu, EDU_BUF_ADDR, b->dst_dma + off, len,
			      EDU_DMA_TO_RAM);
		if (ret)
			return ret;
	}
	return 0;
}

/* Count the bytes of @b->dst that differ from the pattern of buffer @idx. */
static unsigned long edu_verify(struct seq_buf *s, unsigned int idx,
				const struct edu_buf *b, bool first)
{
	unsigned long bad = 0;
	size_t j;

	for (j = 0; j < b->size; j++) {
		u8 want = edu_pattern(idx, j);

		if (b->dst[j] == want)
			continue;
		if (first && !bad)
			seq_buf_printf(s, "first_mismatch: buffer%u offset %zu got %#x want %#x\n",
				       idx, j, b->dst[j], want);
		bad++;
	}
	return bad;
}

static bool edu_in_pool(const void *cpu_addr)
{
	return virt_addr_valid(cpu_addr) && mask_pool_page(virt_to_page(cpu_addr));
}

/*
 * One run: allocate, transfer, verify, report into @s.  Returns 0 when
 * every byte came back and every buffer is within the mask.
 */
static int edu_run(struct edu_dev *edu, struct seq_buf *s)
{
	const u64 mask = DMA_BIT_MASK(EDU_DMA_BITS);
	struct device *dev = &edu->pdev->dev;
	unsigned long mismatches = 0, out_of_mask = 0, in_pool = 0;
	unsigned int i, nbufs = 0;
	u64 checked = 0, max_addr = 0;
	struct edu_buf *bufs;
	int err = 0, ret;
	bool failed;
	size_t j;

	bufs = kcalloc(ARRAY_SIZE(edu_sizes), sizeof(*bufs), GFP_KERNEL);
	if (!bufs)
		return -ENOMEM;

	seq_buf_printf(s, "device: %s\n", pci_name(edu->pdev));
	seq_buf_printf(s, "dma_mask: %#llx\n", (u64)dma_get_mask(dev));
	seq_buf_printf(s, "coherent_dma_mask: %#llx\n",
		       (u64)dev->coherent_dma_mask);

	for (i = 0; i < ARRAY_SIZE(edu_sizes); i++) {
		struct edu_buf *b = &bufs[i];
		u64 src_end, dst_end;

		b->size = edu_sizes[i];
		b->src = dma_alloc_coherent(dev, b->size, &b->src_dma,
					    GFP_KERNEL);
		b->dst = dma_alloc_coherent(dev, b->size, &b->dst_dma,
					    GFP_KERNEL);
		if (!b->src || !b->dst) {
			seq_buf_printf(s, "buffer%u: size %zu allocation failed\n",
				       i, b->size);
			err = -ENOMEM;
			break;
		}
		nbufs += 2;
		in_pool += edu_in_pool(b->src) + edu_in_pool(b->dst);
		src_end = b->src_dma + b->size - 1;
		dst_end = b->dst_dma + b->size - 1;
		max_addr = max3(max_addr, src_end, dst_end);
		seq_buf_printf(s, "buffer%u: size %zu src %pad dst %pad%s\n",
			       i, b->size, &b->src_dma, &b->dst_dma,
			       src_end > mask || dst_end > mask ?
			       " OUT-OF-MASK" : "");
		/* The device would clamp the address: never start that DMA. */
		if (src_end > mask || dst_end > mask) {
			out_of_mask += (src_end > mask) + (dst_end > mask);
			continue;
		}

		for (j = 0; j < b->size; j++) {
			b->src[j] = edu_pattern(i, j);
			b->dst[j] = ~edu_pattern(i, j);
		}
		ret = edu_copy(edu, b);
		if (ret) {
			/*
			 * The engine may still write into this run's buffers:
			 * leak them rather than hand them back to the allocator.
			 */
			edu->dead = true;
			seq_buf_printf(s, "error: DMA timeout on buffer%u\n", i);
			kfree(bufs);
			return ret;
		}
		mismatches += edu_verify(s, i, b, !mismatches);
		checked += b->size;
	}

	for (i = 0; i < ARRAY_SIZE(edu_sizes); i++) {
		struct edu_buf *b = &bufs[i];

		if (b->src)
			dma_free_coherent(dev, b->size, b->src, b->src_dma);
		if (b->dst)
			dma_free_coherent(dev, b->size, b->dst, b->dst_dma);
	}
	kfree(bufs);

	failed = mismatches || out_of_mask || err;
	seq_buf_printf(s, "buffers: %u\n", nbufs);
	seq_buf_printf(s, "in_pool: %lu\n", in_pool);
	seq_buf_printf(s, "bytes_checked: %llu\n", checked);
	seq_buf_printf(s, "mismatches: %lu\n", mismatches);
	seq_buf_printf(s, "out_of_mask: %lu\n", out_of_mask);
	seq_buf_printf(s, "max_dma_addr: %#llx\n", max_addr);
	seq_buf_printf(s, "result: %s\n", failed ? "fail" : "pass");
	if (err)
		return err;
	return failed ? -EIO : 0;
}

/*
 * A block of 2^EDU_STREAM_ORDER pages that lies entirely above the device's
 * 28-bit reach.  Blocks below it go onto @rejects (freed by the caller
 * after the run) so that the page allocator does not hand them out again.
 * __GFP_NORETRY: when memory runs out, fail rather than wake the OOM killer.
 */
static struct page *edu_alloc_high(struct list_head *rejects,
				   struct edu_stream_stats *st)
{
	while (st->rejected < EDU_STREAM_MAX_REJECTS) {
		struct page *page;

		page = alloc_pages(GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN,
				   EDU_STREAM_ORDER);
		if (!page)
			return NULL;
		if (page_to_phys(page) > DMA_BIT_MASK(EDU_DMA_BITS))
			return page;
		list_add(&page->lru, rejects);
		st->rejected++;
	}
	return NULL;
}

static void edu_free_blocks(struct list_head *blocks)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, blocks, lru) {
		list_del(&page->lru);
		__free_pages(page, EDU_STREAM_ORDER);
	}
}

/*
 * Map @m for @size bytes in direction @k: even cases through
 * dma_map_page(), odd ones through dma_map_single().
 */
static void edu_smap_map(struct device *dev, struct edu_smap *m,
			 unsigned int idx, unsigned int offset, size_t size,
			 int k)
{
	enum dma_data_direction dir = edu_stream_dir[k];

	if (idx & 1)
		m->dma = dma_map_single(dev, m->cpu, size, dir);
	else
		m->dma = dma_map_page(dev, m->page, offset, size, dir);
	m->mapped = !dma_mapping_error(dev, m->dma);
}

static void edu_smap_unmap(struct device *dev, struct edu_smap *m,
			   unsigned int idx, size_t size, int k)
{
	if (!m->mapped)
		return;
	if (idx & 1)
		dma_unmap_single(dev, m->dma, size, edu_stream_dir[k]);
	else
		dma_unmap_page(dev, m->dma, size, edu_stream_dir[k]);
	m->mapped = false;
}

/* Sync [@off, @off + @len) of @m in two sub-ranges. */
static void edu_sync_range(struct device *dev, struct edu_smap *m, size_t off,
			   size_t len, bool for_cpu)
{
	size_t half = len / 2;
	size_t part[2] = { half, len - half };
	int i;

	for (i = 0; i < 2; i++) {
		if (!part[i])
			continue;
		if (for_cpu)
			dma_sync_single_range_for_cpu(dev, m->dma, off, part[i],
						      DMA_BIDIRECTIONAL);
		else
			dma_sync_single_range_for_device(dev, m->dma, off,
							 part[i],
							 DMA_BIDIRECTIONAL);
		off += part[i];
	}
}

/* The three patterns of streaming case @idx (source, bidi before, CPU). */
static u8 edu_spat(unsigned int idx, int which, size_t off)
{
	return edu_pattern(idx + which * ARRAY_SIZE(edu_stream_cases), off);
}

static unsigned long edu_count_bad(const u8 *buf, size_t len, unsigned int idx,
				   int which, size_t base)
{
	unsigned long bad = 0;
	size_t j;

	for (j = 0; j < len; j++)
		bad += buf[j] != edu_spat(idx, which, base + j);
	return bad;
}

/*
 * Move the data of one streaming case through the device, a chunk at a
 * time.  For each chunk: source -> device -> bidi; the CPU takes the bidi
 * chunk back (sync for cpu, in two sub-ranges) and checks that the source
 * pattern arrived, writes the third pattern, hands it back (sync for
 * device) and the device copies it on: bidi -> device -> destination.
 */
static int edu_stream_copy(struct edu_dev *edu, struct edu_smap *m,
			   unsigned int idx, size_t size,
			   struct edu_stream_stats *st)
{
	struct device *dev = &edu->pdev->dev;
	struct edu_smap *bidi = &m[EDU_S_BIDI];
	size_t off, len, j;
	int ret;

	for (off = 0; off < size; off += len) {
		len = min_t(size_t, size - off, EDU_CHUNK_MAX);
		ret = edu_dma(edu, m[EDU_S_SRC].dma + off, EDU_BUF_ADDR, len, 0);
		if (!ret)
			ret = edu_dma(edu, EDU_BUF_ADDR, bidi->dma + off, len,
				      EDU_DMA_TO_RAM);
		if (ret)
			return ret;

		edu_sync_range(dev, bidi, off, len, true);
		st->sync_mismatches += edu_count_bad(bidi->cpu + off, len,
						     idx, 0, off);
		for (j = off; j < off + len; j++)
			bidi->cpu[j] = edu_spat(idx, 2, j);
		edu_sync_range(dev, bidi, off, len, false);

		ret = edu_dma(edu, bidi->dma + off, EDU_BUF_ADDR, len, 0);
		if (!ret)
			ret = edu_dma(edu, EDU_BUF_ADDR, m[EDU_S_DST].dma + off,
				      len, EDU_DMA_TO_RAM);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * One streaming case: three buffers above the mask, mapped, moved through
 * the device, unmapped and checked.  Returns 0, -ENOMEM when no memory
 * above the mask was found, or -ETIMEDOUT when the engine hung (the
 * buffers and their mappings are then leaked on purpose: the engine may
 * still write into them).
 */
static int edu_stream_case(struct edu_dev *edu, struct seq_buf *s,
			   unsigned int idx, struct list_head *rejects,
			   struct edu_stream_stats *st)
{
	const u64 mask = DMA_BIT_MASK(EDU_DMA_BITS);
	struct device *dev = &edu->pdev->dev;
	size_t size = edu_stream_cases[idx].size;
	unsigned int offset = edu_stream_cases[idx].offset;
	struct edu_smap m[EDU_S_NR] = { };
	unsigned long bad = 0;
	bool usable = true;
	size_t j;
	int k, ret = 0;

	for (k = 0; k < EDU_S_NR; k++) {
		m[k].page = edu_alloc_high(rejects, st);
		if (!m[k].page) {
			seq_buf_printf(s, "stream%u: no memory above the mask\n",
				       idx);
			ret = -ENOMEM;
			goto free;
		}
		m[k].cpu = (u8 *)page_address(m[k].page) + offset;
		st->min_phys = min(st->min_phys,
				   (u64)page_to_phys(m[k].page) + offset);
	}
	for (j = 0; j < size; j++) {
		m[EDU_S_SRC].cpu[j] = edu_spat(idx, 0, j);
		m[EDU_S_DST].cpu[j] = ~edu_spat(idx, 2, j);
		m[EDU_S_BIDI].cpu[j] = edu_spat(idx, 1, j);
	}

	for (k = 0; k < EDU_S_NR; k++) {
		edu_smap_map(dev, &m[k], idx, offset, size, k);
		st->maps++;
		if (!m[k].mapped) {
			st->map_errors++;
			usable = false;
		} else if (m[k].dma + size - 1 > mask) {
			/* The device would clamp it: never start that DMA. */
			st->out_of_mask++;
			usable = false;
		} else {
			st->max_dma = max_t(u64, st->max_dma,
					    m[k].dma + size - 1);
		}
	}
	seq_buf_printf(s, "stream%u: size %zu offset %u %s to %pad from %pad bidi %pad%s\n",
		       idx, size, offset, idx & 1 ? "single" : "page",
		       &m[EDU_S_SRC].dma, &m[EDU_S_DST].dma,
		       &m[EDU_S_BIDI].dma, usable ? "" : " MAP-FAILED");

	if (usable) {
		ret = edu_stream_copy(edu, m, idx, size, st);
		if (ret) {
			edu->dead = true;
			seq_buf_printf(s, "error: DMA timeout on stream%u\n",
				       idx);
			return ret;
		}
	}

	for (k = 0; k < EDU_S_NR; k++)
		edu_smap_unmap(dev, &m[k], idx, size, k);

	if (usable) {
		bad += edu_count_bad(m[EDU_S_SRC].cpu, size, idx, 0, 0);
		bad += edu_count_bad(m[EDU_S_DST].cpu, size, idx, 2, 0);
		bad += edu_count_bad(m[EDU_S_BIDI].cpu, size, idx, 2, 0);
		if (bad && !st->mismatches)
			seq_buf_printf(s, "first_mismatch: stream%u, %lu bytes\n",
				       idx, bad);
		st->mismatches += bad;
		st->checked += EDU_S_NR * size;
	}
free:
	for (k = 0; k < EDU_S_NR; k++)
		if (m[k].page)
			__free_pages(m[k].page, EDU_STREAM_ORDER);
	return ret;
}

/*
 * One streaming run over every case.  Returns 0 when every mapping
 * succeeded within the mask and every byte arrived.
 */
static int edu_stream(struct edu_dev *edu, struct seq_buf *s)
{
	struct edu_stream_stats st = { .min_phys = U64_MAX };
	struct device *dev = &edu->pdev->dev;
	LIST_HEAD(rejects);
	unsigned int i;
	bool failed;
	int ret = 0;

	seq_buf_printf(s, "device: %s\n", pci_name(edu->pdev));
	seq_buf_printf(s, "dma_mask: %#llx\n", (u64)dma_get_mask(dev));

	for (i = 0; i < ARRAY_SIZE(edu_stream_cases); i++) {
		ret = edu_stream_case(edu, s, i, &rejects, &st);
		if (ret)
			break;
	}
	edu_free_blocks(&rejects);
	if (ret == -ETIMEDOUT)
		return ret;

	failed = ret || st.map_errors || st.out_of_mask || st.mismatches ||
		 st.sync_mismatches;
	seq_buf_printf(s, "stream_cases: %u\n", i);
	seq_buf_printf(s, "stream_maps: %lu\n", st.maps);
	seq_buf_printf(s, "stream_map_errors: %lu\n", st.map_errors);
	seq_buf_printf(s, "stream_out_of_mask: %lu\n", st.out_of_mask);
	seq_buf_printf(s, "stream_bytes_checked: %llu\n", st.checked);
	seq_buf_printf(s, "stream_mismatches: %lu\n", st.mismatches);
	seq_buf_printf(s, "stream_sync_mismatches: %lu\n", st.sync_mismatches);
	seq_buf_printf(s, "stream_min_phys: %#llx\n", st.min_phys);
	seq_buf_printf(s, "stream_max_dma_addr: %#llx\n", st.max_dma);
	seq_buf_printf(s, "stream_rejected_blocks: %lu\n", st.rejected);
	seq_buf_printf(s, "stream_result: %s\n", failed ? "fail" : "pass");
	if (ret)
		return ret;
	return failed ? -EIO : 0;
}

/* Run @fn under the device lock into a fresh report for this open file. */
static int edu_report_open(struct inode *inode, struct file *file,
			   const char *what,
			   int (*fn)(struct edu_dev *edu, struct seq_buf *s))
{
	struct edu_dev *edu = inode->i_private;
	struct seq_buf s;
	char *buf;
	int ret;

	buf = kzalloc(EDU_REPORT_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	seq_buf_init(&s, buf, EDU_REPORT_SIZE);

	mutex_lock(&edu->lock);
	if (edu->dead) {
		seq_buf_puts(&s, "error: the DMA engine timed out earlier\n");
		ret = -EIO;
	} else {
		ret = fn(edu, &s);
	}
	mutex_unlock(&edu->lock);

	if (seq_buf_has_overflowed(&s))
		dev_warn(&edu->pdev->dev, "report truncated\n");
	dev_info(&edu->pdev->dev, "%s: %s (%d)\n", what,
		 ret ? "fail" : "pass", ret);
	file->private_data = buf;
	return nonseekable_open(inode, file);
}

static int edu_run_open(struct inode *inode, struct file *file)
{
	return edu_report_open(inode, file, "run", edu_run);
}

static int edu_stream_open(struct inode *inode, struct file *file)
{
	return edu_report_open(inode, file, "stream", edu_stream);
}

static ssize_t edu_run_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	const char *buf = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, buf,
				       strnlen(buf, EDU_REPORT_SIZE));
}

static int edu_run_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static const struct file_operations edu_run_fops = {
	.owner = THIS_MODULE,
	.open = edu_run_open,
	.read = edu_run_read,
	.release = edu_run_release,
};

static const struct file_operations edu_stream_fops = {
	.owner = THIS_MODULE,
	.open = edu_stream_open,
	.read = edu_run_read,
	.release = edu_run_release,
};

/*
 * maskalloc_edu.untrusted=1 marks the device untrusted, as the PCI core does
 * for devices behind external-facing ports: dma-iommu then bounces every
 * streaming mapping that does not fill whole IOMMU pages through swiotlb.
 */
static bool untrusted;
module_param(untrusted, bool, 0444);
MODULE_PARM_DESC(untrusted, "treat the device as untrusted (bounce through swiotlb behind an IOMMU)");

static int edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct edu_dev *edu;
	u32 ident, alive;
	int ret;

	edu = devm_kzalloc(dev, sizeof(*edu), GFP_KERNEL);
	if (!edu)
		return -ENOMEM;
	edu->pdev = pdev;
	mutex_init(&edu->lock);

	ret = pcim_enable_device(pdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot enable device\n");
	edu->regs = pcim_iomap_region(pdev, 0, KBUILD_MODNAME);
	if (IS_ERR(edu->regs))
		return dev_err_probe(dev, PTR_ERR(edu->regs),
				     "cannot map BAR 0\n");

	ident = readl(edu->regs + EDU_REG_ID);
	writel(0x5a5aa5a5, edu->regs + EDU_REG_ALIVE);
	alive = readl(edu->regs + EDU_REG_ALIVE);
	if ((ident & 0xff) != EDU_ID_MAGIC || alive != ~0x5a5aa5a5U)
		return dev_err_probe(dev, -ENODEV,
				     "not an edu device (id %#x, alive %#x)\n",
				     ident, alive);

	if (untrusted)
		pdev->untrusted = 1;
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(EDU_DMA_BITS));
	if (ret)
		return dev_err_probe(dev, ret, "no %d-bit DMA on this system\n",
				     EDU_DMA_BITS);
	pci_set_master(pdev);

	mutex_lock(&edu_dir_lock);
	if (edu_dir_taken) {
		mutex_unlock(&edu_dir_lock);
		dev_info(dev, "another edu device already has the debugfs files\n");
		return -EBUSY;
	}
	edu_dir_taken = true;
	mutex_unlock(&edu_dir_lock);

	edu->dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("run", 0400, edu->dir, edu, &edu_run_fops);
	debugfs_create_file("stream", 0400, edu->dir, edu, &edu_stream_fops);
	pci_set_drvdata(pdev, edu);
	dev_info(dev, "edu %u.%u, %d-bit DMA mask%s\n", ident >> 24,
		 (ident >> 16) & 0xff, EDU_DMA_BITS,
		 untrusted ? ", untrusted" : "");
	return 0;
}

static void edu_remove(struct pci_dev *pdev)
{
	struct edu_dev *edu = pci_get_drvdata(pdev);

	debugfs_remove_recursive(edu->dir);
	mutex_lock(&edu_dir_lock);
	edu_dir_taken = false;
	mutex_unlock(&edu_dir_lock);
}

static const struct pci_device_id edu_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR_ID, EDU_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, edu_ids);

static struct pci_driver edu_driver = {
	.name = KBUILD_MODNAME,
	.id_table = edu_ids,
	.probe = edu_probe,
	.remove = edu_remove,
};
module_pci_driver(edu_driver);

MODULE_DESCRIPTION("Coherent and streaming DMA below a 28-bit mask on QEMU's edu device");
MODULE_LICENSE("GPL");
