/*
 * cpu_bench_report.c - the four writers of `cgp bench` (host/bench/bench_report.c: console, CSV, JSON,
 * Markdown) agree on every value of a made-up result: a timing-only row (a layout conversion) has no
 * TFLOP/s and no error in any of them (the Markdown table once showed one at "355 TFLOP/s" with a zero
 * error), a row that failed its check shows its error and no time in any of them, an absent row no
 * number, the values of a passing row are the same text everywhere, and a fused tf32 row shows both its
 * error against exact fp64 and the one against the reference of tf32-rounded operands.
 *     make build/tests/cpu_bench_report && build/tests/cpu_bench_report
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "csv_read.h"
#include "testlib.h"

enum { OUT_CONSOLE, OUT_CSV, OUT_JSON, OUT_MARKDOWN, OUTPUTS };
static const char *const output_names[OUTPUTS] = {"console", "csv", "json", "markdown"};

static int dummy_run(bench_variant *v, const bench_problem *p, cudaStream_t s)
{
    (void)v, (void)p, (void)s;
    return 0;
}

static bench_row *add_row(bench_result *r, const char *name, const char *family, bench_precision precision)
{
    bench_row *row = &r->rows[r->count++];
    memset(row, 0, sizeof *row);
    snprintf(row->v.name, sizeof row->v.name, "%s", name);
    snprintf(row->v.family, sizeof row->v.family, "%s", family);
    snprintf(row->v.detail, sizeof row->v.detail, "what %s is", name);
    row->v.precision = precision;
    row->v.bytes_moved = 3.5e8;
    row->v.run = dummy_run;
    return row;
}

static void set_checked(bench_row *row, double rel_l2)
{
    row->checked = 1;
    row->check.rel_l2_error = rel_l2;
    row->check.max_abs_error = rel_l2 / 4;
    row->check.tolerance = 1e-6;
    row->check.passed = rel_l2 <= 1e-6;
    if (!row->check.passed)
        snprintf(row->failure, sizeof row->failure, "check failed: too large an error");
}

static void set_timed(bench_row *row, double ms)
{
    row->timed = 1;
    row->ms_median = ms;
    row->ms_min = 0.875 * ms;
    row->ms_max = 1.25 * ms;
}

/* the line of text that holds `name` (the whole JSON object of a row, one line), or "" */
static const char *line_of(const char *text, const char *name, char *line, size_t cap)
{
    line[0] = '\0';
    const char *at = strstr(text, name);
    if (!at)
        return line;
    const char *start = at, *end = strchr(at, '\n');
    while (start > text && start[-1] != '\n')
        --start;
    const size_t n = (size_t)((end ? end : at + strlen(at)) - start);
    snprintf(line, cap, "%.*s", (int)(n < cap ? n : cap - 1), start);
    return line;
}

static void read_all(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    buf[fread(buf, 1, cap - 1, f)] = '\0';
    fclose(f);
}

