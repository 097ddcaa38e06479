/* bench.c - see bench.h. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"

static double precision_tolerance(const char *precision, const bench_problem *p)
{
    return check_tolerance(strcmp(precision, "tf32") == 0 ? CGP_PRECISION_TF32 : CGP_PRECISION_FP32, p->hout * p->wout,
                           p->shape.cin);
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs the variant once on poisoned output and checks it. Returns 0, or 1 on a CUDA error that
 * leaves the context unusable (then err is set). */
static int check_row(bench_row *row, const problem *pr, const double *ref, float *y_host, char *err, size_t errlen)
{
    const cgp_shape *s = &pr->p.shape;
    const size_t outputs = (size_t)(s->n * s->cout);
    cudaError_t e = cudaMemset(pr->p.y, 0xFF, outputs * sizeof(float)); /* all-ones bits: NaN */
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
    row->check = check_compare(y_host, ref, (int64_t)outputs, precision_tolerance(row->v.precision, &pr->p));
    row->checked = 1;
    if (!row->check.passed)
        snprintf(row->failure, sizeof row->failure, "check failed: rel L2 error %.3g > %.1g, %lld non-finite mismatches",
                 row->check.rel_l2_error, row->check.tolerance, (long long)row->check.nonfinite_mismatches);
    return 0;
}

static int time_row(bench_row *row, const problem *pr, const bench_options *o, char *err, size_t errlen)
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
        failed = row->v.run(&row->v, &pr->p, 0);
    for (int i = 0; i < o->iters && e == cudaSuccess && !failed; ++i) {
        e = cudaEventRecord(ev[2 * i], 0);
        if (e == cudaSuccess)
            failed = row->v.run(&row->v, &pr->p, 0);
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
    return 0;
}

int bench_run(const cgp_shape *shape, cgp_padding padding, const bench_options *o, bench_result *r, char *err,
              size_t errlen)
{
    memset(r, 0, sizeof *r);
    problem pr;
    int rc = problem_create(&pr, shape, padding, o->seed, 0, err, errlen);
    if (rc != 0)
        return rc;
    r->problem = pr.p;
    r->seed = o->seed;
    const size_t outputs = (size_t)(shape->n * shape->cout);
    double *ref = malloc(outputs * sizeof(double));
    float *y_host = malloc(outputs * sizeof(float));
    if (!ref || !y_host) {
        snprintf(err, errlen, "out of host memory");
        rc = 1;
    } else {
        rc = problem_reference(&pr, ref, err, errlen);
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
        if (strcmp(row->v.precision, "n/a") == 0) { /* timing-only (a layout conversion, a stage): no y to check */
            rc = time_row(row, &pr, o, err, errlen);
            continue;
        }
        rc = check_row(row, &pr, ref, y_host, err, errlen);
        if (rc == 0 && row->checked && row->check.passed)
            rc = time_row(row, &pr, o, err, errlen);
    }
    for (int i = 0; i < count; ++i)
        if (r->rows[i].v.destroy)
            r->rows[i].v.destroy(&r->rows[i].v);
    free(ref);
    free(y_host);
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

int bench_fused_row(const bench_result *r)
{
    for (int i = 0; i < r->count; ++i)
        if (strcmp(r->rows[i].v.family, "fused") == 0 && r->rows[i].timed)
            return i;
    return -1;
}

static const char *padding_name(cgp_padding p) { return p == CGP_PADDING_SAME ? "same" : "valid"; }

void bench_print_table(FILE *f, const bench_result *r)
{
    const bench_problem *p = &r->problem;
    const double flops = problem_conv_flops(p);
    const int base = bench_fused_row(r);
    fprintf(f, "problem: N=%lld Cin=%lld Cout=%lld H=%lld W=%lld padding=%s -> Hout=%lld Wout=%lld, %.1f GFLOP, "
               "seed %llu\n",
            (long long)p->shape.n, (long long)p->shape.cin, (long long)p->shape.cout, (long long)p->shape.h,
            (long long)p->shape.w, padding_name(p->padding), (long long)p->hout, (long long)p->wout, flops / 1e9,
            (unsigned long long)r->seed);
    fprintf(f, "%-26s %-7s %9s %9s %9s %8s %9s %8s %10s %9s\n", "variant", "prec", "median ms", "min ms", "max ms",
            "TFLOP/s", "moved GB", "GB/s", "rel L2 err", "fused is");
    for (int i = 0; i < r->count; ++i) {
        const bench_row *row = &r->rows[i];
        if (!row->v.run)
            continue;
        if (!row->timed) {
            fprintf(f, "%-26s %-7s %s\n", row->v.name, row->v.precision, row->failure);
            continue;
        }
        char speed[32] = "";
        if (base >= 0)
            snprintf(speed, sizeof speed, "%.2fx", row->ms_median / r->rows[base].ms_median);
        char relerr[32] = "-";
        if (row->checked)
            snprintf(relerr, sizeof relerr, "%.2e", row->check.rel_l2_error);
        fprintf(f, "%-26s %-7s %9.4f %9.4f %9.4f %8.2f %9.3f %8.0f %10s %9s\n", row->v.name, row->v.precision,
                row->ms_median, row->ms_min, row->ms_max, flops / (row->ms_median * 1e-3) / 1e12, row->v.bytes_moved / 1e9,
                row->v.bytes_moved / (row->ms_median * 1e-3) / 1e9, relerr, speed);
    }
    if (base >= 0)
        fprintf(f, "('fused is': how many times faster the row '%s' is than each row)\n", r->rows[base].v.name);
    for (int i = 0; i < r->count; ++i)
        fprintf(f, "  %s: %s\n", r->rows[i].v.name, r->rows[i].v.run ? r->rows[i].v.detail : r->rows[i].v.unavailable);
}

/* ---- files ---- */
static void csv_field(outfile *o, const char *s)
{
    outfile_write(o, "\"", 1);
    for (; *s; ++s)
        outfile_write(o, *s == '"' ? "\"\"" : s, *s == '"' ? 2 : 1);
    outfile_write(o, "\"", 1);
}

static void json_string(outfile *o, const char *s)
{
    outfile_printf(o, "\"");
    for (; *s; ++s) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            outfile_printf(o, "\\%c", c);
        else if (c < 0x20)
            outfile_printf(o, "\\u%04x", c);
        else
            outfile_printf(o, "%c", c);
    }
    outfile_printf(o, "\"");
}

