/*
 * lockbench - flock-writer with every choice made an option: how many lines
 * per lock, whether to fflush() before the unlock, which kind of lock, and
 * whether to fdatasync()/fsync() inside the lock.
 *
 * The three kinds of lock are all advisory: they exclude only processes
 * that ask for the same lock, never a plain write(2).
 *   flock  belongs to the open file description (what open() returns and
 *          fork() and dup() share); freed when its last descriptor closes.
 *   fcntl  a POSIX record lock: belongs to the process; freed when the
 *          process closes ANY descriptor of the file, and not inherited
 *          by fork().
 *   ofd    an open file description lock (Linux 3.15): a record lock like
 *          fcntl's, but owned like flock's. It conflicts with fcntl locks.
 * The record locks here cover the whole file (l_len = 0: to the end of the
 * file, however far it grows).
 *
 * Besides elapsed time, it measures how long it waited for the lock and how
 * long it held it, with CLOCK_MONOTONIC around every lock call.
 *
 * --lockstep (started by launch): before every batch, wait at launch's
 * second barrier until the other writers have finished their previous
 * batch. No lock is fair: a writer that releases one and asks for it again
 * at once usually gets it back before a woken waiter runs, and may write
 * all its batches in a row, which tests nothing. In lockstep every batch
 * is contended. The barrier costs time: leave it out when timing the locks.
 */
#define _GNU_SOURCE		/* F_OFD_SETLKW (a Linux feature) and flock() */
#include <fcntl.h>
#include <getopt.h>
#include <sys/file.h>
#include <time.h>

#include "barrier.h"
#include "iolab.h"
#include "timing.h"

enum kind { KIND_NONE, KIND_FLOCK, KIND_FCNTL, KIND_OFD };
static const char *const kind_names[] = { "none", "flock", "fcntl", "ofd", NULL };
enum sync_mode { SYNC_NONE, SYNC_FDATASYNC, SYNC_FSYNC };
static const char *const sync_names[] = { "none", "fdatasync", "fsync", NULL };

/*
 * Takes (take = 1, waiting as long as another owner holds it) or releases
 * (take = 0) an exclusive lock of the given kind on the whole file.
 * Returns 0, or -1 with errno set. Only write_batches() calls it, as it
 * does sleep_ms(): in the students' kit, until they write it, nothing
 * does, and "unused" says that this is expected (clang warns of an unused
 * static function, inline or not).
 */
__attribute__((unused)) static int set_lock(enum kind kind, int fd, int take)
{
	struct flock range = {
		.l_type = take ? F_WRLCK : F_UNLCK,
		.l_whence = SEEK_SET,
		.l_start = 0,
		.l_len = 0,	/* to the end of the file, wherever it gets */
		.l_pid = 0,	/* must be 0 for an OFD lock */
	};
	int r;

	do {
		switch (kind) {
		case KIND_FLOCK:
			r = flock(fd, take ? LOCK_EX : LOCK_UN);
			break;
		case KIND_FCNTL:
			r = fcntl(fd, take ? F_SETLKW : F_SETLK, &range);
			break;
		case KIND_OFD:
			r = fcntl(fd, take ? F_OFD_SETLKW : F_OFD_SETLK, &range);
			break;
		default:
			r = 0;
		}
	} while (r != 0 && errno == EINTR);
	return r;
}

/* Sleeps ms milliseconds, the rest of them again after a signal. */
__attribute__((unused)) static void sleep_ms(uint64_t ms)
{
	struct timespec left = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };

	while (nanosleep(&left, &left) != 0)
		if (errno != EINTR)
			die("nanosleep: %s", strerror(errno));
}

/* --lockstep: launch's second barrier, met before every batch; else NULL. */
static struct rendezvous *lockstep;

/*
 * Appends `lines` copies of line to fp (fd is its descriptor, path its name
 * for messages) in batches of per_lock lines, the last one shorter when
 * per_lock does not divide lines. Each batch is written under an exclusive
 * lock of the given kind, flushed before the unlock unless flush is 0, and
 * synced as sync says; hold_ms keeps the lock that much longer. Adds the
 * time spent waiting for the lock to *waiting and holding it to *holding;
 * returns the number of batches.
 */
