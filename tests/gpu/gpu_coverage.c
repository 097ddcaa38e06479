/*
 * gpu_coverage.c - every kernel version of every precision, tensor cores included, through what a program
 * may do with a plan besides one run on the default stream, each output checked against the fp64 GPU
 * reference (tf32: of its tf32-rounded inputs) with the bounds of tests/lib/tolerance.h, y poisoned
 * with NaN before every run, and the path each launch recorded the one the version's `path` hook names:
 *   - the CUDA-error path of the API, by two errors the CUDA documentation defines: cgp_plan_create inside
 *     a global-mode stream capture (its cudaMalloc is an unsafe call there: cudaErrorStreamCaptureUnsupported),
 *     and cgp_plan_run of every version on cudaStreamLegacy while a blocking stream captures (the legacy
 *     stream is unusable then: cudaErrorStreamCaptureImplicit). Both return CGP_ERROR_CUDA naming the
 *     error, the refused run writes nothing and records no path, and plan and library work afterwards;
 *   - same padding with H or W of 1 or 2 (every version that takes the shape, both reductions; a version
 *     that refuses one must be refused by cgp_plan_create with the same reason);
 *   - CUDA graph capture (global mode) and 3 replays, both reductions; det replays bit-identical to an
 *     eager run, the replayed launch recording its path as the eager one does;
 *   - two plans on two streams at once, from one host thread and from two, per precision (kernel 0);
 *   - the minimum alignment cgp.h allows: x and workspace 16-byte aligned but not 32, weight, bias and y
 *     4-byte aligned but not 8, both reductions.
 * The alignment cases run last: a kernel that reads wider than the alignment allows faults, and a fault
 * ends every later CUDA call of the process.
 * Run: make test CGP_TEST_FILTER=gpu_coverage   (or build/tests/gpu_coverage)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpulib.h"
#include "kernel_api.h"
#include "problem.h"
#include "tolerance.h"

static uint64_t seed;
static const cgp_kernel_desc *const *table;
static int table_count;
static cgp_device_info device;

/* ---- problems with both references ---- */

typedef struct cov_problem {
    problem pr;
    double *ref[2]; /* exact, of tf32-rounded inputs */
    int64_t outputs, pixels;
    char label[96]; /* "2x8x64x20x24 valid" */
} cov_problem;

static void cov_destroy(cov_problem *c)
{
    free(c->ref[0]);
    free(c->ref[1]);
    problem_destroy(&c->pr);
    memset(c, 0, sizeof *c);
}

/* 0, or -1 after a FAIL under `name` */
static int cov_create(cov_problem *c, cgp_shape s, cgp_padding pad, uint64_t salt, const char *name)
{
    char err[512];
    memset(c, 0, sizeof *c);
    snprintf(c->label, sizeof c->label, "%lldx%lldx%lldx%lldx%lld %s", (long long)s.n, (long long)s.cin,
             (long long)s.cout, (long long)s.h, (long long)s.w, pad ? "same" : "valid");
    if (problem_create(&c->pr, &s, pad, seed + salt, 0, err, sizeof err) != 0) {
        TEST_FAIL(name, "%s: %s", c->label, err);
        return -1;
    }
    c->outputs = s.n * s.cout;
    c->pixels = c->pr.p.hout * c->pr.p.wout;
    c->ref[0] = malloc((size_t)c->outputs * sizeof(double));
    c->ref[1] = malloc((size_t)c->outputs * sizeof(double));
    if (!c->ref[0] || !c->ref[1] || test_problem_references(&c->pr, c->ref[0], c->ref[1], err, sizeof err) != 0) {
        TEST_FAIL(name, "%s: %s", c->label, c->ref[0] && c->ref[1] ? err : "out of host memory");
        cov_destroy(c);
        return -1;
    }
    return 0;
}

/* y of a run of `precision` against the reference it is held to: 1 when within the bounds */
static int cov_check(const char *name, const cov_problem *c, int precision, const float *y)
{
    return test_check_y(name, y, c->ref[precision == CGP_PRECISION_TF32], c->outputs,
                        test_arith_of_precision(precision), c->pixels, c->pr.p.shape.cin)
        .passed;
}

