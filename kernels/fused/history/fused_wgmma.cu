/*
 * history/fused_wgmma.cu - the superseded wgmma versions (library layer), kept selectable so that
 * docs/perf-log.md can be re-measured: tf32-v4..v7 (versions 14-17) and 3xtf32-v3..v7 (23-27), each the
 * one before it with one change, up to tf32-v8 and 3xtf32-v8 (fused_wgmma.cu). The kernel is wgmma_conv.cuh's;
 * only what a version sets differs. Like the current versions, they run Cin <= 8 (the channels past Cin zeros) and
 * Cout <= 64 on an sm_90 GPU with a build for sm_90a and refuse anything else.
 */
#include "wgmma_conv.cuh"

namespace {

/* tf32-v4: 8-row tiles staged by cp.async, converted per pixel with cvt.rna into two operand tiles, gelu_tf32.
 * 8 rows and 2 blocks beat 4 rows and 3 blocks, which must fit fewer registers and spill (docs/perf-log.md) */
struct Tf32V4 {
    static constexpr cgp_precision precision = CGP_PRECISION_TF32;
    static constexpr int rows = 8, blocks_per_sm = 2, sets = 2, operand_tiles = 2;
    static constexpr GeluForm gelu = kGeluLog;
    static constexpr bool staged_by_tma = false, shifted_box = false, wide_shifted_tile = false, transposed = false;
    static constexpr Conversion conversion = kConvertPixel;
    static constexpr const char *summary =
        "Hopper wgmma (sm_90a, m64n64k8 tf32, both operands from shared memory), one warpgroup per block, 2 blocks "
        "per SM, 8-row tiles, gelu_tf32; the GELU/mean epilogue of one output row runs while the tensor cores compute "
        "the next (Cin <= 8, Cout <= 64, sm_90a)";
};
struct Tf32V5 : Tf32V4 {
    static constexpr GeluForm gelu = kGeluX2;
    static constexpr const char *summary =
        "tf32-v4 with gelu_x2, the exponential-form GELU: 9 instructions and one MUFU per GELU instead of 14 and two "
        "(Cin <= 8, Cout <= 64, sm_90a)";
};
struct Tf32V6 : Tf32V5 {
    static constexpr bool staged_by_tma = true;
    static constexpr Conversion conversion = kConvert4x4;
    static constexpr const char *summary =
        "tf32-v5 with its input tiles loaded by TMA (one 4D box copy a tile, issued by one thread, where W % 4 = 0) "
        "and converted in 4 x 4 blocks (Cin <= 8, Cout <= 64, sm_90a)";
};
struct Tf32V7 : Tf32V6 {
    static constexpr Conversion conversion = kConvert4x4ForMma;
    static constexpr const char *summary =
        "tf32-v6 with its tiles rounded as wgmma reads them (bits plus half a tf32 ulp, the low 13 bits left): 3 "
        "instructions an element instead of cvt.rna's 4 (Cin <= 8, Cout <= 64, sm_90a)";
};

/* 3xtf32-v3: tf32-v4's design with the 3xTF32 split and 4-row tiles (3xTF32's 8-row tiles would leave room for
 * one block an SM), gelu_fast */
struct Tf32x3V3 : Tf32V4 {
    static constexpr cgp_precision precision = CGP_PRECISION_TF32X3;
    static constexpr int rows = 4;
    static constexpr const char *summary =
        "tf32-v4's wgmma design with the 3xTF32 split: input split when staged, weights once, 27 product wgmmas a row "
        "chained in the accumulator, 2 blocks per SM (Cin <= 8, Cout <= 64, sm_90a)";
};
struct Tf32x3V4 : Tf32x3V3 {
    static constexpr bool staged_by_tma = true;
    static constexpr Conversion conversion = kConvert4x4;
    static constexpr const char *summary =
        "3xtf32-v3 with tf32-v6's staging: input tiles by TMA (valid padding, W % 4 = 0), split in 4 x 4 blocks (Cin "
        "= 8, Cout <= 64, sm_90a)";
};
struct Tf32x3V5 : Tf32x3V4 {
    static constexpr GeluForm gelu = kGeluX2Fine;
    static constexpr const char *summary =
        "3xtf32-v4 with gelu_x2_fine, the exponential-form GELU with a degree-7 fit: 11 instructions and one MUFU per "
        "GELU instead of gelu_fast's 16 and two (Cin <= 8, Cout <= 64, sm_90a)";
};
struct Tf32x3V6 : Tf32x3V5 {
    static constexpr Conversion conversion = kConvert4x4ForMma;
    static constexpr const char *summary =
        "3xtf32-v5 with its tiles split as wgmma reads them (big truncated, small = v - big plus half a tf32 ulp): 3 "
        "instructions an element instead of 9 (Cin <= 8, Cout <= 64, sm_90a)";
};
struct Tf32x3V7 : Tf32x3V6 {
    static constexpr bool transposed = true;
    static constexpr const char *summary =
        "3xtf32-v6 with D transposed (channels x pixels): the big weights are wgmma's A operand in registers, so 18 "
        "of a row's 28 wgmmas read only the input window from shared memory (Cin <= 8, Cout <= 64, sm_90a)";
};

} // namespace

/* X(descriptor, hooks, version, name, summary, kind) for each version of this file */
#define WGMMA_HISTORY_VERSIONS(X)                                                                                      \
    X(cgp_kernel_tf32_v4, WgmmaVersion<Tf32V4>, 14, "tf32-v4", Tf32V4::summary,                                        \
      kWgmmaKind<Tf32V4>.history())                                                                                    \
    X(cgp_kernel_tf32_v5, WgmmaVersion<Tf32V5>, 15, "tf32-v5", Tf32V5::summary,                                        \
      kWgmmaKind<Tf32V5>.history())                                                                                    \
    X(cgp_kernel_tf32_v6, WgmmaVersion<Tf32V6>, 16, "tf32-v6", Tf32V6::summary,                                        \
      kWgmmaKind<Tf32V6>.history())                                                                                    \
    X(cgp_kernel_tf32_v7, WgmmaVersion<Tf32V7>, 17, "tf32-v7", Tf32V7::summary,                                        \
      kWgmmaKind<Tf32V7>.history())                                                                                    \
    X(cgp_kernel_tf32x3_v3, WgmmaVersion<Tf32x3V3>, 23, "3xtf32-v3", Tf32x3V3::summary,                                \
      kWgmmaKind<Tf32x3V3>.history())                                                                                  \
    X(cgp_kernel_tf32x3_v4, WgmmaVersion<Tf32x3V4>, 24, "3xtf32-v4", Tf32x3V4::summary,                                \
      kWgmmaKind<Tf32x3V4>.history())                                                                                  \
    X(cgp_kernel_tf32x3_v5, WgmmaVersion<Tf32x3V5>, 25, "3xtf32-v5", Tf32x3V5::summary,                                \
      kWgmmaKind<Tf32x3V5>.history())                                                                                  \
    X(cgp_kernel_tf32x3_v6, WgmmaVersion<Tf32x3V6>, 26, "3xtf32-v6", Tf32x3V6::summary,                                \
      kWgmmaKind<Tf32x3V6>.history())                                                                                  \
    X(cgp_kernel_tf32x3_v7, WgmmaVersion<Tf32x3V7>, 27, "3xtf32-v7", Tf32x3V7::summary,                                \
      kWgmmaKind<Tf32x3V7>.history())

WGMMA_HISTORY_VERSIONS(CGP_DEFINE_KERNEL_DESC)
