/*
 * implicit_gemm.cuh - what the implicit-GEMM fused kernels share (library layer): tf32-v9 and 3xtf32-v9 on mma.sync
 * (fused_implicit_gemm.cu), tf32-v10 and 3xtf32-v10 on wgmma (fused_implicit_gemm_wgmma.cu), tf32-v11 and 3xtf32-v11
 * on wgmma with resident weights (fused_resident_wgmma.cu).
 *
 *   GEMM       M = the output pixels of a TH x TW tile of one image, N = a block of BN output channels, K = Cin x 9
 *              taps, walked in chunks of kChunk = 8 input channels (one MMA's K), the 9 taps of a chunk in one
 *              pipeline stage. Grid: (image, tile) x channel block.
 *   Window     the layout a stage's copies land in: the chunk's (TH + 2) x (TW + 2) input window, [channel][row]
 *              [column] with the plane padded (plane_stride), zero outside the image and past Cin (which gives
 *              padding "same"); the BN x 72 weights of the chunk in their own order, [output channel][input
 *              channel][tap], rows padded (weight_stride), zero past Cout and Cin.
 *   StageCopies   a thread's cp.async copies of a stage: 4 bytes an input element; 16 bytes of weights where Cin
 *              is a multiple of 8 and the weights 16-byte aligned (kWhole), else 4 (or one of the two: kParts);
 *              where each lands and reads from is worked out once per block.
 *   WindowPositionCopies   the input window alone, a thread's copies by window position: 4 bytes an element,
 *              one 32-bit offset a position kept and a bit whether it is in the image, the channel's address worked
 *              out once a channel (fewer registers than StageCopies' input slots where a window has many elements a
 *              thread: fp32-v12's 16x32 tile; few instructions a copy: tf32-v21's producer).
 *   K split    split_sum_publish: the blocks of a thread-block cluster each computed the same tile over a share of
 *              the chunks and landed their partial sums in shared memory; each adds all of them for a slice of the
 *              channels, in rank order (distributed shared memory), and publishes it (fp32-v10, tf32-v10,
 *              3xtf32-v10).
 *   epilogue   lane_gelu_sums: bias, GELU (gelu_x2; 3xTF32 gelu_x2_fine) of the lane's accumulators in the
 *              mma.sync C layout, masked by the image and Cout, summed per channel; publish_block_sums: across the
 *              lanes (shuffles, warp_channel_sums), the warps of the block in a fixed order (sum_slots), then
 *              reduction.cuh with one slot per (image, tile): deterministic, or atomic.
 *   host       the grid of a tile shape (ImplicitGemmGeometry), the kernel parameters, the limits of the grid (with
 *              a K split: implicit_gemm_split_grid_unsupported) and of the FFMA GEMMs' GPU and image
 *              (ffma_gemm_unsupported); the search of a version's tiles and K splits for the least estimated cost
 *              (least_cost); with_index, a tile index known at run time made a compile-time one; index_of, a
 *              tile's index in its family's list.
 */
#ifndef CGP_IMPLICIT_GEMM_CUH
#define CGP_IMPLICIT_GEMM_CUH

#include <stdint.h>

#include <initializer_list>
#include <type_traits>
#include <utility>

#include <cooperative_groups.h>

#include "async_copy.cuh"
#include "cgp.h"
#include "gelu.cuh"
#include "kernel_api.h"
#include "kernel_desc.cuh"
#include "path_record.cuh"
#include "reduction.cuh"

