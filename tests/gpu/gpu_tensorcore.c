/*
 * gpu_tensorcore.c - every tensor-core version of the kernel table, tf32 and 3xtf32 (kernel_info.h's table, by
 * precision: the wgmma versions for Cin <= 8, the implicit GEMMs on mma.sync and on wgmma, with resident or rounded
 * weights, by cp.async or TMA, the warp-specialised one) through the public API, both reductions, both paddings, on
 * the default problem and on shapes that the wgmma
 * versions for Cin <= 8 take (Cin <= 8, Cout <= 64) and shapes they refuse (more input or output channels), with
 * partial tiles, H or W = 3, many small images, one output channel, and deep layers on small images (where the
 * warp-specialised version splits K over a cluster, and puts two images side by side in a tile). Fresh random
 * inputs (seed printed), y poisoned with NaN before every run, det runs bit-identical over 3 runs, and every
 * launch's recorded path (kernels/fused/path_record.cuh: "fast" or "generic", "tma", "tma, shifted box" or
 * "cp.async", the implicit GEMMs' tile) the one the version's configuration names, so a version that ran another
 * path than it says fails.
 * Bounds:
 * tests/lib/tolerance.h (relative L2 and max abs, from an error model of each arithmetic; relative L2 also under
 * the version's cap, tests/lib/tolerance_caps.h).
 * Which version runs which shape comes from its declared limits (version_runs, tests/lib/expected_support.h), never
 * from its number: a version that should run a shape and refuses it fails, and so does one that should refuse it and
 * runs it; an expected refusal passes once per shape and version as "PASS <case> refused: <the version's reason>".
 *   3xTF32: against the fp64 reference, the 3xtf32 model.
 *   TF32:   (1) on the inputs rounded to tf32 on the host exactly as cvt.rna rounds them, against the
 *           fp64 reference of those rounded inputs: what is left is fp32 accumulation and the GELU, so
 *           the tight "tf32 (rounded inputs)" model holds on every shape and any indexing error shows;
 *           (2) on the original inputs, against the exact reference with the tf32 model;
 *           (3) the det output of (2) bit-identical to that of (1): the kernel rounds as cvt.rna does.
 *   Kernel 0 ("best") passes the same checks on one shape (the version it resolves to is printed).
 *   The stage split (host/lib/plan_stages.h) of every version on the cases that ask for it: by the wgmma versions
 *   for Cin <= 8 (which have it on every shape they run, Cin < 8 too) each partial launch runs, writes every y
 *   (no NaN left) and records the path (tma, tma shifted box or cp.async) the version's configuration names; by the
 *   implicit GEMMs (which have none) a partial launch is refused with CGP_ERROR_UNSUPPORTED. (All stages is
 *   cgp_plan_run's own launch, checked above.)
 * Without a GPU: one SKIP (a FAIL with CGP_TEST_REQUIRE_GPU=1).
 * Run: CGP_TEST_REQUIRE_GPU=1 make test CGP_TEST_FILTER=gpu_tensorcore   (or build/tests/gpu_tensorcore)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expected_support.h"
#include "gpulib.h"
#include "problem.h"
#include "tolerance.h"

#include "plan_stages.h"

#define MAX_TF32_VERSIONS 19 /* versions of one precision test_problem takes at once */
#ifndef CGP_WGMMA_BUILT
#define CGP_WGMMA_BUILT 0 /* the Makefile sets 1 where it builds the wgmma kernels (SM=90, for sm_90a) */
#endif

typedef struct shape_case {
    cgp_shape shape;
    const char *what;
    int stage_split; /* also test the stage split of every version (has_stage_split says which run it) */
} shape_case;

