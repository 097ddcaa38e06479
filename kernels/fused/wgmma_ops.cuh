/*
 * wgmma_ops.cuh - the Hopper warpgroup MMA primitives under the wgmma kernels (library layer: wgmma_conv.cuh and
 * fused_implicit_gemm_wgmma.cu), PTX ISA "Asynchronous Warpgroup Level Matrix Multiply-Accumulate":
 *   kmajor_desc, desc_add        shared-memory matrix descriptors (no swizzle, K-major) and moving one
 *   wgmma_fence, wgmma_commit, wgmma_wait<N>    ordering of the asynchronous MMAs
 *   fence_proxy_async            this thread's shared-memory stores made visible to later wgmma reads
 *   hold                         accumulators tied to a point in the program
 *   wgmma_tf32<kAccumulate>      m64n64k8 tf32, both operands from shared memory, fp32 accumulators (32 a
 *                                thread); the same with 16 accumulators is m64n32k8; with A a thread's 4
 *                                registers (wgmma's register-A form), the same with B alone from shared memory;
 *                                m64n128k8 (64 accumulators) both ways
 *   setmaxnreg_inc, setmaxnreg_dec   a warpgroup's registers a thread raised or lowered (warp-specialised kernels)
 * sm_90a only: SM90A_ASM (async_copy.cuh) makes each a trap in a build for anything else, and the host never
 * launches those kernels there: wgmma_gpu_unsupported, the host's check every wgmma version makes first, says why
 * (CGP_HAVE_WGMMA: whether this build has the sm_90a code).
 */
#ifndef CGP_WGMMA_OPS_CUH
#define CGP_WGMMA_OPS_CUH

#include <stdint.h>

#include "async_copy.cuh"
#include "kernel_api.h"

#ifndef CGP_HAVE_WGMMA
#define CGP_HAVE_WGMMA 0 /* the Makefile sets 1 where it builds the wgmma files for sm_90a */
#endif

namespace {

/* NULL where this build has the wgmma kernels and the GPU runs them (compute capability 9.0), else why not */
inline const char *wgmma_gpu_unsupported(const cgp_device_info *d)
{
    if (!CGP_HAVE_WGMMA)
        return "this build has no sm_90a code (make SM=90 builds it)";
    if (d->cc_major != 9 || d->cc_minor != 0)
        return "wgmma needs a GPU of compute capability 9.0 (H100, H200)";
    return NULL;
}

} // namespace

/* Shared-memory matrix descriptor, no swizzle, K-major: the start address, LBO = bytes to the core
 * matrix holding the next 4 K (input channels), SBO = bytes to the next 8 rows (pixels or channels), 128 where
 * the 8-row core matrices lie back to back. */
__device__ __forceinline__ uint64_t kmajor_desc(uint32_t addr, uint32_t lbo_bytes, uint32_t sbo_bytes = 128u)
{
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | (uint64_t)(lbo_bytes >> 4) << 16 | (uint64_t)(sbo_bytes >> 4) << 32;
}

/* a descriptor moved by `bytes` (a multiple of 16) in shared memory */
__device__ __forceinline__ uint64_t desc_add(uint64_t desc, uint32_t bytes) { return desc + (bytes >> 4); }

__device__ __forceinline__ void wgmma_fence() { SM90A_ASM("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { SM90A_ASM("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int kPending> __device__ __forceinline__ void wgmma_wait()
{
    SM90A_ASM("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}

/* Orders this thread's generic-proxy shared-memory writes before later async-proxy (wgmma) reads. */
__device__ __forceinline__ void fence_proxy_async() { SM90A_ASM("fence.proxy.async.shared::cta;" ::: "memory"); }

/* Ties the accumulators to this point, so their reads after a wgmma_wait stay after it. */
template <int N> __device__ __forceinline__ void hold(float (&d)[N])
{
#pragma unroll
    for (int i = 0; i < N; ++i)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* the 32 accumulator operands of an m64n64 wgmma, %0..%31 */
#define WGMMA_ACCUMULATORS(d)                                                                                   \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),   \
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),    \
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),   \
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])

/* the 64 accumulator operands of an m64n128 wgmma, %0..%63 */
#define WGMMA_ACCUMULATORS_N128(d)                                                                              \
    WGMMA_ACCUMULATORS(d), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]),          \
        "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]),   \
        "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),   \
        "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]),   \
        "+f"(d[62]), "+f"(d[63])

