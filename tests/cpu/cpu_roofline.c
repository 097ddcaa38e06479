/*
 * cpu_roofline.c - CPU tests of the roofline and plotting code of `cgp roofline` and `cgp plot`:
 * the model arithmetic (host/plot/roofline_model.c) on the default problem and others, the SVG
 * writer (host/plot/svg.c, host/plot/chart.c) producing well-formed XML with escaped text (checked by a
 * small XML checker below), the roofline chart (host/plot/roofline_svg.c), the speedup chart
 * (host/plot/speedup_svg.c) and the sweep chart (host/plot/sweep_plot.c) placing points where their numbers
 * say, what each kernel executes and the percentages against the roof of its pipe, and the CSV reader
 * (host/io/csv_read.c) on good and malformed input.
 *
 *     make build/tests/cpu_roofline && build/tests/cpu_roofline
 *
 * Environment: CGP_TEST_TMP (default /tmp) for scratch files.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart.h"
#include "csv_read.h"
#include "roofline_model.h"
#include "roofline_svg.h"
#include "speedup_svg.h"
#include "svg.h"
#include "sweep_plot.h"
#include "testlib.h"

static char scratch[512];

static int close_to(double a, double b, double rel) { return fabs(a - b) <= rel * fabs(b); }

/* ---- a tiny XML checker: tags balanced and named, attributes quoted, entities known ---- */

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == ':';
}

/* at '&': the length of a known entity, or 0 */
static size_t entity_length(const char *s)
{
    static const char *const known[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i)
        if (strncmp(s, known[i], strlen(known[i])) == 0)
            return strlen(known[i]);
    return 0;
}

/* NULL when xml is one well-formed element named root (after an optional <?xml ...?>), else why */
static const char *xml_check(const char *xml, const char *root, char *why, size_t cap)
{
    const char *stack[64];
    size_t lengths[64];
    int depth = 0, roots = 0;
    const char *s = xml;
    if (strncmp(s, "<?xml", 5) == 0) {
        s = strstr(s, "?>");
        if (!s)
            return "unterminated <?xml";
        s += 2;
    }
    while (*s) {
        if (*s == '&') {
            const size_t n = entity_length(s);
            if (!n) {
                snprintf(why, cap, "unknown entity at offset %ld", (long)(s - xml));
                return why;
            }
            s += n;
            continue;
        }
        if (*s != '<') {
            if (depth == 0 && *s != '\n' && *s != ' ') {
                snprintf(why, cap, "text outside the root at offset %ld", (long)(s - xml));
                return why;
            }
            ++s;
            continue;
        }
        if (strncmp(s, "<!--", 4) == 0) {
            s = strstr(s, "-->");
            if (!s)
                return "unterminated comment";
            s += 3;
            continue;
        }
        const int closing = s[1] == '/';
        const char *name = s + 1 + closing;
        size_t len = 0;
        while (name_char(name[len]))
            ++len;
        if (len == 0) {
            snprintf(why, cap, "a tag without a name at offset %ld", (long)(s - xml));
            return why;
        }
        s = name + len;
        if (closing) {
            if (*s != '>')
                return "junk in a closing tag";
            if (depth == 0 || lengths[depth - 1] != len || strncmp(stack[depth - 1], name, len) != 0) {
                snprintf(why, cap, "</%.*s> does not close the open element at offset %ld", (int)len, name,
                         (long)(name - xml));
                return why;
            }
            --depth;
            ++s;
            continue;
        }
        for (;;) { /* attributes */
            while (*s == ' ' || *s == '\n')
                ++s;
            if (*s == '>' || (s[0] == '/' && s[1] == '>'))
                break;
            size_t an = 0;
            while (name_char(s[an]))
                ++an;
            if (an == 0 || s[an] != '=' || s[an + 1] != '"') {
                snprintf(why, cap, "a malformed attribute at offset %ld", (long)(s - xml));
                return why;
            }
            s += an + 2;
            while (*s && *s != '"') {
                if (*s == '<' || (*s == '&' && !entity_length(s))) {
                    snprintf(why, cap, "an unescaped '%c' in an attribute at offset %ld", *s, (long)(s - xml));
                    return why;
                }
                ++s;
            }
            if (*s != '"')
                return "an unterminated attribute value";
            ++s;
        }
        if (depth == 0)
            ++roots;
        if (depth == 0 && (len != strlen(root) || strncmp(name, root, len) != 0)) {
            snprintf(why, cap, "the root is <%.*s>, expected <%s>", (int)len, name, root);
            return why;
        }
        if (*s == '/') {
            s += 2;
            continue;
        }
        if (depth == 64)
            return "nested too deeply";
        stack[depth] = name;
        lengths[depth++] = len;
        ++s;
    }
    if (depth != 0) {
        snprintf(why, cap, "%d element(s) left open, the innermost <%.*s>", depth, (int)lengths[depth - 1],
                 stack[depth - 1]);
        return why;
    }
    return roots == 1 ? NULL : "not exactly one root element";
}

static void path_of(char *buf, size_t cap, const char *file) { snprintf(buf, cap, "%s/%s", scratch, file); }

/* ---- the model ---- */

