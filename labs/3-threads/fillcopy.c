/*
 * fillcopy - threads on memory and on files. THREADS threads, started once,
 * go through three phases together, each timed on its own:
 *
 *   fill   every thread fills its chunk of a buffer with random bytes
 *   copy   every thread copies its chunk into a second buffer
 *   dump   the threads take files from a shared counter; file K gets
 *          slice K of the buffer (with --passes N, every file N times over)
 *
 * A phase's elapsed time runs from the first thread's start to the last
 * one's end; its CPU time and page faults are the threads' own, added up.
 * Starting the threads and creating the empty files are not timed.
 *
 * It redoes "Read/write performance: single thread vs multithread" (see
 * data/reference/README.md) without that program's mistakes:
 *   - the chunks cover the buffer exactly: none skips its last byte, and
 *     the remainder of the division goes to the last chunk (slice());
 *   - the default generator keeps its state in each thread, where rand()
 *     has one state for the whole process behind one lock (--rng rand
 *     shows what that costs);
 *   - file K always holds slice K, whichever thread writes it;
 *   - --prefault takes the first-touch page faults out of the timing, and
 *     --pages huge makes them 512 times fewer;
 *   - the dump files are removed at the end, on errors and on Ctrl-C.
 */
#define _GNU_SOURCE	/* RUSAGE_THREAD, MADV_HUGEPAGE (Linux) */
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statvfs.h>

#include "cleanup.h"
#include "hugepages.h"
#include "iolab.h"
#include "rng.h"
#include "timing.h"

#define MAX_THREADS 256
#define MAX_FILES 10000

enum gen { XOSHIRO, RAND_R, RAND };
static const char *const gen_names[] = { "xoshiro", "rand_r", "rand", NULL };
static const char *const copy_names[] = { "memcpy", "bytes", NULL };

/* The run's settings and buffers: set by main() before any thread starts,
 * then only read (the buffers' bytes excepted: each thread writes its own). */
static size_t size = (size_t)255 << 20, nthreads = 1, nfiles = 10, passes = 1;
static enum gen gen = XOSHIRO;
static bool copy_bytes, do_fsync, pre, huge;
static unsigned char *buf, *copy;
static char **paths;

/* The dump's shared state: the next file to take (counting on through the
 * passes: file K again after NFILES), and whether a thread failed. */
static atomic_size_t next_file;
static atomic_bool dump_failed;

/* Every thread waits here before each phase: no thread starts a phase
 * before all have finished the one before. */
static pthread_barrier_t phase_start;

enum { FILL, COPY, DUMP, PHASES };
static const char *const phase_names[PHASES] = {
	[FILL] = "fill", [COPY] = "copy", [DUMP] = "dump",
};

/* One thread's share of a phase: when it started and ended on the
 * monotonic clock, and the CPU time and minor page faults it used. */
struct span {
	int64_t start_ns, end_ns, cpu_ns;
	long faults;
};

/*
 * One per thread. alignas(64) starts each on a cache line of its own:
 * rand_r() writes its state on every call, and if two threads' states
 * shared a line, the line would bounce between their cores (false sharing).
 */
struct worker {
	alignas(64) pthread_t thread;
	size_t from, to;	/* its chunk of the buffers: bytes [from, to) */
	struct rng rng;		/* xoshiro256** state */
	unsigned seed;		/* rand_r() state */
	int err;		/* dump: errno of the call that failed, or 0 */
	size_t err_file;	/* dump: the file it failed on */
	struct span spans[PHASES];
};
static struct worker workers[MAX_THREADS];

/* Part k of total cut into n equal parts, the last one taking the remainder. */
static void slice(size_t total, size_t n, size_t k, size_t *from, size_t *to)
{
	/* BEGIN SOLUTION */
	*from = k * (total / n);
	*to = k == n - 1 ? total : *from + total / n;
	/* END SOLUTION */
	/* STUB
	// TODO: set [*from, *to) to part k of [0, total) cut into n parts. Every
	// byte in exactly one part; the remainder of the division goes to the last.
	not_written("slice(): cutting the buffer into chunks");
	*/
}

