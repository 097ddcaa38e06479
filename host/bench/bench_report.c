/*
 * bench_report.c - how `cgp bench` shows its rows (bench.h): one row formatter, cell(), gives the text of
 * every value of a row, or nothing where the row has no such value, and the four writers (the console
 * table, CSV, JSON, Markdown) only lay those cells out. So they agree on every value: a timing-only row (a
 * layout conversion, a stage of the split) has no error and no TFLOP/s in any of them, a row that failed
 * has no time in any of them. The console and Markdown show a missing value as "-", CSV as an empty field,
 * JSON leaves the key out.
 */
#include "bench.h"

#include <string.h>

#include "outfile.h"

typedef enum column {
    COL_SHAPE, /* "128x8x64x256x256 valid": the people-facing tables with several shapes */
    COL_N,
    COL_CIN,
    COL_COUT,
    COL_H,
    COL_W,
    COL_PADDING,
    COL_SEED,
    COL_L2,
    COL_VARIANT,
    COL_FAMILY,
    COL_PRECISION,
    COL_STATUS,
    COL_MEDIAN_MS,
    COL_MIN_MS,
    COL_MAX_MS,
    COL_GPU_MS,
    COL_GPU_MS_MIN,
    COL_GPU_RUNS,
    COL_TFLOPS,
    COL_BYTES_MOVED,
    COL_MOVED_GB,
    COL_GBPS,
    COL_REL_L2,
    COL_REL_L2_TF32,
    COL_MAX_ABS,
    COL_SPEEDUP,
    COL_DETAIL
} column;

typedef struct column_def {
    const char *key;   /* CSV header and JSON key */
    const char *title; /* console and Markdown header */
    int width;         /* console: right-aligned in this many characters, left-aligned when negative */
    int number;        /* JSON: a number, else a string */
    const char *unit;  /* console and Markdown: written after the value */
} column_def;

static const column_def columns[] = {
    [COL_SHAPE] = {"shape", "shape", -24, 0, ""},
    [COL_N] = {"n", "N", 0, 1, ""},
    [COL_CIN] = {"cin", "Cin", 0, 1, ""},
    [COL_COUT] = {"cout", "Cout", 0, 1, ""},
    [COL_H] = {"h", "H", 0, 1, ""},
    [COL_W] = {"w", "W", 0, 1, ""},
    [COL_PADDING] = {"padding", "padding", 0, 0, ""},
    [COL_SEED] = {"seed", "seed", 0, 1, ""},
    [COL_L2] = {"l2", "L2", 0, 0, ""},
    [COL_VARIANT] = {"variant", "variant", -26, 0, ""},
    [COL_FAMILY] = {"family", "family", 0, 0, ""},
    [COL_PRECISION] = {"precision", "prec", -7, 0, ""},
    [COL_STATUS] = {"status", "status", 0, 0, ""},
    [COL_MEDIAN_MS] = {"median_ms", "call ms", 9, 1, ""},
    [COL_MIN_MS] = {"min_ms", "call min", 9, 1, ""},
    [COL_MAX_MS] = {"max_ms", "call max", 9, 1, ""},
    [COL_GPU_MS] = {"gpu_ms", "GPU ms", 9, 1, ""},
    [COL_GPU_MS_MIN] = {"gpu_ms_min", "GPU min", 9, 1, ""},
    [COL_GPU_RUNS] = {"gpu_runs_per_graph", "runs/graph", 0, 1, ""},
    [COL_TFLOPS] = {"tflops", "TFLOP/s", 8, 1, ""},
    [COL_BYTES_MOVED] = {"bytes_moved", "bytes moved", 0, 1, ""},
    [COL_MOVED_GB] = {"moved_gb", "moved GB", 9, 1, ""},
    [COL_GBPS] = {"gbps", "GB/s", 8, 1, ""},
    [COL_REL_L2] = {"rel_l2_error", "rel L2 err", 10, 1, ""},
    [COL_REL_L2_TF32] = {"rel_l2_error_tf32_operands", "tf32-op err", 11, 1, ""},
    [COL_MAX_ABS] = {"max_abs_error", "max abs err", 0, 1, ""},
    [COL_SPEEDUP] = {"fused_speedup", "fused is", 9, 1, "x"},
    [COL_DETAIL] = {"detail", "detail", 0, 0, ""},
};

