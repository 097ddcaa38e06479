/*
 * roofline_model.h - the arithmetic behind `cgp roofline` (docs/roofline.md): what one problem
 * needs (direct-convolution FLOPs, GELU evaluations, DRAM bytes of the fused kernel and of the unfused
 * pipeline, arithmetic intensities), what each kernel executes on which pipe (Winograd's fewer FFMAs,
 * 3xTF32's three products), the floor time each measured ceiling puts under the problem, and where one
 * measured run sits against the roof of its pipe. Pure arithmetic, no CUDA: tested on the CPU by
 * tests/cpu/cpu_roofline.c.
 *
 *     roofline_model m;   roofline_model_compute(&shape, &m);               // 76.1 GFLOP, 528 M GELUs, ...
 *     roofline_floors f;  roofline_floors_compute(&m, &ceilings, &f);       // ms under each ceiling
 *     roofline_work w = roofline_kind_work("ffma winograd-f4x4, ...", ROOFLINE_MATH_FP32); // FFMA, 1/4 the FLOPs
 *     roofline_point pt;  roofline_point_place(m.conv_flops, bytes_moved, median_ms, &w, &ceilings, &pt);
 */
#ifndef CGP_ROOFLINE_MODEL_H
#define CGP_ROOFLINE_MODEL_H

#include <stdint.h>

/* The problem: x (N, Cin, H, W), weight (Cout, Cin, 3, 3), stride 1, pad 0 (valid) or 1 (same). */
typedef struct roofline_shape {
    int64_t n, cin, cout, h, w;
    int pad;
} roofline_shape;

typedef struct roofline_model {
    int64_t hout, wout;
    double conv_flops;         /* 2 * N * Cout * Hout * Wout * Cin * 9: the direct convolution's FLOPs */
    double gelu_count;         /* N * Cout * Hout * Wout: one GELU per convolution output */
    double x_bytes;            /* 4 * N * Cin * H * W */
    double w_bytes;            /* 4 * Cout * Cin * 9 */
    double b_bytes;            /* 4 * Cout */
    double y_bytes;            /* 4 * N * Cout */
    double min_bytes;          /* the fused kernel: x, weights and bias read once, y written once */
    double intensity;          /* conv_flops / min_bytes, FLOP per DRAM byte */
    double intermediate_bytes; /* 4 * N * Cout * Hout * Wout: the convolution's output, never written when fused */
    double unfused_bytes;      /* min_bytes + the intermediate written once and read once */
    double unfused_intensity;  /* conv_flops / unfused_bytes */
} roofline_model;

/* Measured ceilings of the present GPU; 0 where a ceiling was not measured. */
typedef struct roofline_ceilings {
    double dram_bytes_per_s;     /* device-memory copy: bytes read + bytes written per second */
    double l2_bytes_per_s;       /* reads of an L2-resident buffer, bytes per second */
    double smem_bytes_per_s;     /* conflict-free 16-byte shared-memory loads, bytes per second */
    double ffma_flops_per_s;     /* fp32 FFMA, 2 FLOPs each */
    double mma_sync_flops_per_s; /* mma.sync m16n8k8 tf32 with fp32 accumulation, 2 FLOPs per multiply-add */
    double wgmma_flops_per_s;    /* wgmma.mma_async m64n256k8 tf32 (sm_90a), 2 FLOPs per multiply-add */
    double mufu_ex2_per_s;       /* MUFU.EX2 operations per second */
    double mufu_rcp_per_s;       /* MUFU.RCP operations per second */
    double gelu_fast_per_s;      /* gelu_fast evaluations (plus the add into a sum) per second */
    double gelu_erff_per_s;      /* the same with libdevice erff */
} roofline_ceilings;

/* The pipe a kernel's products run on; its roof is the matching probe's rate. */
typedef enum roofline_pipe {
    ROOFLINE_PIPE_NONE = 0,  /* no convolution (a layout conversion): no compute roof */
    ROOFLINE_PIPE_FFMA,      /* fp32 FFMA */
    ROOFLINE_PIPE_MMA_SYNC,  /* TF32 tensor cores through mma.sync */
    ROOFLINE_PIPE_WGMMA,     /* TF32 tensor cores through wgmma */
    ROOFLINE_PIPE_TF32_BEST, /* TF32 tensor cores, instruction not known (cuDNN): the faster of the two probes */
    ROOFLINE_PIPE_COUNT
} roofline_pipe;

/* What a row computes in: the precision of its math (bench rows say "fp32", "tf32", "3xtf32" or "n/a"). */
typedef enum roofline_math {
    ROOFLINE_MATH_NONE = 0,
    ROOFLINE_MATH_FP32,
    ROOFLINE_MATH_TF32,
    ROOFLINE_MATH_3XTF32
} roofline_math;

/* What a kernel executes for the problem, relative to the direct convolution. */
typedef struct roofline_work {
    roofline_pipe pipe;
    double executed_per_direct; /* pipe FLOPs executed per direct-convolution FLOP (see roofline_kind_work) */
    const char *algorithm;      /* "direct", "Winograd F(4x4,3x3)", "3xTF32 split", ... */
    int from_kind;              /* 1: read from the kernel's descriptive name; 0: assumed from the math alone */
} roofline_work;

/* Floor times in milliseconds: the time the work would take at the ceiling alone. NaN where the
 * ceiling it needs was not measured. */
