/*
 * check.h - comparing a kernel's output with the fp64 reference. Relative L2 error
 * ||y - ref|| / max(||ref||, 0.05 sqrt(count)) is the pass criterion; max abs error is reported
 * beside it. The floor keeps a few outputs that happen to lie near zero (the mean GELU over a
 * handful of pixels, whose convolution cancelled) from turning correct fp32 rounding into a
 * failure; the outputs of real problems are ~0.1-0.3, far above it.
 * Every output is prefilled with CHECK_UNWRITTEN_BITS before a run (poison.h): an element still holding them
 * was never written and fails, whatever the reference. A non-finite value passes only where the reference
 * has the same non-finite value (a NaN the kernel computed where NaN, an infinity of the same sign where
 * an infinity).
 */
#ifndef CGP_CHECK_H
#define CGP_CHECK_H

#include <stdint.h>

/* The prefill of every output before a run: a signalling NaN (quiet bit clear) with payload 0x0BAD00. No kernel
 * produces it: the GPU's float arithmetic returns the quiet NaN 0x7FFFFFFF, and bit operations on a value
 * (negation, absolute value, TF32 rounding) keep a quiet NaN quiet; the inputs the tools and tests draw hold no
 * signalling NaN. The old prefill, all bytes 0xFF, is that canonical NaN with its sign bit flipped, which a
 * negation by integer operation makes. Compare the bits, before converting to double (which quiets it). */
#define CHECK_UNWRITTEN_BITS 0x7F8BAD00u

typedef struct check_report {
    double max_abs_error;   /* over elements where both are finite */
    double rel_l2_error;    /* over elements where the reference is finite */
    int64_t worst_index;    /* element with the largest abs error (or the first never written, else first mismatch) */
    int64_t never_written;  /* elements still holding CHECK_UNWRITTEN_BITS */
    int64_t nonfinite_mismatches; /* written elements whose finiteness, NaN or infinity differs from the reference */
    double tolerance;
    int passed;
} check_report;

check_report check_compare(const float *y, const double *ref, int64_t count, double tolerance);

/* 1 when v holds CHECK_UNWRITTEN_BITS: nothing wrote it since the prefill. */
int check_never_written(float v);

/* 1 when the written value v agrees with reference e as to non-finite values: both finite; NaN where e is NaN;
 * where e is an infinity, the same infinity, or with inf_may_be_nan also NaN (a kernel that mixes inputs before
 * the sum, Winograd's transforms or 3xTF32's split, makes inf - inf there) but never the other sign. */
int check_nonfinite_agrees(float v, double e, int inf_may_be_nan);

/* Relative L2 tolerance for a cgp_precision against the fp64 reference of the operands as they are,
 * given how many pixels each output averages and Cin: fp32 and 3xtf32 check_fp32_tolerance(cin);
 * tf32 1e-4 once a mean averages >= 4096 pixels of >= 8 input channels, else 3e-3. TF32 keeps 10
 * mantissa bits, so one convolution output carries ~5e-4 relative error; only averaging over many
 * pixels brings the mean under 1e-4 (the default problem averages 64516), and with few input channels
 * the weights' rounding, the same at every pixel, does not average. That error is the format's, not the
 * kernel's: it passes 1e-4 on any TF32 convolution of inputs that are not centred (an image's pixels in
 * [0, 1]), so `cgp check` and `cgp bench` judge the fused tf32 rows against the reference of the operands
 * rounded to tf32 (problem_reference_tf32) with check_tf32_operands_tolerance, and only print this error. */
double check_tolerance(int precision, int64_t pixels, int64_t cin);

/* What fp32 arithmetic leaves against fp64: 1e-6 up to Cin = 64, growing as sqrt(Cin / 64) above, since the
 * rounding of a sum of 9 Cin fp32 products, rounded to nearest, grows as the square root of its length.
 * The tolerance of fp32 and 3xtf32 (whose kernels add each MMA's products to the sum with FADD). */
double check_fp32_tolerance(int64_t cin);

/* A tf32 kernel against the reference of its operands rounded to tf32: the larger of check_fp32_tolerance
 * and 2 x 9 ceil(Cin / 8) x 2^-24, plus 3 x 3.1e-7, the relative error the tensor-core kernels' GELU leaves that
 * does not average over pixels (tests/lib/tolerance.h's floor of tf32 on rounded inputs: without it a shape of few
 * input channels and few outputs, 1 x 2 -> 429 x 44, measured 1.1e-6 to 1.4e-6 against 1.07e-6, in every tf32
 * version alike, in `cgp select` on the H200). The tf32 kernels chain their MMAs, 9 ceil(Cin / 8) of them per output,
 * in the tensor cores' own fp32 accumulator, which does not round to nearest (fused_tf32_device.cuh, mma_tf32): each
 * step leaves a bias of up to an ulp of the sum, the same way every time, so the error grows linearly with
 * the chain, not as its square root (that term is 2.1e-6 at Cin = 16, 1.4e-4 at Cin = 1024). That is still
 * the kernel's own error: 3xtf32 avoids it with a fresh accumulator per MMA, added with FADD. */
double check_tf32_operands_tolerance(int64_t cin);

#endif
