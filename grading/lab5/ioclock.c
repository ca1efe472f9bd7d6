/*
 * ioclock.c - a shim the grader preloads into iopattern (its own and the
 * student's, grading/lab5/checks.py): every read and write of a regular file takes
 * a known time on CLOCK_MONOTONIC, and I/O on an O_DIRECT descriptor obeys
 * the alignment real devices impose.
 *
 * The clock: CLOCK_MONOTONIC stands still except that each pread, pwrite,
 * read or write of a regular file moves it on by a latency drawn from the
 * file offset and IOLAB_CLOCK_SEED: about one I/O in 16 is slow (1 to 2 ms),
 * the others take 2 to 52 us. Every trial's wall time, latency percentiles
 * and rates then follow from its offsets alone, the same in every run, so
 * the student's statistics can be compared with the kit's digit for digit.
 * Without IOLAB_CLOCK_SEED the clock is the real one. A cache drop,
 * posix_fadvise(POSIX_FADV_DONTNEED) of a regular file, makes the next
 * transfer take 5 ms more, as a trip to a device would: a --cold that drops
 * nothing shows in the times on any file system, a tmpfs included.
 *
 * O_DIRECT: with IOLAB_DIO_ALIGN=N, a transfer on a descriptor opened with
 * O_DIRECT whose buffer address, size or file offset is not a multiple of N
 * fails with EINVAL, as the block layer fails it on a disk. A tmpfs (Linux
 * 6.6 and later) accepts O_DIRECT and any alignment, and some devices accept
 * buffers aligned to 4 bytes: the rule is then the same everywhere.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int clock_on = -1;	/* -1: not read from the environment yet */
static uint64_t seed, align, elapsed_ns;
static int dropped;		/* a cache drop since the last transfer */

enum { COLD_NS = 5000000 };

static void configure(void)
{
	const char *s = getenv("IOLAB_CLOCK_SEED"), *a = getenv("IOLAB_DIO_ALIGN");

	clock_on = s != NULL;
	seed = s ? strtoull(s, NULL, 10) : 0;
	align = a ? strtoull(a, NULL, 10) : 0;
}

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The latency of an I/O at off, in nanoseconds. */
static uint64_t latency_ns(uint64_t off)
{
	uint64_t h = mix(off + 0x9e3779b97f4a7c15ULL * (seed + 1));

	return h % 16 == 0 ? 1000000 + (h >> 8) % 1000000 : 2000 + (h >> 8) % 50000;
}

/* -1 and EINVAL where an O_DIRECT transfer is misaligned, else 0. */
static int misaligned(int fd, const void *buf, size_t n, off_t off)
{
	int flags;

	if (clock_on < 0)
		configure();
	if (align == 0 || (flags = fcntl(fd, F_GETFL)) < 0 || !(flags & O_DIRECT))
		return 0;
	if ((uintptr_t)buf % align == 0 && n % align == 0 && (uint64_t)off % align == 0)
		return 0;
	errno = EINVAL;
	return -1;
}

/* After a transfer at off on fd: the clock moves on if fd is a regular file. */
static ssize_t moved(int fd, ssize_t done, off_t off)
{
	struct stat st;
	int saved = errno;

	if (clock_on && done > 0 && off >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		__atomic_add_fetch(&elapsed_ns, latency_ns((uint64_t)off) +
				   (__atomic_exchange_n(&dropped, 0, __ATOMIC_RELAXED) ? COLD_NS : 0),
				   __ATOMIC_RELAXED);
	errno = saved;
	return done;
}

static off_t position(int fd)
{
	int saved = errno;
	off_t off = lseek(fd, 0, SEEK_CUR);

	errno = saved;
	return off;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	if (misaligned(fd, buf, n, off))
		return -1;
	return moved(fd, syscall(SYS_pread64, fd, buf, n, off), off);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	if (misaligned(fd, buf, n, off))
		return -1;
	return moved(fd, syscall(SYS_pwrite64, fd, buf, n, off), off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	return pread(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite(fd, buf, n, off);
}

ssize_t read(int fd, void *buf, size_t n)
{
	off_t off = position(fd);

	if (misaligned(fd, buf, n, off))
		return -1;
	return moved(fd, syscall(SYS_read, fd, buf, n), off);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	off_t off = position(fd);

	if (misaligned(fd, buf, n, off))
		return -1;
	return moved(fd, syscall(SYS_write, fd, buf, n), off);
}

int posix_fadvise(int fd, off_t off, off_t len, int advice)
{
	struct stat st;
	int err = 0;

	if (syscall(SYS_fadvise64, fd, off, len, advice) != 0)
		err = errno;
	if (!err && advice == POSIX_FADV_DONTNEED && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		__atomic_store_n(&dropped, 1, __ATOMIC_RELAXED);
	return err;	/* the error itself, as posix_fadvise returns it */
}

int posix_fadvise64(int fd, off_t off, off_t len, int advice)
{
	return posix_fadvise(fd, off, len, advice);
}

int clock_gettime(clockid_t clock, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);
	static uint64_t base;	/* the real clock when first read: times look real */

	if (clock_on < 0)
		configure();
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "clock_gettime");
	if (!clock_on || clock != CLOCK_MONOTONIC)
		return real(clock, ts);
	if (base == 0) {
		if (real(clock, ts) != 0)
			return -1;
		base = (uint64_t)ts->tv_sec * 1000000000 + (uint64_t)ts->tv_nsec;
	}
	uint64_t now = base + __atomic_load_n(&elapsed_ns, __ATOMIC_RELAXED);
	ts->tv_sec = (time_t)(now / 1000000000);
	ts->tv_nsec = (long)(now % 1000000000);
	return 0;
}
