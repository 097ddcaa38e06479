/*
 * gpu_large.c - a problem whose input has more than 2^31 elements (N = 4200, Cin = 8, 256 x 256:
 * 2.2 G elements, 8.8 GB) through the fast and the generic fp32 kernels, checked against the fp64
 * GPU reference on a sample of images, including images whose offsets pass 2^31 elements.
 * Skips with the reason when the device lacks the memory (or there is no GPU).
 */
#include <math.h>

#include "check.h"
#include "gpulib.h"
#include "problem.h"
#include "reference_gpu.h"

int main(void)
{
    if (!test_gpu_available("gpu_large"))
        return test_exit_code();
    const cgp_shape s = {4200, 8, 64, 256, 256};
    const int64_t per_image = s.cin * s.h * s.w, hout = s.h - 2, wout = s.w - 2;
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    const double need = (double)problem_tensor_bytes(&s) + 64e6 + (double)(s.n * s.cout) * 12.0;
    if ((double)free_bytes < need) {
        TEST_SKIP("gpu_large", "needs %.1f GB of free device memory, %.1f GB free", need / 1e9, free_bytes / 1e9);
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
    /* sampled images: the first, both sides of the 2^31-element boundary, the last */
    const int64_t boundary = ((int64_t)INT32_MAX + 1) / per_image;
    const int64_t sample[] = {0, 1, boundary - 1, boundary, boundary + 1, 3000, s.n - 1};
    const int nsample = (int)(sizeof sample / sizeof sample[0]);
    double *ref_d = NULL, ref[7 * 64];
    void *scratch = NULL;
    int ok = cudaMalloc((void **)&ref_d, sizeof(double) * 64) == cudaSuccess &&
             cudaMalloc(&scratch, reference_gpu_scratch_bytes(1, s.cout, hout, wout)) == cudaSuccess;
    for (int k = 0; ok && k < nsample; ++k)
        ok = reference_gpu_forward(pr.p.x + sample[k] * per_image, pr.p.w, pr.p.b, 1, s.cin, s.cout, s.h, s.w, 0, ref_d,
                                   scratch, 0) == cudaSuccess &&
             cudaMemcpy(ref + k * 64, ref_d, sizeof(double) * 64, cudaMemcpyDeviceToHost) == cudaSuccess;
    if (!ok) {
        TEST_FAIL("gpu_large reference", "%s", cudaGetErrorString(cudaGetLastError()));
        return test_exit_code();
    }
    float *y = malloc(sizeof(float) * (size_t)(s.n * s.cout)), got[7 * 64];
    const int versions[] = {0, 1, 6};
    for (size_t v = 0; v < sizeof versions / sizeof versions[0]; ++v)
        for (int reduce = 0; reduce <= 1; ++reduce) {
            char name[96];
            cgp_plan *plan;
            void *ws;
            size_t ws_bytes;
            cgp_status st = test_plan_with_workspace(&s, CGP_PADDING_VALID, reduce, CGP_PRECISION_FP32, versions[v],
                                                     &plan, &ws, &ws_bytes);
            int version = versions[v];
            if (plan)
                cgp_plan_kernel(plan, &version, NULL);
            snprintf(name, sizeof name, "large N=4200 (> 2^31 input elements) v%d %s", version, reduce ? "atomic" : "det");
            if (st == CGP_SUCCESS)
                st = run_poisoned(plan, pr.p.x, pr.p.w, pr.p.b, pr.p.y, s.n * s.cout, ws, ws_bytes, y);
            if (st != CGP_SUCCESS) {
                TEST_FAIL(name, "%s: %s", cgp_status_string(st), cgp_last_error_detail());
            } else {
                int64_t nonfinite = 0;
                for (int64_t i = 0; i < s.n * s.cout; ++i)
                    nonfinite += !isfinite(y[i]);
                for (int k = 0; k < nsample; ++k)
                    for (int c = 0; c < 64; ++c)
                        got[k * 64 + c] = y[sample[k] * s.cout + c];
                const check_report r = check_compare(got, ref, nsample * 64, 1e-6);
                TEST_EXPECT(name, r.passed && nonfinite == 0,
                            "rel L2 error on %d sampled images %.3e, %lld non-finite outputs of %lld", nsample,
                            r.rel_l2_error, (long long)nonfinite, (long long)(s.n * s.cout));
            }
            cudaFree(ws);
            if (plan)
                cgp_plan_destroy(plan);
        }
    free(y);
    cudaFree(ref_d);
    cudaFree(scratch);
    problem_destroy(&pr);
    return test_exit_code();
}
