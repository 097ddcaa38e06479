/*
 * gpulib.h - what GPU tests share: the "is there a usable GPU" check, a problem as the kernels see it
 * (test_kernel_problem), running one plan on a problem with poisoned output, the path its launch recorded held
 * against the path of the version's configuration, and the references a kernel's y is compared with (the exact
 * one, and for TF32 the one of x and w rounded to tf32 as the kernels round them).
 *
 * No GPU and a broken GPU are told apart: a machine without an NVIDIA device (no /dev/nvidia<N>, nothing
 * in /proc/driver/nvidia/gpus) skips the program's remaining cases with the reason (a FAIL with
 * CGP_TEST_REQUIRE_GPU=1); a machine with a device that CUDA cannot use (a driver error,
 * cudaGetDeviceCount failing or counting 0) fails.
 */
#ifndef CGP_GPULIB_H
#define CGP_GPULIB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "cgp.h"
#include "kernel_api.h"
#include "plan_stages.h"
#include "poison.h"
#include "problem.h"
#include "reference_gpu.h"
#include "sysinfo.h"
#include "testlib.h"
#include "tf32_round.h"

/* The first path matching pattern into found (empty if none); 1 when there is one. */
/* A CUDA call inside a test case: on failure a FAIL line naming the call and the error, then `goto out`. */
#define TEST_CUDA(name, call)                                                                              \
    do {                                                                                                   \
        cudaError_t test_cuda_err_ = (call);                                                               \
        if (test_cuda_err_ != cudaSuccess) {                                                               \
            TEST_FAIL((name), "%s at %s:%d: %s", #call, __FILE__, __LINE__, cudaGetErrorString(test_cuda_err_)); \
            goto out;                                                                                      \
        }                                                                                                  \
    } while (0)

/* The kernels' view (kernel_api.h's cgp_problem) of problem pr: its shape, output plane and padding */
static inline cgp_problem test_kernel_problem(const problem *pr)
{
    const cgp_shape *s = &pr->p.shape;
    const cgp_problem p = {s->n, s->cin, s->cout, s->h, s->w, pr->p.hout, pr->p.wout, (int)pr->p.padding};
    return p;
}

/* 1 when CUDA can use a device. Else: no device on the machine (or one CUDA_VISIBLE_DEVICES hides) -> the program's
 * remaining cases skip with the reason; a device CUDA cannot use -> FAIL (sysinfo_no_device_reason, the wording the
 * CLI uses too). */
static inline int test_gpu_available(const char *suite)
{
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess && count > 0)
        return 1;
    char why[768];
    if (sysinfo_no_device_reason((int)e, why, sizeof why)) {
        TEST_FAIL(suite, "%s", why);
        return 0;
    }
    test_skip_rest(suite, why);
    return 0;
}

/* The current device's limits, as the plan code sees them (kernel_api.h); all zero where CUDA cannot say (every
 * version then refuses, naming why). */
static inline cgp_device_info test_device_info(void)
{
    cgp_device_info d;
    memset(&d, 0, sizeof d);
    if (cgp_current_device_info(&d) != cudaSuccess)
        memset(&d, 0, sizeof d);
    return d;
}

/* A plan for one kernel version (padding, cgp_reduce, cgp_precision, version) with its workspace
 * allocated. Returns CGP_SUCCESS or the failing status; *plan and *ws are NULL when not made. */
static inline cgp_status test_plan_with_workspace(const cgp_shape *s, cgp_padding padding, int reduce, int precision,
                                                  int version, cgp_plan **plan, void **ws, size_t *ws_bytes)
{
    cgp_options o = cgp_default_options();
    o.padding = padding;
    o.reduce = (cgp_reduce)reduce;
    o.precision = (cgp_precision)precision;
    o.kernel = version;
    *plan = NULL;
    *ws = NULL;
    *ws_bytes = 0;
    cgp_status st = cgp_plan_create(plan, s, &o);
    if (st == CGP_SUCCESS)
        st = cgp_plan_workspace_size(*plan, ws_bytes);
    if (st == CGP_SUCCESS && *ws_bytes && cudaMalloc(ws, *ws_bytes) != cudaSuccess)
        st = CGP_ERROR_CUDA;
    return st;
}

