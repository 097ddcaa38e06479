/* sweep_plot.c - see sweep_plot.h. */
#include "sweep_plot.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

/* the shape columns, in the order the fixed dimensions are listed */
enum { DIM_N, DIM_CIN, DIM_COUT, DIM_H, DIM_W, DIMS };
static const char *const dim_columns[DIMS] = {"n", "cin", "cout", "h", "w"};
static const char *const dim_titles[DIMS] = {"N", "Cin", "Cout", "H", "W"};

/* the columns read, indices into a csv_table */
typedef struct columns {
    int dim[DIMS];
    int device, commit, date, padding, variant, precision, status, median_ms, tflops;
} columns;

static int find_columns(const csv_table *t, const char *name, columns *c, char *err, size_t errlen)
{
    struct {
        const char *column;
        int *index;
    } want[] = {{"n", &c->dim[DIM_N]},         {"cin", &c->dim[DIM_CIN]},   {"cout", &c->dim[DIM_COUT]},
                {"h", &c->dim[DIM_H]},         {"w", &c->dim[DIM_W]},       {"device", &c->device},
                {"commit", &c->commit},        {"date", &c->date},          {"padding", &c->padding},
                {"variant", &c->variant},      {"precision", &c->precision}, {"status", &c->status},
                {"median_ms", &c->median_ms}, {"tflops", &c->tflops}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        *want[i].index = csv_column(t, want[i].column);
        if (*want[i].index < 0) {
            snprintf(err, errlen, "%s: no column '%s' in the header (line 1): not a CSV from `cgp bench --csv`", name,
                     want[i].column);
            return -1;
        }
    }
    return 0;
}

/* a dimension: decimal digits only, 1 .. 2^40 */
static int parse_dim(const char *text, int64_t *out)
{
    if (!*text || strlen(text) > 13)
        return -1;
    int64_t v = 0;
    for (const char *s = text; *s; ++s) {
        if (*s < '0' || *s > '9')
            return -1;
        v = 10 * v + (*s - '0');
    }
    *out = v;
    return v >= 1 && v <= ((int64_t)1 << 40) ? 0 : -1;
}

/* a finite number >= 0 written in full (no surrounding spaces, no inf or nan) */
static int parse_number(const char *text, double *out)
{
    if (!*text || !strchr("0123456789.+-", *text))
        return -1;
    char *end = NULL;
    errno = 0;
    const double v = strtod(text, &end);
    if (*end || errno == ERANGE || !isfinite(v) || v < 0.0)
        return -1;
    *out = v;
    return 0;
}

static int bad_cell(const csv_table *t, const char *name, int row, int column, const char *expected, char *err,
                    size_t errlen)
{
    snprintf(err, errlen, "%s:%ld: column '%s': '%.40s' is not %s", name, t->lines[row], t->header[column],
             csv_cell(t, row, column), expected);
    return -1;
}

static int add_point(sweep_data *d, const char *variant, const char *precision, sweep_point p, const char *name,
                     char *err, size_t errlen)
{
    sweep_series *s = NULL;
    for (int i = 0; i < d->count && !s; ++i)
        if (strncmp(d->series[i].name, variant, sizeof d->series[i].name - 1) == 0)
            s = &d->series[i];
    if (!s) {
        sweep_series *grown = realloc(d->series, (size_t)(d->count + 1) * sizeof *grown);
        if (!grown)
            goto out_of_memory;
        d->series = grown;
        s = &d->series[d->count++];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "%s", variant);
        snprintf(s->precision, sizeof s->precision, "%s", precision);
        s->convolves = strcmp(precision, "n/a") != 0;
    }
    for (int i = 0; i < s->count; ++i)
        if (s->points[i].x == p.x) {
            snprintf(err, errlen, "%s:%ld: a second row for variant '%s' at %s=%g (the first is on line %ld)", name,
                     p.line, s->name, d->key, p.x, s->points[i].line);
            return -1;
        }
    if (s->count == s->cap) {
        const int cap = s->cap ? 2 * s->cap : 16;
        sweep_point *grown = realloc(s->points, (size_t)cap * sizeof *grown);
        if (!grown)
            goto out_of_memory;
        s->points = grown;
        s->cap = cap;
    }
    int at = s->count++; /* insertion keeps the points sorted by x */
    for (; at > 0 && s->points[at - 1].x > p.x; --at)
        s->points[at] = s->points[at - 1];
    s->points[at] = p;
    return 0;
