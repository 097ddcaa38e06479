/*
 * variants_cudnn_graph.c - the "cudnn-graph" bench family: cuDNN's graph (backend) API asked to
 * do the whole operation as one fused graph on channels-last tensors,
 *
 *     x (N,Cin,H,W) NHWC --+
 *     w (Cout,Cin,3,3) KRSC +-> conv fprop -> [conv] -> add bias -> [biased] -> GELU (erf)
 *        -> [gelu] -> mul 1/(Hout*Wout) -> [scaled] -> reduction ADD -> y (N,Cout,1,1)
 *
 * ([..]: virtual tensors, never stored). Three rows:
 *     "layout NCHW->NHWC"  our kernel converting x to NHWC (kernels/bench/baseline_layout.cu); timing
 *                          only, it writes no y (BENCH_PRECISION_NONE)
 *     "cudnn graph fp32"   an engine without TENSOR_CORE / DOWN_CONVERT_INPUTS /
 *                          REDUCED_PRECISION_REDUCTION numerical notes
 *     "cudnn graph tf32"   an engine with the TENSOR_CORE note (fp32 data: TF32)
 * A graph row's run() converts x to NHWC, zeroes y (the reduction may accumulate into it) and
 * executes the plan, so it compares whole pipelines from the same NCHW input. The weights are
 * converted to KRSC once at setup (again if run() is given another weight pointer).
 * Engine configs come from heuristics modes A and FALLBACK; per row, up to GRAPH_MAX_TRIES plans
 * are finalized and up to GRAPH_MAX_TUNED of them timed, the fastest kept. Whatever cuDNN
 * refuses makes the row unavailable with the step and cuDNN's status and message.
 * Run by `cgp bench` (--baselines cudnn-graph), checked in tests/gpu/gpu_baselines.c.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"

#define GRAPH_ROWS 3

static const char *const graph_names[GRAPH_ROWS] = {"layout NCHW->NHWC", "cudnn graph fp32", "cudnn graph tf32"};
static const bench_precision graph_precisions[GRAPH_ROWS] = {BENCH_PRECISION_NONE, BENCH_PRECISION_FP32,
                                                              BENCH_PRECISION_TF32};

#if !CGP_HAVE_CUDNN

int variants_cudnn_graph(const bench_problem *p, bench_variant *out, int *count, int max)
{
    (void)p;
    if (baseline_reserve_rows("cudnn-graph", *count, max, GRAPH_ROWS) != 0)
        return 1;
    for (int i = 0; i < GRAPH_ROWS; ++i) {
        bench_variant *v = &out[(*count)++];
        baseline_row_init(v, graph_names[i], "cudnn-graph", graph_precisions[i]);
        baseline_row_unavailable(v, BASELINE_NO_CUDNN_REASON);
    }
    return 0;
}

#else

#define GRAPH_MAX_CONFIGS 64 /* engine configs kept from the heuristics */
#define GRAPH_MAX_TRIES 4    /* plans finalized per row at most (runtime-compiled engines compile here) */
#define GRAPH_MAX_TUNED 2    /* finalized plans timed per row; the fastest is kept */
#define GRAPH_TUNE_RUNS 3

/* tensor indices; a tensor's cuDNN unique id is its index + 1 */
enum { T_X, T_W, T_CONV, T_BIAS, T_BIASED, T_GELU, T_SCALE, T_SCALED, T_Y, GRAPH_TENSORS };
static const char *const tensor_names[GRAPH_TENSORS] = {"x",    "w",     "conv",   "bias", "biased",
                                                        "gelu", "scale", "scaled", "y"};
enum { OP_CONV, OP_ADD, OP_GELU, OP_MUL, OP_REDUCE, GRAPH_OPS };
enum { PW_ADD, PW_GELU, PW_MUL, GRAPH_POINTWISE };

#define NOTE_BIT(note) (1u << (unsigned)(note))
#define NOT_STRICT_FP32                                                                                    \
    (NOTE_BIT(CUDNN_NUMERICAL_NOTE_TENSOR_CORE) | NOTE_BIT(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) |     \
     NOTE_BIT(CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION))

typedef struct graph_shared {
    cudnnHandle_t handle;
    cudnnBackendDescriptor_t tensors[GRAPH_TENSORS], pointwise[GRAPH_POINTWISE], conv, reduction;
    cudnnBackendDescriptor_t ops[GRAPH_OPS], op_graph;
    float *x_nhwc, *w_krsc, *scale;
    const float *w_converted_from; /* the weights w_krsc holds */
    int64_t n, cin, cout, h, w, hout, wout;
    int64_t bias_alignment, y_alignment; /* bytes, as declared in the graph */
    int refs;                            /* available rows still holding it */
} graph_shared;

