/*
 * cpu_tolerance.c - the bounds of tests/lib/tolerance.h do what docs/testing.md says, without a GPU:
 *   - each model's relative L2 bound covers every measurement its constants came from (the H200 run at
 *     075aa0e, results/h200/make_test_075aa0e.log), at that measurement's shape;
 *   - on the default problem each bound is under 10 times the error measured there: a 10x regression fails;
 *   - the tail factors: m(O) and l(O) at a few O, m falling towards 1 and l rising with O;
 *   - test_evaluate_y passes a y at the measured error and fails one with a single output off by 10x the
 *     largest error measured, which relative L2 over 8192 outputs alone would miss;
 *   - the version caps (tolerance_caps.h): every version of libcgp's kernel table (linked, no GPU) has a cap under
 *     the model that judges it (tf32 versions also under the tf32 model of gpu_tensorcore's exact inputs), no cap
 *     names a version the table lacks, each is 4 (or 8) times the worst it was measured at; and on a tiny plane
 *     a 10x regression of an error the H200 measured, which the model bound alone passes, fails the version's cap
 *     (fp32-v1 at 47bed5b and tf32-v9 at 2ec739e, results/h200/history/make_test_<commit>.log.gz).
 * Prints every bound it checks.
 */
#include <math.h>

#include "cgp.h"
#include "kernel_api.h"
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

/* tiny planes of the H200 runs at 2ec739e and 47bed5b whose errors, 10 times over, the model bound passes: each the
 * version's worst measured case or near it (a case far below the worst would pass its cap at 10x, the cap being 4x
 * the worst) */
static const struct tiny_case {
    int version;
    test_arith arith;
    int64_t pixels, outputs, cin;
    double rel_l2;
    const char *where;
} tiny_cases[] = {
    {1, TEST_ARITH_FP32, 1, 1, 128, 2.90e-6, "fused v1 fp32 det valid 1x128x1x3x3 (fp32-v1, 47bed5b)"},
    {19, TEST_ARITH_TF32, 1, 28, 1, 4.23e-4, "gpu_tensorcore tf32 kernel 19 det valid 4x1x7x3x3 exact inputs"},
};

/* Every version of the kernel table has a cap under each model that judges it, and every cap a version. */
static void test_caps_cover_the_table(void)
{
    int count = 0, covered = 1, known = 1, margins = 1;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&count);
    for (int k = 0; k < count; ++k) {
        const int tf32 = table[k]->precision == CGP_PRECISION_TF32;
        const test_arith a = test_arith_of_precision(table[k]->precision);
        if (test_version_cap(table[k]->version, a) <= 0.0 || (tf32 && test_version_cap(table[k]->version,
                                                                                        TEST_ARITH_TF32) <= 0.0)) {
            TEST_FAIL("tolerance caps cover every kernel version", "%s (version %d) has no cap under the %s model%s: "
                      "measure it and rerun scripts/tolerance_caps.py", table[k]->name, table[k]->version,
                      test_error_models[a].name, tf32 ? " and the tf32 model" : "");
            covered = 0;
        }
    }
    for (size_t i = 0; i < sizeof test_version_caps / sizeof test_version_caps[0]; ++i) {
        const struct test_version_cap *c = &test_version_caps[i];
        const cgp_kernel_desc *k = cgp_kernel_find(c->version);
        if (!k || !(test_arith_of_precision(k->precision) == c->arith ||
                    (k->precision == CGP_PRECISION_TF32 && c->arith == TEST_ARITH_TF32))) {
            TEST_FAIL("tolerance caps name only versions of the table", "a cap for version %d under the %s model",
                      c->version, test_error_models[c->arith].name);
            known = 0;
        }
        if (!(c->cap >= 4.0 * c->worst && c->cap <= 8.0 * 1.01 * c->worst && c->cases >= 20)) {
            TEST_FAIL("tolerance caps are 4 to 8 times the worst measured", "version %d, %s model: cap %.3g, worst "
                      "%.3g, %d cases", c->version, test_error_models[c->arith].name, c->cap, c->worst, c->cases);
            margins = 0;
        }
    }
    if (covered)
        test_report("PASS", "tolerance caps cover every kernel version", "%d versions", count);
    if (known)
        TEST_PASS("tolerance caps name only versions of the table");
    if (margins)
        TEST_PASS("tolerance caps are 4 to 8 times the worst measured");
}

/* y = ref + the error e (relative L2 10 times a measured one, alternating sign): the model bound alone passes it, the
 * version's cap fails it, the FAIL naming the cap */
static void test_caps_catch_tiny_regressions(const double *ref, float *y)
{
    for (size_t c = 0; c < sizeof tiny_cases / sizeof tiny_cases[0]; ++c) {
        const struct tiny_case *t = &tiny_cases[c];
        double sum2 = 0.0;
        for (int64_t i = 0; i < t->outputs; ++i)
            sum2 += ref[i] * ref[i];
        const double e = 10.0 * t->rel_l2 * fmax(sqrt(sum2 / (double)t->outputs), 0.05);
        for (int64_t i = 0; i < t->outputs; ++i)
            y[i] = (float)(ref[i] + (i % 2 ? e : -e));
        const test_result model = test_evaluate_y(y, ref, t->outputs, t->arith, t->pixels, t->cin);
        const test_result capped =
            test_evaluate_y_version(y, ref, t->outputs, t->arith, t->pixels, t->cin, t->version);
        char name[200];
        snprintf(name, sizeof name, "tolerance cap of v%d fails a 10x regression on %s, which the model bound passes",
                 t->version, t->where);
        TEST_EXPECT(name, model.passed && !capped.passed && capped.capped,
                    "rel L2 %.3g: model bound %.3g (%s), cap %.3g (%s)", model.r.rel_l2_error, model.bounds.rel_l2,
                    model.passed ? "passed" : "failed", capped.bounds.rel_l2, capped.passed ? "passed" : "failed");
        printf("# %s: rel L2 %.3g, model bound %.3g, cap %.3g (%.1fx tighter)\n", name, capped.r.rel_l2_error,
               model.bounds.rel_l2, capped.bounds.rel_l2, model.bounds.rel_l2 / capped.bounds.rel_l2);
    }
}

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

    test_caps_cover_the_table();
    test_caps_catch_tiny_regressions(ref, y);
    return test_exit_code();
}
