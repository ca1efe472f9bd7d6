/*
 * iopattern - reads or writes a real file in one access pattern and measures
 * each trial: throughput, IOPS and the latency of single I/Os.
 *
 *   seq     I/O i starts at i * IO_SIZE
 *   stride  I/O i starts at i * STRIDE (STRIDE >= IO_SIZE leaves gaps)
 *   random  each I/O starts at an IO_SIZE-aligned offset drawn uniformly,
 *           with replacement, from a seeded generator
 * seq and stride wrap around to the start when --total asks for more than
 * one pass over the file.
 *
 * The file is created and filled before the first trial, outside the timing,
 * so reads read real data and writes overwrite blocks the file already has.
 * What the timing includes is up to the options: the page cache (warm, or
 * --cold), O_DIRECT (--direct) and fsync (--sync). Each trial says how much
 * of the file was in the page cache when it began.
 *
 * By default one pread/pwrite at a time, as most programs do I/O. Two ways
 * to have several I/Os in flight at once: --iodepth N keeps N requests
 * queued with io_uring (Linux 5.1+, through liburing) from one thread, and
 * --jobs N shares the I/Os among N threads, each one pread/pwrite at a time.
 */
#define _GNU_SOURCE	/* O_DIRECT, statx() and its STATX_DIOALIGN */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "hugepages.h"
#include "iolab.h"
#include "rng.h"
#include "stats.h"
#include "timing.h"

/* The Makefile defines IOLAB_HAVE_URING when liburing's headers and library
 * are there (Debian, Ubuntu: liburing-dev). Without them iopattern is built
 * all the same, and --iodepth says it was built without io_uring. */
#ifdef IOLAB_HAVE_URING
#include <liburing.h>
#else
struct io_uring { char unused; };
#endif

static const char usage[] =
	"usage: iopattern --op read|write --pattern seq|stride|random -b IO_SIZE [options] FILE\n"
	"  -o, --op read|write        read the file or write it\n"
	"  -p, --pattern seq|stride|random\n"
	"                             I/Os one after another, --stride bytes apart,\n"
	"                             or at random IO_SIZE-aligned offsets\n"
	"  -b, --io-size IO_SIZE      bytes per read or write (K/M/G suffixes)\n"
	"  -s, --stride BYTES         --pattern stride: from one I/O's start to the next's\n"
	"  -f, --file-size SIZE       the file's size (default: what --total needs, else 64M)\n"
	"  -t, --total BYTES          bytes moved per trial (default: one pass over the file)\n"
	"  -d, --direct               O_DIRECT: bypass the page cache (aligned I/O only)\n"
	"  -c, --cold                 drop the file's cached pages before each trial\n"
	"  -S, --sync none|end|each   writes: no fsync (default), one fsync at the end\n"
	"                             inside the timing, or one after every write\n"
	"  -q, --iodepth N            io_uring: keep N I/Os in flight (1 to 256); the\n"
	"                             program stops if the system refuses io_uring,\n"
	"                             or if it was built without liburing\n"
	"  -j, --jobs N               N threads share the I/Os, each doing one\n"
	"                             pread/pwrite at a time (default 1)\n"
	"      --pages 4k|huge        the I/O buffers' pages: 4 KiB (default), or huge\n"
	"                             (MADV_HUGEPAGE: 2 MiB, physically contiguous)\n"
	"  -r, --trials N             how many trials (default 5)\n"
	"      --seed N               seed of the random offsets (default 1)\n"
	"      --csv                  one CSV row per trial instead of the table\n"
	"      --print-offsets        print the first trial's offsets and exit (no I/O)\n"
	"  -h, --help                 this help\n"
	"FILE must not exist: it is created, filled, measured and removed at exit.\n";

enum op { READ, WRITE };
enum pattern { SEQ, STRIDE, RANDOM };
enum sync_mode { SYNC_NONE, SYNC_END, SYNC_EACH };
static const char *const op_names[] = { "read", "write", NULL };
static const char *const pattern_names[] = { "seq", "stride", "random", NULL };
static const char *const sync_names[] = { "none", "end", "each", NULL };

struct config {
	int op, pattern, sync, direct, cold, csv, print_offsets, huge;
	uint64_t io, stride, file, total, ios, trials, seed;
	uint64_t depth, jobs;	/* depth 0: no io_uring, one pread/pwrite at a time */
	const char *path;
};

/* What one trial measured. */
struct trial {
	double wall_s, cpu_s, bytes_per_ns, mib_s, iops, p50_us, p99_us, mean_us, cached_pct;
	unsigned most;		/* the most I/Os started and not yet seen complete */
	uint64_t data_sum;	/* every I/O's head_word(), added up */
};

