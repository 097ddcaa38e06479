/*
 * fused_fp32_winograd.cu - kernel versions 7, 8 and 9 ("fp32-v7" .. "fp32-v9"): the fused kernel with the
 * convolution done as Winograd F(2x2, 3x3) (v7, v8) or F(4x4, 3x3) (v9) in fp32 FFMA, for Cin = 8,
 * Cout = 64, any N, H, W, padding. Run one: build/cgp bench --baselines none --kernel 9
 *
 * Direct convolution spends 9 FFMAs per (output, input channel); F(2x2, 3x3) spends 16 per 2x2
 * outputs, i.e. 4, plus transforms. On the default problem that is 2.25x fewer multiply-adds,
 * which moves the fp32 kernel from instruction-issue bound at ~1.9 G warp instructions (v6) to
 * about 1.2 G. Arithmetic stays strict fp32 (no tensor cores, no reduced precision); the
 * transforms add a few roundings (checked against fp64 like every version: rel. L2 <= 1e-6).
 *
 * Per block tile of 16 x 16 outputs x 64 channels (a persistent grid walks tiles as in v4-v6):
 *   A. input transform: thread (ci, w) turns the 4x4 input patch of Winograd tile w (8 x 8 of
 *      them) into V[xi][ci][w] = (B^T d B)[xi], 16 values, in shared memory;
 *   B. per 32-channel chunk, 16 small GEMMs, one per xi: M[xi][co][w] = sum_ci V[xi][ci][w] U[xi][ci][co]
 *      (U = G g G^T, made once per block); warp xi, each thread 8 tiles x 8 channels;
 *      the bias enters through M[xi = (1,1)], which the output transform spreads to all 4 outputs;
 *   C. output transform Y = A^T M A per (tile, channel), GELU, masked sum, 16-lane reduction;
 *      per-channel sums accumulate in double per image and are published like v4-v6.
 * fp32-v8 keeps stage B's result in registers: a thread owns one Winograd tile and 8 output channels,
 * accumulates all 16 xi of them (128 registers) from V (shared memory, conflict-free 16-byte rows) and U
 * (warp-wide broadcast loads), and runs the output transform and the GELU on them directly: no M in
 * shared memory, two barriers per tile instead of six, 256 threads (two passes of 8 channels each).
 * Transforms (Lavin & Gray 2015): B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1],
 * G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1], A^T = [1 1 1 0; 0 1 -1 -1].
 * fp32-v9 is v8 with F(4x4, 3x3): 36 products per 4x4 outputs, 18 FFMA per output where v8 has 32 (the
 * transforms, from the points 0, +-1, +-2, are at input_transform6 and output_transform6). A thread owns one
 * 4x4 Winograd tile and 4 channels per pass (144 accumulators), the block tile is 16 x 32 outputs (32
 * Winograd tiles, one per lane), U is made in double and rounded once. The larger transforms round more
 * (per-output error ~8e-7 of the output's rms, against ~1.5e-7 for direct fp32); averaged over a mean of
 * thousands of outputs that is rel. L2 ~3e-8, the same as v8 (docs/perf-log.md entry 38).
 */
#include "gelu.cuh"
#include "kernel_api.h"
#include "reduction.cuh"
#include "tile_loader.cuh"

namespace {

constexpr int kCin = 8, kCout = 64;
constexpr int kTile = 16;                  /* outputs per block tile edge */
constexpr int kWt = kTile / 2;             /* Winograd tiles per edge */
constexpr int kTiles = kWt * kWt;          /* 64 */
constexpr int kThreads = 512, kWarps = 16;
constexpr int kChunk = 32;                 /* output channels per GEMM + transform pass */
constexpr int kInRows = kTile + 2, kInPitch = 20;
constexpr int kInFloats = kCin * kInRows * kInPitch;
constexpr int kUFloats = 16 * kCin * kCout;  /* U[xi][ci][co] */
constexpr int kVFloats = 16 * kCin * kTiles; /* V[xi][ci][w] */
constexpr int kMFloats = 16 * kChunk * kTiles; /* M[xi][co][w] for one chunk */
constexpr size_t kSmemBytes = (size_t)(2 * kInFloats + kUFloats + kVFloats + kMFloats + kCout) * sizeof(float);
static_assert(kThreads == kCin * kTiles, "stage A: one thread per (input channel, Winograd tile)");
static_assert(kWarps == 16 && kThreads == 16 * 32, "stage B: one warp per xi");

/* U = G g G^T for the 3x3 filter g */
__device__ __forceinline__ void filter_transform(const float g[3][3], float u[4][4])
{
    float a[4][3];
#pragma unroll
    for (int c = 0; c < 3; ++c) {
        a[0][c] = g[0][c];
        a[1][c] = 0.5f * (g[0][c] + g[1][c] + g[2][c]);
        a[2][c] = 0.5f * (g[0][c] - g[1][c] + g[2][c]);
        a[3][c] = g[2][c];
    }
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        u[r][0] = a[r][0];
        u[r][1] = 0.5f * (a[r][0] + a[r][1] + a[r][2]);
        u[r][2] = 0.5f * (a[r][0] - a[r][1] + a[r][2]);
        u[r][3] = a[r][2];
    }
}

