/*
 * fused_implicit_gemm_wgmma.cu - the Hopper tensor-core fused kernels for any channel count (library layer):
 * tf32-v10 (version 20) and 3xtf32-v10 (version 30), the implicit GEMM of implicit_gemm.cuh on wgmma (sm_90a) with
 * both operands from shared memory, so the tensor cores run while the warps prepare the next chunk; tf32-v13 (36) and
 * 3xtf32-v13 (37) are the same with each chunk's input window landed by TMA (template parameter kTma: one box copy
 * issued by thread 0 onto the stage's mbarrier, as tf32-v12 lands its windows; the weights by cp.async as before;
 * W % 4 = 0). The block, the conversion and the wgmmas of a chunk are implicit_gemm_wgmma.cuh's (tf32-v11 shares
 * them).
 *
 *   block         WY x WX warpgroups (2 x 2, 1 x 2 or 1 x 1), a tile of 8 WY x 8 WX output pixels x BN = 64 or 32
 *                 channels; each warpgroup computes one 8 x 8 pixel block as one m64nBN accumulator (D = X W).
 *   K split       where the grid is small, the chunks are shared by a cluster of 2 or 4 blocks, whose partial sums
 *                 are added in rank order through distributed shared memory (implicit_gemm.cuh's
 *                 split_sum_publish); the tile and the split per shape by choose.
 *   landing       the chunks' copies (StageCopies) land in a ring of kLandStages Window stages (4, or 3 where 4 do
 *                 not fit), kLandStages - 1 chunks ahead (by TMA: Landing's stages, TmaWindow's box then the weights).
 *   operands      two operand buffers: chunk c + 1 is converted into one while the wgmmas of chunk c read the
 *                 other. A = the window as [channel half][pixel][4 channels], 16 bytes a pixel: wgmma's no-swizzle
 *                 K-major layout, whose 8-row x 16-byte core matrices are 8 consecutive pixels of a window row
 *                 (SBO = one window row, LBO = one channel half), so the 64 x 8 A of tap (ky, kx) is the window
 *                 moved by (ky, kx): only the descriptor's start address changes. B = per tap [half][BN output
 *                 channels][4 input channels] (SBO 128 bytes, LBO BN x 16 bytes). The conversion rounds only as far
 *                 as the tensor cores read (tf32_round_for_mma; 3xTF32 split_tf32_for_mma into a big and a small
 *                 plane), 4 channels a task, at offsets worked out once (ChunkConversion).
 *   accumulation  a chunk's 9 taps chained into a fresh accumulator (scale-d 0 on the first wgmma), added into the
 *                 running sum with FADD: the tensor cores' truncating accumulation never runs past a chunk
 *                 (fused_implicit_gemm.cu says why); 3xTF32 chains the 18 corrections first, then the 9 big * big.
 *   pipeline      per chunk c: issue its wgmmas, commit; convert chunk c + 1; issue the copies of chunk
 *                 c + kLandStages - 1; wait for the wgmmas, add the chain; wait for chunk c + 2's copies; one
 *                 barrier.
 *   epilogue      implicit_gemm.cuh: bias, GELU, masked sums per channel, the warps in order (or, with K split, the
 *                 cluster's sum first), reduction.cuh.
 * tf32-v10 and 3xtf32-v10 run every shape on an sm_90 GPU with a build for sm_90a (SM=90) and refuse other GPUs and
 * builds with the reason; version 0 then takes tf32-v9 / 3xtf32-v9 (fused_implicit_gemm.cu). tf32-v13 and 3xtf32-v13
 * also refuse W % 4 != 0 (and what else TMA cannot read, tensor_map.cuh) and defer to them on 8x8-pixel tiles.
 */
#include <stdint.h>

#include <type_traits>

#include "implicit_gemm_wgmma.cuh"
#include "kernel_desc.cuh"

