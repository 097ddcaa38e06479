/*
 * fused_ws_wgmma.cu - the warp-specialised wgmma implicit GEMM (library layer), issue 39's family: tf32-v21 (version
 * 46) and 3xtf32-v21 (version 47), one kernel template over its precision, its channels, the staging of the input
 * windows (WsStaging: TMA, or the producer's cp.async) and the K split. Its siblings left the family: tf32-v19 (44),
 * the weights rounded by the producer a chunk at a time, measured about 2x slower on every shape; tf32-v20 (45), A
 * staged by the producer in wgmma's layout with two chains overlapped, the measured best on a few shapes by at most
 * 3.6% (docs/perf-log.md, "tf32-v19, v20 and v21: the first measurement" and "Retired versions"). tf32-v16
 * (fused_resident_wgmma.cu) holds every tile's weights resident, so it runs only Cin <= 64, and its four warpgroups
 * each stage, round and multiply their own share, 64 channels wide; here the roles are split:
 *
 *   block         3 warpgroups, 384 threads, one block an SM. Warpgroup 0 is the producer (setmaxnreg down), warpgroups
 *                 1 and 2 the consumers (setmaxnreg up): consumer c computes the 8 x 8 pixel block at column 8 c of an
 *                 8 x 16 pixel tile x BN = 128 or 64 output channels (one m64nBN accumulator a warpgroup; WsBlock,
 *                 ws_choose).
 *   producer      per (tile, chunk) pair of the block, in order, it fills a stage of an mbarrier ring (up to 4) once
 *                 the consumers released it (ws_produce): the weights rounded once a launch (round_weights_once,
 *                 tf32-v15's), a chunk's B landed by one bulk copy, and the window by one TMA box straight into the
 *                 stage (tf32-v16's FragmentWindow): the producer only starts copies; where TMA cannot read the
 *                 window (W % 4 != 0), each producer thread copies its positions of the box by cp.async (4 bytes,
 *                 zeros outside the image) and arrives on the stage's mbarrier once they landed.
 *   consumers     per pair: wait for the stage, load and round each thread's A fragments from the stage's window
 *                 (tf32-v16's), issue the chunk's 9 m64nBNk8 wgmmas into a fresh chain, wait for it, release the
 *                 stage once they are done, add the chain into the running sum (FADD: the tensor cores' truncating
 *                 accumulation never runs past a chunk) (ws_consume).
 *   schedule      persistent: X clusters x the channel blocks (X = the clusters the GPU holds over the channel
 *                 blocks), cluster (x, cb) takes the contiguous tiles [x T / X, (x + 1) T / X) of all T tiles
 *                 (tile_loader.cuh's schedule).
 *   two images    where the output is at most 8 columns wide (ws_pairable) and it costs less (ws_choose), a tile holds
 *                 two images side by side, consumer c's 8 x 8 pixel block image 2 u + c of the schedule's unit u (a
 *                 pair of images): the producer's cp.async copies fill the window's columns from 8 + lead on from the
 *                 second image (the column both blocks read is zero padding for both), so the fragments and the
 *                 wgmmas are the one-image tile's, and the epilogue masks and sums each block as its image's;
 *                 7 x 7 images fill 98 of a tile's 128 pixels, not 49.
 *   K split       where the tiles cannot fill the GPU (deep layers on small images; ws_choose), a cluster of 2 or 4
 *                 blocks along z: each block takes a consecutive share of every tile's chunks, and at the tile's
 *                 end the blocks exchange their partial sums through distributed shared memory
 *                 (ws_exchange_partials): each adds the blocks' partials of its share of the channels in rank
 *                 order, so the sums are the same whichever block finishes them, and finishes that share.
 *   epilogue      after a tile's last chunk, the consumers alone (ws_finish_tile): bias, GELU, masked sums per
 *                 channel in each lane, added over the warp's lanes into the warp's double slot of each channel; at
 *                 the block's last tile of an image the 8 consumer warps' slots are added in warp order and published
 *                 once (reduction.cuh on the consumers' ThreadRange, their own named barrier): deterministic, or
 *                 atomic. The producer runs on, kStages pairs ahead.
 *   3xTF32        3xtf32-v21: the same with every operand split into big and small (tf32-v15's split): the weights
 *                 once a launch into both planes, a stage's B the two; a consumer thread splits its A fragments as
 *                 it loads them (72 registers) and issues a chunk's 27 wgmmas, the 18 corrections first. 64
 *                 channels a block only: beside the split fragments, the 128-channel chain and sum (128 registers)
 *                 would not fit a consumer's share of the block's registers.
 * It runs on an sm_90 GPU with a build for sm_90a (SM=90) and refuses other GPUs and builds with the reason.
 */
#include <stdint.h>

#include <iterator>
#include <utility>

#include "implicit_gemm_wgmma.cuh"
#include "kernel_desc.cuh"
#include "path_names.cuh"
#include "tile_loader.cuh"

