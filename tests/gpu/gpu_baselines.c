/*
 * gpu_baselines.c - the baseline bench rows (host/bench/variants_cudnn.c, host/bench/variants_cudnn_graph.c,
 * host/bench/variants_unfused.c) against the fp64 GPU reference (host/bench/reference_gpu.h):
 *   - the default problem 128x8x64x256x256 and small shapes with odd sizes (planes that start off
 *     16-byte boundaries, partial tiles), both paddings, Cin in {3, 8}, Cout in {7, 64};
 *   - random inputs (host/bench/rng.h, seed printed, CGP_TEST_SEED repeats it); y poisoned with NaN before
 *     every run; relative L2 and max abs error within tests/lib/tolerance.h's bounds (fp32 rows the fp32
 *     model, tf32 rows the tf32 model against the exact reference: cuDNN's TF32 rounding is its own); the
 *     cuDNN legacy and unfused rows must also repeat bit for bit (their reductions have a fixed order);
 *   - the NCHW -> NHWC kernel against a host transpose;
 *   - without a GPU: the rest of the program skips (FAIL with CGP_TEST_REQUIRE_GPU=1). A row that could
 *     not be set up is a SKIP carrying its reason, a FAIL with CGP_TEST_REQUIRE_GPU=1, unless it is one of
 *     the refusals named below with the status cuDNN gave (what cuDNN 9.14 on the H200 refuses,
 *     results/h200/make_test_075aa0e.log): those stay SKIPs, listed at the end of `make test`;
 *   - CPU only: in a build without cuDNN (USE_CUDNN=0) the cuDNN rows say why they are missing.
 * Run: make test CGP_TEST_FILTER=gpu_baselines   (or build/tests/gpu_baselines directly)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "baselines.h"
#include "gpulib.h"
#include "reference_gpu.h"
#include "rng.h"
#include "testlib.h"
#include "tolerance.h"
#include "variants.h"

#define MAX_ROWS 16

typedef struct test_shape {
    cgp_shape shape; /* n, cin, cout, h, w */
    cgp_padding padding;
} test_shape;

static const test_shape test_shapes[] = {
    {{128, 8, 64, 256, 256}, CGP_PADDING_VALID}, /* the default problem */
    {{2, 3, 7, 17, 13}, CGP_PADDING_VALID},
    {{2, 3, 7, 17, 13}, CGP_PADDING_SAME},
    {{3, 8, 64, 33, 31}, CGP_PADDING_VALID},
    {{3, 8, 64, 33, 31}, CGP_PADDING_SAME},
    {{1, 8, 7, 5, 6}, CGP_PADDING_SAME},
    {{2, 3, 64, 3, 3}, CGP_PADDING_VALID}, /* one output pixel per plane */
    {{4, 8, 7, 1, 9}, CGP_PADDING_SAME},   /* one output row */
};

/* The rows cuDNN may refuse on a shape, by row name, shape and the status (a part of the reason) it gives. */
static const struct named_refusal {
    const char *row, *shape, *status;
} named_refusals[] = {
    {"cudnn graph fp32", "128x8x64x256x256 valid", "no strict-fp32"},
    {"cudnn graph fp32", "2x3x7x17x13 valid", "cuDNN offers no engine config for the graph"},
    {"cudnn graph tf32", "2x3x7x17x13 valid", "cuDNN offers no engine config for the graph"},
    {"cudnn graph fp32", "2x3x7x17x13 same", "cuDNN offers no engine config for the graph"},
    {"cudnn graph tf32", "2x3x7x17x13 same", "cuDNN offers no engine config for the graph"},
    {"cudnn graph fp32", "3x8x64x33x31 valid", "no strict-fp32"},
    {"cudnn graph fp32", "3x8x64x33x31 same", "no strict-fp32"},
    {"cudnn graph fp32", "1x8x7x5x6 same", "no strict-fp32"},
    {"cudnn graph fp32", "2x3x64x3x3 valid", "no strict-fp32"},
    {"cudnn graph tf32", "2x3x64x3x3 valid", "CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED"},
    {"cudnn graph fp32", "4x8x7x1x9 same", "no strict-fp32"},
};
#define NAMED_REFUSALS ((int)(sizeof named_refusals / sizeof named_refusals[0]))
static int refusal_seen[NAMED_REFUSALS];

