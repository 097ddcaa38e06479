/*
 * implicit_gemm_wgmma.cuh - what the wgmma implicit GEMMs share (library layer): tf32-v10, v13 / 3xtf32-v10, v13
 * (fused_implicit_gemm_wgmma.cu), tf32-v11, v16 / 3xtf32-v11, v12 (fused_resident_wgmma.cu) and the warp-specialised
 * tf32-v21 and 3xtf32-v21 (fused_ws_wgmma.cu).
 *
 *   Blocks           a block of WY x WX warpgroups, each an 8 x 8 pixel block x BN channels (one m64nBN
 *                    accumulator), its landing stage (implicit_gemm.cuh's Window) and operand buffers
 *   TmaWindow        the landing stage of an input window by TMA (3xtf32-v12, tf32-v13, 3xtf32-v13), and
 *                    tma_window_map, the tensor map of x its boxes read (host)
 *   TileCursor, land_window_box   the persistent kernels' walk over their tiles (tf32-v11, v16, v21, 3xtf32-v11, v12),
 *                    and one TMA box of a tile's chunk onto a stage's mbarrier
 *   FragmentWindow   the same box with its channel planes placed for the register fragments (tf32-v16), and
 *                    load_fragments, a thread's fragments of a chunk's 9 taps from it (3xTF32: big and small)
 *   ChunkConversion  a landed chunk into wgmma's operand layouts, rounded only as far as the tensor cores read:
 *                    A = the input window [channel half][pixel][4 channels], B = per tap [half][BN output
 *                    channels][4 input channels]
 *   round_weights_once   the weights in B's layout, rounded, once a launch into the workspace by whichever
 *                    blocks claim them first (tf32-v15, v21, 3xtf32-v15, v21), and the wait until all are
 *   issue_chunk      the 9 (3xTF32: 27) wgmmas of a chunk, each tap's A the window moved by the tap
 *                    (issue_chunk_fragments: tf32-v16's and the v21s', A from the registers load_fragments filled)
 *   kTileShapes      the tiles both versions choose from, in the order of their path ids; path_tile_of, one as its
 *                    paths name it (each file composes its paths' names from kTileShapes: path_names.cuh);
 *                    tile_shape_index, a block's index in it; warpgroup_rate, a tile's measured rate of products
 *   igemm_wgmma_path the path id of a tile, split, staging and weight width (the launch records it, configure
 *                    names it); igemm_wgmma_path0 the first id of a staging
 *   TileBlocks, with_tile_blocks    the Blocks of tile i, at compile time and (one dispatch over kTileShapes for
 *                    every hook that launches or sizes a tile chosen at run time) at run time
 */
#ifndef CGP_IMPLICIT_GEMM_WGMMA_CUH
#define CGP_IMPLICIT_GEMM_WGMMA_CUH

#include <stdint.h>

#include <utility>

#include "fused_tf32_device.cuh"
#include "implicit_gemm.cuh"
#include "path_names.cuh"
#include "tensor_map.cuh"
#include "tile_loader.cuh"
#include "wgmma_ops.cuh"

