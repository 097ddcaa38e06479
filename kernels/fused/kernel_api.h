/*
 * kernel_api.h - the contract between the plan code (host/lib/cgp_plan.c, C) and the numbered kernel versions
 * in kernels/fused/ (CUDA; library layer): what a launch gets (cgp_launch_args) and a version's descriptor with its
 * hooks (cgp_kernel_desc; kernel_desc.cuh makes them); kernels/fused/dispatch.cu lists them in order of preference.
 * What the tools may ask of a version is kernel_info.h's, which this includes.
 */
#ifndef CGP_KERNEL_API_H
#define CGP_KERNEL_API_H

#include "kernel_info.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Words of device state a launch may share across its blocks, after the per-image counters (zero between runs;
 * tf32-v15 and 3xtf32-v15: the units of rounded weights claimed and done, the blocks past their wait) */
enum { CGP_LAUNCH_WORDS = 3 };

/* Everything one launch needs. accum and counters belong to the plan: zero before the first
 * run, and every run leaves them zero again. path_record belongs to the plan too. */
typedef struct cgp_launch_args {
    const float *x, *weight, *bias;
    float *y;
    void *workspace; /* workspace_bytes() of it, 16-byte aligned */
    double *accum;   /* [n * cout], used by the atomic reduction */
    unsigned *counters; /* [n] per image, then CGP_LAUNCH_WORDS launch-wide words */
    /* one device word: thread 0 of every block of every launch ORs in the cgp_path_id of the path it took and its
     * complement (path_record.cuh), for cgp_plan_recorded_path (host/lib/plan_stages.h) to read */
    unsigned *path_record;
    int atomic;      /* 0: det reduction, 1: atomic reduction */
    cgp_problem p;
} cgp_launch_args;

struct cgp_kernel_desc {
    int version;       /* the number `--kernel` selects */
    const char *name;  /* e.g. "fp32-v9" */
    int precision;     /* a cgp_precision value */
    const char *summary;
    cgp_kernel_kind kind; /* what it is: cgp_kernel_kind_name gives the descriptive name composed from it */
    /* NULL when this version runs the problem itself, else a sentence saying why not; a version never hands a
     * problem to another version: version 0 ("best") takes the next one in the table instead */
    const char *(*unsupported)(const cgp_problem *p, const cgp_device_info *d);
    size_t (*workspace_bytes)(const cgp_problem *p, const cgp_device_info *d);
    cudaError_t (*launch)(const cgp_launch_args *a, const cgp_device_info *d, cudaStream_t s);
    /* The short name of the path launch takes inside this version for a problem it runs: "tma" or "cp.async"
     * (the wgmma versions' staging), "fast" or "generic" (the mma.sync versions), the tile (the implicit GEMMs),
     * or the one name of a single-path version; cgp_path_name of the id the launch records (cgp_path_id) for a
     * weight pointer 16-byte aligned or not (weights_misaligned: cgp_weights_misaligned of it; a plan's own question,
     * with no pointer yet, asks for 0) */
    const char *(*path)(const cgp_problem *p, const cgp_device_info *d, int weights_misaligned);
    /* Every id (cgp_path_id, with CGP_PATH_FLAG_WEIGHTS_4B) that `path` can name and a launch record, path_count
     * of them: what tests/cpu/cpu_paths.c holds the hooks' choices against */
    const unsigned short *paths;
    int path_count;
    /* The stage split, or both NULL (the tensor-core versions have one on their fast path):
     * stages_unsupported: NULL when launch_stages runs this problem, else a sentence saying why not;
     * launch_stages: a launch of only the stages in `stages` (CGP_STAGE_*) */
    const char *(*stages_unsupported)(const cgp_problem *p, const cgp_device_info *d);
    cudaError_t (*launch_stages)(const cgp_launch_args *a, const cgp_device_info *d, cudaStream_t s, int stages);
};

#ifdef __cplusplus
}
#endif
#endif
