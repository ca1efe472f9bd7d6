/*
 * report.h - what iopattern makes of its trials: each one's measures
 * (struct trial; its latencies' mean, median and 99th percentile), printed
 * as a table (the default) or CSV rows (--csv, one per trial) under the
 * conditions they were measured in, with the spread over the trials.
 */
#ifndef IOLAB_REPORT_H
#define IOLAB_REPORT_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hugepages.h"	/* page_names */
#include "iolab.h"
#include "options.h"
#include "stats.h"

/* What one trial measured. */
struct trial {
	double wall_s, cpu_s, bytes_per_ns, mib_s, iops, p50_us, p99_us, mean_us, cached_pct;
	unsigned most;		/* the most I/Os started and not yet seen complete */
	uint64_t data_sum;	/* every I/O's head_word(), added up */
};

/*
 * The first bytes of an I/O's data (up to 8) as a number. Added up over a
 * trial (data_sum), they depend only on which offsets were read, not on the
 * order: the same for one I/O at a time, at any --iodepth and with any --jobs.
 */
static inline uint64_t head_word(const char *buf, uint64_t io)
{
	uint64_t word = 0;

	memcpy(&word, buf, io < sizeof word ? io : sizeof word);
	return word;
}

/* Nearest-rank percentile p of the sorted x[0..n-1]. */
static inline int64_t percentile(const int64_t *x, uint64_t n, double p)
{
	uint64_t rank = (uint64_t)ceil(p / 100 * (double)n);

	return x[rank > 0 ? rank - 1 : 0];
}

static inline int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The latencies' mean, median and 99th percentile into t; sorts lat[0..n-1]. */
static inline void latency_stats(struct trial *t, int64_t *lat, uint64_t n)
{
	int64_t sum = 0;

	for (uint64_t i = 0; i < n; i++)
		sum += lat[i];
	t->mean_us = (double)sum / (double)n / 1000;
	qsort(lat, n, sizeof *lat, cmp_i64);
	t->p50_us = (double)percentile(lat, n, 50) / 1000;
	t->p99_us = (double)percentile(lat, n, 99) / 1000;
}

/* 4096 -> "4 KiB": sizes as people say them, into buf (at least 32 bytes). */
static inline const char *human(uint64_t bytes, char *buf)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB" };
	int u = 0;

	while (u < 3 && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, 32, "%" PRIu64 " %s", bytes, units[u]);
	return buf;
}

static inline void print_csv(const struct config *c, const struct trial *t, struct summary s)
{
	puts("op,pattern,io_bytes,stride_bytes,file_bytes,direct,cold,sync,seed,trial,ios,"
	     "bytes,wall_s,cpu_s,bytes_per_ns,mib_s,iops,lat_p50_us,lat_p99_us,cached_pct,"
	     "median_bytes_per_ns,mean_bytes_per_ns,stddev_bytes_per_ns,ci95_bytes_per_ns,"
	     "iodepth,jobs,max_in_flight,lat_mean_us,data_sum");
	for (uint64_t i = 0; i < c->trials; i++)
		printf("%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d,%d,%s,%" PRIu64 ",%" PRIu64
		       ",%" PRIu64 ",%" PRIu64 ",%.9f,%.9f,%.9g,%.6g,%.6g,%.3f,%.3f,%.1f,"
		       "%.9g,%.9g,%.9g,%.9g,%" PRIu64 ",%" PRIu64 ",%u,%.3f,%" PRIu64 "\n",
		       op_names[c->op], pattern_names[c->pattern], c->io,
		       c->pattern == RANDOM ? 0 : c->stride, c->file, c->direct, c->cold,
		       sync_names[c->sync], c->seed, i + 1, c->ios, c->total, t[i].wall_s,
		       t[i].cpu_s, t[i].bytes_per_ns, t[i].mib_s, t[i].iops, t[i].p50_us,
		       t[i].p99_us, t[i].cached_pct, s.median, s.mean, s.stddev, s.ci95, c->depth,
		       c->jobs, t[i].most, t[i].mean_us, t[i].data_sum);
}

