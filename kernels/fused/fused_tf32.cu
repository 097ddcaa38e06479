/*
 * fused_tf32.cu - the tensor-core fused kernels on mma.sync (library layer), precisions TF32 and 3xTF32:
 * tf32-v3, tf32-v1, tf32-v2 (versions 13, 11, 12) and 3xtf32-v2, 3xtf32-v1 (22, 21), in order of preference.
 * They run on any GPU of compute capability 8.0 or newer and any shape (a fast path and a generic path inside),
 * so every shape and GPU the wgmma versions (fused_wgmma.cu) do not take has a TF32 and a 3xTF32 version here.
 *
 *     y[n, c] = mean over (h, w) of GELU(conv3x3(x, w)[n, c, h, w] + b[c])
 *
 * in one launch, with the convolution as an implicit GEMM on mma.sync m16n8k8 tf32 tensor-core
 * instructions (fp32 accumulation) and the bias, GELU and mean in registers: the N x Cout x Hout x Wout
 * intermediate never exists. docs/design.md ("The tensor-core kernels") explains the layouts; in short:
 *
 *   unit of work   one warp computes a "warp tile": MT output rows x 16 output columns x 64 output
 *                  channels (a channel group) of one image. M = the 16 pixels of a row (one m16 tile
 *                  per row), N = 8 n8 tiles of channels, K = 8 input channels per filter tap, 9 taps.
 *   operand A      the warp copies its (MT + 2) x 18 input pixels (8 channels) with cp.async into its
 *                  own piece of shared memory (zero-filled outside the image), then rounds them to tf32
 *                  (3xTF32: splits them) into an operand tile laid out so that one conflict-free 16-byte
 *                  load is exactly an A fragment: pair column c holds input columns c and c + 8. The next
 *                  tile's copies fly while this tile's MMAs and GELUs run.
 *   operand B      fast path (Cin == 8): all weights of the block, rounded once, in shared memory,
 *                  [group][tap][channel][8 input channels]; generic path: read from global (L1) per use.
 *   bias           the C operand of the first tap's MMA, so it costs no instruction.
 *   epilogue       GELU (gelu_fast) of each accumulator, masked by 0/1 outside the output, added into 16
 *                  per-thread float sums (2 channels x 8 n8 tiles), flushed every kFlushUnits tiles into
 *                  per-thread double slots in shared memory; the block adds the slots in a fixed order.
 *   schedule       persistent grid; the units, ordered (image, channel group, row band, column tile), are
 *                  cut into one contiguous balanced range per block and, inside it, per warp. Warps never
 *                  wait for each other inside a (image, group) segment, so the MMAs of one warp overlap
 *                  the GELUs of another. A block publishes once per (image, channel group) it touches
 *                  (publish_image_sums, det and atomic): slot = block + image, unique per (block, image).
 *   3xTF32         x = big + small with big = tf32(x), small = tf32(x - big), the same for the weights;
 *                  acc += small*big + big*small + big*big (small*small dropped): fp32-level accuracy.
 *
 * The versions (what each sets is at the end, "the versions"):
 *   tf32-v3     fast path: warp tiles of 2 rows, 8 warps, software-pipelined (warp_tiles_pipelined: the
 *               epilogue of one tile spread over the 9 taps of the next tile's MMAs, two accumulator sets)
 *   tf32-v1     fast path: warp tiles of 4 rows, 8 warps
 *   tf32-v2     fast path: warp tiles of 2 rows, 16 warps
 *   3xtf32-v2   fast path: warp tiles of 2 rows, 12 warps
 *   3xtf32-v1   fast path: warp tiles of 2 rows, 8 warps
 *   all         generic path: warp tiles of 2 rows, 8 warps
 * each the most that compiles with no or few spills (make ptxas). The fast path needs Cin == 8 and the
 * weights of all channel groups in shared memory (so Cout up to a limit per version and GPU); every other
 * shape (any N, Cin, Cout, H, W with an output pixel) takes the generic path: input channels in chunks of 8
 * (zero-filled past Cin), output channels in groups of 64 (zero weights past Cout, not published). Tested by
 * tests/gpu/gpu_tensorcore.c.
 */
#include <stdint.h>

#include "async_copy.cuh"
#include "cgp.h"
#include "kernel_api.h"
#include "kernel_desc.cuh"
#include "path_record.cuh"
#include "reduction.cuh"
#include "gelu.cuh"
#include "fused_tf32_device.cuh"

