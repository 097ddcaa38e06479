/*
 * cmd_roofline.c - `cgp roofline`: measures the ceilings of the present GPU with the probes of
 * kernels/bench/probes.cu (DRAM copy, L2 read, FFMA, TF32 mma.sync, GELU), computes the model of the
 * chosen shape (FLOPs, GELUs, minimal DRAM bytes, intensity, the floor time under each ceiling:
 * host/plot/roofline_model.h), runs every fused variant and baseline through bench_run (checked, then
 * timed) and places each on the roofline. --csv writes ceilings, model and points in one file
 * (column kind), --svg draws the chart (host/plot/roofline_svg.h). docs/roofline.md explains it all.
 *     cgp roofline [shape options] [--kernel N] [--reduce det|atomic|all]
 *                  [--baselines all|none|cudnn|cudnn-graph|unfused] [--warmup 5 --iters 30]
 *                  [--csv FILE] [--svg FILE]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "chart.h"
#include "cli.h"
#include "outfile.h"
#include "probes.h"
#include "roofline_model.h"
#include "roofline_svg.h"

static const char *const reduce_choices[] = {"det", "atomic", "all", NULL};
static const char *const baseline_choices[] = {"all", "none", "cudnn", "cudnn-graph", "unfused", NULL};
static const unsigned baseline_bits[] = {BASELINE_CUDNN | BASELINE_CUDNN_GRAPH | BASELINE_UNFUSED, 0, BASELINE_CUDNN,
                                         BASELINE_CUDNN_GRAPH, BASELINE_UNFUSED};

/* everything one run produced, for the printout and the files */
typedef struct roofline_run {
    sysinfo si;
    roofline_shape shape;
    const char *padding;
    probe_result probes[PROBE_COUNT];
    roofline_ceilings ceilings;
    roofline_model model;
    roofline_floors floors;
    bench_result bench;
    roofline_point points[BENCH_MAX_ROWS];
    int placed[BENCH_MAX_ROWS]; /* 1 where points[i] holds a placed point */
} roofline_run;


static const char *roof_name(roofline_roof roof)
{
    return roof == ROOFLINE_ROOF_FFMA ? "ffma" : roof == ROOFLINE_ROOF_TF32 ? "tf32" : "";
}

static void print_ceilings(const roofline_run *r, int warmup, int iters)
{
    printf("\nceilings (each probe: %d warm-up launches, then the median of %d launches timed with CUDA events)\n",
           warmup, iters);
    printf("  %-14s %10s %10s %10s  %-16s %s\n", "probe", "median ms", "min ms", "max ms", "rate", "what ran");
    for (int k = 0; k < PROBE_COUNT; ++k) {
        const probe_result *p = &r->probes[k];
        char rate[32];
        chart_format_quantity(p->rate, 4, p->unit, rate, sizeof rate);
        printf("  %-14s %10.4f %10.4f %10.4f  %-16s %s\n", p->name, p->median_ms, p->min_ms, p->max_ms, rate, p->detail);
    }
}

