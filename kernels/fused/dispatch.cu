/*
 * dispatch.cu - the table of fused kernel versions the plan chooses from (kernel_api.h).
 * Within each precision the most preferred version comes first: version 0 ("best") takes the
 * first one whose `unsupported` hook accepts the problem. Older versions stay selectable with
 * `--kernel N` so the history in docs/perf-log.md can be re-measured.
 */
#include "kernel_api.h"

extern "C" const cgp_kernel_desc cgp_kernel_fp32_v1, cgp_kernel_fp32_v2, cgp_kernel_fp32_v3, cgp_kernel_fp32_v4,
    cgp_kernel_fp32_v5, cgp_kernel_fp32_v6, cgp_kernel_fp32_v7, cgp_kernel_fp32_v8, cgp_kernel_fp32_v9;
extern "C" const cgp_kernel_desc cgp_kernel_tf32_v1, cgp_kernel_tf32_v2, cgp_kernel_tf32_v3, cgp_kernel_tf32_v4,
    cgp_kernel_tf32_v5, cgp_kernel_tf32_v6, cgp_kernel_tf32_v7, cgp_kernel_tf32_v8, cgp_kernel_tf32x3_v1,
    cgp_kernel_tf32x3_v2, cgp_kernel_tf32x3_v3, cgp_kernel_tf32x3_v4, cgp_kernel_tf32x3_v5, cgp_kernel_tf32x3_v6,
    cgp_kernel_tf32x3_v7, cgp_kernel_tf32x3_v8;

static const cgp_kernel_desc *const kernel_table[] = {
    &cgp_kernel_fp32_v9, /* fp32: Winograd F(4x4,3x3), GEMMs and output transform in registers */
    &cgp_kernel_fp32_v8, /*       Winograd F(2x2,3x3), GEMMs and output transform in registers */
    &cgp_kernel_fp32_v7, /*       Winograd F(2x2,3x3) through shared memory */
    &cgp_kernel_fp32_v6, /*       direct, register-blocked, 16 warps */
    &cgp_kernel_fp32_v5, /*       8 warps, one barrier per tile */
    &cgp_kernel_fp32_v4, /*       one more barrier, one channel per epilogue step */
    &cgp_kernel_fp32_v3, /*       fully unrolled (large code) */
    &cgp_kernel_fp32_v2, /*       the same with libdevice erff */
    &cgp_kernel_fp32_v1, /*       generic, any shape */
    &cgp_kernel_tf32_v8,   /* tf32: tf32-v7 with 16-row tiles, one operand tile */
    &cgp_kernel_tf32_v7,   /*       tf32-v6 with tiles rounded as wgmma reads them */
    &cgp_kernel_tf32_v6,   /*       tf32-v5 with TMA tile loads (valid padding, W % 4 = 0), 4x4 conversion */
    &cgp_kernel_tf32_v5,   /*       tf32-v4 with gelu_x2 (exponential form, one MUFU) */
    &cgp_kernel_tf32_v4,   /*       wgmma (sm_90a), one row's epilogue while the next row's MMAs run */
    &cgp_kernel_tf32_v3,   /*       2-row warp tiles, one tile's epilogue inside the next one's MMAs */
    &cgp_kernel_tf32_v1,   /*       mma.sync implicit GEMM, 4-row warp tiles, 8 warps (generic path inside) */
    &cgp_kernel_tf32_v2,   /*       2-row warp tiles, 16 warps */
    &cgp_kernel_tf32x3_v8, /* 3xtf32: 3xtf32-v7 with 8-row tiles, one operand tile */
    &cgp_kernel_tf32x3_v7, /*         3xtf32-v6 with D transposed, the big weights in registers */
    &cgp_kernel_tf32x3_v6, /*         3xtf32-v5 with tiles split as wgmma reads them */
    &cgp_kernel_tf32x3_v5, /*         3xtf32-v4 with gelu_x2_fine */
    &cgp_kernel_tf32x3_v4, /*         3xtf32-v3 with tf32-v6's TMA staging */
    &cgp_kernel_tf32x3_v3, /*         wgmma (sm_90a), as tf32-v4 */
    &cgp_kernel_tf32x3_v2, /*         12 warps per block */
    &cgp_kernel_tf32x3_v1, /*         big + small split, three products, 8 warps */
};

extern "C" const cgp_kernel_desc *const *cgp_kernel_table(int *count)
{
    *count = (int)(sizeof(kernel_table) / sizeof(kernel_table[0]));
    return kernel_table;
}