namespace {

constexpr size_t kSmemBudget = 227 * 1024 - 4096; /* an H100/H200 block's opt-in shared memory, less the static */

/* The blocks, in the order of their path ids (CGP_PATH_IGEMM_WGMMA_TILE0 + index, kernel_info.h) and of launch's
 * cases: 2 x 2, 1 x 2 and 1 x 1 warpgroups x 64 output channels, then the same x 32 */
struct TileShape {
    int wy, wx, bn;
};
constexpr TileShape kTileShapes[] = {{2, 2, 64}, {1, 2, 64}, {1, 1, 64}, {2, 2, 32}, {1, 2, 32}, {1, 1, 32}};
/* A tile as its paths name it (path_names.cuh): 8 x 8 pixels a warpgroup */
constexpr PathTileName path_tile_of(TileShape t) { return {8 * t.wy, 8 * t.wx, t.bn}; }
constexpr int kTileCount = (int)(sizeof kTileShapes / sizeof kTileShapes[0]);
using TileIndices = std::make_index_sequence<kTileCount>;
/* The index in kTileShapes of a block of WY x WX warpgroups x BN channels, -1 where none (tf32-v21's tiles) */
constexpr int tile_shape_index(int wy, int wx, int bn)
{
    return index_of(kTileShapes, [=](const TileShape &t) { return t.wy == wy && t.wx == wx && t.bn == bn; });
}
/* A block's rate of products relative to one of 4 warpgroups, measured on the H200 (tf32-v10 on the zoo: the
 * 4-warpgroup block ran 28x28 and 32x32 at 100 TFLOP/s, the 2-warpgroup one 56x56 at 72; single-warpgroup blocks
 * taken at half) */
constexpr double warpgroup_rate(const TileShape &t)
{
    return t.wy * t.wx == 4 ? 1.0 : t.wy * t.wx == 2 ? 0.72 : 0.5;
}

/* The block of precision P: WY x WX warpgroups, each an 8 x 8 pixel block of the tile x BN channels (one
 * m64nBN accumulator, BN 64 or 32), and its shared memory: kLandStages landing stages (up to 4, as many as fit),
 * then 2 operand buffers */
template <int P, int WY, int WX, int BN> struct Blocks {
    static constexpr int kWx = WX, kTh = 8 * WY, kTw = 8 * WX, kBn = BN;
    static constexpr int kThreads = 128 * WY * WX, kWarps = kThreads / 32;
    static constexpr int kBTapFloats = 2 * BN * 4; /* B of one tap: [half][channel][4] */
    static constexpr int kBFloats = kTaps * kBTapFloats;
    /* B's 16-byte unit (4 input channels) of tap `tap`, input-channel half `half` and output channel `channel` */
    static __host__ __device__ constexpr int b_unit(int tap, int half, int channel)
    {
        return (tap * 2 + half) * BN + channel;
    }
    using Land = Window<kTh, kTw, BN, kThreads>;
    static constexpr int kLandFloats = Land::kInFloats + Land::kWFloats; /* a landing stage */
    static constexpr int kWinPixels = Land::kArea;
    static constexpr int kAFloats = 2 * kWinPixels * 4;                  /* A: [half][pixel][4] */
    static constexpr int kPlanes = P == kTf32 ? 1 : 2;                   /* big; 3xTF32: big, small */
    static constexpr int kBuffers = 2;
    static constexpr int kOpFloats = kPlanes * (kAFloats + kBFloats);   /* [A big][A small][B big][B small] */
    static constexpr int kRoundedUnitFloats = kPlanes * kBFloats; /* a chunk's rounded weights (tf32-v15): B */
    static constexpr int kLandStages =
        (int)((kSmemBudget / sizeof(float) - kBuffers * (size_t)kOpFloats) / kLandFloats) < 4
            ? (int)((kSmemBudget / sizeof(float) - kBuffers * (size_t)kOpFloats) / kLandFloats)
            : 4;
    static constexpr size_t kSmemBytes =
        sizeof(float) * ((size_t)kLandStages * kLandFloats + kBuffers * (size_t)kOpFloats);
    static_assert(kLandStages >= 3, "a landing ring of 3 stages at least");
    static_assert(kTh * kTw * BN <= kLandStages * kLandFloats, "a K split's partials fit in the landing ring");
    /* its index in kTileShapes, for the path id a launch records (igemm_wgmma_path); -1: not one of them */
    static constexpr int kIndex = tile_shape_index(WY, WX, BN);
};

/* The index in kTileShapes of block B, which must be one of its tiles */
template <class B> __host__ __device__ constexpr unsigned tile_index()
{
    static_assert(B::kIndex >= 0, "a block of a tile of kTileShapes");
    return (unsigned)B::kIndex;
}

/* The first cgp_path_id (kernel_info.h) of the wgmma implicit GEMMs' 6 tiles with K whole (split_ids: then their 12
 * with K split over 2 and 4 blocks), the windows by TMA or cp.async, the weights rounded once a launch or converted per
 * block, the chunk loop overlapped (tf32-v17: rounded weights, windows by TMA) or not */
__host__ __device__ constexpr unsigned igemm_wgmma_path0(bool tma, bool rounded, bool overlapped, bool split_ids)
{
    if (overlapped)
        return split_ids ? CGP_PATH_IGEMM_WGMMA_OVERLAPPED_SPLIT_TILE0 : CGP_PATH_IGEMM_WGMMA_OVERLAPPED_TILE0;
    if (rounded && tma)
        return split_ids ? CGP_PATH_IGEMM_WGMMA_ROUNDED_TMA_SPLIT_TILE0 : CGP_PATH_IGEMM_WGMMA_ROUNDED_TMA_TILE0;
    if (rounded)
        return split_ids ? CGP_PATH_IGEMM_WGMMA_ROUNDED_SPLIT_TILE0 : CGP_PATH_IGEMM_WGMMA_ROUNDED_TILE0;
    if (tma)
        return split_ids ? CGP_PATH_IGEMM_WGMMA_TMA_SPLIT_TILE0 : CGP_PATH_IGEMM_WGMMA_TMA_TILE0;
    return split_ids ? CGP_PATH_IGEMM_WGMMA_SPLIT_TILE0 : CGP_PATH_IGEMM_WGMMA_TILE0;
}

/* The cgp_path_id of tile `tile` (its index in kTileShapes; tile_index) with `split` blocks a cluster sharing its
 * chunks, staged as igemm_wgmma_path0 says, its copies of whole chunks or not (weights_width_flag): what a launch
 * records and what the versions' configure names */
__host__ __device__ constexpr unsigned igemm_wgmma_path(bool tma, bool rounded, bool overlapped, bool whole,
                                                        unsigned tile, int split)
{
    const unsigned id = split == 1 ? igemm_wgmma_path0(tma, rounded, overlapped, false) + tile
                                   : igemm_wgmma_path0(tma, rounded, overlapped, true) + tile + (split == 2 ? 0u : 6u);
    return id | weights_width_flag(whole);
}

/* The landing stage of an input window by TMA (tf32-v13, 3xtf32-v12, v13): a box of 8 channels x TH + 2 rows x
 * kRowStride columns from column ox0 (padding 0; the window at its column 0) or ox0 - 4 (padding same, the window at
 * column 3: a box starts at a multiple of 4 columns, wgmma_conv.cuh's staging_of), row oy0 - pad; its stage a
 * multiple of 128 bytes */
template <class B> struct TmaWindow {
    static constexpr int kRowStride = (B::kTw + 2 + 3 + 3) / 4 * 4; /* the window's TW + 2 columns from column 3 */
    static constexpr int kRows = B::kTh + 2;
    static constexpr int kPlane = kRows * kRowStride;
    static constexpr int kBoxFloats = kChunk * kPlane;
    static constexpr int kInFloats = (kBoxFloats + 31) / 32 * 32;
    static __device__ __forceinline__ int lead(int pad) { return pad ? 3 : 0; }
    static __device__ __forceinline__ int box_x(int ox0, int pad) { return pad ? ox0 - 4 : ox0; }
};

/* tf32-v16's landing stage: TmaWindow's box with rows added (and, where a row is a multiple of 16 floats, 4 columns)
 * until a channel plane lies 8 or 24 banks apart modulo 32. A fragment load of a warp reads 4 channels (t = lane % 4)
 * x 8 consecutive columns (lane / 4) of one row: 32 different banks (load_fragments). The rows added read image rows
 * below the window or TMA's zeros; no fragment reads them. */
template <class B> struct FragmentWindow {
    static constexpr int kRowStride = TmaWindow<B>::kRowStride % 16 == 0 ? TmaWindow<B>::kRowStride + 4
                                                                          : TmaWindow<B>::kRowStride;
    static constexpr bool banks_apart(int rows) { return rows * kRowStride % 32 == 8 || rows * kRowStride % 32 == 24; }
    static constexpr int rows_from(int rows) { return banks_apart(rows) ? rows : rows_from(rows + 1); }
    static constexpr int kRows = rows_from(B::kTh + 2);
    static constexpr int kPlane = kRows * kRowStride;
    static constexpr int kBoxFloats = kChunk * kPlane;
    static constexpr int kInFloats = (kBoxFloats + 31) / 32 * 32;
    static __device__ __forceinline__ int lead(int pad) { return TmaWindow<B>::lead(pad); }
    static __device__ __forceinline__ int box_x(int ox0, int pad) { return TmaWindow<B>::box_x(ox0, pad); }
    static_assert(kRows <= 256 && kRowStride <= 256, "a TMA box of at most 256 rows and columns");
};

/* A thread's A fragments of a chunk's 9 taps (wgmma's register-A form, wgmma_ops.cuh) from its 2 x 4 x 3 values v
 * (channel half, window row, column; ValuesOf's): tap (ky, kx)'s fragment is rows ky and ky + 1, column kx, both
 * halves. Each wgmma reads 4 registers in a row, so the values two taps share are copied; the fragments are complete
 * here, before the caller's wgmma_fence: no register write between its wgmmas. */
__device__ __forceinline__ void fragments_of_taps(const uint32_t (&v)[2][4][3], uint32_t (&fragment)[kTaps][4])
{
#pragma unroll
    for (int tap = 0; tap < kTaps; ++tap) {
        const int ky = tap / 3, kx = tap % 3;
        fragment[tap][0] = v[0][ky][kx];
        fragment[tap][1] = v[0][ky + 1][kx];
        fragment[tap][2] = v[1][ky][kx];
        fragment[tap][3] = v[1][ky + 1][kx];
#pragma unroll
        for (int i = 0; i < 4; ++i)
            asm volatile("" : "+r"(fragment[tap][i]));
    }
}

/* f(h, r, c, value) for each of a thread's 24 window values of a chunk: the thread's rows of the m64 block
 * (tile_pixel: pixel rows 2 (warp % 4) and 2 (warp % 4) + 1, column lane / 4) moved by any tap cover 4 window rows
 * x 3 columns of channels lane % 4 and lane % 4 + 4 (channel half h) from `at`, the thread's first value (Win's
 * layout, FragmentWindow) */
template <class Win, class F> __device__ __forceinline__ void each_window_value(const float *at, F f)
{
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
            for (int c = 0; c < 3; ++c)
                f(h, r, c, at[4 * h * Win::kPlane + r * Win::kRowStride + c]);
}

/* A thread's A fragments of a chunk's 9 taps from its 24 window values, rounded as the tensor cores read them
 * (3xTF32: split into big and small, each plane's fragments apart) */
template <class Win> __device__ __forceinline__ void load_fragments(const float *at, uint32_t (&fragment)[kTaps][4])
{
    uint32_t v[2][4][3];
    each_window_value<Win>(at, [&](int h, int r, int c, float x) { v[h][r][c] = tf32_round_for_mma(x); });
    fragments_of_taps(v, fragment);
}
template <class Win>
__device__ __forceinline__ void load_fragments(const float *at, uint32_t (&big)[kTaps][4], uint32_t (&small)[kTaps][4])
{
    uint32_t v[2][4][3], s[2][4][3];
    each_window_value<Win>(at, [&](int h, int r, int c, float x) { split_tf32_for_mma(x, v[h][r][c], s[h][r][c]); });
    fragments_of_taps(v, big);
    fragments_of_taps(s, small);
}

/* The tensor map of x read in block B's boxes of window Win (TmaWindow, or tf32-v16's FragmentWindow) where kTma
 * (else a zero map, which a kernel landing its windows by cp.async never reads); false where the encoder refuses it
 * (the version's unsupported checked what TMA needs) */
template <class B, bool kTma, class Win = TmaWindow<B>> bool tma_window_map(CUtensorMap *map, const cgp_launch_args *a)
{
    *map = {};
    return !kTma || input_tensor_map(map, a->p, a->x, Win::kRowStride, Win::kRows, kChunk);
}

/* A tile's image and first output row and column, stepped through the tiles in the schedule's order (image-major,
 * then rows, then columns): a division at the block's first tile only. 32-bit: N, H and W are below 2^31 (cgp.h). */
struct TileCursor {
    int n, oy0, ox0;