/* The path the plan's launches (with weights w) recorded is the one its version's hook names: 1, or 0 after a FAIL
 * under `name` */
static int cov_check_path(const char *name, cgp_plan *plan, const cov_problem *c, const float *w)
{
    char why[300];
    if (test_recorded_path_matches(plan, &c->pr.p.shape, c->pr.p.padding, w, why, sizeof why))
        return 1;
    TEST_FAIL(name, "%s", why);
    return 0;
}

static const char *why_refused(const cgp_kernel_desc *k, const cov_problem *c)
{
    const cgp_shape *s = &c->pr.p.shape;
    const cgp_problem p = {s->n, s->cin, s->cout, s->h, s->w, c->pr.p.hout, c->pr.p.wout, (int)c->pr.p.padding};
    return k->unsupported(&p, &device);
}

/* ---- a plan with its workspace ---- */

typedef struct cov_plan {
    cgp_plan *plan;
    void *ws;
    size_t ws_bytes;
} cov_plan;

static void plan_free(cov_plan *a)
{
    cudaFree(a->ws);
    if (a->plan)
        cgp_plan_destroy(a->plan);
    memset(a, 0, sizeof *a);
}

/* 0, or -1 after a FAIL under `name` */
static int plan_make(cov_plan *a, const cov_problem *c, int precision, int version, int reduce, const char *name)
{
    const cgp_status st = test_plan_with_workspace(&c->pr.p.shape, c->pr.p.padding, reduce, precision, version,
                                                   &a->plan, &a->ws, &a->ws_bytes);
    if (st != CGP_SUCCESS) {
        TEST_FAIL(name, "plan and workspace: %s: %s", cgp_status_string(st), cgp_last_error_detail());
        plan_free(a);
        return -1;
    }
    return 0;
}

/* Every element never written since y was poisoned. */
static int untouched(const float *y, int64_t count)
{
    for (int64_t i = 0; i < count; ++i)
        if (!check_never_written(y[i]))
            return 0;
    return 1;
}

/* ---- the CUDA-error path ---- */

static void error_path_create(void)
{
    const char *name = "coverage CUDA error: cgp_plan_create inside a global-mode stream capture";
    static char not_null;
    const cgp_shape shape = {2, 8, 64, 20, 24};
    const cgp_options options = cgp_default_options();
    cgp_plan *plan = (cgp_plan *)&not_null;
    cudaStream_t s = NULL;
    cudaGraph_t graph = NULL;
    if (cudaStreamCreate(&s) != cudaSuccess || cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) != cudaSuccess) {
        TEST_FAIL(name, "setting up the capture: %s", cudaGetErrorString(cudaGetLastError()));
        if (s)
            cudaStreamDestroy(s);
        return;
    }
    const cgp_status st = cgp_plan_create(&plan, &shape, &options);
    char detail[512];
    snprintf(detail, sizeof detail, "%s", cgp_last_error_detail());
    cudaStreamEndCapture(s, &graph); /* invalidated by the refused call: no graph, an error to clear */
    if (graph)
        cudaGraphDestroy(graph);
    cudaStreamDestroy(s);
    (void)cudaGetLastError();
    cgp_plan *after = NULL;
    const cgp_status again = cgp_plan_create(&after, &shape, &options);
    if (st != CGP_ERROR_CUDA)
        TEST_FAIL(name, "returned %s (%s), expected CGP_ERROR_CUDA", cgp_status_string(st), detail);
    else if (plan != NULL)
        TEST_FAIL(name, "returned CGP_ERROR_CUDA but left *plan set");
    else if (!strstr(detail, "cudaErrorStreamCapture"))
        TEST_FAIL(name, "the detail \"%s\" does not name the CUDA error", detail);
    else if (again != CGP_SUCCESS)
        TEST_FAIL(name, "after the capture, cgp_plan_create fails: %s", cgp_last_error_detail());
    else
        test_report("PASS", name, "%s", detail);
    if (after)
        cgp_plan_destroy(after);
}

