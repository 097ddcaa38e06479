/*
 * probes_wgmma.cu - the wgmma TF32 ceiling of `cgp roofline` (declared in host/bench/probes.h, timed by
 * host/bench/probes.c, described in docs/roofline.md): Hopper's warpgroup MMA, the tensor-core pipe of the
 * wgmma kernels (wgmma_conv.cuh: tf32-v6, v8, 3xtf32-v7, v8), driven dense. wgmma.mma_async exists for sm_90a only, so the
 * Makefile builds this file alone for sm_90a (WGMMA_GENCODE, which also defines CGP_HAVE_WGMMA=1) when SM=90;
 * any other build compiles no kernel here and probe_wgmma_unsupported says why.
 *
 * Each block is two warpgroups sharing one A (64 x 8) and one B (256 x 8) tf32 operand in shared memory,
 * no swizzle, K-major (kmajor_descriptor). Per loop trip a warpgroup issues kWgmmaPerGroup
 * wgmma.mma_async.m64n256k8 into its one 128-register accumulator, commits them as a group and waits until at
 * most kGroupsInFlight - 1 groups are pending, so the tensor cores always have queued work and nothing else
 * runs in the loop. The accumulators are summed once at the end and stored under a condition on the sum.
 * SASS check (docs/roofline.md):
 *     cuobjdump --dump-sass build/obj/kernels/bench/probes_wgmma.cu.o | scripts/sass_loops.py --function probe
 */
#include <stdint.h>

#include "probes.h"
#include "wgmma_dense.cuh"

#if CGP_HAVE_WGMMA

namespace {

constexpr int kWarpgroups = 2;              /* per block */
constexpr int kThreads = 128 * kWarpgroups; /* a warpgroup is 4 warps */
constexpr int kM = 64, kN = 256, kK = 8;    /* one wgmma.mma_async.m64n256k8.f32.tf32.tf32 */
constexpr int kAccumulators = kM * kN / 128; /* fp32 accumulators per thread */
constexpr int kWgmmaPerGroup = 4;
constexpr int kGroupsInFlight = 2;
constexpr double kWgmmaFlops = 2.0 * kM * kN * kK; /* multiply and add per product */

/* The operand tiles: [k half][row][4 tf32], 16 bytes a row of a core matrix */
constexpr int kAFloats = kM * kK, kBFloats = kN * kK;

/* Shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"), no swizzle, K-major: start address,
 * leading byte offset = bytes between the two core matrices along K (one k half), stride byte offset = 128
 * bytes between core matrices of 8 consecutive rows; all in units of 16 bytes. */
__device__ __forceinline__ uint64_t kmajor_descriptor(const float *tile, int rows)
{
    const uint32_t address = (uint32_t)__cvta_generic_to_shared(tile);
    const uint32_t k_half_bytes = (uint32_t)rows * 16u;
    return (uint64_t)((address & 0x3FFFFu) >> 4) | (uint64_t)(k_half_bytes >> 4) << 16 | (uint64_t)(128u >> 4) << 32;
}

__global__ void __launch_bounds__(kThreads, 1) wgmma_probe_kernel(int iters, float *__restrict__ sink)
{
    __shared__ __align__(128) float a_tile[kAFloats];
    __shared__ __align__(128) float b_tile[kBFloats];
    /* tf32 values in [-1/16, 1/16) from a multiplicative hash (not zeros: the tensor cores' power, and with it
     * the clock, depends on the data); the low 13 bits cleared, as tf32 */
    for (int i = threadIdx.x; i < kAFloats + kBFloats; i += kThreads) {
        const uint32_t h = (uint32_t)(i + 1) * 2654435761u;
        const float v = ((float)(h >> 8) * (1.0f / 16777216.0f) - 0.5f) * 0.125f;
        const float tf32 = __uint_as_float(__float_as_uint(v) & 0xFFFFE000u);
        if (i < kAFloats)
            a_tile[i] = tf32;
        else
            b_tile[i - kAFloats] = tf32;
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); /* the stores above before wgmma's reads */
    __syncthreads();
    const uint64_t a = kmajor_descriptor(a_tile, kM), b = kmajor_descriptor(b_tile, kN);
    float d[kAccumulators];
#pragma unroll
    for (int j = 0; j < kAccumulators; ++j)
        d[j] = 0.0f;
    for (int i = 0; i < iters; ++i) {
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int k = 0; k < kWgmmaPerGroup; ++k)
            wgmma_dense(d, a, b);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kGroupsInFlight - 1) : "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    float total = 0.0f;
#pragma unroll
    for (int j = 0; j < kAccumulators; ++j)
        total += d[j];
    if (total == 1.0f) /* an exact 1 is not expected; a store then is harmless */
        *sink = total;
}

} // namespace

extern "C" const char *probe_wgmma_unsupported(int cc_major, int cc_minor)
{
    return cc_major == 9 && cc_minor == 0 ? NULL : "wgmma needs a GPU of compute capability 9.0 (H100, H200)";
}

extern "C" cudaError_t probe_wgmma(int blocks, int iters, float *sink, double *work, cudaStream_t s)
{
    if (blocks < 1 || iters < 1)
        return cudaErrorInvalidValue;
    *work = kWgmmaFlops * kWgmmaPerGroup * (double)iters * (double)blocks * kWarpgroups;
    wgmma_probe_kernel<<<blocks, kThreads, 0, s>>>(iters, sink);
    return cudaGetLastError();
}

#else /* a build without sm_90a code */

extern "C" const char *probe_wgmma_unsupported(int cc_major, int cc_minor)
{
    (void)cc_major;
    (void)cc_minor;
    return "this build has no sm_90a code (make SM=90 builds it)";
}

extern "C" cudaError_t probe_wgmma(int blocks, int iters, float *sink, double *work, cudaStream_t s)
{
    (void)blocks, (void)iters, (void)sink, (void)s;
    *work = 0.0;
    return cudaErrorInvalidDeviceFunction;
}

#endif