out_of_memory:
    snprintf(err, errlen, "%s: out of memory", name);
    return -1;
}

/* which shape column varies; fills key, key_title and fixed */
static int find_key(const csv_table *t, const char *name, const columns *c, int64_t (*dims)[DIMS], sweep_data *d,
                    char *err, size_t errlen)
{
    int varies[DIMS] = {0}, same_hw = 1;
    for (int r = 0; r < t->rows; ++r) {
        for (int k = 0; k < DIMS; ++k)
            varies[k] |= dims[r][k] != dims[0][k];
        same_hw &= dims[r][DIM_H] == dims[r][DIM_W];
    }
    int key = -1, count = 0;
    for (int k = 0; k < DIMS; ++k)
        if (varies[k]) {
            key = key < 0 ? k : key;
            ++count;
        }
    if (count == 2 && varies[DIM_H] && varies[DIM_W] && same_hw) { /* --sweep h sets H = W */
        key = DIM_H;
        count = 1;
    }
    if (count == 0) {
        snprintf(err, errlen, "%s: n, cin, cout, h and w are the same on every row: not a sweep (cgp bench --sweep)",
                 name);
        return -1;
    }
    if (count > 1) {
        char list[64] = "";
        for (int k = 0; k < DIMS; ++k)
            if (varies[k])
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "", dim_columns[k]);
        snprintf(err, errlen, "%s: more than one dimension varies (%s): plot one sweep at a time", name, list);
        return -1;
    }
    for (int r = 1; r < t->rows; ++r)
        if (strcmp(csv_cell(t, r, c->padding), csv_cell(t, 0, c->padding)) != 0) {
            snprintf(err, errlen, "%s:%ld: padding '%.20s' differs from line %ld's '%.20s': plot one sweep at a time",
                     name, t->lines[r], csv_cell(t, r, c->padding), t->lines[0], csv_cell(t, 0, c->padding));
            return -1;
        }
    const int square = key == DIM_H && varies[DIM_W];
    snprintf(d->key, sizeof d->key, "%s", dim_columns[key]);
    snprintf(d->key_title, sizeof d->key_title, "%s", square ? "H = W" : dim_titles[key]);
    for (int k = 0; k < DIMS; ++k)
        if (k != key && !(square && k == DIM_W))
            snprintf(d->fixed + strlen(d->fixed), sizeof d->fixed - strlen(d->fixed), "%s=%lld ", dim_titles[k],
                     (long long)dims[0][k]);
    snprintf(d->fixed + strlen(d->fixed), sizeof d->fixed - strlen(d->fixed), "padding %.20s",
             csv_cell(t, 0, c->padding));
    return key;
}

