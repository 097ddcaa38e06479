/*
 * reference_gpu.h - a naive fp64 GPU implementation of the fused operation, so full-size
 * checks take milliseconds instead of minutes. Every product, sum and the GELU (erf) are in
 * double; one thread per output pixel, a fixed-order reduction (deterministic).
 * Validated against the CPU reference on small shapes (tests/gpu/gpu_reference.c).
 * reference_gpu_round_tf32 makes the operands of the reference of tf32 rows (tf32_round.h).
 */
#ifndef CGP_REFERENCE_GPU_H
#define CGP_REFERENCE_GPU_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y: device (n, cout) doubles. Needs scratch: reference_gpu_scratch_bytes() of device memory. */
size_t reference_gpu_scratch_bytes(int64_t n, int64_t cout, int64_t hout, int64_t wout);
cudaError_t reference_gpu_forward(const float *x, const float *w, const float *b, int64_t n, int64_t cin,
                                  int64_t cout, int64_t h, int64_t wd, int pad, double *y, void *scratch,
                                  cudaStream_t stream);
/* out[i] = tf32_round(in[i]) for i < count (device pointers; in and out may be the same). */
cudaError_t reference_gpu_round_tf32(const float *in, float *out, int64_t count, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
