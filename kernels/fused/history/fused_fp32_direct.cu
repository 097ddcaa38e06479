/*
 * history/fused_fp32_direct.cu - the superseded direct-convolution fp32 versions (library layer), kept selectable
 * so that docs/perf-log.md can be re-measured: fp32-v2 .. fp32-v6 (versions 2-6), register-blocked direct
 * convolution in fp32 FFMA for Cin = 8, Cout = 64, any N, H, W and padding. The Winograd versions replaced them
 * (fused_fp32_winograd.cu, history/fused_fp32_winograd_f2x2.cu). v2 uses libdevice erff for the GELU, v3 the
 * project's gelu_fast; otherwise identical, so the pair measures what the GELU costs.
 *
 * Tiling (docs/design.md has the diagram):
 *   - A block of 256 threads = 8 warps computes 32 x 16 output pixels x 64 channels per tile.
 *     Warp w owns channels 8w..8w+7; lane (tx = lane % 4, ty = lane / 4) owns pixels
 *     x = 8tx..8tx+7 of rows 2ty, 2ty+1: 8 channels x 2 rows x 8 pixels = 128 accumulators.
 *   - The 8 x 18 x 34 input halo tile lives in shared memory (rows padded to 36 floats), double
 *     buffered: cp.async fetches the next tile while the block computes this one.
 *   - Weights for all 64 x 8 x 9 taps sit in shared memory as [ci][co][kh][4] so a warp reads
 *     one (co, kh) row of 3 taps with a single broadcast 16-byte load.
 *   - Per input channel a thread loads 4 input rows of 10 values (3 loads each) and 24 weight
 *     vectors, and issues 1152 FFMAs: about 3% of its instructions are loads.
 * Reduction: a persistent grid walks a static, contiguous, balanced range of tiles, so a block
 * sees at most a few images; per tile the warp sums its GELUs per channel (shuffles, fixed
 * order) into a double per channel, and the block publishes once per image it touches:
 * slot = block + image, unique and in a fixed order, so det costs nothing extra.
 */
#include "gelu.cuh"
#include "kernel_api.h"
#include "kernel_desc.cuh"
#include "path_record.cuh"
#include "reduction.cuh"
#include "tile_loader.cuh"

