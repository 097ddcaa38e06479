/*
 * cmd_check.c - `cgp check`: runs the fused kernel on random inputs (fixed, printed seed; x from
 * --dist) and compares with an fp64 reference: the GPU one always, the CPU one too when the problem
 * is small enough (or --reference cpu). Prints max abs error, relative L2 error, pass/fail.
 * tf32 is judged against the reference of the operands rounded to tf32 as the kernel rounds them
 * (check.h: what is left is the kernel's own error), and its error against the exact operands is
 * printed beside it, not judged: that is TF32's rounding, which no TF32 kernel avoids.
 *     cgp check [--n 128 --cin 8 --cout 64 --h 256 --w 256 --padding valid --reduce det ...]
 *               [--precision fp32|tf32|3xtf32|all]   (all: each in turn; exit code the worst of them)
 *               [--dist uniform|normal|uniform01]
 * Exit 0 on pass, 1 on fail, 2 on bad options.
 */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "cli.h"
#include "cuda_util.h"
#include "poison.h"
#include "problem.h"
#include "reference.h"
#include "tf32_round.h"

static const char *const reference_names[] = {"auto", "gpu", "cpu", "both", NULL};
enum { REF_AUTO, REF_GPU, REF_CPU, REF_BOTH };
static const char *const dist_names[] = {"uniform", "normal", "uniform01", NULL}; /* problem_dist */

/* judged: the comparison decides pass or fail (else its error is only printed, with `why`) */
static int report(const char *what, const float *y, const double *ref, int64_t count, double tol, int judged,
                  const char *why)
{
    const check_report r = check_compare(y, ref, count, tol);
    if (!judged) {
        printf("  vs %-40s max abs error %.3e, relative L2 error %.3e (%s)\n", what, r.max_abs_error, r.rel_l2_error,
               why);
        return 1;
    }
    printf("  vs %-40s max abs error %.3e, relative L2 error %.3e (tolerance %.0e), %lld never written, %lld non-finite "
           "mismatches: %s\n", what, r.max_abs_error, r.rel_l2_error, tol, (long long)r.never_written,
           (long long)r.nonfinite_mismatches, r.passed ? "PASS" : "FAIL");
    if (!r.passed && r.worst_index >= 0)
        printf("  worst element y[%lld] = %.9g, reference %.17g\n", (long long)r.worst_index, (double)y[r.worst_index],
               ref[r.worst_index]);
    return r.passed;
}

