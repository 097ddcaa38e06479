/* zoo_summary.c - the one-line-per-fused-row summary of a zoo run (zoo_summary.h). */
#include "zoo_summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv_read.h"
#include "message.h"

int zoo_timings_add(zoo_timings *t, const char *shape, const char *variant, const char *family,
                    bench_precision precision, double median_ms)
{
    int s = 0;
    while (s < t->shape_count && strcmp(t->shapes[s], shape) != 0)
        ++s;
    if (s == t->shape_count) {
        char(*shapes)[64] = realloc(t->shapes, (size_t)(s + 1) * sizeof *shapes);
        if (!shapes)
            return -1;
        t->shapes = shapes;
        snprintf(t->shapes[s], sizeof t->shapes[s], "%s", shape);
        ++t->shape_count;
    }
    zoo_timing *rows = realloc(t->rows, (size_t)(t->count + 1) * sizeof *rows);
    if (!rows)
        return -1;
    t->rows = rows;
    zoo_timing *r = &t->rows[t->count++];
    r->shape = s;
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->family, sizeof r->family, "%s", family);
    r->precision = precision;
    r->median_ms = median_ms;
    return 0;
}

void zoo_timings_free(zoo_timings *t)
{
    free(t->rows);
    free(t->shapes);
    memset(t, 0, sizeof *t);
}

/* the median of the row named `variant` on shape s; 0 when it was not timed, -1 when there is no such row */
static double variant_ms(const zoo_timings *t, const char *variant, int s)
{
    for (int i = 0; i < t->count; ++i)
        if (t->rows[i].shape == s && strcmp(t->rows[i].variant, variant) == 0)
            return t->rows[i].median_ms > 0.0 ? t->rows[i].median_ms : 0.0;
    return -1.0;
}

/* the precision class of a row: a "cudnn-conv" row (the convolution alone, timing-only) by its name's end */
static bench_precision row_class(const zoo_timing *r)
{
    if (strcmp(r->family, "cudnn-conv") != 0)
        return r->precision;
    const size_t len = strlen(r->variant);
    return len >= 4 && strcmp(r->variant + len - 4, "tf32") == 0 ? BENCH_PRECISION_TF32 : BENCH_PRECISION_FP32;
}

/* the fastest timed row of `family` ("cudnn": the legacy pipeline; "cudnn-conv": its convolution alone) of a
 * precision class on shape s, or 0 */
static double fastest_ms(const zoo_timings *t, const char *family, bench_precision precision, int s)
{
    double best = 0.0;
    for (int i = 0; i < t->count; ++i) {
        const zoo_timing *r = &t->rows[i];
        if (r->shape == s && strcmp(r->family, family) == 0 && row_class(r) == precision && r->median_ms > 0.0 &&
            (best == 0.0 || r->median_ms < best))
            best = r->median_ms;
    }
    return best;
}

static int first_of_name(const zoo_timings *t, int i)
{
    for (int j = 0; j < i; ++j)
        if (strcmp(t->rows[j].variant, t->rows[i].variant) == 0)
            return 0;
    return 1;
}

/* One line: the fused row `variant` against the fastest row of `family` of its class, over the shapes. Returns 1 when
 * a line was printed (a family with no timed row on any shape prints none, except for "cudnn"). */
static int print_against(FILE *f, const zoo_timings *t, const zoo_timing *v, const char *family, const char *label)
{
    const bench_precision against = v->precision == BENCH_PRECISION_TF32 ? BENCH_PRECISION_TF32 : BENCH_PRECISION_FP32;
    int shapes = 0, compared = 0, below = 0, worst_shape = -1;
    double log_sum = 0.0, worst = 0.0;
    for (int s = 0; s < t->shape_count; ++s) {
        const double fused = variant_ms(t, v->variant, s), other = fastest_ms(t, family, against, s);
        if (fused < 0.0)
            continue;
        ++shapes;
        if (fused == 0.0 || other == 0.0)
            continue;
        const double speedup = other / fused;
        ++compared;
        log_sum += log(speedup);
        below += speedup < 1.0;
        if (worst_shape < 0 || speedup < worst) {
            worst = speedup;
            worst_shape = s;
        }
    }
    if (compared == 0 && strcmp(family, "cudnn") != 0)
        return 0;
    fprintf(f, "%s vs %s %s: ", v->variant, label, bench_precision_name(against));
    if (compared == 0)
        fprintf(f, "no shape where both were timed (of %d)\n", shapes);
    else
        fprintf(f, "%d of %d shapes, min %.2fx (%s), geometric mean %.2fx, %d below 1.0x\n", compared, shapes, worst,
                t->shapes[worst_shape], exp(log_sum / compared), below);
    return 1;
}

