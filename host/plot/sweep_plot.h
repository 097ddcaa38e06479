/*
 * sweep_plot.h - `cgp plot`: a CSV written by `cgp bench --sweep KEY=... --csv FILE` (columns:
 * host/bench/bench_report.c, bench_write) drawn as one SVG with two panels, median time (ms) and achieved
 * TFLOP/s against the swept dimension, one line per variant. An axis is log10 when its values
 * span more than a decade, else linear.
 *
 *     csv_table t;      csv_read_file(path, &t, err, sizeof err);
 *     sweep_data d;     sweep_from_csv(&t, path, &d, err, sizeof err);   // which key varies, the series
 *     sweep_write_svg("sweep.svg", &d, err, sizeof err);
 *
 * Tested by tests/cpu/cpu_roofline.c.
 */
#ifndef CGP_SWEEP_PLOT_H
#define CGP_SWEEP_PLOT_H

#include <stddef.h>
#include "chart.h"
#include "csv_read.h"

/* The picture: two panels side by side, the legend under them, wrapped to the width (the panels start lower
 * when a long device name wraps the titles). */
#define SWEEP_SVG_WIDTH 960.0
#define SWEEP_SVG_TOP 90.0
#define SWEEP_SVG_PANEL_WIDTH 370.0
#define SWEEP_SVG_PANEL_HEIGHT 360.0
#define SWEEP_SVG_TIME_LEFT 80.0
#define SWEEP_SVG_RATE_LEFT 550.0

typedef struct sweep_point {
    double x;      /* the swept dimension */
    double ms;     /* median time */
    double tflops; /* achieved TFLOP/s; NaN for a row that does no convolution (precision "n/a") */
    long line;     /* the CSV line it came from */
} sweep_point;

typedef struct sweep_series {
    char name[96];      /* the variant */
    char precision[24];
    int convolves;      /* 0 for a timing-only row (precision "n/a"): drawn in the time panel only */
    sweep_point *points; /* sorted by x */
    int count, cap;
} sweep_series;

typedef struct sweep_data {
    char key[8];        /* the CSV column that varies: "n", "h" (with w equal to it), "w", "cin" or "cout" */
    char key_title[32]; /* axis title: "N", "H = W", "W", "Cin", "Cout" */
    char fixed[192];    /* the dimensions that stay, e.g. "Cin=8 Cout=64 H=256 W=256 padding valid" */
    char device[256], commit[64], date[32];
    sweep_series *series;
    int count;
} sweep_data;

/* Reads the rows of a bench CSV: those with status "pass" or "timing-only" and a median time
 * are plotted, the others (failed, absent) skipped. Returns 0, or -1 with "<name>:<line>: <why>"
 * (or "<name>: <why>") in err when a column is missing, a number is malformed, the rows come
 * from more than one device, nothing or more than one dimension varies, or a variant appears
 * twice at the same value. */
int sweep_from_csv(const csv_table *t, const char *name, sweep_data *d, char *err, size_t errlen);

void sweep_free(sweep_data *d);

/* The two panels' axes: x shared (log10 when max > 10 min, else linear), time and TFLOP/s on y
 * (log10 when max > 10 min, else linear from 0). */
void sweep_frames(const sweep_data *d, chart_frame *time, chart_frame *rate);

/* Writes the SVG. Returns 0, or -1 with "<path>: <why>" in err. */
int sweep_write_svg(const char *path, const sweep_data *d, char *err, size_t errlen);

#endif
