/*
 * zoo_summary.h - where the fused kernels stand on the zoo, two lines per fused row (e.g. "fused tf32 det"):
 * on every shape where both were timed, the speedup of the row over the fastest cuDNN legacy row of its
 * precision class (fp32 and 3xtf32 against the cuDNN fp32 rows, tf32 against the cuDNN tf32 rows), then over the
 * fastest cuDNN convolution alone of the class (family "cudnn-conv", when the run has it), each as the smallest
 * (with its shape), the geometric mean, and how many shapes are below 1.0x. The times are GPU times (graph
 * replay) where the run has them, per-call medians otherwise (a --cold-l2 run, an older CSV).
 *     fused fp32 det vs cuDNN legacy fp32: 12 shapes, min 0.85x (8x512x512x7x7 same), geometric mean 1.93x,
 *     2 below 1.0x
 * The rows come from a zoo run in this process (`cgp bench --zoo`) or from its CSV (`--zoo-summary FILE`,
 * zoo_summary_read_csv). No CUDA: tested by tests/cpu/cpu_zoo.c.
 */
#ifndef CGP_ZOO_SUMMARY_H
#define CGP_ZOO_SUMMARY_H

#include <stdio.h>
#include "variants.h"

/* One row of a zoo run, as the summary needs it. */
typedef struct zoo_timing {
    int shape;              /* index into the shape names; the rows of one shape share it */
    char variant[64];
    char family[32];        /* "fused", "cudnn" (the legacy rows), ... */
    bench_precision precision;
    double median_ms;       /* > 0 when the row was timed: its GPU time where it has one, else per call */
} zoo_timing;

typedef struct zoo_timings {
    zoo_timing *rows;
    int count;
    char (*shapes)[64]; /* [shape_count]: "128x8x64x256x256 valid" */
    int shape_count;
    char device[256];   /* the device the rows were measured on ("" when unknown) */
} zoo_timings;

/* Prints the summary lines to f (a line saying so when there is no fused row). */
void zoo_summary_print(FILE *f, const zoo_timings *t);

/* The rows of a `cgp bench --csv` file (columns device, n, cin, cout, h, w, padding, variant, family,
 * precision, median_ms; gpu_ms, where present and not empty, in place of median_ms). Returns 0, or -1 with err set ("<path>: ..."). */
int zoo_summary_read_csv(const char *path, zoo_timings *t, char *err, size_t errlen);

/* Adds one row (its shape named by `shape`, added when new). Returns 0, or -1 when out of memory. */
int zoo_timings_add(zoo_timings *t, const char *shape, const char *variant, const char *family,
                    bench_precision precision, double median_ms);

void zoo_timings_free(zoo_timings *t);

#endif
