/*
 * cpu_svg_layout.c - no text leaves the picture. Every <text> of an SVG gets a box from svg_text_width
 * (host/plot/svg.h: an upper bound of the width in DejaVu Sans) and SVG_TEXT_ASCENT / SVG_TEXT_DESCENT around
 * its baseline, placed by its text-anchor, rotated by its rotate(a cx cy) and moved by the translate(x,y) of
 * the groups around it; every corner must lie inside the viewBox. Checked on the committed charts
 * (every .svg in results/h200; CGP_RESULTS_DIR names another folder) and on charts written here with long titles,
 * long labels, unbreakable words and many rows: the roofline chart in one and two legend columns, the
 * speedup chart and the sweep chart. The checker is first shown to catch text that leaves the picture,
 * rotated, anchored or in a translated group.
 *
 *     make build/tests/cpu_svg_layout && build/tests/cpu_svg_layout
 *
 * Environment: CGP_TEST_TMP (default /tmp) for scratch files, CGP_RESULTS_DIR (default results/h200).
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv_read.h"
#include "roofline_svg.h"
#include "speedup_svg.h"
#include "svg.h"
#include "sweep_plot.h"
#include "testlib.h"

static char scratch[512];

/* ---- the checker ---- */

/* the value of attribute `name` of the tag [tag, end) into out; 0 when the tag has none */
static int attribute(const char *tag, const char *end, const char *name, char *out, size_t cap)
{
    char key[48];
    snprintf(key, sizeof key, " %s=\"", name);
    const size_t klen = strlen(key);
    for (const char *s = tag; s + klen <= end; ++s) {
        if (strncmp(s, key, klen) != 0)
            continue;
        const char *v = s + klen, *q = memchr(v, '"', (size_t)(end - v));
        if (!q)
            return 0;
        snprintf(out, cap, "%.*s", (int)(q - v), v);
        return 1;
    }
    return 0;
}