namespace {

enum Precision { kTf32 = CGP_PRECISION_TF32, kTf32x3 = CGP_PRECISION_TF32X3 };
enum Path { kPathGeneric, kPathFast, kPathPipelined }; /* fast path: weights staged in shared memory */

constexpr int kTileW = 16;          /* output columns of a warp tile: the 16 rows of an m16 tile */
constexpr int kInW = kTileW + 2;    /* input columns staged for them */
constexpr int kPairCols = kInW - 8; /* operand-tile columns: column c holds input columns c and c + 8 */
constexpr int kNTiles = 8;          /* n8 tiles per channel group */
constexpr int kGroup = 8 * kNTiles; /* output channels per group */
constexpr int kTaps = 9;
constexpr int kFlushUnits = 8;      /* warp tiles between flushes of the float sums into double */

/* Staged weights, floats per (tap, output channel): TF32 [c0 .. c7]; 3xTF32 per input channel pair p
 * [big(2p), big(2p+1), small(2p), small(2p+1)]. Lane (group, tig) reads channels 2 tig, 2 tig + 1 at
 * kPairStride * tig: its B fragment (and the small part) in one 8- (16-) byte load. */
template <int P> constexpr int kWords = P == kTf32 ? 8 : 16;
template <int P> constexpr int kPairStride = P == kTf32 ? 2 : 4;
template <int P> constexpr int kWFloatsPerGroup = kTaps * kGroup * kWords<P>;
constexpr int kBiasFloatsPerGroup = kNTiles * 4 * 4; /* [n8 tile][tig][b(2 tig), b(2 tig + 1), same again] */
/* A warp's raw input tile: fp32, [row][input column][8 channels] */
template <int MT> constexpr int kRawFloats = (MT + 2) * kInW * 8;
/* Its operand tile, one plane (TF32) or two (3xTF32: big, then small): [row][pair column c][tig][4] with
 * the 4 = {x(c, 2 tig), x(c + 8, 2 tig), x(c, 2 tig + 1), x(c + 8, 2 tig + 1)}, exactly an A fragment. */
template <int MT> constexpr int kXsPlane = (MT + 2) * kPairCols * 16;
template <int P, int MT> constexpr int kXsFloats = kXsPlane<MT> * (P == kTf32 ? 1 : 2);

/* Dynamic shared memory of a block of W warps: per-thread double sums (16 a thread), the block's sums to
 * publish (64 doubles), per warp the raw and operand tiles; fast path: the weights and bias quads. */
template <int P, int MT, int W> constexpr size_t smem_bytes(bool fast, int64_t groups)
{
    size_t bytes = sizeof(double2) * 32 * W * kNTiles + sizeof(double) * kGroup +
                   sizeof(float) * W * (kRawFloats<MT> + kXsFloats<P, MT>);
    if (fast)
        bytes += sizeof(float) * (size_t)groups * (kWFloatsPerGroup<P> + kBiasFloatsPerGroup);
    return bytes;
}

struct TcParams {
    const float *x, *w, *b;
    ReduceArgs red;
    int64_t n, cin, cout, h, wd, hout, wout;
    int64_t tiles_x;       /* warp tiles across an output row band */
    int64_t spatial_tiles; /* warp tiles per (image, channel group) */
    int64_t units;         /* all warp tiles: n * groups * spatial_tiles */
    int pad, cin_chunks, groups;
    unsigned *path_record; /* the plan's word for the path this launch takes (path_record.cuh) */
};

__device__ __forceinline__ int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
__device__ __forceinline__ int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* ---- operand fragments ---- */

template <int P> struct AFrag {
    uint32_t big[4];
};
template <> struct AFrag<kTf32x3> {
    uint32_t big[4], small[4];
};
template <int P> struct BFrag {
    uint32_t big[2];
};
template <> struct BFrag<kTf32x3> {
    uint32_t big[2], small[2];
};

/* A fragment of one m16 tile: p = this lane's quad in the operand tile (pixels group and group + 8 of an
 * input row, channels 2 tig and 2 tig + 1); the small parts are one plane further. */
template <int P, int MT> __device__ __forceinline__ AFrag<P> load_a(const float *p)
{
    AFrag<P> a;
    const uint4 big = *reinterpret_cast<const uint4 *>(p);
    a.big[0] = big.x;
    a.big[1] = big.y;
    a.big[2] = big.z;
    a.big[3] = big.w;
    if constexpr (P == kTf32x3) {
        const uint4 small = *reinterpret_cast<const uint4 *>(p + kXsPlane<MT>);
        a.small[0] = small.x;
        a.small[1] = small.y;
        a.small[2] = small.z;
        a.small[3] = small.w;
    }
    return a;
}

/* B fragment from staged weights: p points at this lane's channel pair of output channel `group` */
template <int P> __device__ __forceinline__ BFrag<P> load_b(const float *p)
{
    BFrag<P> b;
    if constexpr (P == kTf32) {
        const uint2 v = *reinterpret_cast<const uint2 *>(p);
        b.big[0] = v.x;
        b.big[1] = v.y;
    } else {
        const uint4 v = *reinterpret_cast<const uint4 *>(p);
        b.big[0] = v.x;
        b.big[1] = v.y;
        b.small[0] = v.z;
        b.small[1] = v.w;
    }
    return b;
}

/* B fragment from two fp32 weights (input channels 2 tig and 2 tig + 1) */
template <int P> __device__ __forceinline__ BFrag<P> make_b(float w0, float w1)
{
    BFrag<P> b;
    if constexpr (P == kTf32) {
        b.big[0] = tf32_round(w0);
        b.big[1] = tf32_round(w1);
    } else {
        split_tf32(w0, b.big[0], b.small[0]);
        split_tf32(w1, b.big[1], b.small[1]);
    }
    return b;
}

/* acc = A * B + c; 3xTF32: the two correction products first, then big * big, into a fresh
 * accumulator that is then added to c with FADD (round to nearest). The tensor core's own fp32
 * accumulation does not round to nearest, and chained over all taps its bias grew with K: 1.5e-6
 * relative on Cin = 16 (tests/gpu/gpu_tensorcore.c), over the 1e-6 that 3xTF32 is for. */
template <int P>
__device__ __forceinline__ void mma_step(float (&acc)[4], const AFrag<P> &a, const BFrag<P> &b, const float (&c)[4])
{
    if constexpr (P == kTf32) {
        mma_tf32(acc, a.big, b.big, c);
    } else {
        const float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        float t[4];
        mma_tf32(t, a.small, b.big, zero);
        mma_tf32(t, a.big, b.small, t);
        mma_tf32(t, a.big, b.big, t);
#pragma unroll
        for (int k = 0; k < 4; ++k)
            acc[k] = c[k] + t[k];
    }
}

/* ---- staging the input tile (operand A) ---- */

/* Row kRow of copy_input: one base address per channel, the column and shared-memory offsets immediates.
 * b0, b1: 4 where the row is inside the image (and the channel exists), else 0; col_bytes likewise for
 * the lane's three input columns. */
template <int kRow, int kRows>
__device__ __forceinline__ void copy_input_rows(const float *x0, int64_t x1_off, int64_t iy, int64_t h, int64_t wd,
                                                int64_t ix, bool ch0_ok, bool ch1_ok, const uint32_t (&col_bytes)[3],
                                                uint32_t dst, int q)
{
    if constexpr (kRow < kRows) {
        const bool row_ok = iy >= 0 && iy < h;
        const float *src0 = x0 + (row_ok ? iy * wd : 0) + ix; /* read only where row and column are inside */
        const float *src1 = src0 + x1_off;
        const uint32_t b0 = row_ok && ch0_ok ? 4u : 0u, b1 = row_ok && ch1_ok ? 4u : 0u;
        constexpr int kRowBytes = kRow * kInW * 8 * 4;
        cp_async_4<kRowBytes, 0>(dst, src0, b0 & col_bytes[0]);
        cp_async_4<kRowBytes + 4, 0>(dst, src1, b1 & col_bytes[0]);
        cp_async_4<kRowBytes + 8 * 32, 8 * 4>(dst, src0, b0 & col_bytes[1]);
        cp_async_4<kRowBytes + 8 * 32 + 4, 8 * 4>(dst, src1, b1 & col_bytes[1]);
        if (q < kInW - 16) {
            cp_async_4<kRowBytes + 16 * 32, 16 * 4>(dst, src0, b0 & col_bytes[2]);
            cp_async_4<kRowBytes + 16 * 32 + 4, 16 * 4>(dst, src1, b1 & col_bytes[2]);
        }
        copy_input_rows<kRow + 1, kRows>(x0, x1_off, iy + 1, h, wd, ix, ch0_ok, ch1_ok, col_bytes, dst, q);
    }
}

/* Starts the copies of a warp tile's input, one chunk of 8 input channels, into the warp's raw
 * buffer: fp32, [pixel (MT + 2 rows x 18 columns)][8 channels]. Lane (pair = lane % 4, q = lane / 4)
 * copies channels 2 pair and 2 pair + 1 at input columns q, q + 8 and (q < 2) q + 16 of every row, so
 * each copy instruction reads 8 consecutive columns of 4 channels. Zeros outside the image and past
 * Cin (src-size 0, nothing read). Completes at cp_async_wait_all. */
template <int MT, bool kCheckChannels>
__device__ __forceinline__ void copy_input(const TcParams &p, int64_t img, int64_t oy0, int64_t ox0, int chunk,
                                           float *raw_warp, int lane)
{
    const int pair = lane & 3, q = lane >> 2;
    const int64_t ch = (int64_t)chunk * 8 + 2 * pair;
    const bool ch0_ok = !kCheckChannels || ch < p.cin;
    const bool ch1_ok = !kCheckChannels || ch + 1 < p.cin;
    const int64_t plane = p.h * p.wd;
    const float *x0 = p.x + (img * p.cin + (ch0_ok ? ch : 0)) * plane;
    const int64_t x1_off = ch1_ok ? plane : 0; /* channel 2 pair + 1, relative to channel 2 pair */
    const int64_t ix = ox0 - p.pad + q;
    uint32_t col_bytes[3];
#pragma unroll
    for (int k = 0; k < 3; ++k)
        col_bytes[k] = ix + 8 * k >= 0 && ix + 8 * k < p.wd ? 4u : 0u;
    copy_input_rows<0, MT + 2>(x0, x1_off, oy0 - p.pad, p.h, p.wd, ix, ch0_ok, ch1_ok, col_bytes,
                               shared_address(raw_warp + q * 8 + 2 * pair), q);
}

/* Rounds (3xTF32: splits) the raw tile into the warp's operand tile. Task = (row, pair column c, tig)
 * in operand-tile order, so a quarter-warp's 16-byte stores cover 32 consecutive words, and a half-warp's
 * 8-byte loads of 4 consecutive pixels too: no bank conflict. Call after cp_async_wait_all and a
 * __syncwarp(). */
template <int P, int MT> __device__ __forceinline__ void convert_input(const float *raw_warp, float *xs_warp, int lane)
{
    constexpr int kTasks = (MT + 2) * kPairCols * 4;
#pragma unroll
    for (int it = 0; it < (kTasks + 31) / 32; ++it) {
        const int task = it * 32 + lane;
        if (task < kTasks) {
            const int q = task >> 2, tig = task & 3; /* q = row * kPairCols + c */
            const int row = q / kPairCols, c = q - row * kPairCols;
            const float *src = raw_warp + (row * kInW + c) * 8 + 2 * tig;
            const float2 lo = *reinterpret_cast<const float2 *>(src);         /* column c */
            const float2 hi = *reinterpret_cast<const float2 *>(src + 8 * 8); /* column c + 8 */
            uint4 big;
            if constexpr (P == kTf32) {
                big.x = tf32_round(lo.x);
                big.y = tf32_round(hi.x);
                big.z = tf32_round(lo.y);
                big.w = tf32_round(hi.y);
            } else {
                uint4 small;
                split_tf32(lo.x, big.x, small.x);
                split_tf32(hi.x, big.y, small.y);
                split_tf32(lo.y, big.z, small.z);
                split_tf32(hi.y, big.w, small.w);
                *reinterpret_cast<uint4 *>(xs_warp + kXsPlane<MT> + 4 * task) = small;
            }
            *reinterpret_cast<uint4 *>(xs_warp + 4 * task) = big;
        }
    }
}

/* ---- the MMAs of one warp tile ---- */

/* The A fragments of the MT row tiles of a warp for tap (ky, kx), from its staged input window */
template <int P, int MT>
__device__ __forceinline__ void load_a_tap(AFrag<P> (&a)[MT], const float *xs_lane, int ky, int kx)
{
#pragma unroll
    for (int i = 0; i < MT; ++i)
        a[i] = load_a<P, MT>(xs_lane + ((i + ky) * kPairCols + kx) * 16);
}

/* Fast path, the MMAs of one filter tap, all 8 input channels: xs_lane = the lane's quad in the operand
 * tile; w_lane = the group's staged weights + this lane's (output channel, channel pair); for tap 0 the
 * bias quads (bias_lane) enter as the C operand, so the bias costs no instruction. */
template <int P, int MT>
__device__ __forceinline__ void mma_tap(float (&acc)[MT][kNTiles][4], int tap, const float *xs_lane,
                                        const float *w_lane, const float *bias_lane)
{
    const int ky = tap / 3, kx = tap - 3 * ky;
    AFrag<P> a[MT];
    load_a_tap<P, MT>(a, xs_lane, ky, kx);
#pragma unroll
    for (int j = 0; j < kNTiles; ++j) {
        const BFrag<P> b = load_b<P>(w_lane + (tap * kGroup + 8 * j) * kWords<P>);
        if (tap == 0) {
            const float4 bias = *reinterpret_cast<const float4 *>(bias_lane + 16 * j);
            const float c[4] = {bias.x, bias.y, bias.z, bias.w};
#pragma unroll
            for (int i = 0; i < MT; ++i)
                mma_step<P>(acc[i][j], a[i], b, c);
        } else {
#pragma unroll
            for (int i = 0; i < MT; ++i)
                mma_step<P>(acc[i][j], a[i], b, acc[i][j]);
        }
    }
}

template <int P, int MT>
__device__ __forceinline__ void conv_tile_smem(float (&acc)[MT][kNTiles][4], const float *xs_lane,
                                               const float *w_lane, const float *bias_lane)
{
#pragma unroll
    for (int tap = 0; tap < 3; ++tap)
        mma_tap<P, MT>(acc, tap, xs_lane, w_lane, bias_lane);
#pragma unroll 1 /* one tap per iteration: unrolled further, ptxas prefetches fragments into spills */
    for (int tap = 3; tap < kTaps; ++tap)
        mma_tap<P, MT>(acc, tap, xs_lane, w_lane, bias_lane);
}

/* Stand-in for the MMAs (stage split, kernel_api.h): the bias plus one input value, from the first A
 * fragment of each row: one shared load per row, the bias quads, and one FADD per accumulator. */
template <int P, int MT>
__device__ __forceinline__ void stand_in_mma(float (&acc)[MT][kNTiles][4], const float *xs_lane,
                                             const float *bias_lane)
{
#pragma unroll
    for (int i = 0; i < MT; ++i) {
        const AFrag<P> a = load_a<P, MT>(xs_lane + i * kPairCols * 16);
#pragma unroll
        for (int j = 0; j < kNTiles; ++j) {
            const float4 bias = *reinterpret_cast<const float4 *>(bias_lane + 16 * j);
            acc[i][j][0] = bias.x + __uint_as_float(a.big[0]);
            acc[i][j][1] = bias.y + __uint_as_float(a.big[1]);
            acc[i][j][2] = bias.z + __uint_as_float(a.big[2]);
            acc[i][j][3] = bias.w + __uint_as_float(a.big[3]);
        }
    }
}

/* Generic path, one chunk of 8 input channels (ci = chunk * 8 + 2 tig), weights from global memory
 * (c_lane = group * 64 + lane's output channel within the n8 tile). */
template <int P, int MT>
__device__ __forceinline__ void conv_chunk_global(float (&acc)[MT][kNTiles][4], const float *xs_lane,
                                                  const TcParams &p, int64_t c_lane, int64_t ci)
{
#pragma unroll 1
    for (int tap = 0; tap < kTaps; ++tap) {
        const int ky = tap / 3, kx = tap % 3;
        AFrag<P> a[MT];
        load_a_tap<P, MT>(a, xs_lane, ky, kx);
#pragma unroll
        for (int j = 0; j < kNTiles; ++j) {
            const int64_t c = c_lane + 8 * j;
            const bool c_ok = c < p.cout;
            const float *wc = p.w + (c_ok ? c : 0) * p.cin * kTaps + tap;
            const float w0 = c_ok && ci < p.cin ? __ldg(wc + ci * kTaps) : 0.0f;
            const float w1 = c_ok && ci + 1 < p.cin ? __ldg(wc + (ci + 1) * kTaps) : 0.0f;
            const BFrag<P> b = make_b<P>(w0, w1);
#pragma unroll
            for (int i = 0; i < MT; ++i)
                mma_step<P>(acc[i][j], a[i], b, acc[i][j]);
        }
    }
}

/* ---- epilogue ---- */

/* The epilogue's 0/1 masks of a warp tile: m[row][0] for pixel `group` of the row, m[row][1] for pixel
 * group + 8; 0 outside the output (rows past Hout, columns past Wout). */
template <int MT>
__device__ __forceinline__ void tile_masks(const TcParams &p, int64_t oy0, int64_t ox0, int group, float (&m)[MT][2])
{
    const bool lo_ok = ox0 + group < p.wout, hi_ok = ox0 + group + 8 < p.wout;
#pragma unroll
    for (int i = 0; i < MT; ++i) {
        const bool row_ok = oy0 + i < p.hout;
        m[i][0] = row_ok && lo_ok ? 1.0f : 0.0f;
        m[i][1] = row_ok && hi_ok ? 1.0f : 0.0f;
    }
}

/* Accumulator f of the tile, f = (row i * kNTiles + n8 tile j) * 4 + fragment element e, into
 * sum[j][e % 2] (channel 8 j + 2 tig + e % 2): GELU(acc) times its mask; kGelu false: the stand-in of
 * the stage split, acc times its mask. Taken in increasing f, the order is fixed: deterministic. */
template <int MT, bool kGelu>
__device__ __forceinline__ void epilogue_element(const float (&acc)[MT][kNTiles][4], const float (&m)[MT][2], int f,
                                                 float (&sum)[kNTiles][2])
{
    const int i = f / (4 * kNTiles), j = f / 4 % kNTiles, e = f % 4;
    const float v = kGelu ? gelu_fast(acc[i][j][e]) : acc[i][j][e];
    sum[j][e % 2] = fmaf(v, m[i][e / 2], sum[j][e % 2]);
}

template <int MT, bool kGelu>
__device__ __forceinline__ void accumulate_tile(const float (&acc)[MT][kNTiles][4], const float (&m)[MT][2],
                                                float (&sum)[kNTiles][2])
{
#pragma unroll
    for (int f = 0; f < MT * kNTiles * 4; ++f)
        epilogue_element<MT, kGelu>(acc, m, f, sum);
}

/* Adds the float sums into the thread's double slots (dsum_lane[j * 32]) and clears them. */
__device__ __forceinline__ void flush_sums(double2 *dsum_lane, float (&sum)[kNTiles][2])
{
#pragma unroll
    for (int j = 0; j < kNTiles; ++j) {
        double2 d = dsum_lane[j * 32];
        d.x += (double)sum[j][0];
        d.y += (double)sum[j][1];
        dsum_lane[j * 32] = d;
        sum[j][0] = 0.0f;
        sum[j][1] = 0.0f;
    }
}

/* The block's sum for channel c of the group: every (warp, group) slot holding it, in a fixed order. */
template <int W> __device__ __forceinline__ double block_channel_sum(const double2 *dsum, int c)
{
    const int j = c / 8, tig = (c / 2) % 4;
    const bool odd = c % 2 != 0;
    double total = 0.0;
    for (int w = 0; w < W; ++w)
        for (int group = 0; group < 8; ++group) {
            const double2 d = dsum[(w * kNTiles + j) * 32 + group * 4 + tig];
            total += odd ? d.y : d.x;
        }
    return total;
}

/* ---- a warp's run of warp tiles of one (image, channel group): spatial tiles [s_begin, s_end) ---- */

/* Fast path: the lane's pointers into the operand tile, the staged weights and the bias quads */
struct FastLane {
    const float *xs, *w, *bias;
};

template <int P>
__device__ __forceinline__ FastLane fast_lane(const float *xs_warp, const float *wsm, const float *bsm, int grp,
                                              int lane)
{
    const int group = lane >> 2, tig = lane & 3;
    return FastLane{xs_warp + group * 16 + 4 * tig,
                    wsm + (int64_t)grp * kWFloatsPerGroup<P> + group * kWords<P> + kPairStride<P> * tig,
                    bsm + (int64_t)grp * kBiasFloatsPerGroup + 4 * tig};
}

/* Waits for the copies of the warp's next tile and rounds (splits) them into the operand tile. */
template <int P, int MT> __device__ __forceinline__ void land_input(const float *raw_warp, float *xs_warp, int lane)
{
    cp_async_wait_all();
    __syncwarp(); /* every lane's copies landed and every lane is done reading the operand tile */
    convert_input<P, MT>(raw_warp, xs_warp, lane);
    __syncwarp();
}

/* The output origin of warp tile (ty, tx) (MT rows x kTileW columns), and (ty, tx) moved on to the next tile
 * of the image's tiles in row-major order */
struct TileOrigin {
    int64_t oy0, ox0;
};

template <int MT> __device__ __forceinline__ TileOrigin take_tile(const TcParams &p, int64_t &ty, int64_t &tx)
{
    const TileOrigin origin{ty * MT, tx * kTileW};
    if (++tx == p.tiles_x) {
        tx = 0;
        ++ty;
    }
    return origin;
}

/* The fast paths' walk over a warp's tiles: tile coordinates, the copies of the next tile, and the
 * masks of the tile whose MMAs run now. */
template <int MT> struct TileWalk {
    const TcParams &p;
    int64_t img, ty, tx, s, s_end;
    float *raw_warp;
    int lane;

    /* copies tile s (the first) and rounds it into the operand tile */
    template <int P> __device__ __forceinline__ void land_first(float *xs_warp)
    {
        copy_input<MT, false>(p, img, ty * MT, tx * kTileW, 0, raw_warp, lane);
        land_input<P, MT>(raw_warp, xs_warp, lane);
    }

    /* starts the copies of tile s + 1 (if any) and moves to it; masks of tile s into m */
    __device__ __forceinline__ void next(float (&m)[MT][2])
    {
        tile_masks<MT>(p, ty * MT, tx * kTileW, lane >> 2, m);
        if (++tx == p.tiles_x) {
            tx = 0;
            ++ty;
        }
        if (++s < s_end)
            copy_input<MT, false>(p, img, ty * MT, tx * kTileW, 0, raw_warp, lane);
    }
};

/* One more tile in the float sums; every kFlushUnits tiles they go into the double slots. */
__device__ __forceinline__ void count_tile(double2 *dsum_lane, float (&sum)[kNTiles][2], int &since_flush)
{
    if (++since_flush == kFlushUnits) {
        flush_sums(dsum_lane, sum);
        since_flush = 0;
    }
}

/* Stages S (CGP_STAGE_*): the full kernel has both; the stage split replaces one or both by stand-ins. */
template <int P, int MT, int S>
__device__ __forceinline__ void warp_tiles_fast(const TcParams &p, int64_t img, int grp, int64_t s_begin,
                                                int64_t s_end, float *raw_warp, float *xs_warp, const float *wsm,
                                                const float *bsm, double2 *dsum_lane, int lane)
{
    const FastLane fl = fast_lane<P>(xs_warp, wsm, bsm, grp, lane);
    int64_t ty = s_begin / p.tiles_x, tx = s_begin % p.tiles_x;

    copy_input<MT, false>(p, img, ty * MT, tx * kTileW, 0, raw_warp, lane);
    land_input<P, MT>(raw_warp, xs_warp, lane);

    float sum[kNTiles][2] = {};
    int since_flush = 0;
    for (int64_t s = s_begin; s < s_end; ++s) {
        const int64_t oy0 = ty * MT, ox0 = tx * kTileW;
        if (++tx == p.tiles_x) {
            tx = 0;
            ++ty;
        }
        const bool more = s + 1 < s_end;
        if (more) /* the next tile's input lands while this one's MMAs and GELUs run */
            copy_input<MT, false>(p, img, ty * MT, tx * kTileW, 0, raw_warp, lane);
        float acc[MT][kNTiles][4];
        if constexpr ((S & CGP_STAGE_MMA) != 0)
            conv_tile_smem<P, MT>(acc, fl.xs, fl.w, fl.bias);
        else
            stand_in_mma<P, MT>(acc, fl.xs, fl.bias);
        float m[MT][2];
        tile_masks<MT>(p, oy0, ox0, lane >> 2, m);
        accumulate_tile<MT, (S & CGP_STAGE_EPILOGUE) != 0>(acc, m, sum);
        count_tile(dsum_lane, sum, since_flush);
        if (more)
            land_input<P, MT>(raw_warp, xs_warp, lane);
    }
    flush_sums(dsum_lane, sum);
}

/* One step of the pipelined fast path: the MMAs of the tile in the operand tile (into acc_new) and,
 * spread over its 9 taps, the epilogue of the previous tile (acc_old, masks m_old), in one basic block,
 * so that ptxas interleaves one warp's tensor-core instructions with its FP32 and MUFU ones. kMma false:
 * the last tile's epilogue alone; kEpilogue false: the first tile's MMAs alone. */
template <int P, int MT, int S, bool kMma, bool kEpilogue>
__device__ __forceinline__ void pipelined_step(float (&acc_new)[MT][kNTiles][4], const float (&acc_old)[MT][kNTiles][4],
                                               const float (&m_old)[MT][2], const FastLane &fl,
                                               float (&sum)[kNTiles][2])
{
    constexpr int kElems = MT * kNTiles * 4, kPerTap = (kElems + kTaps - 1) / kTaps;
#pragma unroll
    for (int tap = 0; tap < kTaps; ++tap) {
        if constexpr (kMma) {
            if constexpr ((S & CGP_STAGE_MMA) != 0)
                mma_tap<P, MT>(acc_new, tap, fl.xs, fl.w, fl.bias);
            else if (tap == 0)
                stand_in_mma<P, MT>(acc_new, fl.xs, fl.bias);
        }
        if constexpr (kEpilogue) {
#pragma unroll
            for (int k = 0; k < kPerTap; ++k)
                if (tap * kPerTap + k < kElems)
                    epilogue_element<MT, (S & CGP_STAGE_EPILOGUE) != 0>(acc_old, m_old, tap * kPerTap + k, sum);
        }
    }
}

/* One half of the pipelined loop. Past the last tile: the epilogue of acc_old alone, and false. Else:
 * tile s lands in the operand tile, its MMAs run into acc_new (masks m_new) with the epilogue of
 * acc_old (masks m_old), and true. */
template <int P, int MT, int S>
__device__ __forceinline__ bool pipelined_half(TileWalk<MT> &walk, float (&acc_new)[MT][kNTiles][4],
                                               float (&m_new)[MT][2], const float (&acc_old)[MT][kNTiles][4],
                                               const float (&m_old)[MT][2], const FastLane &fl, float *xs_warp,
                                               float (&sum)[kNTiles][2], int &since_flush, double2 *dsum_lane)
{
    if (walk.s == walk.s_end) {
        pipelined_step<P, MT, S, false, true>(acc_new, acc_old, m_old, fl, sum);
        return false;
    }
    land_input<P, MT>(walk.raw_warp, xs_warp, walk.lane);
    walk.next(m_new);
    pipelined_step<P, MT, S, true, true>(acc_new, acc_old, m_old, fl, sum);
    count_tile(dsum_lane, sum, since_flush);
    return true;
}

/* Fast path, software-pipelined: the epilogue of tile s - 1 runs inside the MMAs of tile s (two
 * accumulator sets, 2 x MT x 32 registers), instead of one warp alternating a tensor-core phase and an
 * FP32/MUFU phase and leaving the other pipe to the block's other warps. */
template <int P, int MT, int S>
__device__ __forceinline__ void warp_tiles_pipelined(const TcParams &p, int64_t img, int grp, int64_t s_begin,
                                                     int64_t s_end, float *raw_warp, float *xs_warp, const float *wsm,
                                                     const float *bsm, double2 *dsum_lane, int lane)
{
    const FastLane fl = fast_lane<P>(xs_warp, wsm, bsm, grp, lane);
    TileWalk<MT> walk{p, img, s_begin / p.tiles_x, s_begin % p.tiles_x, s_begin, s_end, raw_warp, lane};
    walk.template land_first<P>(xs_warp);

    float acc_a[MT][kNTiles][4], acc_b[MT][kNTiles][4], m_a[MT][2], m_b[MT][2];
    float sum[kNTiles][2] = {};
    int since_flush = 0;
    walk.next(m_a);
    pipelined_step<P, MT, S, true, false>(acc_a, acc_a, m_a, fl, sum);
    /* two halves per iteration, so that the accumulator sets swap roles without copies */
    while (pipelined_half<P, MT, S>(walk, acc_b, m_b, acc_a, m_a, fl, xs_warp, sum, since_flush, dsum_lane) &&
           pipelined_half<P, MT, S>(walk, acc_a, m_a, acc_b, m_b, fl, xs_warp, sum, since_flush, dsum_lane)) {
    }
    flush_sums(dsum_lane, sum);
}

template <int P, int MT>
__device__ __forceinline__ void warp_tiles_generic(const TcParams &p, int64_t img, int grp, int64_t s_begin,
                                                   int64_t s_end, float *raw_warp, float *xs_warp, double2 *dsum_lane,
                                                   int lane)
{
    const int group = lane >> 2, tig = lane & 3;
    const float *xs_lane = xs_warp + group * 16 + 4 * tig;
    const int64_t c_lane = (int64_t)grp * kGroup + group;
    int64_t ty = s_begin / p.tiles_x, tx = s_begin % p.tiles_x;

    float sum[kNTiles][2] = {};
    int since_flush = 0;
    for (int64_t s = s_begin; s < s_end; ++s) {
        const auto [oy0, ox0] = take_tile<MT>(p, ty, tx);
        float acc[MT][kNTiles][4];
#pragma unroll
        for (int j = 0; j < kNTiles; ++j) {
            const int64_t c = (int64_t)grp * kGroup + 8 * j + 2 * tig;
            const float b0 = c < p.cout ? __ldg(p.b + c) : 0.0f;
            const float b1 = c + 1 < p.cout ? __ldg(p.b + c + 1) : 0.0f;
#pragma unroll
            for (int i = 0; i < MT; ++i) {
                acc[i][j][0] = b0;
                acc[i][j][1] = b1;
                acc[i][j][2] = b0;
                acc[i][j][3] = b1;
            }
        }
        for (int chunk = 0; chunk < p.cin_chunks; ++chunk) {
            copy_input<MT, true>(p, img, oy0, ox0, chunk, raw_warp, lane);
            cp_async_wait_all();
            __syncwarp(); /* every lane's copies landed and every lane is done reading the previous chunk */
            convert_input<P, MT>(raw_warp, xs_warp, lane);
            __syncwarp();
            conv_chunk_global<P, MT>(acc, xs_lane, p, c_lane, (int64_t)chunk * 8 + 2 * tig);
        }
        float m[MT][2];
        tile_masks<MT>(p, oy0, ox0, group, m);
        accumulate_tile<MT, true>(acc, m, sum);
        count_tile(dsum_lane, sum, since_flush);
    }
    flush_sums(dsum_lane, sum);
}

/* Fast path: the block's weights (Cin == 8), rounded or split once, and its bias, zero past Cout. */
template <int P, int kThreads>
__device__ __forceinline__ void stage_weights(const TcParams &p, float *wsm, float *bsm)
{
    const int64_t count = (int64_t)p.groups * kTaps * kGroup * 8;
    for (int64_t i = threadIdx.x; i < count; i += kThreads) {
        const int ci = (int)(i % 8);
        const int64_t row = i / 8; /* (group * 9 + tap) * 64 + channel within the group */
        const int64_t group_tap = row / kGroup;
        const int tap = (int)(group_tap % kTaps);
        const int64_t c = group_tap / kTaps * kGroup + row % kGroup;
        const float v = c < p.cout ? __ldg(p.w + (c * p.cin + ci) * kTaps + tap) : 0.0f;
        float *dst = wsm + row * kWords<P>;
        if constexpr (P == kTf32) {
            dst[ci] = __uint_as_float(tf32_round(v));
        } else {
            uint32_t big, small;
            split_tf32(v, big, small);
            dst[4 * (ci / 2) + ci % 2] = __uint_as_float(big);
            dst[4 * (ci / 2) + 2 + ci % 2] = __uint_as_float(small);
        }
    }
    for (int64_t i = threadIdx.x; i < (int64_t)p.groups * kBiasFloatsPerGroup; i += kThreads) {
        /* i = ((group * 8 + n8 tile) * 4 + tig) * 4 + e: channel (i / 16) * 8 + 2 tig + e % 2 */
        const int64_t c = i / 16 * 8 + 2 * (i / 4 % 4) + i % 2;
        bsm[i] = c < p.cout ? __ldg(p.b + c) : 0.0f;
    }
}

/* Block b owns units [block_unit(b), block_unit(b + 1)): contiguous, balanced, never empty (blocks <= units). */
__device__ __forceinline__ int64_t block_unit(int64_t b, int64_t units, int64_t blocks) { return b * units / blocks; }

/* The block owning unit u: the largest b with block_unit(b) <= u. */
__device__ __forceinline__ int64_t owner_block(int64_t u, int64_t units, int64_t blocks)
{
    return ((u + 1) * blocks - 1) / units;
}

/* Image img's det slots are [first block + img, last block + img]; every block touching it publishes
 * once per channel group. */
__device__ __forceinline__ ImageSlots image_slots(int64_t img, int64_t per_image, int64_t units, int64_t blocks,
                                                  int groups)
{
    const int64_t first = owner_block(img * per_image, units, blocks);
    const int64_t last = owner_block((img + 1) * per_image - 1, units, blocks);
    ImageSlots s;
    s.slot = (int64_t)blockIdx.x + img;
    s.first = first + img;
    s.count = last - first + 1;
    s.arrivals = (unsigned)(s.count * groups);
    return s;
}

/* kPath: kPathGeneric, kPathFast or kPathPipelined; S: the stages run (CGP_STAGE_ALL but in the stage split) */
template <int P, int MT, int kPath, int W, int S>
__global__ void __launch_bounds__(32 * W, 1) tc_conv_gelu_mean(const TcParams p)
{
    record_path(p.path_record, kPath == kPathGeneric ? CGP_PATH_GENERIC : CGP_PATH_FAST);
    constexpr bool kStagedWeights = kPath != kPathGeneric;
    double2 *dsum = reinterpret_cast<double2 *>(dynamic_smem());
    double *sums = reinterpret_cast<double *>(dsum + 32 * W * kNTiles);
    float *raw = reinterpret_cast<float *>(sums + kGroup);
    float *xs = raw + W * kRawFloats<MT>;
    float *wsm = xs + W * kXsFloats<P, MT>;
    float *bsm = wsm + (int64_t)p.groups * kWFloatsPerGroup<P>; /* fast path only */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float *raw_warp = raw + warp * kRawFloats<MT>;
    float *xs_warp = xs + warp * kXsFloats<P, MT>;
    double2 *dsum_lane = dsum + warp * kNTiles * 32 + lane;

    /* block-uniform loop bound, kept in shared memory: read after each barrier instead of pinning a
     * register across the warp's tiles (which use every register) */
    __shared__ int64_t seg_end;
    const int64_t blocks = gridDim.x, per_image = (int64_t)p.groups * p.spatial_tiles;
    if (threadIdx.x == 0)
        seg_end = ((block_unit(blockIdx.x + 1, p.units, blocks) - 1) / per_image + 1) * p.groups;
    if (kStagedWeights)
        stage_weights<P, 32 * W>(p, wsm, bsm);
#pragma unroll
    for (int j = 0; j < kNTiles; ++j)
        dsum_lane[j * 32] = double2{0.0, 0.0};
    __syncthreads();

    /* Segments = (image, channel group) pairs, image-major. The block visits every segment of every image
     * its unit range touches (publishing zeros for a group it has no unit of), so each (block, image)
     * slot row is written whole; little stays live across the warp's tiles, so nothing spills. */
    for (int64_t seg = block_unit(blockIdx.x, p.units, blocks) / per_image * p.groups; seg < seg_end; ++seg) {
        const int64_t img = seg / p.groups;
        const int grp = (int)(seg % p.groups);
        const int64_t g0 = seg * p.spatial_tiles;
        const int64_t seg0 = max64(block_unit(blockIdx.x, p.units, blocks), g0);
        const int64_t seg1 = min64(block_unit(blockIdx.x + 1, p.units, blocks), g0 + p.spatial_tiles);
        if (seg0 < seg1) {
            const int64_t len = seg1 - seg0;
            const int64_t s_begin = seg0 - g0 + len * warp / W;
            const int64_t s_end = seg0 - g0 + len * (warp + 1) / W;
            if (s_begin < s_end) {
                if constexpr (kPath == kPathPipelined)
                    warp_tiles_pipelined<P, MT, S>(p, img, grp, s_begin, s_end, raw_warp, xs_warp, wsm, bsm,
                                                   dsum_lane, lane);
                else if constexpr (kPath == kPathFast)
                    warp_tiles_fast<P, MT, S>(p, img, grp, s_begin, s_end, raw_warp, xs_warp, wsm, bsm, dsum_lane,
                                              lane);
                else
                    warp_tiles_generic<P, MT>(p, img, grp, s_begin, s_end, raw_warp, xs_warp, dsum_lane, lane);
            }
        }
        __syncthreads(); /* every thread's sums are in its slots */
        if (threadIdx.x < kGroup)
            sums[threadIdx.x] = block_channel_sum<W>(dsum, threadIdx.x);
        __syncthreads();
        const int64_t c0 = (int64_t)grp * kGroup;
        const ImageSlots slots = image_slots(img, per_image, p.units, blocks, p.groups);
        publish_image_sums(p.red, img, c0, (int)min64(kGroup, p.cout - c0), sums, slots);
#pragma unroll
        for (int j = 0; j < kNTiles; ++j)
            dsum_lane[j * 32] = double2{0.0, 0.0};
    }
}

/* ---- host side ---- */

/* What a version sets (a struct of these static constexpr members, "the versions" at the end):
 *   precision                    CGP_PRECISION_TF32 or CGP_PRECISION_TF32X3
 *   fast_rows, fast_warps        its fast path's output rows per warp tile (m16 tiles a warp) and warps a block
 *   fast_path                    its fast path's walk over the tiles: kPathFast or kPathPipelined
 *   generic_rows, generic_warps  the same of its generic path */

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t unit_count(const cgp_problem *p, int rows)
{
    return p->n * ceil_div(p->cout, kGroup) * ceil_div(p->hout, rows) * ceil_div(p->wout, kTileW);
}

/* one block per SM (its registers allow no more), never more blocks than units */
int64_t grid_blocks(const cgp_problem *p, const cgp_device_info *d, int rows)
{
    const int64_t sms = d->sm_count > 0 ? d->sm_count : 1;
    const int64_t units = unit_count(p, rows);
    return sms < units ? sms : units;
}

template <class C> bool use_fast_path(const cgp_problem *p, const cgp_device_info *d)
{
    return p->cin == 8 &&
           smem_bytes<C::precision, C::fast_rows, C::fast_warps>(true, ceil_div(p->cout, kGroup)) <=
               d->smem_per_block_optin;
}

template <class C> int rows_of(const cgp_problem *p, const cgp_device_info *d)
{
    return use_fast_path<C>(p, d) ? C::fast_rows : C::generic_rows;
}

template <int P, int MT, int kPath, int W, int S>
cudaError_t launch_kernel(TcParams p, const cgp_problem *pr, const cgp_device_info *d, cudaStream_t stream)
{
    constexpr bool kStagedWeights = kPath != kPathGeneric;
    p.tiles_x = ceil_div(pr->wout, kTileW);
    p.spatial_tiles = ceil_div(pr->hout, MT) * p.tiles_x;
    p.units = unit_count(pr, MT);
    const int64_t blocks = grid_blocks(pr, d, MT);
    const size_t smem = smem_bytes<P, MT, W>(kStagedWeights, p.groups);
    const void *kernel = reinterpret_cast<const void *>(&tc_conv_gelu_mean<P, MT, kPath, W, S>);
    cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (err != cudaSuccess)
        return err;
    /* cudaLaunchKernel reports this launch's status only, not an error the caller left behind */
    void *argv[] = {&p};
    return cudaLaunchKernel(kernel, dim3((unsigned)blocks), dim3(32 * W), argv, smem, stream);
}

TcParams tc_params(const cgp_launch_args *a)
{
    const cgp_problem *pr = &a->p;
    TcParams p;
    p.x = a->x;
    p.w = a->weight;
    p.b = a->bias;
    p.red = make_reduce_args(a, a->workspace);
    p.n = pr->n;
    p.cin = pr->cin;
    p.cout = pr->cout;
    p.h = pr->h;
    p.wd = pr->w;
    p.hout = pr->hout;
    p.wout = pr->wout;
    p.pad = pr->pad;
    p.cin_chunks = (int)ceil_div(pr->cin, 8);
    p.groups = (int)ceil_div(pr->cout, kGroup);
    p.path_record = a->path_record;
    return p;
}

/* The hooks of version C (kernel_desc.cuh) */
template <class C> struct MmaSyncVersion {
    static_assert(CGP_PATH_FAST == CGP_PATH_GENERIC + 1, "generic, then fast");
    static constexpr auto kPaths = path_run<2>(CGP_PATH_GENERIC);
    static constexpr cgp_precision precision = C::precision;

    static const char *unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        constexpr size_t kGenericSmemBytes = smem_bytes<C::precision, C::generic_rows, C::generic_warps>(false, 0);
        if (d->cc_major < 8)
            return "needs a GPU of compute capability 8.0 or newer (mma.sync tf32)";
        if (kGenericSmemBytes > d->smem_per_block_optin)
            return kSharedMemoryNeed<kGenericSmemBytes>.text;
        const int rows = rows_of<C>(p, d);
        const int64_t blocks = grid_blocks(p, d, rows), units = unit_count(p, rows);
        if (units > INT64_MAX / (blocks + 1) || ceil_div(p->cout, kGroup) * blocks > (int64_t)UINT32_MAX)
            return "the problem has too many tiles for this kernel's 64-bit tile arithmetic";
        return NULL;
    }

