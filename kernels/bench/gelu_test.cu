/*
 * gelu_test.cu - the exhaustive accuracy sweep behind tests/gpu/gpu_gelu.c: every one of the 2^32 float
 * bit patterns through gelu_fast (or gelu_erff, gelu_tf32, gelu_x2, gelu_x2_fine), compared with a
 * double-precision erf GELU. The bound is max(8 ulp, 2^-26), or for gelu_tf32 and gelu_x2 (which returns twice
 * the GELU, halved here) 2^-20 absolute, for gelu_x2_fine (twice the GELU too) 2^-21 absolute.
 * which: 0 gelu_fast, 1 gelu_erff, 2 gelu_tf32, 3 gelu_x2, 4 gelu_x2_fine.
 * Each thread keeps its worst case; blocks fold them with 64-bit atomicMax on (error bits << 32 |
 * input bits), so the result is the worst error and an input that produces it.
 */
#include "gelu.cuh"
#include "gelu_test.h"

__device__ __forceinline__ double gelu_double(double v) { return 0.5 * v * (1.0 + erf(v * 0.70710678118654752440)); }

/* ulp of a float of magnitude |r| (as a double); denormals have the smallest normal ulp's spacing */
__device__ __forceinline__ double ulp_of(double r)
{
    const double m = fabs(r);
    const int e = m < 1.1754943508222875e-38 ? -126 : ilogb(m);
    return ldexp(1.0, e - 23);
}

template <int kWhich> __device__ __forceinline__ float gelu_which(float v)
{
    return kWhich == 0 ? gelu_fast(v) : kWhich == 1 ? gelu_erff(v) : kWhich == 2 ? gelu_tf32(v)
           : kWhich == 3                                                       ? gelu_x2(v)
                                                                               : gelu_x2_fine(v);
}

/* gelu_which's result (gelu_x2's and gelu_x2_fine's halved) and the GELU in double */
template <int kWhich> __device__ __forceinline__ void result_and_reference(float in, double &got, double &want)
{
    const float g = gelu_which<kWhich>(in);
    got = kWhich >= 3 ? 0.5 * (double)g : (double)g;
    want = gelu_double((double)in);
    if (kWhich >= 3 && in > 0x1.fffffep126f) /* v + |v| overflows: +inf, as a float sum of such v would */
        want = INFINITY;
}

template <int kWhich>
__global__ void gelu_sweep(unsigned long long *worst_ratio, unsigned long long *worst_ulp, unsigned *mismatches)
{
    unsigned long long best_ratio = 0, best_ulp = 0;
    unsigned bad = 0;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < (1ull << 32); i += stride) {
        const unsigned bits = (unsigned)i;
        const float v = __uint_as_float(bits);
        double got, want;
        result_and_reference<kWhich>(v, got, want);
        if (isnan(want) || isinf(want)) { /* NaN -> NaN, +inf -> +inf, -inf -> NaN: exactly */
            const bool same = isnan(want) ? isnan(got) : got == want;
            bad += !same;
            continue;
        }
        if (!isfinite(got)) {
            ++bad;
            continue;
        }
        const double err = fabs(got - want);
        const double bound = kWhich == 2   ? (double)GELU_TF32_ABS_BOUND
                             : kWhich == 3 ? (double)GELU_X2_ABS_BOUND
                             : kWhich == 4 ? (double)GELU_X2_FINE_ABS_BOUND
                                           : fmax(8.0 * ulp_of(want), 1.4901161193847656e-08); /* 2^-26 */
        const double ratio = err / bound;
        const double ulps = err / ulp_of(want);
        const unsigned long long r = ((unsigned long long)__float_as_uint((float)ratio) << 32) | bits;
        const unsigned long long u = ((unsigned long long)__float_as_uint((float)ulps) << 32) | bits;
        best_ratio = r > best_ratio ? r : best_ratio;
        best_ulp = (8.0 * ulp_of(want) >= 1.4901161193847656e-08 && u > best_ulp) ? u : best_ulp; /* where 8 ulp governs */
    }
    atomicMax(worst_ratio, best_ratio);
    atomicMax(worst_ulp, best_ulp);
    atomicAdd(mismatches, bad);
}

/* gelu_sweep and gelu_points for each `which` (0 .. kWhichCount - 1) */
using SweepKernel = void (*)(unsigned long long *, unsigned long long *, unsigned *);
static const SweepKernel sweep_kernels[] = {gelu_sweep<0>, gelu_sweep<1>, gelu_sweep<2>, gelu_sweep<3>, gelu_sweep<4>};
constexpr int kWhichCount = (int)(sizeof(sweep_kernels) / sizeof(sweep_kernels[0]));

extern "C" cudaError_t gelu_exhaustive(int which, gelu_sweep_result *out)
{
    if (which < 0 || which >= kWhichCount)
        return cudaErrorInvalidValue;
    unsigned long long *d = NULL;
    cudaError_t e = cudaMalloc((void **)&d, 3 * sizeof(unsigned long long));
    if (e != cudaSuccess)
        return e;
    int sms = 0, dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    unsigned long long h[3] = {0, 0, 0};
    if ((e = cudaMemset(d, 0, 3 * sizeof(unsigned long long))) == cudaSuccess) {
        sweep_kernels[which]<<<sms * 8, 256>>>(d, d + 1, reinterpret_cast<unsigned *>(d + 2));
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaFree(d);
    if (e != cudaSuccess)
        return e;
    unsigned r_bits = (unsigned)(h[0] >> 32), u_bits = (unsigned)(h[1] >> 32);
    memcpy(&out->worst_ratio, &r_bits, 4);
    memcpy(&out->worst_ulp, &u_bits, 4);
    const unsigned in_r = (unsigned)h[0], in_u = (unsigned)h[1];
    memcpy(&out->worst_ratio_input, &in_r, 4);
    memcpy(&out->worst_ulp_input, &in_u, 4);
    out->special_mismatches = (unsigned)h[2];
    return cudaSuccess;
}

template <int kWhich> __global__ void gelu_points(const float *in, float *out, int count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        out[i] = gelu_which<kWhich>(in[i]);
}

using PointsKernel = void (*)(const float *, float *, int);
static const PointsKernel points_kernels[] = {gelu_points<0>, gelu_points<1>, gelu_points<2>, gelu_points<3>,
                                              gelu_points<4>};
static_assert(sizeof(points_kernels) / sizeof(points_kernels[0]) == kWhichCount, "one points kernel per GELU");

extern "C" cudaError_t gelu_evaluate(int which, const float *in_host, float *out_host, int count)
{
    if (which < 0 || which >= kWhichCount)
        return cudaErrorInvalidValue;
    float *d = NULL;
    cudaError_t e = cudaMalloc((void **)&d, 2 * sizeof(float) * (size_t)count);
    if (e != cudaSuccess)
        return e;
    if ((e = cudaMemcpy(d, in_host, sizeof(float) * (size_t)count, cudaMemcpyHostToDevice)) == cudaSuccess) {
        points_kernels[which]<<<(count + 255) / 256, 256>>>(d, d + count, count);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cudaMemcpy(out_host, d + count, sizeof(float) * (size_t)count, cudaMemcpyDeviceToHost);
    cudaFree(d);
    return e;
}