/* the 16 accumulator operands of an m64n32 wgmma, %0..%15 */
#define WGMMA_ACCUMULATORS_N32(d)                                                                               \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),   \
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])

/* d = A * B (+ d if kAccumulate): m64n64k8, tf32 operands from shared memory, fp32 accumulators */
template <int kAccumulate> __device__ __forceinline__ void wgmma_tf32(float (&d)[32], uint64_t a, uint64_t b)
{
    SM90A_ASM("{\n.reg .pred acc;\nsetp.ne.b32 acc, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, acc, 1, 1;\n}\n"
                 : WGMMA_ACCUMULATORS(d)
                 : "l"(a), "l"(b), "n"(kAccumulate));
}

/* d = A * B (+ d if kAccumulate): m64n32k8, tf32 operands from shared memory, fp32 accumulators */
template <int kAccumulate> __device__ __forceinline__ void wgmma_tf32(float (&d)[16], uint64_t a, uint64_t b)
{
    SM90A_ASM("{\n.reg .pred acc;\nsetp.ne.b32 acc, %18, 0;\n"
              "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
              "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
              "%16, %17, acc, 1, 1;\n}\n"
              : WGMMA_ACCUMULATORS_N32(d)
              : "l"(a), "l"(b), "n"(kAccumulate));
}

/* d = A * B (+ d if kAccumulate): m64n64k8, A from registers (a thread's fragment of its warp's 16 rows x 8 tf32:
 * a[0] = (row g, k t), a[1] = (g + 8, t), a[2] = (g, t + 4), a[3] = (g + 8, t + 4), g = lane / 4, t = lane % 4),
 * B from shared memory, fp32 accumulators */
template <int kAccumulate>
__device__ __forceinline__ void wgmma_tf32(float (&d)[32], const uint32_t (&a)[4], uint64_t b)
{
    SM90A_ASM("{\n.reg .pred acc;\nsetp.ne.b32 acc, %37, 0;\n"
              "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
              "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
              "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
              "{%32, %33, %34, %35}, %36, acc, 1, 1;\n}\n"
              : WGMMA_ACCUMULATORS(d)
              : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "n"(kAccumulate));
}

/* d = A * B (+ d if kAccumulate): m64n32k8, A from registers as above, B from shared memory */
template <int kAccumulate>
__device__ __forceinline__ void wgmma_tf32(float (&d)[16], const uint32_t (&a)[4], uint64_t b)
{
    SM90A_ASM("{\n.reg .pred acc;\nsetp.ne.b32 acc, %21, 0;\n"
              "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
              "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
              "{%16, %17, %18, %19}, %20, acc, 1, 1;\n}\n"
              : WGMMA_ACCUMULATORS_N32(d)
              : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "n"(kAccumulate));
}

/* d = A * B (+ d if kAccumulate): m64n128k8, tf32 operands from shared memory, fp32 accumulators */
template <int kAccumulate> __device__ __forceinline__ void wgmma_tf32(float (&d)[64], uint64_t a, uint64_t b)
{
    SM90A_ASM("{\n.reg .pred acc;\nsetp.ne.b32 acc, %66, 0;\n"
              "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
              "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
              "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
              "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
              "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
              "%64, %65, acc, 1, 1;\n}\n"
              : WGMMA_ACCUMULATORS_N128(d)
              : "l"(a), "l"(b), "n"(kAccumulate));
}

/* d = A * B (+ d if kAccumulate): m64n128k8, A from registers as above, B from shared memory */
template <int kAccumulate>
__device__ __forceinline__ void wgmma_tf32(float (&d)[64], const uint32_t (&a)[4], uint64_t b)
{
    SM90A_ASM("{\n.reg .pred acc;\nsetp.ne.b32 acc, %69, 0;\n"
              "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
              "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
              "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
              "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
              "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
              "{%64, %65, %66, %67}, %68, acc, 1, 1;\n}\n"
              : WGMMA_ACCUMULATORS_N128(d)
              : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "n"(kAccumulate));
}

/* The registers a thread of the calling warpgroup may use from here, raised to (inc) or lowered to (dec)
 * kRegisters, a multiple of 8 in [24, 256]; every thread of the warpgroup calls it (PTX ISA "setmaxnreg") */
template <int kRegisters> __device__ __forceinline__ void setmaxnreg_inc()
{
    SM90A_ASM("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegisters));
}
template <int kRegisters> __device__ __forceinline__ void setmaxnreg_dec()
{
    SM90A_ASM("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegisters));
}

#endif
