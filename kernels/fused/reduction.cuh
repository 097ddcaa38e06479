/*
 * reduction.cuh - the in-launch reduction every fused kernel ends with (library layer).
 *
 * A block publishes, for one image n, its sums of GELU over its pixels for a range of channels.
 *   det:    the sums go to their own slot of the workspace; the block that publishes last for
 *           image n adds image n's slots in slot order (in double) and writes y[n, :].
 *           Slots and their order do not depend on timing, so y is bit-identical run to run.
 *   atomic: the sums are added with atomicAdd into accum[n, :]; the last block reads and zeroes
 *           them (atomicExch) and writes y[n, :].
 * "Last" is decided by a per-image arrival counter, which the last block resets to zero, so a
 * launch needs no memset before it and no finalising kernel after it.
 * sum_slots makes a block's per-channel sums from per-thread or per-warp slots in shared memory (float or
 * double), each channel's slots added in a fixed order, for publish_image_sums.
 * Both run on a Team: the whole block (WholeBlock, every kernel but the warp-specialised ones), or a range of its
 * threads with a named barrier of their own (ThreadRange: tf32-v21's consumer warpgroups, while their producer
 * warpgroup lands the next chunks).
 */
#ifndef CGP_REDUCTION_CUH
#define CGP_REDUCTION_CUH

#include <stdint.h>

struct ReduceArgs {
    double *partials;   /* det: [slots][cout] in the workspace */
    double *accum;      /* atomic: [n][cout], zero between runs */
    unsigned *counters; /* [n], zero between runs */
    float *y;           /* [n][cout] */
    int64_t cout;
    double inv_count;   /* 1 / (hout * wout) */
    int atomic;
};

/* Where image n's publications go (det) and how many arrive. */
struct ImageSlots {
    int64_t slot;       /* this publication's slot */
    int64_t first;      /* image n's slots are [first, first + count) */
    int64_t count;
    unsigned arrivals;  /* publications image n receives in total */
};

/* The threads of a publication: rank() in [0, size()) (unsigned, as threadIdx.x and blockDim.x), and their barrier */
struct WholeBlock {
    static __device__ __forceinline__ unsigned rank() { return threadIdx.x; }
    static __device__ __forceinline__ unsigned size() { return blockDim.x; }
    static __device__ __forceinline__ void sync() { __syncthreads(); }
};
/* The kCount threads from kFirst on (whole warps), their barrier the named barrier kBarrier (1 to 15; 0 is
 * __syncthreads') */
template <int kFirst, int kCount, int kBarrier> struct ThreadRange {
    static_assert(kFirst % 32 == 0 && kCount % 32 == 0 && kBarrier >= 1 && kBarrier < 16, "whole warps, barrier 1-15");
    static __device__ __forceinline__ unsigned rank() { return threadIdx.x - kFirst; }
    static __device__ __forceinline__ unsigned size() { return kCount; }
    static __device__ __forceinline__ void sync()
    {
        asm volatile("bar.sync %0, %1;" ::"n"(kBarrier), "n"(kCount) : "memory");
    }
};

/* Called by every thread of Team, with sums[0, nc) (shared memory, visible to all
 * threads after a barrier) holding this block's sums for channels [c0, c0 + nc) of image n. */
template <class Team = WholeBlock>
__device__ __forceinline__ void publish_image_sums(const ReduceArgs &r, int64_t n, int64_t c0, int nc,
                                                   const double *sums, const ImageSlots &s)
{
    __shared__ unsigned is_last_arrival;
    for (int i = Team::rank(); i < nc; i += Team::size()) {
        if (r.atomic)
            atomicAdd(&r.accum[n * r.cout + c0 + i], sums[i]);
        else
            r.partials[s.slot * r.cout + c0 + i] = sums[i];
    }
    Team::sync(); /* the block's publications are made */
    if (Team::rank() == 0) {
        __threadfence(); /* release: the block's publications, ordered before it by the barrier, before the arrival */
        is_last_arrival = (atomicAdd(&r.counters[n], 1u) == s.arrivals - 1u);
        __threadfence(); /* acquire: the publications of the blocks arrived before, before the block's reads below */
    }
    Team::sync();
    if (!is_last_arrival)
        return;
    for (int64_t c = Team::rank(); c < r.cout; c += Team::size()) {
        double total = 0.0;
        if (r.atomic) {
            unsigned long long bits =
                atomicExch(reinterpret_cast<unsigned long long *>(&r.accum[n * r.cout + c]), 0ull);
            total = __longlong_as_double((long long)bits);
        } else {
            for (int64_t k = s.first; k < s.first + s.count; ++k)
                total += __ldcg(&r.partials[k * r.cout + c]);
        }
        r.y[n * r.cout + c] = (float)(total * r.inv_count);
    }
    if (Team::rank() == 0)
        r.counters[n] = 0u;
    Team::sync(); /* is_last_arrival is reused by the next publication */
}

/* The block's sums of kChannels channels from its slots: sums[c] = the total, in double and in slot order, of
 * channel c's kSlots slots, first_slot(c)[i * kStride] for slot i, floats or doubles in shared memory that the
 * block wrote before the call; sums is shared memory too, for publish_image_sums. Called by every thread of Team. */
template <int kChannels, int kSlots, int kStride, class Team = WholeBlock, class FirstSlot>
__device__ __forceinline__ void sum_slots(FirstSlot first_slot, double *sums)
{
    Team::sync(); /* every slot is written */
    if (Team::rank() < kChannels) {
        const auto *slot = first_slot(Team::rank());
        double total = 0.0;
        for (int i = 0; i < kSlots; ++i)
            total += (double)slot[i * kStride];
        sums[Team::rank()] = total;
    }
    Team::sync();
}

static inline ReduceArgs make_reduce_args(const cgp_launch_args *a, void *partials)
{
    ReduceArgs r;
    r.partials = static_cast<double *>(partials);
    r.accum = a->accum;
    r.counters = a->counters;
    r.y = a->y;
    r.cout = a->p.cout;
    r.inv_count = 1.0 / ((double)a->p.hout * (double)a->p.wout);
    r.atomic = a->atomic;
    return r;
}

#endif
