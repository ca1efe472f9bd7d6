/*
 * reaper - the grader's launcher for a student's program, inside the
 * sandbox:  reaper FD PROGRAM [ARG...]
 *
 * It runs PROGRAM as its child, and, as a child subreaper, also becomes
 * the parent of every process PROGRAM leaves behind. Once all of them have
 * ended it writes one line to descriptor FD, for the grader:
 *
 *     STATUS CPU_S RCHAR WCHAR READ_BYTES WRITE_BYTES MINFLT MAJFLT SIGNAL
 *
 * STATUS as a shell gives it (the exit code, or 128 + the signal), CPU_S
 * the user and system time of every process it waited for, the I/O
 * counters of /proc/self/io, which hold those of every process it waited
 * for (less what it read itself before PROGRAM started: the filter), and
 * their minor and major page faults. So CPU time handed to a
 * process nobody waits for still counts, and the counts are the
 * program's, not bubblewrap's (which does not pass its sandbox's on to the
 * grader). SIGNAL: the signal that killed PROGRAM, 0 where it exited (an
 * exit(139) is not a SIGSEGV).
 *
 * It is built static, so that a shim preloaded into the student's program
 * (LD_PRELOAD) is not loaded into it, and it makes itself non-dumpable, so
 * that the student's program, which runs as the same user, cannot open
 * its descriptors through /proc to forge the report.
 *
 * Where the grader hands it a Landlock ruleset (its descriptor in
 * IOLAB_LANDLOCK_FD, see grading/landlock.py), it confines itself, and so
 * all it starts, once it has opened /proc/self/io: the program then opens
 * nothing of /proc, nor any file the ruleset does not name. The grader
 * cannot do it before exec, as the reaper could then not read its counters.
 *
 * Where the grader hands it a system-call filter (a pipe holding the BPF
 * program, its descriptor in IOLAB_SECCOMP_FD: see grading/sandbox.py), it
 * installs it last, after bubblewrap has set up the sandbox and before the
 * program starts: the program and all it starts run under it.
 *
 * Where the grader gives it a process limit (IOLAB_NPROC), it sets
 * RLIMIT_NPROC to it for itself and all it starts. Inside bubblewrap's user
 * namespace the kernel (5.14 and later) counts the processes of that
 * namespace's user alone there, so the limit holds the program's fork
 * bomb without counting the other processes of the grader's user: set
 * before bubblewrap (as root does for a grading's own uid), it would.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "filter.h"

/* The counter named key in /proc/self/io, or -1. */
static long long io_counter(const char *io, const char *key)
{
	const char *at = strstr(io, key);
	return at ? atoll(at + strlen(key)) : -1;
}

/* The counter named key in io less its value in before (-1 where io has
 * none): what was read or written since. */
static long long io_since(const char *io, const char *before, const char *key)
{
	long long now = io_counter(io, key), then = io_counter(before, key);
	return now >= 0 && then >= 0 ? now - then : now;
}

/* /proc/self/io's text, read from fd into io (size bytes at most). */
static void read_io(int fd, char *io, size_t size)
{
	ssize_t n = fd >= 0 ? pread(fd, io, size - 1, 0) : -1;
	io[n > 0 ? n : 0] = '\0';
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: reaper FD PROGRAM [ARG...]\n");
		return 2;
	}
	int report = atoi(argv[1]);
	/* Opened before it turns non-dumpable, which makes its /proc files
	 * root's; read at the end, the counters are those of that moment. */
	int io_fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	if (fcntl(report, F_SETFD, FD_CLOEXEC) != 0 ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		perror("reaper");
		return 125;
	}
	const char *ruleset = getenv("IOLAB_LANDLOCK_FD");
	if (ruleset != NULL) {
		int fd = atoi(ruleset);
		/* no_new_privs is set: the grader's system-call filter needs it too */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    syscall(SYS_landlock_restrict_self, fd, 0) != 0) {
			perror("reaper: landlock_restrict_self");
			return 125;
		}
		close(fd);
		unsetenv("IOLAB_LANDLOCK_FD");
	}
	const char *nproc = getenv("IOLAB_NPROC");
	if (nproc != NULL) {
		struct rlimit lim = {.rlim_cur = strtoul(nproc, NULL, 10), .rlim_max = strtoul(nproc, NULL, 10)};
		if (setrlimit(RLIMIT_NPROC, &lim) != 0) {
			perror("reaper: setrlimit(RLIMIT_NPROC)");
			return 125;
		}
		unsetenv("IOLAB_NPROC");
	}
	const char *filter = getenv("IOLAB_SECCOMP_FD");
	if (filter != NULL) {
		if (install_filter(atoi(filter)) != 0) {
			perror("reaper: the system-call filter");
			return 125;
		}
		unsetenv("IOLAB_SECCOMP_FD");
	}
	/* What the reaper read itself (the filter, from its pipe: some KiB) is
	 * not the program's: the counters it reports start here. */
	char before[1024];
	read_io(io_fd, before, sizeof before);
	pid_t child = fork();
	if (child < 0) {
		perror("reaper: fork");
		return 125;
	}
	if (child == 0) {
		execv(argv[2], argv + 2);
		fprintf(stderr, "%s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}

	int status = 0, st;
	pid_t pid;
	/* Every process below it ends up its child: wait for all of them. */
	while ((pid = wait(&st)) > 0 || (pid < 0 && errno == EINTR))
		if (pid == child)
			status = st;
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	char io[1024];
	read_io(io_fd, io, sizeof io);
	dprintf(report, "%d %ld.%06ld %lld %lld %lld %lld %ld %ld %d\n", code,
		(long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000000,
		(long)((ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) % 1000000),
		io_since(io, before, "rchar: "), io_since(io, before, "wchar: "),
		io_since(io, before, "read_bytes: "), io_since(io, before, "write_bytes: "), ru.ru_minflt, ru.ru_majflt,
		WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return code;
}
