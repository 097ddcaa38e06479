/*
 * wgmma_conv.cuh - the Hopper tensor-core fused kernel (library layer): wgmma_conv_gelu_mean<version>, the
 * device code under it and the host side that checks, sizes and launches a version. A version is a struct of
 * named constants ("what a version sets", below); fused_wgmma.cu holds the current ones, tf32-v8 and
 * 3xtf32-v8, history/fused_wgmma.cu the earlier ones still the measured best on some shapes (tf32-v6,
 * 3xtf32-v7).
 *
 *     y[n, c] = mean over (h, w) of GELU(conv3x3(x, w)[n, c, h, w] + b[c])
 *
 * in one launch, with the convolution on wgmma.mma_async (sm_90a: H100, H200). The MMAs are asynchronous and
 * read their operands from shared memory (3xtf32-v8: the big weights from registers), so while the tensor
 * cores compute one output row, the same warps run the previous row's GELU and sums on the FP32 and MUFU
 * pipes. docs/design.md ("The wgmma kernels") draws the layouts. As tf32-v8 and 3xtf32-v8 run it:
 *
 *   block          one warpgroup (128 threads), 2 blocks per SM, persistent grid over tiles of `rows` output
 *                  rows (tf32-v8 16, 3xtf32-v8 8) x 64 output columns x 64 channels (tile_loader.cuh's
 *                  schedule)
 *   staging        a tile's input window, 8 channels x rows + 2 x 68 columns, by one TMA box copy onto an
 *                  mbarrier where the problem allows it (W % 4 = 0; padding same: 72 columns from 4 columns
 *                  left of the tile, the shifted box, Window), else by cp.async; tile
 *                  t + 1's window is in flight while tile t's rows run
 *   operand tile   when a tile's first row is next and the rows in flight are done, its window is converted in
 *                  4 x 4 blocks into the one operand tile, rounded only as far as wgmma reads (round_for_mma;
 *                  3xTF32: split into big and small halves). Layout [channel half][row][column][4 channels],
 *                  16 bytes a pixel: wgmma's no-swizzle K-major layout of 8-row x 16-byte core matrices
 *                  (SBO = 128 bytes to the next 8 pixels, LBO = one half to the next 4 channels), so the
 *                  64 x 8 window of output row r and tap (ky, kx), from input row r + ky, column kx, is only
 *                  a different start address in the descriptor
 *   weights        [tap][channel half][64 output channels][4], rounded (3xTF32: split into big and small)
 *                  once per block; zero past Cout
 *   tf32-v8        D = X W, pixels x channels: A = the input window, B = the tap's weights, both from shared
 *                  memory
 *   3xtf32-v8      D = W X^T, channels x pixels: A = the weights, the big ones from registers (the wgmma A
 *                  fragment, loaded once; the small ones from shared memory), B = the input window (B's
 *                  K-major layout is A's above): the 18 wgmmas of a row with A in registers read only 2 KiB
 *                  of shared memory instead of 4
 *   bias           one more wgmma per row, with scale-d = 0: A = 64 rows of (1, 1, 0, ...), B = rows
 *                  (big(b), small(b), 0, ...), so each row's accumulators start at the bias (to 2^-22);
 *                  transposed, the two swap places
 *   3xTF32         the 18 correction products (small*big, big*small) first, then the bias and the 9 big*big
 *                  products, chained in one accumulator (28 wgmmas a row; issue_row says why this order)
 *   accumulators   m64n64 fp32, 32 per thread: per n8 block j, d[4j + e] = D[16 warp + group + 8 (e / 2)]
 *                  [8 j + 2 tig + e % 2] (group = lane / 4, tig = lane % 4), the mma.sync C layout. Two sets:
 *                  one row in flight on the tensor cores, one in the epilogue
 *   pipeline       per row k: fence, issue row k's wgmmas into one set, commit; wait until only that group
 *                  is pending (row k - 1 done); GELU of row k - 1 (tf32-v8 gelu_x2, 3xtf32-v8 gelu_x2_fine),
 *                  masked outside the output, into 16 float sums (transposed: 4)
 *   reduction      the float sums go into per-thread doubles every 16 rows; at each image's end the 8 lanes
 *                  holding the same channels are added by shuffles, then the 4 warps in a fixed order
 *                  (transposed: the 4 lanes of a group, and each warp has its own 16 channels), and
 *                  publish_image_sums (reduction.cuh) does det or atomic. Deterministic.
 * The earlier versions (history/fused_wgmma.cu) differ in what they set: two operand tiles, conversion in 4 x 4
 * blocks with cvt.rna (tf32-v6), no shifted box, tiles of 8 (TF32) or 4 (3xTF32) rows.
 * A version runs Cin <= 8 (the channels past Cin zeros: TMA's box reaches past the tensor's channels, the cp.async
 * loader and the weights fill zeros) and Cout <= 64 on an sm_90 GPU with a build for sm_90a (SM=90) and refuses
 * every other problem or GPU with the reason (wgmma_unsupported); version 0 ("best") then takes the implicit GEMMs,
 * which run any shape. Tested by tests/gpu/gpu_tensorcore.c.
 */
#ifndef CGP_WGMMA_CONV_CUH
#define CGP_WGMMA_CONV_CUH

#include <stdint.h>
#include <type_traits>
#include <utility>

#include "async_copy.cuh"
#include "cgp.h"
#include "kernel_api.h"
#include "kernel_desc.cuh"
#include "path_record.cuh"
#include "reduction.cuh"
#include "tensor_map.cuh"
#include "tile_loader.cuh"
#include "gelu.cuh"
#include "fused_tf32_device.cuh"
#include "wgmma_ops.cuh"

