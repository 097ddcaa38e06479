/*
 * conv3x3_point.cuh - the textbook 3x3 convolution at one output pixel (tool layer), shared by the plain unfused
 * baseline (baseline_unfused.cu, fp32) and the naive GPU reference (reference_gpu.cu, fp64): no tiling, no reuse
 * beyond what the caches give.
 *
 *   conv3x3_point<T>(xn, wc, cin, h, wd, oy, ox, pad, acc)   acc plus sum over ci, ky, kx of
 *       xn[ci][oy + ky - pad][ox + kx - pad] * wc[ci][ky][kx], taps outside the image skipped; each product
 *       added by one fused multiply-add in T (float or double), in the order ci, ky, kx
 */
#ifndef CGP_CONV3X3_POINT_CUH
#define CGP_CONV3X3_POINT_CUH

#include <stdint.h>

template <class T>
__device__ __forceinline__ T conv3x3_point(const float *xn, const float *wc, int64_t cin, int64_t h, int64_t wd,
                                           int64_t oy, int64_t ox, int pad, T acc)
{
    for (int64_t ci = 0; ci < cin; ++ci) {
        for (int ky = 0; ky < 3; ++ky) {
            const int64_t iy = oy + ky - pad;
            if (iy < 0 || iy >= h)
                continue;
            for (int kx = 0; kx < 3; ++kx) {
                const int64_t ix = ox + kx - pad;
                if (ix >= 0 && ix < wd)
                    acc = fma((T)xn[(ci * h + iy) * wd + ix], (T)wc[ci * 9 + ky * 3 + kx], acc);
            }
        }
    }
    return acc;
}

#endif
