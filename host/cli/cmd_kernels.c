/*
 * cmd_kernels.c - `cgp kernels`: lists the numbered kernel versions (the values of --kernel),
 * their precision, what each is (its descriptive name, cgp_kernel_kind_name) and does, and whether each runs the
 * given shape (and on which of its paths).
 * `cgp kernels --shape N,CIN,COUT,H,W` shows the kernel selection of a plan for that shape instead
 * (host/lib/kernel_select.h): per precision every candidate, whether it runs the shape, and which one
 * each selection mode picks and why; the measured mode is run on this device (random inputs, the
 * library's cgp_plan_create_measured), the heuristic needs no device.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cost_model.h"
#include "kernel_info.h"
#include "kernel_select.h"
#include "problem.h"

/* The current device's limits, or an H200's when there is no device (*have_device 0). */
static cgp_device_info device_limits(int *have_device, char *name, size_t cap)
{
    const cgp_device_info h200 = CGP_DEVICE_INFO_H200;
    cgp_device_info d = h200;
    struct cudaDeviceProp prop;
    int dev = 0;
    *have_device = cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess &&
                   cgp_device_info_of(dev, &d) == cudaSuccess;
    snprintf(name, cap, "%s", *have_device ? prop.name : "no device: assuming an H200's limits");
    return *have_device ? d : h200;
}

/* The width of the widest descriptive name of the table (a column) */
static int kind_width(void)
{
    int n = 0, width = 0;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&n);
    for (int i = 0; i < n; ++i) {
        const int length = (int)strlen(cgp_kernel_kind_name(table[i]));
        width = length > width ? length : width;
    }
    return width;
}

static void list_versions(const cgp_problem *p, const cgp_device_info *d)
{
    int n = 0;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&n);
    const int width = kind_width();
    printf("kernel versions, most preferred first within a precision (--kernel 0 picks the one the cost model "
           "predicts fastest among those that run the shape: `cgp kernels --shape`); what each is (pipe, tiles and "
           "warps, input staging, weights, split-K, schedule: docs/design.md, \"Kernel versions\"), then what it "
           "does\n");
    for (int i = 0; i < n; ++i) {
        const char *why =
            (p->hout >= 1 && p->wout >= 1) ? cgp_kernel_unsupported(table[i], p, d) : "no output pixel";
        char limits[256];
        cgp_kernel_limits_format(cgp_kernel_kind_of(table[i]), limits, sizeof limits);
        printf("  %2d  %-10s %-7s %-*s  %s\n", cgp_kernel_version(table[i]), cgp_kernel_name(table[i]),
               cli_precision_names[cgp_kernel_precision(table[i])], width, cgp_kernel_kind_name(table[i]),
               cgp_kernel_summary(table[i]));
        printf("      runs: %s\n", limits);
        if (why)
            printf("      runs this shape: no, %s\n", why);
        else
            printf("      runs this shape: yes, path %s\n", cgp_kernel_path(table[i], p, d, 0));
    }
}

/* The measured selection of one precision on this device: its plan's candidates, or why it was not run. */
static void print_measured(const cgp_shape *s, const cli_problem_options *po, int precision, int have_device)
{
    if (!have_device) {
        printf("  measured:  not run (no CUDA device): it times every supported candidate on the device\n");
        return;
    }
    problem pr;
    char err[512];
    const int rc = problem_create(&pr, s, (cgp_padding)po->padding, (uint64_t)po->seed, 0, err, sizeof err);
    if (rc != 0) {
        printf("  measured:  not run: %s\n", err);
        return;
    }
    cgp_options o = cli_options(po);
    o.precision = (cgp_precision)precision;
    o.kernel = 0;
    cgp_plan *plan = NULL;
    const cgp_status st = cgp_plan_create_measured(&plan, s, &o, pr.p.x, pr.p.w, pr.p.b, pr.p.y, 0);
    if (st != CGP_SUCCESS) {
        printf("  measured:  failed: %s (%s)\n", cgp_status_string(st), cgp_last_error_detail());
        problem_destroy(&pr);
        return;
    }
    const cgp_candidate *c = NULL;
    int count = 0, version = 0, supported = 0;
    const char *name = "";
    cgp_plan_candidates(plan, &c, &count, NULL);
    cgp_plan_kernel(plan, &version, &name);
    for (int i = 0; i < count; ++i)
        if (c[i].median_ms >= 0.0f) {
            printf("             %-10s median %.4f ms\n", c[i].name, c[i].median_ms);
            ++supported;
        }
    const char *kind = NULL;
    cgp_plan_kernel_kind(plan, &kind);
    printf("  measured:  %s (--kernel %d, %s): the fastest median GPU time of the %d supported candidate%s (%d "
           "CUDA-graph replays each after a warm-up, on this device, %s reduction)\n",
           name, version, kind ? kind : "?", supported, supported == 1 ? "" : "s", CGP_SELECT_TIMED_RUNS,
           cli_reduce_names[po->reduce]);
    cgp_plan_destroy(plan);
    problem_destroy(&pr);
}

