// SPDX-License-Identifier: GPL-2.0
/*
 * thp: transparent huge pages under compaction, migration and memory
 * offlining (tests/mm-stress).  Static, run in the busybox guest.
 *
 *   thp MIB SEED [PASSES]
 *
 * Maps MIB MiB of anonymous memory aligned to 2 MiB, asks for huge pages
 * (MADV_HUGEPAGE), fills it with a pattern in which every 8-byte word
 * names its seed and offset, and checks that huge pages were really used:
 * thp_fault_alloc in /proc/vmstat rose and AnonHugePages of the process
 * (/proc/self/smaps_rollup) is above 0.  It then verifies every word
 * PASSES times (default 3), 200 ms apart, so that pages that compaction
 * or offlining migrate in the meantime are checked too.
 *
 * Prints one line
 *   thp: mib M seed S huge_kb K fault_alloc +F fallback +B bad_words W
 * Exit status 0: huge pages used and no word differs; 1: a word differs;
 * 2: no huge page; 3: a system call failed.  THP_BREAK=1 flips one word
 * after the fill, to show that the check fails.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HPAGE (2UL << 20)

static long vmstat(const char *key)
{
	char k[64];
	long v, r = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", k, &v) == 2)
		if (!strcmp(k, key))
			r = v;
	fclose(f);
	return r;
}

static long anon_huge_kb(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

static inline uint64_t word(uint64_t seed, uint64_t i)
{
	uint64_t x = (seed << 40) ^ i ^ 0x9e3779b97f4a7c15ULL;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	return x;
}

int main(int argc, char **argv)
{
	unsigned long mib, passes = 3, n, i, bad = 0, p;
	uint64_t seed, *buf;
	long fa0, fa1, fb0, fb1, huge;
	char *raw;
	size_t len;

	if (argc < 3) {
		fprintf(stderr, "usage: thp MIB SEED [PASSES]\n");
		return 3;
	}
	mib = strtoul(argv[1], NULL, 0);
	seed = strtoull(argv[2], NULL, 0);
	if (argc > 3)
		passes = strtoul(argv[3], NULL, 0);
	len = mib << 20;
	n = len / sizeof(uint64_t);

	fa0 = vmstat("thp_fault_alloc");
	fb0 = vmstat("thp_fault_fallback");
	raw = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED) {
		perror("thp: mmap");
		return 3;
	}
	buf = (uint64_t *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	if (madvise(buf, len, MADV_HUGEPAGE)) {
		perror("thp: madvise(MADV_HUGEPAGE)");
		return 3;
	}
	for (i = 0; i < n; i++)
		buf[i] = word(seed, i);
	if (getenv("THP_BREAK") && !strcmp(getenv("THP_BREAK"), "1"))
		buf[n / 2 + 3] ^= 1;
	huge = anon_huge_kb();
	fa1 = vmstat("thp_fault_alloc");
	fb1 = vmstat("thp_fault_fallback");
	for (p = 0; p < passes; p++) {
		if (p)
			usleep(200000);
		for (i = 0; i < n; i++) {
			if (buf[i] != word(seed, i)) {
				if (bad < 5)
					fprintf(stderr, "thp: seed %llu word %lu (offset %#lx): got %#llx want %#llx\n",
						(unsigned long long)seed, i, i * 8,
						(unsigned long long)buf[i],
						(unsigned long long)word(seed, i));
				bad++;
			}
		}
	}
	printf("thp: mib %lu seed %llu huge_kb %ld fault_alloc +%ld fallback +%ld bad_words %lu\n",
	       mib, (unsigned long long)seed, huge, fa1 - fa0, fb1 - fb0, bad);
	munmap(raw, len + HPAGE);
	if (bad)
		return 1;
	if (huge <= 0 || fa1 <= fa0)
		return 2;
	return 0;
}