/* The index of the named refusal this is, or -1. */
static int named_refusal(const char *row, const char *shape, const char *why)
{
    for (int i = 0; i < NAMED_REFUSALS; ++i)
        if (strcmp(named_refusals[i].row, row) == 0 && strcmp(named_refusals[i].shape, shape) == 0 &&
            strstr(why, named_refusals[i].status))
            return i;
    return -1;
}

static void check_no_cudnn_rows(void)
{
    const char *name = "gpu_baselines no-cuDNN rows";
#if CGP_HAVE_CUDNN
    printf("# %s: not a case of this build (it has cuDNN); `make BUILD=build-nocudnn USE_CUDNN=0 test` checks them\n",
           name);
#else
    bench_problem p;
    memset(&p, 0, sizeof p);
    p.shape = (cgp_shape){128, 8, 64, 256, 256};
    p.hout = p.wout = 254;
    bench_variant rows[MAX_ROWS];
    int count = 0;
    const int rc = variants_cudnn(&p, rows, &count, MAX_ROWS) | variants_cudnn_graph(&p, rows, &count, MAX_ROWS);
    int bad = -1;
    for (int i = 0; i < count && bad < 0; ++i)
        if (strcmp(rows[i].unavailable, BASELINE_NO_CUDNN_REASON) != 0 || rows[i].run != NULL)
            bad = i;
    if (rc != 0 || count != 7) /* legacy: the pipeline and the convolution alone, fp32 and tf32; graph: 3 */
        TEST_FAIL(name, "families returned %d with %d rows (expected 0 with 7)", rc, count);
    else if (bad >= 0)
        TEST_FAIL(name, "row '%s' says '%s' (expected '%s' and no run)", rows[bad].name, rows[bad].unavailable,
                  BASELINE_NO_CUDNN_REASON);
    else
        TEST_PASS(name);
#endif
}

static void check_layout_kernel(void)
{
    const char *name = "gpu_baselines layout NCHW->NHWC kernel";
    const int64_t cases[][3] = {{2, 5, 37}, {7, 3, 9}, {3, 40, 300}, {1, 64, 129}}; /* n, c, hw */
    float *host_in = NULL, *host_out = NULL, *dev_in = NULL, *dev_out = NULL;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const int64_t n = cases[k][0], c = cases[k][1], hw = cases[k][2], count = n * c * hw;
        host_in = malloc((size_t)count * sizeof(float));
        host_out = malloc((size_t)count * sizeof(float));
        if (!host_in || !host_out) {
            TEST_FAIL(name, "out of host memory");
            goto out;
        }
        rng_fill_uniform(host_in, count, -1.0f, 1.0f, 17 + k);
        TEST_CUDA(name, cudaMalloc((void **)&dev_in, (size_t)count * sizeof(float)));
        TEST_CUDA(name, cudaMalloc((void **)&dev_out, (size_t)count * sizeof(float)));
        TEST_CUDA(name, cudaMemcpy(dev_in, host_in, (size_t)count * sizeof(float), cudaMemcpyHostToDevice));
        TEST_CUDA(name, poison_outputs(dev_out, count, 0));
        TEST_CUDA(name, baseline_nchw_to_nhwc(dev_in, dev_out, n, c, hw, 0));
        TEST_CUDA(name, cudaDeviceSynchronize());
        TEST_CUDA(name, cudaMemcpy(host_out, dev_out, (size_t)count * sizeof(float), cudaMemcpyDeviceToHost));
        for (int64_t i = 0; i < n; ++i)
            for (int64_t ch = 0; ch < c; ++ch)
                for (int64_t px = 0; px < hw; ++px)
                    if (host_out[(i * hw + px) * c + ch] != host_in[(i * c + ch) * hw + px]) {
                        TEST_FAIL(name, "n=%lld c=%lld hw=%lld: element (%lld, %lld, %lld) wrong", (long long)n,
                                  (long long)c, (long long)hw, (long long)i, (long long)ch, (long long)px);
                        goto out;
                    }
        cudaFree(dev_in);
        cudaFree(dev_out);
        free(host_in);
        free(host_out);
        dev_in = dev_out = host_in = host_out = NULL;
    }
    TEST_PASS(name);
out:
    cudaFree(dev_in);
    cudaFree(dev_out);
    free(host_in);
    free(host_out);
}

