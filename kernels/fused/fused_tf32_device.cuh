/*
 * fused_tf32_device.cuh - the few device primitives under the tensor-core kernels (library layer: fused_tf32.cu and
 * wgmma_conv.cuh; kernels/bench/probes.cu measures mma_tf32 with them; async_copy.cuh has the copies):
 *   tf32_round      fp32 -> tf32, round to nearest, ties away (cvt.rna.tf32.f32); the result is an
 *                   fp32 bit pattern whose low 13 mantissa bits are zero
 *   split_tf32      v = big + small (3xTF32): big = tf32_round(v), small = tf32_round(v - big)
 *   mma_tf32        D = A * B + C on one m16n8k8 tile, tf32 inputs, fp32 accumulation
 *                   (mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32, sm_80 and newer)
 *   dynamic_smem    the block's dynamic shared memory, 16-byte aligned
 * Fragment layout of the MMA (lane = 4 * group + tig, group = lane / 4, tig = lane % 4):
 *   a[0] = A[group][tig]      a[1] = A[group + 8][tig]   a[2] = A[group][tig + 4]   a[3] = A[group + 8][tig + 4]
 *   b[0] = B[tig][group]      b[1] = B[tig + 4][group]
 *   d[0] = D[group][2 tig]    d[1] = D[group][2 tig + 1] d[2] = D[group + 8][2 tig] d[3] = D[group + 8][2 tig + 1]
 * (docs/design.md, "The tensor-core kernels", draws it.)
 */
#ifndef CGP_FUSED_TF32_DEVICE_CUH
#define CGP_FUSED_TF32_DEVICE_CUH

#include <stdint.h>

__device__ __forceinline__ uint32_t tf32_round(float v)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
    return r;
}

__device__ __forceinline__ void split_tf32(float v, uint32_t &big, uint32_t &small)
{
    big = tf32_round(v);
    small = tf32_round(v - __uint_as_float(big));
}

__device__ __forceinline__ void mma_tf32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                                         const float (&c)[4])
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%10, %11, %12, %13};"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
          "f"(c[3]));
}

__device__ __forceinline__ float4 *dynamic_smem()
{
    extern __shared__ float4 cgp_tc_dynamic_smem[];
    return cgp_tc_dynamic_smem;
}

#endif
