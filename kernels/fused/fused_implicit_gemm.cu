/*
 * fused_implicit_gemm.cu - the tensor-core fused kernels for any channel count on mma.sync (library layer):
 * tf32-v9 (version 19) and 3xtf32-v9 (version 29), the implicit GEMM of implicit_gemm.cuh on mma.sync m16n8k8
 * tf32. They run every shape the API accepts on a GPU of compute capability 8.0 or newer (on an H100/H200
 * tf32-v10 / 3xtf32-v10 run it on wgmma, fused_implicit_gemm_wgmma.cu). docs/design.md, "The implicit-GEMM
 * kernels", draws both.
 *
 *   tiles         8 x 16 or 8 x 8 pixels x 64 or 32 channels, a template (Tile), chosen per shape (choose_tile);
 *                 warp tiles of 32 pixels x 32 channels (2 x 4 m16n8 tiles), 16 x 32 in the narrow tiles and
 *                 32-channel blocks, which get twice the warps.
 *   stage         a chunk lands (StageCopies) in a ring of 4 stages (3xTF32: 2); each thread rounds (3xTF32:
 *                 splits into big and small planes) the elements it copied, in place, once they have landed
 *                 (InPlaceConversion, cvt.rna): one barrier a stage. The landing strides are the operand
 *                 strides, padded so that every fragment load is free of bank conflicts.
 *   A fragment    pixel m of the tile at tap (ky, kx) is window[(row(m) + ky) * (TW + 2) + col(m) + kx]: the taps
 *                 are constant offsets, the window is read 9 times from shared memory, copied once.
 *   accumulation  the tensor cores add into their fp32 accumulator with truncation, so a long chain of MMAs in
 *                 one accumulator drifts (tf32-v3, retired, measured 1.5e-5 at Cin = 512, 576 MMAs). Here every
 *                 kTapsPerFlush taps start from a fresh accumulator, added into the running sum with FADD
 *                 (round to nearest): chains of 3 MMAs (tf32: 3 taps; 3xTF32: 1 tap of 3 products).
 *   3xTF32        x = big + small, w likewise; acc += small * big + big * small + big * big, corrections first.
 *   epilogue      implicit_gemm.cuh (lane_gelu_sums, publish_block_sums).
 */
#include <stdint.h>

#include "fused_tf32_device.cuh"
#include "implicit_gemm.cuh"
#include "kernel_desc.cuh"
#include "path_names.cuh"

