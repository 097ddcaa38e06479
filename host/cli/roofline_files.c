/*
 * roofline_files.c - the files of `cgp roofline` (see roofline_run.h): the CSV of ceilings, model and points
 * of every shape; the roofline chart of one shape (a legend entry per row), of the zoo (a series per kind of
 * row, the shapes numbered) and the zoo's speedup over cuDNN against the intermediate's size. Also what a
 * bench row executes (roofline_row_work), the one place that reads a row's precision.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "outfile.h"
#include "roofline_run.h"
#include "roofline_svg.h"
#include "speedup_svg.h"

roofline_math roofline_row_math(const bench_row *row)
{
    switch (row->v.precision) {
    case BENCH_PRECISION_FP32: return ROOFLINE_MATH_FP32;
    case BENCH_PRECISION_TF32: return ROOFLINE_MATH_TF32;
    case BENCH_PRECISION_TF32X3: return ROOFLINE_MATH_3XTF32;
    case BENCH_PRECISION_NONE: break;
    }
    return ROOFLINE_MATH_NONE;
}

roofline_work roofline_row_work(const bench_row *row)
{
    return roofline_kind_work(row->v.kind[0] ? row->v.kind : NULL, roofline_row_math(row));
}

int roofline_cudnn_partner(const bench_result *r, int fused_row)
{
    const roofline_math m = roofline_row_math(&r->rows[fused_row]);
    const roofline_math want = m == ROOFLINE_MATH_TF32 ? ROOFLINE_MATH_TF32 : ROOFLINE_MATH_FP32;
    for (int i = 0; i < r->count; ++i)
        if (strcmp(r->rows[i].v.family, "cudnn") == 0 && r->rows[i].timed && roofline_row_math(&r->rows[i]) == want)
            return i;
    return -1;
}

void roofline_work_text(const bench_row *row, const roofline_work *work, char *buf, size_t cap)
{
    const char *pipe = roofline_pipe_name(work->pipe);
    if (work->from_kind)
        snprintf(buf, cap, "%s, %s on %s", row->v.kernel, work->algorithm, pipe);
    else if (row->v.kernel[0])
        snprintf(buf, cap, "%s, its kind (\"%s\") not read by the model: %s on %s assumed", row->v.kernel, row->v.kind,
                 work->algorithm, pipe);
    else
        snprintf(buf, cap, "counted as %s FLOPs on %s (its own algorithm is not known to the model)", work->algorithm,
                 pipe);
}

/* "N=128 Cin=8 Cout=64 256x256 valid" */
static void shape_text(const roofline_shape_run *s, char *buf, size_t cap)
{
    snprintf(buf, cap, "N=%lld Cin=%lld Cout=%lld %lldx%lld %s", (long long)s->shape.n, (long long)s->shape.cin,
             (long long)s->shape.cout, (long long)s->shape.h, (long long)s->shape.w, s->padding);
}

/* ---- CSV: one file, rows of kind ceiling, datasheet, model and point ---- */

/* ",value", or "," alone for NaN */
static void csv_number(outfile *o, const char *fmt, double v)
{
    outfile_printf(o, ",");
    if (!isnan(v))
        outfile_printf(o, fmt, v);
}

static const char csv_header[] =
    "date,device,sm_count,driver,cuda,cudnn,commit,shape,label,n,cin,cout,h,w,padding,kind,name,precision,kernel,"
    "pipe,algorithm,value,unit,median_ms,min_ms,max_ms,bytes,intensity,executed_per_direct,executed_flops_per_s,"
    "pipe_roof,pct_pipe,pct_memory,pct_roof,speedup_vs_cudnn,status,detail\n";

