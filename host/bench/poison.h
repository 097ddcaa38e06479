/*
 * poison.h - prefilling an output before a run, so that an element the run never wrote is seen: every float
 * gets CHECK_UNWRITTEN_BITS (check.h), a signalling NaN no kernel produces, which check_compare names
 * "never written". Used wherever the tools and tests poison y (cgp check, bench, select, tests/lib/gpulib.h).
 */
#ifndef CGP_POISON_H
#define CGP_POISON_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues, on stream, the fill of count floats at y (device) with CHECK_UNWRITTEN_BITS; the launch's error.
 * A kernel, not a memset (cudaMemset sets bytes: the only NaN of four equal bytes is 0xFFFFFFFF), so it is
 * asynchronous and can be captured in a CUDA graph like the run it precedes. */
cudaError_t poison_outputs(float *y, int64_t count, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