static const char *padding_name(cgp_padding p) { return p == CGP_PADDING_SAME ? "same" : "valid"; }

int bench_row_passed(const bench_row *row)
{
    return row->checked && (row->checked_tf32 ? row->check_tf32.passed : row->check.passed);
}

const char *bench_row_status(const bench_row *row)
{
    if (!row->v.run)
        return "absent";
    if (!row->checked)
        return row->timed ? "timing-only" : "failed";
    return bench_row_passed(row) ? (row->timed ? "pass" : "failed") : "check-failed";
}

double bench_row_ms(const bench_row *row)
{
    return row->gpu_timed ? row->gpu_ms : row->timed ? row->ms_median : 0.0;
}

double bench_speedup(const bench_row *fast, const bench_row *slow)
{
    if (fast->gpu_timed && slow->gpu_timed)
        return slow->gpu_ms / fast->gpu_ms;
    if (fast->timed && slow->timed && !fast->gpu_timed && !slow->gpu_timed)
        return slow->ms_median / fast->ms_median;
    return 0.0;
}

int bench_fused_row(const bench_result *r)
{
    for (int i = 0; i < r->count; ++i)
        if (strcmp(r->rows[i].v.family, "fused") == 0 && r->rows[i].timed)
            return i;
    return -1;
}

void bench_shape_name(const bench_problem *p, char *buf, size_t cap)
{
    const cgp_shape *s = &p->shape;
    snprintf(buf, cap, "%lldx%lldx%lldx%lldx%lld %s", (long long)s->n, (long long)s->cin, (long long)s->cout,
             (long long)s->h, (long long)s->w, padding_name(p->padding));
}

/* The row formatter: the text of value c of the row, "" when the row has none. */
static const char *cell(const bench_result *r, const bench_row *row, column c, char *buf, size_t cap)
{
    const bench_problem *p = &r->problem;
    const cgp_shape *s = &p->shape;
    const double seconds = bench_row_ms(row) * 1e-3;
    const int base = bench_fused_row(r);
    buf[0] = '\0';
    switch (c) {
    case COL_SHAPE: bench_shape_name(p, buf, cap); break;
    case COL_N: snprintf(buf, cap, "%lld", (long long)s->n); break;
    case COL_CIN: snprintf(buf, cap, "%lld", (long long)s->cin); break;
    case COL_COUT: snprintf(buf, cap, "%lld", (long long)s->cout); break;
    case COL_H: snprintf(buf, cap, "%lld", (long long)s->h); break;
    case COL_W: snprintf(buf, cap, "%lld", (long long)s->w); break;
    case COL_PADDING: snprintf(buf, cap, "%s", padding_name(p->padding)); break;
    case COL_SEED: snprintf(buf, cap, "%llu", (unsigned long long)r->seed); break;
    case COL_L2: snprintf(buf, cap, "%s", r->cold_l2 ? "cold" : "warm"); break;
    case COL_VARIANT: snprintf(buf, cap, "%s", row->v.name); break;
    case COL_FAMILY: snprintf(buf, cap, "%s", row->v.family); break;
    case COL_PRECISION: snprintf(buf, cap, "%s", bench_precision_name(row->v.precision)); break;
    case COL_STATUS: snprintf(buf, cap, "%s", bench_row_status(row)); break;
    case COL_MEDIAN_MS:
    case COL_MIN_MS:
    case COL_MAX_MS:
        if (row->timed)
            snprintf(buf, cap, "%.4g",
                     c == COL_MEDIAN_MS ? row->ms_median : c == COL_MIN_MS ? row->ms_min : row->ms_max);
        break;
    case COL_GPU_MS:
    case COL_GPU_MS_MIN:
        if (row->gpu_timed)
            snprintf(buf, cap, "%.4g", c == COL_GPU_MS ? row->gpu_ms : row->gpu_ms_min);
        break;
    case COL_GPU_RUNS:
        if (row->gpu_timed)
            snprintf(buf, cap, "%d", row->gpu_runs);
        break;
    case COL_TFLOPS: /* a timing-only row does not compute the convolution */
        if (row->timed && row->v.precision != BENCH_PRECISION_NONE)
            snprintf(buf, cap, "%.4g", problem_conv_flops(p) / seconds / 1e12);
        break;
    case COL_BYTES_MOVED:
        if (row->v.run)
            snprintf(buf, cap, "%.0f", row->v.bytes_moved);
        break;
    case COL_MOVED_GB:
        if (row->v.run)
            snprintf(buf, cap, "%.3f", row->v.bytes_moved / 1e9);
        break;
    case COL_GBPS:
        if (row->timed)
            snprintf(buf, cap, "%.0f", row->v.bytes_moved / seconds / 1e9);
        break;
    case COL_REL_L2:
        if (row->checked)
            snprintf(buf, cap, "%.2e", row->check.rel_l2_error);
        break;
    case COL_REL_L2_TF32:
        if (row->checked_tf32)
            snprintf(buf, cap, "%.2e", row->check_tf32.rel_l2_error);
        break;
    case COL_MAX_ABS:
        if (row->checked)
            snprintf(buf, cap, "%.2e", row->check.max_abs_error);
        break;
    case COL_SPEEDUP:
        if (base >= 0 && bench_speedup(&r->rows[base], row) > 0.0)
            snprintf(buf, cap, "%.3g", bench_speedup(&r->rows[base], row));
        break;
    case COL_DETAIL:
        if (!row->v.run)
            snprintf(buf, cap, "%s", row->v.unavailable);
        else if (row->failure[0])
            snprintf(buf, cap, "%s", row->failure);
        else if (snprintf(buf, cap, "%s%s%s", row->v.detail, row->timed && row->gpu_note[0] ? "; " : "",
                          row->timed ? row->gpu_note : "") < 0) /* a longer detail is cut at the cell's size */
            buf[0] = '\0';
        break;
    }
    return buf;
}

