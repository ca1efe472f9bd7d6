/*
 * runs - the run-length analyzer: how did concurrent writers interleave?
 *
 * The writers put one character per line ("A\n", "B\n"). Each write(2) lands
 * as one block, so the file reads as runs of equal lines, and the run
 * lengths tell how much each writer wrote per system call.
 *
 * A well-formed line is exactly one byte (not '\r') followed by '\n'. Any
 * other line (empty, longer, CRLF, a last line without '\n') is malformed;
 * it counts as the character '?', and consecutive malformed lines make one
 * run. Malformed lines are what torn or overlapping writes leave behind.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>

#include "iolab.h"

enum output { CHANGES, QUIET, CSV, SUMMARY_CSV };

struct run {
	uint64_t length;
	unsigned char ch;
};

#define MALFORMED '?'
#define MAX_MALFORMED_SHOWN 10

static struct {
	enum output output;
	/* The run being read. */
	int ch;			/* -1 before the first line */
	uint64_t start, length;
	/* Everything seen so far. */
	uint64_t lines;		/* complete lines, also the number of the last one */
	struct run *runs;
	size_t nruns, cap;
	uint64_t malformed, malformed_at[MAX_MALFORMED_SHOWN];
	/* --multiple: K, and the first run whose length K does not divide. */
	uint64_t multiple;
	struct run odd;
	uint64_t odd_start;	/* 0: none yet */
} st = { .ch = -1 };

/* Records the run that just ended and prints it as the output asks. */
static void end_run(void)
{
	if (st.nruns == st.cap) {
		st.cap = st.cap ? 2 * st.cap : 1024;
		st.runs = realloc(st.runs, st.cap * sizeof *st.runs);
		if (st.runs == NULL)
			die("out of memory for %zu runs", st.cap);
	}
	st.runs[st.nruns++] = (struct run){ st.length, (unsigned char)st.ch };
	if (st.multiple > 0 && st.odd_start == 0 && st.length % st.multiple != 0) {
		st.odd = st.runs[st.nruns - 1];
		st.odd_start = st.start;
	}

	if (st.output == CSV) {
		printf("%" PRIu64 ",", st.start);
		csv_char(stdout, (char)st.ch);
		printf(",%" PRIu64 "\n", st.length);
	}
}

/* Adds one complete line holding character ch (MALFORMED for a bad one). */
static void add_line(int ch)
{
	/* BEGIN SOLUTION */
	st.lines++;
	if (ch == st.ch) {
		st.length++;
		return;
	}
	if (st.ch >= 0) {
		end_run();
		if (st.output == CHANGES)
			printf("Change on line %7" PRIu64 " - %c's: %" PRIu64 "\n",
			       st.lines, st.ch, st.length);
	}
	st.ch = ch;
	st.start = st.lines;
	st.length = 1;
	/* END SOLUTION */
	/* STUB
	// TODO: count the line (st.lines); a line of the run's character makes the
	// run longer; any other ends the run and starts a new one at this line
	// (st.ch, st.start, st.length). Ending a run: end_run(), then, in the
	// default output (st.output == CHANGES), one line in the source's format:
	//   printf("Change on line %7" PRIu64 " - %c's: %" PRIu64 "\n",
	//          st.lines, st.ch, st.length);
	// with st.lines already this line's number and st.ch, st.length still
	// the ended run's: "Change on line    2049 - A's: 2048".
	not_written("add_line(): counting the runs");
	*/
}

static void add_malformed_line(void)
{
	if (st.malformed < MAX_MALFORMED_SHOWN)
		st.malformed_at[st.malformed] = st.lines + 1;
	st.malformed++;
	add_line(MALFORMED);
}

/* "c\nc\nc\nc\n": four lines of c, as one 8-byte word. */
static uint64_t four_lines(int c)
{
	unsigned char four[8] = { (unsigned char)c, '\n', (unsigned char)c, '\n',
				  (unsigned char)c, '\n', (unsigned char)c, '\n' };
	uint64_t word;

	memcpy(&word, four, 8);
	return word;
}

/*
 * Reads the whole file, line by line, in 1 MiB blocks, and hands each line
 * to add_line() or add_malformed_line(). Where the current run goes on,
 * its lines are counted 8 bytes at a time, straight into st.lines and
 * st.length, as add_line() would count them one by one.
 */
