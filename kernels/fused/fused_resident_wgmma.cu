/*
 * fused_resident_wgmma.cu - the Hopper tensor-core fused kernels with the weights resident (library layer): tf32-v11
 * (version 32) and 3xtf32-v11 (version 33), tf32-v10's implicit GEMM on wgmma (implicit_gemm_wgmma.cuh) made
 * persistent, for the shapes whose converted weights of a block of output channels fit in shared memory.
 *
 * tf32-v10 spends, per tile, a fixed price that nothing overlaps at one block an SM: the launch of the block, the
 * first chunks' latency, the weights landed and converted again for every tile, the bias loads and the publication
 * of the sums (docs/perf-log.md, "Where tf32-v10's time goes"). Here a block pays those once:
 *
 *   grid          persistent: X blocks x the channel blocks (X = the SMs over the channel blocks), block (x, cb)
 *                 takes the contiguous tiles [x T / X, (x + 1) T / X) of all T tiles (image-major,
 *                 tile_loader.cuh's schedule) for output channels [64 cb, + 64) (32 where the tile has 32)
 *   weights       all of the block's weights, converted once at its start into the B layout of every chunk
 *                 (rounded as the tensor cores read them; 3xTF32 split into big and small), zero past Cin and
 *                 Cout: chunks x 18 KiB at 64 channels (3xTF32 twice that), so with tf32 Cin <= 64 on every
 *                 tile and up to 176 on the smallest, with 3xTF32 Cin <= 64 on the 32-channel tiles and up to 88
 *                 (choose). They land raw, a few chunks at a time, in the space the input chunks
 *                 use later, by 16-byte copies, and are converted as tf32-v10 converts a chunk's.
 *   chunks        the input windows alone land, kStages chunks ahead (4; 3xTF32 3), in one stream over the
 *                 block's (tile, chunk) pairs: the next tile's first chunks land while this tile's last ones and
 *                 its epilogue run. Chunk j lands in stage j % kStages, is converted into A buffer j % 2 while the
 *                 wgmmas of chunk j - 1 read the other, and its wgmmas read A and the resident B of its chunk.
 *   epilogue      per tile, as tf32-v10's: bias, GELU, masked sums per channel in each lane, then added over the
 *                 warp's lanes into the warp's double slot of each channel in shared memory; per image (its last
 *                 tile in the block) the slots are added in warp order and published once (reduction.cuh, the
 *                 persistent schedule's slots): deterministic, or atomic.
 * No K split. Both run
 * on an sm_90 GPU with a build for sm_90a (SM=90) and refuse other GPUs, builds and shapes whose weights do not fit,
 * with the reason.
 *
 * 3xtf32-v12 (35) is the same kernel (template parameter kTma) with each chunk's input window landed by TMA: thread
 * 0 starts one box copy (TmaWindow: 8 channels x TH + 2 rows x TW + 5 columns rounded up to 4, zeros outside x)
 * onto the stage's mbarrier, 3 stages, and every thread waits on that mbarrier before
 * converting the window; the copies of every thread, their addresses and the proxy fence's wait for them are gone
 * (docs/perf-log.md, "TMA windows"). It refuses what TMA cannot read (W % 4 != 0, tensor_map.cuh), where
 * 3xtf32-v11 runs; 3xTF32's bigger stages leave Cin <= 56 on the 16x16-pixel 32-channel tile (80 on the 8x8-pixel
 * one). (Its tf32 twin, tf32-v12, left the library: tf32-v16 below runs every shape it ran, and the H200's sample
 * lost at most 0.2% without it.)
 *
 * tf32-v16 (version 41) is the same TMA windows in tf32 with A from registers (wgmma's register-A form), its own
 * kernel (resident_fragment_wgmma_conv_gelu_mean): m64n64k8 with both operands from shared memory reads 4 KB a
 * 32-cycle wgmma, all of an SM's 128 bytes a cycle, beside which the window conversion (loads, stores, a barrier a
 * chunk) held the tensor pipe at 39% in tf32 (tf32-v12). Here the window lands by TMA in a FragmentWindow stage
 * (rows added so that a warp's fragment loads hit 32 banks), each thread loads and rounds its 24 values of a chunk
 * (load_fragments) and the 9 wgmmas read A from its registers and B from the resident weights (2 KB a wgmma). A
 * stage is released by an mbarrier arrival of each warp once it holds its fragments, and thread 0 refills it (chunk
 * k + 3 into chunk k - 1's stage at iteration k, 4 stages): no block barrier in the chunk loop, so a warpgroup
 * waiting for its wgmmas leaves the tensor cores to the others'. The epilogue (finish_tile) is the TMA kernel's,
 * after a tile's last chunk; each warp zeroes its own slots. tf32 only (3xTF32's big and small fragments would not
 * fit 128 registers with the accumulators); W % 4 = 0 and the resident weights' Cin as tf32-v11's.
 */