static uint64_t write_batches(FILE *fp, int fd, const char *path, const char *line,
			      uint64_t lines, uint64_t per_lock, enum kind kind, int flush,
			      enum sync_mode sync, uint64_t hold_ms, int64_t *waiting,
			      int64_t *holding)
{
	/* BEGIN SOLUTION */
	uint64_t batches = 0;

	for (uint64_t done = 0; done < lines; done += per_lock, batches++) {
		uint64_t batch = lines - done < per_lock ? lines - done : per_lock;

		if (lockstep != NULL)
			rendezvous_wait(lockstep);
		int64_t asked = now_ns();

		if (set_lock(kind, fd, 1) != 0)
			die("%s: taking the %s lock: %s", path, kind_names[kind], strerror(errno));
		int64_t got = now_ns();
		for (uint64_t i = 0; i < batch; i++)
			if (fputs(line, fp) == EOF)
				die_errno(path);
		if (flush && fflush(fp) != 0)
			die_errno(path);
		if (sync == SYNC_FDATASYNC && fdatasync(fd) != 0)
			die("%s: fdatasync: %s", path, strerror(errno));
		if (sync == SYNC_FSYNC && fsync(fd) != 0)
			die("%s: fsync: %s", path, strerror(errno));
		if (hold_ms > 0)
			sleep_ms(hold_ms);
		if (set_lock(kind, fd, 0) != 0)
			die("%s: releasing the %s lock: %s", path, kind_names[kind], strerror(errno));
		int64_t released = now_ns();
		*waiting += got - asked;
		*holding += released - got;
	}
	return batches;
	/* END SOLUTION */
	/* STUB
	// TODO: for each batch, in this order: with --lockstep (lockstep is not
	// NULL) first rendezvous_wait(lockstep); take the lock (set_lock()), write
	// the batch's lines (fputs()), fflush() unless flush is 0, fdatasync() or
	// fsync() as sync asks, sleep hold_ms (sleep_ms()), release the lock. Time
	// each lock call with now_ns(): from asking for the lock to getting it is
	// waiting, from getting it to releasing it is holding.
	not_written("write_batches(): the batches under the lock");
	*/
}

/* Below main: the command line. */
struct options {
	char line[3];		/* the character and a newline */
	uint64_t lines, per_lock, hold_ms;
	enum kind kind;
	enum sync_mode sync;
	int flush, csv;
	const char *path;
};
static void parse_args(int argc, char **argv, struct options *o);

/* The settings and what they measured, as a table or (--csv) a CSV row. */
static void print_result(const struct options *o, uint64_t batches, int64_t wall, int64_t waiting,
			 int64_t holding)
{
	if (o->csv) {
		puts("char,lines,lines_per_lock,flush,lock,sync,batches,wall_s,lock_wait_s,lock_held_s");
		csv_char(stdout, o->line[0]);
		printf(",%llu,%llu,%d,%s,%s,%llu,%.6f,%.6f,%.6f\n",
		       (unsigned long long)o->lines, (unsigned long long)o->per_lock, o->flush,
		       kind_names[o->kind], sync_names[o->sync], (unsigned long long)batches,
		       ns_to_s(wall), ns_to_s(waiting), ns_to_s(holding));
	} else {
		printf("%s: %llu lines of %c, %llu per lock (%llu batch%s), lock %s, %s, sync %s\n",
		       o->path, (unsigned long long)o->lines, o->line[0],
		       (unsigned long long)o->per_lock,
		       (unsigned long long)batches, batches == 1 ? "" : "es",
		       kind_names[o->kind], o->flush ? "flush" : "no flush", sync_names[o->sync]);
		print_seconds(stdout, "elapsed", wall);
		print_seconds(stdout, "waiting for the lock", waiting);
		print_seconds(stdout, "holding the lock", holding);
	}
}

