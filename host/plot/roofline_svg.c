/* roofline_svg.c - see roofline_svg.h. */
#include "roofline_svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svg.h"

#define DRAM_COLOR "#1f1f1f"
#define L2_COLOR "#7f7f7f"
#define FFMA_COLOR "#1f77b4"
#define TENSOR_COLOR "#d62728"
#define DATASHEET_COLOR "#8c8c8c"
#define FUSED_COLOR "#2ca02c"
#define UNFUSED_COLOR "#ff7f0e"
#define DATASHEET_DASH "1.5,3"
#define LABEL_FONT 12.0

static int finite_positive(double v) { return v > 0.0 && isfinite(v); }


/* the horizontal roofs drawn, with their rates (0: not drawn) */
enum { ROOF_FFMA, ROOF_FP32_KERNEL, ROOF_MMA_SYNC, ROOF_WGMMA, ROOF_SHEET_FP32, ROOF_SHEET_TF32, ROOFS };

static void compute_roofs(const roofline_chart *c, double roofs[ROOFS])
{
    const roofline_datasheet *d = c->datasheet;
    roofs[ROOF_FFMA] = c->ceilings.ffma_flops_per_s;
    roofs[ROOF_FP32_KERNEL] = c->fp32_kernel_flops_per_s;
    roofs[ROOF_MMA_SYNC] = c->ceilings.mma_sync_flops_per_s;
    roofs[ROOF_WGMMA] = c->ceilings.wgmma_flops_per_s;
    roofs[ROOF_SHEET_FP32] = d ? d->fp32_flops_per_s : 0.0;
    roofs[ROOF_SHEET_TF32] = d ? d->tf32_dense_flops_per_s : 0.0;
}

static const char *title_of(const roofline_chart *c) { return c->scatter.title ? c->scatter.title : "Roofline"; }

void roofline_chart_frame(const roofline_chart *c, chart_frame *f)
{
    memset(f, 0, sizeof *f);
    f->left = ROOFLINE_SVG_LEFT;
    const chart_page page = {ROOFLINE_SVG_WIDTH, title_of(c), c->scatter.subtitle, 0.0, 1, NULL, 0};
    f->top = chart_page_top(&page);
    f->width = ROOFLINE_SVG_PLOT_WIDTH;
    f->height = ROOFLINE_SVG_PLOT_HEIGHT;
    f->x.log = f->y.log = 1;
    double x[2] = {INFINITY, -INFINITY}, y[2] = {INFINITY, -INFINITY};
    double roofs[ROOFS];
    compute_roofs(c, roofs);
    const double bandwidth[] = {c->ceilings.dram_bytes_per_s, c->ceilings.l2_bytes_per_s,
                                c->datasheet ? c->datasheet->dram_bytes_per_s : 0.0};
    for (int i = 0; i < ROOFS; ++i) {
        chart_range_include(y, roofs[i]);
        for (int j = 0; j < 3; ++j)
            if (finite_positive(roofs[i]) && finite_positive(bandwidth[j]))
                chart_range_include(x, roofs[i] / bandwidth[j]);
    }
    chart_range_include(x, c->fused_intensity);
    chart_range_include(x, c->unfused_intensity);
    chart_scatter_extent(&c->scatter, x, y);
    if (!(x[1] > 0.0)) { /* nothing to place: a default range */
        x[0] = 1.0;
        x[1] = 1000.0;
    }
    if (!(y[1] > 0.0)) {
        y[0] = 1e12;
        y[1] = 1e15;
    }
    chart_decades(x[0] / 1.25, x[1] * 1.25, &f->x.lo, &f->x.hi);
    chart_decades(y[0] / 1.25, y[1] * 1.25, &f->y.lo, &f->y.hi);
    chart_frame_place(f);
}

/* "<name> <rate>" at (x, y), moved left to end inside the plot area when it would pass its right edge */
static void roof_label(outfile *o, const chart_frame *f, double x, double y, const char *anchor, const char *color,
                       const char *name, double value, const char *unit)
{
    char label[160], rate[32];
    chart_format_quantity(value, 3, unit, rate, sizeof rate);
    snprintf(label, sizeof label, "%s %s", name, rate);
    const double right = f->left + f->width - 4.0;
    if (strcmp(anchor, "start") == 0 && x + svg_text_width(label, LABEL_FONT) > right) {
        x = right;
        anchor = "end";
    }
    svg_text(o, x, y, LABEL_FONT, anchor, 0.0, color, label);
}

