/*
 * cmd_roofline.c - `cgp roofline`: measures the ceilings of the present GPU with the probes of
 * kernels/bench/probes.cu and probes_wgmma.cu (DRAM copy, L2 read, shared-memory read, FFMA, TF32 mma.sync,
 * TF32 wgmma, MUFU ex2 and rcp, GELU), then for one shape, or with --zoo for every shape of the zoo
 * (host/bench/zoo.h), computes the model (FLOPs, GELUs, the bytes of the fused kernel and of the unfused
 * pipeline, intensities, floors: host/plot/roofline_model.h), runs the fused kernels and the baselines through
 * bench_run (checked, then timed) and places each row against the roof of the pipe it runs on, from what it
 * executes (roofline_row_work). --csv writes ceilings, model and points in one file, --svg the roofline chart,
 * --speedup-svg (with --zoo) the speedup over cuDNN against the intermediate's size (host/cli/roofline_files.c).
 * docs/roofline.md explains it all. --overlap runs the overlap probe of issue 39 alone (host/cli/roofline_overlap.c).
 *     cgp roofline [shape options] [--kernel N] [--reduce det|atomic|all]
 *                  [--baselines all|none|cudnn|cudnn-graph|unfused] [--warmup 5 --iters 30] [--csv F] [--svg F]
 *     cgp roofline --zoo [FILE] [--seed S] [--warmup 5 --iters 30] [--csv F] [--svg F] [--speedup-svg F]
 *     cgp roofline --overlap [--warmup 5 --iters 30] [--csv F]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "cli.h"
#include "roofline_run.h"
#include "zoo.h"

static const char *const reduce_choices[] = {"det", "atomic", "all", NULL};
static const char *const baseline_choices[] = {"all", "none", "cudnn", "cudnn-graph", "unfused", NULL};
static const unsigned baseline_bits[] = {BASELINE_CUDNN | BASELINE_CUDNN_GRAPH | BASELINE_UNFUSED, 0, BASELINE_CUDNN,
                                         BASELINE_CUDNN_GRAPH, BASELINE_UNFUSED};

static void print_ceilings(const roofline_run *r, int warmup, int iters)
{
    printf("\nceilings (each probe: %d warm-up launches, then the median of %d launches timed with CUDA events)\n",
           warmup, iters);
    printf("  %-14s %10s %10s %10s  %-16s %s\n", "probe", "median ms", "min ms", "max ms", "rate", "what ran");
    for (int k = 0; k < PROBE_COUNT; ++k) {
        const probe_result *p = &r->probes[k];
        if (p->unavailable[0]) {
            printf("  %-14s not measured: %s\n", p->name, p->unavailable);
            continue;
        }
        char rate[32];
        chart_format_quantity(p->rate, 4, p->unit, rate, sizeof rate);
        printf("  %-14s %10.4f %10.4f %10.4f  %-16s %s\n", p->name, p->median_ms, p->min_ms, p->max_ms, rate, p->detail);
    }
    if (r->datasheet)
        printf("  datasheet (drawn dotted, never used for a percentage): %s\n", r->datasheet->source);
}

static void print_model(const roofline_shape_run *s)
{
    const roofline_model *m = &s->model;
    const roofline_floors *f = &s->floors;
    char a[32], b[32], c[32], d[32], e[32];
    printf("\nmodel: N=%lld Cin=%lld Cout=%lld H=%lld W=%lld padding %s -> Hout=%lld Wout=%lld\n",
           (long long)s->shape.n, (long long)s->shape.cin, (long long)s->shape.cout, (long long)s->shape.h,
           (long long)s->shape.w, s->padding, (long long)m->hout, (long long)m->wout);
    chart_format_quantity(m->conv_flops, 4, "FLOP", a, sizeof a);
    printf("  %-26s %-14s 2 N Cout Hout Wout Cin 9 (direct convolution)\n", "convolution FLOPs", a);
    chart_format_quantity(m->gelu_count, 4, "GELU", a, sizeof a);
    printf("  %-26s %-14s N Cout Hout Wout\n", "GELU evaluations", a);
    chart_format_quantity(m->min_bytes, 4, "B", a, sizeof a);
    chart_format_quantity(m->x_bytes, 4, "B", b, sizeof b);
    chart_format_quantity(m->w_bytes, 4, "B", c, sizeof c);
    chart_format_quantity(m->b_bytes, 4, "B", d, sizeof d);
    chart_format_quantity(m->y_bytes, 4, "B", e, sizeof e);
    printf("  %-26s %-14s x %s + weights %s + bias %s read once, y %s written once\n", "fused: minimal DRAM bytes", a,
           b, c, d, e);
    printf("  %-26s %-14.4g conv FLOPs / minimal bytes (FLOP/B)\n", "fused: intensity", m->intensity);
    chart_format_quantity(m->intermediate_bytes, 4, "B", a, sizeof a);
    chart_format_quantity(m->unfused_bytes, 4, "B", b, sizeof b);
    printf("  %-26s %-14s the intermediate (%s) written once and read once more\n", "unfused: DRAM bytes", b, a);
    printf("  %-26s %-14.4g conv FLOPs / unfused bytes\n", "unfused: intensity", m->unfused_intensity);
    printf("floors (the time each ceiling alone allows):\n");
    printf("  %-26s %10.4f ms  minimal bytes / DRAM copy bandwidth\n", "memory", f->memory_ms);
    printf("  %-26s %10.4f ms  conv FLOPs / FFMA rate (direct; Winograd F(4x4,3x3) needs a quarter)\n", "FFMA",
           f->ffma_ms);
    printf("  %-26s %10.4f ms  conv FLOPs / mma.sync TF32 rate\n", "TF32 mma.sync", f->mma_sync_ms);
    printf("  %-26s %10.4f ms  conv FLOPs / wgmma TF32 rate\n", "TF32 wgmma", f->wgmma_ms);
    printf("  %-26s %10.4f ms  3 x conv FLOPs / the faster TF32 rate (three products per product)\n", "3xTF32",
           f->tensor_x3_ms);
    printf("  %-26s %10.4f ms  GELUs / gelu_fast rate\n", "GELU", f->gelu_ms);
    printf("  %-26s %10.4f ms  GELUs / MUFU.EX2 rate (one MUFU per GELU, the least any GELU form issues)\n", "MUFU",
           f->mufu_ms);
    printf("  %-26s %10.4f ms  FFMA + GELU: both on the FP32 pipe, so they add\n", "fp32 direct kernel",
           f->fp32_kernel_ms);
    printf("  %-26s %10.4f ms  max(TF32, GELU): tensor and FP32 pipes overlap at best\n", "tf32 kernel",
           f->tf32_kernel_ms);
    printf("  %-26s %10.4f ms  max(3xTF32, GELU)\n", "3xtf32 kernel", f->tf32x3_kernel_ms);
}

static void print_points(const roofline_shape_run *s)
{
    printf("\npoints (direct: convolution FLOPs / median time; executed: what the row's pipe did; bytes: what each row "
           "moves, intermediates counted)\n");
    printf("  %-26s %-7s %9s %9s %9s %9s %9s  %-18s %6s %6s  %s\n", "variant", "prec", "median ms", "direct TF",
           "exec TF", "moved GB", "FLOP/B", "% of pipe roof", "% DRAM", "% roof", "executes");
    for (int i = 0; i < s->bench.count; ++i) {
        const bench_row *row = &s->bench.rows[i];
        if (!s->placed[i]) {
            printf("  %-26s %-7s not placed: %s\n", row->v.name, roofline_math_name(roofline_row_math(row)),
                   !row->v.run   ? row->v.unavailable
                   : !row->timed ? row->failure
                                 : "does no convolution (a layout conversion)");
            continue;
        }
        const roofline_point *p = &s->points[i];
        char pipe[40] = "-", executes[160];
        if (!isnan(p->pct_pipe))
            snprintf(pipe, sizeof pipe, "%.1f%% %s", p->pct_pipe, roofline_pipe_name(p->work.pipe));
        roofline_work_text(row, &p->work, executes, sizeof executes);
        printf("  %-26s %-7s %9.4f %9.2f %9.2f %9.3f %9.1f  %-18s %5.1f%% %5.1f%%  %s\n", row->v.name,
               roofline_math_name(roofline_row_math(row)), bench_row_ms(row), p->flops_per_s / 1e12,
               p->executed_flops_per_s / 1e12, row->v.bytes_moved / 1e9, p->intensity, pipe, p->pct_memory, p->pct_roof,
               executes);
    }
    printf("  (%% of pipe roof: executed FLOP/s / the probe of the row's pipe; %% roof: of min(pipe roof, executed "
           "intensity x DRAM bandwidth))\n");
}

/* the zoo in one table: per shape the intensities, each series' direct TFLOP/s, % of its pipe, speedup */
static void print_zoo_summary(const roofline_run *r)
{
    printf("\nzoo summary (TFLOP/s direct, %% of the pipe roof from what the kernel executes, speedup over the cuDNN "
           "row of the same accuracy)\n");
    printf("  %-2s %-34s %7s %7s  %s\n", "#", "shape", "fused", "unfused", "rows");
    for (int k = 0; k < r->count; ++k) {
        const roofline_shape_run *s = &r->shapes[k];
        char shape[96];
        snprintf(shape, sizeof shape, "%lldx%lldx%lldx%lldx%lld %s", (long long)s->shape.n, (long long)s->shape.cin,
                 (long long)s->shape.cout, (long long)s->shape.h, (long long)s->shape.w, s->padding);
        if (s->skipped[0]) {
            printf("  %-2d %-34s skipped: %s\n", k + 1, shape, s->skipped);
            continue;
        }
        printf("  %-2d %-34s %7.1f %7.1f ", k + 1, shape, s->model.intensity, s->model.unfused_intensity);
        for (int i = 0; i < s->bench.count; ++i) {
            if (!s->placed[i])
                continue;
            const bench_row *row = &s->bench.rows[i];
            const int partner = strcmp(row->v.family, "fused") == 0 ? roofline_cudnn_partner(&s->bench, i) : -1;
            printf(" | %s %.1f", row->v.kernel[0] ? row->v.kernel : row->v.name, s->points[i].flops_per_s / 1e12);
            if (!isnan(s->points[i].pct_pipe))
                printf(" (%.0f%%)", s->points[i].pct_pipe);
            if (partner >= 0)
                printf(" %.2fx", bench_row_ms(&s->bench.rows[partner]) / bench_row_ms(row));
        }
        printf("\n");
    }
}

