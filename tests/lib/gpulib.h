/*
 * gpulib.h - what GPU tests share: the "is there a usable GPU" check, running one plan on a problem
 * with poisoned output, the path its launch recorded held against the version's `path` hook, and the
 * references a kernel's y is compared with (the exact one, and for TF32 the one of x and w rounded to tf32
 * as the kernels round them).
 *
 * No GPU and a broken GPU are told apart: a machine without an NVIDIA device (no /dev/nvidia<N>, nothing
 * in /proc/driver/nvidia/gpus) skips the program's remaining cases with the reason (a FAIL with
 * CGP_TEST_REQUIRE_GPU=1); a machine with a device that CUDA cannot use (a driver error,
 * cudaGetDeviceCount failing or counting 0) fails.
 */
#ifndef CGP_GPULIB_H
#define CGP_GPULIB_H

#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "cgp.h"
#include "kernel_api.h"
#include "plan_stages.h"
#include "problem.h"
#include "reference_gpu.h"
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

static inline int test_first_match(const char *pattern, char *found, size_t cap)
{
    glob_t g;
    found[0] = '\0';
    const int hit = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
    if (hit)
        snprintf(found, cap, "%s", g.gl_pathv[0]);
    globfree(&g);
    return hit;
}

/* 1 when the machine has an NVIDIA device: a device node /dev/nvidia<N> or a GPU the kernel driver lists. */
static inline int test_nvidia_device_present(char *evidence, size_t cap)
{
    return test_first_match("/dev/nvidia[0-9]*", evidence, cap) ||
           test_first_match("/proc/driver/nvidia/gpus/*", evidence, cap);
}

/* 1 when CUDA can use a device. Else: no device on the machine -> the program's remaining cases skip
 * with the reason; a device CUDA cannot use -> FAIL. */
static inline int test_gpu_available(const char *suite)
{
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess && count > 0)
        return 1;
    char cuda[256], evidence[256], why[768];
    if (e != cudaSuccess)
        snprintf(cuda, sizeof cuda, "cudaGetDeviceCount: %s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
    else
        snprintf(cuda, sizeof cuda, "cudaGetDeviceCount counts 0 devices");
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (test_nvidia_device_present(evidence, sizeof evidence)) {
        if (visible && e == cudaErrorNoDevice)
            snprintf(why, sizeof why, "the NVIDIA device %s is hidden by CUDA_VISIBLE_DEVICES=\"%s\"; %s", evidence,
                     visible, cuda);
        else {
            TEST_FAIL(suite, "this machine has an NVIDIA device (%s) but CUDA cannot use it: %s", evidence, cuda);
            return 0;
        }
    } else {
        snprintf(why, sizeof why, "no NVIDIA GPU on this machine (no /dev/nvidia<N>, nothing in "
                                  "/proc/driver/nvidia/gpus); %s", cuda);
    }
    test_skip_rest(suite, why);
    return 0;
}

/* The current device's limits, as the plan code sees them (kernel_api.h). */
static inline cgp_device_info test_device_info(void)
{
    cgp_device_info d = {0, 0, 0, 0};
    int dev = 0, v = 0;
    cudaGetDevice(&dev);
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess)
        d.sm_count = v;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess)
        d.cc_major = v;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess)
        d.cc_minor = v;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess)
        d.smem_per_block_optin = (size_t)v;
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

/* Runs plan on device tensors with y poisoned (NaN) first; copies y to y_host.
 * Returns CGP_SUCCESS or the failing status (a CUDA failure after the launch is CGP_ERROR_CUDA). */
static inline cgp_status run_poisoned(cgp_plan *plan, const float *x, const float *w, const float *b, float *y,
                                      int64_t outputs, void *ws, size_t ws_bytes, float *y_host)
{
    if (cudaMemset(y, 0xFF, (size_t)outputs * sizeof(float)) != cudaSuccess)
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
 * it) is the one the `path` hook of the plan's version names for the plan's problem (shape s, padding); else 0
 * with why[] naming both, or saying that no launch recorded a path. What ran, from the launch itself. */
static inline int test_recorded_path_matches(cgp_plan *plan, const cgp_shape *s, cgp_padding padding, char *why,
                                             size_t cap)
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
    const char *expected = k->path(&p, &d);
    if ((st = cgp_plan_recorded_path(plan, &recorded)) != CGP_SUCCESS)
        snprintf(why, cap, "cgp_plan_recorded_path: %s: %s", cgp_status_string(st), cgp_last_error_detail());
    else if (!recorded)
        snprintf(why, cap, "the launch of %s recorded no path (its path hook says \"%s\")", k->name, expected);
    else if (strcmp(recorded, expected) != 0)
        snprintf(why, cap, "the launch of %s recorded path \"%s\", its path hook says \"%s\"", k->name, recorded,
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