/* ---- console ---- */
static const column console_columns[] = {COL_SHAPE,  COL_VARIANT, COL_PRECISION, COL_GPU_MS,      COL_MEDIAN_MS,
                                         COL_MIN_MS, COL_MAX_MS,  COL_TFLOPS,    COL_MOVED_GB,    COL_GBPS,
                                         COL_REL_L2, COL_REL_L2_TF32, COL_SPEEDUP};
enum { CONSOLE_COLUMNS = sizeof console_columns / sizeof console_columns[0] };

/* with_shape: the shape column first (a table of several shapes) */
void bench_print_header(FILE *f, int with_shape)
{
    for (int k = with_shape ? 0 : 1; k < CONSOLE_COLUMNS; ++k) {
        const column_def *d = &columns[console_columns[k]];
        fprintf(f, "%s%*s", k > !with_shape ? " " : "", d->width, d->title);
    }
    fprintf(f, "\n");
}

void bench_print_rows(FILE *f, const bench_result *r, int with_shape)
{
    char buf[512], text[520];
    for (int i = 0; i < r->count; ++i) {
        const bench_row *row = &r->rows[i];
        if (!row->v.run && !with_shape)
            continue; /* a one-shape table names the absent rows under it */
        for (int k = with_shape ? 0 : 1; k < CONSOLE_COLUMNS; ++k) {
            const column_def *d = &columns[console_columns[k]];
            const char *v = cell(r, row, console_columns[k], buf, sizeof buf);
            snprintf(text, sizeof text, "%s%s", v[0] ? v : "-", v[0] ? d->unit : "");
            fprintf(f, "%s%*s", k > !with_shape ? " " : "", d->width, text);
        }
        if (!row->timed) /* why not */
            fprintf(f, "  %s", cell(r, row, COL_DETAIL, buf, sizeof buf));
        fprintf(f, "\n");
    }
}

