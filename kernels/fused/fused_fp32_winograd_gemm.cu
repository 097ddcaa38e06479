/*
 * fused_fp32_winograd_gemm.cu - the strict-fp32 Winograd kernel for any channel count (library layer): fp32-v11
 * (version 31), Winograd F(2x2, 3x3) as 16 GEMMs in FFMA, K (the input channels) walked in chunks of 8 and split
 * across a thread-block cluster where the grid is too small for the GPU. It runs every shape the API accepts on a
 * GPU of compute capability 8.0 or newer with 157 KiB of shared memory a block (the K split needs 9.0).
 * docs/design.md, "The implicit-GEMM kernels", draws it beside fp32-v10, the direct FFMA implicit GEMM.
 *
 * F(2x2, 3x3) (winograd_f2x2.cuh) turns each 4x4 input patch into V = B^T d B and each filter into U = G g G^T;
 * the 2x2 outputs of a tile are A^T M A with M[xi] = sum over the input channels of V[xi] U[xi], for the 16
 * elements xi. Per output and input channel that is 4 FFMAs where direct convolution spends 9. The transforms are
 * additions only (G's halves are left out and M divided by their powers of two, exactly), so the result rounds
 * about as a direct sum does; docs/design.md has the error against Cin.
 *
 *   tiles         TH x TW pixels (TH/2 x TW/2 = MT Winograd tiles) x BN channels a block: 8x16 x 64, or 16x16 x 32
 *                 (Cout <= 32); with K whole or split over a cluster of 2 or 4 blocks; both chosen per shape
 *                 (choose).
 *   thread        512 threads, warp xi computes M[xi] for the block, each lane 8 Winograd tiles x 8 channels
 *                 (WinogradTile::tile, ::channel: runs of 4, so a warp's 16-byte reads of V and U are broadcasts
 *                 or consecutive words), 64 accumulators.
 *   chunk         8 input channels land raw by cp.async (implicit_gemm.cuh's StageCopies: the input window, each
 *                 output channel's 72 weights in a row, 16-byte copies where Cin allows) in a ring of 2 stages; the
 *                 block transforms chunk k + 1 (V[xi][ci][tile], U[xi][ci][channel], double-buffered) while it
 *                 multiplies chunk k: one barrier a chunk.
 *   accumulation  per output, 16 fp32 FFMA chains over the block's input channels, then the output transform.
 *   K split       the blocks of a cluster take consecutive shares of the chunks; M is linear in them, so each
 *                 block adds the others' M through distributed shared memory, in rank order, before the output
 *                 transform, each for a slice of the channels: deterministic.
 *   epilogue      M to shared memory (where the ring was), then a thread per (channel, slot of tiles): the
 *                 output transform, bias, GELU (gelu_fast, as every fp32 version) masked by the image, summed; the
 *                 slots added in a fixed order in double and reduction.cuh with one slot per (image, tile):
 *                 deterministic, or atomic.
 */
#include <stdint.h>

#include <cooperative_groups.h>

#include "implicit_gemm.cuh"
#include "kernel_desc.cuh"
#include "winograd_f2x2.cuh"

