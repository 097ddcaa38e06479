/* problem.c - see problem.h. */
#include "problem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference_gpu.h"
#include "rng.h"

cudaError_t random_fill_uniform(float *out, int64_t count, float lo, float hi, uint64_t seed, cudaStream_t s);
cudaError_t random_fill_normal(float *out, int64_t count, uint64_t seed, cudaStream_t s);

const char *format_bytes(double bytes, char *buf, size_t cap)
{
    if (bytes >= 1e9)
        snprintf(buf, cap, "%.2f GB", bytes / 1e9);
    else if (bytes >= 1e6)
        snprintf(buf, cap, "%.1f MB", bytes / 1e6);
    else if (bytes >= 1e3)
        snprintf(buf, cap, "%.1f KB", bytes / 1e3);
    else
        snprintf(buf, cap, "%.0f B", bytes);
    return buf;
}

size_t problem_tensor_bytes(const cgp_shape *s)
{
    return (size_t)(s->n * s->cin * s->h * s->w + s->cout * s->cin * 9 + s->cout + s->n * s->cout) * sizeof(float);
}

static int cuda_fail(char *err, size_t errlen, const char *what, cudaError_t e)
{
    snprintf(err, errlen, "%s: %s: %s", what, cudaGetErrorName(e), cudaGetErrorString(e));
    return 1;
}

int problem_create(problem *pr, const cgp_shape *s, cgp_padding padding, uint64_t seed, size_t extra_bytes,
                   char *err, size_t errlen)
{
    return problem_create_dist(pr, s, padding, seed, PROBLEM_DIST_UNIFORM, extra_bytes, err, errlen);
}

static cudaError_t fill_x(float *x, int64_t count, problem_dist dist, uint64_t seed)
{
    const float r3 = sqrtf(3.0f);
    return dist == PROBLEM_DIST_NORMAL      ? random_fill_normal(x, count, seed, 0)
           : dist == PROBLEM_DIST_UNIFORM01 ? random_fill_uniform(x, count, 0.0f, 1.0f, seed, 0)
                                            : random_fill_uniform(x, count, -r3, r3, seed, 0);
}

int problem_create_dist(problem *pr, const cgp_shape *s, cgp_padding padding, uint64_t seed, problem_dist dist,
                        size_t extra_bytes, char *err, size_t errlen)
{
    memset(pr, 0, sizeof *pr);
    pr->seed = seed;
    pr->p.shape = *s;
    pr->p.padding = padding;
    pr->p.hout = cgp_output_height(s, padding);
    pr->p.wout = cgp_output_width(s, padding);
    size_t free_bytes = 0, total_bytes = 0;
    cudaError_t e = cudaMemGetInfo(&free_bytes, &total_bytes);
    if (e != cudaSuccess)
        return cuda_fail(err, errlen, "cudaMemGetInfo", e);
    const double need = (double)problem_tensor_bytes(s) + (double)extra_bytes;
    if (need > (double)free_bytes) {
        char a[32], b[32], c[32];
        snprintf(err, errlen, "shape N=%lld Cin=%lld Cout=%lld H=%lld W=%lld needs %s of device memory (input %s), "
                 "but only %s is free",
                 (long long)s->n, (long long)s->cin, (long long)s->cout, (long long)s->h, (long long)s->w,
                 format_bytes(need, a, sizeof a), format_bytes((double)(s->n * s->cin * s->h * s->w) * 4.0, b, sizeof b),
                 format_bytes((double)free_bytes, c, sizeof c));
        return 2;
    }
    float *x = NULL, *w = NULL, *b = NULL, *y = NULL;
    const int64_t nx = s->n * s->cin * s->h * s->w, nw = s->cout * s->cin * 9;
    if ((e = cudaMalloc((void **)&x, (size_t)nx * 4)) != cudaSuccess ||
        (e = cudaMalloc((void **)&w, (size_t)nw * 4)) != cudaSuccess ||
        (e = cudaMalloc((void **)&b, (size_t)s->cout * 4)) != cudaSuccess ||
        (e = cudaMalloc((void **)&y, (size_t)(s->n * s->cout) * 4)) != cudaSuccess) {
        cudaFree(x), cudaFree(w), cudaFree(b), cudaFree(y);
        return cuda_fail(err, errlen, "cudaMalloc of the problem tensors", e);
    }
    const float k = 1.0f / sqrtf(9.0f * (float)s->cin);
    if ((e = fill_x(x, nx, dist, rng_seed_x(seed))) != cudaSuccess ||
        (e = random_fill_uniform(w, nw, -k, k, rng_seed_w(seed), 0)) != cudaSuccess ||
        (e = random_fill_uniform(b, s->cout, -k, k, rng_seed_b(seed), 0)) != cudaSuccess ||
        (e = cudaDeviceSynchronize()) != cudaSuccess) {
        cudaFree(x), cudaFree(w), cudaFree(b), cudaFree(y);
        return cuda_fail(err, errlen, "filling the problem with random numbers", e);
    }
    pr->p.x = x;
    pr->p.w = w;
    pr->p.b = b;
    pr->p.y = y;
    return 0;
}

