/*
 * fused_fp32_winograd_gemm.cu - the strict-fp32 Winograd GEMM kernels for any channel count (library layer), one
 * template over the Winograd transform: fp32-v11 (version 31), F(2x2, 3x3), and fp32-v12 (version 38), F(4x4, 3x3),
 * each as alpha^2 GEMMs in FFMA (alpha = 4 or 6: the transformed tile's edge), K (the input channels) walked in
 * chunks of 8 and split across a thread-block cluster where the grid is too small for the GPU. They run every shape
 * the API accepts on a GPU of compute capability 8.0 or newer with the shared memory of their tile (the K split needs
 * 9.0); fp32-v12 with Cin up to a quarter of the output pixels, where F(4x4)'s rounding error in the means stays near
 * 4e-7 or below (docs/design.md).
 * docs/design.md, "The implicit-GEMM kernels", draws them beside fp32-v10, the direct FFMA implicit GEMM.
 *
 * F(m x m, 3x3) (winograd_f2x2.cuh, winograd_f4x4.cuh) turns each alpha x alpha input patch into V = B^T d B and each
 * filter into U = G g G^T; the m x m outputs of a tile are A^T M A with M[xi] = sum over the input channels of
 * V[xi] U[xi], for the alpha^2 elements xi. Per output and input channel that is alpha^2 / m^2 FFMAs (F(2x2): 4,
 * F(4x4): 2.25) where direct convolution spends 9. U is made from G's rows scaled to integers (F(2x2): without its
 * halves; F(4x4): x 4, -6, -6, 24, 24, 1), so its products are exact and only its sums round; M is multiplied
 * once by the scales' reciprocal (exact for F(2x2)'s powers of two). docs/design.md has the error against Cin.
 *
 *   tiles         TH x TW pixels (MT Winograd tiles) x BN channels a block, MT x BN = 2048 (F(2x2): 8x16 x 64, or
 *                 16x16 x 32 where Cout <= 32) or 1024 (F(4x4): 16x32 x 32); with K whole or split over a cluster of
 *                 2 or 4 blocks; both chosen per shape (choose).
 *   thread        a warp per element xi, each lane 8 Winograd tiles x 8 channels (F(2x2): 16 warps, 512 threads), or
 *                 per 3, each lane 3 elements x 4 tiles x 8 channels (F(4x4): 12 warps, 384 threads, 3 a scheduler,
 *                 up to 168 registers; 18 warps of 64 accumulators would put 5 on a scheduler and leave each 96);
 *                 WinogradTile::tile, ::channel: runs of 4, so a warp's 16-byte reads of V and U are broadcasts or
 *                 consecutive words; 64 or 96 accumulators.
 *   chunk         8 input channels land raw in a ring of 2 stages: the input window by cp.async, 4 bytes an
 *                 element (implicit_gemm.cuh: StageCopies for F(2x2); WindowPositionCopies for F(4x4), whose 13
 *                 elements a thread would take StageCopies 39 registers), or for F(4x4) by one TMA box where TMA
 *                 reads the window (compute capability 9.0, W a multiple of 4); each output channel's 72 weights in
 *                 a row by cp.async (16 bytes where Cin allows); the block transforms chunk k + 1
 *                 (V[xi][ci][tile], U[xi][ci][channel], double-buffered; the filter transforms on the threads
 *                 after the input transforms') while it multiplies chunk k: one barrier a chunk.
 *   accumulation  per output, alpha^2 fp32 FFMA chains over the block's input channels, then the output transform.
 *   K split       the blocks of a cluster take consecutive shares of the chunks; M is linear in them, so each
 *                 block adds the others' M through distributed shared memory, in rank order, before the output
 *                 transform, each for a slice of the channels: deterministic.
 *   epilogue      M to shared memory (where the ring was), then a thread per (channel, slot of tiles): the scales
 *                 undone, the output transform, bias, GELU (gelu_fast, as every fp32 version) masked by the image,
 *                 summed; the slots added in a fixed order in double and reduction.cuh with one slot per (image,
 *                 tile): deterministic, or atomic.
 */
#include <stdint.h>

#include <utility>

#include <cooperative_groups.h>

#include "implicit_gemm.cuh"
#include "kernel_desc.cuh"
#include "path_names.cuh"
#include "tensor_map.cuh"
#include "winograd_f2x2.cuh"
#include "winograd_f4x4.cuh"

