/*
 * sanitize_main.c - the program `make sanitize` runs under compute-sanitizer (memcheck, racecheck,
 * synccheck, initcheck): every kernel version of every precision, both reductions, both paddings,
 * on small shapes (partial tiles; several chunks of input channels with a partial last one and a partial
 * channel block; few pixels and many channels, where fp32-v10 splits K over clusters of 2 and of 8 blocks and
 * fp32-v11 over clusters of 2 and 4, fp32-v12 (W = 24, 32: its windows by TMA) too; Cout <= 32, where fp32-v11
 * takes its 32-channel tile; W = 45 and 44, where
 * the wgmma versions stage by cp.async and by TMA, and fp32-v9 and the wgmma versions shift their window for
 * padding same; Cin = 3, where the wgmma versions' TMA box reaches past the channels), or with --default the
 * default problem, each run checked against the fp64 GPU reference; then (without --default) every fixed shape of
 * tests/lib/path_shapes.h on its version, both reductions (one shape per (version, path) pair the hooks can choose,
 * the weights 4 bytes past a 16-byte boundary where the entry says so). Exit 0 when every run worked and matched.
 * CGP_SANITIZE_KERNELS="17 18" limits the runs to those versions (a session with little GPU time);
 * CGP_SANITIZE_SHARD="i/k" to the versions whose number is i modulo k, so k processes under one tool share the
 * work, each loading (and the sanitizer instrumenting) only its own versions' kernels (mk/sanitize.mk runs so).
 * At the end it prints its runs' count, their wall time and the slowest few (where a sanitizer's time goes).
 *     compute-sanitizer --tool racecheck --error-exitcode 1 build/sanitize_main [--default]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "gpulib.h"
#include "kernel_api.h"
#include "path_shapes.h"
#include "problem.h"

/* Whether CGP_SANITIZE_KERNELS (version numbers separated by spaces or commas) names version, or is unset */
static int version_selected(int version)
{
    const char *list = getenv("CGP_SANITIZE_KERNELS");
    if (list == NULL || *list == '\0')
        return 1;
    for (const char *p = list; *p != '\0';) {
        char *end;
        const long v = strtol(p, &end, 10);
        if (end == p) {
            ++p;
            continue;
        }
        if (v == version)
            return 1;
        p = end;
    }
    return 0;
}

/* CGP_SANITIZE_SHARD "i/k": whether the runs of `version` are this process's (version % k == i); every version's
 * where it is unset. Exits with a message on a malformed value. */
static int version_in_shard(int version)
{
    const char *shard = getenv("CGP_SANITIZE_SHARD");
    if (shard == NULL || *shard == '\0')
        return 1;
    int index = -1, count = 0;
    char tail;
    if (sscanf(shard, "%d/%d%c", &index, &count, &tail) != 2 || count < 1 || index < 0 || index >= count) {
        fprintf(stderr, "sanitize: CGP_SANITIZE_SHARD must be i/k with 0 <= i < k, not \"%s\"\n", shard);
        exit(2);
    }
    return version % count == index;
}

/* The wall time of this process's runs: their count, the total and the slowest kSlowest with their names */
enum { kSlowest = 5 };
static struct {
    int runs;
    double total_s;
    struct {
        double s;
        char name[160];
    } slowest[kSlowest];
} timing;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void timing_add(const char *name, double seconds)
{
    ++timing.runs;
    timing.total_s += seconds;
    int at = kSlowest;
    while (at > 0 && seconds > timing.slowest[at - 1].s)
        --at;
    if (at == kSlowest)
        return;
    memmove(&timing.slowest[at + 1], &timing.slowest[at], sizeof timing.slowest[0] * (size_t)(kSlowest - 1 - at));
    timing.slowest[at].s = seconds;
    snprintf(timing.slowest[at].name, sizeof timing.slowest[at].name, "%s", name);
}