static void error_path_run(const cgp_kernel_desc *k, const cov_problem *c, int reduce)
{
    char name[200];
    snprintf(name, sizeof name, "coverage CUDA error: %s run on the legacy stream during a capture, %s", k->name,
             c->label);
    cov_plan a = {0};
    cudaStream_t s = NULL;
    cudaGraph_t graph = NULL;
    float *y = malloc((size_t)c->outputs * sizeof(float));
    const problem *pr = &c->pr;
    if (!y || plan_make(&a, c, k->precision, k->version, reduce, name) != 0)
        goto out;
    if (poison_outputs(pr->p.y, c->outputs, 0) != cudaSuccess ||
        cudaDeviceSynchronize() != cudaSuccess || cudaStreamCreate(&s) != cudaSuccess ||
        cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
        TEST_FAIL(name, "setting up the capture: %s", cudaGetErrorString(cudaGetLastError()));
        goto out;
    }
    const cgp_status st = cgp_plan_run(a.plan, pr->p.x, pr->p.w, pr->p.b, pr->p.y, a.ws, a.ws_bytes, cudaStreamLegacy);
    char detail[512];
    snprintf(detail, sizeof detail, "%s", cgp_last_error_detail());
    cudaStreamEndCapture(s, &graph);
    if (graph)
        cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    if (st != CGP_ERROR_CUDA) {
        TEST_FAIL(name, "returned %s (%s), expected CGP_ERROR_CUDA", cgp_status_string(st),
                  st == CGP_SUCCESS ? "no detail" : detail);
        goto out;
    }
    if (!strstr(detail, "cudaErrorStreamCapture")) {
        TEST_FAIL(name, "the detail \"%s\" does not name the CUDA error", detail);
        goto out;
    }
    if (cudaMemcpy(y, pr->p.y, (size_t)c->outputs * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess ||
        !untouched(y, c->outputs)) {
        TEST_FAIL(name, "the refused run wrote y (or y could not be read back)");
        goto out;
    }
    const char *recorded = NULL;
    const cgp_status read = cgp_plan_recorded_path(a.plan, &recorded);
    if (read != CGP_SUCCESS) {
        TEST_FAIL(name, "cgp_plan_recorded_path after the refused run: %s", cgp_last_error_detail());
        goto out;
    }
    if (recorded) {
        TEST_FAIL(name, "the refused run recorded path \"%s\": a kernel ran", recorded);
        goto out;
    }
    const cgp_status later = run_poisoned(a.plan, pr->p.x, pr->p.w, pr->p.b, pr->p.y, c->outputs, a.ws, a.ws_bytes, y);
    if (later != CGP_SUCCESS)
        TEST_FAIL(name, "the next run, on the legacy stream after the capture: %s: %s", cgp_status_string(later),
                  cgp_last_error_detail());
    else if (cov_check(name, c, k->precision, y) && cov_check_path(name, a.plan, c, c->pr.p.w))
        test_report("PASS", name, "%s; the next run is right", detail);
out:
    if (s)
        cudaStreamDestroy(s);
    plan_free(&a);
    free(y);
}

/* ---- H or W of 1 and 2, same padding ---- */

static void small_planes(void)
{
    static const cgp_shape shapes[] = {
        {3, 8, 64, 1, 1},  {3, 8, 64, 1, 2},  {3, 8, 64, 2, 1},  {3, 8, 64, 2, 2},
        {2, 8, 64, 1, 37}, {2, 8, 64, 2, 40}, {2, 8, 64, 37, 1}, {2, 8, 64, 40, 2},
        {2, 3, 7, 2, 2},   {2, 3, 7, 1, 19},  {2, 16, 130, 2, 33},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
        cov_problem c;
        if (cov_create(&c, shapes[i], CGP_PADDING_SAME, 100 + i, "coverage small planes problem") != 0)
            continue;
        float *y = malloc((size_t)c.outputs * sizeof(float));
        for (int k = 0; y && k < table_count; ++k) {
            char name[200];
            const char *why = why_refused(table[k], &c);
            if (why) {
                snprintf(name, sizeof name, "coverage small plane %s refuses %s", table[k]->name, c.label);
                test_expect_refusal(name, &c.pr.p.shape, c.pr.p.padding, table[k], why);
                continue;
            }
            for (int reduce = 0; reduce <= 1; ++reduce) {
                snprintf(name, sizeof name, "coverage small plane %s %s %s", table[k]->name, c.label,
                         reduce ? "atomic" : "det");
                cov_plan a = {0};
                if (plan_make(&a, &c, table[k]->precision, table[k]->version, reduce, name) != 0)
                    continue;
                const cgp_status st =
                    run_poisoned(a.plan, c.pr.p.x, c.pr.p.w, c.pr.p.b, c.pr.p.y, c.outputs, a.ws, a.ws_bytes, y);
                if (st != CGP_SUCCESS)
                    TEST_FAIL(name, "%s: %s", cgp_status_string(st), cgp_last_error_detail());
                else if (cov_check(name, &c, table[k]->precision, y) &&
                         cov_check_path(name, a.plan, &c, c.pr.p.w))
                    TEST_PASS(name);
                plan_free(&a);
            }
        }
        if (!y)
            TEST_FAIL("coverage small planes", "out of host memory");
        free(y);
        cov_destroy(&c);
    }
}

/* ---- the per-version problem of the graph, error and alignment cases ---- */

/* The first of two shapes (the fast paths' Cin = 8, Cout = 64 with W % 4 = 0; a generic Cin = 3, Cout = 7,
 * same padding) that version k runs: 0 or 1 with c made, -1 after a FAIL. */
static int version_problem(const cgp_kernel_desc *k, cov_problem *c, const char *what)
{
    static const cgp_shape shapes[2] = {{2, 8, 64, 20, 24}, {2, 3, 7, 17, 13}};
    char name[160], refusals[600] = "";
    snprintf(name, sizeof name, "coverage %s %s", what, k->name);
    for (int i = 0; i < 2; ++i) {
        if (cov_create(c, shapes[i], i ? CGP_PADDING_SAME : CGP_PADDING_VALID, 200 + (uint64_t)(2 * k->version + i),
                       name) != 0)
            return -1;
        const char *why = why_refused(k, c);
        if (!why)
            return i;
        snprintf(refusals + strlen(refusals), sizeof refusals - strlen(refusals), "%s%s: %s", i ? "; " : "",
                 c->label, why);
        cov_destroy(c);
    }
    TEST_FAIL(name, "the version runs neither shape (%s)", refusals);
    return -1;
}

/* ---- CUDA graphs ---- */

static void graph_case(const cgp_kernel_desc *k, const cov_problem *c, int reduce)
{
    char name[200];
    snprintf(name, sizeof name, "coverage graph capture and replay %s %s %s", k->name, c->label,
             reduce ? "atomic" : "det");
    const problem *pr = &c->pr;
    const size_t y_bytes = (size_t)c->outputs * sizeof(float);
    float *eager = malloc(y_bytes), *y = malloc(y_bytes);
    cov_plan a = {0};
    cudaStream_t s = NULL;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    if (!eager || !y || plan_make(&a, c, k->precision, k->version, reduce, name) != 0)
        goto out;
    cgp_status st = run_poisoned(a.plan, pr->p.x, pr->p.w, pr->p.b, pr->p.y, c->outputs, a.ws, a.ws_bytes, eager);
    if (st != CGP_SUCCESS) {
        TEST_FAIL(name, "eager run: %s: %s", cgp_status_string(st), cgp_last_error_detail());
        goto out;
    }
    if (!cov_check_path(name, a.plan, c, c->pr.p.w))
        goto out;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
        cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) != cudaSuccess) {
        TEST_FAIL(name, "starting the capture: %s", cudaGetErrorString(cudaGetLastError()));
        goto out;
    }
    st = cgp_plan_run(a.plan, pr->p.x, pr->p.w, pr->p.b, pr->p.y, a.ws, a.ws_bytes, s);
    const cudaError_t end = cudaStreamEndCapture(s, &graph);
    if (st != CGP_SUCCESS || end != cudaSuccess) {
        TEST_FAIL(name, "capture: cgp_plan_run %s (%s), cudaStreamEndCapture %s", cgp_status_string(st),
                  st == CGP_SUCCESS ? "" : cgp_last_error_detail(), cudaGetErrorName(end));
        goto out;
    }
    if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) {
        TEST_FAIL(name, "cudaGraphInstantiate: %s", cudaGetErrorString(cudaGetLastError()));
        goto out;
    }
    for (int replay = 1; replay <= 3; ++replay) {
        if (poison_outputs(pr->p.y, c->outputs, s) != cudaSuccess || cudaGraphLaunch(exec, s) != cudaSuccess ||
            cudaStreamSynchronize(s) != cudaSuccess ||
            cudaMemcpy(y, pr->p.y, y_bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
            TEST_FAIL(name, "replay %d: %s", replay, cudaGetErrorString(cudaGetLastError()));
            goto out;
        }
        if (!cov_check(name, c, k->precision, y))
            goto out;
        if (reduce == CGP_REDUCE_DET && memcmp(y, eager, y_bytes) != 0) {
            TEST_FAIL(name, "replay %d is not bit-identical to the eager run", replay);
            goto out;
        }
        if (!cov_check_path(name, a.plan, c, c->pr.p.w))
            goto out;
    }
    test_report("PASS", name, "3 replays within the bounds%s", reduce ? "" : ", bit-identical to an eager run");
out:
    if (exec)
        cudaGraphExecDestroy(exec);
    if (graph)
        cudaGraphDestroy(graph);
    if (s)
        cudaStreamDestroy(s);
    plan_free(&a);
    free(eager);
    free(y);
}