namespace {


enum Precision { kTf32 = CGP_PRECISION_TF32, kTf32x3 = CGP_PRECISION_TF32X3 };

/* The epilogue's GELU (gelu.cuh), both returning twice the GELU: gelu_x2 (TF32), gelu_x2_fine (3xTF32) */
enum GeluForm { kGeluX2, kGeluX2Fine };

/* How a staged tile becomes an operand tile (convert_tile_4x4): in 4 x 4 blocks with cvt.rna; in 4 x 4 blocks with
 * the rounding only wgmma needs (round_for_mma) */
enum Conversion { kConvert4x4, kConvert4x4ForMma };

constexpr int kThreads = 128; /* one warpgroup */
constexpr int kCin = 8; /* one k8 step of the MMA = one filter tap over 8 input channels, those past Cin zeros */
constexpr int kN = 64;        /* output channels: the wgmma N */
constexpr int kTileW = 64;    /* output columns of a tile: the wgmma M */
constexpr int kTaps = 9;

/* How a launch stages its tiles (staging_of): by cp.async, from input column ox0 - pad; by one TMA box from column
 * ox0 (valid padding); by one TMA box from column ox0 - 4 (same padding: on the H200 a box must start at a multiple
 * of 4 columns, docs/perf-log.md entry 25), the window being 3 columns into it */
enum Staging { kByCpAsync, kByTma, kByTmaShifted };

/* The path (kernel_info.h) a launch of staging kStaging records, and its `path` hook names */
__host__ __device__ constexpr unsigned path_of_staging(int staging)
{
    return staging == kByCpAsync ? CGP_PATH_CP_ASYNC : staging == kByTma ? CGP_PATH_TMA : CGP_PATH_TMA_SHIFTED;
}

/* A tile's input window as a launch of version C with staging kStaging holds it, R + 2 rows (R = C::rows): the raw
 * window, rows of `pitch` columns, the window's first column (input column ox0 - pad) at column `lead`, 66 + lead
 * columns used, a multiple of 4 for 16-byte copies; the operand tile, rows of `tile_pitch` pixels, the window's
 * first column at pixel `tile_lead`: as the raw window, but for a shifted box in a version with wide_shifted_tile,
 * rows of 80 pixels from pixel 8. Shared memory, floats unless said: the raw window [ci][row][column]; the operand
 * tiles, each [big half 0, big half 1 (, small half 0, small half 1)] of [row][column][4]; the weights, per tap
 * [half][channel][4] (3xTF32: all big taps, then all small ones); the bias wgmma's B and A. */
template <class C, int kStaging> struct Window {
    static constexpr bool kShifted = kStaging == kByTmaShifted, kWide = kShifted && C::wide_shifted_tile;
    static constexpr int rows = C::rows + 2, lead = kShifted ? 3 : 0, pitch = kShifted ? 72 : 68;
    static constexpr int tile_lead = kWide ? 8 : lead, tile_pitch = kWide ? 80 : pitch;
    static constexpr int raw_floats = kCin * rows * pitch, half_floats = rows * tile_pitch * 4;
};
template <int P, class Win> constexpr int kTileFloats = 2 * Win::half_floats * (P == kTf32 ? 1 : 2);
constexpr int kTapFloats = 2 * kN * 4; /* 2 KiB: also the size of the bias wgmma's A and B */
template <int P> constexpr int kWeightFloats = kTaps * kTapFloats * (P == kTf32 ? 1 : 2);
constexpr int kRedDoubles = 4 * 4 * 16 + kN; /* [warp][tig][16 sums], then the image's 64 channel sums */

/* By TMA: one 8-byte mbarrier after the doubles, and up to 128 bytes to align the raw tile (TMA's destination);
 * C::operand_tiles operand tiles */
template <class C, int kStaging> constexpr size_t smem_bytes()
{
    using Win = Window<C, kStaging>;
    constexpr int P = C::precision;
    return sizeof(double) * kRedDoubles + (kStaging != kByCpAsync ? 8 + 128 : 0) +
           sizeof(float) *
               (Win::raw_floats + C::operand_tiles * kTileFloats<P, Win> + kWeightFloats<P> + 2 * kTapFloats);
}

/* ---- staging ---- */

/* The block's weights (zero past Cin and Cout), bias operand and ones operand, once. */
template <int P>
__device__ __forceinline__ void stage_operands(const float *w, const float *b, const cgp_problem &p, float *wsm,
                                               float *bias_b, float *ones_a)
{
    const int64_t cout = p.cout;
    for (int i = threadIdx.x; i < kTaps * kTapFloats; i += kThreads) {
        const int tap = i / kTapFloats, half = i / (kN * 4) % 2, c = i / 4 % kN, ci = 4 * half + i % 4;
        const float v = c < cout && ci < p.cin ? __ldg(w + ((int64_t)c * p.cin + ci) * kTaps + tap) : 0.0f;
        if constexpr (P == kTf32) {
            wsm[i] = __uint_as_float(tf32_round(v));
        } else {
            uint32_t big, small;
            split_tf32(v, big, small);
            wsm[i] = __uint_as_float(big);
            wsm[kTaps * kTapFloats + i] = __uint_as_float(small);
        }
    }
    for (int i = threadIdx.x; i < kTapFloats; i += kThreads) { /* i = (half * 64 + row) * 4 + k */
        const int c = i / 4 % kN, k = i % 4;
        const bool first = i < kTapFloats / 2 && k < 2;
        uint32_t big = 0, small = 0;
        if (first && c < cout)
            split_tf32(__ldg(b + c), big, small);
        bias_b[i] = __uint_as_float(k == 0 ? big : small); /* both 0 but in column 0 and 1 of half 0 */
        ones_a[i] = first ? 1.0f : 0.0f;
    }
}

/* fp32 -> tf32 as the tensor cores read it (fused_tf32_device.cuh): TF32 tf32_round_for_mma, 3xTF32
 * split_tf32_for_mma */
template <int P> __device__ __forceinline__ void round_for_mma(float v, uint32_t &big, uint32_t &small)
{
    if constexpr (P == kTf32)
        big = tf32_round_for_mma(v);
    else
        split_tf32_for_mma(v, big, small);
}

/* The 4 channels of a pixel rounded (3xTF32: split into big and small): with cvt.rna, or kForMma with
 * round_for_mma */
template <int P, bool kForMma>
__device__ __forceinline__ void round_pixel(const float (&v)[4], uint4 &big, uint4 &small)
{
    auto round = [](float x, uint32_t &b, uint32_t &s) {
        if constexpr (kForMma)
            round_for_mma<P>(x, b, s);
        else if constexpr (P == kTf32)
            b = tf32_round(x);
        else
            split_tf32(x, b, s);
    };
    round(v[0], big.x, small.x);
    round(v[1], big.y, small.y);
    round(v[2], big.z, small.z);
    round(v[3], big.w, small.w);
}

/* Rounds (3xTF32: splits) the raw tile into an operand tile in 4 x 4 blocks: task = (half, row, 4 columns): four
 * 16-byte loads (one a channel), four 16-byte stores (one a pixel). A thread's loads of all its tasks go first, so
 * their latencies overlap. kForMma: round_for_mma instead of cvt.rna. */
template <int P, class Win, bool kForMma>
__device__ __forceinline__ void convert_tile_4x4(const float *raw, float *tile)
{
    constexpr int kQuads = Win::pitch / 4, kPlaneQuads = Win::rows * kQuads, kTasks = 2 * kPlaneQuads;
    constexpr int kPerThread = (kTasks + kThreads - 1) / kThreads;
    const float4 *raw4 = reinterpret_cast<const float4 *>(raw);
    uint4 *tile4 = reinterpret_cast<uint4 *>(tile);
    float4 loaded[kPerThread][4]; /* [task][channel 4 half + k] */
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
        const int task = (int)threadIdx.x + j * kThreads;
        const int half = task / kPlaneQuads, quad = task % kPlaneQuads; /* quad = row * kQuads + column / 4 */
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if (task < kTasks)
                loaded[j][k] = raw4[(4 * half + k) * kPlaneQuads + quad];
    }
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
        const int task = (int)threadIdx.x + j * kThreads;
        if (task >= kTasks)
            break;
        const int half = task / kPlaneQuads, quad = task % kPlaneQuads;
        const float4(&c)[4] = loaded[j];
        const float px[4][4] = {{c[0].x, c[1].x, c[2].x, c[3].x}, {c[0].y, c[1].y, c[2].y, c[3].y},
                                {c[0].z, c[1].z, c[2].z, c[3].z}, {c[0].w, c[1].w, c[2].w, c[3].w}};
        /* dst[i]: the operand pixel of raw column 4 (quad % kQuads) + i of row quad / kQuads */
        constexpr bool kAsRaw = Win::tile_pitch == Win::pitch && Win::tile_lead == Win::lead;
        const int pixel = kAsRaw ? 4 * quad
                                 : quad / kQuads * Win::tile_pitch + 4 * (quad % kQuads) + Win::tile_lead - Win::lead;
        uint4 *dst = tile4 + half * (Win::half_floats / 4) + pixel;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            uint4 big, small;
            round_pixel<P, kForMma>(px[i], big, small);
            dst[i] = big;
            if constexpr (P == kTf32x3)
                dst[i + 2 * Win::half_floats / 4] = small;
        }
    }
}

