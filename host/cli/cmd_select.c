/*
 * cmd_select.c - `cgp select`: how the heuristic selection does against the measured one, in GPU time. Per shape
 * (the zoo's, then --random N shapes nobody listed, drawn from --seed: random_shape.h) and precision, every
 * kernel version of the precision that runs the shape is checked against fp64 on NaN-poisoned output, then timed
 * by CUDA-graph replay (gpu_time.h); the fastest is the measured pick, and the heuristic's pick (the plan of kernel
 * 0, select HEURISTIC: no GPU work to choose) is read off the same timings.
 *     cgp select [--random N --seed S] [--zoo [FILE]] [--precision all] [--reduce det] [--csv F]
 *                [--candidates-csv F] [--replays 5]
 * --csv: one row per shape and precision, exactly n,cin,cout,h,w,padding,precision,heuristic_kernel,
 * heuristic_gpu_ms,measured_kernel,measured_gpu_ms (results/h200/selection.csv); --candidates-csv: one row per
 * candidate with its time and status, the device and commit (what tests/cpu/cpu_cost_model.c replays the
 * heuristic's cost model against). Prints each pair as it goes and, per precision, how many picks are within 5%
 * of the measured one and the worst. Exit 1 when a candidate fails its check, 2 on bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "gpu_time.h"
#include "outfile.h"
#include "poison.h"
#include "problem.h"
#include "random_shape.h"
#include "rng.h"
#include "sysinfo.h"
#include "zoo.h"

#define SELECT_MAX_CANDIDATES 32
#define SELECT_TOLERANCE 1.05 /* a heuristic pick within 5% of the measured one */

/* the random sample's bounds: 2^34 multiply-adds (about 0.5 ms for the tensor-core kernels), x at most 2^28
 * elements, N up to 256 and N Cout >= 32 */
static const random_shape_bounds sample_bounds = {17179869184.0, 268435456.0, 256, 32, NULL};

typedef struct timed_candidate {
    int version;
    const char *name;
    const char *unsupported;
    char status[16];  /* "pass", "check-failed", "failed", "unsupported", "not-capturable" */
    double gpu_ms;    /* > 0 when timed */
    int runs;         /* calls a replayed graph held */
    double rel_l2;    /* against the reference it is judged by */
} timed_candidate;

/* one shape and precision, what the CSVs need */
typedef struct selection_row {
    cgp_shape shape;
    cgp_padding padding;
    cgp_precision precision;
    int heuristic, measured; /* indices into candidates, -1 when none */
    timed_candidate candidates[SELECT_MAX_CANDIDATES];
    int count;
} selection_row;

typedef struct plan_call {
    cgp_plan *plan;
    const bench_problem *p;
    void *workspace;
    size_t workspace_bytes;
} plan_call;

static int run_plan(void *ctx, cudaStream_t s)
{
    plan_call *c = ctx;
    const cgp_status rc = cgp_plan_run(c->plan, c->p->x, c->p->w, c->p->b, c->p->y, c->workspace,
                                       c->workspace_bytes, s);
    if (rc != CGP_SUCCESS)
        fprintf(stderr, "cgp select: cgp_plan_run: %s (%s)\n", cgp_status_string(rc), cgp_last_error_detail());
    return rc != CGP_SUCCESS;
}

/* One call's time between two events after a warm-up call (to size the graph). Returns 0, or 1 on a failure. */
static int one_call_ms(plan_call *c, double *ms)
{
    cudaEvent_t a = NULL, b = NULL;
    float t = 0.0f;
    const int rc = cudaEventCreate(&a) != cudaSuccess || cudaEventCreate(&b) != cudaSuccess || run_plan(c, 0) ||
                   cudaEventRecord(a, 0) != cudaSuccess || run_plan(c, 0) || cudaEventRecord(b, 0) != cudaSuccess ||
                   cudaEventSynchronize(b) != cudaSuccess || cudaEventElapsedTime(&t, a, b) != cudaSuccess;
    if (a)
        cudaEventDestroy(a);
    if (b)
        cudaEventDestroy(b);
    *ms = t;
    return rc;
}

/* Checks version k->version on the problem against ref (tolerance tol; y NaN-poisoned first), then times it by
 * graph replay; k->status says how it went. Returns 0, or 1 on a CUDA error that ends the run (err set). */