namespace {

constexpr int kRawStages = 2;

/* A block tile: TH x TW pixels x BN channels */
struct WinogradTileShape {
    int th, tw, bn;
};

/* How a chunk's input window lands in its raw stage: by the threads' cp.async, a slot an element with its
 * addresses kept (StageCopies, with the weights) or a 32-bit offset a window position (WindowPositionCopies); or by
 * one TMA box */
enum class WindowStaging { kStageCopies, kPositionCopies, kTma };

/* The two versions: their transform, a thread's elements and runs of 4 tiles, their tiles (in the order of their
 * path ids: the staging's first id + the tile's index + the tile count x the split's index), how the input window
 * lands (kCopyStaging by cp.async; by TMA too where kTmaWindow, wherever TMA reads the window), U's row padding, and
 * the shapes they refuse beyond the family's limits */
struct F2x2Gemm { /* fp32-v11 */
    using F = WinogradF2x2;
    static constexpr int kXiPerThread = 1, kTileRuns = 2; /* a thread: 1 element x 2 runs of 4 tiles x 8 channels */
    static constexpr WinogradTileShape kShapes[] = {{8, 16, 64}, {16, 16, 32}};
    static constexpr WindowStaging kCopyStaging = WindowStaging::kStageCopies;
    static constexpr bool kTmaWindow = false;
    static constexpr unsigned kCopyPath0 = CGP_PATH_WINOGRAD_GEMM_TILE0, kTmaPath0 = 0;
    static constexpr int kUPad = 8; /* U's rows BN + 8 floats apart: the filter transform's stores hit 32 banks */
    static constexpr int kPixelsPerCin = 0; /* any Cin */
    static const char *shape_unsupported(const cgp_problem *, const cgp_device_info *) { return nullptr; }
};
struct F4x4Gemm { /* fp32-v12 */
    using F = WinogradF4x4;
    /* a thread: 3 elements x 4 tiles x 8 channels, 96 accumulators: 12 warps, 3 a scheduler, up to 168 registers
     * (36 warps of one element would be 1152 threads; 18 of two, 5 on some scheduler, would have 96 registers) */
    static constexpr int kXiPerThread = 3, kTileRuns = 1;
    static constexpr WinogradTileShape kShapes[] = {{16, 32, 32}};
    /* the input window by TMA, one box a chunk, where TMA reads it, else by position (StageCopies' 13 input slots a
     * thread would hold 39 registers: WindowPositionCopies keeps 2) */
    static constexpr WindowStaging kCopyStaging = WindowStaging::kPositionCopies;
    static constexpr bool kTmaWindow = true;
    static constexpr unsigned kCopyPath0 = CGP_PATH_WINOGRAD_F4X4_GEMM_CP_ASYNC_TILE0,
                              kTmaPath0 = CGP_PATH_WINOGRAD_F4X4_GEMM_TILE0;
    static constexpr int kUPad = 4; /* BN + 4: 2-way conflicts in the filter transform's stores, 9 KB less */
    /* F(4x4)'s error in y grows about as 8e-7 sqrt(Cin / (Hout x Wout)) (the rounding of the products' sums over
     * Cin, averaged by the mean over the pixels): measured on the H200 (docs/design.md) 2.0e-6 at Cin = 512 over
     * 7x7, 8.5e-7 at 256 over 14x14, 3.3e-7 at 128 over 28x28; up to Cin = Hout x Wout / 4 it stays near 4e-7 */
    static constexpr int kPixelsPerCin = 4;
    static const char *shape_unsupported(const cgp_problem *p, const cgp_device_info *)
    {
        if (kPixelsPerCin * p->cin > p->hout * p->wout)
            return "more input channels than a quarter of the output pixels, where F(4x4)'s rounding error in "
                   "the means would pass 4e-7 (docs/design.md; fp32-v11's F(2x2) keeps it below 2.5e-7)";
        return nullptr;
    }
};
template <class V> constexpr int kShapeCount = (int)(sizeof V::kShapes / sizeof V::kShapes[0]);
template <class V> constexpr int kThreadsOf = V::F::kAlpha * V::F::kAlpha / V::kXiPerThread * 32;

/* The K splits a cluster can take, in the order of their path ids */
constexpr int kSplits[] = {1, 2, 4};
__host__ __device__ constexpr int split_index(int split) { return split == 1 ? 0 : split == 2 ? 1 : 2; }

/* Tile I of version V with the window staged by S; the raw stage lands as Window and StageCopies lay it out
 * (implicit_gemm.cuh: the input window, then the weights [output channel][input channel x 9 + tap], rows kWStride
 * apart), or, where S is TMA, as one box of 8 channels x TH + 2 rows x kLandRowStride columns (TMA's boxes start
 * at a multiple of 4 columns and span a multiple of 4: from column ox0, or for padding same ox0 - 4, the window
 * then at column land_lead(pad) = 3, as implicit_gemm_wgmma.cuh's TmaWindow) from row oy0 - pad, then the weights */
template <class V, int I, WindowStaging S>
struct WinogradTile : Window<V::kShapes[I].th, V::kShapes[I].tw, V::kShapes[I].bn, kThreadsOf<V>> {
    using F = typename V::F;
    using Land = Window<V::kShapes[I].th, V::kShapes[I].tw, V::kShapes[I].bn, kThreadsOf<V>>;
    using Land::kTh, Land::kTw, Land::kBn, Land::kInFloats, Land::kWFloats, Land::kWStride, Land::kPlane,
        Land::kRowStride, Land::kThreads;
    static constexpr int kAlpha = F::kAlpha, kOut = kAlpha - 2, kXi = kAlpha * kAlpha;
    static constexpr int kXiPerThread = V::kXiPerThread, kTileRuns = V::kTileRuns, kTilesPerThread = 4 * kTileRuns;
    static constexpr int kTilesX = kTw / kOut, kMt = kTh / kOut * kTilesX; /* Winograd tiles: a row, the block */
    static constexpr int kTileGroups = kMt / kTilesPerThread, kChannelGroups = kBn / 8;
    static constexpr WindowStaging kStaging = S;
    static constexpr bool kTma = S == WindowStaging::kTma;
    static constexpr int kLandRowStride = kTma ? (kTw + 2 + 3 + 3) / 4 * 4 : kRowStride;
    static constexpr int kLandPlane = kTma ? (kTh + 2) * kLandRowStride : kPlane;
    static constexpr int kLandInFloats = kTma ? kChunk * kLandPlane : kInFloats;
    static constexpr int kRawFloats = kLandInFloats + kWFloats;
    static constexpr int kVPairs = kChunk * kMt, kUPairs = kChunk * kBn; /* transforms a chunk */
    static constexpr int kVFloats = kXi * kChunk * kMt; /* V[xi][ci][tile] */
    static constexpr int kUPitch = kBn + V::kUPad; /* U[xi][ci][channel]: input channels kUPitch floats apart */
    static constexpr int kTransformedFloats = kVFloats + kXi * kChunk * kUPitch;
    static constexpr int kMFloats = kXi * kMt * kBn; /* M[xi][tile][channel] */
    static constexpr int kRingFloats = kRawStages * kRawFloats + 2 * kTransformedFloats;
    static constexpr size_t kAlignBytes = kTma ? 128 : 0; /* TMA lands at 128-byte boundaries */
    static constexpr size_t kSmemBytes = kAlignBytes + sizeof(float) * (size_t)kRingFloats;
    /* the kernel's static arrays: slot sums, block sums for up to 128 channels, publish_image_sums' flag, the
     * stages' mbarriers */
    static constexpr size_t kStaticSmemBytes =
        sizeof(float) * kThreads + sizeof(double) * 128 + 16 + (kTma ? 8 * kRawStages : 0);
    /* + kTileCount x the split's index */
    static constexpr unsigned kPath = (kTma ? V::kTmaPath0 : V::kCopyPath0) + I, kTileCount = kShapeCount<V>;
    static_assert(kTh % kOut == 0 && kTw % kOut == 0 && kXi % kXiPerThread == 0, "whole Winograd tiles and warps");
    static_assert(kTileGroups * kChannelGroups == 32, "a warp: its elements' tiles x channels");
    static_assert(kBn % 32 == 0 && kBn <= 128, "the filter transform: warps of 8 channels x 4 input channels");
    static_assert(kMFloats <= kRingFloats, "M fits where the ring was");
    static_assert(!kTma || (kLandInFloats % 32 == 0 && kRawFloats % 32 == 0), "TMA boxes at 128-byte boundaries");
    static_assert(!kTma || kAlpha == 6, "load_patch_6x6: the patches of a TMA box");
    static_assert(S != WindowStaging::kPositionCopies ||
                      (kAlpha == 6 && kLandRowStride % 2 == 0 && kLandPlane % 2 == 0 && kRawFloats % 2 == 0),
                  "load_patch_6x6: F(4x4)'s patches, 8-byte aligned");

