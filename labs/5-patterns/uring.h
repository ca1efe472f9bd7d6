/*
 * uring.h - iopattern's io_uring ring (--iodepth), set up and taken down.
 *
 * The Makefile defines IOLAB_HAVE_URING when liburing's headers and library
 * are there (Debian, Ubuntu: liburing-dev). Without them iopattern is built
 * all the same, with a stand-in struct io_uring, and --iodepth says it was
 * built without io_uring. How the ring is used, run_ring(), is in
 * iopattern.c: that is the lesson; this is the plumbing around it.
 */
#ifndef IOLAB_URING_H
#define IOLAB_URING_H

#include "iolab.h"

#ifdef IOLAB_HAVE_URING
#include <liburing.h>

/*
 * A ring of depth entries: 0, or liburing's -errno where io_uring is
 * refused (a kernel before 5.1, a sysctl, a container's seccomp filter):
 * the caller says so and stops, never falling back to something else under
 * the same name. Called before the file is made. The ring posts
 * completions only when this thread asks for them (Linux 6.1+; see
 * run_ring), as fio sets up its rings; an older kernel, or liburing's
 * headers before 2.3 (Ubuntu 22.04 has 2.1), get a plain one.
 */
static inline int ring_start(struct io_uring *ring, unsigned depth)
{
	int err;

#ifdef IORING_SETUP_DEFER_TASKRUN
	err = io_uring_queue_init(depth, ring, IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
	if (err == -EINVAL)
#endif
		err = io_uring_queue_init(depth, ring, 0);
	return err;
}

static inline void ring_stop(struct io_uring *ring)
{
	io_uring_queue_exit(ring);
}

#else
struct io_uring { char unused; };

/* Built without liburing: --iodepth stops here, and says why. */
static inline int ring_start(struct io_uring *ring, unsigned depth)
{
	die("--iodepth needs io_uring, and this iopattern was built without liburing "
	    "(install liburing-dev, then make); without --iodepth, I/O is one "
	    "pread/pwrite at a time");
}

static inline void ring_stop(struct io_uring *ring)
{
}
#endif

#endif
