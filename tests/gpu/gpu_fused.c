/*
 * gpu_fused.c - every fused kernel version, on every test shape, both paddings, both reductions, against the fp64 GPU
 * reference (itself checked against the CPU one in gpu_reference.c). Fresh random inputs each run (seed printed),
 * outputs poisoned with NaN before every run so an unwritten element fails, det mode bit-identical over 3 runs, and the
 * path the launch recorded (kernels/fused/path_record.cuh) the one the version's configuration names. Bounds:
 * tests/lib/tolerance.h (relative L2 and max abs; tf32 against the reference of its tf32-rounded inputs; relative L2
 * also under the version's cap). Which version takes which shape comes from its declared limits
 * (tests/lib/expected_support.h), not its number: a version that refuses a shape it must run fails, one that accepts a
 * shape it must refuse fails; an expected refusal is a case too: cgp_plan_create must refuse it with the version's
 * reason. Kernel 0 ("best") must be the version of its precision that accepts the shape with the lowest GPU time the
 * cost model predicts (host/lib/cost_model.h; the first in the table that accepts it where the model has coefficients
 * for none), and cgp_plan_kernel must name it; a version that runs none of the shapes fails. tf32-v15 / 3xtf32-v15 (by
 * their kind) also get their documented staging checked on every shape they run (test_rounded_staging: TMA windows
 * exactly where W % 4 = 0). Then every fixed shape of tests/lib/path_shapes.h (one per (version, path) pair the hooks
 * can choose on an H200, tests/cpu/cpu_paths.c) on its version, with its weights 16-byte aligned or 4 bytes past,
 * checked as above, its recorded path its configuration's.
 */
#include <string.h>

#include "cost_model.h"
#include "expected_support.h"
#include "gpulib.h"
#include "kernel_api.h"
#include "path_shapes.h"
#include "problem.h"
#include "tolerance.h"

#ifndef CGP_WGMMA_BUILT
#define CGP_WGMMA_BUILT 0 /* the Makefile sets 1 where it builds the wgmma kernels (SM=90, for sm_90a) */
#endif

static const cgp_shape shapes[] = {
    {128, 8, 64, 256, 256}, /* the default problem */
    {1, 8, 64, 3, 3},       /* one output pixel (valid) */
    {2, 8, 64, 5, 257},     /* partial tiles in x */
    {3, 8, 64, 33, 100},    /* partial tiles in both */
    {1, 8, 64, 300, 3},     /* W = 3 */
    {1, 8, 64, 3, 300},     /* H = 3 */
    {7, 8, 64, 31, 33},
    {2, 8, 64, 64, 64},
    {1, 8, 64, 512, 512},
    {1, 1, 1, 3, 3},
    {2, 1, 7, 17, 19},
    {1, 3, 64, 64, 64},
    {2, 3, 7, 17, 40},
    {1, 3, 128, 20, 21},
    {5, 16, 7, 20, 31},
    {1, 16, 128, 40, 40},
    {2, 16, 1, 12, 12},
    {3, 8, 7, 5, 5},
    {2, 8, 128, 30, 30},
    {1, 8, 1, 9, 9},
    {4, 1, 64, 10, 10},
    {1, 16, 64, 34, 70},
    /* few pixels, many input channels: fp32-v10 splits K over clusters of 2 and 8 blocks, in each tile it has */
    {1, 64, 40, 3, 3},
    {1, 128, 40, 3, 3},
    {1, 128, 1, 3, 3},
    {2, 128, 40, 17, 17},
    {16, 128, 40, 9, 9},
    {16, 128, 1, 9, 9},
    {2, 36, 72, 13, 11}, /* fp32-v11: K split over 2 blocks, 5 chunks, the last one partial */
    {10, 20, 24, 40, 40}, /* fp32-v11's 16x16-pixel x 32-channel tile (more 8x16 blocks than SMs), a partial chunk */
    {2, 36, 72, 20, 24},  /* fp32-v12: 5 chunks, the last one partial, a partial channel block, K split over 2 */
    {1, 64, 40, 32, 32},  /* fp32-v12: K split over 4 */
    {1, 72, 40, 32, 32},  /* fp32-v12: K split over 4, 9 chunks: the last block of each cluster gets none */
};

static const char *precision_name(int p) { return p == 1 ? "tf32" : p == 2 ? "3xtf32" : "fp32"; }

/* A version that refuses the shape: the refusal must be expected, and cgp_plan_create refuses it too,
 * naming the same reason. */
