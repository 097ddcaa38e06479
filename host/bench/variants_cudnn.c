/*
 * variants_cudnn.c - the "cudnn" bench family: cuDNN's legacy convolution API, unfused.
 *     cudnnConvolutionForward (NCHW fp32) -> intermediate (N, Cout, Hout, Wout) in device memory
 *     -> baseline_bias_gelu_mean (kernels/bench/baseline_epilogue.cu): bias + GELU + mean, one pass.
 * Four rows, the algorithm of each chosen by cudnnFindConvolutionForwardAlgorithmEx timing every
 * algorithm on the real buffers:
 *     "cudnn legacy fp32"      CUDNN_FMA_MATH: FFMA only, strict fp32
 *     "cudnn legacy tf32"      CUDNN_DEFAULT_MATH: tensor cores with TF32 allowed (whether it ran TF32 its
 *                              check says: bench.c notes a row whose error shows no TF32 rounding)
 *     "cudnn conv alone fp32"  the same convolutions alone (family "cudnn-conv", timing-only): no bias, GELU or
 *     "cudnn conv alone tf32"  mean, the bar a fused kernel must clear for its fusion to be free
 * The rows share one handle, the intermediate and the workspace (rows never run concurrently).
 * In a build without cuDNN both rows are unavailable. Run by `cgp bench` (--baselines cudnn),
 * checked in tests/gpu/gpu_baselines.c; docs/comparison.md explains the numbers.
 */
#include <limits.h>
#include <stdlib.h>

#include "baselines.h"

#define LEGACY_ROWS 4
#define LEGACY_FULL_ROWS 2 /* the first two run the whole function; the others the convolution alone */

static const char *const legacy_names[LEGACY_ROWS] = {"cudnn legacy fp32", "cudnn legacy tf32",
                                                      "cudnn conv alone fp32", "cudnn conv alone tf32"};
static const char *const legacy_families[LEGACY_ROWS] = {"cudnn", "cudnn", "cudnn-conv", "cudnn-conv"};
static const bench_precision legacy_precisions[LEGACY_ROWS] = {BENCH_PRECISION_FP32, BENCH_PRECISION_TF32,
                                                               BENCH_PRECISION_NONE, BENCH_PRECISION_NONE};

#if !CGP_HAVE_CUDNN

int variants_cudnn(const bench_problem *p, bench_variant *out, int *count, int max)
{
    (void)p;
    if (baseline_reserve_rows("cudnn", *count, max, LEGACY_ROWS) != 0)
        return 1;
    for (int i = 0; i < LEGACY_ROWS; ++i) {
        bench_variant *v = &out[(*count)++];
        baseline_row_init(v, legacy_names[i], legacy_families[i], legacy_precisions[i]);
        baseline_row_unavailable(v, BASELINE_NO_CUDNN_REASON);
    }
    return 0;
}

#else

/* Find gets at most this much workspace (the largest any algorithm asks for, if smaller). */
#define LEGACY_FIND_WORKSPACE_CAP ((size_t)8 << 30)

static const cudnnMathType_t legacy_math[LEGACY_ROWS] = {CUDNN_FMA_MATH, CUDNN_DEFAULT_MATH, CUDNN_FMA_MATH,
                                                        CUDNN_DEFAULT_MATH};

typedef struct legacy_shared {
    cudnnHandle_t handle;
    cudnnTensorDescriptor_t x_desc, y_desc;
    cudnnFilterDescriptor_t w_desc;
    float *intermediate;
    size_t intermediate_bytes;
    void *workspace;
    size_t workspace_bytes;
    int64_t planes, plane_size, cout;
    int refs; /* available rows still holding it */
} legacy_shared;

typedef struct legacy_row {
    legacy_shared *shared;
    cudnnConvolutionDescriptor_t conv;
    cudnnConvolutionFwdAlgoPerf_t perf; /* what Find chose */
} legacy_row;

static const char *algo_name(cudnnConvolutionFwdAlgo_t a)
{
    switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "CUDNN_CONVOLUTION_FWD_ALGO_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "CUDNN_CONVOLUTION_FWD_ALGO_DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "CUDNN_CONVOLUTION_FWD_ALGO_FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED";
    default: return "unknown algorithm";
    }
}