namespace {

constexpr int kXi = 16;                 /* elements of a transformed tile, 4 x 4 */
constexpr int kWinogradThreads = 512;   /* a warp per element */
constexpr int kRawStages = 2;

/* The tile shapes, in the order of their path ids (CGP_PATH_WINOGRAD_GEMM_TILE0 + index, kernel_api.h) */
struct WinogradTileShape {
    int th, tw, bn;
};
constexpr WinogradTileShape kShapes[] = {{8, 16, 64}, {16, 16, 32}};
constexpr int kShapeCount = (int)(sizeof kShapes / sizeof kShapes[0]);

constexpr int shape_index(int th, int tw, int bn)
{
    for (int i = 0; i < kShapeCount; ++i)
        if (kShapes[i].th == th && kShapes[i].tw == tw && kShapes[i].bn == bn)
            return i;
    return -1;
}

/* The K splits a cluster can take, in the order of their path ids */
constexpr int kSplits[] = {1, 2, 4};
__host__ __device__ constexpr int split_index(int split) { return split == 1 ? 0 : split == 2 ? 1 : 2; }

/* A block of TH x TW pixels x BN channels; the raw stage lands as Window and StageCopies lay it out (implicit_gemm.cuh:
 * the input window, then the weights [output channel][input channel x 9 + tap], rows kWStride apart) */
template <int TH, int TW, int BN> struct WinogradTile : Window<TH, TW, BN, kWinogradThreads> {
    using Land = Window<TH, TW, BN, kWinogradThreads>;
    using Land::kInFloats, Land::kWFloats, Land::kWStride, Land::kPlane, Land::kRowStride, Land::kThreads;
    static constexpr int kTilesX = TW / 2, kMt = TH / 2 * kTilesX; /* Winograd tiles: a row, the block */
    static constexpr int kTileGroups = kMt / 8, kChannelGroups = BN / 8;
    static constexpr int kRawFloats = kInFloats + kWFloats;
    static constexpr int kVFloats = kXi * kChunk * kMt; /* V[xi][ci][tile] */
    /* U[xi][ci][channel], input channels kUPitch floats apart: the transform's stores of 8 channels x 4 input
     * channels a warp then hit 32 banks */
    static constexpr int kUPitch = BN + 8;
    static constexpr int kTransformedFloats = kVFloats + kXi * kChunk * kUPitch;
    static constexpr int kMFloats = kXi * kMt * BN;                      /* M[xi][tile][channel] */
    static constexpr int kRingFloats = kRawStages * kRawFloats + 2 * kTransformedFloats;
    static constexpr size_t kSmemBytes = sizeof(float) * (size_t)kRingFloats;
    static constexpr unsigned kPath = CGP_PATH_WINOGRAD_GEMM_TILE0 + (unsigned)shape_index(TH, TW, BN);
    static_assert(shape_index(TH, TW, BN) >= 0, "a tile of kShapes");
    static_assert(TH % 2 == 0 && TW % 2 == 0 && kTileGroups * kChannelGroups == 32, "a warp: 8 tiles x 8 channels a lane");
    static_assert(BN % 32 == 0, "the filter transform: warps of 8 channels x 4 input channels on 32 banks");
    static_assert(kMFloats <= kRingFloats, "M fits where the ring was");

    /* Tile i and channel j of the lane with tile group tg and channel group g: runs of 4, the groups' runs
     * consecutive */
    static __device__ __forceinline__ int tile(int tg, int i) { return i / 4 * (kMt / 2) + tg * 4 + i % 4; }
    static __device__ __forceinline__ int channel(int g, int j) { return j / 4 * (BN / 2) + g * 4 + j % 4; }
};

/* The input transform of (input channel, Winograd tile) pair `pair` */
template <class T> __device__ __forceinline__ void transform_input(const float *raw, float *v_s, int pair)
{
    const int ci = pair / T::kMt, t = pair % T::kMt;
    const float *src = raw + ci * T::kPlane + 2 * (t / T::kTilesX) * T::kRowStride + 2 * (t % T::kTilesX);
    float d[4][4], v[4][4];
    load_patch(src, T::kRowStride, d);
    input_transform(d, v);
#pragma unroll
    for (int xi = 0; xi < kXi; ++xi)
        v_s[(xi * kChunk + ci) * T::kMt + t] = v[xi / 4][xi % 4];
}

/* The filter transform of (input channel, output channel) pair `pair`; a warp's 32 pairs are 8 output channels x 4
 * input channels, so that its reads (rows kWStride apart, weight_stride) and its stores (kUPitch) hit 32 banks */
template <class T> __device__ __forceinline__ void transform_filter(const float *raw, float *u_s, int pair)
{
    const int lane = pair % 32, warp = pair / 32;
    const int ci = warp % 2 * 4 + lane % 4, co = warp / 2 * 8 + lane / 4;
    const float *w = raw + T::kInFloats + co * T::kWStride + ci * kTaps;
    float g[3][3], u[4][4];
#pragma unroll
    for (int k = 0; k < kTaps; ++k)
        g[k / 3][k % 3] = w[k];
    WinogradF2x2::filter_transform_scaled(g, u);
#pragma unroll
    for (int xi = 0; xi < kXi; ++xi)
        u_s[(xi * kChunk + ci) * T::kUPitch + co] = u[xi / 4][xi % 4];
}

/* The transforms of a landed raw stage into `transformed`: V of every (input channel, Winograd tile) pair, then U
 * of every (input channel, output channel) pair, each spread over the block's threads */
template <class T> __device__ __forceinline__ void transform_chunk(const float *raw, float *transformed)
{
    for (int i = (int)threadIdx.x; i < kChunk * T::kMt; i += T::kThreads)
        transform_input<T>(raw, transformed, i);
    for (int i = (int)threadIdx.x; i < kChunk * T::kBn; i += T::kThreads)
        transform_filter<T>(raw, transformed + T::kVFloats, i);
}

/* acc[i][j] += V[xi][ci][tile i] U[xi][ci][channel j] over the chunk's 8 input channels; v, u: the thread's first
 * tile and channel at ci = 0 (channels past Cin are zero in V and U) */
template <class T> __device__ __forceinline__ void chunk_gemm(const float *v, const float *u, float (&acc)[8][8])
{
#pragma unroll
    for (int ci = 0; ci < kChunk; ++ci) {
        const float4 v0 = *reinterpret_cast<const float4 *>(v + ci * T::kMt);
        const float4 v1 = *reinterpret_cast<const float4 *>(v + ci * T::kMt + T::kMt / 2);
        const float4 u0 = *reinterpret_cast<const float4 *>(u + ci * T::kUPitch);
        const float4 u1 = *reinterpret_cast<const float4 *>(u + ci * T::kUPitch + T::kBn / 2);
        const float a[8] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w};
        const float b[8] = {u0.x, u0.y, u0.z, u0.w, u1.x, u1.y, u1.z, u1.w};
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j)
                acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
}