static void test_refusal(const problem *pr, const cgp_problem *cp, const cgp_kernel_desc *k, const char *why,
                         const cgp_device_info *dev)
{
    const cgp_shape *s = &pr->p.shape;
    char name[200];
    snprintf(name, sizeof name, "fused v%d %s refuses %s %lldx%lldx%lldx%lldx%lld", k->version,
             precision_name(k->precision), pr->p.padding ? "same" : "valid", (long long)s->n, (long long)s->cin,
             (long long)s->cout, (long long)s->h, (long long)s->w);
    if (test_expected_support(k, cp, dev, CGP_WGMMA_BUILT) == TEST_MUST_RUN)
        TEST_FAIL(name, "%s refuses a shape it must run: %s", k->name, why);
    else
        test_expect_refusal(name, s, pr->p.padding, k, why);
}

/* Kernel 0 of each precision is the version of that precision that accepts the shape with the lowest predicted GPU
 * time (the cost model), or the first in the table that accepts it where the model has coefficients for none;
 * cgp_plan_kernel names it. */
static void test_kernel_zero(const problem *pr, const cgp_problem *cp, const cgp_device_info *dev,
                             const cgp_kernel_desc *const *table, int count)
{
    const cgp_shape *s = &pr->p.shape;
    for (int precision = 0; precision < 3; ++precision) {
        const cgp_kernel_desc *first = NULL, *cheapest = NULL;
        double cheapest_ms = 0.0;
        for (int k = 0; k < count; ++k) {
            double ms = 0.0;
            if (table[k]->precision != precision || table[k]->unsupported(cp, dev))
                continue;
            first = first ? first : table[k];
            if (cgp_cost_model_ms(table[k]->version, cp, dev, &ms) && (!cheapest || ms < cheapest_ms)) {
                cheapest = table[k];
                cheapest_ms = ms;
            }
        }
        first = cheapest ? cheapest : first;
        char name[160];
        snprintf(name, sizeof name, "fused kernel 0 %s %s %lldx%lldx%lldx%lldx%lld", precision_name(precision),
                 pr->p.padding ? "same" : "valid", (long long)s->n, (long long)s->cin, (long long)s->cout,
                 (long long)s->h, (long long)s->w);
        cgp_plan *plan = NULL;
        void *ws = NULL;
        size_t ws_bytes = 0;
        const cgp_status st = test_plan_with_workspace(s, pr->p.padding, 0, precision, 0, &plan, &ws, &ws_bytes);
        int version = 0;
        const char *kname = "?";
        if (!first)
            TEST_FAIL(name, "no %s version accepts the shape", precision_name(precision));
        else if (st != CGP_SUCCESS)
            TEST_FAIL(name, "%s: %s", cgp_status_string(st), cgp_last_error_detail());
        else if (cgp_plan_kernel(plan, &version, &kname) != CGP_SUCCESS || version != first->version ||
                 strcmp(kname, first->name) != 0)
            TEST_FAIL(name, "the plan names %s (%d), the heuristic's version for the shape is %s (%d)", kname,
                      version, first->name, first->version);
        else
            test_report("PASS", name, "%s, path %s", kname, cgp_kernel_path(first, cp, dev, 0));
        cudaFree(ws);
        if (plan)
            cgp_plan_destroy(plan);
    }
}

/* The wgmma implicit GEMMs with the weights rounded once a launch and the windows by TMA or cp.async, the plain chunk
 * loop (tf32-v15, 3xtf32-v15), by their kind */
static int rounded_weights_staged_either_way(const cgp_kernel_desc *k)
{
    return k->kind.pipe == CGP_PIPE_WGMMA && k->kind.weights == CGP_WEIGHTS_ROUNDED_ONCE &&
           k->kind.staging == CGP_STAGING_TMA_OR_CP_ASYNC && k->kind.loop == CGP_LOOP_PLAIN;
}

/* Those (rounded_weights_staged_either_way), read from their documented rule rather than from their hooks' code: the
 * windows land by TMA exactly where W % 4 = 0 (every test shape is small enough for TMA's other limits), which the
 * path names ("rounded weights, TMA ..."; test_version checks that the launch recorded that path). */
static void test_rounded_staging(const problem *pr, const cgp_problem *cp, const cgp_kernel_desc *k,
                                 const cgp_device_info *dev)
{
    const cgp_shape *s = &pr->p.shape;
    char name[160];
    snprintf(name, sizeof name, "fused v%d staging %s %lldx%lldx%lldx%lldx%lld", k->version,
             pr->p.padding ? "same" : "valid", (long long)s->n, (long long)s->cin, (long long)s->cout,
             (long long)s->h, (long long)s->w);
    const char *path = cgp_kernel_path(k, cp, dev, 0), *digits = strpbrk(path, "0123456789");
    int th = 0, tw = 0;
    if (!digits || sscanf(digits, "%dx%d px", &th, &tw) != 2 || th < 1 || tw < 1) {
        TEST_FAIL(name, "path \"%s\" names no tile (\"TH x TW px\")", path);
        return;
    }
    const int tma = strncmp(path, "rounded weights, TMA ", 21) == 0;
    if (tma != (s->w % 4 == 0))
        TEST_FAIL(name, "path \"%s\" with W = %lld: the windows must land by TMA exactly where W %% 4 = 0", path,
                  (long long)s->w);
    else
        test_report("PASS", name, "%s", path);
}

