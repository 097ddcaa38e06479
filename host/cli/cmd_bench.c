/*
 * cmd_bench.c - `cgp bench`: times the fused kernel and the baselines side by side on the same
 * input, in one process: every row checked against fp64 first, then CUDA-event timings
 * (median/min/max of --iters runs after --warmup), TFLOP/s, bytes moved, and how many times
 * faster the fused kernel is than each row. --csv/--json/--markdown write the same rows with
 * the machine's identity. --sweep KEY=V1,V2,... repeats it over one dimension (n, h (H=W),
 * cin, cout) into one file; --zoo over the shapes of the zoo (host/bench/zoo.h), as one table
 * followed by where the fused rows stand against cuDNN (zoo_summary.h); --zoo-summary FILE prints that
 * summary again from the CSV of a zoo run on this device (`make run` does).
 *     cgp bench [shape options | --zoo [FILE]] [--precision fp32,tf32,3xtf32|all] [--reduce det,atomic]
 *               [--baselines all|none|cudnn,cudnn-graph,unfused] [--warmup 5 --iters 30] [--cold-l2]
 *               [--stages]   (tensor-core precisions: time the MMAs and the epilogue apart, variants_stages.c)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "zoo.h"
#include "zoo_summary.h"

#define MAX_SWEEP 64

/* Splits a comma list and maps each item to a bit through names[] (NULL-terminated); "all"
 * sets every bit, "none" none. Returns 0, or -1 with a message naming the option. */
static int parse_set(const char *option, const char *text, const char *const *names, unsigned *out, char *err,
                     size_t errlen)
{
    *out = 0;
    if (strcmp(text, "none") == 0)
        return 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (strcmp(item, "all") == 0) {
            for (int i = 0; names[i]; ++i)
                *out |= 1u << i;
            continue;
        }
        int found = -1;
        for (int i = 0; names[i]; ++i)
            if (strcmp(item, names[i]) == 0)
                found = i;
        if (found < 0) {
            char allowed[256] = "";
            for (int i = 0; names[i]; ++i)
                snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s", i ? ", " : "", names[i]);
            snprintf(err, errlen, "cgp bench: %s: unknown item '%s' (allowed: %s, all, none)", option, item, allowed);
            return -1;
        }
        *out |= 1u << found;
    }
    return 0;
}

static const char *const sweep_keys[] = {"n", "h", "cin", "cout", NULL};

/* "n=1,8,32" -> key index and values. Returns 0 or -1 with a message. */
static int parse_sweep(const char *text, int *key, int64_t *values, int *count, char *err, size_t errlen)
{
    const char *eq = strchr(text, '=');
    *count = 0;
    *key = -1;
    for (int i = 0; eq && sweep_keys[i]; ++i)
        if ((size_t)(eq - text) == strlen(sweep_keys[i]) && strncmp(text, sweep_keys[i], (size_t)(eq - text)) == 0)
            *key = i;
    if (*key < 0) {
        snprintf(err, errlen, "cgp bench: --sweep must look like KEY=V1,V2,... with KEY one of n, h, cin, cout; got '%s'",
                 text);
        return -1;
    }
    const char *p = eq + 1;
    while (*p) {
        char *end = NULL;
        const long long v = strtoll(p, &end, 10);
        if (end == p || (*end != ',' && *end != '\0') || v < 1 || v > (1 << 24) || *count >= MAX_SWEEP) {
            snprintf(err, errlen, "cgp bench: --sweep %s: values must be integers in [1, 16777216], at most %d of them",
                     sweep_keys[*key], MAX_SWEEP);
            return -1;
        }
        values[(*count)++] = v;
        p = *end ? end + 1 : end;
    }
    if (*count == 0) {
        snprintf(err, errlen, "cgp bench: --sweep %s= needs at least one value", sweep_keys[*key]);
        return -1;
    }
    return 0;
}

static const char *const baseline_names[] = {"cudnn", "cudnn-graph", "unfused", NULL};