typedef struct engine_candidate {
    cudnnBackendDescriptor_t cfg;
    int64_t engine_id;
    unsigned numerical_notes, behavior_notes; /* NOTE_BIT(note) for each note */
    char tag[96];                             /* eng<id>_k<knob type>=<value>... */
    const char *heuristic;                    /* "A" or "FALLBACK" */
    int rank;                                 /* position in that heuristic's list */
} engine_candidate;

typedef struct graph_row {
    graph_shared *shared;
    cudnnBackendDescriptor_t cfg, plan, pack; /* all NULL for the layout row */
    void *workspace;
    int64_t workspace_bytes;
    const float *pack_bias; /* the pointers the variant pack holds */
    float *pack_y;
} graph_row;

/* ---- small helpers ---- */

static int64_t pointer_alignment(const void *ptr)
{
    int64_t alignment = 16;
    while (alignment > 1 && ((uintptr_t)ptr % (uintptr_t)alignment) != 0)
        alignment /= 2;
    return alignment;
}

static void append(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t size, const char *fmt, ...)
{
    const size_t used = strlen(buf);
    if (used + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

static void notes_text(unsigned numerical, unsigned behavior, char *buf, size_t size)
{
    /* names in cuDNN 9.19's order; older headers have fewer notes (the loops stop at the smaller) */
    static const char *const numerical_names[] = {
        "TENSOR_CORE", "DOWN_CONVERT_INPUTS", "REDUCED_PRECISION_REDUCTION", "FFT",
        "NONDETERMINISTIC", "WINOGRAD", "WINOGRAD_TILE_4x4", "WINOGRAD_TILE_6x6",
        "WINOGRAD_TILE_13x13", "STRICT_NAN_PROP"};
    static const char *const behavior_names[] = {
        "RUNTIME_COMPILATION", "REQUIRES_FILTER_INT8x32_REORDER", "REQUIRES_BIAS_INT8x32_REORDER",
        "SUPPORTS_CUDA_GRAPH_NATIVE_API", "CUBLASLT_DEPENDENCY"};
    buf[0] = '\0';
    const int numerical_count = (int)(sizeof numerical_names / sizeof numerical_names[0]);
    const int behavior_count = (int)(sizeof behavior_names / sizeof behavior_names[0]);
    for (int i = 0; i < CUDNN_NUMERICAL_NOTE_TYPE_COUNT && i < numerical_count; ++i)
        if (numerical & NOTE_BIT(i))
            append(buf, size, "%s%s", buf[0] ? "|" : "", numerical_names[i]);
    for (int i = 0; i < CUDNN_BEHAVIOR_NOTE_TYPE_COUNT && i < behavior_count; ++i)
        if (behavior & NOTE_BIT(i))
            append(buf, size, "%s%s", buf[0] ? "|" : "", behavior_names[i]);
    if (!buf[0])
        snprintf(buf, size, "none");
}

static void destroy_descriptor(cudnnBackendDescriptor_t *d)
{
    if (*d)
        CUDNN_WARN(cudnnBackendDestroyDescriptor(*d));
    *d = NULL;
}

/* ---- the operation graph ---- */

static void graph_shared_release(graph_shared *sh)
{
    if (!sh || --sh->refs > 0)
        return;
    destroy_descriptor(&sh->op_graph);
    for (int i = 0; i < GRAPH_OPS; ++i)
        destroy_descriptor(&sh->ops[i]);
    for (int i = 0; i < GRAPH_POINTWISE; ++i)
        destroy_descriptor(&sh->pointwise[i]);
    destroy_descriptor(&sh->conv);
    destroy_descriptor(&sh->reduction);
    for (int i = 0; i < GRAPH_TENSORS; ++i)
        destroy_descriptor(&sh->tensors[i]);
    if (sh->x_nhwc)
        CUDA_WARN(cudaFree(sh->x_nhwc));
    if (sh->w_krsc)
        CUDA_WARN(cudaFree(sh->w_krsc));
    if (sh->scale)
        CUDA_WARN(cudaFree(sh->scale));
    if (sh->handle) {
        CUDNN_WARN(cudnnSetStream(sh->handle, NULL)); /* the last run's stream may be gone */
        CUDNN_WARN(cudnnDestroy(sh->handle));
    }
    free(sh);
}

/* Handle, the NHWC copy of x, the KRSC weights and the 1/(Hout*Wout) scale; NULL and why on failure. */
static graph_shared *graph_shared_create(const bench_problem *p, char *why, size_t why_size)
{
    const cgp_shape *s = &p->shape;
    float *scale_host = NULL;
    graph_shared *sh = calloc(1, sizeof *sh);
    if (!sh) {
        snprintf(why, why_size, "out of host memory");
        return NULL;
    }
    sh->refs = 1;
    sh->n = s->n;
    sh->cin = s->cin;
    sh->cout = s->cout;
    sh->h = s->h;
    sh->w = s->w;
    sh->hout = p->hout;
    sh->wout = p->wout;
    CUDNN_TRY(why, why_size, "cuDNN handle", cudnnCreate(&sh->handle));
    if (baseline_device_alloc((void **)&sh->x_nhwc, (size_t)(s->n * s->h * s->w * s->cin) * sizeof(float),
                              "NHWC copy of x", why, why_size) != 0 ||
        baseline_device_alloc((void **)&sh->w_krsc, (size_t)(s->cout * 9 * s->cin) * sizeof(float),
                              "KRSC copy of w", why, why_size) != 0 ||
        baseline_device_alloc((void **)&sh->scale, (size_t)s->cout * sizeof(float), "scale", why, why_size) != 0)
        goto fail;
    CUDA_TRY(why, why_size, "weights to KRSC", baseline_nchw_to_nhwc(p->w, sh->w_krsc, s->cout, s->cin, 9, 0));
    sh->w_converted_from = p->w;
    scale_host = malloc((size_t)s->cout * sizeof(float));
    if (!scale_host) {
        snprintf(why, why_size, "out of host memory");
        goto fail;
    }
    for (int64_t c = 0; c < s->cout; ++c)
        scale_host[c] = (float)(1.0 / ((double)p->hout * (double)p->wout));
    CUDA_TRY(why, why_size, "scale",
             cudaMemcpy(sh->scale, scale_host, (size_t)s->cout * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_TRY(why, why_size, "weights to KRSC", cudaDeviceSynchronize());
    free(scale_host);
    return sh;
fail:
    free(scale_host);
    graph_shared_release(sh);
    return NULL;
}

static int make_tensor(graph_shared *sh, int index, const int64_t dims[4], const int64_t strides[4], bool is_virtual,
                       int64_t alignment, char *why, size_t why_size)
{
    char step[64];
    snprintf(step, sizeof step, "graph: tensor %s (uid %d)", tensor_names[index], index + 1);
    const int64_t uid = index + 1;
    const cudnnDataType_t type = CUDNN_DATA_FLOAT;
    cudnnBackendDescriptor_t *t = &sh->tensors[index];
    CUDNN_TRY(why, why_size, step, cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, t));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual));
    CUDNN_TRY(why, why_size, step, cudnnBackendFinalize(*t));
    return 0;
fail:
    return -1;
}

/* y = mode(x) or y = mode(x, b) (b < 0: unary) */
static int make_pointwise(graph_shared *sh, int pw, int op, cudnnPointwiseMode_t mode, int x, int b, int y,
                          char *why, size_t why_size)
{
    char step[64];
    snprintf(step, sizeof step, "graph: pointwise %s -> %s", tensor_names[x], tensor_names[y]);
    const cudnnDataType_t precision = CUDNN_DATA_FLOAT;
    cudnnBackendDescriptor_t *d = &sh->pointwise[pw], *o = &sh->ops[op];
    CUDNN_TRY(why, why_size, step, cudnnBackendCreateDescriptor(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, d));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(*d, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(*d, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &precision));
    CUDNN_TRY(why, why_size, step, cudnnBackendFinalize(*d));
    CUDNN_TRY(why, why_size, step, cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, o));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(*o, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR,
                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, d));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(*o, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                       &sh->tensors[x]));
    if (b >= 0)
        CUDNN_TRY(why, why_size, step,
                  cudnnBackendSetAttribute(*o, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                           1, &sh->tensors[b]));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(*o, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                       &sh->tensors[y]));
    CUDNN_TRY(why, why_size, step, cudnnBackendFinalize(*o));
    return 0;
