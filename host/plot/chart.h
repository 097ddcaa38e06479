/*
 * chart.h - axes for the SVG charts of `cgp roofline` and `cgp plot` (drawn with host/plot/svg.h):
 * linear or log10 scales from data values to pixels, decade and "nice" tick ranges, the frame
 * with grid, ticks, tick labels and axis titles, a colour palette, wrapped text and legends laid out
 * to a width (so that no text leaves the picture).
 *
 *     chart_frame f = {.left = 80, .top = 60, .width = 600, .height = 400};
 *     chart_decades(0.5, 300.0, &f.x.lo, &f.x.hi);    f.x.log = 1;   // 0.1 .. 1000
 *     chart_nice_range(0.0, 7.3, 6, &f.y.lo, &f.y.hi, &f.y_step);     // 0 .. 8 step 1
 *     chart_frame_place(&f);                                          // pixel ends of both axes
 *     chart_draw_axes(&o, &f, chart_format_plain, chart_format_si, "FLOP/byte", "FLOP/s");
 *     double px = chart_map(&f.x, 42.0), py = chart_map(&f.y, 3.5);
 *
 * Tested by tests/cpu/cpu_roofline.c.
 */
#ifndef CGP_CHART_H
#define CGP_CHART_H

#include <stddef.h>
#include "outfile.h"

typedef struct chart_axis {
    double lo, hi;       /* data values at the two ends, lo < hi (both > 0 on a log axis) */
    int log;             /* 1: log10 scale */
    double px_lo, px_hi; /* pixel coordinates of lo and hi (on y, px_lo is the bottom) */
} chart_axis;

typedef struct chart_frame {
    double left, top, width, height; /* the plot area in pixels */
    chart_axis x, y;
    double x_step, y_step; /* tick step of a linear axis (unused on a log axis) */
} chart_frame;

/* Pixel coordinate of value v on axis a (linear interpolation of v or of log10 v). */
double chart_map(const chart_axis *a, double v);

/* Sets the pixel ends of both axes from the plot area: x from left to left + width, y from
 * top + height (lo) up to top (hi). */
void chart_frame_place(chart_frame *f);

/* Whole decades around [min, max] (both > 0): lo = 10^floor(log10 min), hi = 10^ceil(log10 max),
 * and hi is at least 10 lo. */
void chart_decades(double min, double max, double *lo, double *hi);

/* A linear range covering [min, max] whose ends are multiples of a step of 1, 2 or 5 times a
 * power of ten, about `ticks` steps long. min == max gets a range around the value. */
void chart_nice_range(double min, double max, int ticks, double *lo, double *hi, double *step);

/* Tick label formats: "%g", and SI prefixes ("100 G", "1.5 T", "2 P"). */
typedef void (*chart_format)(double value, char *buf, size_t cap);
void chart_format_plain(double value, char *buf, size_t cap);
void chart_format_si(double value, char *buf, size_t cap);
/* A quantity with `digits` significant digits, an SI prefix and a unit: (4.2345e12, 3, "B/s")
 * gives "4.23 TB/s"; below 1000 no prefix ("283 FLOP/B"). */
void chart_format_quantity(double value, int digits, const char *unit, char *buf, size_t cap);

/* The plot area's border, grid lines and ticks (every decade on a log axis, with unlabelled
 * ticks at 2..9 times it; every step on a linear axis), tick labels and the axis titles. */
void chart_draw_axes(outfile *o, const chart_frame *f, chart_format fx, chart_format fy, const char *x_title,
                     const char *y_title);

/* Colour i of a ten-colour palette (taken modulo 10). */
const char *chart_color(int i);

/* Text wrapped at spaces (svg_text_fit) to `width` pixels, its first baseline at y, lines `line_height`
 * apart; drawn when o is not NULL. Returns the number of lines. */
int chart_wrapped_text(outfile *o, double x, double y, double width, double size, double line_height, const char *color,
                       const char *text);

/* A legend entry: a short stroke in the colour (when line is 1; dashed when dash is not NULL), a marker
 * (svg_marker shape; -1 for none; hollow: outlined only) and the text after them, wrapped to its column. */