    static __host__ __device__ int land_lead(int pad) { return kTma && pad ? 3 : 0; }
    static __host__ __device__ int box_x(int ox0, int pad) { return pad ? ox0 - 4 : ox0; }

    /* Tile i and channel j of the lane with tile group tg and channel group g: runs of 4, the groups' runs
     * consecutive */
    static __device__ __forceinline__ int tile(int tg, int i) { return i / 4 * (kMt / kTileRuns) + tg * 4 + i % 4; }
    static __device__ __forceinline__ int channel(int g, int j) { return j / 4 * (kBn / 2) + g * 4 + j % 4; }
};

/* M's element (r, c) is filter_scale(r) x filter_scale(c) times its value: the reciprocal of that, rounded once */
template <class F> __host__ __device__ constexpr float inverse_scale(int r, int c)
{
    return (float)(1.0 / ((double)F::filter_scale(r) * (double)F::filter_scale(c)));
}

/* The input transform of (input channel, Winograd tile) pair `pair`; lead: the window's first column in the raw
 * stage's rows */
template <class T> __device__ __forceinline__ void transform_input(const float *raw, float *v_s, int pair, int lead)
{
    const int ci = pair / T::kMt, t = pair % T::kMt;
    const float *src = raw + ci * T::kLandPlane + T::kOut * (t / T::kTilesX) * T::kLandRowStride + lead +
                       T::kOut * (t % T::kTilesX);
    float d[T::kAlpha][T::kAlpha], v[T::kAlpha][T::kAlpha];
    if constexpr (T::kAlpha == 6)
        load_patch_6x6<T::kLandRowStride>(src, lead, d);
    else
        load_patch(src, T::kLandRowStride, d);
    T::F::input_tile_transform(d, v);
#pragma unroll
    for (int xi = 0; xi < T::kXi; ++xi)
        v_s[(xi * kChunk + ci) * T::kMt + t] = v[xi / T::kAlpha][xi % T::kAlpha];
}

/* The filter transform of (input channel, output channel) pair `pair`; a warp's 32 pairs are 8 output channels x 4
 * input channels, so that its reads (rows kWStride apart, weight_stride) hit 32 banks, and its stores too where
 * kUPitch is 8 modulo 32 (fp32-v11; fp32-v12's BN + 4 pairs them) */
template <class T> __device__ __forceinline__ void transform_filter(const float *raw, float *u_s, int pair)
{
    const int lane = pair % 32, warp = pair / 32;
    const int ci = warp % 2 * 4 + lane % 4, co = warp / 2 * 8 + lane / 4;
    const float *w = raw + T::kLandInFloats + co * T::kWStride + ci * kTaps;
    float g[3][3], u[T::kAlpha][T::kAlpha];
#pragma unroll
    for (int k = 0; k < kTaps; ++k)
        g[k / 3][k % 3] = w[k];
    T::F::filter_transform_scaled(g, u);
#pragma unroll
    for (int xi = 0; xi < T::kXi; ++xi)
        u_s[(xi * kChunk + ci) * T::kUPitch + co] = u[xi / T::kAlpha][xi % T::kAlpha];
}

/* The transforms of a landed raw stage into `transformed`: V of every (input channel, Winograd tile) pair on
 * threads 0, 1, ..., then U of every (input channel, output channel) pair on the threads after those (all of them,
 * where the input transforms take every thread) */
template <class T> __device__ __forceinline__ void transform_chunk(const float *raw, float *transformed, int lead)
{
    constexpr bool kShared = T::kVPairs >= T::kThreads; /* threads that transform inputs transform filters too */
    constexpr int kUFirst = kShared ? 0 : T::kVPairs, kUThreads = T::kThreads - kUFirst;
    for (int i = (int)threadIdx.x; i < T::kVPairs; i += T::kThreads)
        transform_input<T>(raw, transformed, i, lead);
    for (int i = (int)threadIdx.x - kUFirst; i >= 0 && i < T::kUPairs; i += kUThreads)
        transform_filter<T>(raw, transformed + T::kVFloats, i);
}

/* acc[x][i][j] += V[xi][ci][tile i] U[xi][ci][channel j] over the chunk's 8 input channels, for the thread's
 * elements xi = its first + x; v, u: the thread's first tile and channel at ci = 0 of its first element (channels past
 * Cin are zero in V and U) */
template <class T>
__device__ __forceinline__ void chunk_gemm(const float *v, const float *u,
                                           float (&acc)[T::kXiPerThread][T::kTilesPerThread][8])
{
#pragma unroll
    for (int ci = 0; ci < kChunk; ++ci)
#pragma unroll
        for (int x = 0; x < T::kXiPerThread; ++x) {
            const float *vx = v + (x * kChunk + ci) * T::kMt, *ux = u + (x * kChunk + ci) * T::kUPitch;
            float a[T::kTilesPerThread], b[8];
#pragma unroll
            for (int r = 0; r < T::kTileRuns; ++r) {
                const float4 v4 = *reinterpret_cast<const float4 *>(vx + r * (T::kMt / T::kTileRuns));
                a[4 * r] = v4.x, a[4 * r + 1] = v4.y, a[4 * r + 2] = v4.z, a[4 * r + 3] = v4.w;
            }
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const float4 u4 = *reinterpret_cast<const float4 *>(ux + r * (T::kBn / 2));
                b[4 * r] = u4.x, b[4 * r + 1] = u4.y, b[4 * r + 2] = u4.z, b[4 * r + 3] = u4.w;
            }
#pragma unroll
            for (int i = 0; i < T::kTilesPerThread; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j)
                    acc[x][i][j] = fmaf(a[i], b[j], acc[x][i][j]);
        }
}

