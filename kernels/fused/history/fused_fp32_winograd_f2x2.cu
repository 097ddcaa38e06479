/*
 * history/fused_fp32_winograd_f2x2.cu - fp32-v7 (version 7, library layer), the convolution as Winograd F(2x2, 3x3)
 * in fp32 FFMA for Cin = 8, Cout = 64, any N, H, W and padding: the measured best on a few Cin = 8 shapes, where
 * fp32-v9's F(4x4) tiles fill worse. fp32-v9 (fused_fp32_winograd.cu) is the same design with F(4x4, 3x3) and the
 * GEMMs in registers; winograd.cuh holds what they share.
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
 */
#include "gelu.cuh"
#include "kernel_api.h"
#include "kernel_desc.cuh"
#include "reduction.cuh"
#include "path_names.cuh"
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

/* the hooks of fp32-v7 */
struct WinogradF2x2SmemKernel {
    static constexpr int kThreads = ::kThreads, kTileH = kTile, kTileW = kTile;
    static constexpr size_t kSmemBytes = ::kSmemBytes;
    static constexpr auto kPaths = path_run<1>(CGP_PATH_WINOGRAD_F2X2);
    static WinogradLaunch launch_for(const cgp_problem *)
    {
        return {fused_fp32_winograd, kSmemBytes, CGP_PATH_WINOGRAD_F2X2};
    }
};

} // namespace

/* Its path's name (path_names.cuh) */
CGP_DEFINE_PATH_NAMES(cgp_paths_winograd_f2x2, CGP_PATH_WINOGRAD_F2X2, path_name_list("winograd-f2x2"))

/* what it is: Winograd F(2x2) on 16x16 x 64 tiles, the filters transformed once a block, persistent */
constexpr Kind kF2x2Kind = winograd_limits<WinogradF2x2SmemKernel>(Kind(CGP_PIPE_FFMA, CGP_ALGORITHM_WINOGRAD_F2X2))
                               .tile(kTile, kTile, kCout)
                               .weights(CGP_WEIGHTS_RESIDENT)
                               .persistent()
                               .history();

CGP_DEFINE_KERNEL_DESC(cgp_kernel_fp32_v7, WinogradVersion<WinogradF2x2SmemKernel>, 7, "fp32-v7",
                       "Winograd F(2x2,3x3) in fp32 FFMA: input transform, 16 GEMMs per tile, output transform + "
                       "GELU; 16x16 tiles",
                       kF2x2Kind.warps(kThreads / 32))
