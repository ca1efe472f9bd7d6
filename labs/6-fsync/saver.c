/*
 * saver - Lab 6: saves a small document, one of six ways, and says what each
 * costs. bin/crashstates says what each one can lose in a power cut.
 *
 * write(2) puts bytes in the page cache, not on the disk: the kernel writes
 * them back later (seconds later), in an order of its own. fflush() only
 * moves stdio's buffer into the page cache. fsync(fd) waits until the
 * file's data and size are on the disk; its name is an entry in a directory,
 * which is made durable by an fsync of the directory. rename() replaces a
 * name atomically (either the old file or the new one), but says nothing
 * about when, nor about the new file's data being on the disk first. So:
 *
 *   inplace       truncate, write          a crash can leave it empty or half
 *   fflush        the same through stdio   fflush() is not fsync()
 *   rename        write tmp, rename        the name can land before the data
 *   fsync-rename  ... fsync tmp first      the rename itself can be lost
 *   safe          ... fsync the directory  old or new, and new once saved
 *   log           append the records to a log, fsync   (a prefix survives)
 *
 * The document: N records of 64 bytes, "key00007=gen000002:..." for record 7
 * of generation 2; a save of generation G replaces generation G-1. The log
 * strategy appends generation G's records after those of 1 .. G-1.
 */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>

#include "iolab.h"
#include "timing.h"

enum { RECORD = 64 };
enum strategy { INPLACE, FFLUSH, RENAME, FSYNC_RENAME, SAFE, LOG };
static const char *const strategies[] = { "inplace", "fflush", "rename", "fsync-rename", "safe", "log", NULL };

/* Record i of generation gen: 63 characters and a newline. */
static void record(char *out, uint64_t i, uint64_t gen)
{
	/* (generations past 999999, in a long timed run, wrap round) */
	int n = snprintf(out, RECORD + 1, "key%05llu=gen%06llu:", (unsigned long long)i,
			 (unsigned long long)(gen % 1000000));

	for (int k = n; k < RECORD - 1; k++)
		out[k] = (char)('a' + (i + gen + (uint64_t)k) % 26);
	out[RECORD - 1] = '\n';
}

/* The document of generation gen: n records, RECORD * n bytes (not a string). */
static char *document(uint64_t n, uint64_t gen)
{
	char *doc = xmalloc(n * RECORD + 1);

	for (uint64_t i = 0; i < n; i++)
		record(doc + i * RECORD, i, gen);
	return doc;
}

static void fsync_or_die(int fd, const char *path)
{
	if (fsync(fd) != 0)
		die_errno(path);
}

static void close_or_die(int fd, const char *path)
{
	if (close(fd) != 0)
		die_errno(path);
}

/* rename and fsync-rename: tmp written whole (fsync'ed when sync), renamed. */
static void save_rename(const char *path, const char *tmp, const char *doc, size_t len, int sync)
{
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write_all(fd, doc, len) != 0)
		die_errno(tmp);
	if (sync)
		fsync_or_die(fd, tmp);
	close_or_die(fd, tmp);
	if (rename(tmp, path) != 0)
		die_errno(path);
}

static void save_inplace(const char *path, const char *doc, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write_all(fd, doc, len) != 0)
		die_errno(path);
	close_or_die(fd, path);
}

/* What "flock() Timings" took for a save: stdio, fflush(), and no fsync. */
static void save_fflush(const char *path, const char *doc, size_t len)
{
	FILE *fp = fopen(path, "w");

	if (fp == NULL || fwrite(doc, 1, len, fp) != len || fflush(fp) != 0)
		die_errno(path);
	if (fclose(fp) != 0)
		die_errno(path);
}

/*
 * The safe save: the new document in tmp, durable before its name replaces
 * path's; then the rename made durable by an fsync of the directory (dir)
 * holding both names. A crash at any point leaves the old document or the
 * new one, whole; once save_safe() returns, the new one.
 */
