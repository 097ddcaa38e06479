/*
 * bench.h - the measurement core behind `cgp bench`, `cgp bench --sweep` and `cgp roofline`:
 * for one problem, every selected variant is run once on NaN-poisoned output and checked
 * against the fp64 reference, then (if it passed) warmed up and timed twice: in GPU time, by CUDA-graph
 * replay (gpu_time.h: no host launch cost inside; the verdict: speedups, TFLOP/s and the roofline use it),
 * and per call, one CUDA event pair per run on the legacy stream (median, min and max milliseconds; a
 * second column, host launches included where the GPU waits for them).
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
    int stages;  /* also the stage split's rows (variants_stages.c) */
    int cold_l2; /* flush the L2 before each timed run (outside its event pair), as nvbench does */
} bench_options;

typedef struct bench_row {
    bench_variant v;
    int checked;       /* it ran and its output was compared */
    check_report check; /* against the fp64 reference of the operands as they are */
    int checked_tf32;  /* a fused tf32 row: also against the reference of the operands rounded to tf32 ... */
    check_report check_tf32; /* ... which is then its pass criterion (check.h) */
    int timed;         /* per-call timing succeeded */
    double ms_median, ms_min, ms_max; /* per call, host launches included */
    int gpu_timed;     /* GPU time by graph replay succeeded (not with --cold-l2: gpu_note says why not) */
    double gpu_ms, gpu_ms_min; /* per call, median and min over the replays */
    int gpu_runs;      /* calls a replayed graph held */
    char gpu_note[160]; /* why there is no GPU time, when there is none */
    char failure[256]; /* why it was not checked or timed, when it was available */
} bench_row;

typedef struct bench_result {
    bench_problem problem; /* shape and sizes (device pointers are gone after bench_run) */
    uint64_t seed;
    int cold_l2; /* timed with the L2 flushed before each run */
    bench_row rows[BENCH_MAX_ROWS];
    int count;
} bench_result;

/* --cold-l2: a device buffer of twice the L2 (cudaDevAttrL2CacheSize), written over before each timed run so
 * that no run finds the previous run's inputs, or anything else of its own, in the L2. */
typedef struct l2_flusher {
    void *buffer;
    size_t bytes;
    unsigned flushes;
} l2_flusher;

/* Returns 0, or 1 with err set (a CUDA error; the flusher is then empty). */
int l2_flusher_create(l2_flusher *f, char *err, size_t errlen);
/* Enqueues one flush on stream s (a memset of the whole buffer). */
cudaError_t l2_flush(l2_flusher *f, cudaStream_t s);
void l2_flusher_destroy(l2_flusher *f);

/* Runs one problem. Returns 0 (rows may still have failed checks: see bench_failed_checks),
 * 2 when the shape does not fit in memory (err says needed and free; r then holds the shape and one
 * absent row saying so), 1 on a CUDA error. */
int bench_run(const cgp_shape *shape, cgp_padding padding, const bench_options *o, bench_result *r, char *err,
              size_t errlen);

/* Times row->v on p as bench_run does: o->warmup runs, then o->iters runs each between two CUDA events on
 * the legacy stream, each after a flush when flush is not NULL; sets timed and ms_* (or failure). Then, without
 * a flush, its GPU time by graph replay (gpu_time.h; o->iters replays, at least 5, at most 15): gpu_timed and
 * gpu_* (or gpu_note). Returns 0, or 1 on a CUDA error (err set). */
int bench_time_row(bench_row *row, const bench_problem *p, const bench_options *o, l2_flusher *flush, char *err,
                   size_t errlen);

/* Number of available rows that failed their check or could not run. */
int bench_failed_checks(const bench_result *r);

/* Whether the row passed its check: check_tf32 for a fused tf32 row, else check. */
int bench_row_passed(const bench_row *row);

/* "pass", "check-failed", "failed", "timing-only" (a row with nothing to check) or "absent". */
const char *bench_row_status(const bench_row *row);

/* The time a row is judged by: its GPU time where it has one, else its per-call median (0 when untimed). */
double bench_row_ms(const bench_row *row);

/* How many times faster row `fast` is than row `slow`: their GPU times when both have one, their per-call
 * medians when neither has (a --cold-l2 run), else 0 (never a mix). */
double bench_speedup(const bench_row *fast, const bench_row *slow);

/* Index of the row the speedups are relative to: the first fused row that was timed, or -1. */
int bench_fused_row(const bench_result *r);

/* "128x8x64x256x256 valid": N x Cin x Cout x H x W and the padding */
void bench_shape_name(const bench_problem *p, char *buf, size_t cap);

/* The console table of one result: the problem, the rows, and each row's detail (bench_report.c). */
void bench_print_table(FILE *f, const bench_result *r);
/* One table of several results: the header once, then each result's rows (absent ones too) as it comes,
 * with_shape: the shape as the first column. */
void bench_print_header(FILE *f, int with_shape);
void bench_print_rows(FILE *f, const bench_result *r, int with_shape);
/* The stage split's summary, one line per precision with all its rows timed (variants_stages.c) */
void stages_print_split(FILE *f, const bench_result *r);
/* The files of `cgp bench --csv / --json / --markdown`. */
typedef enum bench_format { BENCH_CSV, BENCH_JSON, BENCH_MARKDOWN, BENCH_FORMATS } bench_format;
/* One or more results (a sweep) as CSV, JSON or Markdown, written atomically. Returns 0, or -1 with err set. */
int bench_write(const char *path, bench_format format, const sysinfo *si, const bench_result *results, int count,
                char *err, size_t errlen);

#endif