namespace {

constexpr int kCin = 8, kCout = 64;
constexpr int kTileW = 32, kTileH = 16;
/* v2-v5: 256 threads, 8 channels per warp; v6: 512 threads, 4 channels per warp (more warps to
 * hide latency, 64 accumulators per thread so two warps' worth fit each scheduler's registers) */
template <int kVersion> __host__ __device__ constexpr int threads_of() { return kVersion >= 6 ? 512 : 256; }
template <int kVersion> __host__ __device__ constexpr int channels_per_warp_of()
{
    return kCout / (threads_of<kVersion>() / 32);
}
constexpr int kPx = 8, kRows = 2;            /* pixels per thread: 8 along x, 2 rows */
constexpr int kInH = kTileH + 2, kInPitch = 36; /* rows of 34 used floats, 16-byte aligned */
constexpr int kInFloats = kCin * kInH * kInPitch; /* one input buffer */
constexpr int kWFloats = kCin * kCout * 3 * 4;
constexpr size_t kSmemBytes = (2 * kInFloats + kWFloats + kCout) * sizeof(float);
/* v4 also stages each thread's 128 accumulators in shared memory for its rolled epilogue */
constexpr size_t kStageBytes = (size_t)kCout * 32 * kRows * kPx * sizeof(float); /* 64 ch x 32 lanes x 16 px */

/* the input window of a tile: 8 x 18 x 36 (34 columns used) */
template <int kThreads>
__device__ __forceinline__ void load_tile_async(float *buf, const float *__restrict__ x, const cgp_problem &p,
                                                int64_t n, int64_t iy0, int64_t ix0)
{
    load_window_async<kThreads, kCin, kInH, kInPitch, int64_t, 1>(buf, x, p, n, iy0, ix0); /* as winograd.cuh's */
}

/* acc[j][r][px] += sum over (kh, kw) of in[ci][2ty + r + kh][8tx + px + kw] * w[ci][8warp + j][kh][kw] */
template <bool kFirst, int kChanPerWarp>
__device__ __forceinline__ void accumulate_channel(float (&acc)[kChanPerWarp][kRows][kPx], const float *in_c,
                                                   const float *w_c, const float *bias_w)
{
    float row[kRows + 2][kPx + 2];
#pragma unroll
    for (int r = 0; r < kRows + 2; ++r) {
        const float4 a = *reinterpret_cast<const float4 *>(in_c + r * kInPitch);
        const float4 b = *reinterpret_cast<const float4 *>(in_c + r * kInPitch + 4);
        const float2 c = *reinterpret_cast<const float2 *>(in_c + r * kInPitch + 8);
        row[r][0] = a.x; row[r][1] = a.y; row[r][2] = a.z; row[r][3] = a.w;
        row[r][4] = b.x; row[r][5] = b.y; row[r][6] = b.z; row[r][7] = b.w;
        row[r][8] = c.x; row[r][9] = c.y;
    }
#pragma unroll
    for (int j = 0; j < kChanPerWarp; ++j) {
        if (kFirst) {
            const float b = bias_w[j];
#pragma unroll
            for (int r = 0; r < kRows; ++r)
#pragma unroll
                for (int px = 0; px < kPx; ++px)
                    acc[j][r][px] = b;
        }
        float wk[3][3];
#pragma unroll
        for (int kh = 0; kh < 3; ++kh) {
            const float4 v = *reinterpret_cast<const float4 *>(w_c + (j * 3 + kh) * 4);
            wk[kh][0] = v.x; wk[kh][1] = v.y; wk[kh][2] = v.z;
        }
#pragma unroll
        for (int r = 0; r < kRows; ++r)
#pragma unroll
            for (int kh = 0; kh < 3; ++kh)
#pragma unroll
                for (int kw = 0; kw < 3; ++kw)
#pragma unroll
                    for (int px = 0; px < kPx; ++px)
                        acc[j][r][px] = fmaf(row[r + kh][px + kw], wk[kh][kw], acc[j][r][px]);
    }
}

template <bool kFastGelu>
__device__ __forceinline__ float gelu_version(float v)
{
    return kFastGelu ? gelu_fast(v) : gelu_erff(v);
}

/* What each version changes (docs/perf-log.md has the measurements):
 *   v2: the register-blocked kernel, libdevice erff GELU, everything unrolled (~120 KB of code per tile)
 *   v3: gelu_fast instead of erff
 *   v4: compact code: the input-channel loop is not peeled and the epilogue is a rolled loop over the
 *       8 channels reading the accumulators back from shared memory (~25 KB executed per tile)
 *   v5: one barrier per tile (the prefetch is issued after it) and an epilogue taking two channels
 *       per iteration, so the shuffle reductions of one channel overlap the GELUs of the other
 *   v6: v5's single barrier with 512 threads: 16 warps of 4 channels (64 accumulators per thread),
 *       four warps per scheduler instead of two */
template <int kVersion>
__global__ void __launch_bounds__(threads_of<kVersion>(), 1)
fused_fp32_direct(const float *__restrict__ x, const float *__restrict__ weight, const float *__restrict__ bias,
                   cgp_problem p, PersistentSchedule g, ReduceArgs red, unsigned *path_record)
{
    record_path(path_record, CGP_PATH_DIRECT);
    constexpr bool kFastGelu = kVersion >= 3, kCompact = kVersion >= 4, kOneBarrier = kVersion >= 5;
    constexpr int kEpiChannels = kVersion == 5 ? 2 : 1; /* channels per epilogue iteration (compact) */
    constexpr int kThreads = threads_of<kVersion>(), kChanPerWarp = channels_per_warp_of<kVersion>();
    extern __shared__ __align__(16) float smem[];
    float *w_s = smem + 2 * kInFloats; /* input buffers: smem[0, kInFloats) and the next kInFloats */
    float *bias_s = w_s + kWFloats;
    float4 *stage = reinterpret_cast<float4 *>(bias_s + kCout) + threadIdx.x; /* v4: this thread's slots */
    __shared__ double image_sums[kCout];

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int tx = lane % 4, ty = lane / 4;
    const int64_t tile_begin = persistent_tile_begin(g);
    const int64_t tile_end = persistent_tile_end(g);

    /* weights as [ci][co][kh][4] (the 4th slot unused), bias beside them */
    for (int i = threadIdx.x; i < kCin * kCout * 9; i += kThreads) {
        const int co = i / (kCin * 9), ci = (i / 9) % kCin, tap = i % 9;
        w_s[((ci * kCout + co) * 3 + tap / 3) * 4 + tap % 3] = weight[i];
    }
    for (int i = threadIdx.x; i < kCout; i += kThreads)
        bias_s[i] = bias[i];

    auto tile_origin = [&](int64_t t, int64_t &n, int64_t &oy0, int64_t &ox0) {
        persistent_tile_origin(g, t, kTileH, kTileW, n, oy0, ox0);
    };

    if (tile_begin < tile_end) {
        int64_t n, oy0, ox0;
        tile_origin(tile_begin, n, oy0, ox0);
        load_tile_async<kThreads>(smem, x, p, n, oy0 - p.pad, ox0 - p.pad);
    }
    cp_async_commit();

    double image_sum = 0.0; /* lanes 0..7: this warp's channel 8*warp + lane, current image */
    for (int64_t t = tile_begin; t < tile_end; ++t) {
        const int buf = (int)((t - tile_begin) & 1);
        int64_t n, oy0, ox0;
        tile_origin(t, n, oy0, ox0);
        if (kOneBarrier) { /* tile t has landed and everyone is done with tile t-1's buffer: refill it */
            cp_async_wait<0>();
            __syncthreads();
        }
        if (t + 1 < tile_end) {
            int64_t n1, oy1, ox1;
            tile_origin(t + 1, n1, oy1, ox1);
            load_tile_async<kThreads>(smem + (buf ^ 1) * kInFloats, x, p, n1, oy1 - p.pad, ox1 - p.pad);
        }
        cp_async_commit();
        if (!kOneBarrier) {
            cp_async_wait<1>();
            __syncthreads();
        }

        float acc[kChanPerWarp][kRows][kPx];
        const float *in_tile = smem + buf * kInFloats + (2 * ty) * kInPitch + 8 * tx;
        const float *w_warp = w_s + (warp * kChanPerWarp) * 12;
        if (kCompact) {
#pragma unroll 1
            for (int ci = 0; ci < kCin; ++ci) {
                if (ci == 0)
                    accumulate_channel<true, kChanPerWarp>(acc, in_tile, w_warp, bias_s + warp * kChanPerWarp);
                else
                    accumulate_channel<false, kChanPerWarp>(acc, in_tile + ci * kInH * kInPitch,
                                                            w_warp + ci * kCout * 12, nullptr);
            }
        } else {
            accumulate_channel<true, kChanPerWarp>(acc, in_tile, w_warp, bias_s + warp * kChanPerWarp);
#pragma unroll 1
            for (int ci = 1; ci < kCin; ++ci)
                accumulate_channel<false, kChanPerWarp>(acc, in_tile + ci * kInH * kInPitch, w_warp + ci * kCout * 12,
                                                        nullptr);
        }

        /* epilogue: GELU, masked per-channel sums, warp reduction in a fixed order */
        const bool full = oy0 + kTileH <= p.hout && ox0 + kTileW <= p.wout;
        float mine = 0.0f; /* lanes 0..7: the tile's sum for channel 8*warp + lane */
        if (kCompact) {
#pragma unroll
            for (int j = 0; j < kChanPerWarp; ++j)
#pragma unroll
                for (int r = 0; r < kRows; ++r)
#pragma unroll
                    for (int q = 0; q < kPx / 4; ++q)
                        stage[((j * kRows + r) * 2 + q) * kThreads] =
                            make_float4(acc[j][r][4 * q], acc[j][r][4 * q + 1], acc[j][r][4 * q + 2],
                                        acc[j][r][4 * q + 3]);
#pragma unroll 1
            for (int j0 = 0; j0 < kChanPerWarp; j0 += kEpiChannels) {
                float v[kEpiChannels][kRows * kPx];
#pragma unroll
                for (int c = 0; c < kEpiChannels; ++c)
#pragma unroll
                    for (int k = 0; k < kRows * 2; ++k) {
                        const float4 f = stage[((j0 + c) * kRows * 2 + k) * kThreads];
                        v[c][4 * k] = f.x; v[c][4 * k + 1] = f.y; v[c][4 * k + 2] = f.z; v[c][4 * k + 3] = f.w;
                    }
                float s[kEpiChannels];
#pragma unroll
                for (int c = 0; c < kEpiChannels; ++c) {
                    s[c] = 0.0f;
                    if (full) {
#pragma unroll
                        for (int e = 0; e < kRows * kPx; ++e)
                            s[c] += gelu_version<kFastGelu>(v[c][e]);
                    } else {
#pragma unroll
                        for (int e = 0; e < kRows * kPx; ++e) {
                            const bool ok = oy0 + 2 * ty + e / kPx < p.hout && ox0 + 8 * tx + e % kPx < p.wout;
                            s[c] += ok ? gelu_version<kFastGelu>(v[c][e]) : 0.0f;
                        }
                    }
                }
#pragma unroll
                for (int offset = 16; offset > 0; offset /= 2)
#pragma unroll
                    for (int c = 0; c < kEpiChannels; ++c)
                        s[c] += __shfl_xor_sync(0xffffffffu, s[c], offset);
#pragma unroll
                for (int c = 0; c < kEpiChannels; ++c)
                    if (lane == j0 + c)
                        mine = s[c];
            }
        } else {
            float channel_sum[kChanPerWarp];
#pragma unroll
            for (int j = 0; j < kChanPerWarp; ++j) {
                float s = 0.0f;
#pragma unroll
                for (int r = 0; r < kRows; ++r)
#pragma unroll
                    for (int px = 0; px < kPx; ++px) {
                        const float gv = gelu_version<kFastGelu>(acc[j][r][px]);
                        const bool ok = full || (oy0 + 2 * ty + r < p.hout && ox0 + 8 * tx + px < p.wout);
                        s += ok ? gv : 0.0f;
                    }
#pragma unroll
                for (int offset = 16; offset > 0; offset /= 2)
                    s += __shfl_xor_sync(0xffffffffu, s, offset);
                channel_sum[j] = s;
            }
#pragma unroll
            for (int j = 0; j < kChanPerWarp; ++j)
                if (lane == j)
                    mine = channel_sum[j];
        }
        image_sum += (double)mine;

        int64_t next_n = -1;
        if (t + 1 < tile_end)
            next_n = (t + 1) / g.tiles_per_image;
        if (next_n != n) { /* last tile of this image in this block: publish */
            if (lane < kChanPerWarp)
                image_sums[warp * kChanPerWarp + lane] = image_sum;
            image_sum = 0.0;
            __syncthreads();
            const ImageSlots slots = persistent_image_slots(g, n);
            publish_image_sums(red, n, 0, kCout, image_sums, slots);
        }
        if (!kOneBarrier)
            __syncthreads(); /* everyone is done with this buffer before it is refilled */
    }
    cp_async_wait<0>();
}

template <int kVersion> constexpr size_t smem_bytes() { return kSmemBytes + (kVersion >= 4 ? kStageBytes : 0); }

/* The hooks of fp32-v<kVersion> (kernel_desc.cuh) */
template <int kVersion> struct DirectVersion : NoStageSplit {
    static constexpr auto kPaths = path_run<1>(CGP_PATH_DIRECT);
    static constexpr cgp_precision precision = CGP_PRECISION_FP32;

    static const char *unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        if (p->cin != kCin || p->cout != kCout)
            return "needs Cin = 8 and Cout = 64";
        if (d->smem_per_block_optin < smem_bytes<kVersion>())
            return kSharedMemoryNeed<smem_bytes<kVersion>()>.text;
        return nullptr;
    }

