/*
 * fsrecord.so - Lab 6's recorder: preloaded into a program, it writes down,
 * in order, every call that changes a file under a root directory, with
 * its bytes, for bin/crashstates to replay.
 *
 *   FSRECORD_LOG=calls.log LD_PRELOAD=bin/fsrecord.so bin/saver doc.kv
 *
 * FSRECORD_LOG   the log to write (required; the recorder does nothing without)
 * FSRECORD_FD    or a descriptor open for writing, inherited (the grader's)
 * FSRECORD_ROOT  the directory whose files are recorded (default: the current
 *                one); calls on other files (the terminal, /dev/null) are not
 *
 * The log, one line per call, paths relative to the root (%XX for a byte
 * other than letters, digits and . _ / -), data in hex:
 *   fsrecord 1
 *   init dir PATH | init file PATH HEX     what the root held at the start
 *   open PATH fd=3 flags=wronly|creat|trunc created=1
 *   write PATH fd=3 off=0 len=6400 data=6b6579...
 *   ftruncate PATH fd=3 size=0     fsync PATH fd=3     fdatasync PATH fd=3
 *   sync_file_range PATH fd=3      close PATH fd=3
 *   rename FROM TO     unlink PATH     mkdir PATH     rmdir PATH
 *   exit                           the program ended through exit()
 *
 * stdio writes its buffer with glibc's internal write, which no preloaded
 * library sees; so for a stream (fopen, fdopen) the recorder keeps a copy of
 * the file and, at each fflush and fclose (and at exit), records the bytes
 * that changed as one write. A descriptor made by dup, dup2 or dup3 is
 * followed as its original (a shell's "> file"). Not followed: fcntl's
 * F_DUPFD, mmap, threads
 * writing at once (one lock keeps lines whole, not orders meaningful), and
 * child processes (a program it runs is not recorded; a fork that does not
 * exec would write into the same log).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

enum { MAX_FD = 1024, MAX_INIT = 16 << 20 };

static int log_fd = -1;
static char root[PATH_MAX];
static dev_t log_dev;
static ino_t log_ino;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* What the recorder knows of a descriptor it saw opened under the root. */
static struct tracked {
	char *path;		/* relative to the root; NULL: not followed */
	char *copy;		/* a stream's file as last recorded (stdio) */
	size_t copy_len;
	int stream;
} fds[MAX_FD];