/* A bandwidth roof from the left edge up to the highest compute roof, labelled along it at `at` (0..1) of the
 * visible part, `dy` pixels off the line. */
static void bandwidth_roof(outfile *o, const chart_frame *f, double bytes_per_s, double top_flops, const char *name,
                           const char *color, const char *dash, double at, double dy)
{
    const double x_end = top_flops > 0.0 ? fmin(top_flops / bytes_per_s, f->x.hi) : f->x.hi;
    const double x0 = chart_map(&f->x, f->x.lo), y0 = chart_map(&f->y, f->x.lo * bytes_per_s);
    const double x1 = chart_map(&f->x, x_end), y1 = chart_map(&f->y, x_end * bytes_per_s);
    svg_clip_begin(o, "plot-area");
    svg_line(o, x0, y0, x1, y1, color, dash && strcmp(dash, DATASHEET_DASH) == 0 ? 1.5 : 2.0, dash);
    svg_clip_end(o);
    const double x_enter = fmax(f->x.lo, f->y.lo / bytes_per_s); /* where the line comes into view */
    if (!(x_enter < x_end))
        return;
    const double xl = x_enter * pow(x_end / x_enter, at);
    const double angle = atan2(y1 - y0, x1 - x0) * (180.0 / 3.14159265358979323846); /* degrees */
    char label[160], rate[32];
    chart_format_quantity(bytes_per_s, 3, "B/s", rate, sizeof rate);
    snprintf(label, sizeof label, "%s %s", name, rate);
    svg_text(o, chart_map(&f->x, xl), chart_map(&f->y, xl * bytes_per_s) + dy, LABEL_FONT, "start", angle, color,
             label);
}

/* A measured compute roof from where it meets the DRAM roof to the right edge, labelled just right of that
 * ridge, label_dy pixels below the line (negative: above). */
static void compute_roof(outfile *o, const chart_frame *f, double flops, double dram, const char *name,
                         const char *color, const char *dash, double label_dy)
{
    const double x_start = dram > 0.0 ? fmax(flops / dram, f->x.lo) : f->x.lo;
    const double y = chart_map(&f->y, flops), x = chart_map(&f->x, x_start);
    svg_line(o, x, y, chart_map(&f->x, f->x.hi), y, color, 2.0, dash);
    roof_label(o, f, x + 8.0, y + label_dy, "start", color, name, flops, "FLOP/s");
}

/* A datasheet peak: dotted across the whole plot, labelled at its right end above the line */
static void datasheet_roof(outfile *o, const chart_frame *f, double flops, const char *name)
{
    const double y = chart_map(&f->y, flops), right = f->left + f->width;
    svg_line(o, f->left, y, right, y, DATASHEET_COLOR, 1.5, DATASHEET_DASH);
    roof_label(o, f, right - 4.0, y - 5.0, "end", DATASHEET_COLOR, name, flops, "FLOP/s");
}

/* A dotted vertical at an intensity, labelled upwards from the bottom of the plot */
static void intensity_line(outfile *o, const chart_frame *f, double intensity, const char *name, const char *color)
{
    const double x = chart_map(&f->x, intensity);
    svg_line(o, x, f->top, x, f->top + f->height, color, 1.5, "2,3");
    char label[128], ai[32];
    chart_format_quantity(intensity, 3, "FLOP/B", ai, sizeof ai);
    snprintf(label, sizeof label, "%s: %s", name, ai);
    svg_text(o, x + 14.0, f->top + f->height - 8.0, 11.0, "start", -90.0, color, label);
}