/* Measures one shape: model, floors, bench rows, points. Returns 0 (a shape that does not fit in memory is
 * skipped, saying why), or 1 with err set on a CUDA error. */
static int measure_shape(const roofline_run *r, roofline_shape_run *s, cgp_padding padding, const bench_options *bo,
                         char *err, size_t errlen)
{
    roofline_floors_compute(&s->model, &r->ceilings, &s->floors);
    const cgp_shape shape = {s->shape.n, s->shape.cin, s->shape.cout, s->shape.h, s->shape.w};
    const int rc = bench_run(&shape, padding, bo, &s->bench, err, errlen);
    if (rc == EXIT_BAD_INPUT && r->zoo) {
        snprintf(s->skipped, sizeof s->skipped, "%.255s", err);
        printf("\nshape %lldx%lldx%lldx%lldx%lld %s skipped: %s\n", (long long)shape.n, (long long)shape.cin,
               (long long)shape.cout, (long long)shape.h, (long long)shape.w, s->padding, err);
        return 0;
    }
    if (rc != 0)
        return rc;
    printf("\n");
    bench_print_table(stdout, &s->bench);
    for (int i = 0; i < s->bench.count; ++i) {
        const bench_row *row = &s->bench.rows[i];
        const roofline_work work = roofline_row_work(row);
        s->placed[i] = row->timed && work.pipe != ROOFLINE_PIPE_NONE &&
                       roofline_point_place(s->model.conv_flops, row->v.bytes_moved, bench_row_ms(row), &work,
                                            &r->ceilings, &s->points[i]) == 0;
    }
    print_points(s);
    fflush(stdout);
    return 0;
}

