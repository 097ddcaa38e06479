/*
 * baselines.h - what the baseline bench rows share (host/bench/variants_cudnn.c,
 * host/bench/variants_cudnn_graph.c, host/bench/variants_unfused.c; docs/comparison.md says what each row
 * measures): the launchers of the baseline kernels in kernels/baseline_*.cu, row and memory
 * helpers (host/bench/baselines.c) and the cuDNN error checks.
 *
 * Every launcher is asynchronous on stream s and returns the launch error (cudaSuccess, or
 * cudaErrorInvalidValue for sizes it cannot launch).
 */
#ifndef CGP_BASELINES_H
#define CGP_BASELINES_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* kernels/bench/baseline_epilogue.cu: one block per plane of `planes` contiguous planes of plane_size
 * floats (an NCHW tensor has N * C planes of H * W), read once with 16-byte loads, summed in a
 * fixed order (bit-identical run to run):
 *   baseline_bias_gelu_mean: y[p] = mean over plane p of gelu_fast(in + bias[p % cout])
 *   baseline_plane_mean:     y[p] = mean over plane p of in                               */
cudaError_t baseline_bias_gelu_mean(const float *in, const float *bias, float *y, int64_t planes, int64_t cout,
                                    int64_t plane_size, cudaStream_t s);
cudaError_t baseline_plane_mean(const float *in, float *y, int64_t planes, int64_t plane_size, cudaStream_t s);

/* kernels/bench/baseline_layout.cu: dst (n, hw, c) = src (n, c, hw); NCHW -> NHWC for activations,
 * and (K, C, 3, 3) -> (K, 3, 3, C) for weights with n = K, hw = 9. */
cudaError_t baseline_nchw_to_nhwc(const float *src, float *dst, int64_t n, int64_t c, int64_t hw, cudaStream_t s);

/* kernels/bench/baseline_unfused.cu: the plain CUDA pipeline.
 * baseline_direct_conv_bias: out (n, cout, hout, wout) = conv3x3(x, w) + b, one thread per output,
 *   fp32 FMA in (ci, ky, kx) order. baseline_gelu_inplace: data[i] = gelu_fast(data[i]); data
 *   16-byte aligned. */
cudaError_t baseline_direct_conv_bias(const float *x, const float *w, const float *b, float *out, int64_t n,
                                      int64_t cin, int64_t cout, int64_t h, int64_t wd, int pad, cudaStream_t s);