static void test_model(void)
{
    roofline_model m;
    const roofline_shape def = {128, 8, 64, 256, 256, 0};
    const int rc = roofline_model_compute(&def, &m);
    TEST_EXPECT("model default: output size", rc == 0 && m.hout == 254 && m.wout == 254, "rc %d, %lld x %lld", rc,
                (long long)m.hout, (long long)m.wout);
    /* 2 * 128 * 64 * 254 * 254 * 8 * 9 */
    TEST_EXPECT("model default: conv FLOPs 76.1 G", m.conv_flops == 76106170368.0, "%.0f", m.conv_flops);
    TEST_EXPECT("model default: GELUs 528.5 M", m.gelu_count == 528515072.0, "%.0f", m.gelu_count);
    TEST_EXPECT("model default: x 268.4 MB", m.x_bytes == 268435456.0, "%.0f", m.x_bytes);
    TEST_EXPECT("model default: weights, bias, y", m.w_bytes == 18432.0 && m.b_bytes == 256.0 && m.y_bytes == 32768.0,
                "%.0f %.0f %.0f", m.w_bytes, m.b_bytes, m.y_bytes);
    TEST_EXPECT("model default: minimal bytes", m.min_bytes == 268486912.0, "%.0f", m.min_bytes);
    TEST_EXPECT("model default: intensity 283.5 FLOP/B", close_to(m.intensity, 76106170368.0 / 268486912.0, 1e-15) &&
                                                             m.intensity > 283.4 && m.intensity < 283.5,
                "%.6f", m.intensity);

    const roofline_shape same = {2, 3, 5, 7, 11, 1};
    roofline_model s;
    roofline_model_compute(&same, &s);
    TEST_EXPECT("model same padding", s.hout == 7 && s.wout == 11 && s.conv_flops == 2.0 * 2 * 5 * 7 * 11 * 3 * 9 &&
                                          s.gelu_count == 2.0 * 5 * 7 * 11 && s.min_bytes == 4.0 * (2 * 3 * 7 * 11 + 5 * 3 * 9 + 5 + 2 * 5),
                "%lld x %lld, %.0f FLOP, %.0f B", (long long)s.hout, (long long)s.wout, s.conv_flops, s.min_bytes);
    const roofline_shape none = {1, 1, 1, 2, 5, 0}, bad = {1, 0, 1, 5, 5, 0}, one = {1, 1, 1, 1, 1, 1};
    TEST_EXPECT("model refuses no output pixel", roofline_model_compute(&none, &s) == -1 && s.conv_flops == 0.0,
                "accepted H=2 valid");
    TEST_EXPECT("model refuses Cin=0", roofline_model_compute(&bad, &s) == -1, "accepted Cin=0");
    TEST_EXPECT("model 1x1 same", roofline_model_compute(&one, &s) == 0 && s.hout == 1 && s.conv_flops == 18.0,
                "%.0f", s.conv_flops);

    TEST_EXPECT("model default: intermediate and unfused bytes",
                m.intermediate_bytes == 4.0 * 528515072.0 && m.unfused_bytes == 268486912.0 + 8.0 * 528515072.0 &&
                    close_to(m.unfused_intensity, 76106170368.0 / m.unfused_bytes, 1e-15),
                "%.0f %.0f %.4f", m.intermediate_bytes, m.unfused_bytes, m.unfused_intensity);

    /* dram, l2, smem, ffma, mma.sync, wgmma, ex2, rcp, gelu_fast, gelu_erff */
    const roofline_ceilings c = {4e12, 1e13, 3e13, 6e13, 3e14, 4.5e14, 4e12, 4e12, 2e12, 1e12};
    roofline_floors f;
    roofline_floors_compute(&m, &c, &f);
    TEST_EXPECT("floors: memory", close_to(f.memory_ms, 268486912.0 / 4e12 * 1e3, 1e-12), "%.6f ms", f.memory_ms);
    TEST_EXPECT("floors: FFMA", close_to(f.ffma_ms, 76106170368.0 / 6e13 * 1e3, 1e-12), "%.6f ms", f.ffma_ms);
    TEST_EXPECT("floors: mma.sync, wgmma, and 3xTF32 on the faster (wgmma)",
                close_to(f.mma_sync_ms, 76106170368.0 / 3e14 * 1e3, 1e-12) &&
                    close_to(f.wgmma_ms, 76106170368.0 / 4.5e14 * 1e3, 1e-12) && f.tensor_ms == f.wgmma_ms &&
                    close_to(f.tensor_x3_ms, 3.0 * f.wgmma_ms, 1e-12),
                "%.6f %.6f %.6f ms", f.mma_sync_ms, f.wgmma_ms, f.tensor_x3_ms);
    TEST_EXPECT("floors: GELU (gelu_fast rate), MUFU (one ex2 per GELU)",
                close_to(f.gelu_ms, 528515072.0 / 2e12 * 1e3, 1e-12) &&
                    close_to(f.mufu_ms, 528515072.0 / 4e12 * 1e3, 1e-12),
                "%.6f %.6f ms", f.gelu_ms, f.mufu_ms);
    TEST_EXPECT("floors: fp32 kernel = FFMA + GELU", close_to(f.fp32_kernel_ms, f.ffma_ms + f.gelu_ms, 1e-12),
                "%.6f ms", f.fp32_kernel_ms);
    TEST_EXPECT("floors: tf32 kernels = max(tensor, GELU)",
                f.tf32_kernel_ms == fmax(f.tensor_ms, f.gelu_ms) &&
                    f.tf32x3_kernel_ms == fmax(f.tensor_x3_ms, f.gelu_ms),
                "%.6f %.6f", f.tf32_kernel_ms, f.tf32x3_kernel_ms);
    const roofline_ceilings partial = {
        .dram_bytes_per_s = 4e12, .ffma_flops_per_s = 6e13, .mma_sync_flops_per_s = 3e14};
    roofline_floors_compute(&m, &partial, &f);
    TEST_EXPECT("floors: NaN where a ceiling is missing; TF32 falls back to mma.sync without wgmma",
                isnan(f.wgmma_ms) && isnan(f.gelu_ms) && isnan(f.fp32_kernel_ms) && isnan(f.tf32_kernel_ms) &&
                    isnan(f.mufu_ms) && !isnan(f.memory_ms) && !isnan(f.ffma_ms) && f.tensor_ms == f.mma_sync_ms,
                "wgmma %g gelu %g fp32k %g tensor %g", f.wgmma_ms, f.gelu_ms, f.fp32_kernel_ms, f.tensor_ms);
}

/* ---- what each kernel executes, and percentages against the right roof ---- */

