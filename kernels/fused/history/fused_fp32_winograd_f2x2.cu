/*
 * history/fused_fp32_winograd_f2x2.cu - the superseded fp32 Winograd versions (library layer), kept selectable so
 * that docs/perf-log.md can be re-measured: fp32-v7 and fp32-v8 (versions 7, 8), the convolution as Winograd
 * F(2x2, 3x3) in fp32 FFMA for Cin = 8, Cout = 64, any N, H, W and padding. fp32-v9 (fused_fp32_winograd.cu) is
 * fp32-v8 with F(4x4, 3x3); winograd.cuh holds what they share.
 *
 * F(2x2, 3x3) spends 16 FFMAs per 2x2 outputs and input channel, i.e. 4 per output where direct convolution
 * spends 9, plus transforms: 2.25x fewer multiply-adds.
 *
 * fp32-v7, per block tile of 16 x 16 outputs x 64 channels, 512 threads (a persistent grid walks tiles):
 *   A. input transform: thread (ci, w) turns the 4x4 input patch of Winograd tile w (8 x 8 of them) into
 *      V[xi][ci][w] = (B^T d B)[xi], 16 values, in shared memory;
 *   B. per 32-channel chunk, 16 small GEMMs, one per xi: M[xi][co][w] = sum_ci V[xi][ci][w] U[xi][ci][co]
 *      (U = G g G^T, made once per block); warp xi, each thread 8 tiles x 8 channels; the bias enters through
 *      M's element (1, 1), which the output transform spreads to all 4 outputs;
 *   C. output transform Y = A^T M A per (tile, channel), GELU, masked sum, 16-lane reduction; per-channel sums
 *      accumulate in double per image and are published once per image a block touches.
 * fp32-v8 keeps stage B's result in registers: a thread owns one Winograd tile and 8 output channels,
 * accumulates all 16 xi of them (128 registers) from V (shared memory, conflict-free 16-byte rows) and U
 * (warp-wide broadcast loads), and runs the output transform and the GELU on them directly: no M in shared
 * memory, two barriers per tile instead of six, 256 threads (two passes of 8 channels each).
 */
#include "gelu.cuh"
#include "kernel_api.h"
#include "kernel_desc.cuh"
#include "reduction.cuh"
#include "tile_loader.cuh"
#include "winograd.cuh"
#include "winograd_f2x2.cuh"

