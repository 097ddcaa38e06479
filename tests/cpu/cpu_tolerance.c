/*
 * cpu_tolerance.c - the bounds of tests/lib/tolerance.h do what docs/testing.md says, without a GPU:
 *   - each model's relative L2 bound covers every measurement its constants came from (the H200 run at
 *     075aa0e, results/h200/make_test_075aa0e.log), at that measurement's shape;
 *   - on the default problem each bound is under 10 times the error measured there: a 10x regression fails;
 *   - the tail factors: m(O) and l(O) at a few O, m falling towards 1 and l rising with O;
 *   - test_evaluate_y passes a y at the measured error and fails one with a single output off by 10x the
 *     largest error measured, which relative L2 over 8192 outputs alone would miss.
 * Prints every bound it checks.
 */
#include <math.h>

#include "testlib.h"
#include "tolerance.h"

typedef struct measured {
    test_arith arith;
    int64_t pixels, outputs, cin;
    double rel_l2;
    const char *where;
} measured;

/* the constants' sources (tolerance.h) and the default problem 128x8x64x256x256 valid (P = 64516) */
static const measured envelope[] = {
    {TEST_ARITH_FP32, 262144, 64, 8, 3.68e-8, "fp32-v1 1x8x64x512x512 same"},
    {TEST_ARITH_FP32, 899, 448, 8, 1.06e-7, "fp32-v9 7x8x64x31x33 valid"},
    {TEST_ARITH_FP32, 9, 64, 8, 5.22e-7, "fp32-v9 1x8x64x3x3 same"},
    {TEST_ARITH_FP32, 81, 1, 8, 2.19e-7, "fp32-v1 1x8x1x9x9 same"},
    {TEST_ARITH_TF32X3, 260100, 64, 8, 3.12e-7, "3xtf32-v5 1x8x64x512x512 valid"},
    {TEST_ARITH_TF32X3, 81, 1, 8, 3.48e-7, "3xtf32-v3 1x8x1x9x9 same"},
    {TEST_ARITH_TF32_ROUNDED, 260100, 64, 8, 3.01e-7, "tf32-v1 1x8x64x512x512 valid"},
    {TEST_ARITH_TF32_ROUNDED, 25, 19200, 8, 6.50e-7, "tf32-v8 300x8x64x5x5 same"},
    {TEST_ARITH_TF32_ROUNDED, 1444, 128, 16, 5.51e-7, "tf32-v8 1x16x128x40x40 valid"},
    {TEST_ARITH_TF32, 260100, 64, 8, 4.65e-5, "tf32-v8 1x8x64x512x512 valid"},
    {TEST_ARITH_TF32, 30, 7, 8, 7.06e-4, "cuDNN graph tf32 1x8x7x5x6 same"},
    {TEST_ARITH_TF32, 16, 1400, 1, 1.33e-4, "tf32-v8 200x1x7x6x6 valid"},
};

static const measured default_problem[] = {
    {TEST_ARITH_FP32, 64516, 8192, 8, 3.02e-8, "fp32-v1"},
    {TEST_ARITH_TF32X3, 64516, 8192, 8, 3.03e-7, "3xtf32-v4"},
    {TEST_ARITH_TF32_ROUNDED, 64516, 8192, 8, 2.95e-7, "tf32-v1"},
    {TEST_ARITH_TF32, 64516, 8192, 8, 4.31e-5, "tf32-v8"},
};

enum { OUTPUTS = 8192, MOST_OUTPUTS = 19200 };

int main(void)
{
    static double ref[MOST_OUTPUTS];
    static float y[OUTPUTS];
    for (int i = 0; i < MOST_OUTPUTS; ++i) /* outputs of the size the default problem has, rms about 0.2 */
        ref[i] = 0.2 + 0.1 * sin(0.37 * i);
    for (size_t i = 0; i < sizeof envelope / sizeof envelope[0]; ++i) {
        const measured *m = &envelope[i];
        const test_bounds b = test_bounds_for(m->arith, m->pixels, m->cin, ref, m->outputs);
        char name[160];
        snprintf(name, sizeof name, "tolerance %s model covers %s", test_error_models[m->arith].name, m->where);
        TEST_EXPECT(name, b.rel_l2 >= m->rel_l2, "bound %.3g below the measured %.3g", b.rel_l2, m->rel_l2);
        printf("# %s: measured %.3g, bound %.3g (%.1fx)\n", name, m->rel_l2, b.rel_l2, b.rel_l2 / m->rel_l2);
    }
    for (size_t i = 0; i < sizeof default_problem / sizeof default_problem[0]; ++i) {
        const measured *m = &default_problem[i];
        const test_bounds b = test_bounds_for(m->arith, m->pixels, m->cin, ref, m->outputs);
        char name[160];
        snprintf(name, sizeof name, "tolerance %s model on the default problem fails a 10x regression of %s",
                 test_error_models[m->arith].name, m->where);
        TEST_EXPECT(name, b.rel_l2 >= m->rel_l2 && b.rel_l2 < 10 * m->rel_l2, "bound %.3g for a measured %.3g",
                    b.rel_l2, m->rel_l2);
        printf("# %s: measured %.3g, bound %.3g (%.1fx)\n", name, m->rel_l2, b.rel_l2, b.rel_l2 / m->rel_l2);
    }

    const int64_t counts[] = {1, 7, 64, 8192, 19200};
    int monotone = 1;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i) {
        printf("# m(%lld) = %.3f, l(%lld) = %.3f\n", (long long)counts[i], test_rms_tail(counts[i]),
               (long long)counts[i], test_max_tail(counts[i]));
        if (i > 0)
            monotone &= test_rms_tail(counts[i]) < test_rms_tail(counts[i - 1]) &&
                        test_max_tail(counts[i]) > test_max_tail(counts[i - 1]);
    }
    TEST_EXPECT("tolerance tail factors", monotone && test_rms_tail(1 << 30) < 1.001 && test_rms_tail(1) > 7.0,
                "m(O) must fall to 1 from above 7 and l(O) rise with O");

    /* a y at the error measured on the default problem (fp32), then one output 10x the largest error off */
    const double err = 3.02e-8 * 0.2;
    for (int i = 0; i < OUTPUTS; ++i)
        y[i] = (float)(ref[i] + (i % 2 ? err : -err));
    const test_result good = test_evaluate_y(y, ref, OUTPUTS, TEST_ARITH_FP32, 64516, 8);
    TEST_EXPECT("tolerance fp32 check passes the measured error", good.passed, "rel L2 %.3g, max abs %.3g",
                good.r.rel_l2_error, good.r.max_abs_error);
    y[4321] = (float)(ref[4321] + 10 * 1.55e-8); /* 1.55e-8: fp32 max abs, gpu_baselines on the default problem */
    const test_result outlier = test_evaluate_y(y, ref, OUTPUTS, TEST_ARITH_FP32, 64516, 8);
    TEST_EXPECT("tolerance fp32 check fails one output off by 10x the largest error measured",
                !outlier.passed && outlier.r.rel_l2_error <= outlier.bounds.rel_l2,
                "passed: rel L2 %.3g (bound %.3g), max abs %.3g (bound %.3g)", outlier.r.rel_l2_error,
                outlier.bounds.rel_l2, outlier.r.max_abs_error, outlier.bounds.max_abs);
    return test_exit_code();
}