static void test_kernel_work(void)
{
    TEST_EXPECT("Winograd F(2x2,3x3): 16 products per 4 outputs", roofline_winograd_ffma_per_output(2) == 4.0, "%g",
                roofline_winograd_ffma_per_output(2));
    TEST_EXPECT("Winograd F(4x4,3x3): 36 products per 16 outputs", roofline_winograd_ffma_per_output(4) == 2.25, "%g",
                roofline_winograd_ffma_per_output(4));
    /* descriptive names as `cgp kernels` prints them (cpu_paths reads every version's own through the model) */
    static const char f4x4[] = "ffma winograd-f4x4, 16x32x64 8w, cp.async, w resident, persistent";
    static const char f2x2[] = "ffma winograd-f2x2, 2 tiles 16w, cp.async, w/tile, split-K 1/2/4";
    static const char ffma_direct[] = "ffma direct, 16x32x64 8w, cp.async, w resident, persistent";
    static const char ffma_gemm[] = "ffma implicit-gemm, 6 tiles, cp.async, w/tile, split-K 1/2/8";
    static const char mma_sync[] = "mma.sync, warp 4x16x64 8w, cp.async, w resident, persistent";
    static const char wgmma[] = "wgmma, 6 tiles, tma, w resident, persistent, A in regs";
    const struct {
        const char *kind;
        roofline_math math;
        roofline_pipe pipe;
        double executed;
        int from_kind;
    } cases[] = {
        {f4x4, ROOFLINE_MATH_FP32, ROOFLINE_PIPE_FFMA, 0.25, 1},
        {f2x2, ROOFLINE_MATH_FP32, ROOFLINE_PIPE_FFMA, 4.0 / 9.0, 1},
        {"ffma winograd-f2x2", ROOFLINE_MATH_FP32, ROOFLINE_PIPE_FFMA, 4.0 / 9.0, 1}, /* the name's last word */
        {ffma_direct, ROOFLINE_MATH_FP32, ROOFLINE_PIPE_FFMA, 1.0, 1},
        {ffma_gemm, ROOFLINE_MATH_FP32, ROOFLINE_PIPE_FFMA, 1.0, 1},
        {mma_sync, ROOFLINE_MATH_TF32, ROOFLINE_PIPE_MMA_SYNC, 1.0, 1},
        {wgmma, ROOFLINE_MATH_TF32, ROOFLINE_PIPE_WGMMA, 1.0, 1},
        {"wgmma", ROOFLINE_MATH_TF32, ROOFLINE_PIPE_WGMMA, 1.0, 1},
        {mma_sync, ROOFLINE_MATH_3XTF32, ROOFLINE_PIPE_MMA_SYNC, 3.0, 1},
        {wgmma, ROOFLINE_MATH_3XTF32, ROOFLINE_PIPE_WGMMA, 3.0, 1},
        {NULL, ROOFLINE_MATH_FP32, ROOFLINE_PIPE_FFMA, 1.0, 0},      /* cuDNN fp32, unfused */
        {NULL, ROOFLINE_MATH_TF32, ROOFLINE_PIPE_TF32_BEST, 1.0, 0}, /* cuDNN tf32 */
        {NULL, ROOFLINE_MATH_3XTF32, ROOFLINE_PIPE_TF32_BEST, 3.0, 0},
        {"", ROOFLINE_MATH_FP32, ROOFLINE_PIPE_FFMA, 1.0, 0},
        {wgmma, ROOFLINE_MATH_FP32, ROOFLINE_PIPE_FFMA, 1.0, 0},               /* the kind disagrees with the math */
        {f4x4, ROOFLINE_MATH_TF32, ROOFLINE_PIPE_TF32_BEST, 1.0, 0},
        {"ffma", ROOFLINE_MATH_FP32, ROOFLINE_PIPE_FFMA, 1.0, 0},              /* no algorithm */
        {"ffma winograd-f6x6, 2 tiles", ROOFLINE_MATH_FP32, ROOFLINE_PIPE_FFMA, 1.0, 0}, /* an unknown one */
        {"ffma winograd-f4x4x, 2 tiles", ROOFLINE_MATH_FP32, ROOFLINE_PIPE_FFMA, 1.0, 0},
        {"ffmax direct, 2 tiles", ROOFLINE_MATH_FP32, ROOFLINE_PIPE_FFMA, 1.0, 0},
        {"wgmma2, 6 tiles", ROOFLINE_MATH_TF32, ROOFLINE_PIPE_TF32_BEST, 1.0, 0},
        {"tf32-v8", ROOFLINE_MATH_TF32, ROOFLINE_PIPE_TF32_BEST, 1.0, 0},     /* a version's number is no kind */
        {NULL, ROOFLINE_MATH_NONE, ROOFLINE_PIPE_NONE, 0.0, 0},               /* a layout conversion */
        {wgmma, ROOFLINE_MATH_NONE, ROOFLINE_PIPE_NONE, 0.0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const roofline_work w = roofline_kind_work(cases[i].kind, cases[i].math);
        char name[160];
        snprintf(name, sizeof name, "kind work: %s (math %d)", cases[i].kind ? cases[i].kind : "baseline",
                 (int)cases[i].math);
        TEST_EXPECT(name,
                    w.pipe == cases[i].pipe && close_to(w.executed_per_direct, cases[i].executed, 1e-15) &&
                        w.from_kind == cases[i].from_kind,
                    "pipe %d (%s), executed %g, from_kind %d", (int)w.pipe, roofline_pipe_name(w.pipe),
                    w.executed_per_direct, w.from_kind);
    }
    TEST_EXPECT("math names", strcmp(roofline_math_name(ROOFLINE_MATH_FP32), "fp32") == 0 &&
                                  strcmp(roofline_math_name(ROOFLINE_MATH_TF32), "tf32") == 0 &&
                                  strcmp(roofline_math_name(ROOFLINE_MATH_3XTF32), "3xtf32") == 0 &&
                                  strcmp(roofline_math_name(ROOFLINE_MATH_NONE), "n/a") == 0,
                "wrong name");
    const roofline_work v9 = roofline_kind_work(f4x4, ROOFLINE_MATH_FP32);
    TEST_EXPECT("kind work: fp32-v9's kind is Winograd F(4x4,3x3)", strcmp(v9.algorithm, "Winograd F(4x4,3x3)") == 0,
                "'%s'", v9.algorithm);

    const roofline_ceilings c = {4e12, 1e13, 3e13, 6e13, 3e14, 4.5e14, 4e12, 4e12, 2e12, 1e12};
    TEST_EXPECT("pipe roofs",
                roofline_pipe_roof(&c, ROOFLINE_PIPE_FFMA) == 6e13 &&
                    roofline_pipe_roof(&c, ROOFLINE_PIPE_MMA_SYNC) == 3e14 &&
                    roofline_pipe_roof(&c, ROOFLINE_PIPE_WGMMA) == 4.5e14 &&
                    roofline_pipe_roof(&c, ROOFLINE_PIPE_TF32_BEST) == 4.5e14 &&
                    roofline_pipe_roof(&c, ROOFLINE_PIPE_NONE) == 0.0,
                "wrong roof");
    const double flops = 76106170368.0, bytes = 268486912.0;
    roofline_point p;
    /* fp32-v9 at 1.5 ms: 50.7 TFLOP/s direct, a quarter executed: 12.7 TFLOP/s = 21.1% of a 60 T FFMA roof */
    roofline_point_place(flops, bytes, 1.5, &v9, &c, &p);
    TEST_EXPECT("point fp32-v9: direct rate, executed a quarter, % of FFMA from what it executes",
                close_to(p.flops_per_s, flops / 1.5e-3, 1e-12) &&
                    close_to(p.executed_flops_per_s, 0.25 * flops / 1.5e-3, 1e-12) &&
                    close_to(p.pct_pipe, 100.0 * 0.25 * flops / 1.5e-3 / 6e13, 1e-12) &&
                    close_to(p.executed_intensity, 0.25 * flops / bytes, 1e-12) &&
                    close_to(p.pct_roof, p.pct_pipe, 1e-12) &&
                    close_to(p.pct_memory, 100.0 * bytes / 1.5e-3 / 4e12, 1e-12),
                "%g FLOP/s, executed %g, %g%% of FFMA", p.flops_per_s, p.executed_flops_per_s, p.pct_pipe);
    const roofline_work v8 = roofline_kind_work(wgmma, ROOFLINE_MATH_TF32);
    roofline_point_place(flops, bytes, 0.42, &v8, &c, &p);
    TEST_EXPECT("point tf32-v8: % of the wgmma roof, not mma.sync's",
                p.pipe_flops_per_s == 4.5e14 && close_to(p.pct_pipe, 100.0 * flops / 0.42e-3 / 4.5e14, 1e-12),
                "roof %g, %g%%", p.pipe_flops_per_s, p.pct_pipe);
    const roofline_work x3 = roofline_kind_work(wgmma, ROOFLINE_MATH_3XTF32);
    roofline_point_place(flops, bytes, 0.78, &x3, &c, &p);
    TEST_EXPECT("point 3xtf32-v8: three products per product on wgmma",
                close_to(p.executed_flops_per_s, 3.0 * flops / 0.78e-3, 1e-12) &&
                    close_to(p.pct_pipe, 300.0 * flops / 0.78e-3 / 4.5e14, 1e-12) && p.pct_pipe < 100.0,
                "executed %g, %g%%", p.executed_flops_per_s, p.pct_pipe);
    const roofline_work x3v9 = roofline_kind_work(mma_sync, ROOFLINE_MATH_3XTF32);
    roofline_point_place(flops, bytes, 1.5, &x3v9, &c, &p);
    TEST_EXPECT("point 3xtf32-v9: on the mma.sync roof",
                p.pipe_flops_per_s == 3e14 && close_to(p.pct_pipe, 300.0 * flops / 1.5e-3 / 3e14, 1e-12),
                "roof %g, %g%%", p.pipe_flops_per_s, p.pct_pipe);
    const roofline_work cudnn = roofline_kind_work(NULL, ROOFLINE_MATH_TF32);
    roofline_point_place(flops, 8.9e9, 10.0, &cudnn, &c, &p); /* memory-bound: intensity 8.55 */
    TEST_EXPECT("point below the ridge: the roof is the DRAM line",
                close_to(p.roof_flops, p.executed_intensity * 4e12, 1e-12) &&
                    close_to(p.pct_roof, 100.0 * p.executed_flops_per_s / (p.executed_intensity * 4e12), 1e-12) &&
                    close_to(p.pct_roof, p.pct_memory, 1e-12),
                "roof %g, %g%%", p.roof_flops, p.pct_roof);
    const roofline_ceilings no_wgmma = {.dram_bytes_per_s = 4e12, .ffma_flops_per_s = 6e13};
    roofline_point_place(flops, bytes, 0.42, &v8, &no_wgmma, &p);
    TEST_EXPECT("point on an unmeasured pipe: no percentage",
                isnan(p.pct_pipe) && isnan(p.pct_roof) && !isnan(p.pct_memory) && p.pipe_flops_per_s == 0.0, "%g%%",
                p.pct_pipe);
    const roofline_work none = roofline_kind_work(NULL, ROOFLINE_MATH_NONE);
    TEST_EXPECT("point refuses a zero time", roofline_point_place(1e9, 1e6, 0.0, &none, &c, &p) == -1,
                "accepted ms = 0");

    const roofline_datasheet *h200 = roofline_datasheet_find("NVIDIA H200");
    TEST_EXPECT("datasheet: H200 dense TF32 is half the sparse 989 TFLOPS",
                h200 && h200->tf32_dense_flops_per_s == 494.5e12 && h200->fp32_flops_per_s == 67e12 &&
                    h200->dram_bytes_per_s == 4.8e12,
                "%p", (const void *)h200);
    TEST_EXPECT("datasheet: none for an unknown device",
                roofline_datasheet_find("NVIDIA H200 NVL") == NULL && roofline_datasheet_find(NULL) == NULL,
                "found one");
}

/* ---- chart helpers and the SVG primitives ---- */

static void test_chart_helpers(void)
{
    double lo, hi, step;
    chart_decades(0.5, 300.0, &lo, &hi);
    TEST_EXPECT("chart_decades 0.5..300", lo == 0.1 && hi == 1000.0, "%g..%g", lo, hi);
    chart_decades(10.0, 10.0, &lo, &hi);
    TEST_EXPECT("chart_decades of one decade value", lo == 10.0 && hi == 100.0, "%g..%g", lo, hi);
    chart_nice_range(4.0, 32.0, 6, &lo, &hi, &step);
    TEST_EXPECT("chart_nice_range 4..32", lo == 0.0 && hi == 35.0 && step == 5.0, "%g..%g step %g", lo, hi, step);
    chart_nice_range(0.0, 0.73, 6, &lo, &hi, &step);
    TEST_EXPECT("chart_nice_range 0..0.73", lo == 0.0 && close_to(hi, 0.8, 1e-12) && close_to(step, 0.2, 1e-12),
                "%g..%g step %g", lo, hi, step);
    char buf[64];
    chart_format_quantity(4.2345e12, 3, "B/s", buf, sizeof buf);
    TEST_EXPECT("quantity 4.23 TB/s", strcmp(buf, "4.23 TB/s") == 0, "'%s'", buf);
    chart_format_quantity(999.7e3, 3, "B", buf, sizeof buf);
    TEST_EXPECT("quantity rounding up to the next prefix", strcmp(buf, "1 MB") == 0, "'%s'", buf);
    chart_format_quantity(283.46, 3, "FLOP/B", buf, sizeof buf);
    TEST_EXPECT("quantity without a prefix", strcmp(buf, "283 FLOP/B") == 0, "'%s'", buf);
    chart_format_si(1e14, buf, sizeof buf);
    TEST_EXPECT("SI tick label", strcmp(buf, "100 T") == 0, "'%s'", buf);

    const chart_axis a = {1.0, 1000.0, 1, 100.0, 400.0};
    TEST_EXPECT("chart_map log", close_to(chart_map(&a, 10.0), 200.0, 1e-12) && close_to(chart_map(&a, 1000.0), 400.0, 1e-12),
                "%g", chart_map(&a, 10.0));
    const chart_axis b = {0.0, 8.0, 0, 500.0, 100.0};
    TEST_EXPECT("chart_map linear (y grows upwards)", close_to(chart_map(&b, 2.0), 400.0, 1e-12), "%g",
                chart_map(&b, 2.0));

    char path[600], err[512];
    path_of(path, sizeof path, "escape.svg");
    outfile o;
    if (outfile_open(&o, path, 0, err, sizeof err) != 0) {
        TEST_FAIL("svg escaping", "%s", err);
        return;
    }
    svg_begin(&o, 200, 100);
    svg_text(&o, 10, 20, 12, "start", 0.0, "#000", "a<b & \"c\" 'd' > e \x01 \xff \xc3\xa9");
    svg_group_begin(&o, 5, 5, "tip <&>");
    svg_marker(&o, 3, 4.0, "#123456");
    svg_group_end(&o);
    svg_end(&o);
    if (outfile_commit(&o, err, sizeof err) != 0) {
        TEST_FAIL("svg escaping", "%s", err);
        return;
    }
    char *text = test_read_text(path);
    char why[256];
    const char *bad = text ? xml_check(text, "svg", why, sizeof why) : "unreadable";
    TEST_EXPECT("svg primitives: well-formed", bad == NULL, "%s", bad);
    TEST_EXPECT("svg text escaped",
                text && strstr(text, ">a&lt;b &amp; &quot;c&quot; &apos;d&apos; &gt; e ? ? \xc3\xa9</text>") &&
                    strstr(text, "<title>tip &lt;&amp;&gt;</title>"),
                "text: %.300s", text ? text : "");
    free(text);

    /* the checker itself must catch what it is there for */
    TEST_EXPECT("xml checker: unbalanced", xml_check("<svg><g></svg>", "svg", why, sizeof why) != NULL, "accepted");
    TEST_EXPECT("xml checker: raw &", xml_check("<svg>a & b</svg>", "svg", why, sizeof why) != NULL, "accepted");
    TEST_EXPECT("xml checker: < in attribute", xml_check("<svg a=\"<\"/>", "svg", why, sizeof why) != NULL, "accepted");
    TEST_EXPECT("xml checker: two roots", xml_check("<svg/><svg/>", "svg", why, sizeof why) != NULL, "accepted");
    TEST_EXPECT("xml checker: good", xml_check("<?xml v?>\n<svg a=\"&amp;\"><g/><t>x&lt;</t></svg>\n", "svg", why,
                                               sizeof why) == NULL,
                "%s", why);
}

/* ---- the roofline chart ---- */

/* "translate(X,Y)" of a point at (x, y) on a chart frame */
static void expected_translate(char *buf, size_t cap, const chart_frame *f, double x, double y)
{
    snprintf(buf, cap, "translate(%.2f,%.2f)", chart_map(&f->x, x), chart_map(&f->y, y));
}

static size_t count_of(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *s = strstr(text, what); s; s = strstr(s + 1, what))
        ++n;
    return n;
}

