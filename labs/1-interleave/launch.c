/*
 * launch - starts several commands at the same moment and times each one.
 *
 * Starting two writers one after the other (fork, exec, fork, exec) gives
 * the first a head start of a millisecond or so: long enough to write
 * thousands of lines before the second exists. launch forks every child
 * first; each child waits on a start barrier (a read from a pipe) and only
 * then execs its command. Closing the pipe's write end wakes all of them at
 * once. Each child is reaped with wait4(), which hands back its rusage:
 * user and system CPU time, and context switches.
 *
 * exec() itself still takes each child a different time, so launch also
 * hands its children a second barrier, which they can meet at after exec,
 * as often as they like (common/barrier.h: writer --together, lockbench
 * --lockstep).
 */
#define _GNU_SOURCE		/* wait4() is BSD, memfd_create() Linux */
#include <ctype.h>
#include <getopt.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "iolab.h"
#include "stats.h"
#include "barrier.h"
#include "timing.h"

#define MAX_CHILDREN 64

/* What one child did in one trial. */
struct result {
	double start_delay_s, wall_s, user_s, sys_s;
	long vol_cs, invol_cs;
	int exit_status;	/* exit code, or 128 + signal number */
};

/* Written by the children, read by the parent: a shared mapping. */
struct child_report {
	int64_t started_ns;	/* when the child left the barrier */
	int exec_errno;		/* why execvp() failed, or 0 */
};

/* Splits a command on white space into a NULL-terminated argv. */
static char **split_command(char *cmd)
{
	char **argv = xmalloc((strlen(cmd) / 2 + 2) * sizeof *argv);
	int n = 0;

	for (char *p = strtok(cmd, " \t\n"); p != NULL; p = strtok(NULL, " \t\n"))
		argv[n++] = p;
	argv[n] = NULL;
	return argv;
}

/*
 * The start barrier is a pipe, gate[0] its read end and gate[1] its write
 * end. barrier_open() makes it before the fork, so that every child has both
 * ends; each child waits in barrier_wait(), and barrier_release() wakes them
 * all at once.
 */
static void barrier_open(int gate[2])
{
	/* BEGIN SOLUTION */
	if (pipe(gate) != 0)
		die_errno("pipe");
	/* END SOLUTION */
	/* STUB
	// TODO: make the pipe that every child will block on.
	not_written("barrier_open(): the start barrier");
	*/
}

/* In a child: returns once the parent has released every child. */
static void barrier_wait(int gate[2])
{
	/* BEGIN SOLUTION */
	char byte;

	/* read() blocks until every write end is closed, then returns 0 (end
	 * of file) in every child at once. The child's own write end must go
	 * first, or it would wait for itself. */
	close(gate[1]);
	while (read(gate[0], &byte, 1) < 0 && errno == EINTR)
		;
	close(gate[0]);
	/* END SOLUTION */
	/* STUB
	// TODO: block until the parent releases every child (read() on the pipe
	// returns 0 once every write end is closed, the child's own one too).
	*/
}

/* In the parent, once every child is forked: lets them all go. */
static void barrier_release(int gate[2])
{
	/* BEGIN SOLUTION */
	close(gate[0]);
	close(gate[1]);		/* go */
	/* END SOLUTION */
	/* STUB
	// TODO: release every child at once (and close what the parent no longer needs).
	not_written("barrier_release(): releasing the children");
	*/
}

/*
 * Reaps the n children pids[] with wait4(), which also hands back each one's
 * rusage, and fills in results[i] for child i. released is when the
 * barrier was released; reports[i] says when child i left it.
 */
static void reap_children(const pid_t pids[], int n, int64_t released,
			  const struct child_report *reports, struct result *results)
{
	/* BEGIN SOLUTION */
	for (int reaped = 0; reaped < n;) {
		struct rusage ru;
		int status;
		pid_t pid;

		while ((pid = wait4(-1, &status, 0, &ru)) < 0 && errno == EINTR)
			;
		if (pid < 0)
			die_errno("wait4");
		int64_t ended = now_ns();
		int i = 0;
		while (i < n && pids[i] != pid)
			i++;
		if (i == n)
			continue;	/* not one of ours */
		reaped++;
		results[i] = (struct result){
			.start_delay_s = ns_to_s(reports[i].started_ns - released),
			.wall_s = ns_to_s(ended - released),
			.user_s = timeval_s(ru.ru_utime),
			.sys_s = timeval_s(ru.ru_stime),
			.vol_cs = ru.ru_nvcsw,
			.invol_cs = ru.ru_nivcsw,
			.exit_status = WIFEXITED(status) ? WEXITSTATUS(status)
							  : 128 + WTERMSIG(status),
		};
	}
	/* END SOLUTION */
	/* STUB
	// TODO: reap every child with wait4(), which also hands back its rusage,
	// and fill in results[i] for child i: start delay and elapsed time from
	// the release (now_ns()), user and system CPU time (timeval_s(), in
	// timing.h), voluntary and involuntary context switches, and exit status
	// (128 + signal if killed).
	not_written("reap_children(): reaping the children with wait4()");
	*/
}