/* ---- two plans on two streams: from one thread, and from two ---- */

/* One plan (kernel 0, det) on its own non-blocking stream; 4 rounds of poison + run, then y. */
typedef struct stream_job {
    const cov_problem *c;
    int precision;
    pthread_barrier_t *start; /* the threads wait here between setup and the runs */
    cov_plan a;
    cudaStream_t s;
    cgp_status status;
    char error[512];
    char path_mismatch[300]; /* why the path its launches recorded is not its version's hook's, or "" */
    float *y;
} stream_job;

static void job_setup(stream_job *j)
{
    const problem *pr = &j->c->pr;
    j->status = test_plan_with_workspace(&pr->p.shape, pr->p.padding, CGP_REDUCE_DET, j->precision, 0, &j->a.plan,
                                         &j->a.ws, &j->a.ws_bytes);
    if (j->status != CGP_SUCCESS)
        snprintf(j->error, sizeof j->error, "plan: %s", cgp_last_error_detail());
    else if (cudaStreamCreateWithFlags(&j->s, cudaStreamNonBlocking) != cudaSuccess) {
        j->status = CGP_ERROR_CUDA;
        snprintf(j->error, sizeof j->error, "cudaStreamCreateWithFlags failed");
    }
}

static void job_round(stream_job *j, int round)
{
    const problem *pr = &j->c->pr;
    if (j->status != CGP_SUCCESS)
        return;
    if (poison_outputs(pr->p.y, j->c->outputs, j->s) != cudaSuccess) {
        j->status = CGP_ERROR_CUDA;
        snprintf(j->error, sizeof j->error, "round %d: poison_outputs failed", round);
    } else if ((j->status = cgp_plan_run(j->a.plan, pr->p.x, pr->p.w, pr->p.b, pr->p.y, j->a.ws, j->a.ws_bytes,
                                         j->s)) != CGP_SUCCESS) {
        snprintf(j->error, sizeof j->error, "round %d: %s", round, cgp_last_error_detail());
    }
}