/* Where a tile is: its first output row and column, and its column tile index. Tiles of one image are
 * visited in order, so the next one is a step, not a division. */
struct TileAt {
    int64_t oy0, ox0, tx;
};

__device__ __forceinline__ TileAt tile_at(const PersistentSchedule &g, int64_t t, int rows)
{
    const int64_t rem = t % g.tiles_per_image, tx = rem % g.tiles_x;
    return TileAt{rem / g.tiles_x * rows, tx * kTileW, tx};
}

__device__ __forceinline__ TileAt next_tile(const PersistentSchedule &g, TileAt at, int rows)
{
    return at.tx + 1 == g.tiles_x ? TileAt{at.oy0 + rows, 0, 0} : TileAt{at.oy0, at.ox0 + kTileW, at.tx + 1};
}

/* Starts the copies of the tile's input window into raw [ci][row][column]: 8 channels x Win::rows rows x
 * Win::pitch columns from input pixel (oy0 - pad, ox0 - pad), zeros outside the image (tile_loader.cuh), and
 * commits them. Offsets within an image are 32-bit (wgmma_unsupported: Cin H W < 2^31). */
template <class Win>
__device__ __forceinline__ void copy_tile(const float *x, const cgp_problem &p, int64_t n, TileAt at, float *raw)
{
    /* unrolled fully up to 8-row tiles; 16-row tiles (tf32-v8) unrolled fully spill (make ptxas) */
    constexpr int kMaxUnroll = Win::rows <= 10 ? 1 << 30 : 4;
    load_window_async<kThreads, kCin, Win::rows, Win::pitch, int, kMaxUnroll>(raw, x, p, n, at.oy0 - p.pad,
                                                                             at.ox0 - p.pad);
    cp_async_commit();
}

/* copy_tile by TMA: thread 0 starts one 4D box copy (8 channels x Win::rows rows x Win::pitch columns from input pixel
 * (oy0 - pad, ox0 - pad - Win::lead)), which lands on the mbarrier bar; the hardware writes the zeros outside the
 * image. */
template <class Win>
__device__ __forceinline__ void tma_tile(const CUtensorMap *map, const cgp_problem &p, int64_t n, TileAt at,
                                         uint32_t raw_addr, uint32_t bar)
{
    if (threadIdx.x == 0) {
        mbarrier_arrive_expect(bar, Win::raw_floats * 4);
        tma_load_4d(raw_addr, map, (int)(at.ox0 - p.pad - Win::lead), (int)(at.oy0 - p.pad), 0, (int)n, bar);
    }
}

/* How a block stages its tiles: by TMA (tensor map and mbarrier, with the parity of the next phase), or
 * by cp.async (copy_tile) */
struct TileSource {
    const CUtensorMap *map;
    uint32_t bar, parity;
};

/* The copied tile into the operand tile: after it, wgmma may read the tile. Every thread calls it. */
template <int P, class Win, bool kTma, int kConversion>
__device__ __forceinline__ void land_tile(const float *raw, float *tile, TileSource &src)
{
    /* No wgmma still reads this operand tile: with two of them, every thread's wgmma_wait since the last row of
     * the tile two before (kValidVersion) saw it done; with one, the wgmma_wait<0> just before. The raw tile is
     * complete: TMA, each thread waits on the mbarrier; cp.async, each waits for its own copies and the
     * barrier for the others'. */
    if constexpr (kTma) {
        mbarrier_wait(src.bar, src.parity);
        src.parity ^= 1;
    } else {
        cp_async_wait<0>();
        __syncthreads();
    }
    convert_tile_4x4<P, Win, kConversion == kConvert4x4ForMma>(raw, tile);
    fence_proxy_async();
    __syncthreads();
}