void problem_destroy(problem *pr)
{
    cudaFree((void *)pr->p.x);
    cudaFree((void *)pr->p.w);
    cudaFree((void *)pr->p.b);
    cudaFree(pr->p.y);
    memset(pr, 0, sizeof *pr);
}

/* The fp64 reference of the given operands (device) into ref (host). */
static int reference_of(const problem *pr, const float *x, const float *w, double *ref, char *err, size_t errlen)
{
    const cgp_shape *s = &pr->p.shape;
    const size_t outputs = (size_t)(s->n * s->cout);
    double *y_ref = NULL;
    void *scratch = NULL;
    cudaError_t e;
    if ((e = cudaMalloc((void **)&y_ref, outputs * sizeof(double))) != cudaSuccess ||
        (e = cudaMalloc(&scratch, reference_gpu_scratch_bytes(s->n, s->cout, pr->p.hout, pr->p.wout))) != cudaSuccess ||
        (e = reference_gpu_forward(x, w, pr->p.b, s->n, s->cin, s->cout, s->h, s->w, (int)pr->p.padding, y_ref, scratch,
                                   0)) != cudaSuccess ||
        (e = cudaMemcpy(ref, y_ref, outputs * sizeof(double), cudaMemcpyDeviceToHost)) != cudaSuccess) {
        cudaFree(y_ref);
        cudaFree(scratch);
        return cuda_fail(err, errlen, "fp64 GPU reference", e);
    }
    cudaFree(y_ref);
    cudaFree(scratch);
    return 0;
}

int problem_reference(const problem *pr, double *ref, char *err, size_t errlen)
{
    return reference_of(pr, pr->p.x, pr->p.w, ref, err, errlen);
}

int problem_reference_tf32(const problem *pr, double *ref, char *err, size_t errlen)
{
    const cgp_shape *s = &pr->p.shape;
    const int64_t nx = s->n * s->cin * s->h * s->w, nw = s->cout * s->cin * 9;
    float *x = NULL, *w = NULL;
    cudaError_t e;
    if ((e = cudaMalloc((void **)&x, (size_t)nx * sizeof(float))) != cudaSuccess ||
        (e = cudaMalloc((void **)&w, (size_t)nw * sizeof(float))) != cudaSuccess ||
        (e = reference_gpu_round_tf32(pr->p.x, x, nx, 0)) != cudaSuccess ||
        (e = reference_gpu_round_tf32(pr->p.w, w, nw, 0)) != cudaSuccess) {
        cudaFree(x);
        cudaFree(w);
        return cuda_fail(err, errlen, "the operands rounded to tf32", e);
    }
    const int rc = reference_of(pr, x, w, ref, err, errlen);
    cudaFree(x);
    cudaFree(w);
    return rc;
}

int problem_download(const problem *pr, float **x, float **w, float **b, char *err, size_t errlen)
{
    const cgp_shape *s = &pr->p.shape;
    const size_t nx = (size_t)(s->n * s->cin * s->h * s->w), nw = (size_t)(s->cout * s->cin * 9);
    *x = malloc(nx * 4);
    *w = malloc(nw * 4);
    *b = malloc((size_t)s->cout * 4);
    cudaError_t e = cudaSuccess;
    if (!*x || !*w || !*b) {
        snprintf(err, errlen, "out of host memory for a copy of the inputs");
    } else if ((e = cudaMemcpy(*x, pr->p.x, nx * 4, cudaMemcpyDeviceToHost)) == cudaSuccess &&
               (e = cudaMemcpy(*w, pr->p.w, nw * 4, cudaMemcpyDeviceToHost)) == cudaSuccess &&
               (e = cudaMemcpy(*b, pr->p.b, (size_t)s->cout * 4, cudaMemcpyDeviceToHost)) == cudaSuccess) {
        return 0;
    } else {
        cuda_fail(err, errlen, "copying the inputs to the host", e);
    }
    free(*x), free(*w), free(*b);
    *x = *w = *b = NULL;
    return 1;
}
