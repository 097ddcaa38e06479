/*
 * winograd.cuh - what the fp32 Winograd kernels share (library layer): fp32-v9, F(4x4, 3x3)
 * (fused_fp32_winograd.cu), and the superseded fp32-v7 and v8, F(2x2, 3x3) (history/fused_fp32_winograd_f2x2.cu).
 * They take Cin = 8, Cout = 64 and walk block tiles of outputs on the persistent schedule (tile_loader.cuh).
 *
 *   stage_filters<threads, F>     U = G g G^T of every filter into shared memory, and the bias; F is a Winograd
 *                                 transform: F::kAlpha (input patch and transformed tile edge),
 *                                 F::kBiasElement and F::filter_transform
 *   prefetch_window               starts the copies of a block tile's input window
 *   start_block                   what a block of fp32-v9 does before its first tile
 *   begin_tile                    what a block of v7..v9 does at the start of each tile: its origin, its input
 *                                 window (landed) and the next tile's on its way
 *   publish_image                 image n's channel sums from the per-thread double slots (fp32-v9)
 *   WinogradVersion<V>            the hooks of a version (kernel_desc.cuh): V::kThreads, V::kSmemBytes (the
 *                                 most any of its kernels takes), its block tile, V::kTileH x V::kTileW
 *                                 outputs, and V::launch_for(problem), the kernel that runs a problem, its
 *                                 shared memory and its path (a cgp_path_id; the kernel records the same,
 *                                 path_record.cuh)
 */
#ifndef CGP_WINOGRAD_CUH
#define CGP_WINOGRAD_CUH

#include "cgp.h"
#include "kernel_api.h"
#include "kernel_desc.cuh"
#include "path_record.cuh"
#include "reduction.cuh"
#include "tile_loader.cuh"

