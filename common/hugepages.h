/*
 * hugepages.h - buffers in transparent huge pages, or kept out of them
 * (fillcopy --pages, iopattern --pages).
 *
 * A huge page (2 MiB on x86-64, and on arm64 with 4 KiB pages) is mapped by
 * one page-table entry and one page fault instead of 512, and it is 2 MiB
 * of physically contiguous memory. Where /sys/kernel/mm/transparent_hugepage
 * /enabled says "madvise", as on most distributions, a program gets huge
 * pages only where it asks with madvise(MADV_HUGEPAGE), and only for 2 MiB
 * that start on a 2 MiB boundary.
 */
#ifndef IOLAB_HUGEPAGES_H
#define IOLAB_HUGEPAGES_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "iolab.h"

#define HUGE_PAGE ((size_t)2 << 20)

/* --pages: the choices, in the order of the huge flag (0: 4k, 1: huge). */
static const char *const page_names[] = { "4k", "huge", NULL };

/*
 * n bytes straight from mmap(): zero-filled, and mapped page by page on
 * first touch. They start on a 2 MiB boundary. huge asks for huge pages
 * (MADV_HUGEPAGE); !huge forbids them (MADV_NOHUGEPAGE), so that 4 KiB
 * pages are what is measured even where transparent_hugepage is "always".
 * Sets *refused to the errno of a refused madvise(), or 0. NULL when out of
 * memory.
 */
static inline unsigned char *map_pages(size_t n, bool huge, int *refused)
{
	size_t len = (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
	/* One huge page more than needed, to find a 2 MiB boundary in. */
	unsigned char *p = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	p += (HUGE_PAGE - (uintptr_t)p % HUGE_PAGE) % HUGE_PAGE;
	*refused = madvise(p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) == 0 ? 0 : errno;
	return p;
}

/*
 * After map_pages(huge): says plainly, on stderr, when the system will not
 * give huge pages: a kernel without them (it refuses the advice, EINVAL),
 * advice refused, or transparent_hugepage set to "never"; the line ends
 * with ": the buffers get 4 KiB pages" and then tail. Where the setting
 * cannot be read but the advice was taken (a chroot or container without
 * /sys), the line says so, and that whether they are given cannot be
 * told. Where the system allows them, the kernel may still map 4 KiB
 * pages when it finds no free 2 MiB.
 */
static inline void say_if_no_huge_pages(int refused, const char *tail)
{
	static const char setting[] = "/sys/kernel/mm/transparent_hugepage/enabled";
	char line[128] = "";
	FILE *f = fopen(setting, "r");
	int open_errno = errno;

	if (f != NULL) {
		if (fgets(line, sizeof line, f) == NULL)
			line[0] = '\0';
		fclose(f);
		line[strcspn(line, "\n")] = '\0';
	}
	if (f == NULL && refused == 0) {
		fprintf(stderr, "%s: --pages huge: %s: %s: the kernel took the advice; "
			"whether it gives huge pages cannot be told here\n",
			iolab_prog, setting, strerror(open_errno));
		return;
	}
	if (refused == EINVAL)
		fprintf(stderr, "%s: --pages huge: this kernel has no transparent huge pages "
			"(MADV_HUGEPAGE: %s)", iolab_prog, strerror(refused));
	else if (refused != 0)
		fprintf(stderr, "%s: --pages huge: the kernel refused MADV_HUGEPAGE (%s)",
			iolab_prog, strerror(refused));
	else if (strstr(line, "[never]") != NULL)
		fprintf(stderr, "%s: --pages huge: transparent huge pages are off on this system (%s: %s)",
			iolab_prog, setting, line);
	else
		return;
	fprintf(stderr, ": the buffers get 4 KiB pages%s\n", tail);
}

#endif
