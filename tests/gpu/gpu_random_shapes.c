/*
 * gpu_random_shapes.c - the kernels on shapes nobody listed: for every precision and both paddings,
 * SHAPES_EACH random shapes (Cin and Cout anywhere in 1..1024, H and W in 3..600, all log-uniform, N from
 * what the work bound leaves), drawn from the printed seed (CGP_TEST_SEED=<seed> replays a run), and on
 * each every kernel version of the precision that accepts it, with both reductions (one case per shape and
 * reduction, naming the versions), against fp64 under the bounds of tests/lib/tolerance.h: fp32 and 3xtf32
 * against the exact reference, tf32 against the reference of the operands rounded to tf32 as the kernels
 * round them (what is left is the kernel's own error; its accumulator's grows linearly with Cin); every
 * output NaN-poisoned first, det bit-identical over 3 runs, the path each version's launch recorded the one its
 * `path` hook names. N * Cout >= 32.
 * GPU time: each shape's work is bounded by what fp32-v1, the slowest kernel that runs any shape, does with
 * its padding (Cout and Cin to multiples of 8, Hout and Wout to multiples of 16): N x 8[Cout/8] x 16[Hout/16]
 * x 16[Wout/16] x 8[Cin/8] x 9 <= 2^32 multiply-adds, and x to 2^26 elements. fp32-v1 did the default
 * problem's 3.8e10 multiply-adds in 10.5 ms (docs/perf-log.md), so a run takes at most ~1.2 ms; with 4 runs
 * per version and reduction pair, at most 12 versions of a precision, 3 x 2 x SHAPES_EACH shapes and the
 * references, the test stays within a few seconds of GPU time, far under 20 s, even if the tensor-core
 * versions ran their generic paths no faster than fp32-v1.
 * Without a GPU: one SKIP (a FAIL with CGP_TEST_REQUIRE_GPU=1).
 * Run: CGP_TEST_REQUIRE_GPU=1 make test CGP_TEST_FILTER=gpu_random_shapes
 */
#include <math.h>
#include <string.h>

#include "gpulib.h"
#include "problem.h"
#include "random_shape.h"
#include "rng.h"
#include "tolerance.h"

#define SHAPES_EACH 6                          /* shapes per precision and padding */
#define WORK_MAX ((double)((int64_t)1 << 32))   /* fp32-v1's padded multiply-adds per shape */
#define INPUT_MAX ((double)((int64_t)1 << 26))  /* elements of x */
#define MIN_OUTPUTS 32                          /* N * Cout */

static const char *const precision_names[] = {"fp32", "tf32", "3xtf32"};

static double round_up(int64_t v, int64_t m) { return (double)((v + m - 1) / m * m); }

/* fp32-v1's multiply-adds for one image, its tiles padded */
static double padded_work(int64_t cin, int64_t cout, int64_t hout, int64_t wout)
{
    return round_up(cout, 8) * round_up(hout, 16) * round_up(wout, 16) * round_up(cin, 8) * 9.0;
}

static const random_shape_bounds bounds = {WORK_MAX, INPUT_MAX, 64, MIN_OUTPUTS, padded_work};

/* One version, one reduction: det 3 runs bit-identical, atomic 1; y_first is left with run 0's y. Returns 1 when
 * it passed, else 0 with why[] set. */
static int test_version(const problem *pr, const cgp_kernel_desc *k, int reduce, const double *ref, test_arith arith,
                        float *y, float *y_first, char *why, size_t cap)
{
    const cgp_shape *s = &pr->p.shape;
    char name[200];
    snprintf(name, sizeof name, "gpu_random_shapes %s %s %s %lldx%lldx%lldx%lldx%lld", k->name,
             reduce ? "atomic" : "det", pr->p.padding ? "same" : "valid", (long long)s->n, (long long)s->cin,
             (long long)s->cout, (long long)s->h, (long long)s->w);
    cgp_plan *plan = NULL;
    void *ws = NULL;
    size_t ws_bytes = 0;
    int ok = 0;
    cgp_status st = test_plan_with_workspace(s, pr->p.padding, reduce, k->precision, k->version, &plan, &ws, &ws_bytes);
    const int64_t outputs = s->n * s->cout;
    for (int r = 0; st == CGP_SUCCESS && r < (reduce ? 1 : 3); ++r) {
        st = run_poisoned(plan, pr->p.x, pr->p.w, pr->p.b, pr->p.y, outputs, ws, ws_bytes, r ? y : y_first);
        if (st == CGP_SUCCESS && r > 0 && memcmp(y, y_first, (size_t)outputs * sizeof(float)) != 0) {
            snprintf(why, cap, "%s: det run %d differs from run 0 (not bit-identical)", name, r);
            goto out;
        }
    }
    if (st != CGP_SUCCESS) {
        snprintf(why, cap, "%s: %s: %s (%s)", name, plan ? "run" : "plan and workspace", cgp_status_string(st),
                 cgp_last_error_detail());
        goto out;
    }
    char path_why[300];
    if (!test_recorded_path_matches(plan, s, pr->p.padding, pr->p.w, path_why, sizeof path_why)) {
        snprintf(why, cap, "%s: %s", name, path_why);
        goto out;
    }
    const test_result t = test_evaluate_y(y_first, ref, outputs, arith, pr->p.hout * pr->p.wout, s->cin);
    printf("# %s: rel L2 %.2e (bound %.2e), max abs %.2e (bound %.2e), %s model\n", name, t.r.rel_l2_error,
           t.bounds.rel_l2, t.r.max_abs_error, t.bounds.max_abs, test_error_models[arith].name);
    test_note_ratio(arith, 0, t.r.rel_l2_error / t.bounds.rel_l2, name); /* for test_tolerance_summary */
    test_note_ratio(arith, 1, t.r.max_abs_error / t.bounds.max_abs, name);
    if (!t.passed)
        snprintf(why, cap, "%s: rel L2 %.3e (bound %.3e), max abs %.3e (bound %.3e)", name, t.r.rel_l2_error,
                 t.bounds.rel_l2, t.r.max_abs_error, t.bounds.max_abs);
    ok = t.passed;
out:
    cudaFree(ws);
    if (plan)
        cgp_plan_destroy(plan);
    return ok;
}

