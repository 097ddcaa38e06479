/*
 * fused_implicit_gemm_wgmma.cu - the Hopper tensor-core fused kernels for any channel count (library layer):
 * tf32-v10 (version 20) and 3xtf32-v10 (version 30), the implicit GEMM of implicit_gemm.cuh on wgmma (sm_90a) with
 * both operands from shared memory, so the tensor cores run while the warps prepare the next chunk; tf32-v13 (36) and
 * 3xtf32-v13 (37) are the same with each chunk's input window landed by TMA (template parameter kTma: one box copy
 * issued by thread 0 onto the stage's mbarrier, as 3xtf32-v12 lands its windows; the weights by cp.async as before;
 * W % 4 = 0); tf32-v15 (39) and 3xtf32-v15 (40) round (split) the weights once a launch instead of once a block and
 * chunk (implicit_gemm_wgmma.cuh's round_weights_once, into the workspace) and land each chunk's B by one bulk copy
 * onto the stage's mbarrier, where the wgmmas read it (template parameter kRounded; the windows by TMA where W % 4 =
 * 0, else by cp.async). tf32-v17 (42) is tf32-v15 with its windows by TMA alone (W % 4 = 0) and chunk k + 1's
 * wgmmas issued before chunk k's wait (template parameter kOverlap: two accumulator sets, three A buffers), so the
 * tensor cores always have a chunk queued while the warps convert the next; tf32 only (3xTF32's 27 wgmmas a chunk
 * with two accumulator sets spilled and ran 10-12% slower: docs/perf-log.md). The block, the conversion and the
 * wgmmas of a chunk are implicit_gemm_wgmma.cuh's (tf32-v11 shares them).
 *
 *   block         WY x WX warpgroups (2 x 2, 1 x 2 or 1 x 1), a tile of 8 WY x 8 WX output pixels x BN = 64 or 32
 *                 channels; each warpgroup computes one 8 x 8 pixel block as one m64nBN accumulator (D = X W).
 *   K split       where the grid is small, the chunks are shared by a cluster of 2 or 4 blocks, whose partial sums
 *                 are added in rank order through distributed shared memory (implicit_gemm.cuh's
 *                 split_sum_publish); the tile and the split per shape by choose.
 *   landing       the chunks' copies (StageCopies) land in a ring of kLandStages Window stages (4, or 3 where 4 do
 *                 not fit), kLandStages - 1 chunks ahead (by TMA: Landing's stages, TmaWindow's box then the weights).
 *   operands      two operand buffers: chunk c + 1 is converted into one while the wgmmas of chunk c read the
 *                 other (kRounded: A alone; B is read in the landing stage, which chunk c + kStages reuses only
 *                 after the barrier that follows chunk c's wgmma wait). A = the window as [channel half][pixel][4
 *                 channels], 16 bytes a pixel: wgmma's no-swizzle K-major layout, whose 8-row x 16-byte core
 *                 matrices are 8 consecutive pixels of a window row (SBO = one window row, LBO = one channel half),
 *                 so the 64 x 8 A of tap (ky, kx) is the window moved by (ky, kx): only the descriptor's start
 *                 address changes. B = per tap [half][BN output channels][4 input channels] (SBO 128 bytes, LBO BN x
 *                 16 bytes). The conversion rounds only as far as the tensor cores read (tf32_round_for_mma; 3xTF32
 *                 split_tf32_for_mma into a big and a small plane), 4 channels a task, at offsets worked out once
 *                 (ChunkConversion).
 *   accumulation  a chunk's 9 taps chained into a fresh accumulator (scale-d 0 on the first wgmma), added into the
 *                 running sum with FADD: the tensor cores' truncating accumulation never runs past a chunk
 *                 (fused_implicit_gemm.cu says why); 3xTF32 chains the 18 corrections first, then the 9 big * big.
 *   pipeline      per chunk c: issue its wgmmas, commit; convert chunk c + 1; issue the copies of chunk
 *                 c + kLandStages - 1; wait for the wgmmas, add the chain; wait for chunk c + 2's copies; one
 *                 barrier. tf32-v17, chunk c's wgmmas in flight: convert chunk c + 1; one barrier; land chunk
 *                 c + kStages - 1; issue chunk c + 1's wgmmas; wait for all but those; add chunk c's chain.
 *   epilogue      implicit_gemm.cuh: bias, GELU, masked sums per channel, the warps in order (or, with K split, the
 *                 cluster's sum first), reduction.cuh.
 * tf32-v10 and 3xtf32-v10 run every shape on an sm_90 GPU with a build for sm_90a (SM=90) and refuse other GPUs and
 * builds with the reason; version 0 then takes tf32-v9 / 3xtf32-v9 (fused_implicit_gemm.cu). tf32-v13 and 3xtf32-v13
 * also refuse W % 4 != 0 (and what else TMA cannot read, tensor_map.cuh) and defer to them on 8x8-pixel tiles;
 * tf32-v15 and 3xtf32-v15 run every shape tf32-v10 runs (below 2^24 units of rounded weights) and defer where fewer
 * than 16 pixel tiles read each unit; tf32-v17 the same where W % 4 = 0, refusing the rest with the reason.
 */