    __device__ __forceinline__ TileCursor(const PersistentSchedule &g, int64_t t, int th, int tw)
    {
        int64_t n64, oy64, ox64;
        persistent_tile_origin(g, t, th, tw, n64, oy64, ox64);
        n = (int)n64;
        oy0 = (int)oy64;
        ox0 = (int)ox64;
    }

    __device__ __forceinline__ void next(const IgemmParams &p, int th, int tw)
    {
        ox0 += tw;
        if (ox0 >= p.wout) {
            ox0 = 0;
            oy0 += th;
            if (oy0 >= p.hout) {
                oy0 = 0;
                ++n;
            }
        }
    }
};

/* Thread 0's TMA copy of chunk `chunk` of the tile at `at`: one box of window Win (TmaWindow, or tf32-v16's
 * FragmentWindow) into the stage at shared address `stage`, completing on the mbarrier `bar` with its bytes */
template <class Win>
__device__ __forceinline__ void land_window_box(const IgemmParams &p, const CUtensorMap &map, const TileCursor &at,
                                                int chunk, uint32_t stage, uint32_t bar)
{
    mbarrier_arrive_expect(bar, 4u * Win::kBoxFloats);
    tma_load_4d(stage, &map, Win::box_x(at.ox0, p.pad), at.oy0 - p.pad, chunk * kChunk, at.n, bar);
}

/* The rounding (3xTF32: split) of 4 values as the tensor cores read them */
template <int P> __device__ __forceinline__ void round4(const float (&v)[4], uint4 &big, uint4 &small)
{
    uint32_t b[4], s[4] = {0, 0, 0, 0};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        if (P == kTf32)
            b[j] = tf32_round_for_mma(v[j]);
        else
            split_tf32_for_mma(v[j], b[j], s[j]);
    }
    big = make_uint4(b[0], b[1], b[2], b[3]);
    small = make_uint4(s[0], s[1], s[2], s[3]);
}