/* ---- one output row ---- */

/* The descriptors every row uses, made once: bias operands, tap 0 of the weights, and the window's row 0, column 0
 * in operand tile 0 (operand A of every row is this one moved in shared memory: desc_add). */
struct RowDescs {
    uint64_t ones, bias, weights, tile0;
};

/* An empty asm that claims to change the descriptors, so that they are values carried from row to row: ptxas
 * then keeps them in uniform registers instead of recomputing all four from the shared-memory base before every
 * row (about 13 uniform instructions a row; docs/perf-log.md, entry 33). */
__device__ __forceinline__ void pin_descriptors(RowDescs &rd)
{
    asm volatile("" : "+l"(rd.ones), "+l"(rd.bias), "+l"(rd.weights), "+l"(rd.tile0));
}

/* Issues output row r of operand tile `buffer` (0, 1), one commit group; kMma false (the stage split):
 * the bias alone. TF32: the bias (scale-d = 0 starts the accumulator), then the 9 taps. 3xTF32: the 18
 * correction products first (small * big, big * small: the accumulator stays 2^-11 of the result, so
 * their truncating accumulation costs nothing), then the bias and the 9 big * big products: 10
 * accumulations at full size instead of 28 (on the default problem the error fell from 7.7e-7 to 3.0e-7).
 * kTransposed (3xtf32-v7, -v8): D is transposed, D[channel][pixel] = W X^T + b: A = the weights, the big ones from
 * registers (w_big[tap], the wgmma A fragment) and the small ones from shared memory; B = the input windows
 * (the same descriptors as A's otherwise, as B's K-major layout is A's); the bias wgmma takes bias_b as A and
 * the ones as B. Each wgmma with A from registers reads half the shared memory. */
template <int P, class Win, bool kMma, bool kTransposed>
__device__ __forceinline__ void issue_row(float (&acc)[32], uint32_t buffer, int r, const RowDescs &rd,
                                          const uint32_t (&w_big)[kTaps][4])
{
    constexpr uint32_t kHalfBytes = Win::half_floats * 4, kTapBytes = kTapFloats * 4;
    const uint64_t x_row = desc_add(rd.tile0, buffer * (kTileFloats<P, Win> * 4) + (uint32_t)r * Win::tile_pitch * 16);
    /* the input window of a tap (big; + 2 kHalfBytes: small): moved by ky rows and kx columns */
    auto x_tap = [&](int tap) { return desc_add(x_row, (uint32_t)((tap / 3) * Win::tile_pitch + tap % 3) * 16); };
    auto w_tap = [&](int tap) { return desc_add(rd.weights, tap * kTapBytes); }; /* + kTaps taps: small */
    /* acc (+)= weights (big) of tap * window; the bias */
    auto big_w = [&](auto accumulate, int tap, uint64_t window) {
        if constexpr (kTransposed)
            wgmma_tf32<decltype(accumulate)::value>(acc, w_big[tap], window);
        else
            wgmma_tf32<decltype(accumulate)::value>(acc, window, w_tap(tap));
    };
    auto bias = [&](auto accumulate) {
        if constexpr (kTransposed)
            wgmma_tf32<decltype(accumulate)::value>(acc, rd.bias, rd.ones);
        else
            wgmma_tf32<decltype(accumulate)::value>(acc, rd.ones, rd.bias);
    };
    using First = std::integral_constant<int, 0>;
    using Then = std::integral_constant<int, 1>;
    wgmma_fence();
    if constexpr (kMma && P == kTf32x3) {
#pragma unroll
        for (int tap = 0; tap < kTaps; ++tap) {
            const uint64_t small_x = desc_add(x_tap(tap), 2 * kHalfBytes), small_w = w_tap(kTaps + tap);
            if (tap == 0)
                big_w(First{}, tap, small_x); /* big w * small x */
            else
                big_w(Then{}, tap, small_x);
            if constexpr (kTransposed)
                wgmma_tf32<1>(acc, small_w, x_tap(tap)); /* small w * big x */
            else
                wgmma_tf32<1>(acc, x_tap(tap), small_w);
        }
        bias(Then{});
    } else {
        bias(First{});
    }
    if constexpr (kMma) {
#pragma unroll
        for (int tap = 0; tap < kTaps; ++tap)
            big_w(Then{}, tap, x_tap(tap)); /* big * big */
    }
    wgmma_commit();
}

/* The epilogue masks of a row: lo for pixel 16 warp + group, hi for 8 pixels further; 0 outside the output,
 * else 1 (0.5 to halve gelu_x2 and gelu_x2_fine). kTransposed: `pixels`, how many of the row's 64 pixels are in the
 * output (0 for a row below it), the masks being the factor alone. */
struct RowMask {
    float lo, hi;
    int pixels;
};

/* A tile's masks: its first row's (the others' are these or 0), and how many of its rows are in the output */
struct TileMask {
    RowMask cols;
    int rows;
};

template <int R, bool kTransposed>
__device__ __forceinline__ TileMask tile_mask(const cgp_problem &p, TileAt at, float in)
{
    const int pixels = (int)min(p.wout - at.ox0, (int64_t)kTileW), rows = (int)min(p.hout - at.oy0, (int64_t)R);
    if constexpr (kTransposed)
        return TileMask{RowMask{in, in, pixels}, rows};
    const int col = threadIdx.x / 32 * 16 + threadIdx.x % 32 / 4;
    return TileMask{RowMask{col < pixels ? in : 0.0f, col + 8 < pixels ? in : 0.0f, pixels}, rows};
}

__device__ __forceinline__ RowMask row_mask(const TileMask &t, int r)
{
    return r < t.rows ? t.cols : RowMask{0.0f, 0.0f, 0};
}

