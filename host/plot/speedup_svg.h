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

/* The chart is a chart_scatter (host/plot/chart.h) whose points have x the intermediate's bytes and y the
 * baseline's median time over the fused kernel's, and no hollow markers.
 * The axes: both log10, the whole decades around every point and 1, widened by 1.25 on both sides first;
 * the plot's top below the wrapped titles. Points with a non-positive or non-finite value are left out. */
void speedup_chart_frame(const chart_scatter *c, chart_frame *f);

/* Writes the SVG. Returns 0, or -1 with "<path>: <why>" in err. */
int speedup_svg_write(const char *path, const chart_scatter *c, char *err, size_t errlen);

#endif