namespace {

constexpr int kChunk = 8;                 /* input channels a stage: the K of one MMA */
constexpr int kTaps = 9;
constexpr int kChunkK = kChunk * kTaps;   /* K a stage */

/* The stride of an input-window channel plane: lanes (group g, tig t) read plane t at consecutive pixels g, so
 * the stride is 8 or 24 modulo 32 banks */
constexpr int plane_stride(int area)
{
    int s = area;
    while (s % 32 != 8 && s % 32 != 24)
        ++s;
    return s;
}

/* The stride of an output channel's weights: lanes read channel g, input channel t, one tap (tf32-v9's B
 * fragments; tf32-v10's conversion reads channels 8 at a time alike): g * s + 9 t must hit 32 different banks */
constexpr bool weight_stride_conflict_free(int s)
{
    unsigned banks = 0;
    for (int g = 0; g < 8; ++g)
        for (int t = 0; t < 4; ++t)
            banks |= 1u << ((g * s + kTaps * t) % 32);
    return banks == 0xffffffffu;
}
constexpr int weight_stride()
{
    int s = kChunkK;
    while (!weight_stride_conflict_free(s))
        ++s;
    return s;
}

enum Precision { kTf32 = CGP_PRECISION_TF32, kTf32x3 = CGP_PRECISION_TF32X3 };

/* The landing layout of a block of kThreads threads computing TH x TW pixels x BN channels */
template <int TH, int TW, int BN, int kThreads_> struct Window {
    static constexpr int kTh = TH, kTw = TW, kBn = BN, kThreads = kThreads_;
    static constexpr int kRowStride = TW + 2, kArea = (TH + 2) * kRowStride;
    static constexpr int kPlane = plane_stride(kArea);
    static constexpr int kWStride = weight_stride();
    static constexpr int kInFloats = kChunk * kPlane, kWFloats = BN * kWStride; /* a stage: input, then weights */
    static constexpr int kInSlots = (kChunk * kArea + kThreads - 1) / kThreads;
    static_assert(BN <= kThreads, "sum_slots: a thread per channel");
};

struct IgemmParams {
    const float *x, *w, *b;
    ReduceArgs red;
    int64_t cin, cout, h, wd, hout, wout;
    int64_t tiles_x, tiles_per_image, channel_blocks;
    int pad, chunks;
    unsigned *path_record; /* the plan's word for the path this launch takes (path_record.cuh) */
    unsigned *launch_words; /* the plan's launch-wide words (kernel_api.h), zero between runs */
    float *rounded_w;       /* tf32-v15, 3xtf32-v15: the weights rounded once a launch (workspace), else NULL */
};

/* The block's place in the grid (image, tile) x channel block [x K share]: image n, its tile, the tile's first
 * output row and column, the block's first output channel */
struct BlockPlace {
    int64_t n, tile, oy0, ox0, c0;
};
template <class T> __device__ __forceinline__ BlockPlace block_place(const IgemmParams &p)
{
    BlockPlace b;
    b.n = blockIdx.x / p.tiles_per_image;
    b.tile = blockIdx.x % p.tiles_per_image;
    b.oy0 = b.tile / p.tiles_x * T::kTh;
    b.ox0 = b.tile % p.tiles_x * T::kTw;
    b.c0 = (int64_t)blockIdx.y * T::kBn;
    return b;
}

/* Every float of an array of any rank to zero: a thread's accumulators before their first products */
template <class E, size_t N> __device__ __forceinline__ void zero_fill(E (&a)[N])
{
#pragma unroll
    for (size_t i = 0; i < N; ++i) {
        if constexpr (std::is_array_v<E>)
            zero_fill(a[i]);
        else
            a[i] = 0.0f;
    }
}

/* The slots of a publication for (image n, tile) by one of the tiles_per_image x channel_blocks x split blocks
 * of image n (split: the blocks of a K-split cluster, each publishing its slice of the channels) */
__device__ __forceinline__ ImageSlots tile_slots(const IgemmParams &p, int64_t n, int64_t tile, int split)
{
    ImageSlots slots;
    slots.slot = n * p.tiles_per_image + tile;
    slots.first = n * p.tiles_per_image;
    slots.count = p.tiles_per_image;
    slots.arrivals = (unsigned)(p.tiles_per_image * p.channel_blocks * split);
    return slots;
}

/* Element i of a chunk's input window (T: the block's Window; channel i / area, row, column) for the tile at
 * (oy0, ox0): whether it lies inside the image (and the window), and then its offset from the chunk's first plane */
template <class T>
__device__ __forceinline__ bool window_element(const IgemmParams &p, int i, int64_t oy0, int64_t ox0, int64_t *offset)
{
    const int ci = i / T::kArea, r = i % T::kArea / T::kRowStride, c = i % T::kRowStride;
    const int64_t iy = oy0 + r - p.pad, ix = ox0 + c - p.pad;
    *offset = (ci * p.h + iy) * p.wd + ix;
    return i < kChunk * T::kArea && iy >= 0 && iy < p.h && ix >= 0 && ix < p.wd;
}

/* The thread's copies of a stage (T: the block's Window). Input window: element i = thread + s x threads (channel
 * i / area, row, column), 4 bytes each (the window's rows start anywhere). Weights: kWhole (Cin a multiple of 8, so
 * every chunk is whole, and weights 16-byte aligned) 16 bytes a copy, 4 consecutive (input channel, tap) of one
 * output channel, and no channel past Cin to test; else 4 bytes a copy. Slot s copies the same element of every
 * chunk, so where it lands and where it reads are worked out once. kParts: both (the weights kWOffset floats into the
 * stage), the input window alone (tf32-v11 and 3xtf32-v11 hold their weights resident) or the weights alone (tf32-v13,
 * 3xtf32-v13 and fp32-v12 land the window by TMA). */
enum StageParts { kCopyInput = 1, kCopyWeights = 2 };
template <class T, bool kWhole, int kParts = kCopyInput | kCopyWeights, int kWOffset = T::kInFloats>
struct StageCopies {
    static constexpr bool kInput = kParts & kCopyInput, kWeights = kParts & kCopyWeights;
    static constexpr int kInElems = kChunk * T::kArea;
    static constexpr int kWWidth = kWhole ? 4 : 1;             /* floats a weight copy */
    static constexpr int kWRow = kChunkK / kWWidth;            /* weight copies an output channel */
    static constexpr int kWElems = kWeights ? T::kBn * kWRow : 0; /* weight copies a stage (none: input alone) */
    static constexpr int kWSlots = (kWElems + T::kThreads - 1) / T::kThreads;
    static constexpr bool kInSpare = T::kInSlots * T::kThreads > kInElems; /* the last slot of some threads is spare */
    static constexpr bool kWSpare = kWSlots * T::kThreads > kWElems;

