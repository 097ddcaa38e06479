/* bench.c - the measurement core of bench.h: each row checked against fp64, then timed (bench_report.c shows them). */
#include "bench.h"
#include "gpu_time.h"
#include "poison.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


static double precision_tolerance(bench_precision precision, const bench_problem *p)
{
    return check_tolerance((int)precision, p->hout * p->wout, p->shape.cin);
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ||a - ref|| / ||ref|| with check_compare's floor under ||ref|| */
static double rel_l2_between(const double *a, const double *ref, int64_t count)
{
    double diff2 = 0.0, ref2 = 0.0;
    for (int64_t i = 0; i < count; ++i) {
        diff2 += (a[i] - ref[i]) * (a[i] - ref[i]);
        ref2 += ref[i] * ref[i];
    }
    const double floor2 = 0.05 * 0.05 * (double)count;
    return sqrt(diff2 / (ref2 > floor2 ? ref2 : floor2));
}

/* Runs the variant once on poisoned output, asks it what the run did (describe_run), and checks y against ref (and
 * a fused tf32 row against ref_tf32, the reference of tf32-rounded operands, when given). Returns 0, or 1 on a CUDA
 * error that leaves the context unusable (then err is set). */
static int check_row(bench_row *row, const problem *pr, const double *ref, const double *ref_tf32, float *y_host,
                     char *err, size_t errlen)
{
    const cgp_shape *s = &pr->p.shape;
    const size_t outputs = (size_t)(s->n * s->cout);
    cudaError_t e = poison_outputs(pr->p.y, (int64_t)outputs, 0);
    if (e == cudaSuccess && row->v.run(&row->v, &pr->p, 0) != 0) {
        snprintf(row->failure, sizeof row->failure, "the run failed (see the message above)");
        return 0;
    }
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaMemcpy(y_host, pr->p.y, outputs * sizeof(float), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "%s: %s: %s", row->v.name, cudaGetErrorName(e), cudaGetErrorString(e));
        return 1;
    }
    if (row->v.describe_run && row->v.describe_run(&row->v, row->failure, sizeof row->failure) != 0)
        return 0;
    row->check = check_compare(y_host, ref, (int64_t)outputs, precision_tolerance(row->v.precision, &pr->p));
    row->checked = 1;
    const check_report *judged = &row->check;
    if (ref_tf32 && row->v.precision == BENCH_PRECISION_TF32 && strcmp(row->v.family, "fused") == 0) {
        row->check_tf32 = check_compare(y_host, ref_tf32, (int64_t)outputs, check_tf32_operands_tolerance(s->cin));
        row->checked_tf32 = 1;
        judged = &row->check_tf32;
    }
    if (ref_tf32 && row->v.precision == BENCH_PRECISION_TF32 && strcmp(row->v.family, "fused") != 0) {
        /* a baseline allowed TF32: did it round like TF32? Its error against the exact reference is then of the
         * order of what rounding the operands to tf32 alone does; a row far below that ran fp32 arithmetic */
        const double effect = rel_l2_between(ref_tf32, ref, (int64_t)outputs);
        if (row->check.rel_l2_error < 0.1 * effect) {
            char detail[sizeof row->v.detail];
            snprintf(detail, sizeof detail, "%s", row->v.detail);
            snprintf(row->v.name + strlen(row->v.name), sizeof row->v.name - strlen(row->v.name), " (no TF32 seen)");
            if (snprintf(row->v.detail, sizeof row->v.detail, "ran no TF32: rel L2 %.2g, where rounding the operands "
                         "to tf32 alone gives %.2g; %s", row->check.rel_l2_error, effect, detail) < 0)
                row->v.detail[0] = '\0';
        }
    }
    if (!judged->passed)
        snprintf(row->failure, sizeof row->failure,
                 "check failed: rel L2 error %.3g%s > %.1g, %lld never written, %lld non-finite mismatches",
                 judged->rel_l2_error, row->checked_tf32 ? " against the reference of tf32-rounded operands" : "",
                 judged->tolerance, (long long)judged->never_written, (long long)judged->nonfinite_mismatches);
    return 0;
}

int l2_flusher_create(l2_flusher *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    int device = 0, l2 = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
    if (e == cudaSuccess && l2 > 0) {
        f->bytes = 2 * (size_t)l2;
        e = cudaMalloc(&f->buffer, f->bytes);
    }
    if (e != cudaSuccess) {
        snprintf(err, errlen, "the L2 flush buffer (%zu bytes, twice the L2): %s: %s", f->bytes, cudaGetErrorName(e),
                 cudaGetErrorString(e));
        f->buffer = NULL;
        return 1;
    }
    return 0;
}