static void timing_print(void)
{
    printf("sanitize timing: %d runs in %.1f s; slowest:", timing.runs, timing.total_s);
    for (int i = 0; i < kSlowest && timing.slowest[i].name[0] != '\0'; ++i)
        printf(" %s %.1f s;", timing.slowest[i].name, timing.slowest[i].s);
    printf("\n");
}

/* Fixed shape f on its version, both reductions, twice each, checked against the reference */
static void sanitize_path_shape(const path_shape *f)
{
    const cgp_kernel_desc *k = cgp_kernel_find(f->version);
    const cgp_shape *s = &f->shape;
    const int64_t outputs = s->n * s->cout, weights = s->cout * s->cin * 9;
    char name[200], err[512];
    path_shape_name(f, name, sizeof name);
    const double start = now_s();
    problem pr;
    if (!k || problem_create(&pr, s, f->padding, 7, 0, err, sizeof err) != 0) {
        TEST_FAIL(name, "%s", k ? err : "no such kernel version");
        return;
    }
    double *ref = malloc(sizeof(double) * (size_t)outputs);
    float *y = malloc(sizeof(float) * (size_t)outputs), *w_copy = NULL;
    const float *w = pr.p.w;
    if (f->weights_misaligned) {
        TEST_CUDA(name, cudaMalloc((void **)&w_copy, (size_t)(weights + 4) * sizeof(float)));
        TEST_CUDA(name, cudaMemcpy(w_copy + 1, pr.p.w, (size_t)weights * sizeof(float), cudaMemcpyDeviceToDevice));
        w = w_copy + 1;
    }
    /* tf32 against the reference of its tf32-rounded operands (as `cgp check` judges it): a fixed shape may have
     * a handful of outputs (Cout = 1), too few for the exact reference's tf32 bound to average TF32's own rounding */
    const int tf32 = k->precision == CGP_PRECISION_TF32;
    if (!ref || !y || (tf32 ? problem_reference_tf32(&pr, ref, err, sizeof err)
                            : problem_reference(&pr, ref, err, sizeof err)) != 0) {
        TEST_FAIL(name, "reference: %s", ref && y ? err : "out of host memory");
        goto out;
    }
    for (int reduce = 0; reduce <= 1; ++reduce) {
        char run_name[240];
        snprintf(run_name, sizeof run_name, "sanitize %s %s", name, reduce ? "atomic" : "det");
        cgp_plan *plan;
        void *ws;
        size_t ws_bytes;
        cgp_status st = test_plan_with_workspace(s, f->padding, reduce, k->precision, k->version, &plan, &ws,
                                                 &ws_bytes);
        for (int r = 0; r < 2 && st == CGP_SUCCESS; ++r)
            st = run_poisoned(plan, pr.p.x, w, pr.p.b, pr.p.y, outputs, ws, ws_bytes, y);
        if (st != CGP_SUCCESS) {
            TEST_FAIL(run_name, "%s: %s", cgp_status_string(st), cgp_last_error_detail());
        } else {
            const double tol = tf32 ? check_tf32_operands_tolerance(s->cin)
                                    : check_tolerance(k->precision, pr.p.hout * pr.p.wout, s->cin);
            const check_report c = check_compare(y, ref, outputs, tol);
            TEST_EXPECT(run_name, c.passed, "rel L2 error %.3e", c.rel_l2_error);
        }
        cudaFree(ws);
        if (plan)
            cgp_plan_destroy(plan);
    }
out:
    cudaFree(w_copy);
    free(ref);
    free(y);
    problem_destroy(&pr);
    timing_add(name, now_s() - start);
}

