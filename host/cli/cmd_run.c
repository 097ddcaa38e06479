/*
 * cmd_run.c - `cgp run`: y = fused(x, weight, bias) on .npy files, through the library API.
 *     cgp run --input X.npy --weight W.npy --bias B.npy --output Y.npy [--padding same] ...
 * Every problem with the inputs is reported in one line naming the file, exit 2; the output is
 * written to a temporary file and renamed only when everything succeeded.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "cuda_util.h"
#include "npy.h"

static int run_on_device(const npy_array *xa, const npy_array *wa, const npy_array *ba, const cgp_shape *s,
                         const cgp_options *o, float *y_host)
{
    cgp_plan *plan = NULL;
    cgp_status st = cgp_plan_create(&plan, s, o);
    if (st != CGP_SUCCESS) {
        fprintf(stderr, "cgp run: %s: %s\n", cgp_status_string(st), cgp_last_error_detail());
        return st == CGP_ERROR_CUDA ? EXIT_FAIL : EXIT_BAD_INPUT;
    }
    size_t ws_bytes = 0;
    cgp_plan_workspace_size(plan, &ws_bytes);
    const size_t outputs = (size_t)(s->n * s->cout);
    size_t free_bytes = 0, total = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    const size_t need = (size_t)(xa->count + wa->count + ba->count) * 4 + outputs * 4 + ws_bytes;
    if (need > free_bytes) {
        fprintf(stderr, "cgp run: the problem needs %zu bytes of device memory, only %zu are free\n", need, free_bytes);
        cgp_plan_destroy(plan);
        return EXIT_BAD_INPUT;
    }
    float *x, *w, *b, *y;
    void *ws = NULL;
    CUDA_CHECK(cudaMalloc((void **)&x, (size_t)xa->count * 4));
    CUDA_CHECK(cudaMalloc((void **)&w, (size_t)wa->count * 4));
    CUDA_CHECK(cudaMalloc((void **)&b, (size_t)ba->count * 4));
    CUDA_CHECK(cudaMalloc((void **)&y, outputs * 4));
    if (ws_bytes)
        CUDA_CHECK(cudaMalloc(&ws, ws_bytes));
    CUDA_CHECK(cudaMemcpy(x, xa->data, (size_t)xa->count * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(w, wa->data, (size_t)wa->count * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b, ba->data, (size_t)ba->count * 4, cudaMemcpyHostToDevice));
    st = cgp_plan_run(plan, x, w, b, y, ws, ws_bytes, 0);
    if (st != CGP_SUCCESS) {
        fprintf(stderr, "cgp run: %s: %s\n", cgp_status_string(st), cgp_last_error_detail());
        return EXIT_FAIL;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(y_host, y, outputs * 4, cudaMemcpyDeviceToHost));
    cudaFree(x);
    cudaFree(w);
    cudaFree(b);
    cudaFree(y);
    cudaFree(ws);
    cgp_plan_destroy(plan);
    return EXIT_OK;
}

int cmd_run(int argc, char **argv)
{
    const char *input = NULL, *weight = NULL, *bias = NULL, *output = NULL;
    cli_problem_options po;
    cli_problem_defaults(&po);
    option_spec specs[OPTIONS_MAX];
    int count = 0;
    specs[count++] = (option_spec)OPTION_STRING("--input", &input, "x: float32 .npy of shape (N, Cin, H, W)");
    specs[count++] = (option_spec)OPTION_STRING("--weight", &weight, "weight: float32 .npy of shape (Cout, Cin, 3, 3)");
    specs[count++] = (option_spec)OPTION_STRING("--bias", &bias, "bias: float32 .npy of shape (Cout,)");
    specs[count++] = (option_spec)OPTION_STRING("--output", &output, "y: float32 .npy of shape (N, Cout), written");
    specs[count++] = (option_spec)OPTION_CHOICE("--padding", &po.padding, cli_padding_names, "valid (0) or same (1)");
    cli_add_kernel_specs(specs, &count, &po, 0);
    specs[count++] = (option_spec)OPTION_END;
    int code = EXIT_OK;
    if (!cli_parse("cgp run", "y[n,c] = mean_hw GELU(conv3x3(x, weight) + bias) for tensors in .npy files", specs,
                   argc, argv, &code))
        return code;
    const char *missing = !input ? "--input" : !weight ? "--weight" : !bias ? "--bias" : !output ? "--output" : NULL;
    if (missing) {
        fprintf(stderr, "cgp run: %s is required (see cgp run --help)\n", missing);
        return EXIT_BAD_INPUT;
    }
    if (!cli_outputs_writable("cgp run", &output, 1))
        return EXIT_BAD_INPUT;
    char err[512];
    npy_array xa = {0}, wa = {0}, ba = {0};
    int rc = EXIT_BAD_INPUT;
    if (npy_read_f32(input, &xa, err, sizeof err) != 0 || npy_read_f32(weight, &wa, err, sizeof err) != 0 ||
        npy_read_f32(bias, &ba, err, sizeof err) != 0) {
        fprintf(stderr, "cgp run: %s\n", err);
        goto done;
    }
    const int64_t any4[4] = {-1, -1, -1, -1};
    if (npy_expect_shape(&xa, input, 4, any4, "input (N, Cin, H, W)", err, sizeof err) != 0) {
        fprintf(stderr, "cgp run: %s\n", err);
        goto done;
    }
    const int64_t wshape[4] = {-1, xa.shape[1], 3, 3};
    if (npy_expect_shape(&wa, weight, 4, wshape, "weight (Cout, Cin, 3, 3)", err, sizeof err) != 0) {
        fprintf(stderr, "cgp run: %s\n", err);
        goto done;
    }
    const int64_t bshape[1] = {wa.shape[0]};
    if (npy_expect_shape(&ba, bias, 1, bshape, "bias (Cout,)", err, sizeof err) != 0) {
        fprintf(stderr, "cgp run: %s\n", err);
        goto done;
    }
    const cgp_shape s = {xa.shape[0], xa.shape[1], wa.shape[0], xa.shape[2], xa.shape[3]};
    if (s.n < 1 || s.cin < 1 || s.cout < 1 || cgp_output_height(&s, (cgp_padding)po.padding) < 1 ||
        cgp_output_width(&s, (cgp_padding)po.padding) < 1) {
        fprintf(stderr, "cgp run: %s: input of shape (%lld, %lld, %lld, %lld) gives no output pixel with padding %s "
                        "(every dimension must be >= 1%s)\n",
                input, (long long)s.n, (long long)s.cin, (long long)s.h, (long long)s.w, cli_padding_names[po.padding],
                po.padding == 0 ? ", H and W >= 3" : "");
        goto done;
    }
    if (!cli_require_device("cgp run")) {
        rc = EXIT_FAIL;
        goto done;
    }
    float *y_host = malloc((size_t)(s.n * s.cout) * sizeof(float));
    if (!y_host) {
        fprintf(stderr, "cgp run: out of host memory for the output\n");
        rc = EXIT_FAIL;
        goto done;
    }
    const cgp_options o = cli_options(&po);
    rc = run_on_device(&xa, &wa, &ba, &s, &o, y_host);
    if (rc == EXIT_OK) {
        const int64_t yshape[2] = {s.n, s.cout};
        if (npy_write_f32(output, y_host, 2, yshape, err, sizeof err) != 0) {
            fprintf(stderr, "cgp run: %s\n", err);
            rc = EXIT_BAD_INPUT;
        }
    }
    free(y_host);
done:
    npy_free(&xa);
    npy_free(&wa);
    npy_free(&ba);
    return rc;
}