static void save_safe(const char *path, const char *tmp, const char *dir, const char *doc, size_t len)
{
	/* BEGIN SOLUTION */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (dfd < 0)
		die_errno(dir);
	if (fd < 0 || write_all(fd, doc, len) != 0)
		die_errno(tmp);
	fsync_or_die(fd, tmp);
	close_or_die(fd, tmp);
	if (rename(tmp, path) != 0)
		die_errno(path);
	fsync_or_die(dfd, dir);
	close_or_die(dfd, dir);
	/* END SOLUTION */
	/* STUB
	// TODO: write doc (len bytes) into tmp, make it durable, rename tmp to
	// path, and make the rename durable (an fsync of the directory dir).
	not_written("save_safe(): the safe save");
	*/
}

/* The log: generation gen's records appended, then fsync'ed. */
static void save_log(const char *path, const char *doc, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);

	if (fd < 0 || write_all(fd, doc, len) != 0)
		die_errno(path);
	fsync_or_die(fd, path);
	close_or_die(fd, path);
}

static void save(int s, const char *path, const char *tmp, const char *dir, uint64_t n, uint64_t gen)
{
	char *doc = document(n, gen);
	size_t len = n * RECORD;

	switch (s) {
	case INPLACE: save_inplace(path, doc, len); break;
	case FFLUSH: save_fflush(path, doc, len); break;
	case RENAME: save_rename(path, tmp, doc, len, 0); break;
	case FSYNC_RENAME: save_rename(path, tmp, doc, len, 1); break;
	case SAFE: save_safe(path, tmp, dir, doc, len); break;
	case LOG: save_log(path, doc, len); break;
	}
	free(doc);
}

/*
 * --verify: 0 when the n-record file path is a state a crash may leave
 * (during: generation gen-1 or gen, whole; after: gen), else 1 with why.
 * For log, the file should be generations 1 .. gen one after the other:
 * during, any prefix of that which holds 1 .. gen-1 whole (a last record
 * cut short is one recovery drops); after, all of it.
 */
static int verify(int s, const char *path, uint64_t n, uint64_t gen, int after)
{
	size_t len = n * RECORD, cap = (s == LOG ? gen : 1) * len + 1, got = 0;
	char *buf = xmalloc(cap), *want = xmalloc(cap);
	ssize_t r;
	int fd = open(path, O_RDONLY), ok = 0;

	if (fd < 0) {
		printf("%s: %s\n", path, strerror(errno));
		free(buf);
		free(want);
		return 1;
	}
	while (got < cap && (r = read_retry(fd, buf + got, cap - got)) > 0)
		got += (size_t)r;
	close(fd);
	if (s == LOG) {
		for (uint64_t g = 1; g <= gen; g++) {
			char *doc = document(n, g);
			memcpy(want + (g - 1) * len, doc, len);
			free(doc);
		}
		ok = got >= (after ? gen : gen - 1) * len && got <= gen * len && memcmp(buf, want, got) == 0;
		if (!ok)
			printf("%s: %zu bytes, not generations 1 to %llu of %llu records %s\n", path, got,
			       (unsigned long long)gen, (unsigned long long)n,
			       after ? "whole (the save had returned)" : "with a prefix of the last");
	} else {
		for (uint64_t g = after ? gen : gen - 1; g <= gen && !ok; g++) {
			char *doc = document(n, g);
			ok = g > 0 && got == len && memcmp(buf, doc, len) == 0;
			free(doc);
		}
		if (!ok)
			printf("%s: %zu bytes, not generation %llu%s whole\n", path, got, (unsigned long long)gen,
			       after ? " (the save had returned)" : " nor the one before");
	}
	free(buf);
	free(want);
	return !ok;
}

/* Below main: the command line. */
struct options {
	int s, csv;		/* s: the strategy */
	int check, after;	/* --verify; FILE after the save (else during) */
	uint64_t n, gen, ms;
	const char *path;
};
static void parse_args(int argc, char **argv, struct options *o);

