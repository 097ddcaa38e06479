/*
 * gpu_select.c - the kernel selection of a plan (host/lib/kernel_select.c, include/cgp.h):
 *   heuristic: deterministic (the same version twice, the supported one the cost model predicts fastest),
 *              nothing timed
 *              (plan creation returns while a stream is held back by a host function; it waits only for its
 *              own state's memsets on the legacy stream); its candidates are every version of the precision,
 *              none timed;
 *   measured:  cgp_plan_create_measured picks a version that runs the shape and is the fastest of those it
 *              timed, times every supported candidate and no other (a shape that most versions cannot run,
 *              Cin = 3, included), leaves the plan's state clean (its first run is right), and caches the
 *              winner: a second call with the same key reports from_cache, runs no kernel (y stays NaN) and
 *              gives the same version; cgp_plan_create with select MEASURED takes the cached winner, or
 *              refuses a key never measured; of four threads measuring one key at once one measures and the
 *              others take its winner (one version, bit-identical det outputs); the weights' 16-byte alignment
 *              is part of the key;
 *   misuse:    NULL buffers, a misaligned x, kernel != 0.
 * Without a GPU: one SKIP (a FAIL with CGP_TEST_REQUIRE_GPU=1).
 * Run: CGP_TEST_REQUIRE_GPU=1 make test CGP_TEST_FILTER=gpu_select
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "cost_model.h"
#include "gpulib.h"
#include "kernel_api.h"
#include "problem.h"
#include "tolerance.h"

static const char *const precision_names[] = {"fp32", "tf32", "3xtf32"};

static void shape_text(const cgp_shape *s, cgp_padding pad, char *buf, size_t cap)
{
    snprintf(buf, cap, "%lldx%lldx%lldx%lldx%lld %s", (long long)s->n, (long long)s->cin, (long long)s->cout,
             (long long)s->h, (long long)s->w, pad ? "same" : "valid");
}

/* A host function that holds its stream until released (or 5 s pass). */
typedef struct gate {
    atomic_int released, finished;
} gate;

