/*
 * rng.h - the counter-based random numbers every tool and test uses: element i of a tensor
 * drawn with seed s is a pure function of (s, i), computed identically on the host (rng.c) and
 * on the device (kernels/bench/random.cu), so inputs are reproducible from the printed seed alone.
 */
#ifndef CGP_RNG_H
#define CGP_RNG_H

#include <stdint.h>

#ifdef __CUDACC__
#define CGP_HOST_DEVICE __host__ __device__
#else
#define CGP_HOST_DEVICE
#endif

/* splitmix64 of (seed, i): 64 well-mixed bits */
static inline CGP_HOST_DEVICE uint64_t rng_bits(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* uniform in [0, 1) with 24 random bits (exactly representable) */
static inline CGP_HOST_DEVICE float rng_unit(uint64_t seed, uint64_t i)
{
    return (float)(rng_bits(seed, i) >> 40) * (1.0f / 16777216.0f);
}

/* Seeds of the three tensors of one problem drawn with `seed`. */
static inline uint64_t rng_seed_x(uint64_t seed) { return rng_bits(seed, 1000001); }
static inline uint64_t rng_seed_w(uint64_t seed) { return rng_bits(seed, 2000003); }
static inline uint64_t rng_seed_b(uint64_t seed) { return rng_bits(seed, 3000005); }

/* Fill out[0, count) with lo + (hi - lo) * u (one rounding: fma), on the host. */
void rng_fill_uniform(float *out, int64_t count, float lo, float hi, uint64_t seed);

#endif
