/*
 * iolab.h - the few helpers every iolab program needs:
 *   - error reporting with the conventions of the kit
 *       usage errors:  "prog: message", then the usage's synopsis, exit 2
 *       I/O failures:  "prog: path: strerror(errno)", exit 1
 *   - strict parsing of counts and of sizes with K/M/G suffixes
 *   - write_all(): a write(2) loop that survives short writes and EINTR
 *   - not_written(): what a part of a program left for the student to write
 *     does when it runs (the starter kit of `make starter`)
 *
 * Every program is one .c file, so the helpers are static functions in this
 * header, in the style of OSTEP's common.h.
 */
#ifndef IOLAB_H
#define IOLAB_H

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Exit statuses of every iolab program. EXIT_NOT_WRITTEN: the program ran
 * into a part that is still to be written (see not_written() below). */
enum { EXIT_IO = 1, EXIT_USAGE = 2, EXIT_NOT_WRITTEN = 3 };

static const char *iolab_prog = "iolab";
static const char *iolab_usage = "";

/* Call first thing in main(): names the program in messages and keeps the
 * usage text for usage errors. */
static inline void iolab_init(const char *argv0, const char *usage)
{
	const char *slash = strrchr(argv0, '/');

	iolab_prog = slash ? slash + 1 : argv0;
	iolab_usage = usage;
}

/* -h/--help: the usage on stdout, exit 0. */
__attribute__((noreturn))
static inline void print_help(void)
{
	fputs(iolab_usage, stdout);
	exit(0);
}

/* After a usage error: the usage's synopsis only (its "usage:" line and the
 * lines that continue it, indented by more than two spaces), then where the
 * rest is, so that the line saying what is wrong stays on the screen. */
static inline void iolab_print_synopsis(void)
{
	const char *line = iolab_usage, *end;

	while (*line != '\0') {
		end = strchr(line, '\n');
		if (end == NULL)
			end = line + strlen(line);
		if (line != iolab_usage && strncmp(line, "   ", 3) != 0)
			break;
		fprintf(stderr, "%.*s\n", (int)(end - line), line);
		line = *end == '\n' ? end + 1 : end;
	}
	fprintf(stderr, "see %s --help for every option\n", iolab_prog);
}

/* A bad command line: one line saying what is wrong, the synopsis, exit 2. */
__attribute__((format(printf, 1, 2), noreturn))
static inline void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", iolab_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	iolab_print_synopsis();
	exit(EXIT_USAGE);
}

/* getopt_long() has already printed a line naming the bad option. */
__attribute__((noreturn))
static inline void usage_exit(void)
{
	iolab_print_synopsis();
	exit(EXIT_USAGE);
}

/* A failure while running: "prog: message", exit 1. */
__attribute__((format(printf, 1, 2), noreturn))
static inline void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", iolab_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_IO);
}

/* A failed system call on a path: "prog: path: reason", exit 1. */
__attribute__((noreturn))
static inline void die_errno(const char *path)
{
	die("%s: %s", path, strerror(errno));
}

/*
 * In the students' starter kit (`make starter`), each part of a program
 * that is theirs to write is replaced by a stub that calls
 *     not_written("the start barrier");
 * which prints "launch: not written yet: the start barrier (see
 * labs/1-interleave/launch.c)" on stderr and exits with EXIT_NOT_WRITTEN (3),
 * instead of crashing on whatever the missing code should have set up.
 * Safe from any thread: the first caller prints and exits; any other waits
 * for the exit, so that two threads never run exit() at once.
 */
__attribute__((noreturn))
static inline void iolab_not_written(const char *what, const char *file)
{
	static atomic_flag taken = ATOMIC_FLAG_INIT;

	if (atomic_flag_test_and_set(&taken))
		for (;;)
			pause();
	fprintf(stderr, "%s: not written yet: %s (see %s)\n", iolab_prog, what, file);
	exit(EXIT_NOT_WRITTEN);
}
#define not_written(what) iolab_not_written((what), __FILE__)

static inline void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		die("out of memory (%zu bytes)", n);
	return p;
}

/*
 * Parses the decimal digits at *s into *value, and leaves *s after them.
 * Returns -1 when there is no digit or the number does not fit.
 * No sign, no spaces: "-5", " 5" and "5x" are all someone's mistake.
 */
