/*
 * datagen - generates test data for a student register: four text files,
 * built in memory in rounds of BUFFER records, then written out.
 *
 *   students.txt  id;first name;last name;year of enrolment;programme
 *   contacts.txt  id;e-mail;phone
 *   exams.txt     id;course;date;points         (EXAMS lines per student)
 *   grades.txt    id;exams passed;credits;average grade of those passed
 *
 * The main thread fills four buffers, one per file. By default four writer
 * threads, created once at the start, are woken through a condition
 * variable to write one buffer each, and the main thread waits for all four
 * before it fills the buffers again. -z writes the same buffers one after
 * the other in the main thread: the threads are an option that can be
 * switched off, and the output is byte-identical either way, because all
 * the random numbers are drawn by the main thread from one generator seeded
 * by --seed.
 *
 * It reports elapsed and CPU time, and how the elapsed time splits between
 * filling the buffers and writing them: only the writing can overlap.
 * The files are written as NAME.tmp and renamed when complete.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdalign.h>

#include "cleanup.h"
#include "iolab.h"
#include "rng.h"
#include "timing.h"

#define NFILES 4
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const first_names[] = {
	"Aino", "Eino", "Helmi", "Ilmari", "Kerttu", "Lauri", "Maija", "Niilo",
	"Oona", "Paavo", "Saara", "Toivo", "Ursula", "Veikko", "Wilma", "Aleksi",
};
static const char *const last_names[] = {
	"Virtanen", "Korhonen", "Nieminen", "Makinen", "Hamalainen", "Laine",
	"Heikkinen", "Koskinen", "Jarvinen", "Lehtonen", "Saarinen", "Salminen",
};
static const char *const programmes[] = { "CS", "SE", "IS", "DS", "EE", "MA" };
static const char *const courses[] = {
	"OS-101", "NET-201", "DB-110", "ALG-120", "SWE-210", "ARC-300",
	"SEC-220", "HCI-130", "ML-310", "PAR-320", "CMP-230", "MAT-100",
};

/* A growing text buffer. */
struct buffer {
	char *data;
	size_t len, cap;
};

/* One output file and its writer thread. The main thread owns buf while
 * the writers sleep; the writer owns it (and err) while it writes. Each on
 * its own cache line (alignas): nothing written by one writer sits next to
 * another's data. */
struct writer {
	alignas(64) struct buffer buf;
	const char *name;
	char *path, *tmp;
	int fd;
	int err;		/* errno of a failed write, or 0 */
	pthread_t thread;
};
static struct writer writers[NFILES] = {
	{ .name = "students.txt" }, { .name = "contacts.txt" },
	{ .name = "exams.txt" }, { .name = "grades.txt" },
};

/*
 * Where the main thread and the writers meet. The main thread raises round
 * when the buffers are full and waits until finished reaches NFILES. A
 * round number rather than a yes/no flag: a writer that wakes late, or for
 * no reason (condition variables allow that), can tell whether it has
 * written this round already.
 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t round_started = PTHREAD_COND_INITIALIZER;
static pthread_cond_t writer_finished = PTHREAD_COND_INITIALIZER;
static unsigned round_no;
static int finished, stopping;

__attribute__((format(printf, 2, 3)))
static void append(struct buffer *b, const char *fmt, ...)
{
	for (;;) {
		va_list ap;

		va_start(ap, fmt);
		int n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			die("cannot format a record");
		if ((size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		b->cap = 2 * b->cap + (size_t)n;	/* too small: grow, try again */
		b->data = realloc(b->data, b->cap);
		if (b->data == NULL)
			die("out of memory (%zu bytes)", b->cap);
	}
}

/*
 * Fills the four buffers with students first+1 .. first+count. Each number
 * is drawn in its own statement: the order in which a function's arguments
 * are evaluated is unspecified in C, and the files must not depend on it.
 */