static const char *math_name(cudnnMathType_t m)
{
    switch (m) {
    case CUDNN_DEFAULT_MATH: return "CUDNN_DEFAULT_MATH";
    case CUDNN_TENSOR_OP_MATH: return "CUDNN_TENSOR_OP_MATH";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION";
    case CUDNN_FMA_MATH: return "CUDNN_FMA_MATH";
    default: return "unknown math type";
    }
}

static void legacy_shared_release(legacy_shared *sh)
{
    if (!sh || --sh->refs > 0)
        return;
    if (sh->workspace)
        CUDA_WARN(cudaFree(sh->workspace));
    if (sh->intermediate)
        CUDA_WARN(cudaFree(sh->intermediate));
    if (sh->x_desc)
        CUDNN_WARN(cudnnDestroyTensorDescriptor(sh->x_desc));
    if (sh->y_desc)
        CUDNN_WARN(cudnnDestroyTensorDescriptor(sh->y_desc));
    if (sh->w_desc)
        CUDNN_WARN(cudnnDestroyFilterDescriptor(sh->w_desc));
    if (sh->handle) {
        CUDNN_WARN(cudnnSetStream(sh->handle, NULL)); /* the last run's stream may be gone */
        CUDNN_WARN(cudnnDestroy(sh->handle));
    }
    free(sh);
}

/* Handle, descriptors and the intermediate; NULL with the reason in why on failure. */
static legacy_shared *legacy_shared_create(const bench_problem *p, char *why, size_t why_size)
{
    const cgp_shape *s = &p->shape;
    if (s->n > INT_MAX || s->cin > INT_MAX || s->cout > INT_MAX || s->h > INT_MAX || s->w > INT_MAX) {
        snprintf(why, why_size, "a dimension exceeds the int range of the legacy cuDNN API");
        return NULL;
    }
    legacy_shared *sh = calloc(1, sizeof *sh);
    if (!sh) {
        snprintf(why, why_size, "out of host memory");
        return NULL;
    }
    sh->refs = 1;
    sh->cout = s->cout;
    sh->planes = s->n * s->cout;
    sh->plane_size = p->hout * p->wout;
    sh->intermediate_bytes = (size_t)(sh->planes * sh->plane_size) * sizeof(float);
    CUDNN_TRY(why, why_size, "cuDNN handle", cudnnCreate(&sh->handle));
    CUDNN_TRY(why, why_size, "x descriptor", cudnnCreateTensorDescriptor(&sh->x_desc));
    CUDNN_TRY(why, why_size, "x descriptor",
              cudnnSetTensor4dDescriptor(sh->x_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)s->n, (int)s->cin,
                                         (int)s->h, (int)s->w));
    CUDNN_TRY(why, why_size, "w descriptor", cudnnCreateFilterDescriptor(&sh->w_desc));
    CUDNN_TRY(why, why_size, "w descriptor",
              cudnnSetFilter4dDescriptor(sh->w_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, (int)s->cout, (int)s->cin,
                                         3, 3));
    CUDNN_TRY(why, why_size, "y descriptor", cudnnCreateTensorDescriptor(&sh->y_desc));
    CUDNN_TRY(why, why_size, "y descriptor",
              cudnnSetTensor4dDescriptor(sh->y_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)s->n, (int)s->cout,
                                         (int)p->hout, (int)p->wout));
    if (baseline_device_alloc((void **)&sh->intermediate, sh->intermediate_bytes, "NCHW fp32 intermediate", why,
                              why_size) != 0)
        goto fail;
    return sh;
fail:
    legacy_shared_release(sh);
    return NULL;
}