/* Fills buf[i, end) from w's own xoshiro256** generator, w->rng. */
static void fill_xoshiro(struct worker *w, size_t i, size_t end)
{
	/* BEGIN SOLUTION */
	struct rng r = w->rng;
	unsigned char *p = buf;	/* the global buf would be reloaded after every store */
	uint64_t v;

	for (; end - i >= 8; i += 8) {
		v = rng_next(&r);
		memcpy(p + i, &v, 8);
	}
	if (i < end) {
		v = rng_next(&r);
		memcpy(p + i, &v, end - i);	/* the last 1 to 7 bytes */
	}
	/* END SOLUTION */
	/* STUB
	// TODO: fill buf[i, end) from this thread's own generator, w->rng (rng.h):
	// each rng_next() gives the next 8 bytes, memcpy'd as the machine stores
	// the uint64_t (its byte order); the last 1 to 7 bytes are the first
	// bytes of one more rng_next(). Work on local copies of w->rng and of
	// buf (see fill()).
	not_written("fill_xoshiro(): the per-thread generator (--rng xoshiro)");
	*/
}

/* Seeds worker k's two generators, workers[k].rng (xoshiro) and
 * workers[k].seed (rand_r()). */
static void seed_worker(size_t k)
{
	/* BEGIN SOLUTION */
	rng_seed(&workers[k].rng, k + 1);
	workers[k].seed = (unsigned)k + 1;
	/* END SOLUTION */
	/* STUB
	// TODO: seed both of thread k's generators with k + 1 (rng_seed() for
	// workers[k].rng; workers[k].seed is rand_r()'s state itself): every thread its
	// own stream, the same on every run (the grader compares the bytes).
	not_written("seed_worker(): seeding each thread's generators");
	*/
}

static void fill(struct worker *w)
{
	size_t i = w->from, end = w->to;

	/* Locals (i, end, a copy of the generator's state and of the pointer
	 * buf) can stay in registers. Fields of *w, and the global buf itself,
	 * would be reloaded after every store into buf: unsigned char may alias
	 * anything. Measured with --prefault at 1 thread, the copy of buf
	 * alone made the xoshiro fill 1.47x faster (9,500 against 6,450 MiB/s),
	 * as fast as the generator alone (membw -g). */
	if (gen == XOSHIRO) {
		fill_xoshiro(w, i, end);
	} else if (gen == RAND_R) {
		for (; i < end; i++)
			buf[i] = (unsigned char)rand_r(&w->seed);	/* in memory: we pass its address */
	} else {
		/* glibc: every call takes the process-wide lock around rand()'s state. */
		for (; i < end; i++)
			buf[i] = (unsigned char)rand();
	}
}

static void copy_chunk(struct worker *w)
{
	if (!copy_bytes) {
		memcpy(copy + w->from, buf + w->from, w->to - w->from);
		return;
	}
	/* GCC 12 at -O2 keeps this one byte per load and store (objdump -d shows
	 * yours); other compilers may vectorise it or turn it into memcpy. */
	for (size_t i = w->from; i < w->to; i++)
		copy[i] = buf[i];
}

/* Writes slice k of the buffer into file k, which main() has created.
 * Returns 0, or -1 with errno set. */
static int write_file(size_t k)
{
	size_t from, to;
	int fd = open(paths[k], O_WRONLY);

	if (fd < 0)
		return -1;
	slice(size, nfiles, k, &from, &to);
	if (write_all(fd, buf + from, to - from) != 0 || (do_fsync && fsync(fd) != 0)) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return close(fd);
}

/* All the passes over the files in one call: a pass rewrites each file
 * with the same bytes, in its page-cache pages that the first pass made,
 * and a thread that has no file left in this pass takes one of the next
 * (two threads may write one file at once: the same bytes at the same
 * offsets). One dump of 64 MiB lasts tens of ms, a few time slices of
 * another program; the passes make it long enough to time.
 * A failure is left for main() to report once every thread has stopped:
 * two threads calling exit() at once is undefined behaviour. */
