/*
 * barrier.h - a barrier that launch's children can meet at, again and again.
 *
 * launch releases its children together, but each then runs exec() and the
 * dynamic loader before its first line of main(): a millisecond or so, and
 * never the same for two children. For writers that finish in a few
 * milliseconds that head start decides the whole experiment. So launch also
 * hands its children a barrier in shared memory: a memfd (a file that lives
 * only in memory) holding a process-shared mutex and condition variable,
 * whose descriptor number is in the environment variable IOLAB_BARRIER_FD
 * and which counts how many children launch started. A child that calls
 * rendezvous_wait() blocks until every child has called it the same number of
 * times (writer --together once after opening its file; lockbench
 * --lockstep before every batch).
 *
 * Every child must call it equally often, or the others wait forever: a wait
 * gives up with an error after BARRIER_TIMEOUT_S seconds instead.
 */
#ifndef IOLAB_BARRIER_H
#define IOLAB_BARRIER_H

#include <pthread.h>
#include <sys/mman.h>
#include <time.h>

#include "iolab.h"

#define BARRIER_ENV "IOLAB_BARRIER_FD"
#define BARRIER_TIMEOUT_S 60

struct rendezvous {
	pthread_mutex_t mutex;
	pthread_cond_t turn;
	unsigned parties;	/* how many must arrive */
	unsigned arrived;	/* how many have, this round */
	unsigned long round;	/* rounds completed */
};

/* Dies with the name of the pthread call that failed (they return errno). */
static inline void rendezvous_check(int err, const char *what)
{
	if (err != 0)
		die("barrier: %s: %s", what, strerror(err));
}

/* launch: (re)initialises *b, in shared memory, for parties processes. */
static inline void rendezvous_init(struct rendezvous *b, unsigned parties)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;

	rendezvous_check(pthread_mutexattr_init(&ma), "pthread_mutexattr_init");
	rendezvous_check(pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED),
		      "pthread_mutexattr_setpshared");
	rendezvous_check(pthread_condattr_init(&ca), "pthread_condattr_init");
	rendezvous_check(pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED),
		      "pthread_condattr_setpshared");
	/* The timed wait below measures CLOCK_MONOTONIC, like timing.h. */
	rendezvous_check(pthread_condattr_setclock(&ca, CLOCK_MONOTONIC),
		      "pthread_condattr_setclock");
	rendezvous_check(pthread_mutex_init(&b->mutex, &ma), "pthread_mutex_init");
	rendezvous_check(pthread_cond_init(&b->turn, &ca), "pthread_cond_init");
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_destroy(&ca);
	b->parties = parties;
	b->arrived = 0;
	b->round = 0;
}

/* A child: the barrier launch handed down, or NULL when not started by launch. */
static inline struct rendezvous *rendezvous_join(void)
{
	const char *env = getenv(BARRIER_ENV);
	const char *p = env;
	uint64_t fd;

	if (env == NULL || parse_digits(&p, &fd) != 0 || *p != '\0' || fd > 65535)
		return NULL;
	void *m = mmap(NULL, sizeof(struct rendezvous), PROT_READ | PROT_WRITE,
		       MAP_SHARED, (int)fd, 0);
	if (m == MAP_FAILED)
		die("%s=%s: mmap: %s", BARRIER_ENV, env, strerror(errno));
	return m;
}

/* Blocks until every party has arrived in this round. */
static inline void rendezvous_wait(struct rendezvous *b)
{
	struct timespec limit;

	if (clock_gettime(CLOCK_MONOTONIC, &limit) != 0)
		die("clock_gettime: %s", strerror(errno));
	limit.tv_sec += BARRIER_TIMEOUT_S;
	rendezvous_check(pthread_mutex_lock(&b->mutex), "pthread_mutex_lock");
	unsigned long round = b->round;
	if (++b->arrived == b->parties) {
		b->arrived = 0;
		b->round++;
		rendezvous_check(pthread_cond_broadcast(&b->turn), "pthread_cond_broadcast");
	}
	while (b->round == round) {
		int err = pthread_cond_timedwait(&b->turn, &b->mutex, &limit);
		if (err == ETIMEDOUT)
			die("barrier: the other %u commands did not arrive within %d s "
			    "(each must wait at the barrier as often as the others)",
			    b->parties - 1, BARRIER_TIMEOUT_S);
		rendezvous_check(err, "pthread_cond_timedwait");
	}
	rendezvous_check(pthread_mutex_unlock(&b->mutex), "pthread_mutex_unlock");
}

#endif