/* U = G g G^T, 6 x 6, for the 3x3 filter g, in double and rounded once (G has 1/6, 1/12 and 1/24) */
__device__ __forceinline__ void filter_transform(const float g[3][3], float u[6][6])
{
    constexpr double G[6][3] = {{1.0 / 4, 0, 0},
                                {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                {0, 0, 1}};
    double a[6][3];
#pragma unroll
    for (int r = 0; r < 6; ++r)
#pragma unroll
        for (int c = 0; c < 3; ++c)
            a[r][c] = G[r][0] * g[0][c] + G[r][1] * g[1][c] + G[r][2] * g[2][c];
#pragma unroll
    for (int r = 0; r < 6; ++r)
#pragma unroll
        for (int c = 0; c < 6; ++c)
            u[r][c] = (float)(a[r][0] * G[c][0] + a[r][1] * G[c][1] + a[r][2] * G[c][2]);
}

/* V = B^T d B for the 4x4 input patch d */
__device__ __forceinline__ void input_transform(const float d[4][4], float v[4][4])
{
    float t[4][4];
#pragma unroll
    for (int c = 0; c < 4; ++c) {
        t[0][c] = d[0][c] - d[2][c];
        t[1][c] = d[1][c] + d[2][c];
        t[2][c] = d[2][c] - d[1][c];
        t[3][c] = d[1][c] - d[3][c];
    }
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        v[r][0] = t[r][0] - t[r][2];
        v[r][1] = t[r][1] + t[r][2];
        v[r][2] = t[r][2] - t[r][1];
        v[r][3] = t[r][1] - t[r][3];
    }
}

/* Y = A^T m A: 2x2 outputs from the 16 values of one (tile, channel) */
__device__ __forceinline__ void output_transform(const float m[16], float y[2][2])
{
    float s[2][4];
#pragma unroll
    for (int c = 0; c < 4; ++c) {
        s[0][c] = m[c] + m[4 + c] + m[8 + c];
        s[1][c] = m[4 + c] - m[8 + c] - m[12 + c];
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        y[r][0] = s[r][0] + s[r][1] + s[r][2];
        y[r][1] = s[r][1] - s[r][2] - s[r][3];
    }
}

/* U = G g G^T (kAlpha x kAlpha: 4 for F(2x2, 3x3), 6 for F(4x4, 3x3)) of every (output, input channel)
 * filter into u_s[xi][ci][co], and the bias into bias_s */
template <int kBlockThreads, int kAlpha>
__device__ __forceinline__ void stage_filters(const float *__restrict__ weight, const float *__restrict__ bias,
                                              float *u_s, float *bias_s)
{
    for (int i = threadIdx.x; i < kCout * kCin; i += kBlockThreads) {
        const int co = i / kCin, ci = i % kCin;
        float gk[3][3], u[kAlpha][kAlpha];
#pragma unroll
        for (int k = 0; k < 9; ++k)
            gk[k / 3][k % 3] = weight[(co * kCin + ci) * 9 + k];
        filter_transform(gk, u);
#pragma unroll
        for (int xi = 0; xi < kAlpha * kAlpha; ++xi)
            u_s[(xi * kCin + ci) * kCout + co] = u[xi / kAlpha][xi % kAlpha];
    }
    if (threadIdx.x < kCout)
        bias_s[threadIdx.x] = bias[threadIdx.x];
}

/* Starts the copies of tile `tile`'s input window (kCin x kRows x kPitch, the block tile being kTileH x kTileW
 * outputs) into buf, if the block has that tile, and commits. */
template <int kBlockThreads, int kTileH, int kTileW, int kRows, int kPitch>
__device__ __forceinline__ void prefetch_window(float *buf, const float *__restrict__ x, const cgp_problem &p,
                                                const PersistentSchedule &g, int64_t tile, int64_t tile_end,
                                                bool vector_ok)
{
    if (tile < tile_end) {
        int64_t n, oy0, ox0;
        persistent_tile_origin(g, tile, kTileH, kTileW, n, oy0, ox0);
        load_window_async<kBlockThreads, kCin, kRows, kPitch>(buf, x, p, n, oy0 - p.pad, ox0 - p.pad, vector_ok);
    }
    cp_async_commit();
}

/* V = B^T d B of the 4x4 input patch of Winograd tile w, input channel ci, in a staged window */
__device__ __forceinline__ void patch_transform(const float *window, int ci, int w, float v[4][4])
{
    const float *src = window + (ci * kInRows + 2 * (w / kWt)) * kInPitch + 2 * (w % kWt);
    float d[4][4];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        const float2 a = *reinterpret_cast<const float2 *>(src + r * kInPitch);
        const float2 b = *reinterpret_cast<const float2 *>(src + r * kInPitch + 2);
        d[r][0] = a.x; d[r][1] = a.y; d[r][2] = b.x; d[r][3] = b.y;
    }
    input_transform(d, v);
}