/* one kernel version, one reduction, on one problem (tf32 against ref_tf32, the others against ref) */
static void test_version(const problem *pr, const double *ref, const double *ref_tf32, int version, int precision,
                         int reduce, float *y_host, float *y_first)
{
    const cgp_shape *s = &pr->p.shape;
    char name[160];
    snprintf(name, sizeof name, "fused v%d %s %s %s %lldx%lldx%lldx%lldx%lld", version, precision_name(precision),
             reduce ? "atomic" : "det", pr->p.padding ? "same" : "valid", (long long)s->n, (long long)s->cin,
             (long long)s->cout, (long long)s->h, (long long)s->w);
    cgp_plan *plan;
    void *ws;
    size_t ws_bytes;
    cgp_status st = test_plan_with_workspace(s, pr->p.padding, reduce, precision, version, &plan, &ws, &ws_bytes);
    if (st != CGP_SUCCESS) {
        TEST_FAIL(name, "plan and workspace: %s: %s", cgp_status_string(st), cgp_last_error_detail());
        cudaFree(ws);
        if (plan)
            cgp_plan_destroy(plan);
        return;
    }
    const int64_t outputs = s->n * s->cout;
    const int runs = reduce ? 1 : 3;
    for (int r = 0; r < runs; ++r) {
        st = run_poisoned(plan, pr->p.x, pr->p.w, pr->p.b, pr->p.y, outputs, ws, ws_bytes, r == 0 ? y_first : y_host);
        if (st != CGP_SUCCESS) {
            TEST_FAIL(name, "run %d: %s: %s (%s)", r, cgp_status_string(st), cgp_last_error_detail(),
                      cudaGetErrorString(cudaGetLastError()));
            break;
        }
        if (r == 0) {
            char why[300];
            if (!test_check_y_version(name, y_first, precision == CGP_PRECISION_TF32 ? ref_tf32 : ref, outputs,
                                      test_arith_of_precision(precision), pr->p.hout * pr->p.wout, s->cin, version)
                     .passed)
                break;
            if (!test_recorded_path_matches(plan, s, pr->p.padding, pr->p.w, why, sizeof why)) {
                TEST_FAIL(name, "%s", why);
                break;
            }
        } else if (memcmp(y_first, y_host, (size_t)outputs * sizeof(float)) != 0) {
            TEST_FAIL(name, "det run %d differs from run 0 (not bit-identical)", r);
            break;
        }
        if (r == runs - 1)
            TEST_PASS(name);
    }
    cudaFree(ws);
    cgp_plan_destroy(plan);
}

/* Fixed shape f on its version, det, with the weights at a 16-byte boundary or 4 bytes past it (a copy): y against
 * the reference, the recorded path the one the hook names for that weight pointer */
static void test_path_shape(const path_shape *f, uint64_t seed)
{
    char name[160], err[512], why[300];
    path_shape_name(f, name, sizeof name);
    const cgp_kernel_desc *k = cgp_kernel_find(f->version);
    const cgp_shape *s = &f->shape;
    const int64_t outputs = s->n * s->cout, weights = s->cout * s->cin * 9;
    problem pr;
    if (!k || problem_create(&pr, s, f->padding, seed, 0, err, sizeof err)) {
        TEST_FAIL(name, "%s", k ? err : "no such kernel version");
        return;
    }
    double *ref = malloc((size_t)outputs * sizeof(double)), *ref_tf32 = malloc((size_t)outputs * sizeof(double));
    float *y = malloc((size_t)outputs * sizeof(float)), *w_copy = NULL;
    cgp_plan *plan = NULL;
    void *ws = NULL;
    size_t ws_bytes = 0;
    const float *w = pr.p.w;
    if (f->weights_misaligned) {
        TEST_CUDA(name, cudaMalloc((void **)&w_copy, (size_t)(weights + 4) * sizeof(float)));
        TEST_CUDA(name, cudaMemcpy(w_copy + 1, pr.p.w, (size_t)weights * sizeof(float), cudaMemcpyDeviceToDevice));
        w = w_copy + 1;
    }
    if (!ref || !ref_tf32 || !y) {
        TEST_FAIL(name, "out of host memory");
        goto out;
    }
    if (test_problem_references(&pr, ref, ref_tf32, err, sizeof err) != 0) {
        TEST_FAIL(name, "%s", err);
        goto out;
    }
    cgp_status st = test_plan_with_workspace(s, f->padding, 0, k->precision, k->version, &plan, &ws, &ws_bytes);
    if (st == CGP_SUCCESS)
        st = run_poisoned(plan, pr.p.x, w, pr.p.b, pr.p.y, outputs, ws, ws_bytes, y);
    if (st != CGP_SUCCESS)
        TEST_FAIL(name, "%s: %s", cgp_status_string(st), cgp_last_error_detail());
    else if (test_check_y_version(name, y, k->precision == CGP_PRECISION_TF32 ? ref_tf32 : ref, outputs,
                                  test_arith_of_precision(k->precision), pr.p.hout * pr.p.wout, s->cin, k->version)
                 .passed) /* else test_check_y_version reported the failure */
        TEST_EXPECT(name, test_recorded_path_matches(plan, s, f->padding, w, why, sizeof why), "%s", why);
out:
    cudaFree(ws);
    if (plan)
        cgp_plan_destroy(plan);
    cudaFree(w_copy);
    free(ref);
    free(ref_tf32);
    free(y);
    problem_destroy(&pr);
}