namespace {

constexpr int kWarpChannels = 32;
constexpr int kNj = kWarpChannels / 8;    /* n8 tiles of a warp tile */

/* One tile configuration: output tile TH x TW pixels, BN channels, precision P */
template <int TH, int TW, int BN> struct WarpGrid {
    static constexpr int kMi = BN == 64 && TW == 16 ? 2 : 1; /* m16 tiles a warp tile; smaller tiles get more warps */
    static constexpr int kWarpPixels = 16 * kMi;
    static constexpr int kWarpsM = TH * TW / kWarpPixels, kWarpsN = BN / kWarpChannels;
    static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
};

/* The tile shapes, in the order of their path ids (CGP_PATH_IGEMM_TILE0 + index, kernel_info.h) and of the kernels
 * with_tile instantiates */
struct TileShape {
    int th, tw, bn;
};
constexpr TileShape kTileShapes[] = {{8, 16, 64}, {8, 8, 64}, {8, 16, 32}, {8, 8, 32}};
constexpr int kTileCount = (int)(sizeof kTileShapes / sizeof kTileShapes[0]);
/* The index of a tile shape in kTileShapes, -1 where none */
constexpr int tile_index(int th, int tw, int bn)
{
    return index_of(kTileShapes, [=](const TileShape &t) { return t.th == th && t.tw == tw && t.bn == bn; });
}

/* The stage is converted in place: the landing layout (Window) is the operand layout */
template <int P, int TH, int TW, int BN>
struct Tile : WarpGrid<TH, TW, BN>, Window<TH, TW, BN, WarpGrid<TH, TW, BN>::kThreads> {
    using Grid = WarpGrid<TH, TW, BN>;
    using Land = Window<TH, TW, BN, Grid::kThreads>;
    using Grid::kMi, Grid::kWarpPixels, Grid::kWarpsM, Grid::kWarpsN, Grid::kThreads;
    using Land::kTh, Land::kTw, Land::kBn, Land::kRowStride, Land::kArea, Land::kPlane, Land::kWStride, Land::kInFloats,
        Land::kWFloats, Land::kInSlots;
    static constexpr int kPrecision = P;
    static constexpr int kPlanes = P == kTf32 ? 1 : 2; /* big (tf32), then small (3xTF32) */
    static constexpr int kStageFloats = kPlanes * (kInFloats + kWFloats);
    static constexpr int kStages = P == kTf32 ? 4 : 2;
    static constexpr int kTapsPerFlush = P == kTf32 ? 3 : 1;
    static constexpr size_t kSmemBytes = sizeof(float) * (size_t)kStages * kStageFloats;
    static_assert(TH * TW % (16 * kMi) == 0 && BN % kWarpChannels == 0, "whole warp tiles");
    static_assert(TW % 8 == 0, "a lane group's 8 pixels lie in one row");
    /* the cgp_path_id a launch of this tile records: CGP_PATH_IGEMM_TILE0 + its index in kTileShapes */
    static constexpr unsigned kPath = CGP_PATH_IGEMM_TILE0 + (unsigned)tile_index(TH, TW, BN);
    static_assert(tile_index(TH, TW, BN) >= 0, "a tile of kTileShapes");
};

/* Rounds (splits) the elements this thread copied into `stage`, once they landed: in place (3xTF32: the small part
 * one stage-plane further), cvt.rna */
template <class T, class Copies> struct InPlaceConversion {
    static constexpr int kInElems = Copies::kInElems, kWElems = Copies::kWElems, kWSlots = Copies::kWSlots;
    static constexpr bool kInSpare = Copies::kInSpare, kWSpare = Copies::kWSpare;
    static constexpr uint32_t kOffsetMask = Copies::kOffsetMask;

    static __device__ __forceinline__ bool spare(int s, int elems) { return Copies::spare(s, elems); }

    static __device__ __forceinline__ void convert(const Copies &c, char *stage)
    {
#pragma unroll
        for (int s = 0; s < T::kInSlots; ++s)
            if (!(kInSpare && s == T::kInSlots - 1 && spare(s, kInElems)))
                convert_one(reinterpret_cast<float *>(stage + (c.in_dst[s] & kOffsetMask)));
#pragma unroll
        for (int s = 0; s < kWSlots; ++s) {
            if (kWSpare && s == kWSlots - 1 && spare(s, kWElems))
                continue;
            if (Copies::kWWidth == 4)
                convert_four(reinterpret_cast<float4 *>(stage + (c.w_dst[s] & kOffsetMask)));
            else
                convert_one(reinterpret_cast<float *>(stage + (c.w_dst[s] & kOffsetMask)));
        }
    }

    static __device__ __forceinline__ void convert_one(float *at)
    {
        const float v = *at;
        const float big = __uint_as_float(tf32_round(v));
        *at = big;
        if (T::kPlanes == 2)
            at[T::kInFloats + T::kWFloats] = __uint_as_float(tf32_round(v - big));
    }

    static __device__ __forceinline__ void convert_four(float4 *at)
    {
        const float4 v = *at;
        const float4 big = make_float4(__uint_as_float(tf32_round(v.x)), __uint_as_float(tf32_round(v.y)),
                                       __uint_as_float(tf32_round(v.z)), __uint_as_float(tf32_round(v.w)));
        *at = big;
        if (T::kPlanes == 2)
            at[(T::kInFloats + T::kWFloats) / 4] =
                make_float4(__uint_as_float(tf32_round(v.x - big.x)), __uint_as_float(tf32_round(v.y - big.y)),
                            __uint_as_float(tf32_round(v.z - big.z)), __uint_as_float(tf32_round(v.w - big.w)));
    }
};

/* The lane's MMAs of one stage into acc[m16 tile][n8 tile][4] */
template <class T>
__device__ __forceinline__ void stage_mmas(const float *stage, const int (&a_off)[T::kMi][2], const int (&b_off)[kNj],
                                           float (&acc)[T::kMi][kNj][4])
{
    constexpr int kSmall = T::kInFloats + T::kWFloats; /* the small plane's distance from the big one */
    const float *in = stage, *w = stage + T::kInFloats;
#pragma unroll 1
    for (int f = 0; f < kTaps / T::kTapsPerFlush; ++f) {
        float part[T::kMi][kNj][4];
        zero_fill(part);
#pragma unroll
        for (int u = 0; u < T::kTapsPerFlush; ++u) {
            const int tap = f * T::kTapsPerFlush + u;
            const int shift = tap / 3 * T::kRowStride + tap % 3;
            uint32_t a[T::kMi][4], a_small[T::kMi][4];
#pragma unroll
            for (int i = 0; i < T::kMi; ++i)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int at = a_off[i][e % 2] + (e / 2) * 4 * T::kPlane + shift;
                    a[i][e] = __float_as_uint(in[at]);
                    if (T::kPlanes == 2)
                        a_small[i][e] = __float_as_uint(in[at + kSmall]);
                }
#pragma unroll
            for (int j = 0; j < kNj; ++j) {
                uint32_t b[2], b_small[2];
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const int at = b_off[j] + e * 4 * kTaps + tap;
                    b[e] = __float_as_uint(w[at]);
                    if (T::kPlanes == 2)
                        b_small[e] = __float_as_uint(w[at + kSmall]);
                }
#pragma unroll
                for (int i = 0; i < T::kMi; ++i) {
                    if (T::kPlanes == 2) {
                        mma_tf32(part[i][j], a_small[i], b, part[i][j]);
                        mma_tf32(part[i][j], a[i], b_small, part[i][j]);
                    }
                    mma_tf32(part[i][j], a[i], b, part[i][j]);
                }
            }
        }
#pragma unroll
        for (int i = 0; i < T::kMi; ++i)
#pragma unroll
            for (int j = 0; j < kNj; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    acc[i][j][e] += part[i][j][e];
    }
}