namespace {

/* The landing stages of block B: Window stages (the window and the weights by cp.async, tf32-v10), or, by TMA
 * (tf32-v13), TmaWindow's box then the weights, 128-byte aligned; as many as fit beside the operand buffers, up to 4 */
template <class B, bool kTma> struct Landing {
    using Land = typename B::Land;
    using Src = std::conditional_t<kTma, TmaWindow<B>, Land>;
    static constexpr int kStageFloats = kTma ? Src::kInFloats + Land::kWFloats : B::kLandFloats;
    static constexpr size_t kAlignBytes = kTma ? 128 : 0;
    static constexpr int kFit = (int)(((kSmemBudget - kAlignBytes) / sizeof(float) -
                                       (size_t)B::kBuffers * B::kOpFloats) / kStageFloats);
    static constexpr int kStages = kTma ? (kFit < 4 ? kFit : 4) : B::kLandStages;
    static constexpr size_t kSmemBytes =
        kTma ? kAlignBytes + sizeof(float) * ((size_t)kStages * kStageFloats + (size_t)B::kBuffers * B::kOpFloats)
             : B::kSmemBytes;
    static_assert(kStages >= 3, "a landing ring of 3 stages at least");
    static_assert(kStageFloats % 32 == 0, "TMA's boxes 128 bytes apart");
    static_assert(B::kTh * B::kTw * B::kBn <= kStages * kStageFloats, "a K split's partials fit in the landing ring");
};

template <int P, class B, bool kWhole, bool kTma>
__global__ void __launch_bounds__(B::kThreads, 1)
    implicit_gemm_wgmma_conv_gelu_mean(const IgemmParams p, const __grid_constant__ CUtensorMap map)
{
    const int split = (int)gridDim.z, rank = (int)blockIdx.z; /* a cluster of `split` blocks shares the chunks */
    record_path(p.path_record, (split == 1 ? (kTma ? B::kTmaPath : B::kPath)
                                           : (kTma ? B::kTmaSplitPath : B::kSplitPath) + (split == 2 ? 0u : 6u)));
    using Land = typename B::Land;
    using L = Landing<B, kTma>;
    using Src = typename L::Src;
    constexpr int kTw = B::kTw, kWarps = B::kWarps, kLandFloats = L::kStageFloats, kBn = B::kBn;
    __shared__ float warp_sums[kWarps * kBn];
    __shared__ double block_sums[kBn];
    __shared__ uint64_t landed[kTma ? L::kStages : 1]; /* TMA: stage s's window landed (a phase a chunk) */
    float *smem = reinterpret_cast<float *>(dynamic_smem());
    if constexpr (kTma)
        smem += (L::kAlignBytes - shared_address(smem) % L::kAlignBytes) % L::kAlignBytes / sizeof(float);
    constexpr int kStages = L::kStages, kBuffers = B::kBuffers, kOpFloats = B::kOpFloats;
    constexpr uint32_t kLandBytes = 4u * kLandFloats, kOpBytes = 4u * kOpFloats;
    float *land = smem, *ops = smem + kStages * kLandFloats;
    const uint32_t land_base = shared_address(land), ops_base = shared_address(ops);

    const BlockPlace at = block_place<Land>(p);
    const int64_t n = at.n, tile = at.tile, oy0 = at.oy0, ox0 = at.ox0, c0 = at.c0;
    const int warp = threadIdx.x / 32, wg = warp / 4;

    const int per_rank = (p.chunks + split - 1) / split;
    const int first = rank * per_rank, count = max(0, min(p.chunks - first, per_rank)); /* this block's chunks */
    /* issues chunks first, first + 1, ...: by TMA, the window (thread 0) and the weights (every thread's cp.async) */
    StageCopies<Land, kWhole, kTma ? kCopyWeights : kCopyInput | kCopyWeights, Src::kInFloats> copies;
    copies.init(p, p.x + (n * p.cin + (int64_t)first * kChunk) * p.h * p.wd, oy0, ox0, c0);
    auto issue_copies = [&](int j) { /* the block's chunk j into stage j % kStages */
        const uint32_t stage = land_base + j % kStages * kLandBytes;
        if constexpr (kTma) {
            if (threadIdx.x == 0) {
                const uint32_t bar = shared_address(&landed[j % kStages]);
                mbarrier_arrive_expect(bar, 4u * Src::kBoxFloats);
                tma_load_4d(stage, &map, Src::box_x((int)ox0, p.pad), (int)oy0 - p.pad, (first + j) * kChunk, (int)n,
                            bar);
            }
        }
        copies.issue(p, c0, first + j, stage);
    };
    auto wait_landed = [&](int j) { /* TMA: the block's chunk j's window, phase j / kStages of its stage */
        if constexpr (kTma)
            mbarrier_wait(shared_address(&landed[j % kStages]), (uint32_t)(j / kStages) & 1u);
    };
    ChunkConversion<P, B, Src> conversion;
    if constexpr (kTma) {
        conversion.init(Src::lead(p.pad));
        if (threadIdx.x == 0)
#pragma unroll
            for (int s = 0; s < kStages; ++s)
                mbarrier_init(shared_address(&landed[s]));
        __syncthreads(); /* the mbarriers, before any thread waits on them */
    } else {
        conversion.init();
    }
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
        if (s < count)
            issue_copies(s);
        cp_async_commit();
    }
    cp_async_wait<kStages - 2>();
    __syncthreads(); /* chunk 0 landed */
    if (count > 0) {
        wait_landed(0);
        conversion.convert(land, ops);
        fence_proxy_async();
    }
    cp_async_wait<kStages - 3>();
    __syncthreads(); /* operand buffer 0 ready; chunk 1 landed */

