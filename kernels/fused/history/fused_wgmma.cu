/*
 * history/fused_wgmma.cu - the earlier wgmma versions that are still the measured best on some Cin <= 8 shapes
 * (library layer): tf32-v6 (version 16) and 3xtf32-v7 (27), on the way to tf32-v8 and 3xtf32-v8 (fused_wgmma.cu);
 * the steps between them left the library (docs/perf-log.md names the commit that has them). The kernel is
 * wgmma_conv.cuh's; only what a version sets differs. Like tf32-v8, they run Cin <= 8 (the channels past Cin zeros)
 * and Cout <= 64 on an sm_90 GPU with a build for sm_90a and refuse anything else.
 */
#include "wgmma_conv.cuh"

namespace {

/* tf32-v6: 8-row tiles by TMA where W % 4 = 0 (else cp.async) into two operand tiles, converted in 4 x 4 blocks with
 * cvt.rna, gelu_x2 (the exponential-form GELU). 8 rows and 2 blocks beat 4 rows and 3 blocks, which must fit fewer
 * registers and spill (docs/perf-log.md) */
struct Tf32V6 {
    static constexpr cgp_precision precision = CGP_PRECISION_TF32;
    static constexpr int rows = 8, blocks_per_sm = 2, sets = 2, operand_tiles = 2;
    static constexpr GeluForm gelu = kGeluX2;
    static constexpr bool shifted_box = false, wide_shifted_tile = false, transposed = false;
    static constexpr Conversion conversion = kConvert4x4;
    static constexpr const char *summary =
        "Hopper wgmma (sm_90a, m64n64k8 tf32, both operands from shared memory), one warpgroup per block, 2 blocks "
        "per SM, 8-row tiles loaded by TMA (one 4D box copy a tile, issued by one thread, where W % 4 = 0; else "
        "cp.async) and converted in 4 x 4 blocks, gelu_x2; the GELU/mean epilogue of one output row runs while the "
        "tensor cores compute the next (Cin <= 8, Cout <= 64, sm_90a)";
};

/* 3xtf32-v7: the 3xTF32 split on 4-row tiles (8-row tiles would leave room for one block an SM) by TMA where W % 4
 * = 0, split in 4 x 4 blocks as wgmma reads them, gelu_x2_fine (the exponential form with a degree-7 fit), and D
 * transposed (channels x pixels) */
struct Tf32x3V7 {
    static constexpr cgp_precision precision = CGP_PRECISION_TF32X3;
    static constexpr int rows = 4, blocks_per_sm = 2, sets = 2, operand_tiles = 2;
    static constexpr GeluForm gelu = kGeluX2Fine;
    static constexpr bool shifted_box = false, wide_shifted_tile = false, transposed = true;
    static constexpr Conversion conversion = kConvert4x4ForMma;
    static constexpr const char *summary =
        "Hopper wgmma with the 3xTF32 split (input split when staged, weights once), D = W X^T with the big weights "
        "wgmma's A operand in registers, so 18 of a row's 28 wgmmas read only the input window from shared memory; "
        "4-row tiles by TMA (else cp.async) split as wgmma reads them (big truncated, small = v - big plus half a "
        "tf32 ulp), gelu_x2_fine, 2 blocks per SM (Cin <= 8, Cout <= 64, sm_90a)";
};

} // namespace

/* X(descriptor, hooks, version, name, summary, kind) for each version of this file */
#define WGMMA_HISTORY_VERSIONS(X)                                                                                      \
    X(cgp_kernel_tf32_v6, WgmmaVersion<Tf32V6>, 16, "tf32-v6", Tf32V6::summary,                                        \
      kWgmmaKind<Tf32V6>.history())                                                                                    \
    X(cgp_kernel_tf32x3_v7, WgmmaVersion<Tf32x3V7>, 27, "3xtf32-v7", Tf32x3V7::summary,                                \
      kWgmmaKind<Tf32x3V7>.history())

WGMMA_HISTORY_VERSIONS(CGP_DEFINE_KERNEL_DESC)