__global__ void __launch_bounds__(kThreads, 1)
fused_fp32_winograd(const float *__restrict__ x, const float *__restrict__ weight, const float *__restrict__ bias,
                    cgp_problem p, PersistentSchedule g, ReduceArgs red)
{
    extern __shared__ __align__(16) float smem[]; /* input window x2 | U | V | M | bias */
    float *u_s = smem + 2 * kInFloats;
    float *v_s = u_s + kUFloats;
    float *m_s = v_s + kVFloats;
    float *bias_s = m_s + kMFloats;
    __shared__ double image_sums[kCout];

    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int64_t tile_begin = persistent_tile_begin(g);
    const int64_t tile_end = persistent_tile_end(g);
    const bool vector_ok = (p.w % 4 == 0) && (p.pad == 0);

    stage_filters<kThreads, 4>(weight, bias, u_s, bias_s);
    prefetch_window<kThreads, kTile, kTile, kInRows, kInPitch>(smem, x, p, g, tile_begin, tile_end, vector_ok);

    /* stage B mapping: warp = xi, 8 tiles (tg) x 8 chunk channels (cg) per thread */
    const int xi = warp, tg = lane % 8, cg = lane / 8;
    /* stage C mapping: channel (chunk-local) t / 16, tiles 4 * (t % 16) .. +3 */
    const int c_co = t / 16, c_tq = t % 16;
    double image_sum0 = 0.0, image_sum1 = 0.0; /* lanes 0 and 16: channels c_co and 32 + c_co */

    for (int64_t tile = tile_begin; tile < tile_end; ++tile) {
        const int buf = (int)((tile - tile_begin) & 1);
        int64_t n, oy0, ox0;
        persistent_tile_origin(g, tile, kTile, kTile, n, oy0, ox0);
        cp_async_wait<0>();
        __syncthreads(); /* window of this tile landed; everyone is done with the previous tile */
        prefetch_window<kThreads, kTile, kTile, kInRows, kInPitch>(smem + (buf ^ 1) * kInFloats, x, p, g, tile + 1,
                                                                   tile_end, vector_ok);

        { /* A: input transform of (ci, w) = (t / 64, t % 64) */
            const int ci = t / kTiles, w = t % kTiles;
            float v[4][4];
            patch_transform(smem + buf * kInFloats, ci, w, v);
#pragma unroll
            for (int k = 0; k < 16; ++k)
                v_s[(k * kCin + ci) * kTiles + w] = v[k / 4][k % 4];
        }
        __syncthreads();

        const bool full = oy0 + kTile <= p.hout && ox0 + kTile <= p.wout;
#pragma unroll 1
        for (int chunk = 0; chunk < kCout / kChunk; ++chunk) {
            { /* B: M[xi][co][w] for tiles {4tg..4tg+3, 32+4tg..32+4tg+3} and chunk channels cg*8.. */
                /* (a quarter-warp's 16-byte accesses then cover 128 contiguous bytes: no bank conflicts) */
                float acc[8][8]; /* [channel][tile] */
#pragma unroll
                for (int j = 0; j < 8; ++j) {
                    const float b0 = xi == 5 ? bias_s[chunk * kChunk + cg * 8 + j] : 0.0f; /* xi 5 = (1,1) */
#pragma unroll
                    for (int k = 0; k < 8; ++k)
                        acc[j][k] = b0;
                }
#pragma unroll
                for (int ci = 0; ci < kCin; ++ci) {
                    const float *vp = v_s + (xi * kCin + ci) * kTiles + tg * 4;
                    const float *up = u_s + (xi * kCin + ci) * kCout + chunk * kChunk + cg * 8;
                    const float4 v0 = *reinterpret_cast<const float4 *>(vp);
                    const float4 v1 = *reinterpret_cast<const float4 *>(vp + kTiles / 2);
                    const float4 u0 = *reinterpret_cast<const float4 *>(up), u1 = *reinterpret_cast<const float4 *>(up + 4);
                    const float vv[8] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w};
                    const float uu[8] = {u0.x, u0.y, u0.z, u0.w, u1.x, u1.y, u1.z, u1.w};
#pragma unroll
                    for (int j = 0; j < 8; ++j)
#pragma unroll
                        for (int k = 0; k < 8; ++k)
                            acc[j][k] = fmaf(vv[k], uu[j], acc[j][k]);
                }
#pragma unroll
                for (int j = 0; j < 8; ++j) {
                    float *mp = m_s + (xi * kChunk + cg * 8 + j) * kTiles + tg * 4;
                    *reinterpret_cast<float4 *>(mp) = make_float4(acc[j][0], acc[j][1], acc[j][2], acc[j][3]);
                    *reinterpret_cast<float4 *>(mp + kTiles / 2) = make_float4(acc[j][4], acc[j][5], acc[j][6], acc[j][7]);
                }
            }
            __syncthreads();
            { /* C: output transform, GELU, masked sum for channel c_co, tiles 4 c_tq .. +3 */
                float m[4][16]; /* [tile][xi] */
#pragma unroll
                for (int k = 0; k < 16; ++k) {
                    const float4 q = *reinterpret_cast<const float4 *>(m_s + (k * kChunk + c_co) * kTiles + 4 * c_tq);
                    m[0][k] = q.x; m[1][k] = q.y; m[2][k] = q.z; m[3][k] = q.w;
                }
                float s = 0.0f;
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    float y[2][2];
                    output_transform(m[i], y);
                    const int w = 4 * c_tq + i, oy = (int)oy0 + 2 * (w / kWt), ox = (int)ox0 + 2 * (w % kWt);
#pragma unroll
                    for (int r = 0; r < 2; ++r)
#pragma unroll
                        for (int c = 0; c < 2; ++c) {
                            const float gv = gelu_fast(y[r][c]);
                            s += (full || (oy + r < p.hout && ox + c < p.wout)) ? gv : 0.0f;
                        }
                }
#pragma unroll
                for (int offset = 8; offset > 0; offset /= 2) /* the 16 lanes of this channel */
                    s += __shfl_xor_sync(0xffffffffu, s, offset);
                if (chunk == 0) /* meaningful in lanes 0 and 16 */
                    image_sum0 += (double)s;
                else
                    image_sum1 += (double)s;
            }
            __syncthreads(); /* M is rewritten by the next chunk */
        }

        const int64_t next_n = tile + 1 < tile_end ? (tile + 1) / g.tiles_per_image : -1;
        if (next_n != n) { /* last tile of image n in this block: publish its 64 channel sums */
            if (lane % 16 == 0) {
                image_sums[c_co] = image_sum0;
                image_sums[kChunk + c_co] = image_sum1;
            }
            image_sum0 = image_sum1 = 0.0;
            __syncthreads();
            publish_image_sums(red, n, 0, kCout, image_sums, persistent_image_slots(g, n));
        }
    }
    cp_async_wait<0>();
}