int main(void)
{
    if (!test_gpu_available("gpu_fused"))
        return test_exit_code();
    const uint64_t seed = test_seed("gpu_fused");
    int count = 0;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&count);
    const cgp_device_info dev = test_device_info();
    int *ran = calloc((size_t)count, sizeof *ran); /* shapes each table entry ran */
    if (!ran) {
        TEST_FAIL("gpu_fused", "out of host memory");
        return test_exit_code();
    }
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
        for (int pad = 0; pad <= 1; ++pad) {
            problem pr;
            char err[512];
            if (problem_create(&pr, &shapes[i], (cgp_padding)pad, seed + i * 2 + (uint64_t)pad, 0, err, sizeof err)) {
                TEST_FAIL("gpu_fused problem", "%s", err);
                continue;
            }
            const int64_t outputs = shapes[i].n * shapes[i].cout;
            double *ref = malloc((size_t)outputs * sizeof(double));
            double *ref_tf32 = malloc((size_t)outputs * sizeof(double));
            float *y_host = malloc((size_t)outputs * sizeof(float)), *y_first = malloc((size_t)outputs * sizeof(float));
            if (test_problem_references(&pr, ref, ref_tf32, err, sizeof err) != 0) {
                TEST_FAIL("gpu_fused reference", "%s", err);
            } else {
                const cgp_problem cp = test_kernel_problem(&pr);
                for (int k = 0; k < count; ++k) {
                    const char *why = table[k]->unsupported(&cp, &dev);
                    if (why) {
                        test_refusal(&pr, &cp, table[k], why, &dev);
                        continue;
                    }
                    if (test_expected_support(table[k], &cp, &dev, CGP_WGMMA_BUILT) == TEST_MUST_REFUSE) {
                        char name[160];
                        snprintf(name, sizeof name, "fused v%d %s accepts %lldx%lldx%lldx%lldx%lld", table[k]->version,
                                 precision_name(table[k]->precision), (long long)shapes[i].n,
                                 (long long)shapes[i].cin, (long long)shapes[i].cout, (long long)shapes[i].h,
                                 (long long)shapes[i].w);
                        TEST_FAIL(name, "%s accepts a shape its declared limits exclude (expected_support.h)",
                                  table[k]->name);
                        continue;
                    }
                    ran[k]++;
                    if (rounded_weights_staged_either_way(table[k]))
                        test_rounded_staging(&pr, &cp, table[k], &dev);
                    for (int reduce = 0; reduce <= 1; ++reduce)
                        test_version(&pr, ref, ref_tf32, table[k]->version, table[k]->precision, reduce, y_host,
                                     y_first);
                }
                test_kernel_zero(&pr, &cp, &dev, table, count);
            }
            free(ref);
            free(ref_tf32);
            free(y_host);
            free(y_first);
            problem_destroy(&pr);
        }
    }
    for (int k = 0; k < count; ++k) {
        char name[96];
        snprintf(name, sizeof name, "fused v%d %s runs a test shape", table[k]->version, table[k]->name);
        TEST_EXPECT(name, ran[k] > 0, "it refused all %d shape and padding cases",
                    (int)(2 * sizeof shapes / sizeof *shapes));
    }
    free(ran);
    for (size_t i = 0; i < sizeof path_shapes / sizeof *path_shapes; ++i)
        test_path_shape(&path_shapes[i], seed + 1000 + i);
    test_tolerance_summary("gpu_fused");
    return test_exit_code();
}
