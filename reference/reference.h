/*
 * reference.h - the CPU reference, the project's source of truth: plain C, double accumulation,
 * libm erf, one thread per slice of the (n, c) outputs.
 *     y[n, c] = mean over (h, w) of GELU(conv3x3(x, w)[n, c, h, w] + b[c])
 * Tested against hand-worked cases in tests/cpu/cpu_reference.c.
 */
#ifndef CGP_REFERENCE_H
#define CGP_REFERENCE_H

#include <stdint.h>

/* 0.5 * v * (1 + erf(v / sqrt(2))), in double */
double reference_gelu(double v);

/* x: (n, cin, h, w), w: (cout, cin, 3, 3), b: (cout) float32; y: (n, cout) double.
 * pad: 0 (valid) or 1 (same). threads: worker threads (0: the number of online CPUs).
 * Returns 0, or -1 if the shape has no output pixel. */
int reference_forward(const float *x, const float *w, const float *b, int64_t n, int64_t cin, int64_t cout,
                      int64_t h, int64_t wd, int pad, double *y, int threads);

/* The same for one (n, c) output only (used to check samples of huge problems). */
double reference_forward_one(const float *x, const float *w, const float *b, int64_t cin, int64_t h, int64_t wd,
                             int pad, int64_t n, int64_t c);

#endif