/* The kXi elements of M of (Winograd tile t, channel column `column`), each summed over the cluster's `split` blocks
 * in rank order (distributed shared memory on compute capability 9.0; the host splits K nowhere else), all of
 * a rank's loads in flight at once */
template <class T>
__device__ __forceinline__ void cluster_m(const float *m_s, int t, int column, int split, float (&m)[T::kXi])
{
    const float *rank0_m = m_s;
#if __CUDA_ARCH__ >= 900
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    if (split > 1)
        rank0_m = cluster.map_shared_rank(m_s, 0);
#endif
#pragma unroll
    for (int e = 0; e < T::kXi; ++e)
        m[e] = rank0_m[(e * T::kMt + t) * T::kBn + column];
#if __CUDA_ARCH__ >= 900
    for (int q = 1; q < split; ++q) {
        const float *rank_m = cluster.map_shared_rank(m_s, q);
#pragma unroll
        for (int e = 0; e < T::kXi; ++e)
            m[e] += rank_m[(e * T::kMt + t) * T::kBn + column];
    }
#else
    if (split > 1)
        __trap();
#endif
}

/* Every block of the cluster: its part of the barrier (a block barrier without a cluster) */
__device__ __forceinline__ void cluster_barrier(int split)
{
#if __CUDA_ARCH__ >= 900
    if (split > 1) {
        cooperative_groups::this_cluster().sync();
        return;
    }
#endif
    __syncthreads();
}

