/*
 * baseline_epilogue.cu - the reduction half of the unfused baselines (launchers declared in
 * host/bench/baselines.h). One block per (n, c) plane of an NCHW fp32 tensor computes
 *     baseline_bias_gelu_mean:  y[n, c] = mean over the plane of gelu_fast(v + bias[c])
 *     baseline_plane_mean:      y[n, c] = mean over the plane of v
 * The first follows a cuDNN convolution (bias, GELU and mean in one memory-bound pass over the
 * intermediate); the second ends the plain CUDA pipeline, whose GELU ran in place before it.
 *
 * The plane is read once with 16-byte streaming loads (__ldcs: it is not read again); a scalar
 * head and tail cover planes that do not start or end on a 16-byte boundary. Every thread adds
 * its elements in a fixed order (four in float, then into a double), and the block adds the
 * threads with a fixed shuffle tree and a fixed pass over the warps, so y is bit-identical run
 * to run. Tested through the bench rows in tests/gpu/gpu_baselines.c.
 */
#include <stdint.h>

#include "baselines.h"
#include "gelu.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kUnroll = 4; /* 16-byte loads in flight per thread */

template <bool kBiasGelu> __device__ __forceinline__ float element(float v, float bias)
{
    return kBiasGelu ? gelu_fast(v + bias) : v;
}

template <bool kBiasGelu> __device__ __forceinline__ float element4(float4 q, float bias)
{
    return (element<kBiasGelu>(q.x, bias) + element<kBiasGelu>(q.y, bias)) +
           (element<kBiasGelu>(q.z, bias) + element<kBiasGelu>(q.w, bias));
}

template <bool kBiasGelu>
__global__ void __launch_bounds__(kThreads)
    plane_mean_kernel(const float *__restrict__ in, const float *__restrict__ bias, float *__restrict__ y,
                      int64_t cout, int64_t plane_size, double inv_count)
{
    const int64_t plane = blockIdx.x;
    const float *src = in + plane * plane_size;
    const float b = kBiasGelu ? __ldg(&bias[plane % cout]) : 0.0f;

    /* floats before the first 16-byte boundary, whole float4s, then the rest */
    const int64_t past_boundary = (int64_t)((reinterpret_cast<uintptr_t>(src) >> 2) & 3);
    const int64_t head = min(plane_size, (4 - past_boundary) & 3);
    const int64_t vectors = (plane_size - head) >> 2;
    const int64_t tail_start = head + 4 * vectors;

    double acc = 0.0;
    if (threadIdx.x < head)
        acc += (double)element<kBiasGelu>(src[threadIdx.x], b);
    const float4 *vec = reinterpret_cast<const float4 *>(src + head);
    int64_t i = threadIdx.x;
    for (; i + (kUnroll - 1) * kThreads < vectors; i += kUnroll * kThreads) {
        float4 q[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
            q[u] = __ldcs(vec + i + u * kThreads);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
            acc += (double)element4<kBiasGelu>(q[u], b);
    }
    for (; i < vectors; i += kThreads)
        acc += (double)element4<kBiasGelu>(__ldcs(vec + i), b);
    if (threadIdx.x < plane_size - tail_start)
        acc += (double)element<kBiasGelu>(src[tail_start + threadIdx.x], b);

    __shared__ double warp_sums[kWarps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (lane == 0)
        warp_sums[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        double total = lane < kWarps ? warp_sums[lane] : 0.0;
#pragma unroll
        for (int offset = kWarps / 2; offset > 0; offset >>= 1)
            total += __shfl_down_sync(0xffffffffu, total, offset);
        if (lane == 0)
            y[plane] = (float)(total * inv_count);
    }
}

template <bool kBiasGelu>
cudaError_t launch_plane_mean(const float *in, const float *bias, float *y, int64_t planes, int64_t cout,
                              int64_t plane_size, cudaStream_t s)
{
    if (planes < 1 || planes > INT32_MAX || plane_size < 1 || cout < 1)
        return cudaErrorInvalidValue;
    plane_mean_kernel<kBiasGelu><<<(unsigned)planes, kThreads, 0, s>>>(in, bias, y, cout, plane_size,
                                                                       1.0 / (double)plane_size);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t baseline_bias_gelu_mean(const float *in, const float *bias, float *y, int64_t planes,
                                               int64_t cout, int64_t plane_size, cudaStream_t s)
{
    return launch_plane_mean<true>(in, bias, y, planes, cout, plane_size, s);
}

extern "C" cudaError_t baseline_plane_mean(const float *in, float *y, int64_t planes, int64_t plane_size,
                                           cudaStream_t s)
{
    return launch_plane_mean<false>(in, nullptr, y, planes, 1, plane_size, s);
}
