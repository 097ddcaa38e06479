/*
 * gpu_nonfinite.c - NaN and +-inf in x, the weights or the bias propagate as PyTorch's
 * Conv2d -> GELU -> mean does (the fp64 reference computes exactly that: NaN stays NaN,
 * GELU(+inf) = +inf, GELU(-inf) = NaN), every launch finishes, and outputs the bad value cannot
 * reach keep their finite, correct values. Every fp32 kernel version, both reductions.
 * Winograd (v7-v9) mixes the inputs of a tile, so where the reference is +-inf it may give NaN
 * (inf - inf in a transform); it must still be non-finite exactly where the reference is.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "gpulib.h"
#include "kernel_api.h"
#include "problem.h"

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
            if (problem_create(&pr, &s, (cgp_padding)pad, seed + c, 0, err, sizeof err) != 0 || !set_value(&pr, &cases[c])) {
                TEST_FAIL("gpu_nonfinite setup", "%s", err);
                continue;
            }
            const int64_t outputs = s.n * s.cout;
            double ref[3 * 64];
            float y[3 * 64];
            if (problem_reference(&pr, ref, err, sizeof err) != 0) {
                TEST_FAIL("gpu_nonfinite reference", "%s", err);
                problem_destroy(&pr);
                continue;
            }
            int ref_nonfinite = 0;
            for (int64_t i = 0; i < outputs; ++i)
                ref_nonfinite += !isfinite(ref[i]);
            const cgp_problem cp = {s.n, s.cin, s.cout, s.h, s.w, pr.p.hout, pr.p.wout, pad};
            for (int k = 0; k < count; ++k) {
                if (table[k]->precision != 0 || table[k]->unsupported(&cp, &dev))
                    continue;
                for (int reduce = 0; reduce <= 1; ++reduce) {
                    char name[128];
                    snprintf(name, sizeof name, "nonfinite %s %s v%d %s", cases[c].name, pad ? "same" : "valid",
                             table[k]->version, reduce ? "atomic" : "det");
                    cgp_plan *plan;
                    void *ws;
                    size_t ws_bytes;
                    cgp_status st = test_plan_with_workspace(&s, (cgp_padding)pad, reduce, CGP_PRECISION_FP32,
                                                             table[k]->version, &plan, &ws, &ws_bytes);
                    if (st == CGP_SUCCESS)
                        st = run_poisoned(plan, pr.p.x, pr.p.w, pr.p.b, pr.p.y, outputs, ws, ws_bytes, y);
                    if (st != CGP_SUCCESS) {
                        TEST_FAIL(name, "%s: %s", cgp_status_string(st), cgp_last_error_detail());
                    } else {
                        /* Winograd: NaN may stand for +-inf */
                        const int mixes = table[k]->version >= 7 && table[k]->version <= 9;
                        int64_t bad = -1;
                        for (int64_t i = 0; i < outputs && bad < 0; ++i) {
                            if (isfinite(ref[i]) != isfinite(y[i]))
                                bad = i;
                            else if (!isfinite(ref[i]) && !mixes && !(isnan(ref[i]) ? isnan(y[i]) : y[i] == ref[i]))
                                bad = i;
                        }
                        /* the finite outputs must still be right */
                        double d2 = 0.0, r2 = 0.0;
                        for (int64_t i = 0; i < outputs; ++i)
                            if (isfinite(ref[i]) && isfinite(y[i])) {
                                d2 += (y[i] - ref[i]) * (y[i] - ref[i]);
                                r2 += ref[i] * ref[i];
                            }
                        const double rel = r2 > 0 ? sqrt(d2 / r2) : 0.0;
                        if (bad >= 0)
                            TEST_FAIL(name, "y[%lld] = %g, reference %g (%d non-finite in the reference)", (long long)bad,
                                      (double)y[bad], ref[bad], ref_nonfinite);
                        else
                            TEST_EXPECT(name, ref_nonfinite > 0 && rel <= 1e-6,
                                        "finite outputs: rel L2 error %.3e; %d non-finite reference outputs", rel,
                                        ref_nonfinite);
                    }
                    cudaFree(ws);
                    if (plan)
                        cgp_plan_destroy(plan);
                }
            }
            problem_destroy(&pr);
        }
    return test_exit_code();
}
