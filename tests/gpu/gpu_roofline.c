/*
 * gpu_roofline.c - the ceilings and `cgp roofline --zoo` on the GPU. The probes (host/bench/probes.h): every
 * one measured with a finite positive rate, or (the wgmma probe off sm_90a) not launched with its reason;
 * rates in the order the hardware dictates (L2 above DRAM, shared memory above L2, wgmma TF32 not below
 * mma.sync TF32 where both ran: the wgmma kernels' pipe is the faster, MUFU below the FFMA rate in
 * operations). Then the zoo roofline on a two-shape zoo (Cin = 8, which tf32-v8 takes, and Cin = 3, which
 * the implicit GEMMs take): exit 0, the CSV with each fused row on the pipe of the code that ran (fp32 on FFMA;
 * tf32 and 3xtf32 on wgmma on an sm_90a build and GPU, else on mma.sync), its executed
 * FLOPs 1 or 3 times the direct ones or, for Winograd, fewer, and the two SVGs written
 * (tests/cpu/cpu_svg_layout.c checks the layout of the committed charts).
 * The overlap probe of issue 39 (host/bench/probe_overlap.h): each configuration measured with sane numbers (times
 * > 0, wgmma alone below 1.1 x the H200's 484 TFLOP/s TF32 wgmma roof, both modes at once not faster than 0.9 x the
 * longer of the two alone) or, off sm_90a, not measured with its reason; and `cgp roofline --overlap --csv` writing a
 * row a mode.
 */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "clilib.h"
#include "gpulib.h"
#include "probe_overlap.h"
#include "probes.h"

static void test_probes(void)
{
    probe_result p[PROBE_COUNT];
    char err[512];
    if (probes_measure(1, 3, p, err, sizeof err) != 0) {
        TEST_FAIL("probes measured", "%s", err);
        return;
    }
    const cgp_device_info d = test_device_info();
    for (int k = 0; k < PROBE_COUNT; ++k) {
        char name[96];
        snprintf(name, sizeof name, "probe %s", p[k].name);
        if (p[k].unavailable[0])
            TEST_EXPECT(name, k == PROBE_TF32_WGMMA && p[k].rate == 0.0 &&
                                  probe_wgmma_unsupported(d.cc_major, d.cc_minor) != NULL,
                        "not measured: %s", p[k].unavailable);
        else
            TEST_EXPECT(name, isfinite(p[k].rate) && p[k].rate > 0.0 && p[k].median_ms > 0.0, "rate %g %s, %g ms",
                        p[k].rate, p[k].unit, p[k].median_ms);
    }
    printf("# wgmma probe: %s\n", p[PROBE_TF32_WGMMA].unavailable[0] ? p[PROBE_TF32_WGMMA].unavailable : "measured");
    TEST_EXPECT("probes: L2 above DRAM, shared memory above L2",
                p[PROBE_L2].rate > p[PROBE_DRAM].rate && p[PROBE_SMEM].rate > p[PROBE_L2].rate, "%g %g %g B/s",
                p[PROBE_DRAM].rate, p[PROBE_L2].rate, p[PROBE_SMEM].rate);
    TEST_EXPECT("probes: MUFU below the FFMA rate (operations)",
                p[PROBE_MUFU_EX2].rate < 0.5 * p[PROBE_FFMA].rate && p[PROBE_MUFU_RCP].rate < 0.5 * p[PROBE_FFMA].rate,
                "ex2 %g, rcp %g, FFMA %g op/s", p[PROBE_MUFU_EX2].rate, p[PROBE_MUFU_RCP].rate, 0.5 * p[PROBE_FFMA].rate);
    if (!p[PROBE_TF32_WGMMA].unavailable[0])
        TEST_EXPECT("probes: wgmma TF32 not below mma.sync TF32",
                    p[PROBE_TF32_WGMMA].rate >= p[PROBE_TF32_MMA_SYNC].rate, "wgmma %g, mma.sync %g FLOP/s",
                    p[PROBE_TF32_WGMMA].rate, p[PROBE_TF32_MMA_SYNC].rate);
}

/* the value of column `column` in the CSV line `line` (quoted fields copied without their quotes) */
static void csv_field(const char *line, int column, char *out, size_t cap)
{
    int c = 0, quoted = 0;
    size_t n = 0;
    for (const char *s = line; *s && *s != '\n'; ++s) {
        if (*s == '"') {
            quoted = !quoted;
            continue;
        }
        if (*s == ',' && !quoted) {
            ++c;
            continue;
        }
        if (c == column && n + 1 < cap)
            out[n++] = *s;
    }
    out[n] = '\0';
}