/* One check of the options' precision (not CLI_PRECISION_ALL); the exit code. */
static int check_one(const cli_problem_options *opts, int reference, int dist)
{
    const cli_problem_options po = *opts;
    const cgp_shape s = cli_shape(&po);
    const cgp_options o = cli_options(&po);
    /* the inputs and the plan's own state (n * cout doubles, n counters) must fit, and for tf32 the operands
     * rounded to tf32 for the reference */
    char err[512];
    problem pr;
    const int tf32 = po.precision == CGP_PRECISION_TF32;
    const size_t plan_state = (size_t)(s.n * s.cout) * sizeof(double) + (size_t)s.n * sizeof(unsigned);
    const size_t rounded = tf32 ? (size_t)(s.n * s.cin * s.h * s.w + s.cout * s.cin * 9) * sizeof(float) : 0;
    int rc = problem_create_dist(&pr, &s, o.padding, (uint64_t)po.seed, (problem_dist)dist, plan_state + rounded, err,
                                 sizeof err);
    if (rc != 0) {
        fprintf(stderr, "cgp check: %s\n", err);
        return rc;
    }
    cgp_plan *plan = NULL;
    cgp_status st = cgp_plan_create(&plan, &s, &o);
    if (st != CGP_SUCCESS) {
        fprintf(stderr, "cgp check: %s: %s\n", cgp_status_string(st), cgp_last_error_detail());
        problem_destroy(&pr);
        return st == CGP_ERROR_CUDA ? EXIT_FAIL : EXIT_BAD_INPUT;
    }
    size_t ws_bytes = 0;
    int version = 0;
    const char *kname = "";
    cgp_plan_workspace_size(plan, &ws_bytes);
    cgp_plan_kernel(plan, &version, &kname);
    const int64_t outputs = s.n * s.cout;
    const double macs = (double)outputs * (double)pr.p.hout * (double)pr.p.wout * (double)s.cin * 9.0;
    const int use_cpu = reference == REF_CPU || reference == REF_BOTH || (reference == REF_AUTO && macs <= 2e9);
    const int use_gpu = reference != REF_CPU;
    printf("cgp check: N=%lld Cin=%lld Cout=%lld H=%lld W=%lld padding=%s reduce=%s precision=%s kernel %s (%d), "
           "seed %lld, x %s\n",
           (long long)s.n, (long long)s.cin, (long long)s.cout, (long long)s.h, (long long)s.w,
           cli_padding_names[po.padding], cli_reduce_names[po.reduce], cli_precision_names[po.precision], kname, version,
           (long long)po.seed, dist_names[dist]);

    float *y = malloc((size_t)outputs * sizeof(float));
    double *ref = malloc((size_t)outputs * sizeof(double));
    void *ws = NULL;
    if (!y || !ref) {
        fprintf(stderr, "cgp check: out of host memory\n");
        return EXIT_FAIL;
    }
    if (ws_bytes && cudaMalloc(&ws, ws_bytes) != cudaSuccess) {
        fprintf(stderr, "cgp check: no device memory left for the %zu-byte workspace\n", ws_bytes);
        return EXIT_BAD_INPUT;
    }
    CUDA_CHECK(poison_outputs(pr.p.y, outputs, 0)); /* unwritten outputs fail as never written */
    st = cgp_plan_run(plan, pr.p.x, pr.p.w, pr.p.b, pr.p.y, ws, ws_bytes, 0);
    if (st != CGP_SUCCESS) {
        fprintf(stderr, "cgp check: %s: %s\n", cgp_status_string(st), cgp_last_error_detail());
        return EXIT_FAIL;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(y, pr.p.y, (size_t)outputs * sizeof(float), cudaMemcpyDeviceToHost));
    /* tf32: judged against the reference of tf32-rounded operands, the exact error printed only */
    const double tol =
        tf32 ? check_tf32_operands_tolerance(s.cin) : check_tolerance(po.precision, pr.p.hout * pr.p.wout, s.cin);
    const char *exact_note = "TF32's own rounding of the operands: not the kernel's error, not judged";
    int passed = 1;
    if (use_gpu) {
        if (problem_reference(&pr, ref, err, sizeof err) != 0) {
            fprintf(stderr, "cgp check: %s\n", err);
            return EXIT_FAIL;
        }
        passed &= report("fp64 GPU ref:", y, ref, outputs, tol, !tf32, exact_note);
        if (tf32) {
            if (problem_reference_tf32(&pr, ref, err, sizeof err) != 0) {
                fprintf(stderr, "cgp check: %s\n", err);
                return EXIT_FAIL;
            }
            passed &= report("fp64 GPU ref of the tf32-rounded operands:", y, ref, outputs, tol, 1, NULL);
        }
    }
    if (use_cpu) {
        float *xh, *wh, *bh;
        if (problem_download(&pr, &xh, &wh, &bh, err, sizeof err) != 0) {
            fprintf(stderr, "cgp check: %s\n", err);
            return EXIT_FAIL;
        }
        reference_forward(xh, wh, bh, s.n, s.cin, s.cout, s.h, s.w, po.padding, ref, 0);
        passed &= report("fp64 CPU ref:", y, ref, outputs, tol, !tf32, exact_note);
        if (tf32) {
            const int64_t nx = s.n * s.cin * s.h * s.w, nw = s.cout * s.cin * 9;
            for (int64_t i = 0; i < nx; ++i)
                xh[i] = tf32_round(xh[i]);
            for (int64_t i = 0; i < nw; ++i)
                wh[i] = tf32_round(wh[i]);
            reference_forward(xh, wh, bh, s.n, s.cin, s.cout, s.h, s.w, po.padding, ref, 0);
            passed &= report("fp64 CPU ref of the tf32-rounded operands:", y, ref, outputs, tol, 1, NULL);
        }
        free(xh);
        free(wh);
        free(bh);
    }
    printf("cgp check: %s\n", passed ? "PASS" : "FAIL");
    free(y);
    free(ref);
    cudaFree(ws);
    problem_destroy(&pr);
    cgp_plan_destroy(plan);
    return passed ? EXIT_OK : EXIT_FAIL;
}

int cmd_check(int argc, char **argv)
{
    cli_problem_options po;
    cli_problem_defaults(&po);
    int reference = REF_AUTO, dist = PROBLEM_DIST_UNIFORM;
    option_spec specs[OPTIONS_MAX];
    int count = 0;
    cli_add_shape_specs(specs, &count, &po);
    cli_add_kernel_specs(specs, &count, &po, 1);
    specs[count++] = (option_spec)OPTION_CHOICE("--reference", &reference, reference_names,
                                                "auto: GPU fp64, plus CPU fp64 for small problems");
    specs[count++] = (option_spec)OPTION_CHOICE("--dist", &dist, dist_names,
                                                "x: uniform in [-sqrt 3, sqrt 3] (unit variance), normal N(0, 1), or "
                                                "uniform01 in [0, 1] (an image's pixels)");
    specs[count++] = (option_spec)OPTION_END;
    int code = EXIT_OK;
    if (!cli_parse("cgp check", "check the fused kernel against an fp64 reference on random inputs", specs, argc,
                   argv, &code))
        return code;
    const cgp_shape s = cli_shape(&po);
    if (cgp_output_height(&s, (cgp_padding)po.padding) < 1 || cgp_output_width(&s, (cgp_padding)po.padding) < 1) {
        fprintf(stderr, "cgp check: H=%lld W=%lld give no output pixel with padding %s\n", (long long)s.h,
                (long long)s.w, cli_padding_names[po.padding]);
        return EXIT_BAD_INPUT;
    }
    if (po.precision == CLI_PRECISION_ALL && po.kernel != 0) {
        fprintf(stderr, "cgp check: --kernel %lld is a version of one precision: give that --precision with it, not "
                        "all\n", (long long)po.kernel);
        return EXIT_BAD_INPUT;
    }
    if (!cli_require_device("cgp check"))
        return EXIT_FAIL;
    if (po.precision != CLI_PRECISION_ALL)
        return check_one(&po, reference, dist);
    int worst = EXIT_OK; /* the worst of the precisions' exit codes: bad input, then failure */
    for (int precision = 0; precision < CLI_PRECISION_ALL; ++precision) {
        po.precision = precision;
        const int rc = check_one(&po, reference, dist);
        worst = rc > worst ? rc : worst;
    }
    return worst;
}
