/*
 * cpu_zoo_summary.c - the zoo summary (host/bench/zoo_summary.c): per fused row, the min and geometric-mean
 * speedup over the fastest cuDNN legacy row of its precision class and the count below 1.0x, over the
 * shapes where both were timed (the cuDNN graph rows and untimed rows do not count); the same lines from
 * the CSV `cgp bench --zoo --csv` writes; malformed CSVs refused with file and line.
 *     make build/tests/cpu_zoo_summary && build/tests/cpu_zoo_summary
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"
#include "zoo_summary.h"

static const char expected[] =
    "fused fp32 det vs cuDNN legacy fp32: 2 of 3 shapes, min 0.50x (2x8x64x16x16 same), geometric mean 1.00x, "
    "1 below 1.0x\n"
    "fused tf32 det vs cuDNN legacy tf32: 1 of 2 shapes, min 2.00x (1x8x64x16x16 valid), geometric mean 2.00x, "
    "0 below 1.0x\n";

/* the rows of the summary above: shape, variant, family, precision, median ms (0: not timed) */
static const struct {
    const char *shape, *variant, *family;
    bench_precision precision;
    double ms;
} rows[] = {
    {"1x8x64x16x16 valid", "fused fp32 det", "fused", BENCH_PRECISION_FP32, 1.0},
    {"1x8x64x16x16 valid", "fused tf32 det", "fused", BENCH_PRECISION_TF32, 0.25},
    {"1x8x64x16x16 valid", "cudnn legacy fp32", "cudnn", BENCH_PRECISION_FP32, 2.0},
    {"1x8x64x16x16 valid", "cudnn legacy tf32", "cudnn", BENCH_PRECISION_TF32, 0.5},
    {"1x8x64x16x16 valid", "cudnn graph fp32", "cudnn-graph", BENCH_PRECISION_FP32, 0.1},
    {"2x8x64x16x16 same", "fused fp32 det", "fused", BENCH_PRECISION_FP32, 2.0},
    {"2x8x64x16x16 same", "fused tf32 det", "fused", BENCH_PRECISION_TF32, 0.5},
    {"2x8x64x16x16 same", "cudnn legacy fp32", "cudnn", BENCH_PRECISION_FP32, 1.0},
    {"2x8x64x16x16 same", "cudnn legacy tf32", "cudnn", BENCH_PRECISION_TF32, 0.0},
    {"4x3x7x9x9 valid", "fused fp32 det", "fused", BENCH_PRECISION_FP32, 0.0},
    {"4x3x7x9x9 valid", "cudnn legacy fp32", "cudnn", BENCH_PRECISION_FP32, 1.0},
};

static void summary_text(const zoo_timings *t, char *buf, size_t cap)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    buf[0] = '\0';
    if (!f)
        return;
    zoo_summary_print(f, t);
    fclose(f);
    snprintf(buf, cap, "%s", text);
    free(text);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

int main(void)
{
    char got[2048], err[512];
    zoo_timings t = {0};
    int ok = 1;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i)
        ok &= zoo_timings_add(&t, rows[i].shape, rows[i].variant, rows[i].family, rows[i].precision, rows[i].ms) == 0;
    summary_text(&t, got, sizeof got);
    TEST_EXPECT("zoo summary of rows", ok && t.shape_count == 3 && strcmp(got, expected) == 0, "got:\n%s", got);
    zoo_timings_free(&t);
    zoo_timings empty = {0};
    summary_text(&empty, got, sizeof got);
    TEST_EXPECT("zoo summary without fused rows says so", strstr(got, "no fused row") != NULL, "got: %s", got);

    char dir[512], path[600];
    if (test_scratch_dir(dir, sizeof dir, "cpu_zoo_summary") != 0)
        return test_exit_code();
    snprintf(path, sizeof path, "%s/zoo.csv", dir);
    /* as `cgp bench --zoo --csv` writes it (fewer columns than it has, in its order) */
    char csv[4096] = "date,device,n,cin,cout,h,w,padding,l2,variant,family,precision,status,median_ms,detail\n";
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        int n, cin, cout, h, w;
        char padding[8];
        sscanf(rows[i].shape, "%dx%dx%dx%dx%d %7s", &n, &cin, &cout, &h, &w, padding);
        char line[512], ms[32] = "";
        if (rows[i].ms > 0.0)
            snprintf(ms, sizeof ms, "%g", rows[i].ms);
        snprintf(line, sizeof line, "2026-01-01,\"GPU, H\",%d,%d,%d,%d,%d,%s,warm,%s,%s,%s,%s,%s,\"a, b\"\n", n, cin,
                 cout, h, w, padding, rows[i].variant, rows[i].family, bench_precision_name(rows[i].precision),
                 rows[i].ms > 0.0 ? "pass" : "failed", ms);
        strncat(csv, line, sizeof csv - strlen(csv) - 1);
    }
    write_file(path, csv);
    if (zoo_summary_read_csv(path, &t, err, sizeof err) != 0) {
        TEST_FAIL("zoo summary from a CSV", "%s", err);
    } else {
        summary_text(&t, got, sizeof got);
        TEST_EXPECT("zoo summary from a CSV", strcmp(got, expected) == 0 && strcmp(t.device, "GPU, H") == 0,
                    "device \"%s\", got:\n%s", t.device, got);
        zoo_timings_free(&t);
    }

    static const struct {
        const char *name, *text, *want;
    } bad[] = {
        {"zoo summary refuses a CSV without median_ms", "device,n,cin,cout,h,w,padding,variant,family,precision\n",
         "no column \"median_ms\""},
        {"zoo summary refuses two devices",
         "device,n,cin,cout,h,w,padding,variant,family,precision,median_ms\n"
         "A,1,1,1,3,3,valid,fused fp32 det,fused,fp32,1\nB,1,1,1,3,3,valid,fused fp32 det,fused,fp32,1\n",
         "zoo.csv:3: device \"B\" differs from line 2's \"A\""},
        {"zoo summary refuses a bad median",
         "device,n,cin,cout,h,w,padding,variant,family,precision,median_ms\nA,1,1,1,3,3,valid,v,fused,fp32,1ms\n",
         "zoo.csv:2: median_ms must be a positive number or empty, got \"1ms\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        write_file(path, bad[i].text);
        err[0] = '\0';
        const int rc = zoo_summary_read_csv(path, &t, err, sizeof err);
        TEST_EXPECT(bad[i].name, rc == -1 && t.count == 0 && strstr(err, bad[i].want) && strstr(err, path),
                    "rc %d, message \"%s\"", rc, err);
    }
    remove(path);
    rmdir(dir);
    return test_exit_code();
}
