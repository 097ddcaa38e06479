/*
 * fused_fp32_implicit_gemm.cu - the strict-fp32 fused kernel for any channel count (library layer): fp32-v10
 * (version 10), the implicit GEMM of implicit_gemm.cuh in FFMA, register-blocked as an SGEMM is, K split across a
 * thread-block cluster where the grid is too small for the GPU. It runs every shape the API accepts on a GPU of
 * compute capability 8.0 or newer (cp.async; the K split needs 9.0). docs/design.md, "The implicit-GEMM kernels",
 * draws it beside the tensor-core ones.
 *
 *   tiles         TH x TW pixels x BN channels a block (FfmaTile, a template): 16x16, 8x16 or 8x8 pixels x 64
 *                 channels, 8x16 x 128, and 16x16 or 8x8 x 32 for Cout <= 32; with K whole or split over a
 *                 cluster of 2 or 8 blocks; both chosen per shape by a cost model (choose).
 *   thread        8 consecutive pixels of one output row x RC channels (8; 4 in the 32-channel tiles) in
 *                 registers, 64 (32) accumulators. Its channels are runs of 4 consecutive ones (FfmaTile::channel),
 *                 read as one 16-byte word a run; the 8 channel groups of a warp read 8 consecutive words, its 4
 *                 pixel segments start on distinct banks of the window: no bank conflict.
 *   stage         a chunk of 8 input channels lands by cp.async (FfmaStageCopies) in a ring of 3 stages: the input
 *                 window as implicit_gemm.cuh's Window lays it out, the weights transposed ([input channel x 9 +
 *                 tap][output channel], 4-byte copies, a thread copying one output channel). Used as it landed:
 *                 one barrier a stage.
 *   inner loop    per input channel and kernel row: the 10 window values of the thread's row segment (read once
 *                 for the 3 taps of the row), then per tap RC weights and 8 x RC FFMA (93% of the loop's
 *                 instructions); each load is issued one step ahead of the FFMAs that use it. A chunk walks
 *                 only its live channels, so Cin = 3 does 3/8 of a chunk's work.
 *   accumulation  one fp32 FFMA chain per output over its block's Cin x 9 products, as fp32-v1.
 *   K split       the blocks of a cluster take consecutive shares of the chunks, land their partial sums in their
 *                 own shared memory and add each other's through distributed shared memory, each block for a
 *                 slice of the channels, in rank order (split_epilogue): deterministic.
 *   epilogue      bias, GELU (gelu_fast, as every fp32 version) masked by the image, summed over the thread's
 *                 pixels, then over the warp's 4 pixel segments (shuffles), the warp rows in a fixed order
 *                 (sum_slots) and reduction.cuh with one slot per (image, tile): deterministic, or atomic.
 */
#include <math.h>
#include <stdint.h>

#include <utility>

#include "implicit_gemm.cuh"
#include "kernel_desc.cuh"
#include "path_names.cuh"

