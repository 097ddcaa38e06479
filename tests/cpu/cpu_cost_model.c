/*
 * cpu_cost_model.c - the heuristic selection's cost model (host/lib/cost_model.c), on the CPU, against what the
 * H200 recorded (results/h200/selection_candidates.csv, `cgp select --candidates-csv` at the results' commit; its
 * shapes are not those the table was fitted on, scripts/fit_cost_model.py):
 *   - per precision, on every recorded shape, the version the model predicts fastest among those that ran the
 *     shape there (status not "unsupported") is the one the GPU run's heuristic picked (heuristic = 1): the
 *     library's selection is this plain host code, the same without a GPU. A table refitted after the recorded run
 *     picks otherwise on some shapes until the next run (scripts/h200_session.sh results) records its picks: then
 *     its picks must be no worse on the recorded times than the run's (as many within 5% of the fastest or more,
 *     a worst ratio no higher), and the line says how many differ;
 *   - per precision, the share of recorded shapes where that pick's GPU time is within 5% of the fastest measured
 *     is at least MIN_WITHIN, the share over 1.2x at most MAX_SLOW_SHARE and the worst ratio at most MAX_WORST
 *     (the levels the fit reached on these shapes, docs/design.md "Kernel selection", with a margin: a regression
 *     of the model or the table fails here);
 *   - the model is deterministic and has coefficients for every version that won a recorded shape;
 *   - cost_model.c's prediction of each shape of tests/lib/cost_model_checks.h (a few of the fit's sample shapes a
 *     version) is the log GPU time scripts/fit_cost_model.py computed with the table as written, within
 *     CHECK_TOLERANCE: the features, their order and the trees' walk are the fitter's.
 * Rows of versions that left the library (not in libcgp's kernel table, linked: docs/perf-log.md "Retired versions")
 * are read as never measured, as scripts/fit_cost_model.py reads them.
 * Environment: CGP_RESULTS_DIR (default results/h200).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgp.h"
#include "cost_model.h"
#include "cost_model_checks.h"
#include "csv_read.h"
#include "kernel_info.h"
#include "testlib.h"

#define MIN_WITHIN 0.87     /* share of shapes within 5% of the fastest, per precision */
#define MAX_SLOW_SHARE 0.06 /* share of shapes over 1.2x the fastest, per precision */
#define MAX_WORST 2.5       /* the slowest pick against the fastest, per precision */
#define CHECK_TOLERANCE 1e-9 /* |log ms - the fitter's|: libm's log against Python's, the order of the sums */

static const char *const precisions[] = {"fp32", "tf32", "3xtf32"};

enum { C_N, C_CIN, C_COUT, C_H, C_W, C_PADDING, C_PRECISION, C_KERNEL, C_VERSION, C_STATUS, C_GPU_MS, C_HEURISTIC,
       C_MEASURED, C_COUNT };
static const char *const column_names[C_COUNT] = {"n",      "cin",     "cout",   "h",      "w",
                                                  "padding", "precision", "kernel", "version", "status",
                                                  "gpu_ms", "heuristic", "measured"};

typedef struct group_stats {
    int shapes, same_pick, within, slow;
    double worst; /* the model's slowest pick against the fastest */
    /* on the shapes whose recorded pick is a version of the library (the others: left_out), the model's and the
     * recorded run's picks within 5% and slowest */
    int compared_within, recorded_within, left_out;
    double compared_worst, recorded_worst;
    char first_mismatch[200];
} group_stats;

static int64_t number(const csv_table *t, int r, int c) { return strtoll(csv_cell(t, r, c), NULL, 10); }

/* whether row r's version is one libcgp holds */
static int in_library(const csv_table *t, const int *col, int r)
{
    return cgp_kernel_find((int)number(t, r, col[C_VERSION])) != NULL;
}

/* the problem of a shape and padding (pad: 1 same, 0 valid) as cgp_plan_create describes it */
static cgp_problem problem_of(int64_t n, int64_t cin, int64_t cout, int64_t h, int64_t w, int pad)
{
    const cgp_shape s = {n, cin, cout, h, w};
    const cgp_padding padding = pad ? CGP_PADDING_SAME : CGP_PADDING_VALID;
    return (cgp_problem){n, cin, cout, h, w, cgp_output_height(&s, padding), cgp_output_width(&s, padding), pad};
}

