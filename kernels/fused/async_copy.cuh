/*
 * async_copy.cuh - the PTX wrappers for asynchronous copies into shared memory (library layer), one set for
 * every fused kernel (PTX ISA, "cp.async", "cp.async.bulk.tensor", "mbarrier"):
 *
 *   dynamic_smem          the block's dynamic shared memory, 16-byte aligned, where the copies land
 *   shared_address        32-bit shared-window address of a pointer into shared memory
 *   cp_async_4            4 bytes global -> shared (cp.async.ca), or a 0.0f store that reads nothing when its
 *                         src_bytes is 0; the two offsets become the instruction's immediates
 *   cp_async_16           16 bytes global -> shared (cp.async.cg), both addresses 16-byte aligned; with a
 *                         src_bytes of 0 it stores 16 zero bytes and reads nothing
 *   cp_async_commit       closes this thread's copies since the last commit into a group
 *   cp_async_wait<N>      waits until at most N of this thread's groups are pending
 *   cp_async_wait_all     waits for all of this thread's copies, committed or not
 *   cp_async_arrive_on    an arrival on an mbarrier once all this thread's earlier cp.async copies have landed
 *                         (.noinc: the barrier's count includes it)
 *   mbarrier_init, mbarrier_arrive_expect, mbarrier_wait    a shared-memory barrier for one arrival a phase
 *                         plus the bytes of the copies that complete on it (mbarrier_init<kCount>: kCount
 *                         arrivals a phase, each mbarrier_arrive's: a stage's readers releasing it)
 *   mbarrier_ring_wait<kSlots>   the wait of a ring of kSlots such barriers, one phase a use: use u of the ring is
 *                         slot u % kSlots in its phase u / kSlots (every family's stages, landed and released);
 *                         mbarrier_ring_wait_previous, for the use before u of the same slot (a slot refilled
 *                         once its readers released it)
 *   tma_load_4d           one box of a 4D tensor map into shared memory (TMA), completing on an mbarrier
 *   bulk_load             contiguous bytes global -> shared (cp.async.bulk), completing on an mbarrier
 *   fence_proxy_async_global   this thread's global-memory accesses ordered with later async-proxy ones (a bulk
 *                         copy reading what generic stores wrote: on the storing side before the release, on the
 *                         copying side after the acquire)
 *   load_acquire_gpu      a 32-bit load with acquire semantics at GPU scope (the wait for other blocks' stores)
 *   cluster_shared_address, fence_cluster, mbarrier_arrive_cluster, mbarrier_wait_cluster, load_cluster_f4,
 *   cluster_sync          a thread-block cluster's distributed shared memory (compute capability 9.0): the address
 *                         of a shared variable in the block of a given rank, the fence that releases at cluster
 *                         scope, a relaxed arrival on that block's mbarrier after it, the wait for a phase that
 *                         blocks of the cluster arrived on (acquire at cluster scope), 16 bytes read from any
 *                         block's shared memory, and the barrier of every thread of the cluster
 *
 * Every wrapper tells the compiler it touches memory ("memory" clobber): the copies write shared memory behind
 * its back, so no load or store may move across them. Another thread's copies are visible only after a barrier
 * (__syncthreads, __syncwarp) that follows this thread's wait.
 * The mbarrier and TMA wrappers are built for compute capability 9.0 and newer and compile to a trap below it
 * (SM90_ASM); the host never launches a kernel using them there. SM90A_ASM is the same for the instructions of
 * sm_90a alone (wgmma_ops.cuh).
 */
#ifndef CGP_ASYNC_COPY_CUH
#define CGP_ASYNC_COPY_CUH

#include <cuda.h> /* CUtensorMap */
#include <stdint.h>

__device__ __forceinline__ float4 *dynamic_smem()
{
    extern __shared__ float4 cgp_dynamic_smem[];
    return cgp_dynamic_smem;
}

/* An instruction that exists for sm_90a builds only: elsewhere a trap in its place */
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define SM90A_ASM(...) asm volatile(__VA_ARGS__)
#else
#define SM90A_ASM(...) __trap()
#endif
/* An instruction of compute capability 9.0 and newer (mbarrier transactions, TMA): below it a trap in its place */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define SM90_ASM(...) asm volatile(__VA_ARGS__)
#else
#define SM90_ASM(...) __trap()
#endif

