/*
 * tolerance.h - how close a y must be to the fp64 reference, in one place: an error model per kind of
 * arithmetic built from measured errors, the two bounds it gives (relative L2 over all outputs, and max
 * abs over any one output), and the check every GPU test applies. docs/testing.md gives the argument.
 *
 * The model. y[n, c] averages P = Hout x Wout pixels. Its error has a part that does not average out (the
 * GELU approximation's bias, the rounding of the mean, the weights' rounding: the same at every pixel),
 * a fraction `floor` of the output, and a part that does (per-pixel rounding of the convolution), whose
 * size per output is `pixel` / sqrt(P) of the output's scale. `floor` and `pixel` are the envelope of
 * every error measured on the H200 at 075aa0e (results/h200/make_test_075aa0e.log: gpu_fused, 704 cases
 * a precision; gpu_tensorcore; gpu_baselines), quoted beside each constant: the worst case of any
 * version, not a typical one.
 *
 * The bounds, for O outputs of scale R (R = max(rms of the reference, 0.05), the floor check.h puts
 * under the relative L2 norm):
 *     relative L2  <= K (floor s(Cin) + m(O) pixel / sqrt(P))
 *     max abs      <= K (floor s(Cin) max|ref| + l(O) pixel / sqrt(P) R)
 * K = 3 is the margin over the envelope. m(O) and l(O) widen the averaging part for the draw of the
 * inputs: modelled as independent zero-mean per-output errors (each a sum of many independent roundings:
 * sub-Gaussian), the mean square of O of them exceeds m(O)^2 times its expectation with probability
 * <= e^-21 (Laurent-Massart: chi^2_O <= O + 2 sqrt(21 O) + 42), and their maximum exceeds l(O) standard
 * deviations with probability <= 1e-9 (union bound on 2 exp(-t^2/2)). So a case fails on a correct kernel
 * with probability below 1e-9 per run, whatever the seed: each bound holds for every draw but those.
 * s(Cin) scales the part measured at Cin <= 8 to more input channels (more terms in each sum).
 */
#ifndef CGP_TOLERANCE_H
#define CGP_TOLERANCE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "testlib.h"

typedef enum test_arith {
    TEST_ARITH_FP32,         /* fp32 FFMA (fp32 kernels, unfused and cuDNN fp32 rows) vs the exact reference */
    TEST_ARITH_TF32X3,       /* 3xTF32 on tensor cores vs the exact reference */
    TEST_ARITH_TF32_ROUNDED, /* TF32 vs the reference of x and w rounded as the kernels round them */
    TEST_ARITH_TF32,         /* TF32 vs the exact reference: cuDNN's TF32 rows, whose rounding is cuDNN's */
    TEST_ARITH_COUNT
} test_arith;

typedef struct test_error_model {
    const char *name;
    double floor; /* relative error that does not average over pixels, at Cin <= 8 */
    double pixel; /* relative error of one pixel's contribution, averaged as 1 / sqrt(P) */
    int cin_scaling; /* s(Cin): 0 sqrt(max(1, Cin/8)), 1 max(1, Cin/8), 2 sqrt(max(1, 8/Cin)) */
} test_error_model;

static const test_error_model test_error_models[TEST_ARITH_COUNT] = {
    /* floor: 3.68e-8, fp32-v1 1x8x64x512x512 same (P = 262144); pixel: 2.07e-6 = (1.06e-7 - floor) sqrt(899),
     * fp32-v9 7x8x64x31x33 valid; fp32 Cin = 16 measured 3.8e-8 (P = 1600) */
    {"fp32", 3.7e-8, 2.1e-6, 0},
    /* floor: 3.12e-7, 3xtf32-v5 1x8x64x512x512 valid (the wgmma versions' GELU; 3xtf32-v1 measures 7.6e-8); pixel:
     * 2.5e-7 = (3.48e-7 - floor) sqrt(81), 3xtf32-v3 1x8x1x9x9 same */
    {"3xtf32", 3.2e-7, 2.5e-7, 0},
    /* vs tf32-rounded inputs. floor: 3.01e-7, tf32-v1 1x8x64x512x512 valid; Cin = 16 measured 5.5e-7 (tensor-core
     * accumulation, linear in Cin); pixel: 1.7e-6 = (6.5e-7 - floor) sqrt(25), tf32-v8 300x8x64x5x5 same */
    {"tf32 (rounded inputs)", 3.1e-7, 1.7e-6, 1},
    /* vs exact inputs. floor: 4.65e-5, tf32-v8 1x8x64x512x512 valid; Cin = 1 measured 1.3e-4 (fewer weights
     * to average their rounding over); pixel: 3.6e-3 = (7.06e-4 - floor) sqrt(30), cuDNN graph tf32 1x8x7x5x6
     * same */
    {"tf32", 5.0e-5, 3.6e-3, 2},
};

#define TEST_TOLERANCE_MARGIN 3.0 /* K */

typedef struct test_bounds {
    double rel_l2, max_abs;
} test_bounds;

/* m(O): the mean square of O sub-Gaussian errors stays under m(O)^2 sigma^2 but with probability e^-21 */
static inline double test_rms_tail(int64_t outputs)
{
    const double o = (double)(outputs > 0 ? outputs : 1);
    return sqrt(1.0 + 2.0 * sqrt(21.0 / o) + 42.0 / o);
}

