/*
 * rng.h - a small, fast, seedable random number generator for one thread.
 *
 * xoshiro256** (Blackman and Vigna, 2018), seeded through splitmix64 so that
 * any 64-bit seed, 0 included, gives a good starting state. The state lives
 * in the caller's struct: give each thread its own (and keep it off other
 * threads' cache lines), and nothing is shared or locked.
 *
 * Compare rand(): one hidden state for the whole process, guarded by a lock
 * in glibc, so threads calling it take turns (Lab 3 measures the cost).
 */
#ifndef IOLAB_RNG_H
#define IOLAB_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Seeds the generator; different seeds give independent-looking streams. */
static inline void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* The next 64 random bits. */
static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl64(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return result;
}

/* A uniform integer in [0, n), n > 0, without modulo bias (Lemire's method). */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	uint64_t threshold = -n % n;	/* 2^64 mod n */

	for (;;) {
		unsigned __int128 m = (unsigned __int128)rng_next(r) * n;

		if ((uint64_t)m >= threshold)
			return (uint64_t)(m >> 64);
	}
}

#endif
