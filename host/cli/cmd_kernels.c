/*
 * cmd_kernels.c - `cgp kernels`: lists the numbered kernel versions (the values of --kernel),
 * their precision and what each does, and whether each runs the given shape (and on which of its paths).
 */
#include <stdio.h>

#include "cli.h"
#include "kernel_api.h"

int cmd_kernels(int argc, char **argv)
{
    cli_problem_options po;
    cli_problem_defaults(&po);
    option_spec specs[OPTIONS_MAX];
    int count = 0;
    cli_add_shape_specs(specs, &count, &po);
    specs[count++] = (option_spec)OPTION_END;
    int code = EXIT_OK;
    if (!cli_parse("cgp kernels", "list the kernel versions and whether they run the given shape", specs, argc, argv,
                   &code))
        return code;
    const cgp_shape s = cli_shape(&po);
    cgp_problem p = {s.n, s.cin, s.cout, s.h, s.w, cgp_output_height(&s, (cgp_padding)po.padding),
                     cgp_output_width(&s, (cgp_padding)po.padding), po.padding};
    cgp_device_info d = {132, 9, 0, 227 * 1024}; /* an H200, when no device is present */
    const int have_device = cgp_current_device_info(&d) == cudaSuccess;
    int n = 0;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&n);
    printf("kernel versions, most preferred first within a precision (--kernel 0 picks the first that runs the shape)\n");
    printf("shape N=%lld Cin=%lld Cout=%lld H=%lld W=%lld padding=%s%s\n", (long long)s.n, (long long)s.cin,
           (long long)s.cout, (long long)s.h, (long long)s.w, cli_padding_names[po.padding],
           have_device ? "" : " (no device: assuming an H200's limits)");
    for (int i = 0; i < n; ++i) {
        const char *why = (p.hout >= 1 && p.wout >= 1) ? table[i]->unsupported(&p, &d) : "no output pixel";
        printf("  %2d  %-10s %-7s %s\n", table[i]->version, table[i]->name, cli_precision_names[table[i]->precision],
               table[i]->summary);
        if (why)
            printf("      runs this shape: no, %s\n", why);
        else
            printf("      runs this shape: yes, path %s\n", table[i]->path(&p, &d));
    }
    return EXIT_OK;
}
