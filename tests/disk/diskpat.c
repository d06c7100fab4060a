// SPDX-License-Identifier: GPL-2.0
/*
 * diskpat: write a seeded, offset-dependent pattern to a block device (or
 * an image file) and verify it byte for byte.  tests/disk/run.sh builds it
 * static on the host and runs it in the vm-run guest; the host runs the
 * same binary on the image files afterwards.
 *
 *   diskpat write  [-d] [-n BYTES] [-s SEED] DEV
 *   diskpat verify [-d] [-n BYTES] [-s SEED] [-k] DEV
 *
 * -d       O_DIRECT: requests of varying sizes from user buffers at varying
 *          512-byte offsets inside a page (bounce buffers must keep them)
 * -n BYTES how much to write or verify from offset 0 (default 64 MiB, a
 *          multiple of 512)
 * -s SEED  32-bit seed (default 1)
 * -k       keep the page cache: do not drop caches before verifying (for
 *          image files on the host)
 *
 * The pattern: the 8-byte little-endian word at byte offset o (o a multiple
 * of 8, i = o / 8) has i in its low 32 bits and SEED ^ mix(i) in its high
 * 32 bits.  Every word thus names the 512-byte sector it belongs to
 * (i / 64) and the run that wrote it, so a misplaced, stale or foreign
 * block is caught, and the first bad word is decoded in the report.
 *
 * "write" writes, then fsync()s (which also flushes the device's write
 * cache).  "verify" first syncs and writes 3 to /proc/sys/vm/drop_caches
 * (unless -k), then reads and compares every byte.  It prints one line:
 *   diskpat: verify DEV mode=buffered|direct seed=S bytes=N bad_bytes=B
 *            [first_bad=OFF expected=0x.. got=0x.. (...)] seconds=T
 * and exits 0 only when bytes == N and bad_bytes == 0.
 * The environment variable DISKPAT_FLIP=OFF flips the byte at OFF after
 * reading it, to show that verify fails (tests/disk/run.sh DISK_CORRUPT=flip).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

typedef uint64_t u64;
typedef uint32_t u32;

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define SECTOR		512
#define MAX_CHUNK	(1024 * 1024)
#define PAGE		4096
#define NONE		UINT64_MAX

/*
 * Request sizes, cycled through in turn: sector multiples from one sector
 * to 1 MiB, most not page multiples.
 */
static const size_t chunks[] = {
	1024 * 1024, 4096, 512, 65536 + 512, 3 * 4096, 256 * 1024,
	8192 + 1024, 384 * 1024, 7 * 512, 128 * 1024 - 512, 512 * 1024 + 4096,
};

/* Offsets of O_DIRECT buffers inside a page, cycled through in turn. */
static const size_t offsets[] = { 0, 512, 3584, 1536, 2048, 1024 };

/* What verify found. */
struct result {
	u64 done;		/* bytes transferred */
	u64 bad;		/* bytes that differ */
	u64 first_bad;		/* offset of the first, or NONE */
	unsigned char exp, got;	/* its expected and read value */
	u64 got_word;		/* the word it is in, as read */
};

