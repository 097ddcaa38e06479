/* chart.c - see chart.h. */
#include "chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "svg.h"

#define AXIS_COLOR "#333333"
#define GRID_COLOR "#e3e3e3"
#define TICK_FONT 11.0
#define TITLE_FONT 13.0

double chart_map(const chart_axis *a, double v)
{
    const double t = a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo)) : (v - a->lo) / (a->hi - a->lo);
    return a->px_lo + t * (a->px_hi - a->px_lo);
}

void chart_frame_place(chart_frame *f)
{
    f->x.px_lo = f->left;
    f->x.px_hi = f->left + f->width;
    f->y.px_lo = f->top + f->height;
    f->y.px_hi = f->top;
}

void chart_decades(double min, double max, double *lo, double *hi)
{
    const double a = floor(log10(min)), b = ceil(log10(max));
    *lo = pow(10.0, a);
    *hi = pow(10.0, b > a ? b : a + 1.0);
}

void chart_nice_range(double min, double max, int ticks, double *lo, double *hi, double *step)
{
    if (!(max > min)) { /* one value: a range around it */
        const double half = min != 0.0 ? 0.5 * fabs(min) : 1.0;
        min -= half;
        max += half;
    }
    const double raw = (max - min) / (ticks > 0 ? ticks : 1);
    const double power = pow(10.0, floor(log10(raw)));
    const double m = raw / power;
    *step = (m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 5.0 ? 5.0 : 10.0) * power;
    *lo = floor(min / *step) * *step;
    *hi = ceil(max / *step) * *step;
}

void chart_format_plain(double value, char *buf, size_t cap) { snprintf(buf, cap, "%g", value); }

static const struct {
    double scale;
    const char *prefix;
} si_prefixes[] = {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};

/* the largest prefix not above |value| (index into si_prefixes), or -1 */
static int si_prefix(double value)
{
    for (int i = 0; i < (int)(sizeof si_prefixes / sizeof si_prefixes[0]); ++i)
        if (fabs(value) >= si_prefixes[i].scale)
            return i;
    return -1;
}

void chart_format_si(double value, char *buf, size_t cap)
{
    const int i = si_prefix(value);
    if (i >= 0)
        snprintf(buf, cap, "%g %s", value / si_prefixes[i].scale, si_prefixes[i].prefix);
    else
        snprintf(buf, cap, "%g", value);
}

void chart_format_quantity(double value, int digits, const char *unit, char *buf, size_t cap)
{
    int i = si_prefix(value);
    double scaled = i >= 0 ? value / si_prefixes[i].scale : value;
    char rounded[64];
    snprintf(rounded, sizeof rounded, "%.*g", digits, scaled);
    if (fabs(strtod(rounded, NULL)) >= 1000.0 && i != 0) { /* 999.7 k to 3 digits is 1.00 M, not 1e+03 k */
        i = i < 0 ? (int)(sizeof si_prefixes / sizeof si_prefixes[0]) - 1 : i - 1;
        scaled = value / si_prefixes[i].scale;
    }
    snprintf(buf, cap, "%.*g %s%s", digits, scaled, i >= 0 ? si_prefixes[i].prefix : "", unit);
}

/* what a tick gets: a short tick only, a grid line and long tick, or those and a label */
enum { TICK_MINOR, TICK_MAJOR, TICK_LABELLED };
typedef void (*tick_fn)(outfile *o, const chart_frame *f, double value, int kind, chart_format fmt);

/* every decade of a log axis (with minor ticks at 2..9 times it when there are at most 12
 * decades; labels on every decade up to 12, else on every few), or every step of a linear one */
static void ticks(outfile *o, const chart_frame *f, const chart_axis *a, double step, tick_fn draw, chart_format fmt)
{
    if (a->log) {
        const long first = lround(log10(a->lo)), last = lround(log10(a->hi));
        const long every = 1 + (last - first) / 12;
        for (long d = first; d <= last; ++d) {
            const double decade = pow(10.0, (double)d);
            draw(o, f, decade, (d - first) % every == 0 ? TICK_LABELLED : TICK_MAJOR, fmt);
            for (int k = 2; every == 1 && d < last && k <= 9; ++k)
                draw(o, f, k * decade, TICK_MINOR, fmt);
        }
        return;
    }
    const long count = lround((a->hi - a->lo) / step);
    for (long i = 0; i <= count && i <= 1000; ++i) {
        const double v = a->lo + (double)i * step;
        draw(o, f, fabs(v) < 1e-9 * step ? 0.0 : v, TICK_LABELLED, fmt); /* no "-0" or "1e-17" at zero */
    }
}