namespace {

constexpr int kWarpgroupThreads = 128;
constexpr int kWsThreads = 3 * kWarpgroupThreads;
constexpr size_t kBlockSmem = kSmemBudget + 4096; /* an H100/H200 block's opt-in shared memory, static included */
/* the registers a thread of the block at launch (__launch_bounds__(kWsThreads, 1): the SM's 65536 over its threads,
 * in ptxas's steps of 8), which setmaxnreg redistributes */
constexpr int kLaunchRegisters = 65536 / kWsThreads / 8 * 8;

using Consumers = ThreadRange<kWarpgroupThreads, 2 * kWarpgroupThreads, 2>;

/* How the input window reaches the stage, from which each consumer thread loads its A fragments into registers: by
 * TMA or, where TMA cannot read it (W % 4 != 0), by the producer threads' cp.async copies in the TMA box's layout;
 * or, for images at most 8 output columns wide, two images side by side (ws_pairable), by cp.async: the consumers'
 * 8 x 8 pixel blocks each an image's, so that a tile holds twice the pixels. The values number the paths
 * (ws_path); 0 was tf32-v20's A staged by the producer, whose path ids stay taken (kernel_info.h). */
enum WsStaging {
    kWsRegisterA = 1,       /* the window by TMA */
    kWsRegisterACopied = 2, /* where TMA cannot read the window: the window by cp.async */
    kWsPairedImages = 3     /* two images a tile, the window by cp.async */
};
__host__ __device__ constexpr bool copied_window(int staging) { return staging != kWsRegisterA; }
__host__ __device__ constexpr bool paired_images(int staging) { return staging == kWsPairedImages; }

/* The producer's cp.async copies of window Win (where TMA cannot read it; WindowPositionCopies): every
 * position of the TMA box's channel plane (Win's layout, the rows and columns no fragment reads included), image
 * element or zero, a producer thread a position */
template <class Win> struct WsBoxCopies {
    static constexpr int kArea = Win::kPlane, kRowStride = Win::kRowStride, kPlane = Win::kPlane;
    static constexpr int kThreads = kWarpgroupThreads;
};

/* The channel blocks of BN (128 or 64), in the order of the path ids */
constexpr int kWsChannels[] = {128, 64};
/* The clusters K may be split over (1: K whole): 2 or 4 blocks at 128 channels, 2 at 64 (a block's share of the
 * channels 32 wide at least: warp_channel_sums) */
constexpr int kWsSplits[] = {1, 2, 4};
constexpr bool ws_split_offered(int bn, int split) { return split == 1 || split == 2 || (split == 4 && bn == 128); }
/* The channel blocks of precision P: both in tf32, 64 in 3xTF32 (the split fragments beside the accumulators) */
constexpr bool ws_channels_offered(int precision, int bn) { return precision == kTf32 || bn == 64; }

/* The block of BN output channels, one of a cluster of kSplit that split K (1: K whole): the consumers' tile (Blocks:
 * 1 x 2 warpgroups, 8 x 16 pixels) and the shared memory, from a 128-byte boundary: kStages stages, each [the input
 * window (FragmentWindow)][B, rounded once a launch], then with K split the consumers' partial sums of a tile (every
 * consumer thread's BN / 2 accumulators, [float4 of the thread][thread]: a warp's 16-byte stores and loads
 * contiguous); the window lands by TMA (or the producer's cp.async), B by one bulk copy, and the consumers load their
 * A fragments from the window. */
template <int P, int BN, int kStaging, int kSplit = 1> struct WsBlock {
    static_assert(ws_channels_offered(P, BN), "3xTF32: 64 channels a block");
    static constexpr int kPrecision = P, kWindowStaging = kStaging;
    static constexpr bool kCopiedWindow = copied_window(kStaging), kPaired = paired_images(kStaging);
    /* the images of a tile, each one consumer's 8 x 8 pixel block where two (the block's sums then a share of the
     * channels an image) */
    static constexpr int kTileImages = kPaired ? 2 : 1;
    using Tile = Blocks<P, 1, 2, BN>;
    using Win = FragmentWindow<Tile>;
    /* the block's view for round_weights_once: B's layout, rounded by all its threads */
    struct Rounding : Tile {
        static constexpr int kThreads = kWsThreads;
    };
    static constexpr int kBn = BN, kTh = Tile::kTh, kTw = Tile::kTw, kConsumerWarps = 8;
    static_assert(ws_split_offered(BN, kSplit), "a block's share of the channels 32 wide at least (warp_channel_sums)");
    static constexpr int kSplitBlocks = kSplit;
    static constexpr int kConsumerThreads = 2 * kWarpgroupThreads;
    /* the partial sums of a tile (K split): the accumulators' float4s of a consumer thread */
    static constexpr int kQuads = BN / 8;
    static constexpr int kPartialFloats = kSplit > 1 ? 4 * kQuads * kConsumerThreads : 0;
    /* the registers a thread after setmaxnreg: the producer's few (its cp.async copies keep a window position's offset
     * each: 96, 3xTF32 88), the consumers' accumulators (one chain and the fragments; 3xTF32's split fragments take
     * all the producer leaves: at 200 its cp.async kernels spilled); the three warpgroups within the block's 65536 /
     * 384 = 168 a thread at launch */
    static constexpr int kProducerRegisters = !kCopiedWindow ? 40 : P == kTf32 ? 96 : 88;
    static constexpr int kConsumerRegisters = P == kTf32 ? 200 : kCopiedWindow ? 208 : 232;
    static_assert(kWarpgroupThreads * (kProducerRegisters + 2 * kConsumerRegisters) <= kWsThreads * kLaunchRegisters,
                  "setmaxnreg within the block's registers (else setmaxnreg.inc waits for ever)");
    static constexpr int kAFloats = Win::kInFloats; /* a stage's first part, the window */
    static constexpr int kStageFloats = kAFloats + Tile::kRoundedUnitFloats; /* then B (3xTF32: big, small) */
    static constexpr size_t kAlignBytes = 128;
    /* the kernel's static shared memory: the warps' and the block's sums (of each image of a tile), the bias, the
     * mbarriers (4 stages at most, and the partial sums' two), the reduction's word */
    static constexpr size_t kStaticBytes = sizeof(double) * (kConsumerWarps * BN + kTileImages * BN) +
                                           sizeof(float) * BN + sizeof(uint64_t) * (2 * 4 + 2) + 16;
    static constexpr int kFit = (int)((kBlockSmem - kStaticBytes - kAlignBytes - sizeof(float) * kPartialFloats) /
                                      sizeof(float) / kStageFloats);
    static constexpr int kStages = kFit < 4 ? kFit : 4;
    /* a stage's `landed` arrivals a phase: thread 0's expect and each producer warp's, and with the window by
     * cp.async each producer thread's once its copies landed */
    static constexpr unsigned kLandedArrivals = 1 + kWarpgroupThreads / 32 + (kCopiedWindow ? kWarpgroupThreads : 0);
    /* a stage's `released` arrivals a phase: each consumer warp's, lane 0 once the warp's __syncwarp has ordered its
     * lanes' reads of the stage; with the window by cp.async each consumer thread's: the producer threads' copies
     * are shared-memory writes compute-sanitizer's racecheck tracks, and it does not see a warp's reads ordered
     * before lane 0's arrival (it reported each as a hazard; docs/perf-log.md, "tf32-v21 for every W") */
    static constexpr unsigned kReleasedArrivals = kConsumerWarps * (kCopiedWindow ? 32u : 1u);
    static constexpr size_t kSmemBytes =
        kAlignBytes + sizeof(float) * ((size_t)kStages * kStageFloats + (size_t)kPartialFloats);
    static_assert(kStages >= 2, "two stages at least: one filling while the consumers read the other");
    static_assert(kStageFloats % 32 == 0, "stages 128 bytes apart");
};

/* The block's shared state: the consumers' sums and bias, the stages' mbarriers, the dynamic memory's parts */
template <class W> struct WsShared {
    double *warp_sums, *block_sums; /* [consumer warp][channel]: the image's tiles so far; the block's totals (of
                                     * each image of a tile) */
    float *bias;                    /* of the block's channels, 0 past Cout */
    uint64_t *landed;   /* stage s is filled (a phase a pair) */
    uint64_t *released; /* every consumer warp is done with stage s (a phase a pair) */
    float *stages;
    /* K split: this block's partial sums of its tile (after the stages), and the mbarriers of their exchange, a phase
     * a tile: `partials_landed` (every block of the cluster has stored its partials of the tile), `partials_read`
     * (every block has read its share of this block's) */
    float *partials;
    uint64_t *partials_landed, *partials_read;
};

/* The producer warpgroup: per (tile, chunk) pair k of the block, in order, fills stage k % kStages once the consumers
 * released it (pair k - kStages): pair k's window by TMA (or by every producer thread's cp.async; two images side by
 * side where W::kPaired, the second from window column 8 + lead on, zeros where the tile's second image is past the
 * batch's `images`) and its rounded weights by one bulk copy, straight into the stage; it arrives on the stage's
 * `landed` mbarrier, a phase a pair: thread 0's expect (the bytes of its asynchronous copies into the stage), then
 * each producer warp once its stores are fenced (5 arrivals; with the cp.async window each thread's once its copies
 * landed too). */
template <class W>
__device__ __forceinline__ void ws_produce(const IgemmParams &p, const PersistentSchedule &g, const CUtensorMap &map,
                                           const WsShared<W> &sh, int64_t t_begin, int total, int chunk_begin,
                                           int chunk_end, int images)
{
    using Win = typename W::Win;
    constexpr bool kCopiedWindow = W::kCopiedWindow;
    constexpr int kStages = W::kStages, kTh = W::kTh, kTw = W::kTw;
    constexpr uint32_t kBBytes = 4u * W::Tile::kRoundedUnitFloats;
    const int chunks = p.chunks, lane = threadIdx.x % 32;
    TileCursor at(g, t_begin, kTh, kTw); /* pair k's tile and chunk */
    int chunk = chunk_begin;
    /* the window by cp.async: each thread's box positions in the image of pair k's tile (box column c at image column
     * box_x + c, as TMA reads it), worked out once a tile */
    struct NoCopies {};
    std::conditional_t<kCopiedWindow, WindowPositionCopies<WsBoxCopies<Win>, false>, NoCopies> copies;
    const int64_t image_floats = p.cin * p.h * p.wd;
    auto aim_copies = [&] {
        if constexpr (W::kPaired)
            copies.init_pair(p, at.oy0, Win::box_x(at.ox0, p.pad) + p.pad, 8 + Win::lead(p.pad),
                             2 * at.n + 1 < images, (int)image_floats);
        else if constexpr (kCopiedWindow)
            copies.init(p, at.oy0, Win::box_x(at.ox0, p.pad) + p.pad);
    };
    aim_copies();
    const float *rounded_w = p.rounded_w + (int64_t)blockIdx.y * chunks * W::Tile::kRoundedUnitFloats;
    for (int k = 0; k < total; ++k) {
        const int stage = k % kStages;
        if (k >= kStages) /* the consumers are done with pair k - kStages in this stage */
            mbarrier_ring_wait_previous<kStages>(sh.released, k);
        float *stage_at = sh.stages + stage * W::kStageFloats;
        const uint32_t landed = shared_address(&sh.landed[stage]);
        if (threadIdx.x == 0) {
            const uint32_t window_bytes = kCopiedWindow ? 0u : 4u * Win::kBoxFloats;
            mbarrier_arrive_expect(landed, kBBytes + window_bytes);
            if constexpr (!kCopiedWindow) /* the window, straight into the stage */
                tma_load_4d(shared_address(stage_at), &map, Win::box_x(at.ox0, p.pad), at.oy0 - p.pad, chunk * kChunk,
                            at.n, landed);
            bulk_load(shared_address(stage_at + W::kAFloats),
                      rounded_w + (int64_t)chunk * W::Tile::kRoundedUnitFloats, kBBytes, landed);
        }
        if constexpr (kCopiedWindow) { /* the window by every producer thread, landed: its arrival */
            copies.issue(p, p.x + (int64_t)W::kTileImages * at.n * image_floats, chunk, shared_address(stage_at));
            cp_async_arrive_on(landed);
        }
        fence_proxy_async(); /* the stage's stores, for the consumers' wgmmas (async proxy) */
        __syncwarp();
        if (lane == 0)
            mbarrier_arrive(landed);
        if (++chunk == chunk_end) {
            chunk = chunk_begin;
            at.next(p, kTh, kTw);
            aim_copies();
        }
    }
}

/* K split: the cluster's sum of the tile's accumulators over the share of the channels this block (rank r of the
 * cluster) finishes, [r BN / kSplit, (r + 1) BN / kSplit): each consumer thread stores its partial sums (acc: the
 * block's chunks) into the block's shared memory once every block read the last tile's, and arrives on every
 * block's `partials_landed`; then it adds its accumulators of the share from the kSplit blocks in rank order
 * (distributed shared memory; a fixed order, so det is bit-identical run to run), and arrives on every block's
 * `partials_read`. Every thread arrives for its own accesses (its fence.acq_rel.cluster, then relaxed arrivals;
 * compute-sanitizer's racecheck does not see one thread's arrival order the others' accesses, ordered before it by a
 * named barrier: it reported each remote read of the first version as a hazard). tile_no: the block's tiles before
 * this one (the mbarriers' phase). */
template <class W>
__device__ __forceinline__ void ws_exchange_partials(const float (&acc)[W::kBn / 2], const WsShared<W> &sh,
                                                     int tile_no, float (&share)[W::kBn / 2 / W::kSplitBlocks])
{
    constexpr int kSplit = W::kSplitBlocks, kQuads = W::kQuads, kShareQuads = kQuads / kSplit;
    constexpr int kThreads = W::kConsumerThreads;
    const int t = (int)Consumers::rank(), rank = (int)blockIdx.z; /* the cluster's rank: grid z is the cluster */
    const uint32_t partials = shared_address(sh.partials), landed = shared_address(sh.partials_landed),
                   read = shared_address(sh.partials_read);
    if (tile_no > 0) /* every block has read this block's partials of the last tile */
        mbarrier_wait_cluster(read, (uint32_t)(tile_no - 1) & 1u);
    float4 *mine = reinterpret_cast<float4 *>(sh.partials);
#pragma unroll
    for (int q = 0; q < kQuads; ++q)
        mine[q * kThreads + t] = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
    fence_cluster(); /* release: the thread's stores, before its arrivals */
    for (int b = 0; b < kSplit; ++b)
        mbarrier_arrive_cluster(landed, (uint32_t)b);
    mbarrier_wait_cluster(landed, (uint32_t)tile_no & 1u);
    for (int b = 0; b < kSplit; ++b) {
        const uint32_t theirs = cluster_shared_address(partials, (uint32_t)b);
#pragma unroll
        for (int q = 0; q < kShareQuads; ++q) {
            const float4 v = load_cluster_f4(theirs + 16u * (uint32_t)((rank * kShareQuads + q) * kThreads + t));
            const float4 sum = b == 0 ? v
                                      : make_float4(share[4 * q] + v.x, share[4 * q + 1] + v.y, share[4 * q + 2] + v.z,
                                                    share[4 * q + 3] + v.w);
            share[4 * q] = sum.x;
            share[4 * q + 1] = sum.y;
            share[4 * q + 2] = sum.z;
            share[4 * q + 3] = sum.w;
        }
    }
    fence_cluster(); /* release: the thread's reads, before its arrivals */
    for (int b = 0; b < kSplit; ++b)
        mbarrier_arrive_cluster(read, (uint32_t)b);
}

/* The slots of image j of the tile's unit (the image, or with W::kPaired the pair of images) `unit`: the persistent
 * schedule's, over its units, each image of a tile its own bank of them (ws_rounded_offset), and an arrival from every
 * channel block and every block of a cluster */
template <class W>
__device__ __forceinline__ ImageSlots ws_image_slots(const PersistentSchedule &g, int64_t unit, int j)
{
    ImageSlots s = persistent_image_slots(g, unit);
    const int64_t bank = (int64_t)gridDim.x + g.total_tiles / g.tiles_per_image;
    s.slot += j * bank;
    s.first += j * bank;
    s.arrivals *= gridDim.y * W::kSplitBlocks;
    return s;
}

/* The epilogue of the tile at `at`, whose sum acc holds (with K split, this block's chunks' part: the cluster's sum
 * of its share of the channels first, ws_exchange_partials), by the consumers (tf32-v16's finish_tile on their named
 * barrier): bias, GELU and masked sums per channel in each lane, added over the warp's lanes into the warp's double
 * slot of each channel; at the block's last tile of an image the 8 consumer warps' slots are added in warp order and
 * published once (reduction.cuh's persistent slots), each warp zeroing its own again. With two images a tile
 * (W::kPaired) a consumer warpgroup's pixels are its image's 8 x 8 from column 0, and at the block's last tile of the
 * pair each image's 4 warps' slots are added and published, the second's where it is in the batch (`images`). acc
 * is zeroed, at and tile move to the next tile. */
template <class W>
__device__ __forceinline__ void ws_finish_tile(const IgemmParams &p, const PersistentSchedule &g,
                                               float (&acc)[W::kBn / 2], TileCursor &at, int64_t &tile, int64_t t_begin,
                                               int64_t t_end, int64_t c0, const WsShared<W> &sh, int images)
{
    constexpr int kBn = W::kBn, kSplit = W::kSplitBlocks, kShare = kBn / kSplit, kImages = W::kTileImages;
    constexpr int kImageWarps = W::kConsumerWarps / kImages; /* the consumer warps of an image */
    const int cw = (int)Consumers::rank() / 32, wc = cw / 4, lane = threadIdx.x % 32, group = lane / 4, n = at.n;
    const int first = kSplit > 1 ? (int)blockIdx.z * kShare : 0; /* the block's share of the channels */
    const int block_column = W::kPaired ? 0 : wc; /* the warpgroup's 8 x 8 pixel block in its image's tile */
    float sum[kShare / 8][2];
    const auto gelu_sums = [&](const float(&v)[kShare / 2]) {
        lane_gelu_sums<W::kPrecision, W::kTw>(
            p, reinterpret_cast<const float(&)[1][kShare / 8][4]>(v),
            [&](int, int h) { return tile_pixel<typename W::Tile>(block_column, 16 * (cw % 4) + group + 8 * h); },
            at.oy0, at.ox0, [&](int c) { return sh.bias[first + c]; }, sum);
    };
    if constexpr (kSplit > 1) {
        float share[kShare / 2];
        ws_exchange_partials<W>(acc, sh, (int)(tile - t_begin), share);
        gelu_sums(share);
    } else {
        gelu_sums(acc);
    }
    zero_fill(acc);
    warp_channel_sums(sum,
                      [&](int c, float channel_sum) { sh.warp_sums[cw * kBn + first + c] += (double)channel_sum; });
    ++tile;
    at.next(p, W::kTh, W::kTw);
    if (tile == t_end || at.n != n) { /* the block's last tile of image (pair) n */
        /* block_sums[j kShare + c]: image j's channel c, its warps' slots in warp order */
        sum_slots<kImages * kShare, kImageWarps, kBn, Consumers>(
            [&](int c) { return &sh.warp_sums[c / kShare * kImageWarps * kBn + first + c % kShare]; }, sh.block_sums);
        for (int c = lane; c < kShare; c += 32) /* sum_slots' last barrier: every slot is read */
            sh.warp_sums[cw * kBn + first + c] = 0.0;
        __syncwarp();
        const int64_t c_first = c0 + first;
        for (int j = 0; j < kImages && (kImages == 1 || (int64_t)n * kImages + j < images); ++j)
            publish_image_sums<Consumers>(p.red, (int64_t)n * kImages + j, c_first, slice_channels(p, c_first, kShare),
                                          sh.block_sums + j * kShare, ws_image_slots<W>(g, n, j));
    }
}

/* The consumer warpgroups, per tile of the block: its chunks' pairs, each a fresh chain of 9 (3xTF32: 27) wgmmas
 * added into acc (FADD: the tensor cores' truncating accumulation never runs past a chunk), then ws_finish_tile: the
 * thread's A fragments loaded from the stage's window, the stage released once the chunk's wgmmas are done. */
template <class W>
__device__ __forceinline__ void ws_consume(const IgemmParams &p, const PersistentSchedule &g, const WsShared<W> &sh,
                                           int64_t c0, int64_t t_begin, int64_t t_end, int chunk_begin, int chunk_end,
                                           int images)
{
    using Win = typename W::Win;
    using Tile = typename W::Tile;
    constexpr int kStages = W::kStages, kBn = W::kBn;
    constexpr uint32_t kStageBytes = 4u * W::kStageFloats;
    const int rank = (int)Consumers::rank(), cw = rank / 32, wc = cw / 4, lane = threadIdx.x % 32;
    for (int i = rank; i < W::kConsumerWarps * kBn; i += (int)Consumers::size())
        sh.warp_sums[i] = 0.0;
    if (rank < kBn)
        sh.bias[rank] = c0 + rank < p.cout ? p.b[c0 + rank] : 0.0f;
    Consumers::sync(); /* the slots and the bias, before the first epilogue */

    const uint32_t stage_base = shared_address(sh.stages);
    const auto stage_b = [&](int k) { /* pair k's B in its stage, after the window */
        return stage_base + (uint32_t)(k % kStages) * kStageBytes + 4u * W::kAFloats;
    };
    auto wait_landed = [&](int k) {
        mbarrier_ring_wait<kStages>(sh.landed, k);
    };
    auto release = [&](int k) { /* after pair k's wgmmas are done */
        if constexpr (W::kCopiedWindow) {
            mbarrier_arrive(shared_address(&sh.released[k % kStages]));
        } else {
            __syncwarp();
            if (lane == 0)
                mbarrier_arrive(shared_address(&sh.released[k % kStages]));
        }
    };
    /* the thread's first window value (tf32-v16's): channel lane % 4, the row and column of its fragments' first
     * pixel, as an index the compiler cannot see through */
    int fragments = lane % 4 * Win::kPlane + 2 * (cw % 4) * Win::kRowStride + 8 * wc + lane / 4 + Win::lead(p.pad);
    asm volatile("" : "+r"(fragments));
    float acc[kBn / 2], part[kBn / 2];
    zero_fill(acc);
    TileCursor at(g, t_begin, W::kTh, W::kTw);
    int k = 0; /* the block's pair */
    for (int64_t tile = t_begin; tile < t_end;) {
        /* with K split (the small images), the warpgroup's 8 x 8 pixel block right of the image (an image 8 or fewer
         * columns wide, or the last column of tiles of one 1 to 8 columns past a multiple of 16), and with two images
         * a tile the second warpgroup's where the batch has an odd count and this is its last pair: it multiplies
         * nothing, so the other warpgroup's wgmmas have the tensor cores to themselves (its sums: masked pixels, or
         * an image not published); a loop of its own, and none in the unsplit kernels of one image a tile, whose
         * chunk loop stays as it was (the first run's skip inside the loop cost the unsplit shapes up to 11%) */
        const bool idle = W::kPaired ? 2 * at.n + wc >= images : W::kSplitBlocks > 1 && at.ox0 + 8 * wc >= p.wout;
        if (idle) {
            for (int c = chunk_begin; c < chunk_end; ++c, ++k) {
                wait_landed(k);
                release(k);
            }
        } else {
            for (int c = chunk_begin; c < chunk_end; ++c, ++k) {
                wait_landed(k);
                const float *window = sh.stages + k % kStages * W::kStageFloats + fragments;
                if constexpr (W::kPrecision == kTf32) {
                    uint32_t a[kTaps][4];
                    load_fragments<Win>(window, a);
                    wgmma_fence();
                    issue_chunk_fragments<Tile>(a, stage_b(k), part);
                } else {
                    uint32_t big[kTaps][4], small[kTaps][4];
                    load_fragments<Win>(window, big, small);
                    wgmma_fence();
                    issue_chunk_fragments<Tile>(big, small, stage_b(k), part);
                }
                wgmma_commit();
                wgmma_wait<0>();
                release(k);
                add_chain(acc, part);
            }
        }
        ws_finish_tile<W>(p, g, acc, at, tile, t_begin, t_end, c0, sh, images);
    }
}

/* The path id a kernel records: its tile and staging (CGP_PATH_WS_TILE0 + 2 x staging + tile), and with K split
 * over kSplit blocks (CGP_PATH_WS_SPLIT_TILE0 + 3 x (staging - 1) + 128 channels split 2, 4, 64 channels split 2);
 * with two images a tile, CGP_PATH_WS_PAIRED_TILE0 + the tile, then + 2 + the split as before */
__host__ __device__ constexpr unsigned ws_path(int bn, int staging, int split)
{
    const unsigned tile = bn == 128 ? 0u : 1u, split_tile = bn == 128 ? (split == 2 ? 0u : 1u) : 2u;
    if (paired_images(staging))
        return CGP_PATH_WS_PAIRED_TILE0 + (split == 1 ? tile : 2u + split_tile);
    return split == 1 ? CGP_PATH_WS_TILE0 + 2u * (unsigned)staging + tile
                      : CGP_PATH_WS_SPLIT_TILE0 + 3u * (unsigned)(staging - 1) + split_tile;
}

/* images: the batch's N (with two images a tile, whether a pair's second is in it) */
template <int P, int BN, int kStaging, int kSplit>
__global__ void __launch_bounds__(kWsThreads, 1)
    ws_wgmma_conv_gelu_mean(const IgemmParams p, const PersistentSchedule g, const __grid_constant__ CUtensorMap map,
                            const int images)
{
    using W = WsBlock<P, BN, kStaging, kSplit>;
    constexpr int kStages = W::kStages;
    __shared__ double warp_sums[W::kConsumerWarps * BN];
    __shared__ double block_sums[W::kTileImages * BN];
    __shared__ float bias[BN];
    __shared__ uint64_t landed[kStages], released[kStages], partials_landed, partials_read;
    float *smem = reinterpret_cast<float *>(dynamic_smem());
    smem += (W::kAlignBytes - shared_address(smem) % W::kAlignBytes) % W::kAlignBytes / sizeof(float);
    const WsShared<W> sh{warp_sums, block_sums, bias,   landed, released, smem, smem + kStages * W::kStageFloats,
                         &partials_landed, &partials_read};
    const int64_t c0 = (int64_t)blockIdx.y * BN;
    const int64_t t_begin = persistent_tile_begin(g), t_end = persistent_tile_end(g);
    /* the block's chunks: a cluster of kSplit along z shares each tile's chunks in rank order */
    const int chunk_begin = kSplit > 1 ? (int)((int64_t)blockIdx.z * p.chunks / kSplit) : 0;
    const int chunk_end = kSplit > 1 ? (int)(((int64_t)blockIdx.z + 1) * p.chunks / kSplit) : p.chunks;
    record_path(p.path_record, ws_path(BN, kStaging, kSplit));
    if (threadIdx.x == 0) {
#pragma unroll
        for (int s = 0; s < kStages; ++s) {
            mbarrier_init<W::kLandedArrivals>(shared_address(&landed[s]));
            mbarrier_init<W::kReleasedArrivals>(shared_address(&released[s]));
        }
        if constexpr (kSplit > 1) { /* an arrival a phase from each consumer thread of the cluster */
            mbarrier_init<kSplit * W::kConsumerThreads>(shared_address(&partials_landed));
            mbarrier_init<kSplit * W::kConsumerThreads>(shared_address(&partials_read));
        }
    }
    static_assert(kRoundingScratchBytes<typename W::Rounding> <= W::kSmemBytes - W::kAlignBytes,
                  "the pass's scratch in the stages");
    round_weights_once<P, typename W::Rounding>(p, smem); /* ends with a barrier of the block */
    if constexpr (kSplit > 1)
        cluster_sync(); /* every block's mbarriers, before another block arrives on them */
    else
        __syncthreads(); /* the mbarriers, before any thread waits on them; after this the warpgroups never meet */
    if (threadIdx.x < kWarpgroupThreads) {
        setmaxnreg_dec<W::kProducerRegisters>();
        ws_produce<W>(p, g, map, sh, t_begin, (int)(t_end - t_begin) * (chunk_end - chunk_begin), chunk_begin,
                      chunk_end, images);
    } else {
        setmaxnreg_inc<W::kConsumerRegisters>();
        ws_consume<W>(p, g, sh, c0, t_begin, t_end, chunk_begin, chunk_end, images);
    }
    /* K split: no block leaves while another may still read its partials or arrive on its mbarriers. A barrier of
     * the cluster's every thread, not the consumers' wait on partials_read: that wait orders the reads as well, but
     * compute-sanitizer's racecheck reported each last remote read as a read of a block that may have exited (the
     * H100 run of 2026-12-07; the CUDA guide's cluster.sync before exit) */
    if constexpr (kSplit > 1)
        cluster_sync();
}

/* ---- host ---- */

/* The clusters of `split` blocks the GPU runs at once, one block an SM, as estimated: all its SMs' worth for
 * clusters of 1 and 2; three quarters of it for clusters of 4, which must sit in one GPC each (the H200 ran 24
 * clusters of 4 of these blocks at once and 32 in two waves; cudaOccupancyMaxActiveClusters on an H100 says 30;
 * docs/perf-log.md, "tf32-v21's K split over a cluster").
 * The grid is persistent: a cluster past the estimate runs later, correctly, but the launch takes twice as long. */
int64_t ws_clusters(const cgp_device_info *d, int split)
{
    const int64_t sms = d->sm_count > 0 ? d->sm_count : 1;
    const int64_t clusters = split > 2 ? sms / split * 3 / 4 : sms / split;
    return clusters > 1 ? clusters : 1;
}

/* Whether two images fit a tile side by side (kWsPairedImages): two images at least; the window column from which
 * the second image's block reads (8 + lead) and those after it zero padding for the first image's block, which
 * needs W + pad <= 8 (padding same: W <= 7, its column 7 the first image's padding and the second's column -1;
 * valid: W <= 8); both images' offsets in 32 bits (WindowPositionCopies::init_pair) */
bool ws_pairable(const cgp_problem *p)
{
    return p->n >= 2 && p->w + p->pad <= 8 && 2 * p->cin * p->h * p->w <= INT32_MAX;
}

/* The persistent schedule of BN output channels a block, K split over `split` blocks, one image a tile or two
 * (paired: its units pairs of images, the last one image where N is odd): X clusters along x, at least 1, at most
 * the tiles, each cluster taking the same tiles */
PersistentSchedule ws_schedule(const cgp_problem *p, const cgp_device_info *d, int bn, int split, bool paired)
{
    const ImplicitGemmGeometry geo = implicit_gemm_geometry(p, 8, 16, bn);
    PersistentSchedule g;
    g.tiles_x = geo.tiles_x;
    g.tiles_per_image = geo.tiles_per_image;
    g.total_tiles = (paired ? ceil_div(p->n, 2) : p->n) * geo.tiles_per_image;
    const int64_t clusters = ws_clusters(d, split);
    const int64_t x = clusters / geo.channel_blocks > 1 ? clusters / geo.channel_blocks : 1;
    g.blocks = (int)(x < g.total_tiles ? x : g.total_tiles);
    return g;
}

/* The estimated time of kWsChannels[i] channels a block, K split over `split` blocks, one or two images a tile
 * (paired), negative where it is not offered: the tiles of the busiest block (its tiles x the waves of clusters where
 * the channel blocks alone are more than the GPU holds) x its chunks' share, with K split plus the exchange of a
 * tile's partial sums (5 chunks' worth: each block's stores, two cluster-wide mbarrier phases, the reads of the share
 * from every block), x a chunk's price: its channels, times the share of the consumers that multiply (with K split
 * and one image a tile, a warpgroup whose 8 x 8 block lies right of the image skips its wgmmas, ws_consume: in the
 * last column of tiles where the image ends 1 to 8 columns past a multiple of 16, every tile of an image 8 or fewer
 * wide), plus a fixed price (the fragments and the chain's add, 32 channels' worth) and, where the producer copies the
 * window by cp.async, 16 channels' worth more (its copies are not hidden behind 64 channels' wgmmas). The prices are
 * fitted on two random samples with every configuration forced (an H100: 48 shapes of the split's domain and 40
 * where two images fit a tile, results/h100/history/dev/ws_split_sweep_651cd59.csv.gz and ws_pair_sweep_f25bcc7.csv.gz;
 * docs/experiments/ws_choose_fit_dev.py; docs/perf-log.md, "Two images a tile"); a split needs 2 chunks a block at
 * least. 3xTF32 (64 channels a block only): its chunk multiplies 3 times the channels' worth, the fixed price
 * doubled for the split fragments: set by that reasoning, then checked on the same two kinds of sample forced for
 * 3xtf32-v21 (seeds 11 and 12, results/h100/history/dev/ws_x3_{split,pair}_sweep_1e452e3.csv.gz): its picks are within
 * 0.25% and 0.15% of the fastest configuration (geometric mean), 6% at worst, and no grid of prices does better. */
double ws_cost(int precision, const cgp_problem *p, const cgp_device_info *d, int i, int split, bool paired)
{
    const int64_t chunks = ceil_div(p->cin, kChunk);
    const int bn = kWsChannels[i];
    if (!ws_channels_offered(precision, bn) || !ws_split_offered(bn, split) || (split > 1 && chunks < 2 * split))
        return -1.0;
    const PersistentSchedule g = ws_schedule(p, d, bn, split, paired);
    const int64_t clusters = (int64_t)g.blocks * ceil_div(p->cout, bn); /* more than the GPU holds: waves */
    const double busiest = (double)(ceil_div(g.total_tiles, g.blocks) * ceil_div(clusters, ws_clusters(d, split)));
    const double exchange = split > 1 ? 5.0 : 0.0;
    const bool idle_column = !paired && split > 1 && (p->wout - 1) % 16 < 8;
    const double multiplying = idle_column ? 1.0 - 0.5 / (double)g.tiles_x : 1.0;
    const bool copied = paired || input_tensor_map_unsupported(p, d) != NULL;
    const double products = precision == kTf32 ? 1.0 : 3.0, fragments = precision == kTf32 ? 32.0 : 64.0;
    return busiest * ((double)ceil_div(chunks, split) + exchange) *
           (products * bn * multiplying + fragments + (copied ? 16.0 : 0.0));
}

/* The launch's shape: the (index in kWsChannels, K split) of least ws_cost, and whether two images share a tile */
struct WsChoice {
    int tile, split;
    bool paired;
};

/* The (channels, split) of least estimated time with one image a tile, and with two where they fit (ws_pairable):
 * the pairs where they cost less (half the tiles, the same work a tile), else one image a tile */
WsChoice ws_choose(int precision, const cgp_problem *p, const cgp_device_info *d)
{
    const auto least = [&](bool paired) {
        return least_cost(0, 2, kWsSplits,
                          [&](int i, int split) { return ws_cost(precision, p, d, i, split, paired); });
    };
    const TileSplit one = least(false);
    if (ws_pairable(p)) {
        const TileSplit two = least(true);
        if (ws_cost(precision, p, d, two.tile, two.split, true) <
            ws_cost(precision, p, d, one.tile, one.split, false))
            return {two.tile, two.split, true};
    }
    return {one.tile, one.split, false};
}

/* The workspace: the det slots (persistent_workspace_bytes' over the schedule's units; each image of a tile its own
 * bank of them, ws_image_slots), then (from a 128-byte boundary) the rounded weights of every (channel block, chunk)
 * unit, a chunk's B each (3xTF32: big and small) */
size_t ws_rounded_offset(const cgp_problem *p, const PersistentSchedule &g, bool paired)
{
    const int64_t units = g.total_tiles / g.tiles_per_image;
    const size_t slots = sizeof(double) * (size_t)((paired ? 2 : 1) * (g.blocks + units) * p->cout);
    return (slots + 127) / 128 * 128;
}
size_t ws_rounded_bytes(int precision, const cgp_problem *p, int bn)
{
    const size_t planes = precision == kTf32 ? 1 : 2;
    return sizeof(float) * (size_t)(ceil_div(p->cout, bn) * ceil_div(p->cin, kChunk)) * planes *
           (size_t)(kTaps * 2 * bn * 4);
}

/* The kernel of block W (its precision, BN channels, staging and K split): no raw weights are copied
 * (round_weights_once reads them 4 bytes at a time), so one kernel for any Cin and any weight pointer; its shared
 * memory and path */
template <class W> void ws_configure(cgp_kernel_config *c)
{
    configured(c,
               reinterpret_cast<const void *>(
                   &ws_wgmma_conv_gelu_mean<W::kPrecision, W::kBn, W::kWindowStaging, W::kSplitBlocks>),
               W::kSmemBytes, ws_path(W::kBn, W::kWindowStaging, W::kSplitBlocks));
}

/* Launches the configured kernel of block W (K split over W::kSplitBlocks blocks: a cluster along z) */
template <class W>
cudaError_t ws_launch(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *d,
                      cudaStream_t stream)
{
    constexpr int BN = W::kBn, kSplit = W::kSplitBlocks;
    const ImplicitGemmGeometry geo = implicit_gemm_geometry(&a->p, W::kTh, W::kTw, BN);
    PersistentSchedule g = ws_schedule(&a->p, d, BN, kSplit, W::kPaired);
    IgemmParams p = implicit_gemm_params(a, geo);
    p.rounded_w =
        reinterpret_cast<float *>(static_cast<char *>(a->workspace) + ws_rounded_offset(&a->p, g, W::kPaired));
    CUtensorMap map;
    if (!tma_window_map<typename W::Tile, !W::kCopiedWindow, typename W::Win>(&map, a))
        return cudaErrorInvalidValue;
    int images = (int)a->p.n;
    void *args[] = {&p, &g, &map, &images};
    return launch_clusters_along_z(c->kernel[0], dim3((unsigned)g.blocks, (unsigned)geo.channel_blocks, kSplit),
                                   kWsThreads, c->smem_bytes, stream, args);
}

/* The window stagings, in the order of the path ids */
constexpr int kWsStagings[] = {kWsRegisterA, kWsRegisterACopied, kWsPairedImages};

/* The kernels of precision P, its one instance list: f(TypeTag<WsBlock<P, BN, staging, split>>()) for each staging
 * (kWsStagings, or only `kOnly` where given), each channel block it offers (kWsChannels, ws_channels_offered) and
 * each K split of those (kWsSplits, ws_split_offered). Configure, launch and the compile-time checks all walk it. */
template <int P, int kOnly = 0, class F, size_t... I> constexpr void ws_for_each_block(F &&f, std::index_sequence<I...>)
{
    constexpr size_t kSplits = std::size(kWsSplits), kChannels = std::size(kWsChannels);
    const auto one = [&](auto index) {
        constexpr size_t i = decltype(index)::value;
        constexpr int staging = kWsStagings[i / (kChannels * kSplits)], bn = kWsChannels[i / kSplits % kChannels],
                      split = kWsSplits[i % kSplits];
        if constexpr ((kOnly == 0 || staging == kOnly) && ws_channels_offered(P, bn) && ws_split_offered(bn, split))
            f(TypeTag<WsBlock<P, bn, staging, split>>());
    };
    (one(std::integral_constant<size_t, I>()), ...);
}
template <int P, int kOnly = 0, class F> constexpr void ws_for_each_block(F &&f)
{
    ws_for_each_block<P, kOnly>(
        f, std::make_index_sequence<std::size(kWsStagings) * std::size(kWsChannels) * std::size(kWsSplits)>());
}

/* The configuration's kernel: f(TypeTag<WsBlock<P, BN, staging, split>>()) for c's tile, staging and split
 * (configure and launch alike); none where c names no kernel of the list */
template <int P, class F> void with_ws_block(const cgp_kernel_config *c, F f)
{
    ws_for_each_block<P>([&](auto tag) {
        using W = typename decltype(tag)::Type;
        if (W::kBn == kWsChannels[c->tile] && W::kWindowStaging == c->staging && W::kSplitBlocks == c->split)
            f(tag);
    });
}

/* The kernels of precision P's list, counted; their path ids (ws_path of each), ascending */
template <int P> constexpr int ws_block_count()
{
    int count = 0;
    ws_for_each_block<P>([&](auto) { ++count; });
    return count;
}
template <int P> constexpr PathList<ws_block_count<P>()> ws_paths()
{
    PathList<ws_block_count<P>()> l{};
    int count = 0;
    ws_for_each_block<P>([&](auto tag) {
        using W = typename decltype(tag)::Type;
        l.ids[count++] = (unsigned short)ws_path(W::kBn, W::kWindowStaging, W::kSplitBlocks);
    });
    for (int i = 1; i < count; ++i)
        for (int j = i; j > 0 && l.ids[j - 1] > l.ids[j]; --j) {
            const unsigned short id = l.ids[j];
            l.ids[j] = l.ids[j - 1];
            l.ids[j - 1] = id;
        }
    return l;
}

/* Whether the kernels of a staging have the TMA ones' stages (the same dynamic shared memory) at every (channels,
 * split) of the list */
template <int P, int kStaging> constexpr bool ws_same_stages()
{
    bool same = true;
    ws_for_each_block<P, kStaging>([&](auto tag) {
        using W = typename decltype(tag)::Type;
        same = same && W::kSmemBytes == WsBlock<P, W::kBn, kWsRegisterA, W::kSplitBlocks>::kSmemBytes;
    });
    return same;
}

/* The hooks (kernel_desc.cuh) of tf32-v21 (P = kTf32) and 3xtf32-v21 (kTf32x3): the windows by TMA where TMA reads
 * them and by the producer's cp.async elsewhere (W % 4 != 0, no tensor-map encoder), two images a tile where they
 * fit and cost less (ws_choose). tf32-v21's 15 paths: its 2 tiles by TMA, then by cp.async, then with K split (128
 * channels over 2 and 4 blocks, 64 over 2) by TMA, then by cp.async; then with two images a tile, its 2 tiles and 3
 * splits. 3xtf32-v21's 6 are the 64-channel ones of each: by TMA, by cp.async and two images a tile, K whole and
 * split over 2. */
template <int P> struct WarpSpecialisedVersion : NoStageSplit {
    static constexpr cgp_precision precision = (cgp_precision)P;
    static constexpr auto kPaths = ws_paths<P>();
    static_assert(kWsRegisterACopied == kWsRegisterA + 1 &&
                      ws_path(64, kWsRegisterACopied, 1) == CGP_PATH_WS_TILE0 + 5 &&
                      ws_path(64, kWsRegisterACopied, 2) == CGP_PATH_WS_SPLIT_TILE0 + 5 &&
                      ws_path(64, kWsPairedImages, 2) == CGP_PATH_COUNT - 1,
                  "the cp.async paths after the TMA ones, the split paths after both, the paired ones last");

    static_assert(ws_same_stages<P, kWsRegisterACopied>() && ws_same_stages<P, kWsPairedImages>(),
                  "the cp.async windows land where the TMA boxes do: the same stages");

    /* the shared memory of its largest block, a block's static part the paired kernels' (the largest: a second
     * image's sums) */
    static constexpr size_t most_smem()
    {
        size_t most = 0;
        ws_for_each_block<P, kWsRegisterA>([&](auto tag) {
            using W = typename decltype(tag)::Type;
            most = largest({most, W::kSmemBytes + WsBlock<P, W::kBn, kWsPairedImages, W::kSplitBlocks>::kStaticBytes});
        });
        return most;
    }
    static constexpr size_t kMostSmem = most_smem();

    static bool copied(const cgp_problem *p, const cgp_device_info *d)
    {
        return input_tensor_map_unsupported(p, d) != NULL;
    }

    static const char *unsupported(const cgp_problem *p, const cgp_device_info *d)
    {
        if (const char *why = wgmma_gpu_unsupported(d))
            return why;
        if (kMostSmem > d->smem_per_block_optin)
            return kSharedMemoryNeed<kMostSmem>.text;
        const WsChoice choice = ws_choose(P, p, d);
        const int bn = kWsChannels[choice.tile];
        const ImplicitGemmGeometry geo = implicit_gemm_geometry(p, 8, 16, bn);
        const PersistentSchedule g = ws_schedule(p, d, bn, choice.split, choice.paired);
        if (ceil_div(g.total_tiles, g.blocks) * ceil_div(p->cin, kChunk) > INT32_MAX)
            return "more than 2^31-1 (tile, chunk) pairs a block";
        if (p->h > INT32_MAX - 64 || p->w > INT32_MAX - 64)
            return "needs H and W below 2^31 - 64 (32-bit tile coordinates)";
        if (copied(p, d) && p->h * p->w > INT32_MAX)
            return "its cp.async windows need an image plane below 2^31 elements (32-bit offsets)";
        if (geo.channel_blocks * ceil_div(p->cin, kChunk) > (1 << 24))
            return "more than 2^24 units of rounded weights (blocks of output channels x chunks of 8 input channels)";
        return implicit_gemm_grid_unsupported(p, geo);
    }

    static void configure(const cgp_problem *p, const cgp_device_info *d, cgp_kernel_config *c)
    {
        const WsChoice choice = ws_choose(P, p, d);
        c->tile = choice.tile;
        c->split = choice.split;
        c->staging = choice.paired ? kWsPairedImages : copied(p, d) ? kWsRegisterACopied : kWsRegisterA;
        const int bn = kWsChannels[c->tile];
        c->workspace_bytes = ws_rounded_offset(p, ws_schedule(p, d, bn, c->split, choice.paired), choice.paired) +
                             ws_rounded_bytes(P, p, bn);
        with_ws_block<P>(c, [&](auto tag) { ws_configure<typename decltype(tag)::Type>(c); });
    }

    static cudaError_t launch(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *d,
                              cudaStream_t stream)
    {
        cudaError_t status = cudaErrorInvalidConfiguration; /* c names no kernel of the list */
        with_ws_block<P>(c, [&](auto tag) { status = ws_launch<typename decltype(tag)::Type>(a, c, d, stream); });
        return status;
    }
};

/* What tf32-v21 is: wgmma, two tiles, 12 warps (a producer warpgroup, two consumers), windows by TMA (else by
 * cp.async; two images a tile by cp.async), the weights rounded once a launch, persistent, warp-specialised;
 * 3xtf32-v21 the same at 64 channels, its K split over 2 blocks at most: the tiles and splits of its instance list */
template <int P> constexpr Kind ws_kind()
{
    Kind kind = Kind(CGP_PIPE_WGMMA, CGP_ALGORITHM_IMPLICIT_GEMM);
    ws_for_each_block<P, kWsRegisterA>([&](auto tag) {
        using W = typename decltype(tag)::Type;
        kind = W::kSplitBlocks == 1 ? kind.tile(W::kTh, W::kTw, W::kBn) : kind.k_split(W::kSplitBlocks);
    });
    return kind.warps(kWsThreads / 32)
        .staging(CGP_STAGING_TMA_OR_CP_ASYNC)
        .weights(CGP_WEIGHTS_ROUNDED_ONCE)
        .persistent()
        .loop(CGP_LOOP_WARP_SPECIALISED)
        .smem(WarpSpecialisedVersion<P>::kMostSmem);
}
constexpr Kind kWsKind = ws_kind<kTf32>(), kWsTf32x3Kind = ws_kind<kTf32x3>();

} // namespace