/*
 * Runs every command once, all released together. Fills results[] and
 * returns 0, or -1 when a command could not be executed at all.
 */
static int run_trial(char **cmds[], int n, struct child_report *reports,
		     struct result *results, const char *texts[], struct rendezvous *meet)
{
	pid_t pids[MAX_CHILDREN];
	int gate[2];

	rendezvous_init(meet, (unsigned)n);	/* a fresh one for every trial */

	barrier_open(gate);
	for (int i = 0; i < n; i++) {
		reports[i] = (struct child_report){ 0, 0 };
		pids[i] = fork();
		if (pids[i] < 0) {
			int saved = errno;
			for (int j = 0; j < i; j++)
				kill(pids[j], SIGKILL);
			errno = saved;
			die_errno("fork");
		}
		if (pids[i] == 0) {
			barrier_wait(gate);
			reports[i].started_ns = now_ns();
			execvp(cmds[i][0], cmds[i]);
			reports[i].exec_errno = errno;
			_exit(127);
		}
	}
	int64_t released = now_ns();
	barrier_release(gate);
	reap_children(pids, n, released, reports, results);

	int failed = 0;
	for (int i = 0; i < n; i++) {
		if (reports[i].exec_errno != 0) {
			fprintf(stderr, "launch: cannot run '%s': %s\n", texts[i],
				strerror(reports[i].exec_errno));
			failed = -1;
		}
	}
	return failed;
}

/* One line of statistics; with one trial there is no spread: "-". */
static void print_summary(const char *label, const double *x, size_t trials)
{
	double scratch[trials];
	struct summary s = summarize(x, trials, scratch);
	char sd[32] = "-";

	if (trials > 1)
		snprintf(sd, sizeof sd, "%.4f", s.stddev);
	printf("  %-13s %9.4f %9.4f %9s %9.4f %9.4f\n", label, s.mean,
	       s.median, sd, s.min, s.max);
}

/* The shared memory of the children's second barrier, its descriptor
 * inherited through exec and named in the environment. */
static struct rendezvous *make_rendezvous(void)
{
	int fd = memfd_create("iolab-barrier", 0);	/* no MFD_CLOEXEC: inherited */
	char number[16];

	if (fd < 0)
		die_errno("memfd_create");
	if (ftruncate(fd, sizeof(struct rendezvous)) != 0)
		die_errno("ftruncate");
	struct rendezvous *m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE,
				    MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		die_errno("mmap");
	snprintf(number, sizeof number, "%d", fd);
	if (setenv(BARRIER_ENV, number, 1) != 0)
		die_errno("setenv");
	return m;
}

/* Below main: the command line and the report. */
struct options {
	size_t trials;	/* unsigned: no path sizes an array of trials negative */
	int csv, n;
	const char *file;	/* -f: removed before each trial */
	const char *texts[MAX_CHILDREN];	/* the commands as given */
	char **cmds[MAX_CHILDREN];		/* split into words */
};
static void parse_args(int argc, char **argv, struct options *o);
static void print_header(int csv);
static void print_rows(size_t t, const struct result *r, int n, const char *const texts[], int csv);
static void print_summaries(const struct result *results, size_t trials, int n,
			    const char *const texts[]);

