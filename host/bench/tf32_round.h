/*
 * tf32_round.h - an fp32 operand rounded to TF32 as the tensor-core kernels round x and the weights
 * (cvt.rna.tf32.f32 in kernels/fused/fused_tf32_device.cuh, and the same bits from fused_wgmma.cu's
 * round_for_mma): to nearest with 10 mantissa bits, ties away from zero; infinities and NaN kept. The same
 * function on the host and the device, so that the fp64 reference of tf32-rounded operands (`cgp check`,
 * `cgp bench`, the tests) sees exactly the operands the kernels multiply.
 */
#ifndef CGP_TF32_ROUND_H
#define CGP_TF32_ROUND_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define CGP_TF32_HOST_DEVICE __host__ __device__
#else
#define CGP_TF32_HOST_DEVICE
#endif

static inline CGP_TF32_HOST_DEVICE float tf32_round(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    if ((u & 0x7f800000u) != 0x7f800000u) /* finite: add half a tf32 ulp to the magnitude, drop 13 bits */
        u = (u + 0x1000u) & 0xffffe000u;
    memcpy(&v, &u, sizeof v);
    return v;
}

#endif