namespace {

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

/* V = B^T d B of the 4x4 input patch of Winograd tile w, input channel ci, in a staged window */
__device__ __forceinline__ void patch_transform(const float *window, int ci, int w, float v[4][4])
{
    const float *src = window + (ci * kInRows + 2 * (w / kWt)) * kInPitch + 2 * (w % kWt);
    float d[4][4];
    load_patch(src, kInPitch, d);
    WinogradF2x2::input_tile_transform(d, v);
}

__global__ void __launch_bounds__(kThreads, 1)
fused_fp32_winograd(const float *__restrict__ x, const float *__restrict__ weight, const float *__restrict__ bias,
                    cgp_problem p, PersistentSchedule g, ReduceArgs red, unsigned *path_record)
{
    record_path(path_record, CGP_PATH_WINOGRAD_F2X2);
    extern __shared__ __align__(16) float smem[]; /* input window x2 | U | V | M | bias */
    float *u_s = smem + 2 * kInFloats;
    float *v_s = u_s + kUFloats;
    float *m_s = v_s + kVFloats;
    float *bias_s = m_s + kMFloats;
    __shared__ double image_sums[kCout];

    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int64_t tile_begin = persistent_tile_begin(g);
    const int64_t tile_end = persistent_tile_end(g);

    stage_filters<kThreads, WinogradF2x2>(weight, bias, u_s, bias_s);
    prefetch_window<kThreads, kTile, kTile, kInRows, kInPitch>(smem, x, p, g, tile_begin, tile_end);

    /* stage B mapping: warp = xi, 8 tiles (tg) x 8 chunk channels (cg) per thread */
    const int xi = warp, tg = lane % 8, cg = lane / 8;
    /* stage C mapping: channel (chunk-local) t / 16, tiles 4 * (t % 16) .. +3 */
    const int c_co = t / 16, c_tq = t % 16;
    double image_sum0 = 0.0, image_sum1 = 0.0; /* lanes 0 and 16: channels c_co and 32 + c_co */

    for (int64_t tile = tile_begin; tile < tile_end; ++tile) {
        const auto [n, oy0, ox0, window] =
            begin_tile<kThreads, kTile, kTile, kInRows, kInPitch>(smem, x, p, g, tile, tile_begin, tile_end);

        { /* A: input transform of (ci, w) = (t / 64, t % 64) */
            const int ci = t / kTiles, w = t % kTiles;
            float v[4][4];
            patch_transform(window, ci, w, v);
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
                    const float b0 = xi == WinogradF2x2::kBiasElement ? bias_s[chunk * kChunk + cg * 8 + j] : 0.0f;
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
                    const float4 u0 = *reinterpret_cast<const float4 *>(up);
                    const float4 u1 = *reinterpret_cast<const float4 *>(up + 4);
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
                    *reinterpret_cast<float4 *>(mp + kTiles / 2) =
                        make_float4(acc[j][4], acc[j][5], acc[j][6], acc[j][7]);
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
                    WinogradF2x2::output_tile_transform(m[i], y);
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


__global__ void __launch_bounds__(kRegThreads, 1)
fused_fp32_winograd_reg(const float *__restrict__ x, const float *__restrict__ weight, const float *__restrict__ bias,
                        cgp_problem p, PersistentSchedule g, ReduceArgs red, unsigned *path_record)
{
    record_path(path_record, CGP_PATH_WINOGRAD_F2X2);
    extern __shared__ __align__(16) float smem[]; /* input window x2 | U | V | bias | double sums */
    const auto [u_s, v_s, bias_s, dsum] = winograd_smem<kInFloats, kUFloats, kRegVFloats>(smem);
    __shared__ double image_sums[kCout];

    const int t = threadIdx.x;
    const auto [tile_begin, tile_end] =
        start_block<kRegThreads, WinogradF2x2, kRegSums, kTile, kTile, kInRows, kInPitch>(x, weight, bias, p, g, smem,
                                                                                          u_s, bias_s, dsum);

    /* this thread: Winograd tile w; slice s = t / 64: input channels s and s + 4 in stage A, channel
     * groups s and s + 4 (8 channels each) in stages B and C */
    const int w = t % kTiles, slice = t / kTiles, wy = w / kWt, wx = w % kWt;
    float sum[kRegPasses][kRegChannels] = {}; /* masked GELU sums since the last flush */
    int since_flush = 0;

    for (int64_t tile = tile_begin; tile < tile_end; ++tile) {
        const auto [n, oy0, ox0, window] =
            begin_tile<kRegThreads, kTile, kTile, kInRows, kInPitch>(smem, x, p, g, tile, tile_begin, tile_end);

#pragma unroll
        for (int half = 0; half < 2; ++half) { /* A: input transform of (ci, w), ci = slice + 4 half */
            const int ci = slice + kRegSlices * half;
            float v[4][4];
            patch_transform(window, ci, w, v);
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
            float acc[16][kRegChannels]; /* [xi][channel]; the bias enters through kBiasElement */
#pragma unroll
            for (int xi = 0; xi < 16; ++xi)
#pragma unroll
                for (int j = 0; j < kRegChannels; ++j)
                    acc[xi][j] = xi == WinogradF2x2::kBiasElement ? bias_s[co0 + j] : 0.0f;
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
                WinogradF2x2::output_tile_transform(m, y);
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
            publish_image<kRegThreads, kRegSums, kTiles>(dsum, image_sums, red, n, g, [](int c) {
                const int group = c / kRegChannels;
                return ((group / kRegSlices) * kRegChannels + c % kRegChannels) * kRegThreads +
                       (group % kRegSlices) * kTiles;
            });
        }
    }
    cp_async_wait<0>();
}

/* the hooks of fp32-v7 and fp32-v8 */
struct WinogradF2x2SmemKernel {
    static constexpr int kThreads = ::kThreads, kTileH = kTile, kTileW = kTile;
    static constexpr size_t kSmemBytes = ::kSmemBytes;
    static constexpr auto kPaths = path_run<1>(CGP_PATH_WINOGRAD_F2X2);
    static WinogradLaunch launch_for(const cgp_problem *)
    {
        return {fused_fp32_winograd, kSmemBytes, CGP_PATH_WINOGRAD_F2X2};
    }
};

struct WinogradF2x2RegisterKernel {
    static constexpr int kThreads = kRegThreads, kTileH = kTile, kTileW = kTile;
    static constexpr size_t kSmemBytes = kRegSmemBytes;
    static constexpr auto kPaths = path_run<1>(CGP_PATH_WINOGRAD_F2X2);
    static WinogradLaunch launch_for(const cgp_problem *)
    {
        return {fused_fp32_winograd_reg, kSmemBytes, CGP_PATH_WINOGRAD_F2X2};
    }
};

} // namespace

/* what both are: Winograd F(2x2) on 16x16 x 64 tiles, the filters transformed once a block, persistent */
constexpr Kind kF2x2Kind = Kind(CGP_PIPE_FFMA, CGP_ALGORITHM_WINOGRAD_F2X2)
                               .tile(kTile, kTile, kCout)
                               .weights(CGP_WEIGHTS_RESIDENT)
                               .persistent()
                               .history();

CGP_DEFINE_KERNEL_DESC(cgp_kernel_fp32_v7, WinogradVersion<WinogradF2x2SmemKernel>, 7, "fp32-v7",
                       "Winograd F(2x2,3x3) in fp32 FFMA: input transform, 16 GEMMs per tile, output transform + "
                       "GELU; 16x16 tiles",
                       kF2x2Kind.warps(kThreads / 32))

CGP_DEFINE_KERNEL_DESC(cgp_kernel_fp32_v8, WinogradVersion<WinogradF2x2RegisterKernel>, 8, "fp32-v8",
                       "v7 with the 16 GEMMs and the output transform in registers: one Winograd tile x 8 channels "
                       "per thread, no M in shared memory, 2 barriers per tile, 256 threads",
                       kF2x2Kind.warps(kRegThreads / 32))
