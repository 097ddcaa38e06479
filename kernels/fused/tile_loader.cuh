/*
 * tile_loader.cuh - the one loader of input windows into shared memory (cp.async), and the static persistent
 * tile schedule (library layer); the fp32 fast kernels and the wgmma kernels use both.
 *
 * load_window_async<kThreads, kCin, kRows, kPitch, Offset> starts the block's copies of the window of image n
 * whose top-left input pixel is (window_y, window_x) (negative for padding) into buf, laid out [ci][row][column]
 * (kCin x kRows x kPitch floats), zeros outside the image and in the channels from Cin (p.cin) to kCin; every
 * thread calls it, and commits after it.
 * With W and window_x multiples of 4 (every row of the window starts 16-byte aligned, and each 16 bytes are all
 * inside the image or all outside it: fp32-v9's shifted window starts at column -4 for padding same), in 16-byte
 * chunks, a fixed count a thread, kMaxUnroll of them unrolled at most; otherwise in 4-byte elements. Offset is
 * the type of offsets within an image: int where the version guarantees kCin x H x W < 2^31 (the wgmma kernels),
 * else int64_t.
 *
 * The persistent schedule gives block b the contiguous tiles [b*T/B, (b+1)*T/B) of all T tiles
 * (image-major), B = blocks_per_sm (default 1) x SMs, at most T. A block publishes each image it
 * touches once (reduction.cuh); image n's slots are blockIdx + n for the blocks that touch it,
 * unique and in a fixed order.
 */
#ifndef CGP_TILE_LOADER_CUH
#define CGP_TILE_LOADER_CUH

#include <stdint.h>
#include <type_traits>

#include "async_copy.cuh"
#include "kernel_api.h"
#include "reduction.cuh"

/* Starts this thread's copies of the window: see the banner. */
template <int kThreads, int kCin, int kRows, int kPitch, class Offset, int kMaxUnroll = 1 << 30>
__device__ __forceinline__ void load_window_async(float *buf, const float *x, const cgp_problem &p, int64_t n,
                                                  int64_t window_y, int64_t window_x)
{
    static_assert(kPitch % 4 == 0, "rows must stay 16-byte aligned");
    using Unsigned = std::make_unsigned_t<Offset>;
    const Offset h = (Offset)p.h, w = (Offset)p.w, iy0 = (Offset)window_y, ix0 = (Offset)window_x;
    const int cin = (int)p.cin; /* at most kCin */
    const float *image = x + n * cin * p.h * p.w;
    const uint32_t buf_addr = shared_address(buf);
    if (w % 4 == 0 && ix0 % 4 == 0) {
        constexpr int kLineChunks = kPitch / 4, kChunks = kCin * kRows * kLineChunks;
        constexpr int kIterations = (kChunks + kThreads - 1) / kThreads;
        constexpr int kUnroll = kIterations < kMaxUnroll ? kIterations : kMaxUnroll;
#pragma unroll kUnroll
        for (int j = 0; j < kIterations; ++j) {
            const int i = (int)threadIdx.x + j * kThreads;
            const int line = i / kLineChunks, col = 4 * (i % kLineChunks); /* line = ci * kRows + row */
            const Offset ci = line / kRows, iy = iy0 + line % kRows, ix = ix0 + col;
            const float *src = image + ci * h * w + iy * w + ix;
            const uint32_t dst = buf_addr + 4u * (uint32_t)(line * kPitch + col);
            const bool inside = ci < cin && (Unsigned)iy < (Unsigned)h && (Unsigned)ix < (Unsigned)w;
            if (i < kChunks)
                cp_async_16(dst, inside ? src : x, inside ? 16u : 0u); /* outside: 16 zeros, nothing read */
        }
    } else {
        constexpr int kElems = kCin * kRows * kPitch;
        for (int i = threadIdx.x; i < kElems; i += kThreads) {
            const int line = i / kPitch, col = i % kPitch;
            const Offset ci = line / kRows, iy = iy0 + line % kRows, ix = ix0 + col;
            const bool ok = ci < cin && (Unsigned)iy < (Unsigned)h && (Unsigned)ix < (Unsigned)w;
            cp_async_4(buf_addr + 4u * (uint32_t)i, ok ? image + ci * h * w + iy * w + ix : x, ok ? 4u : 0u);
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