/* the columns up to precision; index -1 for a row about the GPU (shape columns empty) */
static void csv_prefix(outfile *o, const roofline_run *r, int index, const char *kind, const char *name,
                       const char *precision)
{
    const sysinfo *si = &r->si;
    outfile_printf(o, "%s,", si->date);
    outfile_csv_text(o, si->device);
    outfile_printf(o, ",%d,", si->sm_count);
    outfile_csv_text(o, si->driver);
    outfile_printf(o, ",%s,%s,%s,", si->runtime, si->cudnn, si->commit);
    if (index >= 0) {
        const roofline_shape_run *s = &r->shapes[index];
        outfile_printf(o, "%d,", index + 1);
        outfile_csv_text(o, s->label);
        outfile_printf(o, ",%lld,%lld,%lld,%lld,%lld,%s,", (long long)s->shape.n, (long long)s->shape.cin,
                       (long long)s->shape.cout, (long long)s->shape.h, (long long)s->shape.w, s->padding);
    } else {
        outfile_printf(o, ",,,,,,,,");
    }
    outfile_printf(o, "%s,", kind);
    outfile_csv_text(o, name);
    outfile_printf(o, ",%s", precision);
}

/* the columns after precision that a point fills (NaN / "" elsewhere) */
typedef struct csv_values {
    const char *kernel, *pipe, *algorithm;
    double value;
    const char *unit;
    double median_ms, min_ms, max_ms, bytes, intensity, executed_per_direct, executed_flops_per_s, pipe_roof;
    double pct_pipe, pct_memory, pct_roof, speedup;
    const char *status, *detail;
} csv_values;

static const csv_values csv_empty = {"",  "",  "",  NAN, "",  NAN, NAN, NAN, NAN, NAN,
                                     NAN, NAN, NAN, NAN, NAN, NAN, NAN, "",  ""};

static void csv_rest(outfile *o, const csv_values *v)
{
    outfile_printf(o, ",%s,%s,", v->kernel, v->pipe);
    outfile_csv_text(o, v->algorithm);
    csv_number(o, "%.6g", v->value);
    outfile_printf(o, ",%s", v->unit);
    csv_number(o, "%.5f", v->median_ms);
    csv_number(o, "%.5f", v->min_ms);
    csv_number(o, "%.5f", v->max_ms);
    csv_number(o, "%.0f", v->bytes);
    csv_number(o, "%.4g", v->intensity);
    csv_number(o, "%.4g", v->executed_per_direct);
    csv_number(o, "%.6g", v->executed_flops_per_s);
    csv_number(o, "%.6g", v->pipe_roof);
    csv_number(o, "%.2f", v->pct_pipe);
    csv_number(o, "%.2f", v->pct_memory);
    csv_number(o, "%.2f", v->pct_roof);
    csv_number(o, "%.3f", v->speedup);
    outfile_printf(o, ",%s,", v->status);
    outfile_csv_text(o, v->detail);
    outfile_printf(o, "\n");
}

static void csv_ceilings(outfile *o, const roofline_run *r)
{
    for (int k = 0; k < PROBE_COUNT; ++k) {
        const probe_result *p = &r->probes[k];
        const int measured = !p->unavailable[0], bytes = !strcmp(p->unit, "B/s");
        csv_values v = csv_empty;
        v.value = measured ? p->rate : NAN;
        v.unit = p->unit;
        v.median_ms = measured ? p->median_ms : NAN;
        v.min_ms = measured ? p->min_ms : NAN;
        v.max_ms = measured ? p->max_ms : NAN;
        v.bytes = measured && bytes ? p->work : NAN;
        v.status = measured ? "measured" : "unavailable";
        v.detail = measured ? p->detail : p->unavailable;
        csv_prefix(o, r, -1, "ceiling", p->name, "");
        csv_rest(o, &v);
    }
    const roofline_datasheet *d = r->datasheet;
    if (!d)
        return;
    const struct {
        const char *name, *unit;
        double value;
    } sheet[] = {{"fp32", "FLOP/s", d->fp32_flops_per_s},
                 {"tf32 dense", "FLOP/s", d->tf32_dense_flops_per_s},
                 {"dram", "B/s", d->dram_bytes_per_s}};
    for (size_t i = 0; i < sizeof sheet / sizeof sheet[0]; ++i) {
        csv_values v = csv_empty;
        v.value = sheet[i].value;
        v.unit = sheet[i].unit;
        v.status = "vendor";
        v.detail = d->source;
        csv_prefix(o, r, -1, "datasheet", sheet[i].name, "");
        csv_rest(o, &v);
    }
}