static void scan(int fd, const char *path)
{
	static unsigned char buf[1 << 20];
	int line_len = 0;	/* bytes of the current line so far, at most 2 */
	unsigned char first = 0;	/* its first byte */
	int pattern_ch = -1;	/* the character pattern holds, -1: none yet */
	uint64_t pattern = 0;
	ssize_t got;

	while ((got = read_retry(fd, buf, sizeof buf)) > 0) {
		const unsigned char *p = buf, *end = buf + got;

		while (p < end) {
			/* Fast path: at a line start, four more lines of the
			 * current character are one 8-byte comparison. */
			if (line_len == 0 && st.ch >= 0) {
				uint64_t word;
				uint64_t n = 0;

				if (st.ch != pattern_ch) {	/* a new run began */
					pattern = four_lines(st.ch);
					pattern_ch = st.ch;
				}
				while (end - p >= 8) {
					memcpy(&word, p, 8);
					if (word != pattern)
						break;
					p += 8;
					n += 4;
				}
				st.lines += n;
				st.length += n;
				if (p == end)
					break;
			}
			/* Slow path: one byte through the line state machine. */
			unsigned char b = *p++;
			if (b == '\n') {
				if (line_len == 1 && first != '\r')
					add_line(first);
				else
					add_malformed_line();
				line_len = 0;
			} else {
				if (line_len == 0)
					first = b;
				if (line_len < 2)
					line_len++;
			}
		}
	}
	if (got < 0)
		die_errno(path);
	if (line_len > 0)
		add_malformed_line();	/* a last line without '\n' */
	if (st.ch >= 0)
		end_run();
}

static int by_char_then_length(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	if (x->ch != y->ch)
		return x->ch - y->ch;
	return (x->length > y->length) - (x->length < y->length);
}

/* A length and how many runs had it. */
struct tally {
	uint64_t length, count;
};

