/*
 * probe_overlap.cu - the overlap probe of issue 39 (declared and described in host/bench/probe_overlap.h, timed by
 * host/bench/probe_overlap.c, run by `cgp roofline --overlap`): a wgmma loop in one warpgroup and a GELU epilogue
 * loop in another, alone, together and one after the other in one warpgroup, each mode a launch of the same kernel
 * template. wgmma.mma_async exists for sm_90a only, so the Makefile builds this file alone for sm_90a (WGMMA_CU,
 * WGMMA_GENCODE, which also defines CGP_HAVE_WGMMA=1) when SM=90; any other build compiles no kernel here and
 * probe_overlap_unsupported says why.
 *
 * The wgmma loop is probes_wgmma.cu's (A 64 x 8 and B N x 8 tf32 in shared memory, no swizzle, K-major; 4
 * wgmma.mma_async.m64nNk8 a trip into one accumulator, committed as a group, at most 2 groups in flight), with the
 * primitives of kernels/fused/wgmma_ops.cuh. The GELU loop is the epilogue of the implicit-GEMM kernels
 * (implicit_gemm.cuh, lane_gelu_sums + warp_channel_sums, whose butterfly step it calls) on a 64 x 128 fragment
 * in wgmma's accumulator layout
 * (d[4 j + e]: row 16 warp + lane / 4 + 8 (e / 2), column 8 j + 2 (lane % 4) + e % 2): per value one FFMA
 * (v * scale + bias, where the kernels add the bias; scale changes every pass, so no pass can be hoisted or merged),
 * gelu_x2 of kernels/fused/gelu.cuh (the TF32 kernels' GELU) and one FADD into its column's sum; then per pass the
 * transposed butterfly over the warp's 8 lane groups (28 shuffles), whose 4 totals a lane adds into running sums.
 * Every result is summed and stored under a condition the compiler cannot decide.
 * SASS check (tests/cpu/cpu_probes_sass.sh):
 *     cuobjdump --dump-sass build/obj/kernels/bench/probe_overlap.cu.o | scripts/sass_loops.py --function overlap
 */
#include <stdint.h>

#include "gelu.cuh"
#include "implicit_gemm.cuh"
#include "probe_overlap.h"
#include "wgmma_dense.cuh"
#include "wgmma_ops.cuh"

#if CGP_HAVE_WGMMA

namespace {

constexpr int kWarpgroupThreads = 128;
constexpr int kM = 64, kK = 8;
constexpr int kFragment = OVERLAP_GELU_PER_PASS; /* GELU values a thread: 64 x 128 over a warpgroup */
constexpr int kColumns = kFragment / 2;          /* the thread's columns: 8 j + 2 tig + {0, 1}, j < 16 */
constexpr int kProducerRegisters = 24, kConsumerRegisters = 240; /* OVERLAP_THREE_SETMAXNREG */
static_assert(kProducerRegisters + 2 * kConsumerRegisters <= 3 * OVERLAP_SETMAXNREG_BASE, "setmaxnreg budget");

template <int kLayout> struct Layout {
    static constexpr int kWarpgroups = kLayout == OVERLAP_TWO_WARPGROUPS ? 2 : 3;
    static constexpr int kThreads = kWarpgroups * kWarpgroupThreads;
    static constexpr bool kRebalance = kLayout == OVERLAP_THREE_SETMAXNREG;
};

/* `trips` trips of OVERLAP_WGMMA_PER_TRIP wgmmas into d, a group a trip, waiting until one group is left in flight */
template <int kAcc> __device__ __forceinline__ void run_wgmma_trips(float (&d)[kAcc], uint64_t a, uint64_t b, int trips)
{
    for (int i = 0; i < trips; ++i) {
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < OVERLAP_WGMMA_PER_TRIP; ++k)
            wgmma_dense(d, a, b);
        wgmma_commit();
        wgmma_wait<1>();
    }
}

/* One epilogue pass over the first 64 values of acc (a 64 x 128 block in wgmma's layout): per value
 * gelu_x2(acc * scale + bias of its column) added into its column's sum, then the warp's butterfly of the 32 column
 * sums, whose 4 totals the lane adds into total */
template <int kAcc>
__device__ __forceinline__ void gelu_pass(const float (&acc)[kAcc], const float (&bias)[kColumns], float scale,
                                          float (&total)[4])
{
    static_assert(kAcc >= kFragment, "a pass reads 64 values");
    float sum[kColumns];
#pragma unroll
    for (int j = 0; j < kFragment / 4; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int c = 2 * j + e % 2;
            const float g2 = gelu_x2(fmaf(acc[4 * j + e], scale, bias[c]));
            sum[c] = e < 2 ? g2 : sum[c] + g2;
        }
    int first = 0; /* the sums' first channel, which the probe does not need */
    channel_sums_step<0, kColumns>(sum, (int)threadIdx.x % 32, first);
#pragma unroll
    for (int k = 0; k < 4; ++k)
        total[k] += sum[k];
}