static void dump(struct worker *w)
{
	while (!atomic_load(&dump_failed)) {
		size_t k = atomic_fetch_add(&next_file, 1);

		if (k >= nfiles * passes)
			break;
		if (write_file(k % nfiles) != 0) {
			w->err = errno;
			w->err_file = k % nfiles;
			atomic_store(&dump_failed, true);
		}
	}
}

static long thread_faults(void)
{
	struct rusage ru;

	/* Cannot fail with a valid "who" and address; -1 would show in the output. */
	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return -1;
	return ru.ru_minflt;
}

/*
 * Writes a byte in every page of p[from, to), so that the kernel maps them
 * now and not on first touch inside a timed phase: the chunk's first and
 * last bytes, and one every page size between them. Each thread touches
 * bytes of its own chunk only. volatile: what matters is the page fault
 * each store causes, which the compiler does not see; it could otherwise
 * drop stores of 0 into memory that the fill overwrites anyway.
 */
static void prefault(unsigned char *p, size_t from, size_t to)
{
	volatile unsigned char *v = p;
	const size_t page = 4096;	/* the smallest page size on Linux */

	for (size_t i = from; i < to; i += page)
		v[i] = 0;
	if (to > from)
		v[to - 1] = 0;
}

/*
 * The life of one thread: --prefault's touches, not timed, then the three
 * phases, each after the barrier. Every thread measures its own share with
 * its own clocks, so that neither the cost of starting threads nor the wait
 * in the barrier is in the timing. The same thread fills and then copies
 * its chunk: the chunk's last bytes are still in the cache of the core
 * that wrote them.
 */
static void *work(void *arg)
{
	static void (*const run[PHASES])(struct worker *) = {
		[FILL] = fill, [COPY] = copy_chunk, [DUMP] = dump,
	};
	struct worker *w = arg;

	/* Each thread maps the pages it will use, as a NUMA machine wants (a
	 * page goes to the memory node of the core that first touches it); here
	 * it also leaves the last of them in this thread's core's cache. */
	if (pre) {
		prefault(buf, w->from, w->to);
		prefault(copy, w->from, w->to);
	}
	for (int p = 0; p < PHASES; p++) {
		struct span *s = &w->spans[p];

		pthread_barrier_wait(&phase_start);
		s->faults = thread_faults();
		s->cpu_ns = thread_cpu_ns();
		s->start_ns = now_ns();
		for (size_t i = 0; i < (p == DUMP ? 1 : passes); i++)
			run[p](w);
		s->end_ns = now_ns();
		s->cpu_ns = thread_cpu_ns() - s->cpu_ns;
		s->faults = thread_faults() - s->faults;
	}
	return NULL;
}

static void run_threads(void)
{
	int e = pthread_barrier_init(&phase_start, NULL, (unsigned)nthreads);

	for (size_t k = 0; e == 0 && k < nthreads; k++)
		e = pthread_create(&workers[k].thread, NULL, work, &workers[k]);
	if (e != 0) {
		errno = e;	/* pthreads return the error instead of setting errno */
		die_errno("starting the threads");
	}
	for (size_t k = 0; k < nthreads; k++) {
		e = pthread_join(workers[k].thread, NULL);
		if (e != 0) {
			errno = e;
			die_errno("pthread_join");
		}
	}
	pthread_barrier_destroy(&phase_start);
}

/*
 * Creates every dump file, empty, before the threads start (outside the
 * dump's timing); they only open them. A Ctrl-C handler (cleanup.h)
 * removes the files while the other threads go on running: had they
 * created files, one created just after the removal would stay behind.
 * Now its open() fails instead.
 */
static void create_files(void)
{
	for (size_t k = 0; k < nfiles; k++) {
		int fd = open(paths[k], O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || close(fd) != 0)
			die_errno(paths[k]);
	}
}

/* What phase p cost, from the threads' spans: elapsed time from the first
 * thread's start to the last one's end, CPU time and faults of all threads. */