static void print_selection(const cgp_shape *s, const cli_problem_options *po, int precision, const cgp_problem *p,
                            const cgp_device_info *d, int have_device)
{
    const cgp_kernel_desc *kernels[64];
    cgp_candidate c[64];
    const int count = cgp_select_candidates(p, d, precision, kernels, c, 64);
    int width = 0; /* the candidates' descriptive names, a column */
    for (int i = 0; i < count; ++i) {
        const int length = (int)strlen(cgp_kernel_kind_name(kernels[i]));
        width = length > width ? length : width;
    }
    printf("\n%s: %d candidates, in the preference order of kernels/fused/dispatch.cu, each with what it is\n",
           cli_precision_names[precision], count);
    for (int i = 0; i < count; ++i) {
        double ms = 0.0;
        const char *kind = cgp_kernel_kind_name(kernels[i]);
        if (c[i].unsupported)
            printf("  %2d  %-10s %-*s  cannot run it: %s\n", c[i].version, c[i].name, width, kind, c[i].unsupported);
        else if (cgp_cost_model_ms(cgp_kernel_version(kernels[i]), p, d, &ms))
            printf("  %2d  %-10s %-*s  runs it, path %s; the cost model predicts %.4g ms\n", c[i].version, c[i].name,
                   width, kind, cgp_kernel_path(kernels[i], p, d, 0), ms);
        else
            printf("  %2d  %-10s %-*s  runs it, path %s; the cost model has no coefficients for it\n", c[i].version,
                   c[i].name, width, kind, cgp_kernel_path(kernels[i], p, d, 0));
    }
    const char *reason = NULL;
    const cgp_kernel_desc *h = cgp_select_heuristic(p, d, precision, &reason);
    if (h)
        printf("  heuristic: %s (--kernel %d, %s): %s\n", cgp_kernel_name(h), cgp_kernel_version(h),
               cgp_kernel_kind_name(h), reason);
    else
        printf("  heuristic: none: %s\n", reason);
    if (h)
        print_measured(s, po, precision, have_device);
}

int cmd_kernels(int argc, char **argv)
{
    cli_problem_options po;
    cli_problem_defaults(&po);
    const char *shape_text = NULL;
    static const char *const precision_choices[] = {"all", "fp32", "tf32", "3xtf32", NULL};
    int precision = 0;
    option_spec specs[OPTIONS_MAX];
    int count = 0;
    cli_add_shape_specs(specs, &count, &po);
    specs[count++] = (option_spec)OPTION_STRING("--shape", &shape_text,
                                                "N,CIN,COUT,H,W: show the kernel selection for this shape (each "
                                                "candidate, and what the heuristic and the measured mode pick)");
    specs[count++] = (option_spec)OPTION_CHOICE("--precision", &precision, precision_choices,
                                                "with --shape: the precision whose selection to show");
    specs[count++] = (option_spec)OPTION_CHOICE("--reduce", &po.reduce, cli_reduce_names,
                                                "with --shape: the reduction the measured mode times");
    specs[count++] = (option_spec)OPTION_END;
    int code = EXIT_OK;
    if (!cli_parse("cgp kernels", "list the kernel versions and whether they run the given shape", specs, argc, argv,
                   &code))
        return code;
    char err[512];
    if (shape_text && cli_shape_given(&po, 0)) {
        fprintf(stderr, "cgp kernels: give the shape as --shape N,CIN,COUT,H,W or as --n --cin --cout --h --w, not "
                        "both\n");
        return EXIT_BAD_INPUT;
    }
    if (shape_text && cli_parse_shape("cgp kernels", shape_text, &po, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return EXIT_BAD_INPUT;
    }
    const cgp_shape s = cli_shape(&po);
    const cgp_problem p = {s.n, s.cin, s.cout, s.h, s.w, cgp_output_height(&s, (cgp_padding)po.padding),
                           cgp_output_width(&s, (cgp_padding)po.padding), po.padding};
    if (shape_text && (p.hout < 1 || p.wout < 1)) {
        fprintf(stderr, "cgp kernels: H=%lld W=%lld give no output pixel with padding %s\n", (long long)s.h,
                (long long)s.w, cli_padding_names[po.padding]);
        return EXIT_BAD_INPUT;
    }
    int have_device = 0;
    char device[256];
    const cgp_device_info d = device_limits(&have_device, device, sizeof device);
    printf("shape N=%lld Cin=%lld Cout=%lld H=%lld W=%lld padding=%s (%s)\n", (long long)s.n, (long long)s.cin,
           (long long)s.cout, (long long)s.h, (long long)s.w, cli_padding_names[po.padding], device);
    if (!shape_text) {
        list_versions(&p, &d);
        return EXIT_OK;
    }
    for (int prec = CGP_PRECISION_FP32; prec <= CGP_PRECISION_TF32X3; ++prec)
        if (precision == 0 || precision == prec + 1)
            print_selection(&s, &po, prec, &p, &d, have_device);
    return EXIT_OK;
}