/* the rows [first, end) of one shape and precision */
static void judge_group(const csv_table *t, const int *col, int first, int end, group_stats *g)
{
    const int64_t n = number(t, first, col[C_N]), cin = number(t, first, col[C_CIN]),
                  cout = number(t, first, col[C_COUT]), h = number(t, first, col[C_H]), w = number(t, first, col[C_W]);
    const int pad = strcmp(csv_cell(t, first, col[C_PADDING]), "same") == 0;
    const cgp_problem p = problem_of(n, cin, cout, h, w, pad);
    const cgp_device_info d = CGP_DEVICE_INFO_H200; /* the H200 the table was recorded on */
    int pick = -1, recorded = -1;
    double pick_ms = 0.0, fastest = 0.0;
    for (int r = first; r < end; ++r) {
        if (!in_library(t, col, r))
            continue;
        const double ms = atof(csv_cell(t, r, col[C_GPU_MS]));
        if (ms > 0.0 && (fastest == 0.0 || ms < fastest))
            fastest = ms;
        if (strcmp(csv_cell(t, r, col[C_HEURISTIC]), "1") == 0)
            recorded = r;
        double predicted = 0.0;
        if (strcmp(csv_cell(t, r, col[C_STATUS]), "unsupported") == 0 ||
            !cgp_cost_model_ms((int)number(t, r, col[C_VERSION]), &p, &d, &predicted))
            continue;
        if (pick < 0 || predicted < pick_ms) {
            pick = r;
            pick_ms = predicted;
        }
    }
    if (pick < 0) /* no modelled version runs it: the preference order picks, which needs the hooks */
        return;
    ++g->shapes;
    if (pick == recorded)
        ++g->same_pick;
    else if (!g->first_mismatch[0])
        snprintf(g->first_mismatch, sizeof g->first_mismatch, "line %ld: the model picks %s, the H200 run %s",
                 t->lines[first], csv_cell(t, pick, col[C_KERNEL]),
                 recorded >= 0 ? csv_cell(t, recorded, col[C_KERNEL]) : "a version that left the library");
    const double ms = atof(csv_cell(t, pick, col[C_GPU_MS])), ratio = ms > 0.0 && fastest > 0.0 ? ms / fastest : 1e9;
    g->within += ratio <= 1.05;
    g->slow += ratio > 1.2;
    g->worst = ratio > g->worst ? ratio : g->worst;
    if (recorded < 0) { /* the run's pick left the library: nothing to compare the model's with */
        ++g->left_out;
        return;
    }
    const double recorded_ms = atof(csv_cell(t, recorded, col[C_GPU_MS])),
                 recorded_ratio = recorded_ms > 0.0 && fastest > 0.0 ? recorded_ms / fastest : 1e9;
    g->compared_within += ratio <= 1.05;
    g->compared_worst = ratio > g->compared_worst ? ratio : g->compared_worst;
    g->recorded_within += recorded_ratio <= 1.05;
    g->recorded_worst = recorded_ratio > g->recorded_worst ? recorded_ratio : g->recorded_worst;
}

/* every version that was the fastest on some recorded shape has coefficients */
static void check_winners_modelled(const csv_table *t, const int *col)
{
    const char *name = "cpu_cost_model every recorded winner has coefficients";
    const cgp_problem p = {1, 8, 64, 32, 32, 30, 30, 0};
    const cgp_device_info d = CGP_DEVICE_INFO_H200;
    for (int r = 0; r < t->rows; ++r) {
        double ms = 0.0;
        if (strcmp(csv_cell(t, r, col[C_MEASURED]), "1") == 0 && in_library(t, col, r) &&
            !cgp_cost_model_ms((int)number(t, r, col[C_VERSION]), &p, &d, &ms)) {
            TEST_FAIL(name, "line %ld: %s won there, and the model has no coefficients for it", t->lines[r],
                      csv_cell(t, r, col[C_KERNEL]));
            return;
        }
    }
    double a = 0.0, b = 0.0;
    TEST_EXPECT(name, cgp_cost_model_ms(9, &p, &d, &a) && cgp_cost_model_ms(9, &p, &d, &b) && a == b && a > 0.0,
                "fp32-v9's prediction %g, again %g", a, b);
}

/* cost_model.c predicts what the fitter computed for the table as written (tests/lib/cost_model_checks.h) */
static void check_fitter_predictions(void)
{
    const char *name = "cpu_cost_model predictions as scripts/fit_cost_model.py computed them";
    const cgp_device_info d = CGP_DEVICE_INFO_H200; /* the fitter's 132 SMs */
    const int count = (int)(sizeof cost_model_checks / sizeof cost_model_checks[0]);
    double worst = 0.0;
    for (int i = 0; i < count; ++i) {
        const struct cost_model_check *c = &cost_model_checks[i];
        const cgp_problem p = problem_of(c->n, c->cin, c->cout, c->h, c->w, c->pad);
        double ms = 0.0;
        if (!cgp_cost_model_ms(c->version, &p, &d, &ms) || !(ms > 0.0)) {
            TEST_FAIL(name, "check %d: no prediction for version %d", i, c->version);
            return;
        }
        const double error = fabs(log(ms) - c->log_ms);
        if (!(error <= CHECK_TOLERANCE)) {
            TEST_FAIL(name, "check %d: version %d on %lldx%lldx%lldx%lldx%lld pad %d: log ms %.17g, the fitter's %.17g",
                      i, c->version, c->n, c->cin, c->cout, c->h, c->w, c->pad, log(ms), c->log_ms);
            return;
        }
        worst = error > worst ? error : worst;
    }
    test_report("PASS", name, "%d shapes, the largest difference in log ms %.2g", count, worst);
}

