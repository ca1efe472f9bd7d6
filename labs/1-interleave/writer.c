/*
 * writer - writes N lines holding one character ("A\n") to a file through stdio.
 *
 * Run two of them on one file at the same time (bin/launch does that) and
 * look at the result with bin/runs: the lines arrive in runs, one run per
 * write(2), and a write(2) happens whenever the stdio buffer is full.
 *
 *   append     open with O_APPEND: every write(2) lands at the current end
 *              of the file, atomically, so no line is ever lost.
 *   overwrite  open without O_APPEND and without truncating: each writer
 *              keeps its own offset, both start at 0, and they overwrite
 *              each other's lines.
 *
 * --together: started by launch, wait after opening the file until the
 * other writers have opened theirs (launch's second barrier), so that the
 * writers start their first lines within microseconds of each other rather
 * than the millisecond that exec() takes. In overwrite mode that decides
 * who writes each part of the file last.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <getopt.h>

#include "barrier.h"
#include "iolab.h"

/* Below main: the command line, and the stream's buffer. */
struct options {
	char line[3];		/* the character and a newline */
	uint64_t lines;
	int append;
	int64_t buffer;		/* -1: leave stdio's default alone */
	struct rendezvous *barrier;	/* --together */
	const char *path;
};
static void parse_args(int argc, char **argv, struct options *o);
static char *set_buffer(FILE *fp, int64_t buffer, const char *path);

int main(int argc, char **argv)
{
	struct options o;

	parse_args(argc, argv, &o);
	const char *path = o.path;
	int append = o.append;

	int flags = O_WRONLY | O_CREAT | (append ? O_APPEND : 0);
	int fd = open(path, flags, 0644);
	if (fd < 0)
		die_errno(path);
	/* fdopen() never truncates, whatever the mode string says. */
	FILE *fp = fdopen(fd, append ? "a" : "w");
	if (fp == NULL)
		die_errno(path);

	char *own_buffer = set_buffer(fp, o.buffer, path);

	if (o.barrier != NULL)
		rendezvous_wait(o.barrier);
	for (uint64_t i = 0; i < o.lines; i++) {
		if (fputs(o.line, fp) == EOF)
			die_errno(path);
	}
	/* fclose() writes what is left in the buffer: its failure counts too. */
	if (fclose(fp) != 0)
		die_errno(path);
	free(own_buffer);
	return 0;
}

/* -b: the stream's buffer; returns the one it allocated, or NULL. */
static char *set_buffer(FILE *fp, int64_t buffer, const char *path)
{
	char *own_buffer = NULL;

	if (buffer == 0) {
		if (setvbuf(fp, NULL, _IONBF, 0) != 0)
			die("%s: cannot make the stream unbuffered", path);
	} else if (buffer > 0) {
		/* Our own buffer: glibc ignores the size when given none. */
		own_buffer = xmalloc((size_t)buffer);
		if (setvbuf(fp, own_buffer, _IOFBF, (size_t)buffer) != 0)
			die("%s: cannot set a %lld-byte buffer", path, (long long)buffer);
	}
	return own_buffer;
}

static const char usage[] =
	"usage: writer [-c CHAR] [-n LINES] [-m append|overwrite] [-b BYTES] [-t] FILE\n"
	"  -c, --char CHAR      the character on every line (default A)\n"
	"  -n, --lines LINES    how many lines to write (default 1000000)\n"
	"  -m, --mode MODE      append (O_APPEND, the default) or overwrite\n"
	"                       (no O_APPEND, no truncation: writers clobber each other)\n"
	"  -b, --buffer BYTES   stdio buffer size (K/M suffixes; 0 = unbuffered);\n"
	"                       default: stdio's own choice, the file's st_blksize\n"
	"  -t, --together       started by launch: wait until every command it\n"
	"                       started has opened its file, then write\n"
	"  -h, --help           this help\n";

static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option options[] = {
		{ "char", required_argument, NULL, 'c' },
		{ "lines", required_argument, NULL, 'n' },
		{ "mode", required_argument, NULL, 'm' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "together", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const modes[] = { "append", "overwrite", NULL };
	char line[3] = "A\n";
	uint64_t lines = 1000000;
	int append = 1, together = 0;
	int64_t buffer = -1;	/* -1: leave stdio's default alone */
	int opt;

	iolab_init(argv[0], usage);
	while ((opt = getopt_long(argc, argv, "c:n:m:b:th", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			line[0] = parse_char("-c", optarg);
			break;
		case 'n':
			lines = parse_count("-n", optarg, 1, 1000000000);
			break;
		case 'm':
			append = parse_choice("-m", optarg, modes) == 0;
			break;
		case 'b':
			buffer = (int64_t)parse_size("-b", optarg, 0, 1 << 30);
			break;
		case 't':
			together = 1;
			break;
		case 'h':
			print_help();
		default:
			usage_exit();
		}
	}
	if (argc - optind != 1)
		usage_error("expected one FILE, got %d arguments", argc - optind);
	const char *path = argv[optind];
	struct rendezvous *barrier = together ? rendezvous_join() : NULL;
	if (together && barrier == NULL)
		usage_error("--together: not started by launch (no %s)", BARRIER_ENV);
	*o = (struct options){ .lines = lines, .append = append, .buffer = buffer,
			       .barrier = barrier, .path = path };
	memcpy(o->line, line, sizeof line);
}
