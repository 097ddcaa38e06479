/*
 * speedup_svg.h - the second chart of `cgp roofline --zoo` (docs/roofline.md, "Where fusion pays"): for every
 * zoo shape and precision, how many times faster the fused kernel is than the cuDNN pipeline of the same
 * accuracy, against the size of the intermediate tensor the fused kernel never writes (N x Cout x Hout x Wout
 * x 4 bytes). Log-log axes, a line at 1 (as fast as cuDNN), one marker per point with the shape's number
 * beside it, a legend (series, then text-only notes: the shape key) wrapped to the picture's width, which
 * grows in height to hold it. Written atomically through host/io/outfile.h; tested by tests/cpu/cpu_roofline.c
 * and tests/cpu/cpu_svg_layout.c.
 */
#ifndef CGP_SPEEDUP_SVG_H
#define CGP_SPEEDUP_SVG_H

#include <stddef.h>
#include "chart.h"

#define SPEEDUP_SVG_WIDTH 960.0
#define SPEEDUP_SVG_LEFT 90.0
#define SPEEDUP_SVG_PLOT_WIDTH 820.0
#define SPEEDUP_SVG_PLOT_HEIGHT 420.0

typedef struct speedup_point {
    int series;                /* colour and marker: those of the chart's series[series] */
    const char *label;         /* beside the marker (the shape's number); NULL or "": none */
    const char *tooltip;       /* NULL: the series' text */
    double intermediate_bytes; /* x */
    double speedup;            /* y: the baseline's median time / the fused kernel's */
} speedup_point;

typedef struct speedup_chart {
    const char *title, *subtitle;
    const char *const *series; /* legend text of each series (series i: chart_color(i), marker i) */
    int series_count;
    const char *const *notes; /* text-only legend entries after the series */
    int note_count;
    int legend_columns;
    const speedup_point *points;
    int count;
} speedup_chart;

/* The axes: both log10, the whole decades around every point and 1, widened by 1.25 on both sides first;
 * the plot's top below the wrapped titles. Points with a non-positive or non-finite value are left out. */
void speedup_chart_frame(const speedup_chart *c, chart_frame *f);

/* Writes the SVG. Returns 0, or -1 with "<path>: <why>" in err. */
int speedup_svg_write(const char *path, const speedup_chart *c, char *err, size_t errlen);

#endif