#include <stdint.h>

#include <type_traits>
#include <utility>

#include "implicit_gemm_wgmma.cuh"
#include "kernel_desc.cuh"
#include "tile_loader.cuh"

namespace {

/* How a resident kernel's input windows land and reach the tensor cores: by cp.async (tf32-v11) or TMA (3xtf32-v12),
 * converted into A buffers that the wgmmas read; or by TMA into FragmentWindow stages that each thread reads its A
 * fragments from (tf32-v16) */
enum ResidentStaging { kCpAsyncWindows, kTmaWindows, kRegisterFragments };

/* The shared memory of block B: the static doubles (a slot per warp and channel, the block's sums), the bias of its
 * channels and with TMA the stages' mbarriers (with register fragments also their release mbarriers), then, dynamic
 * (with TMA from a 128-byte boundary), two A buffers ([big][small]; none with register fragments), kStages landing
 * stages of input windows (Src's layout), and the resident B of every chunk ([big][small] each) */
template <int P, class B, int kStaging> struct Resident {
    static constexpr bool kTma = kStaging != kCpAsyncWindows;
    static constexpr bool kFragments = kStaging == kRegisterFragments;
    using Land = typename B::Land;
    using Src = std::conditional_t<kFragments, FragmentWindow<B>, std::conditional_t<kTma, TmaWindow<B>, Land>>;
    static constexpr int kStages = kFragments ? 4 : kTma || P == kTf32x3 ? 3 : 4;
    static constexpr int kAOpFloats = kFragments ? 0 : B::kPlanes * B::kAFloats;
    static constexpr int kChunkBFloats = B::kPlanes * B::kBFloats;
    static constexpr int kFixedFloats = 2 * kAOpFloats + kStages * Src::kInFloats;
    static constexpr size_t kStaticBytes = sizeof(double) * (B::kWarps * B::kBn + B::kBn) + sizeof(float) * B::kBn +
                                           16 + (kTma ? sizeof(uint64_t) * kStages * (kFragments ? 2 : 1) : 0);
    static constexpr size_t kAlignBytes = kTma ? 128 : 0; /* the dynamic memory aligned up to 128 bytes for TMA */
    static constexpr size_t dynamic_bytes(int chunks)
    {
        return kAlignBytes + sizeof(float) * (kFixedFloats + (size_t)chunks * kChunkBFloats);
    }
    static_assert(kStages >= 2, "the stage a chunk lands in is free: its chunk was converted an iteration before");
    static_assert(kAOpFloats % 32 == 0, "the landing stages 128 bytes apart from the dynamic memory's start");
    static_assert(!kFragments || P == kTf32, "register fragments: tf32 alone");
};

/* The block's weights into the resident B of every chunk at wres (chunk c at c x kChunkBFloats, zero past Cin and
 * Cout), through the scratch (the A buffers and the landing ring, free before the first input chunk lands): rounds
 * of kRound chunks land raw by cp.async as tf32-v10 lands them (Land's weight rows, kWStride apart; 16 bytes a copy
 * where kWhole), then ChunkConversion converts them. Every thread calls it; it ends with a barrier. */
template <int P, class B, class R, bool kWhole>
__device__ __forceinline__ void stage_resident_weights(const IgemmParams &p, int64_t c0, float *scratch, float *wres,
                                                       const ChunkConversion<P, B, typename R::Src> &conversion)
{
    using Land = typename B::Land;
    constexpr int kRound = R::kFixedFloats / Land::kWFloats, kWidth = kWhole ? 4 : 1;
    constexpr int kRow = kChunkK / kWidth, kCopies = B::kBn * kRow; /* copies an output channel, a chunk */
    static_assert(kRound >= 1, "a chunk's raw weights fit in the scratch");
    const uint32_t scratch_base = shared_address(scratch);
    for (int first = 0; first < p.chunks; first += kRound) {
        const int count = p.chunks - first < kRound ? p.chunks - first : kRound;
        /* copy i: output channel co, (input channel, tap) k, the same in every chunk of the round */
        for (int i = threadIdx.x; i < kCopies; i += B::kThreads) {
            const int co = i / kRow, k = i % kRow * kWidth;
            const int64_t c = c0 + co;
            int64_t ci0 = (int64_t)first * kChunk;
            const float *src = p.w + (c * p.cin + ci0) * kTaps + k;
            uint32_t dst = scratch_base + 4u * (uint32_t)(co * Land::kWStride + k);
            for (int q = 0; q < count; ++q, ci0 += kChunk, src += kChunkK, dst += 4u * Land::kWFloats) {
                const bool inside = c < p.cout && (kWhole || ci0 + k / kTaps < p.cin);
                if (kWhole)
                    cp_async_16(dst, inside ? src : p.w, inside ? 16u : 0u);
                else
                    cp_async_4(dst, inside ? src : p.w, inside ? 4u : 0u);
            }
        }
        cp_async_commit();
        cp_async_wait<0>();
        __syncthreads(); /* the round landed */
        for (int q = 0; q < count; ++q)
            conversion.convert_weights(scratch + q * Land::kWFloats, wres + (first + q) * R::kChunkBFloats);
        fence_proxy_async(); /* the scratch's writes ordered before TMA's (async proxy) into it, B before wgmma */
        __syncthreads();     /* the scratch is free */
    }
}

/* Before the block's first tile (finish_tile reads them after a barrier): every warp's slots zeroed, the bias of the
 * block's channels [c0, c0 + BN) copied, 0 past Cout */
template <class B>
__device__ __forceinline__ void init_epilogue(const IgemmParams &p, int64_t c0, double *warp_sums, float *bias)
{
    for (int i = threadIdx.x; i < B::kWarps * B::kBn; i += B::kThreads)
        warp_sums[i] = 0.0;
    if (threadIdx.x < B::kBn)
        bias[threadIdx.x] = c0 + threadIdx.x < p.cout ? p.b[c0 + threadIdx.x] : 0.0f;
}

/* The epilogue of the tile at `at`, whose sum acc holds, by every thread of the block: bias (the block's copy in
 * shared memory), GELU and masked sums per channel in each lane, added over the warp's lanes into the warp's double
 * slot of each channel (warp_sums, [warp][channel]); at the block's last tile of an image the slots are added in warp
 * order and published once (reduction.cuh, the persistent schedule's slots), and each warp zeroes its own slots
 * again (another warp may be on its next tile already: tf32-v16). acc is zeroed, and at and tile move to the next
 * tile. */
template <int P, class B>
__device__ __forceinline__ void finish_tile(const IgemmParams &p, const PersistentSchedule &g, float (&acc)[B::kBn / 2],
                                            TileCursor &at, int64_t &tile, int64_t t_end, int64_t c0,
                                            const float *bias, double *warp_sums, double *block_sums)
{
    constexpr int kBn = B::kBn;
    const int warp = threadIdx.x / 32, wg = warp / 4, lane = threadIdx.x % 32, group = lane / 4, n = at.n;
    float sum[kBn / 8][2];
    lane_gelu_sums<P, B::kTw>(
        p, reinterpret_cast<const float(&)[1][kBn / 8][4]>(acc),
        [&](int, int h) { return tile_pixel<B>(wg, 16 * (warp % 4) + group + 8 * h); }, /* m64 row */
        at.oy0, at.ox0, [&](int c) { return bias[c]; }, sum);
    zero_fill(acc);
    warp_channel_sums(sum, [&](int c, float channel_sum) { warp_sums[warp * kBn + c] += (double)channel_sum; });
    ++tile;
    at.next(p, B::kTh, B::kTw);
    if (tile == t_end || at.n != n) { /* the block's last tile of image n */
        sum_slots<kBn, B::kWarps, kBn>([&](int c) { return &warp_sums[c]; }, block_sums);
        for (int c = lane; c < kBn; c += 32) /* sum_slots' last barrier: every slot is read */
            warp_sums[warp * kBn + c] = 0.0;
        __syncwarp();
        ImageSlots slots = persistent_image_slots(g, n);
        slots.arrivals *= gridDim.y; /* every channel block publishes */
        publish_image_sums(p.red, n, c0, (int)(p.cout - c0 < kBn ? p.cout - c0 : kBn), block_sums, slots);
    }
}

template <int P, class B, bool kWhole, bool kTma>
__global__ void __launch_bounds__(B::kThreads, 1) resident_wgmma_conv_gelu_mean(
    const IgemmParams p, const PersistentSchedule g, const __grid_constant__ CUtensorMap map)
{
    record_path(p.path_record, ((kTma ? CGP_PATH_RESIDENT_TMA_TILE0 : CGP_PATH_RESIDENT_TILE0) + tile_index<B>()) |
                                   weights_width_flag(kWhole));
    using R = Resident<P, B, kTma ? kTmaWindows : kCpAsyncWindows>;
    using Land = typename B::Land;
    using Src = typename R::Src;
    constexpr int kTh = B::kTh, kTw = B::kTw, kWarps = B::kWarps, kBn = B::kBn, kStages = R::kStages;
    constexpr uint32_t kInBytes = 4u * Src::kInFloats, kAOpBytes = 4u * R::kAOpFloats;
    constexpr uint32_t kChunkBBytes = 4u * R::kChunkBFloats;
    __shared__ double warp_sums[kWarps * kBn]; /* [warp][channel]: the warp's sums over the image's tiles so far */
    __shared__ double block_sums[kBn];
    __shared__ float bias[kBn]; /* of the block's channels, 0 past Cout */
    __shared__ uint64_t landed[kTma ? kStages : 1]; /* TMA: stage s's chunk landed (a phase a chunk) */
    float *ops = reinterpret_cast<float *>(dynamic_smem());
    if constexpr (kTma)
        ops += (R::kAlignBytes - shared_address(ops) % R::kAlignBytes) % R::kAlignBytes / sizeof(float);
    float *ring = ops + 2 * R::kAOpFloats, *wres = ring + kStages * Src::kInFloats;
    const uint32_t ops_base = shared_address(ops), ring_base = shared_address(ring), wres_base = shared_address(wres);

    const int64_t c0 = (int64_t)blockIdx.y * kBn;
    const int64_t t_begin = persistent_tile_begin(g), t_end = persistent_tile_end(g);
    const int chunks = p.chunks, total = (int)(t_end - t_begin) * chunks; /* 32-bit: the host checks */
    const int wg = threadIdx.x / 128;

    /* The copies: the block's (tile, chunk) pairs in order, pair j = (tile t_begin + j / chunks, chunk j % chunks),
     * by cp.async (every thread) or TMA (thread 0, one box a chunk) */
    StageCopies<Land, kWhole, kCopyInput> copies;
    TileCursor copy_at(g, t_begin, kTh, kTw);
    int copy_chunk = 0;
    auto copy_next = [&](int stage) {
        if constexpr (kTma) {
            if (threadIdx.x == 0)
                land_window_box<Src>(p, map, copy_at, copy_chunk, ring_base + stage * kInBytes,
                                     shared_address(&landed[stage]));
        } else {
            if (copy_chunk == 0)
                copies.init(p, p.x + (int64_t)copy_at.n * p.cin * p.h * p.wd, copy_at.oy0, copy_at.ox0, c0);
            copies.issue(p, c0, copy_chunk, ring_base + stage * kInBytes);
        }
        if (++copy_chunk == chunks) {
            copy_chunk = 0;
            copy_at.next(p, kTh, kTw);
        }
    };
    /* Chunk j is in its stage: TMA, its mbarrier's phase j / kStages; cp.async, the caller's wait and barrier */
    auto wait_landed = [&](int j) {
        if constexpr (kTma)
            mbarrier_ring_wait<kStages>(landed, j);
    };
    init_epilogue<B>(p, c0, warp_sums, bias); /* read after stage_resident_weights' barriers */
    if (kTma && threadIdx.x == 0)
#pragma unroll
        for (int s = 0; s < kStages; ++s)
            mbarrier_init(shared_address(&landed[s]));
    ChunkConversion<P, B, Src> conversion;
    if constexpr (kTma)
        conversion.init(Src::lead(p.pad));
    else
        conversion.init();
    stage_resident_weights<P, B, R, kWhole>(p, c0, ops, wres, conversion); /* ends with a barrier */
#pragma unroll
    for (int s = 0; s < kStages; ++s) {
        if (s < total)
            copy_next(s);
        if (!kTma)
            cp_async_commit();
    }
    if (!kTma) {
        cp_async_wait<kStages - 1>();
        __syncthreads(); /* chunk 0 landed */
    }
    if (total > 0) {
        wait_landed(0);
        conversion.convert_input(ring, ops);
    }
    fence_proxy_async(); /* the weights and A buffer 0, for the tensor cores */
    if (!kTma)
        cp_async_wait<kStages - 2>();
    __syncthreads(); /* A buffer 0 is ready (cp.async: chunk 1 landed) */

    float acc[kBn / 2], part[kBn / 2];
    zero_fill(acc);
    int64_t tile = t_begin;
    TileCursor at(g, t_begin, kTh, kTw);
    int chunk = 0;
    for (int k = 0; k < total; ++k) {
        wgmma_fence();
        issue_chunk<P, B>(ops_base + k % 2 * kAOpBytes, wres_base + chunk * kChunkBBytes, wg, part);
        wgmma_commit();
        if (k + 1 < total) { /* while the tensor cores run */
            wait_landed(k + 1);
            conversion.convert_input(ring + (k + 1) % kStages * Src::kInFloats, ops + (k + 1) % 2 * R::kAOpFloats);
            fence_proxy_async();
        }
        if (k + kStages < total) /* into the stage of chunk k, converted an iteration ago */
            copy_next(k % kStages);
        if (!kTma)
            cp_async_commit();
        wgmma_wait<0>();
        add_chain(acc, part);
        if (++chunk == chunks) { /* the tile's sum is whole: its epilogue */
            chunk = 0;
            finish_tile<P, B>(p, g, acc, at, tile, t_end, c0, bias, warp_sums, block_sums);
        }
        if (!kTma)
            cp_async_wait<kStages - 2>();
        __syncthreads(); /* the next A buffer is ready and the one just read is free (cp.async: chunk k + 2 landed) */
    }
}

/* tf32-v16: the TMA windows with A from registers. No A buffers and no conversion of the windows: each thread loads its
 * fragments of a landed window (load_fragments: 24 values, rounded) and the wgmmas take them from its registers, B
 * from the resident weights. A stage is free again once every warp has its fragments (the stage's release mbarrier,
 * an arrival a warp), so the warpgroups run their chunks without a block barrier, each waiting only for its own
 * wgmmas; while one waits, the others' wgmmas keep the tensor cores busy. Thread 0 lands the windows, 4 stages,
 * refilling the stage of chunk k - 1 with chunk k + 3 at iteration k once all warps released it. */
template <class B, bool kWhole>
__global__ void __launch_bounds__(B::kThreads, 1) resident_fragment_wgmma_conv_gelu_mean(
    const IgemmParams p, const PersistentSchedule g, const __grid_constant__ CUtensorMap map)
{
    record_path(p.path_record, (CGP_PATH_RESIDENT_FRAGMENT_TILE0 + tile_index<B>()) | weights_width_flag(kWhole));
    using R = Resident<kTf32, B, kRegisterFragments>;
    using Win = typename R::Src;
    constexpr int kTh = B::kTh, kTw = B::kTw, kWarps = B::kWarps, kBn = B::kBn, kStages = R::kStages;
    constexpr uint32_t kInBytes = 4u * Win::kInFloats, kChunkBBytes = 4u * R::kChunkBFloats;
    __shared__ double warp_sums[kWarps * kBn]; /* [warp][channel]: the warp's sums over the image's tiles so far */
    __shared__ double block_sums[kBn];
    __shared__ float bias[kBn];            /* of the block's channels, 0 past Cout */
    __shared__ uint64_t landed[kStages];   /* stage s's window landed (a phase a chunk) */
    __shared__ uint64_t released[kStages]; /* every warp has its fragments of stage s (a phase a chunk) */
    float *ring = reinterpret_cast<float *>(dynamic_smem());
    ring += (R::kAlignBytes - shared_address(ring) % R::kAlignBytes) % R::kAlignBytes / sizeof(float);
    float *wres = ring + kStages * Win::kInFloats;
    const uint32_t ring_base = shared_address(ring), wres_base = shared_address(wres);

    const int64_t c0 = (int64_t)blockIdx.y * kBn;
    const int64_t t_begin = persistent_tile_begin(g), t_end = persistent_tile_end(g);
    const int chunks = p.chunks, total = (int)(t_end - t_begin) * chunks; /* 32-bit: the host checks */
    const int warp = threadIdx.x / 32, wg = warp / 4, lane = threadIdx.x % 32, group = lane / 4;

    /* Thread 0's copies: the block's (tile, chunk) pairs in order, one box a pair */
    TileCursor copy_at(g, t_begin, kTh, kTw);
    int copy_chunk = 0;
    auto copy_next = [&](int stage) {
        land_window_box<Win>(p, map, copy_at, copy_chunk, ring_base + stage * kInBytes, shared_address(&landed[stage]));
        if (++copy_chunk == chunks) {
            copy_chunk = 0;
            copy_at.next(p, kTh, kTw);
        }
    };
    init_epilogue<B>(p, c0, warp_sums, bias); /* read after stage_resident_weights' barriers */
    if (threadIdx.x == 0)
#pragma unroll
        for (int s = 0; s < kStages; ++s) {
            mbarrier_init(shared_address(&landed[s]));
            mbarrier_init<kWarps>(shared_address(&released[s]));
        }
    ChunkConversion<kTf32, B, Win> conversion; /* the weights' tasks alone */
    conversion.init();
    stage_resident_weights<kTf32, B, R, kWhole>(p, c0, ring, wres, conversion); /* ends with a barrier */
    if (threadIdx.x == 0)
        for (int s = 0; s < kStages && s < total; ++s)
            copy_next(s);

    /* the thread's first window value: channel lane % 4, the row and column of its fragments' first pixel; as an
     * index into the dynamic shared memory that the compiler cannot see through, else it derives it from threadIdx
     * again every chunk (18 of the chunk loop's 139 instructions before its first wgmma) */
    const int first = lane % 4 * Win::kPlane + (8 * (wg / B::kWx) + 2 * (warp % 4)) * Win::kRowStride +
                      8 * (wg % B::kWx) + group;
    const float *smem = reinterpret_cast<const float *>(dynamic_smem());
    int fragments = (int)(ring - smem) + first + Win::lead(p.pad);
    asm volatile("" : "+r"(fragments));
    float acc[kBn / 2], part[kBn / 2];
    zero_fill(acc);
    int64_t tile = t_begin;
    TileCursor at(g, t_begin, kTh, kTw);
    int chunk = 0;
    for (int k = 0; k < total; ++k) {
        const int stage = k % kStages;
        mbarrier_ring_wait<kStages>(landed, k);
        uint32_t a[kTaps][4];
        load_fragments<Win>(smem + fragments + stage * Win::kInFloats, a);
        __syncwarp();
        if (lane == 0)
            mbarrier_arrive(shared_address(&released[stage]));
        wgmma_fence();
        issue_chunk_fragments<B>(a, wres_base + chunk * kChunkBBytes, part);
        wgmma_commit();
        if (threadIdx.x == 0 && k >= 1 && k - 1 + kStages < total) { /* chunk k + 3 into chunk k - 1's stage */
            const int prior = (k - 1) % kStages;
            mbarrier_ring_wait<kStages>(released, k - 1);
            copy_next(prior);
        }
        wgmma_wait<0>();
        add_chain(acc, part);
        if (++chunk == chunks) { /* the tile's sum is whole: its epilogue */
            chunk = 0;
            finish_tile<kTf32, B>(p, g, acc, at, tile, t_end, c0, bias, warp_sums, block_sums);
        }
    }
}

/* ---- host ---- */

/* Whether block B's shared memory, with the resident weights of Cin input channels, fits the GPU's */
template <int P, class B, int kStaging> bool fits(const cgp_problem *p, const cgp_device_info *d)
{
    using R = Resident<P, B, kStaging>;
    return R::dynamic_bytes((int)ceil_div(p->cin, kChunk)) + R::kStaticBytes <= d->smem_per_block_optin;
}

template <int P, int kStaging> bool tile_fits(int tile, const cgp_problem *p, const cgp_device_info *d)
{
    return with_tile_blocks<P>(tile, [&](auto t) { return fits<P, typename decltype(t)::Block, kStaging>(p, d); });
}

/* The persistent schedule of tile shape t: X blocks along x, at least 1, at most the tiles */
PersistentSchedule schedule(const cgp_problem *p, const cgp_device_info *d, const TileShape &t)
{
    const ImplicitGemmGeometry geo = implicit_gemm_geometry(p, 8 * t.wy, 8 * t.wx, t.bn);
    PersistentSchedule g;
    g.tiles_x = geo.tiles_x;
    g.tiles_per_image = geo.tiles_per_image;
    g.total_tiles = p->n * geo.tiles_per_image;
    const int64_t sms = d->sm_count > 0 ? d->sm_count : 1, x = sms / geo.channel_blocks > 1 ? sms / geo.channel_blocks : 1;
    g.blocks = (int)(x < g.total_tiles ? x : g.total_tiles);
    return g;
}

/* Of the tiles whose weights fit, the one of least estimated time; {-1, 1} where none fits. Only 32 channels a
 * block where Cout needs no more. Time: the block's tiles (its share of the T tiles) x chunks x the tile's pixels x
 * (BN + 64) (the products, and the input conversion, which a block of 32 channels pays for half as many products)
 * over the tile's measured rate (warpgroup_rate). */
template <int P, int kStaging> TileSplit choose(const cgp_problem *p, const cgp_device_info *d)
{
    static const int kOneSplit[] = {1};
    const int64_t chunks = ceil_div(p->cin, kChunk);
    return least_cost(p->cout <= 32 ? 3 : 0, kTileCount, kOneSplit, [&](int i, int) {
        if (!tile_fits<P, kStaging>(i, p, d))
            return -1.0;
        const TileShape &t = kTileShapes[i];
        const PersistentSchedule g = schedule(p, d, t);
        const double tiles = (double)ceil_div(g.total_tiles, g.blocks);
        return tiles * (double)chunks * (64.0 * t.wy * t.wx) * (t.bn + 64) / warpgroup_rate(t);
    });
}

/* The kernels of block B staged by kStaging (whole chunks where Cin % 8 = 0 and the weights are aligned), their shared
 * memory (the resident weights of every chunk) and paths from kPath0 */
template <int P, class B, int kStaging>
void configure_blocks(const cgp_problem *p, cgp_kernel_config *c, unsigned path0)
{
    using R = Resident<P, B, kStaging>;
    for (int misaligned = 0; misaligned < 2; ++misaligned) {
        const bool whole = whole_chunks(p, misaligned);
        if constexpr (R::kFragments)
            c->kernel[misaligned] =
                whole ? reinterpret_cast<const void *>(&resident_fragment_wgmma_conv_gelu_mean<B, true>)
                      : reinterpret_cast<const void *>(&resident_fragment_wgmma_conv_gelu_mean<B, false>);
        else
            c->kernel[misaligned] =
                whole ? reinterpret_cast<const void *>(&resident_wgmma_conv_gelu_mean<P, B, true, R::kTma>)
                      : reinterpret_cast<const void *>(&resident_wgmma_conv_gelu_mean<P, B, false, R::kTma>);
        c->path[misaligned] = (path0 + (unsigned)c->tile) | weights_width_flag(whole);
    }
    c->smem_bytes = R::dynamic_bytes((int)ceil_div(p->cin, kChunk));
}

/* Launches the configured kernel of block B staged by kStaging */
template <int P, class B, int kStaging>
cudaError_t launch_blocks(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *d,
                          cudaStream_t stream)
{
    using R = Resident<P, B, kStaging>;
    constexpr bool kTma = R::kTma;
    const TileShape &t = kTileShapes[c->tile];
    const ImplicitGemmGeometry geo = implicit_gemm_geometry(&a->p, 8 * t.wy, 8 * t.wx, t.bn);
    PersistentSchedule g = schedule(&a->p, d, t);
    IgemmParams p = implicit_gemm_params(a, geo);
    CUtensorMap map; /* the boxes of the kernel's window: tf32-v16's FragmentWindow, else TmaWindow */
    if (!tma_window_map<B, kTma, std::conditional_t<R::kFragments, typename R::Src, TmaWindow<B>>>(&map, a))
        return cudaErrorInvalidValue;
    void *args[] = {&p, &g, &map};
    /* cudaLaunchKernel reports this launch's status only, not an error the caller left behind */
    return cudaLaunchKernel(c->kernel[cgp_weights_misaligned(a->weight)],
                            dim3((unsigned)g.blocks, (unsigned)geo.channel_blocks), dim3(B::kThreads), args,
                            c->smem_bytes, stream);
}

/* The hooks (kernel_desc.cuh) of tf32-v11 and 3xtf32-v11 (input windows by cp.async), of 3xtf32-v12 (by TMA) and
 * of tf32-v16 (by TMA, A from registers) */
template <int P, int kStagingOf> struct ResidentWgmmaVersion : NoStageSplit {
    static constexpr int kStaging = kStagingOf;
    static constexpr cgp_precision precision = (cgp_precision)P;
    static constexpr bool kTma = kStaging != kCpAsyncWindows;
    static constexpr unsigned kPath0 = kStaging == kRegisterFragments ? CGP_PATH_RESIDENT_FRAGMENT_TILE0
                                       : kTma                         ? CGP_PATH_RESIDENT_TMA_TILE0
                                                                      : CGP_PATH_RESIDENT_TILE0;
    static constexpr auto kPaths = with_weights_4b(path_run<kTileCount>(kPath0));

    static const char *unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        if (const char *why = wgmma_gpu_unsupported(d))
            return why;
        if (kTma) {
            const char *why = input_tensor_map_unsupported(p, d);
            if (why != NULL)
                return why;
        }
        const TileSplit c = choose<P, kStaging>(p, d);
        if (c.tile < 0)
            return P == kTf32 ? "needs a block's converted weights in shared memory, 9 KiB per 8 input channels "
                                "and 32 output channels: too many input channels (tf32-v10 runs any Cin)"
                              : "needs a block's converted weights, big and small, in shared memory, 18 KiB per 8 "
                                "input channels and 32 output channels: too many input channels (3xtf32-v10 runs "
                                "any Cin)";
        const TileShape &t = kTileShapes[c.tile];
        const ImplicitGemmGeometry geo = implicit_gemm_geometry(p, 8 * t.wy, 8 * t.wx, t.bn);
        const PersistentSchedule g = schedule(p, d, t);
        if (ceil_div(g.total_tiles, g.blocks) * ceil_div(p->cin, kChunk) > INT32_MAX)
            return "more than 2^31-1 (tile, chunk) pairs a block";
        if (p->h > INT32_MAX - 64 || p->w > INT32_MAX - 64)
            return "needs H and W below 2^31 - 64 (32-bit tile coordinates)";
        return implicit_gemm_grid_unsupported(p, geo);
    }

