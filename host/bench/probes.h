/*
 * probes.h - the ceiling probes of `cgp roofline` (docs/roofline.md, "The ceilings"): small
 * kernels that each drive one resource of the GPU as hard as they can, so that their rates are
 * the roofs the fused kernel is measured against.
 *
 *   dram copy     a several-GB buffer copied with 16-byte loads and stores (bytes read + written)
 *   l2 read       a buffer well inside the L2 read again and again from every SM (ld.global.cg)
 *   ffma          8 independent FMA chains per thread in registers, 2 FLOPs per FFMA
 *   tf32 mma      mma.sync m16n8k8 tf32 on register fragments, 8 independent accumulators per warp
 *   gelu_fast     gelu_fast(v) of register values added into sums (kernels/fused/gelu.cuh): the per-output
 *   gelu erff     work of the fused epilogue, with gelu_fast and with libdevice erff
 *
 * Every probe's result is used (summed and stored under a condition the compiler cannot decide),
 * so no work is optimised away; the SASS check is in docs/roofline.md.
 * The launchers (kernels/bench/probes.cu) are asynchronous on stream s, return the launch error, and
 * say through *work how much they do per launch (bytes, FLOPs or GELU evaluations).
 * probes_measure (host/bench/probes.c) allocates, warms up and times them with CUDA events.
 */
#ifndef CGP_PROBES_H
#define CGP_PROBES_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst = src, count floats (a multiple of 4; both 16-byte aligned). *work: 8 * count bytes. */
cudaError_t probe_copy(const float *src, float *dst, int64_t count, double *work, cudaStream_t s);

/* 16-byte reads of buf (vectors float4s, a power of two, read round and round), `trips` loop
 * trips of 4 reads by each thread of `blocks` blocks of 256, bypassing L1; at most 2^31 - 1 reads
 * in all. *work: 16 bytes per read. */
cudaError_t probe_l2_read(const float *buf, int64_t vectors, int trips, int blocks, float *sink, double *work,
                          cudaStream_t s);

/* `blocks` blocks, `iters` loop trips of 128 FFMA per thread. *work: FLOPs. */
cudaError_t probe_ffma(int blocks, int iters, float *sink, double *work, cudaStream_t s);

/* `blocks` blocks, `iters` loop trips of 8 mma.sync m16n8k8 tf32 per warp. *work: FLOPs. */
cudaError_t probe_tf32_mma(int blocks, int iters, float *sink, double *work, cudaStream_t s);

/* `blocks` blocks, `iters` loop trips of 4 GELUs per thread; fast: gelu_fast, else gelu_erff.
 * *work: GELU evaluations. */
cudaError_t probe_gelu(int fast, int blocks, int iters, float *sink, double *work, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#ifndef __CUDACC__ /* the rest is host code */

enum { PROBE_DRAM, PROBE_L2, PROBE_FFMA, PROBE_TF32, PROBE_GELU_FAST, PROBE_GELU_ERFF, PROBE_COUNT };

typedef struct probe_result {
    const char *name;  /* "dram copy", "l2 read", "ffma", "tf32 mma.sync", "gelu_fast", "gelu erff" */
    const char *unit;  /* of rate: "B/s", "FLOP/s", "GELU/s" */
    double work;       /* per launch, in the unit's numerator */
    double median_ms, min_ms, max_ms;
    double rate;       /* work / median seconds */
    char detail[192];  /* what ran: sizes, grid, repetitions */
} probe_result;

/* Runs every probe on the current device, after a spin-up of FFMA launches that lets the clocks
 * rise: warmup untimed launches, then iters launches timed one by one with CUDA events (iters >= 1). Returns 0, or 1 with err set on a CUDA error or when the
 * device has too little free memory for the copy probe (256 MiB). */
int probes_measure(int warmup, int iters, probe_result out[PROBE_COUNT], char *err, size_t errlen);

#endif
#endif
