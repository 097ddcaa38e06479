/*
 * probes.cu - the ceiling probes of `cgp roofline` (declared and described in host/bench/probes.h,
 * timed by host/bench/probes.c; docs/roofline.md says how to check their SASS). Each kernel keeps
 * its work in registers or streams it through memory and stores a result only under a condition
 * that depends on every value it computed, so the compiler must do all of the work:
 *     cuobjdump --dump-sass build/obj/kernels/bench/probes.cu.o | scripts/sass_loops.py --function probe
 */
#include <stdint.h>

#include "fused_tf32_device.cuh"
#include "gelu.cuh"
#include "probes.h"

namespace {

/* ---- device-memory copy: each thread moves kCopyUnroll float4s, all loads before all stores ---- */
constexpr int kCopyThreads = 256;
constexpr int kCopyUnroll = 4;

__global__ void __launch_bounds__(kCopyThreads)
    copy_probe_kernel(const float4 *__restrict__ src, float4 *__restrict__ dst, int64_t vectors)
{
    const int64_t first = (int64_t)blockIdx.x * (kCopyThreads * kCopyUnroll) + threadIdx.x;
    float4 v[kCopyUnroll];
#pragma unroll
    for (int k = 0; k < kCopyUnroll; ++k) {
        const int64_t i = first + (int64_t)k * kCopyThreads;
        v[k] = i < vectors ? src[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
#pragma unroll
    for (int k = 0; k < kCopyUnroll; ++k) {
        const int64_t i = first + (int64_t)k * kCopyThreads;
        if (i < vectors)
            dst[i] = v[k];
    }
}

/* ---- L2 reads: float4 loads that skip L1 (ld.global.cg), wrapping around an L2-sized buffer ---- */
constexpr int kL2Threads = 256;
constexpr int kL2Unroll = 4;

__global__ void __launch_bounds__(kL2Threads)
    l2_read_probe_kernel(const float4 *__restrict__ buf, uint32_t mask, int trips, float *__restrict__ sink)
{
    const uint32_t stride = gridDim.x * kL2Threads;
    uint32_t i = blockIdx.x * kL2Threads + threadIdx.x;
    float acc[kL2Unroll] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int t = 0; t < trips; ++t) {
#pragma unroll
        for (int k = 0; k < kL2Unroll; ++k) {
            const float4 v = __ldcg(buf + (i & mask));
            acc[k] += (v.x + v.y) + (v.z + v.w);
            i += stride;
        }
    }
    const float total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    if (total != 0.0f) /* the buffer holds zeros: never taken, but the compiler cannot know */
        *sink = total;
}

/* ---- FFMA: kFfmaChains independent chains acc = acc * mul + add, kFfmaUnroll rounds per trip ---- */
constexpr int kFfmaThreads = 256;
constexpr int kFfmaChains = 8;
constexpr int kFfmaUnroll = 16;

__global__ void __launch_bounds__(kFfmaThreads) ffma_probe_kernel(int iters, float mul, float add, float *__restrict__ sink)
{
    float acc[kFfmaChains];
#pragma unroll
    for (int c = 0; c < kFfmaChains; ++c)
        acc[c] = (float)(threadIdx.x + c);
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < kFfmaUnroll; ++u) {
#pragma unroll
            for (int c = 0; c < kFfmaChains; ++c)
                acc[c] = fmaf(acc[c], mul, add);
        }
    }
    float total = 0.0f;
#pragma unroll
    for (int c = 0; c < kFfmaChains; ++c)
        total += acc[c];
    if (total == 0.0f) /* the chains stay positive: never taken */
        *sink = total;
}

/* ---- TF32 tensor cores: kMmaAccumulators independent m16n8k8 accumulators per warp ---- */
constexpr int kMmaThreads = 256;
constexpr int kMmaAccumulators = 8;
constexpr double kMmaFlops = 2.0 * 16 * 8 * 8; /* one mma.sync m16n8k8: 1024 multiply-adds */

__global__ void __launch_bounds__(kMmaThreads)
    tf32_mma_probe_kernel(int iters, float a_scale, float b_scale, float *__restrict__ sink)
{
    const int lane = threadIdx.x % 32;
    uint32_t a[4], b[2];
#pragma unroll
    for (int k = 0; k < 4; ++k)
        a[k] = tf32_round(a_scale * (float)(lane + k + 1));
#pragma unroll
    for (int k = 0; k < 2; ++k)
        b[k] = tf32_round(b_scale * (float)(lane - 16 + k));
    float acc[kMmaAccumulators][4];
#pragma unroll
    for (int j = 0; j < kMmaAccumulators; ++j)
        acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.0f;
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < kMmaAccumulators; ++j)
            mma_tf32(acc[j], a, b, acc[j]);
    }
    float total = 0.0f;