/* 4096 -> "4 KiB": sizes as people say them, into buf (at least 32 bytes). */
static const char *human(uint64_t bytes, char *buf)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB" };
	int u = 0;

	while (u < 3 && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, 32, "%" PRIu64 " %s", bytes, units[u]);
	return buf;
}

/* The offsets of one trial; random ones continue the generator's stream. */
static void make_offsets(const struct config *c, struct rng *r, uint64_t *off)
{
	/* BEGIN SOLUTION */
	/* Where an I/O may start and still end inside the file. */
	uint64_t slots = c->pattern == RANDOM ? c->file / c->io
					      : (c->file - c->io) / c->stride + 1;

	for (uint64_t i = 0; i < c->ios; i++)
		off[i] = c->pattern == RANDOM ? rng_below(r, slots) * c->io
					      : (i % slots) * c->stride;
	/* END SOLUTION */
	/* STUB
	// TODO: set off[0 .. c->ios - 1], where each I/O of c->io bytes starts, as
	// the comment at the top says for seq, stride and random (rng_below(r, N)
	// from rng.h). Every I/O must end inside the file (c->file bytes).
	not_written("make_offsets(): the offsets of the I/Os");
	*/
}

/*
 * One whole read or write at off. Like write_all(), but positioned:
 * pread/pwrite may move fewer bytes than asked (a signal), so carry on.
 */
static void transfer(const struct config *c, int fd, char *buf, uint64_t off, size_t left)
{

	while (left > 0) {
		ssize_t done = c->op == READ ? pread(fd, buf, left, (off_t)off)
					     : pwrite(fd, buf, left, (off_t)off);
		if (done < 0 && errno == EINTR)
			continue;
		if (done < 0)
			die_errno(c->path);
		if (done == 0)
			die("%s: unexpected end of file at offset %" PRIu64, c->path, off);
		buf += done;
		off += (uint64_t)done;
		left -= (size_t)done;
	}
}

/* Percentage of the file's pages in the page cache, by mincore() on a mapping. */
static double cached_percent(const struct config *c, int fd)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = (c->file + page - 1) / page, resident = 0;
	unsigned char *vec = xmalloc(pages);
	void *map = mmap(NULL, c->file, PROT_READ, MAP_SHARED, fd, 0);

	if (map == MAP_FAILED || mincore(map, c->file, vec) != 0)
		die_errno(c->path);
	for (size_t i = 0; i < pages; i++)
		resident += vec[i] & 1;
	if (munmap(map, c->file) != 0)
		die_errno(c->path);
	free(vec);
	return 100.0 * (double)resident / (double)pages;
}

/* --cold: dirty pages cannot be dropped, so write them back first. */
static void drop_cache(const struct config *c, int fd)
{
	int err;

	if (fdatasync(fd) != 0)
		die_errno(c->path);
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (err != 0) {
		errno = err;	/* posix_fadvise returns the error instead */
		die_errno(c->path);
	}
}

/*
 * The alignment O_DIRECT needs for offsets and sizes on this file, and for
 * the buffer in memory: statx() says, where the kernel (6.1+) knows;
 * else assume 4096, which every common file system accepts.
 */
static void dio_alignment(const struct config *c, int fd, uint32_t *offset, uint32_t *memory)
{
	/* BEGIN SOLUTION */
	*offset = *memory = 4096;
#ifdef STATX_DIOALIGN
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) != 0)
		die_errno(c->path);
	if (stx.stx_mask & STATX_DIOALIGN) {
		if (stx.stx_dio_offset_align == 0)
			die("%s: this file system does not support O_DIRECT (try another directory)",
			    c->path);
		*offset = stx.stx_dio_offset_align;
		*memory = stx.stx_dio_mem_align;
	}
#endif
	/* END SOLUTION */
	/* STUB
	// TODO: ask statx() for STATX_DIOALIGN: stx_dio_offset_align (0: no O_DIRECT
	// on this file) and stx_dio_mem_align; where the kernel cannot say, 4096.
	not_written("dio_alignment(): the alignment O_DIRECT needs");
	*/
}

/* --direct: refuses, as a usage error naming the option, an I/O size or a
 * stride that is not a multiple of align, which O_DIRECT would fail with
 * EINVAL. */