static void test_roofline_svg(void)
{
    const chart_point pts[] = {
        {0, NULL, NULL, 283.46, 3e13, 283.46 * 0.25, 3e13 * 0.25}, /* Winograd: a quarter executed */
        {1, "7", NULL, 9.0, 2.5e12, 0.0, 0.0},
        {2, NULL, NULL, 0.0, 1e12, 0.0, 0.0},
    };
    const char *const series[] = {"fused fp32 det: 30 TFLOP/s, 50% of FFMA", "unfused <cuda> & co", "not drawn"};
    const char *const notes[] = {"a note"};
    const roofline_datasheet sheet = {"Device", "a datasheet", 7e13, 5e14, 5e12};
    const roofline_chart chart = {{"Roofline on Device <X> & \"Y\"", "N=128", series, 3, notes, 1, 1, pts, 3},
                                  {4e12, 1e13, 3e13, 6e13, 3e14, 4e14, 4e12, 4e12, 2e12, 1e12},
                                  &sheet,
                                  4e13,
                                  283.46,
                                  17.0};
    chart_frame f;
    roofline_chart_frame(&chart, &f);
    /* x: ridges 4 .. 125, points 9, 70.9 and 283.46 -> /1.25 and *1.25 -> decades 1 .. 1000;
     * y: 2.5e12 .. 5e14 -> decades 1e12 .. 1e15 */
    TEST_EXPECT("roofline frame: x decades", f.x.log && f.x.lo == 1.0 && f.x.hi == 1000.0, "%g..%g", f.x.lo, f.x.hi);
    TEST_EXPECT("roofline frame: y decades", f.y.log && close_to(f.y.lo, 1e12, 1e-12) && close_to(f.y.hi, 1e15, 1e-12),
                "%g..%g", f.y.lo, f.y.hi);
    TEST_EXPECT("roofline frame: plot below the titles",
                f.top >= 70.0 && f.top <= 90.0 && f.left == ROOFLINE_SVG_LEFT && f.width == ROOFLINE_SVG_PLOT_WIDTH,
                "top %g", f.top);

    char path[600], err[512];
    path_of(path, sizeof path, "roofline.svg");
    if (roofline_svg_write(path, &chart, err, sizeof err) != 0) {
        TEST_FAIL("roofline svg written", "%s", err);
        return;
    }
    char *text = test_read_text(path);
    if (!text) {
        TEST_FAIL("roofline svg written", "cannot read %s back", path);
        return;
    }
    char why[256];
    const char *bad = xml_check(text, "svg", why, sizeof why);
    TEST_EXPECT("roofline svg: well-formed XML", bad == NULL, "%s", bad);
    char want[64];
    expected_translate(want, sizeof want, &f, 283.46, 3e13);
    TEST_EXPECT("roofline svg: fused point where its numbers say", strstr(text, want) != NULL, "no %s", want);
    expected_translate(want, sizeof want, &f, 283.46 * 0.25, 3e13 * 0.25);
    TEST_EXPECT("roofline svg: the executed (hollow) marker where its numbers say",
                strstr(text, want) != NULL && count_of(text, "fill=\"#ffffff\" stroke=\"#1f77b4\"") == 1, "no %s",
                want);
    expected_translate(want, sizeof want, &f, 9.0, 2.5e12);
    TEST_EXPECT("roofline svg: unfused point where its numbers say", strstr(text, want) != NULL, "no %s", want);
    TEST_EXPECT("roofline svg: point without intensity left out (3 markers with tooltips)",
                count_of(text, "<title>") == 3 && !strstr(text, "<title>not drawn</title>"), "%zu tooltips",
                count_of(text, "<title>"));
    const char *labels[] = {">DRAM copy 4 TB/s<",
                            ">L2 read 10 TB/s<",
                            ">FFMA 60 TFLOP/s<",
                            ">TF32 mma.sync 300 TFLOP/s<",
                            ">TF32 wgmma 400 TFLOP/s<",
                            ">FFMA + GELU of this shape 40 TFLOP/s<",
                            ">fused, minimal traffic: 283 FLOP/B<",
                            ">unfused, intermediate written and read: 17 FLOP/B<",
                            ">datasheet FP32 70 TFLOP/s<",
                            ">datasheet TF32 dense 500 TFLOP/s<",
                            ">datasheet DRAM 5 TB/s<",
                            ">fused fp32 det: 30 TFLOP/s, 50% of FFMA<",
                            ">unfused &lt;cuda&gt; &amp; co<",
                            ">a note<",
                            ">7<",
                            ">hollow marker, joined to its point:",
                            ">Roofline on Device &lt;X&gt; &amp; &quot;Y&quot;<",
                            ">1 P<",
                            ">1 T<",
                            ">1000<",
                            ">0.1<"};
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; ++i) {
        char name[128];
        snprintf(name, sizeof name, "roofline svg: text %s", labels[i]);
        if (strcmp(labels[i], ">0.1<") == 0)
            TEST_EXPECT(name, strstr(text, labels[i]) == NULL, "an x label below the range");
        else
            TEST_EXPECT(name, strstr(text, labels[i]) != NULL, "missing");
    }
    /* the FFMA roof: horizontal at 6e13 from its ridge (15 FLOP/B) to the right edge; the datasheet's dotted */
    char line[200];
    snprintf(line, sizeof line, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"", chart_map(&f.x, 15.0),
             chart_map(&f.y, 6e13), f.left + f.width, chart_map(&f.y, 6e13));
    TEST_EXPECT("roofline svg: FFMA roof from its ridge", strstr(text, line) != NULL, "no %s", line);
    snprintf(line, sizeof line,
             "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#8c8c8c\" "
             "stroke-width=\"1.50\" stroke-dasharray=\"1.5,3\"",
             f.left, chart_map(&f.y, 5e14), f.left + f.width, chart_map(&f.y, 5e14));
    TEST_EXPECT("roofline svg: datasheet TF32 dotted across the plot", strstr(text, line) != NULL, "no %s", line);
    free(text);
}