int main(void)
{
    static bench_result r;
    memset(&r, 0, sizeof r);
    r.problem.shape = (cgp_shape){2, 8, 64, 40, 40};
    r.problem.padding = CGP_PADDING_VALID;
    r.problem.hout = r.problem.wout = 38;
    r.seed = 7;
    bench_row *fused = add_row(&r, "fused fp32 det", "fused", BENCH_PRECISION_FP32);
    set_checked(fused, 3.25e-8);
    set_timed(fused, 0.5);
    set_timed(add_row(&r, "cudnn graph layout", "cudnn-graph", BENCH_PRECISION_NONE), 0.00125);
    bench_row *tf32 = add_row(&r, "fused tf32 det", "fused", BENCH_PRECISION_TF32);
    set_checked(tf32, 4.75e-5); /* exact fp64: TF32's rounding, not judged */
    tf32->check.passed = 0;
    tf32->failure[0] = '\0';
    tf32->checked_tf32 = 1;
    tf32->check_tf32.rel_l2_error = 2.5e-7;
    tf32->check_tf32.tolerance = 1e-6;
    tf32->check_tf32.passed = 1;
    set_timed(tf32, 0.25);
    set_checked(add_row(&r, "unfused cuda fp32", "unfused", BENCH_PRECISION_FP32), 4.5e-3);
    bench_row *absent = add_row(&r, "cudnn legacy tf32", "cudnn", BENCH_PRECISION_TF32);
    absent->v.run = NULL;
    snprintf(absent->v.unavailable, sizeof absent->v.unavailable, "built without cuDNN");

    const sysinfo si = {"Test GPU, 1 SM", "1.0", "13.0", "none", "abc", "2026-01-01T00:00:00Z", 1, 9, 0};
    char dir[512], path[OUTPUTS][600], err[512];
    static char text[OUTPUTS][32768];
    if (test_scratch_dir(dir, sizeof dir, "cpu_bench_report") != 0)
        return test_exit_code();
    for (int k = 0; k < OUTPUTS; ++k)
        snprintf(path[k], sizeof path[k], "%s/out.%s", dir, output_names[k]);
    FILE *console = fopen(path[OUT_CONSOLE], "w");
    if (console) {
        bench_print_table(console, &r);
        fclose(console);
    }
    TEST_EXPECT("bench report writes its files",
                console && bench_write(path[OUT_CSV], BENCH_CSV, &si, &r, 1, err, sizeof err) == 0 &&
                    bench_write(path[OUT_JSON], BENCH_JSON, &si, &r, 1, err, sizeof err) == 0 &&
                    bench_write(path[OUT_MARKDOWN], BENCH_MARKDOWN, &si, &r, 1, err, sizeof err) == 0,
                "%s", err);
    for (int k = 0; k < OUTPUTS; ++k)
        read_all(path[k], text[k], sizeof text[k]);

    /* what the conversion's "TFLOP/s" would be: the convolution's FLOPs over its time */
    char bogus[32], flops[32];
    snprintf(bogus, sizeof bogus, "%.4g", problem_conv_flops(&r.problem) / 1.25e-6 / 1e12);
    snprintf(flops, sizeof flops, "%.4g", problem_conv_flops(&r.problem) / 0.5e-3 / 1e12);
    char line[4096], name[160];
    for (int k = 0; k < OUTPUTS; ++k) {
        const char *out = output_names[k];
        snprintf(name, sizeof name, "bench report %s: the passing row's TFLOP/s %s and error 3.25e-08", out, flops);
        line_of(text[k], "fused fp32 det", line, sizeof line);
        TEST_EXPECT(name, strstr(line, flops) && strstr(line, "3.25e-08"), "line: %s", line);
        snprintf(name, sizeof name, "bench report %s: the timing-only row has no TFLOP/s and no error", out);
        line_of(text[k], "cudnn graph layout", line, sizeof line);
        TEST_EXPECT(name, line[0] && !strstr(text[k], bogus) && !strstr(line, "e-0") && !strstr(line, "rel_l2"),
                    "line: %s", line);
        snprintf(name, sizeof name, "bench report %s: the failed row has its error 4.50e-03 and no time", out);
        line_of(text[k], "unfused cuda fp32", line, sizeof line);
        TEST_EXPECT(name, strstr(line, "4.50e-03") && !strstr(line, "0.5") && !strstr(line, "median_ms"),
                    "line: %s", line);
        snprintf(name, sizeof name, "bench report %s: the tf32 row's errors 4.75e-05 (exact) and 2.50e-07 (tf32 "
                 "operands), and it passes", out);
        line_of(text[k], "fused tf32 det", line, sizeof line);
        TEST_EXPECT(name, strstr(line, "4.75e-05") && strstr(line, "2.50e-07") && !strstr(line, "check failed") &&
                          (k == OUT_CONSOLE || k == OUT_MARKDOWN || strstr(line, "pass")),
                    "line: %s", line);
        snprintf(name, sizeof name, "bench report %s: the absent row has no number", out);
        line_of(text[k], "cudnn legacy tf32", line, sizeof line);
        TEST_EXPECT(name, k == OUT_CONSOLE ? strstr(line, "built without cuDNN") != NULL
                                           : strstr(line, "built without cuDNN") && !strstr(line, "e-0") &&
                                                 !strstr(line, "0.5") && !strstr(line, "bytes_moved"),
                    "line: %s", line);
    }
    csv_table t;
    if (csv_read_file(path[OUT_CSV], &t, err, sizeof err) != 0) {
        TEST_FAIL("bench report csv reads back", "%s", err);
    } else {
        const int tflops = csv_column(&t, "tflops"), rel = csv_column(&t, "rel_l2_error"), st = csv_column(&t, "status");
        TEST_EXPECT("bench report csv reads back, empty fields where a row has no value",
                    t.rows == 5 && tflops >= 0 && rel >= 0 && st >= 0 && strcmp(csv_cell(&t, 0, tflops), flops) == 0 &&
                        !csv_cell(&t, 1, tflops)[0] && !csv_cell(&t, 1, rel)[0] &&
                        strcmp(csv_cell(&t, 1, st), "timing-only") == 0 && strcmp(csv_cell(&t, 2, st), "pass") == 0 &&
                        strcmp(csv_cell(&t, 3, st), "check-failed") == 0 && strcmp(csv_cell(&t, 4, st), "absent") == 0,
                    "%d rows; row 1 tflops '%s'", t.rows, t.rows > 1 && tflops >= 0 ? csv_cell(&t, 1, tflops) : "?");
        csv_free(&t);
    }
    for (int k = 0; k < OUTPUTS; ++k)
        remove(path[k]);
    remove(dir);
    return test_exit_code();
}