/* Runs v once into the poisoned y (poison.h) and copies y back; 0 or -1 after reporting FAIL. */
static int run_row(bench_variant *v, const bench_problem *p, cudaStream_t s, float *host_y, size_t y_bytes,
                   const char *name)
{
    TEST_CUDA(name, poison_outputs(p->y, (int64_t)(y_bytes / sizeof(float)), s));
    if (v->run(v, p, s) != 0) {
        TEST_FAIL(name, "run() failed (see the message above)");
        return -1;
    }
    TEST_CUDA(name, cudaStreamSynchronize(s));
    TEST_CUDA(name, cudaGetLastError());
    TEST_CUDA(name, cudaMemcpy(host_y, p->y, y_bytes, cudaMemcpyDeviceToHost));
    return 0;
out:
    return -1;
}

static void check_rows(const bench_problem *p, const double *ref, const char *label, int print_details)
{
    const int64_t outputs = p->shape.n * p->shape.cout;
    const size_t y_bytes = (size_t)outputs * sizeof(float);
    bench_variant rows[MAX_ROWS];
    int count = 0;
    char name[200];
    float *first = malloc(y_bytes), *again = malloc(y_bytes);
    cudaStream_t s = NULL;
    snprintf(name, sizeof name, "gpu_baselines setup %s", label);
    if (!first || !again) {
        TEST_FAIL(name, "out of host memory");
        goto out;
    }
    TEST_CUDA(name, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (variants_unfused(p, rows, &count, MAX_ROWS) != 0 || variants_cudnn(p, rows, &count, MAX_ROWS) != 0 ||
        variants_cudnn_graph(p, rows, &count, MAX_ROWS) != 0) {
        TEST_FAIL(name, "a family returned an error");
        goto out;
    }
    for (int i = 0; i < count; ++i) {
        bench_variant *v = &rows[i];
        snprintf(name, sizeof name, "gpu_baselines %s %s", v->name, label);
        if (v->unavailable[0]) {
            const int k = named_refusal(v->name, label, v->unavailable);
            if (k >= 0) {
                refusal_seen[k] = 1;
                TEST_NAMED_REFUSAL(name, "%s: %s", named_refusals[k].status, v->unavailable);
            } else {
                TEST_SKIP(name, "%s", v->unavailable);
            }
            continue;
        }
        if (print_details)
            printf("# %s: %s\n", v->name, v->detail);
        if (v->precision == BENCH_PRECISION_NONE) { /* timing-only row: it must run */
            TEST_CUDA(name, poison_outputs(p->y, outputs, s));
            if (v->run(v, p, s) != 0)
                TEST_FAIL(name, "run() failed (see the message above)");
            else if (cudaStreamSynchronize(s) != cudaSuccess || cudaGetLastError() != cudaSuccess)
                TEST_FAIL(name, "the run failed on the device");
            else
                TEST_PASS(name);
            continue;
        }
        if (run_row(v, p, s, first, y_bytes, name) != 0)
            continue;
        const test_arith arith = v->precision == BENCH_PRECISION_TF32 ? TEST_ARITH_TF32 : TEST_ARITH_FP32;
        const test_result t = test_check_y(name, first, ref, outputs, arith, p->hout * p->wout, p->shape.cin);
        if (!t.passed)
            continue;
        const check_report r = t.r;
        const int repeatable = strcmp(v->family, "cudnn") == 0 || strcmp(v->family, "unfused") == 0;
        if (repeatable) {
            if (run_row(v, p, s, again, y_bytes, name) != 0)
                continue;
            if (memcmp(first, again, y_bytes) != 0) {
                TEST_FAIL(name, "rel L2 %.3g passes, but a second run differs in some bits", r.rel_l2_error);
                continue;
            }
        }
        test_report("PASS", name, "rel L2 %.3g (bound %.2g), max abs %.3g (bound %.2g)%s", r.rel_l2_error,
                    t.bounds.rel_l2, r.max_abs_error, t.bounds.max_abs,
                    repeatable ? ", bit-identical on a second run" : "");
    }
out:
    for (int i = 0; i < count; ++i)
        if (rows[i].destroy)
            rows[i].destroy(&rows[i]);
    if (s)
        cudaStreamDestroy(s);
    free(first);
    free(again);
}

static void check_shape(const test_shape *t, uint64_t seed, int print_details)
{
    const cgp_shape *sh = &t->shape;
    const int pad = t->padding == CGP_PADDING_SAME ? 1 : 0;
    const int64_t hout = sh->h + 2 * pad - 2, wout = sh->w + 2 * pad - 2;
    const int64_t x_count = sh->n * sh->cin * sh->h * sh->w, w_count = sh->cout * sh->cin * 9,
                  outputs = sh->n * sh->cout;
    char label[96], name[160];
    snprintf(label, sizeof label, "%lldx%lldx%lldx%lldx%lld %s", (long long)sh->n, (long long)sh->cin,
             (long long)sh->cout, (long long)sh->h, (long long)sh->w, pad ? "same" : "valid");
    snprintf(name, sizeof name, "gpu_baselines reference %s", label);
    float *hx = malloc((size_t)x_count * sizeof(float)), *hw = malloc((size_t)w_count * sizeof(float)),
          *hb = malloc((size_t)sh->cout * sizeof(float));
    double *ref = malloc((size_t)outputs * sizeof(double));
    float *dx = NULL, *dw = NULL, *db = NULL, *dy = NULL;
    double *dref = NULL;
    void *scratch = NULL;
    if (!hx || !hw || !hb || !ref) {
        TEST_FAIL(name, "out of host memory");
        goto out;
    }
    const float w_scale = 2.0f / sqrtf((float)(sh->cin * 9)); /* conv outputs of order 1 */
    rng_fill_uniform(hx, x_count, -1.0f, 1.0f, rng_seed_x(seed));
    rng_fill_uniform(hw, w_count, -w_scale, w_scale, rng_seed_w(seed));
    rng_fill_uniform(hb, sh->cout, -0.5f, 0.5f, rng_seed_b(seed));
    TEST_CUDA(name, cudaMalloc((void **)&dx, (size_t)x_count * sizeof(float)));
    TEST_CUDA(name, cudaMalloc((void **)&dw, (size_t)w_count * sizeof(float)));
    TEST_CUDA(name, cudaMalloc((void **)&db, (size_t)sh->cout * sizeof(float)));
    TEST_CUDA(name, cudaMalloc((void **)&dy, (size_t)outputs * sizeof(float)));
    TEST_CUDA(name, cudaMalloc((void **)&dref, (size_t)outputs * sizeof(double)));
    TEST_CUDA(name, cudaMalloc(&scratch, reference_gpu_scratch_bytes(sh->n, sh->cout, hout, wout)));
    TEST_CUDA(name, cudaMemcpy(dx, hx, (size_t)x_count * sizeof(float), cudaMemcpyHostToDevice));
    TEST_CUDA(name, cudaMemcpy(dw, hw, (size_t)w_count * sizeof(float), cudaMemcpyHostToDevice));
    TEST_CUDA(name, cudaMemcpy(db, hb, (size_t)sh->cout * sizeof(float), cudaMemcpyHostToDevice));
    TEST_CUDA(name, reference_gpu_forward(dx, dw, db, sh->n, sh->cin, sh->cout, sh->h, sh->w, pad, dref, scratch, 0));
    TEST_CUDA(name, cudaDeviceSynchronize());
    TEST_CUDA(name, cudaMemcpy(ref, dref, (size_t)outputs * sizeof(double), cudaMemcpyDeviceToHost));
    TEST_CUDA(name, cudaFree(scratch));
    scratch = NULL;

    const bench_problem p = {*sh, t->padding, hout, wout, dx, dw, db, dy};
    check_rows(&p, ref, label, print_details);
out:
    cudaFree(dx);
    cudaFree(dw);
    cudaFree(db);
    cudaFree(dy);
    cudaFree(dref);
    cudaFree(scratch);
    free(hx);
    free(hw);
    free(hb);
    free(ref);
}

int main(void)
{
    check_no_cudnn_rows();
    if (!test_gpu_available("gpu_baselines"))
        return test_exit_code();
    const uint64_t seed = test_seed("gpu_baselines");
    check_layout_kernel();
    for (size_t i = 0; i < sizeof test_shapes / sizeof test_shapes[0]; ++i)
        check_shape(&test_shapes[i], seed + i, i == 0);
    for (int k = 0; k < NAMED_REFUSALS; ++k)
        if (!refusal_seen[k])
            printf("# named refusal not seen (cuDNN now builds it, or the row failed otherwise): %s %s: %s\n",
                   named_refusals[k].row, named_refusals[k].shape, named_refusals[k].status);
    test_tolerance_summary("gpu_baselines");
    return test_exit_code();
}