    const float *in_src[T::kInSlots]; /* the slot's element in the next chunk to issue (x itself: outside the image) */
    uint32_t in_dst[T::kInSlots];     /* its byte offset in a stage | its channel in the chunk << kChannelShift */
    uint32_t in_image;                /* bit s: slot s is inside the image */
    int w_src[kWSlots > 0 ? kWSlots : 1];      /* its weights' offset from the chunk's first weight; -1: past Cout */
    uint32_t w_dst[kWSlots > 0 ? kWSlots : 1]; /* their byte offset in a stage | their input channel << kChannelShift */
    static constexpr int kChannelShift = 24;
    static constexpr uint32_t kOffsetMask = (1u << kChannelShift) - 1;
    static_assert((kWOffset + T::kWFloats) * 4 <= (int)kOffsetMask, "stage offsets below the channel bits");

    static __device__ __forceinline__ bool spare(int s, int elems)
    {
        return (int)threadIdx.x + s * T::kThreads >= elems;
    }

    __device__ __forceinline__ void init(const IgemmParams &p, const float *x_img, int64_t oy0, int64_t ox0, int64_t c0)
    {
        in_image = 0;
#pragma unroll
        for (int s = 0; s < (kInput ? T::kInSlots : 0); ++s) {
            const int i = (int)threadIdx.x + s * T::kThreads, ci = i / T::kArea;
            int64_t offset;
            const bool inside = window_element<T>(p, i, oy0, ox0, &offset);
            in_image |= inside ? 1u << s : 0u;
            in_src[s] = inside ? x_img + offset : p.x;
            in_dst[s] = 4u * (uint32_t)(i + ci * (T::kPlane - T::kArea)) | (uint32_t)(ci & 15) << kChannelShift;
        }
#pragma unroll
        for (int s = 0; s < kWSlots; ++s) {
            const int i = (int)threadIdx.x + s * T::kThreads;
            const int co = i / kWRow, k = i % kWRow * kWWidth;
            w_src[s] = i < kWElems && c0 + co < p.cout ? (int)(co * p.cin * kTaps + k) : -1;
            w_dst[s] = 4u * (uint32_t)(kWOffset + co * T::kWStride + k) | (uint32_t)(k / kTaps) << kChannelShift;
        }
    }