int main(int argc, char **argv)
{
	struct options o;

	parse_args(argc, argv, &o);
	int s = o.s, csv = o.csv;
	uint64_t n = o.n, gen = o.gen, ms = o.ms;
	const char *path = o.path;

	if (o.check)
		return verify(s, path, n, gen, o.after);
	char *tmp = xmalloc(strlen(path) + 5), *copy = xmalloc(strlen(path) + 1);
	sprintf(tmp, "%s.tmp", path);
	const char *dir = dirname(strcpy(copy, path));

	if (ms == 0) {
		save(s, path, tmp, dir, n, gen);
	} else {
		uint64_t saves = 0;
		int64_t start = now_ns(), wall;
		do
			save(s, path, tmp, dir, n, gen + saves++);
		while ((wall = now_ns() - start) < (int64_t)ms * 1000000 || saves < 3);
		if (csv)
			printf("strategy,records,doc_bytes,saves,wall_s,us_per_save\n%s,%llu,%llu,%llu,%.6f,%.3f\n",
			       strategies[s], (unsigned long long)n, (unsigned long long)n * RECORD,
			       (unsigned long long)saves, ns_to_s(wall), ns_to_s(wall) * 1e6 / (double)saves);
		else
			printf("%s: %llu saves of %llu bytes in %.3f s: %.1f us per save\n", strategies[s],
			       (unsigned long long)saves, (unsigned long long)n * RECORD, ns_to_s(wall),
			       ns_to_s(wall) * 1e6 / (double)saves);
	}
	free(tmp);
	free(copy);
	return 0;
}

static const char usage[] =
	"usage: saver [-s STRATEGY] [-n RECORDS] [-g GEN] [--ms MS] [--csv] FILE\n"
	"       saver --verify [-s STRATEGY] [-n RECORDS] -g GEN FILE during|after\n"
	"  -s, --strategy S    inplace, fflush, rename, fsync-rename, safe or log\n"
	"                      (default safe): how FILE is saved (see saver.c)\n"
	"  -n, --records N     records of 64 bytes in the document (default 100)\n"
	"  -g, --generation G  save generation G, which replaces G-1 (default 1)\n"
	"      --ms MS         save again and again (generations G, G+1, ...) for\n"
	"                      at least MS milliseconds and 3 saves, then print the time\n"
	"                      per save (without: one save, nothing printed)\n"
	"      --csv           print that as a CSV row with its header\n"
	"      --verify        check FILE as a crash left it: exit 0 when it holds\n"
	"                      generation G-1 or G whole (during a save) or G (after\n"
	"                      it), for log a prefix of the records; exit 1 and one\n"
	"                      line saying what is wrong otherwise\n"
	"  -h, --help          this help\n"
	"  The temporary file is FILE.tmp, in FILE's directory.\n";

static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option options[] = {
		{ "strategy", required_argument, NULL, 's' },
		{ "records", required_argument, NULL, 'n' },
		{ "generation", required_argument, NULL, 'g' },
		{ "ms", required_argument, NULL, 'm' },
		{ "csv", no_argument, NULL, 'c' },
		{ "verify", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int s = SAFE, csv = 0, check = 0, opt;
	uint64_t n = 100, gen = 1, ms = 0;

	iolab_init(argv[0], usage);
	while ((opt = getopt_long(argc, argv, "s:n:g:h", options, NULL)) != -1) {
		switch (opt) {
		case 's': s = parse_choice("--strategy", optarg, strategies); break;
		case 'n': n = parse_count("--records", optarg, 1, 100000); break;
		case 'g': gen = parse_count("--generation", optarg, 1, 999999); break;
		case 'm': ms = parse_count("--ms", optarg, 1, 3600000); break;
		case 'c': csv = 1; break;
		case 'v': check = 1; break;
		case 'h': print_help();
		default: usage_exit();
		}
	}
	*o = (struct options){ .s = s, .csv = csv, .check = check, .n = n, .gen = gen, .ms = ms };
	if (check) {
		if (argc - optind != 2 || (strcmp(argv[optind + 1], "during") != 0 &&
					   strcmp(argv[optind + 1], "after") != 0))
			usage_error("--verify expects FILE and during or after");
		o->after = strcmp(argv[optind + 1], "after") == 0;
	} else if (argc - optind != 1) {
		usage_error("expected one FILE, got %d arguments", argc - optind);
	}
	o->path = argv[optind];
}