static void print_model(const roofline_run *r)
{
    const roofline_model *m = &r->model;
    const roofline_floors *f = &r->floors;
    char a[32], b[32], c[32], d[32], e[32];
    printf("\nmodel: N=%lld Cin=%lld Cout=%lld H=%lld W=%lld padding %s -> Hout=%lld Wout=%lld\n",
           (long long)r->shape.n, (long long)r->shape.cin, (long long)r->shape.cout, (long long)r->shape.h,
           (long long)r->shape.w, r->padding, (long long)m->hout, (long long)m->wout);
    chart_format_quantity(m->conv_flops, 4, "FLOP", a, sizeof a);
    printf("  %-22s %-14s 2 N Cout Hout Wout Cin 9\n", "convolution FLOPs", a);
    chart_format_quantity(m->gelu_count, 4, "GELU", a, sizeof a);
    printf("  %-22s %-14s N Cout Hout Wout\n", "GELU evaluations", a);
    chart_format_quantity(m->min_bytes, 4, "B", a, sizeof a);
    chart_format_quantity(m->x_bytes, 4, "B", b, sizeof b);
    chart_format_quantity(m->w_bytes, 4, "B", c, sizeof c);
    chart_format_quantity(m->b_bytes, 4, "B", d, sizeof d);
    chart_format_quantity(m->y_bytes, 4, "B", e, sizeof e);
    printf("  %-22s %-14s x %s + weights %s + bias %s read once, y %s written once\n", "minimal DRAM bytes", a, b, c,
           d, e);
    printf("  %-22s %-14.4g conv FLOPs / minimal bytes (FLOP/B)\n", "arithmetic intensity", m->intensity);
    printf("floors (the time each ceiling alone allows):\n");
    printf("  %-22s %10.4f ms  minimal bytes / DRAM copy bandwidth\n", "memory", f->memory_ms);
    printf("  %-22s %10.4f ms  conv FLOPs / FFMA rate\n", "FFMA", f->ffma_ms);
    printf("  %-22s %10.4f ms  conv FLOPs / TF32 mma.sync rate\n", "TF32", f->tf32_ms);
    printf("  %-22s %10.4f ms  3 x conv FLOPs / TF32 rate (3xtf32: three tensor products per product)\n", "3xTF32",
           f->tf32x3_ms);
    printf("  %-22s %10.4f ms  GELUs / gelu_fast rate\n", "GELU", f->gelu_ms);
    printf("  %-22s %10.4f ms  FFMA + GELU: both on the FP32 pipe, so they add\n", "fp32 kernel", f->fp32_kernel_ms);
    printf("  %-22s %10.4f ms  max(TF32, GELU): tensor and FP32 pipes overlap at best\n", "tf32 kernel",
           f->tf32_kernel_ms);
    printf("  %-22s %10.4f ms  max(3xTF32, GELU)\n", "3xtf32 kernel", f->tf32x3_kernel_ms);
}

/* the legend / table text of a point: "61.7 TFLOP/s, 95% of FFMA, 4% of DRAM" */
static void point_note(const roofline_point *p, char *buf, size_t cap)
{
    char rate[32];
    chart_format_quantity(p->flops_per_s, 3, "FLOP/s", rate, sizeof rate);
    int n = snprintf(buf, cap, "%s", rate);
    if (p->roof != ROOFLINE_ROOF_NONE && !isnan(p->pct_compute) && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, ", %.0f%% of %s%s", p->pct_compute,
                      p->roof == ROOFLINE_ROOF_FFMA ? "FFMA" : "TF32", p->work_factor > 1.0 ? " (3 products each)" : "");
    if (!isnan(p->pct_memory) && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, ", %.0f%% of DRAM", p->pct_memory);
}

static void print_points(const roofline_run *r)
{
    printf("\npoints (FLOP/s: convolution FLOPs / median time; bytes: what each row moves, intermediates counted)\n");
    printf("  %-26s %-7s %9s %9s %9s %9s %-20s %6s %6s\n", "variant", "prec", "median ms", "TFLOP/s", "moved GB",
           "FLOP/B", "% of compute roof", "% DRAM", "% roof");
    for (int i = 0; i < r->bench.count; ++i) {
        const bench_row *row = &r->bench.rows[i];
        if (!r->placed[i]) {
            printf("  %-26s %-7s not placed: %s\n", row->v.name, row->v.precision,
                   !row->v.run ? row->v.unavailable
                   : !row->timed ? row->failure
                                 : "does no convolution (a layout conversion)");
            continue;
        }
        const roofline_point *p = &r->points[i];
        char compute[32] = "-";
        if (!isnan(p->pct_compute))
            snprintf(compute, sizeof compute, "%.1f%% of %s%s", p->pct_compute,
                     p->roof == ROOFLINE_ROOF_FFMA ? "FFMA" : "TF32", p->work_factor > 1.0 ? " (x3)" : "");
        printf("  %-26s %-7s %9.4f %9.2f %9.3f %9.1f %-20s %5.1f%% %5.1f%%\n", row->v.name, row->v.precision,
               row->ms_median, p->flops_per_s / 1e12, row->v.bytes_moved / 1e9, p->intensity, compute, p->pct_memory,
               p->pct_roof);
    }
    printf("  (x3: 3xtf32 does three tf32 products per product, so its share of the TF32 roof counts 3 x its FLOPs;\n"
           "   %% roof: of min(compute roof, intensity x DRAM bandwidth) at the row's own intensity)\n");
}

/* ---- CSV: one file, rows of kind ceiling, model and point ---- */
static void csv_text(outfile *o, const char *s)
{
    outfile_write(o, "\"", 1);
    for (; *s; ++s)
        outfile_write(o, *s == '"' ? "\"\"" : s, *s == '"' ? 2 : 1);
    outfile_write(o, "\"", 1);
}