/* sum[2 j + e % 2] (channel 8 j + 2 tig + e % 2) += GELU(d[4 j + e]) * mask, in increasing j, e;
 * kGelu false (the stage split): the accumulator itself. The GELU (kForm): kGeluX2, gelu_x2 (twice the GELU,
 * within 2^-20; the mask is 0.5); kGeluX2Fine, gelu_x2_fine (twice the GELU, a fit error of 2e-8; the mask is 0.5).
 * kTransposed (d[4 j + e] = D[channel 16 warp + group + 8 (e / 2)][pixel 8 j + 2 tig + e % 2]): sum[2 (e / 2) + j % 2]
 * += GELU(d[4 j + e]) * m.lo, after the accumulators of pixels outside the output are set to 0 (whose GELU is
 * 0), in the n8 blocks j that reach past the output's edge only (a branch that the warp takes as one; on the
 * default problem, j = 7 of the last column tile): cheaper than 16 masks a tile, which would be 32 registers
 * with two rows of different tiles in flight. */
template <bool kGelu, int kForm, bool kTransposed, int kSums>
__device__ __forceinline__ void epilogue_row(float (&acc)[32], RowMask m, float (&sum)[kSums])
{
    if constexpr (kTransposed) {
        if (m.pixels < kTileW) {
            const int tig = threadIdx.x % 4;
#pragma unroll
            for (int j = 0; j < 8; ++j)
                if (8 * j + 7 >= m.pixels)
#pragma unroll
                    for (int e = 0; e < 4; ++e)
                        if (8 * j + 2 * tig + e % 2 >= m.pixels)
                            acc[4 * j + e] = 0.0f;
        }
    }
#pragma unroll
    for (int i = 0; i < 32; ++i) {
        const float v = !kGelu ? acc[i] : kForm == kGeluX2 ? gelu_x2(acc[i]) : gelu_x2_fine(acc[i]);
        const int s = kTransposed ? i % 4 / 2 * 2 + i / 4 % 2 : i / 4 * 2 + i % 2;
        sum[s] = fmaf(v, kTransposed || i % 4 < 2 ? m.lo : m.hi, sum[s]);
    }
}

/* ---- what a version sets ----
 * A version is a struct of these static constexpr members (fused_wgmma.cu, history/fused_wgmma.cu):
 *   precision      CGP_PRECISION_TF32 or CGP_PRECISION_TF32X3
 *   rows           output rows a tile: a power of 2 (cheap row arithmetic), at least sets - 1
 *   blocks_per_sm  blocks an SM holds, so registers <= 65536 / (128 blocks_per_sm) a thread
 *   sets           accumulator sets: rows in flight on the tensor cores + the one in the epilogue
 *   gelu           the epilogue's GeluForm
 *   shifted_box    padding same by TMA too: the box starts 4 columns left of the tile, the window 3 columns into
 *                  it (kByTmaShifted); false: padding same by cp.async. The tiles go by TMA where the problem
 *                  allows it (staging_of), else by cp.async
 *   wide_shifted_tile  with shifted_box, the operand tile of a shifted box has rows of 80 pixels, the window from
 *                  pixel 8 (Window); false: 72 from pixel 3, as the raw window
 *   conversion     how a staged tile becomes an operand tile (Conversion)
 *   transposed     false: D = X W, pixels x channels, both operands from shared memory; true: D = W X^T,
 *                  channels x pixels, the big weights wgmma's A operand in registers (issue_row)
 *   operand_tiles  2: a tile lands in one while the last rows of the tile before read the other; 1: it lands
 *                  once the rows in flight are done, leaving the shared memory for twice the rows */
template <class C> constexpr int kSums = C::transposed ? 4 : 16; /* float sums a thread (epilogue_row) */

template <class C>
constexpr bool kValidVersion = (C::rows & (C::rows - 1)) == 0 && C::rows >= C::sets - 1 && C::sets >= 2 &&
                               (C::operand_tiles == 1 || C::operand_tiles == 2) &&
                               (C::shifted_box || !C::wide_shifted_tile);

/* ---- an image's run of tiles in one block ---- */

template <int kSums> __device__ __forceinline__ void flush_sums(float (&sum)[kSums], double (&dsum)[kSums])
{
#pragma unroll
    for (int i = 0; i < kSums; ++i) {
        dsum[i] += (double)sum[i];
        sum[i] = 0.0f;
    }
}

/* step(integral_constant<int, 0>), ..., step(integral_constant<int, kSets - 1>) while they return true */
template <class Step, int... kSet>
__device__ __forceinline__ bool each_set(Step &step, std::integer_sequence<int, kSet...>)
{
    return (step(std::integral_constant<int, kSet>{}) && ...);
}

/* The rows of tiles [t0, t1) of image n, pipelined kSets - 1 rows deep; the sums go into dsum. Every
 * thread calls it with the same arguments. */
