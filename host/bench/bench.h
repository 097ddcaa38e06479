/*
 * bench.h - the measurement core behind `cgp bench`, `cgp bench --sweep` and `cgp roofline`:
 * for one problem, every selected variant is run once on NaN-poisoned output and checked
 * against the fp64 reference, then (if it passed) warmed up and timed with CUDA events,
 * one event pair per run, giving median, min and max milliseconds.
 */
#ifndef CGP_BENCH_H
#define CGP_BENCH_H

#include <stdio.h>
#include "check.h"
#include "problem.h"
#include "sysinfo.h"
#include "variants.h"

#define BENCH_MAX_ROWS 32

/* baseline families, bits of bench_options.baselines */
enum { BASELINE_CUDNN = 1, BASELINE_CUDNN_GRAPH = 2, BASELINE_UNFUSED = 4 };

typedef struct bench_options {
    int warmup, iters;
    uint64_t seed;
    fused_selection fused;
    unsigned baselines;
    int stages; /* also the stage split's rows (variants_stages.c) */
} bench_options;

typedef struct bench_row {
    bench_variant v;
    int checked;       /* it ran and its output was compared */
    check_report check;
    int timed;         /* timing succeeded */
    double ms_median, ms_min, ms_max;
    char failure[256]; /* why it was not checked or timed, when it was available */
} bench_row;

typedef struct bench_result {
    bench_problem problem; /* shape and sizes (device pointers are gone after bench_run) */
    uint64_t seed;
    bench_row rows[BENCH_MAX_ROWS];
    int count;
} bench_result;

/* Runs one problem. Returns 0 (rows may still have failed checks: see bench_failed_checks),
 * 2 when the shape does not fit in memory (err says needed and free), 1 on a CUDA error. */
int bench_run(const cgp_shape *shape, cgp_padding padding, const bench_options *o, bench_result *r, char *err,
              size_t errlen);

/* Number of available rows that failed their check or could not run. */
int bench_failed_checks(const bench_result *r);

/* "pass", "check-failed", "failed", "timing-only" (a row with nothing to check) or "absent". */
const char *bench_row_status(const bench_row *row);

/* Index of the row the speedups are relative to: the first fused row that was timed, or -1. */
int bench_fused_row(const bench_result *r);

/* The console table of one result: the problem, the rows, and each row's detail (bench_report.c). */
void bench_print_table(FILE *f, const bench_result *r);
/* One table of several results: the header once, then each result's rows (absent ones too) as it comes,
 * with_shape: the shape as the first column. */
void bench_print_header(FILE *f, int with_shape);
void bench_print_rows(FILE *f, const bench_result *r, int with_shape);
/* The stage split's summary, one line per precision with all its rows timed (variants_stages.c) */
void stages_print_split(FILE *f, const bench_result *r);
/* CSV / JSON / Markdown of one or more results (a sweep), written atomically. Returns 0, or -1
 * with err set. */
int bench_write_csv(const char *path, const sysinfo *si, const bench_result *results, int count, char *err,
                    size_t errlen);
int bench_write_json(const char *path, const sysinfo *si, const bench_result *results, int count, char *err,
                     size_t errlen);
int bench_write_markdown(const char *path, const sysinfo *si, const bench_result *results, int count, char *err,
                         size_t errlen);

#endif