cudaError_t l2_flush(l2_flusher *f, cudaStream_t s)
{
    return f->bytes ? cudaMemsetAsync(f->buffer, (int)(++f->flushes & 0xff), f->bytes, s) : cudaSuccess;
}

void l2_flusher_destroy(l2_flusher *f)
{
    cudaFree(f->buffer);
    memset(f, 0, sizeof *f);
}

/* one call of a row, for gpu_time_graph */
typedef struct row_call {
    bench_variant *v;
    const bench_problem *p;
} row_call;

static int run_row(void *ctx, cudaStream_t s)
{
    row_call *c = ctx;
    return c->v->run(c->v, c->p, s);
}

/* The row's GPU time by graph replay; a row that cannot be captured keeps its per-call time and says why.
 * Returns 0, or 1 on a CUDA error (err set). */
static int row_gpu_time(bench_row *row, const bench_problem *p, int replays, char *err, size_t errlen)
{
    row_call c = {&row->v, p};
    gpu_time_result t;
    char why[sizeof row->gpu_note];
    const int rc = gpu_time_graph(run_row, &c, gpu_time_runs_for(row->ms_median), replays, &t, why, sizeof why);
    if (rc == 2) {
        snprintf(err, errlen, "%s: %s", row->v.name, why);
        return 1;
    }
    if (rc == 1) {
        snprintf(row->gpu_note, sizeof row->gpu_note, "%s", why);
        return 0;
    }
    row->gpu_timed = 1;
    row->gpu_ms = t.ms_median;
    row->gpu_ms_min = t.ms_min;
    row->gpu_runs = t.runs;
    return 0;
}

int bench_time_row(bench_row *row, const bench_problem *p, const bench_options *o, l2_flusher *flush, char *err,
                   size_t errlen)
{
    cudaEvent_t *ev = malloc(sizeof(cudaEvent_t) * 2 * (size_t)o->iters);
    double *ms = malloc(sizeof(double) * (size_t)o->iters);
    int created = 0, failed = 0;
    cudaError_t e = cudaSuccess;
    if (!ev || !ms) {
        snprintf(row->failure, sizeof row->failure, "out of host memory");
        free(ev), free(ms);
        return 0;
    }
    for (; created < 2 * o->iters && e == cudaSuccess; ++created)
        e = cudaEventCreate(&ev[created]);
    if (e != cudaSuccess)
        --created;
    for (int i = 0; i < o->warmup && e == cudaSuccess && !failed; ++i)
        failed = row->v.run(&row->v, p, 0);
    for (int i = 0; i < o->iters && e == cudaSuccess && !failed; ++i) {
        if (flush) /* outside the event pair: the run starts with nothing of its own in L2 */
            e = l2_flush(flush, 0);
        if (e == cudaSuccess)
            e = cudaEventRecord(ev[2 * i], 0);
        if (e == cudaSuccess)
            failed = row->v.run(&row->v, p, 0);
        if (e == cudaSuccess && !failed)
            e = cudaEventRecord(ev[2 * i + 1], 0);
    }
    if (e == cudaSuccess && !failed)
        e = cudaDeviceSynchronize();
    for (int i = 0; i < o->iters && e == cudaSuccess && !failed; ++i) {
        float t = 0.0f;
        e = cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]);
        ms[i] = t;
    }
    for (int i = 0; i < created; ++i)
        cudaEventDestroy(ev[i]);
    if (e == cudaSuccess && !failed) {
        qsort(ms, (size_t)o->iters, sizeof(double), compare_doubles);
        row->ms_min = ms[0];
        row->ms_max = ms[o->iters - 1];
        row->ms_median = (o->iters % 2) ? ms[o->iters / 2] : 0.5 * (ms[o->iters / 2 - 1] + ms[o->iters / 2]);
        row->timed = 1;
    } else if (failed) {
        snprintf(row->failure, sizeof row->failure, "a timed run failed (see the message above)");
    }
    free(ev);
    free(ms);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "timing %s: %s: %s", row->v.name, cudaGetErrorName(e), cudaGetErrorString(e));
        return 1;
    }
    if (!row->timed)
        return 0;
    if (flush) {
        snprintf(row->gpu_note, sizeof row->gpu_note, "no GPU time with --cold-l2 (a replayed graph runs warm)");
        return 0;
    }
    return row_gpu_time(row, p, o->iters < 5 ? 5 : o->iters > 15 ? 15 : o->iters, err, errlen);
}

