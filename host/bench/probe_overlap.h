/*
 * probe_overlap.h - the overlap probe of issue 39 (`cgp roofline --overlap`): does a wgmma loop in one warpgroup
 * run at the same time as a GELU epilogue loop in another warpgroup of the same block, on the same SM?
 *
 * One persistent block per SM (grid = SM count; a dynamic shared-memory request of over half an SM keeps a second
 * block off), each of 2 warpgroups (OVERLAP_TWO_WARPGROUPS) or of 3 with registers rebalanced by setmaxnreg
 * (OVERLAP_THREE_SETMAXNREG: warpgroup 2, a producer's stand-in that does nothing, gives back down to 24
 * registers, warpgroups 0 and 1 take 240, the register split of a producer + two consumers). The modes, each its own
 * launch of the same kernel template (kernels/bench/probe_overlap.cu):
 *   OVERLAP_WGMMA   warpgroup 0: `wgmma_trips` loop trips of 4 wgmma.mma_async.m64nNk8 tf32 (N = 128 or 256),
 *                   operands in shared memory, one fp32 accumulator of 64 x N, 2 groups in flight; the rest idle
 *   OVERLAP_GELU    warpgroup 1: `gelu_passes` passes over a 64 x 128 fp32 fragment in registers (64 values a
 *                   thread): v * scale + bias, gelu_x2 (kernels/fused/gelu.cuh, the TF32 kernels' GELU), per-column
 *                   sums, the warp's transposed butterfly of the sums (implicit_gemm.cuh's); scale changes every pass
 *   OVERLAP_BOTH    both at once: warpgroup 0 the wgmma loop and warpgroup 1 the GELU loop, the same counts
 *   OVERLAP_SERIAL  warpgroup 0 alone, the same work in today's kernels' order: OVERLAP_CHUNK_TRIPS wgmma trips,
 *                   wait for them, GELU passes over the accumulator's first 64 x 128, again (the sum reference)
 * If BOTH takes about max(WGMMA, GELU), the two overlap and issue 39's warp-specialised design holds; if it takes
 * about WGMMA + GELU (SERIAL), they do not.
 */
#ifndef CGP_PROBE_OVERLAP_H
#define CGP_PROBE_OVERLAP_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { OVERLAP_WGMMA, OVERLAP_GELU, OVERLAP_BOTH, OVERLAP_SERIAL, OVERLAP_MODES };
enum { OVERLAP_TWO_WARPGROUPS, OVERLAP_THREE_SETMAXNREG, OVERLAP_LAYOUTS };

#define OVERLAP_WGMMA_PER_TRIP 4  /* wgmma.mma_async a loop trip, committed as one group */
#define OVERLAP_CHUNK_TRIPS 4     /* OVERLAP_SERIAL: wgmma trips between two waits for the accumulator */
#define OVERLAP_GELU_PER_PASS 64  /* GELUs a thread a pass (a 64 x 128 fragment over 128 threads) */
#define OVERLAP_SETMAXNREG_BASE 168 /* the 3-warpgroup kernel's registers that 24 + 240 + 240 needs */

/* NULL when this build and a GPU of compute capability cc_major.cc_minor can run the probe, else why not */
const char *probe_overlap_unsupported(int cc_major, int cc_minor);

/* Sets the dynamic shared memory limit of the kernel of (n, layout, mode) to smem_bytes and says its registers and
 * local memory (cudaFuncGetAttributes) and how many of its blocks an SM holds with smem_bytes each. n: 128 or 256.
 * cudaErrorInvalidValue for anything else, cudaErrorInvalidDeviceFunction in a build without sm_90a code. */
cudaError_t probe_overlap_setup(int n, int layout, int mode, size_t smem_bytes, int *registers, int *local_bytes,
                                int *blocks_per_sm);

/* One launch of `blocks` blocks, smem_bytes of dynamic shared memory each (probe_overlap_setup first);
 * wgmma_trips a multiple of OVERLAP_CHUNK_TRIPS, both >= 1. Asynchronous on stream s; returns the launch error. */
cudaError_t probe_overlap(int n, int layout, int mode, int blocks, size_t smem_bytes, int wgmma_trips,
                          int gelu_passes, float *sink, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#ifndef __CUDACC__ /* the rest is host code (host/bench/probe_overlap.c) */

#define OVERLAP_CONFIGS 4 /* N = 256 and 128, each in both layouts */

typedef struct overlap_result {
    int n, layout;       /* wgmma m64nNk8; OVERLAP_TWO_WARPGROUPS or OVERLAP_THREE_SETMAXNREG */
    int threads, blocks; /* a block's threads, blocks (one an SM) */
    int wgmma_trips, gelu_passes; /* the counts every mode ran, balanced so that WGMMA and GELU take about as long */
    double balance;      /* GELU / WGMMA median time at those counts */
    int registers[OVERLAP_MODES], local_bytes[OVERLAP_MODES];
    double median_ms[OVERLAP_MODES], min_ms[OVERLAP_MODES], max_ms[OVERLAP_MODES];
    double wgmma_flops;  /* a launch of WGMMA (and of BOTH and SERIAL) */
    double gelu_count;   /* GELU evaluations a launch of GELU (and of BOTH and SERIAL) */
    double wgmma_rate;   /* FLOP/s of WGMMA alone */
    double gelu_rate;    /* GELU/s of GELU alone */
    double both_over_max, both_over_sum, serial_over_sum;
    char unavailable[192]; /* non-empty: not measured, and why (the rest is then 0) */
} overlap_result;

/* The layout's name: "2 warpgroups", "3 warpgroups, setmaxnreg 240/240/24" */
const char *overlap_layout_name(int layout);
/* The mode's name: "wgmma", "gelu", "both", "serial" */
const char *overlap_mode_name(int mode);
/* One word for what the ratios say: "overlap" (both <= 1.15 max), "sum" (both >= 0.9 sum), else "partial" */
const char *overlap_verdict(const overlap_result *r);

/* Measures every configuration on the current device (N = 256 and 128, each in both layouts): after a spin-up,
 * balances the GELU passes against the wgmma trips (a few quick timings of WGMMA and GELU alone, GELU rescaled to
 * within 5%), then times the four modes, each warmup untimed launches and the median of iters launches timed one by
 * one with CUDA events on one stream. A configuration the GPU, build or compiler cannot run has `unavailable` set.
 * Returns 0, or 1 with err set on a CUDA error. */
int overlap_measure(int warmup, int iters, overlap_result out[OVERLAP_CONFIGS], char *err, size_t errlen);

#endif
#endif
