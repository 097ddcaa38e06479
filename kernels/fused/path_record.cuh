/*
 * path_record.cuh - the path a launch took, recorded by the launch itself (library layer): every fused kernel
 * starts with record_path, so that the tests and the bench can tell what ran from what the launch did rather
 * than from what the host asked for (a version's `path` hook). The word is the plan's (cgp_launch_args.path_record,
 * kernel_api.h), read and cleared by cgp_plan_recorded_path (host/lib/plan_stages.h).
 *
 *   record_path(path_record, id)   thread 0 of every block ORs in id (a cgp_path_id with its variant bits, below
 *                                  2^16) and its complement in the high half: one predicated reduction a block.
 *                                  Blocks that all record id leave id | ~id << 16; any block recording another
 *                                  sets a bit in both halves, which cgp_path_name names CGP_PATH_NAME_MIXED
 */
#ifndef CGP_PATH_RECORD_CUH
#define CGP_PATH_RECORD_CUH

#include "kernel_api.h"

static_assert((CGP_PATH_COUNT | CGP_PATH_FLAG_WEIGHTS_4B) < 0x10000, "a path id and its complement in one word");

__device__ __forceinline__ void record_path(unsigned *path_record, unsigned id)
{
    if ((threadIdx.x | threadIdx.y | threadIdx.z) == 0)
        atomicOr(path_record, id | (~id & 0xffffu) << 16);
}

#endif