/* at most 128 registers a thread: two blocks of 8 warps an SM */
template <class T, bool kWhole>
__global__ void __launch_bounds__(T::kThreads, 512 / T::kThreads) implicit_gemm_conv_gelu_mean(const IgemmParams p)
{
    record_path(p.path_record, T::kPath | weights_width_flag(kWhole));
    __shared__ float warp_sums[T::kWarpsM * T::kBn];
    __shared__ double block_sums[T::kBn];
    float *ring = reinterpret_cast<float *>(dynamic_smem());
    const uint32_t ring_base = shared_address(ring);
    constexpr uint32_t kStageBytes = 4u * T::kStageFloats;

    const BlockPlace at = block_place<T>(p);
    const int64_t n = at.n, tile = at.tile, oy0 = at.oy0, ox0 = at.ox0, c0 = at.c0;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm = warp % T::kWarpsM, wn = warp / T::kWarpsM;
    const int group = lane / 4, tig = lane % 4;

    int a_off[T::kMi][2], b_off[kNj];
#pragma unroll
    for (int i = 0; i < T::kMi; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int m = wm * T::kWarpPixels + i * 16 + group + 8 * h;
            a_off[i][h] = tig * T::kPlane + m / T::kTw * T::kRowStride + m % T::kTw;
        }
#pragma unroll
    for (int j = 0; j < kNj; ++j)
        b_off[j] = (wn * kWarpChannels + j * 8 + group) * T::kWStride + tig * kTaps;

    StageCopies<T, kWhole> copies;
    copies.init(p, p.x + n * p.cin * p.h * p.wd, oy0, ox0, c0);

#pragma unroll
    for (int s = 0; s < T::kStages - 1; ++s) {
        if (s < p.chunks)
            copies.issue(p, c0, s, ring_base + s * kStageBytes);
        cp_async_commit();
    }

    float acc[T::kMi][kNj][4];
    zero_fill(acc);

    for (int chunk = 0; chunk < p.chunks; ++chunk) {
        const int slot = chunk % T::kStages;
        float *stage = ring + slot * T::kStageFloats;
        cp_async_wait<T::kStages - 2>();
        InPlaceConversion<T, StageCopies<T, kWhole>>::convert(copies, reinterpret_cast<char *>(stage));
        __syncthreads(); /* the stage is converted; every warp is done with the stage the next copies overwrite */
        const int next = chunk + T::kStages - 1;
        if (next < p.chunks)
            copies.issue(p, c0, next, ring_base + (slot == 0 ? T::kStages - 1 : slot - 1) * kStageBytes);
        cp_async_commit();
        stage_mmas<T>(stage, a_off, b_off, acc);
    }

    float sum[kNj][2];
    lane_gelu_sums<T::kPrecision, T::kTw>(
        p, acc, [&](int i, int h) { return wm * T::kWarpPixels + i * 16 + group + 8 * h; }, oy0, ox0,
        ChannelBias(p, c0 + wn * kWarpChannels), sum);
    publish_block_sums<T::kBn, T::kWarpsM>(p, sum, wm, wn * kWarpChannels, n, tile, c0, warp_sums, block_sums);
}

