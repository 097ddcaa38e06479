/*
 * roofline_run.h - what one `cgp roofline` run measured (host/cli/cmd_roofline.c) and the files written from
 * it (host/cli/roofline_files.c): the ceilings, and per shape (one, or every zoo shape with --zoo) the model,
 * the bench rows and each row placed on the roofline of the pipe it runs on.
 */
#ifndef CGP_ROOFLINE_RUN_H
#define CGP_ROOFLINE_RUN_H

#include <stddef.h>

#include "bench.h"
#include "probes.h"
#include "roofline_model.h"

typedef struct roofline_shape_run {
    roofline_shape shape;
    const char *padding; /* "valid" or "same" */
    char label[64];      /* the zoo's label, or "" */
    roofline_model model;
    roofline_floors floors;
    bench_result bench;
    roofline_point points[BENCH_MAX_ROWS];
    int placed[BENCH_MAX_ROWS]; /* 1 where points[i] holds a placed point */
    char skipped[256];          /* non-empty: the shape was not measured, and why (then bench is empty) */
} roofline_shape_run;

typedef struct roofline_run {
    sysinfo si;
    probe_result probes[PROBE_COUNT];
    roofline_ceilings ceilings;
    const roofline_datasheet *datasheet; /* NULL: none known for this device */
    int zoo;                             /* 1: --zoo */
    roofline_shape_run *shapes;
    int count;
} roofline_run;

/* What a bench row computes in and executes, on which pipe: roofline_row_math is the one place that reads a
 * row's precision (roofline_math_name prints it), roofline_row_work adds what the kernel a fused row ran is (its
 * descriptive name, bench_variant.kind). */
roofline_math roofline_row_math(const bench_row *row);
roofline_work roofline_row_work(const bench_row *row);

/* The row of the same result that a fused row is compared with: the cuDNN legacy row of the same accuracy
 * (fp32 and 3xtf32: cuDNN fp32; tf32: cuDNN tf32), timed; -1 when there is none. */
int roofline_cudnn_partner(const bench_result *r, int fused_row);

/* What a placed point executes, in words: "fp32-v9, Winograd F(4x4,3x3) on FFMA" */
void roofline_work_text(const bench_row *row, const roofline_work *work, char *buf, size_t cap);

/* The files. Each returns 0, or -1 with err set. */
int roofline_write_csv(const char *path, const roofline_run *r, char *err, size_t errlen);
int roofline_write_svg(const char *path, const roofline_run *r, char *err, size_t errlen); /* one shape */
int roofline_write_zoo_svg(const char *path, const roofline_run *r, char *err, size_t errlen);
int roofline_write_speedup_svg(const char *path, const roofline_run *r, char *err, size_t errlen);

/* `cgp roofline --overlap` (host/cli/roofline_overlap.c): the overlap probe of issue 39 alone, printed, and with csv
 * written there. Returns the command's exit code. */
int roofline_overlap(int warmup, int iters, const char *csv);

#endif
