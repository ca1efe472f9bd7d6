/*
 * enduid - ends every process of a grading's uid, and proves that none is
 * left:  enduid UID
 *
 * Run as root by the grader (grading/sandbox.py's kill_uid, after each
 * check). It becomes UID (its one group UID, no others) with a process
 * limit of 2, sends SIGKILL to every process it may signal, which are
 * exactly UID's, then forks: the kernel lets the fork succeed only once it
 * is UID's only task, since RLIMIT_NPROC counts every task of the user,
 * zombies not yet reaped and the tasks in a user namespace included. A
 * listing of /proc could not prove it: a process that forks and exits
 * every millisecond is never both listed and alive.
 *
 * Exit status 0: no other process of UID is left. 1: some are (being
 * killed, or zombies their parent has not reaped: the grader reaps those
 * its subreaping adopted, and runs this again). 2: it could not become
 * UID (a bad UID, or a user namespace that maps no such uid).
 *
 * A program of its own, not a fork of the grader: a fork of the grader's
 * Python costs some 20 ms of CPU (its pages), and a grading ends its uid's
 * processes about 90 times. Built static, as the grader's other helpers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	unsigned long uid;
	uid_t r, e, s;
	const struct rlimit two = {2, 2};
	const struct timespec ms = {0, 1000000};
	pid_t probe;

	if (argc != 2)
		return 2;
	errno = 0;
	uid = strtoul(argv[1], &end, 10);
	/* root's uid would make kill(-1) end every process of the machine,
	 * and (uid_t)-1 leaves setresuid's uids as they are */
	if (errno || end == argv[1] || *end || uid == 0 || uid >= (uid_t)-1)
		return 2;
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setrlimit(RLIMIT_NPROC, &two) ||
	    setresuid(uid, uid, uid) || getresuid(&r, &e, &s) || r != uid || e != uid || s != uid)
		return 2;
	kill(-1, SIGKILL);
	probe = fork();
	if (probe < 0) {		/* EAGAIN: another task of UID is left */
		nanosleep(&ms, NULL);	/* (one being killed: a moment for it) */
		return 1;
	}
	if (probe == 0)
		_exit(0);
	waitpid(probe, NULL, 0);
	return 0;
}