/* the index of a header column, -1 if absent */
static int column_of(const char *header, const char *name)
{
    char field[64];
    for (int c = 0; c < 64; ++c) {
        csv_field(header, c, field, sizeof field);
        if (strcmp(field, name) == 0)
            return c;
    }
    return -1;
}

static void test_zoo(void)
{
    char zoo[600], csv[600], svg[600], speedup[600], args[3000];
    snprintf(zoo, sizeof zoo, "%s/gpu_roofline_zoo.csv", cli_tmpdir());
    snprintf(csv, sizeof csv, "%s/gpu_roofline.csv", cli_tmpdir());
    snprintf(svg, sizeof svg, "%s/gpu_roofline.svg", cli_tmpdir());
    snprintf(speedup, sizeof speedup, "%s/gpu_roofline_speedup.svg", cli_tmpdir());
    FILE *f = fopen(zoo, "w");
    if (!f) {
        TEST_FAIL("roofline --zoo", "cannot write %s", zoo);
        return;
    }
    fputs("n,cin,cout,h,w,padding,label\n4,8,64,64,64,valid,wgmma shape\n2,3,16,40,33,same,other\n", f);
    fclose(f);
    snprintf(args, sizeof args, "roofline --zoo %s --warmup 1 --iters 20 --csv %s --svg %s --speedup-svg %s", zoo,
             csv, svg, speedup);
    const cli_result r = cli_run(args);
    TEST_EXPECT("roofline --zoo: exit 0", r.exit_code == 0, "exit %d: %.400s", r.exit_code, r.err);
    static char text[1 << 20];
    cli_read_file(svg, text, sizeof text);
    TEST_EXPECT("roofline --zoo: the roofline SVG is a chart of the zoo",
                strstr(text, "</svg>") && strstr(text, "1: N=4 Cin=8 Cout=64 64x64 valid, wgmma shape"), "%.200s",
                text);
    cli_read_file(speedup, text, sizeof text);
    TEST_EXPECT("roofline --zoo: speedup SVG", strstr(text, "</svg>") && strstr(text, "2: N=2 Cin=3 Cout=16 40x33 same"),
                "%.200s", text);
    cli_read_file(csv, text, sizeof text);
    const char *header_end = strchr(text, '\n');
    if (!header_end) {
        TEST_FAIL("roofline --zoo: CSV", "empty %s", csv);
        return;
    }
    const int c_kind = column_of(text, "kind"), c_name = column_of(text, "name"), c_kernel = column_of(text, "kernel");
    const int c_pipe = column_of(text, "pipe"), c_exec = column_of(text, "executed_per_direct");
    const int c_shape = column_of(text, "shape"), c_pct = column_of(text, "pct_pipe");
    /* a tensor-core row runs on wgmma where the kernel the selection chose is a wgmma version and the GPU has wgmma
     * (compute capability 9.0, a build with sm_90a code); on mma.sync where it chose one of the mma.sync versions
     * (tf32-v9, 3xtf32-v9: the cost model picks tf32-v9 for shape 2, Cin = 3, since 6d00945) or the GPU has no
     * wgmma */
    static const char *const mma_sync_versions[] = {"tf32-v9", "3xtf32-v9"};
    const cgp_device_info d = test_device_info();
    const int wgmma_here = probe_wgmma_unsupported(d.cc_major, d.cc_minor) == NULL;
    int fused = 0, right = 0;
    char why[512] = "";
    for (const char *line = header_end + 1; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
        char kind[16], name[64], kernel[32], pipe[32], exec[32], shape[8], pct[32];
        csv_field(line, c_kind, kind, sizeof kind);
        csv_field(line, c_name, name, sizeof name);
        if (strcmp(kind, "point") != 0 || strncmp(name, "fused ", 6) != 0)
            continue;
        csv_field(line, c_kernel, kernel, sizeof kernel);
        csv_field(line, c_pipe, pipe, sizeof pipe);
        csv_field(line, c_exec, exec, sizeof exec);
        csv_field(line, c_shape, shape, sizeof shape);
        csv_field(line, c_pct, pct, sizeof pct);
        ++fused;
        const double e = atof(exec);
        int mma_sync = !wgmma_here;
        for (size_t i = 0; i < sizeof mma_sync_versions / sizeof *mma_sync_versions; ++i)
            mma_sync |= strcmp(kernel, mma_sync_versions[i]) == 0;
        const char *tensor = mma_sync ? "mma.sync TF32" : "wgmma TF32";
        const int ok = strstr(name, " fp32 ")     ? strcmp(pipe, "FFMA") == 0 && e > 0.0 && e <= 1.0
                       : strstr(name, " 3xtf32 ") ? strcmp(pipe, tensor) == 0 && e == 3.0
                                                  : strcmp(pipe, tensor) == 0 && e == 1.0;
        if (ok && pct[0] && atof(pct) > 0.0)
            ++right;
        else if (!why[0])
            snprintf(why, sizeof why, "shape %s, %s ran %s: pipe '%s' (expected %s), executed %s x, %s%% of its roof",
                     shape, name, kernel, pipe, strstr(name, " fp32 ") ? "FFMA" : tensor, exec, pct);
    }
    TEST_EXPECT("roofline --zoo: every fused row on the pipe of the code that ran, with a percentage",
                fused == 6 && right == 6, "%d fused rows, %d right; %s", fused, right, why);
    unlink(zoo), unlink(csv), unlink(svg), unlink(speedup);
}

