/* probes.c - sizes, allocates and times the ceiling probes of kernels/bench/probes.cu and probes_wgmma.cu
 * (see probes.h). The sizes aim at 1 to 3 ms per launch on an H200, so that a spin-up of 50 FFMA launches
 * and 5 warm-up and 30 timed launches of all ten probes stay short beside the rows they are the roofs of. */
#include "probes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB ((size_t)1 << 20)
#define COPY_MAX_BYTES (2048 * MIB) /* per buffer: 4 GiB of traffic per launch */
#define COPY_MIN_BYTES (256 * MIB)
#define L2_READ_BYTES ((double)(8ull << 30)) /* per launch */
#define FFMA_ITERS 2048                       /* x 128 FFMA per thread */
#define MMA_ITERS 8192                        /* x 8 mma.sync per warp */
#define WGMMA_ITERS 4096                      /* x 4 wgmma m64n256k8 per warpgroup, one block per SM */
#define MUFU_ITERS 256                        /* x 128 MUFU per thread */
#define SMEM_ITERS 1024                       /* x 16 16-byte shared loads per thread */
#define GELU_ITERS 1024                       /* x 4 GELUs per thread */
#define PROBE_THREADS 256                     /* every probe kernel's block size */
#define SPIN_UP_LAUNCHES 50                   /* FFMA launches before the first probe */

typedef struct probe_setup {
    int kind;
    float *src, *dst, *sink;
    int64_t copy_floats, l2_vectors;
    int blocks, iters;
} probe_setup;

static cudaError_t launch(const probe_setup *p, double *work)
{
    switch (p->kind) {
    case PROBE_DRAM: return probe_copy(p->src, p->dst, p->copy_floats, work, 0);
    case PROBE_L2: return probe_l2_read(p->src, p->l2_vectors, p->iters, p->blocks, p->sink, work, 0);
    case PROBE_SMEM: return probe_smem(p->blocks, p->iters, (unsigned *)p->sink, work, 0);
    case PROBE_FFMA: return probe_ffma(p->blocks, p->iters, p->sink, work, 0);
    case PROBE_TF32_MMA_SYNC: return probe_tf32_mma(p->blocks, p->iters, p->sink, work, 0);
    case PROBE_TF32_WGMMA: return probe_wgmma(p->blocks, p->iters, p->sink, work, 0);
    case PROBE_MUFU_EX2: return probe_mufu(0, p->blocks, p->iters, p->sink, work, 0);
    case PROBE_MUFU_RCP: return probe_mufu(1, p->blocks, p->iters, p->sink, work, 0);
    case PROBE_GELU_FAST: return probe_gelu(1, p->blocks, p->iters, p->sink, work, 0);
    default: return probe_gelu(0, p->blocks, p->iters, p->sink, work, 0);
    }
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

cudaError_t probe_time_launches(cudaError_t (*launch)(void *context), void *context, int warmup, int iters,
                                double *median_ms, double *min_ms, double *max_ms)
{
    cudaEvent_t *ev = malloc(sizeof(cudaEvent_t) * 2 * (size_t)iters);
    double *ms = malloc(sizeof(double) * (size_t)iters);
    if (!ev || !ms) {
        free(ev), free(ms);
        return cudaErrorMemoryAllocation;
    }
    int created = 0;
    cudaError_t e = cudaSuccess;
    for (; created < 2 * iters && e == cudaSuccess; ++created)
        e = cudaEventCreate(&ev[created]);
    if (e != cudaSuccess)
        --created; /* the failed one was not created */
    for (int i = 0; i < warmup && e == cudaSuccess; ++i)
        e = launch(context);
    for (int i = 0; i < iters && e == cudaSuccess; ++i) {
        e = cudaEventRecord(ev[2 * i], 0);
        if (e == cudaSuccess)
            e = launch(context);
        if (e == cudaSuccess)
            e = cudaEventRecord(ev[2 * i + 1], 0);
    }
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    for (int i = 0; i < iters && e == cudaSuccess; ++i) {
        float t = 0.0f;
        e = cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]);
        ms[i] = t;
    }
    for (int i = 0; i < created; ++i) {
        const cudaError_t d = cudaEventDestroy(ev[i]);
        e = e == cudaSuccess ? d : e;
    }
    if (e == cudaSuccess) {
        qsort(ms, (size_t)iters, sizeof(double), compare_doubles);
        *min_ms = ms[0];
        *max_ms = ms[iters - 1];
        *median_ms = (iters % 2) ? ms[iters / 2] : 0.5 * (ms[iters / 2 - 1] + ms[iters / 2]);
    }
    free(ev);
    free(ms);
    return e;
}

/* one launch of a ceiling probe, for probe_time_launches: its setup and where its work goes */
typedef struct probe_launch {
    const probe_setup *setup;
    double *work;
} probe_launch;

