/*
 * pwriters - writes FILES files of BYTES bytes each, in BATCH-byte writes,
 * fsyncs each one, and times the whole job under one of four strategies:
 *
 *   seq        the main thread writes every file, one after the other
 *   per-file   one thread per file, all started at once
 *   io-thread  one writer thread; the main thread posts the files to it
 *              through a queue guarded by a mutex and a condition variable
 *   pool[:K]   K writer threads (default: one per core) take files from
 *              that same queue; io-thread is simply pool:1
 *
 * It reports elapsed time (CLOCK_MONOTONIC) and the CPU time of the whole
 * process, with MiB/s computed from each. CPU time is what clock() returns:
 * the time every thread spent running, added up, and none of the time spent
 * waiting for the disk. MiB/s from clock() is not a throughput: the mistake
 * of the experiment this lab starts from.
 *
 * File NUM is DIR/pwriters.PID.NUM, NUM counting from 0000: unique names,
 * created with O_EXCL so that a clash is an error, never a silent overwrite.
 * It holds the alphabet over and over, starting at letter NUM % 26, so a
 * test can tell the files apart and check every byte.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "cleanup.h"
#include "iolab.h"
#include "timing.h"

enum strategy { SEQ, PER_FILE, IO_THREAD, POOL };
static const char *const strategy_names[] = { "seq", "per-file", "io-thread", "pool" };

/* The job, set up by main() before any thread starts, then only read. */
static struct {
	size_t files;
	uint64_t size, batch;
	int fsync, append;
	char **paths;
	const char *pattern;	/* min(size, batch) + 25 bytes of the alphabet */
} job;

/*
 * The first failure: its errno and file. Writers stop at the first one, and
 * main() reports it once every thread has ended: exit() while other threads
 * are still creating files would race with the removal of the files.
 */
static atomic_int failed_errno;
static atomic_size_t failed_file;

/*
 * Ctrl-C (SIGINT), SIGTERM, SIGHUP. cleanup.h's own handler removes the
 * files and ends the program at once, but a writer thread could create one
 * more file in between. So here the signal only sets stop_signal; writers
 * stop at the next batch, main() joins them, removes the files and then
 * dies of the same signal. (A lock-free atomic is safe in a handler.)
 */
static atomic_int stop_signal;

static void on_signal(int sig)
{
	atomic_store(&stop_signal, sig);
}

/*
 * The queue from the main thread to the io-thread and pool writers. The
 * files are posted in order, so the queue is the numbers [taken, posted);
 * closed says that nothing more will be posted.
 */
static struct queue {
	pthread_mutex_t lock;
	pthread_cond_t nonempty;
	size_t posted, taken;
	int closed;
} queue = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0 };

/* Writes file num; returns 0, or -1 with errno set. */
static int write_file(size_t num)
{
	int flags = O_WRONLY | O_CREAT | O_EXCL | (job.append ? O_APPEND : 0);
	int fd = open(job.paths[num], flags, 0644);
	uint64_t done = 0;

	if (fd < 0)
		return -1;
	while (done < job.size && atomic_load(&stop_signal) == 0) {
		size_t n = job.size - done < job.batch ? job.size - done : job.batch;

		/* Start the pattern where this byte's letter is. */
		if (write_all(fd, job.pattern + (num + done) % 26, n) != 0)
			goto fail;
		done += n;
	}
	/* fsync() returns when the data and the file's size are on the disk. */
	if (job.fsync && fsync(fd) != 0)
		goto fail;
	return close(fd);
fail:;
	int saved = errno;

	close(fd);
	errno = saved;
	return -1;
}

/* Writes file num unless a file has failed or a signal came; records a
 * failure. */
static void write_or_record(size_t num)
{
	int none = 0;

	if (atomic_load(&failed_errno) != 0 || atomic_load(&stop_signal) != 0 ||
	    write_file(num) == 0)
		return;
	if (atomic_compare_exchange_strong(&failed_errno, &none, errno))
		atomic_store(&failed_file, num);
}

/* per-file: the thread's argument is its file's number. */
static void *file_thread(void *arg)
{
	write_or_record((size_t)(uintptr_t)arg);
	return NULL;
}

/* io-thread and pool: take the next file from the queue until it is closed
 * and empty. The file is written with the lock released. */
static void *queue_thread(void *arg)
{
	/* BEGIN SOLUTION */
	for (;;) {
		pthread_mutex_lock(&queue.lock);
		while (queue.taken == queue.posted && !queue.closed)
			pthread_cond_wait(&queue.nonempty, &queue.lock);
		if (queue.taken == queue.posted) {
			pthread_mutex_unlock(&queue.lock);
			return NULL;
		}
		size_t num = queue.taken++;
		pthread_mutex_unlock(&queue.lock);
		write_or_record(num);
	}
	/* END SOLUTION */
	/* STUB
	// TODO: take file numbers from the queue (under queue.lock; wait on
	// queue.nonempty while it is empty) and write each with write_or_record(),
	// the lock released; return once the queue is closed and empty.
	not_written("queue_thread(): taking files from the queue");
	*/
}