int main(void)
{
    check_fitter_predictions();
    const char *dir = getenv("CGP_RESULTS_DIR") ? getenv("CGP_RESULTS_DIR") : "results/h200";
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/selection_candidates.csv", dir);
    csv_table t;
    if (csv_read_file(path, &t, err, sizeof err) != 0) {
        TEST_FAIL("cpu_cost_model the recorded table", "%s (written by `cgp select --candidates-csv`: "
                                                        "scripts/h200_session.sh results)", err);
        return test_exit_code();
    }
    int col[C_COUNT];
    for (int c = 0; c < C_COUNT; ++c)
        if ((col[c] = csv_column(&t, column_names[c])) < 0) {
            TEST_FAIL("cpu_cost_model the recorded table", "%s: no column \"%s\"", path, column_names[c]);
            csv_free(&t);
            return test_exit_code();
        }
    for (int k = 0; k < 3; ++k) {
        group_stats g = {0};
        for (int r = 0; r < t.rows;) {
            int end = r + 1;
            while (end < t.rows && strcmp(csv_cell(&t, end, col[C_PRECISION]), csv_cell(&t, r, col[C_PRECISION])) == 0 &&
                   number(&t, end, col[C_N]) == number(&t, r, col[C_N]) &&
                   number(&t, end, col[C_CIN]) == number(&t, r, col[C_CIN]) &&
                   number(&t, end, col[C_COUT]) == number(&t, r, col[C_COUT]) &&
                   number(&t, end, col[C_H]) == number(&t, r, col[C_H]) &&
                   number(&t, end, col[C_W]) == number(&t, r, col[C_W]) &&
                   strcmp(csv_cell(&t, end, col[C_PADDING]), csv_cell(&t, r, col[C_PADDING])) == 0)
                ++end;
            if (strcmp(csv_cell(&t, r, col[C_PRECISION]), precisions[k]) == 0)
                judge_group(&t, col, r, end, &g);
            r = end;
        }
        char name[160];
        snprintf(name, sizeof name, "cpu_cost_model %s picks as the H200 run's heuristic did, or no worse",
                 precisions[k]);
        if (g.shapes > 0 && g.same_pick == g.shapes)
            test_report("PASS", name, "%d of %d shapes the same", g.same_pick, g.shapes);
        else if (g.shapes > 0 && g.compared_within >= g.recorded_within && g.compared_worst <= g.recorded_worst)
            test_report("PASS", name, "%d of %d shapes the same (a table refitted after the recorded run); "
                        "on its times %d within 5%% against the run's %d, worst %.2fx against %.2fx (%d shapes "
                        "whose recorded pick left the library not compared); first other: %s",
                        g.same_pick, g.shapes, g.compared_within, g.recorded_within, g.compared_worst,
                        g.recorded_worst, g.left_out, g.first_mismatch);
        else
            TEST_FAIL(name, "%d of %d shapes the same; on the recorded times %d within 5%% against the run's %d, "
                      "worst %.2fx against %.2fx (%d shapes whose recorded pick left the library not compared)%s%s",
                      g.same_pick, g.shapes, g.compared_within, g.recorded_within, g.compared_worst,
                      g.recorded_worst, g.left_out, g.first_mismatch[0] ? "; first other: " : "", g.first_mismatch);
        snprintf(name, sizeof name, "cpu_cost_model %s within 5%% of the fastest on >= %.0f%% of the shapes",
                 precisions[k], 100.0 * MIN_WITHIN);
        const double share = g.shapes ? (double)g.within / g.shapes : 0.0;
        if (g.shapes > 0 && share >= MIN_WITHIN)
            test_report("PASS", name, "%d of %d (%.1f%%)", g.within, g.shapes, 100.0 * share);
        else
            TEST_FAIL(name, "%d of %d (%.1f%%)", g.within, g.shapes, 100.0 * share);
        snprintf(name, sizeof name, "cpu_cost_model %s over 1.2x the fastest on <= %.0f%% of the shapes, none over "
                 "%.1fx", precisions[k], 100.0 * MAX_SLOW_SHARE, MAX_WORST);
        if (g.shapes > 0 && g.slow <= MAX_SLOW_SHARE * g.shapes && g.worst <= MAX_WORST)
            test_report("PASS", name, "%d of %d over 1.2x, worst %.2fx", g.slow, g.shapes, g.worst);
        else
            TEST_FAIL(name, "%d of %d over 1.2x, worst %.2fx", g.slow, g.shapes, g.worst);
    }
    check_winners_modelled(&t, col);
    csv_free(&t);
    return test_exit_code();
}
