/*
 * cmd_plot.c - `cgp plot`: draws a CSV written by `cgp bench --sweep KEY=V1,V2,... --csv FILE`
 * as one SVG: median time (ms) and achieved TFLOP/s against the swept dimension (whichever of
 * n, h, cin, cout varies), one line per variant (host/plot/sweep_plot.h). Needs no GPU.
 *     cgp plot --csv results/h200/sweep_n.csv --svg results/h200/sweep_n.svg
 * Exit codes: 0 written, 2 a missing or malformed file (the message names the line) or an
 * unwritable output.
 */
#include <stdio.h>

#include "cli.h"
#include "csv_read.h"
#include "sweep_plot.h"

int cmd_plot(int argc, char **argv)
{
    const char *csv = NULL, *svg = NULL;
    const option_spec specs[] = {
        OPTION_STRING("--csv", &csv, "the CSV to read, from `cgp bench --sweep KEY=... --csv FILE` (required)"),
        OPTION_STRING("--svg", &svg, "the SVG to write (required)"),
        OPTION_END,
    };
    int code = EXIT_OK;
    if (!cli_parse("cgp plot", "draw a `cgp bench --sweep` CSV: time and TFLOP/s against the swept dimension", specs,
                   argc, argv, &code))
        return code;
    if (!csv || !svg) {
        fprintf(stderr, "cgp plot: both --csv FILE (input) and --svg FILE (output) are required\n");
        return EXIT_BAD_INPUT;
    }
    char err[512];
    csv_table table;
    if (csv_read_file(csv, &table, err, sizeof err) != 0) {
        fprintf(stderr, "cgp plot: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    sweep_data data;
    const int rc = sweep_from_csv(&table, csv, &data, err, sizeof err);
    csv_free(&table);
    if (rc != 0) {
        fprintf(stderr, "cgp plot: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    int points = 0;
    for (int i = 0; i < data.count; ++i)
        points += data.series[i].count;
    if (sweep_write_svg(svg, &data, err, sizeof err) != 0) {
        fprintf(stderr, "cgp plot: %s\n", err);
        sweep_free(&data);
        return EXIT_BAD_INPUT;
    }
    printf("cgp plot: %d variants, %d points over %s (%s) -> %s\n", data.count, points, data.key_title, data.fixed, svg);
    sweep_free(&data);
    return EXIT_OK;
}