/* text between > and </text> with the five entities decoded */
static void decode(const char *s, const char *end, char *out, size_t cap)
{
    static const struct {
        const char *entity;
        char c;
    } entities[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    size_t n = 0;
    while (s < end && n + 1 < cap) {
        int matched = 0;
        for (size_t i = 0; *s == '&' && i < sizeof entities / sizeof entities[0]; ++i)
            if (strncmp(s, entities[i].entity, strlen(entities[i].entity)) == 0) {
                out[n++] = entities[i].c;
                s += strlen(entities[i].entity);
                matched = 1;
                break;
            }
        if (!matched)
            out[n++] = *s++;
    }
    out[n] = '\0';
}

typedef struct box_check {
    double width, height; /* the viewBox (from 0, 0) */
    int texts;            /* <text> elements checked */
} box_check;

/* NULL when every text of the SVG lies inside its viewBox, else why (in why) */
static const char *check_text_extents(const char *svg, box_check *b, char *why, size_t cap)
{
    b->texts = 0;
    const char *root = strstr(svg, "<svg ");
    const char *root_end = root ? strchr(root, '>') : NULL;
    char view[96], w_attr[32], h_attr[32];
    double x0 = 1, y0 = 1;
    if (!root_end || !attribute(root, root_end, "viewBox", view, sizeof view) ||
        sscanf(view, "%lf %lf %lf %lf", &x0, &y0, &b->width, &b->height) != 4 || x0 != 0.0 || y0 != 0.0)
        return "no <svg> root with a viewBox \"0 0 W H\"";
    if (!attribute(root, root_end, "width", w_attr, sizeof w_attr) ||
        !attribute(root, root_end, "height", h_attr, sizeof h_attr) || atof(w_attr) != b->width ||
        atof(h_attr) != b->height)
        return "width and height differ from the viewBox";
    double tx[64] = {0}, ty[64] = {0};
    int depth = 0;
    for (const char *s = strchr(root_end, '<'); s; s = strchr(s + 1, '<')) {
        const char *end = strchr(s, '>');
        if (!end)
            return "an unterminated tag";
        if (strncmp(s, "</g>", 4) == 0) {
            depth -= depth > 0;
            continue;
        }
        if (strncmp(s, "<g", 2) == 0 && (s[2] == ' ' || s[2] == '>') && end[-1] != '/') {
            char t[96];
            double dx = 0.0, dy = 0.0;
            if (attribute(s, end, "transform", t, sizeof t) && sscanf(t, "translate(%lf,%lf)", &dx, &dy) != 2)
                return "a group transform other than translate(x,y)";
            if (depth == 63)
                return "groups nested too deeply";
            tx[depth + 1] = tx[depth] + dx;
            ty[depth + 1] = ty[depth] + dy;
            ++depth;
            continue;
        }
        if (strncmp(s, "<text ", 6) != 0)
            continue;
        const char *close = strstr(end, "</text>");
        char xs[32], ys[32], size[32], anchor[16] = "start", transform[96], text[2048];
        if (!close || !attribute(s, end, "x", xs, sizeof xs) || !attribute(s, end, "y", ys, sizeof ys) ||
            !attribute(s, end, "font-size", size, sizeof size))
            return "a <text> without x, y, font-size or </text>";
        attribute(s, end, "text-anchor", anchor, sizeof anchor);
        decode(end + 1, close, text, sizeof text);
        const double x = atof(xs), y = atof(ys), fs = atof(size), w = svg_text_width(text, fs);
        const double left = strcmp(anchor, "middle") == 0 ? x - 0.5 * w : strcmp(anchor, "end") == 0 ? x - w : x;
        double angle = 0.0, cx = x, cy = y;
        if (attribute(s, end, "transform", transform, sizeof transform) &&
            sscanf(transform, "rotate(%lf %lf %lf)", &angle, &cx, &cy) != 3)
            return "a text transform other than rotate(a cx cy)";
        const double rad = angle * 3.14159265358979323846 / 180.0, c = cos(rad), sn = sin(rad);
        const double corners[4][2] = {{left, y - SVG_TEXT_ASCENT * fs},
                                      {left + w, y - SVG_TEXT_ASCENT * fs},
                                      {left, y + SVG_TEXT_DESCENT * fs},
                                      {left + w, y + SVG_TEXT_DESCENT * fs}};
        for (int k = 0; k < 4; ++k) {
            const double px = cx + (corners[k][0] - cx) * c - (corners[k][1] - cy) * sn + tx[depth];
            const double py = cy + (corners[k][0] - cx) * sn + (corners[k][1] - cy) * c + ty[depth];
            if (px < -0.01 || py < -0.01 || px > b->width + 0.01 || py > b->height + 0.01) {
                snprintf(why, cap,
                         "text '%.60s' (%.1f px at (%s, %s), %s, font %s%s%s) reaches (%.1f, %.1f), outside 0 0 "
                         "%g %g",
                         text, w, xs, ys, anchor, size, angle != 0.0 ? ", " : "", angle != 0.0 ? transform : "", px, py,
                         b->width, b->height);
                return why;
            }
        }
        ++b->texts;
    }
    return NULL;
}

/* PASS when the file's texts all lie inside its picture (and there are at least min_texts of them) */
static void expect_inside(const char *name, const char *path, int min_texts)
{
    char *svg = test_read_text(path);
    if (!svg) {
        TEST_FAIL(name, "cannot read %s", path);
        return;
    }
    box_check b;
    char why[640];
    const char *bad = check_text_extents(svg, &b, why, sizeof why);
    free(svg);
    if (bad)
        TEST_FAIL(name, "%s: %s", path, bad);
    else
        TEST_EXPECT(name, b.texts >= min_texts, "%s: %d texts, expected at least %d", path, b.texts, min_texts);
}

/* ---- the checker catches what it is there for ---- */

static void expect_checker(const char *name, const char *body, int inside)
{
    char svg[1024];
    snprintf(svg, sizeof svg,
             "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" "
             "height=\"50\" viewBox=\"0 0 100 50\">\n%s</svg>\n",
             body);
    box_check b;
    char why[640];
    const char *bad = check_text_extents(svg, &b, why, sizeof why);
    TEST_EXPECT(name, inside ? bad == NULL : bad != NULL, "%s", bad ? bad : "accepted");
}

static void test_checker(void)
{
    const char *t = "<text x=\"%s\" y=\"%s\" font-size=\"10.0\" text-anchor=\"%s\" fill=\"#000\"%s>%s</text>\n";
    char body[512];
    snprintf(body, sizeof body, t, "10", "20", "start", "", "abc");
    expect_checker("checker: a short text inside", body, 1);
    snprintf(body, sizeof body, t, "80", "20", "start", "", "abcd"); /* 4 x 6.4 px from 80: 105.6 */
    expect_checker("checker: text past the right edge", body, 0);
    snprintf(body, sizeof body, t, "99", "20", "end", "", "abcd");
    expect_checker("checker: the same anchored at its end, inside", body, 1);
    snprintf(body, sizeof body, t, "5", "20", "middle", "", "abcd");
    expect_checker("checker: centred text past the left edge", body, 0);
    snprintf(body, sizeof body, t, "10", "5", "start", "", "a");
    expect_checker("checker: text above the top (ascent)", body, 0);
    snprintf(body, sizeof body, t, "10", "48", "start", "", "a");
    expect_checker("checker: text below the bottom (descent)", body, 0);
    snprintf(body, sizeof body, t, "10", "45", "start", " transform=\"rotate(-90.00 10.00 45.00)\"",
             "abcdefghijklmnop");
    expect_checker("checker: rotated text past the top", body, 0);
    snprintf(body, sizeof body, t, "10", "45", "start", " transform=\"rotate(-90.00 10.00 45.00)\"", "abc");
    expect_checker("checker: short rotated text inside", body, 1);
    snprintf(body, sizeof body,
             "<g transform=\"translate(80.00,0.00)\"><title>x</title>\n<circle r=\"1\"/>\n</g>\n"
             "<g transform=\"translate(80.00,0.00)\">\n<text x=\"10\" y=\"20\" font-size=\"10\">ab</text>"
             "\n</g>\n");
    expect_checker("checker: text in a translated group", body, 0);
    snprintf(body, sizeof body, "<g transform=\"translate(80.00,0.00)\"></g>\n%s",
             "<text x=\"70\" y=\"20\" font-size=\"10\">ab</text>\n");
    expect_checker("checker: a closed group moves nothing after it", body, 1);
    snprintf(body, sizeof body, t, "40", "20", "start", "", "&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;"); /* 8 '&' */
    expect_checker("checker: entities count as the character (8 x 8.4 px from 40)", body, 0);
    TEST_EXPECT("width: per-character classes",
                svg_text_width("mW", 10.0) == 20.0 && fabs(svg_text_width("il", 10.0) - 8.4) < 1e-12 &&
                    fabs(svg_text_width("A1", 10.0) - 14.8) < 1e-12 && svg_text_width("\xc3\xa9", 10.0) == 10.0,
                "%g %g %g", svg_text_width("mW", 10.0), svg_text_width("il", 10.0), svg_text_width("A1", 10.0));
    TEST_EXPECT("fit: breaks at the last space that fits",
                svg_text_fit("abc def ghi", 10.0, 50.0) == 7 && svg_text_fit("abc def", 10.0, 500.0) == 7 &&
                    svg_text_fit("abcdefghijkl", 10.0, 32.0) == 5 && svg_text_fit("abc", 10.0, 1.0) == 1,
                "%zu %zu %zu %zu", svg_text_fit("abc def ghi", 10.0, 50.0), svg_text_fit("abc def", 10.0, 500.0),
                svg_text_fit("abcdefghijkl", 10.0, 32.0), svg_text_fit("abc", 10.0, 1.0));
}

/* ---- charts written here, with long texts and many rows ---- */

/* a long label: words of mixed widths, with capitals and wide characters, and one unbreakable word */
static void long_text(char *buf, size_t cap, int index, int words)
{
    static const char *const vocabulary[] = {"fused",    "WWWWMMMM", "3xtf32-v8", "%%%%",    "Winograd", "F(4x4,3x3)",
                                             "executed", "mmmmwwww", "<&>",       "TFLOP/s", "DRAM",     "bandwidth"};
    size_t n = (size_t)snprintf(buf, cap, "%d:", index);
    for (int i = 0; i < words && n + 1 < cap; ++i)
        n += (size_t)snprintf(buf + n, cap - n, " %s", vocabulary[(i * 7 + index) % 12]);
    if (n + 1 < cap)
        snprintf(buf + n, cap - n, " %s",
                 "ABCDEFGHIJKLMNOPQRSTUVWXYZWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWM"
                 "WMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMWMW");
}

#define ROWS 40

static void test_generated_roofline(int columns)
{
    static char texts[ROWS][600], labels[ROWS][16], title[700], notes[3][900];
    const char *series[ROWS], *note_ptrs[3];
    chart_point pts[ROWS];
    for (int i = 0; i < ROWS; ++i) {
        long_text(texts[i], sizeof texts[i], i, 10 + i % 30);
        series[i] = texts[i];
        snprintf(labels[i], sizeof labels[i], "%d", 100 + i);
        const double ai = pow(10.0, -1.0 + 5.0 * i / ROWS), flops = pow(10.0, 9.0 + 6.0 * ((i * 13) % ROWS) / ROWS);
        pts[i] = (chart_point){
            i, labels[i], texts[i], ai, flops, i % 3 ? 0.0 : ai * 3.0, i % 3 ? 0.0 : flops * 3.0};
    }
    long_text(title, sizeof title, 0, 60);
    for (int k = 0; k < 3; ++k) {
        long_text(notes[k], sizeof notes[k], k, 90);
        note_ptrs[k] = notes[k];
    }
    const roofline_datasheet sheet = {"Device", "sheet", 7e13, 5e14, 5e12};
    const roofline_chart chart = {{title, title, series, ROWS, note_ptrs, 3, columns, pts, ROWS},
                                  {4e12, 1e13, 3e13, 6e13, 3e14, 4e14, 4e12, 4e12, 2e12, 1e12},
                                  &sheet,
                                  4e13,
                                  283.46,
                                  16.9};
    char path[600], err[512], name[96];
    snprintf(path, sizeof path, "%s/roofline_%d.svg", scratch, columns);
    snprintf(name, sizeof name, "generated roofline chart, %d legend column(s), long labels", columns);
    if (roofline_svg_write(path, &chart, err, sizeof err) != 0)
        TEST_FAIL(name, "%s", err);
    else
        expect_inside(name, path, 2 * ROWS);
    unlink(path);
}

static void test_generated_speedup(void)
{
    static char texts[3][600], labels[ROWS][16], title[700], notes[ROWS][600];
    const char *series[3], *note_ptrs[ROWS];
    chart_point pts[ROWS];
    for (int i = 0; i < 3; ++i) {
        long_text(texts[i], sizeof texts[i], i, 40);
        series[i] = texts[i];
    }
    for (int i = 0; i < ROWS; ++i) {
        snprintf(labels[i], sizeof labels[i], "%d", i + 1);
        long_text(notes[i], sizeof notes[i], i, 5 + i);
        note_ptrs[i] = notes[i];
        pts[i] = (chart_point){
            i % 3, labels[i], NULL, pow(10.0, 4.0 + 6.0 * i / ROWS), pow(10.0, -1.5 + 3.0 * i / ROWS), 0.0, 0.0};
    }
    long_text(title, sizeof title, 0, 60);
    const chart_scatter chart = {title, title, series, 3, note_ptrs, ROWS, 2, pts, ROWS};
    char path[600], err[512];
    snprintf(path, sizeof path, "%s/speedup.svg", scratch);
    if (speedup_svg_write(path, &chart, err, sizeof err) != 0)
        TEST_FAIL("generated speedup chart, long labels", "%s", err);
    else
        expect_inside("generated speedup chart, long labels", path, ROWS);
    unlink(path);
}

static void test_generated_sweep(void)
{
    static char csv[1 << 20];
    size_t n = (size_t)snprintf(csv, sizeof csv,
                                "date,device,driver,cuda,cudnn,commit,n,cin,cout,h,w,padding,seed,"
                                "variant,family,precision,status,median_ms,min_ms,max_ms,tflops,"
                                "bytes_moved,gbps,rel_l2_error,max_abs_error,fused_speedup,detail\n");
    char device[400], variant[300];
    long_text(device, sizeof device, 0, 40);
    for (char *c = device; *c; ++c)
        *c = *c == '"' ? '\'' : *c;
    for (int v = 0; v < 24; ++v) {
        long_text(variant, sizeof variant, v, 4 + v);
        for (int k = 1; k <= 512 && n < sizeof csv; k *= 4)
            n += (size_t)snprintf(
                csv + n, sizeof csv - n,
                "2026-01-01T00:00:00Z,\"%s\",580,13.0,9.14,abc,%d,8,64,256,256,valid,1,\"%s\",fused,%s,"
                "pass,%g,,,%g,1000,1,,,,\"\"\n",
                device, k, variant, v % 5 ? "fp32" : "n/a", 0.01 * k * (v + 1), 5.0 + k / 16.0 + v);
    }
    csv_table t;
    sweep_data d;
    char err[512], path[600];
    snprintf(path, sizeof path, "%s/sweep.svg", scratch);
    if (csv_parse(csv, strlen(csv), "sweep.csv", &t, err, sizeof err) != 0) {
        TEST_FAIL("generated sweep chart, long labels", "%s", err);
        return;
    }
    const int rc = sweep_from_csv(&t, "sweep.csv", &d, err, sizeof err);
    csv_free(&t);
    if (rc != 0) {
        TEST_FAIL("generated sweep chart, long labels", "%s", err);
        return;
    }
    if (sweep_write_svg(path, &d, err, sizeof err) != 0)
        TEST_FAIL("generated sweep chart, long labels", "%s", err);
    else
        expect_inside("generated sweep chart, long labels", path, 24);
    sweep_free(&d);
    unlink(path);
}

/* ---- the committed charts ---- */

static void test_committed(void)
{
    const char *dir = getenv("CGP_RESULTS_DIR") ? getenv("CGP_RESULTS_DIR") : "results/h200";
    DIR *d = opendir(dir);
    if (!d) {
        TEST_SKIP("committed charts", "no folder %s (run from the repository root)", dir);
        return;
    }
    int found = 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d)) {
        const size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".svg") != 0)
            continue;
        char path[1024], name[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(name, sizeof name, "committed chart %s", e->d_name);
        expect_inside(name, path, 10);
        ++found;
    }
    closedir(d);
    if (!found)
        TEST_SKIP("committed charts", "no .svg in %s", dir);
}

int main(void)
{
    if (test_scratch_dir(scratch, sizeof scratch, "cpu_svg_layout") != 0)
        return test_exit_code();
    test_checker();
    test_generated_roofline(1);
    test_generated_roofline(2);
    test_generated_speedup();
    test_generated_sweep();
    test_committed();
    rmdir(scratch);
    return test_exit_code();
}