/* ---- the speedup chart ---- */

static void test_speedup_svg(void)
{
    const chart_point pts[] = {
        {0, "1", NULL, 2.1e9, 2.0, 0.0, 0.0},
        {1, "2", "tip <2>", 1.2e7, 0.8, 0.0, 0.0},
        {2, NULL, NULL, -1.0, 3.0, 0.0, 0.0},
    };
    const char *const series[] = {"fp32 over cuDNN", "tf32 over cuDNN", "3xtf32"};
    const char *const notes[] = {"1: shape one", "2: shape two"};
    const chart_scatter chart = {"Speedup", "sub", series, 3, notes, 2, 2, pts, 3};
    chart_frame f;
    speedup_chart_frame(&chart, &f);
    /* x 1.2e7 .. 2.1e9 -> /1.25, *1.25 -> decades 1e6 .. 1e10; y 0.8 .. 2 and 1 -> 0.1 .. 10 */
    TEST_EXPECT("speedup frame: decades",
                f.x.log && f.y.log && close_to(f.x.lo, 1e6, 1e-12) && close_to(f.x.hi, 1e10, 1e-12) &&
                    close_to(f.y.lo, 0.1, 1e-12) && close_to(f.y.hi, 10.0, 1e-12),
                "x %g..%g y %g..%g", f.x.lo, f.x.hi, f.y.lo, f.y.hi);
    char path[600], err[512];
    path_of(path, sizeof path, "speedup.svg");
    char *text = speedup_svg_write(path, &chart, err, sizeof err) == 0 ? test_read_text(path) : NULL;
    char why[256], want[64];
    const char *bad = text ? xml_check(text, "svg", why, sizeof why) : err;
    TEST_EXPECT("speedup svg: written, well-formed XML", bad == NULL, "%s", bad);
    expected_translate(want, sizeof want, &f, 2.1e9, 2.0);
    TEST_EXPECT("speedup svg: point where its numbers say", text && strstr(text, want), "no %s", want);
    expected_translate(want, sizeof want, &f, 1.2e7, 0.8);
    TEST_EXPECT("speedup svg: a slowdown below the 1x line",
                text && strstr(text, want) && chart_map(&f.y, 0.8) > chart_map(&f.y, 1.0), "no %s", want);
    TEST_EXPECT("speedup svg: texts",
                text && strstr(text, ">1x: as fast as cuDNN<") && strstr(text, ">10x<") &&
                    strstr(text, ">1: shape one<") && strstr(text, "<title>tip &lt;2&gt;</title>") &&
                    count_of(text, "<title>") == 2,
                "missing");
    free(text);
}

