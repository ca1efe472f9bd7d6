/*
 * inflight.c - a shim the grader preloads into the student's iopattern
 * (grading/lab5/checks.py) to see, without ptrace, whether I/Os really are in
 * flight together: with --iodepth, how many requests one io_uring
 * submission hands to the kernel; with --jobs, how many threads are inside
 * pread/pwrite at once.
 *
 * With IOLAB_INFLIGHT_FD=N in the environment (a file the grader opened and
 * passed down), it appends a line to descriptor N each time one of these
 * reaches a new maximum:
 *
 *   submit K     a call of liburing's io_uring_submit, io_uring_submit_and_wait,
 *                io_uring_submit_and_wait_timeout or io_uring_enter handed
 *                K requests to the kernel (its return value, or to_submit)
 *   together K   K threads were inside pread/pwrite at the same time
 *
 * Why this and not the time: whether a request completes before the next
 * one is queued depends on the machine and its load, but how many a
 * submission carries depends only on the program's loop (the kit's queues
 * all free slots, then submits them in one call: D requests the first
 * time). Threads: with IOLAB_INFLIGHT_MEET=J, the first pread/pwrite of a
 * thread waits (up to 5 s, once per process) until J threads are inside
 * one, so that J threads that run together always meet there, however the
 * scheduler orders them, and threads that run one after another never do:
 * the first one waits 5 s alone and gives up.
 *
 * What this is not: a program can call the kernel without liburing's
 * shared library or libc (liburing linked statically, syscall()) and the
 * shim sees nothing; the grader then says so. A deterministic detector of
 * honest programs' known-wrong loops, not a defence against dishonest ones.
 *
 * Built by the grader: cc -shared -fPIC -o inflight.so inflight.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int log_fd = -1;		/* -1: off */
static unsigned meet;		/* threads to wait for in pread/pwrite; 0: none */
static atomic_uint submit_max, inside, together_max;
static atomic_int gave_up;	/* the one wait for IOLAB_INFLIGHT_MEET timed out */

static void configure(void)
{
	const char *fd = getenv("IOLAB_INFLIGHT_FD"), *m = getenv("IOLAB_INFLIGHT_MEET");

	meet = m ? (unsigned)strtoul(m, NULL, 10) : 0;
	log_fd = fd ? atoi(fd) : -1;
}

/* A new maximum of what: one line, one write(2) (atomic for a short line). */
static void record(const char *what, atomic_uint *max, unsigned k)
{
	unsigned old = atomic_load(max);
	char line[64];

	while (k > old)
		if (atomic_compare_exchange_weak(max, &old, k)) {
			int n = snprintf(line, sizeof line, "%s %u\n", what, k);

			if (log_fd >= 0 && write(log_fd, line, (size_t)n) != n)
				log_fd = -1;	/* the grader then sees too little */
			return;
		}
}

static void *next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (f == NULL) {
		static const char msg[] = "inflight.so: a function not found\n";

		(void)!write(2, msg, sizeof msg - 1);
		abort();
	}
	return f;
}

/* The number of requests a call handed to the kernel (its result, if positive). */
static int submitted(int result)
{
	if (result > 0)
		record("submit", &submit_max, (unsigned)result);
	return result;
}

int io_uring_submit(void *ring)
{
	static int (*f)(void *);

	f = f ? f : (int (*)(void *))next("io_uring_submit");
	return submitted(f(ring));
}

int io_uring_submit_and_wait(void *ring, unsigned wait_nr)
{
	static int (*f)(void *, unsigned);

	f = f ? f : (int (*)(void *, unsigned))next("io_uring_submit_and_wait");
	return submitted(f(ring, wait_nr));
}

int io_uring_submit_and_wait_timeout(void *ring, void *cqe, unsigned wait_nr, void *ts, sigset_t *mask)
{
	static int (*f)(void *, void *, unsigned, void *, sigset_t *);

	f = f ? f : (int (*)(void *, void *, unsigned, void *, sigset_t *))next(
		"io_uring_submit_and_wait_timeout");
	return submitted(f(ring, cqe, wait_nr, ts, mask));
}

int io_uring_enter(unsigned fd, unsigned to_submit, unsigned min_complete, unsigned flags,
		   sigset_t *sig)
{
	static int (*f)(unsigned, unsigned, unsigned, unsigned, sigset_t *);

	f = f ? f : (int (*)(unsigned, unsigned, unsigned, unsigned, sigset_t *))next("io_uring_enter");
	return submitted(f(fd, to_submit, min_complete, flags, sig));
}

/* Into a pread/pwrite: count the threads inside, and wait for the others once. */
static void enter(void)
{
	unsigned now = atomic_fetch_add(&inside, 1) + 1;

	record("together", &together_max, now);
	if (meet < 2)
		return;
	struct timespec tick = { 0, 1000000 };	/* 1 ms */

	for (int waited = 0; atomic_load(&together_max) < meet && !atomic_load(&gave_up); waited++) {
		if (waited == 5000)
			atomic_store(&gave_up, 1);
		nanosleep(&tick, NULL);
	}
}

/* Looked up before main(), while there is one thread: no race on them. */
static ssize_t (*real_pread)(int, void *, size_t, off_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);

__attribute__((constructor)) static void init(void)
{
	configure();
	real_pread = (ssize_t (*)(int, void *, size_t, off_t))next("pread");
	real_pwrite = (ssize_t (*)(int, const void *, size_t, off_t))next("pwrite");
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	enter();
	ssize_t r = real_pread(fd, buf, n, off);

	atomic_fetch_sub(&inside, 1);
	return r;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	enter();
	ssize_t r = real_pwrite(fd, buf, n, off);

	atomic_fetch_sub(&inside, 1);
	return r;
}
