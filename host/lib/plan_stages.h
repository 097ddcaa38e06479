/*
 * plan_stages.h - the stage split behind `cgp bench --stages`: runs a plan's kernel with only some
 * of its stages (CGP_STAGE_MMA, CGP_STAGE_EPILOGUE, both or neither, kernel_api.h); a skipped stage
 * is replaced by a stand-in of one instruction per output element, so y is not the function.
 * Internal to the tool (libcgp.so does not export it): it exists to time stages, not to compute.
 */
#ifndef CGP_PLAN_STAGES_H
#define CGP_PLAN_STAGES_H

#include "cgp.h"

/* As cgp_plan_run; CGP_ERROR_UNSUPPORTED when the plan's kernel has no stage split for its shape. */
cgp_status cgp_plan_run_stages(cgp_plan *plan, const float *x, const float *weight, const float *bias, float *y,
                               void *workspace, size_t workspace_bytes, int stages, cudaStream_t stream);

#endif
