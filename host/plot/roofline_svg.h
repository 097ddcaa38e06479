/*
 * roofline_svg.h - the roofline charts of `cgp roofline --svg FILE` (one problem) and `cgp roofline --zoo
 * --svg FILE` (every zoo shape); docs/roofline.md explains how to read them. Log-log axes, arithmetic
 * intensity (direct-convolution FLOPs per DRAM byte) on x and FLOP/s on y; the measured DRAM and L2
 * bandwidth roofs as diagonals; the measured FFMA, mma.sync TF32 and wgmma TF32 roofs as horizontal lines
 * (and the FFMA + GELU roof of one shape, dashed); the vendor's datasheet peaks dotted and labelled as such;
 * dotted verticals at the intensities of the fused kernel and of the unfused pipeline. Each point is a solid
 * marker at its direct-convolution FLOP/s, and where the kernel executes another number of FLOPs on its pipe
 * (Winograd fewer, 3xTF32 three times as many) a hollow marker at what it executed, joined to it. The
 * legend and the titles are wrapped to the picture's width, which grows in height to hold them; no text
 * leaves the picture (tests/cpu/cpu_svg_layout.c). Written atomically through host/io/outfile.h; tested by
 * tests/cpu/cpu_roofline.c.
 */
#ifndef CGP_ROOFLINE_SVG_H
#define CGP_ROOFLINE_SVG_H

#include <stddef.h>
#include "chart.h"
#include "roofline_model.h"

/* The picture is ROOFLINE_SVG_WIDTH wide (readable where GitHub shows it without scaling much); the plot
 * area starts ROOFLINE_SVG_LEFT from the left, below the wrapped titles (roofline_chart_frame says where). */
#define ROOFLINE_SVG_WIDTH 960.0
#define ROOFLINE_SVG_LEFT 90.0
#define ROOFLINE_SVG_PLOT_WIDTH 820.0
#define ROOFLINE_SVG_PLOT_HEIGHT 500.0

/* The chart: its points (host/plot/chart.h) at x = direct FLOPs per byte moved and y = direct FLOP/s, the
 * hollow marker where the kernel's pipe executes another number of FLOPs (0: none); the roofs and lines. */
typedef struct roofline_chart {
    chart_scatter scatter;               /* title NULL: "Roofline" */
    roofline_ceilings ceilings;          /* 0 for a roof not to draw */
    const roofline_datasheet *datasheet; /* dotted vendor peaks; NULL: none */
    double fp32_kernel_flops_per_s;      /* conv FLOPs / (FFMA floor + GELU floor) of one shape; 0: not drawn */
    double fused_intensity;              /* conv FLOPs / the fused kernel's minimal bytes; 0: not drawn */
    double unfused_intensity;            /* conv FLOPs / the unfused pipeline's bytes; 0: not drawn */
} roofline_chart;

/* The axes and the plot area the chart uses: x and y log10, each the whole decades around every point (solid
 * and hollow), every ridge (where a compute roof meets the DRAM or L2 roof), the intensity lines and every
 * compute roof, widened by a factor 1.25 on both sides first; the plot's top below the wrapped titles. Points
 * with a non-positive or non-finite intensity or rate are left out (and not drawn). */
void roofline_chart_frame(const roofline_chart *c, chart_frame *f);

/* Writes the SVG. Returns 0, or -1 with "<path>: <why>" in err. */
int roofline_svg_write(const char *path, const roofline_chart *c, char *err, size_t errlen);

#endif