/* one block an SM: at most 128 registers a thread for F(2x2)'s 512 threads, 168 for F(4x4)'s 384 */
template <class T, bool kWhole>
__global__ void __launch_bounds__(T::kThreads, 1)
    winograd_gemm_conv_gelu_mean(const IgemmParams p, const __grid_constant__ CUtensorMap map)
{
    const int split = (int)gridDim.z, rank = (int)blockIdx.z; /* a cluster of `split` blocks shares the chunks */
    record_path(p.path_record, (T::kPath + T::kTileCount * (unsigned)split_index(split)) | weights_width_flag(kWhole));
    __shared__ float slot_sums[T::kThreads];
    __shared__ double block_sums[T::kBn];
    __shared__ uint64_t landed[T::kTma ? kRawStages : 1]; /* TMA: stage s's window landed (a phase a chunk) */
    float *ring = reinterpret_cast<float *>(dynamic_smem()); /* raw stages x 2, transformed chunks x 2 */
    if constexpr (T::kTma)
        ring += (T::kAlignBytes - shared_address(ring) % T::kAlignBytes) % T::kAlignBytes / sizeof(float);
    float *transformed = ring + kRawStages * T::kRawFloats;
    const uint32_t ring_base = shared_address(ring);
    constexpr uint32_t kRawBytes = 4u * T::kRawFloats;

    const BlockPlace at = block_place<T>(p);
    /* this thread: elements xi0, xi0 + 1, ... (its warp's), tile group tg and channel group g of them */
    const int lane = threadIdx.x % 32, xi0 = (int)threadIdx.x / 32 * T::kXiPerThread;
    const int tg = lane / T::kChannelGroups, g = lane % T::kChannelGroups;
    const int v_offset = xi0 * kChunk * T::kMt + tg * 4;
    const int u_offset = T::kVFloats + xi0 * kChunk * T::kUPitch + g * 4;

    const int per_rank = (p.chunks + split - 1) / split;
    const int first = rank * per_rank, count = max(0, min(p.chunks - first, per_rank)); /* this block's chunks */

    /* issues chunks first, first + 1, ...: the window by TMA (thread 0) or every thread's cp.async, the weights by
     * every thread's cp.async */
    constexpr bool kStageCopiesInput = T::kStaging == WindowStaging::kStageCopies;
    StageCopies<T, kWhole, kStageCopiesInput ? kCopyInput | kCopyWeights : kCopyWeights, T::kLandInFloats> copies;
    copies.init(p, p.x + (at.n * p.cin + (int64_t)first * kChunk) * p.h * p.wd, at.oy0, at.ox0, at.c0);
    WindowPositionCopies<T, kWhole> window; /* kPositionCopies */
    const float *x_img = p.x + at.n * p.cin * p.h * p.wd;
    if constexpr (T::kStaging == WindowStaging::kPositionCopies)
        window.init(p, at.oy0, at.ox0);
    auto issue_copies = [&](int j) { /* the block's chunk j into stage j % kRawStages */
        const uint32_t stage = ring_base + j % kRawStages * kRawBytes;
        if (T::kTma && threadIdx.x == 0) {
            const uint32_t bar = shared_address(&landed[j % kRawStages]);
            mbarrier_arrive_expect(bar, 4u * T::kLandInFloats);
            tma_load_4d(stage, &map, T::box_x((int)at.ox0, p.pad), (int)at.oy0 - p.pad, (first + j) * kChunk, (int)at.n,
                        bar);
        }
        if constexpr (T::kStaging == WindowStaging::kPositionCopies)
            window.issue(p, x_img, first + j, stage);
        copies.issue(p, at.c0, first + j, stage);
        cp_async_commit();
    };
    auto wait_landed = [&](int j) { /* TMA: the block's chunk j's window, phase j / kRawStages of its stage */
        if (T::kTma)
            mbarrier_ring_wait<kRawStages>(landed, j);
    };
    if constexpr (T::kTma) {
        if (threadIdx.x == 0)
#pragma unroll
            for (int s = 0; s < kRawStages; ++s)
                mbarrier_init(shared_address(&landed[s]));
        __syncthreads(); /* the mbarriers, before any thread waits on them */
    }
#pragma unroll
    for (int s = 0; s < kRawStages; ++s) {
        if (s < count)
            issue_copies(s);
        else
            cp_async_commit();
    }
    cp_async_wait<kRawStages - 1>();
    if (count > 0)
        wait_landed(0);
    __syncthreads(); /* chunk 0 landed */
    const int lead = T::land_lead(p.pad);
    if (count > 0)
        transform_chunk<T>(ring, transformed, lead);

    float acc[T::kXiPerThread][T::kTilesPerThread][8];
    zero_fill(acc);

    for (int k = 0; k < count; ++k) {
        cp_async_wait<0>();
        if (k + 1 < count)
            wait_landed(k + 1);
        /* chunk k + 1 landed and chunk k is transformed; every warp is done with raw chunk k and transformed
         * chunk k - 1, which the copies and the transform below overwrite */
        __syncthreads();
        if (k + kRawStages < count)
            issue_copies(k + kRawStages);
        else
            cp_async_commit();
        if (k + 1 < count)
            transform_chunk<T>(ring + (k + 1) % kRawStages * T::kRawFloats,
                               transformed + (k + 1) % 2 * T::kTransformedFloats, lead);
        const float *chunk = transformed + k % 2 * T::kTransformedFloats;
        chunk_gemm<T>(chunk + v_offset, chunk + u_offset, acc);
    }

    /* M[xi][tile][channel] where the ring was, once every warp is done with it */
    cp_async_wait_all();
    __syncthreads();
    float *m_s = ring;
#pragma unroll
    for (int x = 0; x < T::kXiPerThread; ++x)
#pragma unroll
        for (int i = 0; i < T::kTilesPerThread; ++i)
#pragma unroll
            for (int q = 0; q < 2; ++q)
                *reinterpret_cast<float4 *>(
                    &m_s[((xi0 + x) * T::kMt + T::tile(tg, i)) * T::kBn + T::channel(g, 4 * q)]) =
                    make_float4(acc[x][i][4 * q], acc[x][i][4 * q + 1], acc[x][i][4 * q + 2], acc[x][i][4 * q + 3]);
    cluster_barrier(split);

    /* thread: channel rank x slice + c of the block, Winograd tiles slot, slot + slot_count, ... */
    const int slice = T::kBn / split, c = (int)threadIdx.x % slice;
    const int slot = (int)threadIdx.x / slice, slot_count = T::kThreads / slice;
    const int64_t channel = at.c0 + rank * slice + c;
    const float bias = channel < p.cout ? __ldg(&p.b[channel]) : 0.0f;
    float s = 0.0f;
    for (int t = slot; t < T::kMt; t += slot_count) {
        float m[T::kXi], y[T::kOut][T::kOut];
        cluster_m<T>(m_s, t, rank * slice + c, split, m);
#pragma unroll
        for (int e = 0; e < T::kXi; ++e)
            m[e] *= inverse_scale<typename T::F>(e / T::kAlpha, e % T::kAlpha);
        T::F::output_tile_transform(m, y);
        const int64_t oy = at.oy0 + T::kOut * (t / T::kTilesX), ox = at.ox0 + T::kOut * (t % T::kTilesX);
#pragma unroll
        for (int r = 0; r < T::kOut; ++r)
#pragma unroll
            for (int x = 0; x < T::kOut; ++x)
                s += oy + r < p.hout && ox + x < p.wout ? gelu_fast(y[r][x] + bias) : 0.0f;
    }
    slot_totals(s, slice, slot_count, slot_sums, block_sums);
    cluster_barrier(split); /* every block has read the M of the others; block_sums are written */

    const ImageSlots slots = tile_slots(p, at.n, at.tile, split);
    const int64_t c_first = at.c0 + rank * slice;
    publish_image_sums(p.red, at.n, c_first, slice_channels(p, c_first, slice), block_sums, slots);
}

