/*
 * example.c - the whole life of a cgp plan, as a program using the library writes it: create a
 * plan for a small problem, ask for its workspace, allocate and fill the tensors, run on a
 * stream of our own, copy y back, and prove it with a few lines of double-precision host code.
 *
 * Build and run (from the repository root, after `make`):
 *     gcc -std=c11 -Iinclude -I/usr/local/cuda/include docs/example.c -o example \
 *         build/libcgp.a -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++ -lm
 *     ./example
 * `make test` builds it as build/tests/example and runs it (docs/library.md has the link lines).
 * Exit code: 0 when y matches the host computation, 1 on any error, 77 without a CUDA device or driver
 * (tests/run_tests.sh counts 77 as a skip, but as a failure on a machine that has an NVIDIA device).
 */
#include <math.h>
#include <stdio.h>
#include <cuda_runtime_api.h>

#include "cgp.h"

enum { N = 2, CIN = 3, COUT = 4, H = 9, W = 11 };
enum { HOUT = H - 2, WOUT = W - 2 }; /* valid padding: no padding, 3x3 window */

/* Any failing call prints what failed and why, then jumps to the clean-up. */
#define CHECK_CGP(call)                                                                                    \
    do {                                                                                                   \
        const cgp_status status_ = (call);                                                                 \
        if (status_ != CGP_SUCCESS) {                                                                      \
            printf("FAIL example: %s: %s (%s)\n", #call, cgp_status_string(status_), cgp_last_error_detail()); \
            goto done;                                                                                     \
        }                                                                                                  \
    } while (0)

#define CHECK_CUDA(call)                                                                                   \
    do {                                                                                                   \
        const cudaError_t err_ = (call);                                                                   \
        if (err_ != cudaSuccess) {                                                                         \
            printf("FAIL example: %s: %s: %s\n", #call, cudaGetErrorName(err_), cudaGetErrorString(err_)); \
            goto done;                                                                                     \
        }                                                                                                  \
    } while (0)

static int released(int success, const char *what, const char *why)
{
    if (!success)
        printf("FAIL example: %s: %s\n", what, why);
    return success;
}

static double gelu(double v) { return 0.5 * v * (1.0 + erf(v / sqrt(2.0))); }

/* What the library computes, written out: y[n][c] = mean over output pixels of GELU(conv + b[c]). */
static void host_forward(const float *x, const float *w, const float *b, double *y)
{
    for (int n = 0; n < N; ++n)
        for (int c = 0; c < COUT; ++c) {
            double sum = 0.0;
            for (int oh = 0; oh < HOUT; ++oh)
                for (int ow = 0; ow < WOUT; ++ow) {
                    double v = b[c];
                    for (int ci = 0; ci < CIN; ++ci)
                        for (int kh = 0; kh < 3; ++kh)
                            for (int kw = 0; kw < 3; ++kw)
                                v += (double)w[((c * CIN + ci) * 3 + kh) * 3 + kw] *
                                     x[((n * CIN + ci) * H + oh + kh) * W + ow + kw];
                    sum += gelu(v);
                }
            y[n * COUT + c] = sum / (HOUT * WOUT);
        }
}

int main(void)
{
    /* No device, or no driver: nothing to run (77). Any other error is a broken installation: a failure. */
    int devices = 0;
    const cudaError_t device_err = cudaGetDeviceCount(&devices);
    if (device_err == cudaErrorNoDevice || device_err == cudaErrorInsufficientDriver ||
        (device_err == cudaSuccess && devices == 0)) {
        printf("example: no CUDA device (%s), nothing to run\n",
               device_err != cudaSuccess ? cudaGetErrorName(device_err) : "device count is 0");
        return 77;
    }
    if (device_err != cudaSuccess) {
        printf("FAIL example: cudaGetDeviceCount: %s: %s\n", cudaGetErrorName(device_err),
               cudaGetErrorString(device_err));
        return 1;
    }

    static float x[N * CIN * H * W], w[COUT * CIN * 9], b[COUT], y[N * COUT];
    static double expected[N * COUT];
    for (int i = 0; i < N * CIN * H * W; ++i)
        x[i] = (float)(i % 17 - 8) / 8.0f; /* -1 .. 1 */
    for (int i = 0; i < COUT * CIN * 9; ++i)
        w[i] = (float)(i % 7 - 3) / 10.0f; /* -0.3 .. 0.3 */
    for (int c = 0; c < COUT; ++c)
        b[c] = 0.25f * (float)c - 0.5f;

    int ok = 0;
    cgp_plan *plan = NULL;
    cudaStream_t stream = NULL;
    float *dx = NULL, *dw = NULL, *db = NULL, *dy = NULL;
    void *workspace = NULL;
    size_t workspace_bytes = 0;
    int version = 0;
    const char *kernel_name = NULL;

    /* 1. The plan: shape and options are checked here, once. */
    const cgp_shape shape = {N, CIN, COUT, H, W};
    const cgp_options options = cgp_default_options(); /* valid padding, deterministic, fp32 */
    CHECK_CGP(cgp_plan_create(&plan, &shape, &options));
    CHECK_CGP(cgp_plan_workspace_size(plan, &workspace_bytes));
    CHECK_CGP(cgp_plan_kernel(plan, &version, &kernel_name));
    printf("plan: %dx%dx%dx%dx%d, kernel %s (version %d), workspace %zu bytes\n", N, CIN, COUT, H, W, kernel_name,
           version, workspace_bytes);

    /* 2. Device memory is the caller's: tensors and workspace (cudaMalloc aligns to 256 bytes). */
    CHECK_CUDA(cudaMalloc((void **)&dx, sizeof x));
    CHECK_CUDA(cudaMalloc((void **)&dw, sizeof w));
    CHECK_CUDA(cudaMalloc((void **)&db, sizeof b));
    CHECK_CUDA(cudaMalloc((void **)&dy, sizeof y));
    if (workspace_bytes > 0)
        CHECK_CUDA(cudaMalloc(&workspace, workspace_bytes));

    /* 3. Everything is ordered on one stream: upload, run, download, then wait once. */
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_CUDA(cudaMemcpyAsync(dx, x, sizeof x, cudaMemcpyHostToDevice, stream));
    CHECK_CUDA(cudaMemcpyAsync(dw, w, sizeof w, cudaMemcpyHostToDevice, stream));
    CHECK_CUDA(cudaMemcpyAsync(db, b, sizeof b, cudaMemcpyHostToDevice, stream));
    CHECK_CGP(cgp_plan_run(plan, dx, dw, db, dy, workspace, workspace_bytes, stream));
    CHECK_CUDA(cudaMemcpyAsync(y, dy, sizeof y, cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));

    /* 4. The proof. */
    host_forward(x, w, b, expected);
    const double tolerance = 1e-5; /* relative, absolute below 1 */
    double max_error = 0.0;
    int mismatches = 0, first_mismatch = 0;
    for (int i = 0; i < N * COUT; ++i) {
        const double error = fabs(y[i] - expected[i]) / fmax(1.0, fabs(expected[i]));
        if (!(error <= tolerance) && mismatches++ == 0) /* NaN is a mismatch too */
            first_mismatch = i;
        if (error > max_error)
            max_error = error;
    }
    for (int c = 0; c < COUT; ++c)
        printf("y[0][%d] = %+.7f   expected %+.7f\n", c, y[c], expected[c]);
    if (mismatches == 0) {
        printf("PASS example: the %d outputs match the host computation (max error %.2g)\n", N * COUT, max_error);
        ok = 1;
    } else {
        const int i = first_mismatch;
        printf("FAIL example: %d of %d outputs differ, first y[%d][%d] = %.9g, expected %.9g (tolerance %.0e)\n",
               mismatches, N * COUT, i / COUT, i % COUT, y[i], expected[i], tolerance);
    }

done:
    /* 5. Clean up, still checking: the plan owns a little device memory of its own. */
    if (plan) {
        const cgp_status status = cgp_plan_destroy(plan);
        if (!released(status == CGP_SUCCESS, "cgp_plan_destroy", cgp_last_error_detail()))
            ok = 0;
    }
    const cudaError_t frees[] = {stream ? cudaStreamDestroy(stream) : cudaSuccess, cudaFree(dx), cudaFree(dw),
                                 cudaFree(db), cudaFree(dy), cudaFree(workspace)};
    for (size_t i = 0; i < sizeof frees / sizeof frees[0]; ++i)
        if (!released(frees[i] == cudaSuccess, "releasing the stream and device memory", cudaGetErrorString(frees[i])))
            ok = 0;
    return ok ? 0 : 1;
}
