/*
 * gpu_time.h - GPU time of one call, by CUDA-graph replay: `runs` calls captured into one graph on a stream of
 * its own, the graph replayed `replays` times, each replay between two CUDA events; the time of a call is a
 * replay's time / runs. No host launch cost is inside the figure (a per-call event pair on an idle GPU holds
 * the launch's host time too, and for kernels of a few microseconds that is most of it), so two rows of one
 * run compare what the GPU does. `cgp bench` gives every row this time beside its per-call one, and
 * `cgp select` times every candidate kernel with it.
 */
#ifndef CGP_GPU_TIME_H
#define CGP_GPU_TIME_H

#include <stddef.h>
#include <cuda_runtime_api.h>

/* Enqueues one call on stream s; returns 0, or non-zero after printing why to stderr. */
typedef int (*gpu_time_call)(void *ctx, cudaStream_t s);

typedef struct gpu_time_result {
    double ms_median, ms_min; /* per call */
    int runs, replays;        /* calls in the graph, replays timed */
} gpu_time_result;

/* The calls a graph holds for a call of about per_call_ms: enough for 2 ms of GPU work a replay, 1 to 20 (the
 * CUDA-graph comparison of the issue "GPU time is the measure" captured 20). */
int gpu_time_runs_for(double per_call_ms);

/* Times `call` by graph replay (one untimed replay first). Returns 0 with *out set; 1 when the call cannot be
 * captured or a call failed (why[] says which; the CUDA context stays usable); 2 on a CUDA error outside the
 * capture (why[] set). */
int gpu_time_graph(gpu_time_call call, void *ctx, int runs, int replays, gpu_time_result *out, char *why,
                   size_t cap);

#endif