int main(int argc, char **argv)
{
	struct options o;

	parse_args(argc, argv, &o);
	const char *path = o.path;
	int64_t start = now_ns();
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		die_errno(path);
	FILE *fp = fdopen(fd, "a");
	if (fp == NULL)
		die_errno(path);

	int64_t waiting = 0, holding = 0;
	uint64_t batches = write_batches(fp, fd, path, o.line, o.lines, o.per_lock, o.kind, o.flush,
					 o.sync, o.hold_ms, &waiting, &holding);
	/* With --no-flush, what is left in the buffer is written now, unlocked. */
	if (fclose(fp) != 0)
		die_errno(path);
	int64_t wall = now_ns() - start;

	print_result(&o, batches, wall, waiting, holding);
	if (fflush(stdout) != 0)
		die_errno("stdout");
	return 0;
}

static const char usage[] =
	"usage: lockbench [-c CHAR] [-n LINES] [-k LINES_PER_LOCK] [--no-flush]\n"
	"                 [--lock flock|fcntl|ofd|none] [--sync none|fdatasync|fsync]\n"
	"                 [--hold-ms MS] [--lockstep] [--csv] FILE\n"
	"  -c, --char CHAR       the character on every line (default A)\n"
	"  -n, --lines LINES     how many lines to write (default 1000000)\n"
	"  -k, --per-lock LINES  lines written under each lock (default 1000);\n"
	"                        the last batch is shorter if K does not divide N\n"
	"      --no-flush        no fflush() before the unlock: stdio then writes\n"
	"                        whenever its buffer is full, locked or not\n"
	"  -l, --lock KIND       flock (default), fcntl (POSIX record lock, F_SETLKW),\n"
	"                        ofd (open file description lock, F_OFD_SETLKW), none\n"
	"  -s, --sync MODE       none (default), fdatasync or fsync after the flush,\n"
	"                        inside the lock\n"
	"      --hold-ms MS      keep the lock MS milliseconds longer after each batch\n"
	"      --lockstep        started by launch: before each batch, wait until every\n"
	"                        command it started is there (same -n and -k for all)\n"
	"      --csv             a CSV header and one row instead of the report\n"
	"  -h, --help            this help\n"
	"  FILE is opened for appending (O_APPEND) and created if needed.\n";

static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option options[] = {
		{ "char", required_argument, NULL, 'c' },
		{ "lines", required_argument, NULL, 'n' },
		{ "per-lock", required_argument, NULL, 'k' },
		{ "no-flush", no_argument, NULL, 'F' },
		{ "lock", required_argument, NULL, 'l' },
		{ "sync", required_argument, NULL, 's' },
		{ "hold-ms", required_argument, NULL, 'H' },
		{ "lockstep", no_argument, NULL, 'L' },
		{ "csv", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char line[3] = "A\n";
	uint64_t lines = 1000000, per_lock = 1000, hold_ms = 0;
	enum kind kind = KIND_FLOCK;
	enum sync_mode sync = SYNC_NONE;
	int flush = 1, csv = 0, opt;

	iolab_init(argv[0], usage);
	while ((opt = getopt_long(argc, argv, "c:n:k:l:s:h", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			line[0] = parse_char("-c", optarg);
			break;
		case 'n':
			lines = parse_count("-n", optarg, 1, 1000000000);
			break;
		case 'k':
			per_lock = parse_count("-k", optarg, 1, 1000000000);
			break;
		case 'F':
			flush = 0;
			break;
		case 'l':
			kind = (enum kind)parse_choice("--lock", optarg, kind_names);
			break;
		case 's':
			sync = (enum sync_mode)parse_choice("--sync", optarg, sync_names);
			break;
		case 'H':
			hold_ms = parse_count("--hold-ms", optarg, 0, 3600000);
			break;
		case 'C':
			csv = 1;
			break;
		case 'L':
			lockstep = rendezvous_join();
			if (lockstep == NULL)
				usage_error("--lockstep: not started by launch (no %s)", BARRIER_ENV);
			break;
		case 'h':
			print_help();
		default:
			usage_exit();
		}
	}
	if (argc - optind != 1)
		usage_error("expected one FILE, got %d arguments", argc - optind);
	*o = (struct options){ .lines = lines, .per_lock = per_lock, .hold_ms = hold_ms,
			       .kind = kind, .sync = sync, .flush = flush, .csv = csv,
			       .path = argv[optind] };
	memcpy(o->line, line, sizeof line);
}