int main(int argc, char **argv)
{
    const int full_size = argc > 1 && strcmp(argv[1], "--default") == 0;
    if (!test_gpu_available("sanitize"))
        return test_exit_code();
    static const cgp_shape small[] = {{2, 8, 64, 37, 45}, {2, 8, 64, 37, 44},   {2, 3, 40, 19, 24},
                                      {2, 36, 72, 13, 11}, {1, 64, 40, 3, 3},   {1, 130, 40, 5, 5},
                                      {10, 20, 24, 40, 40}, {2, 36, 72, 20, 24}, {1, 64, 40, 32, 32}};
    static const cgp_shape full[] = {{128, 8, 64, 256, 256}};
    const cgp_shape *shapes = full_size ? full : small;
    const int shape_count = full_size ? 1 : (int)(sizeof small / sizeof small[0]);
    int count = 0;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&count);
    const cgp_device_info dev = test_device_info();
    for (int run = 0; run < shape_count * (full_size ? 1 : 2); ++run) {
        const cgp_shape s = shapes[run / (full_size ? 1 : 2)];
        const int pad = full_size ? 0 : run % 2;
        problem pr;
        char err[512];
        if (problem_create(&pr, &s, (cgp_padding)pad, 7, 0, err, sizeof err) != 0) {
            TEST_FAIL("sanitize problem", "%s", err);
            continue;
        }
        const int64_t outputs = s.n * s.cout;
        double *ref = malloc(sizeof(double) * (size_t)outputs);
        float *y = malloc(sizeof(float) * (size_t)outputs);
        if (problem_reference(&pr, ref, err, sizeof err) != 0)
            TEST_FAIL("sanitize reference", "%s", err);
        const cgp_problem cp = {s.n, s.cin, s.cout, s.h, s.w, pr.p.hout, pr.p.wout, pad};
        for (int k = 0; k < count; ++k) {
            if (table[k]->unsupported(&cp, &dev) || !version_selected(table[k]->version) ||
                !version_in_shard(table[k]->version))
                continue;
            const double start = now_s();
            for (int reduce = 0; reduce <= 1; ++reduce) {
                char name[128];
                snprintf(name, sizeof name, "sanitize %s %lldx%lldx%lldx%lldx%lld %s %s", table[k]->name,
                         (long long)s.n, (long long)s.cin, (long long)s.cout, (long long)s.h, (long long)s.w,
                         pad ? "same" : "valid", reduce ? "atomic" : "det");
                cgp_plan *plan;
                void *ws;
                size_t ws_bytes;
                cgp_status st = test_plan_with_workspace(&s, (cgp_padding)pad, reduce, table[k]->precision,
                                                         table[k]->version, &plan, &ws, &ws_bytes);
                /* twice: the second run starts from the state the first left (counters, accumulators) */
                for (int r = 0; r < 2 && st == CGP_SUCCESS; ++r)
                    st = run_poisoned(plan, pr.p.x, pr.p.w, pr.p.b, pr.p.y, outputs, ws, ws_bytes, y);
                if (st != CGP_SUCCESS) {
                    TEST_FAIL(name, "%s: %s", cgp_status_string(st), cgp_last_error_detail());
                } else {
                    const check_report c = check_compare(y, ref, outputs, check_tolerance(table[k]->precision, cp.hout * cp.wout, cp.cin));
                    TEST_EXPECT(name, c.passed, "rel L2 error %.3e", c.rel_l2_error);
                }
                cudaFree(ws);
                if (plan)
                    cgp_plan_destroy(plan);
            }
            char run_name[128];
            snprintf(run_name, sizeof run_name, "%s %lldx%lldx%lldx%lldx%lld %s", table[k]->name, (long long)s.n,
                     (long long)s.cin, (long long)s.cout, (long long)s.h, (long long)s.w, pad ? "same" : "valid");
            timing_add(run_name, now_s() - start);
        }
        free(ref);
        free(y);
        problem_destroy(&pr);
    }
    for (size_t i = 0; !full_size && i < sizeof path_shapes / sizeof *path_shapes; ++i)
        if (version_selected(path_shapes[i].version) && version_in_shard(path_shapes[i].version))
            sanitize_path_shape(&path_shapes[i]);
    timing_print();
    return test_exit_code();
}