#define WGMMA_TF32_ROOF 484e12 /* FLOP/s, the H200's, measured by the wgmma probe (issue 39) */

static void test_overlap(void)
{
    static overlap_result r[OVERLAP_CONFIGS];
    char err[512];
    if (overlap_measure(1, 3, r, err, sizeof err) != 0) {
        TEST_FAIL("overlap probe measured", "%s", err);
        return;
    }
    const cgp_device_info d = test_device_info();
    const char *why = probe_overlap_unsupported(d.cc_major, d.cc_minor);
    int measured = 0;
    for (int k = 0; k < OVERLAP_CONFIGS; ++k) {
        const overlap_result *c = &r[k];
        char name[128];
        snprintf(name, sizeof name, "overlap probe N=%d, %s", c->n, overlap_layout_name(c->layout));
        if (why) {
            TEST_EXPECT(name, c->unavailable[0] && strstr(c->unavailable, why), "not measured: '%s', expected '%s'",
                        c->unavailable, why);
            continue;
        }
        const double *t = c->median_ms;
        const double longer = t[OVERLAP_WGMMA] > t[OVERLAP_GELU] ? t[OVERLAP_WGMMA] : t[OVERLAP_GELU];
        TEST_EXPECT(name,
                    !c->unavailable[0] && t[OVERLAP_WGMMA] > 0.0 && t[OVERLAP_GELU] > 0.0 && t[OVERLAP_BOTH] > 0.0 &&
                        t[OVERLAP_SERIAL] > 0.0 && c->wgmma_rate > 0.0 && c->wgmma_rate < 1.1 * WGMMA_TF32_ROOF &&
                        c->gelu_rate > 0.0 && t[OVERLAP_BOTH] >= 0.9 * longer,
                    "%s; wgmma %.4f ms (%.1f TFLOP/s), gelu %.4f ms, both %.4f ms, serial %.4f ms", c->unavailable,
                    t[OVERLAP_WGMMA], c->wgmma_rate / 1e12, t[OVERLAP_GELU], t[OVERLAP_BOTH], t[OVERLAP_SERIAL]);
        if (!c->unavailable[0]) {
            ++measured;
            printf("# %s: %s, both / max %.3f, both / sum %.3f, serial / sum %.3f\n", name, overlap_verdict(c),
                   c->both_over_max, c->both_over_sum, c->serial_over_sum);
        }
    }
    char csv[600], args[800], text[1 << 14];
    snprintf(csv, sizeof csv, "%s/gpu_roofline_overlap.csv", cli_tmpdir());
    snprintf(args, sizeof args, "roofline --overlap --warmup 1 --iters 3 --csv %s", csv);
    unlink(csv);
    const cli_result cr = cli_run(args);
    if (why) {
        TEST_EXPECT("roofline --overlap: refused off sm_90a, saying why",
                    cr.exit_code == 1 && strstr(cr.err, "not measured: ") && !file_exists(csv), "exit %d: %.400s",
                    cr.exit_code, cr.err);
        return;
    }
    cli_read_file(csv, text, sizeof text);
    int rows = 0;
    for (const char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n'))
        ++rows;
    /* a row a mode of every measured configuration, one a configuration that was not */
    const int expected = measured * OVERLAP_MODES + (OVERLAP_CONFIGS - measured);
    TEST_EXPECT("roofline --overlap: exit 0, the verdict, a CSV row a mode",
                cr.exit_code == 0 && strstr(cr.out, "verdict") && strstr(cr.out, "both / max(wgmma, gelu)") &&
                    strncmp(text, "date,device,", 12) == 0 && rows == expected,
                "exit %d, %d CSV rows (expected %d): %.300s", cr.exit_code, rows, expected, cr.err);
    unlink(csv);
}

int main(void)
{
    if (!test_gpu_available("gpu_roofline"))
        return test_exit_code();
    test_probes();
    test_zoo();
    test_overlap();
    return test_exit_code();
}