/* One case per reduction: every version of the precision that accepts the shape. */
static void test_shape(const cgp_shape *s, cgp_padding pad, int precision, uint64_t seed, const cgp_device_info *dev)
{
    char name[200];
    snprintf(name, sizeof name, "gpu_random_shapes %s %s %lldx%lldx%lldx%lldx%lld", precision_names[precision],
             pad ? "same" : "valid", (long long)s->n, (long long)s->cin, (long long)s->cout, (long long)s->h,
             (long long)s->w);
    problem pr;
    char err[512], names[160] = "";
    if (problem_create(&pr, s, pad, seed, 0, err, sizeof err) != 0) {
        for (int reduce = 0; reduce <= 1; ++reduce)
            TEST_FAIL(name, "problem: %s", err);
        return;
    }
    const int64_t outputs = s->n * s->cout;
    double *exact = malloc((size_t)outputs * sizeof *exact), *rounded = malloc((size_t)outputs * sizeof *rounded);
    float *y = malloc((size_t)outputs * sizeof *y), *y_first = malloc((size_t)outputs * sizeof *y_first);
    if (!exact || !rounded || !y || !y_first || test_problem_references(&pr, exact, rounded, err, sizeof err) != 0) {
        for (int reduce = 0; reduce <= 1; ++reduce)
            TEST_FAIL(name, "%s", !exact || !rounded || !y || !y_first ? "out of host memory" : err);
        goto out;
    }
    /* tf32 against its tf32-rounded operands (the exact error is TF32's), the others against the exact y */
    const test_arith arith = test_arith_of_precision(precision);
    const double *ref = arith == TEST_ARITH_TF32_ROUNDED ? rounded : exact;
    const cgp_problem cp = test_kernel_problem(&pr);
    int count = 0;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&count);
    for (int reduce = 0; reduce <= 1; ++reduce) {
        char case_name[240], why[600] = "";
        int tested = 0, ok = 1;
        names[0] = '\0';
        for (int i = 0; i < count; ++i) {
            if (table[i]->precision != precision || table[i]->unsupported(&cp, dev))
                continue;
            ++tested;
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", tested > 1 ? ", " : "",
                     table[i]->name);
            if (!test_version(&pr, table[i], reduce, ref, arith, y, y_first, why, sizeof why))
                ok = 0;
        }
        snprintf(case_name, sizeof case_name, "%s %s (%s)", name, reduce ? "atomic" : "det", names);
        if (!tested)
            TEST_FAIL(case_name, "no %s version runs it", precision_names[precision]);
        else
            TEST_EXPECT(case_name, ok, "%s", why);
    }
out:
    free(exact), free(rounded), free(y), free(y_first);
    problem_destroy(&pr);
}

int main(void)
{
    if (!test_gpu_available("gpu_random_shapes"))
        return test_exit_code();
    const uint64_t seed = test_seed("gpu_random_shapes");
    const cgp_device_info dev = test_device_info();
    random_draw d = {seed, 0};
    for (int precision = 0; precision < 3; ++precision)
        for (int pad = 0; pad <= 1; ++pad)
            for (int k = 0; k < SHAPES_EACH; ++k) {
                const cgp_shape s = random_shape_draw(&d, (cgp_padding)pad, &bounds);
                printf("# %s, %s padding: N=%lld Cin=%lld Cout=%lld H=%lld W=%lld\n", precision_names[precision],
                       pad ? "same" : "valid", (long long)s.n, (long long)s.cin, (long long)s.cout, (long long)s.h,
                       (long long)s.w);
                test_shape(&s, (cgp_padding)pad, precision, rng_bits(seed, 1000 + d.count), &dev);
            }
    test_tolerance_summary("gpu_random_shapes");
    return test_exit_code();
}