static const shape_case cases[] = {
    {{128, 8, 64, 256, 256}, "the default problem", 1},
    {{1, 8, 64, 512, 512}, "one large image", 0},
    {{1, 8, 64, 3, 300}, "H = 3", 0},
    {{2, 8, 64, 300, 3}, "W = 3", 0},
    {{2, 8, 64, 5, 257}, "partial column tiles", 0},
    {{3, 8, 64, 33, 100}, "partial tiles both ways", 0},
    {{4, 8, 7, 20, 20}, "Cin 8, 7 of 64 channels", 0},
    {{2, 8, 128, 24, 40}, "Cin 8, two channel groups", 0},
    {{1, 8, 256, 12, 12}, "Cin 8, 4 channel groups", 0},
    {{300, 8, 64, 5, 5}, "more images than blocks", 0},
    {{4, 1, 7, 3, 3}, "Cin 1, one pixel (valid)", 1},
    {{2, 3, 7, 17, 40}, "Cin 3", 0},
    {{1, 16, 128, 40, 40}, "two input chunks, two groups", 0},
    {{16, 16, 1, 12, 33}, "Cin 16, one output channel", 0},
    {{2, 3, 70, 70, 70}, "70 channels, >= 4096 pixels", 0},
    {{200, 1, 7, 6, 6}, "many small images", 0},
    {{40, 512, 128, 16, 16}, "deep layer, small images: K split over clusters, tiles a block", 0},
    {{40, 512, 128, 14, 14}, "the same, W not a multiple of 4", 0},
    {{6, 96, 200, 9, 9}, "K split, a block's share of the channels past Cout", 0},
    {{12, 768, 256, 7, 7}, "K split, 7x7: a warpgroup's pixels all right of the image", 0},
    {{9, 512, 512, 7, 7}, "two images a tile, odd N (the last pair one image), K split 4", 0},
    {{17, 600, 200, 4, 6}, "two images a tile, Cin 600, K split 4, the last channel block past Cout", 0},
    {{270, 24, 72, 8, 8}, "W = 8: two images a tile with padding valid, one with same", 0},
};

static const char *precision_name(int precision) { return precision == CGP_PRECISION_TF32 ? "tf32" : "3xtf32"; }

/* The versions of the table of a precision (every one this test covers), at most MAX_TF32_VERSIONS: their numbers
 * into versions, their count returned */
static int table_versions(int precision, int *versions)
{
    int count = 0, n = 0;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&n);
    for (int i = 0; i < n; ++i)
        if (table[i]->precision == precision && count < MAX_TF32_VERSIONS)
            versions[count++] = table[i]->version;
    return count;
}

/* Whether version runs the problem, from what it declares (tests/lib/expected_support.h: every case here is one it
 * must run or must refuse on an H100/H200); version 0 ("best") runs every shape */
static int version_runs(int version, const problem *pr, const cgp_device_info *d)
{
    if (version == 0)
        return 1;
    const cgp_problem p = test_kernel_problem(pr);
    const cgp_kernel_desc *k = cgp_kernel_find(version);
    return k && test_expected_support(k, &p, d, CGP_WGMMA_BUILT) != TEST_MUST_REFUSE;
}

/* Whether version has a stage split (kernel_api.h: its launch_stages hook; the wgmma versions for Cin <= 8 on every
 * shape they run, none for the implicit GEMMs) */
static int has_stage_split(int version)
{
    const cgp_kernel_desc *k = cgp_kernel_find(version);
    return k && k->launch_stages;
}

/* A version that must refuse the shape: cgp_plan_create says CGP_ERROR_UNSUPPORTED, with the reason. */
static void test_refusal(const problem *pr, int precision, int version)
{
    const cgp_shape *s = &pr->p.shape;
    char name[200];
    snprintf(name, sizeof name, "gpu_tensorcore %s kernel %d %s %lldx%lldx%lldx%lldx%lld refused",
             precision_name(precision), version, pr->p.padding ? "same" : "valid", (long long)s->n, (long long)s->cin,
             (long long)s->cout, (long long)s->h, (long long)s->w);
    cgp_options o = cgp_default_options();
    o.padding = pr->p.padding;
    o.precision = (cgp_precision)precision;
    o.kernel = version;
    cgp_plan *plan = NULL;
    const cgp_status st = cgp_plan_create(&plan, s, &o);
    if (st == CGP_ERROR_UNSUPPORTED)
        test_report("PASS", name, "%s", cgp_last_error_detail());
    else if (st == CGP_SUCCESS)
        TEST_FAIL(name, "the version accepts a shape it should refuse (version_runs)");
    else
        TEST_FAIL(name, "cgp_plan_create: %s, expected CGP_ERROR_UNSUPPORTED: %s", cgp_status_string(st),
                  cgp_last_error_detail());
    if (plan)
        cgp_plan_destroy(plan);
}