    float acc[kBn / 2], part[kBn / 2];
    zero_fill(acc);
    for (int k = 0; k < count; ++k) {
        wgmma_fence();
        const uint32_t op = ops_base + k % kBuffers * kOpBytes;
        issue_chunk<P, B>(op, op + 4u * B::kPlanes * B::kAFloats, wg, part);
        wgmma_commit();
        if (k + 1 < count) { /* while the tensor cores run */
            wait_landed(k + 1);
            conversion.convert(land + (k + 1) % kStages * kLandFloats, ops + (k + 1) % kBuffers * kOpFloats);
            fence_proxy_async();
        }
        const int next = k + kStages - 1;
        if (next < count)
            issue_copies(next);
        cp_async_commit();
        wgmma_wait<0>();
        add_chain(acc, part);
        cp_async_wait<kStages - 3>();
        __syncthreads(); /* the next operand buffer is ready and the one just read is free; k + 2 landed */
    }

    const int lane = threadIdx.x % 32, group = lane / 4, tig = lane % 4;
    if (split > 1) { /* the partials to the landing ring, [pixel][channel], for split_sum_publish */
        cp_async_wait_all();
        __syncthreads(); /* no copy lands in the ring any more, no warp reads it */
#pragma unroll
        for (int j = 0; j < kBn / 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h)
                *reinterpret_cast<float2 *>(&land[tile_pixel<B>(wg, 16 * (warp % 4) + group + 8 * h) * kBn + 8 * j +
                                                  2 * tig]) = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
        split_sum_publish<Land>(p, land, oy0, ox0, c0, split, rank, warp_sums, block_sums, n,
                                tile_slots(p, n, tile, split), [](float v) {
                                    return 0.5f * (P == kTf32x3 ? gelu_x2_fine(v) : gelu_x2(v));
                                });
        return;
    }
    float sum[kBn / 8][2];
    lane_gelu_sums<P, kTw>(
        p, reinterpret_cast<const float(&)[1][kBn / 8][4]>(acc),
        [&](int, int h) { return tile_pixel<B>(wg, 16 * (warp % 4) + group + 8 * h); }, /* m64 row */
        oy0, ox0, c0, sum);
    publish_block_sums<kBn, kWarps>(p, sum, warp, 0, n, tile, c0, warp_sums, block_sums);
}


/* The K splits a cluster can take (blocks sharing a tile's chunks) */
constexpr int kSplits[] = {1, 2, 4};

/* A block's shared memory, tile i of kTileShapes: the landing ring and operand buffers, and the kernel's static
 * arrays (warp sums, block sums, mbarriers and publish_image_sums' flag) */
template <int P, bool kTma, int I> constexpr size_t tile_smem_bytes()
{
    using B = TileBlocks<P, I>;
    return Landing<B, kTma>::kSmemBytes + sizeof(float) * B::kWarps * B::kBn + sizeof(double) * B::kBn + 64;
}
template <int P, bool kTma, class Indices = TileIndices> struct TileSmem;
template <int P, bool kTma, size_t... I> struct TileSmem<P, kTma, std::index_sequence<I...>> {
    static constexpr size_t bytes[] = {tile_smem_bytes<P, kTma, I>()...};
};