template <class C, int S, int kStaging>
__device__ __forceinline__ void run_image(const float *x, const cgp_problem &p, const PersistentSchedule &g, int64_t n,
                                          int64_t t0, int64_t t1, float *raw, float *tiles, const RowDescs &rd,
                                          TileSource &src, const uint32_t (&w_big)[kTaps][4], double (&dsum)[kSums<C>])
{
    constexpr int P = C::precision, R = C::rows, kSets = C::sets;
    constexpr bool kMma = (S & CGP_STAGE_MMA) != 0, kGelu = (S & CGP_STAGE_EPILOGUE) != 0;
    constexpr bool kTma = kStaging != kByCpAsync;
    using Win = Window<C, kStaging>;
    constexpr float kMaskIn = 0.5f; /* the GELU forms return twice the GELU */
    constexpr int kFlushRows = 16; /* rows between flushes of the float sums into doubles */
    const int rows = (int)(t1 - t0) * R; /* 32-bit: wgmma_unsupported */
    int k = 0;                           /* the next row to issue */
    TileAt at = tile_at(g, t0, R);       /* the tile of row k */
    TileAt next = next_tile(g, at, R);   /* the tile after it */
    TileMask mask = tile_mask<R, C::transposed>(p, at, kMaskIn);
    RowDescs row_descs = rd; /* pinned: pin_descriptors */
    auto start_copy = [&](TileAt t) {
        if constexpr (kTma)
            tma_tile<Win>(src.map, p, n, t, shared_address(raw), src.bar);
        else
            copy_tile<Win>(x, p, n, t, raw);
    };
    start_copy(at);

    float sum[kSums<C>] = {};
    int since_flush = 0;
    /* Row k goes into set k % kSets. Where kSets divides R, only set 0 takes a tile's first row, and where it
     * divides kFlushRows, only the last set's epilogue flushes: the code for the others is left out (smaller
     * loop, fewer instruction-cache misses). `set` is a std::integral_constant, -1 for any set. */
    auto may_land = [](auto set) { return decltype(set)::value <= 0 || R % kSets != 0; };
    auto may_flush = [](auto set) {
        return decltype(set)::value < 0 || kFlushRows % kSets != 0 || decltype(set)::value == kSets - 1;
    };
    /* the operand tile that tile (of this run) lands in */
    auto buffer = [](int tile) { return C::operand_tiles == 2 ? (uint32_t)(tile & 1) : 0u; };
    /* row k into acc, its masks into m; its tile lands first when it is the tile's first row, and then
     * the copy of the tile after it starts */
    auto issue = [&](float(&acc)[32], RowMask &m, auto set) {
        const int tile = k / R, r = k % R;
        if (may_land(set) && r == 0) {
            if (tile > 0) {
                at = next;
                next = next_tile(g, next, R);
                mask = tile_mask<R, C::transposed>(p, at, kMaskIn);
            }
            if (C::operand_tiles == 1 && tile > 0)
                wgmma_wait<0>(); /* one operand tile: the rows in flight read the tile about to be overwritten */
            land_tile<P, Win, kTma, C::conversion>(raw, tiles + buffer(tile) * kTileFloats<P, Win>, src);
            if (t0 + tile + 1 < t1)
                start_copy(next);
        }
        pin_descriptors(row_descs);
        issue_row<P, Win, kMma, C::transposed>(acc, buffer(tile), r, row_descs, w_big);
        m = row_mask(mask, r);
        ++k;
    };
    auto epilogue = [&](float(&acc)[32], RowMask m, auto set) {
        hold(acc);
        epilogue_row<kGelu, C::gelu, C::transposed>(acc, m, sum);
        ++since_flush;
        if (may_flush(set) && since_flush == kFlushRows) {
            flush_sums(sum, dsum);
            since_flush = 0;
        }
    };

    /* kSets accumulator sets: kSets - 1 rows in flight on the tensor cores while one is in the epilogue */
    float acc[kSets][32] = {};
    RowMask m[kSets];
    int retired = 0; /* rows through the epilogue */
    auto issue_first = [&](auto set) { /* rows >= R >= kSets - 1 (kValidVersion) */
        issue(acc[decltype(set)::value], m[decltype(set)::value], set);
        return true;
    };
    each_set(issue_first, std::make_integer_sequence<int, kSets - 1>{});
    /* retires the row in `set` (a std::integral_constant) after issuing the next row into the set the step
     * before retired; with no row left to issue, waits for all and retires the rest (the sets from `set`
     * on, in order) and returns false. Every exit follows a wait for all: so ptxas keeps the pipeline. */
    auto step = [&](auto set) {
        constexpr int kSet = decltype(set)::value, kFree = (kSet + kSets - 1) % kSets;
        if (k < rows) {
            issue(acc[kFree], m[kFree], std::integral_constant<int, kFree>{});
            wgmma_wait<kSets - 1>(); /* the oldest row, in acc[kSet], is done */
            epilogue(acc[kSet], m[kSet], set);
            ++retired;
            return true;
        }
        wgmma_wait<0>();
#pragma unroll
        for (int j = 0; j < kSets - 1; ++j)
            if (retired < rows) {
                epilogue(acc[(kSet + j) % kSets], m[(kSet + j) % kSets], std::integral_constant<int, -1>{});
                ++retired;
            }
        return false;
    };
    while (each_set(step, std::make_integer_sequence<int, kSets>{})) { /* kSets rows an iteration: no copies */
    }
    flush_sums(sum, dsum);
}

/* The block's sums for image n: lanes of one tig hold the same 16 channels; they are added by shuffles
 * (fixed pattern), then the 4 warps in order, into image_sums[0, 64). Every thread calls it. */
__device__ __forceinline__ void block_image_sums(double (&dsum)[16], double *warp_sums, double *image_sums)
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < 16; ++i)
        for (int mask = 4; mask < 32; mask *= 2)
            dsum[i] += __shfl_xor_sync(0xffffffffu, dsum[i], mask);
    if (lane < 4)
#pragma unroll
        for (int i = 0; i < 16; ++i)
            warp_sums[(warp * 4 + lane) * 16 + i] = dsum[i];
    __syncthreads();
    if (threadIdx.x < kN) { /* channel c = 8 j + 2 tig + e: sum 2 j + e of tig */
        const int c = threadIdx.x, tig = c % 8 / 2, i = c / 8 * 2 + c % 2;
        double total = 0.0;
        for (int w = 0; w < 4; ++w)
            total += warp_sums[(w * 4 + tig) * 16 + i];
        image_sums[c] = total;
    }
    __syncthreads();
}

/* block_image_sums of kTransposed: lanes of one group hold channels 16 warp + group (dsum[0] + dsum[1]) and 8 more
 * (dsum[2] + dsum[3]); the 4 lanes are added by shuffles (fixed pattern), and each warp writes its 16 channels. */
__device__ __forceinline__ void block_image_sums(double (&dsum)[4], double *, double *image_sums)
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    double c[2] = {dsum[0] + dsum[1], dsum[2] + dsum[3]};
#pragma unroll
    for (int h = 0; h < 2; ++h)
        for (int mask = 1; mask < 4; mask *= 2)
            c[h] += __shfl_xor_sync(0xffffffffu, c[h], mask);
    if (lane % 4 == 0) {
        image_sums[16 * warp + lane / 4] = c[0];
        image_sums[16 * warp + lane / 4 + 8] = c[1];
    }
    __syncthreads();
}

/* C: a version ("what a version sets"); S: the stages run (CGP_STAGE_ALL but in the stage split); kStaging: tiles
 * by TMA through map or by cp.async (map unused), which the launch records in path_record */
