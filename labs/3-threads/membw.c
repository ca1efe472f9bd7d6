/*
 * membw - the ceiling for fillcopy's fill and copy: how fast THREADS
 * threads store into memory (memset) and copy it (memcpy), each thread on
 * its slice of two SIZE-byte buffers whose pages are already mapped. No
 * generator, no first-touch page faults: what is left is the bandwidth the
 * cores and the memory system give.
 *
 * Each repetition stores, then copies (each PASSES times over); before each, the threads wait for
 * each other at a barrier, and each times its own slice. As in fillcopy, a
 * repetition's elapsed time runs from the first thread's start to the last
 * one's end, and the pages are 4 KiB ones (fillcopy's default).
 *
 * -g adds the fill's other ceiling: the generator alone. Each thread runs
 * fillcopy's xoshiro256** once per 8 bytes of its slice, seeded as
 * fillcopy's thread K (K + 1), and keeps the values in a register instead
 * of storing them: no memory traffic, only the generator's pace.
 */
#define _GNU_SOURCE	/* MADV_NOHUGEPAGE */
#include <getopt.h>
#include <pthread.h>
#include <stdalign.h>
#include <sys/mman.h>

#include "iolab.h"
#include "rng.h"
#include "timing.h"

#define MAX_THREADS 256

enum { STORE, COPY, GEN, OPS };
static const char *const op_names[OPS] = { [STORE] = "store", [COPY] = "copy", [GEN] = "gen" };

/* Set by main() before the threads start, then only read (the buffers'
 * bytes excepted: each thread writes its own slice). */
static size_t size = 64 << 20, nthreads = 1, reps = 5, passes = 1;
static int ops = GEN;	/* store and copy; with -g also gen */
static unsigned char *src, *dst;
static pthread_barrier_t op_start;

struct span {
	int64_t start_ns, end_ns;
};

/* The generator alone over n bytes' worth of values, as fillcopy's fill
 * makes them (one rng_next() per 8 bytes, the last 1 to 7 bytes one more),
 * XORed in a register: the compiler must compute every one. */
static uint64_t generate(struct rng r, size_t n)
{
	uint64_t x = 0;

	for (size_t i = 0; i < n; i += 8)
		x ^= rng_next(&r);
	return x;
}

/* One per thread, on cache lines of its own. */
struct worker {
	alignas(64) pthread_t thread;
	size_t from, to;	/* its slice of the buffers: bytes [from, to) */
	struct span *spans;	/* [rep * OPS + op] */
	uint64_t sink;		/* gen: what the generator's values add up to */
};
static struct worker workers[MAX_THREADS];

static void *work(void *arg)
{
	struct worker *w = arg;
	size_t n = w->to - w->from;
	struct rng rng;

	rng_seed(&rng, (uint64_t)(w - workers) + 1);	/* fillcopy's thread K: K + 1 */
	/* Writing every byte maps every page of its slice before the timing. */
	memset(src + w->from, 'a', n);
	memset(dst + w->from, 'b', n);
	for (size_t r = 0; r < reps; r++) {
		for (int op = 0; op < ops; op++) {
			struct span *s = &w->spans[r * OPS + op];

			pthread_barrier_wait(&op_start);
			s->start_ns = now_ns();
			for (size_t i = 0; i < passes; i++) {
				if (op == STORE)
					memset(dst + w->from, (int)(r + i), n);
				else if (op == COPY)
					memcpy(dst + w->from, src + w->from, n);
				else
					w->sink ^= generate(rng, n);
			}
			s->end_ns = now_ns();
		}
	}
	return NULL;
}

/* A buffer of 4 KiB pages, not mapped yet (see fillcopy's map_buffer()). */
static unsigned char *map_buffer(void)
{
	unsigned char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("out of memory (two buffers of %zu bytes)", size);
	/* Fails only on a kernel without huge pages: 4 KiB pages anyway. */
	(void)madvise(p, size, MADV_NOHUGEPAGE);
	return p;
}

/* Below main: the command line and the table. */
static int parse_args(int argc, char **argv);
static void print_spans(int csv);