    static void configure(const cgp_problem *p, const cgp_device_info *d, cgp_kernel_config *c)
    {
        c->tile = choose<P, kStaging>(p, d).tile; /* one that fits: unsupported said so */
        c->staging = kTma;
        c->workspace_bytes = persistent_workspace_bytes(p, schedule(p, d, kTileShapes[c->tile]));
        with_tile_blocks<P>(c->tile, [&](auto t) {
            configure_blocks<P, typename decltype(t)::Block, kStaging>(p, c, kPath0);
        });
    }

    static cudaError_t launch(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *d,
                              cudaStream_t stream)
    {
        return with_tile_blocks<P>(c->tile, [&](auto t) {
            return launch_blocks<P, typename decltype(t)::Block, kStaging>(a, c, d, stream);
        });
    }
};

using Tf32ByCpAsync = ResidentWgmmaVersion<kTf32, kCpAsyncWindows>;
using Tf32x3ByCpAsync = ResidentWgmmaVersion<kTf32x3, kCpAsyncWindows>;
using Tf32x3ByTma = ResidentWgmmaVersion<kTf32x3, kTmaWindows>;
using Tf32RegisterFragments = ResidentWgmmaVersion<kTf32, kRegisterFragments>;

/* The shared memory a block of an H100 or H200 may have, for which a version's Cin limits are declared */
constexpr size_t kResidentSmemBytes = 227 * 1024;

