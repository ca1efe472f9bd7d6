/* names.c - fsrecord's opens and names families beyond a save's: O_EXCL
 * (and its failure, which changes nothing), renameat2 RENAME_NOREPLACE
 * (and its failure), then an fsync of the directory. "exchange" as the
 * argument: RENAME_EXCHANGE, which the kit cannot model. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int a = open("a", O_WRONLY | O_CREAT | O_EXCL, 0644);
	int b = open("b", O_WRONLY | O_CREAT | O_EXCL, 0644);
	int d = open(".", O_RDONLY | O_DIRECTORY);

	if (a < 0 || b < 0 || d < 0 || open("a", O_WRONLY | O_CREAT | O_EXCL, 0644) >= 0)
		return 1;
	if (write(a, "A", 1) != 1 || write(b, "B", 1) != 1 || close(a) != 0 || close(b) != 0)
		return 1;
	if (argc > 1 && strcmp(argv[1], "exchange") == 0)
		return renameat2(AT_FDCWD, "a", AT_FDCWD, "b", RENAME_EXCHANGE) != 0;
	if (renameat2(AT_FDCWD, "a", AT_FDCWD, "b", RENAME_NOREPLACE) == 0 ||    /* b is there: fails */
	    renameat2(AT_FDCWD, "a", AT_FDCWD, "c", RENAME_NOREPLACE) != 0 || fsync(d) != 0)
		return 1;
	return close(d) != 0;
}
