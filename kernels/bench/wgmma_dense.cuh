/*
 * wgmma_dense.cuh - the dense wgmma of the tensor-core probes (kernels/bench/probes_wgmma.cu, probe_overlap.cu):
 * d += A * B, m64n128k8 or m64n256k8 (by the accumulator array's size: 64 or 128 fp32 a thread), tf32 operands
 * from shared memory by descriptor (kmajor_desc of wgmma_ops.cuh), scale-d 1; sm_90a only (SM90A_ASM).
 */
#ifndef CGP_WGMMA_DENSE_CUH
#define CGP_WGMMA_DENSE_CUH

#include <stdint.h>

#include "wgmma_ops.cuh"

#define OVL_ACC8(i)                                                                                              \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]),  \
        "+f"(d[i + 7])
#define OVL_ACC32(i) OVL_ACC8(i), OVL_ACC8(i + 8), OVL_ACC8(i + 16), OVL_ACC8(i + 24)
#define OVL_REGS64                                                                                               \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                                     \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "                            \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "                            \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"

/* d += A * B: m64n128k8, tf32 operands from shared memory, fp32 accumulators */
__device__ __forceinline__ void wgmma_dense(float (&d)[64], uint64_t a, uint64_t b)
{
    SM90A_ASM("{\n.reg .pred accumulate;\nsetp.ne.b32 accumulate, 1, 0;\n"
              "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {" OVL_REGS64 "}, %64, %65, accumulate, 1, 1;\n}\n"
              : OVL_ACC32(0), OVL_ACC32(32)
              : "l"(a), "l"(b));
}

/* d += A * B: m64n256k8, tf32 operands from shared memory, fp32 accumulators */
__device__ __forceinline__ void wgmma_dense(float (&d)[128], uint64_t a, uint64_t b)
{
    SM90A_ASM("{\n.reg .pred accumulate;\nsetp.ne.b32 accumulate, 1, 0;\n"
              "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {" OVL_REGS64 ", "
              "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
              "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
              "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
              "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
              "%128, %129, accumulate, 1, 1;\n}\n"
              : OVL_ACC32(0), OVL_ACC32(32), OVL_ACC32(64), OVL_ACC32(96)
              : "l"(a), "l"(b));
}

#undef OVL_REGS64
#undef OVL_ACC32
#undef OVL_ACC8

#endif
