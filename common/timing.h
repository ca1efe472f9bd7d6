/*
 * timing.h - the one way iolab programs measure time.
 *
 * Elapsed ("wall") time comes from CLOCK_MONOTONIC: it never jumps when the
 * system clock is set, and it counts time spent waiting for the disk.
 * CPU time comes from CLOCK_PROCESS_CPUTIME_ID (all threads of the process
 * added together) or CLOCK_THREAD_CPUTIME_ID (the calling thread only).
 *
 * clock() is CPU time, not elapsed time, and gettimeofday() follows the
 * settable wall clock; neither is a stopwatch. Lab 4 shows what goes wrong.
 */
#ifndef IOLAB_TIMING_H
#define IOLAB_TIMING_H

#include <stdint.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

#define NS_PER_S 1000000000LL

static inline int64_t timing_read(clockid_t clock)
{
	struct timespec ts;

	/* These clocks always exist on Linux; a failure is a bug, not an error. */
	if (clock_gettime(clock, &ts) != 0)
		return -1;
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* Elapsed time in nanoseconds since an arbitrary fixed point. */
static inline int64_t now_ns(void)
{
	return timing_read(CLOCK_MONOTONIC);
}

/* CPU time used so far by every thread of this process, in nanoseconds. */
static inline int64_t process_cpu_ns(void)
{
	return timing_read(CLOCK_PROCESS_CPUTIME_ID);
}

/* CPU time used so far by the calling thread, in nanoseconds. */
static inline int64_t thread_cpu_ns(void)
{
	return timing_read(CLOCK_THREAD_CPUTIME_ID);
}

static inline double ns_to_s(int64_t ns)
{
	return (double)ns / NS_PER_S;
}

/* A struct timeval (getrusage's and wait4's CPU times) in seconds. */
static inline double timeval_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Prints "label: 1.234567 s" on one line. */
static inline void print_seconds(FILE *out, const char *label, int64_t ns)
{
	fprintf(out, "%s: %.6f s\n", label, ns_to_s(ns));
}

#endif
