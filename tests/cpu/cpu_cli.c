/*
 * cpu_cli.c - every bad-input path of the `cgp` command line that is reached before a GPU is
 * needed: each must exit with code 2 and one message naming the option or file and what is
 * allowed, and must not create an output file. Needs no GPU. Run by `make test` ($CGP).
 */
#include <stdint.h>

#include "clilib.h"
#include "npy.h"
#include "testlib.h"

static char tmp[512];

static const char *path(const char *name)
{
    static char buf[8][600];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmp, name);
    return buf[k];
}

static void write_npy(const char *name, int ndim, const int64_t *shape)
{
    int64_t count = 1;
    for (int i = 0; i < ndim; ++i)
        count *= shape[i];
    float *data = calloc((size_t)(count > 0 ? count : 1), sizeof(float));
    for (int64_t i = 0; i < count; ++i)
        data[i] = (float)((i * 37) % 11) * 0.1f - 0.5f;
    char err[512];
    if (npy_write_f32(path(name), data, ndim, shape, err, sizeof err) != 0)
        fprintf(stderr, "setup: %s\n", err);
    free(data);
}

/* The line of text that contains `what` (up to its end, in a buffer of its own), or NULL */
static const char *line_with(const char *text, const char *what)
{
    static char line[4][1024];
    static int k;
    const char *at = strstr(text, what);
    if (!at)
        return NULL;
    while (at > text && at[-1] != '\n')
        --at;
    const char *end = strchr(at, '\n');
    const size_t length = end ? (size_t)(end - at) : strlen(at);
    k = (k + 1) % 4;
    snprintf(line[k], sizeof line[k], "%.*s", (int)length, at);
    return line[k];
}

/* expects exit code 2, the text in stderr, and no output file */
static void expect_bad(const char *name, const char *args, const char *text)
{
    remove(path("y.npy"));
    const cli_result r = cli_run(args);
    if (r.exit_code != 2)
        TEST_FAIL(name, "exit code %d, expected 2 (stderr: %s)", r.exit_code, r.err);
    else if (!strstr(r.err, text))
        TEST_FAIL(name, "stderr lacks \"%s\": %s", text, r.err);
    else if (strchr(r.err, '\n') != strrchr(r.err, '\n'))
        TEST_FAIL(name, "more than one line on stderr: %s", r.err);
    else if (file_exists(path("y.npy")))
        TEST_FAIL(name, "an output file was left behind");
    else
        TEST_PASS(name);
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "%s/cpu_cli", cli_tmpdir());
    char cmd[700];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", tmp);
    if (system(cmd) != 0) {
        TEST_FAIL("cli setup", "cannot create %s", tmp);
        return test_exit_code();
    }
    const int64_t x_ok[4] = {2, 3, 5, 5}, x_small[4] = {2, 3, 2, 2}, x_3d[3] = {3, 5, 5};
    const int64_t w_ok[4] = {4, 3, 3, 3}, w_cin[4] = {4, 2, 3, 3}, w_k5[4] = {4, 3, 5, 5};
    const int64_t b_ok[1] = {4}, b_bad[1] = {5};
    write_npy("x.npy", 4, x_ok);
    write_npy("x_small.npy", 4, x_small);
    write_npy("x_3d.npy", 3, x_3d);
    write_npy("w.npy", 4, w_ok);
    write_npy("w_cin.npy", 4, w_cin);
    write_npy("w_k5.npy", 4, w_k5);
    write_npy("b.npy", 1, b_ok);
    write_npy("b_bad.npy", 1, b_bad);
    char a[4096];
