/*
 * fused_wgmma.cu - the preferred fused kernels of precisions TF32 and 3xTF32 on an H100/H200 (library layer):
 * tf32-v8 (version 18) and 3xtf32-v8 (version 28), both on Hopper's wgmma (sm_90a). wgmma_conv.cuh holds the
 * kernel they configure; docs/design.md ("The wgmma kernels") draws its layouts.
 *
 *   tf32-v8     D = X W (pixels x channels) on wgmma m64n64k8 tf32, fp32 accumulation, both operands from
 *               shared memory. A block is one warpgroup, 2 blocks per SM, on a persistent grid over tiles of
 *               16 output rows x 64 columns x 64 channels. A tile's input window comes by TMA (W % 4 = 0;
 *               padding same by a box from 4 columns left of the tile; else by cp.async) and, once the rows
 *               in flight are done, is converted in 4 x 4 blocks into the one operand tile, rounded only as
 *               far as wgmma reads (padding same: rows of 80 pixels, the window from pixel 8). While the
 *               tensor cores compute one output row, the warps run the previous row's bias, GELU (gelu_x2,
 *               the exponential form) and sums; the reduction to y happens in the same launch (reduction.cuh).
 *   3xtf32-v8   the same with the 3xTF32 split (x = big + small, weights likewise; small * small dropped):
 *               fp32-level accuracy from 28 wgmmas a row chained in one accumulator, the corrections first.
 *               D = W X^T (channels x pixels), so the big weights are wgmma's A operand in registers, loaded
 *               once; tiles of 8 rows; gelu_x2_fine.
 * Both run Cin <= 8 (the channels past Cin zeros) and Cout <= 64 on an sm_90 GPU with a build for sm_90a (SM=90)
 * and refuse anything else, with the reason; version 0 ("best") then takes the implicit GEMMs (tf32-v10 /
 * 3xtf32-v10, fused_implicit_gemm_wgmma.cu). The versions they replaced are in history/fused_wgmma.cu.
 */
#include "path_names.cuh"
#include "wgmma_conv.cuh"

namespace {

struct Tf32V8 {
    static constexpr cgp_precision precision = CGP_PRECISION_TF32;
    static constexpr int rows = 16, blocks_per_sm = 2, sets = 2, operand_tiles = 1;
    static constexpr GeluForm gelu = kGeluX2;
    /* wide_shifted_tile: measured 3% faster on the default problem with padding same (docs/perf-log.md) */
    static constexpr bool shifted_box = true, wide_shifted_tile = true, transposed = false;
    static constexpr Conversion conversion = kConvert4x4ForMma;
    static constexpr const char *summary =
        "Hopper wgmma (sm_90a, m64n64k8 tf32, operands from shared memory), one warpgroup per block, 2 blocks per SM, "
        "16-row x 64-column tiles by TMA (else cp.async) into one operand tile, gelu_x2; one output row's GELU/mean "
        "runs while the tensor cores compute the next (Cin <= 8, Cout <= 64, sm_90a)";
};

struct Tf32x3V8 : Tf32V8 {
    static constexpr cgp_precision precision = CGP_PRECISION_TF32X3;
    static constexpr int rows = 8;
    static constexpr GeluForm gelu = kGeluX2Fine;
    /* wide_shifted_tile: its operand tile (big and small halves) would not fit twice in an SM's shared memory */
    static constexpr bool wide_shifted_tile = false, transposed = true;
    static constexpr const char *summary =
        "Hopper wgmma with the 3xTF32 split (fp32-level accuracy): D = W X^T with the big weights in registers, 28 "
        "wgmmas a row chained in one accumulator, 8-row x 64-column tiles by TMA (else cp.async), gelu_x2_fine "
        "(Cin <= 8, Cout <= 64, sm_90a)";
};

} // namespace

/* The names of the paths of wgmma_conv.cuh's versions, here and in history/fused_wgmma.cu (path_names.cuh): the
 * input tiles by TMA or cp.async, then by TMA from 4 columns left of the tile */
CGP_DEFINE_PATH_NAMES(cgp_paths_wgmma_staging, CGP_PATH_TMA, path_name_list("tma", "cp.async"))
CGP_DEFINE_PATH_NAMES(cgp_paths_wgmma_shifted, CGP_PATH_TMA_SHIFTED, path_name_list("tma, shifted box"))

/* X(descriptor, hooks, version, name, summary, kind) for each version of this file */
#define WGMMA_VERSIONS(X)                                                                                              \
    X(cgp_kernel_tf32_v8, WgmmaVersion<Tf32V8>, 18, "tf32-v8", Tf32V8::summary, kWgmmaKind<Tf32V8>)                    \
    X(cgp_kernel_tf32x3_v8, WgmmaVersion<Tf32x3V8>, 28, "3xtf32-v8", Tf32x3V8::summary, kWgmmaKind<Tf32x3V8>)

WGMMA_VERSIONS(CGP_DEFINE_KERNEL_DESC)