namespace {

constexpr int kSegmentPixels = 8;      /* pixels a thread: consecutive, in one output row */
constexpr int kSegmentWindow = kSegmentPixels + 2;
constexpr int kFfmaStages = 3;
constexpr int kBlockThreadsPerSm = 512; /* 128 registers a thread: 2 blocks of 256 threads an SM */

/* The tile shapes, in the order of their path ids (CGP_PATH_FFMA_IGEMM_TILE0 + index, kernel_info.h) and of the
 * kernels launch instantiates */
struct TileShape {
    int th, tw, bn, rc;
};
constexpr TileShape kTileShapes[] = {{16, 16, 64, 8}, {8, 16, 64, 8}, {8, 8, 64, 8},
                                     {8, 16, 128, 8}, {16, 16, 32, 4}, {8, 8, 32, 4}};
constexpr int kTileCount = (int)(sizeof kTileShapes / sizeof kTileShapes[0]);

/* The index of a tile shape in kTileShapes */
constexpr int tile_index(int th, int tw, int bn, int rc)
{
    return index_of(kTileShapes,
                    [=](const TileShape &t) { return t.th == th && t.tw == tw && t.bn == bn && t.rc == rc; });
}

/* The K splits a cluster can take (blocks sharing a tile's input channels), in the order of their path ids */
constexpr int kSplits[] = {1, 2, 8};
__host__ __device__ constexpr int split_index(int split) { return split == 1 ? 0 : split == 2 ? 1 : 2; }

/* A block of TH x TW pixels x BN channels, each thread 8 pixels x RC channels; warps are 8 channel groups x 4
 * pixel segments */
template <int TH, int TW, int BN, int RC> struct FfmaGrid {
    static constexpr int kSegments = TH * TW / kSegmentPixels, kGroups = BN / RC;
    static constexpr int kThreads = kSegments * kGroups;
    static constexpr int kWarpGroups = kGroups / 8; /* warps side by side over the channel groups */
    static constexpr int kWarpRows = kSegments / 4; /* warps over the pixel segments: the sum slots of a channel */
    static_assert(TW % kSegmentPixels == 0 && kSegments % 4 == 0 && kGroups % 8 == 0, "whole warps");
};

/* The tile: the input window lands as Window lays it out; the weights land transposed, [input channel x 9 +
 * tap][output channel], so that a thread's channels are consecutive floats (FfmaTile::channel) */
template <int TH, int TW, int BN, int RC>
struct FfmaTile : FfmaGrid<TH, TW, BN, RC>, Window<TH, TW, BN, FfmaGrid<TH, TW, BN, RC>::kThreads> {
    using Grid = FfmaGrid<TH, TW, BN, RC>;
    using Land = Window<TH, TW, BN, Grid::kThreads>;
    using Grid::kSegments, Grid::kGroups, Grid::kThreads, Grid::kWarpGroups, Grid::kWarpRows;
    using Land::kTh, Land::kTw, Land::kBn, Land::kRowStride, Land::kArea, Land::kPlane, Land::kInFloats,
        Land::kInSlots;
    static constexpr int kRc = RC;
    static constexpr int kQuads = RC / 4; /* a thread's channels: kQuads runs of 4 consecutive */
    static constexpr int kWFloats = kChunkK * BN;
    static constexpr int kStageFloats = kInFloats + kWFloats;
    static constexpr size_t kSmemBytes = sizeof(float) * (size_t)kFfmaStages * kStageFloats;
    /* the cgp_path_id a launch of this tile records: CGP_PATH_FFMA_IGEMM_TILE0 + its index in kTileShapes */
    static constexpr unsigned kPath = CGP_PATH_FFMA_IGEMM_TILE0 + (unsigned)tile_index(TH, TW, BN, RC);
    static_assert(tile_index(TH, TW, BN, RC) >= 0, "a tile of kTileShapes");
    static_assert(RC % 4 == 0 && kThreads % BN == 0 && kChunkK % (kThreads / BN) == 0, "whole weight copies");
    static_assert(TH * TW * BN <= kFfmaStages * kStageFloats, "a K split's partials fit in the ring");