static void csv_model(outfile *o, const roofline_run *r, int index)
{
    const roofline_model *m = &r->shapes[index].model;
    const roofline_floors *f = &r->shapes[index].floors;
    const struct {
        const char *name, *unit, *formula;
        double value;
    } model[] = {
        {"conv_flops", "FLOP", "2 N Cout Hout Wout Cin 9 (direct convolution)", m->conv_flops},
        {"gelu_count", "GELU", "N Cout Hout Wout", m->gelu_count},
        {"x_bytes", "B", "4 N Cin H W", m->x_bytes},
        {"w_bytes", "B", "4 Cout Cin 9", m->w_bytes},
        {"b_bytes", "B", "4 Cout", m->b_bytes},
        {"y_bytes", "B", "4 N Cout", m->y_bytes},
        {"min_bytes", "B", "fused: x + w + b read once, y written once", m->min_bytes},
        {"intensity", "FLOP/B", "conv_flops / min_bytes", m->intensity},
        {"intermediate_bytes", "B", "4 N Cout Hout Wout", m->intermediate_bytes},
        {"unfused_bytes", "B", "min_bytes + the intermediate written and read", m->unfused_bytes},
        {"unfused_intensity", "FLOP/B", "conv_flops / unfused_bytes", m->unfused_intensity},
        {"floor_memory", "ms", "min_bytes / dram copy rate", f->memory_ms},
        {"floor_ffma", "ms", "conv_flops / ffma rate", f->ffma_ms},
        {"floor_tf32_mma_sync", "ms", "conv_flops / tf32 mma.sync rate", f->mma_sync_ms},
        {"floor_tf32_wgmma", "ms", "conv_flops / tf32 wgmma rate", f->wgmma_ms},
        {"floor_3xtf32", "ms", "3 conv_flops / the faster tf32 rate", f->tensor_x3_ms},
        {"floor_gelu", "ms", "gelu_count / gelu_fast rate", f->gelu_ms},
        {"floor_mufu", "ms", "gelu_count / mufu ex2 rate", f->mufu_ms},
        {"floor_fp32_kernel", "ms", "floor_ffma + floor_gelu (one FP32 pipe)", f->fp32_kernel_ms},
        {"floor_tf32_kernel", "ms", "max(conv_flops / the faster tf32 rate, floor_gelu)", f->tf32_kernel_ms},
        {"floor_3xtf32_kernel", "ms", "max(floor_3xtf32, floor_gelu)", f->tf32x3_kernel_ms},
    };
    for (size_t i = 0; i < sizeof model / sizeof model[0]; ++i) {
        csv_values v = csv_empty;
        v.value = model[i].value;
        v.unit = model[i].unit;
        v.status = "computed";
        v.detail = model[i].formula;
        csv_prefix(o, r, index, "model", model[i].name, "");
        csv_rest(o, &v);
    }
}

static void csv_points(outfile *o, const roofline_run *r, int index)
{
    const roofline_shape_run *s = &r->shapes[index];
    for (int i = 0; i < s->bench.count; ++i) {
        const bench_row *row = &s->bench.rows[i];
        const roofline_point *p = &s->points[i];
        csv_values v = csv_empty;
        v.kernel = row->v.kernel;
        v.unit = "FLOP/s";
        v.bytes = row->v.bytes_moved > 0.0 ? row->v.bytes_moved : NAN;
        if (row->timed) {
            v.median_ms = bench_row_ms(row); /* GPU time by graph replay where the row has it */
            v.min_ms = row->gpu_timed ? row->gpu_ms_min : row->ms_min;
            v.max_ms = row->gpu_timed ? NAN : row->ms_max;
        }
        if (s->placed[i]) {
            v.pipe = roofline_pipe_name(p->work.pipe);
            v.algorithm = p->work.algorithm;
            v.value = p->flops_per_s;
            v.intensity = p->intensity;
            v.executed_per_direct = p->work.executed_per_direct;
            v.executed_flops_per_s = p->executed_flops_per_s;
            v.pipe_roof = p->pipe_flops_per_s > 0.0 ? p->pipe_flops_per_s : NAN;
            v.pct_pipe = p->pct_pipe;
            v.pct_memory = p->pct_memory;
            v.pct_roof = p->pct_roof;
            const int partner = strcmp(row->v.family, "fused") == 0 ? roofline_cudnn_partner(&s->bench, i) : -1;
            v.speedup = partner >= 0 ? bench_row_ms(&s->bench.rows[partner]) / bench_row_ms(row) : NAN;
        }
        v.status = bench_row_status(row);
        v.detail = !row->v.run ? row->v.unavailable : row->failure[0] ? row->failure : row->v.detail;
        csv_prefix(o, r, index, "point", row->v.name, roofline_math_name(roofline_row_math(row)));
        csv_rest(o, &v);
    }
}

