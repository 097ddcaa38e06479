/*
 * fused_fp32_winograd.cu - the preferred fp32 fused kernel (library layer): fp32-v9 (version 9), the convolution
 * as Winograd F(4x4, 3x3) in fp32 FFMA, for Cin = 8, Cout = 64, any N, H, W and padding.
 * Run it: build/cgp bench --baselines none --kernel 9
 *
 * Direct convolution spends 9 FFMAs per (output, input channel). F(4x4, 3x3) turns a 6x6 input patch into
 * V = B^T d B and each filter into U = G g G^T (6x6 each), multiplies them element by element and sums over the
 * input channels, M = sum_ci V U, and gets 4x4 outputs as Y = A^T M A: 36 products per 4x4 outputs, 18 FFMA
 * per output over the 8 input channels, plus the transforms. Arithmetic stays strict fp32 (no tensor cores, no
 * reduced precision); the transforms round more (per-output error ~8e-7 of the output's rms, against ~1.5e-7
 * for direct fp32), which averaged over a mean of thousands of outputs is rel. L2 ~3e-8 (docs/perf-log.md
 * entry 38), checked against fp64 like every version.
 *
 * A block of 256 threads walks block tiles of 16 x 32 outputs x 64 channels on the persistent schedule
 * (tile_loader.cuh), one block per SM; U (made once per block, in double and rounded once) and the bias sit in
 * shared memory. Per tile:
 *   A. the tile's input window (8 channels x 18 x 34, double buffered: cp.async brings the next tile's while this
 *      one is computed; for padding same with W % 4 = 0 from 4 columns left of the tile, the shifted window, so
 *      that the copies are 16 bytes) into V: thread (ci = warp, w = lane) transforms the 6x6 patch of Winograd
 *      tile w (4 x 8 of them) into V[ci][w][36] in shared memory (conflict-free 16-byte rows);
 *   B. a thread owns Winograd tile w and, in two passes, 4 output channels of its warp's 8: it accumulates all 36
 *      elements of M for them (144 registers) from V and from U (warp-wide broadcast loads), the bias entering
 *      through M's element (1, 1);
 *   C. on those registers, the output transform Y = A^T M A, the GELU (gelu_fast) of the 16 outputs, masked by
 *      0/1 outside the output, added into one double per (thread, channel) in shared memory.
 * Two barriers per tile. After its last tile of an image, the block adds each channel's 32 doubles in a fixed
 * order and publishes them (reduction.cuh): det and atomic, deterministic.
 * fp32-v7, Winograd F(2x2, 3x3) with the GEMMs in shared memory, is in history/fused_fp32_winograd_f2x2.cu;
 * winograd.cuh holds what v7 and v9 share.
 */
#include "gelu.cuh"
#include "kernel_api.h"
#include "kernel_desc.cuh"
#include "reduction.cuh"
#include "path_names.cuh"
#include "tile_loader.cuh"
#include "winograd.cuh"
#include "winograd_f4x4.cuh"