    /* Channel j of group g: the quads of the 8 groups of a warp are 8 consecutive 16-byte words, free of bank
     * conflicts */
    static __device__ __forceinline__ int channel(int g, int j) { return j / 4 * (BN / kQuads) + g * 4 + j % 4; }
};

/* The thread's cp.async copies of a stage, 4 bytes each. Input window: element i = thread + s x threads as in
 * StageCopies (its offset from the chunk's first plane worked out once, where it lands on the fly). Weights:
 * element e = thread + s x threads is output channel e % BN, (input channel, tap) e / BN of the chunk: a thread
 * copies one output channel, so its source and destination advance by constants. */
template <class T, bool kWhole> struct FfmaStageCopies {
    static constexpr int kInElems = kChunk * T::kArea;
    static constexpr bool kInSpare = T::kInSlots * T::kThreads > kInElems;
    static constexpr int kKStep = T::kThreads / T::kBn; /* (input channel, tap) rows a slot apart */
    static constexpr int kWSlots = kChunkK / kKStep;

    uint32_t in_src[T::kInSlots]; /* the slot's element: its offset from its chunk's first plane (0 outside) */
    uint32_t in_image;            /* bit s: slot s is inside the image */
    int64_t w_row;                /* the thread's output channel's first weight (0 past Cout) */
    bool w_inside;                /* its output channel is below Cout */

    __device__ __forceinline__ void init(const IgemmParams &p, int64_t oy0, int64_t ox0, int64_t c0)
    {
        in_image = 0;
#pragma unroll
        for (int s = 0; s < T::kInSlots; ++s) {
            int64_t offset;
            const bool inside = window_element<T>(p, (int)threadIdx.x + s * T::kThreads, oy0, ox0, &offset);
            in_image |= inside ? 1u << s : 0u;
            in_src[s] = inside ? (uint32_t)offset : 0u;
        }
        const int64_t co = c0 + (int)threadIdx.x % T::kBn;
        w_inside = co < p.cout;
        w_row = w_inside ? co * p.cin * kTaps : 0;
    }

    /* The copies of chunk `chunk` of image n into the stage at shared address `stage` */
    __device__ __forceinline__ void issue(const IgemmParams &p, int64_t n, int chunk, uint32_t stage)
    {
        const int64_t ci0 = (int64_t)chunk * kChunk;
        const int left = (int)(p.cin - ci0 < kChunk ? p.cin - ci0 : kChunk); /* the chunk's channels */
        const float *x_chunk = p.x + (n * p.cin + ci0) * p.h * p.wd;
#pragma unroll
        for (int s = 0; s < T::kInSlots; ++s) {
            const int i = (int)threadIdx.x + s * T::kThreads;
            if (kInSpare && s == T::kInSlots - 1 && i >= kInElems)
                continue;
            const int ci = i / T::kArea;
            const bool inside = (in_image >> s & 1u) && (kWhole || ci < left);
            cp_async_4(stage + 4u * (uint32_t)(i + ci * (T::kPlane - T::kArea)), x_chunk + in_src[s], inside ? 4u : 0u);
        }
        const int k0 = (int)threadIdx.x / T::kBn;
        const float *w_src = p.w + w_row + ci0 * kTaps + k0;
        const uint32_t w_dst = stage + 4u * (uint32_t)(T::kInFloats + k0 * T::kBn + (int)threadIdx.x % T::kBn);
#pragma unroll
        for (int s = 0; s < kWSlots; ++s) {
            const bool inside = w_inside && (kWhole || (k0 + s * kKStep) / kTaps < left);
            cp_async_4(w_dst + 4u * s * kKStep * T::kBn, inside ? w_src + s * kKStep : p.w, inside ? 4u : 0u);
        }
    }
};

/* The RC weights of a thread's channels at one (input channel, tap) row of the landed weights */
template <class T> __device__ __forceinline__ void load_weights(const float *w, float (&wv)[T::kRc])
{
#pragma unroll
    for (int q = 0; q < T::kQuads; ++q) {
        const float4 v = *reinterpret_cast<const float4 *>(&w[q * (T::kBn / T::kQuads)]);
        wv[4 * q] = v.x;
        wv[4 * q + 1] = v.y;
        wv[4 * q + 2] = v.z;
        wv[4 * q + 3] = v.w;
    }
}
/* The thread's FFMAs over the live input channels of one stage; in: the window at the thread's row segment;
 * w: the weights of its first channel. Each load runs one step ahead of the FFMAs that use it: the next kernel
 * row's 10 window values (past the last live channel that read lands in the stage's weights and is not used) and
 * the next tap's weights (past the last tap of the last live channel, this channel's first tap again). */
template <class T>
__device__ __forceinline__ void stage_ffmas(const float *in, const float *w, int live,
                                            float (&acc)[kSegmentPixels][T::kRc])
{
    float row[kSegmentWindow], wv[T::kRc];
#pragma unroll
    for (int i = 0; i < kSegmentWindow; ++i)
        row[i] = in[i];
    load_weights<T>(w, wv);
#pragma unroll 1
    for (int ci = 0; ci < live; ++ci, in += T::kPlane, w += kTaps * T::kBn) {
        const float *w_next_channel = ci + 1 < live ? w + kTaps * T::kBn : w;
#pragma unroll
        for (int ky = 0; ky < 3; ++ky) {
            const float *next = ky < 2 ? in + (ky + 1) * T::kRowStride : in + T::kPlane;
            float next_row[kSegmentWindow];
#pragma unroll
            for (int i = 0; i < kSegmentWindow; ++i)
                next_row[i] = next[i];
#pragma unroll
            for (int kx = 0; kx < 3; ++kx) {
                const int tap = ky * 3 + kx;
                float wn[T::kRc];
                load_weights<T>(tap < 8 ? w + (tap + 1) * T::kBn : w_next_channel, wn);
#pragma unroll
                for (int i = 0; i < kSegmentPixels; ++i)
#pragma unroll
                    for (int j = 0; j < T::kRc; ++j)
                        acc[i][j] = fmaf(row[i + kx], wv[j], acc[i][j]);
#pragma unroll
                for (int j = 0; j < T::kRc; ++j)
                    wv[j] = wn[j];
            }
#pragma unroll
            for (int i = 0; i < kSegmentWindow; ++i)
                row[i] = next_row[i];
        }
    }
}

/* The epilogue of a block of a K-split cluster: its partial sums land in its shared memory, [pixel][channel], for
 * split_sum_publish (implicit_gemm.cuh) to add across the cluster and publish. Called by every thread of the
 * block. */
template <class T>
__device__ __forceinline__ void split_epilogue(const IgemmParams &p, const float (&acc)[kSegmentPixels][T::kRc],
                                               float *ring, int pixel0, int group, int64_t oy0, int64_t ox0,
                                               int64_t c0, int split, int rank, float *slot_sums, double *block_sums,
                                               int64_t n, const ImageSlots &slots)
{
    cp_async_wait_all();
    __syncthreads(); /* no copy lands in the ring any more, no warp reads it */
#pragma unroll
    for (int i = 0; i < kSegmentPixels; ++i)
#pragma unroll
        for (int q = 0; q < T::kQuads; ++q)
            *reinterpret_cast<float4 *>(&ring[(pixel0 + i) * T::kBn + T::channel(group, 4 * q)]) =
                make_float4(acc[i][4 * q], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]);
    split_sum_publish<T>(p, ring, oy0, ox0, c0, split, rank, slot_sums, block_sums, n, slots,
                         [](float v) { return gelu_fast(v); });
}

