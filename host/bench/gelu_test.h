/*
 * gelu_test.h - the device GELUs seen from host code: the exhaustive sweep of all 2^32 float
 * inputs against double precision (kernels/bench/gelu_test.cu) and evaluation at chosen points.
 * which: 0 = gelu_fast, 1 = gelu_erff, 2 = gelu_tf32 (bound: GELU_TF32_ABS_BOUND absolute), 3 = gelu_x2
 * (2 GELU(v), halved for the check; bound GELU_X2_ABS_BOUND absolute), 4 = gelu_x2_fine (2 GELU(v), halved;
 * GELU_X2_FINE_ABS_BOUND absolute). Any other which: cudaErrorInvalidValue, nothing run.
 */
#ifndef CGP_GELU_TEST_H
#define CGP_GELU_TEST_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
#include <cstring>
using std::memcpy;
extern "C" {
#else
#include <string.h>
#endif

typedef struct gelu_sweep_result {
    float worst_ratio;       /* max over finite inputs of error / max(8 ulp(result), 2^-26) (which 2-4: / their
                                absolute bound): <= 1 passes */
    float worst_ratio_input;
    float worst_ulp;         /* max error in ulp of the result where the ulp bound governs */
    float worst_ulp_input;
    unsigned special_mismatches; /* inputs whose expected result is NaN/inf, or that gave NaN/inf wrongly */
} gelu_sweep_result;

cudaError_t gelu_exhaustive(int which, gelu_sweep_result *out);
cudaError_t gelu_evaluate(int which, const float *in_host, float *out_host, int count);

#ifdef __cplusplus
}
#endif
#endif