/* l(O): the largest of O stays under l(O) sigma but with probability 1e-9 */
static inline double test_max_tail(int64_t outputs)
{
    const double o = (double)(outputs > 0 ? outputs : 1);
    return sqrt(2.0 * log(2.0 * o / 1e-9));
}

static inline double test_cin_scale(const test_error_model *m, int64_t cin)
{
    const double c = (double)(cin > 0 ? cin : 1);
    switch (m->cin_scaling) {
    case 1: return fmax(1.0, c / 8.0);
    case 2: return sqrt(fmax(1.0, 8.0 / c));
    default: return sqrt(fmax(1.0, c / 8.0));
    }
}

/* The bounds for outputs averaging `pixels` pixels each, of reference ref (its finite values set the scale). */
static inline test_bounds test_bounds_for(test_arith a, int64_t pixels, int64_t cin, const double *ref,
                                          int64_t outputs)
{
    const test_error_model *m = &test_error_models[a];
    double sum2 = 0.0, largest = 0.0;
    int64_t finite = 0;
    for (int64_t i = 0; i < outputs; ++i)
        if (isfinite(ref[i])) {
            sum2 += ref[i] * ref[i];
            largest = fmax(largest, fabs(ref[i]));
            ++finite;
        }
    const double scale = fmax(finite ? sqrt(sum2 / (double)finite) : 0.0, 0.05);
    const double floor = m->floor * test_cin_scale(m, cin), spread = m->pixel / sqrt((double)(pixels > 0 ? pixels : 1));
    test_bounds b;
    b.rel_l2 = TEST_TOLERANCE_MARGIN * (floor + test_rms_tail(outputs) * spread);
    b.max_abs = TEST_TOLERANCE_MARGIN * (floor * fmax(largest, 0.05) + test_max_tail(outputs) * spread * scale);
    return b;
}

/* TF32 kernels are checked against the reference of rounded inputs, the others against the exact one. */
static inline test_arith test_arith_of_precision(int precision)
{
    return precision == 1 ? TEST_ARITH_TF32_ROUNDED : precision == 2 ? TEST_ARITH_TF32X3 : TEST_ARITH_FP32;
}

typedef struct test_result {
    check_report r;
    test_bounds bounds;
    int passed;
} test_result;

/* The worst error / bound ratio of this program, per model (test_tolerance_summary prints them). */
static double test_worst_ratio[TEST_ARITH_COUNT][2];
static char test_worst_case[TEST_ARITH_COUNT][2][200];

static inline void test_note_ratio(test_arith a, int which, double ratio, const char *name)
{
    if (ratio > test_worst_ratio[a][which]) {
        test_worst_ratio[a][which] = ratio;
        snprintf(test_worst_case[a][which], sizeof test_worst_case[a][which], "%s", name);
    }
}

/* y against ref under model a: passed needs every non-finite value where the reference has it, relative L2
 * and max abs within their bounds. */
static inline test_result test_evaluate_y(const float *y, const double *ref, int64_t outputs, test_arith a,
                                          int64_t pixels, int64_t cin)
{
    test_result t;
    t.bounds = test_bounds_for(a, pixels, cin, ref, outputs);
    t.r = check_compare(y, ref, outputs, t.bounds.rel_l2);
    t.passed = t.r.passed && t.r.max_abs_error <= t.bounds.max_abs;
    return t;
}

/* test_evaluate_y, printing the errors and bounds as a "#" line, and on failure a FAIL line. */
static inline test_result test_check_y(const char *name, const float *y, const double *ref, int64_t outputs,
                                       test_arith a, int64_t pixels, int64_t cin)
{
    const test_result t = test_evaluate_y(y, ref, outputs, a, pixels, cin);
    printf("# %s: rel L2 %.2e (bound %.2e), max abs %.2e (bound %.2e), %s model\n", name, t.r.rel_l2_error,
           t.bounds.rel_l2, t.r.max_abs_error, t.bounds.max_abs, test_error_models[a].name);
    test_note_ratio(a, 0, t.r.rel_l2_error / t.bounds.rel_l2, name);
    test_note_ratio(a, 1, t.r.max_abs_error / t.bounds.max_abs, name);
    if (!t.passed) {
        const int64_t i = t.r.worst_index;
        TEST_FAIL(name, "rel L2 %.3e (bound %.3e), max abs %.3e (bound %.3e), %lld never written, %lld non-finite "
                        "mismatches; worst y[%lld] = %.9g%s, reference %.17g (%s model)",
                  t.r.rel_l2_error, t.bounds.rel_l2, t.r.max_abs_error, t.bounds.max_abs, (long long)t.r.never_written,
                  (long long)t.r.nonfinite_mismatches, (long long)i, i >= 0 ? (double)y[i] : 0.0,
                  i >= 0 && check_never_written(y[i]) ? " (never written)" : "", i >= 0 ? ref[i] : 0.0,
                  test_error_models[a].name);
    }
    return t;
}

/* One "#" line per model the program used: how close its worst case came to each bound. */
static inline void test_tolerance_summary(const char *program)
{
    for (int a = 0; a < TEST_ARITH_COUNT; ++a)
        if (test_worst_case[a][0][0])
            printf("# %s margin, %s model: worst rel L2 at %.2f of its bound (%s); worst max abs at %.2f (%s)\n",
                   program, test_error_models[a].name, test_worst_ratio[a][0], test_worst_case[a][0],
                   test_worst_ratio[a][1], test_worst_case[a][1]);
}

#endif
