// SPDX-License-Identifier: GPL-2.0
/* Plain C bitmap helpers with the kernel's semantics. */
#include "shim.h"

#define BIT_WORD(nr)	((nr) / BITS_PER_LONG)
#define BIT_MASK(nr)	(1UL << ((nr) % BITS_PER_LONG))

bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return addr[BIT_WORD(nr)] & BIT_MASK(nr);
}

void __set_bit(unsigned long nr, unsigned long *addr)
{
	addr[BIT_WORD(nr)] |= BIT_MASK(nr);
}

void __clear_bit(unsigned long nr, unsigned long *addr)
{
	addr[BIT_WORD(nr)] &= ~BIT_MASK(nr);
}

bool __test_and_clear_bit(unsigned long nr, unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	__clear_bit(nr, addr);
	return old;
}

/* Like lib/bitmap.c __bitmap_set()/__bitmap_clear(): masks, word by word. */
#define BITMAP_FIRST_WORD_MASK(start) (~0UL << ((start) & (BITS_PER_LONG - 1)))
#define BITMAP_LAST_MASK(nbits) (~0UL >> (-(nbits) & (BITS_PER_LONG - 1)))

void bitmap_set(unsigned long *map, unsigned long start, unsigned long len)
{
	unsigned long *p = map + BIT_WORD(start);
	const unsigned long size = start + len;
	int bits_to_set = BITS_PER_LONG - (start % BITS_PER_LONG);
	unsigned long mask_to_set = BITMAP_FIRST_WORD_MASK(start);

	while (len && len >= (unsigned long)bits_to_set) {
		*p |= mask_to_set;
		len -= bits_to_set;
		bits_to_set = BITS_PER_LONG;
		mask_to_set = ~0UL;
		p++;
	}
	if (len) {
		mask_to_set &= BITMAP_LAST_MASK(size);
		*p |= mask_to_set;
	}
}

void bitmap_clear(unsigned long *map, unsigned long start, unsigned long len)
{
	unsigned long *p = map + BIT_WORD(start);
	const unsigned long size = start + len;
	int bits_to_clear = BITS_PER_LONG - (start % BITS_PER_LONG);
	unsigned long mask_to_clear = BITMAP_FIRST_WORD_MASK(start);

	while (len && len >= (unsigned long)bits_to_clear) {
		*p &= ~mask_to_clear;
		len -= bits_to_clear;
		bits_to_clear = BITS_PER_LONG;
		mask_to_clear = ~0UL;
		p++;
	}
	if (len) {
		mask_to_clear &= BITMAP_LAST_MASK(size);
		*p &= ~mask_to_clear;
	}
}

void bitmap_zero(unsigned long *map, unsigned long nbits)
{
	memset(map, 0, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

void bitmap_fill(unsigned long *map, unsigned long nbits)
{
	memset(map, 0xff, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

/* Word at a time, like lib/find_bit.c; @invert looks for zero bits. */
static unsigned long find_next(const unsigned long *addr, unsigned long size,
			       unsigned long offset, unsigned long invert)
{
	unsigned long w;

	if (offset >= size)
		return size;
	w = (addr[BIT_WORD(offset)] ^ invert) & (~0UL << (offset % BITS_PER_LONG));
	offset -= offset % BITS_PER_LONG;
	while (!w) {
		offset += BITS_PER_LONG;
		if (offset >= size)
			return size;
		w = addr[BIT_WORD(offset)] ^ invert;
	}
	offset += __builtin_ctzl(w);
	return offset < size ? offset : size;
}

unsigned long find_next_bit(const unsigned long *addr, unsigned long size,
			    unsigned long offset)
{
	return find_next(addr, size, offset, 0);
}

unsigned long find_next_zero_bit(const unsigned long *addr, unsigned long size,
				 unsigned long offset)
{
	return find_next(addr, size, offset, ~0UL);
}

unsigned long find_first_bit(const unsigned long *addr, unsigned long size)
{
	return find_next_bit(addr, size, 0);
}

unsigned long find_first_zero_bit(const unsigned long *addr, unsigned long size)
{
	return find_next_zero_bit(addr, size, 0);
}

unsigned long find_last_bit(const unsigned long *addr, unsigned long size)
{
	unsigned long i = size;

	while (i--)
		if (test_bit(i, addr))
			return i;
	return size;
}

/* Same algorithm as lib/bitmap.c. */
unsigned long bitmap_find_next_zero_area_off(unsigned long *map,
					     unsigned long size,
					     unsigned long start,
					     unsigned int nr,
					     unsigned long align_mask,
					     unsigned long align_offset)
{
	unsigned long index, end, i;
again:
	index = find_next_zero_bit(map, size, start);
	index = ((index + align_offset + align_mask) & ~align_mask) - align_offset;
	end = index + nr;
	if (end > size)
		return end;
	i = find_next_bit(map, end, index);
	if (i < end) {
		start = i + 1;
		goto again;
	}
	return index;
}