/* a pass's scale: 1 + pass 2^-24, exact, different every pass (below 2^24 passes) */
__device__ __forceinline__ float pass_scale(int pass) { return fmaf((float)pass, 0x1p-24f, 1.0f); }

/* a value in [-0.5, 0.5) from a multiplicative hash of i */
__device__ __forceinline__ float hash_unit(uint32_t i)
{
    return (float)((i + 1u) * 2654435761u >> 8) * (1.0f / 16777216.0f) - 0.5f;
}

template <int kAcc> __device__ __forceinline__ float sum_of(const float (&v)[kAcc])
{
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < kAcc; ++i)
        s += v[i];
    return s;
}

/* The probe: warpgroup 0 the wgmma loop (WGMMA, BOTH) or the serial loop (SERIAL), warpgroup 1 the GELU loop (GELU,
 * BOTH); a warpgroup with nothing to do returns (under OVERLAP_THREE_SETMAXNREG after its setmaxnreg). */
template <int kN, int kLayout, int kMode>
__global__ void __launch_bounds__(Layout<kLayout>::kThreads, 1)
    overlap_probe_kernel(int wgmma_trips, int gelu_passes, float *__restrict__ sink)
{
    constexpr int kAcc = kM * kN / kWarpgroupThreads; /* fp32 accumulators a thread */
    constexpr int kAFloats = kM * kK, kBFloats = kN * kK;
    float *const a_tile = reinterpret_cast<float *>(dynamic_smem()); /* the rest of the request keeps blocks out */
    float *const b_tile = a_tile + kAFloats;
    /* tf32 values in [-1/16, 1/16), not zeros (the tensor cores' power, and with it the clock, depends on the data) */
    for (int i = threadIdx.x; i < kAFloats + kBFloats; i += Layout<kLayout>::kThreads)
        a_tile[i] = __uint_as_float(__float_as_uint(hash_unit((uint32_t)i) * 0.125f) & 0xFFFFE000u);
    fence_proxy_async(); /* the stores above before wgmma's reads */
    __syncthreads();
    /* the warpgroup, uniform to the compiler (a broadcast, as CUTLASS does) */
    const int warpgroup = __shfl_sync(0xffffffffu, (int)threadIdx.x / kWarpgroupThreads, 0);
    if constexpr (Layout<kLayout>::kRebalance) { /* the producer's stand-in gives its registers to the others */
        if (warpgroup == 2) {
            setmaxnreg_dec<kProducerRegisters>();
            return;
        }
        setmaxnreg_inc<kConsumerRegisters>();
    }
    const bool wgmma_here = warpgroup == 0 && kMode != OVERLAP_GELU;
    const bool gelu_here = warpgroup == 1 && (kMode == OVERLAP_GELU || kMode == OVERLAP_BOTH);
    if (!wgmma_here && !gelu_here)
        return;
    const int lane_column = (int)threadIdx.x % 4 * 2; /* + 8 j + e % 2 */
    float bias[kColumns];
#pragma unroll
    for (int c = 0; c < kColumns; ++c)
        bias[c] = 0.25f * hash_unit((uint32_t)(c / 2 * 8 + lane_column + c % 2) + 4096u);
    float total[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    float result;
    if (gelu_here) { /* the GELU loop over a fragment of values in [-4, 4) */
        float fragment[kFragment];
#pragma unroll
        for (int i = 0; i < kFragment; ++i)
            fragment[i] = 8.0f * hash_unit((uint32_t)(threadIdx.x * kFragment + i) + 8192u);
        for (int pass = 0; pass < gelu_passes; ++pass)
            gelu_pass(fragment, bias, pass_scale(pass), total);
        result = (total[0] + total[1]) + (total[2] + total[3]);
    } else {
        const uint64_t a = kmajor_desc(shared_address(a_tile), kM * 16u), b = kmajor_desc(shared_address(b_tile), kN * 16u);
        float d[kAcc];
#pragma unroll
        for (int i = 0; i < kAcc; ++i)
            d[i] = 0.0f;
        if constexpr (kMode == OVERLAP_SERIAL) { /* a chunk of wgmma trips, wait, the chunk's share of the passes */
            const int chunks = wgmma_trips / OVERLAP_CHUNK_TRIPS;
            int64_t pass = 0;
            for (int c = 0; c < chunks; ++c) {
                run_wgmma_trips(d, a, b, OVERLAP_CHUNK_TRIPS);
                wgmma_wait<0>();
                hold(d);
                for (const int64_t end = (int64_t)(c + 1) * gelu_passes / chunks; pass < end; ++pass)
                    gelu_pass(d, bias, pass_scale((int)pass), total);
            }
        } else {
            run_wgmma_trips(d, a, b, wgmma_trips);
            wgmma_wait<0>();
            hold(d);
        }
        result = sum_of(d) + ((total[0] + total[1]) + (total[2] + total[3]));
    }
    if (result == 1.0f) /* an exact 1 is not expected; a store then is harmless */
        *sink = result;
}

using Kernel = void (*)(int, int, float *);

template <int kN, int kLayout> struct Modes {
    static constexpr Kernel kernels[OVERLAP_MODES] = {
        overlap_probe_kernel<kN, kLayout, OVERLAP_WGMMA>, overlap_probe_kernel<kN, kLayout, OVERLAP_GELU>,
        overlap_probe_kernel<kN, kLayout, OVERLAP_BOTH>, overlap_probe_kernel<kN, kLayout, OVERLAP_SERIAL>};
};

/* the kernel of (n, layout, mode) and its block size, or NULL */
Kernel kernel_of(int n, int layout, int mode, int *threads)
{
    if (mode < 0 || mode >= OVERLAP_MODES || layout < 0 || layout >= OVERLAP_LAYOUTS || (n != 128 && n != 256))
        return nullptr;
    *threads = layout == OVERLAP_TWO_WARPGROUPS ? Layout<OVERLAP_TWO_WARPGROUPS>::kThreads
                                                : Layout<OVERLAP_THREE_SETMAXNREG>::kThreads;
    if (layout == OVERLAP_TWO_WARPGROUPS)
        return n == 128 ? Modes<128, OVERLAP_TWO_WARPGROUPS>::kernels[mode]
                        : Modes<256, OVERLAP_TWO_WARPGROUPS>::kernels[mode];
    return n == 128 ? Modes<128, OVERLAP_THREE_SETMAXNREG>::kernels[mode]
                    : Modes<256, OVERLAP_THREE_SETMAXNREG>::kernels[mode];
}

} // namespace

