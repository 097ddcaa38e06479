/*
 * variants_unfused.c - the "unfused" bench family: one row, "unfused cuda fp32", the plain CUDA
 * pipeline that needs no cuDNN (kernels/bench/baseline_unfused.cu, kernels/bench/baseline_epilogue.cu):
 *     direct conv + bias -> NCHW intermediate;  GELU in place;  mean over each (n, c) plane.
 * The intermediate (N x Cout x Hout x Wout fp32) is written once, read and written by the GELU,
 * and read once more: 4 passes over it. Run by `cgp bench` (--baselines unfused) and checked in
 * tests/gpu/gpu_baselines.c.
 */
#include <stdlib.h>

#include "baselines.h"

typedef struct unfused_state {
    float *intermediate;
    int64_t planes, plane_size;
} unfused_state;

static int unfused_run(bench_variant *v, const bench_problem *p, cudaStream_t s)
{
    const unfused_state *st = v->state;
    const cgp_shape *sh = &p->shape;
    CUDA_RUN(v->name, baseline_direct_conv_bias(p->x, p->w, p->b, st->intermediate, sh->n, sh->cin, sh->cout, sh->h,
                                                sh->w, p->padding == CGP_PADDING_SAME ? 1 : 0, s));
    CUDA_RUN(v->name, baseline_gelu_inplace(st->intermediate, st->planes * st->plane_size, s));
    CUDA_RUN(v->name, baseline_plane_mean(st->intermediate, p->y, st->planes, st->plane_size, s));
    return 0;
}

static void unfused_destroy(bench_variant *v)
{
    unfused_state *st = v->state;
    if (!st)
        return;
    CUDA_WARN(cudaFree(st->intermediate));
    free(st);
    v->state = NULL;
}

int variants_unfused(const bench_problem *p, bench_variant *out, int *count, int max)
{
    if (baseline_reserve_rows("unfused", *count, max, 1) != 0)
        return 1;
    bench_variant *v = &out[(*count)++];
    baseline_row_init(v, "unfused cuda fp32", "unfused", BENCH_PRECISION_FP32);

    const cgp_shape *sh = &p->shape;
    const int64_t planes = sh->n * sh->cout, plane_size = p->hout * p->wout;
    const size_t intermediate_bytes = (size_t)(planes * plane_size) * sizeof(float);
    unfused_state *st = calloc(1, sizeof *st);
    if (!st) {
        baseline_row_unavailable(v, "out of host memory");
        return 0;
    }
    char why[sizeof v->unavailable];
    if (baseline_device_alloc((void **)&st->intermediate, intermediate_bytes, "NCHW fp32 intermediate", why,
                              sizeof why) != 0) {
        free(st);
        baseline_row_unavailable(v, "%s", why);
        return 0;
    }
    st->planes = planes;
    st->plane_size = plane_size;
    snprintf(v->detail, sizeof v->detail,
             "naive direct conv (1 thread/output, fp32 FMA) + bias -> NCHW intermediate %zu B; GELU in place "
             "(16-byte); per-plane mean (16-byte loads, fixed order); 3 kernels, intermediate moved 4 times",
             intermediate_bytes);
    v->bytes_moved = baseline_fp32_bytes(sh->n * sh->cin * sh->h * sh->w) +
                     baseline_fp32_bytes(sh->cout * sh->cin * 9 + sh->cout) +
                     4.0 * (double)intermediate_bytes + baseline_fp32_bytes(planes);
    v->state = st;
    v->run = unfused_run;
    v->destroy = unfused_destroy;
    return 0;
}