namespace {

constexpr int kCin = 8, kCout = 64;

/* fp32-v9's dynamic shared memory after the two input windows: U, V, the bias, the double sums */
struct WinogradSmem {
    float *u, *v, *bias;
    double *dsum;
};
template <int kWindowFloats, int kUFloats, int kVFloats>
__device__ __forceinline__ WinogradSmem winograd_smem(float *smem)
{
    float *u = smem + 2 * kWindowFloats, *v = u + kUFloats, *bias = v + kVFloats;
    return {u, v, bias, reinterpret_cast<double *>(bias + kCout)};
}

/* U = G g G^T (F::kAlpha x F::kAlpha) of every (output, input channel) filter into u_s[xi][ci][co], and the
 * bias into bias_s */
template <int kBlockThreads, class F>
__device__ __forceinline__ void stage_filters(const float *__restrict__ weight, const float *__restrict__ bias,
                                              float *u_s, float *bias_s)
{
    constexpr int kAlpha = F::kAlpha;
    for (int i = threadIdx.x; i < kCout * kCin; i += kBlockThreads) {
        const int co = i / kCin, ci = i % kCin;
        float gk[3][3], u[kAlpha][kAlpha];
#pragma unroll
        for (int k = 0; k < 9; ++k)
            gk[k / 3][k % 3] = weight[(co * kCin + ci) * 9 + k];
        F::filter_transform(gk, u);
#pragma unroll
        for (int xi = 0; xi < kAlpha * kAlpha; ++xi)
            u_s[(xi * kCin + ci) * kCout + co] = u[xi / kAlpha][xi % kAlpha];
    }
    if (threadIdx.x < kCout)
        bias_s[threadIdx.x] = bias[threadIdx.x];
}

/* Starts the copies of tile `tile`'s input window (kCin x kRows x kPitch, the block tile being kTileH x kTileW
 * outputs; from kLead columns left of the window's first one: a shifted window, whose 16-byte chunks start at a
 * multiple of 4 columns for padding same) into buf, if the block has that tile, and commits. */
template <int kBlockThreads, int kTileH, int kTileW, int kRows, int kPitch, int kLead = 0>
__device__ __forceinline__ void prefetch_window(float *buf, const float *__restrict__ x, const cgp_problem &p,
                                                const PersistentSchedule &g, int64_t tile, int64_t tile_end)
{
    if (tile < tile_end) {
        int64_t n, oy0, ox0;
        persistent_tile_origin(g, tile, kTileH, kTileW, n, oy0, ox0);
        /* 64-bit offsets (any H, W); the chunk loop rolled, as the kernels' code is large already */
        load_window_async<kBlockThreads, kCin, kRows, kPitch, int64_t, 1>(buf, x, p, n, oy0 - p.pad,
                                                                          ox0 - p.pad - kLead);
    }
    cp_async_commit();
}

/* A block tile being computed: image n, output origin (oy0, ox0), and its input window in shared memory */
struct WindowTile {
    int64_t n, oy0, ox0;
    const float *window;
};

/* What a block does at the start of tile `tile` (its tiles being [tile_begin, tile_end)): waits for the tile's
 * input window, in buffer (tile - tile_begin) & 1 of the two kCin x kRows x kPitch buffers at `windows`, a barrier
 * (every thread is done with the previous tile), and starts the copies of the next tile's window into the other
 * buffer */
template <int kBlockThreads, int kTileH, int kTileW, int kRows, int kPitch, int kLead = 0>
__device__ __forceinline__ WindowTile begin_tile(float *windows, const float *__restrict__ x, const cgp_problem &p,
                                                 const PersistentSchedule &g, int64_t tile, int64_t tile_begin,
                                                 int64_t tile_end)
{
    constexpr int kFloats = kCin * kRows * kPitch;
    const int buf = (int)((tile - tile_begin) & 1);
    WindowTile at;
    persistent_tile_origin(g, tile, kTileH, kTileW, at.n, at.oy0, at.ox0);
    cp_async_wait<0>();
    __syncthreads();
    prefetch_window<kBlockThreads, kTileH, kTileW, kRows, kPitch, kLead>(windows + (buf ^ 1) * kFloats, x, p, g,
                                                                         tile + 1, tile_end);
    at.window = windows + buf * kFloats + kLead; /* the window's first column */
    return at;
}

/* A block's tiles [begin, end) */
struct BlockTiles {
    int64_t begin, end;
};

/* What a block of fp32-v9 does before its first tile: U and the bias into shared memory, its kSums double
 * slots per thread cleared, and the first tile's input window on its way into `window` */
template <int kBlockThreads, class F, int kSums, int kTileH, int kTileW, int kRows, int kPitch, int kLead = 0>
__device__ __forceinline__ BlockTiles start_block(const float *__restrict__ x, const float *__restrict__ weight,
                                                  const float *__restrict__ bias, const cgp_problem &p,
                                                  const PersistentSchedule &g, float *window, float *u_s,
                                                  float *bias_s, double *dsum)
{
    const BlockTiles b = {persistent_tile_begin(g), persistent_tile_end(g)};
    stage_filters<kBlockThreads, F>(weight, bias, u_s, bias_s);
#pragma unroll
    for (int k = 0; k < kSums; ++k)
        dsum[k * kBlockThreads + threadIdx.x] = 0.0;
    prefetch_window<kBlockThreads, kTileH, kTileW, kRows, kPitch, kLead>(window, x, p, g, b.begin, b.end);
    return b;
}

/* Publishes image n's 64 channel sums from the per-thread double slots: channel c is the sum of the kSlots
 * slots from dsum + first_slot(c) (reduction.cuh); then clears this thread's kSums slots
 * (dsum[k * kBlockThreads + t]). Called by every thread of the block after its last tile of image n. */
template <int kBlockThreads, int kSums, int kSlots, class FirstSlot>
__device__ __forceinline__ void publish_image(double *dsum, double *image_sums, const ReduceArgs &red, int64_t n,
                                              const PersistentSchedule &g, FirstSlot first_slot)
{
    sum_slots<kCout, kSlots, 1>([&](int c) { return dsum + first_slot(c); }, image_sums);
    publish_image_sums(red, n, 0, kCout, image_sums, persistent_image_slots(g, n));
#pragma unroll
    for (int k = 0; k < kSums; ++k) /* read by the sums above, before publish's barriers */
        dsum[k * kBlockThreads + threadIdx.x] = 0.0;
}

using WinogradKernel = void (*)(const float *, const float *, const float *, cgp_problem, PersistentSchedule,
                               ReduceArgs, unsigned *);

/* What version V runs (kernel_info.h's cgp_kernel_limits): Cin = 8, Cout = 64, compute capability 8.0, its shared
 * memory */
template <class V> constexpr Kind winograd_limits(const Kind &k)
{
    return k.needs_cc(8, 0).cin_only(kCin).cout_only(kCout).smem(V::kSmemBytes);
}

/* How a version runs a problem (V::launch_for): the kernel, its shared memory, its path */
struct WinogradLaunch {
    WinogradKernel kernel;
    size_t smem_bytes;
    unsigned path;
};

/* The hooks of version V: one block of V::kThreads with the shared memory of V::launch_for(problem) per SM, on the
 * persistent schedule of V::kTileH x V::kTileW block tiles */
template <class V> struct WinogradVersion : NoStageSplit {
    static constexpr cgp_precision precision = CGP_PRECISION_FP32;
    static constexpr auto kPaths = V::kPaths;

    static const char *unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        if (d->cc_major < 8)
            return "needs a GPU of compute capability 8.0 or newer (cp.async)";
        if (d->smem_per_block_optin < V::kSmemBytes)
            return kSharedMemoryNeed<V::kSmemBytes>.text;
        if (p->cin != kCin || p->cout != kCout)
            return "needs Cin = 8 and Cout = 64";
        if (p->hout > 0x7fffffff - V::kTileH || p->wout > 0x7fffffff - V::kTileW)
            return "needs the output height and width a block tile below 2^31 (32-bit pixel coordinates)";
        return nullptr;
    }

    static void configure(const cgp_problem *p, const cgp_device_info *d, cgp_kernel_config *c)
    {
        c->workspace_bytes = persistent_workspace_bytes(p, persistent_schedule(p, d, V::kTileH, V::kTileW));
        const WinogradLaunch l = V::launch_for(p);
        configured(c, reinterpret_cast<const void *>(l.kernel), l.smem_bytes, l.path);
    }

    static cudaError_t launch(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *d,
                              cudaStream_t s)
    {
        PersistentSchedule g = persistent_schedule(&a->p, d, V::kTileH, V::kTileW);
        /* cudaLaunchKernel reports this launch's status only, not an error the caller left behind */
        const float *x = a->x, *w = a->weight, *b = a->bias;
        cgp_problem p = a->p;
        ReduceArgs red = make_reduce_args(a, a->workspace);
        unsigned *path_record = a->path_record;
        void *args[] = {&x, &w, &b, &p, &g, &red, &path_record};
        return cudaLaunchKernel(c->kernel[0], dim3(g.blocks), dim3(V::kThreads), args, c->smem_bytes, s);
    }
};

} // namespace

#endif