    /* det partials: one row of Cout doubles per (block, image) slot, slot = block + image */
    static size_t workspace_bytes(const cgp_problem *p, const cgp_device_info *d)
    {
        const size_t slots = (size_t)(grid_blocks(p, d, rows_of<C>(p, d)) + p->n);
        const size_t bytes = slots * (size_t)p->cout * sizeof(double);
        return (bytes + 15) / 16 * 16;
    }

    static const char *path(const cgp_problem *p, const cgp_device_info *d, int)
    {
        return cgp_path_name(use_fast_path<C>(p, d) ? CGP_PATH_FAST : CGP_PATH_GENERIC);
    }

    static cudaError_t launch(const cgp_launch_args *a, const cgp_device_info *d, cudaStream_t s)
    {
        if (use_fast_path<C>(&a->p, d))
            return launch_fast<CGP_STAGE_ALL>(a, d, s);
        return launch_kernel<C::precision, C::generic_rows, kPathGeneric, C::generic_warps, CGP_STAGE_ALL>(
            tc_params(a), &a->p, d, s);
    }

    /* The stage split (kernel_api.h): the fast path with the stages in `stages` only */
    static const char *stages_unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        return use_fast_path<C>(p, d)
                   ? NULL
                   : "the stage split runs on the fast path only (Cin = 8, weights in shared memory)";
    }

    static cudaError_t launch_stages(const cgp_launch_args *a, const cgp_device_info *d, cudaStream_t s, int stages)
    {
        switch (stages) {
        case CGP_STAGE_ALL: return launch(a, d, s);
        case CGP_STAGE_MMA: return launch_fast<CGP_STAGE_MMA>(a, d, s);
        case CGP_STAGE_EPILOGUE: return launch_fast<CGP_STAGE_EPILOGUE>(a, d, s);
        case 0: return launch_fast<0>(a, d, s);
        default: return cudaErrorInvalidValue;
        }
    }

  private:
    template <int S> static cudaError_t launch_fast(const cgp_launch_args *a, const cgp_device_info *d, cudaStream_t s)
    {
        return launch_kernel<C::precision, C::fast_rows, C::fast_path, C::fast_warps, S>(tc_params(a), &a->p, d, s);
    }
};

