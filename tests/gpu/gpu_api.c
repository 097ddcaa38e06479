/*
 * gpu_api.c - the public API (include/cgp.h) as a program uses it, and misuses it:
 *   - misuse: NULL plan, shape, options and tensor pointers; bad shapes (zero or negative
 *     dimensions, no output pixel, sizes that overflow); bad options (padding, reduce, precision,
 *     kernel out of range, a version that does not exist, a version of another precision, a
 *     version that cannot run the shape); misaligned x, weight, y and workspace; a workspace too
 *     small or NULL; a destroyed or never-created plan given to every call, also after new plans were created (a
 *     handle is never given twice). Each returns its status without crashing or enqueuing anything, and
 *     cgp_last_error_detail() (per thread) names the problem. Every status has a message. The checks that need no
 *     device also run without one.
 *   - streams: two plans with different inputs on two non-default streams at once; one plan on
 *     cudaStreamPerThread, cudaStreamLegacy and stream 0; outputs against the CPU reference.
 *   - CUDA graphs: cgp_plan_run captured on a stream (global capture mode, which refuses any
 *     allocation or synchronisation), replayed 3 times into a NaN-poisoned y; a det plan's replays
 *     are bit-identical to an eager run.
 *   - no hidden synchronisation: with the stream held by a host function, cgp_plan_run returns
 *     while the stream is still blocked (cudaStreamQuery: cudaErrorNotReady).
 * Without a GPU the device checks are one SKIP (a FAIL with CGP_TEST_REQUIRE_GPU=1).
 * Run: make test CGP_TEST_FILTER=gpu_api   (or build/tests/gpu_api directly)
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>

#include "cgp.h"
#include "gpulib.h"
#include "kernel_api.h"
#include "reference.h"
#include "rng.h"
#include "testlib.h"
#include "tolerance.h"

#define TEST_CGP(name, call)                                                                               \
    do {                                                                                                   \
        cgp_status test_cgp_status_ = (call);                                                              \
        if (test_cgp_status_ != CGP_SUCCESS) {                                                             \
            TEST_FAIL((name), "%s: %s (%s)", #call, cgp_status_string(test_cgp_status_), cgp_last_error_detail()); \
            goto out;                                                                                      \
        }                                                                                                  \
    } while (0)

/* PASS when `got` is `want` and (for an error) the detail mentions `word`. */
static void expect_status(const char *name, cgp_status got, cgp_status want, const char *word)
{
    const char *detail = cgp_last_error_detail();
    if (got != want)
        TEST_FAIL(name, "returned %d (%s), expected %d (%s); detail: %s", (int)got, cgp_status_string(got), (int)want,
                  cgp_status_string(want), got == CGP_SUCCESS ? "(none)" : detail);
    else if (want == CGP_SUCCESS)
        TEST_PASS(name);
    else if (!strstr(detail, word))
        TEST_FAIL(name, "right status, but the detail \"%s\" does not mention \"%s\"", detail, word);
    else
        test_report("PASS", name, "%s", detail);
}

static char not_null; /* a non-NULL plan value: a failed create must replace it with NULL */

/* ------------------------------------------------------------------------------------------------ */
/* Checks that need no device: the library validates before it touches CUDA.                        */

static void check_status_strings(void)
{
    const char *name = "gpu_api cgp_status_string";
    const char *seen[CGP_ERROR_OUT_OF_HOST_MEMORY + 1];
    for (int code = CGP_SUCCESS; code <= CGP_ERROR_OUT_OF_HOST_MEMORY; ++code) {
        const char *s = cgp_status_string((cgp_status)code);
        seen[code] = s;
        if (!s || !s[0] || strcmp(s, cgp_status_string((cgp_status)99)) == 0) {
            TEST_FAIL(name, "status %d has no message of its own ('%s')", code, s ? s : "(null)");
            return;
        }
        for (int other = 0; other < code; ++other)
            if (strcmp(seen[other], s) == 0) {
                TEST_FAIL(name, "statuses %d and %d share the message '%s'", other, code, s);
                return;
            }
    }
    const char *unknown = cgp_status_string((cgp_status)99);
    TEST_EXPECT(name, unknown && unknown[0], "an unknown status has an empty message");
}

