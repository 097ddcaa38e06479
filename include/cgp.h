/*
 * cgp.h - public C API of cgp: one CUDA launch computing
 *
 *     y[n, c] = mean over (h, w) of GELU(conv3x3(x, weight)[n, c, h, w] + bias[c])
 *
 * for fp32 NCHW x (N, Cin, H, W), weight (Cout, Cin, 3, 3), bias (Cout), exact erf GELU,
 * stride 1, padding 0 ("valid") or 1 ("same"). The N x Cout x Hout x Wout intermediate is
 * never stored.
 *
 * Life of a plan (see docs/example.c):
 *     cgp_plan *plan;  cgp_shape s = {128, 8, 64, 256, 256};
 *     cgp_options o = cgp_default_options();
 *     cgp_plan_create(&plan, &s, &o);              // validates, allocates small device state
 *     cgp_plan_workspace_size(plan, &bytes);       // caller allocates `bytes` of device memory
 *     cgp_plan_run(plan, x, w, b, y, ws, bytes, stream);  // asynchronous, no allocation
 *     cgp_plan_destroy(plan);
 *
 * A plan keeps N x Cout doubles (the atomic reduction's accumulators) and N unsigned arrival
 * counters of device state, which each run leaves zeroed for the next; so one plan must not run
 * on two streams at the same time. Create one plan per concurrent stream. Runs may be captured into CUDA graphs.
 * A cgp_plan * is a handle, never given twice: once destroyed, every call given it returns CGP_ERROR_INVALID_PLAN,
 * whatever plans were created since.
 * Link with -l:libcgp.a -lcudart_static -ldl -lrt -lpthread -lstdc++ -lm (static), or -lcgp (shared; it
 * carries its own CUDA runtime, so a program that calls the CUDA runtime itself adds -lcudart).
 * docs/library.md has the details.
 */
#ifndef CGP_H
#define CGP_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CGP_VERSION_MAJOR 0
#define CGP_VERSION_MINOR 3

typedef struct cgp_plan cgp_plan;

typedef enum cgp_status {
    CGP_SUCCESS = 0,
    CGP_ERROR_NULL_POINTER = 1,        /* a required pointer argument is NULL */
    CGP_ERROR_INVALID_SHAPE = 2,       /* a dimension < 1, no output pixel, or sizes overflow */
    CGP_ERROR_INVALID_OPTION = 3,      /* padding, reduction, precision or kernel out of range */
    CGP_ERROR_MISALIGNED = 4,          /* a pointer is not aligned as cgp_plan_run requires */
    CGP_ERROR_WORKSPACE_TOO_SMALL = 5, /* workspace_bytes below cgp_plan_workspace_size */
    CGP_ERROR_UNSUPPORTED = 6,         /* the requested kernel version cannot run this shape */
    CGP_ERROR_CUDA = 7,                /* a CUDA call failed: see cgp_last_error_detail() */
    CGP_ERROR_INVALID_PLAN = 8,        /* not a live plan (destroyed or corrupted) */
    CGP_ERROR_OUT_OF_HOST_MEMORY = 9   /* a host allocation of the library failed */
} cgp_status;

typedef enum cgp_padding { CGP_PADDING_VALID = 0, CGP_PADDING_SAME = 1 } cgp_padding;

/* DET: bit-identical output run after run (fixed-order reduction of per-block partials).
 * ATOMIC: per-block partials accumulated with atomics (order varies: last bits may differ). */
typedef enum cgp_reduce { CGP_REDUCE_DET = 0, CGP_REDUCE_ATOMIC = 1 } cgp_reduce;

/* FP32: FFMA, strict fp32. TF32: tensor cores, tf32 inputs, fp32 accumulation.
 * TF32X3: tensor cores with the big+small split (3 products), fp32-level accuracy. */
typedef enum cgp_precision {
    CGP_PRECISION_FP32 = 0,
    CGP_PRECISION_TF32 = 1,
    CGP_PRECISION_TF32X3 = 2
} cgp_precision;

typedef struct cgp_shape {
    int64_t n, cin, cout, h, w;
} cgp_shape;

/* How kernel 0 picks the version: HEURISTIC (nothing run or timed to choose, the same version for the same
 * shape, options and device: the lowest GPU time a cost model fitted on an H200 predicts); MEASURED (the fastest
 * on this device, timed by cgp_plan_create_measured). */