int roofline_write_csv(const char *path, const roofline_run *r, char *err, size_t errlen)
{
    outfile o;
    if (outfile_open(&o, path, 0, err, errlen) != 0)
        return -1;
    outfile_printf(&o, "%s", csv_header);
    csv_ceilings(&o, r);
    for (int k = 0; k < r->count; ++k) {
        if (r->shapes[k].skipped[0]) {
            csv_values v = csv_empty;
            v.status = "skipped";
            v.detail = r->shapes[k].skipped;
            csv_prefix(&o, r, k, "shape", "", "");
            csv_rest(&o, &v);
            continue;
        }
        csv_model(&o, r, k);
        csv_points(&o, r, k);
    }
    return outfile_commit(&o, err, errlen);
}

/* ---- charts ---- */

/* text lines of the notes under a chart, owned by the caller's buffer */
#define NOTE_CHARS 320

/* "also measured: shared memory ..., MUFU ex2 ..., rcp ...; not drawn (not per DRAM byte)" */
static void other_ceilings_note(const roofline_run *r, char *buf, size_t cap)
{
    char smem[32], ex2[32], rcp[32], gelu[32];
    chart_format_quantity(r->ceilings.smem_bytes_per_s, 3, "B/s", smem, sizeof smem);
    chart_format_quantity(r->ceilings.mufu_ex2_per_s, 3, "op/s", ex2, sizeof ex2);
    chart_format_quantity(r->ceilings.mufu_rcp_per_s, 3, "op/s", rcp, sizeof rcp);
    chart_format_quantity(r->ceilings.gelu_fast_per_s, 3, "GELU/s", gelu, sizeof gelu);
    snprintf(buf, cap,
             "Also measured, not drawn (not per DRAM byte): shared-memory reads %s, MUFU ex2 %s, MUFU rcp "
             "%s, gelu_fast %s. Percentages are of the measured roof of each row's pipe, from the FLOPs it executes.",
             smem, ex2, rcp, gelu);
}

static void chart_titles_for(const roofline_run *r, const char *what, char *title, char *subtitle, size_t cap)
{
    snprintf(title, cap, "%s on %s (%d SMs)", what, r->si.device, r->si.sm_count);
    if (r->zoo)
        snprintf(subtitle, cap, "%d shapes of the zoo; driver %s, CUDA %s, cuDNN %s; commit %s, %s", r->count,
                 r->si.driver, r->si.runtime, r->si.cudnn, r->si.commit, r->si.date);
    else
        snprintf(subtitle, cap,
                 "N=%lld Cin=%lld Cout=%lld H=%lld W=%lld padding %s; driver %s, CUDA %s, cuDNN %s; "
                 "commit %s, %s",
                 (long long)r->shapes[0].shape.n, (long long)r->shapes[0].shape.cin, (long long)r->shapes[0].shape.cout,
                 (long long)r->shapes[0].shape.h, (long long)r->shapes[0].shape.w, r->shapes[0].padding, r->si.driver,
                 r->si.runtime, r->si.cudnn, r->si.commit, r->si.date);
}

/* the legend text of one point: "<name>: <what it executes>; 49.5 TFLOP/s direct, 12.4 executed = 19% of FFMA;
 * 3% of DRAM bandwidth" */
