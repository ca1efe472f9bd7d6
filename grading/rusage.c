/*
 * rusage - runs a student's program and tells the grader what it cost,
 * measured by the kernel rather than printed by the program:
 *
 *     rusage FD PROGRAM [ARG...]
 *
 * Once PROGRAM (with every child it waited for) has ended, one line goes
 * to descriptor FD:
 *
 *     MINFLT MAJFLT CPU_S
 *
 * its minor and major page faults and its user + system CPU time, from
 * wait4(). The exit status is PROGRAM's (128 + the signal if one ended
 * it). The grader's reaper runs it like any program, so its children's
 * CPU time and the reaper's limits count as before.
 *
 * Built static (no shim preloaded into the program reaches it), it makes
 * itself non-dumpable, so that the program, the same user, cannot open its
 * descriptors through /proc and write a report of its own. A program can
 * still kill it: then there is no line, and the grader says it could not
 * measure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: rusage FD PROGRAM [ARG...]\n");
		return 2;
	}
	int report = atoi(argv[1]);
	if (fcntl(report, F_SETFD, FD_CLOEXEC) != 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		perror("rusage");
		return 125;
	}
	pid_t child = fork();
	if (child < 0) {
		perror("rusage: fork");
		return 125;
	}
	if (child == 0) {
		execv(argv[2], argv + 2);
		fprintf(stderr, "%s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	int status;
	struct rusage ru;
	while (wait4(child, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("rusage: wait4");
			return 125;
		}
	}
	long us = ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
	dprintf(report, "%ld %ld %ld.%06ld\n", ru.ru_minflt, ru.ru_majflt,
		(long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + us / 1000000, us % 1000000);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
