/*
 * fused_tf32_device.cuh - the few device primitives under the tensor-core kernels (library layer:
 * fused_implicit_gemm.cu, wgmma_conv.cuh, implicit_gemm_wgmma.cuh; kernels/bench/probes.cu measures mma_tf32 with
 * them; async_copy.cuh has the copies):
 *   tf32_round      fp32 -> tf32, round to nearest, ties away (cvt.rna.tf32.f32); the result is an
 *                   fp32 bit pattern whose low 13 mantissa bits are zero
 *   split_tf32      v = big + small (3xTF32): big = tf32_round(v), small = tf32_round(v - big)
 *   tf32_round_for_mma, split_tf32_for_mma   the same, rounded only as far as the tensor cores read (below)
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

/* fp32 -> tf32 for the tensor cores (wgmma and mma.sync), which read the top 19 bits of an operand and ignore
 * the low 13 (tests/gpu_tensorcore.c checks it: tf32 results bit-identical to those of inputs rounded on the
 * host). TF32: the bits
 * plus half a tf32 ulp, so the bits read are cvt.rna's (ties away) for every finite value; infinities and NaN
 * stay as they are. 3 instructions (FSETP, IADD, SEL); cvt.rna's 4 also clear the low bits. 3xTF32: big = v
 * with the low 13 bits cleared (truncated), small = v - big (exact) plus half a tf32 ulp: 3 instructions
 * (LOP3, FADD, IADD) instead of split_tf32's 9. Truncating big leaves small up to 2^-10 |v| instead of
 * 2^-11; small is still read to 2^-11 of itself, so v is represented to 2^-21 (rather than 2^-22) and the
 * dropped small * small product is up to 2^-21 of the product: per pixel, 1.0e-7 instead of 7e-8 relative
 * (a CPU simulation of 72-term sums), far inside 3xTF32's 1e-6 for the mean. small is finite for finite
 * v; for v = +-inf it is NaN, whose bits plus 0x1000 read as -0, leaving big = +-inf: the products are
 * +-inf as in fp32 (cvt.rna's split made them NaN). The one difference from cvt.rna: a NaN whose payload
 * lies only in the low 13 bits reads as an infinity. */
__device__ __forceinline__ uint32_t tf32_round_for_mma(float v)
{
    return fabsf(v) < INFINITY ? __float_as_uint(v) + 0x1000u : __float_as_uint(v);
}

__device__ __forceinline__ void split_tf32_for_mma(float v, uint32_t &big, uint32_t &small)
{
    big = __float_as_uint(v) & 0xFFFFE000u;
    small = __float_as_uint(v - __uint_as_float(big)) + 0x1000u;
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

#endif
