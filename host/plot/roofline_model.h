/*
 * roofline_model.h - the arithmetic behind `cgp roofline` (docs/roofline.md): what one problem
 * needs (convolution FLOPs, GELU evaluations, minimal DRAM bytes, arithmetic intensity), the
 * floor time each measured ceiling puts under it, and where one measured run sits against the
 * ceilings. Pure arithmetic, no CUDA: tested on the CPU by tests/cpu/cpu_roofline.c.
 *
 *     roofline_model m;    roofline_model_compute(&shape, &m);        // 76.1 GFLOP, 528 M GELUs, ...
 *     roofline_floors f;   roofline_floors_compute(&m, &ceilings, &f); // ms under each ceiling
 *     roofline_point pt;   roofline_point_place(m.conv_flops, bytes_moved, median_ms, "tf32", &ceilings, &pt);
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
    double conv_flops;  /* 2 * N * Cout * Hout * Wout * Cin * 9 (one multiply and one add per tap) */
    double gelu_count;  /* N * Cout * Hout * Wout: one GELU per convolution output */
    double x_bytes;     /* 4 * N * Cin * H * W */
    double w_bytes;     /* 4 * Cout * Cin * 9 */
    double b_bytes;     /* 4 * Cout */
    double y_bytes;     /* 4 * N * Cout */
    double min_bytes;   /* x, weights and bias read once, y written once: the sum of the four */
    double intensity;   /* conv_flops / min_bytes, FLOP per DRAM byte */
} roofline_model;

/* Measured ceilings of the present GPU; 0 where a ceiling was not measured. */
typedef struct roofline_ceilings {
    double dram_bytes_per_s; /* device-memory copy: bytes read + bytes written per second */
    double l2_bytes_per_s;   /* reads of an L2-resident buffer, bytes per second */
    double ffma_flops_per_s; /* fp32 FFMA, 2 FLOPs each */
    double tf32_flops_per_s; /* mma.sync m16n8k8 tf32 with fp32 accumulation, 2 FLOPs per multiply-add */
    double gelu_fast_per_s;  /* gelu_fast evaluations (plus the add into a sum) per second */
    double gelu_erff_per_s;  /* the same with libdevice erff */
} roofline_ceilings;

/* Floor times in milliseconds: the time the work would take at the ceiling alone. NaN where the
 * ceiling it needs was not measured. */
typedef struct roofline_floors {
    double memory_ms;         /* min_bytes / DRAM bandwidth */
    double ffma_ms;           /* conv_flops / FFMA rate */
    double tf32_ms;           /* conv_flops / TF32 rate */
    double tf32x3_ms;         /* 3 * conv_flops / TF32 rate: 3xtf32 does three tensor products per product */
    double gelu_ms;           /* gelu_count / gelu_fast rate */
    double fp32_kernel_ms;    /* ffma_ms + gelu_ms: both run on the FP32 pipe, so they add */
    double tf32_kernel_ms;    /* max(tf32_ms, gelu_ms): tensor and FP32 pipes can overlap */
    double tf32x3_kernel_ms;  /* max(tf32x3_ms, gelu_ms) */
} roofline_floors;

/* Which compute ceiling bounds a row, from its precision. */
typedef enum roofline_roof { ROOFLINE_ROOF_NONE = 0, ROOFLINE_ROOF_FFMA = 1, ROOFLINE_ROOF_TF32 = 2 } roofline_roof;

/* One measured run placed on the roofline. */
typedef struct roofline_point {
    double flops_per_s;   /* conv FLOPs / median time (the problem's FLOPs, whatever the row did) */
    double bytes_per_s;   /* bytes moved / median time */
    double intensity;     /* conv FLOPs / bytes moved */
    roofline_roof roof;   /* FFMA for "fp32", TF32 for "tf32" and "3xtf32", NONE otherwise */
    double work_factor;   /* ceiling operations per conv FLOP: 3 for "3xtf32", else 1 */
    double pct_compute;   /* work_factor * flops_per_s / the compute ceiling, in percent (NaN: NONE) */
    double pct_memory;    /* bytes_per_s / DRAM bandwidth, in percent */
    double roof_flops;    /* the roof at this intensity: min(ceiling / work_factor, intensity * DRAM) */
    double pct_roof;      /* flops_per_s / roof_flops, in percent (NaN: NONE) */
} roofline_point;

/* Output size for the padding. Returns 0, or -1 when a dimension is < 1 or there is no output
 * pixel (m is then zeroed). */
int roofline_model_compute(const roofline_shape *s, roofline_model *m);

void roofline_floors_compute(const roofline_model *m, const roofline_ceilings *c, roofline_floors *f);

/* The compute ceiling and work factor a precision name ("fp32", "tf32", "3xtf32") maps to. */
roofline_roof roofline_precision_roof(const char *precision, double *work_factor);

/* Places a run that did conv_flops of the problem's work, moved `bytes` and took median `ms`.
 * Returns 0, or -1 when ms, bytes or conv_flops is not positive (p is then zeroed). */
int roofline_point_place(double conv_flops, double bytes, double ms, const char *precision,
                         const roofline_ceilings *c, roofline_point *p);

/* min(compute, intensity * bandwidth): the attainable FLOP/s at an intensity. */
double roofline_attainable(double intensity, double compute_flops_per_s, double bytes_per_s);

#endif