/* The most input channels (whole chunks) whose resident weights fit tile I's block in kResidentSmemBytes */
template <int P, int kStaging, int I> constexpr int most_cin()
{
    using R = Resident<P, TileBlocks<P, I>, kStaging>;
    constexpr size_t kFixed = R::dynamic_bytes(0) + R::kStaticBytes;
    return kFixed > kResidentSmemBytes
               ? 0
               : (int)((kResidentSmemBytes - kFixed) / (sizeof(float) * R::kChunkBFloats)) * kChunk;
}
/* The most over its tiles: the Cin a version runs (on a 32-channel tile, which choose takes for any Cout) */
template <int P, int kStaging, int... I> constexpr int most_cin_of(std::integer_sequence<int, I...>)
{
    int most = 0;
    ((most = most_cin<P, kStaging, I>() > most ? most_cin<P, kStaging, I>() : most), ...);
    return most;
}

/* What version V (the hooks of a precision and staging) is: the weights resident, persistent, K whole; the windows by
 * cp.async or by TMA; tf32-v16's A from registers; the Cin its weights allow in an H100's or H200's shared memory */
template <class V>
constexpr Kind kResidentKind =
    kWgmmaImplicitGemmKind.staging(V::kStaging == kCpAsyncWindows ? CGP_STAGING_CP_ASYNC : CGP_STAGING_TMA)
        .weights(CGP_WEIGHTS_RESIDENT)
        .persistent()
        .loop(V::kStaging == kRegisterFragments ? CGP_LOOP_A_IN_REGISTERS : CGP_LOOP_PLAIN)
        .cin_max(most_cin_of<V::precision, V::kStaging>(std::make_integer_sequence<int, kTileCount>()))
        .smem(kResidentSmemBytes);

} // namespace