/* ---- fp32-v8: stage B and C in registers ---- */

constexpr int kRegThreads = 256;
constexpr int kRegChannels = 8;                                     /* output channels per thread pass */
/* threads per Winograd tile: they split the input channels in stage A and the channel groups in B, C */
constexpr int kRegSlices = kRegThreads / kTiles;
constexpr int kRegPasses = kCout / (kRegChannels * kRegSlices);       /* 2 */
constexpr int kRegSums = kRegPasses * kRegChannels;                 /* float sums per thread */
constexpr int kVPitch = 20;     /* V[ci][w][16 xi + 4]: a quarter-warp's 16-byte loads hit distinct banks */
constexpr int kRegVFloats = kCin * kTiles * kVPitch;
constexpr int kRegFlushTiles = 8; /* tiles between flushes of the float sums into double */
constexpr size_t kRegSmemBytes =
    (size_t)(2 * kInFloats + kUFloats + kRegVFloats + kCout) * sizeof(float) + sizeof(double) * kRegSums * kRegThreads;
static_assert(kRegThreads == kCin * kTiles / 2, "stage A: two (input channel, Winograd tile) pairs per thread");
static_assert(kRegPasses == 2, "two passes of 8 channels per thread");

/* Adds the thread's float sums into its double slots (dsum[k * kRegThreads + t]) and clears them. */
__device__ __forceinline__ void flush_reg_sums(double *dsum, float (&sum)[kRegPasses][kRegChannels])
{
#pragma unroll
    for (int k = 0; k < kRegSums; ++k) {
        dsum[k * kRegThreads + threadIdx.x] += (double)sum[k / kRegChannels][k % kRegChannels];
        sum[k / kRegChannels][k % kRegChannels] = 0.0f;
    }
}

/* A block's tiles [begin, end) and whether its windows load in 16-byte chunks */
struct BlockTiles {
    int64_t begin, end;
    bool vector_ok;
};

/* What a block of fp32-v8 or v9 does before its first tile: U and the bias into shared memory, its kSums double
 * slots per thread cleared, and the first tile's input window on its way into `window` */
template <int kBlockThreads, int kAlpha, int kSums, int kTileH, int kTileW, int kRows, int kPitch>
__device__ __forceinline__ BlockTiles start_block(const float *__restrict__ x, const float *__restrict__ weight,
                                                  const float *__restrict__ bias, const cgp_problem &p,
                                                  const PersistentSchedule &g, float *window, float *u_s,
                                                  float *bias_s, double *dsum)
{
    const BlockTiles b = {persistent_tile_begin(g), persistent_tile_end(g), (p.w % 4 == 0) && (p.pad == 0)};
    stage_filters<kBlockThreads, kAlpha>(weight, bias, u_s, bias_s);
#pragma unroll
    for (int k = 0; k < kSums; ++k)
        dsum[k * kBlockThreads + threadIdx.x] = 0.0;
    prefetch_window<kBlockThreads, kTileH, kTileW, kRows, kPitch>(window, x, p, g, b.begin, b.end, b.vector_ok);
    return b;
}

/* Publishes image n's 64 channel sums from the per-thread double slots: channel c is the sum of the kSlots
 * slots from dsum + first_slot(c); then clears this thread's kSums slots (dsum[k * kBlockThreads + t]). Called
 * by every thread of the block after its last tile of image n. */
template <int kBlockThreads, int kSums, int kSlots, class FirstSlot>
__device__ __forceinline__ void publish_slot_sums(double *dsum, double *image_sums, const ReduceArgs &red, int64_t n,
                                                  const PersistentSchedule &g, FirstSlot first_slot)
{
    __syncthreads();
    if (threadIdx.x < kCout) {
        const double *slot = dsum + first_slot((int)threadIdx.x);
        double total = 0.0;
        for (int i = 0; i < kSlots; ++i)
            total += slot[i];
        image_sums[threadIdx.x] = total;
    }
    __syncthreads();
    publish_image_sums(red, n, 0, kCout, image_sums, persistent_image_slots(g, n));
#pragma unroll
    for (int k = 0; k < kSums; ++k) /* read by the sums above, before publish's barriers */
        dsum[k * kBlockThreads + threadIdx.x] = 0.0;
}