    static size_t workspace_bytes(const cgp_problem *p, const cgp_device_info *d)
    {
        return persistent_workspace_bytes(p, persistent_schedule(p, d, kTileH, kTileW));
    }

    static const char *path(const cgp_problem *, const cgp_device_info *, int) { return cgp_path_name(CGP_PATH_DIRECT); }

    static cudaError_t launch(const cgp_launch_args *a, const cgp_device_info *d, cudaStream_t s)
    {
        const PersistentSchedule g = persistent_schedule(&a->p, d, kTileH, kTileW);
        constexpr size_t bytes = smem_bytes<kVersion>();
        cudaError_t err = cudaFuncSetAttribute(fused_fp32_direct<kVersion>,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        if (err != cudaSuccess)
            return err;
        /* cudaLaunchKernel reports this launch's status only, not an error the caller left behind */
        const float *x = a->x, *w = a->weight, *b = a->bias;
        cgp_problem p = a->p;
        ReduceArgs red = make_reduce_args(a, a->workspace);
        unsigned *path_record = a->path_record;
        void *args[] = {&x, &w, &b, &p, const_cast<PersistentSchedule *>(&g), &red, &path_record};
        return cudaLaunchKernel((const void *)fused_fp32_direct<kVersion>, dim3(g.blocks),
                                dim3(threads_of<kVersion>()), args, bytes, s);
    }
};

} // namespace