/* Rounds the problem's x and w to tf32 in place (the bias stays fp32, as in the kernel). */
static int round_inputs_to_tf32(problem *pr, char *err, size_t errlen)
{
    const cgp_shape *s = &pr->p.shape;
    float *x = NULL, *w = NULL, *b = NULL;
    if (problem_download(pr, &x, &w, &b, err, errlen) != 0)
        return 1;
    const size_t nx = (size_t)(s->n * s->cin * s->h * s->w), nw = (size_t)(s->cout * s->cin * 9);
    for (size_t i = 0; i < nx; ++i)
        x[i] = test_tf32_round(x[i]);
    for (size_t i = 0; i < nw; ++i)
        w[i] = test_tf32_round(w[i]);
    cudaError_t e = cudaMemcpy((void *)pr->p.x, x, nx * sizeof(float), cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy((void *)pr->p.w, w, nw * sizeof(float), cudaMemcpyHostToDevice);
    free(x), free(w), free(b);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "uploading the rounded inputs: %s", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

/* One plan (precision, version, reduce) on the problem: det 3 runs (bit-identical), atomic 1; run 0
 * against ref under the error model `arith`. Run 0's y is left in y_first.
 * Returns 1 when everything passed. */
static int test_plan(const problem *pr, const char *inputs, int precision, int version, int reduce, const double *ref,
                     test_arith arith, float *y_first, float *y_host)
{
    const cgp_shape *s = &pr->p.shape;
    char name[200];
    snprintf(name, sizeof name, "gpu_tensorcore %s kernel %d %s %s %lldx%lldx%lldx%lldx%lld %s",
             precision_name(precision), version, reduce ? "atomic" : "det", pr->p.padding ? "same" : "valid",
             (long long)s->n, (long long)s->cin, (long long)s->cout, (long long)s->h, (long long)s->w, inputs);
    cgp_options o = cgp_default_options();
    o.padding = pr->p.padding;
    o.reduce = (cgp_reduce)reduce;
    o.precision = (cgp_precision)precision;
    o.kernel = version;
    cgp_plan *plan = NULL;
    cgp_status st = cgp_plan_create(&plan, s, &o);
    if (st != CGP_SUCCESS) {
        TEST_FAIL(name, "cgp_plan_create: %s: %s%s", cgp_status_string(st), cgp_last_error_detail(),
                  st == CGP_ERROR_UNSUPPORTED ? " (a shape the version should run: version_runs)" : "");
        return 0;
    }
    int ran_version = 0, ok = 0;
    const char *ran_name = "?";
    size_t ws_bytes = 0;
    void *ws = NULL;
    if ((st = cgp_plan_kernel(plan, &ran_version, &ran_name)) != CGP_SUCCESS ||
        (st = cgp_plan_workspace_size(plan, &ws_bytes)) != CGP_SUCCESS) {
        TEST_FAIL(name, "plan query: %s: %s", cgp_status_string(st), cgp_last_error_detail());
        goto out;
    }
    if (version != 0 && ran_version != version) {
        TEST_FAIL(name, "the plan runs version %d (%s), not %d", ran_version, ran_name, version);
        goto out;
    }
    if (ws_bytes && cudaMalloc(&ws, ws_bytes) != cudaSuccess) {
        TEST_FAIL(name, "cudaMalloc of %zu workspace bytes", ws_bytes);
        goto out;
    }
    const int64_t outputs = s->n * s->cout;
    const int runs = reduce ? 1 : 3;
    for (int r = 0; r < runs; ++r) {
        st = run_poisoned(plan, pr->p.x, pr->p.w, pr->p.b, pr->p.y, outputs, ws, ws_bytes, r == 0 ? y_first : y_host);
        if (st != CGP_SUCCESS) {
            TEST_FAIL(name, "run %d: %s: %s (%s)", r, cgp_status_string(st), cgp_last_error_detail(),
                      cudaGetErrorString(cudaGetLastError()));
            goto out;
        }
        if (r == 0) {
            char why[300];
            printf("# %s runs %s\n", name, ran_name);
            if (!test_check_y_version(name, y_first, ref, outputs, arith, pr->p.hout * pr->p.wout, s->cin, version)
                     .passed)
                goto out;
            if (!test_recorded_path_matches(plan, s, pr->p.padding, pr->p.w, why, sizeof why)) {
                TEST_FAIL(name, "%s", why);
                goto out;
            }
        } else if (memcmp(y_first, y_host, (size_t)outputs * sizeof(float)) != 0) {
            TEST_FAIL(name, "det run %d differs from run 0 (not bit-identical)", r);
            goto out;
        }
    }
    TEST_PASS(name);
    ok = 1;
out:
    cudaFree(ws);
    cgp_plan_destroy(plan);
    return ok;
}

/* Every check of one shape and padding, for the listed versions (0: kernel 0, "best"); a version that should
 * refuse the shape is checked for the refusal alone. */
static void test_problem(problem *pr, const int *tf32_versions, int tf32_count, const int *tf32x3_versions,
                         int tf32x3_count, const cgp_device_info *dev)
{
    const cgp_shape *s = &pr->p.shape;
    const int64_t outputs = s->n * s->cout;
    double *ref = malloc((size_t)outputs * sizeof(double));
    float *y_first = malloc((size_t)outputs * sizeof(float)), *y_host = malloc((size_t)outputs * sizeof(float));
    float *y_exact = malloc((size_t)tf32_count * (size_t)outputs * sizeof(float)); /* per TF32 version */
    int exact_ok[MAX_TF32_VERSIONS] = {0};
    char err[512];
    if (tf32_count > MAX_TF32_VERSIONS) {
        TEST_FAIL("gpu_tensorcore", "test_problem takes at most %d TF32 versions, got %d", MAX_TF32_VERSIONS,
                  tf32_count);
        goto out;
    }
    if (!ref || !y_first || !y_host || !y_exact) {
        TEST_FAIL("gpu_tensorcore", "out of host memory");
        goto out;
    }
    if (problem_reference(pr, ref, err, sizeof err) != 0) {
        TEST_FAIL("gpu_tensorcore reference", "%s", err);
        goto out;
    }
    int tf32_runs[MAX_TF32_VERSIONS] = {0};
    for (int v = 0; v < tf32_count; ++v)
        if (!(tf32_runs[v] = version_runs(tf32_versions[v], pr, dev)))
            test_refusal(pr, CGP_PRECISION_TF32, tf32_versions[v]);
    for (int v = 0; v < tf32x3_count; ++v) {
        if (!version_runs(tf32x3_versions[v], pr, dev)) {
            test_refusal(pr, CGP_PRECISION_TF32X3, tf32x3_versions[v]);
            continue;
        }
        for (int reduce = 0; reduce <= 1; ++reduce)
            test_plan(pr, "exact inputs", CGP_PRECISION_TF32X3, tf32x3_versions[v], reduce, ref, TEST_ARITH_TF32X3,
                      y_first, y_host);
    }
    for (int v = 0; v < tf32_count; ++v)
        if (tf32_runs[v])
            exact_ok[v] = test_plan(pr, "exact inputs", CGP_PRECISION_TF32, tf32_versions[v], 0, ref,
                                    TEST_ARITH_TF32, y_exact + (size_t)v * (size_t)outputs, y_host);
    if (round_inputs_to_tf32(pr, err, sizeof err) != 0 || problem_reference(pr, ref, err, sizeof err) != 0) {
        TEST_FAIL("gpu_tensorcore tf32-rounded inputs", "%s", err);
        goto out;
    }
    for (int v = 0; v < tf32_count; ++v) {
        if (!tf32_runs[v])
            continue;
        /* det first: its y must equal the det y of the original inputs bit for bit */
        if (test_plan(pr, "tf32-rounded inputs", CGP_PRECISION_TF32, tf32_versions[v], 0, ref,
                      TEST_ARITH_TF32_ROUNDED, y_first, y_host) &&
            exact_ok[v]) {
            char name[200];
            snprintf(name, sizeof name,
                     "gpu_tensorcore tf32 kernel %d det %s %lldx%lldx%lldx%lldx%lld rounds as cvt.rna",
                     tf32_versions[v], pr->p.padding ? "same" : "valid", (long long)s->n, (long long)s->cin,
                     (long long)s->cout, (long long)s->h, (long long)s->w);
            TEST_EXPECT(name,
                        memcmp(y_first, y_exact + (size_t)v * (size_t)outputs, (size_t)outputs * sizeof(float)) == 0,
                        "y from the original inputs differs from y from the inputs pre-rounded to tf32");
        }
        test_plan(pr, "tf32-rounded inputs", CGP_PRECISION_TF32, tf32_versions[v], 1, ref, TEST_ARITH_TF32_ROUNDED,
                  y_first, y_host);
    }
out:
    free(ref), free(y_first), free(y_host), free(y_exact);
}

/* The stage split of one version on one problem: expect_supported says whether the version has one. */
static void test_stage_split(const problem *pr, int precision, int version, int expect_supported)
{
    const cgp_shape *s = &pr->p.shape;
    char name[160];
    snprintf(name, sizeof name, "gpu_tensorcore stage split %s kernel %d %lldx%lldx%lldx%lldx%lld",
             precision_name(precision), version, (long long)s->n, (long long)s->cin, (long long)s->cout,
             (long long)s->h, (long long)s->w);
    const int64_t outputs = s->n * s->cout;
    float *y_full = malloc((size_t)outputs * sizeof(float)), *y_part = malloc((size_t)outputs * sizeof(float));
    char why[300];
    cgp_plan *plan = NULL;
    void *ws = NULL;
    size_t ws_bytes = 0;
    cgp_status st = !y_full || !y_part ? CGP_ERROR_NULL_POINTER
                                       : test_plan_with_workspace(s, pr->p.padding, 0, precision, version, &plan,
                                                                  &ws, &ws_bytes);
    if (st != CGP_SUCCESS) {
        TEST_FAIL(name, "setup: %s: %s", cgp_status_string(st), cgp_last_error_detail());
        goto out;
    }
    st = run_poisoned(plan, pr->p.x, pr->p.w, pr->p.b, pr->p.y, outputs, ws, ws_bytes, y_full);
    if (st != CGP_SUCCESS) {
        TEST_FAIL(name, "cgp_plan_run: %s: %s", cgp_status_string(st), cgp_last_error_detail());
        goto out;
    }
    if (!test_recorded_path_matches(plan, s, pr->p.padding, pr->p.w, why, sizeof why)) {
        TEST_FAIL(name, "cgp_plan_run: %s", why);
        goto out;
    }
    for (int stages = 0; stages <= CGP_STAGE_ALL; ++stages) {
        if (poison_outputs(pr->p.y, outputs, 0) != cudaSuccess) {
            TEST_FAIL(name, "poison_outputs: %s", cudaGetErrorString(cudaGetLastError()));
            goto out;
        }
        st = cgp_plan_run_stages(plan, pr->p.x, pr->p.w, pr->p.b, pr->p.y, ws, ws_bytes, stages, 0);
        if (!expect_supported && stages != CGP_STAGE_ALL) { /* all stages: the kernel itself, on any path */
            if (st != CGP_ERROR_UNSUPPORTED) {
                TEST_FAIL(name, "stages %d of a version without a stage split: %s, expected CGP_ERROR_UNSUPPORTED", stages,
                          cgp_status_string(st));
                goto out;
            }
            continue;
        }
        if (st != CGP_SUCCESS || cudaMemcpy(y_part, pr->p.y, (size_t)outputs * sizeof(float), cudaMemcpyDeviceToHost) !=
                                     cudaSuccess) {
            TEST_FAIL(name, "stages %d: %s: %s", stages, cgp_status_string(st), cgp_last_error_detail());
            goto out;
        }
        for (int64_t i = 0; i < outputs; ++i)
            if (check_never_written(y_part[i]) || y_part[i] != y_part[i]) {
                TEST_FAIL(name, "stages %d left y[%lld] %s", stages, (long long)i,
                          check_never_written(y_part[i]) ? "never written" : "NaN");
                goto out;
            }
        if (!test_recorded_path_matches(plan, s, pr->p.padding, pr->p.w, why, sizeof why)) {
            TEST_FAIL(name, "stages %d: %s", stages, why);
            goto out;
        }
    }
    TEST_PASS(name);
out:
    cudaFree(ws);
    if (plan)
        cgp_plan_destroy(plan);
    free(y_full), free(y_part);
}

int main(void)
{
    if (!test_gpu_available("gpu_tensorcore"))
        return test_exit_code();
    const uint64_t seed = test_seed("gpu_tensorcore");
    const cgp_device_info dev = test_device_info();
    int tf32_versions[MAX_TF32_VERSIONS], tf32x3_versions[MAX_TF32_VERSIONS];
    const int tf32_count = table_versions(CGP_PRECISION_TF32, tf32_versions);
    const int tf32x3_count = table_versions(CGP_PRECISION_TF32X3, tf32x3_versions);
    const size_t count = sizeof cases / sizeof cases[0];
    for (size_t i = 0; i <= count; ++i) {
        /* the last round: kernel 0 ("best") on the partial-tiles shape */
        const int kernel_zero = i == count;
        const shape_case *c = &cases[kernel_zero ? 5 : i];
        for (int pad = 0; pad <= 1; ++pad) {
            if ((kernel_zero && pad == 0) || cgp_output_height(&c->shape, (cgp_padding)pad) < 1 ||
                cgp_output_width(&c->shape, (cgp_padding)pad) < 1)
                continue;
            printf("# shape %lldx%lldx%lldx%lldx%lld %s, %s padding\n", (long long)c->shape.n, (long long)c->shape.cin,
                   (long long)c->shape.cout, (long long)c->shape.h, (long long)c->shape.w, c->what,
                   pad ? "same" : "valid");
            problem pr;
            char err[512];
            const int rc = problem_create(&pr, &c->shape, (cgp_padding)pad, seed + 2 * i + (uint64_t)pad, 0, err,
                                          sizeof err);
            if (rc == 2) {
                TEST_SKIP("gpu_tensorcore problem", "%s", err);
                continue;
            }
            if (rc != 0) {
                TEST_FAIL("gpu_tensorcore problem", "%s", err);
                continue;
            }
            static const int best[] = {0};
            if (kernel_zero)
                test_problem(&pr, best, 1, best, 1, &dev);
            else
                test_problem(&pr, tf32_versions, tf32_count, tf32x3_versions, tf32x3_count, &dev);
            if (!kernel_zero && c->stage_split)
                for (int v = 0; v < tf32_count + tf32x3_count; ++v) {
                    const int is_tf32 = v < tf32_count;
                    const int version = is_tf32 ? tf32_versions[v] : tf32x3_versions[v - tf32_count];
                    if (version_runs(version, &pr, &dev)) /* test_problem checked the others' refusal */
                        test_stage_split(&pr, is_tf32 ? CGP_PRECISION_TF32 : CGP_PRECISION_TF32X3, version,
                                         has_stage_split(version));
                }
            problem_destroy(&pr);
        }
    }
    test_tolerance_summary("gpu_tensorcore");
    return test_exit_code();
}