static cudaError_t launch_probe(void *context)
{
    const probe_launch *l = context;
    return launch(l->setup, l->work);
}

/* warmup launches, then iters launches each between two events; median, min and max, and the rate */
static cudaError_t time_probe(const probe_setup *p, int warmup, int iters, probe_result *r)
{
    probe_launch l = {p, &r->work};
    const cudaError_t e = probe_time_launches(launch_probe, &l, warmup, iters, &r->median_ms, &r->min_ms, &r->max_ms);
    if (e == cudaSuccess)
        r->rate = r->work / (r->median_ms * 1e-3);
    return e;
}

/* the largest power of two <= v (v >= 1) */
static size_t floor_pow2(size_t v)
{
    size_t p = 1;
    while (p <= v / 2)
        p *= 2;
    return p;
}

/* what each probe ran, for the tables and the CSV */
static void describe(probe_result out[PROBE_COUNT], const probe_setup *setups, size_t copy_bytes, size_t l2_buffer,
                     int l2_bytes)
{
#define DETAIL(k, ...) snprintf(out[k].detail, sizeof out[k].detail, __VA_ARGS__)
    DETAIL(PROBE_DRAM, "copy of %zu MiB into another buffer, 16-byte loads and stores; bytes read + written",
           copy_bytes / MIB);
    DETAIL(PROBE_L2, "%zu KiB buffer (L2 %d KiB) read %.0f times per launch with ld.global.cg, %d blocks x %d",
           l2_buffer >> 10, l2_bytes >> 10, out[PROBE_L2].work / (double)l2_buffer, setups[PROBE_L2].blocks,
           PROBE_THREADS);
    DETAIL(PROBE_SMEM, "conflict-free ld.volatile.shared.v4 (LDS.128), 16 KiB per block, %d blocks x %d, %d x 16 "
           "loads per thread", setups[PROBE_SMEM].blocks, PROBE_THREADS, SMEM_ITERS);
    DETAIL(PROBE_FFMA, "8 independent FFMA chains per thread, %d blocks x %d, %d x 128 FFMA per thread; 2 FLOP each",
           setups[PROBE_FFMA].blocks, PROBE_THREADS, FFMA_ITERS);
    DETAIL(PROBE_TF32_MMA_SYNC, "mma.sync m16n8k8 tf32, 8 independent accumulators per warp, %d blocks x %d, "
           "%d x 8 mma per warp", setups[PROBE_TF32_MMA_SYNC].blocks, PROBE_THREADS, MMA_ITERS);
    DETAIL(PROBE_TF32_WGMMA, "wgmma.mma_async m64n256k8 tf32, operands in shared memory, %d blocks x 2 warpgroups, "
           "%d x 4 wgmma per warpgroup, 2 groups in flight", setups[PROBE_TF32_WGMMA].blocks, WGMMA_ITERS);
    for (int k = PROBE_MUFU_EX2; k <= PROBE_MUFU_RCP; ++k)
        DETAIL(k, "%s, 8 independent chains per thread, %d blocks x %d, %d x 128 per thread",
               k == PROBE_MUFU_EX2 ? "ex2.approx.ftz of -v (MUFU.EX2)" : "rcp.approx.ftz (MUFU.RCP) + 1 (FADD)",
               setups[k].blocks, PROBE_THREADS, MUFU_ITERS);
    for (int k = PROBE_GELU_FAST; k <= PROBE_GELU_ERFF; ++k)
        DETAIL(k, "%s of register values in [-3, 4) added into 4 sums per thread, %d blocks x %d, %d per thread",
               k == PROBE_GELU_FAST ? "gelu_fast" : "0.5 v (1 + erff(v / sqrt 2))", setups[k].blocks, PROBE_THREADS,
               4 * GELU_ITERS);
#undef DETAIL
}