namespace {

constexpr int kTileH = 16, kTileW = 32;               /* outputs per block tile */
constexpr int kTilesX = kTileW / 4;                    /* Winograd tiles per block-tile row */
constexpr int kWinogradTiles = (kTileH / 4) * kTilesX; /* 32: one per lane */
constexpr int kThreads = 256;
constexpr int kSlices = kThreads / kWinogradTiles;     /* 8: warp s owns channels 8 s .. 8 s + 7 */
constexpr int kChannels = 4;                           /* output channels per thread pass */
constexpr int kPasses = kCout / (kSlices * kChannels); /* 2 */
constexpr int kSums = kPasses * kChannels;             /* double sums per thread: channel 8 s + k */
constexpr int kInRows = kTileH + 2;
/* The input window staged from kLead columns left of its first one: 0, or 3 for padding same with W % 4 = 0 (the
 * shifted window: its 16-byte copies start at input column ox0 - 4, a multiple of 4, where ox0 - 1 allows only
 * 4-byte copies). Rows of kInPitch columns: 34 + kLead used, a multiple of 4 (rows stay 16-byte aligned); 44 rather
 * than 40 shifted, so that a warp's 4 rows of tiles fall on 2 bank sets, not 1, as with 36. */
constexpr int kShiftedLead = 3;
template <int kLead> constexpr int kInPitch = kLead == 0 ? 36 : 44;
template <int kLead> constexpr int kInFloats = kCin * kInRows * kInPitch<kLead>;
constexpr int kUFloats = 36 * kCin * kCout;            /* U[xi][ci][co] */
constexpr int kVPitch = 36; /* V[ci][w][36 xi]: 36 = 4 mod 32, so a quarter-warp's 16-byte loads hit distinct banks */
constexpr int kVFloats = kCin * kWinogradTiles * kVPitch;
template <int kLead>
constexpr size_t kSmemBytes = (size_t)(2 * kInFloats<kLead> + kUFloats + kVFloats + kCout) * sizeof(float) +
                              sizeof(double) * kSums * kThreads;
static_assert(kThreads == kCin * kWinogradTiles, "stage A: one (input channel, Winograd tile) pair per thread");
static_assert(kPasses == 2 && kSlices * kChannels * kPasses == kCout, "two passes of 4 channels per thread");

/* V = B^T d B of the 6x6 input patch of Winograd tile w (4 x 8 of them), input channel ci, stored as
 * v_s[ci][w][36]; window: the window's first column, kLead columns into its buffer */
template <int kLead>
__device__ __forceinline__ void input_patch_transform(const float *window, float *v_s, int ci, int w)
{
    constexpr int kPitch = kInPitch<kLead>;
    static_assert(kLead == 0 || kLead == 3, "a patch row: 16 + 8 bytes, or (shifted) 4 + 16 + 4, each aligned");
    const float *src = window + (ci * kInRows + 4 * (w / kTilesX)) * kPitch + 4 * (w % kTilesX);
    float d[6][6];
#pragma unroll
    for (int r = 0; r < 6; ++r) {
        const float *row = src + r * kPitch;
        if constexpr (kLead == 0) {
            const float4 a = *reinterpret_cast<const float4 *>(row);
            const float2 b = *reinterpret_cast<const float2 *>(row + 4);
            d[r][0] = a.x; d[r][1] = a.y; d[r][2] = a.z; d[r][3] = a.w; d[r][4] = b.x; d[r][5] = b.y;
        } else {
            const float4 a = *reinterpret_cast<const float4 *>(row + 1);
            d[r][0] = row[0]; d[r][1] = a.x; d[r][2] = a.y; d[r][3] = a.z; d[r][4] = a.w; d[r][5] = row[5];
        }
    }
    float v[6][6];
    WinogradF4x4::input_tile_transform(d, v);
    float4 *dst = reinterpret_cast<float4 *>(v_s + (ci * kWinogradTiles + w) * kVPitch);
#pragma unroll
    for (int q = 0; q < 9; ++q)
        dst[q] = make_float4(v[4 * q / 6][4 * q % 6], v[(4 * q + 1) / 6][(4 * q + 1) % 6],
                             v[(4 * q + 2) / 6][(4 * q + 2) % 6], v[(4 * q + 3) / 6][(4 * q + 3) % 6]);
}

/* acc[xi][j] += V[ci][w][xi] U[xi][ci][co0 + j], or (kFirst) acc = V U plus the bias at kBiasElement */
template <bool kFirst>
__device__ __forceinline__ void accumulate_input_channel(float (&acc)[36][kChannels], const float *v_s,
                                                         const float *u_s, const float *bias_s, int ci, int w,
                                                         int co0)
{
    const float4 *vp = reinterpret_cast<const float4 *>(v_s + (ci * kWinogradTiles + w) * kVPitch);
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
        for (int j = 0; j < kChannels; ++j)
            acc[xi][j] = !kFirst                            ? fmaf(v[xi], u[j], acc[xi][j])
                         : xi == WinogradF4x4::kBiasElement ? fmaf(v[xi], u[j], bias_s[co0 + j])
                                                            : v[xi] * u[j];
    }
}