/* A thread's share of converting a landed chunk (every thread's copies, after a barrier) into operands, 4 channels a
 * task: input tasks (half, pixel) into A, weight tasks (output channel, half, tap) into B. A task's offsets are the same every chunk:
 * worked out once, source (floats into the landing stage) | destination (16-byte units into A or B) << 16. Weight
 * task t = (channel / 8, (half, tap), channel % 8): 8 lanes read 8 channels of one (half, tap), banks apart by the
 * weight stride, and store 128 contiguous bytes. The input window lands as Src lays it out: channel planes kPlane
 * floats apart, rows kRowStride apart, the window `lead` columns into a row (B's Land: the window itself, lead 0). */
template <int P, class B, class Src = typename B::Land> struct ChunkConversion {
    using Land = typename B::Land;
    static constexpr int kWinPixels = B::kWinPixels, kThreads = B::kThreads;
    static constexpr int kBn = B::kBn, kInTasks = 2 * kWinPixels, kWTasks = kBn * 2 * kTaps;
    static constexpr int kInSlots = (kInTasks + kThreads - 1) / kThreads, kWSlots = (kWTasks + kThreads - 1) / kThreads;
    uint32_t in[kInSlots], w[kWSlots];

    static __device__ __forceinline__ bool spare(int s, int tasks) { return (int)threadIdx.x + s * kThreads >= tasks; }

    __device__ __forceinline__ void init(int lead = 0)
    {
#pragma unroll
        for (int s = 0; s < kInSlots; ++s) {
            const int t = (int)threadIdx.x + s * kThreads, half = t / kWinPixels, px = t % kWinPixels;
            const int src = 4 * half * Src::kPlane + px / Land::kRowStride * Src::kRowStride + px % Land::kRowStride;
            in[s] = (uint32_t)(src + lead) | (uint32_t)(half * kWinPixels + px) << 16;
        }
#pragma unroll
        for (int s = 0; s < kWSlots; ++s) {
            const int t = (int)threadIdx.x + s * kThreads;
            const int c = t / (8 * 2 * kTaps) * 8 + t % 8, k = t / 8 % (2 * kTaps), half = k / kTaps, tap = k % kTaps;
            w[s] = (uint32_t)(c * Land::kWStride + 4 * half * kTaps + tap) | (uint32_t)B::b_unit(tap, half, c) << 16;
        }
    }

    /* The landed input window (Src's layout) into A at a (big; 3xTF32: then small) */
    __device__ __forceinline__ void convert_input(const float *land, float *a) const
    {
        uint4 *dst = reinterpret_cast<uint4 *>(a);
#pragma unroll
        for (int s = 0; s < kInSlots; ++s)
            if (!spare(s, kInTasks))
                task<Src::kPlane, B::kAFloats / 4>(land + (in[s] & 0xffffu), dst + (in[s] >> 16));
    }

    /* A chunk's landed weights at weights (Land's layout: [output channel][input channel x 9 + tap], rows kWStride
     * apart) into B at b (big; 3xTF32: then small) */
    __device__ __forceinline__ void convert_weights(const float *weights, float *b) const
    {
        uint4 *dst = reinterpret_cast<uint4 *>(b);
#pragma unroll
        for (int s = 0; s < kWSlots; ++s)
            if (!spare(s, kWTasks))
                task<kTaps, B::kBFloats / 4>(weights + (w[s] & 0xffffu), dst + (w[s] >> 16));
    }

    /* A landing stage (Src's window, then the weights) into an operand buffer, [A big][A small][B big][B small] */
    __device__ __forceinline__ void convert(const float *land, float *op) const
    {
        convert_input(land, op);
        convert_weights(land + Src::kInFloats, op + B::kPlanes * B::kAFloats);
    }

    /* 4 channels kStride floats apart, rounded (3xTF32: split, the small part kSmall further) */
    template <int kStride, int kSmall> static __device__ __forceinline__ void task(const float *src, uint4 *dst)
    {
        const float v[4] = {src[0], src[kStride], src[2 * kStride], src[3 * kStride]};
        uint4 big, small;
        round4<P>(v, big, small);
        dst[0] = big;
        if (P == kTf32x3)
            dst[kSmall] = small;
    }
};