static void CUDART_CB hold(void *arg)
{
    gate *g = arg;
    struct timespec t0, t, pause = {0, 100000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        nanosleep(&pause, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while (!atomic_load(&g->released) && (t.tv_sec - t0.tv_sec) < 5);
    atomic_store(&g->finished, 1);
}

/* the index of the candidate the heuristic takes: of those that run the shape, the one with the lowest GPU time the
 * cost model predicts, else (no coefficients for any) the first; -1 when none runs it */
static int first_supported(const cgp_candidate *c, int count, const cgp_shape *s, cgp_padding pad)
{
    const int64_t hout = pad ? s->h : s->h - 2, wout = pad ? s->w : s->w - 2;
    const cgp_problem p = {s->n, s->cin, s->cout, s->h, s->w, hout, wout, (int)pad};
    const cgp_device_info d = test_device_info();
    int first = -1, cheapest = -1;
    double cheapest_ms = 0.0;
    for (int i = 0; i < count; ++i) {
        double ms = 0.0;
        if (c[i].unsupported)
            continue;
        first = first < 0 ? i : first;
        if (cgp_cost_model_ms(c[i].version, &p, &d, &ms) && (cheapest < 0 || ms < cheapest_ms)) {
            cheapest = i;
            cheapest_ms = ms;
        }
    }
    return cheapest >= 0 ? cheapest : first;
}

static void test_heuristic(const cgp_shape *shape, cgp_padding pad, int precision)
{
    char name[200], text[64];
    shape_text(shape, pad, text, sizeof text);
    snprintf(name, sizeof name, "gpu_select heuristic %s %s: deterministic, the cost model's pick, nothing timed",
             precision_names[precision], text);
    cgp_options o = cgp_default_options();
    o.padding = pad;
    o.precision = (cgp_precision)precision;
    cgp_plan *a = NULL, *b = NULL;
    cudaStream_t s = NULL;
    gate other;
    atomic_init(&other.released, 0), atomic_init(&other.finished, 0);
    int gated = 0; /* the gate was enqueued: release it and wait at the end */
    cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (e == cudaSuccess && (e = cudaLaunchHostFunc(s, hold, &other)) == cudaSuccess)
        gated = 1;
    if (e != cudaSuccess) {
        TEST_FAIL(name, "setup: %s", cudaGetErrorString(e));
        goto out;
    }
    const cgp_status sa = cgp_plan_create(&a, shape, &o), sb = cgp_plan_create(&b, shape, &o);
    const int held = !atomic_load(&other.finished);
    atomic_store(&other.released, 1);
    if (sa != CGP_SUCCESS || sb != CGP_SUCCESS) {
        TEST_FAIL(name, "cgp_plan_create: %s (%s)", cgp_status_string(sa != CGP_SUCCESS ? sa : sb),
                  cgp_last_error_detail());
        goto out;
    }
    int va = 0, vb = 0, count = 0, from_cache = 1;
    const cgp_candidate *c = NULL;
    cgp_plan_kernel(a, &va, NULL);
    cgp_plan_kernel(b, &vb, NULL);
    if (cgp_plan_candidates(a, &c, &count, &from_cache) != CGP_SUCCESS) {
        TEST_FAIL(name, "cgp_plan_candidates: %s", cgp_last_error_detail());
        goto out;
    }
    const int first = first_supported(c, count, shape, pad);
    int timed = 0;
    for (int i = 0; i < count; ++i)
        timed += c[i].median_ms >= 0.0f;
    TEST_EXPECT(name, held && va == vb && first >= 0 && c[first].version == va && timed == 0 && from_cache == 0,
                "returned while a stream was held %d, versions %d and %d, the cost model's pick %d, %d timed, from_cache %d",
                held, va, vb, first >= 0 ? c[first].version : -1, timed, from_cache);
out:
    if (gated) {
        atomic_store(&other.released, 1);
        cudaStreamSynchronize(s); /* the gate lives on this stack frame */
    }
    if (a)
        cgp_plan_destroy(a);
    if (b)
        cgp_plan_destroy(b);
    if (s)
        cudaStreamDestroy(s);
}

/* The plan's first run against the fp64 reference ref (NaN-poisoned y) under tolerance.h's bounds. */
static int plan_is_right(cgp_plan *plan, const problem *pr, int precision, const double *ref, float *y, char *why,
                         size_t cap)
{
    const cgp_shape *s = &pr->p.shape;
    size_t bytes = 0;
    void *ws = NULL;
    cgp_plan_workspace_size(plan, &bytes);
    if (bytes && cudaMalloc(&ws, bytes) != cudaSuccess) {
        snprintf(why, cap, "cudaMalloc of %zu workspace bytes", bytes);
        return 0;
    }
    const cgp_status st = run_poisoned(plan, pr->p.x, pr->p.w, pr->p.b, pr->p.y, s->n * s->cout, ws, bytes, y);
    cudaFree(ws);
    if (st != CGP_SUCCESS) {
        snprintf(why, cap, "run: %s (%s)", cgp_status_string(st), cgp_last_error_detail());
        return 0;
    }
    const test_result t =
        test_evaluate_y(y, ref, s->n * s->cout, test_arith_of_precision(precision), pr->p.hout * pr->p.wout, s->cin);
    snprintf(why, cap, "rel L2 error %.3e (bound %.2e), max abs %.3e (bound %.2e), %lld non-finite mismatches",
             t.r.rel_l2_error, t.bounds.rel_l2, t.r.max_abs_error, t.bounds.max_abs,
             (long long)t.r.nonfinite_mismatches);
    return t.passed;
}

/* cgp_plan_create_measured on the problem; checks what every measured plan must satisfy. Returns the plan or
 * NULL (after a FAIL). */
static cgp_plan *measure(const char *name, const problem *pr, const cgp_options *o, cudaStream_t s, int want_cache)
{
    cgp_plan *plan = NULL;
    const cgp_status st = cgp_plan_create_measured(&plan, &pr->p.shape, o, pr->p.x, pr->p.w, pr->p.b, pr->p.y, s);
    if (st != CGP_SUCCESS) {
        TEST_FAIL(name, "cgp_plan_create_measured: %s (%s)", cgp_status_string(st), cgp_last_error_detail());
        return NULL;
    }
    int version = 0, count = 0, from_cache = -1, best = -1, bad = 0;
    const cgp_candidate *c = NULL;
    cgp_plan_kernel(plan, &version, NULL);
    cgp_plan_candidates(plan, &c, &count, &from_cache);
    for (int i = 0; i < count; ++i) {
        printf("# %s: %-10s %s%s", name, c[i].name, c[i].unsupported ? "cannot run it: " : "",
               c[i].unsupported ? c[i].unsupported : "");
        if (!c[i].unsupported)
            printf("median %.4f ms", c[i].median_ms);
        printf("\n");
        bad |= (c[i].unsupported != NULL) == (c[i].median_ms >= 0.0f); /* timed exactly when supported */
        if (!c[i].unsupported && (best < 0 || c[i].median_ms < c[best].median_ms))
            best = i;
    }
    if (bad || best < 0 || c[best].version != version || from_cache != want_cache) {
        TEST_FAIL(name, "version %d, fastest supported %d, from_cache %d (want %d), %s", version,
                  best >= 0 ? c[best].version : -1, from_cache, want_cache,
                  bad ? "a supported candidate untimed or an unsupported one timed" : "every candidate as it should");
        cgp_plan_destroy(plan);
        return NULL;
    }
    return plan;
}

static void test_measured(const cgp_shape *shape, cgp_padding pad, int precision, uint64_t seed)
{
    char name[200], text[64], why[256];
    shape_text(shape, pad, text, sizeof text);
    problem pr;
    char err[512];
    if (problem_create(&pr, shape, pad, seed, 0, err, sizeof err) != 0) {
        TEST_FAIL("gpu_select problem", "%s", err);
        return;
    }
    const int64_t outputs = shape->n * shape->cout;
    double *ref = malloc((size_t)outputs * sizeof *ref), *rounded = malloc((size_t)outputs * sizeof *rounded);
    float *y = malloc((size_t)outputs * sizeof *y);
    cgp_plan *first = NULL, *again = NULL, *created = NULL;
    cudaStream_t s = NULL;
    cgp_options o = cgp_default_options();
    o.padding = pad;
    o.precision = (cgp_precision)precision;
    if (!ref || !rounded || !y || test_problem_references(&pr, ref, rounded, err, sizeof err) != 0 ||
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
        TEST_FAIL("gpu_select setup", "%s", !ref || !rounded || !y ? "out of host memory" : err);
        goto out;
    }
    snprintf(name, sizeof name, "gpu_select measured %s %s: the fastest supported, the plan's first run right",
             precision_names[precision], text);
    if (!(first = measure(name, &pr, &o, s, 0)))
        goto out;
    /* tf32 against its tf32-rounded operands (tolerance.h) */
    TEST_EXPECT(name,
                plan_is_right(first, &pr, precision, precision == CGP_PRECISION_TF32 ? rounded : ref, y, why, sizeof why),
                "%s", why);

    snprintf(name, sizeof name, "gpu_select measured %s %s again: from the cache, no kernel run",
             precision_names[precision], text);
    if (poison_outputs(pr.p.y, outputs, 0) != cudaSuccess) {
        TEST_FAIL(name, "poison_outputs: %s", cudaGetErrorString(cudaGetLastError()));
        goto out;
    }
    if (!(again = measure(name, &pr, &o, s, 1)))
        goto out;
    int v1 = 0, v2 = 0, nan_left = 1, n1 = 0, n2 = 0;
    const cgp_candidate *c1 = NULL, *c2 = NULL;
    cgp_plan_kernel(first, &v1, NULL);
    cgp_plan_kernel(again, &v2, NULL);
    cgp_plan_candidates(first, &c1, &n1, NULL);
    cgp_plan_candidates(again, &c2, &n2, NULL);
    int same_medians = n1 == n2;
    for (int i = 0; same_medians && i < n1; ++i)
        same_medians = c1[i].median_ms == c2[i].median_ms;
    if (cudaStreamSynchronize(s) != cudaSuccess ||
        cudaMemcpy(y, pr.p.y, (size_t)outputs * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess)
        nan_left = 0;
    for (int64_t i = 0; nan_left && i < outputs; ++i)
        nan_left = check_never_written(y[i]);
    TEST_EXPECT(name, v1 == v2 && same_medians && nan_left, "versions %d and %d, same medians %d, y untouched %d", v1,
                v2, same_medians, nan_left);

    snprintf(name, sizeof name, "gpu_select cgp_plan_create select measured %s %s: the cached winner",
             precision_names[precision], text);
    o.select = CGP_SELECT_MEASURED;
    const cgp_status st = cgp_plan_create(&created, shape, &o);
    int v3 = 0, from_cache = 0, n3 = 0;
    const cgp_candidate *c3 = NULL;
    if (st == CGP_SUCCESS) {
        cgp_plan_kernel(created, &v3, NULL);
        cgp_plan_candidates(created, &c3, &n3, &from_cache);
    }
    TEST_EXPECT(name, st == CGP_SUCCESS && v3 == v1 && from_cache == 1 && n3 == n1,
                "%s (%s), version %d (measured %d), from_cache %d", cgp_status_string(st),
                st == CGP_SUCCESS ? "" : cgp_last_error_detail(), v3, v1, from_cache);
out:
    if (first)
        cgp_plan_destroy(first);
    if (again)
        cgp_plan_destroy(again);
    if (created)
        cgp_plan_destroy(created);
    if (s)
        cudaStreamDestroy(s);
    free(ref), free(rounded), free(y);
    problem_destroy(&pr);
}

enum { kThreads = 4 };

typedef struct thread_job {
    const problem *pr;
    pthread_barrier_t *start; /* every thread calls cgp_plan_create_measured at once */
    cgp_status status;
    int version, from_cache;
    float *y; /* host: the det output of one run of the thread's plan */
} thread_job;

static void *measure_thread(void *arg)
{
    thread_job *j = arg;
    cgp_options o = cgp_default_options();
    o.precision = CGP_PRECISION_TF32;
    cgp_plan *plan = NULL;
    cudaStream_t s = NULL;
    const int64_t outputs = j->pr->p.shape.n * j->pr->p.shape.cout;
    j->status = CGP_ERROR_CUDA;
    const int stream_made = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess;
    pthread_barrier_wait(j->start);
    if (stream_made) {
        j->status = cgp_plan_create_measured(&plan, &j->pr->p.shape, &o, j->pr->p.x, j->pr->p.w, j->pr->p.b,
                                             j->pr->p.y, s);
        const cgp_candidate *c = NULL;
        int count = 0;
        size_t bytes = 0;
        if (j->status == CGP_SUCCESS && (j->status = cgp_plan_kernel(plan, &j->version, NULL)) == CGP_SUCCESS &&
            (j->status = cgp_plan_candidates(plan, &c, &count, &j->from_cache)) == CGP_SUCCESS &&
            (j->status = cgp_plan_workspace_size(plan, &bytes)) == CGP_SUCCESS) {
            void *ws = NULL;
            if ((bytes && cudaMalloc(&ws, bytes) != cudaSuccess) ||
                cgp_plan_run(plan, j->pr->p.x, j->pr->p.w, j->pr->p.b, j->pr->p.y, ws, bytes, s) != CGP_SUCCESS ||
                cudaStreamSynchronize(s) != cudaSuccess ||
                cudaMemcpy(j->y, j->pr->p.y, (size_t)outputs * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess)
                j->status = CGP_ERROR_CUDA;
            cudaFree(ws);
        }
        if (plan)
            cgp_plan_destroy(plan);
        cudaStreamDestroy(s);
    }
    return NULL;
}

/* Four threads measure one key at once, each on its own copy of the same inputs and its own stream: one of them
 * measures and the others wait and take its winner, so all four run one version and their det outputs are
 * bit-identical (threads measuring at once would time each other's runs and could keep different winners). */
static void test_threads(uint64_t seed)
{
    const char *name = "gpu_select four threads measure one key at once: one measures, all run its winner";
    const cgp_shape shape = {2, 8, 48, 24, 36};
    const int64_t outputs = shape.n * shape.cout;
    problem pr[kThreads];
    thread_job jobs[kThreads] = {{0}};
    pthread_t threads[kThreads];
    pthread_barrier_t start;
    int made = 0, started = 0, ok = 1, measured = 0, same_version = 1, same_y = 1;
    char err[512] = "";
    float *ys = malloc((size_t)(kThreads * outputs) * sizeof *ys);
    for (; ys && made < kThreads; ++made) /* the same seed: the same inputs in every thread's buffers */
        if (problem_create(&pr[made], &shape, CGP_PADDING_VALID, seed, 0, err, sizeof err) != 0)
            break;
    if (made == kThreads && pthread_barrier_init(&start, NULL, kThreads) == 0) {
        for (; started < kThreads; ++started) {
            jobs[started] = (thread_job){&pr[started], &start, CGP_ERROR_CUDA, 0, 0, ys + started * outputs};
            if (pthread_create(&threads[started], NULL, measure_thread, &jobs[started]) != 0)
                break;
        }
        if (started < kThreads) { /* the barrier would never open */
            TEST_FAIL(name, "pthread_create failed after %d threads", started);
            abort();
        }
        for (int i = 0; i < started; ++i)
            pthread_join(threads[i], NULL);
        pthread_barrier_destroy(&start);
    }
    for (int i = 0; i < started; ++i) {
        ok &= jobs[i].status == CGP_SUCCESS;
        measured += !jobs[i].from_cache;
        same_version &= jobs[i].version == jobs[0].version;
        same_y &= memcmp(jobs[i].y, jobs[0].y, (size_t)outputs * sizeof(float)) == 0;
    }
    TEST_EXPECT(name, ys && made == kThreads && started == kThreads && ok && measured == 1 && same_version && same_y,
                "%d problems, %d threads, all succeeded %d, measured by %d threads (expected 1), versions %d %d %d %d, "
                "det outputs bit-identical %d %s", made, started, ok, measured, jobs[0].version, jobs[1].version,
                jobs[2].version, jobs[3].version, same_y, err);
    for (int i = 0; i < made; ++i)
        problem_destroy(&pr[i]);
    free(ys);
}

/* The weight pointer's 16-byte alignment is part of the measured key (it picks the width of some versions' weight
 * copies): weights 4 bytes past an aligned address measure anew, once; cgp_plan_create takes the aligned winner. */
static void test_alignment_key(uint64_t seed)
{
    const char *name = "gpu_select measured: weights 16-byte aligned and not are two keys";
    const cgp_shape shape = {2, 16, 40, 18, 22};
    problem pr;
    char err[512];
    if (problem_create(&pr, &shape, CGP_PADDING_SAME, seed, 0, err, sizeof err) != 0) {
        TEST_FAIL(name, "%s", err);
        return;
    }
    const size_t w_bytes = (size_t)(shape.cout * shape.cin * 9) * sizeof(float);
    float *shifted = NULL;
    cgp_options o = cgp_default_options();
    o.padding = CGP_PADDING_SAME;
    o.precision = CGP_PRECISION_TF32;
    cgp_plan *plans[3] = {NULL, NULL, NULL};
    int from_cache[3] = {-1, -1, -1}, versions[3] = {0, 0, 0}, n = 0;
    cgp_status st = CGP_ERROR_CUDA;
    if (cudaMalloc((void **)&shifted, w_bytes + 16) == cudaSuccess &&
        cudaMemcpy(shifted + 1, pr.p.w, w_bytes, cudaMemcpyDeviceToDevice) == cudaSuccess) {
        const float *weights[3] = {pr.p.w, shifted + 1, shifted + 1};
        for (st = CGP_SUCCESS; n < 3 && st == CGP_SUCCESS; ++n) {
            const cgp_candidate *c = NULL;
            int count = 0;
            st = cgp_plan_create_measured(&plans[n], &shape, &o, pr.p.x, weights[n], pr.p.b, pr.p.y, 0);
            if (st == CGP_SUCCESS)
                cgp_plan_candidates(plans[n], &c, &count, &from_cache[n]), cgp_plan_kernel(plans[n], &versions[n], NULL);
        }
    }
    cgp_plan *created = NULL;
    int created_version = 0;
    o.select = CGP_SELECT_MEASURED;
    if (st == CGP_SUCCESS && (st = cgp_plan_create(&created, &shape, &o)) == CGP_SUCCESS)
        cgp_plan_kernel(created, &created_version, NULL);
    TEST_EXPECT(name, st == CGP_SUCCESS && from_cache[0] == 0 && from_cache[1] == 0 && from_cache[2] == 1 &&
                          versions[2] == versions[1] && created_version == versions[0],
                "%s (%s); from_cache aligned %d, shifted %d, shifted again %d (expected 0, 0, 1); versions %d %d %d, "
                "cgp_plan_create %d", cgp_status_string(st), st == CGP_SUCCESS ? "" : cgp_last_error_detail(),
                from_cache[0], from_cache[1], from_cache[2], versions[0], versions[1], versions[2], created_version);
    for (int i = 0; i < 3; ++i)
        if (plans[i])
            cgp_plan_destroy(plans[i]);
    if (created)
        cgp_plan_destroy(created);
    cudaFree(shifted);
    problem_destroy(&pr);
}

static void test_misuse(uint64_t seed)
{
    const cgp_shape shape = {2, 8, 64, 20, 20};
    problem pr;
    char err[512];
    if (problem_create(&pr, &shape, CGP_PADDING_VALID, seed, 0, err, sizeof err) != 0) {
        TEST_FAIL("gpu_select misuse problem", "%s", err);
        return;
    }
    cgp_options o = cgp_default_options();
    cgp_plan *plan = (cgp_plan *)&o;
    cgp_status st = cgp_plan_create_measured(&plan, &shape, &o, NULL, pr.p.w, pr.p.b, pr.p.y, 0);
    TEST_EXPECT("gpu_select measured: NULL x", st == CGP_ERROR_NULL_POINTER && plan == NULL, "%s",
                cgp_status_string(st));
    st = cgp_plan_create_measured(&plan, &shape, &o, pr.p.x + 1, pr.p.w, pr.p.b, pr.p.y, 0);
    TEST_EXPECT("gpu_select measured: x not 16-byte aligned", st == CGP_ERROR_MISALIGNED && plan == NULL, "%s",
                cgp_status_string(st));
    o.kernel = 1;
    st = cgp_plan_create_measured(&plan, &shape, &o, pr.p.x, pr.p.w, pr.p.b, pr.p.y, 0);
    TEST_EXPECT("gpu_select measured: kernel 1", st == CGP_ERROR_INVALID_OPTION && plan == NULL &&
                                                      strstr(cgp_last_error_detail(), "kernel must be 0"),
                "%s (%s)", cgp_status_string(st), cgp_last_error_detail());
    o = cgp_default_options();
    o.select = CGP_SELECT_MEASURED;
    const cgp_shape never = {3, 5, 6, 7, 8};
    st = cgp_plan_create(&plan, &never, &o);
    TEST_EXPECT("gpu_select create select measured, a key never measured",
                st == CGP_ERROR_INVALID_OPTION && plan == NULL && strstr(cgp_last_error_detail(), "cgp_plan_create_measured"),
                "%s (%s)", cgp_status_string(st), cgp_last_error_detail());
    problem_destroy(&pr);
}

int main(void)
{
    if (!test_gpu_available("gpu_select"))
        return test_exit_code();
    const uint64_t seed = test_seed("gpu_select");
    const cgp_shape many = {2, 8, 64, 40, 40}; /* most versions run it */
    const cgp_shape few = {3, 3, 7, 17, 13};   /* Cin = 3: only the generic versions run it */
    for (int precision = 0; precision < 3; ++precision) {
        test_heuristic(&many, CGP_PADDING_VALID, precision);
        test_heuristic(&few, CGP_PADDING_SAME, precision);
        test_measured(&many, CGP_PADDING_SAME, precision, seed + (uint64_t)precision);
        test_measured(&few, CGP_PADDING_VALID, precision, seed + 10 + (uint64_t)precision);
    }
    test_threads(seed + 20);
    test_alignment_key(seed + 25);
    test_misuse(seed + 30);
    return test_exit_code();
}
