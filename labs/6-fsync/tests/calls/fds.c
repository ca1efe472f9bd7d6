/* fds.c - fsrecord's descriptors family: dup, dup2, dup3 and fcntl
 * F_DUPFD_CLOEXEC copies share one offset; closing the original leaves
 * the copies open; the program leaves through _exit (exit_group). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

int main(void)
{
	int fd = open("f", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int a = dup(fd);
	int b = dup2(fd, 20);
	int c = dup3(fd, 21, O_CLOEXEC);
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 30);

	if (fd < 0 || a < 0 || b != 20 || c != 21 || d < 30 || close(fd) != 0)
		_exit(1);
	if (write(a, "1", 1) != 1 || write(b, "2", 1) != 1 || write(c, "3", 1) != 1 ||
	    write(d, "4", 1) != 1 || fdatasync(c) != 0)
		_exit(1);
	_exit(0);
}
