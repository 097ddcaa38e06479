/*
 * sanitize_main.c - the program `make sanitize` runs under compute-sanitizer (memcheck, racecheck,
 * synccheck, initcheck): every kernel version of every precision, both reductions, both paddings,
 * on small shapes (partial tiles; several chunks of input channels with a partial last one and a partial
 * channel block; few pixels and many channels, where fp32-v10 splits K over clusters of 2 and of 8 blocks and
 * fp32-v11 over clusters of 2 and 4, fp32-v12 (W = 24, 32: its windows by TMA; by cp.async on its path
 * shapes) too; Cout <= 32, where fp32-v11 takes its 32-channel tile; W = 45 and 44, where
 * the wgmma versions stage by cp.async and by TMA, and fp32-v9 and the wgmma versions shift their window for
 * padding same; Cin = 3, where the wgmma versions' TMA box reaches past the channels), or with --default the
 * default problem, each run judged as gpu_fused judges it (tests/lib/tolerance.h); and (without --default, before
 * the small shapes, the largest first) every fixed shape of tests/lib/path_shapes.h on its version, both reductions (one shape per (version, path) pair the hooks can choose,
 * the weights 4 bytes past a 16-byte boundary where the entry says so). Exit 0 when every run worked and matched.
 * CGP_SANITIZE_KERNELS="16 18" limits the runs to those versions (a session with little GPU time);
 * CGP_SANITIZE_SHARD="i/k" to the runs (a version on a shape and padding, both reductions) numbered i modulo k
 * in their order here; CGP_SANITIZE_CLAIMS=dir to the runs this process claims first among those sharing dir (it
 * creates dir/<run number>, which fails where another did), so k processes under one tool take the runs as they
 * come free (mk/sanitize.mk runs so: a version's runs differ up to 500x in time under racecheck, and a fixed
 * interleaving left one of 16 racecheck processes with 38 of its 102 runs to go when the other 15 had ended,
 * results/h200/history/sanitize_ws_68eff26.log.gz); --once runs each plan once instead of twice (racecheck: a
 * launch's shared-memory hazards do not depend on the state an earlier run left, which memcheck and initcheck
 * check).
 * Each run's wall time is a "#" line; at the end the runs' count, their total and the slowest few (where a
 * sanitizer's time goes).
 *     compute-sanitizer --tool racecheck --error-exitcode 1 build/sanitize_main [--default]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "gpulib.h"
#include "kernel_api.h"
#include "path_shapes.h"
#include "problem.h"
#include "tolerance.h"

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

/* CGP_SANITIZE_SHARD "i/k": whether the run numbered `run` (from 0, over the runs CGP_SANITIZE_KERNELS selects)
 * is this process's (run % k == i); every run where it is unset. Exits with a message on a malformed value. */
static int run_in_shard(int run)
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
    return run % count == index;
}

/* CGP_SANITIZE_CLAIMS "dir": whether this process claims the run numbered `run`: the one process of those sharing dir
 * whose O_EXCL create of dir/<run> succeeds; every run where it is unset. Exits with a message where dir cannot take
 * the file. */
static int run_claimed(int run)
{
    const char *dir = getenv("CGP_SANITIZE_CLAIMS");
    if (dir == NULL || *dir == '\0')
        return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%d", dir, run);
    const int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd >= 0) {
        close(fd);
        return 1;
    }
    if (errno == EEXIST)
        return 0;
    fprintf(stderr, "sanitize: cannot claim run %d in CGP_SANITIZE_CLAIMS=%s: %s\n", run, dir, strerror(errno));
    exit(2);
}