/* The convolution descriptor of one row and Find's choice for it; -1 with the reason on failure. */
static int legacy_row_find(legacy_shared *sh, const bench_problem *p, cudnnMathType_t math, legacy_row *row,
                           int *tried, char *why, size_t why_size)
{
    const int pad = p->padding == CGP_PADDING_SAME ? 1 : 0;
    void *find_workspace = NULL;
    cudnnConvolutionFwdAlgoPerf_t *perf = NULL;
    CUDNN_TRY(why, why_size, "conv descriptor", cudnnCreateConvolutionDescriptor(&row->conv));
    CUDNN_TRY(why, why_size, "conv descriptor",
              cudnnSetConvolution2dDescriptor(row->conv, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                              CUDNN_DATA_FLOAT));
    CUDNN_TRY(why, why_size, "conv descriptor", cudnnSetConvolutionMathType(row->conv, math));
    int on, oc, oh, ow;
    CUDNN_TRY(why, why_size, "output size",
              cudnnGetConvolution2dForwardOutputDim(row->conv, sh->x_desc, sh->w_desc, &on, &oc, &oh, &ow));
    if (on != p->shape.n || oc != p->shape.cout || oh != p->hout || ow != p->wout) {
        snprintf(why, why_size, "cuDNN output size %dx%dx%dx%d differs from the problem's %lldx%lldx%lldx%lld", on,
                 oc, oh, ow, (long long)p->shape.n, (long long)p->shape.cout, (long long)p->hout,
                 (long long)p->wout);
        goto fail;
    }

    /* Find's workspace: the most any algorithm asks for (those it does not support just say so). */
    size_t want = 0;
    for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++a) {
        size_t bytes = 0;
        if (cudnnGetConvolutionForwardWorkspaceSize(sh->handle, sh->x_desc, sh->w_desc, row->conv, sh->y_desc,
                                                    (cudnnConvolutionFwdAlgo_t)a, &bytes) == CUDNN_STATUS_SUCCESS &&
            bytes > want)
            want = bytes;
    }
    size_t find_bytes = want < LEGACY_FIND_WORKSPACE_CAP ? want : LEGACY_FIND_WORKSPACE_CAP;
    if (find_bytes > 0 && baseline_device_alloc(&find_workspace, find_bytes, "find workspace", why, why_size) != 0) {
        find_bytes = 0; /* Find then times only the algorithms that need none */
        find_workspace = NULL;
    }

    int max_algos = 0;
    CUDNN_TRY(why, why_size, "algorithm count", cudnnGetConvolutionForwardAlgorithmMaxCount(sh->handle, &max_algos));
    perf = calloc((size_t)(max_algos > 0 ? max_algos : 1), sizeof *perf);
    if (!perf) {
        snprintf(why, why_size, "out of host memory");
        goto fail;
    }
    int returned = 0;
    CUDNN_TRY(why, why_size, "find algorithm",
              cudnnFindConvolutionForwardAlgorithmEx(sh->handle, sh->x_desc, p->x, sh->w_desc, p->w, row->conv,
                                                     sh->y_desc, sh->intermediate, max_algos, &returned, perf,
                                                     find_workspace, find_bytes));
    *tried = returned;
    int chosen = -1;
    for (int i = 0; i < returned && chosen < 0; ++i) /* sorted fastest first */
        if (perf[i].status == CUDNN_STATUS_SUCCESS && (math != CUDNN_FMA_MATH || perf[i].mathType == CUDNN_FMA_MATH))
            chosen = i;
    if (chosen < 0) {
        snprintf(why, why_size,
                 "cudnnFindConvolutionForwardAlgorithmEx found no algorithm that runs with %s (%d tried, %zu B "
                 "workspace offered of %zu B the largest asks for)",
                 math_name(math), returned, find_bytes, want);
        goto fail;
    }
    row->perf = perf[chosen];
    /* run exactly what Find timed */
    CUDNN_TRY(why, why_size, "conv descriptor", cudnnSetConvolutionMathType(row->conv, row->perf.mathType));
    if (find_workspace)
        CUDA_WARN(cudaFree(find_workspace));
    free(perf);
    return 0;
fail:
    if (find_workspace)
        CUDA_WARN(cudaFree(find_workspace));
    free(perf);
    if (row->conv)
        CUDNN_WARN(cudnnDestroyConvolutionDescriptor(row->conv));
    row->conv = NULL;
    return -1;
}

/* the convolution into the intermediate */
static int legacy_conv_run(bench_variant *v, const bench_problem *p, cudaStream_t s)
{
    const legacy_row *row = v->state;
    const legacy_shared *sh = row->shared;
    const float one = 1.0f, zero = 0.0f;
    CUDNN_RUN(v->name, cudnnSetStream(sh->handle, s));
    CUDNN_RUN(v->name, cudnnConvolutionForward(sh->handle, &one, sh->x_desc, p->x, sh->w_desc, p->w, row->conv,
                                               row->perf.algo, sh->workspace, row->perf.memory, &zero, sh->y_desc,
                                               sh->intermediate));
    return 0;
}