static int time_candidate(const problem *pr, cgp_precision precision, cgp_reduce reduce, timed_candidate *k,
                          const double *ref, double tol, float *y_host, int replays, char *err, size_t errlen)
{
    const bench_problem *p = &pr->p;
    const int64_t outputs = p->shape.n * p->shape.cout;
    cgp_options o = cgp_default_options();
    o.padding = p->padding;
    o.reduce = reduce;
    o.precision = precision;
    o.kernel = k->version;
    plan_call c = {NULL, p, NULL, 0};
    snprintf(k->status, sizeof k->status, "failed");
    cgp_status st = cgp_plan_create(&c.plan, &p->shape, &o);
    if (st == CGP_SUCCESS)
        st = cgp_plan_workspace_size(c.plan, &c.workspace_bytes);
    cudaError_t e = cudaSuccess;
    if (st == CGP_SUCCESS && c.workspace_bytes > 0)
        e = cudaMalloc(&c.workspace, c.workspace_bytes);
    if (st != CGP_SUCCESS)
        fprintf(stderr, "cgp select: %s: %s (%s)\n", k->name, cgp_status_string(st), cgp_last_error_detail());
    int failed = st != CGP_SUCCESS;
    if (!failed && e == cudaSuccess)
        e = poison_outputs(p->y, outputs, 0);
    if (!failed && e == cudaSuccess)
        failed = run_plan(&c, 0);
    if (!failed && e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (!failed && e == cudaSuccess)
        e = cudaMemcpy(y_host, p->y, (size_t)outputs * sizeof(float), cudaMemcpyDeviceToHost);
    int rc = 0;
    if (!failed && e == cudaSuccess) {
        const check_report r = check_compare(y_host, ref, outputs, tol);
        k->rel_l2 = r.rel_l2_error;
        if (!r.passed) {
            snprintf(k->status, sizeof k->status, "check-failed");
            fprintf(stderr, "cgp select: %s failed its check: rel L2 %.3g > %.2g, %lld never written, %lld "
                    "non-finite mismatches\n", k->name, r.rel_l2_error, tol, (long long)r.never_written,
                    (long long)r.nonfinite_mismatches);
        } else {
            double estimate = 0.0;
            gpu_time_result t;
            char why[200];
            const int timed = one_call_ms(&c, &estimate) ? 1
                              : gpu_time_graph(run_plan, &c, gpu_time_runs_for(estimate), replays, &t, why,
                                               sizeof why);
            if (timed == 0) {
                snprintf(k->status, sizeof k->status, "pass");
                k->gpu_ms = t.ms_median;
                k->runs = t.runs;
            } else if (timed == 1) {
                snprintf(k->status, sizeof k->status, "not-capturable");
                fprintf(stderr, "cgp select: %s: %s\n", k->name, why);
            } else {
                snprintf(err, errlen, "%s: %s", k->name, why);
                rc = 1;
            }
        }
    }
    if (e != cudaSuccess) {
        snprintf(err, errlen, "%s: %s: %s", k->name, cudaGetErrorName(e), cudaGetErrorString(e));
        rc = 1;
    }
    cudaFree(c.workspace);
    if (c.plan)
        cgp_plan_destroy(c.plan);
    return rc;
}

/* One shape and precision: the heuristic's pick, every candidate checked and timed. Returns 0, or 1 on a CUDA
 * error (err set). */
static int select_row(const problem *pr, cgp_precision precision, cgp_reduce reduce, const double *ref,
                      const double *ref_tf32, float *y_host, int replays, selection_row *row, char *err,
                      size_t errlen)
{
    const bench_problem *p = &pr->p;
    memset(row, 0, sizeof *row);
    row->shape = p->shape;
    row->padding = p->padding;
    row->precision = precision;
    row->heuristic = row->measured = -1;
    cgp_options o = cgp_default_options();
    o.padding = p->padding;
    o.reduce = reduce;
    o.precision = precision;
    cgp_plan *plan = NULL;
    const cgp_candidate *cands = NULL;
    int count = 0, version = 0;
    cgp_status st = cgp_plan_create(&plan, &p->shape, &o);
    if (st == CGP_SUCCESS)
        st = cgp_plan_kernel(plan, &version, NULL);
    if (st == CGP_SUCCESS)
        st = cgp_plan_candidates(plan, &cands, &count, NULL);
    if (st != CGP_SUCCESS) {
        snprintf(err, errlen, "the heuristic plan: %s (%s)", cgp_status_string(st), cgp_last_error_detail());
        if (plan)
            cgp_plan_destroy(plan);
        return 1;
    }
    const int tf32 = precision == CGP_PRECISION_TF32;
    const double tol = tf32 ? check_tf32_operands_tolerance(p->shape.cin)
                            : check_tolerance((int)precision, p->hout * p->wout, p->shape.cin);
    int rc = 0;
    for (int i = 0; i < count && i < SELECT_MAX_CANDIDATES && rc == 0; ++i) {
        timed_candidate *k = &row->candidates[row->count++];
        k->version = cands[i].version;
        k->name = cands[i].name;
        k->unsupported = cands[i].unsupported;
        if (k->version == version)
            row->heuristic = row->count - 1;
        if (k->unsupported) {
            snprintf(k->status, sizeof k->status, "unsupported");
            continue;
        }
        rc = time_candidate(pr, precision, reduce, k, tf32 ? ref_tf32 : ref, tol, y_host, replays, err, errlen);
        if (k->gpu_ms > 0.0 && (row->measured < 0 || k->gpu_ms < row->candidates[row->measured].gpu_ms))
            row->measured = row->count - 1;
    }
    cgp_plan_destroy(plan);
    return rc;
}

static const char *padding_name(cgp_padding p) { return p == CGP_PADDING_SAME ? "same" : "valid"; }

static void write_selection_csv(outfile *o, const selection_row *rows, int count)
{
    outfile_printf(o, "n,cin,cout,h,w,padding,precision,heuristic_kernel,heuristic_gpu_ms,measured_kernel,"
                      "measured_gpu_ms\n");
    for (int i = 0; i < count; ++i) {
        const selection_row *r = &rows[i];
        const timed_candidate *h = r->heuristic >= 0 ? &r->candidates[r->heuristic] : NULL;
        const timed_candidate *m = r->measured >= 0 ? &r->candidates[r->measured] : NULL;
        outfile_printf(o, "%lld,%lld,%lld,%lld,%lld,%s,%s,%s,", (long long)r->shape.n, (long long)r->shape.cin,
                       (long long)r->shape.cout, (long long)r->shape.h, (long long)r->shape.w,
                       padding_name(r->padding), cli_precision_names[r->precision], h ? h->name : "");
        if (h && h->gpu_ms > 0.0)
            outfile_printf(o, "%.6g", h->gpu_ms);
        outfile_printf(o, ",%s,", m ? m->name : "");
        if (m)
            outfile_printf(o, "%.6g", m->gpu_ms);
        outfile_printf(o, "\n");
    }
}

static void write_candidates_csv(outfile *o, const sysinfo *si, const selection_row *rows, int count)
{
    outfile_printf(o, "device,driver,cuda,commit,date,n,cin,cout,h,w,padding,precision,kernel,version,status,gpu_ms,"
                      "runs_per_graph,rel_l2_error,heuristic,measured\n");
    for (int i = 0; i < count; ++i) {
        const selection_row *r = &rows[i];
        for (int j = 0; j < r->count; ++j) {
            const timed_candidate *k = &r->candidates[j];
            outfile_printf(o, "\"%s\",%s,%s,%s,%s,%lld,%lld,%lld,%lld,%lld,%s,%s,%s,%d,%s,", si->device, si->driver,
                           si->runtime, si->commit, si->date, (long long)r->shape.n, (long long)r->shape.cin,
                           (long long)r->shape.cout, (long long)r->shape.h, (long long)r->shape.w,
                           padding_name(r->padding), cli_precision_names[r->precision], k->name, k->version,
                           k->status);
            if (k->gpu_ms > 0.0)
                outfile_printf(o, "%.6g,%d", k->gpu_ms, k->runs);
            else
                outfile_printf(o, ",");
            outfile_printf(o, ",");
            if (strcmp(k->status, "unsupported") != 0 && strcmp(k->status, "failed") != 0)
                outfile_printf(o, "%.3e", k->rel_l2);
            outfile_printf(o, ",%d,%d\n", j == r->heuristic, j == r->measured);
        }
    }
}

/* heuristic GPU ms / measured GPU ms, or 0 when either is missing */
static double pick_ratio(const selection_row *r)
{
    if (r->heuristic < 0 || r->measured < 0 || !(r->candidates[r->heuristic].gpu_ms > 0.0))
        return 0.0;
    return r->candidates[r->heuristic].gpu_ms / r->candidates[r->measured].gpu_ms;
}

static void print_summary(const selection_row *rows, int count, unsigned precisions)
{
    printf("\nheuristic against measured selection, in GPU time (CUDA-graph replay):\n");
    for (int prec = 0; prec < 3; ++prec) {
        if (!(precisions & (1u << prec)))
            continue;
        int shapes = 0, within = 0, same = 0, worst = -1;
        double worst_badness = 0.0;
        for (int i = 0; i < count; ++i) {
            if ((int)rows[i].precision != prec)
                continue;
            ++shapes;
            const double ratio = pick_ratio(&rows[i]), badness = ratio > 0.0 ? ratio : 1e30; /* no pair: worst */
            within += ratio > 0.0 && ratio <= SELECT_TOLERANCE;
            same += rows[i].heuristic == rows[i].measured;
            if (worst < 0 || badness > worst_badness) {
                worst = i;
                worst_badness = badness;
            }
        }
        if (shapes == 0)
            continue;
        const selection_row *w = &rows[worst];
        printf("  %-6s: %d shapes, heuristic within 5%% of measured on %d (the same kernel on %d); worst %.3fx "
               "(%lldx%lldx%lldx%lldx%lld %s: %s against %s)\n",
               cli_precision_names[prec], shapes, within, same, pick_ratio(w), (long long)w->shape.n,
               (long long)w->shape.cin, (long long)w->shape.cout, (long long)w->shape.h, (long long)w->shape.w,
               padding_name(w->padding), w->heuristic >= 0 ? w->candidates[w->heuristic].name : "none",
               w->measured >= 0 ? w->candidates[w->measured].name : "none");
    }
}

int cmd_select(int argc, char **argv)
{
    int64_t random_count = 0, seed = 20261204, replays = 5;
    const char *precisions = "all", *reduce_name = "det", *csv = NULL, *candidates_csv = NULL, *zoo_file = NULL;
    int use_zoo = 0;
    option_spec specs[] = {
        OPTION_INT("--random", &random_count, 0, 100000, "shapes nobody listed, drawn from --seed"),
        OPTION_INT("--seed", &seed, 0, INT64_MAX, "seed of the random shapes and of every input"),
        OPTION_FLAG_OR_STRING("--zoo", &use_zoo, &zoo_file,
                              "also every shape of the public zoo (host/bench/zoo.csv), or of this CSV file"),
        OPTION_STRING("--precision", &precisions, "fp32, tf32, 3xtf32 or all"),
        OPTION_STRING("--reduce", &reduce_name, "det or atomic"),
        OPTION_INT("--replays", &replays, 3, 1000, "timed graph replays per candidate (median)"),
        OPTION_STRING("--csv", &csv, "the heuristic and the measured pick per shape and precision"),
        OPTION_STRING("--candidates-csv", &candidates_csv, "every candidate's GPU time and status"),
        OPTION_END};
    int code = EXIT_OK;
    if (!cli_parse("cgp select", "the heuristic kernel selection against the measured one, in GPU time", specs, argc,
                   argv, &code))
        return code;
    unsigned prec_set = 0;
    if (strcmp(precisions, "all") == 0)
        prec_set = 7;
    for (int i = 0; i < 3 && !prec_set; ++i)
        if (strcmp(precisions, cli_precision_names[i]) == 0)
            prec_set = 1u << i;
    const int reduce = strcmp(reduce_name, "det") == 0 ? 0 : strcmp(reduce_name, "atomic") == 0 ? 1 : -1;
    if (!prec_set || reduce < 0) {
        fprintf(stderr, "cgp select: --precision takes fp32, tf32, 3xtf32 or all, --reduce det or atomic\n");
        return EXIT_BAD_INPUT;
    }
    char err[512];
    zoo z = {0};
    if (use_zoo && zoo_load(zoo_file, &z, err, sizeof err) != 0) {
        fprintf(stderr, "cgp select: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    const int shapes = (use_zoo ? z.count : 0) + (int)random_count;
    if (shapes == 0) {
        fprintf(stderr, "cgp select: no shape: give --zoo and/or --random N\n");
        zoo_free(&z);
        return EXIT_BAD_INPUT;
    }
    outfile files[2];
    const char *paths[2] = {csv, candidates_csv};
    int opened[2] = {0, 0};
    for (int f = 0; f < 2; ++f) { /* before any GPU work: a bad path costs nothing */
        if (paths[f] && outfile_open(&files[f], paths[f], 0, err, sizeof err) != 0) {
            fprintf(stderr, "cgp select: %s\n", err);
            for (int g = 0; g < f; ++g)
                if (opened[g])
                    outfile_abort(&files[g]);
            zoo_free(&z);
            return EXIT_BAD_INPUT;
        }
        opened[f] = paths[f] != NULL;
    }
    selection_row *rows = calloc((size_t)shapes * 3, sizeof *rows);
    if (!rows || !cli_require_device("cgp select")) {
        if (!rows)
            fprintf(stderr, "cgp select: out of host memory\n");
        for (int f = 0; f < 2; ++f)
            if (opened[f])
                outfile_abort(&files[f]);
        free(rows);
        zoo_free(&z);
        return EXIT_FAIL;
    }
    sysinfo si;
    sysinfo_collect(&si);
    printf("cgp select: %s (%d SMs), driver %s, CUDA %s, commit %s, %s; seed %lld, %d shapes (%d of the zoo, %lld "
           "random), reduce %s; every candidate checked against fp64, then timed by CUDA-graph replay (%lld replays)\n",
           si.device, si.sm_count, si.driver, si.runtime, si.commit, si.date, (long long)seed, shapes,
           use_zoo ? z.count : 0, (long long)random_count, reduce_name, (long long)replays);
    random_draw d = {(uint64_t)seed, 0};
    int count = 0, rc = EXIT_OK, candidate_failed = 0;
    for (int k = 0; k < shapes && rc != EXIT_FAIL; ++k) {
        cgp_shape shape;
        cgp_padding padding;
        if (k < (use_zoo ? z.count : 0)) {
            shape = z.shapes[k].shape;
            padding = z.shapes[k].padding;
        } else {
            padding = (cgp_padding)(rng_bits(d.seed, d.count++) >> 63);
            shape = random_shape_draw(&d, padding, &sample_bounds);
        }
        problem pr;
        const int prc = problem_create(&pr, &shape, padding, (uint64_t)seed + (uint64_t)k, 0, err, sizeof err);
        if (prc != 0) {
            fprintf(stderr, "cgp select: %s\n", err);
            if (prc == 2) /* too large for this device: said, and the next */
                continue;
            rc = EXIT_FAIL;
            break;
        }
        const int64_t outputs = shape.n * shape.cout;
        double *ref = malloc((size_t)outputs * sizeof *ref), *ref_tf32 = malloc((size_t)outputs * sizeof *ref_tf32);
        float *y_host = malloc((size_t)outputs * sizeof *y_host);
        if (!ref || !ref_tf32 || !y_host) {
            snprintf(err, sizeof err, "out of host memory");
            rc = EXIT_FAIL;
        } else if (problem_reference(&pr, ref, err, sizeof err) != 0 ||
                   ((prec_set & 2u) && problem_reference_tf32(&pr, ref_tf32, err, sizeof err) != 0)) {
            rc = EXIT_FAIL;
        }
        for (int prec = 0; prec < 3 && rc != EXIT_FAIL; ++prec) {
            if (!(prec_set & (1u << prec)))
                continue;
            selection_row *row = &rows[count];
            if (select_row(&pr, (cgp_precision)prec, (cgp_reduce)reduce, ref, ref_tf32, y_host, (int)replays, row,
                           err, sizeof err) != 0) {
                rc = EXIT_FAIL;
                break;
            }
            ++count;
            for (int j = 0; j < row->count; ++j) /* a failed candidate: the run goes on, and exits 1 */
                candidate_failed |= strcmp(row->candidates[j].status, "check-failed") == 0 ||
                                    strcmp(row->candidates[j].status, "failed") == 0;
            const timed_candidate *h = row->heuristic >= 0 ? &row->candidates[row->heuristic] : NULL;
            const timed_candidate *m = row->measured >= 0 ? &row->candidates[row->measured] : NULL;
            printf("%4d %lldx%lldx%lldx%lldx%lld %-5s %-6s heuristic %-11s %9.5f ms  measured %-11s %9.5f ms  %.3fx\n",
                   k, (long long)shape.n, (long long)shape.cin, (long long)shape.cout, (long long)shape.h,
                   (long long)shape.w, padding_name(padding), cli_precision_names[prec], h ? h->name : "none",
                   h ? h->gpu_ms : 0.0, m ? m->name : "none", m ? m->gpu_ms : 0.0, pick_ratio(row));
            fflush(stdout);
        }
        if (rc == EXIT_FAIL)
            fprintf(stderr, "cgp select: %s\n", err);
        free(ref);
        free(ref_tf32);
        free(y_host);
        problem_destroy(&pr);
    }
    print_summary(rows, count, prec_set);
    if (opened[0])
        write_selection_csv(&files[0], rows, count);
    if (opened[1])
        write_candidates_csv(&files[1], &si, rows, count);
    for (int f = 0; f < 2; ++f)
        if (opened[f] && (count == 0 ? (outfile_abort(&files[f]), 0) : outfile_commit(&files[f], err, sizeof err)) != 0) {
            fprintf(stderr, "cgp select: %s\n", err);
            rc = EXIT_BAD_INPUT;
        }
    if (candidate_failed) {
        fprintf(stderr, "cgp select: some candidates failed their check or their run (see above)\n");
        if (rc == EXIT_OK)
            rc = EXIT_FAIL;
    }
    free(rows);
    zoo_free(&z);
    return rc;
}