int main(int argc, char **argv)
{
	struct options o;

	parse_args(argc, argv, &o);
	size_t trials = o.trials;
	int n = o.n;
	struct child_report *reports = mmap(NULL, n * sizeof *reports,
		PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (reports == MAP_FAILED)
		die_errno("mmap");
	struct result *results = xmalloc(trials * n * sizeof *results);
	struct rendezvous *meet = make_rendezvous();

	print_header(o.csv);
	int failed = 0;
	for (size_t t = 0; t < trials; t++) {
		struct result *r = results + t * n;

		if (o.file != NULL && unlink(o.file) != 0 && errno != ENOENT)
			die_errno(o.file);
		if (run_trial(o.cmds, n, reports, r, o.texts, meet) != 0)
			exit(EXIT_IO);
		for (int i = 0; i < n; i++)
			failed |= r[i].exit_status != 0;
		print_rows(t, r, n, o.texts, o.csv);
		fflush(stdout);	/* one trial at a time, even into a pipe */
	}
	if (!o.csv)
		print_summaries(results, trials, n, o.texts);
	if (failed)
		fprintf(stderr, "launch: a child exited with a non-zero status\n");
	for (int i = 0; i < n; i++) {
		free(o.cmds[i][0]);	/* the strdup()ed command */
		free(o.cmds[i]);
	}
	free(results);
	munmap(reports, n * sizeof *reports);
	munmap(meet, sizeof *meet);
	return failed ? EXIT_IO : 0;
}

/* The free-text command goes last: every other column is a number. */
static void print_header(int csv)
{
	if (csv)
		puts("trial,child,start_delay_s,wall_s,user_s,sys_s,vol_cs,invol_cs,exit_status,command");
	else
		printf("%5s %5s %10s %9s %9s %9s %7s %9s %6s  %s\n", "trial", "child",
		       "start_ms", "wall_s", "user_s", "sys_s", "vol_cs",
		       "invol_cs", "status", "command");
}

/* Trial t's line (or --csv row) for each child. */
static void print_rows(size_t t, const struct result *r, int n, const char *const texts[], int csv)
{
	for (int i = 0; i < n; i++) {
		if (csv) {
			printf("%zu,%d,%.6f,%.6f,%.6f,%.6f,%ld,%ld,%d,", t + 1, i + 1,
			       r[i].start_delay_s, r[i].wall_s, r[i].user_s,
			       r[i].sys_s, r[i].vol_cs, r[i].invol_cs,
			       r[i].exit_status);
			csv_field(stdout, texts[i]);
			putchar('\n');
		} else {
			printf("%5zu %5d %10.3f %9.4f %9.4f %9.4f %7ld %9ld %6d  %s\n",
			       t + 1, i + 1, r[i].start_delay_s * 1e3,
			       r[i].wall_s, r[i].user_s, r[i].sys_s,
			       r[i].vol_cs, r[i].invol_cs, r[i].exit_status,
			       texts[i]);
		}
	}
}

/* Each child's statistics over the trials. */
static void print_summaries(const struct result *results, size_t trials, int n,
			    const char *const texts[])
{
	double wall[trials], user[trials], sys[trials];

	for (int i = 0; i < n; i++) {
		for (size_t t = 0; t < trials; t++) {
			wall[t] = results[t * n + i].wall_s;
			user[t] = results[t * n + i].user_s;
			sys[t] = results[t * n + i].sys_s;
		}
		printf("\nchild %d over %zu trials: %s\n", i + 1, trials, texts[i]);
		printf("  %-13s %9s %9s %9s %9s %9s\n", "", "mean", "median",
		       "stddev", "min", "max");
		print_summary("wall_s", wall, trials);
		print_summary("user_s", user, trials);
		print_summary("sys_s", sys, trials);
	}
}

static const char usage[] =
	"usage: launch [-r TRIALS] [-f FILE] [--csv] 'CMD ARGS' 'CMD ARGS' ...\n"
	"  Starts the commands together (each quoted command is split on spaces,\n"
	"  no shell) and reports, per trial and child: start delay after the\n"
	"  release, elapsed time to exit, user and system CPU, voluntary and\n"
	"  involuntary context switches and exit status; then per child over the\n"
	"  trials: mean, median, stddev, min and max. The children find a second\n"
	"  barrier, to meet at after exec, in $IOLAB_BARRIER_FD (common/barrier.h).\n"
	"  -r, --trials N   run everything N times (default 1)\n"
	"  -f, --file FILE  remove FILE before each trial\n"
	"      --csv        print CSV rows instead of tables\n"
	"  -h, --help       this help\n"
	"  Exit status: 0 if every child exited 0 in every trial, else 1.\n";

/* Reads the options and splits each command into words. */
static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option options[] = {
		{ "trials", required_argument, NULL, 'r' },
		{ "file", required_argument, NULL, 'f' },
		{ "csv", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t trials = 1;
	int csv = 0, opt;
	const char *file = NULL;

	iolab_init(argv[0], usage);
	/* "+": stop at the first command, whatever it looks like. */
	while ((opt = getopt_long(argc, argv, "+r:f:h", options, NULL)) != -1) {
		switch (opt) {
		case 'r':
			trials = (size_t)parse_count("-r", optarg, 1, 10000);
			break;
		case 'f':
			file = optarg;
			break;
		case 'C':
			csv = 1;
			break;
		case 'h':
			print_help();
		default:
			usage_exit();
		}
	}
	int n = argc - optind;
	if (n < 1)
		usage_error("no command to launch");
	if (n > MAX_CHILDREN)
		usage_error("at most %d commands, got %d", MAX_CHILDREN, n);
	for (int i = 0; i < n; i++) {
		o->texts[i] = argv[optind + i];
		o->cmds[i] = split_command(strdup(o->texts[i]));
		if (o->cmds[i][0] == NULL)
			usage_error("command %d is empty", i + 1);
	}
	o->trials = trials;
	o->csv = csv;
	o->n = n;
	o->file = file;
}