static struct span phase_total(int p)
{
	struct span t = workers[0].spans[p];

	for (size_t k = 1; k < nthreads; k++) {
		const struct span *s = &workers[k].spans[p];

		if (s->start_ns < t.start_ns)
			t.start_ns = s->start_ns;
		if (s->end_ns > t.end_ns)
			t.end_ns = s->end_ns;
		t.cpu_ns += s->cpu_ns;
		t.faults += s->faults;
	}
	return t;
}

/* Refuses a size that does not fit: two buffers in the memory the kernel
 * says is available, and the dump in the free space of dir. */
static void check_room(const char *dir)
{
	struct statvfs fs;
	unsigned long long mem_kib = 0;
	char line[256];
	FILE *meminfo = fopen("/proc/meminfo", "r");

	if (meminfo != NULL) {	/* else not Linux: nothing to check against */
		while (fgets(line, sizeof line, meminfo) != NULL)
			if (sscanf(line, "MemAvailable: %llu kB", &mem_kib) == 1)
				break;
		fclose(meminfo);
	}
	if (mem_kib > 0 && 2.0 * size / 1024 > mem_kib)
		usage_error("-s: two buffers of %.1f MiB do not fit in the %.1f MiB of memory available",
			    size / 1048576.0, mem_kib / 1024.0);
	if (statvfs(dir, &fs) != 0)
		die_errno(dir);
	if ((uint64_t)size > (uint64_t)fs.f_bavail * fs.f_frsize)
		usage_error("-s: %.1f MiB of files do not fit in the %.1f MiB free in %s",
			    size / 1048576.0, (double)fs.f_bavail * fs.f_frsize / 1048576, dir);
}

/* Reads file k back and checks that it holds exactly slice k of the buffer. */
static void verify_file(size_t k)
{
	static unsigned char tmp[1 << 20];
	size_t from, to, at;
	int fd = open(paths[k], O_RDONLY);

	if (fd < 0)
		die_errno(paths[k]);
	slice(size, nfiles, k, &from, &to);
	for (at = from;;) {
		ssize_t got = read_retry(fd, tmp, sizeof tmp);

		if (got < 0)
			die_errno(paths[k]);
		if (got == 0)
			break;
		for (size_t i = 0; i < (size_t)got; i++) {
			if (at + i == to)
				die("%s: longer than its %zu bytes (--verify)", paths[k], to - from);
			if (tmp[i] != buf[at + i])
				die("%s: byte %zu differs from the buffer (--verify)",
				    paths[k], at + i - from);
		}
		at += (size_t)got;
	}
	if (close(fd) != 0)
		die_errno(paths[k]);
	if (at != to)
		die("%s: %zu bytes, %zu expected (--verify)", paths[k], at - from, to - from);
}

/* --corrupt: flips the middle byte of file k, or adds one to an empty file. */
static void corrupt(size_t k)
{
	size_t from, to;

	slice(size, nfiles, k, &from, &to);
	unsigned char b = to > from ? buf[from + (to - from) / 2] ^ 0xff : 0;
	int fd = open(paths[k], O_WRONLY);

	if (fd < 0 || pwrite(fd, &b, 1, (off_t)((to - from) / 2)) != 1 || close(fd) != 0)
		die_errno(paths[k]);
}

/* Below main: the command line, the set-up and the report. */
struct options {
	const char *dir;
	bool verify, keep, csv;
	long long damage;	/* --corrupt K; -1: none */
};
static void parse_args(int argc, char **argv, struct options *o);
static void map_buffers(void);
static void name_files(const char *dir, bool keep);
static void print_phases(const char *dir, bool verify, bool csv);

