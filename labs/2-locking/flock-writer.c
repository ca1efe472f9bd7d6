/*
 * flock-writer - Lab 1's writer, with a lock around every batch of lines.
 *
 * For each batch of K lines: take an exclusive flock() on the file, put the
 * K lines into the stdio buffer, fflush() them, release the lock. Two
 * writers started together on one file then take turns, batch by batch.
 *
 * The fflush() is what makes the lock protect anything. The lock guards
 * write(2) calls, but fputs() only fills a buffer in this process; fflush()
 * is the write(2) that hands the lines to the kernel. (It does not put them
 * on the disk: that is fsync's job, see lockbench --sync.) Without it, the
 * buffer would be written whenever it fills up, which is often after the
 * unlock, while the other writer holds the lock.
 */
#define _DEFAULT_SOURCE		/* flock() is BSD, not POSIX */
#include <fcntl.h>
#include <getopt.h>
#include <sys/file.h>

#include "iolab.h"

/* Below main: the command line. */
static const char *parse_args(int argc, char **argv, char *c, uint64_t *lines, uint64_t *per_lock);

int main(int argc, char **argv)
{
	char line[3] = "A\n";
	uint64_t lines, per_lock;
	const char *path = parse_args(argc, argv, &line[0], &lines, &per_lock);

	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		die_errno(path);
	FILE *fp = fdopen(fd, "a");
	if (fp == NULL)
		die_errno(path);

	for (uint64_t done = 0; done < lines;) {
		uint64_t batch = lines - done < per_lock ? lines - done : per_lock;

		/* Blocks while another process holds the lock. */
		while (flock(fd, LOCK_EX) != 0)
			if (errno != EINTR)
				die("%s: flock(LOCK_EX): %s", path, strerror(errno));
		for (uint64_t i = 0; i < batch; i++)
			if (fputs(line, fp) == EOF)
				die_errno(path);
		/* The lines reach the file now, while we still hold the lock. */
		if (fflush(fp) != 0)
			die_errno(path);
		if (flock(fd, LOCK_UN) != 0)
			die("%s: flock(LOCK_UN): %s", path, strerror(errno));
		done += batch;
	}
	/* Nothing is left in the buffer, but fclose() can still fail. */
	if (fclose(fp) != 0)
		die_errno(path);
	return 0;
}

static const char usage[] =
	"usage: flock-writer [-c CHAR] [-n LINES] [-k LINES_PER_LOCK] FILE\n"
	"  -c, --char CHAR       the character on every line (default A)\n"
	"  -n, --lines LINES     how many lines to write (default 1000000)\n"
	"  -k, --per-lock LINES  lines written under each lock (default 1000);\n"
	"                        the last batch is shorter if K does not divide N\n"
	"  -h, --help            this help\n"
	"  FILE is opened for appending (O_APPEND) and created if needed.\n";

/* Sets *c (-c), *lines (-n) and *per_lock (-k); returns FILE. */
static const char *parse_args(int argc, char **argv, char *c, uint64_t *lines, uint64_t *per_lock)
{
	static const struct option options[] = {
		{ "char", required_argument, NULL, 'c' },
		{ "lines", required_argument, NULL, 'n' },
		{ "per-lock", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	iolab_init(argv[0], usage);
	*lines = 1000000;
	*per_lock = 1000;
	while ((opt = getopt_long(argc, argv, "c:n:k:h", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			*c = parse_char("-c", optarg);
			break;
		case 'n':
			*lines = parse_count("-n", optarg, 1, 1000000000);
			break;
		case 'k':
			*per_lock = parse_count("-k", optarg, 1, 1000000000);
			break;
		case 'h':
			print_help();
		default:
			usage_exit();
		}
	}
	if (argc - optind != 1)
		usage_error("expected one FILE, got %d arguments", argc - optind);
	return argv[optind];
}