/* a number, or an empty field for NaN */
static void csv_number(outfile *o, const char *fmt, double v)
{
    outfile_printf(o, ",");
    if (!isnan(v))
        outfile_printf(o, fmt, v);
}

static void csv_prefix(outfile *o, const roofline_run *r, const char *kind, const char *name, const char *precision)
{
    const sysinfo *si = &r->si;
    outfile_printf(o, "%s,", si->date);
    csv_text(o, si->device);
    outfile_printf(o, ",%d,", si->sm_count);
    csv_text(o, si->driver);
    outfile_printf(o, ",%s,%s,%s,%lld,%lld,%lld,%lld,%lld,%s,%s,", si->runtime, si->cudnn, si->commit,
                   (long long)r->shape.n, (long long)r->shape.cin, (long long)r->shape.cout, (long long)r->shape.h,
                   (long long)r->shape.w, r->padding, kind);
    csv_text(o, name);
    outfile_printf(o, ",%s", precision);
}

/* value, unit, median/min/max ms, bytes, intensity, compute_roof, pct_compute, pct_memory, pct_roof,
 * status, detail */
static void csv_rest(outfile *o, double value, const char *unit, double ms, double min_ms, double max_ms, double bytes,
                     double intensity, const char *roof, double pct_compute, double pct_memory, double pct_roof,
                     const char *status, const char *detail)
{
    csv_number(o, "%.6g", value);
    outfile_printf(o, ",%s", unit);
    csv_number(o, "%.5f", ms);
    csv_number(o, "%.5f", min_ms);
    csv_number(o, "%.5f", max_ms);
    csv_number(o, "%.0f", bytes);
    csv_number(o, "%.4g", intensity);
    outfile_printf(o, ",%s", roof);
    csv_number(o, "%.2f", pct_compute);
    csv_number(o, "%.2f", pct_memory);
    csv_number(o, "%.2f", pct_roof);
    outfile_printf(o, ",%s,", status);
    csv_text(o, detail);
    outfile_printf(o, "\n");
}

static int write_csv(const char *path, const roofline_run *r, char *err, size_t errlen)
{
    outfile o;
    if (outfile_open(&o, path, 0, err, errlen) != 0)
        return -1;
    outfile_printf(&o, "date,device,sm_count,driver,cuda,cudnn,commit,n,cin,cout,h,w,padding,kind,name,precision,"
                       "value,unit,median_ms,min_ms,max_ms,bytes,intensity,compute_roof,pct_compute,pct_memory,"
                       "pct_roof,status,detail\n");
    for (int k = 0; k < PROBE_COUNT; ++k) {
        const probe_result *p = &r->probes[k];
        const int bytes = k == PROBE_DRAM || k == PROBE_L2;
        csv_prefix(&o, r, "ceiling", p->name, "");
        csv_rest(&o, p->rate, p->unit, p->median_ms, p->min_ms, p->max_ms, bytes ? p->work : NAN, NAN, "", NAN, NAN,
                 NAN, "measured", p->detail);
    }
    const roofline_model *m = &r->model;
    const roofline_floors *f = &r->floors;
    const struct {
        const char *name, *unit, *formula;
        double value;
    } model[] = {
        {"conv_flops", "FLOP", "2 N Cout Hout Wout Cin 9", m->conv_flops},
        {"gelu_count", "GELU", "N Cout Hout Wout", m->gelu_count},
        {"x_bytes", "B", "4 N Cin H W", m->x_bytes},
        {"w_bytes", "B", "4 Cout Cin 9", m->w_bytes},
        {"b_bytes", "B", "4 Cout", m->b_bytes},
        {"y_bytes", "B", "4 N Cout", m->y_bytes},
        {"min_bytes", "B", "x + w + b read once, y written once", m->min_bytes},
        {"intensity", "FLOP/B", "conv_flops / min_bytes", m->intensity},
        {"floor_memory", "ms", "min_bytes / dram copy rate", f->memory_ms},
        {"floor_ffma", "ms", "conv_flops / ffma rate", f->ffma_ms},
        {"floor_tf32", "ms", "conv_flops / tf32 mma.sync rate", f->tf32_ms},
        {"floor_3xtf32", "ms", "3 conv_flops / tf32 mma.sync rate", f->tf32x3_ms},
        {"floor_gelu", "ms", "gelu_count / gelu_fast rate", f->gelu_ms},
        {"floor_fp32_kernel", "ms", "floor_ffma + floor_gelu (one FP32 pipe)", f->fp32_kernel_ms},
        {"floor_tf32_kernel", "ms", "max(floor_tf32, floor_gelu)", f->tf32_kernel_ms},
        {"floor_3xtf32_kernel", "ms", "max(floor_3xtf32, floor_gelu)", f->tf32x3_kernel_ms},
    };
    for (size_t i = 0; i < sizeof model / sizeof model[0]; ++i) {
        csv_prefix(&o, r, "model", model[i].name, "");
        csv_rest(&o, model[i].value, model[i].unit, NAN, NAN, NAN, NAN, NAN, "", NAN, NAN, NAN, "computed",
                 model[i].formula);
    }
    for (int i = 0; i < r->bench.count; ++i) {
        const bench_row *row = &r->bench.rows[i];
        const roofline_point *p = &r->points[i];
        const char *detail = !row->v.run ? row->v.unavailable : row->failure[0] ? row->failure : row->v.detail;
        char note[400];
        if (r->placed[i] && p->work_factor > 1.0)
            snprintf(note, sizeof note, "%s; pct_compute counts 3 tf32 products per conv FLOP", detail);
        else
            snprintf(note, sizeof note, "%s", detail);
        csv_prefix(&o, r, "point", row->v.name, row->v.precision);
        if (r->placed[i])
            csv_rest(&o, p->flops_per_s, "FLOP/s", row->ms_median, row->ms_min, row->ms_max, row->v.bytes_moved,
                     p->intensity, roof_name(p->roof), p->pct_compute, p->pct_memory, p->pct_roof, bench_row_status(row), note);
        else
            csv_rest(&o, NAN, "FLOP/s", row->timed ? row->ms_median : NAN, row->timed ? row->ms_min : NAN,
                     row->timed ? row->ms_max : NAN, row->v.bytes_moved > 0.0 ? row->v.bytes_moved : NAN, NAN, "",
                     NAN, NAN, NAN, bench_row_status(row), note);
    }
    return outfile_commit(&o, err, errlen);
}

