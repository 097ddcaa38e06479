/*
 * roofline_svg.h - the roofline chart of `cgp roofline --svg FILE` (docs/roofline.md explains
 * how to read it): log-log axes, arithmetic intensity (FLOP per DRAM byte) on x and FLOP/s on y,
 * the DRAM and L2 bandwidth roofs as diagonals, the FFMA and TF32 roofs as horizontal lines
 * (and the FFMA + GELU roof of the shape, dashed), a dotted line at the intensity of the fused
 * kernel's minimal traffic, one marker per measured variant and a legend. Written atomically
 * through host/io/outfile.h. Tested by tests/cpu/cpu_roofline.c.
 */
#ifndef CGP_ROOFLINE_SVG_H
#define CGP_ROOFLINE_SVG_H

#include <stddef.h>
#include "chart.h"
#include "roofline_model.h"

/* The plot area, in pixels (the whole picture is wider, for the legend, and may be taller). */
#define ROOFLINE_SVG_LEFT 90.0
#define ROOFLINE_SVG_TOP 80.0
#define ROOFLINE_SVG_PLOT_WIDTH 640.0
#define ROOFLINE_SVG_PLOT_HEIGHT 480.0
#define ROOFLINE_SVG_WIDTH 1240.0

typedef struct roofline_chart_point {
    const char *name;   /* the variant, e.g. "fused fp32 det" */
    const char *note;   /* legend text after the name, e.g. "41.2 TFLOP/s, 63% of FFMA"; NULL or "": none */
    double intensity;   /* FLOP per byte moved */
    double flops_per_s;
} roofline_chart_point;

typedef struct roofline_chart {
    const char *title;    /* first line, e.g. "Roofline of the fused conv3x3 + GELU + mean on NVIDIA H200" */
    const char *subtitle; /* second line: the shape, commit, date */
    roofline_ceilings ceilings;    /* 0 for a roof not to draw */
    double fp32_kernel_flops_per_s; /* conv FLOPs / (FFMA floor + GELU floor) of the shape, 0: not drawn */
    double model_intensity;         /* conv FLOPs / minimal bytes of the shape, 0: not drawn */
    const roofline_chart_point *points;
    int count;
} roofline_chart;

/* The axes the chart uses: x and y log10, each the whole decades around every point, every
 * ridge (where a compute roof meets the DRAM or L2 roof), the model intensity and every compute
 * roof, widened by a factor 1.25 on both sides first. Points with a non-positive intensity or
 * rate are left out (and not drawn). */
void roofline_chart_frame(const roofline_chart *c, chart_frame *f);

/* Writes the SVG. Returns 0, or -1 with "<path>: <why>" in err. */
int roofline_svg_write(const char *path, const roofline_chart *c, char *err, size_t errlen);

#endif