static void x_tick(outfile *o, const chart_frame *f, double value, int kind, chart_format fmt)
{
    const double px = chart_map(&f->x, value), bottom = f->top + f->height;
    if (kind != TICK_MINOR)
        svg_line(o, px, f->top, px, bottom, GRID_COLOR, 1.0, NULL);
    if (kind == TICK_LABELLED) {
        char label[32];
        fmt(value, label, sizeof label);
        svg_text(o, px, bottom + 18.0, TICK_FONT, "middle", 0.0, AXIS_COLOR, label);
    }
    svg_line(o, px, bottom, px, bottom + (kind != TICK_MINOR ? 6.0 : 3.5), AXIS_COLOR, 1.0, NULL);
}

static void y_tick(outfile *o, const chart_frame *f, double value, int kind, chart_format fmt)
{
    const double py = chart_map(&f->y, value);
    if (kind != TICK_MINOR)
        svg_line(o, f->left, py, f->left + f->width, py, GRID_COLOR, 1.0, NULL);
    if (kind == TICK_LABELLED) {
        char label[32];
        fmt(value, label, sizeof label);
        svg_text(o, f->left - 9.0, py + 4.0, TICK_FONT, "end", 0.0, AXIS_COLOR, label);
    }
    svg_line(o, f->left - (kind != TICK_MINOR ? 6.0 : 3.5), py, f->left, py, AXIS_COLOR, 1.0, NULL);
}

void chart_draw_axes(outfile *o, const chart_frame *f, chart_format fx, chart_format fy, const char *x_title,
                     const char *y_title)
{
    ticks(o, f, &f->x, f->x_step, x_tick, fx);
    ticks(o, f, &f->y, f->y_step, y_tick, fy);
    svg_rect(o, f->left, f->top, f->width, f->height, "none", AXIS_COLOR);
    svg_text(o, f->left + 0.5 * f->width, f->top + f->height + 40.0, TITLE_FONT, "middle", 0.0, AXIS_COLOR, x_title);
    const double yx = f->left - 58.0, yy = f->top + 0.5 * f->height;
    svg_text(o, yx, yy, TITLE_FONT, "middle", -90.0, AXIS_COLOR, y_title);
}

const char *chart_color(int i)
{
    static const char *const palette[10] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                            "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
    return palette[((i % 10) + 10) % 10];
}

int chart_wrapped_text(outfile *o, double x, double y, double width, double size, double line_height, const char *color,
                       const char *text)
{
    int lines = 0;
    while (*text) {
        while (*text == ' ')
            ++text;
        if (!*text)
            break;
        const size_t n = svg_text_fit(text, size, width);
        char line[512];
        const int len = (int)(n < sizeof line ? n : sizeof line - 1);
        snprintf(line, sizeof line, "%.*s", len, text);
        if (o)
            svg_text(o, x, y + line_height * lines, size, "start", 0.0, color, line);
        ++lines;
        text += len;
    }
    return lines;
}

double chart_legend(outfile *o, double x, double top, double width, int columns, const chart_legend_item *items,
                    int count)
{
    const double column_width = width / (columns > 0 ? columns : 1), text_dx = 36.0;
    double y = top;
    for (int first = 0; first < count; first += columns) {
        int row_lines = 1;
        for (int i = first; i < count && i < first + columns; ++i) {
            const chart_legend_item *it = &items[i];
            const double cx = x + column_width * (i - first), baseline = y + CHART_LEGEND_FONT;
            const int lines = chart_wrapped_text(o, cx + text_dx, baseline, column_width - text_dx - 8.0,
                                                 CHART_LEGEND_FONT, CHART_LEGEND_LINE, AXIS_COLOR, it->text);
            row_lines = lines > row_lines ? lines : row_lines;
            if (!o)
                continue;
            const double mid = baseline - 4.0;
            if (it->line)
                svg_line(o, cx, mid, cx + 28.0, mid, it->color, 2.0, it->dash);
            if (it->marker >= 0) {
                svg_group_begin(o, cx + 14.0, mid, NULL);
                if (it->hollow)
                    svg_marker_outline(o, it->marker, 4.5, it->color);
                else
                    svg_marker(o, it->marker, 4.5, it->color);
                svg_group_end(o);
            }
        }
        y += CHART_LEGEND_LINE * row_lines + 4.0;
    }
    return y - top;
}

/* the titles wrapped from CHART_MARGIN, the first baseline 28 px from the top, drawn when o is not NULL;
 * returns the y below them */