    /* The copies of chunk `chunk` into the stage at shared address `stage`; chunks are issued in order 0, 1, ... */
    __device__ __forceinline__ void issue(const IgemmParams &p, int64_t c0, int chunk, uint32_t stage)
    {
        const int64_t ci0 = (int64_t)chunk * kChunk;
        const uint32_t left = (uint32_t)(p.cin - ci0 < kChunk ? p.cin - ci0 : kChunk); /* the chunk's channels */
        const int64_t step = kChunk * p.h * p.wd;
#pragma unroll
        for (int s = 0; s < (kInput ? T::kInSlots : 0); ++s) {
            if (kInSpare && s == T::kInSlots - 1 && spare(s, kInElems))
                continue;
            const bool inside = (in_image >> s & 1u) && (kWhole || in_dst[s] >> kChannelShift < left);
            cp_async_4(stage + (in_dst[s] & kOffsetMask), in_src[s], inside ? 4u : 0u);
            if (in_image >> s & 1u)
                in_src[s] += step;
        }
        if constexpr (!kWeights)
            return;
        const float *w_chunk = p.w + (c0 * p.cin + ci0) * kTaps;
        asm("" : "+l"(w_chunk)); /* one pointer, each slot a 32-bit offset from it */
#pragma unroll
        for (int s = 0; s < kWSlots; ++s) {
            if (kWSpare && s == kWSlots - 1 && spare(s, kWElems))
                continue;
            const bool inside = w_src[s] >= 0 && (kWhole || w_dst[s] >> kChannelShift < left);
            const float *src = inside ? w_chunk + w_src[s] : p.w;
            if (kWhole)
                cp_async_16(stage + (w_dst[s] & kOffsetMask), src, inside ? 16u : 0u);
            else
                cp_async_4(stage + (w_dst[s] & kOffsetMask), src, inside ? 4u : 0u);
        }
    }
};

/* The input window's copies of a stage by window position (T: the block's Window): the thread's positions
 * thread + j x threads (row, column) are the same in every channel of every chunk, so it keeps one 32-bit offset
 * a position (from the image's first plane; -1 outside the image) and works out each channel's address per copy:
 * 4 bytes a copy, zero outside the image and past Cin. StageCopies keeps a pointer and a destination a slot
 * instead, 3 registers where this keeps 1 for every 8 copies. A plane's offsets in 32 bits: H x W at most 2^28
 * (ffma_gemm_unsupported, the FFMA GEMMs' limit). */
template <class T, bool kWhole> struct WindowPositionCopies {
    static constexpr int kPositions = (T::kArea + T::kThreads - 1) / T::kThreads;
    static constexpr bool kSpare = kPositions * T::kThreads > T::kArea; /* the last position of some threads */
    static_assert(kPositions <= 32, "a bit a position in `inside`");
    int offset[kPositions]; /* the position's element in a channel plane (0 outside the image: an address to name) */
    unsigned inside;        /* bit j: position j is in the image */

    __device__ __forceinline__ void init(const IgemmParams &p, int64_t oy0, int64_t ox0)
    {
        init_pair(p, oy0, ox0, T::kRowStride, false, 0); /* no column of a second image */
    }

    /* init's positions for two images side by side, 8 output columns apart (tf32-v21's paired tiles): the window's
     * columns from second_column on read the second image (second: whether there is one; else zeros), 8 columns
     * left of where they would read the first, image_floats past it (issue's x_img is the first image's; both
     * images' offsets below 2^31, the caller's bound) */
    __device__ __forceinline__ void init_pair(const IgemmParams &p, int64_t oy0, int64_t ox0, int second_column,
                                              bool second, int image_floats)
    {
        inside = 0u;
#pragma unroll
        for (int j = 0; j < kPositions; ++j) {
            const int at = (int)threadIdx.x + j * T::kThreads;
            const bool of_second = at % T::kRowStride >= second_column;
            int64_t element;
            const bool in_image = at < T::kArea && (second || !of_second) &&
                                  window_element<T>(p, at, oy0, of_second ? ox0 - 8 : ox0, &element);
            offset[j] = in_image ? (int)element + (of_second ? image_floats : 0) : 0;
            inside |= in_image ? 1u << j : 0u;
        }
    }

    /* The copies of chunk `chunk` of the image at x_img into the stage at shared address `stage`: a channel's
     * address once a channel (the image's first past Cin: its copies read nothing), a position's by its offset */
    __device__ __forceinline__ void issue(const IgemmParams &p, const float *x_img, int chunk, uint32_t stage) const
    {
        const int64_t plane = p.h * p.wd, ci0 = (int64_t)chunk * kChunk;
        const int channels = p.cin - ci0 < kChunk ? (int)(p.cin - ci0) : kChunk; /* kChunk unless the last chunk */
        const float *channel = x_img + ci0 * plane;
#pragma unroll
        for (int ci = 0; ci < kChunk; ++ci) {
            const bool channel_in = kWhole || ci < channels;
            const float *from = channel_in ? channel : x_img;
#pragma unroll
            for (int j = 0; j < kPositions; ++j) {
                const int at = (int)threadIdx.x + j * T::kThreads;
                if (kSpare && j == kPositions - 1 && at >= T::kArea)
                    continue;
                const bool copied = channel_in && (inside >> j & 1u);
                cp_async_4(stage + 4u * (uint32_t)(ci * T::kPlane + at), from + offset[j], copied ? 4u : 0u);
            }
            channel += plane;
        }
    }
};

/* The bias of channel c_base + c (c from 0), 0 past Cout, through the read-only cache; the bound in 32 bits */
struct ChannelBias {
    const float *b;
    int left; /* the channels from c_base to Cout, clamped to [0, 2^30] */