fail:
    return -1;
}

/* The five-operation graph, finalized; -1 and why (which step cuDNN refused) on failure. */
static int build_graph(graph_shared *sh, const bench_problem *p, char *why, size_t why_size)
{
    const int64_t n = sh->n, cin = sh->cin, cout = sh->cout, h = sh->h, w = sh->w, ho = sh->hout, wo = sh->wout;
    const int64_t pad = p->padding == CGP_PADDING_SAME ? 1 : 0;
    /* logical dims are always (N, C, H, W); the strides make every 4-d tensor channels-last */
    const int64_t x_dims[4] = {n, cin, h, w}, x_strides[4] = {h * w * cin, 1, w * cin, cin};
    const int64_t w_dims[4] = {cout, cin, 3, 3}, w_strides[4] = {9 * cin, 1, 3 * cin, cin};
    const int64_t o_dims[4] = {n, cout, ho, wo}, o_strides[4] = {ho * wo * cout, 1, wo * cout, cout};
    const int64_t c_dims[4] = {1, cout, 1, 1}, c_strides[4] = {cout, 1, cout, cout};
    const int64_t y_dims[4] = {n, cout, 1, 1}, y_strides[4] = {cout, 1, cout, cout};
    sh->bias_alignment = pointer_alignment(p->b);
    sh->y_alignment = pointer_alignment(p->y);
    if (make_tensor(sh, T_X, x_dims, x_strides, false, 16, why, why_size) != 0 ||
        make_tensor(sh, T_W, w_dims, w_strides, false, 16, why, why_size) != 0 ||
        make_tensor(sh, T_CONV, o_dims, o_strides, true, 16, why, why_size) != 0 ||
        make_tensor(sh, T_BIAS, c_dims, c_strides, false, sh->bias_alignment, why, why_size) != 0 ||
        make_tensor(sh, T_BIASED, o_dims, o_strides, true, 16, why, why_size) != 0 ||
        make_tensor(sh, T_GELU, o_dims, o_strides, true, 16, why, why_size) != 0 ||
        make_tensor(sh, T_SCALE, c_dims, c_strides, false, 16, why, why_size) != 0 ||
        make_tensor(sh, T_SCALED, o_dims, o_strides, true, 16, why, why_size) != 0 ||
        make_tensor(sh, T_Y, y_dims, y_strides, false, sh->y_alignment, why, why_size) != 0)
        return -1;

    const char *step = "graph: convolution";
    const int64_t spatial_dims = 2, ones[2] = {1, 1}, pads[2] = {pad, pad};
    const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
    const cudnnConvolutionMode_t cross_correlation = CUDNN_CROSS_CORRELATION;
    const float alpha = 1.0f, beta = 0.0f;
    cudnnBackendDescriptor_t c, o;
    CUDNN_TRY(why, why_size, step, cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &sh->conv));
    c = sh->conv;
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial_dims));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1,
                                       &cross_correlation));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, ones));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, ones));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pads));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pads));
    CUDNN_TRY(why, why_size, step, cudnnBackendFinalize(c));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &sh->ops[OP_CONV]));
    o = sh->ops[OP_CONV];
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                       1, &sh->tensors[T_X]));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                       1, &sh->tensors[T_W]));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                       1, &sh->tensors[T_CONV]));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &sh->conv));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1,
                                       &alpha));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta));
    CUDNN_TRY(why, why_size, step, cudnnBackendFinalize(o));

    /* CUDNN_POINTWISE_GELU_FWD is the erf GELU (GELU_APPROX_TANH_FWD the tanh one): docs/comparison.md */
    if (make_pointwise(sh, PW_ADD, OP_ADD, CUDNN_POINTWISE_ADD, T_CONV, T_BIAS, T_BIASED, why, why_size) != 0 ||
        make_pointwise(sh, PW_GELU, OP_GELU, CUDNN_POINTWISE_GELU_FWD, T_BIASED, -1, T_GELU, why, why_size) != 0 ||
        make_pointwise(sh, PW_MUL, OP_MUL, CUDNN_POINTWISE_MUL, T_GELU, T_SCALE, T_SCALED, why, why_size) != 0)
        return -1;

    step = "graph: reduction";
    const cudnnReduceTensorOp_t add = CUDNN_REDUCE_TENSOR_ADD;
    CUDNN_TRY(why, why_size, step, cudnnBackendCreateDescriptor(CUDNN_BACKEND_REDUCTION_DESCRIPTOR, &sh->reduction));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(sh->reduction, CUDNN_ATTR_REDUCTION_OPERATOR,
                                       CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &add));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(sh->reduction, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32));
    CUDNN_TRY(why, why_size, step, cudnnBackendFinalize(sh->reduction));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, &sh->ops[OP_REDUCE]));
    o = sh->ops[OP_REDUCE];
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                       &sh->tensors[T_SCALED]));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                       &sh->tensors[T_Y]));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(o, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                       &sh->reduction));
    CUDNN_TRY(why, why_size, step, cudnnBackendFinalize(o));

    step = "graph: operation graph";
    CUDNN_TRY(why, why_size, step, cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &sh->op_graph));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(sh->op_graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                       GRAPH_OPS, sh->ops));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(sh->op_graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1,
                                       &sh->handle));
    CUDNN_TRY(why, why_size, step, cudnnBackendFinalize(sh->op_graph));
    return 0;