static int write_svg(const char *path, const roofline_run *r, char *err, size_t errlen)
{
    roofline_chart_point pts[BENCH_MAX_ROWS];
    char notes[BENCH_MAX_ROWS][96];
    int count = 0;
    for (int i = 0; i < r->bench.count; ++i)
        if (r->placed[i]) {
            point_note(&r->points[i], notes[count], sizeof notes[count]);
            pts[count] = (roofline_chart_point){r->bench.rows[i].v.name, notes[count], r->points[i].intensity,
                                                r->points[i].flops_per_s};
            ++count;
        }
    char title[384], subtitle[384];
    snprintf(title, sizeof title, "Roofline of conv3x3 + bias + GELU + mean on %s (%d SMs)", r->si.device,
             r->si.sm_count);
    snprintf(subtitle, sizeof subtitle,
             "N=%lld Cin=%lld Cout=%lld H=%lld W=%lld padding %s; driver %s, CUDA %s, cuDNN %s; commit %s, %s",
             (long long)r->shape.n, (long long)r->shape.cin, (long long)r->shape.cout, (long long)r->shape.h,
             (long long)r->shape.w, r->padding, r->si.driver, r->si.runtime, r->si.cudnn, r->si.commit, r->si.date);
    const roofline_chart chart = {
        title,
        subtitle,
        r->ceilings,
        r->floors.fp32_kernel_ms > 0.0 ? r->model.conv_flops / (r->floors.fp32_kernel_ms * 1e-3) : 0.0,
        r->model.intensity,
        pts,
        count,
    };
    return roofline_svg_write(path, &chart, err, errlen);
}

