/*
 * main.c - the `cgp` command-line program: dispatches to the subcommands.
 *     cgp run | check | bench | kernels | select | roofline | plot   (each with --help)
 * Exit codes: 0 success, 1 failure (a check failed, a CUDA error, no device), 2 bad input.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sysinfo.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"run", cmd_run, "y = fused(x, weight, bias) on .npy files"},
    {"check", cmd_check, "check the fused kernel against an fp64 reference on random inputs"},
    {"bench", cmd_bench, "time the fused kernel and the cuDNN / unfused baselines side by side"},
    {"kernels", cmd_kernels, "list the kernel versions (--kernel N)"},
    {"select", cmd_select, "the heuristic kernel selection against the measured one, in GPU time"},
    {"roofline", cmd_roofline, "measure the GPU's ceilings and place every variant on a roofline (CSV, SVG);\n"
                               "             --overlap: whether a wgmma loop and a GELU loop overlap (issue 39)"},
    {"plot", cmd_plot, "draw a `cgp bench --sweep ... --csv` file as an SVG chart"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: cgp <command> [options]    (cgp <command> --help for its options)\n\n"
               "cgp computes y[n, c] = mean over (h, w) of GELU(conv3x3(x, weight)[n, c, h, w] + bias[c])\n"
               "in one CUDA launch, never writing the N x Cout x Hout x Wout intermediate.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n  cgp --version   the version and the commit it was built from\n"
               "  cgp --help      this list\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("cgp %d.%d (commit %s)\n", CGP_VERSION_MAJOR, CGP_VERSION_MINOR, cgp_git_commit);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 2, argv + 2);
    fprintf(stderr, "cgp: unknown command '%s' (commands: run, check, bench, kernels, select, roofline, plot; cgp --help)\n",
            argv[1]);
    return EXIT_BAD_INPUT;
}