fail:
    return -1;
}

/* ---- engine configs ---- */

/* Engine id, numerical and behavior notes and the knob tag of one engine config. */
static int describe_candidate(engine_candidate *c, char *why, size_t why_size)
{
    const char *step = "engine config query";
    cudnnBackendDescriptor_t engine = NULL, knobs[CUDNN_KNOB_TYPE_COUNTS] = {0};
    int64_t got = 0;
    int status = -1;
    CUDNN_TRY(why, why_size, step, cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendGetAttribute(c->cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got,
                                       &engine));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &got,
                                       &c->engine_id));
    cudnnBackendNumericalNote_t numerical[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
    CUDNN_TRY(why, why_size, step,
              cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                       CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &got, numerical));
    c->numerical_notes = 0;
    for (int64_t i = 0; i < got && i < CUDNN_NUMERICAL_NOTE_TYPE_COUNT; ++i) {
        const int note = (int)numerical[i];
        if (note >= 0 && note < CUDNN_NUMERICAL_NOTE_TYPE_COUNT)
            c->numerical_notes |= NOTE_BIT(note);
    }
    cudnnBackendBehaviorNote_t behavior[CUDNN_BEHAVIOR_NOTE_TYPE_COUNT];
    CUDNN_TRY(why, why_size, step,
              cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
                                       CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, &got, behavior));
    c->behavior_notes = 0;
    for (int64_t i = 0; i < got && i < CUDNN_BEHAVIOR_NOTE_TYPE_COUNT; ++i) {
        const int note = (int)behavior[i];
        if (note >= 0 && note < CUDNN_BEHAVIOR_NOTE_TYPE_COUNT)
            c->behavior_notes |= NOTE_BIT(note);
    }

    snprintf(c->tag, sizeof c->tag, "eng%lld", (long long)c->engine_id);
    for (int i = 0; i < CUDNN_KNOB_TYPE_COUNTS; ++i)
        CUDNN_TRY(why, why_size, step, cudnnBackendCreateDescriptor(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &knobs[i]));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendGetAttribute(c->cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                       CUDNN_KNOB_TYPE_COUNTS, &got, knobs));
    for (int64_t i = 0; i < got && i < CUDNN_KNOB_TYPE_COUNTS; ++i) {
        cudnnBackendKnobType_t type;
        int64_t value, one;
        CUDNN_TRY(why, why_size, step,
                  cudnnBackendGetAttribute(knobs[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &one,
                                           &type));
        CUDNN_TRY(why, why_size, step,
                  cudnnBackendGetAttribute(knobs[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &one,
                                           &value));
        append(c->tag, sizeof c->tag, "_k%d=%lld", (int)type, (long long)value);
    }
    status = 0;
fail:
    for (int i = 0; i < CUDNN_KNOB_TYPE_COUNTS; ++i)
        destroy_descriptor(&knobs[i]);
    destroy_descriptor(&engine);
    return status;
}

/* Appends the configs heuristic `mode` offers (new ones only) to cands; says what happened in log. */
static void collect_candidates(graph_shared *sh, cudnnBackendHeurMode_t mode, const char *mode_name,
                               engine_candidate *cands, int *count, char *log, size_t log_size)
{
    char why[320];
    const char *step = "heuristics";
    cudnnBackendDescriptor_t heur = NULL, cfgs[GRAPH_MAX_CONFIGS] = {0};
    int64_t offered = 0, got = 0;
    int added = 0;
    CUDNN_TRY(why, sizeof why, step, cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    CUDNN_TRY(why, sizeof why, step,
              cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                       &sh->op_graph));
    CUDNN_TRY(why, sizeof why, step,
              cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode));
    CUDNN_TRY(why, sizeof why, step, cudnnBackendFinalize(heur));
    CUDNN_TRY(why, sizeof why, step,
              cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                       &offered, NULL));
    const int64_t room = GRAPH_MAX_CONFIGS - *count;
    const int64_t want = offered < room ? offered : room;
    for (int64_t i = 0; i < want; ++i)
        CUDNN_TRY(why, sizeof why, step, cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]));
    if (want > 0)
        CUDNN_TRY(why, sizeof why, step,
                  cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, want,
                                           &got, cfgs));
    for (int64_t i = 0; i < got && i < want; ++i) {
        engine_candidate *c = &cands[*count];
        memset(c, 0, sizeof *c);
        c->cfg = cfgs[i];
        c->heuristic = mode_name;
        c->rank = (int)i;
        if (describe_candidate(c, why, sizeof why) != 0) {
            append(log, log_size, "%s #%lld not described (%s); ", mode_name, (long long)i, why);
            continue; /* cfgs[i] is destroyed below */
        }
        int duplicate = 0;
        for (int k = 0; k < *count && !duplicate; ++k)
            duplicate = strcmp(cands[k].tag, c->tag) == 0;
        if (duplicate)
            continue;
        cfgs[i] = NULL; /* now owned by cands */
        ++*count;
        ++added;
    }
    append(log, log_size, "heuristics %s: %lld configs (%d new); ", mode_name, (long long)offered, added);
    goto done;