static void draw_roofs(outfile *o, const roofline_chart *c, const chart_frame *f)
{
    const roofline_ceilings *k = &c->ceilings;
    const roofline_datasheet *d = c->datasheet;
    double roofs[ROOFS];
    compute_roofs(c, roofs);
    double top = 0.0;
    for (int i = 0; i < ROOFS; ++i)
        top = fmax(top, finite_positive(roofs[i]) ? roofs[i] : 0.0);
    if (d && finite_positive(d->dram_bytes_per_s))
        bandwidth_roof(o, f, d->dram_bytes_per_s, top, "datasheet DRAM", DATASHEET_COLOR, DATASHEET_DASH, 0.3, -6.0);
    if (finite_positive(k->l2_bytes_per_s))
        bandwidth_roof(o, f, k->l2_bytes_per_s, top, "L2 read", L2_COLOR, "7,4", 0.12, -6.0);
    if (finite_positive(k->dram_bytes_per_s))
        bandwidth_roof(o, f, k->dram_bytes_per_s, top, "DRAM copy", DRAM_COLOR, NULL, 0.12, -6.0);
    if (finite_positive(roofs[ROOF_SHEET_FP32]))
        datasheet_roof(o, f, roofs[ROOF_SHEET_FP32], "datasheet FP32");
    if (finite_positive(roofs[ROOF_SHEET_TF32]))
        datasheet_roof(o, f, roofs[ROOF_SHEET_TF32], "datasheet TF32 dense");
    if (finite_positive(roofs[ROOF_WGMMA]))
        compute_roof(o, f, roofs[ROOF_WGMMA], k->dram_bytes_per_s, "TF32 wgmma", TENSOR_COLOR, NULL, -6.0);
    if (finite_positive(roofs[ROOF_MMA_SYNC]))
        compute_roof(o, f, roofs[ROOF_MMA_SYNC], k->dram_bytes_per_s, "TF32 mma.sync", TENSOR_COLOR, "7,4", 15.0);
    if (finite_positive(roofs[ROOF_FFMA]))
        compute_roof(o, f, roofs[ROOF_FFMA], k->dram_bytes_per_s, "FFMA", FFMA_COLOR, NULL, -6.0);
    if (finite_positive(roofs[ROOF_FP32_KERNEL]))
        compute_roof(o, f, roofs[ROOF_FP32_KERNEL], k->dram_bytes_per_s, "FFMA + GELU of this shape", FFMA_COLOR, "7,4",
                     15.0);
    if (finite_positive(c->fused_intensity))
        intensity_line(o, f, c->fused_intensity, "fused, minimal traffic", FUSED_COLOR);
    if (finite_positive(c->unfused_intensity))
        intensity_line(o, f, c->unfused_intensity, "unfused, intermediate written and read", UNFUSED_COLOR);
}

/* the legend entry of the hollow markers, drawn when a point has one */
static const chart_legend_item hollow_item = {
    "hollow marker, joined to its point: the FLOP/s the kernel's pipe executed (Winograd fewer than the direct "
    "convolution, 3xTF32 three times as many), at the same bytes and time",
    "#555555", 0, 1, 0, NULL};

static int any_hollow(const chart_scatter *c)
{
    for (int i = 0; i < c->count; ++i)
        if (chart_point_has_hollow(&c->points[i]))
            return 1;
    return 0;
}

int roofline_svg_write(const char *path, const roofline_chart *c, char *err, size_t errlen)
{
    chart_frame f;
    roofline_chart_frame(c, &f);
    chart_page page = {ROOFLINE_SVG_WIDTH, title_of(c), c->scatter.subtitle, f.top + f.height + 62.0, 1, NULL, 0};
    outfile o;
    if (chart_scatter_open(&o, path, &c->scatter, any_hollow(&c->scatter) ? &hollow_item : NULL, &page, err,
                           errlen) != 0)
        return -1;
    chart_draw_axes(&o, &f, chart_format_plain, chart_format_si,
                    "arithmetic intensity (direct-convolution FLOPs per DRAM byte moved)",
                    "FLOP/s (direct-convolution FLOPs / median time)");
    svg_clip_define(&o, "plot-area", f.left, f.top, f.width, f.height);
    draw_roofs(&o, c, &f);
    chart_scatter_points(&o, &c->scatter, &f);
    return chart_scatter_close(&o, &page, err, errlen);
}
