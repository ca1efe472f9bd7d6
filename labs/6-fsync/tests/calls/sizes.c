/* sizes.c - fsrecord's sizes family: fallocate growing a file, KEEP_SIZE
 * (nothing a reader sees), a punched hole and a zeroed range, then
 * ftruncate and truncate; fsync at the end. "collapse" as the argument:
 * a collapsed range, which the kit cannot model. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char a[8192];
	int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);

	memset(a, 'a', sizeof a);
	if (fd < 0 || write(fd, a, sizeof a) != (ssize_t)sizeof a)
		return 1;
	if (argc > 1 && strcmp(argv[1], "collapse") == 0)
		return fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 0, 4096) != 0;
	if (fallocate(fd, 0, 4096, 8192) != 0 ||                    /* size 12288, zeros past 8192 */
	    fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 65536) != 0 ||     /* blocks only */
	    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 100, 10) != 0 ||
	    fallocate(fd, FALLOC_FL_ZERO_RANGE, 12288, 2) != 0 ||    /* size 12290 */
	    ftruncate(fd, 12289) != 0 || truncate("f", 12288) != 0 || fsync(fd) != 0)
		return 1;
	return close(fd) != 0;
}
