/*
 * cpu_version_table.c - libcgp's kernel table holds only versions that earn their place (issue 43), on the CPU
 * (the table linked, no GPU), against the recorded selection (results/h200/selection.csv, `cgp select` at the
 * results' commit: per shape and precision, the version the measured mode found fastest in GPU time):
 *   - every version of the table is the measured pick on at least one recorded shape, or a named fallback (the
 *     versions that run every shape on every GPU the library supports), or newer than the recorded run (named
 *     below with the sample that measured it, until the next results run records it; the list only shrinks: an
 *     entry the recorded run already has fails);
 *   - the recorded picks of versions that left the table are printed (docs/perf-log.md, "Retired versions", says
 *     what leaving cost: the measured best without them, on the same samples).
 * Environment: CGP_RESULTS_DIR (default results/h200).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgp.h"
#include "csv_read.h"
#include "kernel_api.h"
#include "testlib.h"

/* the versions that run every shape on every GPU the library supports (compute capability 8.0 or newer), with or
 * without the wgmma build: the generic FFMA kernel and the mma.sync implicit GEMMs */
static const char *const fallbacks[] = {"fp32-v1", "tf32-v9", "3xtf32-v9"};

/* versions newer than the recorded selection, and the sample that measured them instead */
static const struct newer {
    const char *name, *sample;
} newer_than_recorded[] = {
    {"tf32-v21", "the measured pick on 127 of 412 shapes x tf32 of results/h100/selection.csv (an H100, f1312fe)"},
    {"3xtf32-v21", "the measured pick on 219 of 412 shapes x 3xtf32 of results/h100/history/dev/"
                   "selection_3xtf32_seed20261204_ws_tf32x3_3606f6a.csv (an H100, 3606f6a with its patch)"},
};

static int is_in(const char *name, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

static const struct newer *newer_entry(const char *name)
{
    for (size_t i = 0; i < sizeof newer_than_recorded / sizeof newer_than_recorded[0]; ++i)
        if (strcmp(newer_than_recorded[i].name, name) == 0)
            return &newer_than_recorded[i];
    return NULL;
}

/* the recorded shapes whose measured pick is `name` */
static int wins_of(const csv_table *t, int measured_col, const char *name)
{
    int wins = 0;
    for (int r = 0; r < t->rows; ++r)
        wins += strcmp(csv_cell(t, r, measured_col), name) == 0;
    return wins;
}

int main(void)
{
    const char *dir = getenv("CGP_RESULTS_DIR") ? getenv("CGP_RESULTS_DIR") : "results/h200";
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/selection.csv", dir);
    csv_table t;
    if (csv_read_file(path, &t, err, sizeof err) != 0) {
        TEST_FAIL("cpu_version_table the recorded selection", "%s (written by `cgp select --csv`: "
                                                              "scripts/h200_session.sh results)", err);
        return test_exit_code();
    }
    const int measured = csv_column(&t, "measured_kernel");
    if (measured < 0) {
        TEST_FAIL("cpu_version_table the recorded selection", "%s: no column \"measured_kernel\"", path);
        csv_free(&t);
        return test_exit_code();
    }
    int count = 0;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&count);
    printf("# %d versions in the table, %d recorded shapes x precisions in %s\n", count, t.rows, path);
    for (int k = 0; k < count; ++k) {
        char name[160];
        snprintf(name, sizeof name, "cpu_version_table %s (version %d) earns its place", table[k]->name,
                 table[k]->version);
        const int wins = wins_of(&t, measured, table[k]->name);
        const struct newer *n = newer_entry(table[k]->name);
        if (n && wins > 0)
            TEST_FAIL(name, "the recorded run has it (the measured pick on %d shapes): drop it from "
                      "newer_than_recorded", wins);
        else if (wins > 0)
            test_report("PASS", name, "the measured pick on %d recorded shapes", wins);
        else if (is_in(table[k]->name, fallbacks, sizeof fallbacks / sizeof fallbacks[0]))
            test_report("PASS", name, "a fallback: runs every shape on every supported GPU");
        else if (n)
            test_report("PASS", name, "newer than the recorded run: %s", n->sample);
        else
            TEST_FAIL(name, "the measured pick on no recorded shape, and no fallback: it leaves the table "
                      "(docs/perf-log.md, \"Retired versions\")");
    }
    for (int r = 0; r < t.rows; ++r) { /* each retired winner once, at its first recorded shape */
        const char *winner = csv_cell(&t, r, measured);
        int first = 1;
        for (int q = 0; q < r && first; ++q)
            first = strcmp(csv_cell(&t, q, measured), winner) != 0;
        int found = 0;
        for (int k = 0; k < count && !found; ++k)
            found = strcmp(table[k]->name, winner) == 0;
        if (first && !found)
            printf("# %s, the measured pick on %d recorded shapes, left the table\n", winner,
                   wins_of(&t, measured, winner));
    }
    csv_free(&t);
    return test_exit_code();
}