template <class C, int S, int kStaging>
__global__ void __launch_bounds__(kThreads, C::blocks_per_sm)
    wgmma_conv_gelu_mean(const float *x, const float *w, const float *b, const cgp_problem p,
                         const PersistentSchedule g, const ReduceArgs red, const __grid_constant__ CUtensorMap map,
                         unsigned *path_record)
{
    record_path(path_record, path_of_staging(kStaging));
    static_assert(kValidVersion<C>, "rows a power of 2 (cheap row arithmetic); landing a tile needs the tile two "
                                      "before it done: rows >= the rows in flight; a shifted box is a TMA box, and a "
                                      "wide shifted tile needs one");
    constexpr int P = C::precision;
    using Win = Window<C, kStaging>;
    double *warp_sums = reinterpret_cast<double *>(dynamic_smem());
    double *image_sums = warp_sums + 4 * 4 * 16;
    float *raw = reinterpret_cast<float *>(warp_sums + kRedDoubles);
    TileSource src{&map, 0, 0};
    if constexpr (kStaging != kByCpAsync) { /* the mbarrier after the doubles, the raw tile 128-byte aligned after it */
        src.bar = shared_address(warp_sums + kRedDoubles);
        raw = reinterpret_cast<float *>(warp_sums + kRedDoubles + 1);
        raw += (128 - shared_address(raw) % 128) % 128 / 4;
        if (threadIdx.x == 0)
            mbarrier_init(src.bar);
    }
    float *tiles = raw + Win::raw_floats;
    float *wsm = tiles + C::operand_tiles * kTileFloats<P, Win>;
    float *bias_b = wsm + kWeightFloats<P>;
    float *ones_a = bias_b + kTapFloats;
    stage_operands<P>(w, b, p, wsm, bias_b, ones_a);
    fence_proxy_async();
    __syncthreads();
    constexpr uint32_t kHalfBytes = kTapFloats * 4 / 2; /* B and the ones: the next 4 K are 64 rows further */
    const RowDescs rd{kmajor_desc(shared_address(ones_a), kHalfBytes), kmajor_desc(shared_address(bias_b), kHalfBytes),
                      kmajor_desc(shared_address(wsm), kHalfBytes),
                      kmajor_desc(shared_address(tiles + 4 * Win::tile_lead), Win::half_floats * 4)};

    /* kTransposed: this thread's A fragment of the big weights of each tap (wsm[tap][half][channel][4]) */
    uint32_t w_big[kTaps][4] = {};
    if constexpr (C::transposed) {
        const int c = threadIdx.x / 32 * 16 + threadIdx.x % 32 / 4, tig = threadIdx.x % 4;
#pragma unroll
        for (int tap = 0; tap < kTaps; ++tap)
#pragma unroll
            for (int e = 0; e < 4; ++e) /* channel c + 8 (e % 2), input channel tig + 4 (e / 2) */
                w_big[tap][e] = __float_as_uint(wsm[tap * kTapFloats + e / 2 * kN * 4 + (c + 8 * (e % 2)) * 4 + tig]);
    }

    const int64_t tile_begin = persistent_tile_begin(g);
    const int64_t tile_end = persistent_tile_end(g);
    for (int64_t t0 = tile_begin; t0 < tile_end;) {
        const int64_t n = t0 / g.tiles_per_image;
        const int64_t t1 = min(tile_end, (n + 1) * g.tiles_per_image);
        double dsum[kSums<C>] = {};
        run_image<C, S, kStaging>(x, p, g, n, t0, t1, raw, tiles, rd, src, w_big, dsum);
        block_image_sums(dsum, warp_sums, image_sums);
        publish_image_sums(red, n, 0, (int)p.cout, image_sums, persistent_image_slots(g, n));
        t0 = t1;
    }
}

/* ---- host side ---- */

/* The shared memory of the largest staging version C has, whichever a problem takes */
template <class C> constexpr size_t kMostSmemBytes = smem_bytes<C, C::shifted_box ? kByTmaShifted : kByTma>();

/* NULL when version C runs the problem, else why not */
template <class C> const char *wgmma_unsupported(const cgp_problem *p, const cgp_device_info *d)
{
    constexpr size_t kSmemBytes = kMostSmemBytes<C>;
    if (const char *why = wgmma_gpu_unsupported(d))
        return why;
    if (p->cin > kCin)
        return "needs Cin <= 8 (one k8 step of the MMA per filter tap)";
    if (p->cout > kN)
        return "needs Cout <= 64 (one m64n64 tile of channels)";
    if (p->h * p->w > INT32_MAX / kCin)
        return "needs Cin x H x W < 2^31 (32-bit offsets within an image)";
    if (kSmemBytes > d->smem_per_block_optin)
        return kSharedMemoryNeed<kSmemBytes>.text;
    return NULL;
}

template <class C> PersistentSchedule wgmma_schedule(const cgp_problem *p, const cgp_device_info *d)
{
    return persistent_schedule(p, d, C::rows, kTileW, C::blocks_per_sm);
}

/* How version C stages this problem's tiles: by TMA where TMA can read x, i.e. rows a
 * multiple of 16 bytes (W % 4 = 0), image coordinates that fit TMA's 32-bit ones, and a driver with the encoder;
 * with padding 0 from the window's first column, with padding same from 4 columns left of it where the version
 * has the shifted box (a box must start at a column that is a multiple of 4: on the H200 a box at column -1 or 1
 * is an illegal instruction, while -4, 0 and row -1 work); else by cp.async. x is 16-byte aligned (the plan
 * checks it). */
template <class C> Staging staging_of(const cgp_problem *p, const cgp_device_info *d)
{
    const bool tma = input_tensor_map_unsupported(p, d) == NULL;
    if (tma && p->pad == 0)
        return kByTma;
    return tma && C::shifted_box ? kByTmaShifted : kByCpAsync;
}

/* The tensor map of x for tma_tile: dims (W, H, 8, N), box (Win::pitch, Win::rows, 8, 1), zeros outside; false
 * where the encoder refuses it. */