/* ---- the choice per shape, the hooks ---- */

/* How version V lands the windows of problem p: by TMA where V can and TMA reads them (compute capability 9.0 with a
 * build for it, input_tensor_map_unsupported), else by its cp.async staging */
template <class V> WindowStaging staging_of(const cgp_problem *p, const cgp_device_info *d)
{
    return V::kTmaWindow && sm90_code_runs(d) && !input_tensor_map_unsupported(p, d) ? WindowStaging::kTma
                                                                                    : V::kCopyStaging;
}

/* a block's shared memory by tile of version V with its windows staged by S: the dynamic ring and the kernel's
 * static arrays */
template <class V, WindowStaging S, int... I>
constexpr size_t tile_smem_bytes(int tile, std::integer_sequence<int, I...>)
{
    size_t bytes = 0;
    ((bytes = tile == I ? WinogradTile<V, I, S>::kSmemBytes + WinogradTile<V, I, S>::kStaticSmemBytes : bytes), ...);
    return bytes;
}
template <class V> size_t tile_smem_bytes(int tile, WindowStaging s)
{
    constexpr auto kTiles = std::make_integer_sequence<int, kShapeCount<V>>();
    if constexpr (V::kTmaWindow)
        if (s == WindowStaging::kTma)
            return tile_smem_bytes<V, WindowStaging::kTma>(tile, kTiles);
    return tile_smem_bytes<V, V::kCopyStaging>(tile, kTiles);
}
/* the shared memory of the version's first tile, which runs any Cout, with its windows staged by S */
template <class V, WindowStaging S>
constexpr size_t kMinSmemBytes = tile_smem_bytes<V, S>(0, std::make_integer_sequence<int, kShapeCount<V>>());

/* The tile and K split with the least estimated time. Every tile of a version does the same work a chunk (alpha^2 x
 * MT x BN x 8 FFMAs) with one block an SM, so a block's time is its chunks plus one (the pipeline's start and the
 * epilogue), plus one more for a split's exchange of M; blocks run in waves of the SM count. Tiles beyond the
 * block's shared memory (with the shape's staging) are left out, those of fewer channels than the version's first
 * unless Cout fits them; K is split only on compute capability 9.0 with a build for it (clusters, sm90_code_runs)
 * and with at least 2 chunks a block. */