void zoo_summary_print(FILE *f, const zoo_timings *t)
{
    int lines = 0;
    for (int i = 0; i < t->count; ++i) {
        const zoo_timing *v = &t->rows[i];
        if (strcmp(v->family, "fused") != 0 || !first_of_name(t, i))
            continue;
        lines += print_against(f, t, v, "cudnn", "cuDNN legacy");
        print_against(f, t, v, "cudnn-conv", "cuDNN conv alone");
    }
    if (lines == 0)
        fprintf(f, "zoo summary: no fused row to compare\n");
}

static bench_precision precision_named(const char *name)
{
    for (int p = BENCH_PRECISION_FP32; p < BENCH_PRECISION_NONE; ++p)
        if (strcmp(name, bench_precision_name((bench_precision)p)) == 0)
            return (bench_precision)p;
    return BENCH_PRECISION_NONE;
}

enum { C_DEVICE, C_N, C_CIN, C_COUT, C_H, C_W, C_PADDING, C_VARIANT, C_FAMILY, C_PRECISION, C_MEDIAN, C_COUNT };
static const char *const csv_names[C_COUNT] = {"device",  "n",      "cin",       "cout",     "h",        "w",
                                               "padding", "variant", "family", "precision", "median_ms"};

int zoo_summary_read_csv(const char *path, zoo_timings *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    csv_table table;
    if (csv_read_file(path, &table, err, errlen) != 0)
        return -1;
    int col[C_COUNT];
    for (int c = 0; c < C_COUNT; ++c)
        if ((col[c] = csv_column(&table, csv_names[c])) < 0) {
            message_prefixed(err, errlen, path, "no column \"%s\": not a CSV of `cgp bench --zoo --csv`", csv_names[c]);
            csv_free(&table);
            return -1;
        }
    const int gpu_col = csv_column(&table, "gpu_ms"); /* the verdict where the run has it (older CSVs: median_ms) */
    if (table.rows > 0)
        snprintf(t->device, sizeof t->device, "%s", csv_cell(&table, 0, col[C_DEVICE]));
    int rc = 0;
    for (int r = 0; r < table.rows && rc == 0; ++r) {
        char where[600], shape[64];
        snprintf(where, sizeof where, "%s:%ld", path, table.lines[r]);
        const char *device = csv_cell(&table, r, col[C_DEVICE]), *ms = csv_cell(&table, r, col[C_MEDIAN]);
        if (gpu_col >= 0 && csv_cell(&table, r, gpu_col)[0])
            ms = csv_cell(&table, r, gpu_col);
        char *end = NULL;
        const double median = ms[0] ? strtod(ms, &end) : 0.0;
        if (strcmp(device, t->device) != 0) {
            message_prefixed(err, errlen, where, "device \"%s\" differs from line %ld's \"%s\"", device,
                             table.lines[0], t->device);
            rc = -1;
        } else if (ms[0] && (*end != '\0' || !(median > 0.0) || !isfinite(median))) {
            message_prefixed(err, errlen, where, "median_ms must be a positive number or empty, got \"%s\"", ms);
            rc = -1;
        } else {
            snprintf(shape, sizeof shape, "%sx%sx%sx%sx%s %s", csv_cell(&table, r, col[C_N]),
                     csv_cell(&table, r, col[C_CIN]), csv_cell(&table, r, col[C_COUT]), csv_cell(&table, r, col[C_H]),
                     csv_cell(&table, r, col[C_W]), csv_cell(&table, r, col[C_PADDING]));
            if (zoo_timings_add(t, shape, csv_cell(&table, r, col[C_VARIANT]), csv_cell(&table, r, col[C_FAMILY]),
                                precision_named(csv_cell(&table, r, col[C_PRECISION])), median) != 0) {
                message_prefixed(err, errlen, path, "out of memory");
                rc = -1;
            }
        }
    }
    csv_free(&table);
    if (rc != 0)
        zoo_timings_free(t);
    return rc;
}