void bench_print_table(FILE *f, const bench_result *r)
{
    const bench_problem *p = &r->problem;
    const int base = bench_fused_row(r);
    fprintf(f, "problem: N=%lld Cin=%lld Cout=%lld H=%lld W=%lld padding=%s -> Hout=%lld Wout=%lld, %.4g GFLOP, "
               "seed %llu\n",
            (long long)p->shape.n, (long long)p->shape.cin, (long long)p->shape.cout, (long long)p->shape.h,
            (long long)p->shape.w, padding_name(p->padding), (long long)p->hout, (long long)p->wout,
            problem_conv_flops(p) / 1e9, (unsigned long long)r->seed);
    bench_print_header(f, 0);
    bench_print_rows(f, r, 0);
    if (base >= 0)
        fprintf(f, "('fused is': how many times faster the row '%s' is than each row, in GPU time by CUDA-graph "
                   "replay; 'call ms': per call between CUDA events, host launches included)\n",
                r->rows[base].v.name);
    char buf[512];
    for (int i = 0; i < r->count; ++i)
        fprintf(f, "  %s: %s\n", r->rows[i].v.name, cell(r, &r->rows[i], COL_DETAIL, buf, sizeof buf));
}

/* ---- files ---- */
/* quoted (quotes doubled) when it holds a comma, a quote or a line break */
static void csv_field(outfile *o, const char *s)
{
    if (!s[strcspn(s, ",\"\r\n")]) {
        outfile_printf(o, "%s", s);
        return;
    }
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

static const column csv_columns[] = {COL_N,         COL_CIN,         COL_COUT,      COL_H,          COL_W,
                                     COL_PADDING,   COL_SEED,        COL_L2,        COL_VARIANT,    COL_FAMILY,
                                     COL_PRECISION, COL_STATUS,      COL_MEDIAN_MS, COL_MIN_MS,     COL_MAX_MS,
                                     COL_GPU_MS,    COL_GPU_MS_MIN,  COL_GPU_RUNS,  COL_TFLOPS,     COL_BYTES_MOVED,
                                     COL_GBPS,      COL_REL_L2,      COL_REL_L2_TF32, COL_MAX_ABS,  COL_SPEEDUP,
                                     COL_DETAIL};

static void write_csv(outfile *o, const sysinfo *si, const bench_result *results, int count)
{
    outfile_printf(o, "date,device,driver,cuda,cudnn,commit");
    for (size_t k = 0; k < sizeof csv_columns / sizeof csv_columns[0]; ++k)
        outfile_printf(o, ",%s", columns[csv_columns[k]].key);
    outfile_printf(o, "\n");
    char buf[512];
    for (int j = 0; j < count; ++j)
        for (int i = 0; i < results[j].count; ++i) {
            outfile_printf(o, "%s,", si->date);
            csv_field(o, si->device);
            outfile_printf(o, ",%s,%s,%s,%s", si->driver, si->runtime, si->cudnn, si->commit);
            for (size_t k = 0; k < sizeof csv_columns / sizeof csv_columns[0]; ++k) {
                outfile_printf(o, ",");
                csv_field(o, cell(&results[j], &results[j].rows[i], csv_columns[k], buf, sizeof buf));
            }
            outfile_printf(o, "\n");
        }
}

static const column json_columns[] = {COL_VARIANT, COL_FAMILY,      COL_PRECISION,   COL_STATUS,  COL_MEDIAN_MS,
                                      COL_MIN_MS,  COL_MAX_MS,      COL_GPU_MS,      COL_GPU_MS_MIN, COL_GPU_RUNS,
                                      COL_TFLOPS,  COL_BYTES_MOVED, COL_GBPS,
                                      COL_REL_L2,  COL_REL_L2_TF32, COL_MAX_ABS,     COL_SPEEDUP, COL_DETAIL};

static void write_json(outfile *o, const sysinfo *si, const bench_result *results, int count)
{
    outfile_printf(o, "{\n  \"system\": {\"device\": ");
    json_string(o, si->device);
    outfile_printf(o, ", \"sm_count\": %d, \"driver\": ", si->sm_count);
    json_string(o, si->driver);
    outfile_printf(o, ", \"cuda\": \"%s\", \"cudnn\": \"%s\", \"commit\": \"%s\", \"date\": \"%s\"},\n", si->runtime,
                  si->cudnn, si->commit, si->date);
    outfile_printf(o, "  \"results\": [\n");
    char buf[512];
    for (int j = 0; j < count; ++j) {
        const bench_result *r = &results[j];
        const bench_problem *p = &r->problem;
        outfile_printf(o, "    {\"shape\": {\"n\": %lld, \"cin\": %lld, \"cout\": %lld, \"h\": %lld, \"w\": %lld, "
                          "\"padding\": \"%s\", \"hout\": %lld, \"wout\": %lld}, \"conv_flops\": %.0f, "
                          "\"seed\": %llu, \"l2\": \"%s\", \"rows\": [\n",
                      (long long)p->shape.n, (long long)p->shape.cin, (long long)p->shape.cout, (long long)p->shape.h,
                      (long long)p->shape.w, padding_name(p->padding), (long long)p->hout, (long long)p->wout,
                      problem_conv_flops(p), (unsigned long long)r->seed, r->cold_l2 ? "cold" : "warm");
        for (int i = 0; i < r->count; ++i) {
            const char *sep = "{";
            outfile_printf(o, "      ");
            for (size_t k = 0; k < sizeof json_columns / sizeof json_columns[0]; ++k) {
                const char *v = cell(r, &r->rows[i], json_columns[k], buf, sizeof buf);
                if (!v[0] && json_columns[k] != COL_DETAIL)
                    continue;
                outfile_printf(o, "%s\"%s\": ", sep, columns[json_columns[k]].key);
                if (columns[json_columns[k]].number)
                    outfile_printf(o, "%s", v);
                else
                    json_string(o, v);
                sep = ", ";
            }
            outfile_printf(o, "}%s\n", i + 1 < r->count ? "," : "");
        }
        outfile_printf(o, "    ]}%s\n", j + 1 < count ? "," : "");
    }
    outfile_printf(o, "  ]\n}\n");
}

static const column markdown_columns[] = {COL_SHAPE,  COL_VARIANT, COL_PRECISION, COL_L2,          COL_GPU_MS,
                                          COL_MEDIAN_MS, COL_MIN_MS, COL_MAX_MS, COL_TFLOPS, COL_MOVED_GB, COL_REL_L2,
                                          COL_REL_L2_TF32, COL_SPEEDUP, COL_DETAIL};
enum { MARKDOWN_COLUMNS = sizeof markdown_columns / sizeof markdown_columns[0] };

/* One table; with several results (a sweep) the shape is its first column, with one it is the line above. */
static void write_markdown(outfile *o, const sysinfo *si, const bench_result *results, int count)
{
    outfile_printf(o, "Device: %s (%d SMs), driver %s, CUDA %s, cuDNN %s, commit %s, %s\n\n", si->device, si->sm_count,
                  si->driver, si->runtime, si->cudnn, si->commit, si->date);
    const int first = count > 1 ? 0 : 1;
    if (count == 1) {
        const bench_problem *p = &results[0].problem;
        outfile_printf(o, "N=%lld Cin=%lld Cout=%lld H=%lld W=%lld padding=%s, seed %llu\n\n", (long long)p->shape.n,
                      (long long)p->shape.cin, (long long)p->shape.cout, (long long)p->shape.h, (long long)p->shape.w,
                      padding_name(p->padding), (unsigned long long)results[0].seed);
    }
    for (int k = first; k < MARKDOWN_COLUMNS; ++k)
        outfile_printf(o, "| %s ", columns[markdown_columns[k]].title);
    outfile_printf(o, "|\n");
    for (int k = first; k < MARKDOWN_COLUMNS; ++k)
        outfile_printf(o, "|%s", columns[markdown_columns[k]].number ? "---:" : "---");
    outfile_printf(o, "|\n");
    char buf[512];
    for (int j = 0; j < count; ++j)
        for (int i = 0; i < results[j].count; ++i) {
            for (int k = first; k < MARKDOWN_COLUMNS; ++k) {
                const char *v = cell(&results[j], &results[j].rows[i], markdown_columns[k], buf, sizeof buf);
                outfile_printf(o, "| %s%s ", v[0] ? v : "-", v[0] ? columns[markdown_columns[k]].unit : "");
            }
            outfile_printf(o, "|\n");
        }
    outfile_printf(o, "\n");
}

int bench_write(const char *path, bench_format format, const sysinfo *si, const bench_result *results, int count,
                char *err, size_t errlen)
{
    static void (*const writers[BENCH_FORMATS])(outfile *, const sysinfo *, const bench_result *, int) = {
        write_csv, write_json, write_markdown};
    outfile o;
    if (outfile_open(&o, path, 0, err, errlen) != 0)
        return -1;
    writers[format](&o, si, results, count);
    return outfile_commit(&o, err, errlen);
}