static int by_length(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int by_count_desc(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	if (x->count != y->count)
		return (x->count < y->count) - (x->count > y->count);
	return (x->length > y->length) - (x->length < y->length);
}

/* A character as the summary shows it: itself, or \xNN when invisible. */
static const char *char_name(unsigned char ch)
{
	static char name[8];

	if (ch > ' ' && ch < 127)
		snprintf(name, sizeof name, "%c", ch);
	else
		snprintf(name, sizeof name, "\\x%02x", ch);
	return name;
}

/* Prints the most common run lengths, at most five. */
static void print_common_lengths(void)
{
	uint64_t *lengths = xmalloc(st.nruns * sizeof *lengths);
	struct tally *tallies = xmalloc(st.nruns * sizeof *tallies);
	size_t ntallies = 0;

	for (size_t i = 0; i < st.nruns; i++)
		lengths[i] = st.runs[i].length;
	qsort(lengths, st.nruns, sizeof *lengths, by_length);
	for (size_t i = 0; i < st.nruns; i++) {
		if (ntallies > 0 && tallies[ntallies - 1].length == lengths[i])
			tallies[ntallies - 1].count++;
		else
			tallies[ntallies++] = (struct tally){ lengths[i], 1 };
	}
	qsort(tallies, ntallies, sizeof *tallies, by_count_desc);
	printf("most common run lengths:");
	for (size_t i = 0; i < ntallies && i < 5; i++)
		printf("%s %" PRIu64 " (%" PRIu64 " runs)", i ? "," : "",
		       tallies[i].length, tallies[i].count);
	printf("\n");
	free(lengths);
	free(tallies);
}

/*
 * The summary per character, from the runs sorted by character and length:
 * each character's runs are then one stretch, shortest first.
 * Fills lines_of[] with the lines per character, for --expect.
 */
static void summarize_runs(uint64_t lines_of[256])
{
	if (st.nruns > 0)	/* qsort(NULL, 0, ...) is undefined */
		qsort(st.runs, st.nruns, sizeof *st.runs, by_char_then_length);
	if (st.output == SUMMARY_CSV)
		printf("char,lines,runs,min_run,median_run,max_run\n");
	else if (st.output != CSV)
		printf("%s%" PRIu64 " lines in %zu runs; %" PRIu64 " malformed\n"
		       "%-5s %10s %8s %8s %11s %8s\n",
		       st.output == CHANGES ? "\n" : "", st.lines, st.nruns,
		       st.malformed, "char", "lines", "runs", "min_run",
		       "median_run", "max_run");

	for (size_t first = 0, last; first < st.nruns; first = last) {
		unsigned char ch = st.runs[first].ch;
		uint64_t lines = 0;

		for (last = first; last < st.nruns && st.runs[last].ch == ch; last++)
			lines += st.runs[last].length;
		lines_of[ch] = lines;

		size_t n = last - first, mid = first + n / 2;
		double median = n % 2 ? (double)st.runs[mid].length
				      : (st.runs[mid - 1].length + st.runs[mid].length) / 2.0;
		if (st.output == SUMMARY_CSV) {
			csv_char(stdout, (char)ch);
			printf(",%" PRIu64 ",%zu,%" PRIu64 ",%.15g,%" PRIu64 "\n",
			       lines, n, st.runs[first].length, median,
			       st.runs[last - 1].length);
		}
		else if (st.output != CSV)
			printf("%-5s %10" PRIu64 " %8zu %8" PRIu64 " %11.1f %8" PRIu64 "\n",
			       char_name(ch), lines, n, st.runs[first].length,
			       median, st.runs[last - 1].length);
	}
	if (st.output == CSV || st.output == SUMMARY_CSV)
		return;
	if (st.nruns > 0)
		print_common_lengths();
	if (st.malformed > 0) {
		printf("malformed lines: %" PRIu64 ", first at line", st.malformed);
		for (uint64_t i = 0; i < st.malformed && i < MAX_MALFORMED_SHOWN; i++)
			printf("%s %" PRIu64, i ? "," : "", st.malformed_at[i]);
		printf("\n");
	}
}

/* Parses --expect "A=1000,B=1000" into expected[]; the rest stay 0. */
static void parse_expect(const char *arg, uint64_t expected[256])
{
	const char *p = arg;

	for (;;) {
		/* The character is any one byte, even ',' or '=': read it first. */
		if (p[0] == '\0' || p[1] != '=')
			usage_error("--expect: '%s' is not C=N[,C=N...]", arg);
		unsigned char ch = (unsigned char)p[0];
		p += 2;
		if (parse_digits(&p, &expected[ch]) != 0 || (*p != ',' && *p != '\0'))
			usage_error("--expect: '%s' is not C=N[,C=N...]", arg);
		if (*p == '\0')
			return;
		p++;
	}
}

/* Below main: the command line. */
static const char *parse_args(int argc, char **argv, uint64_t expected[256], int *expect);

int main(int argc, char **argv)
{
	uint64_t expected[256] = { 0 }, found[256] = { 0 };
	int expect;
	const char *path = parse_args(argc, argv, expected, &expect);

	int fd = open(path, O_RDONLY);
	if (fd < 0)
		die_errno(path);
	if (st.output == CSV)
		printf("start_line,char,length\n");
	scan(fd, path);
	close(fd);
	summarize_runs(found);
	free(st.runs);
	if (fflush(stdout) != 0)
		die_errno("stdout");

	int mismatch = 0;
	for (int ch = 0; expect && ch < 256; ch++) {
		if (expected[ch] != found[ch]) {
			fprintf(stderr, "runs: %s: %s: expected %" PRIu64 " lines, found %" PRIu64 "\n",
				path, char_name((unsigned char)ch), expected[ch], found[ch]);
			mismatch = 1;
		}
	}
	if (st.odd_start > 0) {
		fprintf(stderr, "runs: %s: the run of %" PRIu64 " %s's at line %" PRIu64
			" is not a multiple of %" PRIu64 "\n", path, st.odd.length,
			char_name(st.odd.ch), st.odd_start, st.multiple);
		mismatch = 1;
	}
	return mismatch ? EXIT_IO : 0;
}

static const char usage[] =
	"usage: runs [--csv | --summary-csv] [--expect C=N[,C=N...]] [--multiple K]\n"
	"            [-q] FILE\n"
	"  Prints a line per change of character (the run that ended just before\n"
	"  that line), then a summary: lines, runs and run lengths per character,\n"
	"  malformed lines, the most common run lengths.\n"
	"  -q, --quiet        only the summary\n"
	"      --csv          only CSV: start_line,char,length, one row per run\n"
	"      --summary-csv  only CSV: char,lines,runs,min_run,median_run,max_run\n"
	"      --expect LIST  check the lines per character, e.g. A=1000,B=1000;\n"
	"                     characters not listed are expected 0 times.\n"
	"                     Exit 1, naming each difference, if they do not match\n"
	"      --multiple K   check that every run is a multiple of K lines long, as\n"
	"                     writers that lock and flush every K lines leave them.\n"
	"                     Exit 1, naming the first run that is not\n"
	"  -h, --help         this help\n";

/* Sets st's output and multiple, and expected[] (--expect, then *expect
 * is 1); returns FILE. */
static const char *parse_args(int argc, char **argv, uint64_t expected[256], int *expect)
{
	static const struct option options[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "csv", no_argument, NULL, 'C' },
		{ "summary-csv", no_argument, NULL, 'S' },
		{ "expect", required_argument, NULL, 'e' },
		{ "multiple", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	iolab_init(argv[0], usage);
	*expect = 0;
	st.output = CHANGES;
	while ((opt = getopt_long(argc, argv, "qh", options, NULL)) != -1) {
		switch (opt) {
		case 'q':
			if (st.output == CHANGES)
				st.output = QUIET;
			break;
		case 'C':
			st.output = CSV;
			break;
		case 'S':
			st.output = SUMMARY_CSV;
			break;
		case 'e':
			parse_expect(optarg, expected);
			*expect = 1;
			break;
		case 'm':
			st.multiple = parse_count("--multiple", optarg, 1, UINT64_MAX);
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