__global__ void __launch_bounds__(kRegThreads, 1)
fused_fp32_winograd_reg(const float *__restrict__ x, const float *__restrict__ weight, const float *__restrict__ bias,
                        cgp_problem p, PersistentSchedule g, ReduceArgs red)
{
    extern __shared__ __align__(16) float smem[]; /* input window x2 | U | V | bias | double sums */
    float *u_s = smem + 2 * kInFloats;
    float *v_s = u_s + kUFloats;
    float *bias_s = v_s + kRegVFloats;
    double *dsum = reinterpret_cast<double *>(bias_s + kCout);
    __shared__ double image_sums[kCout];

    const int t = threadIdx.x;
    const auto [tile_begin, tile_end, vector_ok] =
        start_block<kRegThreads, 4, kRegSums, kTile, kTile, kInRows, kInPitch>(x, weight, bias, p, g, smem, u_s, bias_s,
                                                                               dsum);

    /* this thread: Winograd tile w; slice s = t / 64: input channels s and s + 4 in stage A, channel
     * groups s and s + 4 (8 channels each) in stages B and C */
    const int w = t % kTiles, slice = t / kTiles, wy = w / kWt, wx = w % kWt;
    float sum[kRegPasses][kRegChannels] = {}; /* masked GELU sums since the last flush */
    int since_flush = 0;

    for (int64_t tile = tile_begin; tile < tile_end; ++tile) {
        const int buf = (int)((tile - tile_begin) & 1);
        int64_t n, oy0, ox0;
        persistent_tile_origin(g, tile, kTile, kTile, n, oy0, ox0);
        cp_async_wait<0>();
        __syncthreads(); /* window of this tile landed; everyone is done with V of the previous tile */
        prefetch_window<kRegThreads, kTile, kTile, kInRows, kInPitch>(smem + (buf ^ 1) * kInFloats, x, p, g, tile + 1,
                                                                      tile_end, vector_ok);

#pragma unroll
        for (int half = 0; half < 2; ++half) { /* A: input transform of (ci, w), ci = slice + 4 half */
            const int ci = slice + kRegSlices * half;
            float v[4][4];
            patch_transform(smem + buf * kInFloats, ci, w, v);
            float4 *dst = reinterpret_cast<float4 *>(v_s + (ci * kTiles + w) * kVPitch);
#pragma unroll
            for (int r = 0; r < 4; ++r)
                dst[r] = make_float4(v[r][0], v[r][1], v[r][2], v[r][3]);
        }
        __syncthreads();

        /* 0/1 masks of the tile's four outputs (rows and columns past the output count nothing) */
        const int64_t oy = oy0 + 2 * wy, ox = ox0 + 2 * wx;
        float mask[2][2];
#pragma unroll
        for (int r = 0; r < 2; ++r)
#pragma unroll
            for (int c = 0; c < 2; ++c)
                mask[r][c] = oy + r < p.hout && ox + c < p.wout ? 1.0f : 0.0f;

#pragma unroll 1 /* one pass at a time: unrolled, ptxas overlaps the two and spills */
        for (int pass = 0; pass < kRegPasses; ++pass) { /* B and C for channels co0 .. co0 + 7 */
            const int co0 = (slice + kRegSlices * pass) * kRegChannels;
            float acc[16][kRegChannels]; /* [xi][channel]; the bias enters through xi 5 = (1,1) */
#pragma unroll
            for (int xi = 0; xi < 16; ++xi)
#pragma unroll
                for (int j = 0; j < kRegChannels; ++j)
                    acc[xi][j] = xi == 5 ? bias_s[co0 + j] : 0.0f;
#pragma unroll
            for (int ci = 0; ci < kCin; ++ci) {
                const float4 *vp = reinterpret_cast<const float4 *>(v_s + (ci * kTiles + w) * kVPitch);
                float v[16];
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    const float4 q = vp[r];
                    v[4 * r] = q.x; v[4 * r + 1] = q.y; v[4 * r + 2] = q.z; v[4 * r + 3] = q.w;
                }
#pragma unroll
                for (int xi = 0; xi < 16; ++xi) {
                    const float4 *up = reinterpret_cast<const float4 *>(u_s + (xi * kCin + ci) * kCout + co0);
                    const float4 u0 = up[0], u1 = up[1]; /* the same address across the warp: a broadcast */
                    const float uu[8] = {u0.x, u0.y, u0.z, u0.w, u1.x, u1.y, u1.z, u1.w};
#pragma unroll
                    for (int j = 0; j < kRegChannels; ++j)
                        acc[xi][j] = fmaf(v[xi], uu[j], acc[xi][j]);
                }
            }
            float tile_sum[kRegChannels];
#pragma unroll
            for (int j = 0; j < kRegChannels; ++j) {
                float m[16], y[2][2];
#pragma unroll
                for (int xi = 0; xi < 16; ++xi)
                    m[xi] = acc[xi][j];
                output_transform(m, y);
                tile_sum[j] = gelu_fast(y[0][0]) * mask[0][0];
                tile_sum[j] = fmaf(gelu_fast(y[0][1]), mask[0][1], tile_sum[j]);
                tile_sum[j] = fmaf(gelu_fast(y[1][0]), mask[1][0], tile_sum[j]);
                tile_sum[j] = fmaf(gelu_fast(y[1][1]), mask[1][1], tile_sum[j]);
            }
#pragma unroll
            for (int j = 0; j < kRegChannels; ++j) { /* static indices: sum stays in registers */
                if (pass == 0)
                    sum[0][j] += tile_sum[j];
                else
                    sum[1][j] += tile_sum[j];
            }
        }

        const int64_t next_n = tile + 1 < tile_end ? (tile + 1) / g.tiles_per_image : -1;
        if (++since_flush == kRegFlushTiles || next_n != n) {
            flush_reg_sums(dsum, sum);
            since_flush = 0;
        }
        if (next_n != n) { /* last tile of image n in this block: publish its 64 channel sums */
            /* channel c: group c / 8 = slice + 4 pass, held by threads slice * 64 + (0..63) */
            publish_slot_sums<kRegThreads, kRegSums, kTiles>(dsum, image_sums, red, n, g, [](int c) {
                const int group = c / kRegChannels;
                return ((group / kRegSlices) * kRegChannels + c % kRegChannels) * kRegThreads +
                       (group % kRegSlices) * kTiles;
            });
        }
    }
    cp_async_wait<0>();
}

