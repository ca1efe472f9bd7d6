/*
 * tsanprobe - the grader's test of whether ThreadSanitizer runs here at
 * all: built with -fsanitize=thread and run as a student's program would
 * be, it starts a thread that adds to a counter under a mutex, and exits
 * 0. Where a student's ThreadSanitizer build fails without reporting a
 * race, Lab 4's race check runs this: if it fails too, the host (its
 * kernel's mmap randomisation, a container's system-call filter) keeps
 * ThreadSanitizer from running, and the check says so instead of blaming
 * the student.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *add(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	counter++;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, add, NULL) != 0 || pthread_join(t, NULL) != 0) {
		fprintf(stderr, "tsanprobe: no thread\n");
		return 1;
	}
	add(NULL);
	return counter == 2 ? 0 : 1;
}
