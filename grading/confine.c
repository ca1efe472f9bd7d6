/*
 * confine - how the grader starts each program it contains, from outside
 * the sandbox:
 *
 *     confine [uid=U gid=G] cpu=S fsize=B as=B|unlimited nofile=N [nproc=N]
 *             [landlock=FD] [seccomp=FD] -- PROGRAM [ARG...]
 *
 * Started by grading/sandbox.py (Sandbox.popen) in the program's directory
 * and session, it does these steps in this order, then runs PROGRAM
 * (searched in PATH):
 *
 *   uid=U gid=G  leaves root for the grading's uid, with G its only group;
 *   umask 077    what the program writes is its own unless it says so;
 *   limits       CPU seconds, the largest file, the address space, open
 *                files, no core dump, and processes where nproc= is given;
 *   keyring      a session keyring of its own, empty: the grader's keys
 *                are out of its reach (where the kernel has no keyrings,
 *                ENOSYS, or a filter above the grader refuses them, EPERM,
 *                there is none to leave);
 *   landlock=FD  confines itself to that ruleset (grading/landlock.py);
 *   seccomp=FD   installs the system-call filter the pipe FD holds, last:
 *                it refuses keyrings and Landlock's calls.
 *
 * Any step that fails ends it with one line and exit status 126: the
 * program does not run unconfined. Bad arguments: exit 2.
 *
 * Why a program: the grader's Python did these steps itself, in a child
 * between fork and exec. Such a fork copies the page tables of a grader of
 * 40 to 100 MB, and the pages both sides then write are copied one by one
 * (some 14,000 faults for each start, in the grader too); a grading starts
 * some 300 programs. Without code to run in the child, Python starts this
 * one with vfork, which copies nothing. Built static, like the grader's
 * other helpers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "filter.h"

#define KEYCTL_JOIN_SESSION_KEYRING 1

/* Ends the run before PROGRAM starts: what failed, and the errno's text. */
static void refuse(const char *what)
{
	fprintf(stderr, "confine: cannot %s: %s\n", what, strerror(errno));
	exit(126);
}

/* The number in text, or exit 2 (the grader wrote it: a bug, not a student's). */
static unsigned long long number(const char *name, const char *text)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(text, &end, 10);
	if (errno || end == text || *end || *text == '-') {
		fprintf(stderr, "confine: %s=%s is not a number\n", name, text);
		exit(2);
	}
	return n;
}

/* Sets resource limit r to n, soft and hard. */
static void limit(int r, rlim_t n, const char *what)
{
	const struct rlimit lim = {n, n};
	if (setrlimit(r, &lim) != 0)
		refuse(what);
}

int main(int argc, char **argv)
{
	/* -1: not given. */
	long long uid = -1, gid = -1, nproc = -1, landlock = -1, seccomp = -1;
	long long cpu = -1, fsize = -1, nofile = -1;
	rlim_t as = 0;
	int i, have_as = 0;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		char *eq = strchr(argv[i], '=');
		if (eq == NULL)
			break;
		*eq = '\0';
		const char *name = argv[i], *value = eq + 1;
		if (strcmp(name, "as") == 0) {
			as = strcmp(value, "unlimited") == 0 ? RLIM_INFINITY : number(name, value);
			have_as = 1;
			continue;
		}
		long long *slot = strcmp(name, "uid") == 0        ? &uid
				  : strcmp(name, "gid") == 0      ? &gid
				  : strcmp(name, "cpu") == 0      ? &cpu
				  : strcmp(name, "fsize") == 0    ? &fsize
				  : strcmp(name, "nofile") == 0   ? &nofile
				  : strcmp(name, "nproc") == 0    ? &nproc
				  : strcmp(name, "landlock") == 0 ? &landlock
				  : strcmp(name, "seccomp") == 0  ? &seccomp
								  : NULL;
		if (slot == NULL) {
			fprintf(stderr, "confine: unknown setting %s\n", name);
			return 2;
		}
		*slot = (long long)number(name, value);
	}
	/* Every limit is given, uid with gid, and a program after "--". */
	if (i + 1 >= argc || strcmp(argv[i], "--") != 0 || cpu < 0 || fsize < 0 || nofile < 0 || !have_as ||
	    (uid < 0) != (gid < 0)) {
		fprintf(stderr, "usage: confine [uid=U gid=G] cpu=S fsize=B as=B|unlimited nofile=N [nproc=N] "
				"[landlock=FD] [seccomp=FD] -- PROGRAM [ARG...]\n");
		return 2;
	}
	char **program = argv + i + 1;

	if (uid >= 0) {
		/* root's uid, or (uid_t)-1, which leaves setresuid's uids as they are */
		if (uid == 0 || gid == 0 || uid >= (uid_t)-1 || gid >= (gid_t)-1) {
			fprintf(stderr, "confine: uid=%lld gid=%lld is not a grading's\n", uid, gid);
			return 2;
		}
		uid_t r, e, s;
		if (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0 ||
		    getresuid(&r, &e, &s) != 0 || r != uid || e != uid || s != uid)
			refuse("become the grading's uid");
	}
	umask(077);
	limit(RLIMIT_CPU, cpu, "limit CPU time");
	limit(RLIMIT_FSIZE, fsize, "limit the file size");
	limit(RLIMIT_AS, as, "limit the address space");
	limit(RLIMIT_NOFILE, nofile, "limit open files");
	limit(RLIMIT_CORE, 0, "turn core dumps off");
	if (nproc >= 0)
		limit(RLIMIT_NPROC, nproc, "limit processes");
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS && errno != EPERM)
		refuse("leave the grader's session keyring");
	if (landlock >= 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_landlock_restrict_self, landlock, 0) != 0)
			refuse("confine the program with Landlock");
		close(landlock);
	}
	if (seccomp >= 0 && install_filter(seccomp) != 0)
		refuse("install the system-call filter");
	execvp(program[0], program);
	fprintf(stderr, "%s: %s\n", program[0], strerror(errno));
	return 127;
}