/* One line of the summary: s scaled by unit (a rate in another unit is proportional). */
static inline void print_spread(const char *name, struct summary s, double unit)
{
	printf("%-14s %11.6g %11.6g %11.6g   %.6g .. %.6g\n", name, s.median * unit,
	       s.mean * unit, s.stddev * unit, (s.mean - s.ci95) * unit, (s.mean + s.ci95) * unit);
}

static inline void print_table(const struct config *c, const struct trial *t, struct summary s,
			       uint32_t align)
{
	char io[32], stride[32], file[32], total[32], over[32];

	printf("%s %s: %s I/Os", op_names[c->op], pattern_names[c->pattern], human(c->io, io));
	if (c->pattern == STRIDE)
		printf(" every %s", human(c->stride, stride));
	printf(", %" PRIu64 " of them (%s) per trial, file %s\n", c->ios,
	       human(c->total, total), human(c->file, file));
	printf("%s", c->direct ? "O_DIRECT" : "buffered");
	if (c->direct)
		printf(" (%" PRIu32 "-byte alignment)", align);
	printf(", %s%s, fsync: %s, buffers in %s pages, seed %" PRIu64 ", %s\n",
	       c->cold ? "cold: cached pages dropped before each trial" : "warm cache",
	       untimed_first(c) ? ", after one untimed trial" : "",
	       sync_names[c->sync], page_names[c->huge], c->seed, c->path);
	if (c->depth > 0)
		printf("io_uring, up to %" PRIu64 " I/Os in flight", c->depth);
	else if (c->jobs > 1)
		printf("pread/pwrite, one at a time in each of %" PRIu64 " threads", c->jobs);
	else
		printf("pread/pwrite, one at a time");
	printf(" (the most in flight at once: %u in trial 1)\n", t[0].most);
	printf("%5s %10s %10s %9s %10s %10s %9s %9s %7s\n", "trial", "wall_s", "cpu_s",
	       "bytes/ns", "MiB/s", "IOPS", "p50_us", "p99_us", "cached");
	for (uint64_t i = 0; i < c->trials; i++)
		printf("%5" PRIu64 " %10.6f %10.6f %9.4g %10.1f %10.0f %9.1f %9.1f %6.1f%%\n",
		       i + 1, t[i].wall_s, t[i].cpu_s, t[i].bytes_per_ns, t[i].mib_s,
		       t[i].iops, t[i].p50_us, t[i].p99_us, t[i].cached_pct);
	snprintf(over, sizeof over, "over %" PRIu64 " trials", c->trials);
	printf("%-14s %11s %11s %11s   %s (Student t, %" PRIu64 " df)\n", over, "median",
	       "mean", "stddev", "95% CI of the mean", c->trials - 1);
	print_spread("bytes/ns", s, 1);
	print_spread("MiB/s", s, 1e9 / (1 << 20));
	print_spread("IOPS", s, 1e9 / (double)c->io);
}

/* The spread of the throughput over n trials; MiB/s and IOPS are
 * proportional to it. */
static inline struct summary throughput_spread(const struct trial *t, uint64_t n)
{
	double *x = xmalloc(n * sizeof *x), *scratch = xmalloc(n * sizeof *x);

	for (uint64_t i = 0; i < n; i++)
		x[i] = t[i].bytes_per_ns;
	struct summary s = summarize(x, n, scratch);
	free(x);
	free(scratch);
	return s;
}

/* The trials, as a table or (--csv) as CSV rows. align: O_DIRECT's, for the table. */
static inline void print_report(const struct config *c, const struct trial *t, uint32_t align)
{
	struct summary s = throughput_spread(t, c->trials);

	if (c->csv)
		print_csv(c, t, s);
	else
		print_table(c, t, s, align);
	if (fflush(stdout) != 0)
		die_errno("stdout");
}

#endif