/* A version whose unsupported() refuses a shape, saying why: cgp_plan_create must refuse it too, with that
 * reason. PASS (naming the reason) or FAIL under `name`. */
static inline void test_expect_refusal(const char *name, const cgp_shape *s, cgp_padding padding,
                                       const cgp_kernel_desc *k, const char *why)
{
    cgp_plan *plan = NULL;
    void *ws = NULL;
    size_t ws_bytes = 0;
    const cgp_status st = test_plan_with_workspace(s, padding, 0, k->precision, k->version, &plan, &ws, &ws_bytes);
    if (st != CGP_ERROR_UNSUPPORTED)
        TEST_FAIL(name, "the table says \"%s\", but cgp_plan_create returned %s", why, cgp_status_string(st));
    else if (!strstr(cgp_last_error_detail(), why))
        TEST_FAIL(name, "cgp_plan_create's reason \"%s\" is not the table's \"%s\"", cgp_last_error_detail(), why);
    else
        test_report("PASS", name, "refused: %s", why);
    cudaFree(ws);
    if (plan)
        cgp_plan_destroy(plan);
}

/* Runs plan on device tensors with y poisoned first (poison.h: an element left so is "never written"); copies y to
 * y_host.
 * Returns CGP_SUCCESS or the failing status (a CUDA failure after the launch is CGP_ERROR_CUDA). */
