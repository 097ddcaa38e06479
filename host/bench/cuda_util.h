/*
 * cuda_util.h - error checking for the tools (CLI, benchmarks, tests). A failing CUDA call
 * prints the call, file and line, and the CUDA error name and string, then exits 1.
 * (The library itself never exits: it returns cgp_status codes.)
 */
#ifndef CGP_CUDA_UTIL_H
#define CGP_CUDA_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#define CUDA_CHECK(call)                                                                               \
    do {                                                                                               \
        cudaError_t cuda_check_err_ = (call);                                                          \
        if (cuda_check_err_ != cudaSuccess) {                                                          \
            fprintf(stderr, "cgp: CUDA error in %s at %s:%d: %s: %s\n", #call, __FILE__, __LINE__,     \
                    cudaGetErrorName(cuda_check_err_), cudaGetErrorString(cuda_check_err_));           \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

/* after a kernel launch: the launch error now, then (optionally) the execution error */
#define CUDA_CHECK_LAST() CUDA_CHECK(cudaGetLastError())

#endif
