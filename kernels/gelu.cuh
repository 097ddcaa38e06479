/*
 * gelu.cuh - the exact (erf) GELU, 0.5 * v * (1 + erf(v / sqrt(2))), in fp32 on the device.
 * gelu_erff: the plain libdevice form, kept for comparison and for kernel versions that predate
 * gelu_fast. gelu_fast: the project's GELU (see docs/design.md, "The GELU").
 * PLACEHOLDER: gelu_fast currently forwards to gelu_erff.
 */
#ifndef CGP_GELU_CUH
#define CGP_GELU_CUH

__device__ __forceinline__ float gelu_erff(float v)
{
    return 0.5f * v * (1.0f + erff(v * 0.707106781186547524f));
}

__device__ __forceinline__ float gelu_fast(float v)
{
    return gelu_erff(v);
}

#endif