/* what version V is: direct convolution on 16x32 x 64 tiles, the weights staged once a block, persistent (v2..v5
 * differ in the GELU and the code's layout alone: their summaries) */
template <int V>
constexpr Kind kDirectKind = Kind(CGP_PIPE_FFMA, CGP_ALGORITHM_DIRECT)
                                 .tile(kTileH, kTileW, kCout)
                                 .warps(threads_of<V>() / 32)
                                 .weights(CGP_WEIGHTS_RESIDENT)
                                 .persistent()
                                 .history();

CGP_DEFINE_KERNEL_DESC(cgp_kernel_fp32_v2, DirectVersion<2>, 2, "fp32-v2",
                       "register-blocked (8 ch x 2 rows x 8 px per thread), persistent, cp.async double buffer; "
                       "libdevice erff GELU",
                       kDirectKind<2>)

CGP_DEFINE_KERNEL_DESC(cgp_kernel_fp32_v3, DirectVersion<3>, 3, "fp32-v3", "v2 with the project's gelu_fast",
                       kDirectKind<3>)

CGP_DEFINE_KERNEL_DESC(cgp_kernel_fp32_v4, DirectVersion<4>, 4, "fp32-v4",
                       "v3 with compact code: rolled channel loop and an epilogue looping over channels via shared "
                       "memory",
                       kDirectKind<4>)

CGP_DEFINE_KERNEL_DESC(cgp_kernel_fp32_v5, DirectVersion<5>, 5, "fp32-v5",
                       "v4 with one barrier per tile and a two-channel epilogue", kDirectKind<5>)

CGP_DEFINE_KERNEL_DESC(cgp_kernel_fp32_v6, DirectVersion<6>, 6, "fp32-v6",
                       "v5 with 512 threads (16 warps x 4 channels, 64 accumulators each) and a one-channel epilogue",
                       kDirectKind<6>)
