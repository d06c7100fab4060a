// SPDX-License-Identifier: GPL-2.0
/*
 * The seed's pool search as mm/mask_alloc.c had it before the search
 * summary: mask_find_area() is a linear bitmap_find_next_zero_area_off()
 * scan, mask_pool_find() the unchanged policy (reversed bitmap, rotating
 * cursor used only in the upper half of the allowed range, restart from
 * the highest allowed page).  Only the names and the state differ.
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "ref.h"

static inline unsigned long pfn_to_idx(struct ref_pool *r, unsigned long pfn)
{
	return r->max_pfn - pfn;
}

static inline unsigned long idx_to_pfn(struct ref_pool *r, unsigned long idx)
{
	return r->max_pfn - idx;
}

static unsigned long mask_find_area(struct ref_pool *r, unsigned long size,
				    unsigned long from, unsigned long nr,
				    unsigned long align_mask,
				    unsigned long align_off,
				    unsigned long boundary_mask)
{
	unsigned long idx, hi, lo;

	for (;;) {
		idx = bitmap_find_next_zero_area_off(r->used, size, from,
						     nr, align_mask, align_off);
		if (idx > size - nr)
			return idx;
		hi = idx_to_pfn(r, idx);
		lo = hi - (nr - 1);
		if (!((lo ^ hi) & ~boundary_mask))
			return idx;
		/* The next run down must end below the boundary it crossed. */
		from = pfn_to_idx(r, (hi & ~boundary_mask) - 1);
		if (from > size - nr)
			return from;
	}
}

unsigned long ref_find(struct ref_pool *r, unsigned long nr,
		       unsigned long end_pfn, unsigned long align_mask,
		       unsigned long align_pfn, unsigned long boundary_mask)
{
	unsigned long size = r->nbits, first, mid, idx = 0, from;
	unsigned long align_off = 0;
	bool found = false;

	if (!size || end_pfn <= r->base_pfn)
		return REF_NO_PFN;
	first = end_pfn > r->max_pfn ? 0 : pfn_to_idx(r, end_pfn - 1);
	if (nr > size - first || nr - 1 > boundary_mask)
		return REF_NO_PFN;
	if (align_mask)
		align_off = (nr + align_pfn - r->max_pfn - 1) & align_mask;

	mid = first + (size - first) / 2;
	from = r->cursor;
	if (from >= first && from < mid && nr <= mid - from) {
		idx = mask_find_area(r, mid, from, nr, align_mask, align_off,
				     boundary_mask);
		found = idx <= mid - nr;
	}
	if (!found) {
		from = first;
		idx = mask_find_area(r, size, from, nr, align_mask, align_off,
				     boundary_mask);
		found = idx <= size - nr;
	}
	if (!found)
		return REF_NO_PFN;

	r->skipped += idx - from;
	bitmap_set(r->used, idx, nr);
	r->cursor = idx + nr < size ? idx + nr : 0;
	return idx_to_pfn(r, idx + nr - 1);
}

void ref_release(struct ref_pool *r, unsigned long pfn, unsigned long nr)
{
	bitmap_clear(r->used, pfn_to_idx(r, pfn + nr - 1), nr);
}

int ref_init_from_map(struct ref_pool *r)
{
	size_t size = 64 * 1024 * 1024;
	char *buf = malloc(size), *line, *save = NULL;
	unsigned long pfn, first = ULONG_MAX, last = 0, n;
	int len;

	memset(r, 0, sizeof(*r));
	if (!buf)
		return -1;
	len = harness_debugfs_read("map", buf, size);
	if (len <= 0) {
		free(buf);
		return -1;
	}
	/* First pass: the span. */
	for (line = buf; *line; line = strchr(line, '\n') + 1) {
		char *sp = strchr(line, ' '), *nl = strchr(line, '\n');

		pfn = strtoul(line, NULL, 16);
		first = min(first, pfn);
		last = max(last, pfn + (nl - sp - 1) - 1);
		if (!nl[1])
			break;
	}
	r->base_pfn = first;
	r->max_pfn = last;
	r->nbits = last - first + 1;
	r->used = calloc(BITS_TO_LONGS(r->nbits) + 1, sizeof(unsigned long));
	bitmap_fill(r->used, r->nbits);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c = strchr(line, ' ') + 1;

		pfn = strtoul(line, NULL, 16);
		for (n = 0; c[n]; n++) {
			if (c[n] == '.')
				__clear_bit(pfn_to_idx(r, pfn + n), r->used);
			if (c[n] != ' ')
				r->pool_pages++;
		}
	}
	free(buf);
	return 0;
}

void ref_destroy(struct ref_pool *r)
{
	free(r->used);
	r->used = NULL;
}