/* at most 128 registers a thread (kBlockThreadsPerSm) */
template <class T, bool kWhole>
__global__ void __launch_bounds__(T::kThreads, kBlockThreadsPerSm / T::kThreads)
    ffma_igemm_conv_gelu_mean(const IgemmParams p)
{
    const int split = (int)gridDim.z, rank = (int)blockIdx.z; /* a cluster of `split` blocks shares the chunks */
    record_path(p.path_record, T::kPath + kTileCount * (unsigned)split_index(split));
    __shared__ float warp_sums[T::kWarpRows * T::kBn];
    __shared__ double block_sums[T::kBn];
    float *ring = reinterpret_cast<float *>(dynamic_smem());
    const uint32_t ring_base = shared_address(ring);
    constexpr uint32_t kStageBytes = 4u * T::kStageFloats;

    const BlockPlace at = block_place<T>(p);
    const int64_t n = at.n, tile = at.tile, oy0 = at.oy0, ox0 = at.ox0, c0 = at.c0;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int group = warp % T::kWarpGroups * 8 + lane % 8; /* channels T::channel(group, j) of the block */
    const int warp_row = warp / T::kWarpGroups;
    const int segment = warp_row * 4 + lane / 8;
    const int row = segment / (T::kTw / kSegmentPixels), col = segment % (T::kTw / kSegmentPixels) * kSegmentPixels;
    const int in_offset = row * T::kRowStride + col, w_offset = T::kInFloats + T::channel(group, 0);

    const int per_rank = (p.chunks + split - 1) / split;
    const int first = rank * per_rank, count = max(0, min(p.chunks - first, per_rank)); /* this block's chunks */

    FfmaStageCopies<T, kWhole> copies;
    copies.init(p, oy0, ox0, c0);
#pragma unroll
    for (int s = 0; s < kFfmaStages - 1; ++s) {
        if (s < count)
            copies.issue(p, n, first + s, ring_base + s * kStageBytes);
        cp_async_commit();
    }

    float acc[kSegmentPixels][T::kRc];
    zero_fill(acc);

    for (int k = 0; k < count; ++k) {
        const int slot = k % kFfmaStages;
        const float *stage = ring + slot * T::kStageFloats;
        cp_async_wait<kFfmaStages - 2>();
        __syncthreads(); /* the stage landed; every warp is done with the stage the next copies overwrite */
        if (k + kFfmaStages - 1 < count)
            copies.issue(p, n, first + k + kFfmaStages - 1,
                         ring_base + (slot == 0 ? kFfmaStages - 1 : slot - 1) * kStageBytes);
        cp_async_commit();
        const int64_t left = p.cin - (int64_t)(first + k) * kChunk;
        stage_ffmas<T>(stage + in_offset, stage + w_offset, left < kChunk ? (int)left : kChunk, acc);
    }

    const ImageSlots slots = tile_slots(p, n, tile, split);
    if (split > 1) {
        split_epilogue<T>(p, acc, ring, row * T::kTw + col, group, oy0, ox0, c0, split, rank, warp_sums, block_sums,
                          n, slots);
        return;
    }
    const bool row_inside = oy0 + row < p.hout;
#pragma unroll
    for (int j = 0; j < T::kRc; ++j) {
        const int channel = T::channel(group, j);
        const float bias = c0 + channel < p.cout ? __ldg(&p.b[c0 + channel]) : 0.0f;
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < kSegmentPixels; ++i)
            s += row_inside && ox0 + col + i < p.wout ? gelu_fast(acc[i][j] + bias) : 0.0f;
        s += __shfl_xor_sync(0xffffffffu, s, 8);
        s += __shfl_xor_sync(0xffffffffu, s, 16);
        if (lane < 8)
            warp_sums[warp_row * T::kBn + channel] = s;
    }
    sum_slots<T::kBn, T::kWarpRows, T::kBn>([&](int c) { return &warp_sums[c]; }, block_sums);
    const int nc = (int)(p.cout - c0 < T::kBn ? p.cout - c0 : T::kBn);
    publish_image_sums(p.red, n, c0, nc, block_sums, slots);
}