static u32 mix(u32 x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

static u64 word_at(u64 off, u32 seed)
{
	u32 i = (u32)(off / 8);

	return (u64)(seed ^ mix(i)) << 32 | i;
}

static u64 le64(const unsigned char *p)
{
	u64 w = 0;
	int b;

	for (b = 7; b >= 0; b--)
		w = w << 8 | p[b];
	return w;
}

/* Fill buf with the pattern of [off, off + len); off and len multiples of 8. */
static void fill(unsigned char *buf, u64 off, size_t len, u32 seed)
{
	size_t k;
	int b;

	for (k = 0; k < len; k += 8) {
		u64 w = word_at(off + k, seed);

		for (b = 0; b < 8; b++)
			buf[k + b] = (unsigned char)(w >> (8 * b));
	}
}

/* Count the bytes of buf that differ from exp; remember the first. */
static void compare(struct result *r, const unsigned char *buf,
		    const unsigned char *exp, u64 off, size_t len)
{
	size_t k;

	if (!memcmp(buf, exp, len))
		return;
	for (k = 0; k < len; k++) {
		if (buf[k] == exp[k])
			continue;
		if (!r->bad++) {
			r->first_bad = off + k;
			r->exp = exp[k];
			r->got = buf[k];
			r->got_word = le64(buf + (k & ~(size_t)7));
		}
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int drop_page_cache(void)
{
	const char *path = "/proc/sys/vm/drop_caches";
	int fd;

	sync();
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "3\n", 2) != 2) {
		fprintf(stderr, "diskpat: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * Write (exp == NULL) or read and verify [0, size) of fd.  Writes and
 * reads start at different points of the size and offset cycles, so a
 * read rarely matches the request that wrote the same range.
 */
static int run_pass(int fd, const char *dev, u64 size, u32 seed, int direct,
		    unsigned char *raw, unsigned char *exp, u64 flip,
		    struct result *r)
{
	int writing = !exp;
	unsigned int n;
	u64 off = 0;

	for (n = 0; off < size; n++) {
		size_t len = chunks[(n + (writing ? 0 : 5)) % ARRAY_SIZE(chunks)];
		size_t in = offsets[(n + (writing ? 0 : 3)) % ARRAY_SIZE(offsets)];
		unsigned char *buf = raw + (direct ? in : 0);
		ssize_t ret;

		if (len > size - off)
			len = size - off;
		if (writing) {
			fill(buf, off, len, seed);
			ret = pwrite(fd, buf, len, off);
		} else {
			memset(buf, 0xa5, len);
			ret = pread(fd, buf, len, off);
		}
		if (ret != (ssize_t)len) {
			fprintf(stderr, "diskpat: %s %s at %llu len %zu: %s\n",
				writing ? "write" : "read", dev,
				(unsigned long long)off, len,
				ret < 0 ? strerror(errno) : "short transfer");
			return -1;
		}
		if (!writing) {
			if (flip >= off && flip < off + len)
				buf[flip - off] ^= 0x01;
			fill(exp, off, len, seed);
			compare(r, buf, exp, off, len);
		}
		off += len;
		r->done += len;
	}
	return 0;
}

static void report(const char *dev, int direct, u32 seed, const struct result *r,
		   double seconds)
{
	u32 i = (u32)r->got_word;

	printf("diskpat: verify %s mode=%s seed=%u bytes=%llu bad_bytes=%llu",
	       dev, direct ? "direct" : "buffered", seed,
	       (unsigned long long)r->done, (unsigned long long)r->bad);
	if (r->bad)
		printf(" first_bad=%llu expected=0x%02x got=0x%02x (in sector %llu; the word read names sector %u seed %u)",
		       (unsigned long long)r->first_bad, r->exp, r->got,
		       (unsigned long long)(r->first_bad / SECTOR),
		       i / (SECTOR / 8), (u32)(r->got_word >> 32) ^ mix(i));
	printf(" seconds=%.2f\n", seconds);
}

static void die_usage(void)
{
	fprintf(stderr, "usage: diskpat write|verify [-d] [-n BYTES] [-s SEED] [-k] DEV\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct result r = { .first_bad = NONE };
	int direct = 0, keep = 0, writing, fd, opt, err;
	unsigned char *raw, *exp = NULL;
	u64 size = 64ULL << 20, flip = NONE;
	const char *dev, *e;
	u32 seed = 1;
	double t0;

	if (argc < 2)
		die_usage();
	if (!strcmp(argv[1], "write"))
		writing = 1;
	else if (!strcmp(argv[1], "verify"))
		writing = 0;
	else
		die_usage();
	optind = 2;
	while ((opt = getopt(argc, argv, "dkn:s:")) != -1) {
		switch (opt) {
		case 'd':
			direct = 1;
			break;
		case 'k':
			keep = 1;
			break;
		case 'n':
			size = strtoull(optarg, NULL, 0);
			break;
		case 's':
			seed = (u32)strtoul(optarg, NULL, 0);
			break;
		default:
			die_usage();
		}
	}
	if (optind != argc - 1 || size == 0 || size % SECTOR)
		die_usage();
	dev = argv[optind];
	e = getenv("DISKPAT_FLIP");
	if (e && *e)
		flip = strtoull(e, NULL, 0);

	/* one spare page so that a buffer can start anywhere in a page */
	if (posix_memalign((void **)&raw, PAGE, MAX_CHUNK + PAGE) ||
	    (!writing && posix_memalign((void **)&exp, PAGE, MAX_CHUNK))) {
		fprintf(stderr, "diskpat: out of memory\n");
		return 1;
	}
	if (!writing && !keep && drop_page_cache())
		return 1;
	fd = open(dev, (writing ? O_WRONLY : O_RDONLY) | (direct ? O_DIRECT : 0));
	if (fd < 0) {
		fprintf(stderr, "diskpat: open %s: %s\n", dev, strerror(errno));
		return 1;
	}

	t0 = now();
	err = run_pass(fd, dev, size, seed, direct, raw, exp, flip, &r);
	if (!err && writing && fsync(fd)) {
		fprintf(stderr, "diskpat: fsync %s: %s\n", dev, strerror(errno));
		err = -1;
	}
	close(fd);

	if (writing)
		printf("diskpat: write %s mode=%s seed=%u bytes=%llu seconds=%.2f\n",
		       dev, direct ? "direct" : "buffered", seed,
		       (unsigned long long)r.done, now() - t0);
	else
		report(dev, direct, seed, &r, now() - t0);
	return !err && r.done == size && !r.bad ? 0 : 1;
}