/* The 16 elements of M of (Winograd tile t, channel column `column`), each summed over the cluster's `split` blocks
 * in rank order (distributed shared memory on compute capability 9.0; the host splits K nowhere else), all 16 of
 * a rank's loads in flight at once */
template <class T>
__device__ __forceinline__ void cluster_m(const float *m_s, int t, int column, int split, float (&m)[kXi])
{
    const float *rank0_m = m_s;
#if __CUDA_ARCH__ >= 900
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    if (split > 1)
        rank0_m = cluster.map_shared_rank(m_s, 0);
#endif
#pragma unroll
    for (int e = 0; e < kXi; ++e)
        m[e] = rank0_m[(e * T::kMt + t) * T::kBn + column];
#if __CUDA_ARCH__ >= 900
    for (int q = 1; q < split; ++q) {
        const float *rank_m = cluster.map_shared_rank(m_s, q);
#pragma unroll
        for (int e = 0; e < kXi; ++e)
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

/* at most 128 registers a thread: one block of 512 threads an SM */
template <class T, bool kWhole>
__global__ void __launch_bounds__(kWinogradThreads, 1) winograd_gemm_conv_gelu_mean(const IgemmParams p)
{
    const int split = (int)gridDim.z, rank = (int)blockIdx.z; /* a cluster of `split` blocks shares the chunks */
    record_path(p.path_record, T::kPath + kShapeCount * (unsigned)split_index(split));
    __shared__ float slot_sums[kWinogradThreads];
    __shared__ double block_sums[T::kBn];
    float *ring = reinterpret_cast<float *>(dynamic_smem()); /* raw stages x 2, transformed chunks x 2 */
    float *transformed = ring + kRawStages * T::kRawFloats;
    const uint32_t ring_base = shared_address(ring);
    constexpr uint32_t kRawBytes = 4u * T::kRawFloats;

    const BlockPlace at = block_place<T>(p);
    const int lane = threadIdx.x % 32, xi = threadIdx.x / 32;
    const int tg = lane / T::kChannelGroups, g = lane % T::kChannelGroups;
    const int v_offset = xi * kChunk * T::kMt + tg * 4, u_offset = T::kVFloats + xi * kChunk * T::kUPitch + g * 4;

    const int per_rank = (p.chunks + split - 1) / split;
    const int first = rank * per_rank, count = max(0, min(p.chunks - first, per_rank)); /* this block's chunks */

    StageCopies<T, kWhole> copies; /* issues chunks first, first + 1, ... */
    copies.init(p, p.x + (at.n * p.cin + (int64_t)first * kChunk) * p.h * p.wd, at.oy0, at.ox0, at.c0);
#pragma unroll
    for (int s = 0; s < kRawStages; ++s) {
        if (s < count)
            copies.issue(p, at.c0, first + s, ring_base + s * kRawBytes);
        cp_async_commit();
    }
    cp_async_wait<kRawStages - 1>();
    __syncthreads(); /* chunk 0 landed */
    if (count > 0)
        transform_chunk<T>(ring, transformed);

    float acc[8][8];
    zero_fill(acc);

    for (int k = 0; k < count; ++k) {
        cp_async_wait<0>();
        /* chunk k + 1 landed and chunk k is transformed; every warp is done with raw chunk k and transformed
         * chunk k - 1, which the copies and the transform below overwrite */
        __syncthreads();
        if (k + kRawStages < count)
            copies.issue(p, at.c0, first + k + kRawStages, ring_base + (k % kRawStages) * kRawBytes);
        cp_async_commit();
        if (k + 1 < count)
            transform_chunk<T>(ring + (k + 1) % kRawStages * T::kRawFloats,
                               transformed + (k + 1) % 2 * T::kTransformedFloats);
        const float *chunk = transformed + k % 2 * T::kTransformedFloats;
        chunk_gemm<T>(chunk + v_offset, chunk + u_offset, acc);
    }

    /* M[xi][tile][channel] where the ring was, once every warp is done with it */
    cp_async_wait_all();
    __syncthreads();
    float *m_s = ring;
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int q = 0; q < 2; ++q)
            *reinterpret_cast<float4 *>(&m_s[(xi * T::kMt + T::tile(tg, i)) * T::kBn + T::channel(g, 4 * q)]) =
                make_float4(acc[i][4 * q], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]);
    cluster_barrier(split);

    /* thread: channel rank x slice + c of the block, Winograd tiles slot, slot + slot_count, ... */
    const int slice = T::kBn / split, c = (int)threadIdx.x % slice;
    const int slot = (int)threadIdx.x / slice, slot_count = T::kThreads / slice;
    const int64_t channel = at.c0 + rank * slice + c;
    const float bias = channel < p.cout ? __ldg(&p.b[channel]) : 0.0f;
    float s = 0.0f;
    for (int t = slot; t < T::kMt; t += slot_count) {
        float m[kXi], y[2][2];
        cluster_m<T>(m_s, t, rank * slice + c, split, m);
#pragma unroll
        for (int e = 0; e < kXi; ++e)
            m[e] /= WinogradF2x2::filter_scale(e / 4) * WinogradF2x2::filter_scale(e % 4);
        output_transform(m, y);
        const int64_t oy = at.oy0 + 2 * (t / T::kTilesX), ox = at.ox0 + 2 * (t % T::kTilesX);
#pragma unroll
        for (int r = 0; r < 2; ++r)
#pragma unroll
            for (int x = 0; x < 2; ++x)
                s += oy + r < p.hout && ox + x < p.wout ? gelu_fast(y[r][x] + bias) : 0.0f;
    }
    slot_totals(s, slice, slot_count, slot_sums, block_sums);
    cluster_barrier(split); /* every block has read the M of the others; block_sums are written */

    const ImageSlots slots = tile_slots(p, at.n, at.tile, split);
    const int64_t c_first = at.c0 + rank * slice;
    publish_image_sums(p.red, at.n, c_first, slice_channels(p, c_first, slice), block_sums, slots);
}

