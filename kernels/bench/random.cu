/*
 * random.cu - device side of host/bench/rng.h: fills a device tensor with lo + (hi - lo) * u where
 * u = rng_unit(seed, i), bit-identical to rng_fill_uniform on the host; or with N(0, 1) numbers
 * (Box-Muller of two such draws; device only, for `cgp check --dist normal`). Used to make inputs
 * of any size in place (the default input is 268 MB).
 */
#include "rng.h"

#include <cuda_runtime_api.h>

__global__ void fill_uniform_kernel(float *__restrict__ out, int64_t count, float lo, float span, uint64_t seed)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x)
        out[i] = __fmaf_rn(rng_unit(seed, (uint64_t)i), span, lo);
}

extern "C" cudaError_t random_fill_uniform(float *out, int64_t count, float lo, float hi, uint64_t seed,
                                           cudaStream_t stream)
{
    const int64_t blocks = (count + 255) / 256;
    fill_uniform_kernel<<<(unsigned)(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(out, count, lo, hi - lo,
                                                                                     seed);
    return cudaGetLastError();
}

/* z = sqrt(-2 ln u1) cos(2 pi u2): u1 = draw 2i + 2^-24 (in (0, 1]: the log is finite), u2 = draw 2i + 1 */
__global__ void fill_normal_kernel(float *__restrict__ out, int64_t count, uint64_t seed)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x) {
        const float u1 = rng_unit(seed, 2 * (uint64_t)i) + 1.0f / 16777216.0f, u2 = rng_unit(seed, 2 * (uint64_t)i + 1);
        out[i] = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    }
}

extern "C" cudaError_t random_fill_normal(float *out, int64_t count, uint64_t seed, cudaStream_t stream)
{
    const int64_t blocks = (count + 255) / 256;
    fill_normal_kernel<<<(unsigned)(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(out, count, seed);
    return cudaGetLastError();
}
