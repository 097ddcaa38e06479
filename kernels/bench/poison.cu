/* poison.cu - the output prefill of host/bench/poison.h: every word of y set to CHECK_UNWRITTEN_BITS. */
#include "check.h"
#include "poison.h"

__global__ void poison_kernel(unsigned *y, int64_t count)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x)
        y[i] = CHECK_UNWRITTEN_BITS;
}

extern "C" cudaError_t poison_outputs(float *y, int64_t count, cudaStream_t stream)
{
    if (count <= 0)
        return cudaSuccess;
    const int64_t blocks = (count + 255) / 256;
    poison_kernel<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(reinterpret_cast<unsigned *>(y),
                                                                               count);
    return cudaGetLastError();
}