typedef struct chart_legend_item {
    const char *text;
    const char *color;
    int marker;
    int hollow;
    int line;
    const char *dash;
} chart_legend_item;

#define CHART_LEGEND_FONT 12.0
#define CHART_LEGEND_LINE 16.0 /* pixels between the baselines of a wrapped entry */

/* Lays the items out row by row in `columns` columns across `width` pixels, from `top` down, and draws them
 * when o is not NULL. Returns the height they take. */
double chart_legend(outfile *o, double x, double top, double width, int columns, const chart_legend_item *items,
                    int count);

/* A chart's picture: `width` pixels wide, the title (16 px) and subtitle (12 px, NULL: none) wrapped at the
 * top, the plot areas the caller draws, the legend from legend_top down; CHART_MARGIN pixels left and right
 * of the titles and the legend. The picture is as tall as its legend needs. */
#define CHART_MARGIN 20.0
typedef struct chart_page {
    double width;
    const char *title, *subtitle;
    double legend_top;
    int columns;
    const chart_legend_item *items;
    int count;
} chart_page;

/* The y below the page's wrapped titles, where its plot areas may start. */
double chart_page_top(const chart_page *p);
/* Opens path (host/io/outfile.h) and writes the root and the titles. Returns 0, or -1 with err set. */
int chart_page_open(outfile *o, const char *path, const chart_page *p, char *err, size_t errlen);
/* Draws the legend, closes the root and commits the file. Returns 0, or -1 with err set. */
int chart_page_close(outfile *o, const chart_page *p, char *err, size_t errlen);

/* A point of a scatter chart (host/plot/roofline_svg.h, speedup_svg.h): a solid marker at (x, y) and, where
 * hollow_x and hollow_y are set and differ from it in y, a hollow marker there joined to it by a dashed line. */
typedef struct chart_point {
    int series;                /* colour and marker: those of the chart's series[series] */
    const char *label;         /* short text beside the marker (a zoo shape's number); NULL or "": none */
    const char *tooltip;       /* shown on hover; NULL: the series' text */
    double x, y;               /* the solid marker; a point without both finite and positive is not drawn */
    double hollow_x, hollow_y; /* the hollow marker; 0: none */
} chart_point;

/* What a scatter chart draws besides its axes: the titles, the points and the legend (one entry per series, in
 * chart_color(i) with marker i, then text-only notes). */
typedef struct chart_scatter {
    const char *title;       /* NULL: none */
    const char *subtitle;    /* NULL: none */
    const char *const *series;
    int series_count;
    const char *const *notes;
    int note_count;
    int legend_columns;      /* 1 or more (0 is taken as 1) */
    const chart_point *points;
    int count;
} chart_scatter;

/* 1 when the point's solid marker is drawn, and when its hollow one is. */
int chart_point_drawable(const chart_point *p);
int chart_point_has_hollow(const chart_point *p);

/* Widens the range [r[0], r[1]] of a log axis to hold v when v is finite and positive. */
void chart_range_include(double r[2], double v);
/* Widens [x[0], x[1]] and [y[0], y[1]] to hold every marker drawn, solid and hollow. */
void chart_scatter_extent(const chart_scatter *c, double x[2], double y[2]);

/* Opens the page of a scatter chart: p's width, titles and legend_top as the caller set them, its legend the
 * chart's series, then `extra` (NULL: none), then its notes (allocated here: chart_scatter_close frees them).
 * Returns 0, or -1 with err set and nothing to free. */
int chart_scatter_open(outfile *o, const char *path, const chart_scatter *c, const chart_legend_item *extra,
                       chart_page *p, char *err, size_t errlen);
/* Draws every drawable point on the frame (hollow marker first, the label right of the solid one). */
void chart_scatter_points(outfile *o, const chart_scatter *c, const chart_frame *f);
/* chart_page_close, then frees the legend chart_scatter_open made. */
int chart_scatter_close(outfile *o, chart_page *p, char *err, size_t errlen);

#endif