const char *bench_row_status(const bench_row *row)
{
    if (!row->v.run)
        return "absent";
    if (!row->checked)
        return row->timed ? "timing-only" : "failed";
    return row->check.passed ? (row->timed ? "pass" : "failed") : "check-failed";
}

int bench_write_csv(const char *path, const sysinfo *si, const bench_result *results, int count, char *err,
                    size_t errlen)
{
    outfile o;
    if (outfile_open(&o, path, 0, err, errlen) != 0)
        return -1;
    outfile_printf(&o, "date,device,driver,cuda,cudnn,commit,n,cin,cout,h,w,padding,seed,variant,family,precision,"
                       "status,median_ms,min_ms,max_ms,tflops,bytes_moved,gbps,rel_l2_error,max_abs_error,"
                       "fused_speedup,detail\n");
    for (int k = 0; k < count; ++k) {
        const bench_result *r = &results[k];
        const bench_problem *p = &r->problem;
        const int base = bench_fused_row(r);
        const double flops = problem_conv_flops(p);
        for (int i = 0; i < r->count; ++i) {
            const bench_row *row = &r->rows[i];
            outfile_printf(&o, "%s,", si->date);
            csv_field(&o, si->device);
            outfile_printf(&o, ",%s,%s,%s,%s,%lld,%lld,%lld,%lld,%lld,%s,%llu,", si->driver, si->runtime, si->cudnn,
                           si->commit, (long long)p->shape.n, (long long)p->shape.cin, (long long)p->shape.cout,
                           (long long)p->shape.h, (long long)p->shape.w, padding_name(p->padding),
                           (unsigned long long)r->seed);
            csv_field(&o, row->v.name);
            outfile_printf(&o, ",%s,%s,%s,", row->v.family, row->v.precision, bench_row_status(row));
            if (row->timed)
                outfile_printf(&o, "%.5f,%.5f,%.5f,%.3f,%.0f,%.1f,", row->ms_median, row->ms_min, row->ms_max,
                               flops / (row->ms_median * 1e-3) / 1e12, row->v.bytes_moved,
                               row->v.bytes_moved / (row->ms_median * 1e-3) / 1e9);
            else
                outfile_printf(&o, ",,,,%.0f,,", row->v.bytes_moved);
            if (row->checked)
                outfile_printf(&o, "%.3e,%.3e,", row->check.rel_l2_error, row->check.max_abs_error);
            else
                outfile_printf(&o, ",,");
            if (row->timed && base >= 0)
                outfile_printf(&o, "%.3f,", row->ms_median / r->rows[base].ms_median);
            else
                outfile_printf(&o, ",");
            csv_field(&o, row->v.run ? (row->failure[0] ? row->failure : row->v.detail) : row->v.unavailable);
            outfile_printf(&o, "\n");
        }
    }
    return outfile_commit(&o, err, errlen);
}

