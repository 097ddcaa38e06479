/*
 * options.h - table-driven parsing of `cgp <command> --name value ...` options.
 *
 *     int64_t n = 128;  int padding = 1;  double tol = 1e-6;  const char *out = NULL;  int csv = 0;
 *     static const char *const paddings[] = {"valid", "same", NULL};
 *     const option_spec specs[] = {
 *         OPTION_INT("--n", &n, 1, 1048576, "batch size"),
 *         OPTION_CHOICE("--padding", &padding, paddings, "padding of the 3x3 convolution"),
 *         OPTION_DOUBLE("--tol", &tol, 0.0, 1.0, "relative L2 error allowed"),
 *         OPTION_STRING("--out", &out, "write the output to this .npy file"),
 *         OPTION_FLAG("--csv", &csv, "print CSV"),
 *         OPTION_END};
 *     int rc = options_parse("cgp run", specs, argc - 2, argv + 2, err, sizeof err);
 *
 * The initial values of the targets are the defaults (shown by options_print_help). Values are
 * given as "--n 5" or "--n=5"; each option at most once. Integers are decimal digits with an
 * optional '-', doubles are plain decimal numbers (no hex, inf or nan), both must lie in their
 * inclusive range. A choice target holds the index of the chosen string. A string target points
 * into argv. A flag-or-string option ("--zoo" or "--zoo FILE") sets its flag, and its string when
 * "=value" or an argument that does not start with "--" follows. Arguments that are not options are errors. The targets change only when the whole
 * command line is valid. Tested by tests/cpu/cpu_options.c; fuzzed by tests/fuzz/fuzz_options.c.
 */
#ifndef CGP_OPTIONS_H
#define CGP_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum option_kind {
    OPTION_KIND_INT,    /* int64_t, in [int_min, int_max] */
    OPTION_KIND_DOUBLE, /* double, in [double_min, double_max] */
    OPTION_KIND_STRING, /* const char *, any non-empty text */
    OPTION_KIND_CHOICE, /* int: index into choices (NULL-terminated) */
    OPTION_KIND_FLAG,   /* int: set to 1 when present; takes no value */
    OPTION_KIND_FLAG_OR_STRING /* int set to 1 when present, and const char * when a value follows */
} option_kind;

typedef struct option_spec {
    const char *name; /* "--n"; NULL ends the table */
    option_kind kind;
    int64_t *int_target;
    int64_t int_min, int_max;
    double *double_target;
    double double_min, double_max;
    const char **string_target;
    int *choice_target;
    const char *const *choices;
    int *flag_target;
    const char *help;
} option_spec;

#define OPTION_INT(nm, target, lo, hi, hlp)                                                              \
    { .name = (nm), .kind = OPTION_KIND_INT, .int_target = (target), .int_min = (lo), .int_max = (hi),   \
      .help = (hlp) }
#define OPTION_DOUBLE(nm, target, lo, hi, hlp)                                                           \
    { .name = (nm), .kind = OPTION_KIND_DOUBLE, .double_target = (target), .double_min = (lo),           \
      .double_max = (hi), .help = (hlp) }
#define OPTION_STRING(nm, target, hlp)                                                                   \
    { .name = (nm), .kind = OPTION_KIND_STRING, .string_target = (target), .help = (hlp) }
#define OPTION_CHOICE(nm, target, list, hlp)                                                             \
    { .name = (nm), .kind = OPTION_KIND_CHOICE, .choice_target = (target), .choices = (list),           \
      .help = (hlp) }
#define OPTION_FLAG(nm, target, hlp)                                                                     \
    { .name = (nm), .kind = OPTION_KIND_FLAG, .flag_target = (target), .help = (hlp) }
#define OPTION_FLAG_OR_STRING(nm, flag, target, hlp)                                                    \
    { .name = (nm), .kind = OPTION_KIND_FLAG_OR_STRING, .flag_target = (flag), .string_target = (target), \
      .help = (hlp) }
#define OPTION_END { .name = NULL }

/* at most this many entries in one table */
#define OPTIONS_MAX 64

/* options_parse results */
#define OPTIONS_OK 0
#define OPTIONS_HELP 1    /* --help or -h is among the arguments: print help, exit 0 */
#define OPTIONS_ERROR (-1) /* err holds one message "<command>: <problem>" */

/* Parses argv[0..argc) (the options only: not the program or command name) against specs.
 * command ("cgp run") starts every message. Returns OPTIONS_OK, OPTIONS_HELP or OPTIONS_ERROR. */
int options_parse(const char *command, const option_spec *specs, int argc, char *const *argv, char *err,
                  size_t errlen);

/* Prints "usage: <command> [options]", the synopsis (may be NULL) and one line per option with its
 * value type, range or choices, help text and default (the target's current value). */
void options_print_help(FILE *out, const char *command, const char *synopsis, const option_spec *specs);

#endif