static void fill(struct rng *r, uint64_t first, uint64_t count, unsigned exams)
{
	for (int f = 0; f < NFILES; f++)
		writers[f].buf.len = 0;
	for (uint64_t id = first + 1; id <= first + count; id++) {
		const char *given = first_names[rng_below(r, COUNT(first_names))];
		const char *family = last_names[rng_below(r, COUNT(last_names))];
		unsigned year = 2016 + (unsigned)rng_below(r, 9);
		const char *programme = programmes[rng_below(r, COUNT(programmes))];
		unsigned area = (unsigned)rng_below(r, 1000);
		unsigned number = (unsigned)rng_below(r, 10000);
		unsigned passed = 0, grade_sum = 0;

		append(&writers[0].buf, "%06" PRIu64 ";%s;%s;%u;%s\n", id, given,
		       family, year, programme);
		append(&writers[1].buf, "%06" PRIu64 ";s%06" PRIu64
		       "@students.example.edu;+358 40 %03u %04u\n", id, id, area, number);
		for (unsigned e = 0; e < exams; e++) {
			const char *course = courses[rng_below(r, COUNT(courses))];
			unsigned exam_year = 2020 + (unsigned)rng_below(r, 5);
			unsigned month = 1 + (unsigned)rng_below(r, 12);
			unsigned day = 1 + (unsigned)rng_below(r, 28);
			unsigned points = (unsigned)rng_below(r, 61);

			append(&writers[2].buf, "%06" PRIu64 ";%s;%u-%02u-%02u;%u\n", id,
			       course, exam_year, month, day, points);
			if (points >= 30) {	/* 30..35 is a 1, ..., 54..60 a 5 */
				unsigned grade = 1 + (points - 30) / 6;

				passed++;
				grade_sum += grade > 5 ? 5 : grade;
			}
		}
		append(&writers[3].buf, "%06" PRIu64 ";%u;%u;%.2f\n", id, passed,
		       5 * passed, passed ? (double)grade_sum / passed : 0.0);
	}
}

/* Writes the writer's buffer to its file; a failure is kept in w->err. */
static void write_buffer(struct writer *w)
{
	if (write_all(w->fd, w->buf.data, w->buf.len) != 0)
		w->err = errno;
}