int main(int argc, char **argv)
{
	struct options o;

	parse_args(argc, argv, &o);
	check_room(o.dir);
	cleanup_init();
	map_buffers();
	name_files(o.dir, o.keep);

	create_files();
	run_threads();
	for (size_t k = 0; k < nthreads; k++)
		if (workers[k].err != 0) {
			errno = workers[k].err;
			die_errno(paths[workers[k].err_file]);
		}

	if (o.damage >= 0)
		corrupt((size_t)o.damage);
	if (o.verify) {
		if (memcmp(copy, buf, size) != 0)
			die("the copy differs from the buffer (--verify)");
		for (size_t k = 0; k < nfiles; k++)
			verify_file(k);
	}
	print_phases(o.dir, o.verify, o.csv);
	if (fflush(stdout) != 0)
		die_errno("stdout");
	return 0;
}

/* The two buffers, and each thread's slice of them and its generator. */
static void map_buffers(void)
{
	int refused;

	/* Both buffers straight from mmap(): zero-filled (a byte the fill misses
	 * stays 0, which the tests look for), and mapped page by page on first
	 * touch, inside the timing unless --prefault. */
	buf = map_pages(size, huge, &refused);
	copy = map_pages(size, huge, &refused);
	if (buf == NULL || copy == NULL)
		die("out of memory (two buffers of %zu bytes)", size);
	if (huge)
		say_if_no_huge_pages(refused, ", as the faults column shows");
	for (size_t k = 0; k < nthreads; k++) {
		slice(size, nthreads, k, &workers[k].from, &workers[k].to);
		seed_worker(k);
	}
}

/* The files' names, removed at exit unless keep. */
static void name_files(const char *dir, bool keep)
{
	paths = xmalloc(nfiles * sizeof *paths);
	for (size_t k = 0; k < nfiles; k++) {
		size_t n = strlen(dir) + 64;

		paths[k] = xmalloc(n);
		snprintf(paths[k], n, "%s/fillcopy-%ld-%zu.dmp", dir, (long)getpid(), k);
		if (!keep)
			cleanup_add(paths[k]);
	}
}

/* The table (or --csv rows): each phase's time, rate, CPU time and faults. */
static void print_phases(const char *dir, bool verify, bool csv)
{
	if (csv)
		puts("threads,bytes,files,rng,copy,prefault,fsync,phase,wall_s,cpu_s,mib_s,faults,pages,passes");
	else
		printf("%zu thread%s, %zu bytes (%.1f MiB), %zu files in %s, rng %s, copy %s, %s pages, %s, %s, %zu pass%s\n"
		       "phase        ms      MiB/s     cpu ms     faults\n",
		       nthreads, nthreads > 1 ? "s" : "", size, size / 1048576.0, nfiles, dir,
		       gen_names[gen], copy_names[copy_bytes], page_names[huge],
		       pre ? "prefaulted" : "first-touch faults timed", do_fsync ? "fsync" : "no fsync",
		       passes, passes > 1 ? "es" : "");
	for (int p = 0; p < PHASES; p++) {
		struct span t = phase_total(p);
		double wall = ns_to_s(t.end_ns - t.start_ns);
		double mib_s = passes * (size / 1048576.0) / wall;

		if (csv)
			printf("%zu,%zu,%zu,%s,%s,%d,%d,%s,%.6f,%.6f,%.1f,%ld,%s,%zu\n", nthreads, size,
			       nfiles, gen_names[gen], copy_names[copy_bytes], pre, do_fsync,
			       phase_names[p], wall, ns_to_s(t.cpu_ns), mib_s, t.faults, page_names[huge],
			       passes);
		else
			printf("%-6s %9.1f %10.1f %10.1f %10ld\n", phase_names[p], wall * 1e3,
			       mib_s, ns_to_s(t.cpu_ns) * 1e3, t.faults);
	}
	if (verify && !csv)
		printf("verified: the copy and the %zu files match the buffer\n", nfiles);
}