#define RUN_ARGS(x, w, b, extra)                                                                                      \
    (snprintf(a, sizeof a, "run --input %s --weight %s --bias %s --output %s %s", (x), (w), (b), path("y.npy"),        \
              (extra)),                                                                                              \
     a)

    {
        const cli_result r = cli_run("");
        TEST_EXPECT("cli no command", r.exit_code == 2 && strstr(r.err, "usage: cgp"), "exit %d, stderr %s",
                    r.exit_code, r.err);
    }
    {
        const cli_result r = cli_run("--help");
        TEST_EXPECT("cli --help lists --version", r.exit_code == 0 && strstr(r.out, "cgp --version"),
                    "exit %d, stdout %s", r.exit_code, r.out);
    }
    {
        /* on a machine without a usable GPU the command fails with the reason the tests give; with one it runs */
        const cli_result r = cli_run("check --n 1 --cin 1 --cout 1 --h 3 --w 3");
        TEST_EXPECT("cli check: no usable GPU is said as the tests say it",
                    r.exit_code == 0 || (r.exit_code == 1 && (strstr(r.err, "cgp check: no NVIDIA GPU on this machine (") ||
                                                              strstr(r.err, "cgp check: this machine has an NVIDIA device ("))),
                    "exit %d, stderr %s", r.exit_code, r.err);
    }
    expect_bad("cli unknown command", "frobnicate", "unknown command 'frobnicate'");
    expect_bad("cli roofline --zoo missing file (one spelling: --zoo FILE)", "roofline --zoo no/such/zoo.csv",
               "no/such/zoo.csv: No such file");
    expect_bad("cli roofline --zoo-file is gone", "roofline --zoo-file x.csv", "unknown option '--zoo-file'");
    expect_bad("cli roofline --iters 0 (one rule: >= 1)", "roofline --iters 0", "--iters must be an integer in [1, 100000]");
    expect_bad("cli roofline --overlap runs alone", "roofline --overlap --zoo",
               "cgp roofline: --overlap runs the overlap probe alone");
    /* output paths are checked before any GPU work: a typo costs nothing */
    expect_bad("cli bench --csv in a missing directory", "bench --csv no/such/dir/b.csv",
               "cgp bench: no/such/dir/b.csv: No such file or directory");
    snprintf(a, sizeof a, "bench --json %s", tmp);
    expect_bad("cli bench --json a directory", a, "exists and is not a regular file");
    expect_bad("cli roofline --svg in a missing directory", "roofline --svg no/such/dir/r.svg",
               "cgp roofline: no/such/dir/r.svg: No such file or directory");
    snprintf(a, sizeof a, "run --input %s --weight %s --bias %s --output no/such/dir/y.npy", path("x.npy"),
             path("w.npy"), path("b.npy"));
    expect_bad("cli run --output in a missing directory", a, "cgp run: no/such/dir/y.npy: No such file or directory");
    expect_bad("cli bench --n 0", "bench --n 0", "--n must be an integer in [1, 16777216], got '0'");
    expect_bad("cli bench --n 12x", "bench --n 12x", "--n must be an integer");
    expect_bad("cli bench --h overflow", "bench --h 99999999999999999999", "--h must be an integer");
    expect_bad("cli bench --padding", "bench --padding diagonal", "valid, same");
    expect_bad("cli check --reduce", "check --reduce fast", "--reduce must be one of det, atomic");
    expect_bad("cli check --precision", "check --precision fp16", "--precision must be one of fp32, tf32, 3xtf32");
    expect_bad("cli bench --precision list", "bench --precision fp32,fp16", "unknown item 'fp16'");
    expect_bad("cli bench --baselines", "bench --baselines cudnn,magic", "unknown item 'magic'");
    expect_bad("cli bench --iters 0", "bench --iters 0", "--iters must be an integer in [1, 100000]");
    expect_bad("cli bench --stages fp32", "bench --stages", "--stages needs --precision tf32 or 3xtf32");
    expect_bad("cli bench --sweep key", "bench --sweep q=1,2", "--sweep must look like KEY=V1,V2");
    expect_bad("cli bench --sweep value", "bench --sweep n=1,x", "values must be integers");
    expect_bad("cli bench unknown option", "bench --paddin same", "unknown option '--paddin'");
    expect_bad("cli bench repeated option", "bench --n 2 --n 3", "--n given twice");
    expect_bad("cli bench positional", "bench 12", "'12'");
    expect_bad("cli check --kernel", "check --kernel 100", "--kernel must be an integer in [0, 99]");
    expect_bad("cli check --precision all with a --kernel", "check --precision all --kernel 9",
               "--kernel 9 is a version of one precision");
    expect_bad("cli check no output pixel", "check --h 2 --w 9", "no output pixel with padding valid");
    expect_bad("cli check --dist", "check --dist gaussian", "--dist must be one of uniform, normal, uniform01");
    expect_bad("cli bench sweep without output pixel", "bench --sweep h=8,2", "H=2 W=2 give no output pixel");
    FILE *bad_zoo = fopen(path("bad_zoo.csv"), "w");
    if (bad_zoo) {
        fputs("n,cin,cout,h,w,padding\n1,8,64,2,2,valid\n", bad_zoo);
        fclose(bad_zoo);
    }
    expect_bad("cli bench --zoo missing file", "bench --zoo no/such/zoo.csv", "no/such/zoo.csv: No such file");
    snprintf(a, sizeof a, "bench --zoo %s", path("bad_zoo.csv"));
    expect_bad("cli bench --zoo malformed file", a, "bad_zoo.csv:2: H=2 W=2 give no output pixel");
    expect_bad("cli bench --zoo with a shape option", "bench --zoo --cin 3", "--zoo takes its shapes from the zoo");
    expect_bad("cli bench --zoo with --sweep", "bench --zoo --sweep n=1,2", "leave out --sweep");
    expect_bad("cli bench --zoo= empty", "bench --zoo=", "--zoo needs a value");
    expect_bad("cli bench --cold-l2 value", "bench --cold-l2=1", "--cold-l2 takes no value");
    expect_bad("cli bench --zoo-summary missing file", "bench --zoo-summary no/such/zoo.csv",
               "no/such/zoo.csv: No such file");
    expect_bad("cli bench --zoo-summary not a zoo CSV", "bench --zoo-summary tests/data/README.md", "README.md");
    expect_bad("cli bench --zoo-summary with --zoo", "bench --zoo-summary x.csv --zoo", "leave out --zoo");
    expect_bad("cli kernels --shape four numbers", "kernels --shape 8,512,512,7", "--shape must be N,CIN,COUT,H,W");
    expect_bad("cli kernels --shape zero", "kernels --shape 8,0,512,7,7", "got '8,0,512,7,7'");
    expect_bad("cli kernels --shape and --cin", "kernels --shape 8,512,512,7,7 --cin 4", "not both");
    expect_bad("cli kernels --shape no output pixel", "kernels --shape 1,1,1,2,2", "H=2 W=2 give no output pixel");
    const cli_result k = cli_run("kernels --shape 8,512,512,7,7 --padding same --precision fp32");
    const char *v9 = line_with(k.out, " fp32-v9 ");
    TEST_EXPECT("cli kernels --shape: each candidate with what it is and the heuristic's pick with its reason",
                k.exit_code == 0 && v9 && strstr(v9, "fp32-v9    ffma winograd-f4x4, ") &&
                    strstr(v9, "  cannot run it: needs Cin = 8") && strstr(k.out, "heuristic: fp32-v") &&
                    strstr(k.out, "): the lowest GPU time the cost model predicts among the versions that run the "
                                  "shape (host/lib/cost_model.c)") &&
                    strstr(k.out, "  measured:  ") && !strstr(k.out, "tf32"),
                "exit %d\n%s%s", k.exit_code, k.out, k.err);
    {
        /* without a device `cgp kernels` judges with a described H200 (CGP_DEVICE_INFO_H200, the TMA encoder
         * included): the TMA versions run the default problem, with their path, as on the H200 itself */
        const cli_result t = cli_run("kernels");
        const char *v12 = strstr(t.out, "fp32-v12   fp32");
        const char *limits = v12 ? strchr(v12, '\n') : NULL;
        const char *runs = limits ? strchr(limits + 1, '\n') : NULL;
        TEST_EXPECT("cli kernels: a TMA version runs the default problem, with or without a device",
                    t.exit_code == 0 && runs && strncmp(runs + 1, "      runs this shape: yes, path ", 33) == 0,
                    "exit %d\n%.600s%s", t.exit_code, v12 ? v12 : t.out, t.err);
        /* under each version the shapes and GPUs it runs, in words from its declared limits */
        static const char v12_limits[] = "      runs: compute capability 8.0 or newer, 4 Cin <= Hout x Wout, ";
        TEST_EXPECT("cli kernels: each version's declared limits under it",
                    limits && strncmp(limits + 1, v12_limits, strlen(v12_limits)) == 0 &&
                        strstr(t.out, "      runs: compute capability 9.0 (sm_90a), Cin <= 8, Cout <= 64, "),
                    "exit %d\n%.600s%s", t.exit_code, v12 ? v12 : t.out, t.err);
        /* the table's column of what each version is (its descriptive name, from its kind's fields) */
        static const char v12_kind[] =
            "fp32-v12   fp32    ffma winograd-f4x4, 16x32x32 12w, tma/cp.async, w/tile, split-K 1/2/4 ";
        TEST_EXPECT("cli kernels: each version with what it is beside its number",
                    t.exit_code == 0 && v12 && strncmp(v12, v12_kind, strlen(v12_kind)) == 0 &&
                        strstr(t.out, " tf32-v16   tf32    wgmma, 6 tiles, tma, w resident, persistent, A in regs "),
                    "exit %d\n%.2000s%s", t.exit_code, t.out, t.err);
    }
    const cli_result d = cli_run("kernels --shape 64,3,32,224,224 --padding same --precision fp32");
    const char *v11 = line_with(d.out, " fp32-v11 "), *v10 = line_with(d.out, " fp32-v10 ");
    TEST_EXPECT("cli kernels --shape: every version that runs the shape with its path and predicted GPU time",
                d.exit_code == 0 && v11 && strstr(v11, "fp32-v11   ffma winograd-f2x2, ") &&
                    strstr(v11, "  runs it, path ") && v10 && strstr(v10, "fp32-v10   ffma implicit-gemm, ") &&
                    strstr(v10, "  runs it, path ") && strstr(d.out, "; the cost model predicts ") &&
                    !strstr(d.out, "no coefficients"),
                "exit %d\n%s%s", d.exit_code, d.out, d.err);
    expect_bad("cli run missing --input", "run --weight w --bias b --output y", "--input is required");
    expect_bad("cli run missing file", RUN_ARGS(path("nope.npy"), path("w.npy"), path("b.npy"), ""),
               "nope.npy: No such file or directory");
    expect_bad("cli run float64", RUN_ARGS("tests/data/f64.npy", path("w.npy"), path("b.npy"), ""), "f64.npy");
    expect_bad("cli run big-endian", RUN_ARGS("tests/data/f32_be.npy", path("w.npy"), path("b.npy"), ""),
               "f32_be.npy");
    expect_bad("cli run fortran", RUN_ARGS("tests/data/f32_fortran.npy", path("w.npy"), path("b.npy"), ""),
               "fortran");
    expect_bad("cli run truncated", RUN_ARGS("tests/data/f32_truncated.npy", path("w.npy"), path("b.npy"), ""),
               "f32_truncated.npy");
    expect_bad("cli run x not 4-d", RUN_ARGS(path("x_3d.npy"), path("w.npy"), path("b.npy"), ""),
               "input must have shape (N, Cin, H, W)");
    expect_bad("cli run weight Cin", RUN_ARGS(path("x.npy"), path("w_cin.npy"), path("b.npy"), ""),
               "weight must have shape (Cout, Cin, 3, 3) = (any, 3, 3, 3), got (4, 2, 3, 3)");
    expect_bad("cli run weight 5x5", RUN_ARGS(path("x.npy"), path("w_k5.npy"), path("b.npy"), ""),
               "got (4, 3, 5, 5)");
    expect_bad("cli run bias length", RUN_ARGS(path("x.npy"), path("w.npy"), path("b_bad.npy"), ""),
               "bias must have shape (Cout,) = (4,), got (5,)");
    expect_bad("cli run no output pixel", RUN_ARGS(path("x_small.npy"), path("w.npy"), path("b.npy"), ""),
               "gives no output pixel with padding valid");
    expect_bad("cli run bad padding", RUN_ARGS(path("x.npy"), path("w.npy"), path("b.npy"), "--padding 2"),
               "--padding must be one of valid, same");
    return test_exit_code();
}