/* Its paths' names (path_names.cuh), from kTileShapes: the input windows by cp.async, by TMA, and A from registers */
CGP_DEFINE_PATH_NAMES(cgp_paths_resident, CGP_PATH_RESIDENT_TILE0,
                      tile_path_names("resident ", kTileShapes, path_tile_of, {1}))
CGP_DEFINE_PATH_NAMES(cgp_paths_resident_tma, CGP_PATH_RESIDENT_TMA_TILE0,
                      tile_path_names("resident TMA ", kTileShapes, path_tile_of, {1}))
CGP_DEFINE_PATH_NAMES(cgp_paths_resident_fragment, CGP_PATH_RESIDENT_FRAGMENT_TILE0,
                      tile_path_names("resident, A from registers, ", kTileShapes, path_tile_of, {1}))

/* X(descriptor, hooks, version, name, summary, kind) for each version of this file */
#define RESIDENT_WGMMA_VERSIONS(X)                                                                                     \
    X(cgp_kernel_tf32_v11, Tf32ByCpAsync, 32, "tf32-v11",                                                              \
      "implicit GEMM on wgmma, persistent, the weights resident: a block converts all its weights into shared "        \
      "memory once, then streams its tiles' input chunks 4 ahead by cp.async across tiles (16x16, 8x16 or "            \
      "8x8-pixel x 64 or 32-channel tiles) and publishes each image once; no K split (the heuristic passes it over "   \
      "where the blocks get few tiles)",                                                                               \
      kResidentKind<Tf32ByCpAsync>)                                                                                    \
    X(cgp_kernel_tf32x3_v11, Tf32x3ByCpAsync, 33, "3xtf32-v11",                                                        \
      "implicit GEMM on wgmma with the 3xTF32 split (fp32-level accuracy), persistent: big and small weights "         \
      "resident in shared memory, the input chunks streamed 3 ahead by cp.async across tiles, 27 wgmmas a chunk, "     \
      "gelu_x2_fine",                                                                                                  \
      kResidentKind<Tf32x3ByCpAsync>)                                                                                  \
    X(cgp_kernel_tf32x3_v12, Tf32x3ByTma, 35, "3xtf32-v12",                                                            \
      "implicit GEMM on wgmma with the 3xTF32 split (fp32-level accuracy), persistent: big and small weights "         \
      "resident in shared memory, each input window landed by one TMA box copy a chunk, 3 chunks ahead, 27 wgmmas "    \
      "a chunk, gelu_x2_fine",                                                                                         \
      kResidentKind<Tf32x3ByTma>)                                                                                      \
    X(cgp_kernel_tf32_v16, Tf32RegisterFragments, 41, "tf32-v16",                                                     \
      "implicit GEMM on wgmma, persistent, the weights resident, A from registers (wgmma's register-A form): each "    \
      "input window landed by TMA into a ring of 4 stages; each thread loads and rounds its A fragments straight "     \
      "from the landed window (no conversion pass or A buffers) and a warp releases a stage by an mbarrier "           \
      "arrival, so the warpgroups run their chunks without a block barrier",                                           \
      kResidentKind<Tf32RegisterFragments>)

RESIDENT_WGMMA_VERSIONS(CGP_DEFINE_KERNEL_DESC)