template <class V> TileSplit choose(const cgp_problem *p, const cgp_device_info *d)
{
    const int64_t chunks = ceil_div(p->cin, kChunk);
    const WindowStaging staging = staging_of<V>(p, d);
    return least_cost(0, kShapeCount<V>, kSplits, [&](int i, int split) {
        const WinogradTileShape t = V::kShapes[i];
        if ((t.bn < V::kShapes[0].bn && p->cout > t.bn) || tile_smem_bytes<V>(i, staging) > d->smem_per_block_optin ||
            (split > 1 && (!sm90_code_runs(d) || chunks < 2 * split)))
            return -1.0;
        const ImplicitGemmGeometry g = implicit_gemm_geometry(p, t.th, t.tw, t.bn);
        const int64_t blocks = p->n * g.tiles_per_image * g.channel_blocks * split;
        return (double)(ceil_div(blocks, d->sm_count) * (ceil_div(chunks, split) + 1 + (split > 1 ? 1 : 0)));
    });
}

template <class V> ImplicitGemmGeometry geometry_of(const cgp_problem *p, TileSplit c)
{
    const WinogradTileShape t = V::kShapes[c.tile];
    return implicit_gemm_geometry(p, t.th, t.tw, t.bn);
}

/* f(TypeTag<WinogradTile<V, I, S>>{}) for tile I = `tile` of version V with the windows staged by S */
template <class V, WindowStaging S, int I = 0, class F> auto with_winograd_tile(int tile, F f)
{
    if constexpr (I + 1 < kShapeCount<V>)
        if (tile != I)
            return with_winograd_tile<V, S, I + 1>(tile, f);
    return f(TypeTag<WinogradTile<V, I, S>>{});
}

/* The kernels of tile T (whole chunks where Cin % 8 = 0 and the weights are aligned) and its shared memory; the
 * paths from the staging's first id */
template <class T> void configure_tile(const cgp_problem *p, cgp_kernel_config *c, unsigned first)
{
    for (int misaligned = 0; misaligned < 2; ++misaligned) {
        const bool whole = whole_chunks(p, misaligned);
        c->kernel[misaligned] = whole ? reinterpret_cast<const void *>(&winograd_gemm_conv_gelu_mean<T, true>)
                                      : reinterpret_cast<const void *>(&winograd_gemm_conv_gelu_mean<T, false>);
        c->path[misaligned] = first | weights_width_flag(whole);
    }
    c->smem_bytes = T::kSmemBytes;
}

/* Launches the configured tile T */
template <class T> cudaError_t launch_tile(const cgp_launch_args *a, const cgp_kernel_config *c,
                                           const ImplicitGemmGeometry &g, cudaStream_t stream)
{
    IgemmParams p = implicit_gemm_params(a, g);
    /* the tensor map of x in the tile's TMA boxes (a zero map, never read, where the window comes by cp.async) */
    CUtensorMap map = {};
    if (T::kTma && !input_tensor_map(&map, a->p, a->x, T::kLandRowStride, T::kTh + 2, kChunk))
        return cudaErrorInvalidValue;
    return launch_implicit_gemm(c->kernel[cgp_weights_misaligned(a->weight)], p, g, a->p.n, c->split, T::kThreads,
                                c->smem_bytes, stream, &map);
}

/* Every path id of version V: for each of its stagings (by TMA first, where it has that), the tiles with K whole,
 * split over 2, then 4 blocks */
template <class V> constexpr auto path_ids()
{
    constexpr auto kCopy = path_run<3 * kShapeCount<V>>(V::kCopyPath0);
    if constexpr (V::kTmaWindow)
        return path_run<3 * kShapeCount<V>>(V::kTmaPath0) + kCopy;
    else
        return kCopy;
}

/* The hooks (kernel_desc.cuh) of fp32-v11 (V = F2x2Gemm) and fp32-v12 (F4x4Gemm) */
template <class V> struct WinogradGemmVersion : NoStageSplit {
    static constexpr cgp_precision precision = CGP_PRECISION_FP32;
    static constexpr auto kPaths = with_weights_4b(path_ids<V>());

    static const char *unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        if (const char *why = V::shape_unsupported(p, d))
            return why;
        if (const char *why = staging_of<V>(p, d) == WindowStaging::kTma ? tma_gemm_unsupported(p, d)
                                                                          : copy_gemm_unsupported(p, d))
            return why;
        const TileSplit c = choose<V>(p, d);
        return implicit_gemm_split_grid_unsupported(p, geometry_of<V>(p, c), c.split);
    }

    /* the FFMA GEMMs' limits with the smallest tile's shared memory by TMA, by cp.async */
    static const char *tma_gemm_unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        if constexpr (V::kTmaWindow)
            return ffma_gemm_unsupported<kMinSmemBytes<V, WindowStaging::kTma>>(p, d);
        return nullptr; /* never asked: staging_of is by TMA only where V::kTmaWindow */
    }
    static const char *copy_gemm_unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        return ffma_gemm_unsupported<kMinSmemBytes<V, V::kCopyStaging>>(p, d);
    }

    static void configure(const cgp_problem *p, const cgp_device_info *d, cgp_kernel_config *c)
    {
        const TileSplit choice = choose<V>(p, d);
        const WindowStaging staging = staging_of<V>(p, d);
        c->tile = choice.tile;
        c->split = choice.split;
        c->staging = (int)staging;
        c->workspace_bytes = implicit_gemm_workspace_bytes(p, geometry_of<V>(p, choice));
        const unsigned first = (staging == WindowStaging::kTma ? V::kTmaPath0 : V::kCopyPath0) +
                               (unsigned)(c->tile + kShapeCount<V> * split_index(c->split));
        with_staging(staging, c->tile, [&](auto t) { configure_tile<typename decltype(t)::Type>(p, c, first); });
    }

    static cudaError_t launch(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *,
                              cudaStream_t s)
    {
        const ImplicitGemmGeometry g = geometry_of<V>(&a->p, TileSplit{c->tile, c->split});
        return with_staging((WindowStaging)c->staging, c->tile,
                            [&](auto t) { return launch_tile<typename decltype(t)::Type>(a, c, g, s); });
    }

    /* f(TypeTag<WinogradTile<V, tile, staging>>{}): by TMA where the version has it and staging says so, else by
     * its copies */
    template <class F> static auto with_staging(WindowStaging staging, int tile, F f)
    {
        if constexpr (V::kTmaWindow)
            if (staging == WindowStaging::kTma)
                return with_winograd_tile<V, WindowStaging::kTma>(tile, f);
        return with_winograd_tile<V, V::kCopyStaging>(tile, f);
    }
};