/* ---- the tiles, the choice per shape, the hooks ---- */

template <int I> using ShapeOf = WinogradTile<kShapes[I].th, kShapes[I].tw, kShapes[I].bn>;

/* a block's shared memory by tile: the dynamic ring, and the kernel's static arrays (slot sums, block sums for up
 * to 128 channels, publish_image_sums' flag) */
constexpr size_t kStaticSmemBytes = sizeof(float) * kWinogradThreads + sizeof(double) * 128 + 16;
constexpr size_t kSmemBytes[] = {ShapeOf<0>::kSmemBytes + kStaticSmemBytes, ShapeOf<1>::kSmemBytes + kStaticSmemBytes};
static_assert(kShapeCount == 2, "a kSmemBytes entry and a launch case for every shape");
/* the shared memory of the tile that runs any Cout (8x16 x 64) */
constexpr size_t kMinSmemBytes = kSmemBytes[0];

/* The tile and K split with the least estimated time. Every tile does the same work a chunk (16 x MT x BN x 8
 * FFMAs, MT x BN = 2048) with one block of 16 warps an SM, so a block's time is its chunks plus one (the
 * pipeline's start and the epilogue), plus one more for a split's exchange of M; blocks run in waves of the SM
 * count. Tiles beyond the block's shared memory are left out, the 32-channel tile unless Cout <= 32; K is split
 * only on compute capability 9.0 (clusters) and with at least 2 chunks a block. */