/* Its paths' names (path_names.cuh): one range, the ids of tf32-v21's instance list (3xtf32-v21's among them), each
 * named by its window staging, tile and split */
constexpr const char *ws_window_name(int staging)
{
    return staging == kWsRegisterA         ? "warp-specialised, register A, TMA window, "
           : staging == kWsRegisterACopied ? "warp-specialised, register A, cp.async window, "
                                           : "warp-specialised, register A, 2 images a tile, ";
}
constexpr auto kWsPaths = WarpSpecialisedVersion<kTf32>::kPaths;
static_assert(kWsPaths.ids[kWsPaths.count - 1] == kWsPaths.ids[0] + kWsPaths.count - 1, "the paths' ids one range");
constexpr PathNames<kWsPaths.count> ws_path_names()
{
    PathNames<kWsPaths.count> names{};
    ws_for_each_block<kTf32>([&](auto tag) {
        using W = typename decltype(tag)::Type;
        put_tile_path_name(names.text[ws_path(W::kBn, W::kWindowStaging, W::kSplitBlocks) - kWsPaths.ids[0]],
                           ws_window_name(W::kWindowStaging), {W::kTh, W::kTw, W::kBn}, W::kSplitBlocks);
    });
    return names;
}
CGP_DEFINE_PATH_NAMES(cgp_paths_ws, kWsPaths.ids[0], ws_path_names())

