/*
 * test-common - drives the helpers in common/ so tests/common.bats can
 * check them from the outside, exit codes and messages included.
 *
 *   test-common count OPTION ARG MIN MAX   print parse_count()'s value
 *   test-common size OPTION ARG MIN MAX    print parse_size()'s value
 *   test-common choice OPTION ARG NAME...  print parse_choice()'s index
 *   test-common stats X...                 print summarize() of the samples
 *   test-common write-all BYTES            write a pattern to stdout with
 *                                          write_all() while a timer keeps
 *                                          interrupting it
 *   test-common timing                     check the clocks against a sleep
 *   test-common rng SEED N BOUND           print N draws of rng_below(BOUND)
 *   test-common cleanup DIR N              register N files in DIR, create
 *                                          them, then die by SIGTERM
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/time.h>

#include "cleanup.h"
#include "iolab.h"
#include "rng.h"
#include "stats.h"
#include "timing.h"

static const char usage[] =
	"usage: test-common count|size OPTION ARG MIN MAX\n"
	"       test-common choice OPTION ARG NAME...\n"
	"       test-common stats X...\n"
	"       test-common write-all BYTES\n"
	"       test-common timing\n"
	"       test-common rng SEED N BOUND\n"
	"       test-common cleanup DIR N\n"
	"       test-common csv FIELD...\n";

static void on_alarm(int sig)
{
	(void)sig;
}

/* Writes BYTES bytes of a known pattern while SIGALRM arrives every 100 us
 * without SA_RESTART, so write(2) keeps returning EINTR or short counts. */
static int write_all_test(uint64_t bytes)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval every = { { 0, 100 }, { 0, 100 } };
	static char chunk[1 << 20];

	for (size_t i = 0; i < sizeof chunk; i++)
		chunk[i] = (char)('a' + i % 26);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every, NULL);
	while (bytes > 0) {
		size_t n = bytes < sizeof chunk ? (size_t)bytes : sizeof chunk;

		if (write_all(STDOUT_FILENO, chunk, n) != 0)
			die_errno("stdout");
		bytes -= n;
	}
	return 0;
}

static int timing_test(void)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	int64_t t0 = now_ns(), cpu0 = process_cpu_ns(), thr0 = thread_cpu_ns();

	nanosleep(&pause, NULL);
	int64_t wall = now_ns() - t0;
	int64_t cpu = process_cpu_ns() - cpu0, thr = thread_cpu_ns() - thr0;

	print_seconds(stdout, "wall", wall);
	print_seconds(stdout, "cpu", cpu);
	/* A sleep takes elapsed time but almost no CPU time. The one thread's
	 * CPU time is the process's, up to the few instructions between the
	 * readings of the two clocks: allow 1 ms for them. */
	if (wall < 50 * 1000 * 1000 || cpu < 0 || cpu > wall / 2 || thr < 0 ||
	    thr > cpu + 1000 * 1000)
		die("clocks disagree: wall %" PRId64 " ns, cpu %" PRId64 " ns", wall, cpu);
	return 0;
}

static int cleanup_test(const char *dir, uint64_t n)
{
	char path[4096];

	cleanup_init();
	for (uint64_t i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/scratch.%" PRIu64, dir, i);
		cleanup_add(path);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			die_errno(path);
		close(fd);
	}
	raise(SIGTERM);
	return 0;	/* not reached: SIGTERM ends the process */
}

int main(int argc, char **argv)
{
	iolab_init(argv[0], usage);
	if (argc < 2)
		usage_exit();
	const char *cmd = argv[1];

	if ((strcmp(cmd, "count") == 0 || strcmp(cmd, "size") == 0) && argc == 6) {
		uint64_t min = strtoull(argv[4], NULL, 10), max = strtoull(argv[5], NULL, 10);
		uint64_t v = cmd[0] == 'c' ? parse_count(argv[2], argv[3], min, max)
					   : parse_size(argv[2], argv[3], min, max);
		printf("%" PRIu64 "\n", v);
		return 0;
	}
	if (strcmp(cmd, "choice") == 0 && argc >= 5) {
		/* argv[argc] is NULL (C11 5.1.2.2.1): it ends the names. */
		printf("%d\n", parse_choice(argv[2], argv[3], (const char *const *)argv + 4));
		return 0;
	}
	if (strcmp(cmd, "stats") == 0 && argc >= 3) {
		size_t n = (size_t)argc - 2;
		double x[256], scratch[256];

		if (n > 256)
			usage_error("at most 256 samples");
		for (size_t i = 0; i < n; i++)
			x[i] = strtod(argv[i + 2], NULL);
		struct summary s = summarize(x, n, scratch);
		printf("n=%zu mean=%.4f median=%.4f stddev=%.4f min=%.4f max=%.4f ci95=%.4f\n",
		       s.n, s.mean, s.median, s.stddev, s.min, s.max, s.ci95);
		return 0;
	}
	if (strcmp(cmd, "write-all") == 0 && argc == 3)
		return write_all_test(parse_size("BYTES", argv[2], 0, UINT64_MAX));
	if (strcmp(cmd, "rng") == 0 && argc == 5) {
		struct rng r;
		uint64_t n = parse_count("N", argv[3], 0, 100000000);
		uint64_t bound = parse_count("BOUND", argv[4], 1, UINT64_MAX);

		rng_seed(&r, parse_count("SEED", argv[2], 0, UINT64_MAX));
		for (uint64_t i = 0; i < n; i++)
			printf("%" PRIu64 "\n", rng_below(&r, bound));
		return 0;
	}
	if (strcmp(cmd, "csv") == 0 && argc >= 3) {
		/* One CSV line: the fields, then each field's first byte alone. */
		for (int i = 2; i < argc; i++) {
			csv_field(stdout, argv[i]);
			putchar(i + 1 < argc ? ',' : '\n');
		}
		for (int i = 2; i < argc; i++) {
			csv_char(stdout, argv[i][0]);
			putchar(i + 1 < argc ? ',' : '\n');
		}
		return 0;
	}
	if (strcmp(cmd, "timing") == 0 && argc == 2)
		return timing_test();
	if (strcmp(cmd, "cleanup") == 0 && argc == 4)
		return cleanup_test(argv[2], parse_count("N", argv[3], 0, CLEANUP_MAX));
	usage_exit();
}
