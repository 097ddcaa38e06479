/* roofline_svg.c - see roofline_svg.h. */
#include "roofline_svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svg.h"

#define DRAM_COLOR "#1f1f1f"
#define L2_COLOR "#7f7f7f"
#define FFMA_COLOR "#1f77b4"
#define TF32_COLOR "#d62728"
#define MODEL_COLOR "#2ca02c"
#define LEGEND_ROW 20.0

static int drawable(const roofline_chart_point *p)
{
    return p->intensity > 0.0 && p->flops_per_s > 0.0 && isfinite(p->intensity) && isfinite(p->flops_per_s);
}

typedef struct range {
    double min, max;
} range;

static void include(range *r, double v)
{
    if (v > 0.0 && isfinite(v)) {
        r->min = fmin(r->min, v);
        r->max = fmax(r->max, v);
    }
}

void roofline_chart_frame(const roofline_chart *c, chart_frame *f)
{
    memset(f, 0, sizeof *f);
    f->left = ROOFLINE_SVG_LEFT;
    f->top = ROOFLINE_SVG_TOP;
    f->width = ROOFLINE_SVG_PLOT_WIDTH;
    f->height = ROOFLINE_SVG_PLOT_HEIGHT;
    f->x.log = f->y.log = 1;
    range x = {INFINITY, -INFINITY}, y = {INFINITY, -INFINITY};
    const double compute[] = {c->ceilings.ffma_flops_per_s, c->ceilings.tf32_flops_per_s, c->fp32_kernel_flops_per_s};
    const double bandwidth[] = {c->ceilings.dram_bytes_per_s, c->ceilings.l2_bytes_per_s};
    for (int i = 0; i < 3; ++i) {
        include(&y, compute[i]);
        for (int j = 0; j < 2; ++j)
            if (compute[i] > 0.0 && bandwidth[j] > 0.0)
                include(&x, compute[i] / bandwidth[j]);
    }
    include(&x, c->model_intensity);
    for (int i = 0; i < c->count; ++i)
        if (drawable(&c->points[i])) {
            include(&x, c->points[i].intensity);
            include(&y, c->points[i].flops_per_s);
        }
    if (!(x.max > 0.0)) /* nothing to place: a default range */
        x = (range){1.0, 1000.0};
    if (!(y.max > 0.0))
        y = (range){1e12, 1e15};
    chart_decades(x.min / 1.25, x.max * 1.25, &f->x.lo, &f->x.hi);
    chart_decades(y.min / 1.25, y.max * 1.25, &f->y.lo, &f->y.hi);
    chart_frame_place(f);
}

/* A bandwidth roof from the left edge up to the highest compute roof, and its label along it. */
static void bandwidth_roof(outfile *o, const chart_frame *f, double bytes_per_s, double top_flops, const char *name,
                           const char *color, const char *dash)
{
    const double x_end = top_flops > 0.0 ? fmin(top_flops / bytes_per_s, f->x.hi) : f->x.hi;
    const double x0 = chart_map(&f->x, f->x.lo), y0 = chart_map(&f->y, f->x.lo * bytes_per_s);
    const double x1 = chart_map(&f->x, x_end), y1 = chart_map(&f->y, x_end * bytes_per_s);
    svg_clip_begin(o, "plot-area");
    svg_line(o, x0, y0, x1, y1, color, 2.0, dash);
    svg_clip_end(o);
    const double x_enter = fmax(f->x.lo, f->y.lo / bytes_per_s); /* where the line comes into view */
    if (!(x_enter < x_end))
        return;
    const double xl = x_enter * pow(x_end / x_enter, 0.12);
    const double angle = atan2(y1 - y0, x1 - x0) * (180.0 / 3.14159265358979323846); /* degrees */
    char label[96], rate[32];
    chart_format_quantity(bytes_per_s, 3, "B/s", rate, sizeof rate);
    snprintf(label, sizeof label, "%s %s", name, rate);
    svg_text(o, chart_map(&f->x, xl), chart_map(&f->y, xl * bytes_per_s) - 6.0, 12.0, "start", angle, color, label);
}

/* A compute roof from where it meets the DRAM roof to the right edge, labelled just right of
 * that ridge (the fused kernels' points sit further right, at their high intensity). */
static void compute_roof(outfile *o, const chart_frame *f, double flops, double dram, const char *name,
                         const char *color, const char *dash, double label_dy)
{
    const double x_start = dram > 0.0 ? fmax(flops / dram, f->x.lo) : f->x.lo;
    const double y = chart_map(&f->y, flops);
    const double x = chart_map(&f->x, x_start);
    svg_line(o, x, y, chart_map(&f->x, f->x.hi), y, color, 2.0, dash);
    char label[128], rate[32];
    chart_format_quantity(flops, 3, "FLOP/s", rate, sizeof rate);
    snprintf(label, sizeof label, "%s %s", name, rate);
    svg_text(o, x + 8.0, y + label_dy, 12.0, "start", 0.0, color, label);
}