static inline cgp_status run_poisoned(cgp_plan *plan, const float *x, const float *w, const float *b, float *y,
                                      int64_t outputs, void *ws, size_t ws_bytes, float *y_host)
{
    if (poison_outputs(y, outputs, 0) != cudaSuccess)
        return CGP_ERROR_CUDA;
    const cgp_status st = cgp_plan_run(plan, x, w, b, y, ws, ws_bytes, 0);
    if (st != CGP_SUCCESS)
        return st;
    if (cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemcpy(y_host, y, (size_t)outputs * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess)
        return CGP_ERROR_CUDA;
    return CGP_SUCCESS;
}

/* 1 when the path that the plan's launches recorded since the last read (cgp_plan_recorded_path, which clears
 * it) is the one the `path` hook of the plan's version names for the plan's problem (shape s, padding) and the
 * weight pointer the launches had; else 0 with why[] naming both, or saying that no launch recorded a path, or that
 * the blocks of a launch recorded different ones. What ran, from the launch itself. */
static inline int test_recorded_path_matches(cgp_plan *plan, const cgp_shape *s, cgp_padding padding,
                                             const float *weight, char *why, size_t cap)
{
    int version = 0;
    const char *kname = "?", *recorded = NULL;
    cgp_device_info d;
    cgp_status st = cgp_plan_kernel(plan, &version, &kname);
    const cgp_kernel_desc *k = st == CGP_SUCCESS ? cgp_kernel_find(version) : NULL;
    if (!k) {
        snprintf(why, cap, "the plan's version (%s): %s", kname, cgp_last_error_detail());
        return 0;
    }
    const cudaError_t e = cgp_current_device_info(&d);
    if (e != cudaSuccess) {
        snprintf(why, cap, "cgp_current_device_info: %s", cudaGetErrorString(e));
        return 0;
    }
    const cgp_problem p = {s->n, s->cin, s->cout, s->h, s->w, cgp_output_height(s, padding),
                           cgp_output_width(s, padding), (int)padding};
    const char *expected = cgp_kernel_path(k, &p, &d, cgp_weights_misaligned(weight));
    if ((st = cgp_plan_recorded_path(plan, &recorded)) != CGP_SUCCESS)
        snprintf(why, cap, "cgp_plan_recorded_path: %s: %s", cgp_status_string(st), cgp_last_error_detail());
    else if (!recorded)
        snprintf(why, cap, "the launch of %s recorded no path (its configuration says \"%s\")", k->name, expected);
    else if (strcmp(recorded, expected) != 0)
        snprintf(why, cap, "the launch of %s recorded path \"%s\", its configuration says \"%s\"", k->name, recorded,
                 expected);
    else
        return 1;
    return 0;
}

/* Round to nearest, ties away from zero, to 10 mantissa bits: cvt.rna.tf32.f32, which every TF32 kernel
 * applies to x and w (or does the same with the bits it keeps: gpu_tensorcore checks it bit for bit).
 * Infinities and NaN stay as they are. The tools' rounding (host/bench/tf32_round.h), for the tests. */
static inline float test_tf32_round(float v) { return tf32_round(v); }

/* A device copy of count floats of src (device), each rounded by test_tf32_round; NULL on failure. */
static inline float *test_tf32_rounded_copy(const float *src, int64_t count)
{
    float *host = malloc((size_t)count * sizeof(float)), *dev = NULL;
    int ok = host && cudaMemcpy(host, src, (size_t)count * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess;
    for (int64_t i = 0; ok && i < count; ++i)
        host[i] = test_tf32_round(host[i]);
    ok = ok && cudaMalloc((void **)&dev, (size_t)count * sizeof(float)) == cudaSuccess &&
         cudaMemcpy(dev, host, (size_t)count * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess;
    free(host);
    if (!ok) {
        cudaFree(dev);
        return NULL;
    }
    return dev;
}

/* The fp64 reference (host, N x Cout) of images [image, image + n) of x (device, NCHW) with weight w and
 * bias b (device); with round_tf32, of x and w rounded as the TF32 kernels round them. Returns 0, or 1 with
 * err set. */
static inline int test_reference(const float *x, const float *w, const float *b, const cgp_shape *s, int64_t image,
                                 int64_t n, cgp_padding padding, int round_tf32, double *ref, char *err, size_t errlen)
{
    const int64_t per_image = s->cin * s->h * s->w, hout = cgp_output_height(s, padding),
                  wout = cgp_output_width(s, padding);
    const float *xs = x + image * per_image, *ws = w;
    float *xr = NULL, *wr = NULL;
    double *y = NULL;
    void *scratch = NULL;
    cudaError_t e = cudaSuccess;
    if (round_tf32) {
        xr = test_tf32_rounded_copy(xs, n * per_image);
        wr = test_tf32_rounded_copy(w, s->cout * s->cin * 9);
        if (!xr || !wr) {
            snprintf(err, errlen, "rounding the inputs to tf32: %s", cudaGetErrorString(cudaGetLastError()));
            cudaFree(xr), cudaFree(wr);
            return 1;
        }
        xs = xr;
        ws = wr;
    }
    if ((e = cudaMalloc((void **)&y, (size_t)(n * s->cout) * sizeof(double))) == cudaSuccess &&
        (e = cudaMalloc(&scratch, reference_gpu_scratch_bytes(n, s->cout, hout, wout))) == cudaSuccess &&
        (e = reference_gpu_forward(xs, ws, b, n, s->cin, s->cout, s->h, s->w, (int)padding, y, scratch, 0)) ==
            cudaSuccess)
        e = cudaMemcpy(ref, y, (size_t)(n * s->cout) * sizeof(double), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
        snprintf(err, errlen, "fp64 GPU reference%s: %s", round_tf32 ? " of tf32-rounded inputs" : "",
                 cudaGetErrorString(e));
    cudaFree(xr), cudaFree(wr), cudaFree(y), cudaFree(scratch);
    return e != cudaSuccess;
}

/* The references of a whole problem: exact, and (for TF32) of tf32-rounded inputs. */
static inline int test_problem_references(const problem *pr, double *exact, double *rounded, char *err, size_t errlen)
{
    const cgp_shape *s = &pr->p.shape;
    return test_reference(pr->p.x, pr->p.w, pr->p.b, s, 0, s->n, pr->p.padding, 0, exact, err, errlen) ||
           test_reference(pr->p.x, pr->p.w, pr->p.b, s, 0, s->n, pr->p.padding, 1, rounded, err, errlen);
}

#endif