fail:
    append(log, log_size, "heuristics %s: %s; ", mode_name, why);
done:
    for (int i = 0; i < GRAPH_MAX_CONFIGS; ++i)
        destroy_descriptor(&cfgs[i]);
    destroy_descriptor(&heur);
}

/* ---- plans ---- */

static int make_variant_pack(graph_shared *sh, const float *bias, float *y, void *workspace,
                             cudnnBackendDescriptor_t *pack, char *why, size_t why_size)
{
    const char *step = "variant pack";
    const int64_t uids[5] = {T_X + 1, T_W + 1, T_BIAS + 1, T_SCALE + 1, T_Y + 1};
    void *pointers[5] = {sh->x_nhwc, sh->w_krsc, (void *)bias, sh->scale, y};
    if (pointer_alignment(bias) < sh->bias_alignment || pointer_alignment(y) < sh->y_alignment) {
        snprintf(why, why_size, "%s: b or y is less aligned than the graph declares (%lld, %lld bytes)", step,
                 (long long)sh->bias_alignment, (long long)sh->y_alignment);
        return -1;
    }
    CUDNN_TRY(why, why_size, step, cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, pack));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(*pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 5, uids));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(*pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 5, pointers));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(*pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace));
    CUDNN_TRY(why, why_size, step, cudnnBackendFinalize(*pack));
    return 0;