/* Posts the files 0 to n - 1 to the queue q, waking a writer for each. */
static void queue_post(struct queue *q, size_t n)
{
	/* BEGIN SOLUTION */
	for (size_t i = 0; i < n; i++) {
		pthread_mutex_lock(&q->lock);
		q->posted++;
		pthread_cond_signal(&q->nonempty);	/* wakes one idle writer */
		pthread_mutex_unlock(&q->lock);
	}
	/* END SOLUTION */
	/* STUB
	// TODO: post each file (under q->lock), waking one writer for each.
	not_written("queue_post(): posting the files to the queue");
	*/
}

/* Closes the queue q: nothing more will be posted. Wakes every writer, so
 * that each leaves once the queue is empty. */
static void queue_close(struct queue *q)
{
	/* BEGIN SOLUTION */
	pthread_mutex_lock(&q->lock);
	q->closed = 1;
	pthread_cond_broadcast(&q->nonempty);	/* wakes them all to leave */
	pthread_mutex_unlock(&q->lock);
	/* END SOLUTION */
	/* STUB
	// TODO: close the queue (under q->lock) and wake every writer.
	not_written("queue_close(): closing the queue");
	*/
}

/*
 * Starts n threads running fn (thread i gets i as its argument); with feed
 * set, posts every file to the queue; closes the queue; joins them all.
 * Starting threads is part of what is timed: it is part of the strategy.
 */
static void run_threads(size_t n, void *(*fn)(void *), int feed)
{
	pthread_t *threads = xmalloc(n * sizeof *threads);
	size_t started = 0;
	int err = 0;

	while (started < n && err == 0) {
		err = pthread_create(&threads[started], NULL, fn, (void *)(uintptr_t)started);
		if (err == 0)
			started++;
	}
	if (feed) {
		if (err == 0)
			queue_post(&queue, job.files);
		queue_close(&queue);
	}
	for (size_t i = 0; i < started; i++) {
		int e = pthread_join(threads[i], NULL);

		if (e != 0)
			die("pthread_join: %s", strerror(e));
	}
	free(threads);
	if (err != 0)
		die("cannot start thread %zu of %zu: %s", started + 1, n, strerror(err));
}

/* Below main: the command line, and the report. */
struct options {
	enum strategy strategy;
	size_t k;		/* threads: the pool's, or 1 (io-thread) */
	const char *dir;
	int keep, csv;
};
static void parse_args(int argc, char **argv, struct options *o);
static void make_files(const char *dir, int keep);
static void print_result(enum strategy strategy, size_t k, double wall_s, double cpu_s, int csv);

int main(int argc, char **argv)
{
	struct options o;

	parse_args(argc, argv, &o);
	enum strategy strategy = o.strategy;
	size_t k = o.k;
	int keep = o.keep;

	/* One buffer serves every write of every file: file NUM's bytes at
	 * offset OFF start at pattern[(NUM + OFF) % 26]. Threads only read it. */
	size_t span = job.size < job.batch ? (size_t)job.size : (size_t)job.batch;
	char *pattern = xmalloc(span + 25);
	for (size_t i = 0; i < span + 25; i++)
		pattern[i] = (char)('a' + i % 26);
	job.pattern = pattern;
	make_files(o.dir, keep);

	int64_t wall0 = now_ns(), cpu0 = process_cpu_ns();
	switch (strategy) {
	case SEQ:
		for (size_t i = 0; i < job.files; i++)
			write_or_record(i);
		break;
	case PER_FILE:
		run_threads(job.files, file_thread, 0);
		break;
	case IO_THREAD:
	case POOL:
		run_threads(k, queue_thread, 1);
		break;
	}
	double wall_s = ns_to_s(now_ns() - wall0), cpu_s = ns_to_s(process_cpu_ns() - cpu0);

	int sig = atomic_load(&stop_signal);
	if (sig != 0) {		/* every writer has stopped: now it is safe */
		if (!keep)
			cleanup_run();
		signal(sig, SIG_DFL);
		raise(sig);
	}
	if (atomic_load(&failed_errno) != 0) {
		errno = atomic_load(&failed_errno);
		die_errno(job.paths[atomic_load(&failed_file)]);
	}
	if (!keep)
		cleanup_run();	/* removing the files is not part of the measurement */
	print_result(strategy, k, wall_s, cpu_s, o.csv);
	return 0;
}

/* The files' names, removed at exit (and on a signal) unless keep. */
static void make_files(const char *dir, int keep)
{
	cleanup_init();
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0 ||
	    sigaction(SIGHUP, &sa, NULL) != 0)
		die_errno("sigaction");
	job.paths = xmalloc(job.files * sizeof *job.paths);
	for (size_t i = 0; i < job.files; i++) {
		size_t len = strlen(dir) + 40;

		job.paths[i] = xmalloc(len);
		snprintf(job.paths[i], len, "%s/pwriters.%ld.%04zu", dir, (long)getpid(), i);
		if (!keep)
			cleanup_add(job.paths[i]);
	}
}

