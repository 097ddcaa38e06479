/*
 * random_shape.h - shapes nobody listed, drawn from a seed: Cin and Cout log-uniform in 1..1024, H and W
 * log-uniform in 3..600, the padding either, and N log-uniform in 1..n_max, where n_max is what a bound on the
 * convolution's multiply-adds and on x's elements leaves (H and W drawn again while one image alone passes
 * them). Draw k of seed s is a pure function of (s, k): `cgp select --random` and the GPU tests replay a sample
 * from its printed seed.
 */
#ifndef CGP_RANDOM_SHAPE_H
#define CGP_RANDOM_SHAPE_H

#include <stdint.h>
#include "cgp.h"

typedef struct random_shape_bounds {
    double work_max;  /* multiply-adds of one problem: N Cout Hout Wout Cin 9 (or what work() counts) */
    double input_max; /* elements of x */
    int64_t n_max;    /* images at most */
    int64_t min_outputs; /* N Cout at least (N raised to it where the bounds allow) */
    /* the multiply-adds of one image counted as a caller bounds them; NULL: Cout Hout Wout Cin 9 */
    double (*work)(int64_t cin, int64_t cout, int64_t hout, int64_t wout);
} random_shape_bounds;

/* A random stream: seed and the draws taken so far */
typedef struct random_draw {
    uint64_t seed, count;
} random_draw;

/* log-uniform integer in [lo, hi] */
int64_t random_draw_log(random_draw *d, int64_t lo, int64_t hi);

/* The next shape of the stream, with the given padding (the caller draws or fixes it). */
cgp_shape random_shape_draw(random_draw *d, cgp_padding padding, const random_shape_bounds *b);

#endif
