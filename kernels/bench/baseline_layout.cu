/*
 * baseline_layout.cu - NCHW -> NHWC for the cuDNN graph baseline (launcher declared in
 * host/bench/baselines.h), whose fused engines want channels-last tensors: dst (n, hw, c) = src (n, c, hw).
 * The same call turns weights (K, C, 3, 3) into (K, 3, 3, C) with n = K, hw = 9.
 *
 * A block moves a tile of up to 32 channels x 128 pixels of one image through shared memory:
 * it reads 128 consecutive pixels of each channel, then writes each pixel's channels, which for
 * C <= 32 makes the whole tile one contiguous run of the output. Tested against a host
 * transpose in tests/gpu/gpu_baselines.c.
 */
#include <stdint.h>

#include "baselines.h"

namespace {

constexpr int kTileChannels = 32;
constexpr int kTilePixels = 128;
constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    nchw_to_nhwc_kernel(const float *__restrict__ src, float *__restrict__ dst, int64_t c, int64_t hw,
                        int64_t pixel_tiles)
{
    __shared__ float tile[kTileChannels][kTilePixels + 1];
    const int64_t image = blockIdx.x / pixel_tiles;
    const int64_t p0 = (blockIdx.x % pixel_tiles) * kTilePixels;
    const int64_t c0 = (int64_t)blockIdx.y * kTileChannels;
    const int pixels = (int)min((int64_t)kTilePixels, hw - p0);
    const int channels = (int)min((int64_t)kTileChannels, c - c0);

    const float *from = src + (image * c + c0) * hw + p0;
    for (int i = threadIdx.x; i < channels * kTilePixels; i += kThreads) {
        const int ch = i / kTilePixels, px = i % kTilePixels;
        if (px < pixels)
            tile[ch][px] = __ldcs(from + (int64_t)ch * hw + px);
    }
    __syncthreads();
    float *to = dst + (image * hw + p0) * c + c0;
    for (int i = threadIdx.x; i < pixels * channels; i += kThreads) {
        const int px = i / channels, ch = i % channels;
        to[(int64_t)px * c + ch] = tile[ch][px];
    }
}

} // namespace

extern "C" cudaError_t baseline_nchw_to_nhwc(const float *src, float *dst, int64_t n, int64_t c, int64_t hw,
                                             cudaStream_t s)
{
    if (n < 1 || c < 1 || hw < 1)
        return cudaErrorInvalidValue;
    const int64_t pixel_tiles = (hw + kTilePixels - 1) / kTilePixels;
    const int64_t channel_tiles = (c + kTileChannels - 1) / kTileChannels;
    if (pixel_tiles > INT32_MAX / n || channel_tiles > 65535)
        return cudaErrorInvalidValue;
    const dim3 grid((unsigned)(n * pixel_tiles), (unsigned)channel_tiles);
    nchw_to_nhwc_kernel<<<grid, kThreads, 0, s>>>(src, dst, c, hw, pixel_tiles);
    return cudaGetLastError();
}