static void print_result(enum strategy strategy, size_t k, double wall_s, double cpu_s, int csv)
{
	size_t threads = strategy == SEQ ? 1 : strategy == PER_FILE ? job.files : k;
	double mib = (double)job.size * (double)job.files / (1 << 20);
	if (csv) {
		puts("strategy,threads,files,bytes_per_file,batch_bytes,fsync,append,"
		     "wall_s,cpu_s,mib_s,cpu_mib_s");
		printf("%s,%zu,%zu,%llu,%llu,%d,%d,%.6f,%.6f,%.3f,%.3f\n",
		       strategy_names[strategy], threads, job.files,
		       (unsigned long long)job.size, (unsigned long long)job.batch,
		       job.fsync, job.append, wall_s, cpu_s, mib / wall_s, mib / cpu_s);
	} else {
		printf("%-9s %7s %6s %10s %8s %5s %9s %9s %9s %10s\n", "strategy",
		       "threads", "files", "bytes/file", "batch", "fsync", "wall_s",
		       "cpu_s", "MiB/s", "cpu_MiB/s");
		printf("%-9s %7zu %6zu %10llu %8llu %5s %9.4f %9.4f %9.1f %10.1f\n",
		       strategy_names[strategy], threads, job.files,
		       (unsigned long long)job.size, (unsigned long long)job.batch,
		       job.fsync ? "yes" : "no", wall_s, cpu_s, mib / wall_s, mib / cpu_s);
		puts("MiB/s: over elapsed time. cpu_MiB/s: over CPU time, as a clock()\n"
		     "stopwatch would give it: not a throughput (no disk waits, threads added up).");
	}
}

static const char usage[] =
	"usage: pwriters [-F FILES] [-S BYTES] [-B BATCH] [--strategy STRATEGY]\n"
	"                [--no-fsync] [--append] [-d DIR] [--keep] [--csv]\n"
	"  -F, --files FILES      how many files (default 10, at most 10000)\n"
	"  -S, --size BYTES       bytes per file, K/M/G suffixes (default 1M)\n"
	"  -B, --batch BATCH      bytes per write(2) (default 16K); the last may be shorter\n"
	"      --strategy S       seq (default), per-file, io-thread, or pool[:K]\n"
	"                         (K writer threads, 1 to 1024; default one per core)\n"
	"      --no-fsync         do not fsync(2): leave the data in the page cache\n"
	"      --append           open the files with O_APPEND\n"
	"  -d, --dir DIR          where to write the files (default .)\n"
	"      --keep             keep the files (default: removed at the end and on Ctrl-C)\n"
	"      --csv              print a CSV header and one row instead of the table\n"
	"  -h, --help             this help\n";

/* Parses seq | per-file | io-thread | pool[:K]; sets *k for pool. */
static enum strategy parse_strategy(const char *arg, size_t *k)
{
	for (int s = SEQ; s <= POOL; s++) {
		if (strcmp(arg, strategy_names[s]) == 0)
			return (enum strategy)s;
	}
	if (strncmp(arg, "pool:", 5) == 0) {
		*k = (size_t)parse_count("--strategy pool:K", arg + 5, 1, 1024);
		return POOL;
	}
	usage_error("--strategy: '%s' is not seq, per-file, io-thread or pool[:K]", arg);
}

/* Reads the command line into *o and job's sizes. */
static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option options[] = {
		{ "files", required_argument, NULL, 'F' },
		{ "size", required_argument, NULL, 'S' },
		{ "batch", required_argument, NULL, 'B' },
		{ "strategy", required_argument, NULL, 's' },
		{ "no-fsync", no_argument, NULL, 'n' },
		{ "append", no_argument, NULL, 'a' },
		{ "dir", required_argument, NULL, 'd' },
		{ "keep", no_argument, NULL, 'k' },
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum strategy strategy = SEQ;
	const char *dir = ".";
	size_t k = 0;		/* pool size; 0: one per core */
	int keep = 0, csv = 0, opt;

	iolab_init(argv[0], usage);
	job.files = 10;
	job.size = 1 << 20;
	job.batch = 16 << 10;
	job.fsync = 1;
	while ((opt = getopt_long(argc, argv, "F:S:B:d:h", options, NULL)) != -1) {
		switch (opt) {
		case 'F': job.files = (size_t)parse_count("-F", optarg, 1, 10000); break;
		case 'S': job.size = parse_size("-S", optarg, 0, (uint64_t)1 << 40); break;
		case 'B': job.batch = parse_size("-B", optarg, 1, 1 << 30); break;
		case 's': strategy = parse_strategy(optarg, &k); break;
		case 'n': job.fsync = 0; break;
		case 'a': job.append = 1; break;
		case 'd': dir = optarg; break;
		case 'k': keep = 1; break;
		case 'c': csv = 1; break;
		case 'h': print_help();
		default: usage_exit();
		}
	}
	if (optind != argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (strategy == IO_THREAD)
		k = 1;
	if (strategy == POOL && k == 0) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);

		k = cores > 0 ? (size_t)cores : 1;
	}
	*o = (struct options){ .strategy = strategy, .k = k, .dir = dir, .keep = keep, .csv = csv };
}