/* ---- the tiles, the choice per shape, the hooks ---- */

/* 32 channels a block where Cout needs no more; 8 x 8 pixels where 8 x 16 would compute over 8/7 of the
 * pixels 8 x 8 does (narrow images) */
int choose_tile(const cgp_problem *p)
{
    const int64_t rows = ceil_div(p->hout, 8) * 8;
    const int64_t wide = rows * ceil_div(p->wout, 16) * 16, narrow = rows * ceil_div(p->wout, 8) * 8;
    return tile_index(8, narrow * 8 < wide * 7 ? 8 : 16, p->cout <= 32 ? 32 : 64);
}

ImplicitGemmGeometry geometry(const cgp_problem *p, int tile)
{
    const TileShape t = kTileShapes[tile];
    return implicit_gemm_geometry(p, t.th, t.tw, t.bn);
}

/* f(TypeTag<Tile<P, ...>>{}) for tile i of kTileShapes, known at run time (with_index) */
template <int P, class F> auto with_tile(int i, F f)
{
    return with_index<kTileCount>(i, [&](auto tile) {
        constexpr TileShape t = kTileShapes[decltype(tile)::value];
        return f(TypeTag<Tile<P, t.th, t.tw, t.bn>>{});
    });
}

template <class T> cudaError_t launch_tile(const cgp_launch_args *a, const cgp_kernel_config *c, cudaStream_t stream)
{
    const ImplicitGemmGeometry g = geometry(&a->p, c->tile);
    IgemmParams p = implicit_gemm_params(a, g);
    /* cudaLaunchKernel reports this launch's status only, not an error the caller left behind */
    void *argv[] = {&p};
    return cudaLaunchKernel(c->kernel[cgp_weights_misaligned(a->weight)],
                            dim3((unsigned)(a->p.n * g.tiles_per_image), (unsigned)g.channel_blocks),
                            dim3(T::kThreads), argv, c->smem_bytes, stream);
}

/* The kernels of tile T, with whole chunks (Cin % 8 = 0) for aligned weights and not, their shared memory, the paths
 * (tile i) */
template <class T> void configure_tile(const cgp_problem *p, int i, cgp_kernel_config *c)
{
    for (int misaligned = 0; misaligned < 2; ++misaligned) {
        const bool whole = whole_chunks(p, misaligned);
        c->kernel[misaligned] = whole ? reinterpret_cast<const void *>(&implicit_gemm_conv_gelu_mean<T, true>)
                                      : reinterpret_cast<const void *>(&implicit_gemm_conv_gelu_mean<T, false>);
        c->path[misaligned] = (CGP_PATH_IGEMM_TILE0 + (unsigned)i) | weights_width_flag(whole);
    }
    c->smem_bytes = T::kSmemBytes;
}