static inline int parse_digits(const char **s, uint64_t *value)
{
	const char *p = *s;
	uint64_t v = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned digit = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - digit) / 10)
			return -1;
		v = v * 10 + digit;
	}
	*s = p;
	*value = v;
	return 0;
}

/* A whole number in [min, max], or a usage error naming the option. */
static inline uint64_t parse_count(const char *option, const char *arg,
				   uint64_t min, uint64_t max)
{
	const char *p = arg;
	uint64_t v;

	if (parse_digits(&p, &v) != 0 || *p != '\0')
		usage_error("%s: '%s' is not a whole number", option, arg);
	if (v < min || v > max)
		usage_error("%s: %s is out of range (%llu to %llu)", option, arg,
			    (unsigned long long)min, (unsigned long long)max);
	return v;
}

/*
 * The character of a writer's lines: one visible byte, so that every line
 * is exactly 2 bytes ("A\n"), or a usage error naming the option.
 */
static inline char parse_char(const char *option, const char *arg)
{
	if (strlen(arg) != 1 || arg[0] <= ' ' || arg[0] > '~')
		usage_error("%s: '%s' is not a single visible character", option, arg);
	return arg[0];
}

/*
 * The index of arg in names (a NULL-terminated list), or a usage error
 * that names the choices: "--rng: 'mt' is not xoshiro, rand_r or rand".
 */
static inline int parse_choice(const char *option, const char *arg,
			       const char *const *names)
{
	char list[256] = "";
	int n;

	for (n = 0; names[n] != NULL; n++)
		if (strcmp(arg, names[n]) == 0)
			return n;
	for (int i = 0; i < n; i++) {
		size_t used = strlen(list);
		snprintf(list + used, sizeof list - used, "%s%s",
			 i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
	}
	usage_error("%s: '%s' is not %s", option, arg, list);
}

/*
 * A size in bytes in [min, max]: digits with an optional suffix K, M or G
 * (powers of 1024, either case), or a usage error naming the option.
 */
static inline uint64_t parse_size(const char *option, const char *arg,
				  uint64_t min, uint64_t max)
{
	const char *p = arg;
	uint64_t v;
	unsigned shift = 0;

	if (parse_digits(&p, &v) != 0)
		usage_error("%s: '%s' is not a size (a number with an optional K, M or G)",
			    option, arg);
	switch (*p) {
	case 'k': case 'K': shift = 10; p++; break;
	case 'm': case 'M': shift = 20; p++; break;
	case 'g': case 'G': shift = 30; p++; break;
	}
	if (*p != '\0')
		usage_error("%s: '%s' is not a size (a number with an optional K, M or G)",
			    option, arg);
	if (v > (UINT64_MAX >> shift) || (v << shift) < min || (v << shift) > max)
		usage_error("%s: %s is out of range (%llu to %llu bytes)", option, arg,
			    (unsigned long long)min, (unsigned long long)max);
	return v << shift;
}

/*
 * Writes all n bytes or fails. write(2) may write fewer bytes than asked
 * (a signal, a full pipe, a nearly full disk); the loop carries on from
 * where it stopped. Returns 0, or -1 with errno set.
 */
static inline int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t done = write(fd, p, n);

		if (done < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += done;
		n -= (size_t)done;
	}
	return 0;
}

/*
 * Prints s as one CSV field (RFC 4180): as it is, or between double quotes,
 * each quote doubled, when it holds a comma, a quote or a line break.
 * csv_char() does the same for a one-character field, such as a writer's.
 */
static inline void csv_field(FILE *out, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, out);
		return;
	}
	putc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', out);
		putc(*s, out);
	}
	putc('"', out);
}

static inline void csv_char(FILE *out, char c)
{
	char s[2] = { c, '\0' };

	csv_field(out, s);
}

/* read(2) retried on EINTR. Returns bytes read, 0 at end of file, -1 on error. */
static inline ssize_t read_retry(int fd, void *buf, size_t n)
{
	ssize_t got;

	do
		got = read(fd, buf, n);
	while (got < 0 && errno == EINTR);
	return got;
}

#endif