static double page_titles(outfile *o, const chart_page *p)
{
    const double width = p->width - 2.0 * CHART_MARGIN;
    double y = 28.0;
    y += 20.0 * chart_wrapped_text(o, CHART_MARGIN, y, width, 16.0, 20.0, "#000000", p->title ? p->title : "");
    if (p->subtitle)
        y += 16.0 * chart_wrapped_text(o, CHART_MARGIN, y, width, 12.0, 16.0, "#333333", p->subtitle);
    return y + 14.0;
}

double chart_page_top(const chart_page *p) { return page_titles(NULL, p); }

int chart_page_open(outfile *o, const char *path, const chart_page *p, char *err, size_t errlen)
{
    if (outfile_open(o, path, 0, err, errlen) != 0)
        return -1;
    const double legend =
        chart_legend(NULL, CHART_MARGIN, p->legend_top, p->width - 2.0 * CHART_MARGIN, p->columns, p->items, p->count);
    svg_begin(o, p->width, ceil(p->legend_top + legend + 12.0));
    page_titles(o, p);
    return 0;
}

int chart_page_close(outfile *o, const chart_page *p, char *err, size_t errlen)
{
    chart_legend(o, CHART_MARGIN, p->legend_top, p->width - 2.0 * CHART_MARGIN, p->columns, p->items, p->count);
    svg_end(o);
    return outfile_commit(o, err, errlen);
}

static int finite_positive(double v) { return v > 0.0 && isfinite(v); }

int chart_point_drawable(const chart_point *p) { return finite_positive(p->x) && finite_positive(p->y); }

int chart_point_has_hollow(const chart_point *p)
{
    return chart_point_drawable(p) && finite_positive(p->hollow_x) && finite_positive(p->hollow_y) &&
           p->hollow_y != p->y;
}

void chart_range_include(double r[2], double v)
{
    if (finite_positive(v)) {
        r[0] = fmin(r[0], v);
        r[1] = fmax(r[1], v);
    }
}

void chart_scatter_extent(const chart_scatter *c, double x[2], double y[2])
{
    for (int i = 0; i < c->count; ++i) {
        const chart_point *p = &c->points[i];
        if (!chart_point_drawable(p))
            continue;
        chart_range_include(x, p->x);
        chart_range_include(y, p->y);
        if (chart_point_has_hollow(p)) {
            chart_range_include(x, p->hollow_x);
            chart_range_include(y, p->hollow_y);
        }
    }
}

int chart_scatter_open(outfile *o, const char *path, const chart_scatter *c, const chart_legend_item *extra,
                       chart_page *p, char *err, size_t errlen)
{
    chart_legend_item *items = calloc((size_t)(c->series_count + c->note_count + 1), sizeof *items);
    if (!items) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int n = 0;
    for (int i = 0; i < c->series_count; ++i)
        items[n++] = (chart_legend_item){c->series[i], chart_color(i), i, 0, 0, NULL};
    if (extra)
        items[n++] = *extra;
    for (int i = 0; i < c->note_count; ++i)
        items[n++] = (chart_legend_item){c->notes[i], "#000000", -1, 0, 0, NULL};
    p->columns = c->legend_columns > 0 ? c->legend_columns : 1;
    p->items = items;
    p->count = n;
    if (chart_page_open(o, path, p, err, errlen) != 0) {
        free(items);
        return -1;
    }
    return 0;
}

void chart_scatter_points(outfile *o, const chart_scatter *c, const chart_frame *f)
{
    for (int i = 0; i < c->count; ++i) {
        const chart_point *p = &c->points[i];
        if (!chart_point_drawable(p))
            continue;
        const char *color = chart_color(p->series);
        const double px = chart_map(&f->x, p->x), py = chart_map(&f->y, p->y);
        const char *series = p->series >= 0 && p->series < c->series_count ? c->series[p->series] : "";
        const char *tip = p->tooltip ? p->tooltip : series;
        if (chart_point_has_hollow(p)) {
            const double hx = chart_map(&f->x, p->hollow_x), hy = chart_map(&f->y, p->hollow_y);
            svg_line(o, px, py, hx, hy, color, 1.2, "3,2");
            svg_group_begin(o, hx, hy, tip);
            svg_marker_outline(o, p->series, 5.0, color);
            svg_group_end(o);
        }
        svg_group_begin(o, px, py, tip);
        svg_marker(o, p->series, 6.0, color);
        svg_group_end(o);
        if (p->label && *p->label)
            svg_text(o, px + 8.0, py - 6.0, 10.0, "start", 0.0, "#333333", p->label);
    }
}

int chart_scatter_close(outfile *o, chart_page *p, char *err, size_t errlen)
{
    const int rc = chart_page_close(o, p, err, errlen);
    free((void *)p->items);
    p->items = NULL;
    return rc;
}
