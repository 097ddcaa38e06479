/*
 * random.cu - device side of host/bench/rng.h: fills a device tensor with lo + (hi - lo) * u where
 * u = rng_unit(seed, i), bit-identical to rng_fill_uniform on the host. Used to make inputs
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