#define REAL(ret, name, args) \
	static ret(*real_##name) args; \
	if (real_##name == NULL) \
		real_##name = (ret(*) args)dlsym(RTLD_NEXT, #name)

/* The log is written with the system call itself: never recorded. */
static void out(const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = syscall(SYS_write, log_fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void outf(const char *fmt, ...)
{
	char buf[PATH_MAX * 3 + 256];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	out(buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* A path as the log writes it: %XX for any byte but [A-Za-z0-9._/-]. */
static void out_path(const char *p)
{
	char buf[PATH_MAX * 3 + 2], *o = buf;

	*o++ = ' ';
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '_' || c == '/' || c == '-')
			*o++ = (char)c;
		else
			o += sprintf(o, "%%%02X", c);
	}
	out(buf, (size_t)(o - buf));
}

static void out_hex(const void *data, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *d = data;
	char buf[4096];
	size_t used = 0;

	for (size_t i = 0; i < n; i++) {
		buf[used++] = digits[d[i] >> 4];
		buf[used++] = digits[d[i] & 15];
		if (used == sizeof buf) {
			out(buf, used);
			used = 0;
		}
	}
	out(buf, used);
}

/*
 * path (relative to dirfd, or to the current directory) as a path relative
 * to the root, in a malloc'ed string; NULL when it is not under the root.
 * must_exist: resolve the whole path; else only its directory (a name that
 * is not there yet, or no more).
 */
static char *relative(int dirfd, const char *path, int must_exist)
{
	char whole[PATH_MAX * 2], dir[PATH_MAX], real[PATH_MAX], *slash;
	const char *base = NULL;

	if (path[0] == '/' || dirfd == AT_FDCWD) {
		snprintf(whole, sizeof whole, "%s", path);
	} else {
		char link[64];
		ssize_t n;
		snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
		if ((n = readlink(link, dir, sizeof dir - 1)) < 0)
			return NULL;
		dir[n] = '\0';
		snprintf(whole, sizeof whole, "%s/%s", dir, path);
	}
	if (must_exist) {
		if (realpath(whole, real) == NULL)
			return NULL;
	} else {
		slash = strrchr(whole, '/');
		base = slash ? slash + 1 : whole;
		if (slash == whole)
			snprintf(dir, sizeof dir, "/");
		else
			snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - whole) : 1, slash ? whole : ".");
		if (realpath(dir, real) == NULL || strlen(real) + strlen(base) + 2 > sizeof real)
			return NULL;
		if (strcmp(base, ".") != 0 && strcmp(base, "") != 0)
			strcat(strcmp(real, "/") ? strcat(real, "/") : real, base);
	}
	size_t r = strlen(root);
	if (strcmp(real, root) == 0)
		return strdup(".");
	if (strncmp(real, root, r) != 0 || real[r] != '/')
		return NULL;
	return strdup(real + r + 1);
}

/* The whole file behind fd (malloc'ed; *n its size), read through a
 * descriptor of its own: fd may be open for writing only. */
static char *contents(int fd, size_t *n)
{
	char link[64];
	struct stat st;
	char *buf = NULL;

	*n = 0;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	int rd = (int)syscall(SYS_openat, AT_FDCWD, link, O_RDONLY | O_CLOEXEC);
	if (rd < 0)
		return NULL;
	if (fstat(rd, &st) == 0 && (buf = malloc((size_t)st.st_size + 1)) != NULL)
		while (*n < (size_t)st.st_size) {
			ssize_t r = pread(rd, buf + *n, (size_t)st.st_size - *n, (off_t)*n);
			if (r <= 0)
				break;
			*n += (size_t)r;
		}
	syscall(SYS_close, rd);
	return buf;
}

static struct tracked *tracked(int fd)
{
	return log_fd >= 0 && fd >= 0 && fd < MAX_FD && fds[fd].path ? &fds[fd] : NULL;
}

static void forget(int fd)
{
	free(fds[fd].path);
	free(fds[fd].copy);
	memset(&fds[fd], 0, sizeof fds[fd]);
}

static void record_open(int fd, char *rel, int flags, int created)
{
	if (rel == NULL || fd < 0 || fd >= MAX_FD) {
		free(rel);
		return;
	}
	forget(fd);
	fds[fd].path = rel;
	int acc = flags & O_ACCMODE;
	outf("open");
	out_path(rel);
	outf(" fd=%d flags=%s%s%s%s%s created=%d\n", fd,
	     acc == O_RDONLY ? "rdonly" : acc == O_WRONLY ? "wronly" : "rdwr",
	     flags & O_CREAT ? "|creat" : "", flags & O_TRUNC ? "|trunc" : "",
	     flags & O_APPEND ? "|append" : "", flags & O_DIRECTORY ? "|directory" : "", created);
}

static void record_write(struct tracked *t, int fd, off_t off, const void *data, size_t n)
{
	outf("write");
	out_path(t->path);
	outf(" fd=%d off=%lld len=%zu data=", fd, (long long)off, n);
	out_hex(data, n);
	out("\n", 1);
	if (t->stream) {	/* a write(2) on a stream's descriptor: in the copy too */
		size_t end = (size_t)off + n;
		if (end > t->copy_len) {
			char *grown = realloc(t->copy, end);
			if (grown == NULL)
				return;
			memset(grown + t->copy_len, 0, end - t->copy_len);
			t->copy = grown;
			t->copy_len = end;
		}
		memcpy(t->copy + off, data, n);
	}
}

static void record_fd(const char *call, int fd, const char *extra)
{
	struct tracked *t = tracked(fd);

	if (t == NULL)
		return;
	outf("%s", call);
	out_path(t->path);
	outf(" fd=%d%s\n", fd, extra);
}

/* A stream's bytes that reached its file since last time, as one write. */
static void record_stream(int fd)
{
	struct tracked *t = tracked(fd);
	size_t n, first = 0, last;

	if (t == NULL || !t->stream)
		return;
	char *now = contents(fd, &n);
	if (now == NULL)
		return;
	while (first < n && first < t->copy_len && now[first] == t->copy[first])
		first++;
	if (first < n) {
		for (last = n; last > first && last <= t->copy_len && now[last - 1] == t->copy[last - 1];)
			last--;
		t->stream = 0;	/* not into the copy: it is replaced below */
		record_write(t, fd, (off_t)first, now + first, last - first);
		t->stream = 1;
	}
	free(t->copy);
	t->copy = now;
	t->copy_len = n;
}

static void start_stream(int fd)
{
	struct tracked *t = tracked(fd);

	if (t == NULL)
		return;
	free(t->copy);
	t->copy = contents(fd, &t->copy_len);
	t->stream = 1;
}

/* --------------------------------------------------------- start and end */

static size_t init_bytes;

static void snapshot(const char *rel)
{
	char path[PATH_MAX * 2];
	struct dirent **list;
	int entries;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	/* In name order: the same tree gives the same log. */
	if ((entries = scandir(path, &list, NULL, alphasort)) < 0)
		return;
	for (int k = 0; k < entries; k++) {
		const char *name = list[k]->d_name;
		char child[PATH_MAX * 2], full[PATH_MAX * 3];
		struct stat st;

		snprintf(child, sizeof child, "%s%s%s", rel, *rel ? "/" : "", name);
		snprintf(full, sizeof full, "%s/%s", root, child);
		if (log_fd < 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || lstat(full, &st) != 0 ||
		    (st.st_dev == log_dev && st.st_ino == log_ino)) {
			/* nothing to record (or the recording has been given up) */
		} else if (S_ISDIR(st.st_mode)) {
			outf("init dir");
			out_path(child);
			out("\n", 1);
			snapshot(child);
		} else if (S_ISREG(st.st_mode)) {
			/* The system calls themselves: this open is not the program's. */
			int fd = (int)syscall(SYS_openat, AT_FDCWD, full, O_RDONLY | O_CLOEXEC);
			size_t n = 0;
			char *data = fd >= 0 ? contents(fd, &n) : NULL;
			if (fd >= 0)
				syscall(SYS_close, fd);
			init_bytes += n;
			if (data == NULL || init_bytes > MAX_INIT) {
				/* Given up: the log has no end, which crashstates reports. */
				fprintf(stderr, "fsrecord: %s: cannot record it (more than %d MiB in %s?)\n",
					full, MAX_INIT >> 20, root);
				log_fd = -1;
			} else {
				outf("init file");
				out_path(child);
				out(" ", 1);
				out_hex(data, n);
				out("\n", 1);
			}
			free(data);
		}
		free(list[k]);
	}
	free(list);
}

__attribute__((constructor)) static void fsrecord_start(void)
{
	const char *log = getenv("FSRECORD_LOG"), *r = getenv("FSRECORD_ROOT"), *given = getenv("FSRECORD_FD");
	struct stat st;
	int fd;

	if ((log == NULL || *log == '\0') && given == NULL)
		return;
	if (realpath(r && *r ? r : ".", root) == NULL) {
		fprintf(stderr, "fsrecord: %s: %s\n", r && *r ? r : ".", strerror(errno));
		return;
	}
	/*
	 * A program the recorded one runs (a shell keeps the variables in a
	 * table of its own) finds the log taken and records nothing: the log
	 * locked, or the descriptor written to already.
	 */
	if (given != NULL) {
		fd = atoi(given);
		if (lseek(fd, 0, SEEK_CUR) > 0)
			return;
	} else {
		fd = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0 && syscall(SYS_flock, fd, LOCK_EX | LOCK_NB) != 0) {
			syscall(SYS_close, fd);
			return;
		}
		if (fd >= 0)
			syscall(SYS_ftruncate, fd, 0);
	}
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "fsrecord: %s: %s\n", given ? "FSRECORD_FD" : log, strerror(errno));
		return;
	}
	log_dev = st.st_dev;
	log_ino = st.st_ino;
	log_fd = fd;
	/* (and one that takes its environment from environ gets no log at all) */
	unsetenv("FSRECORD_LOG");
	unsetenv("FSRECORD_FD");
	outf("fsrecord 1\n");
	snapshot("");
}

