/*
 * stats.h - summary statistics over repeated trials.
 *
 * A measurement is quoted with its spread: median, mean, sample standard
 * deviation (n - 1 in the denominator), min, max and the 95% confidence
 * interval of the mean from Student's t distribution with n - 1 degrees
 * of freedom (5 trials: 4 degrees of freedom, t = 2.776).
 */
#ifndef IOLAB_STATS_H
#define IOLAB_STATS_H

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct summary {
	size_t n;
	double mean, median, stddev, min, max;
	double ci95;		/* half-width: the interval is mean +/- ci95 */
};

/* Two-sided 95% critical values of Student's t for 1..30 degrees of freedom. */
static const double t95_table[30] = {
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

static inline double t95(size_t df)
{
	const double z = 1.959964;	/* the normal distribution's value */
	double v = (double)df;

	if (df == 0)
		return NAN;
	if (df <= 30)
		return t95_table[df - 1];
	/* Cornish-Fisher expansion around z; within 0.001 beyond 30 df. */
	return z + (z * z * z + z) / (4 * v) +
	       (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * v * v);
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of x[0..n-1]; sorts x in place. n must be at least 1. */
static inline double median_sorting(double *x, size_t n)
{
	qsort(x, n, sizeof *x, cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/*
 * Summarises x[0..n-1] without changing it; scratch must hold n doubles.
 * With one sample, stddev and ci95 are NaN: there is no spread to speak of.
 */
static inline struct summary summarize(const double *x, size_t n, double *scratch)
{
	struct summary s = { .n = n, .mean = NAN, .median = NAN, .stddev = NAN,
			     .min = NAN, .max = NAN, .ci95 = NAN };
	double sum = 0, squares = 0;

	if (n == 0)
		return s;
	memcpy(scratch, x, n * sizeof *x);
	s.median = median_sorting(scratch, n);
	s.min = scratch[0];
	s.max = scratch[n - 1];
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	s.mean = sum / (double)n;
	if (n < 2)
		return s;
	for (size_t i = 0; i < n; i++)
		squares += (x[i] - s.mean) * (x[i] - s.mean);
	s.stddev = sqrt(squares / (double)(n - 1));
	s.ci95 = t95(n - 1) * s.stddev / sqrt((double)n);
	return s;
}

#endif