static const char usage[] =
	"usage: fillcopy [-t THREADS] [-s SIZE] [-f FILES] [-d DIR] [--rng xoshiro|rand_r|rand]\n"
	"                [--copy memcpy|bytes] [--pages 4k|huge] [--prefault] [--verify] [--fsync]\n"
	"                [--passes N] [--keep] [--csv]\n"
	"  -t, --threads N   threads in every phase, 1 to 256 (default 1)\n"
	"  -s, --size SIZE   buffer size, K/M/G suffixes (default 255M)\n"
	"  -f, --files N     dump files, 1 to 10000 (default 10); each holds SIZE/N bytes,\n"
	"                    the last one also the remainder\n"
	"  -d, --dir DIR     where the dump files go (default .)\n"
	"      --rng GEN     xoshiro: xoshiro256**, state in each thread (default)\n"
	"                    rand_r: state in each thread, one call per byte\n"
	"                    rand:   one state for the process, behind a lock, one call per byte\n"
	"      --copy HOW    memcpy (default) or bytes: a loop that copies byte by byte\n"
	"      --pages SIZE  4k (default): 4 KiB pages, one page fault per 4 KiB touched first;\n"
	"                    huge: buffers aligned to 2 MiB, madvise(MADV_HUGEPAGE): one fault can\n"
	"                    map 2 MiB, if the kernel's transparent huge pages allow it\n"
	"      --prefault    each thread touches its chunk of both buffers before the timing\n"
	"      --passes N    the fill, the copy and the dump go N times over the buffer, in one\n"
	"                    timed phase each, so that they last long enough to time (default 1)\n"
	"      --verify      check the copy and every file against the buffer (exit 1 if not equal)\n"
	"      --fsync       fsync each file before closing it, inside the dump's timing\n"
	"      --keep        keep the dump files (DIR/fillcopy-PID-K.dmp)\n"
	"      --corrupt K   damage file K after the dump, to watch --verify catch it\n"
	"      --csv         CSV: a header, then one row per phase\n"
	"  -h, --help        this help\n";

/* Reads the command line into *o and the settings above. */
static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option options[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 's' },
		{ "files", required_argument, NULL, 'f' },
		{ "dir", required_argument, NULL, 'd' },
		{ "rng", required_argument, NULL, 'r' },
		{ "copy", required_argument, NULL, 'c' },
		{ "pages", required_argument, NULL, 'p' },
		{ "prefault", no_argument, NULL, 'P' },
		{ "passes", required_argument, NULL, 'n' },
		{ "verify", no_argument, NULL, 'V' },
		{ "fsync", no_argument, NULL, 'S' },
		{ "keep", no_argument, NULL, 'K' },
		{ "corrupt", required_argument, NULL, 'C' },
		{ "csv", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = ".";
	bool verify = false, keep = false, csv = false;
	long long damage = -1;	/* --corrupt K */
	int opt;

	iolab_init(argv[0], usage);
	while ((opt = getopt_long(argc, argv, "t:s:f:d:h", options, NULL)) != -1) {
		switch (opt) {
		case 't': nthreads = parse_count("-t", optarg, 1, MAX_THREADS); break;
		case 's': size = parse_size("-s", optarg, 1, (uint64_t)1 << 40); break;
		case 'f': nfiles = parse_count("-f", optarg, 1, MAX_FILES); break;
		case 'd': dir = optarg; break;
		case 'r': gen = (enum gen)parse_choice("--rng", optarg, gen_names); break;
		case 'c': copy_bytes = parse_choice("--copy", optarg, copy_names) == 1; break;
		case 'p': huge = parse_choice("--pages", optarg, page_names) == 1; break;
		case 'P': pre = true; break;
		case 'n': passes = parse_count("--passes", optarg, 1, 1000000); break;
		case 'V': verify = true; break;
		case 'S': do_fsync = true; break;
		case 'K': keep = true; break;
		case 'C': damage = (long long)parse_count("--corrupt", optarg, 0, MAX_FILES - 1); break;
		case 'v': csv = true; break;
		case 'h': print_help();
		default: usage_exit();
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (damage >= (long long)nfiles)
		usage_error("--corrupt: there is no file %lld (they are 0 to %zu)", damage, nfiles - 1);
	*o = (struct options){ .dir = dir, .verify = verify, .keep = keep, .csv = csv,
			       .damage = damage };
}