#pragma unroll
    for (int j = 0; j < kMmaAccumulators; ++j)
        total += (acc[j][0] + acc[j][1]) + (acc[j][2] + acc[j][3]);
    if (total == 1.0f) /* an exact 1 from these sums is not expected; a store then is harmless */
        *sink = total;
}

/* ---- GELU: what the fused epilogue does per output, gelu(v) added into a running sum ---- */
constexpr int kGeluThreads = 256;
constexpr int kGeluChains = 4;

template <bool kFast> __device__ __forceinline__ float probe_gelu_eval(float v)
{
    return kFast ? gelu_fast(v) : gelu_erff(v);
}

template <bool kFast>
__global__ void __launch_bounds__(kGeluThreads) gelu_probe_kernel(int iters, float step, float *__restrict__ sink)
{
    /* start in [-3, 3) from a multiplicative hash of the thread index, so that neighbouring lanes
     * hold unrelated values, as convolution outputs do; each thread then drifts by step */
    const uint32_t thread = blockIdx.x * kGeluThreads + threadIdx.x;
    float v = -3.0f + 6.0f * (float)((thread * 2654435761u) >> 8) * (1.0f / 16777216.0f);
    float offset[kGeluChains], acc[kGeluChains];
#pragma unroll
    for (int k = 0; k < kGeluChains; ++k) {
        offset[k] = (float)k * step;
        acc[k] = 0.0f;
    }
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < kGeluChains; ++k)
            acc[k] += probe_gelu_eval<kFast>(v + offset[k]);
        v += kGeluChains * step;
    }
    const float total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    if (total == 1.0f) /* an exact 1 is not expected; a store then is harmless */
        *sink = total;
}

/* ---- MUFU: kMufuChains independent chains per thread, v = ex2(-v) (MUFU.EX2 with a negated operand: v
 * stays in [0.5, 1]) or v = rcp(v) + 1 (MUFU.RCP and an FADD, which the FP32 pipe does at 8 times the MUFU
 * rate; without the add ptxas folds rcp(rcp(v)) into v), inline PTX with .ftz: one MUFU instruction each,
 * no denormal handling around it ---- */
constexpr int kMufuThreads = 256;
constexpr int kMufuChains = 8;
constexpr int kMufuUnroll = 16;

template <bool kRcp> __device__ __forceinline__ float mufu_op(float v)
{
    float r;
    if (kRcp)
        asm("rcp.approx.ftz.f32 %0, %1;\nadd.ftz.f32 %0, %0, 1.0;" : "=f"(r) : "f"(v));
    else
        asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(-v));
    return r;
}

template <bool kRcp> __global__ void __launch_bounds__(kMufuThreads) mufu_probe_kernel(int iters, float *__restrict__ sink)
{
    float v[kMufuChains];
#pragma unroll
    for (int c = 0; c < kMufuChains; ++c)
        v[c] = 0.5f + (float)((threadIdx.x + 7 * c) % 64) * (1.0f / 128.0f); /* in [0.5, 1) */
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < kMufuUnroll; ++u) {
#pragma unroll
            for (int c = 0; c < kMufuChains; ++c)
                v[c] = mufu_op<kRcp>(v[c]);
        }
    }
    float total = 0.0f;
#pragma unroll
    for (int c = 0; c < kMufuChains; ++c)
        total += v[c];
    if (total == 1.0f) /* an exact 1 from these sums is not expected; a store then is harmless */
        *sink = total;
}

/* ---- shared memory: 16-byte loads (ld.volatile.shared.v4: ptxas merges none), a warp's 32 loads
 * covering 512 contiguous bytes (no bank conflict beyond the 4 wavefronts 512 bytes take), the words folded
 * into two XOR sums ---- */
constexpr int kSmemThreads = 256;
constexpr int kSmemLoads = 16;                       /* per loop trip */
constexpr int kSmemWords = 4096;                     /* 16 KiB a block: 8 blocks fit in an SM */
constexpr int kSmemRowBytes = kSmemThreads * 16;     /* one load of every thread */
constexpr int kSmemRows = kSmemWords * 4 / kSmemRowBytes;

__global__ void __launch_bounds__(kSmemThreads) smem_probe_kernel(int iters, unsigned *__restrict__ sink)
{
    __shared__ __align__(16) uint32_t buffer[kSmemWords];
    for (int i = threadIdx.x; i < kSmemWords; i += kSmemThreads)
        buffer[i] = (uint32_t)(i + 1) * 2654435761u;
    __syncthreads();
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(buffer) + threadIdx.x * 16u;
    uint32_t x0 = 0, x1 = 0;
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < kSmemLoads; ++k) {
            uint32_t a, b, c, d;
            asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                         : "r"(base + (uint32_t)((k % kSmemRows) * kSmemRowBytes)));
            x0 ^= a ^ b;
            x1 ^= c ^ d;
        }
    }
    if ((x0 ^ x1) == 0x9E3779B9u) /* the XOR of the words read: not expected to be this; a store then is harmless */
        *sink = x0;
}

} // namespace

