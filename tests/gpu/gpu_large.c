/*
 * gpu_large.c - a problem whose input has more than 2^31 elements, the fewest images that cross it
 * (N = 4097, Cin = 8, 256 x 256: 2^31 + 2^19 elements, 8.6 GB; the last image starts at element 2^31),
 * through every precision: fp32 kernel 0 (the best), fp32-v1 (generic), fp32-v6 (direct), fp32-v10 (the
 * FFMA implicit GEMM), fp32-v11 and fp32-v12 (the Winograd GEMMs); tf32 and 3xtf32 kernel 0, their v1 (mma.sync,
 * any shape) and the implicit GEMMs v9 (mma.sync), v10 and v15 (wgmma, v15 with the weights rounded once a launch,
 * where the GPU runs them); both reductions. Checked against the fp64 GPU
 * reference (tf32: of the tf32-rounded inputs) on sampled images on both sides of 2^30 and 2^31 elements
 * (2^32 and 2^33 bytes), bounds from tests/lib/tolerance.h, and every output finite.
 * Too little free device memory skips the rest of the program (a FAIL with CGP_TEST_REQUIRE_GPU=1).
 */
#include <math.h>

#include "gpulib.h"
#include "problem.h"
#include "tolerance.h"

#define SAMPLES 6

#ifndef CGP_WGMMA_BUILT
#define CGP_WGMMA_BUILT 0 /* the Makefile sets 1 where it builds the wgmma kernels (SM=90, for sm_90a) */
#endif

int main(void)
{
    if (!test_gpu_available("gpu_large"))
        return test_exit_code();
    const cgp_shape s = {4097, 8, 64, 256, 256};
    const int64_t per_image = s.cin * s.h * s.w, outputs = s.n * s.cout;
    /* the images around 2^30 and 2^31 elements, the first and the last (image 4096 starts at 2^31) */
    const int64_t sample[SAMPLES] = {0, 2047, 2048, 4095, 4096, 1};
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    const double need = (double)problem_tensor_bytes(&s) + 64e6 + (double)outputs * 12.0;
    if ((double)free_bytes < need) {
        char why[160];
        snprintf(why, sizeof why, "needs %.1f GB of free device memory, %.1f GB free", need / 1e9, free_bytes / 1e9);
        test_skip_rest("gpu_large", why);
        return test_exit_code();
    }
    const uint64_t seed = test_seed("gpu_large");
    problem pr;
    char err[512];
    if (problem_create(&pr, &s, CGP_PADDING_VALID, seed, 64000000, err, sizeof err) != 0) {
        TEST_FAIL("gpu_large problem", "%s", err);
        return test_exit_code();
    }
    printf("# input: %lld elements (2^31 = %lld)\n", (long long)(s.n * per_image), (long long)INT32_MAX + 1);
    double ref[2][SAMPLES * 64]; /* exact, tf32-rounded */
    for (int k = 0; k < SAMPLES; ++k)
        for (int rounded = 0; rounded <= 1; ++rounded)
            if (test_reference(pr.p.x, pr.p.w, pr.p.b, &s, sample[k], 1, CGP_PADDING_VALID, rounded,
                               ref[rounded] + k * 64, err, sizeof err) != 0) {
                TEST_FAIL("gpu_large reference", "image %lld: %s", (long long)sample[k], err);
                problem_destroy(&pr);
                return test_exit_code();
            }
    float *y = malloc(sizeof(float) * (size_t)outputs), got[SAMPLES * 64];
    static const struct {
        int precision, version, hopper; /* hopper: runs only on compute capability 9.0 with a build for it (the wgmma
                                         * versions: sm_90a; fp32-v12: TMA) */
    } runs[] = {{CGP_PRECISION_FP32, 0, 0},    {CGP_PRECISION_FP32, 1, 0},    {CGP_PRECISION_FP32, 6, 0},
                {CGP_PRECISION_FP32, 10, 0},   {CGP_PRECISION_FP32, 31, 0},   {CGP_PRECISION_FP32, 38, 1},
                {CGP_PRECISION_TF32, 0, 0},
                {CGP_PRECISION_TF32, 11, 0},
                {CGP_PRECISION_TF32, 19, 0},   {CGP_PRECISION_TF32, 20, 1},   {CGP_PRECISION_TF32, 39, 1},
                {CGP_PRECISION_TF32X3, 0, 0},  {CGP_PRECISION_TF32X3, 21, 0}, {CGP_PRECISION_TF32X3, 29, 0},
                {CGP_PRECISION_TF32X3, 30, 1}, {CGP_PRECISION_TF32X3, 40, 1}};
    const cgp_device_info dev = test_device_info();
    const int hopper_runs = CGP_WGMMA_BUILT && dev.cc_major == 9 && dev.cc_minor == 0;
    for (size_t v = 0; y && v < sizeof runs / sizeof runs[0]; ++v)
        for (int reduce = 0; reduce <= 1 && (hopper_runs || !runs[v].hopper); ++reduce) {
            char name[128];
            cgp_plan *plan;
            void *ws;
            size_t ws_bytes;
            cgp_status st = test_plan_with_workspace(&s, CGP_PADDING_VALID, reduce, runs[v].precision,
                                                     runs[v].version, &plan, &ws, &ws_bytes);
            const char *kernel = "?";
            if (plan)
                cgp_plan_kernel(plan, NULL, &kernel);
            snprintf(name, sizeof name, "large N=4097 (> 2^31 input elements) kernel %d (%s) %s", runs[v].version,
                     kernel, reduce ? "atomic" : "det");
            if (st == CGP_SUCCESS)
                st = run_poisoned(plan, pr.p.x, pr.p.w, pr.p.b, pr.p.y, outputs, ws, ws_bytes, y);
            if (st != CGP_SUCCESS) {
                TEST_FAIL(name, "%s: %s", cgp_status_string(st), cgp_last_error_detail());
            } else {
                int64_t nonfinite = 0;
                for (int64_t i = 0; i < outputs; ++i)
                    nonfinite += !isfinite(y[i]);
                for (int k = 0; k < SAMPLES; ++k)
                    for (int c = 0; c < 64; ++c)
                        got[k * 64 + c] = y[sample[k] * s.cout + c];
                const test_result t =
                    test_check_y(name, got, ref[runs[v].precision == CGP_PRECISION_TF32], SAMPLES * 64,
                                 test_arith_of_precision(runs[v].precision), (s.h - 2) * (s.w - 2), s.cin);
                if (t.passed)
                    TEST_EXPECT(name, nonfinite == 0, "%lld non-finite outputs of %lld", (long long)nonfinite,
                                (long long)outputs);
            }
            cudaFree(ws);
            if (plan)
                cgp_plan_destroy(plan);
        }
    if (!y)
        TEST_FAIL("gpu_large", "out of host memory");
    free(y);
    problem_destroy(&pr);
    test_tolerance_summary("gpu_large");
    return test_exit_code();
}
