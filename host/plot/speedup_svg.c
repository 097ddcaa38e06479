/* speedup_svg.c - see speedup_svg.h. */
#include "speedup_svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svg.h"

void speedup_chart_frame(const chart_scatter *c, chart_frame *f)
{
    memset(f, 0, sizeof *f);
    f->left = SPEEDUP_SVG_LEFT;
    const chart_page page = {SPEEDUP_SVG_WIDTH, c->title, c->subtitle, 0.0, 1, NULL, 0};
    f->top = chart_page_top(&page);
    f->width = SPEEDUP_SVG_PLOT_WIDTH;
    f->height = SPEEDUP_SVG_PLOT_HEIGHT;
    f->x.log = f->y.log = 1;
    double x[2] = {INFINITY, -INFINITY}, y[2] = {1.0, 1.0};
    chart_scatter_extent(c, x, y);
    if (!(x[1] > 0.0)) { /* nothing to place: a default range */
        x[0] = 1e6;
        x[1] = 1e9;
    }
    chart_decades(x[0] / 1.25, x[1] * 1.25, &f->x.lo, &f->x.hi);
    chart_decades(y[0] / 1.25, y[1] * 1.25, &f->y.lo, &f->y.hi);
    chart_frame_place(f);
}

/* a speedup tick label: "0.1x", "1x", "10x" */
static void format_times(double value, char *buf, size_t cap) { snprintf(buf, cap, "%gx", value); }

int speedup_svg_write(const char *path, const chart_scatter *c, char *err, size_t errlen)
{
    chart_frame f;
    speedup_chart_frame(c, &f);
    chart_page page = {SPEEDUP_SVG_WIDTH, c->title, c->subtitle, f.top + f.height + 62.0, 1, NULL, 0};
    outfile o;
    if (chart_scatter_open(&o, path, c, NULL, &page, err, errlen) != 0)
        return -1;
    chart_draw_axes(&o, &f, chart_format_si, format_times,
                    "intermediate tensor N x Cout x Hout x Wout x 4 B (unfused: written, then read)",
                    "speedup of the fused kernel over cuDNN (median times)");
    const double one = chart_map(&f.y, 1.0);
    svg_line(&o, f.left, one, f.left + f.width, one, "#1f1f1f", 1.5, "6,3");
    svg_text(&o, f.left + 6.0, one - 6.0, 12.0, "start", 0.0, "#1f1f1f", "1x: as fast as cuDNN");
    chart_scatter_points(&o, c, &f);
    return chart_scatter_close(&o, &page, err, errlen);
}
