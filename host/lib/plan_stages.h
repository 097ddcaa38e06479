/*
 * plan_stages.h - what the tools and the tests ask of a plan beyond include/cgp.h (libcgp.so exports neither):
 *   the stage split behind `cgp bench --stages`: runs a plan's kernel with only some of its stages
 *   (CGP_STAGE_MMA, CGP_STAGE_EPILOGUE, both or neither, kernel_info.h); a skipped stage is replaced by a
 *   stand-in of one instruction per output element, so y is not the function. It exists to time stages, not
 *   to compute;
 *   the path the plan's launches took, as they recorded it themselves (kernels/fused/path_record.cuh), for the
 *   tests to hold against the version's `path` hook and for the bench to name.
 */
#ifndef CGP_PLAN_STAGES_H
#define CGP_PLAN_STAGES_H

#include "cgp.h"

/* As cgp_plan_run; CGP_ERROR_UNSUPPORTED when the plan's kernel has no stage split for its shape. */
cgp_status cgp_plan_run_stages(cgp_plan *plan, const float *x, const float *weight, const float *bias, float *y,
                               void *workspace, size_t workspace_bytes, int stages, cudaStream_t stream);

/* The name of the path that the launches with the plan's state recorded since the previous call (cgp_plan_run,
 * cgp_plan_run_stages; cgp_plan_create_measured clears what its candidates' timed runs recorded), exactly as the `path` hook of
 * the launches' version names it for their weight pointer; every block of every launch records (path_record.cuh),
 * so blocks or launches that took different paths give CGP_PATH_NAME_MIXED (kernel_info.h); NULL when no launch
 * recorded one (or an id cgp_path_name does not know).
 * Synchronizes the device (the launches may be on any stream), then clears the record, so that the next call sees
 * only what later launches wrote. CGP_ERROR_CUDA when a CUDA call fails (cgp_last_error_detail names it) or the
 * current device is not the plan's. */
cgp_status cgp_plan_recorded_path(cgp_plan *plan, const char **name);

#endif