/* the convolution, then bias + GELU + mean */
static int legacy_run(bench_variant *v, const bench_problem *p, cudaStream_t s)
{
    if (legacy_conv_run(v, p, s) != 0)
        return 1;
    const legacy_shared *sh = ((const legacy_row *)v->state)->shared;
    CUDA_RUN(v->name,
             baseline_bias_gelu_mean(sh->intermediate, p->b, p->y, sh->planes, sh->cout, sh->plane_size, s));
    return 0;
}

static void legacy_destroy(bench_variant *v)
{
    legacy_row *row = v->state;
    if (!row)
        return;
    CUDNN_WARN(cudnnDestroyConvolutionDescriptor(row->conv));
    legacy_shared_release(row->shared);
    free(row);
    v->state = NULL;
}

int variants_cudnn(const bench_problem *p, bench_variant *out, int *count, int max)
{
    if (baseline_reserve_rows("cudnn", *count, max, LEGACY_ROWS) != 0)
        return 1;
    bench_variant *rows = &out[*count];
    *count += LEGACY_ROWS;
    for (int i = 0; i < LEGACY_ROWS; ++i)
        baseline_row_init(&rows[i], legacy_names[i], legacy_families[i], legacy_precisions[i]);

    char why[sizeof rows[0].unavailable];
    legacy_shared *sh = legacy_shared_create(p, why, sizeof why);
    if (!sh) {
        for (int i = 0; i < LEGACY_ROWS; ++i)
            baseline_row_unavailable(&rows[i], "%s", why);
        return 0;
    }

    const cgp_shape *s = &p->shape;
    size_t workspace_bytes = 0;
    for (int i = 0; i < LEGACY_ROWS; ++i) {
        bench_variant *v = &rows[i];
        legacy_row *row = calloc(1, sizeof *row);
        int tried = 0;
        if (!row) {
            baseline_row_unavailable(v, "out of host memory");
            continue;
        }
        if (legacy_row_find(sh, p, legacy_math[i], row, &tried, why, sizeof why) != 0) {
            free(row);
            baseline_row_unavailable(v, "%s", why);
            continue;
        }
        row->shared = sh;
        sh->refs++;
        if (row->perf.memory > workspace_bytes)
            workspace_bytes = row->perf.memory;
        const int full = i < LEGACY_FULL_ROWS;
        snprintf(v->detail, sizeof v->detail,
                 "%s (fastest of %d by Find, %.3f ms), math %s requested, %s run; workspace %zu B; intermediate "
                 "%zu B written%s (NCHW fp32)%s",
                 algo_name(row->perf.algo), tried, (double)row->perf.time, math_name(legacy_math[i]),
                 math_name(row->perf.mathType), row->perf.memory, sh->intermediate_bytes, full ? " + read" : "",
                 full ? "; then bias+GELU+mean kernel" : "; no bias, GELU or mean");
        v->bytes_moved = baseline_fp32_bytes(s->n * s->cin * s->h * s->w) +
                         baseline_fp32_bytes(s->cout * s->cin * 9 + (full ? s->cout : 0)) +
                         (full ? 2.0 : 1.0) * (double)sh->intermediate_bytes +
                         (full ? baseline_fp32_bytes(s->n * s->cout) : 0.0);
        v->state = row;
        v->run = full ? legacy_run : legacy_conv_run;
        v->destroy = legacy_destroy;
    }

    if (workspace_bytes > 0 &&
        baseline_device_alloc(&sh->workspace, workspace_bytes, "convolution workspace", why, sizeof why) != 0) {
        for (int i = 0; i < LEGACY_ROWS; ++i)
            if (rows[i].state) {
                legacy_destroy(&rows[i]);
                baseline_row_unavailable(&rows[i], "%s", why);
            }
    }
    legacy_shared_release(sh); /* the creation reference; the rows keep theirs */
    return 0;
}

#endif /* CGP_HAVE_CUDNN */