/* ---- fp32-v9: F(4x4, 3x3), everything after the input transform in registers ---- */

constexpr int k4TileH = 16, k4TileW = 32;                  /* outputs per block tile */
constexpr int k4Wx = k4TileW / 4;                          /* Winograd tiles per block-tile row */
constexpr int k4Tiles = (k4TileH / 4) * k4Wx;              /* 32: one per lane */
constexpr int k4Threads = 256;
constexpr int k4Slices = k4Threads / k4Tiles;              /* 8: warp s owns channels 8 s .. 8 s + 7 */
constexpr int k4Channels = 4;                              /* output channels per thread pass */
constexpr int k4Passes = kCout / (k4Slices * k4Channels);  /* 2 */
constexpr int k4Sums = k4Passes * k4Channels;              /* double sums per thread: channel 8 s + k */
constexpr int k4InRows = k4TileH + 2, k4InPitch = 36;      /* 34 columns used; rows stay 16-byte aligned */
constexpr int k4InFloats = kCin * k4InRows * k4InPitch;
constexpr int k4UFloats = 36 * kCin * kCout;               /* U[xi][ci][co] */
constexpr int k4VPitch = 36; /* V[ci][w][36 xi]: 36 = 4 mod 32, so a quarter-warp's 16-byte loads hit distinct banks */
constexpr int k4VFloats = kCin * k4Tiles * k4VPitch;
constexpr size_t k4SmemBytes =
    (size_t)(2 * k4InFloats + k4UFloats + k4VFloats + kCout) * sizeof(float) + sizeof(double) * k4Sums * k4Threads;
static_assert(k4Threads == kCin * k4Tiles, "stage A: one (input channel, Winograd tile) pair per thread");
static_assert(k4Passes == 2 && k4Slices * k4Channels * k4Passes == kCout, "two passes of 4 channels per thread");

/* B^T d for six values d (one column or row of a 6x6 patch): 12 operations.
 * B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1] */
__device__ __forceinline__ void input_transform6(const float d[6], float r[6])
{
    const float t1 = fmaf(-4.0f, d[2], d[4]), t2 = fmaf(-4.0f, d[1], d[3]);
    const float t3 = d[4] - d[2], t4 = d[3] - d[1];
    r[0] = fmaf(4.0f, d[0], fmaf(-5.0f, d[2], d[4]));
    r[1] = t1 + t2;
    r[2] = t1 - t2;
    r[3] = fmaf(2.0f, t4, t3);
    r[4] = fmaf(-2.0f, t4, t3);
    r[5] = fmaf(4.0f, d[1], fmaf(-5.0f, d[3], d[5]));
}

/* A^T m for six values m: 10 operations. A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1] */
__device__ __forceinline__ void output_transform6(const float m[6], float o[4])
{
    const float s1 = m[1] + m[2], d1 = m[1] - m[2], s2 = m[3] + m[4], d2 = m[3] - m[4];
    o[0] = m[0] + s1 + s2;
    o[1] = fmaf(2.0f, d2, d1);
    o[2] = fmaf(4.0f, s2, s1);
    o[3] = fmaf(8.0f, d2, d1) + m[5];
}

/* V = B^T d B of the 6x6 input patch of Winograd tile w (4 x 8 of them), input channel ci, stored as
 * v_s[ci][w][36] */
__device__ __forceinline__ void patch_transform4(const float *window, float *v_s, int ci, int w)
{
    const float *src = window + (ci * k4InRows + 4 * (w / k4Wx)) * k4InPitch + 4 * (w % k4Wx);
    float d[6][6], t[6][6];
#pragma unroll
    for (int r = 0; r < 6; ++r) {
        const float4 a = *reinterpret_cast<const float4 *>(src + r * k4InPitch);
        const float2 b = *reinterpret_cast<const float2 *>(src + r * k4InPitch + 4);
        d[r][0] = a.x; d[r][1] = a.y; d[r][2] = a.z; d[r][3] = a.w; d[r][4] = b.x; d[r][5] = b.y;
    }
#pragma unroll
    for (int c = 0; c < 6; ++c) { /* along y: t[.][c] = B^T d[.][c] */
        float col[6], out[6];
#pragma unroll
        for (int r = 0; r < 6; ++r)
            col[r] = d[r][c];
        input_transform6(col, out);
#pragma unroll
        for (int r = 0; r < 6; ++r)
            t[r][c] = out[r];
    }
    float v[36];
#pragma unroll
    for (int r = 0; r < 6; ++r) /* along x */
        input_transform6(t[r], v + 6 * r);
    float4 *dst = reinterpret_cast<float4 *>(v_s + (ci * k4Tiles + w) * k4VPitch);
#pragma unroll
    for (int q = 0; q < 9; ++q)
        dst[q] = make_float4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]);
}

/* Y = A^T m A, 4x4 outputs of one (tile, channel) from its 36 values m[xi], xi = 6 (y index) + (x index) */
__device__ __forceinline__ void output_transform4(const float m[36], float y[4][4])
{
    float t[6][4]; /* along x */
#pragma unroll
    for (int i = 0; i < 6; ++i)
        output_transform6(m + 6 * i, t[i]);
#pragma unroll
    for (int c = 0; c < 4; ++c) { /* along y */
        float col[6], out[4];
#pragma unroll
        for (int i = 0; i < 6; ++i)
            col[i] = t[i][c];
        output_transform6(col, out);
#pragma unroll
        for (int r = 0; r < 4; ++r)
            y[r][c] = out[r];
    }
}