static void job_finish(stream_job *j)
{
    const size_t y_bytes = (size_t)j->c->outputs * sizeof(float);
    if (j->status == CGP_SUCCESS && (cudaStreamSynchronize(j->s) != cudaSuccess ||
                                     cudaMemcpy(j->y, j->c->pr.p.y, y_bytes, cudaMemcpyDeviceToHost) != cudaSuccess)) {
        j->status = CGP_ERROR_CUDA;
        snprintf(j->error, sizeof j->error, "after the runs: %s", cudaGetErrorString(cudaGetLastError()));
    }
    char why[300];
    if (j->status == CGP_SUCCESS &&
        !test_recorded_path_matches(j->a.plan, &j->c->pr.p.shape, j->c->pr.p.padding, j->c->pr.p.w, why,
                                    sizeof why))
        snprintf(j->path_mismatch, sizeof j->path_mismatch, "%s", why);
    if (j->s)
        cudaStreamDestroy(j->s);
    plan_free(&j->a);
}

static void *job_thread(void *arg)
{
    stream_job *j = arg;
    job_setup(j);
    pthread_barrier_wait(j->start);
    for (int round = 0; round < 4; ++round)
        job_round(j, round);
    job_finish(j);
    return NULL;
}

/* Two jobs on two problems at once: from this thread (each round enqueued on both streams before either
 * is waited for), or from two threads released together. */