typedef enum cgp_select { CGP_SELECT_HEURISTIC = 0, CGP_SELECT_MEASURED = 1 } cgp_select;

typedef struct cgp_options {
    cgp_padding padding;
    cgp_reduce reduce;
    cgp_precision precision;
    int kernel; /* 0: the best version for this shape and precision; >0: a numbered version */
    cgp_select select; /* how kernel 0 picks the best version */
} cgp_options;

/* CGP_VERSION_MAJOR * 1000 + CGP_VERSION_MINOR of the library actually loaded (a program built
 * against one cgp.h may load another libcgp.so; the Python module checks this at import). */
int cgp_version(void);

/* padding VALID, reduce DET, precision FP32, kernel 0, select HEURISTIC */
cgp_options cgp_default_options(void);

/* Output spatial size for a shape and padding; 0 when the shape has no output pixel. */
int64_t cgp_output_height(const cgp_shape *shape, cgp_padding padding);
int64_t cgp_output_width(const cgp_shape *shape, cgp_padding padding);

/* options->select MEASURED: the version cgp_plan_create_measured chose for this device, shape, padding,
 * reduce and precision earlier in this process (measured with 16-byte-aligned weights where both were), else
 * CGP_ERROR_INVALID_OPTION (there is nothing to time on: call cgp_plan_create_measured). */
cgp_status cgp_plan_create(cgp_plan **plan, const cgp_shape *shape, const cgp_options *options);
/* Measured selection (like cuDNN's Find): times every kernel version of options->precision that supports
 * the shape (options->kernel must be 0) on the caller's device buffers in GPU time (its launches captured into a
 * CUDA graph on a stream of the library's, the graph replayed between events on `stream`), synchronising it; y is
 * overwritten; the workspace each candidate needs is allocated and freed inside. The fastest becomes the
 * plan's kernel and is cached for the process per (device, shape, padding, reduce, precision, and whether weight is
 * 16-byte aligned, which picks some versions' weight copies); a later call with the same key takes the cached winner
 * without timing. Thread-safe: while one thread measures a key, another asking for it waits and takes its winner.
 * The plan's options say MEASURED. */
cgp_status cgp_plan_create_measured(cgp_plan **plan, const cgp_shape *shape, const cgp_options *options,
                                    const float *x, const float *weight, const float *bias, float *y,
                                    cudaStream_t stream);
cgp_status cgp_plan_workspace_size(const cgp_plan *plan, size_t *bytes);
/* Which kernel version the plan runs (resolves kernel 0) and its name, e.g. "fp32-v9". */
cgp_status cgp_plan_kernel(const cgp_plan *plan, int *version, const char **name);
/* What that version is, in words made from its description: the pipe (and the algorithm), its tiles, how the input
 * and the weights are staged, the K split, the schedule, e.g. "wgmma, 6 tiles, tma, w resident, persistent"
 * (docs/design.md, "Kernel versions"). *kind stays valid while the library is loaded. */
cgp_status cgp_plan_kernel_kind(const cgp_plan *plan, const char **kind);

/* What the plan's selection considered: one entry per kernel version of the precision, in table order. */
typedef struct cgp_candidate {
    int version;
    const char *name;
    const char *unsupported; /* NULL when it runs the shape, else why not */
    float median_ms;         /* measured selection: median GPU time of a launch; < 0 when not timed */
} cgp_candidate;
/* *candidates stays valid while the plan lives; from_cache (may be NULL): 1 when a measured plan took a
 * winner measured earlier in this process. */
cgp_status cgp_plan_candidates(const cgp_plan *plan, const cgp_candidate **candidates, int *count,
                               int *from_cache);
/* Enqueue one run on `stream`. x, weight, bias, y: device pointers; x and workspace 16-byte
 * aligned, the others 4-byte aligned. y is (N, Cout) row-major.
 * Never synchronizes, never allocates. workspace may be NULL when its size is 0. */
cgp_status cgp_plan_run(cgp_plan *plan, const float *x, const float *weight, const float *bias,
                        float *y, void *workspace, size_t workspace_bytes, cudaStream_t stream);
cgp_status cgp_plan_destroy(cgp_plan *plan);

const char *cgp_status_string(cgp_status status);
/* Detail of the last failing call in this thread (CUDA error name, the offending value). */
const char *cgp_last_error_detail(void);

#ifdef __cplusplus
}
#endif
#endif /* CGP_H */