/* kLead: the window staged from kLead columns left of its first one (0, or kShiftedLead) */
template <int kLead>
__global__ void __launch_bounds__(kThreads, 1)
fused_fp32_winograd_f4x4(const float *__restrict__ x, const float *__restrict__ weight,
                         const float *__restrict__ bias, cgp_problem p, PersistentSchedule g, ReduceArgs red,
                         unsigned *path_record)
{
    record_path(path_record, kLead == 0 ? CGP_PATH_WINOGRAD_F4X4 : CGP_PATH_WINOGRAD_F4X4_SHIFTED);
    constexpr int kPitch = kInPitch<kLead>;
    extern __shared__ __align__(16) float smem[]; /* input window x2 | U | V | bias | double sums */
    const auto [u_s, v_s, bias_s, dsum] = winograd_smem<kInFloats<kLead>, kUFloats, kVFloats>(smem);
    __shared__ double image_sums[kCout];

    const int t = threadIdx.x;
    const auto [tile_begin, tile_end] =
        start_block<kThreads, WinogradF4x4, kSums, kTileH, kTileW, kInRows, kPitch, kLead>(x, weight, bias, p, g,
                                                                                           smem, u_s, bias_s, dsum);

    /* this thread: Winograd tile w (the lane); slice s (the warp): input channel s in stage A, output
     * channels 8 s + 4 pass + j in stages B and C */
    const int w = t % kWinogradTiles, slice = t / kWinogradTiles;

    for (int64_t tile = tile_begin; tile < tile_end; ++tile) {
        const auto [n, oy0, ox0, window] =
            begin_tile<kThreads, kTileH, kTileW, kInRows, kPitch, kLead>(smem, x, p, g, tile, tile_begin, tile_end);
        input_patch_transform<kLead>(window, v_s, slice, w); /* A */
        __syncthreads();

        /* 0/1 masks of the tile's rows and columns (outputs past the output count nothing) */
        const int64_t oy = oy0 + 4 * (w / kTilesX), ox = ox0 + 4 * (w % kTilesX);
        float row_mask[4], col_mask[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            row_mask[k] = oy + k < p.hout ? 1.0f : 0.0f;
            col_mask[k] = ox + k < p.wout ? 1.0f : 0.0f;
        }

#pragma unroll 1
        for (int pass = 0; pass < kPasses; ++pass) { /* B and C for channels co0 .. co0 + 3 */
            const int co0 = slice * (kPasses * kChannels) + pass * kChannels;
            float acc[36][kChannels]; /* [xi][channel]; the bias enters through kBiasElement */
            accumulate_input_channel<true>(acc, v_s, u_s, bias_s, 0, w, co0); /* starts the sums: no zeroing */
#pragma unroll
            for (int ci = 1; ci < kCin; ++ci)
                accumulate_input_channel<false>(acc, v_s, u_s, bias_s, ci, w, co0);
#pragma unroll
            for (int j = 0; j < kChannels; ++j) {
                float m[36], y[4][4];
#pragma unroll
                for (int xi = 0; xi < 36; ++xi)
                    m[xi] = acc[xi][j];
                WinogradF4x4::output_tile_transform(m, y);
                float tile_sum = 0.0f;
#pragma unroll
                for (int r = 0; r < 4; ++r) {
                    float row_sum = gelu_fast(y[r][0]) * col_mask[0];
#pragma unroll
                    for (int c = 1; c < 4; ++c)
                        row_sum = fmaf(gelu_fast(y[r][c]), col_mask[c], row_sum);
                    tile_sum = fmaf(row_sum, row_mask[r], tile_sum);
                }
                dsum[(pass * kChannels + j) * kThreads + t] += (double)tile_sum; /* no float sums kept in registers */
            }
        }

        const int64_t next_n = tile + 1 < tile_end ? (tile + 1) / g.tiles_per_image : -1;
        if (next_n != n) { /* last tile of image n in this block: publish its 64 channel sums */
            /* channel c = 8 s + k: slot k of the 32 threads of warp s */
            publish_image<kThreads, kSums, kWinogradTiles>(dsum, image_sums, red, n, g, [](int c) {
                return (c % kSums) * kThreads + (c / kSums) * kWinogradTiles;
            });
        }
    }
    cp_async_wait<0>();
}


/* fp32-v9's hooks */
struct WinogradF4x4Kernel {
    static constexpr int kThreads = ::kThreads, kTileH = ::kTileH, kTileW = ::kTileW;
    static constexpr size_t kSmemBytes = ::kSmemBytes<kShiftedLead>; /* the larger */
    static constexpr auto kPaths = path_run<1>(CGP_PATH_WINOGRAD_F4X4) + path_run<1>(CGP_PATH_WINOGRAD_F4X4_SHIFTED);
    /* the shifted window where its copies are 16 bytes (padding same, W % 4 = 0), else the window as it is */
    static WinogradLaunch launch_for(const cgp_problem *p)
    {
        if (p->pad == 1 && p->w % 4 == 0)
            return {fused_fp32_winograd_f4x4<kShiftedLead>, ::kSmemBytes<kShiftedLead>, CGP_PATH_WINOGRAD_F4X4_SHIFTED};
        return {fused_fp32_winograd_f4x4<0>, ::kSmemBytes<0>, CGP_PATH_WINOGRAD_F4X4};
    }
};

} // namespace

/* Its paths' names (path_names.cuh): the window from the tile's column, then shifted 4 columns left */
CGP_DEFINE_PATH_NAMES(cgp_paths_winograd_f4x4, CGP_PATH_WINOGRAD_F4X4, path_name_list("winograd-f4x4"))
CGP_DEFINE_PATH_NAMES(cgp_paths_winograd_f4x4_shifted, CGP_PATH_WINOGRAD_F4X4_SHIFTED,
                      path_name_list("winograd-f4x4, shifted window"))

CGP_DEFINE_KERNEL_DESC(cgp_kernel_fp32_v9, WinogradVersion<WinogradF4x4Kernel>, 9, "fp32-v9",
                       "Winograd F(4x4,3x3) in fp32 FFMA, all after the input transform in registers: one 4x4 "
                       "Winograd tile x 4 channels per thread pass, 16x32 block tiles, 256 threads",
                       winograd_limits<WinogradF4x4Kernel>(Kind(CGP_PIPE_FFMA, CGP_ALGORITHM_WINOGRAD_F4X4))
                           .tile(kTileH, kTileW, kCout)
                           .warps(kThreads / 32)
                           .weights(CGP_WEIGHTS_RESIDENT)
                           .persistent())
