/* cli.c - see cli.h. */
#include "cli.h"
#include "outfile.h"
#include "sysinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

const char *const cli_padding_names[] = {"valid", "same", NULL};
const char *const cli_reduce_names[] = {"det", "atomic", NULL};
const char *const cli_precision_names[] = {"fp32", "tf32", "3xtf32", NULL};
const char *const cli_precision_or_all_names[] = {"fp32", "tf32", "3xtf32", "all", NULL};

void cli_problem_defaults(cli_problem_options *o)
{
    o->n = 128;
    o->cin = 8;
    o->cout = 64;
    o->h = 256;
    o->w = 256;
    o->padding = CGP_PADDING_VALID;
    o->reduce = CGP_REDUCE_DET;
    o->precision = CGP_PRECISION_FP32;
    o->kernel = 0;
    o->seed = 1;
}

static void append_specs(option_spec *specs, int *count, const option_spec *add, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        specs[(*count)++] = add[i];
}

void cli_add_shape_specs(option_spec *specs, int *count, cli_problem_options *o)
{
    const option_spec add[] = {
        OPTION_INT("--n", &o->n, 1, 1 << 24, "batch size N"),
        OPTION_INT("--cin", &o->cin, 1, 1 << 16, "input channels Cin"),
        OPTION_INT("--cout", &o->cout, 1, 1 << 16, "output channels Cout"),
        OPTION_INT("--h", &o->h, 1, 1 << 20, "input height H"),
        OPTION_INT("--w", &o->w, 1, 1 << 20, "input width W"),
        OPTION_CHOICE("--padding", &o->padding, cli_padding_names, "valid (padding 0) or same (padding 1)"),
        OPTION_INT("--seed", &o->seed, 0, INT64_MAX, "seed of the random inputs"),
    };
    append_specs(specs, count, add, sizeof add / sizeof add[0]);
}

void cli_add_kernel_specs(option_spec *specs, int *count, cli_problem_options *o, int precision_all)
{
    const option_spec add[] = {
        OPTION_CHOICE("--reduce", &o->reduce, cli_reduce_names, "det: bit-identical runs; atomic: atomics"),
        OPTION_CHOICE("--precision", &o->precision, precision_all ? cli_precision_or_all_names : cli_precision_names,
                      precision_all ? "arithmetic of the convolution (all: each in turn)"
                                    : "arithmetic of the convolution"),
        OPTION_INT("--kernel", &o->kernel, 0, 99, "kernel version (0: the best for the shape; see `cgp kernels`)"),
    };
    append_specs(specs, count, add, sizeof add / sizeof add[0]);
}

cgp_shape cli_shape(const cli_problem_options *o)
{
    cgp_shape s = {o->n, o->cin, o->cout, o->h, o->w};
    return s;
}

int cli_shape_given(const cli_problem_options *o, int with_padding)
{
    cli_problem_options d;
    cli_problem_defaults(&d);
    return o->n != d.n || o->cin != d.cin || o->cout != d.cout || o->h != d.h || o->w != d.w ||
           (with_padding && o->padding != d.padding);
}

int cli_parse_shape(const char *command, const char *text, cli_problem_options *o, char *err, size_t errlen)
{
    static const int64_t limits[5] = {1 << 24, 1 << 16, 1 << 16, 1 << 20, 1 << 20}; /* as --n --cin --cout --h --w */
    int64_t v[5];
    const char *p = text;
    for (int i = 0; i < 5; ++i) {
        char *end = NULL;
        const long long x = *p >= '0' && *p <= '9' ? strtoll(p, &end, 10) : -1;
        if (x < 1 || x > limits[i] || (i < 4 ? *end != ',' : *end != '\0')) {
            snprintf(err, errlen, "%s: --shape must be N,CIN,COUT,H,W (N <= 16777216, CIN and COUT <= 65536, H and W "
                                  "<= 1048576, all >= 1), got '%s'", command, text);
            return -1;
        }
        v[i] = x;
        p = end + 1;
    }
    o->n = v[0], o->cin = v[1], o->cout = v[2], o->h = v[3], o->w = v[4];
    return 0;
}

cgp_options cli_options(const cli_problem_options *o)
{
    cgp_options opt = cgp_default_options();
    opt.padding = (cgp_padding)o->padding;
    opt.reduce = (cgp_reduce)o->reduce;
    opt.precision = (cgp_precision)o->precision;
    opt.kernel = (int)o->kernel;
    return opt;
}

int cli_parse(const char *command, const char *synopsis, const option_spec *specs, int argc, char **argv,
              int *exit_code)
{
    char err[512];
    const int rc = options_parse(command, specs, argc, argv, err, sizeof err);
    if (rc == OPTIONS_HELP) {
        options_print_help(stdout, command, synopsis, specs);
        *exit_code = EXIT_OK;
        return 0;
    }
    if (rc != OPTIONS_OK) {
        fprintf(stderr, "%s\n", err);
        *exit_code = EXIT_BAD_INPUT;
        return 0;
    }
    return 1;
}

int cli_require_device(const char *command)
{
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        char why[768];
        sysinfo_no_device_reason((int)e, why, sizeof why);
        fprintf(stderr, "%s: %s\n", command, why);
        return 0;
    }
    return 1;
}

int cli_outputs_writable(const char *command, const char *const *paths, int count)
{
    char err[768];
    for (int i = 0; i < count; ++i)
        if (paths[i] && outfile_check(paths[i], err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", command, err);
            return 0;
        }
    return 1;
}