/* The result of a shape that did not fit: one absent row that says why. */
static void mark_too_large(bench_result *r, const cgp_shape *shape, cgp_padding padding, const char *why)
{
    r->problem.shape = *shape;
    r->problem.padding = padding;
    r->problem.hout = cgp_output_height(shape, padding);
    r->problem.wout = cgp_output_width(shape, padding);
    bench_variant *v = &r->rows[0].v;
    snprintf(v->name, sizeof v->name, "every variant");
    snprintf(v->family, sizeof v->family, "none");
    v->precision = BENCH_PRECISION_NONE;
    snprintf(v->unavailable, sizeof v->unavailable, "%s", why);
    r->count = 1;
}

int bench_run(const cgp_shape *shape, cgp_padding padding, const bench_options *o, bench_result *r, char *err,
              size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->seed = o->seed;
    r->cold_l2 = o->cold_l2;
    l2_flusher flush = {0}; /* allocated first: the problem must fit beside it */
    if (o->cold_l2 && l2_flusher_create(&flush, err, errlen) != 0)
        return 1;
    problem pr;
    const int rc_problem = problem_create(&pr, shape, padding, o->seed, 0, err, errlen);
    if (rc_problem != 0) {
        if (rc_problem == 2)
            mark_too_large(r, shape, padding, err);
        l2_flusher_destroy(&flush);
        return rc_problem;
    }
    r->problem = pr.p;
    int rc = 0;
    const size_t outputs = (size_t)(shape->n * shape->cout);
    const int tf32_rows = (o->fused.precisions >> CGP_PRECISION_TF32) & 1u; /* checked on tf32-rounded operands */
    double *ref = malloc(outputs * sizeof(double)), *ref_tf32 = tf32_rows ? malloc(outputs * sizeof(double)) : NULL;
    float *y_host = malloc(outputs * sizeof(float));
    if (!ref || !y_host || (tf32_rows && !ref_tf32)) {
        snprintf(err, errlen, "out of host memory");
        rc = 1;
    } else {
        rc = problem_reference(&pr, ref, err, errlen);
        if (rc == 0 && tf32_rows)
            rc = problem_reference_tf32(&pr, ref_tf32, err, errlen);
    }
    bench_variant variants[BENCH_MAX_ROWS];
    int count = 0;
    if (rc == 0) {
        rc = variants_fused(&pr.p, &o->fused, variants, &count, BENCH_MAX_ROWS);
        if (rc == 0 && o->stages)
            rc = variants_stages(&pr.p, &o->fused, variants, &count, BENCH_MAX_ROWS);
        if (rc == 0 && (o->baselines & BASELINE_CUDNN))
            rc = variants_cudnn(&pr.p, variants, &count, BENCH_MAX_ROWS);
        if (rc == 0 && (o->baselines & BASELINE_CUDNN_GRAPH))
            rc = variants_cudnn_graph(&pr.p, variants, &count, BENCH_MAX_ROWS);
        if (rc == 0 && (o->baselines & BASELINE_UNFUSED))
            rc = variants_unfused(&pr.p, variants, &count, BENCH_MAX_ROWS);
        if (rc != 0)
            snprintf(err, errlen, "setting up the variants failed (see above)");
    }
    for (int i = 0; i < count; ++i)
        r->rows[i].v = variants[i];
    r->count = count;
    for (int i = 0; i < count && rc == 0; ++i) {
        bench_row *row = &r->rows[i];
        if (!row->v.run)
            continue;
        if (row->v.precision == BENCH_PRECISION_NONE) { /* timing-only (a layout conversion, a stage): no y to check */
            rc = bench_time_row(row, &pr.p, o, o->cold_l2 ? &flush : NULL, err, errlen);
            continue;
        }
        rc = check_row(row, &pr, ref, ref_tf32, y_host, err, errlen);
        if (rc == 0 && bench_row_passed(row))
            rc = bench_time_row(row, &pr.p, o, o->cold_l2 ? &flush : NULL, err, errlen);
    }
    for (int i = 0; i < count; ++i)
        if (r->rows[i].v.destroy)
            r->rows[i].v.destroy(&r->rows[i].v);
    free(ref);
    free(ref_tf32);
    free(y_host);
    l2_flusher_destroy(&flush);
    problem_destroy(&pr);
    r->problem.x = r->problem.w = r->problem.b = NULL;
    r->problem.y = NULL;
    return rc;
}

int bench_failed_checks(const bench_result *r)
{
    int failed = 0;
    for (int i = 0; i < r->count; ++i)
        if (r->rows[i].v.run && !r->rows[i].timed)
            ++failed;
    return failed;
}