int bench_write_json(const char *path, const sysinfo *si, const bench_result *results, int count, char *err,
                     size_t errlen)
{
    outfile o;
    if (outfile_open(&o, path, 0, err, errlen) != 0)
        return -1;
    outfile_printf(&o, "{\n  \"system\": {\"device\": ");
    json_string(&o, si->device);
    outfile_printf(&o, ", \"sm_count\": %d, \"driver\": ", si->sm_count);
    json_string(&o, si->driver);
    outfile_printf(&o, ", \"cuda\": \"%s\", \"cudnn\": \"%s\", \"commit\": \"%s\", \"date\": \"%s\"},\n", si->runtime,
                   si->cudnn, si->commit, si->date);
    outfile_printf(&o, "  \"results\": [\n");
    for (int k = 0; k < count; ++k) {
        const bench_result *r = &results[k];
        const bench_problem *p = &r->problem;
        const int base = bench_fused_row(r);
        const double flops = problem_conv_flops(p);
        outfile_printf(&o, "    {\"shape\": {\"n\": %lld, \"cin\": %lld, \"cout\": %lld, \"h\": %lld, \"w\": %lld, "
                           "\"padding\": \"%s\", \"hout\": %lld, \"wout\": %lld}, \"conv_flops\": %.0f, \"seed\": %llu, "
                           "\"rows\": [\n",
                       (long long)p->shape.n, (long long)p->shape.cin, (long long)p->shape.cout, (long long)p->shape.h,
                       (long long)p->shape.w, padding_name(p->padding), (long long)p->hout, (long long)p->wout, flops,
                       (unsigned long long)r->seed);
        for (int i = 0; i < r->count; ++i) {
            const bench_row *row = &r->rows[i];
            outfile_printf(&o, "      {\"variant\": ");
            json_string(&o, row->v.name);
            outfile_printf(&o, ", \"family\": \"%s\", \"precision\": \"%s\", \"status\": \"%s\", \"bytes_moved\": %.0f",
                           row->v.family, row->v.precision, bench_row_status(row), row->v.bytes_moved);
            if (row->timed)
                outfile_printf(&o, ", \"median_ms\": %.5f, \"min_ms\": %.5f, \"max_ms\": %.5f, \"tflops\": %.3f",
                               row->ms_median, row->ms_min, row->ms_max, flops / (row->ms_median * 1e-3) / 1e12);
            if (row->checked)
                outfile_printf(&o, ", \"rel_l2_error\": %.3e, \"max_abs_error\": %.3e", row->check.rel_l2_error,
                               row->check.max_abs_error);
            if (row->timed && base >= 0)
                outfile_printf(&o, ", \"fused_speedup\": %.3f", row->ms_median / r->rows[base].ms_median);
            outfile_printf(&o, ", \"detail\": ");
            json_string(&o, row->v.run ? (row->failure[0] ? row->failure : row->v.detail) : row->v.unavailable);
            outfile_printf(&o, "}%s\n", i + 1 < r->count ? "," : "");
        }
        outfile_printf(&o, "    ]}%s\n", k + 1 < count ? "," : "");
    }
    outfile_printf(&o, "  ]\n}\n");
    return outfile_commit(&o, err, errlen);
}

int bench_write_markdown(const char *path, const sysinfo *si, const bench_result *results, int count, char *err,
                         size_t errlen)
{
    outfile o;
    if (outfile_open(&o, path, 0, err, errlen) != 0)
        return -1;
    outfile_printf(&o, "Device: %s (%d SMs), driver %s, CUDA %s, cuDNN %s, commit %s, %s\n\n", si->device, si->sm_count,
                   si->driver, si->runtime, si->cudnn, si->commit, si->date);
    for (int k = 0; k < count; ++k) {
        const bench_result *r = &results[k];
        const bench_problem *p = &r->problem;
        const int base = bench_fused_row(r);
        const double flops = problem_conv_flops(p);
        outfile_printf(&o, "N=%lld Cin=%lld Cout=%lld H=%lld W=%lld padding=%s, seed %llu\n\n", (long long)p->shape.n,
                       (long long)p->shape.cin, (long long)p->shape.cout, (long long)p->shape.h, (long long)p->shape.w,
                       padding_name(p->padding), (unsigned long long)r->seed);
        outfile_printf(&o, "| variant | precision | median ms | min ms | max ms | TFLOP/s | moved GB | rel L2 error | "
                           "fused is | detail |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (int i = 0; i < r->count; ++i) {
            const bench_row *row = &r->rows[i];
            if (row->timed)
                outfile_printf(&o, "| %s | %s | %.4f | %.4f | %.4f | %.2f | %.3f | %.2e | %.2fx | %s |\n", row->v.name,
                               row->v.precision, row->ms_median, row->ms_min, row->ms_max,
                               flops / (row->ms_median * 1e-3) / 1e12, row->v.bytes_moved / 1e9,
                               row->check.rel_l2_error, base >= 0 ? row->ms_median / r->rows[base].ms_median : 0.0,
                               row->v.detail);
            else
                outfile_printf(&o, "| %s | %s | | | | | | | | %s |\n", row->v.name, row->v.precision,
                               row->v.run ? row->failure : row->v.unavailable);
        }
        outfile_printf(&o, "\n");
    }
    return outfile_commit(&o, err, errlen);
}