int cmd_roofline(int argc, char **argv)
{
    cli_problem_options po;
    cli_problem_defaults(&po);
    int64_t warmup = 5, iters = 30;
    int reduce = 0, baselines = 0;
    const char *csv = NULL, *svg = NULL;
    option_spec specs[OPTIONS_MAX];
    int count = 0;
    cli_add_shape_specs(specs, &count, &po);
    specs[count++] = (option_spec)OPTION_INT("--kernel", &po.kernel, 0, 99, "fused kernel version (0: the best)");
    specs[count++] = (option_spec)OPTION_CHOICE("--reduce", &reduce, reduce_choices, "fused reductions to place");
    specs[count++] = (option_spec)OPTION_CHOICE("--baselines", &baselines, baseline_choices, "baseline rows to place");
    specs[count++] = (option_spec)OPTION_INT("--warmup", &warmup, 0, 100000, "untimed runs before timing");
    specs[count++] = (option_spec)OPTION_INT("--iters", &iters, 20, 100000, "timed runs of each probe and row (median)");
    specs[count++] = (option_spec)OPTION_STRING("--csv", &csv, "write ceilings, model and points to this CSV file");
    specs[count++] = (option_spec)OPTION_STRING("--svg", &svg, "draw the roofline chart into this SVG file");
    specs[count++] = (option_spec)OPTION_END;
    int code = EXIT_OK;
    if (!cli_parse("cgp roofline", "the GPU's ceilings, the shape's model and every variant on a roofline", specs,
                   argc, argv, &code))
        return code;

    roofline_run *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "cgp roofline: out of host memory\n");
        return EXIT_FAIL;
    }
    r->shape = (roofline_shape){po.n, po.cin, po.cout, po.h, po.w, po.padding};
    r->padding = cli_padding_names[po.padding];
    if (roofline_model_compute(&r->shape, &r->model) != 0) {
        fprintf(stderr, "cgp roofline: H=%lld W=%lld give no output pixel with padding %s\n", (long long)po.h,
                (long long)po.w, r->padding);
        free(r);
        return EXIT_BAD_INPUT;
    }
    if (!cli_require_device("cgp roofline")) {
        free(r);
        return EXIT_FAIL;
    }
    sysinfo_collect(&r->si);
    printf("cgp roofline: %s (%d SMs, cc %d.%d), driver %s, CUDA %s, cuDNN %s, commit %s, %s\n", r->si.device,
           r->si.sm_count, r->si.cc_major, r->si.cc_minor, r->si.driver, r->si.runtime, r->si.cudnn, r->si.commit,
           r->si.date);
    fflush(stdout);

    char err[512];
    if (probes_measure((int)warmup, (int)iters, r->probes, err, sizeof err) != 0) {
        fprintf(stderr, "cgp roofline: %s\n", err);
        free(r);
        return EXIT_FAIL;
    }
    r->ceilings = (roofline_ceilings){r->probes[PROBE_DRAM].rate,      r->probes[PROBE_L2].rate,
                                      r->probes[PROBE_FFMA].rate,      r->probes[PROBE_TF32_MMA_SYNC].rate,
                                      r->probes[PROBE_GELU_FAST].rate, r->probes[PROBE_GELU_ERFF].rate};
    roofline_floors_compute(&r->model, &r->ceilings, &r->floors);
    print_ceilings(r, (int)warmup, (int)iters);
    print_model(r);
    fflush(stdout);

    const bench_options bo = {(int)warmup, (int)iters, (uint64_t)po.seed,
                              {7u /* fp32, tf32, 3xtf32 */, reduce == 2 ? 3u : 1u << reduce, (int)po.kernel},
                              baseline_bits[baselines], 0 /* no stage split */};
    const cgp_shape s = cli_shape(&po);
    int rc = bench_run(&s, (cgp_padding)po.padding, &bo, &r->bench, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "cgp roofline: %s\n", err);
        free(r);
        return rc;
    }
    printf("\n");
    bench_print_table(stdout, &r->bench);
    for (int i = 0; i < r->bench.count; ++i) {
        const bench_row *row = &r->bench.rows[i];
        r->placed[i] = row->timed && strcmp(row->v.precision, "n/a") != 0 &&
                       roofline_point_place(r->model.conv_flops, row->v.bytes_moved, row->ms_median, row->v.precision,
                                            &r->ceilings, &r->points[i]) == 0;
    }
    print_points(r);
    if (bench_failed_checks(&r->bench) > 0) {
        fprintf(stderr, "cgp roofline: some rows failed their check or could not run (see above)\n");
        rc = EXIT_FAIL;
    }
    const char *paths[2] = {csv, svg};
    for (int k = 0; k < 2; ++k) {
        if (!paths[k])
            continue;
        if ((k == 0 ? write_csv : write_svg)(paths[k], r, err, sizeof err) != 0) {
            fprintf(stderr, "cgp roofline: %s\n", err);
            rc = EXIT_BAD_INPUT;
        } else {
            printf("wrote %s\n", paths[k]);
        }
    }
    free(r);
    return rc;
}