/* What version V is: its transform's Winograd GEMMs in FFMA, its tiles and warps, the window by cp.async (or TMA
 * where TMA reads it), a chunk's weights landed and transformed for every tile, K split over 2 or 4 blocks, one tile
 * a block */
constexpr cgp_kernel_tile kind_tile(const WinogradTileShape &t)
{
    return cgp_kernel_tile{(short)t.th, (short)t.tw, (short)t.bn};
}
/* The shared memory version V's first tile needs by its larger staging: with it, V runs every shape its limits allow */
template <class V> constexpr size_t most_min_smem_bytes()
{
    if constexpr (V::kTmaWindow)
        return largest({kMinSmemBytes<V, V::kCopyStaging>, kMinSmemBytes<V, WindowStaging::kTma>});
    else
        return kMinSmemBytes<V, V::kCopyStaging>;
}
template <class V>
constexpr Kind kWinogradGemmKind =
    Kind(CGP_PIPE_FFMA, V::F::kAlpha == 4 ? CGP_ALGORITHM_WINOGRAD_F2X2 : CGP_ALGORITHM_WINOGRAD_F4X4)
        .tiles(V::kShapes, kind_tile)
        .warps(kThreadsOf<V> / 32)
        .staging(V::kTmaWindow ? CGP_STAGING_TMA_OR_CP_ASYNC : CGP_STAGING_CP_ASYNC)
        .k_splits(kSplits)
        .needs_cc(8, 0)
        .pixels_per_cin(V::kPixelsPerCin)
        .smem(most_min_smem_bytes<V>());

} // namespace

/* Their paths' names (path_names.cuh), from each version's tiles and the K splits: fp32-v11's, then fp32-v12's with
 * its windows by TMA and by cp.async */
CGP_DEFINE_PATH_NAMES(cgp_paths_winograd_gemm, F2x2Gemm::kCopyPath0,
                      tile_path_names("winograd ", F2x2Gemm::kShapes, kSplits))
CGP_DEFINE_PATH_NAMES(cgp_paths_winograd_f4x4_gemm_tma, F4x4Gemm::kTmaPath0,
                      tile_path_names("TMA winograd-f4x4 ", F4x4Gemm::kShapes, kSplits))
CGP_DEFINE_PATH_NAMES(cgp_paths_winograd_f4x4_gemm_cp_async, F4x4Gemm::kCopyPath0,
                      tile_path_names("cp.async, winograd-f4x4 ", F4x4Gemm::kShapes, kSplits))

CGP_DEFINE_KERNEL_DESC(cgp_kernel_fp32_v11, WinogradGemmVersion<F2x2Gemm>, 31, "fp32-v11",
                       "Winograd F(2x2,3x3) as 16 FFMA GEMMs for any channel count: tiles of 8x16 or 16x16 pixels x "
                       "64 or 32 channels (chosen per shape), a warp per transformed element, 8 tiles x 8 channels a "
                       "thread, 8 input channels a chunk transformed in shared memory while the previous one is "
                       "multiplied, K split over a cluster for small grids",
                       kWinogradGemmKind<F2x2Gemm>)

CGP_DEFINE_KERNEL_DESC(cgp_kernel_fp32_v12, WinogradGemmVersion<F4x4Gemm>, 38, "fp32-v12",
                       "Winograd F(4x4,3x3) as 36 FFMA GEMMs where Cin <= Hout x Wout / 4: tiles of 16x32 pixels x 32 "
                       "channels, a warp per 3 transformed elements, 3 elements x 4 tiles x 8 channels a thread, the "
                       "input window by TMA (or by cp.async where TMA cannot read it), 8 input channels a chunk "
                       "transformed in shared memory while the previous one is multiplied, K split over a cluster "
                       "for small grids",
                       kWinogradGemmKind<F4x4Gemm>)
