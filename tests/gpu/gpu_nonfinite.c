/*
 * gpu_nonfinite.c - NaN and +-inf in x, the weights or the bias propagate as PyTorch's
 * Conv2d -> GELU -> mean does (the fp64 reference computes exactly that: NaN stays NaN,
 * GELU(+inf) = +inf, GELU(-inf) = NaN), every launch finishes, and outputs the bad value cannot
 * reach keep their finite, correct values (bounds of tests/lib/tolerance.h; tf32 against the reference
 * of its tf32-rounded inputs, which keeps NaN and infinities). Every kernel version of every precision,
 * tensor cores included, both paddings, both reductions.
 * Where the reference is +-inf a kernel may give NaN when it mixes inputs: Winograd (fp32-v7..v9, v11) in its
 * transforms, the tensor cores in their sums and 3xTF32 in its split (small = inf - inf); it must still give
 * that infinity or a NaN there (never the other sign, never a finite value), and the direct fp32 kernels the very
 * same value. A NaN where the reference is NaN must be one the kernel computed: an output still holding the
 * prefill (check.h's CHECK_UNWRITTEN_BITS, itself a NaN) fails as never written.
 */
#include <math.h>
#include <string.h>

#include "gpulib.h"
#include "kernel_api.h"
#include "problem.h"
#include "tolerance.h"

typedef struct {
    const char *name;
    int tensor; /* 0: x, 1: weight, 2: bias */
    int64_t index;
    float value;
} poison;

static int set_value(const problem *pr, const poison *q)
{
    float *base = q->tensor == 0 ? (float *)pr->p.x : q->tensor == 1 ? (float *)pr->p.w : (float *)pr->p.b;
    return cudaMemcpy(base + q->index, &q->value, sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess;
}

/* One version, one reduction: non-finite exactly where ref is, the finite outputs within the bounds. */
static void test_version(const problem *pr, const cgp_kernel_desc *k, int reduce, const char *what,
                         const double *ref, int ref_nonfinite)
{
    const cgp_shape *s = &pr->p.shape;
    const int64_t outputs = s->n * s->cout;
    char name[160];
    snprintf(name, sizeof name, "nonfinite %s %s v%d %s %s", what, pr->p.padding ? "same" : "valid", k->version,
             k->name, reduce ? "atomic" : "det");
    cgp_plan *plan;
    void *ws;
    size_t ws_bytes;
    float y[3 * 64], finite_y[3 * 64];
    double finite_ref[3 * 64];
    cgp_status st = test_plan_with_workspace(s, pr->p.padding, reduce, k->precision, k->version, &plan, &ws,
                                             &ws_bytes);
    if (st == CGP_SUCCESS)
        st = run_poisoned(plan, pr->p.x, pr->p.w, pr->p.b, pr->p.y, outputs, ws, ws_bytes, y);
    if (st != CGP_SUCCESS) {
        TEST_FAIL(name, "%s: %s", cgp_status_string(st), cgp_last_error_detail());
    } else {
        const int winograd =
            k->kind.algorithm == CGP_ALGORITHM_WINOGRAD_F2X2 || k->kind.algorithm == CGP_ALGORITHM_WINOGRAD_F4X4;
        const int mixes = k->precision != CGP_PRECISION_FP32 || winograd;
        int64_t bad = -1, finite = 0;
        for (int64_t i = 0; i < outputs && bad < 0; ++i) {
            if (check_never_written(y[i]) || !check_nonfinite_agrees(y[i], ref[i], mixes))
                bad = i;
            else if (isfinite(ref[i])) {
                finite_y[finite] = y[i];
                finite_ref[finite++] = ref[i];
            }
        }
        if (bad >= 0)
            TEST_FAIL(name, "y[%lld] = %g%s, reference %g (%d non-finite in the reference)", (long long)bad,
                      (double)y[bad], check_never_written(y[bad]) ? " (never written)" : "", ref[bad], ref_nonfinite);
        else if (ref_nonfinite == 0)
            TEST_FAIL(name, "the poisoned value reached no output of the reference");
        else if (test_check_y(name, finite_y, finite_ref, finite, test_arith_of_precision(k->precision),
                              pr->p.hout * pr->p.wout, s->cin)
                     .passed)
            TEST_PASS(name);
    }
    cudaFree(ws);
    if (plan)
        cgp_plan_destroy(plan);
}

int main(void)
{
    if (!test_gpu_available("gpu_nonfinite"))
        return test_exit_code();
    const uint64_t seed = test_seed("gpu_nonfinite");
    const cgp_shape s = {3, 8, 64, 20, 37};
    const int64_t plane = s.h * s.w, image = s.cin * plane;
    const poison cases[] = {
        {"x NaN", 0, 1 * image + 2 * plane + 5 * s.w + 7, NAN},
        {"x +inf", 0, 2 * image + 0 * plane + 10 * s.w + 20, INFINITY},
        {"x -inf at a corner", 0, 0 * image + 7 * plane + 0, -INFINITY},
        {"weight NaN", 1, 5 * 8 * 9 + 3 * 9 + 4, NAN},
        {"weight +inf", 1, 17 * 8 * 9 + 0 * 9 + 0, INFINITY},
        {"bias +inf", 2, 9, INFINITY},
        {"bias -inf", 2, 33, -INFINITY},
        {"bias NaN", 2, 63, NAN},
    };
    int count = 0;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&count);
    const cgp_device_info dev = test_device_info();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (int pad = 0; pad <= 1; ++pad) {
            problem pr;
            char err[512];
            if (problem_create(&pr, &s, (cgp_padding)pad, seed + c, 0, err, sizeof err) != 0 ||
                !set_value(&pr, &cases[c])) {
                TEST_FAIL("gpu_nonfinite setup", "%s", err);
                continue;
            }
            double ref[2][3 * 64]; /* exact, of tf32-rounded inputs */
            if (test_problem_references(&pr, ref[0], ref[1], err, sizeof err) != 0) {
                TEST_FAIL("gpu_nonfinite reference", "%s", err);
                problem_destroy(&pr);
                continue;
            }
            int ref_nonfinite = 0;
            for (int64_t i = 0; i < s.n * s.cout; ++i)
                ref_nonfinite += !isfinite(ref[0][i]);
            const cgp_problem cp = test_kernel_problem(&pr);
            for (int k = 0; k < count; ++k) {
                const char *why = table[k]->unsupported(&cp, &dev);
                if (why) {
                    printf("# %s refuses %s padding: %s\n", table[k]->name, pad ? "same" : "valid", why);
                    continue;
                }
                for (int reduce = 0; reduce <= 1; ++reduce)
                    test_version(&pr, table[k], reduce, cases[c].name,
                                 ref[table[k]->precision == CGP_PRECISION_TF32], ref_nonfinite);
            }
            problem_destroy(&pr);
        }
    test_tolerance_summary("gpu_nonfinite");
    return test_exit_code();
}
