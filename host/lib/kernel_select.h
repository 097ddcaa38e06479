/*
 * kernel_select.h - which kernel version a plan runs when options.kernel is 0 (host/lib/cgp_plan.c), and
 * what it considered (cgp_candidate, include/cgp.h). Two modes:
 *   heuristic: cgp_select_heuristic, nothing run or timed (no GPU work), the same answer for the same problem and
 *              device. It is the one place that maps a problem to a version: among the versions that run the
 *              problem, the one with the lowest GPU time the cost model predicts (cost_model.h); where the model
 *              has coefficients for none of them, the first of them in the preference order of
 *              kernels/fused/dispatch.cu;
 *   measured:  cgp_select_measure times the supported candidates on the caller's buffers in GPU time (CUDA-graph
 *              replay: no host launch cost inside); the winners are cached per (device, shape, padding, reduce,
 *              precision, weight alignment) for the process (thread-safe: one thread measures a key, the others
 *              wait for its winner).
 * Internal to the library (libcgp.so does not export it); `cgp kernels --shape` prints what it decides.
 */
#ifndef CGP_KERNEL_SELECT_H
#define CGP_KERNEL_SELECT_H

#include "cgp.h"
#include "kernel_info.h"

struct cgp_launch_args; /* kernel_api.h: complete where cgp_select_measure is defined and called */

/* timed replays per candidate, after one warm-up launch and one untimed replay; launches a replayed graph holds,
 * at most (about 1 ms of GPU work a replay) */
#define CGP_SELECT_TIMED_RUNS 5
#define CGP_SELECT_GRAPH_RUNS 10

/* The heuristic's choice among the versions of `precision` for the problem, or NULL when none runs it;
 * *reason (may be NULL) says why that one. */
const cgp_kernel_desc *cgp_select_heuristic(const cgp_problem *p, const cgp_device_info *d, int precision,
                                            const char **reason);

/* Every version of `precision`, in table order, into kernels[] and candidates[] (unsupported filled in,
 * median_ms -1); returns how many (at most max). */
int cgp_select_candidates(const cgp_problem *p, const cgp_device_info *d, int precision,
                          const cgp_kernel_desc **kernels, cgp_candidate *candidates, int max);

/* Times each candidate that runs the problem in GPU time: one warm-up launch, then its launches captured into a
 * CUDA graph (on a stream of its own) and CGP_SELECT_TIMED_RUNS replays between CUDA events on `stream`, with
 * `args` (the plan's state, whose path record each run writes; its workspace allocated and freed here, per
 * candidate), the median per launch into median_ms. Returns the index of the fastest (the first of
 * equals), or -1 with why[] set: a CUDA error (*cuda_error set) or no candidate runs the problem (*cuda_error
 * cudaSuccess). */
int cgp_select_measure(const cgp_kernel_desc *const *kernels, cgp_candidate *candidates, int count,
                       const cgp_device_info *d, struct cgp_launch_args args, cudaStream_t stream,
                       cudaError_t *cuda_error, char *why, size_t why_size);

/* The key of the measured cache: what the measurement depends on. weight_aligned16: the weight pointer's 16-byte
 * alignment, which chooses the width of some versions' weight copies (their path). */
typedef struct cgp_select_key {
    int device;
    int64_t n, cin, cout, h, w;
    int pad, reduce, precision, weight_aligned16;
} cgp_select_key;

/* 1 when the key was measured in this process: the winner's version and the medians of the `count`
 * candidates (table order) into medians[]; else 0 (also while a thread is measuring it). Never waits. */
int cgp_select_cache_find(const cgp_select_key *key, int *version, float *medians, int count);
/* For a thread about to measure the key: 1 with the winner as cgp_select_cache_find gives it when the key was
 * measured, waiting first while another thread measures it; else 0, and the caller holds the key's claim: it
 * measures, then calls cgp_select_cache_store, or cgp_select_cache_release when the measurement failed (then one of
 * the waiting threads claims the key). So one thread measures a key and the others take its winner. */
int cgp_select_cache_claim(const cgp_select_key *key, int *version, float *medians, int count);
/* Remembers a measurement (a key measured already keeps its first winner) and settles the caller's claim. Returns
 * 0, or -1 when out of host memory (nothing is remembered, the claim is released). */
int cgp_select_cache_store(const cgp_select_key *key, int version, const float *medians, int count);
/* Gives up the caller's claim of a key it could not measure. */
void cgp_select_cache_release(const cgp_select_key *key);

#endif