/* ---- the CSV reader ---- */

static void expect_csv_error(const char *name, const char *text, const char *message)
{
    csv_table t;
    char err[512] = "";
    const int rc = csv_parse(text, strlen(text), "in.csv", &t, err, sizeof err);
    if (rc == 0) {
        TEST_FAIL(name, "accepted");
        csv_free(&t);
    } else {
        TEST_EXPECT(name, strcmp(err, message) == 0, "message \"%s\", expected \"%s\"", err, message);
    }
}

static void test_csv(void)
{
    static const char good[] = "\xEF\xBB\xBF"
                               "a,b,c\r\n"
                               "1,\"x, y\",\"say \"\"hi\"\"\"\n"
                               "\n"
                               "\"two\nlines\",,\n"
                               "last,\"\",z";
    csv_table t;
    char err[512];
    const int rc = csv_parse(good, sizeof good - 1, "good.csv", &t, err, sizeof err);
    if (rc != 0) {
        TEST_FAIL("csv: good file", "%s", err);
    } else {
        TEST_EXPECT("csv: header (BOM skipped, CRLF)", t.columns == 3 && strcmp(t.header[0], "a") == 0 &&
                                                            strcmp(t.header[2], "c") == 0,
                    "%d columns, '%s'", t.columns, t.header[0]);
        TEST_EXPECT("csv: rows (empty line skipped)", t.rows == 3, "%d rows", t.rows);
        TEST_EXPECT("csv: quoted comma and doubled quotes",
                    t.rows == 3 && strcmp(csv_cell(&t, 0, 1), "x, y") == 0 && strcmp(csv_cell(&t, 0, 2), "say \"hi\"") == 0,
                    "'%s' '%s'", csv_cell(&t, 0, 1), csv_cell(&t, 0, 2));
        TEST_EXPECT("csv: line break in a quoted field, empty fields",
                    t.rows == 3 && strcmp(csv_cell(&t, 1, 0), "two\nlines") == 0 && strcmp(csv_cell(&t, 1, 1), "") == 0 &&
                        strcmp(csv_cell(&t, 1, 2), "") == 0,
                    "'%s'", csv_cell(&t, 1, 0));
        TEST_EXPECT("csv: record lines", t.rows == 3 && t.lines[0] == 2 && t.lines[1] == 4 && t.lines[2] == 6,
                    "%ld %ld %ld", t.lines[0], t.lines[1], t.lines[2]);
        TEST_EXPECT("csv: no final newline", t.rows == 3 && strcmp(csv_cell(&t, 2, 2), "z") == 0, "'%s'",
                    csv_cell(&t, 2, 2));
        TEST_EXPECT("csv: csv_column", csv_column(&t, "b") == 1 && csv_column(&t, "nope") == -1, "wrong index");
        csv_free(&t);
    }
    expect_csv_error("csv: unterminated quote", "a,b\n1,\"open\n2,3\n",
                     "in.csv:4: a quoted field that starts on line 2 is not closed by the end of the file");
    expect_csv_error("csv: quote inside an unquoted field", "a,b\n1,x\"y\n",
                     "in.csv:2: a quote inside an unquoted field (quote the whole field and double the quote)");
    expect_csv_error("csv: junk after a closing quote", "a,b\n1,\"x\"y\n",
                     "in.csv:2: 'y' after a closing quote (expected a comma or the end of the line)");
    expect_csv_error("csv: too few fields", "a,b,c\n1,2,3\n4,5\n", "in.csv:3: 2 fields, the header (line 1) has 3");
    expect_csv_error("csv: too many fields", "a,b\n1,2\n\n\"x\ny\",2,3\n", "in.csv:4: 3 fields, the header (line 1) has 2");
    expect_csv_error("csv: empty file", "", "in.csv: empty file (no header line)");
    expect_csv_error("csv: only empty lines", "\n\r\n\n", "in.csv: empty file (no header line)");
    {
        static const char nul[] = "a,b\n1,x\0y\n";
        csv_table tn;
        const int nrc = csv_parse(nul, sizeof nul - 1, "in.csv", &tn, err, sizeof err);
        TEST_EXPECT("csv: NUL byte", nrc == -1 && strcmp(err, "in.csv:2: a NUL byte") == 0, "rc %d, '%s'", nrc, err);
        if (nrc == 0)
            csv_free(&tn);
    }
    char path[600];
    path_of(path, sizeof path, "table.csv");
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs("k,v\nx,1\n", f);
        fclose(f);
    }
    const int frc = csv_read_file(path, &t, err, sizeof err);
    TEST_EXPECT("csv: read a file", frc == 0 && t.rows == 1 && strcmp(csv_cell(&t, 0, 1), "1") == 0, "%s",
                frc ? err : "wrong content");
    if (frc == 0)
        csv_free(&t);
    path_of(path, sizeof path, "missing.csv");
    char want[700];
    snprintf(want, sizeof want, "%s: No such file or directory", path);
    TEST_EXPECT("csv: missing file", csv_read_file(path, &t, err, sizeof err) == -1 && strcmp(err, want) == 0, "'%s'",
                err);
}

/* ---- the sweep plot ---- */

#define BENCH_HEADER                                                                                                   \
    "date,device,driver,cuda,cudnn,commit,n,cin,cout,h,w,padding,seed,variant,family,precision,status,median_ms,"     \
    "min_ms,max_ms,tflops,bytes_moved,gbps,rel_l2_error,max_abs_error,fused_speedup,detail\n"

