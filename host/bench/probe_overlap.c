/* probe_overlap.c - balances and times the overlap probe of kernels/bench/probe_overlap.cu (see probe_overlap.h) on
 * the current device. The wgmma trips are fixed so that WGMMA alone takes about 1.2 ms on an H200 (4 x 64 x N x 8
 * x 2 FLOPs a trip against its TF32 wgmma roof, 484 TFLOP/s, one warpgroup an SM); the GELU passes start from an
 * estimate (a pass is about 800 instructions a warp, one GELU warp a scheduler) and are rescaled by quick timings of
 * WGMMA and GELU alone until the two are within 5% of each other; then the four modes are timed. */
#include "probe_overlap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes.h"

#define BASE_TRIPS_N256 4096   /* wgmma trips at N = 256; twice as many at N = 128 (the same FLOPs) */
#define FIRST_PASSES 3000 /* the first guess of the GELU passes that match them (the same FLOPs at either N) */
#define MAX_PASSES ((1 << 24) - 1) /* the kernel's pass scale 1 + pass 2^-24 stays exact below 2^24 */
#define BALANCE_ROUNDS 6
#define BALANCE_TOLERANCE 0.05
#define QUICK_WARMUP 2 /* launches of a balancing timing */
#define QUICK_ITERS 5
#define SPIN_UP_LAUNCHES 50
#define WARPGROUP_THREADS 128

static const int config_n[OVERLAP_CONFIGS] = {256, 256, 128, 128};
static const int config_layout[OVERLAP_CONFIGS] = {OVERLAP_TWO_WARPGROUPS, OVERLAP_THREE_SETMAXNREG,
                                                   OVERLAP_TWO_WARPGROUPS, OVERLAP_THREE_SETMAXNREG};

const char *overlap_layout_name(int layout)
{
    return layout == OVERLAP_TWO_WARPGROUPS ? "2 warpgroups" : "3 warpgroups, setmaxnreg 240/240/24";
}

const char *overlap_mode_name(int mode)
{
    static const char *const names[OVERLAP_MODES] = {"wgmma", "gelu", "both", "serial"};
    return mode >= 0 && mode < OVERLAP_MODES ? names[mode] : "?";
}

const char *overlap_verdict(const overlap_result *r)
{
    if (r->unavailable[0])
        return "not measured";
    return r->both_over_max <= 1.15 ? "overlap" : r->both_over_sum >= 0.9 ? "sum" : "partial";
}

typedef struct overlap_launch {
    int n, layout, mode, blocks;
    size_t smem;
    int trips, passes;
    float *sink;
} overlap_launch;

static cudaError_t launch_overlap(void *context)
{
    const overlap_launch *l = context;
    return probe_overlap(l->n, l->layout, l->mode, l->blocks, l->smem, l->trips, l->passes, l->sink, 0);
}

/* warmup launches, then iters launches each between two events on stream 0; median, min and max */
static cudaError_t time_launches(const overlap_launch *l, int warmup, int iters, double *median, double *min,
                                 double *max)
{
    return probe_time_launches(launch_overlap, (void *)l, warmup, iters, median, min, max);
}

static cudaError_t quick_time(const overlap_launch *l, double *median)
{
    double lo = 0.0, hi = 0.0;
    return time_launches(l, QUICK_WARMUP, QUICK_ITERS, median, &lo, &hi);
}

/* One configuration: setup (registers, occupancy), balance, the four modes. Returns the CUDA error; a configuration
 * that cannot run safely is left with r->unavailable set and cudaSuccess. step names what failed. */