static void two_streams(int precision, int threads)
{
    static const char *names[] = {"fp32", "tf32", "3xtf32"};
    char name[160];
    snprintf(name, sizeof name, "coverage two plans on two streams, %s, %s", names[precision],
             threads ? "from two host threads at once" : "from one host thread");
    cov_problem c[2];
    stream_job job[2];
    pthread_barrier_t start;
    memset(job, 0, sizeof job);
    if (cov_create(&c[0], (cgp_shape){2, 8, 64, 20, 24}, CGP_PADDING_VALID, 300, name) != 0)
        return;
    if (cov_create(&c[1], (cgp_shape){3, 3, 7, 17, 13}, CGP_PADDING_SAME, 301, name) != 0) {
        cov_destroy(&c[0]);
        return;
    }
    const int barrier = threads && pthread_barrier_init(&start, NULL, 2) == 0;
    int ok = !threads || barrier;
    for (int i = 0; i < 2; ++i) {
        job[i].c = &c[i];
        job[i].precision = precision;
        job[i].start = &start;
        job[i].y = malloc((size_t)c[i].outputs * sizeof(float));
        ok = ok && job[i].y;
    }
    if (!ok) {
        TEST_FAIL(name, "out of host memory, or no thread barrier");
    } else if (threads) {
        pthread_t tid[2];
        int made = 0;
        while (made < 2 && pthread_create(&tid[made], NULL, job_thread, &job[made]) == 0)
            ++made;
        if (made < 2) {
            TEST_FAIL(name, "pthread_create failed");
            ok = 0;
            if (made == 1) /* the barrier waits for two: stand in for the missing thread */
                pthread_barrier_wait(&start);
        }
        for (int i = 0; i < made; ++i)
            pthread_join(tid[i], NULL);
    } else {
        job_setup(&job[0]);
        job_setup(&job[1]);
        for (int round = 0; round < 4; ++round) {
            job_round(&job[0], round);
            job_round(&job[1], round);
        }
        job_finish(&job[0]);
        job_finish(&job[1]);
    }
    for (int i = 0; ok && i < 2; ++i) {
        char part[240];
        snprintf(part, sizeof part, "%s: %s", name, c[i].label);
        if (job[i].status != CGP_SUCCESS) {
            TEST_FAIL(name, "%s: %s: %s", c[i].label, cgp_status_string(job[i].status), job[i].error);
            ok = 0;
        } else if (job[i].path_mismatch[0]) {
            TEST_FAIL(name, "%s: %s", c[i].label, job[i].path_mismatch);
            ok = 0;
        } else {
            ok = cov_check(part, &c[i], precision, job[i].y);
        }
    }
    if (ok)
        TEST_PASS(name);
    if (barrier)
        pthread_barrier_destroy(&start);
    for (int i = 0; i < 2; ++i) {
        free(job[i].y);
        cov_destroy(&c[i]);
    }
}

/* ---- the minimum alignment ---- */

/* A device buffer of bytes at exactly `alignment` (aligned to it, not to twice it) inside *base. */
static void *aligned_exactly(void **base, size_t bytes, size_t alignment)
{
    if (cudaMalloc(base, bytes + 2 * alignment) != cudaSuccess) { /* cudaMalloc aligns to 256 bytes */
        *base = NULL;
        return NULL;
    }
    return (char *)*base + alignment;
}

