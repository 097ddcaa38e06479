/*
 * tile_loader.cuh - staging input windows in shared memory with cp.async, and the static
 * persistent tile schedule, shared by the fp32 fast kernels (the schedule also by the wgmma kernels).
 *
 * load_window_async copies the kCin x kRows x kPitch window of image n whose top-left input
 * pixel is (iy0, ix0) (negative for padding) into buf, zero-filling everything outside the image.
 * With ix0 and W multiples of 4 it moves 16-byte chunks; otherwise 4-byte elements.
 *
 * The persistent schedule gives block b the contiguous tiles [b*T/B, (b+1)*T/B) of all T tiles
 * (image-major), B = blocks_per_sm (default 1) x SMs, at most T. A block publishes each image it
 * touches once (reduction.cuh); image n's slots are blockIdx + n for the blocks that touch it,
 * unique and in a fixed order.
 */
#ifndef CGP_TILE_LOADER_CUH
#define CGP_TILE_LOADER_CUH

#include <stdint.h>
#include "kernel_api.h"
#include "reduction.cuh"

__device__ __forceinline__ void cp_async4(float *dst, const float *src, bool valid)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src), "r"(valid ? 4 : 0));
}

__device__ __forceinline__ void cp_async16(float *dst, const float *src)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

template <int kThreads, int kCin, int kRows, int kPitch>
__device__ void load_window_async(float *buf, const float *__restrict__ x, const cgp_problem &p, int64_t n,
                                  int64_t iy0, int64_t ix0, bool vector_ok)
{
    static_assert(kPitch % 4 == 0, "rows must stay 16-byte aligned");
    const float *xn = x + n * kCin * p.h * p.w;
    if (vector_ok) {
        for (int i = threadIdx.x; i < kCin * kRows * (kPitch / 4); i += kThreads) {
            const int chunk = i % (kPitch / 4), row = (i / (kPitch / 4)) % kRows, ci = i / ((kPitch / 4) * kRows);
            const int64_t iy = iy0 + row, ix = ix0 + 4 * chunk;
            float *dst = buf + (ci * kRows + row) * kPitch + 4 * chunk;
            const float *src = xn + ((int64_t)ci * p.h + iy) * p.w + ix;
            const bool row_ok = iy >= 0 && iy < p.h;
            if (row_ok && ix >= 0 && ix + 4 <= p.w) {
                cp_async16(dst, src);
            } else {
                for (int e = 0; e < 4; ++e) {
                    const bool ok = row_ok && ix + e >= 0 && ix + e < p.w;
                    cp_async4(dst + e, ok ? src + e : x, ok);
                }
            }
        }
    } else {
        for (int i = threadIdx.x; i < kCin * kRows * kPitch; i += kThreads) {
            const int col = i % kPitch, row = (i / kPitch) % kRows, ci = i / (kPitch * kRows);
            const int64_t iy = iy0 + row, ix = ix0 + col;
            const bool ok = iy >= 0 && iy < p.h && ix >= 0 && ix < p.w;
            cp_async4(buf + (ci * kRows + row) * kPitch + col, ok ? xn + ((int64_t)ci * p.h + iy) * p.w + ix : x, ok);
        }
    }
}

struct PersistentSchedule {
    int64_t tiles_x, tiles_per_image, total_tiles;
    int blocks;
};

static inline PersistentSchedule persistent_schedule(const cgp_problem *p, const cgp_device_info *d, int tile_h,
                                                     int tile_w, int blocks_per_sm = 1)
{
    PersistentSchedule g;
    g.tiles_x = (p->wout + tile_w - 1) / tile_w;
    g.tiles_per_image = g.tiles_x * ((p->hout + tile_h - 1) / tile_h);
    g.total_tiles = p->n * g.tiles_per_image;
    const int64_t blocks = (int64_t)(d->sm_count > 0 ? d->sm_count : 1) * blocks_per_sm;
    g.blocks = (int)(blocks < g.total_tiles ? blocks : g.total_tiles);
    return g;
}

/* det slots: block + image, at most blocks + N of them */
static inline size_t persistent_workspace_bytes(const cgp_problem *p, const PersistentSchedule &g)
{
    return (size_t)((g.blocks + p->n) * p->cout) * sizeof(double);
}

/* This block's tiles under the persistent schedule: [persistent_tile_begin(g), persistent_tile_end(g)) */
__device__ __forceinline__ int64_t persistent_tile_begin(const PersistentSchedule &g)
{
    return (int64_t)blockIdx.x * g.total_tiles / gridDim.x;
}

__device__ __forceinline__ int64_t persistent_tile_end(const PersistentSchedule &g)
{
    return ((int64_t)blockIdx.x + 1) * g.total_tiles / gridDim.x;
}

/* Image and top-left output pixel of tile t (tiles are image-major, row-major within an image). */
__device__ __forceinline__ void persistent_tile_origin(const PersistentSchedule &g, int64_t t, int tile_h, int tile_w,
                                                       int64_t &n, int64_t &oy0, int64_t &ox0)
{
    n = t / g.tiles_per_image;
    const int64_t rem = t % g.tiles_per_image;
    oy0 = (rem / g.tiles_x) * tile_h;
    ox0 = (rem % g.tiles_x) * tile_w;
}

/* This block's publication for image n under the persistent schedule. */
__device__ __forceinline__ ImageSlots persistent_image_slots(const PersistentSchedule &g, int64_t n)
{
    const int64_t first_block = (n * g.tiles_per_image * gridDim.x + gridDim.x - 1) / g.total_tiles;
    const int64_t last_block = ((n + 1) * g.tiles_per_image * gridDim.x - 1) / g.total_tiles;
    ImageSlots s;
    s.slot = blockIdx.x + n;
    s.first = first_block + n;
    s.count = last_block - first_block + 1;
    s.arrivals = (unsigned)s.count;
    return s;
}

#endif
