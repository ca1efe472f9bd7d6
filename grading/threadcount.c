/*
 * threadcount.so - an LD_PRELOAD shim with which Lab 3's grader counts the
 * threads a program really starts, whatever its output says: with
 * IOLAB_THREADS_FD=N in the environment, every pthread_create() that
 * succeeds appends one line "thread" to descriptor N (a file the grader
 * opened and passed down; without the variable the shim only passes the
 * calls on). Counting calls rather than watching /proc/PID/task makes the
 * count the same however briefly the threads live and however busy the
 * machine is.
 *
 * What this is not: a program can start threads without pthread_create()
 * (clone()) and the shim sees nothing. It is a deterministic detector of
 * an honest program that ignores -t, not a defence against a dishonest one.
 *
 * Built by the grader: cc -shared -fPIC -o threadcount.so threadcount.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
	static create_fn *real;
	const char *fd = getenv("IOLAB_THREADS_FD");
	int r;

	if (real == NULL) {
		/* a plain object pointer to function pointer: POSIX allows it */
		*(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
		if (real == NULL)
			abort();	/* no pthread_create below us: nothing sensible to do */
	}
	r = real(thread, attr, start, arg);
	if (r == 0 && fd != NULL) {
		int saved = errno;

		/* one write(2) per line: lines of threads started at once do not
		 * mix. Should it fail, the grader counts too few and says so. */
		if (write(atoi(fd), "thread\n", 7) != 7) {
		}
		errno = saved;
	}
	return r;
}
