/*
 * baseline_unfused.cu - the plain CUDA unfused pipeline's first two kernels (launchers declared
 * in host/bench/baselines.h; host/bench/variants_unfused.c runs them, then baseline_plane_mean):
 *   1. direct convolution, one thread per output pixel, writing the NCHW intermediate + bias;
 *   2. GELU (gelu_fast, the project's GELU) in place over the intermediate, 16-byte accesses.
 * Deliberately the textbook way, with no tiling or data reuse beyond what the caches give: the
 * row shows what a straightforward three-kernel implementation costs. Tested through the bench
 * row in tests/gpu/gpu_baselines.c.
 */
#include <stdint.h>

#include "baselines.h"
#include "conv3x3_point.cuh"
#include "gelu.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 1 << 22; /* grid-stride beyond this */

__global__ void __launch_bounds__(kThreads)
    direct_conv_bias_kernel(const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ b,
                            float *__restrict__ out, int64_t cin, int64_t cout, int64_t h, int64_t wd, int64_t hout,
                            int64_t wout, int pad, int64_t total)
{
    for (int64_t idx = (int64_t)blockIdx.x * kThreads + threadIdx.x; idx < total;
         idx += (int64_t)gridDim.x * kThreads) {
        const int64_t ox = idx % wout;
        int64_t rest = idx / wout;
        const int64_t oy = rest % hout;
        rest /= hout;
        const int64_t co = rest % cout, n = rest / cout;
        const float *xn = x + n * cin * h * wd;
        const float *wc = w + co * cin * 9;
        const float acc = conv3x3_point(xn, wc, cin, h, wd, oy, ox, pad, 0.0f);
        out[idx] = acc + b[co];
    }
}

__global__ void __launch_bounds__(kThreads) gelu_inplace_kernel(float *__restrict__ data, int64_t count)
{
    const int64_t stride = (int64_t)gridDim.x * kThreads;
    const int64_t first = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    float4 *vec = reinterpret_cast<float4 *>(data);
    const int64_t vectors = count / 4;
    for (int64_t i = first; i < vectors; i += stride) {
        float4 q = vec[i];
        q.x = gelu_fast(q.x);
        q.y = gelu_fast(q.y);
        q.z = gelu_fast(q.z);
        q.w = gelu_fast(q.w);
        vec[i] = q;
    }
    for (int64_t i = 4 * vectors + first; i < count; i += stride)
        data[i] = gelu_fast(data[i]);
}

unsigned blocks_for(int64_t items)
{
    const int64_t blocks = (items + kThreads - 1) / kThreads;
    return (unsigned)(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

} // namespace

extern "C" cudaError_t baseline_direct_conv_bias(const float *x, const float *w, const float *b, float *out,
                                                 int64_t n, int64_t cin, int64_t cout, int64_t h, int64_t wd,
                                                 int pad, cudaStream_t s)
{
    const int64_t hout = h + 2 * pad - 2, wout = wd + 2 * pad - 2;
    if (n < 1 || cin < 1 || cout < 1 || hout < 1 || wout < 1 || (pad != 0 && pad != 1))
        return cudaErrorInvalidValue;
    const int64_t total = n * cout * hout * wout;
    direct_conv_bias_kernel<<<blocks_for(total), kThreads, 0, s>>>(x, w, b, out, cin, cout, h, wd, hout, wout, pad,
                                                                   total);
    return cudaGetLastError();
}

extern "C" cudaError_t baseline_gelu_inplace(float *data, int64_t count, cudaStream_t s)
{
    if (count < 1 || (reinterpret_cast<uintptr_t>(data) & 15) != 0)
        return cudaErrorInvalidValue;
    gelu_inplace_kernel<<<blocks_for((count + 3) / 4), kThreads, 0, s>>>(data, count);
    return cudaGetLastError();
}
