/*
 * kernel_api.h - the contract between the plan code (host/lib/cgp_plan.c, C) and the numbered kernel versions
 * in kernels/fused/ (CUDA; library layer): what a launch gets (cgp_launch_args), what a version decided for a problem
 * (cgp_kernel_config) and its descriptor with its hooks (cgp_kernel_desc; kernel_desc.cuh makes them);
 * kernels/fused/dispatch.cu lists them in order of preference.
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
    void *workspace; /* the configuration's workspace_bytes of it, 16-byte aligned */
    double *accum;   /* [n * cout], used by the atomic reduction */
    unsigned *counters; /* [n] per image, then CGP_LAUNCH_WORDS launch-wide words */
    /* one device word: thread 0 of every block of every launch ORs in the cgp_path_id of the path it took and its
     * complement (path_record.cuh), for cgp_plan_recorded_path (host/lib/plan_stages.h) to read */
    unsigned *path_record;
    int atomic;      /* 0: det reduction, 1: atomic reduction */
    cgp_problem p;
} cgp_launch_args;

/* What a version decided for one problem on one device, made once by its configure hook (on the CPU, for a problem
 * its unsupported hook accepts): a plan keeps it, and the launch, the workspace and the path read it, so no cost model
 * runs twice and no launch sets a function attribute (cgp_kernel_prepare does, once a plan) */
typedef struct cgp_kernel_config {
    int tile;    /* the tile the version runs: its index in the version's own list (0 where it has one) */
    int split;   /* the blocks of the cluster K is split over; 1: K whole */
    int staging; /* how the windows land, the version's own value (by TMA, by cp.async, a shifted box) */
    size_t workspace_bytes;
    /* the kernel a launch runs and the path id it records (cgp_path_id with its flag), [0] for weights 16-byte
     * aligned, [1] for weights that are not (cgp_weights_misaligned); the same twice where the pointer does not
     * matter; the kernel's dynamic shared memory */
    const void *kernel[2];
    unsigned path[2];
    size_t smem_bytes;
} cgp_kernel_config;

struct cgp_kernel_desc {
    int version;       /* the number `--kernel` selects */
    const char *name;  /* e.g. "fp32-v9" */
    int precision;     /* a cgp_precision value */
    const char *summary;
    cgp_kernel_kind kind; /* what it is: cgp_kernel_kind_name gives the descriptive name composed from it */
    /* can_implement: NULL when this version runs the problem itself, else a sentence saying why not (pure: it may
     * run the cost model, it changes nothing); a version never hands a problem to another version: version 0
     * ("best") takes the next one in the table instead */
    const char *(*unsupported)(const cgp_problem *p, const cgp_device_info *d);
    /* The version's choice for a problem unsupported accepted (tile, split, staging: its cost model, run here
     * once), its workspace, kernels and paths; pure, CPU only. The paths are those `paths` lists. */
    void (*configure)(const cgp_problem *p, const cgp_device_info *d, cgp_kernel_config *c);
    /* A launch of the configured problem (c: configure's answer for a->p and d) */
    cudaError_t (*launch)(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *d,
                          cudaStream_t s);
    /* Every id (cgp_path_id, with CGP_PATH_FLAG_WEIGHTS_4B) that configure can name and a launch record, path_count
     * of them: what tests/cpu/cpu_paths.c holds the configurations against */
    const unsigned short *paths;
    int path_count;
    /* The stage split, or both NULL (the tensor-core versions have one on their fast path):
     * stages_unsupported: NULL when launch_stages runs this problem, else a sentence saying why not;
     * launch_stages: a launch of only the stages in `stages` (CGP_STAGE_*), a lab measurement: its kernels other
     * than the configured one set their own shared-memory limit */
    const char *(*stages_unsupported)(const cgp_problem *p, const cgp_device_info *d);
    cudaError_t (*launch_stages)(const cgp_launch_args *a, const cgp_kernel_config *c, const cgp_device_info *d,
                                 cudaStream_t s, int stages);
};

/* The names of a run of path ids: first, first + 1, ..., first + count - 1 (text[i] names first + i), composed by
 * the family whose kernels record them (path_names.cuh); dispatch.cu's cgp_path_name reads every family's */
typedef struct cgp_path_names {
    unsigned first;
    int count;
    const char (*text)[CGP_PATH_NAME_MAX];
} cgp_path_names;

/* Every family's run of path names, count of them (tests/cpu/cpu_paths.c holds them inside the ids and apart) */
const cgp_path_names *const *cgp_path_name_ranges(int *count);

/* configure's answer of version k for p on d (c zeroed first); call only where k->unsupported(p, d) is NULL */
void cgp_kernel_configure(const cgp_kernel_desc *k, const cgp_problem *p, const cgp_device_info *d,
                          cgp_kernel_config *c);

/* Raises the dynamic shared-memory limit of c's kernels on the current device to c->smem_bytes where it is lower
 * (never lowers it: another plan may need more of the same kernel; serialised across threads); once a plan, before
 * its first launch. cudaSuccess, or the error of the CUDA call that failed. */
cudaError_t cgp_kernel_prepare(const cgp_kernel_config *c);

#ifdef __cplusplus
}
#endif
#endif