/* ---- the tiles, the choice per shape, the hooks ---- */

template <int I> using TileOf = FfmaTile<kTileShapes[I].th, kTileShapes[I].tw, kTileShapes[I].bn, kTileShapes[I].rc>;

/* The shared memory of every tile, by index, and the least a tile of 64 or more channels needs (one of those
 * runs any Cout; choose takes the tiles that fit) */
struct SmemTable {
    size_t bytes[kTileCount];
};
template <int I> constexpr size_t smem_of() { return TileOf<I>::kSmemBytes; }
template <int... I> constexpr SmemTable smem_table(std::integer_sequence<int, I...>) { return {{smem_of<I>()...}}; }
constexpr SmemTable kSmem = smem_table(std::make_integer_sequence<int, kTileCount>());
constexpr size_t least_wide_smem()
{
    size_t least = 0;
    for (int i = 0; i < kTileCount; ++i)
        if (kTileShapes[i].bn >= 64 && (least == 0 || kSmem.bytes[i] < least))
            least = kSmem.bytes[i];
    return least;
}
constexpr size_t kMinSmemBytes = least_wide_smem();

/* The tile and K split with the least estimated time. A block's time is its padded work (pixels x channels x its
 * share of the chunks, the 4-channel tiles' extra weight loads counted, plus 3 chunks' worth for a split's exchange
 * of partials) over an efficiency that grows as the square root of the warps resident on an SM, up to 16; blocks
 * run in waves of (SMs x resident blocks). Channel blocks past Cout and pixels past the image count as work: that is
 * what the smaller tiles save. Tiles beyond the block's shared memory are left out; K is split only on compute
 * capability 9.0 with a build for it (clusters, sm90_code_runs) and with at least 2 chunks a block. The constants are
 * fitted to an H200 sweep of every tile and split on five zoo shapes (docs/perf-log.md, "Issue 18"), where this
 * choice came within 2% of the fastest on four and 10% on the fifth; clusters of 4 measured slower than those of 2
 * and 8 there and are not offered. */