static void check_dio_sizes(const struct config *c, uint32_t align)
{
	/* BEGIN SOLUTION */
	if (c->io % align != 0)
		usage_error("-b: %" PRIu64 " bytes is not a multiple of the %" PRIu32
			    "-byte alignment O_DIRECT needs on %s", c->io, align, c->path);
	if (c->stride % align != 0)
		usage_error("--stride: %" PRIu64 " bytes is not a multiple of the %" PRIu32
			    "-byte alignment O_DIRECT needs on %s", c->stride, align, c->path);
	/* END SOLUTION */
	/* STUB
	// TODO: refuse (usage_error(), naming -b or --stride) an I/O size or a
	// stride that is not a multiple of align.
	not_written("check_dio_sizes(): refusing sizes O_DIRECT cannot use");
	*/
}

/* Creates FILE, which must not exist: it is removed at exit. */
static int create_file(const struct config *c)
{
	struct stat st;

	/* Refuse an existing file before registering it for removal. */
	if (lstat(c->path, &st) == 0)
		die("%s: already exists; iopattern creates its own file (and removes it)",
		    c->path);
	cleanup_add(c->path);
	int fd = open(c->path, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		die_errno(c->path);
	return fd;
}

/*
 * n bytes from r: random data, which no disk or file system can compress,
 * nor deduplicate as long as r goes on from one call to the next (a
 * virtual disk's host may do either).
 */
static void random_bytes(struct rng *r, void *p, size_t n)
{
	uint64_t word;

	for (size_t i = 0; i < n; i += sizeof word) {
		word = rng_next(r);
		memcpy((char *)p + i, &word, n - i < sizeof word ? n - i : sizeof word);
	}
}

/* Fills the file before the trials, so that reads find real data: new
 * random bytes for every chunk, not one chunk over and over. */
static void fill(const struct config *c, int fd, struct rng *r)
{
	enum { CHUNK = 1 << 20 };
	char *chunk = xmalloc(CHUNK);

	for (uint64_t left = c->file, n; left > 0; left -= n) {
		n = left < CHUNK ? left : CHUNK;
		random_bytes(r, chunk, n);
		if (write_all(fd, chunk, n) != 0)
			die_errno(c->path);
	}
	if (fdatasync(fd) != 0)	/* no write-back left over to disturb trial 1 */
		die_errno(c->path);
	free(chunk);
}

/* Nearest-rank percentile p of the sorted x[0..n-1]. */
static int64_t percentile(const int64_t *x, uint64_t n, double p)
{
	uint64_t rank = (uint64_t)ceil(p / 100 * (double)n);

	return x[rank > 0 ? rank - 1 : 0];
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The first bytes of an I/O's data (up to 8) as a number. Added up over a
 * trial, they depend only on which offsets were read, not on the order: the
 * same for one I/O at a time, at any --iodepth and with any --jobs.
 */
static uint64_t head_word(const struct config *c, const char *buf)
{
	uint64_t word = 0;

	memcpy(&word, buf, c->io < sizeof word ? c->io : sizeof word);
	return word;
}

/* How many I/Os are in a pread/pwrite now, and the most there were this trial. */
static atomic_uint busy, most_busy;

/* One thread's share of a trial: I/Os first .. end - 1, one at a time. */
struct share {
	const struct config *c;
	int fd;
	char *buf;
	const uint64_t *off;
	int64_t *lat;
	uint64_t first, end, sum;
	pthread_t thread;
};

/* Synchronous I/O. Each I/O's latency ends where the next one's begins. */
static void *run_share(void *arg)
{
	struct share *s = arg;
	const struct config *c = s->c;
	int64_t prev = now_ns();
	uint64_t sum = 0;	/* here, not in *s: the shares sit side by side */

	for (uint64_t i = s->first; i < s->end; i++) {
		unsigned now_busy = atomic_fetch_add(&busy, 1) + 1;
		unsigned most = atomic_load(&most_busy);

		while (now_busy > most && !atomic_compare_exchange_weak(&most_busy, &most, now_busy))
			;	/* most is reloaded by the failed exchange */
		transfer(c, s->fd, s->buf, s->off[i], c->io);
		atomic_fetch_sub(&busy, 1);
		if (c->sync == SYNC_EACH && fsync(s->fd) != 0)
			die_errno(c->path);
		sum += head_word(c, s->buf);
		int64_t now = now_ns();
		s->lat[i] = now - prev;
		prev = now;
	}
	s->sum = sum;
	return NULL;
}

/*
 * --jobs: the I/Os cut into c->jobs consecutive shares, one per thread, each
 * with its own buffer; the main thread does the first share itself (so one
 * job starts no thread at all). Returns the data sum; sets *most.
 */
static uint64_t run_jobs(const struct config *c, int fd, char **bufs, const uint64_t *off,
			 int64_t *lat, unsigned *most)
{
	struct share *s = xmalloc(c->jobs * sizeof *s);
	uint64_t sum = 0;
	int err;

	atomic_store(&most_busy, 0);
	for (uint64_t j = 0; j < c->jobs; j++) {
		s[j] = (struct share){ .c = c, .fd = fd, .buf = bufs[j], .off = off, .lat = lat,
				       .first = c->ios * j / c->jobs,
				       .end = c->ios * (j + 1) / c->jobs };
		if (j > 0 && (err = pthread_create(&s[j].thread, NULL, run_share, &s[j])) != 0)
			die("pthread_create: %s", strerror(err));
	}
	run_share(&s[0]);
	for (uint64_t j = 0; j < c->jobs; j++) {
		if (j > 0 && (err = pthread_join(s[j].thread, NULL)) != 0)
			die("pthread_join: %s", strerror(err));
		sum += s[j].sum;
	}
	*most = atomic_load(&most_busy);
	free(s);
	return sum;
}

/*
 * --iodepth: io_uring, from this one thread. The ring has c->depth slots,
 * each with its own buffer. Every free slot takes the next I/O; they are all
 * submitted in one system call; a second one waits for the first completion
 * if none is in yet; every completion then seen frees its slot for the next
 * round. An I/O's latency runs from its submission to the moment its
 * completion is seen. Returns the data sum; sets *most.
 *
 * Why two calls, not io_uring_submit_and_wait(): measured on a 2-core VM's
 * virtio disk at depth 32, one call for both (or a ring set up without
 * DEFER_TASKRUN, see main) saw all 32 completions at every wake-up, so
 * nothing was queued at the disk while the program handed it the next 32:
 * 15% fewer IOPS than fio. Submitting, then waiting, on a ring that posts
 * completions when its thread asks for them (as fio does) saw 1, 11 or 20
 * at a time: new requests reach the disk while older ones are served.
 */
#ifdef IOLAB_HAVE_URING
static uint64_t run_ring(const struct config *c, struct io_uring *ring, int fd, char **bufs,
			 const uint64_t *off, int64_t *lat, unsigned *most)
{
	/* BEGIN SOLUTION */
	uint64_t *slot_io = xmalloc(c->depth * sizeof *slot_io);	/* which I/O a slot holds */
	int64_t *slot_start = xmalloc(c->depth * sizeof *slot_start);
	uint64_t next = 0, done = 0, sum = 0;
	unsigned in_flight = 0;
	int err;

	*most = 0;
	unsigned *idle = xmalloc(c->depth * sizeof *idle), n_idle = 0;

	for (unsigned i = 0; i < c->depth; i++)
		idle[n_idle++] = i;
	while (done < c->ios) {
		int64_t now = now_ns();

		for (; n_idle > 0 && next < c->ios; next++, in_flight++) {
			unsigned slot = idle[--n_idle];
			/* Never NULL: the ring has c->depth entries, at most that many in use. */
			struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

			if (c->op == READ)
				io_uring_prep_read(sqe, fd, bufs[slot], (unsigned)c->io, off[next]);
			else
				io_uring_prep_write(sqe, fd, bufs[slot], (unsigned)c->io, off[next]);
			io_uring_sqe_set_data(sqe, (void *)(uintptr_t)slot);
			slot_io[slot] = next;
			slot_start[slot] = now;
		}
		if (in_flight > *most)
			*most = in_flight;
		struct io_uring_cqe *cqe;

		do	/* liburing returns -errno; an interrupted call did nothing */
			err = io_uring_submit(ring);
		while (err == -EINTR);
		if (err >= 0 && io_uring_cq_ready(ring) == 0)
			do
				err = io_uring_wait_cqe(ring, &cqe);
			while (err == -EINTR);
		if (err < 0) {
			errno = -err;
			die_errno(c->path);
		}
		now = now_ns();
		unsigned head, seen = 0;

		io_uring_for_each_cqe(ring, head, cqe) {
			unsigned slot = (unsigned)(uintptr_t)io_uring_cqe_get_data(cqe);
			uint64_t i = slot_io[slot];

			if (cqe->res < 0) {
				errno = -cqe->res;
				die_errno(c->path);
			}
			/* A short transfer (a signal, the end of the file): finish it here. */
			if ((uint64_t)cqe->res < c->io)
				transfer(c, fd, bufs[slot] + cqe->res, off[i] + (uint64_t)cqe->res,
					 c->io - (uint64_t)cqe->res);
			lat[i] = now - slot_start[slot];
			sum += head_word(c, bufs[slot]);
			idle[n_idle++] = slot;
			seen++;
		}
		io_uring_cq_advance(ring, seen);
		in_flight -= seen;
		done += seen;
	}
	free(idle);
	free(slot_io);
	free(slot_start);
	return sum;
	/* END SOLUTION */
	/* STUB
	// TODO: keep up to c->depth I/Os in flight, as the comment above says:
	// slot s uses bufs[s] (keep, per slot, which I/O it holds and when it was
	// submitted); io_uring_get_sqe, io_uring_prep_read or _write,
	// io_uring_sqe_set_data(sqe, (void *)(uintptr_t)s), io_uring_submit(ring), then, if
	// io_uring_cq_ready(ring) is 0, io_uring_wait_cqe(ring, &cqe),
	// io_uring_for_each_cqe and io_uring_cq_advance (man 7 io_uring); finish
	// a short transfer with transfer(). For every I/O i: lat[i], and
	// sum += head_word(c, buffer); return sum. *most = the most I/Os in
	// flight at once.
	not_written("run_ring(): the io_uring loop of --iodepth");
	*/
}
#endif

/* One timed trial: one I/O at a time, --jobs threads or --iodepth with io_uring. */
static struct trial run_trial(const struct config *c, struct io_uring *ring, int fd,
			      char **bufs, const uint64_t *off, int64_t *lat)
{
	struct trial t = { 0 };
	int64_t cpu0 = process_cpu_ns(), start = now_ns(), sum = 0;

#ifdef IOLAB_HAVE_URING
	if (c->depth > 0)
		t.data_sum = run_ring(c, ring, fd, bufs, off, lat, &t.most);
	else
#endif
		t.data_sum = run_jobs(c, fd, bufs, off, lat, &t.most);
	if (c->sync == SYNC_END && fsync(fd) != 0)
		die_errno(c->path);
	int64_t wall = now_ns() - start;

	t.cpu_s = ns_to_s(process_cpu_ns() - cpu0);
	t.wall_s = ns_to_s(wall);
	t.bytes_per_ns = (double)c->total / (double)(wall > 0 ? wall : 1);
	t.mib_s = (double)c->total / (1 << 20) / t.wall_s;
	t.iops = (double)c->ios / t.wall_s;
	for (uint64_t i = 0; i < c->ios; i++)
		sum += lat[i];
	t.mean_us = (double)sum / (double)c->ios / 1000;
	qsort(lat, c->ios, sizeof *lat, cmp_i64);
	t.p50_us = (double)percentile(lat, c->ios, 50) / 1000;
	t.p99_us = (double)percentile(lat, c->ios, 99) / 1000;
	return t;
}

static void print_csv(const struct config *c, const struct trial *t, struct summary s)
{
	puts("op,pattern,io_bytes,stride_bytes,file_bytes,direct,cold,sync,seed,trial,ios,"
	     "bytes,wall_s,cpu_s,bytes_per_ns,mib_s,iops,lat_p50_us,lat_p99_us,cached_pct,"
	     "median_bytes_per_ns,mean_bytes_per_ns,stddev_bytes_per_ns,ci95_bytes_per_ns,"
	     "iodepth,jobs,max_in_flight,lat_mean_us,data_sum");
	for (uint64_t i = 0; i < c->trials; i++)
		printf("%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d,%d,%s,%" PRIu64 ",%" PRIu64
		       ",%" PRIu64 ",%" PRIu64 ",%.9f,%.9f,%.9g,%.6g,%.6g,%.3f,%.3f,%.1f,"
		       "%.9g,%.9g,%.9g,%.9g,%" PRIu64 ",%" PRIu64 ",%u,%.3f,%" PRIu64 "\n",
		       op_names[c->op], pattern_names[c->pattern], c->io,
		       c->pattern == RANDOM ? 0 : c->stride, c->file, c->direct, c->cold,
		       sync_names[c->sync], c->seed, i + 1, c->ios, c->total, t[i].wall_s,
		       t[i].cpu_s, t[i].bytes_per_ns, t[i].mib_s, t[i].iops, t[i].p50_us,
		       t[i].p99_us, t[i].cached_pct, s.median, s.mean, s.stddev, s.ci95, c->depth,
		       c->jobs, t[i].most, t[i].mean_us, t[i].data_sum);
}

/* One line of the summary: s scaled by unit (a rate in another unit is proportional). */
static void print_spread(const char *name, struct summary s, double unit)
{
	printf("%-14s %11.6g %11.6g %11.6g   %.6g .. %.6g\n", name, s.median * unit,
	       s.mean * unit, s.stddev * unit, (s.mean - s.ci95) * unit, (s.mean + s.ci95) * unit);
}

static void print_table(const struct config *c, const struct trial *t, struct summary s,
			uint32_t align)
{
	char io[32], stride[32], file[32], total[32], over[32];

	printf("%s %s: %s I/Os", op_names[c->op], pattern_names[c->pattern], human(c->io, io));
	if (c->pattern == STRIDE)
		printf(" every %s", human(c->stride, stride));
	printf(", %" PRIu64 " of them (%s) per trial, file %s\n", c->ios,
	       human(c->total, total), human(c->file, file));
	printf("%s", c->direct ? "O_DIRECT" : "buffered");
	if (c->direct)
		printf(" (%" PRIu32 "-byte alignment)", align);
	printf(", %s, fsync: %s, buffers in %s pages, seed %" PRIu64 ", %s\n",
	       c->cold ? "cold: cached pages dropped before each trial" : "warm cache",
	       sync_names[c->sync], page_names[c->huge], c->seed, c->path);
	if (c->depth > 0)
		printf("io_uring, up to %" PRIu64 " I/Os in flight", c->depth);
	else if (c->jobs > 1)
		printf("pread/pwrite, one at a time in each of %" PRIu64 " threads", c->jobs);
	else
		printf("pread/pwrite, one at a time");
	printf(" (the most in flight at once: %u in trial 1)\n", t[0].most);
	printf("%5s %10s %10s %9s %10s %10s %9s %9s %7s\n", "trial", "wall_s", "cpu_s",
	       "bytes/ns", "MiB/s", "IOPS", "p50_us", "p99_us", "cached");
	for (uint64_t i = 0; i < c->trials; i++)
		printf("%5" PRIu64 " %10.6f %10.6f %9.4g %10.1f %10.0f %9.1f %9.1f %6.1f%%\n",
		       i + 1, t[i].wall_s, t[i].cpu_s, t[i].bytes_per_ns, t[i].mib_s,
		       t[i].iops, t[i].p50_us, t[i].p99_us, t[i].cached_pct);
	snprintf(over, sizeof over, "over %" PRIu64 " trials", c->trials);
	printf("%-14s %11s %11s %11s   %s (Student t, %" PRIu64 " df)\n", over, "median",
	       "mean", "stddev", "95% CI of the mean", c->trials - 1);
	print_spread("bytes/ns", s, 1);
	print_spread("MiB/s", s, 1e9 / (1 << 20));
	print_spread("IOPS", s, 1e9 / (double)c->io);
}

/* Parses the command line, checks it, and works out the sizes not given. */
static void configure(int argc, char **argv, struct config *c)
{
	static const struct option options[] = {
		{ "op", required_argument, NULL, 'o' },
		{ "pattern", required_argument, NULL, 'p' },
		{ "io-size", required_argument, NULL, 'b' },
		{ "stride", required_argument, NULL, 's' },
		{ "file-size", required_argument, NULL, 'f' },
		{ "total", required_argument, NULL, 't' },
		{ "direct", no_argument, NULL, 'd' },
		{ "cold", no_argument, NULL, 'c' },
		{ "sync", required_argument, NULL, 'S' },
		{ "iodepth", required_argument, NULL, 'q' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "pages", required_argument, NULL, 'g' },
		{ "trials", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 'e' },
		{ "csv", no_argument, NULL, 'C' },
		{ "print-offsets", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const uint64_t max_size = (uint64_t)1 << 40, max_ios = 1 << 22;
	int opt;

	*c = (struct config){ .op = -1, .pattern = -1, .trials = 5, .seed = 1, .jobs = 1 };
	while ((opt = getopt_long(argc, argv, "o:p:b:s:f:t:dcS:q:j:r:h", options, NULL)) != -1) {
		switch (opt) {
		case 'o': c->op = parse_choice("--op", optarg, op_names); break;
		case 'p': c->pattern = parse_choice("--pattern", optarg, pattern_names); break;
		case 'b': c->io = parse_size("-b", optarg, 1, (uint64_t)1 << 30); break;
		case 's': c->stride = parse_size("--stride", optarg, 1, max_size); break;
		case 'f': c->file = parse_size("--file-size", optarg, 1, max_size); break;
		case 't': c->total = parse_size("--total", optarg, 1, max_size); break;
		case 'd': c->direct = 1; break;
		case 'c': c->cold = 1; break;
		case 'S': c->sync = parse_choice("--sync", optarg, sync_names); break;
		case 'q': c->depth = parse_count("--iodepth", optarg, 1, 256); break;
		case 'j': c->jobs = parse_count("--jobs", optarg, 1, 64); break;
		case 'g': c->huge = parse_choice("--pages", optarg, page_names); break;
		case 'r': c->trials = parse_count("-r", optarg, 1, 1000); break;
		case 'e': c->seed = parse_count("--seed", optarg, 0, UINT64_MAX); break;
		case 'C': c->csv = 1; break;
		case 'P': c->print_offsets = 1; break;
		case 'h': print_help();
		default: usage_exit();
		}
	}
	if (c->op < 0 || c->pattern < 0 || c->io == 0)
		usage_error("--op, --pattern and -b are required");
	if (argc - optind != 1)
		usage_error("expected one FILE, got %d arguments", argc - optind);
	c->path = argv[optind];
	if (c->op == READ && c->sync != SYNC_NONE)
		usage_error("--sync: reads have nothing to fsync; use it with --op write");
	if (c->depth > 0 && c->jobs > 1)
		usage_error("--iodepth and --jobs: one or the other (io_uring runs in one thread)");
	if (c->depth > 0 && c->sync == SYNC_EACH)
		usage_error("--sync each: an fsync after every write waits for it; not with --iodepth");
	if ((c->depth > c->jobs ? c->depth : c->jobs) * c->io > (uint64_t)1 << 30)
		usage_error("-b: %" PRIu64 " bytes for each of %" PRIu64 " buffers is over 1 GiB",
			    c->io, c->depth > c->jobs ? c->depth : c->jobs);
	if (c->pattern != STRIDE && c->stride != 0)
		usage_error("--stride: only with --pattern stride");
	if (c->pattern == STRIDE && c->stride == 0)
		usage_error("--pattern stride needs --stride");
	if (c->pattern == STRIDE && c->stride < c->io)
		usage_error("--stride: %" PRIu64 " bytes is less than the I/O size, %" PRIu64,
			    c->stride, c->io);
	if (c->pattern != STRIDE)
		c->stride = c->io;	/* seq: each I/O starts where the last one ended */
	if (c->total % c->io != 0)
		usage_error("--total: %" PRIu64 " bytes is not a whole number of %" PRIu64
			    "-byte I/Os", c->total, c->io);

	if (c->file == 0 && c->total == 0)
		c->file = c->io > ((uint64_t)64 << 20) ? c->io : (uint64_t)64 << 20;
	if (c->file == 0) {
		/* Just big enough for one pass of --total. */
		uint64_t n = c->total / c->io;

		if (c->pattern != RANDOM && n - 1 > (max_size - c->io) / c->stride)
			usage_error("--total: %" PRIu64 " I/Os %" PRIu64 " bytes apart need a "
				    "file over 1 TiB", n, c->stride);
		c->file = c->pattern == RANDOM ? c->total : (n - 1) * c->stride + c->io;
	}
	if (c->file < c->io)
		usage_error("--file-size: %" PRIu64 " bytes cannot hold one %" PRIu64 "-byte I/O",
			    c->file, c->io);
	if (c->total == 0)	/* one pass: every slot once (random: as many draws) */
		c->total = (c->pattern == RANDOM ? c->file / c->io
						 : (c->file - c->io) / c->stride + 1) * c->io;
	c->ios = c->total / c->io;
	if (c->ios > max_ios)
		usage_error("--total: %" PRIu64 " I/Os per trial is more than the %" PRIu64
			    " this program keeps latencies for", c->ios, max_ios);
}

int main(int argc, char **argv)
{
	struct config c;
	struct rng rng, data;	/* the offsets' generator (--seed), the bytes' */
	struct io_uring ring;
	uint32_t align = 0, mem_align = 0;
	int fd, iofd, err, warned = 0;

	iolab_init(argv[0], usage);
	configure(argc, argv, &c);
	uint64_t *off = xmalloc(c.ios * sizeof *off);
	rng_seed(&rng, c.seed);
	if (c.print_offsets) {
		make_offsets(&c, &rng, off);
		for (uint64_t i = 0; i < c.ios; i++)
			printf("%" PRIu64 "\n", off[i]);
		if (fflush(stdout) != 0)
			die_errno("stdout");
		free(off);
		return 0;
	}
	int64_t *lat = xmalloc(c.ios * sizeof *lat);
	struct trial *t = xmalloc(c.trials * sizeof *t);

	/* Before the file: where io_uring is refused (a kernel before 5.1, a
	 * sysctl, a container's seccomp filter), say so and stop, never fall
	 * back to something else under the same name. The ring posts
	 * completions only when this thread asks for them (Linux 6.1+; see
	 * run_ring), as fio sets up its rings; an older kernel, or liburing's
	 * headers before 2.3 (Ubuntu 22.04 has 2.1), get a plain one. */
	if (c.depth > 0) {
#ifndef IOLAB_HAVE_URING
		die("--iodepth needs io_uring, and this iopattern was built without liburing "
		    "(install liburing-dev, then make); without --iodepth, I/O is one "
		    "pread/pwrite at a time");
#else
#ifdef IORING_SETUP_DEFER_TASKRUN
		err = io_uring_queue_init((unsigned)c.depth, &ring,
					  IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
		if (err == -EINVAL)
#endif
			err = io_uring_queue_init((unsigned)c.depth, &ring, 0);
		if (err != 0)
			die("--iodepth needs io_uring, which this system refuses (io_uring_setup: "
			    "%s); without --iodepth, I/O is one pread/pwrite at a time",
			    strerror(-err));
#endif
	}
	cleanup_init();
	fd = create_file(&c);
	if (c.direct) {
		/* Checked on the empty file: refused before anything is written. */
		dio_alignment(&c, fd, &align, &mem_align);
		check_dio_sizes(&c, align);
	}
	rng_seed(&data, 0);
	fill(&c, fd, &data);
	iofd = fd;
	if (c.direct) {
		iofd = open(c.path, (c.op == READ ? O_RDONLY : O_WRONLY) | O_DIRECT);
		if (iofd < 0 && errno == EINVAL)
			die("%s: this file system refuses O_DIRECT (open: %s)", c.path,
			    strerror(errno));
		if (iofd < 0)
			die_errno(c.path);
	}
	/* A buffer for each thread or io_uring slot, one after another in one
	 * mapping, each starting on a multiple of 4 KiB (or of a larger O_DIRECT
	 * memory alignment). With --pages huge a buffer lies in physically
	 * contiguous memory; with 4 KiB pages it is wherever each page landed,
	 * and a disk's DMA takes it as one piece per page (on a virtual disk
	 * that can cost more than the data: see the README). */
	uint64_t nbufs = c.depth > c.jobs ? c.depth : c.jobs;
	uint64_t unit = mem_align > 4096 ? mem_align : 4096, step = (c.io + unit - 1) / unit * unit;
	char *region = (char *)map_pages(nbufs * step, c.huge, &err);
	if (region == NULL)
		die("out of memory (%" PRIu64 " bytes of buffers)", nbufs * step);
	if (c.huge)
		say_if_no_huge_pages(err, "");
	char **bufs = xmalloc(nbufs * sizeof *bufs);
	for (uint64_t i = 0; i < nbufs; i++) {
		bufs[i] = region + i * step;
		random_bytes(&data, bufs[i], c.io);
	}

	for (uint64_t i = 0; i < c.trials; i++) {
		make_offsets(&c, &rng, off);	/* outside the timing */
		if (c.cold)
			drop_cache(&c, fd);
		double cached = cached_percent(&c, fd);
		if (c.cold && cached > 0 && !warned++)
			fprintf(stderr, "%s: warning: --cold: %.1f%% of %s is still in the page "
				"cache after posix_fadvise(DONTNEED) (a tmpfs keeps files only "
				"there); see the cached_pct column\n", iolab_prog, cached, c.path);
		t[i] = run_trial(&c, &ring, iofd, bufs, off, lat);
		t[i].cached_pct = cached;
	}

	/* The spread of the throughput; MiB/s and IOPS are proportional to it. */
	double *x = xmalloc(c.trials * sizeof *x), *scratch = xmalloc(c.trials * sizeof *x);
	for (uint64_t i = 0; i < c.trials; i++)
		x[i] = t[i].bytes_per_ns;
	struct summary s = summarize(x, c.trials, scratch);
	if (c.csv)
		print_csv(&c, t, s);
	else
		print_table(&c, t, s, align);
	if (fflush(stdout) != 0)
		die_errno("stdout");
	if ((iofd != fd && close(iofd) != 0) || close(fd) != 0)
		die_errno(c.path);
#ifdef IOLAB_HAVE_URING
	if (c.depth > 0)
		io_uring_queue_exit(&ring);
#endif
	free(x);
	free(scratch);
	free(bufs);	/* their mapping goes with the process */
	free(t);
	free(lat);
	free(off);
	return 0;
}
