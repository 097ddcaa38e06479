/*
 * fused_fp32_generic.cu - the fp32 fused kernel for any shape (library layer): fp32-v1 (version 1), which runs
 * every problem the API accepts, so that fp32 has a version for the shapes fp32-v9 does not take.
 *
 * One block computes a 16 x 16 tile of output pixels for 8 output channels; one thread per pixel
 * holds the 8 channel accumulators. Input channels are staged 8 at a time in shared memory as
 * an 18 x 18 halo tile (zero-filled outside the image, which also gives padding 1), weights
 * beside it. Epilogue: bias, GELU, masked sum per channel (warp shuffles, then the 8 warps in
 * order), published to the in-launch reduction (reduction.cuh): slot = (n, tile).
 * Simple and shape-agnostic; the fast path for Cin = 8, Cout = 64 is fp32-v9 (fused_fp32_winograd.cu).
 */
#include "gelu.cuh"
#include "kernel_api.h"
#include "kernel_desc.cuh"
#include "path_names.cuh"
#include "path_record.cuh"
#include "reduction.cuh"

namespace {

constexpr int kTile = 16;          /* output tile edge, one thread per pixel */
constexpr int kHalo = kTile + 2;   /* input tile edge */
constexpr int kChannels = 8;       /* output channels per block */
constexpr int kInChannels = 8;     /* input channels staged per step */
constexpr int kThreads = kTile * kTile;
constexpr int kWarps = kThreads / 32;

struct GenericGeometry {
    int64_t tiles_x, tiles_per_image, channel_blocks;
};

GenericGeometry generic_geometry(const cgp_problem *p)
{
    GenericGeometry g;
    g.tiles_x = (p->wout + kTile - 1) / kTile;
    g.tiles_per_image = g.tiles_x * ((p->hout + kTile - 1) / kTile);
    g.channel_blocks = (p->cout + kChannels - 1) / kChannels;
    return g;
}

__global__ void __launch_bounds__(kThreads)
fused_fp32_generic(const float *__restrict__ x, const float *__restrict__ weight, const float *__restrict__ bias,
                   cgp_problem p, GenericGeometry g, ReduceArgs red, unsigned *path_record)
{
    record_path(path_record, CGP_PATH_GENERIC);
    __shared__ float in_s[kInChannels][kHalo][kHalo + 1];
    __shared__ float w_s[kChannels][kInChannels][9];
    __shared__ float warp_sums[kWarps][kChannels];
    __shared__ double block_sums[kChannels];

    const int64_t n = blockIdx.x / g.tiles_per_image;
    const int64_t tile = blockIdx.x % g.tiles_per_image;
    const int64_t oy0 = (tile / g.tiles_x) * kTile, ox0 = (tile % g.tiles_x) * kTile;
    const int64_t c0 = (int64_t)blockIdx.y * kChannels;
    const int nc = (int)min((int64_t)kChannels, p.cout - c0);
    const int tx = threadIdx.x % kTile, ty = threadIdx.x / kTile;

    float acc[kChannels];
#pragma unroll
    for (int c = 0; c < kChannels; ++c)
        acc[c] = 0.0f;

    for (int64_t ci0 = 0; ci0 < p.cin; ci0 += kInChannels) {
        for (int i = threadIdx.x; i < kInChannels * kHalo * kHalo; i += kThreads) {
            const int ci = i / (kHalo * kHalo), r = (i / kHalo) % kHalo, c = i % kHalo;
            const int64_t iy = oy0 + r - p.pad, ix = ox0 + c - p.pad;
            float v = 0.0f;
            if (ci0 + ci < p.cin && iy >= 0 && iy < p.h && ix >= 0 && ix < p.w)
                v = x[((n * p.cin + ci0 + ci) * p.h + iy) * p.w + ix];
            in_s[ci][r][c] = v;
        }
        for (int i = threadIdx.x; i < kChannels * kInChannels * 9; i += kThreads) {
            const int co = i / (kInChannels * 9), ci = (i / 9) % kInChannels, tap = i % 9;
            w_s[co][ci][tap] =
                (co < nc && ci0 + ci < p.cin) ? weight[((c0 + co) * p.cin + ci0 + ci) * 9 + tap] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int ci = 0; ci < kInChannels; ++ci)
#pragma unroll
            for (int ky = 0; ky < 3; ++ky)
#pragma unroll
                for (int kx = 0; kx < 3; ++kx) {
                    const float v = in_s[ci][ty + ky][tx + kx];
#pragma unroll
                    for (int c = 0; c < kChannels; ++c)
                        acc[c] = fmaf(v, w_s[c][ci][ky * 3 + kx], acc[c]);
                }
        __syncthreads();
    }

    const bool inside = oy0 + ty < p.hout && ox0 + tx < p.wout;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int c = 0; c < kChannels; ++c) {
        float g_val = (inside && c < nc) ? gelu_fast(acc[c] + bias[c0 + c]) : 0.0f;
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2)
            g_val += __shfl_xor_sync(0xffffffffu, g_val, offset);
        if (lane == 0)
            warp_sums[warp][c] = g_val;
    }
    sum_slots<kChannels, kWarps, kChannels>([&](int c) { return &warp_sums[0][c]; }, block_sums);
    ImageSlots slots;
    slots.slot = n * g.tiles_per_image + tile;
    slots.first = n * g.tiles_per_image;
    slots.count = g.tiles_per_image;
    slots.arrivals = (unsigned)(g.tiles_per_image * g.channel_blocks);
    publish_image_sums(red, n, c0, nc, block_sums, slots);
}