int sweep_from_csv(const csv_table *t, const char *name, sweep_data *d, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    columns c;
    if (find_columns(t, name, &c, err, errlen) != 0)
        return -1;
    if (t->rows == 0) {
        snprintf(err, errlen, "%s: a header but no rows", name);
        return -1;
    }
    int64_t(*dims)[DIMS] = malloc((size_t)t->rows * sizeof *dims);
    if (!dims) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    int rc = 0;
    for (int r = 0; r < t->rows && rc == 0; ++r) {
        for (int k = 0; k < DIMS && rc == 0; ++k)
            if (parse_dim(csv_cell(t, r, c.dim[k]), &dims[r][k]) != 0)
                rc = bad_cell(t, name, r, c.dim[k], "a positive integer", err, errlen);
        if (rc == 0 && strcmp(csv_cell(t, r, c.device), csv_cell(t, 0, c.device)) != 0) {
            snprintf(err, errlen, "%s:%ld: device '%.60s' differs from line %ld's '%.60s': one device per plot", name,
                     t->lines[r], csv_cell(t, r, c.device), t->lines[0], csv_cell(t, 0, c.device));
            rc = -1;
        }
    }
    const int key = rc == 0 ? find_key(t, name, &c, dims, d, err, errlen) : -1;
    rc = key < 0 ? -1 : 0;
    for (int r = 0; r < t->rows && rc == 0; ++r) {
        const char *status = csv_cell(t, r, c.status), *ms = csv_cell(t, r, c.median_ms);
        if ((strcmp(status, "pass") != 0 && strcmp(status, "timing-only") != 0) || !*ms)
            continue; /* not timed: nothing to draw */
        sweep_point p = {(double)dims[r][key], 0.0, NAN, t->lines[r]};
        if (parse_number(ms, &p.ms) != 0 || !(p.ms > 0.0)) {
            rc = bad_cell(t, name, r, c.median_ms, "a positive number of milliseconds", err, errlen);
            break;
        }
        const char *tflops = csv_cell(t, r, c.tflops);
        if (*tflops && parse_number(tflops, &p.tflops) != 0) {
            rc = bad_cell(t, name, r, c.tflops, "a number >= 0", err, errlen);
            break;
        }
        if (strcmp(csv_cell(t, r, c.precision), "n/a") == 0)
            p.tflops = NAN; /* a layout conversion: its "TFLOP/s" would be the convolution's FLOPs over its time */
        rc = add_point(d, csv_cell(t, r, c.variant), csv_cell(t, r, c.precision), p, name, err, errlen);
    }
    free(dims);
    if (rc == 0 && d->count == 0) {
        snprintf(err, errlen, "%s: no timed rows (status pass or timing-only, with a median_ms) to plot", name);
        rc = -1;
    }
    if (rc != 0) {
        sweep_free(d);
        return -1;
    }
    snprintf(d->device, sizeof d->device, "%s", csv_cell(t, 0, c.device));
    snprintf(d->commit, sizeof d->commit, "%s", csv_cell(t, 0, c.commit));
    snprintf(d->date, sizeof d->date, "%s", csv_cell(t, 0, c.date));
    return 0;
}

void sweep_free(sweep_data *d)
{
    for (int i = 0; i < d->count; ++i)
        free(d->series[i].points);
    free(d->series);
    memset(d, 0, sizeof *d);
}

typedef struct range {
    double min, max;
} range;

/* log10 when the values span more than a decade, else linear (from 0 when from_zero) */
static void axis_for(range r, int from_zero, chart_axis *a, double *step)
{
    if (!(r.max > 0.0)) /* no value: an empty linear axis */
        r = (range){0.0, 1.0};
    a->log = r.min > 0.0 && r.max > 10.0 * r.min;
    if (a->log)
        chart_decades(r.min, r.max, &a->lo, &a->hi);
    else
        chart_nice_range(from_zero ? 0.0 : r.min, r.max, 6, &a->lo, &a->hi, step);
}

static void include(range *r, double v)
{
    if (v > 0.0 && isfinite(v)) {
        r->min = fmin(r->min, v);
        r->max = fmax(r->max, v);
    }
}

static void sweep_titles(const sweep_data *d, char *title, char *subtitle, size_t cap)
{
    snprintf(title, cap, "cgp bench sweep over %s on %s", d->key_title, d->device);
    snprintf(subtitle, cap, "%s; commit %s, %s", d->fixed, d->commit, d->date);
}

void sweep_frames(const sweep_data *d, chart_frame *time, chart_frame *rate)
{
    char title[384], subtitle[384];
    sweep_titles(d, title, subtitle, sizeof title);
    const chart_page page = {SWEEP_SVG_WIDTH, title, subtitle, 0.0, 2, NULL, 0};
    const double titles_end = chart_page_top(&page);
    range x = {INFINITY, -INFINITY}, ms = x, tf = x;
    for (int i = 0; i < d->count; ++i)
        for (int j = 0; j < d->series[i].count; ++j) {
            const sweep_point *p = &d->series[i].points[j];
            include(&x, p->x);
            include(&ms, p->ms);
            if (d->series[i].convolves)
                include(&tf, p->tflops);
        }
    memset(time, 0, sizeof *time);
    time->top = fmax(SWEEP_SVG_TOP, titles_end);
    time->width = SWEEP_SVG_PANEL_WIDTH;
    time->height = SWEEP_SVG_PANEL_HEIGHT;
    *rate = *time;
    time->left = SWEEP_SVG_TIME_LEFT;
    rate->left = SWEEP_SVG_RATE_LEFT;
    axis_for(x, 0, &time->x, &time->x_step);
    rate->x = time->x;
    rate->x_step = time->x_step;
    axis_for(ms, 1, &time->y, &time->y_step);
    axis_for(tf, 1, &rate->y, &rate->y_step);
    chart_frame_place(time);
    chart_frame_place(rate);
}