typedef struct roofline_floors {
    double memory_ms;         /* min_bytes / DRAM bandwidth */
    double ffma_ms;           /* conv_flops / FFMA rate (a direct convolution in FFMA) */
    double mma_sync_ms;       /* conv_flops / mma.sync TF32 rate */
    double wgmma_ms;          /* conv_flops / wgmma TF32 rate */
    double tensor_ms;         /* conv_flops / the faster TF32 rate (wgmma where measured) */
    double tensor_x3_ms;      /* 3 * tensor_ms: 3xtf32 does three tensor products per product */
    double gelu_ms;           /* gelu_count / gelu_fast rate */
    double mufu_ms;           /* gelu_count / MUFU.EX2 rate: one MUFU per GELU, the least any GELU form issues */
    double fp32_kernel_ms;    /* ffma_ms + gelu_ms: both run on the FP32 pipe, so they add */
    double tf32_kernel_ms;    /* max(tensor_ms, gelu_ms): tensor and FP32 pipes can overlap */
    double tf32x3_kernel_ms;  /* max(tensor_x3_ms, gelu_ms) */
} roofline_floors;

/* One measured run placed on the roofline. */
typedef struct roofline_point {
    double flops_per_s; /* direct-convolution FLOPs / median time, whatever the row did */
    double bytes_per_s; /* bytes moved / median time */
    double intensity;   /* direct FLOPs / bytes moved */
    roofline_work work;
    double executed_flops_per_s; /* work.executed_per_direct * flops_per_s: what the pipe did */
    double executed_intensity;   /* executed FLOPs / bytes moved */
    double pipe_flops_per_s;     /* the roof of work.pipe (0: not measured, or no pipe) */
    double pct_pipe;             /* executed_flops_per_s / pipe_flops_per_s, in percent (NaN: no roof) */
    double pct_memory;           /* bytes_per_s / DRAM bandwidth, in percent */
    double roof_flops;           /* min(pipe roof, executed_intensity * DRAM): the executed rate attainable */
    double pct_roof;             /* executed_flops_per_s / roof_flops, in percent (NaN: no roof) */
} roofline_point;

/* Output size for the padding. Returns 0, or -1 when a dimension is < 1 or there is no output
 * pixel (m is then zeroed). */
int roofline_model_compute(const roofline_shape *s, roofline_model *m);

void roofline_floors_compute(const roofline_model *m, const roofline_ceilings *c, roofline_floors *f);

/* FFMAs per output pixel and (Cin, Cout) pair in the products of Winograd F(m x m, 3 x 3): (m + 2)^2 / m^2
 * (a direct convolution does 9). */
double roofline_winograd_ffma_per_output(int m);

/* What a kernel executes and on which pipe, from its descriptive name (the kind cgp_plan_kernel_kind reports, e.g.
 * "ffma winograd-f4x4, 16x32x64 8w, ..." or "wgmma, 6 tiles, ..."; kernel_info.h's cgp_kernel_kind): the pipe its
 * first word names (ffma, mma.sync, wgmma); on FFMA the algorithm its second word names: direct and implicit-gemm
 * 1 FFMA FLOP per direct FLOP, winograd-f2x2 / winograd-f4x4 roofline_winograd_ffma_per_output(m) / 9; on the tensor
 * cores 1 product per product in tf32, 3 in 3xtf32 (the split). A kind it cannot read, or one that disagrees with
 * the math (NULL: a baseline), is taken from the math alone: fp32 direct on FFMA, tf32 and 3xtf32 (x1, x3) on the
 * faster TF32 pipe measured, none without math. */
roofline_work roofline_kind_work(const char *kind, roofline_math math);

/* "fp32", "tf32", "3xtf32", or "n/a" for ROOFLINE_MATH_NONE */
const char *roofline_math_name(roofline_math math);

/* The roof of a pipe in FLOP/s (0 when its probe was not measured or for ROOFLINE_PIPE_NONE); TF32_BEST is
 * the larger of the wgmma and mma.sync rates. */
double roofline_pipe_roof(const roofline_ceilings *c, roofline_pipe pipe);

/* "FFMA", "mma.sync TF32", "wgmma TF32", "TF32 tensor" ("" for NONE) */
const char *roofline_pipe_name(roofline_pipe pipe);

/* Places a run that did conv_flops of the problem's (direct) work, moved `bytes` and took median `ms`, executing
 * `work`. Returns 0, or -1 when ms, bytes or conv_flops is not positive (p is then zeroed). */
int roofline_point_place(double conv_flops, double bytes, double ms, const roofline_work *work,
                         const roofline_ceilings *c, roofline_point *p);

/* min(compute, intensity * bandwidth): the attainable FLOP/s at an intensity. */
double roofline_attainable(double intensity, double compute_flops_per_s, double bytes_per_s);

/* The vendor's datasheet peaks of a device, drawn dotted on the charts and never used for a percentage. */
typedef struct roofline_datasheet {
    const char *device;            /* the name the CUDA runtime reports, e.g. "NVIDIA H200" */
    const char *source;            /* where the numbers come from */
    double fp32_flops_per_s;       /* FP32 (non-tensor) */
    double tf32_dense_flops_per_s; /* TF32 tensor core, dense (the datasheet's figure is with 2:4 sparsity) */
    double dram_bytes_per_s;       /* GPU memory bandwidth */
} roofline_datasheet;

/* The datasheet of a device by its exact name, or NULL when the model has none. */
const roofline_datasheet *roofline_datasheet_find(const char *device);

#endif
