/* speedup_svg.c - see speedup_svg.h. */
#include "speedup_svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

static int drawable(const speedup_point *p)
{
    return p->intermediate_bytes > 0.0 && isfinite(p->intermediate_bytes) && p->speedup > 0.0 && isfinite(p->speedup);
}

void speedup_chart_frame(const speedup_chart *c, chart_frame *f)
{
    memset(f, 0, sizeof *f);
    f->left = SPEEDUP_SVG_LEFT;
    const chart_page page = {SPEEDUP_SVG_WIDTH, c->title, c->subtitle, 0.0, 1, NULL, 0};
    f->top = chart_page_top(&page);
    f->width = SPEEDUP_SVG_PLOT_WIDTH;
    f->height = SPEEDUP_SVG_PLOT_HEIGHT;
    f->x.log = f->y.log = 1;
    double x_min = INFINITY, x_max = -INFINITY, y_min = 1.0, y_max = 1.0;
    for (int i = 0; i < c->count; ++i)
        if (drawable(&c->points[i])) {
            x_min = fmin(x_min, c->points[i].intermediate_bytes);
            x_max = fmax(x_max, c->points[i].intermediate_bytes);
            y_min = fmin(y_min, c->points[i].speedup);
            y_max = fmax(y_max, c->points[i].speedup);
        }
    if (!(x_max > 0.0)) { /* nothing to place: a default range */
        x_min = 1e6;
        x_max = 1e9;
    }
    chart_decades(x_min / 1.25, x_max * 1.25, &f->x.lo, &f->x.hi);
    chart_decades(y_min / 1.25, y_max * 1.25, &f->y.lo, &f->y.hi);
    chart_frame_place(f);
}

/* a speedup tick label: "0.1x", "1x", "10x" */
static void format_times(double value, char *buf, size_t cap) { snprintf(buf, cap, "%gx", value); }

int speedup_svg_write(const char *path, const speedup_chart *c, char *err, size_t errlen)
{
    chart_frame f;
    speedup_chart_frame(c, &f);
    chart_legend_item *items = calloc((size_t)(c->series_count + c->note_count) + 1, sizeof *items);
    if (!items) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int n = 0;
    for (int i = 0; i < c->series_count; ++i)
        items[n++] = (chart_legend_item){c->series[i], chart_color(i), i, 0, 0, NULL};
    for (int i = 0; i < c->note_count; ++i)
        items[n++] = (chart_legend_item){c->notes[i], "#000000", -1, 0, 0, NULL};
    const chart_page page = {SPEEDUP_SVG_WIDTH,
                             c->title,
                             c->subtitle,
                             f.top + f.height + 62.0,
                             c->legend_columns > 0 ? c->legend_columns : 1,
                             items,
                             n};
    outfile o;
    if (chart_page_open(&o, path, &page, err, errlen) != 0) {
        free(items);
        return -1;
    }
    chart_draw_axes(&o, &f, chart_format_si, format_times,
                    "intermediate tensor N x Cout x Hout x Wout x 4 B (unfused: written, then read)",
                    "speedup of the fused kernel over cuDNN (median times)");
    const double one = chart_map(&f.y, 1.0);
    svg_line(&o, f.left, one, f.left + f.width, one, "#1f1f1f", 1.5, "6,3");
    svg_text(&o, f.left + 6.0, one - 6.0, 12.0, "start", 0.0, "#1f1f1f", "1x: as fast as cuDNN");
    for (int i = 0; i < c->count; ++i) {
        const speedup_point *p = &c->points[i];
        if (!drawable(p))
            continue;
        const double px = chart_map(&f.x, p->intermediate_bytes), py = chart_map(&f.y, p->speedup);
        const char *series = p->series >= 0 && p->series < c->series_count ? c->series[p->series] : "";
        svg_group_begin(&o, px, py, p->tooltip ? p->tooltip : series);
        svg_marker(&o, p->series, 6.0, chart_color(p->series));
        svg_group_end(&o);
        if (p->label && *p->label)
            svg_text(&o, px + 8.0, py - 6.0, 10.0, "start", 0.0, "#333333", p->label);
    }
    const int rc = chart_page_close(&o, &page, err, errlen);
    free(items);
    return rc;
}
