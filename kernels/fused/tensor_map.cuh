/*
 * tensor_map.cuh - the tensor map of the input x for TMA box copies (library layer, host side), shared by the kernels
 * that stage their input windows by TMA (wgmma_conv.cuh: tf32-v6, v8, 3xtf32-v7, v8; implicit_gemm_wgmma.cuh's
 * tma_window_map: tf32-v13, 3xtf32-v12, v13; fused_fp32_winograd_gemm.cu: fp32-v12):
 *
 *   tensor_map_encoder            the driver's cuTensorMapEncodeTiled, looked up once through the runtime
 *   input_tensor_map_unsupported  why TMA cannot read this problem's x (NULL where it can)
 *   input_tensor_map              x as a 4D tensor (W, H, Cin, N) read in boxes of box_w x box_h x box_c, zeros
 *                                 outside it (past Cin, above, below, left and right of the image)
 *
 * The device side (the box copy, its mbarrier) is async_copy.cuh's tma_load_4d.
 */
#ifndef CGP_TENSOR_MAP_CUH
#define CGP_TENSOR_MAP_CUH

#include <cuda.h> /* CUtensorMap, a type only: the encoder comes through cudaGetDriverEntryPointByVersion */
#include <cudaTypedefs.h>
#include <stdint.h>

#include "cgp.h"
#include "kernel_api.h"

namespace {

/* cuTensorMapEncodeTiled from the driver, looked up once (a static initialized by a lambda: thread-safe);
 * NULL where the driver has none */
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder()
{
    static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
        const bool ok =
            cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) ==
                cudaSuccess &&
            found == cudaDriverEntryPointSuccess;
        return ok ? reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn) : nullptr;
    }();
    return encode;
}

/* TMA reads rows whose stride is a multiple of 16 bytes (W % 4 = 0), at 32-bit coordinates (N below 2^31), with
 * strides below 2^40 bytes, through the driver's encoder (d->tma_encoder: tensor_map_encoder found it, or the
 * described device has it); x itself is 16-byte aligned (the plan checks it) */
const char *input_tensor_map_unsupported(const cgp_problem *p, const cgp_device_info *d)
{
    if (p->w % 4 != 0)
        return "needs W a multiple of 4 (TMA reads rows of a multiple of 16 bytes)";
    if (p->n > INT32_MAX)
        return "needs N below 2^31 (TMA's 32-bit coordinates)";
    if (p->cin * p->h * p->w >= ((int64_t)1 << 38))
        return "needs an image below 2^40 bytes (TMA's strides)";
    if (!d->tma_encoder)
        return "the driver has no cuTensorMapEncodeTiled (TMA)";
    return NULL;
}

/* The map of x: dims (W, H, Cin, N), box (box_w, box_h, box_c, 1), zeros outside the tensor; false where the encoder
 * refuses it */
bool input_tensor_map(CUtensorMap *map, const cgp_problem &p, const float *x, uint32_t box_w, uint32_t box_h,
                      uint32_t box_c)
{
    const cuuint64_t dims[4] = {(cuuint64_t)p.w, (cuuint64_t)p.h, (cuuint64_t)p.cin, (cuuint64_t)p.n};
    const cuuint64_t strides[3] = {(cuuint64_t)p.w * 4, (cuuint64_t)(p.h * p.w) * 4,
                                   (cuuint64_t)(p.cin * p.h * p.w) * 4};
    const cuuint32_t box[4] = {box_w, box_h, box_c, 1}, unit[4] = {1, 1, 1, 1};
    return tensor_map_encoder()(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, const_cast<float *>(x), dims, strides, box,
                                unit, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

} // namespace

#endif