int fflush(FILE *fp);

/* Streams still open are flushed here, before the log ends with "exit". */
__attribute__((destructor)) static void fsrecord_end(void)
{
	if (log_fd < 0)
		return;
	fflush(NULL);
	outf("exit\n");
}

/* --------------------------------------------------------- the calls */

static int open_common(int dirfd, const char *path, int flags, mode_t mode)
{
	REAL(int, openat, (int, const char *, int, ...));
	struct stat st;
	int existed = fstatat(dirfd, path, &st, 0) == 0;
	int fd = real_openat(dirfd, path, flags, mode);

	if (fd >= 0 && log_fd >= 0) {
		pthread_mutex_lock(&lock);
		record_open(fd, relative(dirfd, path, 1), flags, !existed && (flags & O_CREAT));
		pthread_mutex_unlock(&lock);
	}
	return fd;
}

#define MODE_ARG(flags) \
	mode_t mode = 0; \
	if ((flags) & (O_CREAT | O_TMPFILE)) { \
		va_list ap; \
		va_start(ap, flags); \
		mode = va_arg(ap, mode_t); \
		va_end(ap); \
	}

int open(const char *path, int flags, ...)
{
	MODE_ARG(flags);
	return open_common(AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	MODE_ARG(flags);
	return open_common(AT_FDCWD, path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	MODE_ARG(flags);
	return open_common(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	MODE_ARG(flags);
	return open_common(dirfd, path, flags, mode);
}

/* _FORTIFY_SOURCE's checked forms of open without a mode. */
int __open_2(const char *path, int flags)
{
	return open_common(AT_FDCWD, path, flags, 0);
}

int __open64_2(const char *path, int flags)
{
	return open_common(AT_FDCWD, path, flags, 0);
}

int creat(const char *path, mode_t mode)
{
	return open_common(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode);
}

static int stream_flags(const char *m)
{
	int plus = strchr(m, '+') != NULL;

	switch (m[0]) {
	case 'w': return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC;
	case 'a': return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND;
	default: return plus ? O_RDWR : O_RDONLY;
	}
}

static FILE *fopen_common(const char *path, const char *m, FILE *(*real)(const char *, const char *))
{
	struct stat st;
	int existed = stat(path, &st) == 0;
	FILE *fp = real(path, m);

	if (fp != NULL && log_fd >= 0) {
		int flags = stream_flags(m);
		pthread_mutex_lock(&lock);
		record_open(fileno(fp), relative(AT_FDCWD, path, 1), flags, !existed && (flags & O_CREAT));
		start_stream(fileno(fp));
		pthread_mutex_unlock(&lock);
	}
	return fp;
}

FILE *fopen(const char *path, const char *m)
{
	REAL(FILE *, fopen, (const char *, const char *));
	return fopen_common(path, m, real_fopen);
}

FILE *fopen64(const char *path, const char *m)
{
	REAL(FILE *, fopen64, (const char *, const char *));
	return fopen_common(path, m, real_fopen64);
}

FILE *fdopen(int fd, const char *m)
{
	REAL(FILE *, fdopen, (int, const char *));
	FILE *fp = real_fdopen(fd, m);

	if (fp != NULL) {
		pthread_mutex_lock(&lock);
		start_stream(fd);
		pthread_mutex_unlock(&lock);
	}
	return fp;
}

int fflush(FILE *fp)
{
	REAL(int, fflush, (FILE *));
	int r = real_fflush(fp);

	if (log_fd >= 0) {
		pthread_mutex_lock(&lock);
		if (fp != NULL)
			record_stream(fileno(fp));
		else
			for (int fd = 0; fd < MAX_FD; fd++)
				record_stream(fd);
		pthread_mutex_unlock(&lock);
	}
	return r;
}

int fclose(FILE *fp)
{
	REAL(int, fclose, (FILE *));
	int fd = fileno(fp);

	fflush(fp);
	int r = real_fclose(fp);
	pthread_mutex_lock(&lock);
	if (tracked(fd)) {
		record_fd("close", fd, "");
		forget(fd);
	}
	pthread_mutex_unlock(&lock);
	return r;
}

/* A write at off (-1: at the descriptor's offset, or at the end for O_APPEND). */
static void after_write(int fd, off_t off, const void *data, ssize_t done)
{
	struct tracked *t;

	pthread_mutex_lock(&lock);
	if (done > 0 && (t = tracked(fd)) != NULL) {
		if (off < 0) {
			off = lseek(fd, 0, SEEK_CUR) - done;	/* O_APPEND too: the offset is the new end */
		}
		record_write(t, fd, off, data, (size_t)done);
	}
	pthread_mutex_unlock(&lock);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	REAL(ssize_t, write, (int, const void *, size_t));
	ssize_t done = real_write(fd, buf, n);

	after_write(fd, -1, buf, done);
	return done;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	REAL(ssize_t, pwrite, (int, const void *, size_t, off_t));
	ssize_t done = real_pwrite(fd, buf, n, off);

	after_write(fd, off, buf, done);
	return done;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	REAL(ssize_t, pwrite64, (int, const void *, size_t, off_t));
	ssize_t done = real_pwrite64(fd, buf, n, off);

	after_write(fd, off, buf, done);
	return done;
}

/* The vector forms: recorded as one write of the bytes written, in order. */
static void after_writev(int fd, off_t off, const struct iovec *iov, int cnt, ssize_t done)
{
	if (done <= 0 || tracked(fd) == NULL)
		return;
	char *all = malloc((size_t)done), *p = all;
	size_t left = (size_t)done;
	if (all == NULL)
		return;
	for (int i = 0; i < cnt && left > 0; i++) {
		size_t k = iov[i].iov_len < left ? iov[i].iov_len : left;
		memcpy(p, iov[i].iov_base, k);
		p += k;
		left -= k;
	}
	after_write(fd, off, all, done);
	free(all);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	REAL(ssize_t, writev, (int, const struct iovec *, int));
	ssize_t done = real_writev(fd, iov, cnt);

	after_writev(fd, -1, iov, cnt, done);
	return done;
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	REAL(ssize_t, pwritev, (int, const struct iovec *, int, off_t));
	ssize_t done = real_pwritev(fd, iov, cnt, off);

	after_writev(fd, off, iov, cnt, done);
	return done;
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off)
{
	REAL(ssize_t, pwritev64, (int, const struct iovec *, int, off_t));
	ssize_t done = real_pwritev64(fd, iov, cnt, off);

	after_writev(fd, off, iov, cnt, done);
	return done;
}

/* The v2 forms: flags as pwritev's (RWF_APPEND, RWF_DSYNC...); off -1 is
 * the descriptor's offset. */
ssize_t pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	REAL(ssize_t, pwritev2, (int, const struct iovec *, int, off_t, int));
	ssize_t done = real_pwritev2(fd, iov, cnt, off, flags);

	after_writev(fd, off, iov, cnt, done);
	return done;
}

ssize_t pwritev64v2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	REAL(ssize_t, pwritev64v2, (int, const struct iovec *, int, off_t, int));
	ssize_t done = real_pwritev64v2(fd, iov, cnt, off, flags);

	after_writev(fd, off, iov, cnt, done);
	return done;
}

int ftruncate(int fd, off_t size)
{
	REAL(int, ftruncate, (int, off_t));
	int r = real_ftruncate(fd, size);
	char extra[48];

	if (r == 0) {
		snprintf(extra, sizeof extra, " size=%lld", (long long)size);
		pthread_mutex_lock(&lock);
		record_fd("ftruncate", fd, extra);
		struct tracked *t = tracked(fd);
		if (t && t->stream && (size_t)size < t->copy_len)
			t->copy_len = (size_t)size;
		pthread_mutex_unlock(&lock);
	}
	return r;
}

int ftruncate64(int fd, off_t size)
{
	return ftruncate(fd, size);
}

#define SYNC_CALL(name, proto, call) \
	int name proto \
	{ \
		REAL(int, name, proto); \
		int r = real_##name call; \
		if (r == 0) { \
			pthread_mutex_lock(&lock); \
			record_fd(#name, fd, ""); \
			pthread_mutex_unlock(&lock); \
		} \
		return r; \
	}

SYNC_CALL(fsync, (int fd), (fd))
SYNC_CALL(fdatasync, (int fd), (fd))
SYNC_CALL(sync_file_range, (int fd, off_t off, off_t n, unsigned int flags), (fd, off, n, flags))

int close(int fd)
{
	REAL(int, close, (int));

	pthread_mutex_lock(&lock);
	if (tracked(fd)) {
		record_fd("close", fd, "");
		forget(fd);
	}
	pthread_mutex_unlock(&lock);
	return real_close(fd);
}

/* The copy newfd of a followed descriptor is followed too, under its path. */
static int duplicated(int oldfd, int newfd)
{
	pthread_mutex_lock(&lock);
	if (newfd >= 0 && newfd < MAX_FD && newfd != oldfd) {
		forget(newfd);
		if (tracked(oldfd))
			fds[newfd].path = strdup(fds[oldfd].path);
		/* stdout or stderr made a file: its stdio stream writes there now */
		if (newfd == STDOUT_FILENO || newfd == STDERR_FILENO)
			start_stream(newfd);
	}
	pthread_mutex_unlock(&lock);
	return newfd;
}

int dup(int fd)
{
	REAL(int, dup, (int));
	return duplicated(fd, real_dup(fd));
}

int dup2(int fd, int newfd)
{
	REAL(int, dup2, (int, int));
	return duplicated(fd, real_dup2(fd, newfd));
}

int dup3(int fd, int newfd, int flags)
{
	REAL(int, dup3, (int, int, int));
	return duplicated(fd, real_dup3(fd, newfd, flags));
}

/* A call on names: resolved before it (the name may be gone after). */
static int names(const char *call, int fd1, const char *p1, int fd2, const char *p2, int r)
{
	if (r == 0 && log_fd >= 0) {
		char *a = relative(fd1, p1, 0), *b = p2 ? relative(fd2, p2, 0) : NULL;
		pthread_mutex_lock(&lock);
		if (a && (p2 == NULL || b)) {
			outf("%s", call);
			out_path(a);
			if (b)
				out_path(b);
			out("\n", 1);
		}
		pthread_mutex_unlock(&lock);
		free(a);
		free(b);
	}
	return r;
}

int rename(const char *from, const char *to)
{
	REAL(int, rename, (const char *, const char *));
	return names("rename", AT_FDCWD, from, AT_FDCWD, to, real_rename(from, to));
}

int renameat(int fd1, const char *from, int fd2, const char *to)
{
	REAL(int, renameat, (int, const char *, int, const char *));
	return names("rename", fd1, from, fd2, to, real_renameat(fd1, from, fd2, to));
}

int renameat2(int fd1, const char *from, int fd2, const char *to, unsigned int flags)
{
	REAL(int, renameat2, (int, const char *, int, const char *, unsigned int));
	return names("rename", fd1, from, fd2, to, real_renameat2(fd1, from, fd2, to, flags));
}

int unlink(const char *path)
{
	REAL(int, unlink, (const char *));
	return names("unlink", AT_FDCWD, path, 0, NULL, real_unlink(path));
}

int unlinkat(int dirfd, const char *path, int flags)
{
	REAL(int, unlinkat, (int, const char *, int));
	return names(flags & AT_REMOVEDIR ? "rmdir" : "unlink", dirfd, path, 0, NULL,
		     real_unlinkat(dirfd, path, flags));
}

int rmdir(const char *path)
{
	REAL(int, rmdir, (const char *));
	return names("rmdir", AT_FDCWD, path, 0, NULL, real_rmdir(path));
}

int mkdir(const char *path, mode_t mode)
{
	REAL(int, mkdir, (const char *, mode_t));
	return names("mkdir", AT_FDCWD, path, 0, NULL, real_mkdir(path, mode));
}

int mkdirat(int dirfd, const char *path, mode_t mode)
{
	REAL(int, mkdirat, (int, const char *, mode_t));
	return names("mkdir", dirfd, path, 0, NULL, real_mkdirat(dirfd, path, mode));
}
