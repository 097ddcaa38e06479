/*
 * gpu_gelu.c - gelu_fast over every one of the 2^32 float bit patterns against a double-precision
 * erf GELU: the error must be at most 8 ulp of the result or 2^-26 absolute, whichever is larger;
 * NaN -> NaN, +inf -> +inf, -inf -> NaN (what 0.5 v (1 + erf(v / sqrt 2)) gives). The plain
 * libdevice form gelu_erff is measured the same way and reported (it misses the bound slightly,
 * which is why gelu_fast exists), without failing the test. gelu_tf32 (the TF32 kernels' GELU) must
 * stay within 2^-20 absolute over all finite floats, with the same special values; so must gelu_x2
 * (tf32-v5's GELU, twice the GELU) after halving, and v > FLT_MAX / 2 must give +inf (v + |v| overflows);
 * and gelu_x2_fine (3xtf32-v5's, twice the GELU) the same within 2^-21.
 */
#include <math.h>

#include "gelu_test.h"
#include "gpulib.h"

/* gelu_tf32 (which 2), gelu_x2 (3) and gelu_x2_fine (4; both halved by gelu_test.cu): within 2^bound_log2
 * absolute over all finite floats, special values exact; at in[5] = FLT_MAX the result must be `top`
 * (gelu_x2, gelu_x2_fine: +inf, v + |v| overflows). 0 when the GPU failed. */
static int check_absolute(int which, const char *name, int bound_log2, const float in[6], float top)
{
    char test[128];
    gelu_sweep_result r;
    cudaError_t e = gelu_exhaustive(which, &r);
    if (e != cudaSuccess) {
        TEST_FAIL(name, "exhaustive: %s", cudaGetErrorString(e));
        return 0;
    }
    printf("# %s: worst absolute error %.3g (%.3f of 2^%d) at v = %.9g; %u special-value mismatches\n", name,
           ldexp(r.worst_ratio, bound_log2), r.worst_ratio, bound_log2, r.worst_ratio_input, r.special_mismatches);
    snprintf(test, sizeof test, "%s exhaustive: <= 2^%d absolute over all finite floats", name, bound_log2);
    TEST_EXPECT(test, r.worst_ratio <= 1.0f, "worst error %.3f x 2^%d at v = %.9g", r.worst_ratio, bound_log2,
                r.worst_ratio_input);
    snprintf(test, sizeof test, "%s exhaustive: NaN, infinities and overflow", name);
    TEST_EXPECT(test, r.special_mismatches == 0, "%u mismatches", r.special_mismatches);
    float out[6];
    e = gelu_evaluate(which, in, out, 6);
    snprintf(test, sizeof test, "%s special values", name);
    TEST_EXPECT(test, e == cudaSuccess && isnan(out[0]) && out[1] == INFINITY && isnan(out[2]) && out[3] == 0.0f &&
                          out[4] == 0.0f && out[5] == top,
                "got %g %g %g %g %g %g", out[0], out[1], out[2], out[3], out[4], out[5]);
    return 1;
}

int main(void)
{
    if (!test_gpu_available("gpu_gelu"))
        return test_exit_code();
    gelu_sweep_result r;
    cudaError_t e = gelu_exhaustive(0, &r);
    if (e != cudaSuccess) {
        TEST_FAIL("gelu_fast exhaustive", "%s", cudaGetErrorString(e));
        return test_exit_code();
    }
    printf("# gelu_fast: worst error %.3f of the bound at v = %.9g; worst %.2f ulp (v = %.9g) where the ulp "
           "bound governs; %u special-value mismatches\n",
           r.worst_ratio, r.worst_ratio_input, r.worst_ulp, r.worst_ulp_input, r.special_mismatches);
    TEST_EXPECT("gelu_fast exhaustive: <= 8 ulp or 2^-26 over all finite floats", r.worst_ratio <= 1.0f,
                "worst error %.3f x the bound at v = %.9g", r.worst_ratio, r.worst_ratio_input);
    TEST_EXPECT("gelu_fast exhaustive: NaN and infinities", r.special_mismatches == 0, "%u mismatches",
                r.special_mismatches);

    const float in[6] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 3.4028235e38f};
    float out[6];
    e = gelu_evaluate(0, in, out, 6);
    TEST_EXPECT("gelu_fast special values", e == cudaSuccess && isnan(out[0]) && out[1] == INFINITY && isnan(out[2]) &&
                                                out[3] == 0.0f && out[4] == 0.0f && out[5] == in[5],
                "got %g %g %g %g %g %g", out[0], out[1], out[2], out[3], out[4], out[5]);

    if (!check_absolute(2, "gelu_tf32", -20, in, in[5]) || !check_absolute(3, "gelu_x2", -20, in, INFINITY) ||
        !check_absolute(4, "gelu_x2_fine", -21, in, INFINITY))
        return test_exit_code();

    gelu_sweep_result ref;
    if (gelu_exhaustive(1, &ref) == cudaSuccess)
        printf("# gelu_erff (libdevice, for comparison): worst error %.3f of the bound at v = %.9g; worst %.2f ulp "
               "(v = %.9g); %u special-value mismatches\n",
               ref.worst_ratio, ref.worst_ratio_input, ref.worst_ulp, ref.worst_ulp_input, ref.special_mismatches);
    return test_exit_code();
}
