/*
 * reference_gpu.cu - naive fp64 GPU reference of the fused operation (see host/bench/reference_gpu.h).
 * Kernel 1: a block sums GELU(conv + bias) in double over one chunk of the output pixels of one
 * (n, c) plane, one thread per pixel, then a fixed-order tree reduction in shared memory.
 * Kernel 2: adds the chunks of each (n, c) in order and divides by the pixel count.
 * round_tf32: the operands of the tf32 rows' reference, rounded as the kernels round them.
 */
#include "conv3x3_point.cuh"
#include "reference_gpu.h"
#include "tf32_round.h"

#define REF_THREADS 256
#define REF_PIXELS_PER_THREAD 8
#define REF_CHUNK (REF_THREADS * REF_PIXELS_PER_THREAD)

static int64_t ref_chunks(int64_t hout, int64_t wout) { return (hout * wout + REF_CHUNK - 1) / REF_CHUNK; }

extern "C" size_t reference_gpu_scratch_bytes(int64_t n, int64_t cout, int64_t hout, int64_t wout)
{
    return (size_t)(n * cout * ref_chunks(hout, wout)) * sizeof(double);
}

__device__ double ref_gelu(double v) { return 0.5 * v * (1.0 + erf(v * 0.70710678118654752440)); }

__global__ void ref_chunk_sums(const float *__restrict__ x, const float *__restrict__ w,
                               const float *__restrict__ b, int64_t n_total, int64_t cin, int64_t cout,
                               int64_t h, int64_t wd, int pad, int64_t hout, int64_t wout, int64_t chunks,
                               double *__restrict__ chunk_sums)
{
    __shared__ double partial[REF_THREADS];
    const int64_t planes = n_total * cout;
    for (int64_t plane = blockIdx.y; plane < planes; plane += gridDim.y) {
        const int64_t n = plane / cout, c = plane % cout;
        const float *xn = x + n * cin * h * wd;
        const float *wc = w + c * cin * 9;
        double sum = 0.0;
        for (int k = 0; k < REF_PIXELS_PER_THREAD; ++k) {
            const int64_t pix = (int64_t)blockIdx.x * REF_CHUNK + (int64_t)k * REF_THREADS + threadIdx.x;
            if (pix >= hout * wout)
                break;
            const int64_t oy = pix / wout, ox = pix % wout;
            const double acc = conv3x3_point(xn, wc, cin, h, wd, oy, ox, pad, (double)b[c]);
            sum += ref_gelu(acc);
        }
        partial[threadIdx.x] = sum;
        __syncthreads();
        for (int stride = REF_THREADS / 2; stride > 0; stride /= 2) {
            if (threadIdx.x < stride)
                partial[threadIdx.x] += partial[threadIdx.x + stride];
            __syncthreads();
        }
        if (threadIdx.x == 0)
            chunk_sums[plane * chunks + blockIdx.x] = partial[0];
        __syncthreads();
    }
}

__global__ void ref_finish(const double *__restrict__ chunk_sums, int64_t planes, int64_t chunks,
                           double inv_count, double *__restrict__ y)
{
    for (int64_t plane = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; plane < planes;
         plane += (int64_t)gridDim.x * blockDim.x) {
        double total = 0.0;
        for (int64_t k = 0; k < chunks; ++k)
            total += chunk_sums[plane * chunks + k];
        y[plane] = total * inv_count;
    }
}

extern "C" cudaError_t reference_gpu_forward(const float *x, const float *w, const float *b, int64_t n,
                                             int64_t cin, int64_t cout, int64_t h, int64_t wd, int pad,
                                             double *y, void *scratch, cudaStream_t stream)
{
    const int64_t hout = h + 2 * pad - 2, wout = wd + 2 * pad - 2;
    if (hout < 1 || wout < 1)
        return cudaErrorInvalidValue;
    const int64_t chunks = ref_chunks(hout, wout), planes = n * cout;
    if (chunks > 0x7fffffff)
        return cudaErrorInvalidValue;
    dim3 grid((unsigned)chunks, (unsigned)(planes < 65535 ? planes : 65535));
    ref_chunk_sums<<<grid, REF_THREADS, 0, stream>>>(x, w, b, n, cin, cout, h, wd, pad, hout, wout, chunks,
                                                     static_cast<double *>(scratch));
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    const int64_t finish_blocks = (planes + 255) / 256;
    ref_finish<<<(unsigned)(finish_blocks < 65535 ? finish_blocks : 65535), 256, 0, stream>>>(
        static_cast<const double *>(scratch), planes, chunks, 1.0 / ((double)hout * (double)wout), y);
    return cudaGetLastError();
}

__global__ void round_tf32_kernel(const float *in, float *out, int64_t count)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x)
        out[i] = tf32_round(in[i]);
}

extern "C" cudaError_t reference_gpu_round_tf32(const float *in, float *out, int64_t count, cudaStream_t stream)
{
    const int64_t blocks = (count + 255) / 256;
    round_tf32_kernel<<<(unsigned)(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(in, out, count);
    return cudaGetLastError();
}
