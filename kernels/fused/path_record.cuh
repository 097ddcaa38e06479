/*
 * path_record.cuh - the path a launch took, recorded by the launch itself (library layer): every fused kernel
 * starts with record_path, so that the tests and the bench can tell what ran from what the launch did rather
 * than from what the host asked for (a version's `path` hook). The word is the plan's (cgp_launch_args.path_record,
 * kernel_api.h), read and cleared by cgp_plan_recorded_path (host/lib/plan_stages.h).
 *
 *   record_path(path_record, id)   thread 0 of block (0, 0, 0) writes id, a cgp_path_id: one predicated store
 *                                  per launch
 */
#ifndef CGP_PATH_RECORD_CUH
#define CGP_PATH_RECORD_CUH

#include "kernel_api.h"

__device__ __forceinline__ void record_path(unsigned *path_record, unsigned id)
{
    if ((threadIdx.x | threadIdx.y | threadIdx.z | blockIdx.x | blockIdx.y | blockIdx.z) == 0)
        *path_record = id;
}

#endif
