/*
 * gpu_cli.c - the `cgp` program end to end on the GPU: `cgp run` round trip through .npy files
 * (random inputs written with npy_write_f32, output read back and compared with the CPU
 * reference) for both paddings and reductions; a failed output write leaves no file and exits 2;
 * `cgp check` passes on the default problem; a shape that does not fit in device memory is
 * refused before launching with exit 2 and a message giving needed and free memory; a small
 * `cgp bench` writes its CSV.
 */
#include <math.h>

#include "clilib.h"
#include "gpulib.h"
#include "npy.h"
#include "reference.h"
#include "rng.h"
#include "tolerance.h"

static char dir[512];

static const char *path(const char *name)
{
    static char buf[8][600];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void round_trip(uint64_t seed, int pad, int reduce)
{
    const int64_t n = 3, cin = 5, cout = 7, h = 19, w = 23;
    const int64_t xs[4] = {n, cin, h, w}, ws[4] = {cout, cin, 3, 3}, bs[1] = {cout};
    float *x = malloc(sizeof(float) * (size_t)(n * cin * h * w)), *wt = malloc(sizeof(float) * (size_t)(cout * cin * 9));
    float b[7];
    rng_fill_uniform(x, n * cin * h * w, -1.7f, 1.7f, seed);
    rng_fill_uniform(wt, cout * cin * 9, -0.15f, 0.15f, seed + 1);
    rng_fill_uniform(b, cout, -0.15f, 0.15f, seed + 2);
    char name[96], err[512], args[2048];
    snprintf(name, sizeof name, "cli run round trip %s %s", pad ? "same" : "valid", reduce ? "atomic" : "det");
    if (npy_write_f32(path("x.npy"), x, 4, xs, err, sizeof err) || npy_write_f32(path("w.npy"), wt, 4, ws, err, sizeof err) ||
        npy_write_f32(path("b.npy"), b, 1, bs, err, sizeof err)) {
        TEST_FAIL(name, "writing inputs: %s", err);
        free(x), free(wt);
        return;
    }
    remove(path("y.npy"));
    snprintf(args, sizeof args, "run --input %s --weight %s --bias %s --output %s --padding %s --reduce %s",
             path("x.npy"), path("w.npy"), path("b.npy"), path("y.npy"), pad ? "same" : "valid",
             reduce ? "atomic" : "det");
    const cli_result r = cli_run(args);
    npy_array y = {0};
    if (r.exit_code != 0) {
        TEST_FAIL(name, "exit %d: %s", r.exit_code, r.err);
    } else if (npy_read_f32(path("y.npy"), &y, err, sizeof err) != 0) {
        TEST_FAIL(name, "reading the output: %s", err);
    } else if (y.ndim != 2 || y.shape[0] != n || y.shape[1] != cout) {
        TEST_FAIL(name, "output has %d dims (%lld, %lld), expected (%lld, %lld)", y.ndim, (long long)y.shape[0],
                  (long long)y.shape[1], (long long)n, (long long)cout);
    } else {
        double ref[3 * 7];
        reference_forward(x, wt, b, n, cin, cout, h, w, pad, ref, 0);
        const int64_t pixels = (h + 2 * pad - 2) * (w + 2 * pad - 2);
        if (test_check_y(name, y.data, ref, n * cout, TEST_ARITH_FP32, pixels, cin).passed)
            TEST_PASS(name);
    }
    npy_free(&y);
    free(x);
    free(wt);
}

/* the value of column `column` in the CSV line that holds `needle` ("" when either is missing) */
static const char *csv_value(const char *csv, const char *needle, const char *column, char *out, size_t cap)
{
    out[0] = '\0';
    const char *header_end = strchr(csv, '\n'), *line = strstr(csv, needle);
    if (!header_end || !line)
        return out;
    while (line > csv && line[-1] != '\n')
        --line;
    int index = 0;
    for (const char *h = csv; h < header_end; ++index) {
        const size_t len = strcspn(h, ",\n");
        if (len == strlen(column) && strncmp(h, column, len) == 0) {
            for (int k = 0; k < index && line; ++k) /* the fields before it hold no comma in these rows */
                line = strchr(line, ',') ? strchr(line, ',') + 1 : NULL;
            if (line)
                snprintf(out, cap, "%.*s", (int)strcspn(line, ",\n"), line);
            return out;
        }
        h += len + 1;
    }
    return out;
}

/* `cgp bench --zoo FILE` on two shapes into one CSV with the shape columns, and `--cold-l2`: said in the
 * table and the CSV, the same check results as warm (warm_csv: the small bench above) */
static void bench_zoo_and_cold_l2(const char *warm_csv)
{
    FILE *f = fopen(path("zoo.csv"), "w");
    if (f) {
        fputs("n,cin,cout,h,w,padding,label\n2,8,64,20,20,valid,small\n1,3,5,9,11,same,odd\n", f);
        fclose(f);
    }
    char args[2048], csv[8192], a[64], b[64];
    snprintf(args, sizeof args, "bench --zoo %s --precision all --baselines cudnn --warmup 1 --iters 2 --csv %s",
             path("zoo.csv"), path("zoo_out.csv"));
    cli_result r = cli_run(args);
    cli_read_file(path("zoo_out.csv"), csv, sizeof csv);
    TEST_EXPECT("cli bench --zoo FILE: one table, both shapes in the CSV with their columns, the summary",
                f && r.exit_code == 0 && strstr(r.out, "zoo: 2 shapes") && strstr(r.out, "L2 warm") &&
                    strstr(csv, ",n,cin,cout,h,w,padding,seed,l2,variant,") &&
                    strstr(csv, ",2,8,64,20,20,valid,") && strstr(csv, ",1,3,5,9,11,same,") &&
                    strstr(r.out, "fused tf32 det vs cuDNN legacy tf32: ") &&
                    strstr(r.out, "fused 3xtf32 atomic vs cuDNN legacy fp32: "),
                "exit %d\n%s%s\ncsv: %s", r.exit_code, r.out, r.err, csv);
    snprintf(args, sizeof args, "bench --zoo-summary %s", path("zoo_out.csv"));
    r = cli_run(args);
    TEST_EXPECT("cli bench --zoo-summary of this device's zoo CSV (what make run prints)",
                r.exit_code == 0 && strstr(r.out, "the zoo on this ") && strstr(r.out, "(2 shapes, ") &&
                    strstr(r.out, "fused fp32 det vs cuDNN legacy fp32: "),
                "exit %d\n%s%s", r.exit_code, r.out, r.err);
    f = fopen(path("zoo_other.csv"), "w");
    if (f) {
        fputs("device,n,cin,cout,h,w,padding,variant,family,precision,median_ms\n"
              "Another GPU,1,8,64,9,9,valid,fused fp32 det,fused,fp32,0.5\n", f);
        fclose(f);
    }
    snprintf(args, sizeof args, "bench --zoo-summary %s", path("zoo_other.csv"));
    r = cli_run(args);
    TEST_EXPECT("cli bench --zoo-summary of another device's CSV says how to measure here",
                r.exit_code == 0 && strstr(r.out, "was measured on Another GPU, not on this") &&
                    strstr(r.out, "measures the zoo here") && !strstr(r.out, "vs cuDNN"),
                "exit %d\n%s%s", r.exit_code, r.out, r.err);

    snprintf(args, sizeof args, "bench --n 2 --h 40 --w 40 --warmup 1 --iters 3 --cold-l2 --csv %s",
             path("bench_cold.csv"));
    r = cli_run(args);
    cli_read_file(path("bench_cold.csv"), csv, sizeof csv);
    csv_value(warm_csv, "fused fp32 det", "rel_l2_error", a, sizeof a);
    csv_value(csv, "fused fp32 det", "rel_l2_error", b, sizeof b);
    char l2[16];
    csv_value(csv, "fused fp32 det", "l2", l2, sizeof l2);
    TEST_EXPECT("cli bench --cold-l2: said in the table and the CSV, the same error as warm",
                r.exit_code == 0 && strstr(r.out, "L2 cold (flushed before each run)") && strcmp(l2, "cold") == 0 &&
                    a[0] && strcmp(a, b) == 0,
                "exit %d, l2 '%s', error warm '%s' cold '%s'\n%s%s", r.exit_code, l2, a, b, r.out, r.err);
}

int main(void)
{
    if (!test_gpu_available("gpu_cli"))
        return test_exit_code();
    const uint64_t seed = test_seed("gpu_cli");
    snprintf(dir, sizeof dir, "%s/gpu_cli", cli_tmpdir());
    char cmd[700];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (system(cmd) != 0) {
        TEST_FAIL("gpu_cli setup", "cannot create %s", dir);
        return test_exit_code();
    }
    for (int pad = 0; pad <= 1; ++pad)
        for (int reduce = 0; reduce <= 1; ++reduce)
            round_trip(seed + (uint64_t)(4 * pad + 2 * reduce), pad, reduce);

    char args[2048];
    snprintf(args, sizeof args, "run --input %s --weight %s --bias %s --output %s/no/such/dir/y.npy", path("x.npy"),
             path("w.npy"), path("b.npy"), dir);
    cli_result r = cli_run(args);
    snprintf(cmd, sizeof cmd, "%s/no/such/dir", dir);
    TEST_EXPECT("cli run unwritable output", r.exit_code == 2 && strstr(r.err, "no/such/dir/y.npy") && !file_exists(cmd),
                "exit %d, stderr %s", r.exit_code, r.err);

    r = cli_run("check");
    TEST_EXPECT("cli check default problem", r.exit_code == 0 && strstr(r.out, "PASS"), "exit %d\n%s%s", r.exit_code,
                r.out, r.err);
    r = cli_run("check --n 4 --cin 3 --cout 5 --h 20 --w 9 --padding same --reduce atomic --reference both");
    TEST_EXPECT("cli check small, both references", r.exit_code == 0 && strstr(r.out, "CPU ref") && strstr(r.out, "PASS"),
                "exit %d\n%s%s", r.exit_code, r.out, r.err);
    /* tf32 on an image-like input: judged on the tf32-rounded operands; the exact error (TF32's rounding,
     * which need not stay under 1e-4 when the inputs are not centred) only printed */
    r = cli_run("check --precision tf32 --dist uniform01 --n 8 --cin 8 --cout 64 --h 64 --w 64 --reference both");
    TEST_EXPECT("cli check tf32 --dist uniform01: judged on tf32-rounded operands, the exact error printed",
                r.exit_code == 0 && strstr(r.out, "x uniform01") &&
                    strstr(r.out, "vs fp64 GPU ref of the tf32-rounded operands:") &&
                    strstr(r.out, "vs fp64 CPU ref of the tf32-rounded operands:") && strstr(r.out, "not judged") &&
                    strstr(r.out, "cgp check: PASS"),
                "exit %d\n%s%s", r.exit_code, r.out, r.err);
    for (int dist = 0; dist < 2; ++dist) {
        const char *args3 = dist ? "check --precision 3xtf32 --dist normal --n 4 --h 40 --w 40 --padding same"
                                 : "check --precision fp32 --dist uniform01 --n 4 --cin 16 --h 40 --w 40";
        r = cli_run(args3);
        TEST_EXPECT(dist ? "cli check 3xtf32 --dist normal" : "cli check fp32 --dist uniform01",
                    r.exit_code == 0 && strstr(r.out, "cgp check: PASS"), "exit %d\n%s%s", r.exit_code, r.out, r.err);
    }
    r = cli_run("check --precision all --n 2 --cin 3 --cout 5 --h 11 --w 9");
    {
        const char *first = strstr(r.out, "precision=fp32"), *second = strstr(r.out, "precision=tf32"),
                   *third = strstr(r.out, "precision=3xtf32"), *fail = strstr(r.out, "cgp check: FAIL");
        TEST_EXPECT("cli check --precision all: each precision in turn, each passing",
                    r.exit_code == 0 && first && second && third && first < second && second < third && !fail,
                    "exit %d\n%s%s", r.exit_code, r.out, r.err);
    }
    r = cli_run("check --n 16777216 --h 1024 --w 1024");
    TEST_EXPECT("cli check too large for the device", r.exit_code == 2 && strstr(r.err, "free"),
                "exit %d, stderr %s", r.exit_code, r.err);

    snprintf(args, sizeof args, "bench --n 2 --h 40 --w 40 --warmup 1 --iters 3 --csv %s", path("bench.csv"));
    r = cli_run(args);
    char csv[8192];
    cli_read_file(path("bench.csv"), csv, sizeof csv);
    TEST_EXPECT("cli bench small with csv", r.exit_code == 0 && strstr(csv, "date,device,") && strstr(csv, "fused fp32 det"),
                "exit %d\n%s%s\ncsv: %s", r.exit_code, r.out, r.err, csv);
    bench_zoo_and_cold_l2(csv);
    r = cli_run("kernels --shape 2,8,64,40,40 --precision tf32 --reduce atomic");
    TEST_EXPECT("cli kernels --shape: the measured pick on this device",
                r.exit_code == 0 && strstr(r.out, "heuristic: tf32-") && strstr(r.out, "measured:  tf32-") &&
                    strstr(r.out, "the fastest median GPU time of the"),
                "exit %d\n%s%s", r.exit_code, r.out, r.err);
    return test_exit_code();
}