/* One problem of the run. */
typedef struct bench_job {
    cgp_shape shape;
    cgp_padding padding;
} bench_job;

/* The problems: the zoo's, the sweep's, or the one of the shape options. Returns the count, or -1 after
 * printing why (bad input). *jobs is malloc'd. */
static int make_jobs(const cli_problem_options *po, const zoo *z, int sweep_key, const int64_t *sweep_values,
                     int sweep_count, bench_job **jobs)
{
    const int count = z ? z->count : sweep_count;
    *jobs = calloc((size_t)count, sizeof **jobs);
    if (!*jobs) {
        fprintf(stderr, "cgp bench: out of host memory\n");
        return -1;
    }
    for (int k = 0; k < count; ++k) {
        bench_job *j = &(*jobs)[k];
        if (z) {
            j->shape = z->shapes[k].shape;
            j->padding = z->shapes[k].padding;
            continue;
        }
        cli_problem_options pk = *po;
        if (sweep_key == 0) pk.n = sweep_values[k];
        if (sweep_key == 1) pk.h = pk.w = sweep_values[k];
        if (sweep_key == 2) pk.cin = sweep_values[k];
        if (sweep_key == 3) pk.cout = sweep_values[k];
        j->shape = cli_shape(&pk);
        j->padding = (cgp_padding)pk.padding;
        if (cgp_output_height(&j->shape, j->padding) < 1 || cgp_output_width(&j->shape, j->padding) < 1) {
            fprintf(stderr, "cgp bench: H=%lld W=%lld give no output pixel with padding %s\n", (long long)j->shape.h,
                    (long long)j->shape.w, cli_padding_names[j->padding]);
            free(*jobs);
            return -1;
        }
    }
    return count;
}

/* The zoo summary of the results measured in this run. */
static void print_zoo_summary(const bench_result *results, int count)
{
    zoo_timings t = {0};
    char shape[64];
    int ok = 1;
    for (int k = 0; k < count && ok; ++k) {
        bench_shape_name(&results[k].problem, shape, sizeof shape);
        for (int i = 0; i < results[k].count && ok; ++i) {
            const bench_row *row = &results[k].rows[i];
            ok = zoo_timings_add(&t, shape, row->v.name, row->v.family, row->v.precision,
                                 bench_row_ms(row)) == 0;
        }
    }
    printf("\nwhere the fused rows stand (speedup in GPU time over the fastest cuDNN legacy row of the precision "
           "class, and over cuDNN's convolution alone, per shape where both were timed):\n");
    if (ok)
        zoo_summary_print(stdout, &t);
    else
        printf("  (out of host memory)\n");
    zoo_timings_free(&t);
}