static void check_output_size(void)
{
    const char *name = "gpu_api cgp_output_height/width";
    const cgp_shape s = {1, 1, 1, 9, 2};
    const cgp_shape big = {1, 1, 1, INT64_MAX, INT64_MAX};
    const struct {
        int64_t got, want;
        const char *what;
    } cases[] = {
        {cgp_output_height(&s, CGP_PADDING_VALID), 7, "H=9 valid"},
        {cgp_output_height(&s, CGP_PADDING_SAME), 9, "H=9 same"},
        {cgp_output_width(&s, CGP_PADDING_VALID), 0, "W=2 valid"},
        {cgp_output_width(&s, CGP_PADDING_SAME), 2, "W=2 same"},
        {cgp_output_width(&big, CGP_PADDING_VALID), INT64_MAX - 2, "W=INT64_MAX valid"},
        {cgp_output_height(NULL, CGP_PADDING_SAME), 0, "NULL shape"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        if (cases[i].got != cases[i].want) {
            TEST_FAIL(name, "%s gave %lld, expected %lld", cases[i].what, (long long)cases[i].got,
                      (long long)cases[i].want);
            return;
        }
    TEST_PASS(name);
}

static void check_create_arguments(void)
{
    const cgp_shape shape = {2, 8, 64, 16, 16};
    const cgp_options options = cgp_default_options();
    cgp_plan *plan = NULL;
    expect_status("gpu_api create: NULL plan pointer", cgp_plan_create(NULL, &shape, &options),
                  CGP_ERROR_NULL_POINTER, "NULL");
    expect_status("gpu_api create: NULL shape", cgp_plan_create(&plan, NULL, &options), CGP_ERROR_NULL_POINTER,
                  "NULL");
    expect_status("gpu_api create: NULL options", cgp_plan_create(&plan, &shape, NULL), CGP_ERROR_NULL_POINTER,
                  "NULL");

    const int64_t big = (int64_t)1 << 40, huge = (int64_t)1 << 20;
    const struct {
        cgp_shape shape;
        cgp_padding padding;
        const char *what, *word;
    } bad_shapes[] = {
        {{0, 8, 64, 16, 16}, CGP_PADDING_VALID, "N = 0", "N=0"},
        {{2, -3, 64, 16, 16}, CGP_PADDING_VALID, "Cin = -3", "Cin=-3"},
        {{2, 8, 0, 16, 16}, CGP_PADDING_SAME, "Cout = 0", "Cout=0"},
        {{2, 8, 64, -1, 16}, CGP_PADDING_VALID, "H = -1", "H=-1"},
        {{2, 8, 64, 16, 0}, CGP_PADDING_SAME, "W = 0", "W=0"},
        {{2, 8, 64, 2, 16}, CGP_PADDING_VALID, "H = 2 with valid padding", "no output pixel"},
        {{2, 8, 64, 16, 2}, CGP_PADDING_VALID, "W = 2 with valid padding", "no output pixel"},
        {{big, 8, 64, huge, huge}, CGP_PADDING_VALID, "N = 2^40, H = W = 2^20", "overflow"},
        {{1, 1, 1, INT64_MAX, 3}, CGP_PADDING_VALID, "H = INT64_MAX", "overflow"},
        {{1, 1, 1, 3, INT64_MAX - 2}, CGP_PADDING_SAME, "W = INT64_MAX - 2, same padding", "overflow"},
        {{1, 8, INT64_MAX / 8, 16, 16}, CGP_PADDING_VALID, "Cout = INT64_MAX / 8", "overflow"},
        {{INT64_MAX, 1, 1, 3, 3}, CGP_PADDING_VALID, "N = INT64_MAX", "overflow"},
    };
    for (size_t i = 0; i < sizeof bad_shapes / sizeof bad_shapes[0]; ++i) {
        char name[160];
        snprintf(name, sizeof name, "gpu_api create: %s", bad_shapes[i].what);
        cgp_options o = options;
        o.padding = bad_shapes[i].padding;
        plan = (cgp_plan *)&not_null;
        const cgp_status st = cgp_plan_create(&plan, &bad_shapes[i].shape, &o);
        if (st == CGP_ERROR_INVALID_SHAPE && plan != NULL)
            TEST_FAIL(name, "returned CGP_ERROR_INVALID_SHAPE but did not set *plan to NULL");
        else
            expect_status(name, st, CGP_ERROR_INVALID_SHAPE, bad_shapes[i].word);
    }

    const struct {
        cgp_options options;
        const char *what, *word;
    } bad_options[] = {
        {{(cgp_padding)5, CGP_REDUCE_DET, CGP_PRECISION_FP32, 0, CGP_SELECT_HEURISTIC}, "padding 5", "padding"},
        {{(cgp_padding)-1, CGP_REDUCE_DET, CGP_PRECISION_FP32, 0, CGP_SELECT_HEURISTIC}, "padding -1", "padding"},
        {{CGP_PADDING_VALID, (cgp_reduce)7, CGP_PRECISION_FP32, 0, CGP_SELECT_HEURISTIC}, "reduce 7", "reduce"},
        {{CGP_PADDING_VALID, CGP_REDUCE_DET, (cgp_precision)9, 0, CGP_SELECT_HEURISTIC}, "precision 9", "precision"},
        {{CGP_PADDING_VALID, CGP_REDUCE_DET, (cgp_precision)-1, 0, CGP_SELECT_HEURISTIC}, "precision -1", "precision"},
        {{CGP_PADDING_VALID, CGP_REDUCE_DET, CGP_PRECISION_FP32, -1, CGP_SELECT_HEURISTIC}, "kernel -1", "kernel"},
        {{CGP_PADDING_VALID, CGP_REDUCE_DET, CGP_PRECISION_FP32, 0, (cgp_select)7}, "select 7", "select"},
        {{CGP_PADDING_VALID, CGP_REDUCE_DET, CGP_PRECISION_FP32, 9, CGP_SELECT_MEASURED}, "select measured, kernel 9",
         "kernel must be 0"},
        {{CGP_PADDING_VALID, CGP_REDUCE_DET, CGP_PRECISION_TF32, 11, CGP_SELECT_HEURISTIC}, "kernel 11 (retired)",
         "left the library"},
    };
    for (size_t i = 0; i < sizeof bad_options / sizeof bad_options[0]; ++i) {
        char name[160];
        snprintf(name, sizeof name, "gpu_api create: %s", bad_options[i].what);
        plan = (cgp_plan *)&not_null;
        const cgp_status st = cgp_plan_create(&plan, &shape, &bad_options[i].options);
        if (st == CGP_ERROR_INVALID_OPTION && plan != NULL)
            TEST_FAIL(name, "returned CGP_ERROR_INVALID_OPTION but did not set *plan to NULL");
        else
            expect_status(name, st, CGP_ERROR_INVALID_OPTION, bad_options[i].word);
    }
}

/* A plan pointer no create returned: the registry of live plans rejects it without reading it. */
static void check_not_a_plan(void)
{
    static uint64_t not_a_plan_storage[64];
    cgp_plan *fake = (cgp_plan *)not_a_plan_storage;
    size_t bytes = 0;
    float dummy[4] = {0};
    expect_status("gpu_api never-created plan: run", cgp_plan_run(fake, dummy, dummy, dummy, dummy, NULL, 0, 0),
                  CGP_ERROR_INVALID_PLAN, "live plan");
    expect_status("gpu_api never-created plan: workspace_size", cgp_plan_workspace_size(fake, &bytes),
                  CGP_ERROR_INVALID_PLAN, "live plan");
    expect_status("gpu_api never-created plan: kernel", cgp_plan_kernel(fake, NULL, NULL), CGP_ERROR_INVALID_PLAN,
                  "live plan");
    expect_status("gpu_api never-created plan: destroy", cgp_plan_destroy(fake), CGP_ERROR_INVALID_PLAN,
                  "live plan");
    /* a NULL plan is refused: destroy says NULL_POINTER, the others "not a live plan" */
    expect_status("gpu_api NULL plan: run", cgp_plan_run(NULL, dummy, dummy, dummy, dummy, NULL, 0, 0),
                  CGP_ERROR_INVALID_PLAN, "live plan");
    expect_status("gpu_api NULL plan: workspace_size", cgp_plan_workspace_size(NULL, &bytes), CGP_ERROR_INVALID_PLAN,
                  "live plan");
    expect_status("gpu_api NULL plan: kernel", cgp_plan_kernel(NULL, NULL, NULL), CGP_ERROR_INVALID_PLAN,
                  "live plan");
    expect_status("gpu_api NULL plan: destroy", cgp_plan_destroy(NULL), CGP_ERROR_NULL_POINTER, "NULL");
}

static void *fail_in_other_thread(void *arg)
{
    cgp_options bad = cgp_default_options();
    const cgp_shape shape = {1, 1, 1, 3, 3};
    cgp_plan *plan = NULL;
    bad.reduce = (cgp_reduce)7;
    *(cgp_status *)arg = cgp_plan_create(&plan, &shape, &bad);
    return NULL;
}

static void check_detail_per_thread(void)
{
    const char *name = "gpu_api cgp_last_error_detail is per thread";
    const cgp_shape shape = {0, 1, 1, 3, 3};
    const cgp_options options = cgp_default_options();
    cgp_plan *plan = NULL;
    cgp_status other = CGP_SUCCESS;
    pthread_t thread;
    (void)cgp_plan_create(&plan, &shape, &options); /* fails here: N = 0 */
    char before[512];
    snprintf(before, sizeof before, "%s", cgp_last_error_detail());
    if (pthread_create(&thread, NULL, fail_in_other_thread, &other) != 0 || pthread_join(thread, NULL) != 0) {
        TEST_FAIL(name, "could not run a second thread");
        return;
    }
    if (other != CGP_ERROR_INVALID_OPTION)
        TEST_FAIL(name, "the other thread's call returned %d, expected CGP_ERROR_INVALID_OPTION", (int)other);
    else if (strcmp(before, cgp_last_error_detail()) != 0 || !strstr(before, "N=0"))
        TEST_FAIL(name, "this thread's detail changed from \"%s\" to \"%s\"", before, cgp_last_error_detail());
    else
        TEST_PASS(name);
}

/* ------------------------------------------------------------------------------------------------ */
/* Device checks.                                                                                    */

/* One problem: host inputs, its fp64 CPU reference, device tensors (y poisoned by the callers). */
typedef struct api_problem {
    cgp_shape shape;
    cgp_padding padding;
    int64_t x_count, w_count, y_count;
    float *hx, *hw, *hb, *hy;
    double *ref;
    float *dx, *dw, *db, *dy;
} api_problem;

static void problem_free(api_problem *p)
{
    cudaFree(p->dx);
    cudaFree(p->dw);
    cudaFree(p->db);
    cudaFree(p->dy);
    free(p->hx);
    free(p->hw);
    free(p->hb);
    free(p->hy);
    free(p->ref);
    memset(p, 0, sizeof *p);
}

static uint64_t api_seed; /* test_seed's, added to each check's own */

/* 0, or -1 after reporting FAIL under `name` */
static int problem_setup(api_problem *p, cgp_shape shape, cgp_padding padding, uint64_t seed, const char *name)
{
    memset(p, 0, sizeof *p);
    seed += api_seed;
    p->shape = shape;
    p->padding = padding;
    p->x_count = shape.n * shape.cin * shape.h * shape.w;
    p->w_count = shape.cout * shape.cin * 9;
    p->y_count = shape.n * shape.cout;
    p->hx = malloc((size_t)p->x_count * sizeof(float));
    p->hw = malloc((size_t)p->w_count * sizeof(float));
    p->hb = malloc((size_t)shape.cout * sizeof(float));
    p->hy = malloc((size_t)p->y_count * sizeof(float));
    p->ref = malloc((size_t)p->y_count * sizeof(double));
    if (!p->hx || !p->hw || !p->hb || !p->hy || !p->ref) {
        TEST_FAIL(name, "out of host memory");
        goto out;
    }
    const float w_scale = 2.0f / sqrtf((float)(shape.cin * 9)); /* conv outputs of order 1 */
    rng_fill_uniform(p->hx, p->x_count, -1.0f, 1.0f, rng_seed_x(seed));
    rng_fill_uniform(p->hw, p->w_count, -w_scale, w_scale, rng_seed_w(seed));
    rng_fill_uniform(p->hb, shape.cout, -0.5f, 0.5f, rng_seed_b(seed));
    if (reference_forward(p->hx, p->hw, p->hb, shape.n, shape.cin, shape.cout, shape.h, shape.w, (int)padding, p->ref,
                          0) != 0) {
        TEST_FAIL(name, "reference_forward refused the shape");
        goto out;
    }
    TEST_CUDA(name, cudaMalloc((void **)&p->dx, (size_t)p->x_count * sizeof(float)));
    TEST_CUDA(name, cudaMalloc((void **)&p->dw, (size_t)p->w_count * sizeof(float)));
    TEST_CUDA(name, cudaMalloc((void **)&p->db, (size_t)shape.cout * sizeof(float)));
    TEST_CUDA(name, cudaMalloc((void **)&p->dy, (size_t)p->y_count * sizeof(float)));
    TEST_CUDA(name, cudaMemcpy(p->dx, p->hx, (size_t)p->x_count * sizeof(float), cudaMemcpyHostToDevice));
    TEST_CUDA(name, cudaMemcpy(p->dw, p->hw, (size_t)p->w_count * sizeof(float), cudaMemcpyHostToDevice));
    TEST_CUDA(name, cudaMemcpy(p->db, p->hb, (size_t)shape.cout * sizeof(float), cudaMemcpyHostToDevice));
    TEST_CUDA(name, cudaDeviceSynchronize()); /* the uploads are done before any non-blocking stream runs */
    return 0;
out:
    problem_free(p);
    return -1;
}

static int poison_y(const api_problem *p, cudaStream_t s, const char *name)
{
    TEST_CUDA(name, poison_outputs(p->dy, p->y_count, s));
    return 0;
out:
    return -1;
}

/* Waits for `s`, copies y to p->hy and compares it with the reference: 0, or -1 after FAIL. */
static int problem_check(api_problem *p, cudaStream_t s, int precision, const char *name)
{
    TEST_CUDA(name, cudaStreamSynchronize(s));
    TEST_CUDA(name, cudaMemcpy(p->hy, p->dy, (size_t)p->y_count * sizeof(float), cudaMemcpyDeviceToHost));
    const int64_t pixels = cgp_output_height(&p->shape, p->padding) * cgp_output_width(&p->shape, p->padding);
    return test_check_y(name, p->hy, p->ref, p->y_count, test_arith_of_precision(precision), pixels, p->shape.cin)
                   .passed
               ? 0
               : -1;
out:
    return -1;
}

/* A plan for p and its workspace (at least 64 bytes more than asked, for the misalignment case). */
typedef struct api_plan {
    cgp_plan *plan;
    void *workspace;
    size_t workspace_bytes;
} api_plan;

static int plan_setup(api_plan *a, const api_problem *p, cgp_reduce reduce, const char *name)
{
    memset(a, 0, sizeof *a);
    cgp_options o = cgp_default_options();
    o.padding = p->padding;
    o.reduce = reduce;
    TEST_CGP(name, cgp_plan_create(&a->plan, &p->shape, &o));
    TEST_CGP(name, cgp_plan_workspace_size(a->plan, &a->workspace_bytes));
    TEST_CUDA(name, cudaMalloc(&a->workspace, a->workspace_bytes + 64));
    return 0;
out:
    return -1;
}

static void plan_free(api_plan *a, const char *name)
{
    if (a->plan) {
        const cgp_status st = cgp_plan_destroy(a->plan);
        if (st != CGP_SUCCESS)
            TEST_FAIL(name, "cgp_plan_destroy: %s (%s)", cgp_status_string(st), cgp_last_error_detail());
    }
    cudaFree(a->workspace);
    memset(a, 0, sizeof *a);
}

static cgp_status run_plan(const api_plan *a, const api_problem *p, cudaStream_t s)
{
    return cgp_plan_run(a->plan, p->dx, p->dw, p->db, p->dy, a->workspace, a->workspace_bytes, s);
}

static void check_kernel_choice(void)
{
    const cgp_shape shape = {1, 3, 7, 9, 9};
    cgp_options o = cgp_default_options();
    cgp_plan *plan = NULL;
    o.kernel = 77;
    expect_status("gpu_api create: kernel version 77 (none such)", cgp_plan_create(&plan, &shape, &o),
                  CGP_ERROR_INVALID_OPTION, "77");

    int count = 0;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&count);
    if (count < 1) {
        TEST_FAIL("gpu_api kernel table", "cgp_kernel_table lists no kernel");
        return;
    }
    o.kernel = table[0]->version;
    o.precision = (cgp_precision)((table[0]->precision + 1) % 3);
    char name[200];
    snprintf(name, sizeof name, "gpu_api create: kernel %d (%s) with precision %d", table[0]->version, table[0]->name,
             (int)o.precision);
    expect_status(name, cgp_plan_create(&plan, &shape, &o), CGP_ERROR_INVALID_OPTION, "precision");

    cgp_device_info device; /* the device state the library reads (to ask a version why it refuses) */
    if (cgp_current_device_info(&device) != cudaSuccess) {
        TEST_FAIL("gpu_api create: a kernel version that cannot run the shape", "could not query the device");
        return;
    }
    const cgp_problem problem = {shape.n, shape.cin, shape.cout, shape.h, shape.w, shape.h - 2, shape.w - 2, 0};
    for (int i = 0; i < count; ++i) {
        const char *why = table[i]->unsupported(&problem, &device);
        if (!why)
            continue;
        snprintf(name, sizeof name, "gpu_api create: kernel %d (%s) on 1x3x7x9x9", table[i]->version, table[i]->name);
        o.kernel = table[i]->version;
        o.precision = (cgp_precision)table[i]->precision;
        expect_status(name, cgp_plan_create(&plan, &shape, &o), CGP_ERROR_UNSUPPORTED, why);
        return;
    }
    TEST_SKIP("gpu_api create: a kernel version that cannot run the shape", "every version runs 1x3x7x9x9");
}

/* Every element of y never written since it was poisoned. */
static int y_untouched(const api_problem *p)
{
    for (int64_t i = 0; i < p->y_count; ++i)
        if (!check_never_written(p->hy[i]))
            return 0;
    return 1;
}

/* A destroyed plan's handle never names a plan created after it: the host memory of a freed plan comes back to the
 * next plan made (glibc hands a block of the same size straight back), so a handle that was the plan's address
 * would run the new plan, with its larger shape, on the old caller's buffers. */
static void check_handle_not_reused(cgp_plan *dead, const api_problem *p, void *ws, size_t ws_bytes, cudaStream_t s)
{
    const char *name = "gpu_api destroyed plan, then plans created: the old handle is none of them";
    const cgp_shape larger = {p->shape.n * 4, p->shape.cin, p->shape.cout * 2, p->shape.h * 2, p->shape.w * 2};
    const cgp_options o = cgp_default_options();
    enum { kCreated = 8 };
    cgp_plan *made[kCreated] = {NULL};
    int created = 0, same_handle = 0;
    for (; created < kCreated; ++created) {
        const cgp_status st = cgp_plan_create(&made[created], &larger, &o);
        if (st != CGP_SUCCESS) {
            TEST_FAIL(name, "cgp_plan_create: %s (%s)", cgp_status_string(st), cgp_last_error_detail());
            break;
        }
        same_handle |= made[created] == dead;
        if (created % 2 == 0) { /* destroy every other one: freed blocks and slots come back */
            cgp_plan_destroy(made[created]);
            made[created] = NULL;
        }
    }
    if (created == kCreated) {
        /* asked first, so that a handle wrongly taken for a live plan launches nothing on the small buffers */
        const cgp_status kernel_st = cgp_plan_kernel(dead, NULL, NULL);
        const cgp_status run_st = kernel_st == CGP_ERROR_INVALID_PLAN
                                      ? cgp_plan_run(dead, p->dx, p->dw, p->db, p->dy, ws, ws_bytes, s)
                                      : CGP_SUCCESS;
        TEST_EXPECT(name, !same_handle && kernel_st == CGP_ERROR_INVALID_PLAN && run_st == CGP_ERROR_INVALID_PLAN,
                    "a new plan got the old handle: %d; cgp_plan_kernel(old): %s, cgp_plan_run(old): %s", same_handle,
                    cgp_status_string(kernel_st), cgp_status_string(run_st));
    }
    for (int i = 0; i < created; ++i)
        if (made[i])
            cgp_plan_destroy(made[i]);
}

static void check_run_misuse(void)
{
    const char *setup = "gpu_api run misuse setup";
    api_problem p;
    api_plan a = {0};
    cudaStream_t s = NULL;
    if (problem_setup(&p, (cgp_shape){2, 8, 64, 20, 20}, CGP_PADDING_VALID, 11, setup) != 0)
        return;
    if (plan_setup(&a, &p, CGP_REDUCE_DET, setup) != 0)
        goto out;
    TEST_CUDA(setup, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (poison_y(&p, s, setup) != 0)
        goto out;
    const size_t ws_bytes = a.workspace_bytes;
    char *ws = a.workspace;
    const float *w_off = (const float *)((const char *)p.dw + 2), *b_off = (const float *)((const char *)p.db + 2);
    float *y_off = (float *)((char *)p.dy + 2);
    expect_status("gpu_api run: NULL x", cgp_plan_run(a.plan, NULL, p.dw, p.db, p.dy, ws, ws_bytes, s),
                  CGP_ERROR_NULL_POINTER, "NULL");
    expect_status("gpu_api run: NULL weight", cgp_plan_run(a.plan, p.dx, NULL, p.db, p.dy, ws, ws_bytes, s),
                  CGP_ERROR_NULL_POINTER, "NULL");
    expect_status("gpu_api run: NULL bias", cgp_plan_run(a.plan, p.dx, p.dw, NULL, p.dy, ws, ws_bytes, s),
                  CGP_ERROR_NULL_POINTER, "NULL");
    expect_status("gpu_api run: NULL y", cgp_plan_run(a.plan, p.dx, p.dw, p.db, NULL, ws, ws_bytes, s),
                  CGP_ERROR_NULL_POINTER, "NULL");
    if (ws_bytes > 0) {
        expect_status("gpu_api run: NULL workspace", cgp_plan_run(a.plan, p.dx, p.dw, p.db, p.dy, NULL, ws_bytes, s),
                      CGP_ERROR_NULL_POINTER, "workspace");
        expect_status("gpu_api run: workspace one byte short",
                      cgp_plan_run(a.plan, p.dx, p.dw, p.db, p.dy, ws, ws_bytes - 1, s),
                      CGP_ERROR_WORKSPACE_TOO_SMALL, "workspace");
        expect_status("gpu_api run: workspace of 0 bytes", cgp_plan_run(a.plan, p.dx, p.dw, p.db, p.dy, ws, 0, s),
                      CGP_ERROR_WORKSPACE_TOO_SMALL, "workspace");
    } else {
        TEST_SKIP("gpu_api run: workspace too small or NULL", "this plan needs no workspace");
    }
    expect_status("gpu_api run: x + 1 (misaligned)", cgp_plan_run(a.plan, p.dx + 1, p.dw, p.db, p.dy, ws, ws_bytes, s),
                  CGP_ERROR_MISALIGNED, "aligned");
    expect_status("gpu_api run: workspace + 4 (misaligned)",
                  cgp_plan_run(a.plan, p.dx, p.dw, p.db, p.dy, ws + 4, ws_bytes, s), CGP_ERROR_MISALIGNED, "aligned");
    expect_status("gpu_api run: weight + 2 bytes", cgp_plan_run(a.plan, p.dx, w_off, p.db, p.dy, ws, ws_bytes, s),
                  CGP_ERROR_MISALIGNED, "aligned");
    expect_status("gpu_api run: bias + 2 bytes", cgp_plan_run(a.plan, p.dx, p.dw, b_off, p.dy, ws, ws_bytes, s),
                  CGP_ERROR_MISALIGNED, "aligned");
    expect_status("gpu_api run: y + 2 bytes", cgp_plan_run(a.plan, p.dx, p.dw, p.db, y_off, ws, ws_bytes, s),
                  CGP_ERROR_MISALIGNED, "aligned");
    expect_status("gpu_api workspace_size: NULL bytes", cgp_plan_workspace_size(a.plan, NULL), CGP_ERROR_NULL_POINTER,
                  "NULL");

    /* none of the refused calls enqueued anything: the stream is clean and y still poisoned */
    const char *name = "gpu_api refused runs enqueue nothing";
    TEST_CUDA(name, cudaStreamSynchronize(s));
    TEST_CUDA(name, cudaMemcpy(p.hy, p.dy, (size_t)p.y_count * sizeof(float), cudaMemcpyDeviceToHost));
    TEST_EXPECT(name, y_untouched(&p), "y was written by a call that returned an error");

    /* the plan still works after all that */
    name = "gpu_api run after refused runs";
    TEST_CGP(name, run_plan(&a, &p, s));
    if (problem_check(&p, s, CGP_PRECISION_FP32, name) == 0)
        TEST_PASS(name);

    /* a destroyed plan is recognised by every call */
    cgp_plan *dead = a.plan;
    expect_status("gpu_api destroy a live plan", cgp_plan_destroy(dead), CGP_SUCCESS, NULL);
    a.plan = NULL;
    size_t bytes = 0;
    expect_status("gpu_api destroyed plan: run", cgp_plan_run(dead, p.dx, p.dw, p.db, p.dy, ws, ws_bytes, s),
                  CGP_ERROR_INVALID_PLAN, "live plan");
    expect_status("gpu_api destroyed plan: workspace_size", cgp_plan_workspace_size(dead, &bytes),
                  CGP_ERROR_INVALID_PLAN, "live plan");
    expect_status("gpu_api destroyed plan: kernel", cgp_plan_kernel(dead, NULL, NULL), CGP_ERROR_INVALID_PLAN,
                  "live plan");
    expect_status("gpu_api destroyed plan: destroy again", cgp_plan_destroy(dead), CGP_ERROR_INVALID_PLAN,
                  "live plan");
    check_handle_not_reused(dead, &p, ws, ws_bytes, s);
out:
    plan_free(&a, setup);
    if (s)
        cudaStreamDestroy(s);
    problem_free(&p);
}

/* Two plans with different inputs, each on its own non-blocking stream, enqueued interleaved. */
static void check_two_streams(void)
{
    const char *name = "gpu_api two plans on two streams at once";
    api_problem p[2];
    api_plan a[2] = {{0}};
    cudaStream_t s[2] = {NULL, NULL};
    int ready = 0;
    if (problem_setup(&p[0], (cgp_shape){2, 8, 64, 20, 20}, CGP_PADDING_VALID, 21, name) != 0)
        return;
    if (problem_setup(&p[1], (cgp_shape){3, 3, 7, 17, 13}, CGP_PADDING_SAME, 22, name) != 0) {
        problem_free(&p[0]);
        return;
    }
    for (int i = 0; i < 2; ++i) {
        if (plan_setup(&a[i], &p[i], CGP_REDUCE_DET, name) != 0)
            goto out;
        TEST_CUDA(name, cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
        if (poison_y(&p[i], s[i], name) != 0)
            goto out;
    }
    for (int round = 0; round < 4; ++round)
        for (int i = 0; i < 2; ++i)
            TEST_CGP(name, run_plan(&a[i], &p[i], s[i]));
    for (int i = 0; i < 2; ++i)
        if (problem_check(&p[i], s[i], CGP_PRECISION_FP32, name) != 0)
            goto out;
    ready = 1;
out:
    if (ready)
        TEST_PASS(name);
    for (int i = 0; i < 2; ++i) {
        plan_free(&a[i], name);
        if (s[i])
            cudaStreamDestroy(s[i]);
        problem_free(&p[i]);
    }
}

/* One plan, one after the other, on the special stream handles. */
static void check_special_streams(void)
{
    const char *setup = "gpu_api special streams setup";
    const struct {
        cudaStream_t stream;
        const char *what;
    } streams[] = {
        {cudaStreamPerThread, "cudaStreamPerThread"},
        {cudaStreamLegacy, "cudaStreamLegacy"},
        {0, "stream 0 (the default stream)"},
    };
    api_problem p;
    api_plan a = {0};
    if (problem_setup(&p, (cgp_shape){1, 8, 64, 18, 22}, CGP_PADDING_SAME, 31, setup) != 0)
        return;
    if (plan_setup(&a, &p, CGP_REDUCE_DET, setup) != 0)
        goto out;
    for (size_t i = 0; i < sizeof streams / sizeof streams[0]; ++i) {
        char name[120];
        snprintf(name, sizeof name, "gpu_api run on %s", streams[i].what);
        if (poison_y(&p, streams[i].stream, name) != 0)
            continue;
        const cgp_status st = run_plan(&a, &p, streams[i].stream);
        if (st != CGP_SUCCESS)
            TEST_FAIL(name, "cgp_plan_run: %s (%s)", cgp_status_string(st), cgp_last_error_detail());
        else if (problem_check(&p, streams[i].stream, CGP_PRECISION_FP32, name) == 0)
            TEST_PASS(name);
    }
out:
    plan_free(&a, setup);
    problem_free(&p);
}

/* Capture one run, replay it 3 times into a poisoned y. */
static void check_graph(cgp_shape shape, cgp_padding padding, cgp_reduce reduce, uint64_t seed)
{
    char name[160];
    snprintf(name, sizeof name, "gpu_api graph capture %lldx%lldx%lldx%lldx%lld %s %s", (long long)shape.n,
             (long long)shape.cin, (long long)shape.cout, (long long)shape.h, (long long)shape.w,
             padding == CGP_PADDING_SAME ? "same" : "valid", reduce == CGP_REDUCE_DET ? "det" : "atomic");
    api_problem p;
    api_plan a = {0};
    cudaStream_t s = NULL;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    float *eager = NULL;
    if (problem_setup(&p, shape, padding, seed, name) != 0)
        return;
    const size_t y_bytes = (size_t)p.y_count * sizeof(float);
    if (!(eager = malloc(y_bytes))) {
        TEST_FAIL(name, "out of host memory");
        goto out;
    }
    if (plan_setup(&a, &p, reduce, name) != 0)
        goto out;
    TEST_CUDA(name, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (poison_y(&p, s, name) != 0)
        goto out;
    TEST_CGP(name, run_plan(&a, &p, s));
    if (problem_check(&p, s, CGP_PRECISION_FP32, name) != 0)
        goto out;
    memcpy(eager, p.hy, y_bytes);

    TEST_CUDA(name, cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    const cgp_status st = run_plan(&a, &p, s);
    const cudaError_t end = cudaStreamEndCapture(s, &graph); /* always: the stream leaves capture mode */
    if (st != CGP_SUCCESS) {
        TEST_FAIL(name, "cgp_plan_run under capture: %s (%s)", cgp_status_string(st), cgp_last_error_detail());
        goto out;
    }
    TEST_CUDA(name, end);
    TEST_CUDA(name, cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 3; ++replay) {
        if (poison_y(&p, s, name) != 0)
            goto out;
        TEST_CUDA(name, cudaGraphLaunch(exec, s));
        if (problem_check(&p, s, CGP_PRECISION_FP32, name) != 0)
            goto out;
        if (reduce == CGP_REDUCE_DET && memcmp(eager, p.hy, y_bytes) != 0) {
            TEST_FAIL(name, "replay %d is not bit-identical to the eager run", replay + 1);
            goto out;
        }
    }
    test_report("PASS", name, "3 replays match the reference%s",
                reduce == CGP_REDUCE_DET ? ", bit-identical to an eager run" : "");
out:
    if (exec)
        cudaGraphExecDestroy(exec);
    if (graph)
        cudaGraphDestroy(graph);
    plan_free(&a, name);
    if (s)
        cudaStreamDestroy(s);
    problem_free(&p);
    free(eager);
}

/* An error an earlier, unrelated call left in this thread (a failed cudaMalloc: not sticky) is the
 * caller's business: cgp_plan_run must not report it as its own failure. */
static void check_foreign_error(void)
{
    const char *name = "gpu_api run after an unrelated failed cudaMalloc";
    api_problem p;
    api_plan a = {0};
    void *too_big = NULL;
    if (problem_setup(&p, (cgp_shape){2, 8, 64, 20, 20}, CGP_PADDING_VALID, 61, name) != 0)
        return;
    if (plan_setup(&a, &p, CGP_REDUCE_DET, name) != 0)
        goto out;
    if (poison_y(&p, 0, name) != 0)
        goto out;
    const cudaError_t oom = cudaMalloc(&too_big, (size_t)1 << 62);
    if (oom == cudaSuccess) {
        TEST_SKIP(name, "a 4 EiB cudaMalloc succeeded");
        goto out;
    }
    const cgp_status st = run_plan(&a, &p, 0);
    (void)cudaGetLastError(); /* leave this thread clean for the next checks */
    if (st != CGP_SUCCESS) {
        TEST_FAIL(name, "cgp_plan_run reported the earlier %s as its own: %s (%s)", cudaGetErrorName(oom),
                  cgp_status_string(st), cgp_last_error_detail());
        goto out;
    }
    if (problem_check(&p, 0, CGP_PRECISION_FP32, name) == 0)
        TEST_PASS(name);
out:
    cudaFree(too_big);
    plan_free(&a, name);
    problem_free(&p);
}

/* A host function that holds its stream until released (or until a 5 s safety timeout). */
typedef struct stream_gate {
    atomic_int released, finished;
} stream_gate;

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

static void CUDART_CB hold_stream(void *arg)
{
    stream_gate *g = arg;
    struct timespec t0;
    const struct timespec pause = {0, 100000}; /* 0.1 ms */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!atomic_load(&g->released) && seconds_since(&t0) < 5.0)
        nanosleep(&pause, NULL);
    atomic_store(&g->finished, 1);
}

static void check_no_hidden_sync(void)
{
    const char *name = "gpu_api run returns while its stream is blocked";
    api_problem p;
    api_plan a = {0};
    cudaStream_t s = NULL;
    stream_gate gate;
    atomic_init(&gate.released, 0);
    atomic_init(&gate.finished, 0);
    int gate_enqueued = 0;
    if (problem_setup(&p, (cgp_shape){2, 8, 64, 20, 20}, CGP_PADDING_VALID, 41, name) != 0)
        return;
    if (plan_setup(&a, &p, CGP_REDUCE_DET, name) != 0)
        goto out;
    TEST_CUDA(name, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (poison_y(&p, s, name) != 0)
        goto out;
    TEST_CUDA(name, cudaLaunchHostFunc(s, hold_stream, &gate));
    gate_enqueued = 1;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const cgp_status st = run_plan(&a, &p, s);
    const double run_seconds = seconds_since(&t0);
    const cudaError_t query = cudaStreamQuery(s);
    const int gate_finished = atomic_load(&gate.finished);
    atomic_store(&gate.released, 1);
    if (query == cudaErrorNotReady)
        (void)cudaGetLastError(); /* the runtime also records NotReady as this thread's last error */
    if (st != CGP_SUCCESS) {
        TEST_FAIL(name, "cgp_plan_run: %s (%s)", cgp_status_string(st), cgp_last_error_detail());
        goto out;
    }
    if (gate_finished) {
        TEST_FAIL(name, "cgp_plan_run returned only after the earlier work on its stream ended (%.1f s)",
                  run_seconds);
        goto out;
    }
    if (query != cudaErrorNotReady) {
        TEST_FAIL(name, "cudaStreamQuery right after the run returned %s, expected cudaErrorNotReady",
                  cudaGetErrorName(query));
        goto out;
    }
    if (problem_check(&p, s, CGP_PRECISION_FP32, name) != 0)
        goto out;
    test_report("PASS", name, "returned after %.3f ms; y right once the stream was released", 1e3 * run_seconds);
out:
    if (gate_enqueued) {
        atomic_store(&gate.released, 1);
        cudaStreamSynchronize(s); /* the gate lives on this stack frame */
    }
    plan_free(&a, name);
    if (s)
        cudaStreamDestroy(s);
    problem_free(&p);
}

int main(void)
{
    check_status_strings();
    check_output_size();
    check_create_arguments();
    check_not_a_plan();
    check_detail_per_thread();

    if (!test_gpu_available("gpu_api device checks"))
        return test_exit_code();
    api_seed = test_seed("gpu_api");
    check_kernel_choice();
    check_run_misuse();
    check_two_streams();
    check_special_streams();
    check_graph((cgp_shape){2, 8, 64, 20, 20}, CGP_PADDING_VALID, CGP_REDUCE_DET, 51);
    check_graph((cgp_shape){2, 8, 64, 20, 20}, CGP_PADDING_VALID, CGP_REDUCE_ATOMIC, 52);
    check_graph((cgp_shape){3, 3, 7, 17, 13}, CGP_PADDING_SAME, CGP_REDUCE_DET, 53);
    check_foreign_error();
    check_no_hidden_sync();
    return test_exit_code();
}