template <class C, int kStaging> bool make_tensor_map(CUtensorMap *map, const cgp_launch_args *a)
{
    /* a box of kCin channels: those past Cin are outside the tensor, zeros */
    return input_tensor_map(map, a->p, a->x, Window<C, kStaging>::pitch, C::rows + 2, kCin);
}

/* Launches the stages S of version C staged by kStaging: the configured kernel (c) where S is every stage, else the
 * stage split's own, which sets its shared-memory limit itself (a lab measurement, kernel_api.h) */
template <class C, int S, int kStaging>
cudaError_t launch_kernel(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *d,
                          cudaStream_t s, const CUtensorMap &map)
{
    constexpr size_t smem = smem_bytes<C, kStaging>();
    const void *kernel = c->kernel[0];
    if constexpr (S != CGP_STAGE_ALL) {
        kernel = reinterpret_cast<const void *>(&wgmma_conv_gelu_mean<C, S, kStaging>);
        const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (err != cudaSuccess)
            return err;
    }
    const float *x = a->x, *w = a->weight, *b = a->bias;
    cgp_problem p = a->p;
    PersistentSchedule g = wgmma_schedule<C>(&a->p, d);
    ReduceArgs red = make_reduce_args(a, a->workspace);
    unsigned *path_record = a->path_record;
    void *args[] = {&x, &w, &b, &p, &g, &red, const_cast<CUtensorMap *>(&map), &path_record};
    /* cudaLaunchKernel reports this launch's status only, not an error the caller left behind */
    return cudaLaunchKernel(kernel, dim3((unsigned)g.blocks), dim3(kThreads), args, smem, s);
}

/* The stages S of version C by TMA, staging kStaging */
template <class C, int S, int kStaging>
cudaError_t launch_by_tma(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *d,
                          cudaStream_t s)
{
    CUtensorMap map = {};
    if (!make_tensor_map<C, kStaging>(&map, a))
        return cudaErrorInvalidValue; /* the encoder refused a map of x: no other staging under this path */
    return launch_kernel<C, S, kStaging>(a, c, d, s, map);
}

/* The stages S of version C, its tiles staged as configured (c->staging, from staging_of) */
template <class C, int S>
cudaError_t launch_with_staging(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *d,
                                cudaStream_t s)
{
    if (c->staging == kByTma)
        return launch_by_tma<C, S, kByTma>(a, c, d, s);
    if constexpr (C::shifted_box) {
        if (c->staging == kByTmaShifted)
            return launch_by_tma<C, S, kByTmaShifted>(a, c, d, s);
    }
    return launch_kernel<C, S, kByCpAsync>(a, c, d, s, CUtensorMap{});
}

/* The kernel of every stage of version C staged by kStaging, its shared memory and path */
template <class C, int kStaging> void configure_staging(cgp_kernel_config *c)
{
    configured(c, reinterpret_cast<const void *>(&wgmma_conv_gelu_mean<C, CGP_STAGE_ALL, kStaging>),
               smem_bytes<C, kStaging>(), path_of_staging(kStaging));
}

/* The paths version C can take (staging_of): TMA, cp.async, and the shifted box where it has one */
template <class C> constexpr auto wgmma_paths()
{
    static_assert(CGP_PATH_CP_ASYNC == CGP_PATH_TMA + 1, "tma, then cp.async");
    if constexpr (C::shifted_box)
        return path_run<2>(CGP_PATH_TMA) + path_run<1>(CGP_PATH_TMA_SHIFTED);
    else
        return path_run<2>(CGP_PATH_TMA);
}

/* The hooks of version C (kernel_desc.cuh) */
template <class C> struct WgmmaVersion {
    static constexpr cgp_precision precision = C::precision;
    static constexpr auto kPaths = wgmma_paths<C>();

    static const char *unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        return wgmma_unsupported<C>(p, d);
    }

    static void configure(const cgp_problem *p, const cgp_device_info *d, cgp_kernel_config *c)
    {
        c->staging = staging_of<C>(p, d);
        c->workspace_bytes = persistent_workspace_bytes(p, wgmma_schedule<C>(p, d));
        if constexpr (C::shifted_box)
            if (c->staging == kByTmaShifted)
                return configure_staging<C, kByTmaShifted>(c);
        if (c->staging == kByTma)
            return configure_staging<C, kByTma>(c);
        configure_staging<C, kByCpAsync>(c);
    }

    static cudaError_t launch(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *d,
                              cudaStream_t s)
    {
        return launch_with_staging<C, CGP_STAGE_ALL>(a, c, d, s);
    }

    /* The stage split (kernel_api.h): every problem the version runs */
    static const char *stages_unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        return wgmma_unsupported<C>(p, d);
    }

    static cudaError_t launch_stages(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *d,
                                     cudaStream_t s, int stages)
    {
        switch (stages) {
        case CGP_STAGE_ALL: return launch(a, c, d, s);
        case CGP_STAGE_MMA: return launch_with_staging<C, CGP_STAGE_MMA>(a, c, d, s);
        case CGP_STAGE_EPILOGUE: return launch_with_staging<C, CGP_STAGE_EPILOGUE>(a, c, d, s);
        case 0: return launch_with_staging<C, 0>(a, c, d, s);
        default: return cudaErrorInvalidValue;
        }
    }
};

/* What version C is (kernel_desc.cuh's Kind): tiles of C::rows x 64 pixels x 64 channels, one warpgroup a block, the
 * windows by TMA where it reads them (else cp.async), the weights staged once a block (transposed: the big ones as A
 * in registers), persistent; Cin <= 8, Cout <= 64 */
template <class C>
constexpr Kind kWgmmaKind = Kind(CGP_PIPE_WGMMA, CGP_ALGORITHM_IMPLICIT_GEMM)
                                .tile(C::rows, kTileW, kN)
                                .warps(kThreads / 32)
                                .staging(CGP_STAGING_TMA_OR_CP_ASYNC)
                                .weights(C::transposed ? CGP_WEIGHTS_REGISTERS : CGP_WEIGHTS_RESIDENT)
                                .persistent()
                                .cin_max(kCin)
                                .cout_max(kN)
                                .smem(kMostSmemBytes<C>);

} // namespace

#endif