/* appends one bench CSV row */
static void bench_row(char *buf, size_t cap, const char *device, int n, int cin, int h, int w, const char *variant,
                      const char *precision, const char *status, const char *ms, const char *tflops)
{
    const size_t len = strlen(buf);
    snprintf(buf + len, cap - len,
             "2026-01-01T00:00:00Z,\"%s\",580.1,13.0,9.19.0,abc123,%d,%d,64,%d,%d,valid,1,\"%s\",fused,%s,%s,%s,,,"
             "%s,1000,1.0,1e-7,1e-7,1.0,\"kernel, \"\"v3\"\"\"\n",
             device, n, cin, h, w, variant, precision, status, ms, tflops);
}

/* parses csv and reads it as a sweep; returns 0 or -1 with err */
static int sweep_of(const char *csv, sweep_data *d, char *err, size_t errlen)
{
    csv_table t;
    if (csv_parse(csv, strlen(csv), "sweep.csv", &t, err, errlen) != 0)
        return -1;
    const int rc = sweep_from_csv(&t, "sweep.csv", d, err, errlen);
    csv_free(&t);
    return rc;
}

static void expect_sweep_error(const char *name, const char *csv, const char *message)
{
    sweep_data d;
    char err[512] = "";
    if (sweep_of(csv, &d, err, sizeof err) == 0) {
        TEST_FAIL(name, "accepted");
        sweep_free(&d);
        return;
    }
    TEST_EXPECT(name, strcmp(err, message) == 0, "message \"%s\", expected \"%s\"", err, message);
}

