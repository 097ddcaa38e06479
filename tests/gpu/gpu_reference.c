/*
 * gpu_reference.c - the fp64 GPU reference (kernels/bench/reference_gpu.cu) against the CPU reference
 * on small shapes, both paddings: they must agree to 1e-12 relative (both are fp64; only the
 * summation order differs). Every full-size check in the suite rests on this.
 */
#include <math.h>

#include "gpulib.h"
#include "problem.h"
#include "reference.h"

int main(void)
{
    if (!test_gpu_available("gpu_reference"))
        return test_exit_code();
    const uint64_t seed = test_seed("gpu_reference");
    static const cgp_shape shapes[] = {{1, 1, 1, 3, 3}, {2, 3, 5, 17, 23}, {1, 8, 64, 40, 37},
                                       {3, 16, 7, 9, 70}, {2, 8, 64, 66, 66}, {1, 5, 3, 3, 129}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
        for (int pad = 0; pad <= 1; ++pad) {
            const cgp_shape *s = &shapes[i];
            char name[128], err[512];
            snprintf(name, sizeof name, "gpu reference vs cpu %s %lldx%lldx%lldx%lldx%lld", pad ? "same" : "valid",
                     (long long)s->n, (long long)s->cin, (long long)s->cout, (long long)s->h, (long long)s->w);
            problem pr;
            if (problem_create(&pr, s, (cgp_padding)pad, seed + i, 0, err, sizeof err) != 0) {
                TEST_FAIL(name, "%s", err);
                continue;
            }
            const int64_t outputs = s->n * s->cout;
            double *gpu = malloc((size_t)outputs * sizeof(double)), *cpu = malloc((size_t)outputs * sizeof(double));
            float *x, *w, *b;
            if (problem_reference(&pr, gpu, err, sizeof err) != 0 || problem_download(&pr, &x, &w, &b, err, sizeof err)) {
                TEST_FAIL(name, "%s", err);
            } else {
                reference_forward(x, w, b, s->n, s->cin, s->cout, s->h, s->w, pad, cpu, 0);
                double worst = 0.0;
                for (int64_t k = 0; k < outputs; ++k)
                    worst = fmax(worst, fabs(gpu[k] - cpu[k]) / fmax(fabs(cpu[k]), 1e-300));
                TEST_EXPECT(name, worst <= 1e-12, "max relative difference %.3e", worst);
                free(x);
                free(w);
                free(b);
            }
            free(gpu);
            free(cpu);
            problem_destroy(&pr);
        }
    return test_exit_code();
}