static void point_text(const bench_row *row, const roofline_point *p, char *buf, size_t cap)
{
    char executes[200], direct[32], executed[32];
    roofline_work_text(row, &p->work, executes, sizeof executes);
    chart_format_quantity(p->flops_per_s, 3, "FLOP/s", direct, sizeof direct);
    chart_format_quantity(p->executed_flops_per_s, 3, "FLOP/s", executed, sizeof executed);
    int n = snprintf(buf, cap, "%s: %s; %s direct", row->v.name, executes, direct);
    if (p->work.executed_per_direct != 1.0 && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, ", %s executed", executed);
    if (n >= 0 && (size_t)n < cap)
        n += isnan(p->pct_pipe)
                 ? snprintf(buf + n, cap - (size_t)n, " (%s not measured)", roofline_pipe_name(p->work.pipe))
                 : snprintf(buf + n, cap - (size_t)n, " = %.0f%% of %s", p->pct_pipe, roofline_pipe_name(p->work.pipe));
    if (!isnan(p->pct_memory) && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, "; %.0f%% of DRAM bandwidth", p->pct_memory);
}

/* a placed point on the chart: the solid marker at its direct FLOPs, the hollow one where its executed FLOPs put
 * it (none when they are the same) */
static chart_point chart_point_of(const roofline_point *p, int series, const char *label, const char *tooltip)
{
    const int other = p->work.executed_per_direct != 1.0;
    return (chart_point){series,
                         label,
                         tooltip,
                         p->intensity,
                         p->flops_per_s,
                         other ? p->executed_intensity : 0.0,
                         other ? p->executed_flops_per_s : 0.0};
}

int roofline_write_svg(const char *path, const roofline_run *r, char *err, size_t errlen)
{
    const roofline_shape_run *s = &r->shapes[0];
    chart_point pts[BENCH_MAX_ROWS];
    char texts[BENCH_MAX_ROWS][NOTE_CHARS];
    const char *series[BENCH_MAX_ROWS];
    int count = 0;
    for (int i = 0; i < s->bench.count; ++i) {
        if (!s->placed[i])
            continue;
        const roofline_point *p = &s->points[i];
        point_text(&s->bench.rows[i], p, texts[count], sizeof texts[count]);
        series[count] = texts[count];
        pts[count] = chart_point_of(p, count, NULL, NULL);
        ++count;
    }
    char title[384], subtitle[512], note[NOTE_CHARS];
    chart_titles_for(r, "Roofline of conv3x3 + bias + GELU + mean", title, subtitle, sizeof title);
    other_ceilings_note(r, note, sizeof note);
    const char *notes[] = {note};
    const roofline_chart chart = {
        {title, subtitle, series, count, notes, 1, 1, pts, count},
        r->ceilings,
        r->datasheet,
        s->floors.fp32_kernel_ms > 0.0 ? s->model.conv_flops / (s->floors.fp32_kernel_ms * 1e-3) : 0.0,
        s->model.intensity,
        s->model.unfused_intensity,
    };
    return roofline_svg_write(path, &chart, err, errlen);
}

/* the zoo chart's series: the fused kernels per precision, the cuDNN legacy rows per math */
enum { ZOO_FP32, ZOO_TF32, ZOO_3XTF32, ZOO_CUDNN_FP32, ZOO_CUDNN_TF32, ZOO_SERIES };

static int zoo_series(const bench_row *row)
{
    const roofline_math m = roofline_row_math(row);
    if (strcmp(row->v.family, "fused") == 0)
        return m == ROOFLINE_MATH_FP32 ? ZOO_FP32 : m == ROOFLINE_MATH_TF32 ? ZOO_TF32 : ZOO_3XTF32;
    if (strcmp(row->v.family, "cudnn") == 0)
        return m == ROOFLINE_MATH_TF32 ? ZOO_CUDNN_TF32 : ZOO_CUDNN_FP32;
    return -1;
}