/* --zoo-summary: the summary of a zoo CSV measured on this device, or how to measure one here. */
static int zoo_summary_of_file(const char *path)
{
    char err[512];
    zoo_timings t;
    if (zoo_summary_read_csv(path, &t, err, sizeof err) != 0) {
        fprintf(stderr, "cgp bench: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    if (!cli_require_device("cgp bench")) {
        zoo_timings_free(&t);
        return EXIT_FAIL;
    }
    sysinfo si;
    sysinfo_collect(&si);
    if (strcmp(t.device, si.device) != 0) {
        printf("%s was measured on %s, not on this %s: `cgp bench --zoo --precision all --csv %s` measures the zoo "
               "here\n", path, t.device[0] ? t.device : "no device (no rows)", si.device, path);
    } else {
        printf("the zoo on this %s (%d shapes, %s; `cgp bench --zoo --precision all --csv %s` measures it again):\n",
               si.device, t.shape_count, path, path);
        zoo_summary_print(stdout, &t);
    }
    zoo_timings_free(&t);
    return EXIT_OK;
}

int cmd_bench(int argc, char **argv)
{
    cli_problem_options po;
    cli_problem_defaults(&po);
    int64_t warmup = 5, iters = 30;
    const char *precisions = "fp32", *reduces = "det,atomic", *baselines = "all";
    const char *csv = NULL, *json = NULL, *markdown = NULL, *sweep = NULL, *zoo_file = NULL, *zoo_summary = NULL;
    int stages = 0, use_zoo = 0, cold_l2 = 0;
    option_spec specs[OPTIONS_MAX];
    int count = 0;
    cli_add_shape_specs(specs, &count, &po);
    specs[count++] = (option_spec)OPTION_INT("--kernel", &po.kernel, 0, 99, "fused kernel version (0: the best)");
    specs[count++] = (option_spec)OPTION_STRING("--precision", &precisions, "fused precisions: fp32,tf32,3xtf32 or all");
    specs[count++] = (option_spec)OPTION_STRING("--reduce", &reduces, "fused reductions: det,atomic or all");
    specs[count++] = (option_spec)OPTION_STRING("--baselines", &baselines, "cudnn,cudnn-graph,unfused, all or none");
    specs[count++] = (option_spec)OPTION_FLAG("--stages", &stages,
                                              "also time the tf32/3xtf32 kernels with the MMAs alone, the epilogue "
                                              "alone and neither, and print the split");
    specs[count++] = (option_spec)OPTION_INT("--warmup", &warmup, 0, 100000, "untimed runs before timing");
    specs[count++] = (option_spec)OPTION_INT("--iters", &iters, 1, 100000, "timed runs (median, min, max)");
    specs[count++] = (option_spec)OPTION_FLAG("--cold-l2", &cold_l2,
                                              "flush the L2 before each timed run (default: timed with a warm L2)");
    specs[count++] = (option_spec)OPTION_STRING("--csv", &csv, "also write the rows as CSV to this file");
    specs[count++] = (option_spec)OPTION_STRING("--json", &json, "also write the rows as JSON to this file");
    specs[count++] = (option_spec)OPTION_STRING("--markdown", &markdown, "also write a Markdown table to this file");
    specs[count++] = (option_spec)OPTION_STRING("--sweep", &sweep, "KEY=V1,V2,...: repeat over n, h (H=W), cin or cout");
    specs[count++] = (option_spec)OPTION_FLAG_OR_STRING("--zoo", &use_zoo, &zoo_file,
                                                        "every shape of the public zoo (host/bench/zoo.csv), or of "
                                                        "this CSV file (n,cin,cout,h,w,padding[,label])");
    specs[count++] = (option_spec)OPTION_STRING("--zoo-summary", &zoo_summary,
                                                "only print where the fused rows stand, from the CSV of a zoo run "
                                                "(`--zoo --csv FILE`) if it was measured on this device");
    specs[count++] = (option_spec)OPTION_END;
    int code = EXIT_OK;
    if (!cli_parse("cgp bench", "time the fused kernel and the baselines side by side", specs, argc, argv, &code))
        return code;

    if (zoo_summary && (use_zoo || sweep)) {
        fprintf(stderr, "cgp bench: --zoo-summary reads the results of an earlier run: leave out --zoo and --sweep\n");
        return EXIT_BAD_INPUT;
    }
    if (zoo_summary)
        return zoo_summary_of_file(zoo_summary);
    char err[512];
    bench_options bo = {(int)warmup, (int)iters, (uint64_t)po.seed, {0, 0, (int)po.kernel}, 0, stages, cold_l2};
    int sweep_key = -1, sweep_count = 1;
    int64_t sweep_values[MAX_SWEEP];
    if (parse_set("--precision", precisions, cli_precision_names, &bo.fused.precisions, err, sizeof err) != 0 ||
        parse_set("--reduce", reduces, cli_reduce_names, &bo.fused.reduces, err, sizeof err) != 0 ||
        parse_set("--baselines", baselines, baseline_names, &bo.baselines, err, sizeof err) != 0 ||
        (sweep && parse_sweep(sweep, &sweep_key, sweep_values, &sweep_count, err, sizeof err) != 0)) {
        fprintf(stderr, "%s\n", err);
        return EXIT_BAD_INPUT;
    }
    if (stages && !(bo.fused.precisions & ((1u << CGP_PRECISION_TF32) | (1u << CGP_PRECISION_TF32X3)))) {
        fprintf(stderr, "cgp bench: --stages needs --precision tf32 or 3xtf32 (the fp32 kernels have no stage split)\n");
        return EXIT_BAD_INPUT;
    }
    if (use_zoo && (sweep || cli_shape_given(&po, 1))) {
        fprintf(stderr, "cgp bench: --zoo takes its shapes from the zoo: leave out --sweep and the shape options "
                        "(--n --cin --cout --h --w --padding)\n");
        return EXIT_BAD_INPUT;
    }
    const char *const outputs[] = {csv, json, markdown};
    if (!cli_outputs_writable("cgp bench", outputs, 3))
        return EXIT_BAD_INPUT;
    zoo z = {0};
    if (use_zoo && zoo_load(zoo_file, &z, err, sizeof err) != 0) {
        fprintf(stderr, "cgp bench: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    bench_job *jobs = NULL;
    const int jobs_count = make_jobs(&po, use_zoo ? &z : NULL, sweep_key, sweep_values, sweep_count, &jobs);
    if (jobs_count < 0) {
        zoo_free(&z);
        return EXIT_BAD_INPUT;
    }
    bench_result *results = calloc((size_t)jobs_count, sizeof *results);
    if (!results || !cli_require_device("cgp bench")) {
        if (!results)
            fprintf(stderr, "cgp bench: out of host memory\n");
        free(results), free(jobs), zoo_free(&z);
        return EXIT_FAIL;
    }
    sysinfo si;
    sysinfo_collect(&si);
    printf("cgp bench: %s (%d SMs, cc %d.%d), driver %s, CUDA %s, cuDNN %s, commit %s, %s\n", si.device, si.sm_count,
           si.cc_major, si.cc_minor, si.driver, si.runtime, si.cudnn, si.commit, si.date);
    printf("each row: checked against fp64 on NaN-poisoned output, then %d warm-up and %d timed runs (CUDA events: "
           "'call ms'), %s%s\n", bo.warmup, bo.iters, cold_l2 ? "L2 cold (flushed before each run)" : "L2 warm",
           cold_l2 ? "" : ", then its GPU time by CUDA-graph replay ('GPU ms': the verdict)");
    if (use_zoo) {
        printf("\nzoo: %d shapes from %s\n", z.count, zoo_file ? zoo_file : "the built-in public zoo");
        bench_print_header(stdout, 1);
    }
    int rc = EXIT_OK, done = 0;
    for (int k = 0; k < jobs_count; ++k) {
        const int brc = bench_run(&jobs[k].shape, jobs[k].padding, &bo, &results[k], err, sizeof err);
        if (brc != 0 && !(use_zoo && brc == 2)) { /* a zoo shape too large for the device is a row saying so */
            fprintf(stderr, "cgp bench: %s\n", err);
            rc = brc;
            break;
        }
        if (use_zoo) {
            bench_print_rows(stdout, &results[k], 1);
        } else {
            printf("\n");
            bench_print_table(stdout, &results[k]);
            stages_print_split(stdout, &results[k]);
        }
        fflush(stdout);
        if (bench_failed_checks(&results[k]) > 0)
            rc = EXIT_FAIL;
        ++done;
    }
    if (use_zoo && done > 0)
        print_zoo_summary(results, done);
    const char *const files[BENCH_FORMATS] = {[BENCH_CSV] = csv, [BENCH_JSON] = json, [BENCH_MARKDOWN] = markdown};
    for (int f = 0; done > 0 && f < BENCH_FORMATS; ++f)
        if (files[f] && bench_write(files[f], (bench_format)f, &si, results, done, err, sizeof err) != 0) {
            fprintf(stderr, "cgp bench: %s\n", err);
            rc = EXIT_BAD_INPUT;
            break;
        }
    if (rc == EXIT_FAIL)
        fprintf(stderr, "cgp bench: some rows failed their check or could not run (see above)\n");
    free(results);
    free(jobs);
    zoo_free(&z);
    return rc;
}
