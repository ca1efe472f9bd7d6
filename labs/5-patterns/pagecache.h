/*
 * pagecache.h - the file iopattern measures, the buffers its I/Os fill or
 * empty, and the page cache between them: the file made (never over an
 * existing one) and filled with random data before the trials, the
 * buffers, how much of the file is in the page cache (the cached_pct
 * column), --cold's drop of its cached pages before each trial,
 * --direct's descriptor, and transfer(): one whole positioned read or write.
 *
 * The page cache keeps a file's recently used pages in memory: a read that
 * finds its page there costs a copy, not a trip to the device, and a write
 * only dirties the page until write-back (or fsync) takes it to the device.
 * O_DIRECT (--direct) goes around it. Needs _GNU_SOURCE, for O_DIRECT.
 */
#ifndef IOLAB_PAGECACHE_H
#define IOLAB_PAGECACHE_H

#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "hugepages.h"
#include "iolab.h"
#include "rng.h"

/* Creates path, which must not exist: it is removed at exit. */
static inline int create_file(const char *path)
{
	struct stat st;

	/* Refuse an existing file before registering it for removal. */
	if (lstat(path, &st) == 0)
		die("%s: already exists; iopattern creates its own file (and removes it)",
		    path);
	cleanup_add(path);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		die_errno(path);
	return fd;
}

/*
 * n bytes from r: random data, which no disk or file system can compress,
 * nor deduplicate as long as r goes on from one call to the next (a
 * virtual disk's host may do either).
 */
static inline void random_bytes(struct rng *r, void *p, size_t n)
{
	uint64_t word;

	for (size_t i = 0; i < n; i += sizeof word) {
		word = rng_next(r);
		memcpy((char *)p + i, &word, n - i < sizeof word ? n - i : sizeof word);
	}
}

/* Fills the file (size bytes) before the trials, so that reads find real
 * data: new random bytes for every chunk, not one chunk over and over. */
static inline void fill(int fd, uint64_t size, const char *path, struct rng *r)
{
	enum { CHUNK = 1 << 20 };
	char *chunk = xmalloc(CHUNK);

	for (uint64_t left = size, n; left > 0; left -= n) {
		n = left < CHUNK ? left : CHUNK;
		random_bytes(r, chunk, n);
		if (write_all(fd, chunk, n) != 0)
			die_errno(path);
	}
	if (fdatasync(fd) != 0)	/* no write-back left over to disturb trial 1 */
		die_errno(path);
	free(chunk);
}

/*
 * n buffers of io bytes for the trials' I/Os, one for each thread or
 * io_uring slot, one after another in one mapping, each starting on a
 * multiple of 4 KiB (or of a larger O_DIRECT memory alignment), filled from
 * data. With huge pages (--pages huge) a buffer lies in physically
 * contiguous memory; with 4 KiB pages it is wherever each page landed, and
 * a disk's DMA takes it as one piece per page (on a virtual disk that can
 * cost more than the data: see the README).
 */
static inline char **make_buffers(uint64_t n, uint64_t io, uint32_t mem_align, bool huge,
				  struct rng *data)
{
	uint64_t unit = mem_align > 4096 ? mem_align : 4096, step = (io + unit - 1) / unit * unit;
	int err;
	char *region = (char *)map_pages(n * step, huge, &err);

	if (region == NULL)
		die("out of memory (%" PRIu64 " bytes of buffers)", n * step);
	if (huge)
		say_if_no_huge_pages(err, "");
	char **bufs = xmalloc(n * sizeof *bufs);
	for (uint64_t i = 0; i < n; i++) {
		bufs[i] = region + i * step;
		random_bytes(data, bufs[i], io);
	}
	return bufs;	/* the mapping goes with the process */
}

/* Percentage of the file's pages (size bytes) in the page cache, by
 * mincore() on a mapping. */
static inline double cached_percent(int fd, uint64_t size, const char *path)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = (size + page - 1) / page, resident = 0;
	unsigned char *vec = xmalloc(pages);
	void *map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);

	if (map == MAP_FAILED || mincore(map, size, vec) != 0)
		die_errno(path);
	for (size_t i = 0; i < pages; i++)
		resident += vec[i] & 1;
	if (munmap(map, size) != 0)
		die_errno(path);
	free(vec);
	return 100.0 * (double)resident / (double)pages;
}

/* --cold: dirty pages cannot be dropped, so write them back first. */
static inline void drop_cache(int fd, const char *path)
{
	int err;

	if (fdatasync(fd) != 0)
		die_errno(path);
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (err != 0) {
		errno = err;	/* posix_fadvise returns the error instead */
		die_errno(path);
	}
}

/* --direct: the file opened again with O_DIRECT and flags (O_RDONLY or
 * O_WRONLY), for the trials' I/Os: they bypass the page cache. */
static inline int open_direct(const char *path, int flags)
{
	int fd = open(path, flags | O_DIRECT);

	if (fd < 0 && errno == EINVAL)
		die("%s: this file system refuses O_DIRECT (open: %s)", path,
		    strerror(errno));
	if (fd < 0)
		die_errno(path);
	return fd;
}

/*
 * The page cache as a trial begins: --cold (cold) drops the file's pages
 * first. Returns the percentage of the file in the cache, and warns once
 * when --cold left some there.
 */
static inline double prepare_cache(int fd, uint64_t size, const char *path, bool cold)
{
	static int warned;

	if (!cold)
		return cached_percent(fd, size, path);
	/* The last trial's read-ahead may still be in flight: its pages land
	 * after a drop, so drop again (up to 5 times, 1 ms apart). */
	double cached = 100;
	for (int drops = 0; drops < 5 && cached > 0; drops++) {
		if (drops > 0)
			usleep(1000);
		drop_cache(fd, path);
		cached = cached_percent(fd, size, path);
	}
	if (cached > 0 && !warned++)
		fprintf(stderr, "%s: warning: --cold: %.1f%% of %s is still in the page "
			"cache after posix_fadvise(DONTNEED) (a tmpfs keeps files only "
			"there); see the cached_pct column\n", iolab_prog, cached, path);
	return cached;
}

/*
 * One whole read (reading) or write of left bytes at off. Like write_all(),
 * but positioned: pread/pwrite may move fewer bytes than asked (a signal),
 * so carry on.
 */
static inline void transfer(int fd, bool reading, char *buf, uint64_t off, size_t left,
			    const char *path)
{
	while (left > 0) {
		ssize_t done = reading ? pread(fd, buf, left, (off_t)off)
				       : pwrite(fd, buf, left, (off_t)off);
		if (done < 0 && errno == EINTR)
			continue;
		if (done < 0)
			die_errno(path);
		if (done == 0)
			die("%s: unexpected end of file at offset %" PRIu64, path, off);
		buf += done;
		off += (uint64_t)done;
		left -= (size_t)done;
	}
}

#endif