/* ---- the versions: settings (each from the one it changes), then the descriptors, most preferred first ---- */

struct Tf32V1 { /* few warps, big tiles: least shared-memory traffic */
    static constexpr cgp_precision precision = CGP_PRECISION_TF32;
    static constexpr int fast_rows = 4, fast_warps = 8, generic_rows = 2, generic_warps = 8;
    static constexpr Path fast_path = kPathFast;
    static constexpr const char *summary =
        "tensor cores (mma.sync m16n8k8 tf32, fp32 accumulate), implicit GEMM from a shared-memory operand tile, warp "
        "tiles of 4 rows x 16 columns x 64 channels, 8 warps per block, bias/GELU/mean in registers, persistent grid, "
        "any shape";
};

struct Tf32V2 : Tf32V1 { /* 2-row tiles, 4 warps per scheduler: more MMA/GELU overlap between warps */
    static constexpr int fast_rows = 2, fast_warps = 16;
    static constexpr const char *summary =
        "as tf32-v1 with warp tiles of 2 rows x 16 columns x 64 channels and 16 warps per block (4 per scheduler: "
        "more overlap of one warp's MMAs with another's GELUs, 1.5x the shared-memory reads per MMA)";
};

struct Tf32V3 : Tf32V1 { /* 2-row tiles, MMA/GELU overlap inside each warp */
    static constexpr int fast_rows = 2;
    static constexpr Path fast_path = kPathPipelined;
    static constexpr const char *summary =
        "tensor cores (mma.sync m16n8k8 tf32, fp32 accumulate), implicit GEMM from a shared-memory operand tile, warp "
        "tiles of 2 rows x 16 columns x 64 channels, 8 warps per block, software-pipelined: the bias/GELU/mean "
        "epilogue of one tile runs spread over the 9 taps of the next tile's MMAs, so each warp keeps the tensor "
        "cores and the FP32/MUFU pipes busy at once; persistent grid, any shape";
};

