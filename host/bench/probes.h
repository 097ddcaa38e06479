/*
 * probes.h - the ceiling probes of `cgp roofline` (docs/roofline.md, "The ceilings"): small
 * kernels that each drive one resource of the GPU as hard as they can, so that their rates are
 * the roofs the kernels are measured against.
 *
 *   dram copy      a several-GB buffer copied with 16-byte loads and stores (bytes read + written)
 *   l2 read        a buffer well inside the L2 read again and again from every SM (ld.global.cg)
 *   smem read      conflict-free 16-byte shared-memory loads (LDS.128) from 8 blocks of 256 per SM
 *   ffma           8 independent FMA chains per thread in registers, 2 FLOPs per FFMA
 *   tf32 mma.sync  mma.sync m16n8k8 tf32 on register fragments, 8 independent accumulators per warp
 *   tf32 wgmma     wgmma.mma_async m64n256k8 tf32 from shared memory, two warpgroups per SM, 2 groups
 *                  of 4 in flight each (kernels/bench/probes_wgmma.cu; sm_90a only)
 *   mufu ex2       MUFU.EX2 (ex2.approx.ftz), operations per second: the GELU's exponential
 *   mufu rcp       MUFU.RCP (rcp.approx.ftz), operations per second: the GELU's division
 *   gelu_fast      gelu_fast(v) of register values added into sums (kernels/fused/gelu.cuh): the per-output
 *   gelu erff      work of the fused epilogue, with gelu_fast and with libdevice erff
 *
 * Every probe's result is used (summed and stored under a condition the compiler cannot decide),
 * so no work is optimised away; docs/roofline.md has the SASS check of every loop.
 * The launchers (kernels/bench/probes.cu, probes_wgmma.cu) are asynchronous on stream s, return the launch
 * error, and say through *work how much they do per launch (bytes, FLOPs, operations or GELU evaluations).
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

/* `blocks` blocks of 256 threads, each with a 16 KiB shared buffer, `iters` loop trips of 16 conflict-free
 * 16-byte shared loads (ld.shared.v4) per thread. *work: bytes loaded. */
cudaError_t probe_smem(int blocks, int iters, unsigned *sink, double *work, cudaStream_t s);

/* `blocks` blocks of 256, `iters` loop trips of 128 MUFU operations per thread: ex2.approx.ftz.f32 (rcp 0)
 * or rcp.approx.ftz.f32 (rcp 1). *work: operations. */
cudaError_t probe_mufu(int rcp, int blocks, int iters, float *sink, double *work, cudaStream_t s);

/* kernels/bench/probes_wgmma.cu. NULL when this build and a GPU of compute capability cc_major.cc_minor can
 * run the wgmma probe, else why not. */
const char *probe_wgmma_unsupported(int cc_major, int cc_minor);
/* `blocks` blocks of two warpgroups, `iters` loop trips of 4 wgmma.mma_async.m64n256k8 tf32 per warpgroup.
 * *work: FLOPs. cudaErrorInvalidDeviceFunction in a build without sm_90a code. */
cudaError_t probe_wgmma(int blocks, int iters, float *sink, double *work, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#ifndef __CUDACC__ /* the rest is host code */

enum {
    PROBE_DRAM,
    PROBE_L2,
    PROBE_SMEM,
    PROBE_FFMA,
    PROBE_TF32_MMA_SYNC,
    PROBE_TF32_WGMMA,
    PROBE_MUFU_EX2,
    PROBE_MUFU_RCP,
    PROBE_GELU_FAST,
    PROBE_GELU_ERFF,
    PROBE_COUNT
};

typedef struct probe_result {
    const char *name;  /* "dram copy", "l2 read", "smem read", "ffma", "tf32 mma.sync", "tf32 wgmma", "mufu ex2", ... */
    const char *unit;  /* of rate: "B/s", "FLOP/s", "op/s", "GELU/s" */
    double work;       /* per launch, in the unit's numerator */
    double median_ms, min_ms, max_ms;
    double rate;       /* work / median seconds; 0 when not measured */
    char detail[192];  /* what ran: sizes, grid, repetitions */
    char unavailable[128]; /* non-empty: the probe cannot run on this GPU or build, and why (rate is then 0) */
} probe_result;

/* launch(context) warmup times untimed, then iters times (iters >= 1) each between two CUDA events on stream 0;
 * the median, min and max of those times in ms. cudaSuccess, or the first error (the events destroyed either way). */
cudaError_t probe_time_launches(cudaError_t (*launch)(void *context), void *context, int warmup, int iters,
                                double *median_ms, double *min_ms, double *max_ms);

/* Runs every probe on the current device, after a spin-up of FFMA launches that lets the clocks
 * rise: warmup untimed launches, then iters launches timed one by one with CUDA events (iters >= 1). A probe
 * this GPU or build cannot run (the wgmma probe off sm_90a) is not launched: its `unavailable` says why.
 * Returns 0, or 1 with err set on a CUDA error or when the device has too little free memory for the copy
 * probe (256 MiB). */
int probes_measure(int warmup, int iters, probe_result out[PROBE_COUNT], char *err, size_t errlen);

#endif
#endif
