/*
 * fuzz_options.c - libFuzzer target for the option parser (host/cli/options.c). The input is split
 * at newlines into an argument list and parsed against a table like the `cgp` subcommands'.
 * Whatever the arguments, the result must be OK with every value in its range, HELP or ERROR
 * with the defaults untouched, and an error must be one line starting with the command.
 * Built and run by `make fuzz` (mk/fuzz.mk); seeds in tests/fuzz/corpus_options/ (one argument
 * a line).
 *
 *     make fuzz FUZZ_SECONDS=60        or, after it:  build/fuzz/fuzz_options <input file>
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

#define CHECK(cond)                                                                                    \
    do {                                                                                               \
        if (!(cond))                                                                                   \
            __builtin_trap();                                                                          \
    } while (0)

enum { MAX_ARGS = 64 };

static const char *const paddings[] = {"valid", "same", NULL};
static const char *const reduces[] = {"det", "atomic", NULL};
static const char *const precisions[] = {"fp32", "tf32", "3xtf32", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the arguments: the input with each newline turned into a terminator */
    char *text = malloc(size + 1);
    CHECK(text != NULL);
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS];
    int argc = 0;
    for (char *p = text; argc < MAX_ARGS && p < text + size;) {
        argv[argc++] = p;
        char *newline = memchr(p, '\n', (size_t)(text + size - p));
        if (!newline)
            break;
        *newline = '\0';
        p = newline + 1;
    }

    int64_t n = 128, cin = 8, iters = 20, kernel = 0;
    double tol = 1e-6;
    int padding = 1, reduce = 0, precision = 0, csv = 0, zoo = 0;
    const char *out = NULL, *zoo_file = NULL;
    const option_spec specs[] = {
        OPTION_INT("--n", &n, 1, 1048576, "batch size"),
        OPTION_INT("--cin", &cin, 1, 4096, "input channels"),
        OPTION_INT("--iters", &iters, 1, 100000, "timed runs"),
        OPTION_INT("--kernel", &kernel, 0, 99, "kernel version"),
        OPTION_DOUBLE("--tol", &tol, 0.0, 1.0, "tolerance"),
        OPTION_CHOICE("--padding", &padding, paddings, "padding"),
        OPTION_CHOICE("--reduce", &reduce, reduces, "reduction"),
        OPTION_CHOICE("--precision", &precision, precisions, "precision"),
        OPTION_STRING("--out", &out, "output"),
        OPTION_FLAG("--csv", &csv, "csv"),
        OPTION_FLAG_OR_STRING("--zoo", &zoo, &zoo_file, "zoo"),
        OPTION_END};
    char err[256];
    const int rc = options_parse("cgp fuzz", specs, argc, argv, err, sizeof err);
    if (rc == OPTIONS_OK) {
        CHECK(err[0] == '\0');
        CHECK(n >= 1 && n <= 1048576 && cin >= 1 && cin <= 4096 && iters >= 1 && iters <= 100000);
        CHECK(kernel >= 0 && kernel <= 99 && tol >= 0.0 && tol <= 1.0);
        CHECK(padding >= 0 && padding <= 1 && reduce >= 0 && reduce <= 1 && precision >= 0 && precision <= 2);
        CHECK(csv == 0 || csv == 1);
        CHECK(out == NULL || (out >= text && out < text + size + 1 && out[0] != '\0'));
        CHECK((zoo == 0 || zoo == 1) && (zoo_file == NULL || (zoo && zoo_file >= text && zoo_file < text + size + 1 &&
                                                              zoo_file[0] != '\0')));
    } else {
        CHECK(rc == OPTIONS_HELP || rc == OPTIONS_ERROR);
        CHECK(n == 128 && cin == 8 && iters == 20 && kernel == 0 && tol == 1e-6 && padding == 1 &&
              reduce == 0 && precision == 0 && csv == 0 && out == NULL && zoo == 0 && zoo_file == NULL);
        if (rc == OPTIONS_ERROR)
            CHECK(strncmp(err, "cgp fuzz: ", 10) == 0 && strlen(err) > 10 && !strchr(err, '\n'));
    }
    free(text);
    return 0;
}