static void *writer_thread(void *arg)
{
	struct writer *w = arg;
	unsigned written = 0;	/* the last round this writer wrote */

	pthread_mutex_lock(&lock);
	for (;;) {
		while (round_no == written && !stopping)
			pthread_cond_wait(&round_started, &lock);
		if (round_no == written)	/* stopping, and nothing left to write */
			break;
		written = round_no;
		pthread_mutex_unlock(&lock);
		write_buffer(w);	/* the lock is free while it writes */
		pthread_mutex_lock(&lock);
		finished++;
		pthread_cond_signal(&writer_finished);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* Threaded mode: one round of writing; returns when all four are done. */
static void write_round(void)
{
	pthread_mutex_lock(&lock);
	finished = 0;
	round_no++;
	pthread_cond_broadcast(&round_started);
	while (finished < NFILES)
		pthread_cond_wait(&writer_finished, &lock);
	pthread_mutex_unlock(&lock);
}

/* Threaded mode: tells the writers to leave and waits for them. */
static void stop_writers(int started)
{
	pthread_mutex_lock(&lock);
	stopping = 1;
	pthread_cond_broadcast(&round_started);
	pthread_mutex_unlock(&lock);
	for (int f = 0; f < started; f++) {
		int e = pthread_join(writers[f].thread, NULL);

		if (e != 0)
			die("pthread_join: %s", strerror(e));
	}
}

/* Below main: the command line, the files and the report. */
struct options {
	uint64_t records, buffer, seed;
	unsigned exams;
	int threaded, csv;
	const char *dir;
};
static void parse_args(int argc, char **argv, struct options *o);
static void open_files(const char *dir);
static uint64_t round_bytes(int threaded);
static void close_files(void);
static void print_result(const struct options *o, uint64_t bytes, double wall_s, double cpu_s,
			 int64_t fill_ns, int64_t write_ns);

int main(int argc, char **argv)
{
	struct options o;

	parse_args(argc, argv, &o);
	uint64_t records = o.records, buffer = o.buffer;
	int threaded = o.threaded;
	struct rng rng;

	rng_seed(&rng, o.seed);
	cleanup_init();
	int64_t wall0 = now_ns(), cpu0 = process_cpu_ns();
	open_files(o.dir);
	/* The writers are created once, not once per round: a thread costs
	 * tens of microseconds to start, and there may be thousands of rounds. */
	for (int f = 0; threaded && f < NFILES; f++) {
		int e = pthread_create(&writers[f].thread, NULL, writer_thread, &writers[f]);

		if (e != 0) {
			stop_writers(f);
			die("cannot start a writer thread: %s", strerror(e));
		}
	}

	int64_t fill_ns = 0, write_ns = 0;
	uint64_t bytes = 0;
	for (uint64_t done = 0; done < records; done += buffer) {
		int64_t t0 = now_ns();

		fill(&rng, done, records - done < buffer ? records - done : buffer, o.exams);
		int64_t t1 = now_ns();
		if (threaded) {
			write_round();
		} else {
			for (int f = 0; f < NFILES; f++)
				write_buffer(&writers[f]);
		}
		fill_ns += t1 - t0;
		write_ns += now_ns() - t1;
		bytes += round_bytes(threaded);
	}
	if (threaded)
		stop_writers(NFILES);
	close_files();
	double wall_s = ns_to_s(now_ns() - wall0), cpu_s = ns_to_s(process_cpu_ns() - cpu0);

	print_result(&o, bytes, wall_s, cpu_s, fill_ns, write_ns);
	return 0;
}

/* Each writer's file, written under a temporary name, and its buffer. */
static void open_files(const char *dir)
{
	for (int f = 0; f < NFILES; f++) {
		struct writer *w = &writers[f];
		size_t len = strlen(dir) + strlen(w->name) + 6;

		w->path = xmalloc(len);
		w->tmp = xmalloc(len);
		snprintf(w->path, len, "%s/%s", dir, w->name);
		snprintf(w->tmp, len, "%s/%s.tmp", dir, w->name);
		cleanup_add(w->tmp);	/* removed if we fail before the rename */
		w->fd = open(w->tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (w->fd < 0)
			die_errno(w->tmp);
		w->buf.cap = 1 << 16;
		w->buf.data = xmalloc(w->buf.cap);
	}
}

/* The bytes the round wrote; stops at a writer's error (after the threads). */
static uint64_t round_bytes(int threaded)
{
	uint64_t bytes = 0;

	for (int f = 0; f < NFILES; f++) {
		if (writers[f].err != 0) {
			if (threaded)
				stop_writers(NFILES);
			errno = writers[f].err;
			die_errno(writers[f].tmp);
		}
		bytes += writers[f].buf.len;
	}
	return bytes;
}

/* Each file renamed into place once it is complete. */
static void close_files(void)
{
	for (int f = 0; f < NFILES; f++) {
		struct writer *w = &writers[f];

		if (close(w->fd) != 0)
			die_errno(w->tmp);
		if (rename(w->tmp, w->path) != 0)
			die_errno(w->path);
		free(w->buf.data);
	}
}

static void print_result(const struct options *o, uint64_t bytes, double wall_s, double cpu_s,
			 int64_t fill_ns, int64_t write_ns)
{
	const char *mode = o->threaded ? "threaded" : "sequential";
	if (o->csv) {
		puts("mode,records,exams_per_record,buffer_records,seed,bytes,"
		     "wall_s,cpu_s,fill_s,write_s");
		printf("%s,%" PRIu64 ",%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6f,%.6f,%.6f,%.6f\n",
		       mode, o->records, o->exams, o->buffer, o->seed, bytes, wall_s, cpu_s,
		       ns_to_s(fill_ns), ns_to_s(write_ns));
	} else {
		printf("%-10s %9s %5s %7s %11s %9s %9s %9s %9s\n", "mode", "records",
		       "exams", "buffer", "bytes", "wall_s", "cpu_s", "fill_s", "write_s");
		printf("%-10s %9" PRIu64 " %5u %7" PRIu64 " %11" PRIu64 " %9.4f %9.4f %9.4f %9.4f\n",
		       mode, o->records, o->exams, o->buffer, bytes, wall_s, cpu_s,
		       ns_to_s(fill_ns), ns_to_s(write_ns));
	}
}

static const char usage[] =
	"usage: datagen [-s RECORDS] [-e EXAMS] [-b BUFFER] [-z] [--seed N] [-d DIR] [--csv]\n"
	"  -s, --records RECORDS  how many students (default 5000)\n"
	"  -e, --exams EXAMS      exams per student, 0 to 1000 (default 10)\n"
	"  -b, --buffer BUFFER    students per round: the buffers are written\n"
	"                         every BUFFER records (default 500)\n"
	"  -z, --sequential       write the four buffers in the main thread, no threads\n"
	"      --seed N           seed of the random numbers (default 1)\n"
	"  -d, --dir DIR          where to write the four files (default .)\n"
	"      --csv              print a CSV header and one row instead of the table\n"
	"  -h, --help             this help\n";

static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option options[] = {
		{ "records", required_argument, NULL, 's' },
		{ "exams", required_argument, NULL, 'e' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "sequential", no_argument, NULL, 'z' },
		{ "seed", required_argument, NULL, 'S' },
		{ "dir", required_argument, NULL, 'd' },
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t records = 5000, buffer = 500, seed = 1;
	unsigned exams = 10;
	int threaded = 1, csv = 0, opt;
	const char *dir = ".";

	iolab_init(argv[0], usage);
	while ((opt = getopt_long(argc, argv, "s:e:b:zd:h", options, NULL)) != -1) {
		switch (opt) {
		case 's': records = parse_count("-s", optarg, 1, 100000000); break;
		case 'e': exams = (unsigned)parse_count("-e", optarg, 0, 1000); break;
		case 'b': buffer = parse_count("-b", optarg, 1, 100000000); break;
		case 'z': threaded = 0; break;
		case 'S': seed = parse_count("--seed", optarg, 0, UINT64_MAX); break;
		case 'd': dir = optarg; break;
		case 'c': csv = 1; break;
		case 'h': print_help();
		default: usage_exit();
		}
	}
	if (optind != argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	*o = (struct options){ .records = records, .buffer = buffer, .seed = seed, .exams = exams,
			       .threaded = threaded, .csv = csv, .dir = dir };
}