TileSplit choose(const cgp_problem *p, const cgp_device_info *d)
{
    const int64_t chunks = ceil_div(p->cin, kChunk);
    return least_cost(0, kTileCount, kSplits, [&](int i, int split) {
        const TileShape t = kTileShapes[i];
        if ((t.bn == 32 && p->cout > 32) || kSmem.bytes[i] > d->smem_per_block_optin ||
            (split > 1 && (!sm90_code_runs(d) || chunks < 2 * split || t.bn % split != 0)))
            return -1.0;
        const ImplicitGemmGeometry g = implicit_gemm_geometry(p, t.th, t.tw, t.bn);
        const int threads = t.th * t.tw / kSegmentPixels * (t.bn / t.rc);
        const int64_t by_smem = max((int64_t)1, blocks_by_shared_memory(d, kSmem.bytes[i]));
        const int64_t by_threads = kBlockThreadsPerSm / threads;
        const int64_t fit = by_smem < by_threads ? by_smem : by_threads; /* blocks an SM holds */
        const Residency r = residency(p->n * g.tiles_per_image * g.channel_blocks * split, d->sm_count, fit);
        const double warps = r.resident * threads / 32.0;
        const double efficiency = warps >= 16.0 ? 1.0 : sqrt(warps / 16.0);
        const double block_chunks = (double)ceil_div(chunks, split) + (split > 1 ? 3.0 : 0.0);
        const double work = (double)t.th * t.tw * t.bn * block_chunks * (t.rc == 4 ? 1.15 : 1.0);
        return (double)r.waves * r.resident * work / efficiency;
    });
}

ImplicitGemmGeometry geometry(const cgp_problem *p, TileSplit c)
{
    const TileShape t = kTileShapes[c.tile];
    return implicit_gemm_geometry(p, t.th, t.tw, t.bn);
}

/* f(TileOf<i>{}) for tile i of kTileShapes, known at run time (with_index) */
template <class F> auto with_tile(int i, F f)
{
    return with_index<kTileCount>(i, [&](auto tile) { return f(TileOf<decltype(tile)::value>{}); });
}

/* The kernel of tile T (every chunk whole where Cin % 8 = 0: no channel past Cin to test) and its shared memory */
template <class T> void configure_tile(const cgp_problem *p, cgp_kernel_config *c, unsigned path)
{
    const void *kernel = p->cin % kChunk == 0 ? reinterpret_cast<const void *>(&ffma_igemm_conv_gelu_mean<T, true>)
                                              : reinterpret_cast<const void *>(&ffma_igemm_conv_gelu_mean<T, false>);
    configured(c, kernel, T::kSmemBytes, path);
}

/* Whether choose takes tile i with K split over `split` blocks on some shape: K whole, split over 2 and 8, every tile
 * but 8x16 px x 128 ch split over 2, which choose never takes on an H200 (tests/cpu/cpu_paths.c) */
