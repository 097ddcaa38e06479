/* gpu_time.c - GPU time of a call by CUDA-graph replay (gpu_time.h). */
#include "gpu_time.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define GPU_TIME_MAX_RUNS 20
#define GPU_TIME_TARGET_MS 2.0

int gpu_time_runs_for(double per_call_ms)
{
    if (!(per_call_ms > 0.0))
        return GPU_TIME_MAX_RUNS;
    const double runs = ceil(GPU_TIME_TARGET_MS / per_call_ms);
    return runs < 1.0 ? 1 : runs > GPU_TIME_MAX_RUNS ? GPU_TIME_MAX_RUNS : (int)runs;
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Captures `runs` calls on s into *exec. Returns 0, or 1 with why[] set (the capture is ended and dropped). */
static int capture(gpu_time_call call, void *ctx, int runs, cudaStream_t s, cudaGraphExec_t *exec, char *why,
                   size_t cap)
{
    cudaGraph_t graph = NULL;
    cudaError_t e = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    int failed = 0;
    for (int i = 0; i < runs && e == cudaSuccess && !failed; ++i)
        failed = call(ctx, s);
    const cudaError_t ended = e == cudaSuccess ? cudaStreamEndCapture(s, &graph) : e;
    if (e == cudaSuccess && ended == cudaSuccess && !failed)
        e = cudaGraphInstantiate(exec, graph, 0);
    else if (e == cudaSuccess)
        e = ended;
    if (graph)
        cudaGraphDestroy(graph);
    if (failed || e != cudaSuccess) {
        cudaGetLastError(); /* a refused capture leaves a sticky-free error: clear it */
        if (failed)
            snprintf(why, cap, "not capturable: a call failed while captured (see the message above)");
        else
            snprintf(why, cap, "not capturable: %s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

int gpu_time_graph(gpu_time_call call, void *ctx, int runs, int replays, gpu_time_result *out, char *why,
                   size_t cap)
{
    cudaStream_t s = NULL;
    cudaGraphExec_t exec = NULL;
    cudaEvent_t *ev = calloc(2 * (size_t)replays, sizeof *ev);
    double *ms = calloc((size_t)replays, sizeof *ms);
    int created = 0, rc = 0;
    cudaError_t e = ev && ms ? cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) : cudaErrorMemoryAllocation;
    for (; e == cudaSuccess && created < 2 * replays; ++created)
        e = cudaEventCreate(&ev[created]);
    if (e != cudaSuccess && created > 0)
        --created;
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize(); /* the calls' earlier work (on the legacy stream) is done before capture */
    if (e == cudaSuccess && capture(call, ctx, runs, s, &exec, why, cap) != 0)
        rc = 1;
    if (e == cudaSuccess && rc == 0)
        e = cudaGraphLaunch(exec, s); /* untimed */
    for (int i = 0; i < replays && e == cudaSuccess && rc == 0; ++i) {
        e = cudaEventRecord(ev[2 * i], s);
        if (e == cudaSuccess)
            e = cudaGraphLaunch(exec, s);
        if (e == cudaSuccess)
            e = cudaEventRecord(ev[2 * i + 1], s);
    }
    if (e == cudaSuccess && rc == 0)
        e = cudaStreamSynchronize(s);
    for (int i = 0; i < replays && e == cudaSuccess && rc == 0; ++i) {
        float t = 0.0f;
        e = cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]);
        ms[i] = (double)t / runs;
    }
    if (e == cudaSuccess && rc == 0) {
        qsort(ms, (size_t)replays, sizeof ms[0], compare_doubles);
        out->ms_min = ms[0];
        out->ms_median = (replays % 2) ? ms[replays / 2] : 0.5 * (ms[replays / 2 - 1] + ms[replays / 2]);
        out->runs = runs;
        out->replays = replays;
    } else if (e != cudaSuccess) {
        snprintf(why, cap, "graph timing: %s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
        rc = 2;
    }
    if (exec)
        cudaGraphExecDestroy(exec);
    for (int i = 0; i < created; ++i)
        cudaEventDestroy(ev[i]);
    if (s)
        cudaStreamDestroy(s);
    free(ev);
    free(ms);
    return rc;
}
