/*
 * membw - the ceiling for fillcopy's copy phase: one memcpy() of SIZE bytes
 * between two buffers whose pages are already mapped, in one thread,
 * repeated REPS times. No threads, no chunks, no first-touch page faults:
 * what is left is the memory bandwidth one core gets.
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>

#include "iolab.h"
#include "timing.h"

static const char usage[] =
	"usage: membw [-s SIZE] [-r REPS] [--csv]\n"
	"  -s, --size SIZE   bytes per copy, K/M/G suffixes, at most 4G (default 64M)\n"
	"  -r, --reps REPS   how many copies to time, 1 to 1000 (default 5)\n"
	"      --csv         CSV: a header, then one row per copy\n"
	"  -h, --help        this help\n";

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "size", required_argument, NULL, 's' },
		{ "reps", required_argument, NULL, 'r' },
		{ "csv", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t size = 64 << 20;
	uint64_t reps = 5;
	int csv = 0, opt;

	iolab_init(argv[0], usage);
	while ((opt = getopt_long(argc, argv, "s:r:h", options, NULL)) != -1) {
		switch (opt) {
		case 's': size = parse_size("-s", optarg, 1, (uint64_t)4 << 30); break;
		case 'r': reps = parse_count("-r", optarg, 1, 1000); break;
		case 'v': csv = 1; break;
		case 'h': print_help();
		default: usage_exit();
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);

	unsigned char *src = xmalloc(size), *dst = xmalloc(size);

	/* Writing every byte maps every page before the timing starts. */
	memset(src, 'a', size);
	memset(dst, 'b', size);

	puts(csv ? "bytes,rep,wall_s,mib_s" : "rep         ms      MiB/s");
	for (uint64_t r = 1; r <= reps; r++) {
		int64_t start = now_ns();

		memcpy(dst, src, size);
		double wall = ns_to_s(now_ns() - start);

		if (csv)
			printf("%zu,%llu,%.6f,%.1f\n", size, (unsigned long long)r, wall,
			       size / 1048576.0 / wall);
		else
			printf("%3llu %10.3f %10.1f\n", (unsigned long long)r, wall * 1e3,
			       size / 1048576.0 / wall);
	}
	/* Reading the result also keeps the compiler from dropping the copies. */
	if (memcmp(dst, src, size) != 0)
		die("the copy differs from the source");
	free(src);
	free(dst);
	if (fflush(stdout) != 0)
		die_errno("stdout");
	return 0;
}
