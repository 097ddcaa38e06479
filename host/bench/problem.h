/*
 * problem.h - one problem instance on the device for the tools (check, bench, roofline, tests):
 * x ~ U(-sqrt 3, sqrt 3) (unit variance, like torch.randn; or another problem_dist), weight and
 * bias ~ U(-k, k) with k = 1/sqrt(9 Cin) (PyTorch's Conv2d initialisation), all drawn from one
 * printed seed (host/bench/rng.h), and the fp64 reference computed on the device: of the operands
 * as they are, or rounded to tf32 as the tensor-core kernels round them (tf32_round.h).
 */
#ifndef CGP_PROBLEM_H
#define CGP_PROBLEM_H

#include <stddef.h>
#include <stdint.h>
#include "variants.h"

/* The distribution of x. UNIFORM: U(-sqrt 3, sqrt 3), centred, unit variance (the default); NORMAL: N(0, 1);
 * UNIFORM01: U(0, 1), like an image's pixels: not centred, so every output sums same-signed terms and TF32's
 * rounding of the operands no longer averages out. */
typedef enum problem_dist { PROBLEM_DIST_UNIFORM, PROBLEM_DIST_NORMAL, PROBLEM_DIST_UNIFORM01 } problem_dist;

typedef struct problem {
    bench_problem p; /* shape, padding and the device tensors x, w, b, y */
    uint64_t seed;
} problem;

/* Bytes of device memory the tensors of this shape take (x, w, b, y). */
size_t problem_tensor_bytes(const cgp_shape *s);

/* Allocates and fills a problem. extra_bytes: further device memory the caller will need
 * (workspaces, intermediates); the shape is refused when the total exceeds free memory.
 * Returns 0; 2 when the shape does not fit (message says needed and free); 1 on a CUDA error. */
int problem_create(problem *pr, const cgp_shape *s, cgp_padding padding, uint64_t seed, size_t extra_bytes,
                   char *err, size_t errlen);
/* The same with x drawn from dist. */
int problem_create_dist(problem *pr, const cgp_shape *s, cgp_padding padding, uint64_t seed, problem_dist dist,
                        size_t extra_bytes, char *err, size_t errlen);
void problem_destroy(problem *pr);

/* The fp64 reference y (N x Cout doubles) into ref (host). Returns 0, or 1 with err set. */
int problem_reference(const problem *pr, double *ref, char *err, size_t errlen);
/* The same of x and the weights rounded to tf32 as the kernels round them (the bias stays fp32): what a
 * tf32 kernel's output is checked against, so that only its own error shows, not the format's. Needs device
 * memory for rounded copies of x and the weights. Returns 0, or 1 with err set. */
int problem_reference_tf32(const problem *pr, double *ref, char *err, size_t errlen);

/* Copies x, w, b to host arrays (malloc'd) for the CPU reference. Returns 0 or 1. */
int problem_download(const problem *pr, float **x, float **w, float **b, char *err, size_t errlen);

/* Formats a byte count as "268.4 MB" / "2.15 GB". */
const char *format_bytes(double bytes, char *buf, size_t cap);

#endif