fail:
    destroy_descriptor(pack);
    return -1;
}

static void graph_row_free(graph_row *row)
{
    if (!row)
        return;
    destroy_descriptor(&row->pack);
    destroy_descriptor(&row->plan);
    destroy_descriptor(&row->cfg);
    if (row->workspace)
        CUDA_WARN(cudaFree(row->workspace));
    free(row);
}

/* Finalizes a plan for cfg with its workspace and variant pack (row->cfg is not set). */
static int make_plan(graph_shared *sh, const bench_problem *p, cudnnBackendDescriptor_t cfg, graph_row *row,
                     char *why, size_t why_size)
{
    const char *step = "execution plan";
    CUDNN_TRY(why, why_size, step, cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &row->plan));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(row->plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1,
                                       &sh->handle));
    CUDNN_TRY(why, why_size, step,
              cudnnBackendSetAttribute(row->plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                       CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg));
    CUDNN_TRY(why, why_size, step, cudnnBackendFinalize(row->plan));
    int64_t got = 0;
    CUDNN_TRY(why, why_size, step,
              cudnnBackendGetAttribute(row->plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got,
                                       &row->workspace_bytes));
    if (row->workspace_bytes > 0 && baseline_device_alloc(&row->workspace, (size_t)row->workspace_bytes,
                                                          "plan workspace", why, why_size) != 0)
        goto fail;
    if (make_variant_pack(sh, p->b, p->y, row->workspace, &row->pack, why, why_size) != 0)
        goto fail;
    row->pack_bias = p->b;
    row->pack_y = p->y;
    return 0;
fail:
    destroy_descriptor(&row->pack);
    destroy_descriptor(&row->plan);
    if (row->workspace)
        CUDA_WARN(cudaFree(row->workspace));
    row->workspace = NULL;
    return -1;
}

/* Mean time of GRAPH_TUNE_RUNS executions after one warm-up (x already converted). */
static int time_plan(graph_shared *sh, const graph_row *row, cudaStream_t s, float *ms, char *why, size_t why_size)
{
    const char *step = "timing a plan";
    cudaEvent_t start = NULL, stop = NULL;
    int status = -1;
    CUDA_TRY(why, why_size, step, cudaEventCreate(&start));
    CUDA_TRY(why, why_size, step, cudaEventCreate(&stop));
    CUDNN_TRY(why, why_size, step, cudnnSetStream(sh->handle, s));
    CUDNN_TRY(why, why_size, step, cudnnBackendExecute(sh->handle, row->plan, row->pack));
    CUDA_TRY(why, why_size, step, cudaEventRecord(start, s));
    for (int i = 0; i < GRAPH_TUNE_RUNS; ++i)
        CUDNN_TRY(why, why_size, step, cudnnBackendExecute(sh->handle, row->plan, row->pack));
    CUDA_TRY(why, why_size, step, cudaEventRecord(stop, s));
    CUDA_TRY(why, why_size, step, cudaEventSynchronize(stop));
    CUDA_TRY(why, why_size, step, cudaEventElapsedTime(ms, start, stop));
    *ms /= GRAPH_TUNE_RUNS;
    status = 0;
fail:
    if (start)
        CUDA_WARN(cudaEventDestroy(start));
    if (stop)
        CUDA_WARN(cudaEventDestroy(stop));
    return status;
}