int main(int argc, char **argv)
{
	int csv = parse_args(argc, argv), e;

	src = map_buffer();
	dst = map_buffer();
	/* Equal slices, the remainder to the last (fillcopy's slice()). */
	for (size_t k = 0; k < nthreads; k++) {
		workers[k].from = k * (size / nthreads);
		workers[k].to = k == nthreads - 1 ? size : workers[k].from + size / nthreads;
		workers[k].spans = xmalloc(reps * OPS * sizeof *workers[k].spans);
	}
	e = pthread_barrier_init(&op_start, NULL, (unsigned)nthreads);
	for (size_t k = 0; e == 0 && k < nthreads; k++)
		e = pthread_create(&workers[k].thread, NULL, work, &workers[k]);
	for (size_t k = 0; e == 0 && k < nthreads; k++)
		e = pthread_join(workers[k].thread, NULL);
	if (e != 0) {
		errno = e;	/* pthreads return the error instead of setting errno */
		die_errno("threads");
	}
	pthread_barrier_destroy(&op_start);

	print_spans(csv);
	/* Reading the result also keeps the compiler from dropping the copies. */
	if (memcmp(dst, src, size) != 0)
		die("the copy differs from the source");
	if (fflush(stdout) != 0)
		die_errno("stdout");
	return 0;
}

/* Each store and copy (and gen), timed from the first thread's start to
 * the last one's end, as a table or (--csv) CSV rows. */
static void print_spans(int csv)
{
	puts(csv ? "threads,op,bytes,passes,rep,wall_s,mib_s" : "op     rep         ms      MiB/s");
	for (size_t r = 0; r < reps; r++) {
		for (int op = 0; op < ops; op++) {
			struct span t = workers[0].spans[r * OPS + op];

			for (size_t k = 1; k < nthreads; k++) {
				const struct span *s = &workers[k].spans[r * OPS + op];

				if (s->start_ns < t.start_ns)
					t.start_ns = s->start_ns;
				if (s->end_ns > t.end_ns)
					t.end_ns = s->end_ns;
			}
			double wall = ns_to_s(t.end_ns - t.start_ns);
			double mib_s = passes * (size / 1048576.0) / wall;

			if (csv)
				printf("%zu,%s,%zu,%zu,%zu,%.6f,%.1f\n", nthreads, op_names[op], size,
				       passes, r + 1, wall, mib_s);
			else
				printf("%-5s %4zu %10.3f %10.1f\n", op_names[op], r + 1, wall * 1e3, mib_s);
		}
	}
}

static const char usage[] =
	"usage: membw [-t THREADS] [-s SIZE] [-r REPS] [-p PASSES] [-g] [--csv]\n"
	"  -t, --threads N   threads, 1 to 256 (default 1); each stores and copies its slice\n"
	"  -s, --size SIZE   bytes per store and per copy, K/M/G suffixes, at most 4G (default 64M)\n"
	"  -r, --reps REPS   how many stores and copies to time, 1 to 1000 (default 5)\n"
	"  -p, --passes N    each store and copy goes N times over the buffer, so that it lasts\n"
	"                    long enough to time (default 1)\n"
	"  -g, --generator   also time the generator alone: fillcopy's xoshiro once per 8 bytes,\n"
	"                    the values kept in a register, nothing stored (op gen)\n"
	"      --csv         CSV: a header, then one row per store and per copy (and gen)\n"
	"  -h, --help        this help\n";

/* Sets the settings above from the command line; returns whether --csv. */
static int parse_args(int argc, char **argv)
{
	static const struct option options[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 's' },
		{ "reps", required_argument, NULL, 'r' },
		{ "passes", required_argument, NULL, 'p' },
		{ "generator", no_argument, NULL, 'g' },
		{ "csv", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int csv = 0, opt;

	iolab_init(argv[0], usage);
	while ((opt = getopt_long(argc, argv, "t:s:r:p:gh", options, NULL)) != -1) {
		switch (opt) {
		case 't': nthreads = parse_count("-t", optarg, 1, MAX_THREADS); break;
		case 's': size = parse_size("-s", optarg, 1, (uint64_t)4 << 30); break;
		case 'r': reps = parse_count("-r", optarg, 1, 1000); break;
		case 'p': passes = parse_count("-p", optarg, 1, 1000000); break;
		case 'g': ops = OPS; break;
		case 'v': csv = 1; break;
		case 'h': print_help();
		default: usage_exit();
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	return csv;
}