    __device__ __forceinline__ ChannelBias(const IgemmParams &p, int64_t c_base) : b(p.b + c_base)
    {
        const int64_t count = p.cout - c_base;
        left = (int)(count < 0 ? 0 : count < (1 << 30) ? count : 1 << 30);
    }
    __device__ __forceinline__ float operator()(int c) const { return c < left ? __ldg(b + c) : 0.0f; }
};

/* Twice the GELU (gelu_x2 forms) of the lane's accumulators plus bias, masked, summed per channel: acc[i][j][e] is
 * pixel m_of(i, e / 2) of the tile (row m / TW, column m % TW) and channel 8 j + 2 tig + e % 2 of the lane's
 * channels, whose bias bias_of(channel) returns (ChannelBias, or the resident kernels' copy in shared memory);
 * sum[j][e % 2] gets the lane's total of that channel. The image's bounds are 32-bit, worked out once: the tile's
 * rows and columns inside it. A lane whose pixels are all inside (every lane of an inner tile) adds each GELU
 * unmasked; the masks (a select a term) only where the tile crosses the image's edge. */
template <int P, int TW, int kMi, int kNj, class PixelOf, class BiasOf>
__device__ __forceinline__ void lane_gelu_sums(const IgemmParams &p, const float (&acc)[kMi][kNj][4], PixelOf m_of,
                                               int64_t oy0, int64_t ox0, BiasOf bias_of, float (&sum)[kNj][2])
{
    constexpr int64_t kFar = 1 << 30; /* past any tile's rows or columns */
    const int tig = threadIdx.x % 4;
    const int rows = (int)(p.hout - oy0 < kFar ? p.hout - oy0 : kFar);
    const int cols = (int)(p.wout - ox0 < kFar ? p.wout - ox0 : kFar);
    bool inside[kMi][2], all_inside = true;
#pragma unroll
    for (int i = 0; i < kMi; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int m = m_of(i, h);
            inside[i][h] = m / TW < rows && m % TW < cols;
            all_inside = all_inside && inside[i][h];
        }
    const auto sums = [&](auto masked) {
#pragma unroll
        for (int j = 0; j < kNj; ++j)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const float b = bias_of(8 * j + 2 * tig + e);
                float s = 0.0f;
#pragma unroll
                for (int i = 0; i < kMi; ++i)
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const float v = acc[i][j][2 * h + e] + b;
                        const float g2 = P == kTf32x3 ? gelu_x2_fine(v) : gelu_x2(v);
                        if constexpr (decltype(masked)::value)
                            s += inside[i][h] ? g2 : 0.0f;
                        else
                            s += g2;
                    }
                sum[j][e] = s;
            }
    };
    if (all_inside)
        sums(std::false_type());
    else
        sums(std::true_type());
}

/* Step kStep of warp_channel_sums, over lane bit 4 << kStep, the lane holding kHeld values (v[k] is value first + k):
 * it keeps one half, hands the other to its partner and adds the partner's half of the kept one */
template <int kStep, int kHeld, int N>
__device__ __forceinline__ void channel_sums_step(float (&v)[N], int lane, int &first)
{
    constexpr int kBit = 4 << kStep, kHalf = kHeld / 2;
    const bool upper = lane & kBit;
#pragma unroll
    for (int k = 0; k < kHalf; ++k) {
        const float keep = upper ? v[k + kHalf] : v[k], give = upper ? v[k] : v[k + kHalf];
        v[k] = keep + __shfl_xor_sync(0xffffffffu, give, kBit);
    }
    first += upper ? kHalf : 0;
    if constexpr (kStep < 2)
        channel_sums_step<kStep + 1, kHalf>(v, lane, first);
}

/* The lanes' sums (lane_gelu_sums, twice the GELU) added over the warp's 8 lane groups (lanes 4 apart, the same
 * channels): a transposed butterfly over lane bits 2, 3 and 4 (channel_sums_step), each step halving the values a
 * lane holds, so that 2 kNj values take 14 shuffles at kNj = 8 (where a butterfly of every value would take 48)
 * and each lane ends with whole totals of its own channels (4 at kNj = 16, 2 at kNj = 8, 1 at kNj = 4). Each lane
 * then hands each of its channels' totals, halved, to put(channel, total), channel = 8 j + 2 tig + e of the sums. */
template <int kNj, class Put> __device__ __forceinline__ void warp_channel_sums(const float (&sum)[kNj][2], Put put)
{
    static_assert(kNj == 4 || kNj == 8 || kNj == 16, "32, 64 or 128 channels a warp: each step halves a lane's values");
    constexpr int kValues = 2 * kNj, kHeld = kValues / 8; /* values a lane ends with */
    const int lane = threadIdx.x % 32, tig = lane % 4;
    float v[kValues]; /* v[k]: value first + k (value 2 j + e: channel 8 j + 2 tig + e) */
#pragma unroll
    for (int k = 0; k < kValues; ++k)
        v[k] = sum[k / 2][k % 2];
    int first = 0;
    channel_sums_step<0, kValues>(v, lane, first);
#pragma unroll
    for (int k = 0; k < kHeld; ++k) {
        const int value = first + k;
        put(value / 2 * 8 + 2 * tig + value % 2, 0.5f * v[k]);
    }
}

/* The lanes' sums (lane_gelu_sums, twice the GELU) added over the 8 lane groups, written to warp_sums[slot][channel
 * slot_channel + 8 j + 2 tig + e], the slots of each channel added in order (sum_slots) and published for (image n,
 * tile) with channels [c0, c0 + BN) of the block. Called by every thread of the block. */