static cudaError_t measure_config(overlap_result *r, int sm_count, size_t smem, int warmup, int iters, float *sink,
                                  const char **step)
{
    for (int m = 0; m < OVERLAP_MODES; ++m) {
        int per_sm = 0;
        *step = "probe_overlap_setup";
        const cudaError_t e =
            probe_overlap_setup(r->n, r->layout, m, smem, &r->registers[m], &r->local_bytes[m], &per_sm);
        if (e != cudaSuccess)
            return e;
        if (per_sm != 1) {
            snprintf(r->unavailable, sizeof r->unavailable,
                     "mode %s: %d blocks an SM with %zu bytes of shared memory each, where the probe needs 1",
                     overlap_mode_name(m), per_sm, smem);
            return cudaSuccess;
        }
        /* setmaxnreg.inc waits for registers that the others give back: with fewer than 168 at launch, 24 + 240 +
         * 240 does not fit and the consumers would wait for ever */
        if (r->layout == OVERLAP_THREE_SETMAXNREG && r->registers[m] < OVERLAP_SETMAXNREG_BASE) {
            snprintf(r->unavailable, sizeof r->unavailable,
                     "mode %s: the kernel has %d registers a thread, setmaxnreg 24/240/240 needs %d (not launched)",
                     overlap_mode_name(m), r->registers[m], OVERLAP_SETMAXNREG_BASE);
            return cudaSuccess;
        }
    }
    r->threads = r->layout == OVERLAP_TWO_WARPGROUPS ? 2 * WARPGROUP_THREADS : 3 * WARPGROUP_THREADS;
    r->blocks = sm_count;
    r->wgmma_trips = BASE_TRIPS_N256 * (256 / r->n);
    r->gelu_passes = FIRST_PASSES;
    overlap_launch l = {r->n, r->layout, OVERLAP_WGMMA, r->blocks, smem, r->wgmma_trips, r->gelu_passes, sink};
    double wgmma_ms = 0.0, gelu_ms = 0.0;
    *step = "balancing: wgmma alone";
    cudaError_t e = quick_time(&l, &wgmma_ms);
    l.mode = OVERLAP_GELU;
    for (int k = 0; k < BALANCE_ROUNDS && e == cudaSuccess; ++k) {
        *step = "balancing: gelu alone";
        e = quick_time(&l, &gelu_ms);
        if (e != cudaSuccess || fabs(gelu_ms / wgmma_ms - 1.0) <= BALANCE_TOLERANCE)
            break;
        const double passes = round((double)l.passes * wgmma_ms / gelu_ms);
        l.passes = passes < 1.0 ? 1 : passes > MAX_PASSES ? MAX_PASSES : (int)passes;
    }
    if (e != cudaSuccess)
        return e;
    r->gelu_passes = l.passes;
    for (int m = 0; m < OVERLAP_MODES && e == cudaSuccess; ++m) {
        static const char *const steps[OVERLAP_MODES] = {"mode wgmma", "mode gelu", "mode both", "mode serial"};
        *step = steps[m];
        l.mode = m;
        e = time_launches(&l, warmup, iters, &r->median_ms[m], &r->min_ms[m], &r->max_ms[m]);
    }
    if (e != cudaSuccess)
        return e;
    const double *t = r->median_ms;
    r->wgmma_flops = (double)r->blocks * r->wgmma_trips * OVERLAP_WGMMA_PER_TRIP * 2.0 * 64.0 * r->n * 8.0;
    r->gelu_count = (double)r->blocks * WARPGROUP_THREADS * OVERLAP_GELU_PER_PASS * (double)r->gelu_passes;
    r->wgmma_rate = r->wgmma_flops / (t[OVERLAP_WGMMA] * 1e-3);
    r->gelu_rate = r->gelu_count / (t[OVERLAP_GELU] * 1e-3);
    r->balance = t[OVERLAP_GELU] / t[OVERLAP_WGMMA];
    const double longer = t[OVERLAP_WGMMA] > t[OVERLAP_GELU] ? t[OVERLAP_WGMMA] : t[OVERLAP_GELU];
    r->both_over_max = t[OVERLAP_BOTH] / longer;
    r->both_over_sum = t[OVERLAP_BOTH] / (t[OVERLAP_WGMMA] + t[OVERLAP_GELU]);
    r->serial_over_sum = t[OVERLAP_SERIAL] / (t[OVERLAP_WGMMA] + t[OVERLAP_GELU]);
    return cudaSuccess;
}

int overlap_measure(int warmup, int iters, overlap_result out[OVERLAP_CONFIGS], char *err, size_t errlen)
{
    memset(out, 0, sizeof(overlap_result) * OVERLAP_CONFIGS);
    for (int k = 0; k < OVERLAP_CONFIGS; ++k) {
        out[k].n = config_n[k];
        out[k].layout = config_layout[k];
    }
    if (iters < 1 || warmup < 0) {
        snprintf(err, errlen, "overlap probe: warmup %d, iters %d (iters >= 1, warmup >= 0)", warmup, iters);
        return 1;
    }
    const char *step = "cudaGetDevice";
    int dev = 0, sm_count = 0, cc_major = 0, cc_minor = 0, smem_per_sm = 0, smem_optin = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) {
        step = "cudaDeviceGetAttribute";
        e = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev);
    }
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&cc_minor, cudaDevAttrComputeCapabilityMinor, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "overlap probe: %s: %s: %s", step, cudaGetErrorName(e), cudaGetErrorString(e));
        return 1;
    }
    const char *why = probe_overlap_unsupported(cc_major, cc_minor);
    /* over half an SM's shared memory a block: one block an SM whatever its registers */
    const size_t smem = (size_t)smem_per_sm / 2 + 1024;
    if (!why && smem > (size_t)smem_optin)
        why = "a block cannot ask for over half of an SM's shared memory on this GPU";
    if (why) {
        for (int k = 0; k < OVERLAP_CONFIGS; ++k)
            snprintf(out[k].unavailable, sizeof out[k].unavailable, "%s", why);
        return 0;
    }
    float *sink = NULL;
    step = "cudaMalloc";
    e = cudaMalloc((void **)&sink, sizeof(float));
    /* spin-up: FFMA work, so that the clocks have risen before the first timing */
    double spin_work = 0.0;
    for (int i = 0; i < SPIN_UP_LAUNCHES && e == cudaSuccess; ++i) {
        step = "spin-up";
        e = probe_ffma(sm_count * 8, 2048, sink, &spin_work, 0);
    }
    char where[96] = "";
    for (int k = 0; k < OVERLAP_CONFIGS && e == cudaSuccess; ++k) {
        e = measure_config(&out[k], sm_count, smem, warmup, iters, sink, &step);
        if (e != cudaSuccess)
            snprintf(where, sizeof where, "N=%d, %s: ", out[k].n, overlap_layout_name(out[k].layout));
    }
    if (sink) {
        const cudaError_t f = cudaFree(sink);
        if (e == cudaSuccess && f != cudaSuccess) {
            e = f;
            step = "cudaFree";
        }
    }
    if (e != cudaSuccess) {
        snprintf(err, errlen, "overlap probe: %s%s: %s: %s", where, step, cudaGetErrorName(e), cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
