/*
 * gpulib.h - what GPU tests share: the "is there a usable GPU" check (SKIP with the reason, or
 * FAIL when CGP_TEST_REQUIRE_GPU=1), the seed of fresh random inputs (time-based, printed, or
 * CGP_TEST_SEED to repeat a run), and running one plan on a problem with poisoned output.
 */
#ifndef CGP_GPULIB_H
#define CGP_GPULIB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cuda_runtime_api.h>

#include "cgp.h"
#include "kernel_api.h"
#include "testlib.h"

static inline int test_gpu_available(const char *suite)
{
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess && count > 0)
        return 1;
    const char *why = e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount reports 0 devices";
    if (test_require_gpu())
        TEST_FAIL(suite, "CGP_TEST_REQUIRE_GPU=1 but no usable GPU: %s", why);
    else
        TEST_SKIP(suite, "no usable GPU: %s", why);
    return 0;
}

static inline uint64_t test_seed(const char *suite)
{
    const char *s = getenv("CGP_TEST_SEED");
    const uint64_t seed = s && s[0] ? strtoull(s, NULL, 10) : (uint64_t)time(NULL) * 2654435761ULL;
    printf("# %s: fresh random inputs, seed %llu (CGP_TEST_SEED=%llu repeats this run)\n", suite,
           (unsigned long long)seed, (unsigned long long)seed);
    return seed;
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

#endif
