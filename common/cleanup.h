/*
 * cleanup.h - benchmark files that must not outlive the program.
 *
 *   cleanup_init();          once, early in main()
 *   cleanup_add(path);       before creating each scratch file
 *   cleanup_run();           at the end: removes them all
 *
 * The files are also removed when the program exits early (die(), exit())
 * and when it is stopped by SIGINT, SIGTERM or SIGHUP; the signal then
 * ends the program as it would have without the handler.
 *
 * The handler may interrupt cleanup_add() in any thread, so a slot is filled
 * before the count that publishes it is raised, and the handler calls only
 * async-signal-safe functions (unlink, signal, raise).
 *
 * One limit in threaded programs: the handler cannot stop the other
 * threads, so a file that a worker creates between the handler's unlink()
 * and the end of the process stays behind. Either create the files in the
 * main thread before the workers write them (fillcopy does), or let the
 * signal only set a flag, stop and join the workers, then call
 * cleanup_run() and re-raise the signal (pwriters does).
 */
#ifndef IOLAB_CLEANUP_H
#define IOLAB_CLEANUP_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "iolab.h"

#define CLEANUP_MAX 16384

static char *cleanup_paths[CLEANUP_MAX];
static atomic_size_t cleanup_count;
static pthread_mutex_t cleanup_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void cleanup_run(void)
{
	size_t n = atomic_load(&cleanup_count);

	for (size_t i = 0; i < n; i++)
		unlink(cleanup_paths[i]);	/* ENOENT is fine: never created */
	atomic_store(&cleanup_count, 0);
}

static inline void cleanup_on_signal(int sig)
{
	size_t n = atomic_load(&cleanup_count);

	for (size_t i = 0; i < n; i++)
		unlink(cleanup_paths[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static inline void cleanup_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = cleanup_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	atexit(cleanup_run);
}

/* Registers a file to remove; call it before the file is created. */
static inline void cleanup_add(const char *path)
{
	char *copy = strdup(path);

	if (copy == NULL)
		die("out of memory");
	pthread_mutex_lock(&cleanup_lock);
	size_t n = atomic_load(&cleanup_count);
	if (n == CLEANUP_MAX) {
		pthread_mutex_unlock(&cleanup_lock);
		die("more than %d scratch files", CLEANUP_MAX);
	}
	cleanup_paths[n] = copy;
	atomic_store(&cleanup_count, n + 1);
	pthread_mutex_unlock(&cleanup_lock);
}

#endif