extern "C" cudaError_t probe_copy(const float *src, float *dst, int64_t count, double *work, cudaStream_t s)
{
    const int64_t vectors = count / 4;
    const int64_t blocks = (vectors + kCopyThreads * kCopyUnroll - 1) / (kCopyThreads * kCopyUnroll);
    if (count <= 0 || count % 4 != 0 || blocks > INT32_MAX || ((uintptr_t)src | (uintptr_t)dst) % 16 != 0)
        return cudaErrorInvalidValue;
    *work = 8.0 * (double)count; /* 4 bytes read and 4 written per float */
    copy_probe_kernel<<<(unsigned)blocks, kCopyThreads, 0, s>>>(reinterpret_cast<const float4 *>(src),
                                                                reinterpret_cast<float4 *>(dst), vectors);
    return cudaGetLastError();
}

extern "C" cudaError_t probe_l2_read(const float *buf, int64_t vectors, int trips, int blocks, float *sink,
                                     double *work, cudaStream_t s)
{
    const int64_t loads = (int64_t)trips * kL2Unroll * blocks * kL2Threads;
    if (vectors < 1 || (vectors & (vectors - 1)) != 0 || vectors > ((int64_t)1 << 31) || trips < 1 || blocks < 1 ||
        loads >= ((int64_t)1 << 31) || (uintptr_t)buf % 16 != 0)
        return cudaErrorInvalidValue;
    *work = 16.0 * (double)loads;
    l2_read_probe_kernel<<<blocks, kL2Threads, 0, s>>>(reinterpret_cast<const float4 *>(buf),
                                                      (uint32_t)(vectors - 1), trips, sink);
    return cudaGetLastError();
}

extern "C" cudaError_t probe_ffma(int blocks, int iters, float *sink, double *work, cudaStream_t s)
{
    if (blocks < 1 || iters < 1)
        return cudaErrorInvalidValue;
    *work = 2.0 * kFfmaChains * kFfmaUnroll * (double)iters * (double)blocks * kFfmaThreads;
    ffma_probe_kernel<<<blocks, kFfmaThreads, 0, s>>>(iters, 0.999f, 0.001f, sink);
    return cudaGetLastError();
}

extern "C" cudaError_t probe_tf32_mma(int blocks, int iters, float *sink, double *work, cudaStream_t s)
{
    if (blocks < 1 || iters < 1)
        return cudaErrorInvalidValue;
    *work = kMmaFlops * kMmaAccumulators * (double)iters * (double)blocks * (kMmaThreads / 32);
    tf32_mma_probe_kernel<<<blocks, kMmaThreads, 0, s>>>(iters, 1.0f / 64.0f, 1.0f / 64.0f, sink);
    return cudaGetLastError();
}

extern "C" cudaError_t probe_gelu(int fast, int blocks, int iters, float *sink, double *work, cudaStream_t s)
{
    if (blocks < 1 || iters < 1)
        return cudaErrorInvalidValue;
    *work = (double)kGeluChains * (double)iters * (double)blocks * kGeluThreads;
    const float step = 1.0f / ((float)iters * kGeluChains); /* each thread drifts by 1 in all */
    if (fast)
        gelu_probe_kernel<true><<<blocks, kGeluThreads, 0, s>>>(iters, step, sink);
    else
        gelu_probe_kernel<false><<<blocks, kGeluThreads, 0, s>>>(iters, step, sink);
    return cudaGetLastError();
}

extern "C" cudaError_t probe_smem(int blocks, int iters, unsigned *sink, double *work, cudaStream_t s)
{
    if (blocks < 1 || iters < 1)
        return cudaErrorInvalidValue;
    *work = 16.0 * kSmemLoads * (double)iters * (double)blocks * kSmemThreads;
    smem_probe_kernel<<<blocks, kSmemThreads, 0, s>>>(iters, sink);
    return cudaGetLastError();
}

extern "C" cudaError_t probe_mufu(int rcp, int blocks, int iters, float *sink, double *work, cudaStream_t s)
{
    if (blocks < 1 || iters < 1)
        return cudaErrorInvalidValue;
    *work = (double)kMufuChains * kMufuUnroll * (double)iters * (double)blocks * kMufuThreads;
    if (rcp)
        mufu_probe_kernel<true><<<blocks, kMufuThreads, 0, s>>>(iters, sink);
    else
        mufu_probe_kernel<false><<<blocks, kMufuThreads, 0, s>>>(iters, sink);
    return cudaGetLastError();
}