__device__ __forceinline__ uint32_t shared_address(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

template <int kDstOffset = 0, int kSrcOffset = 0>
__device__ __forceinline__ void cp_async_4(uint32_t dst, const float *src, uint32_t src_bytes)
{
    asm volatile("cp.async.ca.shared.global [%0+%3], [%1+%4], 4, %2;" ::"r"(dst), "l"(src), "r"(src_bytes),
                 "n"(kDstOffset), "n"(kSrcOffset)
                 : "memory");
}

__device__ __forceinline__ void cp_async_16(uint32_t dst, const float *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}

__device__ __forceinline__ void cp_async_16(uint32_t dst, const float *src, uint32_t src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

template <unsigned kCount = 1> __device__ __forceinline__ void mbarrier_init(uint32_t bar)
{
    SM90_ASM("mbarrier.init.shared::cta.b64 [%0], %1;\nfence.mbarrier_init.release.cluster;" ::"r"(bar), "n"(kCount)
             : "memory");
}

/* An arrival of this phase on bar once every cp.async this thread issued before it has landed (noinc: one of the
 * kCount arrivals mbarrier_init counted, not an added one) */
__device__ __forceinline__ void cp_async_arrive_on(uint32_t bar)
{
    SM90_ASM("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}

/* One arrival of this phase (release: this thread's reads and writes before it happen before the phase completes) */
__device__ __forceinline__ void mbarrier_arrive(uint32_t bar)
{
    SM90_ASM("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

/* The one arrival of this phase, expecting `bytes` from the copies that complete on it */
__device__ __forceinline__ void mbarrier_arrive_expect(uint32_t bar, uint32_t bytes)
{
    SM90_ASM("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbarrier_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done = 0;
    while (!done)
        SM90_ASM("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}"
                  : "=r"(done)
                  : "r"(bar), "r"(parity)
                  : "memory");
}

/* Waits until use `use` (0, 1, ...) of a ring of kSlots mbarriers has completed: slot use % kSlots, in the phase
 * use / kSlots of that slot (the parity every kernel's stage ring waits on) */
template <int kSlots> __device__ __forceinline__ void mbarrier_ring_wait(uint64_t *ring, int use)
{
    mbarrier_wait(shared_address(&ring[use % kSlots]), (uint32_t)(use / kSlots) & 1u);
}

/* Waits until use `use` - kSlots (use >= kSlots), the one before `use` in the same slot, has completed */
template <int kSlots> __device__ __forceinline__ void mbarrier_ring_wait_previous(uint64_t *ring, int use)
{
    mbarrier_wait(shared_address(&ring[use % kSlots]), (uint32_t)(use / kSlots - 1) & 1u);
}

/* The box of the tensor map at (x, y, c, n) into shared memory at dst (128-byte aligned), completing on bar;
 * the parts outside the tensor arrive as zeros */
__device__ __forceinline__ void tma_load_4d(uint32_t dst, const CUtensorMap *map, int x, int y, int c, int n,
                                            uint32_t bar)
{
    SM90_ASM("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes "
              "[%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"(dst),
              "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(c), "r"(n), "r"(bar)
              : "memory");
}

/* `bytes` (a multiple of 16) from src to dst (both 16-byte aligned), completing on bar */
__device__ __forceinline__ void bulk_load(uint32_t dst, const void *src, uint32_t bytes, uint32_t bar)
{
    SM90_ASM("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
             "l"(src), "r"(bytes), "r"(bar)
             : "memory");
}

__device__ __forceinline__ void fence_proxy_async_global() { SM90_ASM("fence.proxy.async.global;" ::: "memory"); }

__device__ __forceinline__ unsigned load_acquire_gpu(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ uint32_t cluster_shared_address(uint32_t local, uint32_t rank)
{
    uint32_t remote = 0;
    SM90_ASM("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
    return remote;
}

/* This thread's accesses before it, and those a barrier ordered before them, ordered before its later ones at cluster
 * scope (the release of the relaxed arrivals after it: one fence for all of them) */
__device__ __forceinline__ void fence_cluster() { SM90_ASM("fence.acq_rel.cluster;" ::: "memory"); }

/* One arrival of this phase on the mbarrier at `local` in the cluster's block `rank`, relaxed: ordered after this
 * thread's accesses by a fence_cluster before it */
__device__ __forceinline__ void mbarrier_arrive_cluster(uint32_t local, uint32_t rank)
{
    SM90_ASM("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0];" ::"r"(cluster_shared_address(local, rank))
             : "memory");
}

/* The wait for the phase of parity `parity` of this block's mbarrier bar, which blocks of the cluster arrive on
 * (acquire at cluster scope: their accesses before their arrivals happen before this thread's after it) */
__device__ __forceinline__ void mbarrier_wait_cluster(uint32_t bar, uint32_t parity)
{
    uint32_t done = 0;
    while (!done)
        SM90_ASM("{\n.reg .pred p;\nmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
}

/* 16 bytes at a shared::cluster address (cluster_shared_address), 16-byte aligned */
__device__ __forceinline__ float4 load_cluster_f4(uint32_t address)
{
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    SM90_ASM("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
             : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
             : "r"(address)
             : "memory");
    return v;
}

/* The barrier of every thread of the cluster (release, then acquire, at cluster scope) */
__device__ __forceinline__ void cluster_sync()
{
    SM90_ASM("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

#endif