/* Of the pixel tiles (64-channel ones only where Cout needs more than 32) and the K splits, the one that should
 * finish first. Blocks run in waves of SMs x the blocks an SM holds (by shared memory, 1 KB reserved a block, and by
 * the registers __launch_bounds__(threads, 1) lets a thread take: two blocks of 4 warps, one of more); a wave takes
 * the resident blocks' work over the SM's rate. A block's work a chunk: its products (pixels x channels) and its
 * input window's conversion (window pixels x 64). Rates relative to a block of 4 warpgroups, measured on the H200
 * (tf32-v10 on the zoo: the 4-warpgroup block ran 28x28 and 32x32 at 100 TFLOP/s, the 2-warpgroup one 56x56 at
 * 72; single-warpgroup blocks taken at half); blocks resident together add their rates (their barriers are their
 * own), up to 1: tf32-v10 on 8 x 512->512 x 7x7 ran 256 blocks of 8x8 x 32 channels, two an SM, in 0.046 ms and
 * 128 of 8x8 x 64, one an SM, in 0.061 (docs/perf-log.md, "Blocks an SM holds"). A block's chunks are its share
 * plus 2 for a split's exchange of partials; K is split only with at least 2 chunks a block. */
template <int P, bool kTma> TileSplit choose(const cgp_problem *p, const cgp_device_info *d)
{
    const int64_t sms = d->sm_count > 0 ? d->sm_count : 1, chunks = ceil_div(p->cin, kChunk);
    return least_cost(0, kTileCount, kSplits, [&](int i, int split) {
        const TileShape &t = kTileShapes[i];
        if ((t.bn == 64 && p->cout <= 32) || (split > 1 && chunks < 2 * split))
            return -1.0;
        const int warpgroups = t.wy * t.wx, threads = 128 * warpgroups;
        const double rate = warpgroups == 4 ? 1.0 : warpgroups == 2 ? 0.72 : 0.5;
        const int64_t by_smem = blocks_by_shared_memory(d, TileSmem<P, kTma>::bytes[i]);
        const int64_t by_registers = 65536 / (threads * (65536 / threads < 255 ? 65536 / threads : 255));
        const Residency r = residency(p->n * ceil_div(p->hout, 8 * t.wy) * ceil_div(p->wout, 8 * t.wx) *
                                          ceil_div(p->cout, t.bn) * split,
                                      sms, by_smem < by_registers ? by_smem : by_registers);
        const double sm_rate = r.resident * rate < 1.0 ? r.resident * rate : 1.0;
        const double work = 64.0 * warpgroups * t.bn + 64.0 * (8 * t.wy + 2) * (8 * t.wx + 2);
        const double block_chunks = (double)ceil_div(chunks, split) + (split > 1 ? 2.0 : 0.0);
        return (double)r.waves * (double)r.resident * work / sm_rate * block_chunks;
    });
}

ImplicitGemmGeometry geometry(const cgp_problem *p, TileSplit c)
{
    const TileShape t = kTileShapes[c.tile];
    return implicit_gemm_geometry(p, 8 * t.wy, 8 * t.wx, t.bn);
}

template <int P, class B, bool kTma>
cudaError_t launch_blocks(const cgp_launch_args *a, TileSplit choice, cudaStream_t stream)
{
    const ImplicitGemmGeometry g = geometry(&a->p, choice);
    IgemmParams p = implicit_gemm_params(a, g);
    CUtensorMap map;
    if (!tma_window_map<B, kTma>(&map, a))
        return cudaErrorInvalidValue;
    const void *kernel = implicit_gemm_whole_chunks(a)
                             ? reinterpret_cast<const void *>(&implicit_gemm_wgmma_conv_gelu_mean<P, B, true, kTma>)
                             : reinterpret_cast<const void *>(&implicit_gemm_wgmma_conv_gelu_mean<P, B, false, kTma>);
    return launch_implicit_gemm(kernel, p, g, a->p.n, choice.split, B::kThreads, Landing<B, kTma>::kSmemBytes, stream,
                                &map);
}

template <int P, bool kTma, size_t... I> constexpr size_t max_smem_bytes(std::index_sequence<I...>)
{
    return largest({Landing<TileBlocks<P, I>, kTma>::kSmemBytes...});
}

/* The hooks (kernel_desc.cuh) of tf32-v10 and 3xtf32-v10 (windows by cp.async) and of tf32-v13 and 3xtf32-v13 (by
 * TMA) */