/* what both zoo charts need besides the run: their titles, their points, each shape's number beside its points,
 * the shape key under the chart (one note per shape, then room for one more note) and a tooltip per point */
typedef struct zoo_texts {
    char title[384], subtitle[512];
    chart_point *points;
    int count;
    char (*labels)[12];
    char (*notes)[NOTE_CHARS];
    const char **note_ptrs;
    char (*tips)[160];
} zoo_texts;

static void zoo_texts_free(zoo_texts *t)
{
    free(t->points), free(t->labels), free(t->notes), free(t->note_ptrs), free(t->tips);
}

/* Fills the point of row i of shape k, whose zoo series is `series`, with the shape's label and the tooltip
 * written into tip. Returns 1, or 0 where the row is not on the chart. */
typedef int zoo_point_fn(const roofline_shape_run *s, int k, int i, int series, const char *label, char *tip,
                         size_t tip_cap, chart_point *point);

/* the points of every row of every shape with a zoo series that `point` puts on the chart, in t */
static void zoo_points(const roofline_run *r, zoo_texts *t, zoo_point_fn *point)
{
    for (int k = 0; k < r->count; ++k) {
        const roofline_shape_run *s = &r->shapes[k];
        for (int i = 0; i < s->bench.count; ++i) {
            const int series = zoo_series(&s->bench.rows[i]);
            char *tip = t->tips[t->count];
            if (series >= 0 && point(s, k, i, series, t->labels[k], tip, sizeof t->tips[0], &t->points[t->count]))
                ++t->count;
        }
    }
}

/* Allocates room for a point and its tooltip per row of every shape, fills the labels and the shape key, the
 * points `point` makes and the titles, the title led by `what`. Returns 0, or -1 (err set). */