/* 0: wanted, 1: acceptable if nothing wanted finalizes, -1: not for this row */
static int candidate_class(const engine_candidate *c, int tensor_cores)
{
    const unsigned doubtful = NOTE_BIT(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) |
                              NOTE_BIT(CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION);
    if (!tensor_cores)
        return (c->numerical_notes & NOT_STRICT_FP32) ? -1 : 0;
    if (!(c->numerical_notes & NOTE_BIT(CUDNN_NUMERICAL_NOTE_TENSOR_CORE)))
        return -1;
    return (c->numerical_notes & doubtful) ? 1 : 0;
}

/* The fastest of up to GRAPH_MAX_TUNED finalized plans for the row kind; NULL and why if none. */
static graph_row *choose_plan(graph_shared *sh, const bench_problem *p, engine_candidate *cands, int count,
                              int tensor_cores, cudaStream_t s, char *detail, size_t detail_size, char *why,
                              size_t why_size)
{
    graph_row *best = NULL;
    int best_index = -1, tries = 0, finalized = 0, eligible = 0;
    float best_ms = 0.0f;
    char last_failure[320] = "";
    for (int cls = 0; cls <= 1 && !best; ++cls) {
        for (int i = 0; i < count && tries < GRAPH_MAX_TRIES && finalized < GRAPH_MAX_TUNED; ++i) {
            if (!cands[i].cfg || candidate_class(&cands[i], tensor_cores) != cls)
                continue;
            ++eligible;
            ++tries;
            graph_row *row = calloc(1, sizeof *row);
            float ms = 0.0f;
            if (!row) {
                snprintf(last_failure, sizeof last_failure, "out of host memory");
                continue;
            }
            row->shared = sh;
            if (make_plan(sh, p, cands[i].cfg, row, last_failure, sizeof last_failure) != 0 ||
                time_plan(sh, row, s, &ms, last_failure, sizeof last_failure) != 0) {
                graph_row_free(row);
                continue;
            }
            ++finalized;
            if (!best || ms < best_ms) {
                graph_row_free(best);
                best = row;
                best_ms = ms;
                best_index = i;
            } else {
                graph_row_free(row);
            }
        }
    }
    if (!best) {
        if (eligible == 0)
            snprintf(why, why_size, "no %s engine config among the %d cuDNN offers for the graph",
                     tensor_cores ? "TENSOR_CORE" : "strict-fp32 (no TENSOR_CORE/DOWN_CONVERT/REDUCED_PRECISION note)",
                     count);
        else
            snprintf(why, why_size, "none of %d eligible engine configs finalized; last: %s", tries, last_failure);
        return NULL;
    }
    engine_candidate *c = &cands[best_index];
    best->cfg = c->cfg; /* the plan's config now belongs to the row */
    c->cfg = NULL;
    char notes[160];
    notes_text(c->numerical_notes, c->behavior_notes, notes, sizeof notes);
    snprintf(detail, detail_size,
             "%.60s (heuristics %s #%d), notes %s; fastest of %d finalized (%.3f ms); workspace %lld B; "
             "run: x->NHWC + zero y + execute; w->KRSC once at setup; no intermediate in memory",
             c->tag, c->heuristic, c->rank, notes, finalized, (double)best_ms, (long long)best->workspace_bytes);
    return best;
}

/* ---- rows ---- */

static int layout_run(bench_variant *v, const bench_problem *p, cudaStream_t s)
{
    const graph_shared *sh = ((const graph_row *)v->state)->shared;
    CUDA_RUN(v->name, baseline_nchw_to_nhwc(p->x, sh->x_nhwc, sh->n, sh->cin, sh->h * sh->w, s));
    return 0;
}

static int graph_run(bench_variant *v, const bench_problem *p, cudaStream_t s)
{
    graph_row *row = v->state;
    graph_shared *sh = row->shared;
    if (p->w != sh->w_converted_from) {
        CUDA_RUN(v->name, baseline_nchw_to_nhwc(p->w, sh->w_krsc, sh->cout, sh->cin, 9, s));
        sh->w_converted_from = p->w;
    }
    if (p->b != row->pack_bias || p->y != row->pack_y) {
        char why[320];
        cudnnBackendDescriptor_t pack = NULL;
        if (make_variant_pack(sh, p->b, p->y, row->workspace, &pack, why, sizeof why) != 0) {
            fprintf(stderr, "cgp: %s: %s\n", v->name, why);
            return 1;
        }
        destroy_descriptor(&row->pack);
        row->pack = pack;
        row->pack_bias = p->b;
        row->pack_y = p->y;
    }
    CUDA_RUN(v->name, baseline_nchw_to_nhwc(p->x, sh->x_nhwc, sh->n, sh->cin, sh->h * sh->w, s));
    CUDA_RUN(v->name, cudaMemsetAsync(p->y, 0, (size_t)(sh->n * sh->cout) * sizeof(float), s));
    CUDNN_RUN(v->name, cudnnSetStream(sh->handle, s));
    CUDNN_RUN(v->name, cudnnBackendExecute(sh->handle, row->plan, row->pack));
    return 0;
}