static void test_sweep(void)
{
    static char csv[16384];
    char ms[32], tf[32];
    snprintf(csv, sizeof csv, BENCH_HEADER);
    for (int n = 512; n >= 1; n /= 2) { /* out of order: the points must come out sorted */
        snprintf(ms, sizeof ms, "%.5f", 0.01 * n);
        snprintf(tf, sizeof tf, "%.3f", 5.0 + n / 16.0);
        bench_row(csv, sizeof csv, "GPU <1>", n, 8, 256, 256, "fused fp32 det", "fp32", "pass", ms, tf);
        bench_row(csv, sizeof csv, "GPU <1>", n, 8, 256, 256, "fused tf32 det", "tf32", "absent", "", "");
        bench_row(csv, sizeof csv, "GPU <1>", n, 8, 256, 256, "cudnn graph layout", "n/a", "timing-only", "0.5", "9.0");
    }
    sweep_data d;
    char err[512];
    if (sweep_of(csv, &d, err, sizeof err) != 0) {
        TEST_FAIL("sweep n: read", "%s", err);
        return;
    }
    TEST_EXPECT("sweep n: key and fixed dimensions",
                strcmp(d.key, "n") == 0 && strcmp(d.key_title, "N") == 0 &&
                    strcmp(d.fixed, "Cin=8 Cout=64 H=256 W=256 padding valid") == 0,
                "key '%s', fixed '%s'", d.key, d.fixed);
    TEST_EXPECT("sweep n: series (absent rows skipped)",
                d.count == 2 && strcmp(d.series[0].name, "fused fp32 det") == 0 && d.series[0].convolves &&
                    strcmp(d.series[1].name, "cudnn graph layout") == 0 && !d.series[1].convolves,
                "%d series", d.count);
    int sorted = d.count == 2 && d.series[0].count == 10;
    for (int j = 1; sorted && j < d.series[0].count; ++j)
        sorted = d.series[0].points[j].x == 2 * d.series[0].points[j - 1].x;
    TEST_EXPECT("sweep n: points sorted by N", sorted, "not 1, 2, 4, ..., 512");
    TEST_EXPECT("sweep n: identity", strcmp(d.device, "GPU <1>") == 0 && strcmp(d.commit, "abc123") == 0,
                "'%s' '%s'", d.device, d.commit);
    TEST_EXPECT("sweep n: timing-only rows have no TFLOP/s", d.count == 2 && isnan(d.series[1].points[0].tflops),
                "%g", d.count == 2 ? d.series[1].points[0].tflops : 0.0);

    chart_frame time, rate;
    sweep_frames(&d, &time, &rate);
    /* x 1..512 -> log decades 1..1000; ms 0.01..5.12 -> log 0.01..10; TFLOP/s 5.06..37 -> linear 0..40 step 10 */
    TEST_EXPECT("sweep n: log x", time.x.log && time.x.lo == 1.0 && time.x.hi == 1000.0, "%d %g..%g", time.x.log,
                time.x.lo, time.x.hi);
    TEST_EXPECT("sweep n: log time", time.y.log && close_to(time.y.lo, 0.01, 1e-12) && time.y.hi == 10.0, "%d %g..%g",
                time.y.log, time.y.lo, time.y.hi);
    TEST_EXPECT("sweep n: linear TFLOP/s from 0", !rate.y.log && rate.y.lo == 0.0 && rate.y.hi == 40.0 &&
                                                       rate.y_step == 10.0,
                "%d %g..%g step %g", rate.y.log, rate.y.lo, rate.y.hi, rate.y_step);
    char path[600];
    path_of(path, sizeof path, "sweep.svg");
    if (sweep_write_svg(path, &d, err, sizeof err) != 0) {
        TEST_FAIL("sweep n: svg written", "%s", err);
        sweep_free(&d);
        return;
    }
    char *text = test_read_text(path);
    char why[256], want[64];
    const char *bad = text ? xml_check(text, "svg", why, sizeof why) : "unreadable";
    TEST_EXPECT("sweep n: well-formed XML", bad == NULL, "%s", bad);
    /* N = 64, 0.64 ms, 9 TFLOP/s */
    const double px = SWEEP_SVG_TIME_LEFT + log10(64.0) / 3.0 * SWEEP_SVG_PANEL_WIDTH;
    const double py = SWEEP_SVG_TOP + SWEEP_SVG_PANEL_HEIGHT - (log10(0.64) + 2.0) / 3.0 * SWEEP_SVG_PANEL_HEIGHT;
    snprintf(want, sizeof want, "translate(%.2f,%.2f)", px, py);
    TEST_EXPECT("sweep n: time point where its numbers say", text && strstr(text, want), "no %s", want);
    const double rx = SWEEP_SVG_RATE_LEFT + log10(64.0) / 3.0 * SWEEP_SVG_PANEL_WIDTH;
    const double ry = SWEEP_SVG_TOP + SWEEP_SVG_PANEL_HEIGHT - 9.0 / 40.0 * SWEEP_SVG_PANEL_HEIGHT;
    snprintf(want, sizeof want, "translate(%.2f,%.2f)", rx, ry);
    TEST_EXPECT("sweep n: TFLOP/s point where its numbers say", text && strstr(text, want), "no %s", want);
    TEST_EXPECT("sweep n: title and legend",
                text && strstr(text, ">cgp bench sweep over N on GPU &lt;1&gt;<") &&
                    strstr(text, ">cudnn graph layout (no convolution: time panel only)<"),
                "missing");
    free(text);
    sweep_free(&d);

    /* H = W, linear axes */
    snprintf(csv, sizeof csv, BENCH_HEADER);
    const int hs[] = {64, 128, 256, 384};
    for (int i = 0; i < 4; ++i) {
        snprintf(ms, sizeof ms, "%.5f", 1.0 + i);
        bench_row(csv, sizeof csv, "G", 16, 8, hs[i], hs[i], "fused fp32 det", "fp32", "pass", ms, "20.0");
    }
    if (sweep_of(csv, &d, err, sizeof err) != 0) {
        TEST_FAIL("sweep h: read", "%s", err);
    } else {
        sweep_frames(&d, &time, &rate);
        TEST_EXPECT("sweep h: key H = W", strcmp(d.key, "h") == 0 && strcmp(d.key_title, "H = W") == 0 &&
                                              strcmp(d.fixed, "N=16 Cin=8 Cout=64 padding valid") == 0,
                    "'%s' '%s' '%s'", d.key, d.key_title, d.fixed);
        /* 64..384 spans 6x: linear, 320 / 6 = 53 -> step 100 -> 0..400; time 1..4 linear from 0: 0..4 */
        TEST_EXPECT("sweep h: linear x", !time.x.log && time.x.lo == 0.0 && time.x.hi == 400.0 && time.x_step == 100.0,
                    "%d %g..%g step %g", time.x.log, time.x.lo, time.x.hi, time.x_step);
        TEST_EXPECT("sweep h: linear time from 0", !time.y.log && time.y.lo == 0.0 && time.y.hi == 4.0, "%g..%g",
                    time.y.lo, time.y.hi);
        path_of(path, sizeof path, "sweep_h.svg");
        const int wrc = sweep_write_svg(path, &d, err, sizeof err);
        text = wrc == 0 ? test_read_text(path) : NULL;
        const double hx = SWEEP_SVG_TIME_LEFT + 256.0 / 400.0 * SWEEP_SVG_PANEL_WIDTH;
        const double hy = SWEEP_SVG_TOP + SWEEP_SVG_PANEL_HEIGHT - 3.0 / 4.0 * SWEEP_SVG_PANEL_HEIGHT;
        snprintf(want, sizeof want, "translate(%.2f,%.2f)", hx, hy);
        TEST_EXPECT("sweep h: point on linear axes", text && strstr(text, want) &&
                                                         xml_check(text, "svg", why, sizeof why) == NULL,
                    "%s", wrc ? err : want);
        free(text);
        sweep_free(&d);
    }

    /* malformed sweeps */
    snprintf(csv, sizeof csv, BENCH_HEADER);
    bench_row(csv, sizeof csv, "G", 1, 8, 256, 256, "v", "fp32", "pass", "1.0", "1.0");
    bench_row(csv, sizeof csv, "G", 2, 16, 256, 256, "v", "fp32", "pass", "1.0", "1.0");
    expect_sweep_error("sweep: two dimensions vary", csv,
                       "sweep.csv: more than one dimension varies (n, cin): plot one sweep at a time");
    snprintf(csv, sizeof csv, BENCH_HEADER);
    bench_row(csv, sizeof csv, "G", 1, 8, 256, 256, "v", "fp32", "pass", "1.0", "1.0");
    bench_row(csv, sizeof csv, "G", 1, 8, 256, 256, "w", "fp32", "pass", "1.0", "1.0");
    expect_sweep_error("sweep: nothing varies", csv,
                       "sweep.csv: n, cin, cout, h and w are the same on every row: not a sweep (cgp bench --sweep)");
    snprintf(csv, sizeof csv, BENCH_HEADER);
    bench_row(csv, sizeof csv, "G", 1, 8, 256, 256, "v", "fp32", "pass", "1.0", "1.0");
    bench_row(csv, sizeof csv, "G", 2, 8, 256, 256, "v", "fp32", "pass", "1.2x", "1.0");
    expect_sweep_error("sweep: malformed time", csv,
                       "sweep.csv:3: column 'median_ms': '1.2x' is not a positive number of milliseconds");
    snprintf(csv, sizeof csv, BENCH_HEADER);
    bench_row(csv, sizeof csv, "G", 1, 8, 256, 256, "v", "fp32", "pass", "1.0", "-3");
    bench_row(csv, sizeof csv, "G", 2, 8, 256, 256, "v", "fp32", "pass", "1.0", "1.0");
    expect_sweep_error("sweep: negative TFLOP/s", csv, "sweep.csv:2: column 'tflops': '-3' is not a number >= 0");
    snprintf(csv, sizeof csv, BENCH_HEADER);
    bench_row(csv, sizeof csv, "G", 1, 8, 256, 256, "v", "fp32", "pass", "1.0", "1.0");
    bench_row(csv, sizeof csv, "G", 2, 8, 256, 256, "v", "fp32", "pass", "1.0", "1.0");
    bench_row(csv, sizeof csv, "G", 2, 8, 256, 256, "v", "fp32", "pass", "1.1", "1.0");
    expect_sweep_error("sweep: a variant twice at one value", csv,
                       "sweep.csv:4: a second row for variant 'v' at n=2 (the first is on line 3)");
    snprintf(csv, sizeof csv, BENCH_HEADER);
    bench_row(csv, sizeof csv, "G", 1, 8, 256, 256, "v", "fp32", "pass", "1.0", "1.0");
    bench_row(csv, sizeof csv, "H", 2, 8, 256, 256, "v", "fp32", "pass", "1.0", "1.0");
    expect_sweep_error("sweep: two devices", csv,
                       "sweep.csv:3: device 'H' differs from line 2's 'G': one device per plot");
    snprintf(csv, sizeof csv, BENCH_HEADER);
    bench_row(csv, sizeof csv, "G", 1, 8, 256, 256, "v", "fp32", "check-failed", "", "");
    bench_row(csv, sizeof csv, "G", 2, 8, 256, 256, "v", "fp32", "failed", "", "");
    expect_sweep_error("sweep: nothing timed", csv,
                       "sweep.csv: no timed rows (status pass or timing-only, with a median_ms) to plot");
    expect_sweep_error("sweep: not a bench CSV", "a,b\n1,2\n",
                       "sweep.csv: no column 'n' in the header (line 1): not a CSV from `cgp bench --csv`");
    snprintf(csv, sizeof csv, BENCH_HEADER);
    bench_row(csv, sizeof csv, "G", 1, 8, 256, 256, "v", "fp32", "pass", "1.0", "1.0");
    char *n_field = strstr(csv, ",abc123,1,") + 8; /* the n of the row */
    *n_field = 'x';
    expect_sweep_error("sweep: malformed dimension", csv, "sweep.csv:2: column 'n': 'x' is not a positive integer");
}

int main(void)
{
    if (test_scratch_dir(scratch, sizeof scratch, "cpu_roofline") != 0)
        return test_exit_code();
    test_model();
    test_kernel_work();
    test_chart_helpers();
    test_roofline_svg();
    test_speedup_svg();
    test_csv();
    test_sweep();
    const char *files[] = {"escape.svg", "roofline.svg", "speedup.svg", "table.csv", "sweep.svg", "sweep_h.svg"};
    char path[600];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        path_of(path, sizeof path, files[i]);
        unlink(path);
    }
    rmdir(scratch);
    return test_exit_code();
}