/* fp32-v1's hooks (kernel_desc.cuh) */
struct GenericVersion : NoStageSplit {
    static constexpr auto kPaths = path_run<1>(CGP_PATH_GENERIC);
    static constexpr cgp_precision precision = CGP_PRECISION_FP32;

    static const char *unsupported(const cgp_problem *p, const cgp_device_info *)
    {
        const GenericGeometry g = generic_geometry(p);
        if (p->n * g.tiles_per_image > 0x7fffffff)
            return "more than 2^31-1 output tiles (N x ceil(Hout/16) x ceil(Wout/16))";
        if (g.channel_blocks > 65535)
            return "Cout above 524280";
        if (g.tiles_per_image * g.channel_blocks > 0xffffffffLL)
            return "too many tiles per image";
        return nullptr;
    }

    static void configure(const cgp_problem *p, const cgp_device_info *, cgp_kernel_config *c)
    {
        c->workspace_bytes = (size_t)(p->n * generic_geometry(p).tiles_per_image * p->cout) * sizeof(double);
        configured(c, reinterpret_cast<const void *>(&fused_fp32_generic), 0, CGP_PATH_GENERIC);
    }

    static cudaError_t launch(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *,
                              cudaStream_t s)
    {
        const GenericGeometry g = generic_geometry(&a->p);
        const dim3 grid((unsigned)(a->p.n * g.tiles_per_image), (unsigned)g.channel_blocks);
        /* cudaLaunchKernel reports this launch's status only, not an error the caller left behind */
        const float *x = a->x, *w = a->weight, *b = a->bias;
        cgp_problem p = a->p;
        ReduceArgs red = make_reduce_args(a, a->workspace);
        unsigned *path_record = a->path_record;
        void *args[] = {&x, &w, &b, &p, const_cast<GenericGeometry *>(&g), &red, &path_record};
        return cudaLaunchKernel(c->kernel[0], grid, dim3(kThreads), args, c->smem_bytes, s);
    }
};

} // namespace

/* Its path's name (path_names.cuh) */
CGP_DEFINE_PATH_NAMES(cgp_paths_generic, CGP_PATH_GENERIC, path_name_list("generic"))

CGP_DEFINE_KERNEL_DESC(cgp_kernel_fp32_v1, GenericVersion, 1, "fp32-v1",
                       "generic: 16x16 pixel tile x 8 channels per block, one pixel per thread, any shape",
                       Kind(CGP_PIPE_FFMA, CGP_ALGORITHM_DIRECT)
                           .tile(kTile, kTile, kChannels)
                           .warps(kWarps)
                           .staging(CGP_STAGING_LOADS))
