/*
 * cli.h - pieces shared by the `cgp` subcommands (host/cmd_*.c): exit codes, the shape and
 * kernel options every command takes, and the device check.
 */
#ifndef CGP_CLI_H
#define CGP_CLI_H

#include <stdint.h>
#include "cgp.h"
#include "options.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_BAD_INPUT = 2 };

extern const char *const cli_padding_names[];   /* "valid", "same" */
extern const char *const cli_reduce_names[];    /* "det", "atomic" */
extern const char *const cli_precision_names[]; /* "fp32", "tf32", "3xtf32" */
extern const char *const cli_precision_or_all_names[]; /* the same, then "all" (CLI_PRECISION_ALL) */
#define CLI_PRECISION_ALL 3

/* Option values shared by check, bench and roofline; defaults are the default problem. */
typedef struct cli_problem_options {
    int64_t n, cin, cout, h, w;
    int padding, reduce, precision;
    int64_t kernel;
    int64_t seed;
} cli_problem_options;

void cli_problem_defaults(cli_problem_options *o);
/* Append option specs to specs[*count]: the shape (--n --cin --cout --h --w --padding --seed),
 * and the kernel choice (--reduce --precision --kernel; precision_all: --precision also takes "all",
 * CLI_PRECISION_ALL, for a command that runs each precision in turn). */
void cli_add_shape_specs(option_spec *specs, int *count, cli_problem_options *o);
void cli_add_kernel_specs(option_spec *specs, int *count, cli_problem_options *o, int precision_all);
cgp_shape cli_shape(const cli_problem_options *o);
/* 1 when a shape option (--n --cin --cout --h --w, and --padding if with_padding) holds another value than
 * its default. */
int cli_shape_given(const cli_problem_options *o, int with_padding);
/* "N,CIN,COUT,H,W" into o's shape. Returns 0, or -1 with "<command>: --shape ..." in err. */
int cli_parse_shape(const char *command, const char *text, cli_problem_options *o, char *err, size_t errlen);
cgp_options cli_options(const cli_problem_options *o);

/* Parses; on --help prints help and returns EXIT_OK via *exit_code; on an error prints the
 * message and sets EXIT_BAD_INPUT. Returns 1 when the caller should continue. */
int cli_parse(const char *command, const char *synopsis, const option_spec *specs, int argc, char **argv,
              int *exit_code);

/* 1 when a CUDA device is usable; else prints "<command>: no NVIDIA GPU on this machine (...); <CUDA's error>", or
 * "<command>: this machine has an NVIDIA device (...) but CUDA cannot use it: ..." (sysinfo_no_device_reason, the
 * tests' wording), and returns 0 (the caller exits with EXIT_FAIL). */
int cli_require_device(const char *command);

/* 1 when every non-NULL path of paths[count] can be written (outfile_check), checked before any GPU work; else
 * prints "<command>: <path>: <why>" for the first that cannot and returns 0 (the caller exits with
 * EXIT_BAD_INPUT). */
int cli_outputs_writable(const char *command, const char *const *paths, int count);

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_kernels(int argc, char **argv);
int cmd_select(int argc, char **argv);
int cmd_roofline(int argc, char **argv);
int cmd_plot(int argc, char **argv);

#endif
