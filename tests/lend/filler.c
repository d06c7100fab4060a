// SPDX-License-Identifier: GPL-2.0
/*
 * filler: the guest side's memory filler and allocation driver for
 * tests/lend (static, run in the busybox guest).
 *
 *   filler anon MIB GOFILE    fill MIB of anonymous memory with a pattern,
 *                             print "ready", wait until GOFILE exists (and
 *                             verify every time a file GOFILE.check shows
 *                             up, removing it), verify and exit: status 0
 *                             if every byte is as written
 *   filler file PATH MIB      write PATH with MIB of the pattern
 *   filler verify PATH        read PATH back; status 0 if every byte is right
 *   filler pin DEV MIB STOPFILE
 *                             short-term pins: until STOPFILE exists, write
 *                             MIB of patterned anonymous memory to the block
 *                             device DEV with O_DIRECT (the kernel pins the
 *                             pages for each I/O) and read it back with
 *                             O_DIRECT into a second region; print "P
 *                             rounds=.. bad=.." (pages that differ from the
 *                             pattern, in either region); status 0 if none
 *   filler alloc N SIZE MASK BATCH
 *                             N sleeping allocations of SIZE bytes below MASK
 *                             through debugfs mask_alloc/alloc, each timed;
 *                             they are held BATCH at a time and then freed
 *                             together (BATCH 0 or 1: each freed at once).
 *                             Prints "A ok=.. fail=.. p50_us=.. p99_us=..
 *                             max_us=..", then "L" and every latency in
 *                             microseconds, in the order they were taken
 *
 * The pattern of page P (4 KiB) of a region is splitmix64 of (SEED, P, word):
 * a page that comes back with another page's contents is caught too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef uint64_t u64;

#define PAGE 4096UL
#define WORDS (PAGE / 8)

static u64 mix(u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void fill_page(u64 *w, u64 seed, u64 page)
{
	u64 base = mix(seed ^ (page << 16));
	unsigned long i;

	for (i = 0; i < WORDS; i++)
		w[i] = base + i * 0x2545f4914f6cdd1dULL;
}

/* Pages of @w (@pages of them) that differ from the pattern. */
static unsigned long check(const u64 *w, unsigned long pages,
			   u64 seed, u64 first)
{
	u64 want[WORDS];
	unsigned long p, bad = 0;

	for (p = 0; p < pages; p++) {
		fill_page(want, seed, first + p);
		bad += memcmp(w + p * WORDS, want, PAGE) != 0;
	}
	return bad;
}

static int fill_anon(unsigned long mib, const char *go)
{
	unsigned long pages = mib << 8, p, bad, rounds = 0;
	char chk[256];
	u64 *m;

	m = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	for (p = 0; p < pages; p++)
		fill_page(m + p * WORDS, 1, p);
	printf("ready\n");
	fflush(stdout);
	snprintf(chk, sizeof(chk), "%s.check", go);
	while (access(go, F_OK)) {
		if (!access(chk, F_OK)) {
			bad = check(m, pages, 1, 0);
			rounds++;
			printf("anon check %lu: %lu bad pages of %lu\n", rounds, bad, pages);
			fflush(stdout);
			unlink(chk);
			if (bad)
				return 1;
		}
		usleep(20000);
	}
	bad = check(m, pages, 1, 0);
	printf("anon: %lu bad pages of %lu\n", bad, pages);
	return bad ? 1 : 0;
}

static int file(const char *path, unsigned long mib)
{
	u64 buf[WORDS * 64];
	unsigned long p, i;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0) {
		perror(path);
		return 2;
	}
	for (p = 0; p < mib << 8; p += 64) {
		for (i = 0; i < 64; i++)
			fill_page(buf + i * WORDS, 2, p + i);
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("write");
			return 2;
		}
	}
	return close(fd) ? 2 : 0;
}

static int verify(const char *path)
{
	u64 buf[WORDS * 64];
	unsigned long p = 0, bad = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror(path);
		return 2;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		bad += check(buf, n / PAGE, 2, p);
		p += n / PAGE;
	}
	close(fd);
	printf("file %s: %lu bad pages of %lu\n", path, bad, p);
	return n < 0 || bad ? 1 : 0;
}

static int pin(const char *dev, unsigned long mib, const char *stop)
{
	unsigned long pages = mib << 8, rounds = 0, bad = 0, off;
	u64 *src, *dst;
	int fd = open(dev, O_RDWR | O_DIRECT);

	if (fd < 0) {
		perror(dev);
		return 2;
	}
	src = mmap(NULL, 2 * pages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	dst = src + pages * WORDS;
	for (off = 0; off < pages; off++)
		fill_page(src + off * WORDS, 3, off);
	printf("pinning\n");
	fflush(stdout);
	while (access(stop, F_OK) && !bad) {
		memset(dst, 0, pages * PAGE);
		/* 1 MiB per I/O: each pins 256 pages while the device works */
		for (off = 0; off < pages; off += 256) {
			size_t len = 256 * PAGE;

			if (pwrite(fd, src + off * WORDS, len, off * PAGE) != (ssize_t)len ||
			    pread(fd, dst + off * WORDS, len, off * PAGE) != (ssize_t)len) {
				perror("O_DIRECT I/O");
				return 2;
			}
		}
		bad = check(src, pages, 3, 0) + check(dst, pages, 3, 0);
		rounds++;
	}
	printf("P rounds=%lu bad=%lu\n", rounds, bad);
	close(fd);
	return bad ? 1 : 0;
}

static int cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

static int dbg_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int run_allocs(long n, const char *size, const char *mask, long batch)
{
	const char *a = "/sys/kernel/debug/mask_alloc/alloc";
	const char *f = "/sys/kernel/debug/mask_alloc/free";
	long *us = calloc(n, sizeof(*us)), *sorted = calloc(n, sizeof(*us));
	long ok = 0, fail = 0, held = 0, i;
	struct timespec t0, t1;
	char req[128];

	if (!us || !sorted)
		return 2;
	snprintf(req, sizeof(req), "%s %s", size, mask);
	for (i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (dbg_write(a, req)) {
			fail++;
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		us[ok++] = (t1.tv_sec - t0.tv_sec) * 1000000L +
			   (t1.tv_nsec - t0.tv_nsec) / 1000;
		if (++held >= batch) {
			dbg_write(f, "all");
			held = 0;
		}
	}
	dbg_write(f, "all");
	memcpy(sorted, us, ok * sizeof(*us));
	qsort(sorted, ok, sizeof(*sorted), cmp);
	printf("A ok=%ld fail=%ld p50_us=%ld p99_us=%ld max_us=%ld\n", ok, fail,
	       ok ? sorted[ok / 2] : -1, ok ? sorted[ok * 99 / 100] : -1,
	       ok ? sorted[ok - 1] : -1);
	printf("L");
	for (i = 0; i < ok; i++)
		printf(" %ld", us[i]);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "anon"))
		return fill_anon(strtoul(argv[2], NULL, 0), argv[3]);
	if (argc == 4 && !strcmp(argv[1], "file"))
		return file(argv[2], strtoul(argv[3], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "verify"))
		return verify(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "pin"))
		return pin(argv[2], strtoul(argv[3], NULL, 0), argv[4]);
	if (argc == 6 && !strcmp(argv[1], "alloc"))
		return run_allocs(strtol(argv[2], NULL, 0), argv[3], argv[4],
				  strtol(argv[5], NULL, 0));
	fprintf(stderr, "usage: filler anon MIB GOFILE | file PATH MIB | verify PATH |\n"
		"              pin DEV MIB STOPFILE | alloc N SIZE MASK BATCH\n");
	return 2;
}