int roofline_svg_write(const char *path, const roofline_chart *c, char *err, size_t errlen)
{
    chart_frame f;
    roofline_chart_frame(c, &f);
    int shown = 0;
    for (int i = 0; i < c->count; ++i)
        shown += drawable(&c->points[i]);
    const double legend_top = ROOFLINE_SVG_TOP + 10.0;
    const double height = fmax(ROOFLINE_SVG_TOP + ROOFLINE_SVG_PLOT_HEIGHT + 70.0, legend_top + LEGEND_ROW * (shown + 1) + 20.0);
    outfile o;
    if (outfile_open(&o, path, 0, err, errlen) != 0)
        return -1;
    svg_begin(&o, ROOFLINE_SVG_WIDTH, height);
    svg_text(&o, ROOFLINE_SVG_LEFT - 60.0, 30.0, 16.0, "start", 0.0, "#000000", c->title ? c->title : "Roofline");
    if (c->subtitle)
        svg_text(&o, ROOFLINE_SVG_LEFT - 60.0, 52.0, 12.0, "start", 0.0, "#333333", c->subtitle);
    chart_draw_axes(&o, &f, chart_format_plain, chart_format_si, "arithmetic intensity (convolution FLOPs per DRAM byte)",
                    "FLOP/s (convolution FLOPs / median time)");
    svg_clip_define(&o, "plot-area", f.left, f.top, f.width, f.height);

    const roofline_ceilings *k = &c->ceilings;
    const double top = fmax(fmax(k->ffma_flops_per_s, k->tf32_flops_per_s), c->fp32_kernel_flops_per_s);
    if (k->l2_bytes_per_s > 0.0)
        bandwidth_roof(&o, &f, k->l2_bytes_per_s, top, "L2 read", L2_COLOR, "7,4");
    if (k->dram_bytes_per_s > 0.0)
        bandwidth_roof(&o, &f, k->dram_bytes_per_s, top, "DRAM copy", DRAM_COLOR, NULL);
    if (k->tf32_flops_per_s > 0.0)
        compute_roof(&o, &f, k->tf32_flops_per_s, k->dram_bytes_per_s, "TF32 mma.sync", TF32_COLOR, NULL, -6.0);
    if (k->ffma_flops_per_s > 0.0)
        compute_roof(&o, &f, k->ffma_flops_per_s, k->dram_bytes_per_s, "FFMA", FFMA_COLOR, NULL, -6.0);
    if (c->fp32_kernel_flops_per_s > 0.0)
        compute_roof(&o, &f, c->fp32_kernel_flops_per_s, k->dram_bytes_per_s, "FFMA + GELU of this shape", FFMA_COLOR,
                     "7,4", 15.0);
    if (c->model_intensity > 0.0) {
        const double x = chart_map(&f.x, c->model_intensity);
        svg_line(&o, x, f.top, x, f.top + f.height, MODEL_COLOR, 1.5, "2,3");
        char label[96], ai[32];
        chart_format_quantity(c->model_intensity, 3, "FLOP/B", ai, sizeof ai);
        snprintf(label, sizeof label, "fused, minimal traffic: %s", ai);
        svg_text(&o, x + 14.0, f.top + f.height - 8.0, 11.0, "start", -90.0, MODEL_COLOR, label);
    }

    const double lx = ROOFLINE_SVG_LEFT + ROOFLINE_SVG_PLOT_WIDTH + 30.0;
    svg_text(&o, lx, legend_top, 13.0, "start", 0.0, "#000000", "measured (median time; bytes moved as counted by each row)");
    int row = 0;
    for (int i = 0; i < c->count; ++i) {
        const roofline_chart_point *p = &c->points[i];
        if (!drawable(p))
            continue;
        char tip[256], ai[32], rate[32];
        chart_format_quantity(p->intensity, 3, "FLOP/B", ai, sizeof ai);
        chart_format_quantity(p->flops_per_s, 3, "FLOP/s", rate, sizeof rate);
        snprintf(tip, sizeof tip, "%s: %s, %s", p->name, ai, rate);
        svg_group_begin(&o, chart_map(&f.x, p->intensity), chart_map(&f.y, p->flops_per_s), tip);
        svg_marker(&o, i, 6.0, chart_color(i));
        svg_group_end(&o);
        char text[256];
        const int noted = p->note && *p->note;
        snprintf(text, sizeof text, "%s%s%s", p->name, noted ? ": " : "", noted ? p->note : "");
        chart_legend_entry(&o, lx, legend_top + LEGEND_ROW * (++row), 0, NULL, i, chart_color(i), text);
    }
    svg_end(&o);
    return outfile_commit(&o, err, errlen);
}