extern "C" const char *probe_overlap_unsupported(int cc_major, int cc_minor)
{
    return cc_major == 9 && cc_minor == 0 ? NULL : "wgmma needs a GPU of compute capability 9.0 (H100, H200)";
}

extern "C" cudaError_t probe_overlap_setup(int n, int layout, int mode, size_t smem_bytes, int *registers,
                                           int *local_bytes, int *blocks_per_sm)
{
    int threads = 0;
    const Kernel k = kernel_of(n, layout, mode, &threads);
    if (!k || smem_bytes < (size_t)(kM + n) * kK * sizeof(float) || smem_bytes > (size_t)INT32_MAX)
        return cudaErrorInvalidValue;
    cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_bytes);
    cudaFuncAttributes attr;
    if (e == cudaSuccess)
        e = cudaFuncGetAttributes(&attr, k);
    if (e == cudaSuccess) {
        *registers = attr.numRegs;
        *local_bytes = (int)attr.localSizeBytes;
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, k, threads, smem_bytes);
    }
    return e;
}

extern "C" cudaError_t probe_overlap(int n, int layout, int mode, int blocks, size_t smem_bytes, int wgmma_trips,
                                     int gelu_passes, float *sink, cudaStream_t s)
{
    int threads = 0;
    const Kernel k = kernel_of(n, layout, mode, &threads);
    if (!k || blocks < 1 || wgmma_trips < OVERLAP_CHUNK_TRIPS || wgmma_trips % OVERLAP_CHUNK_TRIPS != 0 ||
        gelu_passes < 1)
        return cudaErrorInvalidValue;
    k<<<blocks, threads, smem_bytes, s>>>(wgmma_trips, gelu_passes, sink);
    return cudaGetLastError();
}

#else /* a build without sm_90a code */

extern "C" const char *probe_overlap_unsupported(int cc_major, int cc_minor)
{
    (void)cc_major;
    (void)cc_minor;
    return "this build has no sm_90a code (make SM=90 builds it)";
}

extern "C" cudaError_t probe_overlap_setup(int n, int layout, int mode, size_t smem_bytes, int *registers,
                                           int *local_bytes, int *blocks_per_sm)
{
    (void)n, (void)layout, (void)mode, (void)smem_bytes;
    *registers = *local_bytes = *blocks_per_sm = 0;
    return cudaErrorInvalidDeviceFunction;
}

extern "C" cudaError_t probe_overlap(int n, int layout, int mode, int blocks, size_t smem_bytes, int wgmma_trips,
                                     int gelu_passes, float *sink, cudaStream_t s)
{
    (void)n, (void)layout, (void)mode, (void)blocks, (void)smem_bytes, (void)wgmma_trips, (void)gelu_passes;
    (void)sink, (void)s;
    return cudaErrorInvalidDeviceFunction;
}

#endif
