/*
 * variants.h - what `cgp bench` (and `cgp roofline`) time side by side: the fused kernels through
 * the library API and the baselines (cuDNN legacy, cuDNN graph, plain unfused CUDA).
 *
 * One bench_problem holds the inputs on the device; every variant reads x, w, b and writes y.
 * The bench driver poisons y with NaN, runs a variant once, checks it against the fp64
 * reference (and what the run says of itself: a fused row's launch records its path), then warms up and
 * times it with CUDA events.
 */
#ifndef CGP_VARIANTS_H
#define CGP_VARIANTS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "cgp.h"
#include "kernel_info.h"

typedef struct bench_problem {
    cgp_shape shape;
    cgp_padding padding;
    int64_t hout, wout;
    const float *x, *w, *b; /* device: (N,Cin,H,W), (Cout,Cin,3,3), (Cout) */
    float *y;               /* device: (N,Cout) */
} bench_problem;

/* The arithmetic of a row: a cgp_precision, or NONE for a timing-only row (a layout conversion, a stage of
 * the split), whose y is not the function and so is not checked. */
typedef enum bench_precision {
    BENCH_PRECISION_FP32 = CGP_PRECISION_FP32,
    BENCH_PRECISION_TF32 = CGP_PRECISION_TF32,
    BENCH_PRECISION_TF32X3 = CGP_PRECISION_TF32X3,
    BENCH_PRECISION_NONE
} bench_precision;

/* "fp32", "tf32", "3xtf32" or "n/a" */
static inline const char *bench_precision_name(bench_precision p)
{
    return p == BENCH_PRECISION_FP32     ? "fp32"
           : p == BENCH_PRECISION_TF32   ? "tf32"
           : p == BENCH_PRECISION_TF32X3 ? "3xtf32"
                                         : "n/a";
}

typedef struct bench_variant bench_variant;
struct bench_variant {
    char name[64];         /* row label, e.g. "fused fp32 det", "cudnn legacy fp32" */
    char family[32];       /* "fused", "stages" (--stages), or what --baselines selects: "cudnn", "cudnn-graph",
                            * "unfused" */
    bench_precision precision;
    char detail[448];      /* algorithm, engine, workspace, intermediate bytes, notes */
    char unavailable[320]; /* non-empty: the row could not be set up, and why (then run is NULL) */
    char kernel[24];       /* fused rows: the kernel version the plan runs, as cgp_plan_kernel names it; else "" */
    char kind[CGP_KERNEL_KIND_NAME_MAX]; /* fused rows: what that version is, as cgp_plan_kernel_kind names it
                                          * (the roofline reads its pipe and algorithm there); else "" */
    char path[CGP_PATH_NAME_MAX]; /* fused rows: the path inside it, as its `path` hook names it for the problem;
                                   * else "" */
    double bytes_moved;    /* DRAM bytes one run moves at least, intermediates written and read */
    void *state;
    /* Enqueue one run on stream s; returns 0, or non-zero after printing why to stderr. */
    int (*run)(bench_variant *v, const bench_problem *p, cudaStream_t s);
    /* May be NULL. After the checked run (finished): what that run did, into detail (a fused row: the path its
     * launch recorded); returns 0, or non-zero with failure[cap] saying why the row cannot be trusted (a
     * fused row whose launch recorded no path, or another than `path`). */
    int (*describe_run)(bench_variant *v, char *failure, size_t cap);
    void (*destroy)(bench_variant *v); /* frees state; may be NULL */
};

/* Which fused rows to offer: bit (1 << cgp_precision) in precisions, bit (1 << cgp_reduce) in
 * reduces, and kernel (0: the best version for the shape, else that version number). */
typedef struct fused_selection {
    unsigned precisions;
    unsigned reduces;
    int kernel;
} fused_selection;

/* A plan with its workspace: the state of the fused rows and the stage split's rows (variants_fused.c).
 * stages: what the stage rows run (CGP_STAGE_*); the fused rows run the whole kernel. */
typedef struct plan_state {
    cgp_plan *plan;
    void *workspace;
    size_t workspace_bytes;
    int stages;
} plan_state;

/* The plan of options o for p's shape, with its workspace; NULL with v->unavailable set on failure. */
plan_state *plan_state_create(bench_variant *v, const bench_problem *p, const cgp_options *o);
/* Frees v->state (a plan_state); a bench_variant destroy hook. */
void plan_state_destroy(bench_variant *v);

/* Each family appends its rows (available or not) to out[*count], up to max rows.
 * Returns 0, or non-zero on an error that should stop the run (after printing it). */
int variants_fused(const bench_problem *p, const fused_selection *sel, bench_variant *out, int *count, int max);
int variants_cudnn(const bench_problem *p, bench_variant *out, int *count, int max);
int variants_cudnn_graph(const bench_problem *p, bench_variant *out, int *count, int max);
int variants_unfused(const bench_problem *p, bench_variant *out, int *count, int max);
/* The stage split's timing-only rows (variants_stages.c) */
int variants_stages(const bench_problem *p, const fused_selection *sel, bench_variant *out, int *count, int max);

/* Minimal DRAM bytes of the fused computation: x, weights and bias read once, y written once. */
double problem_min_bytes(const bench_problem *p);
/* Convolution FLOPs: 2 * N * Cout * Hout * Wout * Cin * 9 */
double problem_conv_flops(const bench_problem *p);

#endif