TileSplit choose(const cgp_problem *p, const cgp_device_info *d)
{
    const int64_t chunks = ceil_div(p->cin, kChunk);
    return least_cost(0, kShapeCount, kSplits, [&](int i, int split) {
        const WinogradTileShape t = kShapes[i];
        if ((t.bn == 32 && p->cout > 32) || kSmemBytes[i] > d->smem_per_block_optin ||
            (split > 1 && (d->cc_major < 9 || chunks < 2 * split)))
            return -1.0;
        const ImplicitGemmGeometry g = implicit_gemm_geometry(p, t.th, t.tw, t.bn);
        const int64_t blocks = p->n * g.tiles_per_image * g.channel_blocks * split;
        return (double)(ceil_div(blocks, d->sm_count) * (ceil_div(chunks, split) + 1 + (split > 1 ? 1 : 0)));
    });
}

template <class T>
cudaError_t launch_tile(const cgp_launch_args *a, TileSplit choice, const ImplicitGemmGeometry &g,
                        cudaStream_t stream)
{
    IgemmParams p = implicit_gemm_params(a, g);
    const void *kernel = implicit_gemm_whole_chunks(a)
                             ? reinterpret_cast<const void *>(&winograd_gemm_conv_gelu_mean<T, true>)
                             : reinterpret_cast<const void *>(&winograd_gemm_conv_gelu_mean<T, false>);
    return launch_implicit_gemm(kernel, p, g, a->p.n, choice.split, kWinogradThreads, T::kSmemBytes, stream);
}

ImplicitGemmGeometry geometry_of(const cgp_problem *p, TileSplit c)
{
    return implicit_gemm_geometry(p, kShapes[c.tile].th, kShapes[c.tile].tw, kShapes[c.tile].bn);
}

/* fp32-v11's hooks (kernel_desc.cuh) */
struct WinogradGemmVersion : NoStageSplit {
    static constexpr cgp_precision precision = CGP_PRECISION_FP32;

    static const char *unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        if (const char *why = ffma_gemm_unsupported<kMinSmemBytes>(p, d))
            return why;
        const TileSplit c = choose(p, d);
        return implicit_gemm_split_grid_unsupported(p, geometry_of(p, c), c.split);
    }

    static size_t workspace_bytes(const cgp_problem *p, const cgp_device_info *d)
    {
        return implicit_gemm_workspace_bytes(p, geometry_of(p, choose(p, d)));
    }

    static const char *path(const cgp_problem *p, const cgp_device_info *d)
    {
        const TileSplit c = choose(p, d);
        return cgp_path_name(CGP_PATH_WINOGRAD_GEMM_TILE0 + (unsigned)(c.tile + kShapeCount * split_index(c.split)));
    }

    /* Measured on an H200 (docs/perf-log.md, "Issue 18"): with Cin = 3 and 8 fp32-v10 was faster, with Cin = 16
     * they were even, with 32 and more this version was faster */
    static const char *defers(const cgp_problem *p, const cgp_device_info *)
    {
        return p->cin < 16 ? "fewer than 16 input channels, where the transforms and the epilogue cost more than "
                             "the fewer products save (fp32-v10 is faster)"
                           : nullptr;
    }

    static cudaError_t launch(const cgp_launch_args *a, const cgp_device_info *d, cudaStream_t s)
    {
        const TileSplit c = choose(&a->p, d);
        const ImplicitGemmGeometry g = geometry_of(&a->p, c);
        switch (c.tile) {
        case 0: return launch_tile<ShapeOf<0>>(a, c, g, s);
        default: return launch_tile<ShapeOf<1>>(a, c, g, s);
        }
    }
};

} // namespace

extern "C" const cgp_kernel_desc cgp_kernel_fp32_v11 = kernel_desc<WinogradGemmVersion>(
    31, "fp32-v11",
    "Winograd F(2x2,3x3) as 16 FFMA GEMMs for any channel count: tiles of 8x16, 8x8 or 16x16 pixels x 64, 128 or "
    "32 channels (chosen per shape), a warp per transformed element, 8 tiles x 8 channels a thread, 8 input "
    "channels a chunk transformed in shared memory while the previous one is multiplied, K split over a cluster "
    "for small grids");