template <int P> constexpr size_t max_smem_bytes()
{
    return largest({Tile<P, 8, 16, 64>::kSmemBytes, Tile<P, 8, 8, 64>::kSmemBytes, Tile<P, 8, 16, 32>::kSmemBytes,
                    Tile<P, 8, 8, 32>::kSmemBytes});
}

/* tf32-v9's and 3xtf32-v9's hooks (kernel_desc.cuh) */
template <int P> struct ImplicitGemmVersion : NoStageSplit {
    static constexpr cgp_precision precision = (cgp_precision)P;
    static constexpr auto kPaths = with_weights_4b(path_run<kTileCount>(CGP_PATH_IGEMM_TILE0));

    static const char *unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        constexpr size_t kSmem = max_smem_bytes<P>();
        if (d->cc_major < 8)
            return "needs a GPU of compute capability 8.0 or newer (mma.sync tf32)";
        if (kSmem > d->smem_per_block_optin)
            return kSharedMemoryNeed<kSmem>.text;
        return implicit_gemm_grid_unsupported(p, geometry(p, choose_tile(p)));
    }

    static void configure(const cgp_problem *p, const cgp_device_info *, cgp_kernel_config *c)
    {
        c->tile = choose_tile(p);
        c->workspace_bytes = implicit_gemm_workspace_bytes(p, geometry(p, c->tile));
        with_tile<P>(c->tile, [&](auto t) { configure_tile<typename decltype(t)::Type>(p, c->tile, c); });
    }

    static cudaError_t launch(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *,
                              cudaStream_t s)
    {
        return with_tile<P>(c->tile, [&](auto t) { return launch_tile<typename decltype(t)::Type>(a, c, s); });
    }
};

/* What both are: the implicit GEMM on mma.sync on the tiles of with_tile, in the order of their path ids (the
 * warps: the tile's), the stages by cp.async, weights and window alike, K whole, one tile a block */
template <int P>
constexpr Kind kImplicitGemmKind = Kind(CGP_PIPE_MMA_SYNC, CGP_ALGORITHM_IMPLICIT_GEMM)
                                       .tile(8, 16, 64)
                                       .tile(8, 8, 64)
                                       .tile(8, 16, 32)
                                       .tile(8, 8, 32)
                                       .smem(max_smem_bytes<P>());

} // namespace

/* Its paths' names (path_names.cuh), from its tiles */
CGP_DEFINE_PATH_NAMES(cgp_paths_igemm, CGP_PATH_IGEMM_TILE0, tile_path_names("", kTileShapes, {1}))

/* X(descriptor, hooks, version, name, summary, kind) for each version of this file */
#define IMPLICIT_GEMM_VERSIONS(X)                                                                                      \
    X(cgp_kernel_tf32_v9, ImplicitGemmVersion<kTf32>, 19, "tf32-v9",                                                   \
      "implicit GEMM on mma.sync m16n8k8 tf32 for any channel count: tiles of 8x16 or 8x8 pixels x 64 or 32 "          \
      "channels (chosen per shape), 8 input channels x 9 taps a stage in a 4-stage cp.async ring, rounded in "         \
      "place, a fresh accumulator every 3 taps (FADD into the sum), bias/GELU/mean in registers",                      \
      kImplicitGemmKind<kTf32>)                                                                                        \
    X(cgp_kernel_tf32x3_v9, ImplicitGemmVersion<kTf32x3>, 29, "3xtf32-v9",                                             \
      "implicit GEMM on mma.sync m16n8k8 with the 3xTF32 split (fp32-level accuracy) for any channel count: tiles "    \
      "of 8x16 or 8x8 pixels x 64 or 32 channels (chosen per shape), big and small planes split in place in a "        \
      "2-stage cp.async ring, a fresh accumulator every tap (its 3 products), gelu_x2_fine",                           \
      kImplicitGemmKind<kTf32x3>)

IMPLICIT_GEMM_VERSIONS(CGP_DEFINE_KERNEL_DESC)