template <int BN, int kSlots, int kNj>
__device__ __forceinline__ void publish_block_sums(const IgemmParams &p, const float (&sum)[kNj][2], int slot,
                                                   int slot_channel, int64_t n, int64_t tile, int64_t c0,
                                                   float *warp_sums, double *block_sums)
{
    warp_channel_sums(sum, [&](int c, float channel_sum) { warp_sums[slot * BN + slot_channel + c] = channel_sum; });
    sum_slots<BN, kSlots, BN>([&](int c) { return &warp_sums[c]; }, block_sums);
    const int nc = (int)(p.cout - c0 < BN ? p.cout - c0 : BN);
    publish_image_sums(p.red, n, c0, nc, block_sums, tile_slots(p, n, tile, 1));
}

/* A block's sums of `slice` channels from one float s a thread, thread t holding channel t % slice in slot t / slice:
 * block_sums[c] = the total, in double and in slot order, of channel c's slot_count slots (slot_sums: the block's
 * threads' floats of shared memory). Called by every thread; block_sums is read after a barrier. */
__device__ __forceinline__ void slot_totals(float s, int slice, int slot_count, float *slot_sums, double *block_sums)
{
    slot_sums[threadIdx.x] = s;
    __syncthreads();
    if ((int)threadIdx.x < slice) {
        double total = 0.0;
        for (int k = 0; k < slot_count; ++k)
            total += (double)slot_sums[k * slice + threadIdx.x];
        block_sums[threadIdx.x] = total;
    }
}

/* How many of a K-split block's slice of channels, [c_first, c_first + slice), lie below Cout (0 to slice) */
__device__ __forceinline__ int slice_channels(const IgemmParams &p, int64_t c_first, int slice)
{
    return (int)(p.cout - c_first < slice ? (p.cout - c_first > 0 ? p.cout - c_first : 0) : slice);
}

/* The epilogue of a block of a K-split cluster (compute capability 9.0; T: the block's Window): every block of the
 * cluster has landed its partial sums over its chunks of the same TH x TW x BN outputs in its own shared memory,
 * partials[pixel][channel], before this call. After a cluster barrier block `rank` adds, for channels [rank x BN /
 * split, + BN / split), the partials of the blocks in rank order (distributed shared memory), adds bias, takes
 * gelu(v) (the version's GELU), sums it over the pixels (a thread per channel and slot of pixels, then the slots in
 * order, in double) and publishes those channels; a second cluster barrier keeps every block's shared memory alive
 * until all have read it. slot_sums: T::kThreads floats of shared memory; block_sums: BN / split doubles. Called by
 * every thread of the block. */
template <class T, class Gelu>
__device__ __forceinline__ void split_sum_publish(const IgemmParams &p, float *partials, int64_t oy0, int64_t ox0,
                                                  int64_t c0, int split, int rank, float *slot_sums,
                                                  double *block_sums, int64_t n, const ImageSlots &slots, Gelu gelu)
{
#if __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();
    const int slice = T::kBn / split, channel = (int)threadIdx.x % slice + rank * slice;
    const int slot = (int)threadIdx.x / slice, slot_count = T::kThreads / slice;
    const float bias = c0 + channel < p.cout ? __ldg(&p.b[c0 + channel]) : 0.0f;
    constexpr int kPixels = T::kTh * T::kTw, kUnroll = 4; /* pixels whose remote loads are in flight at once */
    float s = 0.0f;
    for (int m0 = slot; m0 < kPixels; m0 += kUnroll * slot_count) {
        float v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
            v[u] = 0.0f;
        for (int q = 0; q < split; ++q) {
            const float *rank_partials = cluster.map_shared_rank(partials, q);
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                const int m = m0 + u * slot_count;
                v[u] += m < kPixels ? rank_partials[m * T::kBn + channel] : 0.0f;
            }
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            const int m = m0 + u * slot_count;
            const bool inside = m < kPixels && oy0 + m / T::kTw < p.hout && ox0 + m % T::kTw < p.wout;
            s += inside ? gelu(v[u] + bias) : 0.0f;
        }
    }
    slot_totals(s, slice, slot_count, slot_sums, block_sums);
    cluster.sync(); /* every block has read the partials of the others; block_sums are written */
    const int64_t c_first = c0 + rank * slice;
    publish_image_sums(p.red, n, c_first, slice_channels(p, c_first, slice), block_sums, slots);
#else
    __trap(); /* the host splits K only on compute capability 9.0 and newer */
#endif
}

/* ---- host ---- */

#ifndef CGP_BUILD_SM
#define CGP_BUILD_SM 0 /* the Makefile sets the SM it builds for (GENCODE) */
#endif

/* Whether this build's kernels can use compute capability 9.0's instructions (thread-block clusters, TMA) on device
 * d: the GPU has them and the kernels were built for sm_90 or newer (a build for an older GPU runs its PTX there,
 * where those instructions are traps) */
inline bool sm90_code_runs(const cgp_device_info *d) { return d->cc_major >= 9 && CGP_BUILD_SM >= 90; }

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct ImplicitGemmGeometry {
    int64_t tiles_x, tiles_per_image, channel_blocks;
};

