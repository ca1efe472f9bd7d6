/*
 * filter.h - the grader's system-call filter, installed by its helpers
 * (grading/confine.c, grading/reaper.c) from a pipe the grader filled with
 * the BPF program (grading/sandbox.py's seccomp_filter).
 */
#ifndef IOLAB_FILTER_H
#define IOLAB_FILTER_H

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Installs the BPF program read from fd (to its end, then closed) as a
 * seccomp filter, with no_new_privs set as the kernel requires: 0, or -1
 * with errno set. */
static int install_filter(int fd)
{
	static struct sock_filter code[BPF_MAXINSNS];
	size_t got = 0;
	ssize_t n;

	char more;

	while (got < sizeof code && ((n = read(fd, (char *)code + got, sizeof code - got)) > 0 || (n < 0 && errno == EINTR)))
		got += n > 0 ? (size_t)n : 0;
	/* a program longer than the kernel takes is refused, not cut short */
	if (got == sizeof code && (n = read(fd, &more, 1)) > 0) {
		n = -1;
		errno = E2BIG;
	}
	if (n < 0)
		return -1;
	close(fd);
	struct sock_fprog prog = {.len = got / sizeof code[0], .filter = code};
	if (got == 0 || got % sizeof code[0] != 0) {
		errno = EINVAL;
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

#endif