/* The shapes to run: the one of the options, or the zoo's. Returns 0, or an exit code after a message. */
static int choose_shapes(roofline_run *r, const cli_problem_options *po, const char *zoo_file)
{
    zoo z = {NULL, 0};
    char err[512];
    if (r->zoo && zoo_load(zoo_file, &z, err, sizeof err) != 0) {
        fprintf(stderr, "cgp roofline: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    r->count = r->zoo ? z.count : 1;
    r->shapes = calloc((size_t)r->count, sizeof *r->shapes);
    if (!r->shapes) {
        zoo_free(&z);
        fprintf(stderr, "cgp roofline: out of host memory\n");
        return EXIT_FAIL;
    }
    for (int k = 0; k < r->count; ++k) {
        roofline_shape_run *s = &r->shapes[k];
        const cgp_shape sh = r->zoo ? z.shapes[k].shape : cli_shape(po);
        const int padding = r->zoo ? (int)z.shapes[k].padding : po->padding;
        s->shape = (roofline_shape){sh.n, sh.cin, sh.cout, sh.h, sh.w, padding};
        s->padding = cli_padding_names[padding];
        if (r->zoo)
            snprintf(s->label, sizeof s->label, "%s", z.shapes[k].label);
        if (roofline_model_compute(&s->shape, &s->model) != 0) {
            zoo_free(&z);
            fprintf(stderr, "cgp roofline: H=%lld W=%lld give no output pixel with padding %s\n", (long long)sh.h,
                    (long long)sh.w, s->padding);
            return EXIT_BAD_INPUT;
        }
    }
    zoo_free(&z);
    return EXIT_OK;
}

/* --zoo takes no shape or kernel options: they would be ignored */
static int zoo_option_conflict(const cli_problem_options *po, int reduce, int baselines)
{
    cli_problem_options d;
    cli_problem_defaults(&d);
    return po->n != d.n || po->cin != d.cin || po->cout != d.cout || po->h != d.h || po->w != d.w ||
           po->padding != d.padding || po->kernel != 0 || reduce != 0 || baselines != 0;
}

static int write_files(const roofline_run *r, const char *csv, const char *svg, const char *speedup_svg)
{
    const struct {
        const char *path;
        int (*write)(const char *, const roofline_run *, char *, size_t);
    } files[] = {{csv, roofline_write_csv},
                 {svg, r->zoo ? roofline_write_zoo_svg : roofline_write_svg},
                 {speedup_svg, roofline_write_speedup_svg}};
    int rc = EXIT_OK;
    char err[512];
    for (size_t k = 0; k < sizeof files / sizeof files[0]; ++k) {
        if (!files[k].path)
            continue;
        if (files[k].write(files[k].path, r, err, sizeof err) != 0) {
            fprintf(stderr, "cgp roofline: %s\n", err);
            rc = EXIT_BAD_INPUT;
        } else {
            printf("wrote %s\n", files[k].path);
        }
    }
    return rc;
}

int cmd_roofline(int argc, char **argv)
{
    cli_problem_options po;
    cli_problem_defaults(&po);
    int64_t warmup = 5, iters = 30;
    int reduce = 0, baselines = 0, zoo_flag = 0, overlap = 0;
    const char *csv = NULL, *svg = NULL, *speedup_svg = NULL, *zoo_file = NULL;
    option_spec specs[OPTIONS_MAX];
    int count = 0;
    cli_add_shape_specs(specs, &count, &po);
    specs[count++] = (option_spec)OPTION_INT("--kernel", &po.kernel, 0, 99, "fused kernel version (0: the best)");
    specs[count++] = (option_spec)OPTION_CHOICE("--reduce", &reduce, reduce_choices, "fused reductions to place");
    specs[count++] = (option_spec)OPTION_CHOICE("--baselines", &baselines, baseline_choices, "baseline rows to place");
    specs[count++] = (option_spec)OPTION_FLAG_OR_STRING("--zoo", &zoo_flag, &zoo_file,
                                                        "every shape of the public zoo (host/bench/zoo.csv), or of "
                                                        "this CSV file: the fused kernels (det) at each precision "
                                                        "and the cuDNN legacy rows, on one chart");
    specs[count++] = (option_spec)OPTION_FLAG("--overlap", &overlap,
                                              "only the overlap probe of issue 39 (sm_90a): a wgmma loop and a GELU "
                                              "loop in two warpgroups of a block, alone, at once and in series; "
                                              "--csv gets its rows");
    specs[count++] = (option_spec)OPTION_INT("--warmup", &warmup, 0, 100000, "untimed runs before timing");
    specs[count++] = (option_spec)OPTION_INT("--iters", &iters, 1, 100000, "timed runs of each probe and row (median)");
    specs[count++] = (option_spec)OPTION_STRING("--csv", &csv, "write ceilings, model and points to this CSV file");
    specs[count++] = (option_spec)OPTION_STRING("--svg", &svg, "draw the roofline chart into this SVG file");
    specs[count++] = (option_spec)OPTION_STRING(
        "--speedup-svg", &speedup_svg, "with --zoo: draw the speedup over cuDNN against the intermediate's size");
    specs[count++] = (option_spec)OPTION_END;
    int code = EXIT_OK;
    if (!cli_parse("cgp roofline",
                   "the GPU's ceilings, the model and every variant on a roofline, for one shape or the "
                   "zoo",
                   specs, argc, argv, &code))
        return code;
    if (zoo_flag && zoo_option_conflict(&po, reduce, baselines)) {
        fprintf(stderr, "cgp roofline: --zoo runs the zoo's shapes with the best kernels (det) and the cuDNN rows: "
                        "shape, --kernel, --reduce and --baselines options cannot be given with it\n");
        return EXIT_BAD_INPUT;
    }
    if (overlap && (zoo_flag || svg || speedup_svg || zoo_option_conflict(&po, reduce, baselines))) {
        fprintf(stderr, "cgp roofline: --overlap runs the overlap probe alone: --zoo, --svg, --speedup-svg, shape, "
                        "--kernel, --reduce and --baselines options cannot be given with it\n");
        return EXIT_BAD_INPUT;
    }
    if (speedup_svg && !zoo_flag) {
        fprintf(stderr, "cgp roofline: --speedup-svg needs --zoo (it compares shapes)\n");
        return EXIT_BAD_INPUT;
    }
    const char *const outputs[] = {csv, svg, speedup_svg};
    if (!cli_outputs_writable("cgp roofline", outputs, 3))
        return EXIT_BAD_INPUT;
    if (overlap)
        return roofline_overlap((int)warmup, (int)iters, csv);

    roofline_run *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "cgp roofline: out of host memory\n");
        return EXIT_FAIL;
    }
    r->zoo = zoo_flag;
    int rc = choose_shapes(r, &po, zoo_file);
    if (rc == EXIT_OK && !cli_require_device("cgp roofline"))
        rc = EXIT_FAIL;
    char err[512];
    if (rc == EXIT_OK) {
        sysinfo_collect(&r->si);
        r->datasheet = roofline_datasheet_find(r->si.device);
        printf("cgp roofline: %s (%d SMs, cc %d.%d), driver %s, CUDA %s, cuDNN %s, commit %s, %s\n", r->si.device,
               r->si.sm_count, r->si.cc_major, r->si.cc_minor, r->si.driver, r->si.runtime, r->si.cudnn, r->si.commit,
               r->si.date);
        fflush(stdout);
        if (probes_measure((int)warmup, (int)iters, r->probes, err, sizeof err) != 0) {
            fprintf(stderr, "cgp roofline: %s\n", err);
            rc = EXIT_FAIL;
        }
    }
    if (rc == EXIT_OK) {
        const probe_result *p = r->probes;
        r->ceilings = (roofline_ceilings){
            p[PROBE_DRAM].rate,          p[PROBE_L2].rate,         p[PROBE_SMEM].rate,     p[PROBE_FFMA].rate,
            p[PROBE_TF32_MMA_SYNC].rate, p[PROBE_TF32_WGMMA].rate, p[PROBE_MUFU_EX2].rate, p[PROBE_MUFU_RCP].rate,
            p[PROBE_GELU_FAST].rate,     p[PROBE_GELU_ERFF].rate};
        print_ceilings(r, (int)warmup, (int)iters);
        const bench_options bo = {(int)warmup,
                                  (int)iters,
                                  (uint64_t)po.seed,
                                  {7u /* fp32, tf32, 3xtf32 */,
                                   r->zoo        ? 1u
                                   : reduce == 2 ? 3u
                                                 : 1u << reduce,
                                   r->zoo ? 0 : (int)po.kernel},
                                  r->zoo ? BASELINE_CUDNN : baseline_bits[baselines],
                                  0 /* no stage split */,
                                  0 /* warm L2 */};
        for (int k = 0; k < r->count && rc == EXIT_OK; ++k) {
            if (r->zoo)
                printf("\n== zoo shape %d of %d%s%s", k + 1, r->count, r->shapes[k].label[0] ? ": " : "",
                       r->shapes[k].label);
            print_model(&r->shapes[k]);
            fflush(stdout);
            rc = measure_shape(r, &r->shapes[k], (cgp_padding)r->shapes[k].shape.pad, &bo, err, sizeof err);
            if (rc != 0)
                fprintf(stderr, "cgp roofline: %s\n", err);
        }
    }
    if (rc == EXIT_OK) {
        if (r->zoo)
            print_zoo_summary(r);
        for (int k = 0; k < r->count; ++k)
            if (bench_failed_checks(&r->shapes[k].bench) > 0) {
                fprintf(stderr, "cgp roofline: some rows failed their check or could not run (see above)\n");
                rc = EXIT_FAIL;
                break;
            }
        const int files = write_files(r, csv, svg, speedup_svg);
        rc = rc == EXIT_OK ? files : rc;
    }
    free(r->shapes);
    free(r);
    return rc;
}