/* The launch-wide words (IgemmParams::launch_words, kernel_api.h's CGP_LAUNCH_WORDS) of round_weights_once */
enum LaunchWord { kUnitsClaimed, kUnitsRounded, kBlocksPast };

/* round_weights_once's scratch in shared memory: a unit's raw weights, a row of kChunkK floats an output channel, rows
 * kChunkK + 1 apart (an odd stride: the transposing reads of 32 consecutive channels hit 32 banks) */
constexpr int kRoundingRow = kChunkK + 1;
template <class B> constexpr size_t kRoundingScratchBytes = sizeof(float) * B::kBn * kRoundingRow;

/* The weights of every (channel block, chunk) unit, in B's layout and rounded (3xTF32: split) as the conversion
 * does, at rounded_w + (block x chunks + chunk) x kRoundedUnitFloats; zero past Cin and Cout. The units are claimed
 * one at a time by the launch's blocks as they arrive (an atomic counter; a block's next claim made while it writes
 * the unit before); a block lands the unit it claims in
 * `scratch` (its shared memory, kRoundingScratchBytes, not yet in use) by coalesced reads, a row an output channel,
 * then writes B's 16-byte units in order, each 4 input channels of one tap and output channel gathered from the rows
 * and rounded: coalesced 16-byte stores, where storing each weight as it was read scattered 4-byte stores over 18
 * sectors a warp. A block counts the units it wrote once, after its last (one fence and one atomic a block, not a
 * unit: docs/perf-log.md, "The pass's units counted once a block"). Then every block waits until all are counted. A
 * block waits only once every unit is claimed, by a block that converts and counts it without waiting for anything,
 * so the wait ends whatever the blocks resident. The last block past its wait sets the words to zero again for the
 * next launch (no block reads them any more in this one). Called by every thread of the block; `scratch` is free again
 * after it (its generic writes fenced for the async proxy's copies into the same memory). */