static int zoo_texts_make(const roofline_run *r, zoo_point_fn *point, const char *what, zoo_texts *t,
                          const char *path, char *err, size_t errlen)
{
    const int points = r->count * BENCH_MAX_ROWS;
    t->count = 0;
    t->points = calloc((size_t)points + 1, sizeof *t->points);
    t->labels = calloc((size_t)r->count, sizeof *t->labels);
    t->notes = calloc((size_t)r->count + 1, sizeof *t->notes);
    t->note_ptrs = calloc((size_t)r->count + 1, sizeof *t->note_ptrs);
    t->tips = calloc((size_t)points + 1, sizeof *t->tips);
    if (!t->points || !t->labels || !t->notes || !t->note_ptrs || !t->tips) {
        zoo_texts_free(t);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    for (int k = 0; k < r->count; ++k) {
        const roofline_shape_run *s = &r->shapes[k];
        char shape[96], inter[32];
        shape_text(s, shape, sizeof shape);
        chart_format_quantity(s->model.intermediate_bytes, 3, "B", inter, sizeof inter);
        if (s->skipped[0])
            snprintf(t->notes[k], NOTE_CHARS, "%d: %s%s%s: not measured (%.120s)", k + 1, shape,
                     s->label[0] ? ", " : "", s->label, s->skipped);
        else
            snprintf(t->notes[k], NOTE_CHARS, "%d: %s%s%s; intermediate %s; intensity fused %.0f, unfused %.1f FLOP/B",
                     k + 1, shape, s->label[0] ? ", " : "", s->label, inter, s->model.intensity,
                     s->model.unfused_intensity);
        t->note_ptrs[k] = t->notes[k];
        snprintf(t->labels[k], sizeof t->labels[k], "%d", k + 1);
    }
    zoo_points(r, t, point);
    chart_titles_for(r, what, t->title, t->subtitle, sizeof t->title);
    return 0;
}

/* a point's tooltip: "3: fused fp32 det (fp32-v9): 49.5 TFLOP/s direct, 19% of FFMA" */
static void zoo_tooltip(int shape, const bench_row *row, const roofline_point *p, char *buf, size_t cap)
{
    char rate[32];
    chart_format_quantity(p->flops_per_s, 3, "FLOP/s", rate, sizeof rate);
    snprintf(buf, cap, "%d: %s%s%s%s: %s direct, %.0f%% of %s", shape + 1, row->v.name, row->v.kernel[0] ? " (" : "",
             row->v.kernel, row->v.kernel[0] ? ")" : "", rate, p->pct_pipe, roofline_pipe_name(p->work.pipe));
}

/* a placed row, at its rate */
static int zoo_roofline_point(const roofline_shape_run *s, int k, int i, int series, const char *label, char *tip,
                              size_t tip_cap, chart_point *point)
{
    if (!s->placed[i])
        return 0;
    zoo_tooltip(k, &s->bench.rows[i], &s->points[i], tip, tip_cap);
    *point = chart_point_of(&s->points[i], series, label, tip);
    return 1;
}

int roofline_write_zoo_svg(const char *path, const roofline_run *r, char *err, size_t errlen)
{
    static const char *const series[ZOO_SERIES] = {
        "cgp fp32: the best fp32 kernel for the shape (det), FFMA pipe",
        "cgp tf32: the best tf32 kernel (det), wgmma or mma.sync TF32 pipe",
        "cgp 3xtf32: the best 3xtf32 kernel (det), three TF32 products per product",
        "cuDNN legacy fp32 (FMA math) + bias/GELU/mean kernel: the intermediate written and read",
        "cuDNN legacy tf32 (TF32 allowed) + bias/GELU/mean kernel",
    };
    zoo_texts t;
    if (zoo_texts_make(r, zoo_roofline_point, "Roofline of the shape zoo, conv3x3 + bias + GELU + mean,", &t, path,
                       err, errlen) != 0)
        return -1;
    other_ceilings_note(r, t.notes[r->count], NOTE_CHARS);
    t.note_ptrs[r->count] = t.notes[r->count];
    const chart_scatter scatter = {t.title,      t.subtitle, series,   ZOO_SERIES, t.note_ptrs,
                                   r->count + 1, 2,          t.points, t.count};
    const roofline_chart chart = {scatter, r->ceilings, r->datasheet, 0.0, 0.0, 0.0};
    const int rc = roofline_svg_write(path, &chart, err, errlen);
    zoo_texts_free(&t);
    return rc;
}

/* a fused row timed beside the cuDNN row of the same accuracy: how many times faster it is */
static int zoo_speedup_point(const roofline_shape_run *s, int k, int i, int series, const char *label, char *tip,
                             size_t tip_cap, chart_point *point)
{
    const bench_row *row = &s->bench.rows[i];
    const int partner = series <= ZOO_3XTF32 && row->timed ? roofline_cudnn_partner(&s->bench, i) : -1;
    if (partner < 0)
        return 0;
    const double speedup = bench_row_ms(&s->bench.rows[partner]) / bench_row_ms(row);
    snprintf(tip, tip_cap, "%d: %s%s%s%s %.4f ms, %s %.4f ms: %.2fx", k + 1, row->v.name, row->v.kernel[0] ? " (" : "",
             row->v.kernel, row->v.kernel[0] ? ")" : "", bench_row_ms(row), s->bench.rows[partner].v.name,
             bench_row_ms(&s->bench.rows[partner]), speedup);
    *point = (chart_point){series, label, tip, s->model.intermediate_bytes, speedup, 0.0, 0.0};
    return 1;
}

int roofline_write_speedup_svg(const char *path, const roofline_run *r, char *err, size_t errlen)
{
    static const char *const series[3] = {
        "cgp fp32 over cuDNN legacy fp32 (both strict fp32)",
        "cgp tf32 over cuDNN legacy tf32",
        "cgp 3xtf32 over cuDNN legacy fp32 (both fp32-accurate)",
    };
    zoo_texts t;
    if (zoo_texts_make(r, zoo_speedup_point,
                       "Where fusion pays: the fused kernel over cuDNN, against the intermediate it never writes,", &t,
                       path, err, errlen) != 0)
        return -1;
    const chart_scatter chart = {t.title, t.subtitle, series, 3, t.note_ptrs, r->count, 2, t.points, t.count};
    const int rc = speedup_svg_write(path, &chart, err, errlen);
    zoo_texts_free(&t);
    return rc;
}