template <int P, bool kTma> struct ImplicitGemmWgmmaVersion : NoStageSplit {
    static constexpr cgp_precision precision = (cgp_precision)P;

    static const char *unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        constexpr size_t kSmem = max_smem_bytes<P, kTma>(TileIndices());
        if (const char *why = wgmma_gpu_unsupported(d))
            return why;
        if (kSmem > d->smem_per_block_optin)
            return kSharedMemoryNeed<kSmem>.text;
        if (kTma) {
            const char *why = input_tensor_map_unsupported(p);
            if (why != NULL)
                return why;
        }
        const TileSplit c = choose<P, kTma>(p, d);
        return implicit_gemm_split_grid_unsupported(p, geometry(p, c), c.split);
    }

    /* By TMA: where the tile is 8x8 pixels, whose box reads 16 columns a row for the window's 10, tf32-v10's copies
     * measured faster (docs/perf-log.md, "TMA windows": 8x512x512x8x8) */
    static const char *defers(const cgp_problem *p, const cgp_device_info *d)
    {
        return kTma && kTileShapes[choose<P, kTma>(p, d).tile].wx == 1
                   ? "its tile is 8x8 pixels, whose TMA box reads 16 columns a row for the window's 10 (the "
                     "implicit GEMM with cp.async windows is faster)"
                   : nullptr;
    }

    static size_t workspace_bytes(const cgp_problem *p, const cgp_device_info *d)
    {
        return implicit_gemm_workspace_bytes(p, geometry(p, choose<P, kTma>(p, d)));
    }

    static const char *path(const cgp_problem *p, const cgp_device_info *d)
    {
        const TileSplit c = choose<P, kTma>(p, d);
        const unsigned whole = kTma ? CGP_PATH_IGEMM_WGMMA_TMA_TILE0 : CGP_PATH_IGEMM_WGMMA_TILE0;
        const unsigned split = kTma ? CGP_PATH_IGEMM_WGMMA_TMA_SPLIT_TILE0 : CGP_PATH_IGEMM_WGMMA_SPLIT_TILE0;
        return cgp_path_name(c.split == 1 ? whole + (unsigned)c.tile
                                          : split + (unsigned)c.tile + (c.split == 2 ? 0u : 6u));
    }

    static cudaError_t launch(const cgp_launch_args *a, const cgp_device_info *d, cudaStream_t stream)
    {
        const TileSplit c = choose<P, kTma>(&a->p, d);
        return with_tile_blocks<P>(c.tile, [&](auto tile) {
            return launch_blocks<P, typename decltype(tile)::Block, kTma>(a, c, stream);
        });
    }
};

using Tf32ByCpAsync = ImplicitGemmWgmmaVersion<kTf32, false>;
using Tf32x3ByCpAsync = ImplicitGemmWgmmaVersion<kTf32x3, false>;
using Tf32ByTma = ImplicitGemmWgmmaVersion<kTf32, true>;
using Tf32x3ByTma = ImplicitGemmWgmmaVersion<kTf32x3, true>;

} // namespace

/* X(descriptor, hooks, version, name, summary) for each version of this file */
#define IMPLICIT_GEMM_WGMMA_VERSIONS(X)                                                                                \
    X(cgp_kernel_tf32_v10, Tf32ByCpAsync, 20, "tf32-v10",                                                              \
      "implicit GEMM on Hopper wgmma (sm_90a, m64n64k8 tf32, operands from shared memory) for any channel "            \
      "count: 16x16, 8x16 or 8x8-pixel x 64 or 32-channel tiles (a warpgroup per 8x8, chosen per shape), 8 input "   \
      "channels x 9 taps a chunk landing 3 chunks ahead by cp.async, converted into one operand buffer while the "     \
      "wgmmas read the other; a chunk's taps chained in a fresh accumulator")                                          \
    X(cgp_kernel_tf32x3_v10, Tf32x3ByCpAsync, 30, "3xtf32-v10",                                                        \
      "tf32-v10 with the 3xTF32 split (fp32-level accuracy): big and small operand planes, 27 wgmmas a chunk, "        \
      "the 18 corrections first, gelu_x2_fine")                                                                        \
    X(cgp_kernel_tf32_v13, Tf32ByTma, 36, "tf32-v13",                                                                  \
      "tf32-v10 with each chunk's input window landed by TMA (one box copy issued by one thread, completing on an "    \
      "mbarrier; the weights by cp.async as before; W % 4 = 0)")                                                       \
    X(cgp_kernel_tf32x3_v13, Tf32x3ByTma, 37, "3xtf32-v13",                                                            \
      "3xtf32-v10 with each chunk's input window landed by TMA (W % 4 = 0)")

IMPLICIT_GEMM_WGMMA_VERSIONS(CGP_DEFINE_KERNEL_DESC)