/* one series in one panel: the line through its points, then a marker with a tooltip on each.
 * Returns 0, or -1 when out of memory. */
static int draw_series(outfile *o, const chart_frame *f, const sweep_data *d, int index, int tflops)
{
    const sweep_series *s = &d->series[index];
    double *px = malloc((size_t)s->count * sizeof *px), *py = malloc((size_t)s->count * sizeof *py);
    const sweep_point **shown = malloc((size_t)s->count * sizeof *shown);
    if (!px || !py || !shown) {
        free(px), free(py), free(shown);
        return -1;
    }
    int n = 0;
    for (int j = 0; j < s->count; ++j) {
        const double v = tflops ? s->points[j].tflops : s->points[j].ms;
        if (!isfinite(v) || (f->y.log && !(v > 0.0)))
            continue;
        px[n] = chart_map(&f->x, s->points[j].x);
        py[n] = chart_map(&f->y, v);
        shown[n++] = &s->points[j];
    }
    if (n > 1)
        svg_polyline(o, px, py, n, chart_color(index), 1.8, NULL);
    for (int j = 0; j < n; ++j) {
        char tip[192];
        snprintf(tip, sizeof tip, "%s: %s=%g, %.4g %s", s->name, d->key, shown[j]->x,
                 tflops ? shown[j]->tflops : shown[j]->ms, tflops ? "TFLOP/s" : "ms");
        svg_group_begin(o, px[j], py[j], tip);
        svg_marker(o, index, 4.5, chart_color(index));
        svg_group_end(o);
    }
    free(px), free(py), free(shown);
    return 0;
}

int sweep_write_svg(const char *path, const sweep_data *d, char *err, size_t errlen)
{
    chart_frame time, rate;
    sweep_frames(d, &time, &rate);
    chart_legend_item *items = calloc((size_t)d->count + 1, sizeof *items);
    char(*texts)[160] = calloc((size_t)d->count + 1, sizeof *texts);
    if (!items || !texts) {
        free(items), free(texts);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    for (int i = 0; i < d->count; ++i) {
        snprintf(texts[i], sizeof texts[i], "%s%s", d->series[i].name,
                 d->series[i].convolves ? "" : " (no convolution: time panel only)");
        items[i] = (chart_legend_item){texts[i], chart_color(i), i, 0, 1, NULL};
    }
    char title[384], subtitle[384];
    sweep_titles(d, title, subtitle, sizeof title);
    const chart_page page = {SWEEP_SVG_WIDTH, title,   subtitle, time.top + SWEEP_SVG_PANEL_HEIGHT + 60.0, 2,
                             items,           d->count};
    outfile o;
    int rc = chart_page_open(&o, path, &page, err, errlen);
    if (rc == 0) {
        chart_draw_axes(&o, &time, chart_format_plain, chart_format_plain, d->key_title, "median time (ms)");
        chart_draw_axes(&o, &rate, chart_format_plain, chart_format_plain, d->key_title,
                        "achieved TFLOP/s (convolution FLOPs / median time)");
        for (int i = 0; i < d->count && rc == 0; ++i)
            if (draw_series(&o, &time, d, i, 0) != 0 ||
                (d->series[i].convolves && draw_series(&o, &rate, d, i, 1) != 0)) {
                outfile_abort(&o);
                snprintf(err, errlen, "%s: out of memory", path);
                rc = -1;
            }
        if (rc == 0)
            rc = chart_page_close(&o, &page, err, errlen);
    }
    free(items);
    free(texts);
    return rc;
}