constexpr bool path_reached(int i, int split) { return !(kTileShapes[i].bn == 128 && split == 2); }
constexpr int reached_path_count()
{
    int count = 0;
    for (int split : kSplits)
        for (int i = 0; i < kTileCount; ++i)
            count += path_reached(i, split) ? 1 : 0;
    return count;
}
/* Their path ids, ascending: CGP_PATH_FFMA_IGEMM_TILE0 + the tile's index + kTileCount x the split's */
constexpr PathList<reached_path_count()> reached_paths()
{
    PathList<reached_path_count()> l{};
    int count = 0;
    for (int split : kSplits)
        for (int i = 0; i < kTileCount; ++i)
            if (path_reached(i, split))
                l.ids[count++] = (unsigned short)(CGP_PATH_FFMA_IGEMM_TILE0 + i + kTileCount * split_index(split));
    return l;
}

/* fp32-v10's hooks (kernel_desc.cuh) */
struct FfmaImplicitGemmVersion : NoStageSplit {
    static constexpr cgp_precision precision = CGP_PRECISION_FP32;
    static constexpr auto kPaths = reached_paths();

    static const char *unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        if (const char *why = ffma_gemm_unsupported<kMinSmemBytes>(p, d))
            return why;
        const TileSplit c = choose(p, d);
        return implicit_gemm_split_grid_unsupported(p, geometry(p, c), c.split);
    }

    static void configure(const cgp_problem *p, const cgp_device_info *d, cgp_kernel_config *c)
    {
        const TileSplit choice = choose(p, d);
        c->tile = choice.tile;
        c->split = choice.split;
        c->workspace_bytes = implicit_gemm_workspace_bytes(p, geometry(p, choice));
        const unsigned path = CGP_PATH_FFMA_IGEMM_TILE0 + (unsigned)(c->tile + kTileCount * split_index(c->split));
        with_tile(c->tile, [&](auto t) { configure_tile<decltype(t)>(p, c, path); });
    }

    static cudaError_t launch(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *,
                              cudaStream_t s)
    {
        const ImplicitGemmGeometry g = geometry(&a->p, TileSplit{c->tile, c->split});
        const int threads = with_tile(c->tile, [](auto t) { return decltype(t)::kThreads; });
        return launch_implicit_gemm(c->kernel[0], implicit_gemm_params(a, g), g, a->p.n, c->split, threads,
                                    c->smem_bytes, s);
    }
};

/* What fp32-v10 is: the implicit GEMM in FFMA on the tiles of kTileShapes (warps: the tile's), the stages by
 * cp.async, weights and window alike, K split over kSplits' clusters, one tile a block */
constexpr cgp_kernel_tile kind_tile(const TileShape &t)
{
    return cgp_kernel_tile{(short)t.th, (short)t.tw, (short)t.bn};
}
constexpr Kind kFfmaImplicitGemmKind =
    Kind(CGP_PIPE_FFMA, CGP_ALGORITHM_IMPLICIT_GEMM)
        .tiles(kTileShapes, kind_tile)
        .k_splits(kSplits)
        .needs_cc(8, 0)
        .smem(kMinSmemBytes);

} // namespace

/* Its paths' names (path_names.cuh), from its tiles and K splits */
CGP_DEFINE_PATH_NAMES(cgp_paths_ffma_igemm, CGP_PATH_FFMA_IGEMM_TILE0, tile_path_names("ffma ", kTileShapes, kSplits))

CGP_DEFINE_KERNEL_DESC(cgp_kernel_fp32_v10, FfmaImplicitGemmVersion, 10, "fp32-v10",
                       "implicit GEMM in FFMA for any channel count: tiles of 16x16, 8x16 or 8x8 pixels x 128, 64 or "
                       "32 channels (chosen per shape), 8 pixels x 8 channels a thread, 8 input channels x 9 taps a "
                       "stage in a 3-stage cp.async ring, one fp32 chain per output, bias/GELU/mean in registers",
                       kFfmaImplicitGemmKind)