/* acc[xi][j] += V[ci][w][xi] U[xi][ci][co0 + j], or (kFirst) acc = V U, plus the bias at xi 7 = (1,1) */
template <bool kFirst>
__device__ __forceinline__ void accumulate_channel4(float (&acc)[36][k4Channels], const float *v_s, const float *u_s,
                                                    const float *bias_s, int ci, int w, int co0)
{
    const float4 *vp = reinterpret_cast<const float4 *>(v_s + (ci * k4Tiles + w) * k4VPitch);
    float v[36];
#pragma unroll
    for (int q = 0; q < 9; ++q) {
        const float4 e = vp[q];
        v[4 * q] = e.x; v[4 * q + 1] = e.y; v[4 * q + 2] = e.z; v[4 * q + 3] = e.w;
    }
#pragma unroll
    for (int xi = 0; xi < 36; ++xi) {
        /* the same address across the warp: a broadcast */
        const float4 u4 = *reinterpret_cast<const float4 *>(u_s + (xi * kCin + ci) * kCout + co0);
        const float u[4] = {u4.x, u4.y, u4.z, u4.w};
#pragma unroll
        for (int j = 0; j < k4Channels; ++j)
            acc[xi][j] = !kFirst ? fmaf(v[xi], u[j], acc[xi][j])
                                 : xi == 7 ? fmaf(v[xi], u[j], bias_s[co0 + j]) : v[xi] * u[j];
    }
}

__global__ void __launch_bounds__(k4Threads, 1)
fused_fp32_winograd4(const float *__restrict__ x, const float *__restrict__ weight, const float *__restrict__ bias,
                     cgp_problem p, PersistentSchedule g, ReduceArgs red)
{
    extern __shared__ __align__(16) float smem[]; /* input window x2 | U | V | bias | double sums */
    float *u_s = smem + 2 * k4InFloats;
    float *v_s = u_s + k4UFloats;
    float *bias_s = v_s + k4VFloats;
    double *dsum = reinterpret_cast<double *>(bias_s + kCout);
    __shared__ double image_sums[kCout];

    const int t = threadIdx.x;
    const auto [tile_begin, tile_end, vector_ok] =
        start_block<k4Threads, 6, k4Sums, k4TileH, k4TileW, k4InRows, k4InPitch>(x, weight, bias, p, g, smem, u_s,
                                                                                 bias_s, dsum);

    /* this thread: Winograd tile w (the lane); slice s (the warp): input channel s in stage A, output
     * channels 8 s + 4 pass + j in stages B and C */
    const int w = t % k4Tiles, slice = t / k4Tiles;

    for (int64_t tile = tile_begin; tile < tile_end; ++tile) {
        const int buf = (int)((tile - tile_begin) & 1);
        int64_t n, oy0, ox0;
        persistent_tile_origin(g, tile, k4TileH, k4TileW, n, oy0, ox0);
        cp_async_wait<0>();
        __syncthreads(); /* window of this tile landed; everyone is done with V of the previous tile */
        prefetch_window<k4Threads, k4TileH, k4TileW, k4InRows, k4InPitch>(smem + (buf ^ 1) * k4InFloats, x, p, g,
                                                                          tile + 1, tile_end, vector_ok);
        patch_transform4(smem + buf * k4InFloats, v_s, slice, w); /* A */
        __syncthreads();

        /* 0/1 masks of the tile's rows and columns (outputs past the output count nothing) */
        const int64_t oy = oy0 + 4 * (w / k4Wx), ox = ox0 + 4 * (w % k4Wx);
        float row_mask[4], col_mask[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            row_mask[k] = oy + k < p.hout ? 1.0f : 0.0f;
            col_mask[k] = ox + k < p.wout ? 1.0f : 0.0f;
        }

#pragma unroll 1
        for (int pass = 0; pass < k4Passes; ++pass) { /* B and C for channels co0 .. co0 + 3 */
            const int co0 = slice * (k4Passes * k4Channels) + pass * k4Channels;
            float acc[36][k4Channels]; /* [xi][channel]; the bias enters through xi 7 = (1,1) */
            accumulate_channel4<true>(acc, v_s, u_s, bias_s, 0, w, co0); /* starts the sums: no zeroing */
#pragma unroll
            for (int ci = 1; ci < kCin; ++ci)
                accumulate_channel4<false>(acc, v_s, u_s, bias_s, ci, w, co0);
#pragma unroll
            for (int j = 0; j < k4Channels; ++j) {
                float m[36], y[4][4];
#pragma unroll
                for (int xi = 0; xi < 36; ++xi)
                    m[xi] = acc[xi][j];
                output_transform4(m, y);
                float tile_sum = 0.0f;
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    float row_sum = gelu_fast(y[r][0]) * col_mask[0];
#pragma unroll
                    for (int c = 1; c < 4; ++c)
                        row_sum = fmaf(gelu_fast(y[r][c]), col_mask[c], row_sum);
                    tile_sum = fmaf(row_sum, row_mask[r], tile_sum);
                }
                dsum[(pass * k4Channels + j) * k4Threads + t] += (double)tile_sum; /* no float sums kept in registers */
            }
        }

        const int64_t next_n = tile + 1 < tile_end ? (tile + 1) / g.tiles_per_image : -1;
        if (next_n != n) { /* last tile of image n in this block: publish its 64 channel sums */
            /* channel c = 8 s + k: slot k of the 32 threads of warp s */
            publish_slot_sums<k4Threads, k4Sums, k4Tiles>(dsum, image_sums, red, n, g, [](int c) {
                return (c % k4Sums) * k4Threads + (c / k4Sums) * k4Tiles;
            });
        }
    }
    cp_async_wait<0>();
}