template <int P, class B> __device__ void round_weights_once(const IgemmParams &p, float *scratch)
{
    constexpr int kUnitFloats = B::kRoundedUnitFloats, kBn = B::kBn;
    /* a unit's weights, read in as few rounds of kBatch loads a thread (at most 16 in flight) as the block allows */
    constexpr int kElems = kBn * kChunkK, kPerThread = (kElems + B::kThreads - 1) / B::kThreads;
    constexpr int kRounds = (kPerThread + 15) / 16, kBatch = (kPerThread + kRounds - 1) / kRounds;
    constexpr int kQuads = kTaps * 2 * kBn;           /* B's 16-byte units: (tap, input-channel half, channel) */
    __shared__ int claimed;
    unsigned *words = p.launch_words;
    const int units = (int)p.channel_blocks * p.chunks;
    /* Relaxed, and correct so: a claim only hands out a unit index, which the atomicity alone makes unique; no data
     * travels with it (a unit's rounded weights are published by the release on kUnitsRounded below and read after
     * the acquire of the wait), and the reset of the count happens after every block's last claim (a block counts
     * itself past only after its claim came back >= units), with the kernel boundary before the next launch's
     * claims. An acq_rel claim would add MEMBAR.ALL.GPU, ERRBAR, CGAERRBAR and CCTL.IVALL (an L1 invalidation)
     * around the ATOM on sm_90a, for no ordering anything here needs. */
    auto claim = [&] { return threadIdx.x == 0 ? (int)atomicAdd(&words[kUnitsClaimed], 1u) : 0; };
    if (threadIdx.x == 0)
        claimed = claim();
    __syncthreads();
    /* each unit's next claim made once the unit has landed (every thread has read `claimed` by then), its value
     * stored after the unit's B is written (thread 0 waits for the atomic there, not before its own stores) and read
     * after the barrier that ends the unit: the claim's round trip beside the stores, and no barrier of its own */
    int rounded = 0; /* the units this block wrote */
    for (int unit = claimed; unit < units; unit = claimed) {
        const int64_t co0 = (int64_t)(unit / p.chunks) * kBn, ci0 = (int64_t)(unit % p.chunks) * kChunk;
        /* the unit's rows inside Cout and columns inside Cin; element e is row e / kChunkK, column e % kChunkK: a
         * 32-bit index and one wide multiply an element (64-bit index arithmetic an element was most of the
         * pass's issue: docs/perf-log.md, "where tf32-v21's launch goes") */
        const unsigned rows = (unsigned)min((int64_t)kBn, p.cout - co0);
        const unsigned columns = (unsigned)min((int64_t)kChunkK, (p.cin - ci0) * kTaps);
        const float *unit_w = p.w + (co0 * p.cin + ci0) * kTaps;
        uint64_t row_stride = (uint64_t)p.cin * kTaps;
        asm("" : "+l"(unit_w), "+l"(row_stride)); /* else the compiler folds them back into each element's index */
        for (int e0 = (int)threadIdx.x; e0 < kElems; e0 += kBatch * B::kThreads) { /* the rows, in read order */
            float v[kBatch];
#pragma unroll
            for (int u = 0; u < kBatch; ++u) {
                const unsigned e = e0 + u * B::kThreads, c = e / kChunkK, k = e - c * kChunkK;
                v[u] = c < rows && k < columns ? __ldg(unit_w + (uint64_t)c * row_stride + k) : 0.0f;
            }
#pragma unroll
            for (int u = 0; u < kBatch; ++u) {
                const int e = e0 + u * B::kThreads;
                if (e < kElems)
                    scratch[e + e / kChunkK * (kRoundingRow - kChunkK)] = v[u]; /* row e / kChunkK, its column */
            }
        }
        __syncthreads(); /* the unit landed; every thread has read `claimed` */
        const int next = claim();
        uint4 *dst = reinterpret_cast<uint4 *>(p.rounded_w + (int64_t)unit * kUnitFloats);
        for (int q = (int)threadIdx.x; q < kQuads; q += B::kThreads) { /* B's units in order: b_unit(tap, half, c) */
            const int c = q % kBn, tap = q / kBn / 2, half = q / kBn % 2;
            const float *row = scratch + c * kRoundingRow + 4 * half * kTaps + tap;
            const float v[4] = {row[0], row[kTaps], row[2 * kTaps], row[3 * kTaps]};
            if (P == kTf32) {
                dst[q] = make_uint4(tf32_round_for_mma(v[0]), tf32_round_for_mma(v[1]), tf32_round_for_mma(v[2]),
                                    tf32_round_for_mma(v[3]));
            } else {
                uint4 big, small;
                split_tf32_for_mma(v[0], big.x, small.x);
                split_tf32_for_mma(v[1], big.y, small.y);
                split_tf32_for_mma(v[2], big.z, small.z);
                split_tf32_for_mma(v[3], big.w, small.w);
                dst[q] = big;
                dst[B::kBFloats / 4 + q] = small;
            }
        }
        if (threadIdx.x == 0)
            claimed = next;
        ++rounded;
        __syncthreads(); /* the unit written; the next claim in `claimed` */
    }
    /* the block's units counted once, after its last: a block counts only once its claims came back >= units, which
     * needs no other block, so the wait below still ends whatever the blocks resident */
    fence_proxy_async_global(); /* the thread's stores, for the bulk copies (async proxy) that read them */
    __syncthreads();
    fence_proxy_async(); /* scratch's writes, before the async proxy's copies into the same shared memory */
    if (threadIdx.x == 0) {
        if (rounded > 0) {
            __threadfence(); /* release: the block's stores, ordered before it by the barrier, before the count */
            atomicAdd(&words[kUnitsRounded], (unsigned)rounded);
        }
        while (load_acquire_gpu(&words[kUnitsRounded]) < (unsigned)units)
            __nanosleep(100);
        fence_proxy_async_global();
        if (atomicAdd(&words[kBlocksPast], 1u) == gridDim.x * gridDim.y * gridDim.z - 1u) {
            atomicExch(&words[kUnitsClaimed], 0u);
            atomicExch(&words[kUnitsRounded], 0u);
            atomicExch(&words[kBlocksPast], 0u);
        }
    }
    __syncthreads();
}