inline ImplicitGemmGeometry implicit_gemm_geometry(const cgp_problem *p, int th, int tw, int bn)
{
    ImplicitGemmGeometry g;
    g.tiles_x = ceil_div(p->wout, tw);
    g.tiles_per_image = g.tiles_x * ceil_div(p->hout, th);
    g.channel_blocks = ceil_div(p->cout, bn);
    return g;
}

/* A launch's shape: the tile (its index in the version's table of tiles) and the blocks of a cluster that split K */
struct TileSplit {
    int tile, split;
};

/* The tile and K split of least cost: tiles [first, last) in order and, for each, the version's splits in order;
 * cost(tile, split) is the version's estimate, negative where it does not offer the pair. The first of equal costs;
 * {-1, 1} where no pair is offered. */
template <int kSplitCount, class Cost>
TileSplit least_cost(int first, int last, const int (&splits)[kSplitCount], Cost cost)
{
    TileSplit best = {-1, 1};
    double best_cost = 0.0;
    for (int tile = first; tile < last; ++tile)
        for (int split : splits) {
            const double c = cost(tile, split);
            if (c >= 0.0 && (best.tile < 0 || c < best_cost)) {
                best = {tile, split};
                best_cost = c;
            }
        }
    return best;
}

/* The blocks of a tile an SM holds by shared memory: a block's `bytes` plus the 1 KB the GPU reserves a block, in
 * the opt-in shared memory of a block (the SM's less that reserve; 0 where not even one fits) */
inline int64_t blocks_by_shared_memory(const cgp_device_info *d, size_t bytes)
{
    return (int64_t)(d->smem_per_block_optin / (bytes + 1024));
}

/* A grid of `blocks` on `sms` SMs that hold up to `fit` blocks each (taken as 1 below 1): the blocks an SM runs at
 * once (no more than the grid gives it) and the waves they run in */
struct Residency {
    int64_t resident, waves;
};
inline Residency residency(int64_t blocks, int64_t sms, int64_t fit)
{
    const int64_t wanted = ceil_div(blocks, sms);
    Residency r;
    r.resident = fit < 1 ? 1 : wanted < fit ? wanted : fit;
    r.waves = ceil_div(blocks, sms * r.resident);
    return r;
}

/* NULL when the grid of g fits the kernels' indexing, else why not */
inline const char *implicit_gemm_grid_unsupported(const cgp_problem *p, const ImplicitGemmGeometry &g)
{
    if (p->n * g.tiles_per_image > 0x7fffffff)
        return "more than 2^31-1 (image, output tile) pairs";
    if (g.channel_blocks > 65535)
        return "more than 65535 blocks of output channels";
    if (g.tiles_per_image * g.channel_blocks > 0xffffffffLL)
        return "more than 2^32-1 tiles per image";
    if (p->cin > (1 << 20))
        return "more than 2^20 input channels (32-bit weight offsets within a block)";
    return NULL;
}

/* NULL when the blocks of an image with K split over `split` (tiles x channel blocks x split) stay below 2^32 and
 * the grid of g fits the kernels' indexing (implicit_gemm_grid_unsupported), else why not: fp32-v10, fp32-v11,
 * fp32-v12, tf32-v10 and 3xtf32-v10 */
inline const char *implicit_gemm_split_grid_unsupported(const cgp_problem *p, const ImplicitGemmGeometry &g, int split)
{
    if (g.tiles_per_image * g.channel_blocks * split > 0xffffffffLL)
        return "more than 2^32-1 blocks an image";
    return implicit_gemm_grid_unsupported(p, g);
}

/* NULL when the GPU and the image suit the FFMA GEMMs (fp32-v10, fp32-v11, fp32-v12), else why not: compute
 * capability 8.0 or newer (cp.async), kMinSmem bytes of shared memory a block (their smallest tile), at most 2^28
 * pixels an image (their input offsets within a chunk of 8 channels are 32-bit) */
template <size_t kMinSmem> const char *ffma_gemm_unsupported(const cgp_problem *p, const cgp_device_info *d)
{
    if (d->cc_major < 8)
        return "needs a GPU of compute capability 8.0 or newer (cp.async)";
    if (kMinSmem > d->smem_per_block_optin)
        return kSharedMemoryNeed<kMinSmem>.text;
    if (p->h * p->w > (1LL << 28))
        return "more than 2^28 pixels an image (32-bit input offsets within a chunk of 8 channels)";
    return NULL;
}

/* Det partials: one row of Cout doubles per (image, tile) slot */
inline size_t implicit_gemm_workspace_bytes(const cgp_problem *p, const ImplicitGemmGeometry &g)
{
    return (size_t)(p->n * g.tiles_per_image * p->cout) * sizeof(double);
}