static void alignment_case(const cgp_kernel_desc *k, const cov_problem *c, int reduce)
{
    char name[200];
    snprintf(name, sizeof name, "coverage minimum alignment %s %s %s", k->name, c->label,
             reduce ? "atomic" : "det");
    const problem *pr = &c->pr;
    const cgp_shape *s = &pr->p.shape;
    const size_t x_bytes = (size_t)(s->n * s->cin * s->h * s->w) * 4, w_bytes = (size_t)(s->cout * s->cin * 9) * 4,
                 b_bytes = (size_t)s->cout * 4, y_bytes = (size_t)c->outputs * 4;
    void *base[5] = {NULL, NULL, NULL, NULL, NULL};
    float *y_host = malloc(y_bytes);
    cov_plan a = {0};
    if (!y_host || plan_make(&a, c, k->precision, k->version, reduce, name) != 0)
        goto out;
    float *x = aligned_exactly(&base[0], x_bytes, 16), *w = aligned_exactly(&base[1], w_bytes, 4),
          *b = aligned_exactly(&base[2], b_bytes, 4), *y = aligned_exactly(&base[3], y_bytes, 4);
    void *ws = a.ws_bytes ? aligned_exactly(&base[4], a.ws_bytes, 16) : NULL;
    if (!x || !w || !b || !y || (a.ws_bytes && !ws) ||
        cudaMemcpy(x, pr->p.x, x_bytes, cudaMemcpyDeviceToDevice) != cudaSuccess ||
        cudaMemcpy(w, pr->p.w, w_bytes, cudaMemcpyDeviceToDevice) != cudaSuccess ||
        cudaMemcpy(b, pr->p.b, b_bytes, cudaMemcpyDeviceToDevice) != cudaSuccess) {
        TEST_FAIL(name, "setting up the offset tensors: %s", cudaGetErrorString(cudaGetLastError()));
        goto out;
    }
    if ((uintptr_t)x % 32 != 16 || (ws && (uintptr_t)ws % 32 != 16) || (uintptr_t)w % 8 != 4 ||
        (uintptr_t)b % 8 != 4 || (uintptr_t)y % 8 != 4) {
        TEST_FAIL(name, "the offset tensors are not at exactly the minimum alignment");
        goto out;
    }
    const cgp_status st = run_poisoned(a.plan, x, w, b, y, c->outputs, ws, a.ws_bytes, y_host);
    if (st != CGP_SUCCESS)
        TEST_FAIL(name, "%s: %s (%s)", cgp_status_string(st), cgp_last_error_detail(),
                  cudaGetErrorString(cudaGetLastError()));
    else if (cov_check(name, c, k->precision, y_host) && cov_check_path(name, a.plan, c, w))
        TEST_PASS(name);
out:
    for (int i = 0; i < 5; ++i)
        cudaFree(base[i]);
    plan_free(&a);
    free(y_host);
}

typedef void (*version_case)(const cgp_kernel_desc *k, const cov_problem *c, int reduce);

/* A case for every version on its problem (version_problem), for the reductions in [0, last_reduce]. */
static void every_version(const char *what, version_case run, int last_reduce)
{
    for (int k = 0; k < table_count; ++k) {
        cov_problem c;
        if (version_problem(table[k], &c, what) < 0)
            continue;
        for (int reduce = 0; reduce <= last_reduce; ++reduce)
            run(table[k], &c, reduce);
        cov_destroy(&c);
    }
}

int main(void)
{
    if (!test_gpu_available("gpu_coverage"))
        return test_exit_code();
    seed = test_seed("gpu_coverage");
    table = cgp_kernel_table(&table_count);
    device = test_device_info();

    error_path_create();
    every_version("CUDA error", error_path_run, CGP_REDUCE_DET);
    small_planes();
    every_version("graph capture", graph_case, CGP_REDUCE_ATOMIC);
    for (int precision = CGP_PRECISION_FP32; precision <= CGP_PRECISION_TF32X3; ++precision)
        for (int threads = 0; threads <= 1; ++threads)
            two_streams(precision, threads);
    /* last: a misaligned access would end every later CUDA call of the process */
    every_version("minimum alignment", alignment_case, CGP_REDUCE_ATOMIC);
    test_tolerance_summary("gpu_coverage");
    return test_exit_code();
}