/* The wgmmas of one chunk for warpgroup `wg`, A and B at shared addresses a_op and b_op (each big; 3xTF32: then
 * small), its 9 taps chained into `part` from zero; 3xTF32: the 18 corrections (small * big, big * small) first,
 * while the sum is small, then the 9 big * big products (the tensor cores' truncation is relative to the running
 * sum) */
template <int P, class B>
__device__ __forceinline__ void issue_chunk(uint32_t a_op, uint32_t b_op, int wg, float (&part)[B::kBn / 2])
{
    constexpr uint32_t kLboA = B::kWinPixels * 16, kSboA = B::Land::kRowStride * 16, kLboB = B::kBn * 16;
    constexpr uint32_t kBTapFloats = B::kBTapFloats, kBFloats = B::kBFloats;
    const int wy = wg / B::kWx, wx = wg % B::kWx;
    const uint64_t a = kmajor_desc(a_op + 16u * (uint32_t)(8 * wy * B::Land::kRowStride + 8 * wx), kLboA, kSboA);
    const uint64_t b = kmajor_desc(b_op, kLboB);
    auto a_tap = [&](int tap) { return desc_add(a, 16u * (uint32_t)(tap / 3 * B::Land::kRowStride + tap % 3)); };
    auto b_tap = [&](int tap) { return desc_add(b, 4u * kBTapFloats * tap); };
    if (P == kTf32x3) {
#pragma unroll
        for (int tap = 0; tap < kTaps; ++tap) {
            if (tap == 0)
                wgmma_tf32<0>(part, desc_add(a_tap(tap), 4u * B::kAFloats), b_tap(tap));
            else
                wgmma_tf32<1>(part, desc_add(a_tap(tap), 4u * B::kAFloats), b_tap(tap));
            wgmma_tf32<1>(part, a_tap(tap), desc_add(b_tap(tap), 4u * kBFloats));
        }
    }
#pragma unroll
    for (int tap = 0; tap < kTaps; ++tap) {
        if (P == kTf32 && tap == 0)
            wgmma_tf32<0>(part, a_tap(tap), b_tap(tap));
        else
            wgmma_tf32<1>(part, a_tap(tap), b_tap(tap));
    }
}