/* X(descriptor, hooks, version, name, summary, kind) for each version of this file */
#define WS_WGMMA_VERSIONS(X)                                                                                           \
    X(cgp_kernel_tf32_v21, WarpSpecialisedVersion<kTf32>, 46, "tf32-v21",                                              \
      "warp-specialised: a producer warpgroup lands each chunk's window (TMA; where TMA cannot read it, its threads' " \
      "cp.async) and weights (rounded once a launch; one bulk copy) into a stage of an mbarrier ring of up to 4, "     \
      "while two consumer warpgroups load their A fragments from the window and multiply (m64n128 or m64n64), one "    \
      "chain a chunk; persistent; K split over a cluster of 2 or 4 blocks where the tiles cannot fill the GPU, the "  \
      "partial sums added through distributed shared memory; images at most 8 columns wide two a tile, side by "      \
      "side; any Cin, any W",                                                                                          \
      kWsKind)                                                                                                         \
    X(cgp_kernel_tf32x3_v21, WarpSpecialisedVersion<kTf32x3>, 47, "3xtf32-v21",                                        \
      "warp-specialised in 3xTF32: a producer warpgroup lands each chunk's window (TMA; where TMA cannot read it, "    \
      "its threads' cp.async) and weights (split into big and small once a launch; both by one bulk copy) into a "     \
      "stage of an mbarrier ring of up to 4, while two consumer warpgroups load their A fragments from the window, "   \
      "split them, and issue a chunk's 27 wgmmas (m64n64), the 18 corrections first; persistent; K split over a "      \
      "cluster of 2 blocks where the tiles cannot fill the GPU; images at most 8 columns wide two a tile; any Cin, "   \
      "any W",                                                                                                         \
      kWsTf32x3Kind)

WS_WGMMA_VERSIONS(CGP_DEFINE_KERNEL_DESC)
