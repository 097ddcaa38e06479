/*
 * gpu_gelu.c - gelu_fast over every one of the 2^32 float bit patterns against a double-precision
 * erf GELU: the error must be at most 8 ulp of the result or 2^-26 absolute, whichever is larger;
 * NaN -> NaN, +inf -> +inf, -inf -> NaN (what 0.5 v (1 + erf(v / sqrt 2)) gives). The plain
 * libdevice form gelu_erff is measured the same way and reported (it misses the bound slightly,
 * which is why gelu_fast exists), without failing the test. gelu_tf32 (the TF32 kernels' GELU) must
 * stay within 2^-20 absolute over all finite floats, with the same special values; so must gelu_x2
 * (tf32-v5's GELU, twice the GELU) after halving, and v > FLT_MAX / 2 must give +inf (v + |v| overflows).
 */
#include <math.h>

#include "gelu_test.h"
#include "gpulib.h"

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

    gelu_sweep_result t;
    e = gelu_exhaustive(2, &t);
    if (e != cudaSuccess) {
        TEST_FAIL("gelu_tf32 exhaustive", "%s", cudaGetErrorString(e));
        return test_exit_code();
    }
    printf("# gelu_tf32: worst absolute error %.3g (%.3f of 2^-20) at v = %.9g; %u special-value mismatches\n",
           t.worst_ratio * 0x1p-20, t.worst_ratio, t.worst_ratio_input, t.special_mismatches);
    TEST_EXPECT("gelu_tf32 exhaustive: <= 2^-20 absolute over all finite floats", t.worst_ratio <= 1.0f,
                "worst error %.3f x 2^-20 at v = %.9g", t.worst_ratio, t.worst_ratio_input);
    TEST_EXPECT("gelu_tf32 exhaustive: NaN and infinities", t.special_mismatches == 0, "%u mismatches",
                t.special_mismatches);
    e = gelu_evaluate(2, in, out, 6);
    TEST_EXPECT("gelu_tf32 special values", e == cudaSuccess && isnan(out[0]) && out[1] == INFINITY && isnan(out[2]) &&
                                                out[3] == 0.0f && out[4] == 0.0f && out[5] == in[5],
                "got %g %g %g %g %g %g", out[0], out[1], out[2], out[3], out[4], out[5]);

    gelu_sweep_result g;
    e = gelu_exhaustive(3, &g);
    if (e != cudaSuccess) {
        TEST_FAIL("gelu_x2 exhaustive", "%s", cudaGetErrorString(e));
        return test_exit_code();
    }
    printf("# gelu_x2: worst absolute error %.3g (%.3f of 2^-20) at v = %.9g; %u special-value mismatches\n",
           g.worst_ratio * 0x1p-20, g.worst_ratio, g.worst_ratio_input, g.special_mismatches);
    TEST_EXPECT("gelu_x2 exhaustive: <= 2^-20 absolute over all finite floats", g.worst_ratio <= 1.0f,
                "worst error %.3f x 2^-20 at v = %.9g", g.worst_ratio, g.worst_ratio_input);
    TEST_EXPECT("gelu_x2 exhaustive: NaN, infinities and overflow", g.special_mismatches == 0, "%u mismatches",
                g.special_mismatches);
    e = gelu_evaluate(3, in, out, 6);
    TEST_EXPECT("gelu_x2 special values", e == cudaSuccess && isnan(out[0]) && out[1] == INFINITY && isnan(out[2]) &&
                                                  out[3] == 0.0f && out[4] == 0.0f && out[5] == INFINITY,
                "got %g %g %g %g %g %g", out[0], out[1], out[2], out[3], out[4], out[5]);

    gelu_sweep_result ref;
    if (gelu_exhaustive(1, &ref) == cudaSuccess)
        printf("# gelu_erff (libdevice, for comparison): worst error %.3f of the bound at v = %.9g; worst %.2f ulp "
               "(v = %.9g); %u special-value mismatches\n",
               ref.worst_ratio, ref.worst_ratio_input, ref.worst_ulp, ref.worst_ulp_input, ref.special_mismatches);
    return test_exit_code();
}
