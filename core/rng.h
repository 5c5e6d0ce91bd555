/* core/rng.h: a small seeded generator (splitmix64) for tests, generators and --rhs=random */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MPCG_CORE_RNG_H
#define MPCG_CORE_RNG_H

#include <stdint.h>

typedef struct mpcgi_rng {
    uint64_t s;
} mpcgi_rng;

static inline void mpcgi_rng_seed(mpcgi_rng *g, uint64_t seed) { g->s = seed; }

static inline uint64_t mpcgi_rng_u64(mpcgi_rng *g)
{
    uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double mpcgi_rng_uniform(mpcgi_rng *g)
{
    return (double)(mpcgi_rng_u64(g) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, m), m >= 1 (bias below 2^-32 for m < 2^32). */
static inline uint64_t mpcgi_rng_below(mpcgi_rng *g, uint64_t m) { return mpcgi_rng_u64(g) % m; }

#endif /* MPCG_CORE_RNG_H */