cudaError_t baseline_gelu_inplace(float *data, int64_t count, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#ifndef __CUDACC__ /* the rest is host code */

#include <stdio.h>
#include "variants.h"

/* The reason every cuDNN row gives in a build without cuDNN. */
#define BASELINE_NO_CUDNN_REASON "built without cuDNN (USE_CUDNN=0 or cuDNN not found at build time)"

/* Checks that out[*count] has room for `rows` more rows; prints why not and returns -1. */
int baseline_reserve_rows(const char *family, int count, int max, int rows);
/* Zeroes v and sets its labels. */
void baseline_row_init(bench_variant *v, const char *name, const char *family, bench_precision precision);
/* Marks v unavailable with a printf-style reason (run, destroy and state cleared). */
void baseline_row_unavailable(bench_variant *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* cudaMalloc of `bytes` for `what`, after checking free device memory. On failure returns -1 with
 * "<what> needs <bytes> B (<GiB>), <free> B free" or the CUDA error in why[0..why_size). */
int baseline_device_alloc(void **ptr, size_t bytes, const char *what, char *why, size_t why_size);
/* Bytes of an fp32 tensor with `count` elements, as the bench counts them. */
double baseline_fp32_bytes(int64_t count);

/* "<step>: <call> at <file>:<line>: <error name>: <error string>" into why[0..why_size). */
void baseline_cuda_describe(char *why, size_t why_size, const char *step, const char *call, const char *file,
                            int line, cudaError_t err);

/* Setup code: on a failing CUDA call, describe it into why[0..why_size) and goto fail. */
#define CUDA_TRY(why, why_size, step, call)                                                                \
    do {                                                                                                   \
        cudaError_t cuda_try_err_ = (call);                                                                \
        if (cuda_try_err_ != cudaSuccess) {                                                                \
            baseline_cuda_describe((why), (why_size), (step), #call, __FILE__, __LINE__, cuda_try_err_);   \
            goto fail;                                                                                     \
        }                                                                                                  \
    } while (0)

/* run(): on a failing CUDA call, print it (naming the row) and return 1. */
#define CUDA_RUN(row, call)                                                                                \
    do {                                                                                                   \
        cudaError_t cuda_run_err_ = (call);                                                                \
        if (cuda_run_err_ != cudaSuccess) {                                                                \
            char cuda_run_why_[512];                                                                       \
            baseline_cuda_describe(cuda_run_why_, sizeof cuda_run_why_, (row), #call, __FILE__, __LINE__,  \
                                   cuda_run_err_);                                                         \
            fprintf(stderr, "cgp: CUDA error in %s\n", cuda_run_why_);                                     \
            return 1;                                                                                      \
        }                                                                                                  \
    } while (0)

/* Teardown: a failing CUDA call is printed and teardown goes on. */
#define CUDA_WARN(call)                                                                                    \
    do {                                                                                                   \
        cudaError_t cuda_warn_err_ = (call);                                                               \
        if (cuda_warn_err_ != cudaSuccess) {                                                               \
            char cuda_warn_why_[512];                                                                      \
            baseline_cuda_describe(cuda_warn_why_, sizeof cuda_warn_why_, "teardown", #call, __FILE__,     \
                                   __LINE__, cuda_warn_err_);                                              \
            fprintf(stderr, "cgp: warning: CUDA error in %s\n", cuda_warn_why_);                           \
        }                                                                                                  \
    } while (0)

#if CGP_HAVE_CUDNN
#include <cudnn.h>

/* "<step>: <call> at <file>:<line>: <cudnnGetErrorString> (<cudnnGetLastErrorString>)" into
 * why[0..why_size); step may be NULL. */
void baseline_cudnn_describe(char *why, size_t why_size, const char *step, const char *call, const char *file,
                             int line, cudnnStatus_t status);

/* Setup code: on a failing cuDNN call, describe it into why[0..why_size) and goto fail. */
#define CUDNN_TRY(why, why_size, step, call)                                                               \
    do {                                                                                                   \
        cudnnStatus_t cudnn_try_st_ = (call);                                                              \
        if (cudnn_try_st_ != CUDNN_STATUS_SUCCESS) {                                                       \
            baseline_cudnn_describe((why), (why_size), (step), #call, __FILE__, __LINE__, cudnn_try_st_);  \
            goto fail;                                                                                     \
        }                                                                                                  \
    } while (0)

/* run(): on a failing cuDNN call, print it (naming the row) and return 1. */
#define CUDNN_RUN(row, call)                                                                               \
    do {                                                                                                   \
        cudnnStatus_t cudnn_run_st_ = (call);                                                              \
        if (cudnn_run_st_ != CUDNN_STATUS_SUCCESS) {                                                       \
            char cudnn_run_why_[512];                                                                      \
            baseline_cudnn_describe(cudnn_run_why_, sizeof cudnn_run_why_, (row), #call, __FILE__,         \
                                    __LINE__, cudnn_run_st_);                                              \
            fprintf(stderr, "cgp: cuDNN error in %s\n", cudnn_run_why_);                                   \
            return 1;                                                                                      \
        }                                                                                                  \
    } while (0)

/* Teardown: a failing cuDNN call is printed and teardown goes on. */
#define CUDNN_WARN(call)                                                                                   \
    do {                                                                                                   \
        cudnnStatus_t cudnn_warn_st_ = (call);                                                             \
        if (cudnn_warn_st_ != CUDNN_STATUS_SUCCESS) {                                                      \
            char cudnn_warn_why_[512];                                                                     \
            baseline_cudnn_describe(cudnn_warn_why_, sizeof cudnn_warn_why_, "teardown", #call, __FILE__,  \
                                    __LINE__, cudnn_warn_st_);                                             \
            fprintf(stderr, "cgp: warning: cuDNN error in %s\n", cudnn_warn_why_);                         \
        }                                                                                                  \
    } while (0)
#endif /* CGP_HAVE_CUDNN */

#endif /* !__CUDACC__ */
#endif /* CGP_BASELINES_H */