/* what every version needs of the shape, with block tiles of tile_h x tile_w outputs (too_large says the limit) */
const char *winograd_shape_unsupported(const cgp_problem *p, int tile_h, int tile_w, const char *too_large)
{
    if (p->cin != kCin || p->cout != kCout)
        return "needs Cin = 8 and Cout = 64";
    if (p->hout > 0x7fffffff - tile_h || p->wout > 0x7fffffff - tile_w)
        return too_large;
    return nullptr;
}

const char *winograd_unsupported(const cgp_problem *p, const cgp_device_info *d)
{
    if (d->smem_per_block_optin < kSmemBytes)
        return "needs 215 KB of shared memory per block";
    return winograd_shape_unsupported(p, kTile, kTile, "output height or width above 2^31 - 17");
}

const char *winograd_reg_unsupported(const cgp_problem *p, const cgp_device_info *d)
{
    if (d->smem_per_block_optin < kRegSmemBytes)
        return "needs 127 KiB of shared memory per block";
    return winograd_shape_unsupported(p, kTile, kTile, "output height or width above 2^31 - 17");
}

const char *winograd4_unsupported(const cgp_problem *p, const cgp_device_info *d)
{
    if (d->smem_per_block_optin < k4SmemBytes)
        return "needs 165 KiB of shared memory per block";
    return winograd_shape_unsupported(p, k4TileH, k4TileW, "output height above 2^31 - 17 or width above 2^31 - 33");
}

size_t winograd_workspace(const cgp_problem *p, const cgp_device_info *d)
{
    return persistent_workspace_bytes(p, persistent_schedule(p, d, kTile, kTile));
}

size_t winograd4_workspace(const cgp_problem *p, const cgp_device_info *d)
{
    return persistent_workspace_bytes(p, persistent_schedule(p, d, k4TileH, k4TileW));
}

using WinogradKernel = void (*)(const float *, const float *, const float *, cgp_problem, PersistentSchedule,
                               ReduceArgs);

/* Any version on the persistent schedule of tile_h x tile_w block tiles: one block of `threads` per SM with
 * `smem` bytes */
cudaError_t launch_winograd(WinogradKernel kernel, int threads, size_t smem, int tile_h, int tile_w,
                            const cgp_launch_args *a, const cgp_device_info *d, cudaStream_t s)
{
    PersistentSchedule g = persistent_schedule(&a->p, d, tile_h, tile_w);
    cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (err != cudaSuccess)
        return err;
    /* cudaLaunchKernel reports this launch's status only, not an error the caller left behind */
    const float *x = a->x, *w = a->weight, *b = a->bias;
    cgp_problem p = a->p;
    ReduceArgs red = make_reduce_args(a, a->workspace);
    void *args[] = {&x, &w, &b, &p, &g, &red};
    return cudaLaunchKernel((const void *)kernel, dim3(g.blocks), dim3(threads), args, smem, s);
}

cudaError_t winograd_launch(const cgp_launch_args *a, const cgp_device_info *d, cudaStream_t s)
{
    return launch_winograd(fused_fp32_winograd, kThreads, kSmemBytes, kTile, kTile, a, d, s);
}

cudaError_t winograd_reg_launch(const cgp_launch_args *a, const cgp_device_info *d, cudaStream_t s)
{
    return launch_winograd(fused_fp32_winograd_reg, kRegThreads, kRegSmemBytes, kTile, kTile, a, d, s);
}

cudaError_t winograd4_launch(const cgp_launch_args *a, const cgp_device_info *d, cudaStream_t s)
{
    return launch_winograd(fused_fp32_winograd4, k4Threads, k4SmemBytes, k4TileH, k4TileW, a, d, s);
}

} // namespace

extern "C" const cgp_kernel_desc cgp_kernel_fp32_v9 = {
    9, "fp32-v9", 0 /* CGP_PRECISION_FP32 */,
    "Winograd F(4x4,3x3) in fp32 FFMA, all after the input transform in registers: one 4x4 Winograd tile x 4 "
    "channels per thread pass, 16x32 block tiles, 256 threads",
    winograd4_unsupported, winograd4_workspace, winograd4_launch, NULL, NULL};

extern "C" const cgp_kernel_desc cgp_kernel_fp32_v8 = {
    8, "fp32-v8", 0 /* CGP_PRECISION_FP32 */,
    "v7 with the 16 GEMMs and the output transform in registers: one Winograd tile x 8 channels per thread, "
    "no M in shared memory, 2 barriers per tile, 256 threads",
    winograd_reg_unsupported, winograd_workspace, winograd_reg_launch, NULL, NULL};

extern "C" const cgp_kernel_desc cgp_kernel_fp32_v7 = {
    7, "fp32-v7", 0 /* CGP_PRECISION_FP32 */,
    "Winograd F(2x2,3x3) in fp32 FFMA: input transform, 16 GEMMs per tile, output transform + GELU; 16x16 tiles",
    winograd_unsupported, winograd_workspace, winograd_launch, NULL, NULL};