inline IgemmParams implicit_gemm_params(const cgp_launch_args *a, const ImplicitGemmGeometry &g)
{
    IgemmParams p;
    p.x = a->x;
    p.w = a->weight;
    p.b = a->bias;
    p.red = make_reduce_args(a, a->workspace);
    p.cin = a->p.cin;
    p.cout = a->p.cout;
    p.h = a->p.h;
    p.wd = a->p.w;
    p.hout = a->p.hout;
    p.wout = a->p.wout;
    p.tiles_x = g.tiles_x;
    p.tiles_per_image = g.tiles_per_image;
    p.channel_blocks = g.channel_blocks;
    p.pad = a->p.pad;
    p.chunks = (int)ceil_div(a->p.cin, kChunk);
    p.path_record = a->path_record;
    p.launch_words = a->counters + a->p.n;
    p.rounded_w = nullptr;
    return p;
}

/* A type passed as a value: what a switch over tiles chosen at run time hands its generic lambda */
template <class T> struct TypeTag {
    using Type = T;
};

/* f(std::integral_constant<int, i>()) for an index i < N known at run time (past the last: the last), f's result:
 * a family's tile chosen at run time, made a compile-time one */
template <int N, class F, int... I> auto with_index(int i, F &f, std::integer_sequence<int, I...>)
{
    using Result = decltype(f(std::integral_constant<int, 0>()));
    if constexpr (std::is_void<Result>::value) {
        (void)(((i == I || I == N - 1) ? (f(std::integral_constant<int, I>()), true) : false) || ...);
    } else {
        Result result{};
        (void)(((i == I || I == N - 1) ? (result = f(std::integral_constant<int, I>()), true) : false) || ...);
        return result;
    }
}
template <int N, class F> auto with_index(int i, F &&f)
{
    return with_index<N>(i, f, std::make_integer_sequence<int, N>());
}

/* The index of the first element of `list` for which is(element) holds, -1 where none (a tile in its family's list) */
template <class T, size_t N, class Is> constexpr int index_of(const T (&list)[N], Is is)
{
    for (size_t i = 0; i < N; ++i)
        if (is(list[i]))
            return (int)i;
    return -1;
}

/* The largest of some sizes (a version's most shared memory over its tiles) */
constexpr size_t largest(std::initializer_list<size_t> sizes)
{
    size_t most = 0;
    for (size_t s : sizes)
        most = s > most ? s : most;
    return most;
}

/* Launches kernel(args) on `grid`, blocks of `threads` with `smem_bytes` of dynamic shared memory (the limit the
 * plan's cgp_kernel_prepare raised), the grid.z blocks along z a thread-block cluster (a K split; no cluster where
 * grid.z is 1). Reports this launch's status only, not an error the caller left behind. */
inline cudaError_t launch_clusters_along_z(const void *kernel, dim3 grid, int threads, size_t smem_bytes,
                                           cudaStream_t stream, void **args)
{
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = dim3((unsigned)threads);
    config.dynamicSmemBytes = smem_bytes;
    config.stream = stream;
    cudaLaunchAttribute cluster;
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = 1;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = grid.z;
    config.attrs = &cluster;
    config.numAttrs = grid.z > 1 ? 1 : 0;
    return cudaLaunchKernelExC(&config, kernel, args);
}

/* Launches kernel(p) (one IgemmParams argument; kernel(p, *map) where map is given) on the grid (image, tile) x
 * channel block x split of g (launch_clusters_along_z: the `split` blocks along z a cluster) */
inline cudaError_t launch_implicit_gemm(const void *kernel, IgemmParams p, const ImplicitGemmGeometry &g, int64_t n,
                                        int split, int threads, size_t smem_bytes, cudaStream_t stream,
                                        const CUtensorMap *map = nullptr)
{
    void *argv[] = {&p, const_cast<CUtensorMap *>(map)}; /* the map: the kernels that land their windows by TMA */
    return launch_clusters_along_z(kernel,
                                   dim3((unsigned)(n * g.tiles_per_image), (unsigned)g.channel_blocks, (unsigned)split),
                                   threads, smem_bytes, stream, argv);
}

/* Whole chunks and weights by 16-byte copies (StageCopies' kWhole) where Cin allows and the weights are 16-byte
 * aligned (weights_misaligned: configure asks for both); the results are the same either way */
inline bool whole_chunks(const cgp_problem *p, int weights_misaligned)
{
    return p->cin % kChunk == 0 && !weights_misaligned;
}

/* The same for a launch, from its weight pointer */
inline bool implicit_gemm_whole_chunks(const cgp_launch_args *a)
{
    return whole_chunks(&a->p, cgp_weights_misaligned(a->weight));
}

/* The variant bit of a path id (kernel_info.h) that a kernel with whole chunks or not records and its hook names */
__host__ __device__ constexpr unsigned weights_width_flag(bool whole)
{
    return whole ? 0u : (unsigned)CGP_PATH_FLAG_WEIGHTS_4B;
}

} // namespace

#endif