static void graph_destroy(bench_variant *v)
{
    graph_row *row = v->state;
    if (!row)
        return;
    graph_shared *sh = row->shared;
    graph_row_free(row);
    graph_shared_release(sh);
    v->state = NULL;
}

/* Hands a row its state, taking a reference on the shared part. */
static void attach(bench_variant *v, graph_row *row, int (*run)(bench_variant *, const bench_problem *, cudaStream_t))
{
    row->shared->refs++;
    v->state = row;
    v->run = run;
    v->destroy = graph_destroy;
}

int variants_cudnn_graph(const bench_problem *p, bench_variant *out, int *count, int max)
{
    if (baseline_reserve_rows("cudnn-graph", *count, max, GRAPH_ROWS) != 0)
        return 1;
    bench_variant *rows = &out[*count];
    *count += GRAPH_ROWS;
    for (int i = 0; i < GRAPH_ROWS; ++i)
        baseline_row_init(&rows[i], graph_names[i], "cudnn-graph", graph_precisions[i]);
    bench_variant *layout = &rows[0], *graph_rows[2] = {&rows[1], &rows[2]};

    char why[sizeof rows[0].unavailable];
    graph_shared *sh = graph_shared_create(p, why, sizeof why);
    if (!sh) {
        for (int i = 0; i < GRAPH_ROWS; ++i)
            baseline_row_unavailable(&rows[i], "%s", why);
        return 0;
    }
    const cgp_shape *s = &p->shape;
    const double x_bytes = baseline_fp32_bytes(s->n * s->cin * s->h * s->w);

    graph_row *layout_state = calloc(1, sizeof *layout_state);
    if (layout_state) {
        layout_state->shared = sh;
        attach(layout, layout_state, layout_run);
        snprintf(layout->detail, sizeof layout->detail,
                 "x NCHW->NHWC (kernels/bench/baseline_layout.cu), the first step of each cudnn graph row's run; "
                 "timing only: writes no y");
        layout->bytes_moved = 2.0 * x_bytes;
    } else {
        baseline_row_unavailable(layout, "out of host memory");
    }

    engine_candidate cands[GRAPH_MAX_CONFIGS];
    int ncands = 0;
    cudaStream_t tune = NULL;
    cudaError_t err = cudaSuccess;
    char log[320] = "";
    if (build_graph(sh, p, why, sizeof why) != 0) {
        for (int i = 0; i < 2; ++i)
            baseline_row_unavailable(graph_rows[i], "cuDNN refused the graph: %s", why);
        goto done;
    }
    collect_candidates(sh, CUDNN_HEUR_MODE_A, "A", cands, &ncands, log, sizeof log);
    collect_candidates(sh, CUDNN_HEUR_MODE_FALLBACK, "FALLBACK", cands, &ncands, log, sizeof log);
    if (ncands == 0) {
        for (int i = 0; i < 2; ++i)
            baseline_row_unavailable(graph_rows[i], "cuDNN offers no engine config for the graph: %s", log);
        goto done;
    }
    err = cudaStreamCreateWithFlags(&tune, cudaStreamNonBlocking);
    if (err == cudaSuccess)
        err = baseline_nchw_to_nhwc(p->x, sh->x_nhwc, sh->n, sh->cin, sh->h * sh->w, tune);
    if (err != cudaSuccess) {
        baseline_cuda_describe(why, sizeof why, "autotuning setup", "cudaStreamCreate + x to NHWC", __FILE__,
                               __LINE__, err);
        for (int i = 0; i < 2; ++i)
            baseline_row_unavailable(graph_rows[i], "%s", why);
        goto done;
    }
    for (int i = 0; i < 2; ++i) {
        bench_variant *v = graph_rows[i];
        graph_row *row = choose_plan(sh, p, cands, ncands, i == 1, tune, v->detail, sizeof v->detail, why, sizeof why);
        if (!row) {
            baseline_row_unavailable(v, "%s (%s)", why, log);
            continue;
        }
        attach(v, row, graph_run);
        v->bytes_moved = 3.0 * x_bytes + baseline_fp32_bytes(s->cout * s->cin * 9 + s->cout) +
                         2.0 * baseline_fp32_bytes(s->n * s->cout);
    }
done:
    if (tune) {
        CUDNN_WARN(cudnnSetStream(sh->handle, NULL));
        CUDA_WARN(cudaStreamDestroy(tune));
    }
    for (int i = 0; i < ncands; ++i)
        destroy_descriptor(&cands[i].cfg);
    graph_shared_release(sh); /* the creation reference; the rows keep theirs */
    return 0;
}

#endif /* CGP_HAVE_CUDNN */