/* Whether the run numbered `run` is this process's: in its shard and claimed by it */
static int run_is_mine(int run)
{
    return run_in_shard(run) && run_claimed(run);
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

/* Plan runs per plan: 2 (the second starts from the state the first left: counters, accumulators), 1 with --once */
static int runs_per_plan = 2;

/* Version k on problem pr (the weights at w), both reductions, runs_per_plan runs each, each judged as gpu_fused judges a version (tolerance.h: the error model and
 * the version's cap; tf32 against ref_tf32, the reference of its tf32-rounded operands, the others against ref).
 * Prints the run's wall time as a "#" line and adds it to the timing. */
static void sanitize_version(const char *name, const cgp_kernel_desc *k, const problem *pr, const float *w,
                             const double *ref, const double *ref_tf32, float *y)
{
    const cgp_shape *s = &pr->p.shape;
    const int64_t outputs = s->n * s->cout;
    const double start = now_s();
    for (int reduce = 0; reduce <= 1; ++reduce) {
        char run_name[sizeof test_worst_case[0][0]];
        snprintf(run_name, sizeof run_name, "sanitize %s %s", name, reduce ? "atomic" : "det");
        cgp_plan *plan;
        void *ws;
        size_t ws_bytes;
        cgp_status st = test_plan_with_workspace(s, pr->p.padding, reduce, k->precision, k->version, &plan, &ws,
                                                 &ws_bytes);
        for (int r = 0; r < runs_per_plan && st == CGP_SUCCESS; ++r)
            st = run_poisoned(plan, pr->p.x, w, pr->p.b, pr->p.y, outputs, ws, ws_bytes, y);
        if (st != CGP_SUCCESS)
            TEST_FAIL(run_name, "%s: %s", cgp_status_string(st), cgp_last_error_detail());
        else if (test_check_y_version(run_name, y, k->precision == CGP_PRECISION_TF32 ? ref_tf32 : ref, outputs,
                                      test_arith_of_precision(k->precision), pr->p.hout * pr->p.wout, s->cin,
                                      k->version)
                     .passed) /* else test_check_y_version reported the failure */
            TEST_PASS(run_name);
        cudaFree(ws);
        if (plan)
            cgp_plan_destroy(plan);
    }
    const double seconds = now_s() - start;
    printf("# time %s: %.2f s\n", name, seconds);
    timing_add(name, seconds);
}

/* The problem of shape s, padding pad, and its two references (exact, of tf32-rounded operands; malloc'd, the
 * caller frees). Returns 0, or 1 with a FAIL reported under name. */
static int sanitize_problem(const char *name, const cgp_shape *s, cgp_padding pad, problem *pr, double **ref,
                            double **ref_tf32)
{
    char err[512];
    *ref = *ref_tf32 = NULL;
    if (problem_create(pr, s, pad, 7, 0, err, sizeof err) != 0) {
        TEST_FAIL(name, "%s", err);
        return 1;
    }
    const size_t outputs = (size_t)(s->n * s->cout);
    *ref = malloc(sizeof(double) * outputs);
    *ref_tf32 = malloc(sizeof(double) * outputs);
    if (!*ref || !*ref_tf32 || problem_reference(pr, *ref, err, sizeof err) != 0 ||
        problem_reference_tf32(pr, *ref_tf32, err, sizeof err) != 0) {
        TEST_FAIL(name, "reference: %s", *ref && *ref_tf32 ? err : "out of host memory");
        free(*ref);
        free(*ref_tf32);
        problem_destroy(pr);
        return 1;
    }
    return 0;
}

/* Fixed shape f on its version (sanitize_version), the weights at a 16-byte boundary or 4 bytes past it (a copy) */
static void sanitize_path_shape(const path_shape *f)
{
    const cgp_kernel_desc *k = cgp_kernel_find(f->version);
    const cgp_shape *s = &f->shape;
    const int64_t weights = s->cout * s->cin * 9;
    char name[200];
    path_shape_name(f, name, sizeof name);
    if (!k) {
        TEST_FAIL(name, "no such kernel version");
        return;
    }
    problem pr;
    double *ref, *ref_tf32;
    if (sanitize_problem(name, s, f->padding, &pr, &ref, &ref_tf32) != 0)
        return;
    float *y = malloc(sizeof(float) * (size_t)(s->n * s->cout)), *w_copy = NULL;
    const float *w = pr.p.w;
    if (!y) {
        TEST_FAIL(name, "out of host memory");
        goto out;
    }
    if (f->weights_misaligned) {
        TEST_CUDA(name, cudaMalloc((void **)&w_copy, (size_t)(weights + 4) * sizeof(float)));
        TEST_CUDA(name, cudaMemcpy(w_copy + 1, pr.p.w, (size_t)weights * sizeof(float), cudaMemcpyDeviceToDevice));
        w = w_copy + 1;
    }
    sanitize_version(name, k, &pr, w, ref, ref_tf32, y);
out:
    cudaFree(w_copy);
    free(ref);
    free(ref_tf32);
    free(y);
    problem_destroy(&pr);
}

/* The multiply-adds of fixed shape i (N Cin Cout Hout Wout), as a double */
static double path_shape_work(int i)
{
    const cgp_shape *s = &path_shapes[i].shape;
    const cgp_padding pad = path_shapes[i].padding;
    return (double)s->n * (double)s->cin * (double)s->cout * (double)cgp_output_height(s, pad) *
           (double)cgp_output_width(s, pad);
}

/* qsort's order of fixed-shape indices: more multiply-adds first, then the list's order */
static int larger_path_shape_first(const void *a, const void *b)
{
    const int i = *(const int *)a, j = *(const int *)b;
    const double wi = path_shape_work(i), wj = path_shape_work(j);
    return wi > wj ? -1 : wi < wj ? 1 : (i > j) - (i < j);
}

int main(int argc, char **argv)
{
    int full_size = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--default") == 0)
            full_size = 1;
        else if (strcmp(argv[i], "--once") == 0)
            runs_per_plan = 1;
        else {
            fprintf(stderr, "sanitize_main: unknown argument \"%s\" (--default, --once)\n", argv[i]);
            return 2;
        }
    }
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
    int selected = 0; /* runs selected so far, numbered for the shard */
    /* the fixed shapes first, the largest first: the longest runs under racecheck (up to minutes) start before the
     * many short ones, not after them (a claim at 148 s of fp32-v10's K split 8 shape still ran at the 495 s cut,
     * results/h100/history/sanitize_partial_b564924.log.gz) */
    enum { kPathShapes = sizeof path_shapes / sizeof *path_shapes };
    int order[kPathShapes];
    for (int i = 0; i < kPathShapes; ++i)
        order[i] = i;
    qsort(order, kPathShapes, sizeof order[0], larger_path_shape_first);
    for (int i = 0; !full_size && i < kPathShapes; ++i)
        if (version_selected(path_shapes[order[i]].version) && run_is_mine(selected++))
            sanitize_path_shape(&path_shapes[order[i]]);
    for (int run = 0; run < shape_count * (full_size ? 1 : 2); ++run) {
        const cgp_shape s = shapes[run / (full_size ? 1 : 2)];
        const int pad = full_size ? 0 : run % 2;
        char shape_name[96];
        snprintf(shape_name, sizeof shape_name, "%lldx%lldx%lldx%lldx%lld %s", (long long)s.n, (long long)s.cin,
                 (long long)s.cout, (long long)s.h, (long long)s.w, pad ? "same" : "valid");
        problem pr;
        double *ref, *ref_tf32;
        if (sanitize_problem(shape_name, &s, (cgp_padding)pad, &pr, &ref, &ref_tf32) != 0)
            continue;
        float *y = malloc(sizeof(float) * (size_t)(s.n * s.cout));
        const cgp_problem cp = test_kernel_problem(&pr);
        for (int k = 0; k < count && y; ++k) {
            if (table[k]->unsupported(&cp, &dev) || !version_selected(table[k]->version) ||
                !run_is_mine(selected++))
                continue;
            char name[160];
            snprintf(name, sizeof name, "%s %s", table[k]->name, shape_name);
            sanitize_version(name, table[k], &pr, pr.p.w, ref, ref_tf32, y);
        }
        if (!y)
            TEST_FAIL(shape_name, "out of host memory");
        free(ref);
        free(ref_tf32);
        free(y);
        problem_destroy(&pr);
    }
    timing_print();
    return test_exit_code();
}