/* The 9 wgmmas of a chunk with A from registers (tf32-v16): tap t's fragment from load_fragments, B at b_op as
 * issue_chunk's; the first starts a fresh chain unless kFresh is false (3xTF32's big * big products, after its
 * corrections) */
template <class B, bool kFresh = true>
__device__ __forceinline__ void issue_chunk_fragments(const uint32_t (&fragment)[kTaps][4], uint32_t b_op,
                                                      float (&part)[B::kBn / 2])
{
    const uint64_t b = kmajor_desc(b_op, B::kBn * 16u);
#pragma unroll
    for (int tap = 0; tap < kTaps; ++tap) {
        const uint64_t b_tap = desc_add(b, 4u * B::kBTapFloats * tap);
        if (kFresh && tap == 0)
            wgmma_tf32<0>(part, fragment[tap], b_tap);
        else
            wgmma_tf32<1>(part, fragment[tap], b_tap);
    }
}

/* 3xTF32's 27 wgmmas of a chunk with A from registers (3xtf32-v21): big and small fragments from load_fragments, B
 * big at b_op and small kBFloats after it; as issue_chunk, the 18 corrections (small * big, big * small) first, then
 * the 9 big * big products */
template <class B>
__device__ __forceinline__ void issue_chunk_fragments(const uint32_t (&big)[kTaps][4],
                                                      const uint32_t (&small)[kTaps][4], uint32_t b_op,
                                                      float (&part)[B::kBn / 2])
{
    const uint64_t b = kmajor_desc(b_op, B::kBn * 16u);
#pragma unroll
    for (int tap = 0; tap < kTaps; ++tap) {
        const uint64_t b_tap = desc_add(b, 4u * B::kBTapFloats * tap);
        if (tap == 0)
            wgmma_tf32<0>(part, small[tap], b_tap);
        else
            wgmma_tf32<1>(part, small[tap], b_tap);
        wgmma_tf32<1>(part, big[tap], desc_add(b_tap, 4u * B::kBFloats));
    }
    issue_chunk_fragments<B, false>(big, b_op, part);
}

/* acc += part, once part's wgmmas are done (wgmma_wait) */
template <int N> __device__ __forceinline__ void add_chain(float (&acc)[N], float (&part)[N])
{
    hold(part);
#pragma unroll
    for (int i = 0; i < N; ++i)
        acc[i] += part[i];
}

/* The tile's pixel of row m of warpgroup wg's m64 accumulator */
template <class B> __device__ __forceinline__ int tile_pixel(int wg, int m)
{
    return (8 * (wg / B::kWx) + m / 8) * B::kTw + 8 * (wg % B::kWx) + m % 8;
}


/* What the wgmma implicit GEMMs share (kernel_desc.cuh's Kind): wgmma, the tiles of kTileShapes in their order (the
 * warps: the tile's) */
constexpr cgp_kernel_tile kind_tile(const TileShape &t)
{
    return cgp_kernel_tile{(short)(8 * t.wy), (short)(8 * t.wx), (short)t.bn};
}
constexpr Kind kWgmmaImplicitGemmKind = Kind(CGP_PIPE_WGMMA, CGP_ALGORITHM_IMPLICIT_GEMM).tiles(kTileShapes, kind_tile);

/* The block of tile I of kTileShapes in precision P */
template <int P, int I> using TileBlocks = Blocks<P, kTileShapes[I].wy, kTileShapes[I].wx, kTileShapes[I].bn>;

/* f(TileTag<TileBlocks<P, tile>>()) for a tile index known at run time (with_index), f's result */
template <class B> struct TileTag {
    using Block = B;
};
template <int P, class F> auto with_tile_blocks(int tile, F &&f)
{
    return with_index<kTileCount>(tile, [&](auto i) { return f(TileTag<TileBlocks<P, decltype(i)::value>>()); });
}

} // namespace

#endif