/* 3xTF32: 2 rows, as the fresh accumulators of mma_step leave no room for 3 */
struct Tf32x3V2 : Tf32V1 { /* 3 warps per scheduler */
    static constexpr cgp_precision precision = CGP_PRECISION_TF32X3;
    static constexpr int fast_rows = 2, fast_warps = 12;
    static constexpr const char *summary =
        "tensor cores (mma.sync) with the 3xTF32 split (small*big + big*small + big*big, fp32-level accuracy), each "
        "tap's products in a fresh accumulator, warp tiles of 2 rows x 16 columns x 64 channels, 12 warps per block "
        "(3 per scheduler), persistent grid, any shape";
};

struct Tf32x3V1 : Tf32x3V2 {
    static constexpr int fast_warps = 8;
    static constexpr const char *summary = "as 3xtf32-v2 with 8 warps per block (2 per scheduler)";
};

/* What a version is, on its fast path: warp tiles of fast_rows x 16 pixels x 64 channels, fast_warps a block, the
 * input by cp.async, the weights once a block in shared memory, persistent; tf32-v3's walk pipelined */
template <class C>
constexpr Kind kMmaSyncKind = Kind(CGP_PIPE_MMA_SYNC, CGP_ALGORITHM_IMPLICIT_GEMM)
                                  .warp_tile(C::fast_rows, kTileW, kGroup)
                                  .warps(C::fast_warps)
                                  .weights(CGP_WEIGHTS_RESIDENT)
                                  .persistent()
                                  .loop(C::fast_path == kPathPipelined ? CGP_LOOP_PIPELINED : CGP_LOOP_PLAIN);

} // namespace

/* X(descriptor, hooks, version, name, summary, kind) for each version of this file */
#define MMA_SYNC_VERSIONS(X)                                                                                           \
    X(cgp_kernel_tf32_v3, MmaSyncVersion<Tf32V3>, 13, "tf32-v3", Tf32V3::summary, kMmaSyncKind<Tf32V3>)                \
    X(cgp_kernel_tf32_v1, MmaSyncVersion<Tf32V1>, 11, "tf32-v1", Tf32V1::summary, kMmaSyncKind<Tf32V1>)                \
    X(cgp_kernel_tf32_v2, MmaSyncVersion<Tf32V2>, 12, "tf32-v2", Tf32V2::summary, kMmaSyncKind<Tf32V2>)                \
    X(cgp_kernel_tf32x3_v2, MmaSyncVersion<Tf32x3V2>, 22, "3xtf32-v2", Tf32x3V2::summary, kMmaSyncKind<Tf32x3V2>)      \
    X(cgp_kernel_tf32x3_v1, MmaSyncVersion<Tf32x3V1>, 21, "3xtf32-v1", Tf32x3V1::summary, kMmaSyncKind<Tf32x3V1>)

MMA_SYNC_VERSIONS(CGP_DEFINE_KERNEL_DESC)