#include <stdint.h>

#include <type_traits>

#include "implicit_gemm_wgmma.cuh"
#include "kernel_desc.cuh"

namespace {

/* The landing stages of block B: Window stages (the window and the weights by cp.async, tf32-v10), or, by TMA
 * (kTma: tf32-v13), TmaWindow's box then the weights, 128-byte aligned; kRounded (tf32-v15): the window (either way)
 * then the weights rounded once a launch (round_weights_once) in B's layout, landed by one bulk copy onto the stage's
 * mbarrier, where the wgmmas read them. As many stages as fit beside the operand buffers (kRounded: A alone), up
 * to 4; kOverlap (tf32-v17: chunk k + 1's wgmmas issued before chunk k's wait) 3 operand buffers */
template <class B, bool kTma, bool kRounded, bool kOverlap = false> struct Landing {
    static constexpr bool kMbarrier = kTma || kRounded; /* a stage's bulk copies complete on its mbarrier */
    using Land = typename B::Land;
    using Src = std::conditional_t<kTma, TmaWindow<B>, Land>;
    static constexpr int kWeightFloats = kRounded ? B::kRoundedUnitFloats : Land::kWFloats;
    static constexpr int kStageFloats = kMbarrier ? Src::kInFloats + kWeightFloats : B::kLandFloats;
    static constexpr int kOpFloats = kRounded ? B::kPlanes * B::kAFloats : B::kOpFloats; /* an operand buffer */
    static_assert(!kOverlap || (kTma && kRounded), "the overlapped chunk loop: TMA windows and rounded weights");
    static constexpr int kBuffers = kOverlap ? 3 : B::kBuffers;
    static constexpr size_t kAlignBytes = kMbarrier ? 128 : 0;
    static constexpr int kFit = (int)(((kSmemBudget - kAlignBytes) / sizeof(float) -
                                       (size_t)kBuffers * kOpFloats) / kStageFloats);
    static constexpr int kStages = kMbarrier ? (kFit < 4 ? kFit : 4) : B::kLandStages;
    static constexpr size_t kSmemBytes =
        kMbarrier ? kAlignBytes + sizeof(float) * ((size_t)kStages * kStageFloats + (size_t)kBuffers * kOpFloats)
                  : B::kSmemBytes;
    static_assert(kStages >= 3, "a landing ring of 3 stages at least");
    static_assert(kStageFloats % 32 == 0, "bulk copies 128 bytes apart");
    static_assert(B::kTh * B::kTw * B::kBn <= kStages * kStageFloats, "a K split's partials fit in the landing ring");
};

template <int P, class B, bool kWhole, bool kTma, bool kRounded, bool kOverlap = false>
__global__ void __launch_bounds__(B::kThreads, 1)
    implicit_gemm_wgmma_conv_gelu_mean(const IgemmParams p, const __grid_constant__ CUtensorMap map)
{
    const int split = (int)gridDim.z, rank = (int)blockIdx.z; /* a cluster of `split` blocks shares the chunks */
    record_path(p.path_record, igemm_wgmma_path(kTma, kRounded, kOverlap, kWhole, tile_index<B>(), split));
    using Land = typename B::Land;
    using L = Landing<B, kTma, kRounded, kOverlap>;
    using Src = typename L::Src;
    constexpr bool kMbarrier = L::kMbarrier;
    float *smem = reinterpret_cast<float *>(dynamic_smem());
    if constexpr (kMbarrier)
        smem += (L::kAlignBytes - shared_address(smem) % L::kAlignBytes) % L::kAlignBytes / sizeof(float);
    if constexpr (kRounded) {
        static_assert(kRoundingScratchBytes<B> <= L::kSmemBytes - L::kAlignBytes, "the pass's scratch in the stages");
        round_weights_once<P, B>(p, smem);
    }
    constexpr int kTw = B::kTw, kWarps = B::kWarps, kLandFloats = L::kStageFloats, kBn = B::kBn;
    __shared__ float warp_sums[kWarps * kBn];
    __shared__ double block_sums[kBn];
    __shared__ uint64_t landed[kMbarrier ? L::kStages : 1]; /* stage s's bulk copies landed (a phase a chunk) */
    constexpr int kStages = L::kStages, kBuffers = L::kBuffers, kOpFloats = L::kOpFloats;
    constexpr uint32_t kLandBytes = 4u * kLandFloats, kOpBytes = 4u * kOpFloats;
    float *land = smem, *ops = smem + kStages * kLandFloats;
    const uint32_t land_base = shared_address(land), ops_base = shared_address(ops);

    const BlockPlace at = block_place<Land>(p);
    const int64_t n = at.n, tile = at.tile, oy0 = at.oy0, ox0 = at.ox0, c0 = at.c0;
    const int warp = threadIdx.x / 32, wg = warp / 4;

    const int per_rank = (p.chunks + split - 1) / split;
    const int first = rank * per_rank, count = max(0, min(p.chunks - first, per_rank)); /* this block's chunks */
    /* issues chunks first, first + 1, ...: the window by TMA (thread 0) or every thread's cp.async, the weights by
     * every thread's cp.async or, rounded, thread 0's bulk copy */
    StageCopies<Land, kWhole, (kTma ? 0 : kCopyInput) | (kRounded ? 0 : kCopyWeights), Src::kInFloats> copies;
    const float *rounded_w = kRounded ? p.rounded_w + (int64_t)blockIdx.y * p.chunks * L::kWeightFloats : nullptr;
    copies.init(p, p.x + (n * p.cin + (int64_t)first * kChunk) * p.h * p.wd, oy0, ox0, c0);
    auto issue_copies = [&](int j) { /* the block's chunk j into stage j % kStages */
        const uint32_t stage = land_base + j % kStages * kLandBytes;
        if constexpr (kMbarrier) {
            if (threadIdx.x == 0) {
                const uint32_t bar = shared_address(&landed[j % kStages]);
                const uint32_t floats = (kTma ? TmaWindow<B>::kBoxFloats : 0) + (kRounded ? L::kWeightFloats : 0);
                mbarrier_arrive_expect(bar, 4u * floats);
                if constexpr (kTma)
                    tma_load_4d(stage, &map, Src::box_x((int)ox0, p.pad), (int)oy0 - p.pad, (first + j) * kChunk,
                                (int)n, bar);
                if constexpr (kRounded)
                    bulk_load(stage + 4u * Src::kInFloats, rounded_w + (int64_t)(first + j) * L::kWeightFloats,
                              4u * L::kWeightFloats, bar);
            }
        }
        copies.issue(p, c0, first + j, stage);
    };
    auto wait_landed = [&](int j) { /* the block's chunk j's bulk copies, phase j / kStages of its stage */
        if constexpr (kMbarrier)
            mbarrier_ring_wait<kStages>(landed, j);
    };
    ChunkConversion<P, B, Src> conversion;
    /* a landing stage into an operand buffer (rounded: its window alone; the wgmmas read B where it landed) */
    auto convert = [&](const float *stage, float *op) {
        if constexpr (kRounded)
            conversion.convert_input(stage, op);
        else
            conversion.convert(stage, op);
    };
    if constexpr (kTma)
        conversion.init(Src::lead(p.pad));
    else
        conversion.init();
    if constexpr (kMbarrier) {
        if (threadIdx.x == 0)
#pragma unroll
            for (int s = 0; s < kStages; ++s)
                mbarrier_init(shared_address(&landed[s]));
        __syncthreads(); /* the mbarriers, before any thread waits on them */
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
        convert(land, ops);
        fence_proxy_async();
    }
    cp_async_wait<kStages - 3>();
    __syncthreads(); /* operand buffer 0 ready; chunk 1 landed */

    float acc[kBn / 2], part[kBn / 2];
    zero_fill(acc);
    if constexpr (kOverlap) {
        /* tf32-v17, per chunk k (its wgmmas in flight into cur): convert chunk k + 1 into A buffer (k + 1) % 3 (that
         * of chunk k - 2, done in every warpgroup before the barrier of step k - 1); a barrier (chunk k + 1's A ready;
         * chunk k - 1 done in every warpgroup); land chunk k + kStages - 1 in chunk k - 1's stage; issue chunk k + 1's
         * wgmmas into nxt; wait for all but those; add cur. Two steps a loop trip, the accumulators swapping, and the
         * last chunk's wait outside it: with a wait in the loop's last step ptxas serialized the wgmmas (C7514). */
        float part2[kBn / 2];
        auto issue = [&](int k, float(&into)[kBn / 2]) {
            wgmma_fence();
            issue_chunk<P, B>(ops_base + k % kBuffers * kOpBytes,
                              land_base + k % kStages * kLandBytes + 4u * Src::kInFloats, wg, into);
            wgmma_commit();
        };
        /* chunk k's wgmmas in flight into cur, k + 1 < count */
        auto steady = [&](int k, float(&cur)[kBn / 2], float(&nxt)[kBn / 2]) {
            wait_landed(k + 1);
            convert(land + (k + 1) % kStages * kLandFloats, ops + (k + 1) % kBuffers * kOpFloats);
            fence_proxy_async();
            __syncthreads();
            if (k + kStages - 1 < count)
                issue_copies(k + kStages - 1);
            issue(k + 1, nxt);
            wgmma_wait<1>();
            add_chain(acc, cur);
        };
        auto last = [&](float(&cur)[kBn / 2]) {
            wgmma_wait<0>();
            add_chain(acc, cur);
        };
        if (count > 0) {
            issue(0, part);
            int k = 0;
            for (; k + 2 < count; k += 2) {
                steady(k, part, part2);
                steady(k + 1, part2, part);
            }
            if (k + 1 < count) {
                steady(k, part, part2);
                last(part2);
            } else {
                last(part);
            }
        }
    } else {
        for (int k = 0; k < count; ++k) {
            wgmma_fence();
            const uint32_t op = ops_base + k % kBuffers * kOpBytes;
            const uint32_t b_op = kRounded ? land_base + k % kStages * kLandBytes + 4u * Src::kInFloats
                                           : op + 4u * B::kPlanes * B::kAFloats;
            issue_chunk<P, B>(op, b_op, wg, part);
            wgmma_commit();
            if (k + 1 < count) { /* while the tensor cores run */
                wait_landed(k + 1);
                convert(land + (k + 1) % kStages * kLandFloats, ops + (k + 1) % kBuffers * kOpFloats);
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
        oy0, ox0, ChannelBias(p, c0), sum);
    publish_block_sums<kBn, kWarps>(p, sum, warp, 0, n, tile, c0, warp_sums, block_sums);
}


/* The K splits a cluster can take (blocks sharing a tile's chunks) */
constexpr int kSplits[] = {1, 2, 4};

/* A block's shared memory, tile i of kTileShapes: the landing ring and operand buffers, and the kernel's static
 * arrays (warp sums, block sums, mbarriers, publish_image_sums' flag and round_weights_once's unit) */
template <int P, bool kTma, bool kRounded, bool kOverlap, int I> constexpr size_t tile_smem_bytes()
{
    using B = TileBlocks<P, I>;
    return Landing<B, kTma, kRounded, kOverlap>::kSmemBytes + sizeof(float) * B::kWarps * B::kBn +
           sizeof(double) * B::kBn + 64;
}
template <int P, bool kTma, bool kRounded, bool kOverlap = false, class Indices = TileIndices> struct TileSmem;
template <int P, bool kTma, bool kRounded, bool kOverlap, size_t... I>
struct TileSmem<P, kTma, kRounded, kOverlap, std::index_sequence<I...>> {
    static constexpr size_t bytes[] = {tile_smem_bytes<P, kTma, kRounded, kOverlap, I>()...};
    static constexpr size_t most = largest({bytes[I]...});
};

/* Of the pixel tiles (64-channel ones only where Cout needs more than 32) and the K splits, the one that should
 * finish first. Blocks run in waves of SMs x the blocks an SM holds (by shared memory, 1 KB reserved a block, and by
 * the registers __launch_bounds__(threads, 1) lets a thread take: two blocks of 4 warps, one of more); a wave takes
 * the resident blocks' work over the SM's rate. A block's work a chunk: its products (pixels x channels) and its
 * input window's conversion (window pixels x 64). Rates relative to a block of 4 warpgroups (warpgroup_rate);
 * blocks resident together add their rates (their barriers are their own), up to 1: tf32-v10 on 8 x 512->512 x
 * 7x7 ran 256 blocks of 8x8 x 32 channels, two an SM, in 0.046 ms and 128 of 8x8 x 64, one an SM, in 0.061
 * (docs/perf-log.md, "Blocks an SM holds"). A block's chunks are its share plus 2 for a split's exchange of
 * partials; K is split only with at least 2 chunks a block. tile_bytes: each tile's shared memory (TileSmem). */
TileSplit choose(const cgp_problem *p, const cgp_device_info *d, const size_t (&tile_bytes)[kTileCount])
{
    const int64_t sms = d->sm_count > 0 ? d->sm_count : 1, chunks = ceil_div(p->cin, kChunk);
    return least_cost(0, kTileCount, kSplits, [&](int i, int split) {
        const TileShape &t = kTileShapes[i];
        if ((t.bn == 64 && p->cout <= 32) || (split > 1 && chunks < 2 * split))
            return -1.0;
        const int warpgroups = t.wy * t.wx, threads = 128 * warpgroups;
        const double rate = warpgroup_rate(t);
        const int64_t by_smem = blocks_by_shared_memory(d, tile_bytes[i]);
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

/* The bytes of the det partials of tile choice c, 128-byte aligned: where tf32-v15's rounded weights start in the
 * workspace */
size_t rounded_weights_offset(const cgp_problem *p, TileSplit c)
{
    return (implicit_gemm_workspace_bytes(p, geometry(p, c)) + 127) / 128 * 128;
}

/* tf32-v15's workspace: the det partials, then the rounded weights, B::kRoundedUnitFloats a (channel block, chunk) */
template <int P> size_t rounded_workspace_bytes(const cgp_problem *p, TileSplit c)
{
    const size_t unit_bytes = with_tile_blocks<P>(c.tile, [](auto tile) {
        return sizeof(float) * (size_t)decltype(tile)::Block::kRoundedUnitFloats;
    });
    const int64_t units = geometry(p, c).channel_blocks * ceil_div(p->cin, kChunk);
    return rounded_weights_offset(p, c) + (size_t)units * unit_bytes;
}

/* The kernels of block B, its windows by TMA or not, its weights rounded or not, its loop overlapped or not, for
 * weights aligned and not (with TMA windows and rounded weights no copy of a thread depends on Cin: one kernel, else
 * by whole_chunks), their shared memory and paths (c's tile and split) */
template <int P, class B, bool kTma, bool kRounded, bool kOverlap>
void configure_blocks(const cgp_problem *p, cgp_kernel_config *c)
{
    const void *whole_kernel =
        reinterpret_cast<const void *>(&implicit_gemm_wgmma_conv_gelu_mean<P, B, true, kTma, kRounded, kOverlap>);
    const void *part_kernel = whole_kernel;
    if constexpr (!(kTma && kRounded))
        part_kernel = reinterpret_cast<const void *>(&implicit_gemm_wgmma_conv_gelu_mean<P, B, false, kTma, kRounded>);
    for (int misaligned = 0; misaligned < 2; ++misaligned) {
        const bool whole = (kTma && kRounded) || whole_chunks(p, misaligned);
        c->kernel[misaligned] = whole ? whole_kernel : part_kernel;
        c->path[misaligned] = igemm_wgmma_path(kTma, kRounded, kOverlap, whole, (unsigned)c->tile, c->split);
    }
    c->smem_bytes = Landing<B, kTma, kRounded, kOverlap>::kSmemBytes;
}

/* Launches the configured kernel of block B with its windows by TMA or not, its weights rounded or not */
template <int P, class B, bool kTma, bool kRounded>
cudaError_t launch_blocks(const cgp_launch_args *a, const cgp_kernel_config *c, cudaStream_t stream)
{
    const TileSplit choice{c->tile, c->split};
    const ImplicitGemmGeometry g = geometry(&a->p, choice);
    IgemmParams p = implicit_gemm_params(a, g);
    if (kRounded)
        p.rounded_w =
            reinterpret_cast<float *>(static_cast<char *>(a->workspace) + rounded_weights_offset(&a->p, choice));
    CUtensorMap map;
    if (!tma_window_map<B, kTma>(&map, a))
        return cudaErrorInvalidValue;
    return launch_implicit_gemm(c->kernel[cgp_weights_misaligned(a->weight)], p, g, a->p.n, c->split, B::kThreads,
                                c->smem_bytes, stream, &map);
}

/* The versions of this file: the windows and weights by cp.async (tf32-v10), the windows by TMA and the weights by
 * cp.async (tf32-v13), the weights rounded once a launch with the windows by TMA where it reads them (W % 4 = 0, on
 * every tile), else by cp.async (tf32-v15), and the same by TMA alone with chunk k + 1's wgmmas issued before chunk
 * k's wait (tf32-v17) */
enum IgemmStaging { kCpAsyncWindows, kTmaWindows, kRoundedWeights, kRoundedOverlapped };

constexpr int tile_count(unsigned tiles) { return tiles == 0 ? 0 : (int)(tiles & 1u) + tile_count(tiles >> 1); }

/* The ids of the tiles in kTiles (bit i: tile i of kTileShapes) of one staging, K whole, then split over 2 and 4 */
template <unsigned kTiles> constexpr PathList<3 * tile_count(kTiles)> tile_paths(bool tma, bool rounded, bool overlap)
{
    PathList<3 * tile_count(kTiles)> l{};
    int at = 0;
    for (int split = 0; split < 3; ++split)
        for (unsigned tile = 0; tile < (unsigned)kTileCount; ++tile)
            if (kTiles >> tile & 1u)
                l.ids[at++] = (unsigned short)(igemm_wgmma_path0(tma, rounded, overlap, split > 0) + tile +
                                               (split == 2 ? 6u : 0u));
    return l;
}

/* The paths (kernel_info.h) of a version of this file: tf32-v10's and tf32-v13's of both weight widths, tf32-v15's by
 * cp.async of both and by TMA, tf32-v17's by TMA; of the tiles choose takes on an H200 (its estimate never picks 8x8
 * px x 64 ch or 8x16 px x 32 ch, nor, with tf32's rounded weights, 8x16 px: tests/cpu/cpu_paths.c holds the hooks'
 * choices against these lists both ways) */
template <int P, int kStaging> constexpr auto igemm_wgmma_paths()
{
    constexpr bool kRounded = kStaging >= kRoundedWeights, kOverlap = kStaging == kRoundedOverlapped;
    constexpr unsigned kTiles = kRounded && P == kTf32 ? 0x2du : 0x2bu; /* bit i: tile i of kTileShapes */
    constexpr auto cp_async = tile_paths<kTiles>(false, kRounded, false);
    constexpr auto tma = tile_paths<kTiles>(true, kRounded, kOverlap);
    if constexpr (kStaging == kCpAsyncWindows)
        return with_weights_4b(cp_async);
    else if constexpr (kStaging == kTmaWindows)
        return with_weights_4b(tma);
    else if constexpr (kStaging == kRoundedWeights)
        return with_weights_4b(cp_async) + tma;
    else
        return tma;
}

/* The hooks (kernel_desc.cuh) of tf32-v10, 3xtf32-v10, tf32-v13, 3xtf32-v13, tf32-v15, 3xtf32-v15 and tf32-v17 */
template <int P, int kStagingOf> struct ImplicitGemmWgmmaVersion : NoStageSplit {
    static constexpr int kStaging = kStagingOf;
    static constexpr cgp_precision precision = (cgp_precision)P;
    static constexpr bool kOverlap = kStaging == kRoundedOverlapped;
    static constexpr bool kRounded = kStaging == kRoundedWeights || kOverlap;
    static constexpr auto kPaths = igemm_wgmma_paths<P, kStaging>();
    using CpAsyncSmem = TileSmem<P, false, kRounded>;
    using TmaSmem = TileSmem<P, true, kRounded, kOverlap>;

    /* Whether the windows of this problem land by TMA (tf32-v15: wherever TMA reads them; on 8x8-pixel tiles too,
     * where it measured faster than cp.async, unlike tf32-v13's: docs/perf-log.md, "tf32-v15"; tf32-v13 and
     * tf32-v17 always, refusing what TMA cannot read) */
    static bool tma_windows(const cgp_problem *p, const cgp_device_info *d)
    {
        return kStaging == kTmaWindows || kOverlap ||
               (kStaging == kRoundedWeights && input_tensor_map_unsupported(p, d) == NULL);
    }

    static TileSplit choice(const cgp_problem *p, const cgp_device_info *d)
    {
        return choose(p, d, tma_windows(p, d) ? TmaSmem::bytes : CpAsyncSmem::bytes);
    }

    /* the shared memory of its largest tile by its stagings */
    static constexpr size_t kMostSmem = kStaging == kCpAsyncWindows ? CpAsyncSmem::most
                                        : kStaging == kTmaWindows || kOverlap
                                            ? TmaSmem::most
                                            : largest({CpAsyncSmem::most, TmaSmem::most});

    static const char *unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        if (const char *why = wgmma_gpu_unsupported(d))
            return why;
        if (kMostSmem > d->smem_per_block_optin)
            return kSharedMemoryNeed<kMostSmem>.text;
        if (kStaging == kTmaWindows || kOverlap) {
            const char *why = input_tensor_map_unsupported(p, d);
            if (why != NULL)
                return why;
        }
        if (kRounded && ceil_div(p->cout, 32) * ceil_div(p->cin, kChunk) > (1 << 24))
            return "more than 2^24 units of rounded weights (blocks of output channels x chunks of 8 input channels)";
        const TileSplit c = choice(p, d);
        const ImplicitGemmGeometry g = geometry(p, c);
        if (const char *why = implicit_gemm_split_grid_unsupported(p, g, c.split))
            return why;
        /* the grid checked first: the product below stays far inside 64 bits */
        if (kRounded && p->n * g.tiles_per_image * g.channel_blocks * c.split > 0x7fffffffLL)
            return "more than 2^31-1 blocks (round_weights_once counts claims and blocks in 32 bits)";
        return nullptr;
    }

    static void configure(const cgp_problem *p, const cgp_device_info *d, cgp_kernel_config *c)
    {
        const TileSplit tile_split = choice(p, d);
        const bool tma = tma_windows(p, d);
        c->tile = tile_split.tile;
        c->split = tile_split.split;
        c->staging = tma;
        c->workspace_bytes = kRounded ? rounded_workspace_bytes<P>(p, tile_split)
                                      : implicit_gemm_workspace_bytes(p, geometry(p, tile_split));
        with_blocks(c->tile, tma, [&](auto tile, auto by_tma) {
            configure_blocks<P, typename decltype(tile)::Block, decltype(by_tma)::value, kRounded, kOverlap>(p, c);
        });
    }

    static cudaError_t launch(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *,
                              cudaStream_t stream)
    {
        return with_blocks(c->tile, c->staging != 0, [&](auto tile, auto by_tma) {
            return launch_blocks<P, typename decltype(tile)::Block, decltype(by_tma)::value, kRounded>(a, c, stream);
        });
    }

    /* f(TileTag of tile's Blocks, std::bool_constant<windows by TMA>): tf32-v15's as `tma` says, the others' fixed */
    template <class F> static auto with_blocks(int tile, bool tma, F f)
    {
        return with_tile_blocks<P>(tile, [&](auto t) {
            if constexpr (kStaging == kCpAsyncWindows)
                return f(t, std::false_type{});
            else if constexpr (kStaging == kTmaWindows || kOverlap)
                return f(t, std::true_type{});
            else
                return tma ? f(t, std::true_type{}) : f(t, std::false_type{});
        });
    }
};

using Tf32ByCpAsync = ImplicitGemmWgmmaVersion<kTf32, kCpAsyncWindows>;
using Tf32x3ByCpAsync = ImplicitGemmWgmmaVersion<kTf32x3, kCpAsyncWindows>;
using Tf32ByTma = ImplicitGemmWgmmaVersion<kTf32, kTmaWindows>;
using Tf32x3ByTma = ImplicitGemmWgmmaVersion<kTf32x3, kTmaWindows>;
using Tf32RoundedWeights = ImplicitGemmWgmmaVersion<kTf32, kRoundedWeights>;
using Tf32x3RoundedWeights = ImplicitGemmWgmmaVersion<kTf32x3, kRoundedWeights>;
using Tf32RoundedOverlapped = ImplicitGemmWgmmaVersion<kTf32, kRoundedOverlapped>;

/* What version V (the hooks of a precision and staging) is: K split over kSplits' clusters, one tile a block; the
 * windows by cp.async, by TMA, or by TMA where it reads them and by cp.async elsewhere (kRoundedWeights); the weights
 * per tile, or rounded once a launch; tf32-v17's chunk loop overlapped; its largest tile's shared memory */
template <class V>
constexpr Kind kIgemmWgmmaKind =
    kWgmmaImplicitGemmKind.k_splits(kSplits)
        .staging(V::kStaging == kCpAsyncWindows   ? CGP_STAGING_CP_ASYNC
                 : V::kStaging == kRoundedWeights ? CGP_STAGING_TMA_OR_CP_ASYNC
                                                  : CGP_STAGING_TMA)
        .weights(V::kRounded ? CGP_WEIGHTS_ROUNDED_ONCE : CGP_WEIGHTS_PER_TILE)
        .loop(V::kOverlap ? CGP_LOOP_OVERLAPPED : CGP_LOOP_PLAIN)
        .smem(V::kMostSmem);

} // namespace

/* The names of the paths of the wgmma implicit GEMMs (path_names.cuh), from kTileShapes: each staging's tiles with K
 * whole, then split over 2 and 4 blocks (igemm_wgmma_path's ids) */
#define WGMMA_PATH_NAMES(symbol, first, split_first, prefix)                                                           \
    CGP_DEFINE_PATH_NAMES(symbol, first, tile_path_names(prefix, kTileShapes, path_tile_of, {1}))                      \
    CGP_DEFINE_PATH_NAMES(symbol##_split, split_first, tile_path_names(prefix, kTileShapes, path_tile_of, {2, 4}))
WGMMA_PATH_NAMES(cgp_paths_igemm_wgmma, CGP_PATH_IGEMM_WGMMA_TILE0, CGP_PATH_IGEMM_WGMMA_SPLIT_TILE0, "")
WGMMA_PATH_NAMES(cgp_paths_igemm_wgmma_tma, CGP_PATH_IGEMM_WGMMA_TMA_TILE0, CGP_PATH_IGEMM_WGMMA_TMA_SPLIT_TILE0,
                 "TMA ")
WGMMA_PATH_NAMES(cgp_paths_igemm_wgmma_rounded, CGP_PATH_IGEMM_WGMMA_ROUNDED_TILE0,
                 CGP_PATH_IGEMM_WGMMA_ROUNDED_SPLIT_TILE0, "rounded weights, ")
WGMMA_PATH_NAMES(cgp_paths_igemm_wgmma_rounded_tma, CGP_PATH_IGEMM_WGMMA_ROUNDED_TMA_TILE0,
                 CGP_PATH_IGEMM_WGMMA_ROUNDED_TMA_SPLIT_TILE0, "rounded weights, TMA ")
WGMMA_PATH_NAMES(cgp_paths_igemm_wgmma_overlapped, CGP_PATH_IGEMM_WGMMA_OVERLAPPED_TILE0,
                 CGP_PATH_IGEMM_WGMMA_OVERLAPPED_SPLIT_TILE0, "overlapped, TMA ")

/* X(descriptor, hooks, version, name, summary, kind) for each version of this file */
#define IMPLICIT_GEMM_WGMMA_VERSIONS(X)                                                                                \
    X(cgp_kernel_tf32_v10, Tf32ByCpAsync, 20, "tf32-v10",                                                              \
      "implicit GEMM on Hopper wgmma (sm_90a, m64n64k8 tf32, operands from shared memory) for any channel "            \
      "count: 16x16, 8x16 or 8x8-pixel x 64 or 32-channel tiles (a warpgroup per 8x8, chosen per shape), 8 input "   \
      "channels x 9 taps a chunk landing 3 chunks ahead by cp.async, converted into one operand buffer while the "     \
      "wgmmas read the other; a chunk's taps chained in a fresh accumulator",                                          \
      kIgemmWgmmaKind<Tf32ByCpAsync>)                                                                                  \
    X(cgp_kernel_tf32x3_v10, Tf32x3ByCpAsync, 30, "3xtf32-v10",                                                        \
      "implicit GEMM on wgmma with the 3xTF32 split (fp32-level accuracy) for any channel count: 16x16, 8x16 or "      \
      "8x8-pixel x 64 or 32-channel tiles, each chunk's window and weights landed 3 chunks ahead by cp.async and "     \
      "split into big and small operand planes, 27 wgmmas a chunk (the 18 corrections first), gelu_x2_fine",           \
      kIgemmWgmmaKind<Tf32x3ByCpAsync>)                                                                                \
    X(cgp_kernel_tf32_v13, Tf32ByTma, 36, "tf32-v13",                                                                  \
      "implicit GEMM on wgmma for any channel count: 16x16, 8x16 or 8x8-pixel x 64 or 32-channel tiles, each "         \
      "chunk's input window landed by one TMA box copy (issued by one thread, completing on an mbarrier) and its "     \
      "weights by cp.async, converted into one operand buffer while the wgmmas read the other",                        \
      kIgemmWgmmaKind<Tf32ByTma>)                                                                                      \
    X(cgp_kernel_tf32x3_v13, Tf32x3ByTma, 37, "3xtf32-v13",                                                            \
      "implicit GEMM on wgmma with the 3xTF32 split (fp32-level accuracy): 16x16, 8x16 or 8x8-pixel x 64 or "          \
      "32-channel tiles, each chunk's input window landed by one TMA box copy and its weights by cp.async, both "      \
      "split into big and small planes, 27 wgmmas a chunk, gelu_x2_fine",                                              \
      kIgemmWgmmaKind<Tf32x3ByTma>)                                                                                    \
    X(cgp_kernel_tf32_v15, Tf32RoundedWeights, 39, "tf32-v15",                                                         \
      "implicit GEMM on wgmma for any channel count: 16x16, 8x16 or 8x8-pixel x 64 or 32-channel tiles; the "          \
      "weights rounded once a launch into the workspace in wgmma's B layout (the blocks claim (channel block, "        \
      "chunk) units as they arrive, then wait for all), a chunk's landed by one bulk copy and read where they "        \
      "land; the windows by TMA where W % 4 = 0, else by cp.async (the heuristic passes it over where fewer than "     \
      "16 tiles read each unit)",                                                                                      \
      kIgemmWgmmaKind<Tf32RoundedWeights>)                                                                             \
    X(cgp_kernel_tf32x3_v15, Tf32x3RoundedWeights, 40, "3xtf32-v15",                                                   \
      "implicit GEMM on wgmma with the 3xTF32 split (fp32-level accuracy): 16x16, 8x16 or 8x8-pixel x 64 or "          \
      "32-channel tiles; the weights split into big and small planes once a launch into the workspace, a chunk's "     \
      "landed by one bulk copy; the windows by TMA where W % 4 = 0, else by cp.async; 27 wgmmas a chunk, "             \
      "gelu_x2_fine",                                                                                                  \
      kIgemmWgmmaKind<Tf32x3RoundedWeights>)                                                                           \
    X(cgp_kernel_tf32_v17, Tf32RoundedOverlapped, 42, "tf32-v17",                                                     \
      "implicit GEMM on wgmma with an overlapped chunk loop: chunk k + 1's wgmmas issued before chunk k's wait "       \
      "(two accumulator sets, three A buffers, one barrier a chunk), so the tensor cores always have a chunk "         \
      "queued; the weights rounded once a launch, a chunk's landed by one bulk copy; the windows by TMA",              \
      kIgemmWgmmaKind<Tf32RoundedOverlapped>)

IMPLICIT_GEMM_WGMMA_VERSIONS(CGP_DEFINE_KERNEL_DESC)