int probes_measure(int warmup, int iters, probe_result out[PROBE_COUNT], char *err, size_t errlen)
{
    static const char *const names[PROBE_COUNT] = {"dram copy", "l2 read",  "smem read", "ffma",      "tf32 mma.sync",
                                                   "tf32 wgmma", "mufu ex2", "mufu rcp",  "gelu_fast", "gelu erff"};
    static const char *const units[PROBE_COUNT] = {"B/s",    "B/s",  "B/s",  "FLOP/s", "FLOP/s",
                                                   "FLOP/s", "op/s", "op/s", "GELU/s", "GELU/s"};
    memset(out, 0, sizeof(probe_result) * PROBE_COUNT);
    for (int k = 0; k < PROBE_COUNT; ++k) {
        out[k].name = names[k];
        out[k].unit = units[k];
    }
    const char *step = "cudaGetDevice";
    int dev = 0, sm_count = 0, l2_bytes = 0, cc_major = 0, cc_minor = 0;
    size_t free_bytes = 0, total_bytes = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) {
        step = "cudaDeviceGetAttribute(MultiProcessorCount)";
        e = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev);
    }
    if (e == cudaSuccess) {
        step = "cudaDeviceGetAttribute(L2CacheSize)";
        e = cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, dev);
    }
    if (e == cudaSuccess) {
        step = "cudaDeviceGetAttribute(ComputeCapability)";
        e = cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, dev);
    }
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&cc_minor, cudaDevAttrComputeCapabilityMinor, dev);
    if (e == cudaSuccess) {
        step = "cudaMemGetInfo";
        e = cudaMemGetInfo(&free_bytes, &total_bytes);
    }
    if (e != cudaSuccess) {
        snprintf(err, errlen, "probes: %s: %s: %s", step, cudaGetErrorName(e), cudaGetErrorString(e));
        return 1;
    }
    /* two copy buffers of up to 2 GiB each, together at most three quarters of the free memory */
    size_t copy_bytes = free_bytes / 8 * 3 / MIB * MIB;
    copy_bytes = copy_bytes > COPY_MAX_BYTES ? COPY_MAX_BYTES : copy_bytes;
    if (copy_bytes < COPY_MIN_BYTES) {
        snprintf(err, errlen, "probes: the copy probe needs 2 x %zu MiB of device memory, only %zu MiB is free",
                 COPY_MIN_BYTES / MIB, free_bytes / MIB);
        return 1;
    }
    /* the L2 buffer: the largest power of two within a quarter of the L2 (at least 1 MiB) */
    const size_t l2_quarter = (size_t)l2_bytes / 4;
    const size_t l2_buffer = floor_pow2(l2_quarter > MIB ? l2_quarter : MIB);
    const char *no_wgmma = probe_wgmma_unsupported(cc_major, cc_minor);
    if (no_wgmma)
        snprintf(out[PROBE_TF32_WGMMA].unavailable, sizeof out[PROBE_TF32_WGMMA].unavailable, "%s", no_wgmma);

    float *src = NULL, *dst = NULL, *sink = NULL;
    step = "cudaMalloc of the probe buffers";
    e = cudaMalloc((void **)&src, copy_bytes);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&dst, copy_bytes);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&sink, sizeof(float));
    if (e == cudaSuccess) {
        step = "cudaMemset of the probe buffers"; /* zeros: the L2 probe's sum stays 0 */
        e = cudaMemset(src, 0, copy_bytes);
    }
    if (e == cudaSuccess)
        e = cudaMemset(dst, 0, copy_bytes);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();

    const int full_blocks = sm_count * (2048 / PROBE_THREADS); /* 2048 resident threads per SM */
    const int64_t l2_threads_reads = (int64_t)full_blocks * PROBE_THREADS * 4;
    const int l2_trips = (int)(L2_READ_BYTES / 16.0 / (double)l2_threads_reads);
    const probe_setup setups[PROBE_COUNT] = {
        {PROBE_DRAM, src, dst, sink, (int64_t)(copy_bytes / sizeof(float)), 0, 0, 0},
        {PROBE_L2, src, NULL, sink, 0, (int64_t)(l2_buffer / 16), full_blocks, l2_trips > 0 ? l2_trips : 1},
        {PROBE_SMEM, NULL, NULL, sink, 0, 0, full_blocks, SMEM_ITERS},
        {PROBE_FFMA, NULL, NULL, sink, 0, 0, full_blocks, FFMA_ITERS},
        {PROBE_TF32_MMA_SYNC, NULL, NULL, sink, 0, 0, sm_count * 4, MMA_ITERS},
        {PROBE_TF32_WGMMA, NULL, NULL, sink, 0, 0, sm_count, WGMMA_ITERS},
        {PROBE_MUFU_EX2, NULL, NULL, sink, 0, 0, full_blocks, MUFU_ITERS},
        {PROBE_MUFU_RCP, NULL, NULL, sink, 0, 0, full_blocks, MUFU_ITERS},
        {PROBE_GELU_FAST, NULL, NULL, sink, 0, 0, full_blocks, GELU_ITERS},
        {PROBE_GELU_ERFF, NULL, NULL, sink, 0, 0, full_blocks, GELU_ITERS},
    };
    /* spin-up: FFMA work, so that the clocks have risen before the first probe */
    double spin_work = 0.0;
    for (int i = 0; i < SPIN_UP_LAUNCHES && e == cudaSuccess; ++i) {
        step = "spin-up";
        e = launch(&setups[PROBE_FFMA], &spin_work);
    }
    for (int k = 0; k < PROBE_COUNT && e == cudaSuccess; ++k) {
        step = names[k];
        if (!out[k].unavailable[0])
            e = time_probe(&setups[k], warmup, iters, &out[k]);
    }
    if (e == cudaSuccess)
        describe(out, setups, copy_bytes, l2_buffer, l2_bytes);
    cudaFree(src);
    cudaFree(dst);
    cudaFree(sink);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "probes: %s: %s: %s", step, cudaGetErrorName(e), cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
