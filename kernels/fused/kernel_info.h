/*
 * kernel_info.h - what the numbered kernel versions are and what each would do with a problem, for the tools
 * (host/cli, host/bench, host/plot) and the plan code (library layer): the problem and device as the versions see
 * them, the paths a launch records and their names, a version's kind (cgp_kernel_kind_name), and the table with
 * its questions (cgp_kernel_unsupported, cgp_kernel_path). A version's descriptor
 * is opaque here; its launch contract (cgp_launch_args, the hooks) is kernel_api.h's, which only the plan code and
 * the kernels include. Implemented in kernels/fused/dispatch.cu.
 */
#ifndef CGP_KERNEL_INFO_H
#define CGP_KERNEL_INFO_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A validated problem: sizes plus the derived output size. */
typedef struct cgp_problem {
    int64_t n, cin, cout, h, w;
    int64_t hout, wout;
    int pad; /* 0 (valid) or 1 (same) */
} cgp_problem;

/* 1 where `weight` is not 16-byte aligned: the `path` hook's weights_misaligned for a launch with that pointer */
static inline int cgp_weights_misaligned(const void *weight) { return (uintptr_t)weight % 16 != 0; }

typedef struct cgp_device_info {
    int sm_count;
    int cc_major, cc_minor;
    size_t smem_per_block_optin; /* bytes a block may use after cudaFuncSetAttribute */
    int tma_encoder; /* 1 where the driver has cuTensorMapEncodeTiled (the TMA versions' tensor maps) */
} cgp_device_info;

/* An H200 as cgp_device_info_of describes it: 132 SMs, compute capability 9.0 (clusters, TMA, wgmma), 227 KiB of
 * shared memory a block, a driver with the tensor-map encoder; for the hooks' choices without a GPU */
#define CGP_DEVICE_INFO_H200 {132, 9, 0, 232448, 1}

/* The paths a launch can take inside a version, numbered for the launch to record (cgp_launch_args.path_record);
 * cgp_path_name gives each the name cgp_kernel_path returns, which the family whose kernels record the id composes
 * from its own tiles and splits (path_names.cuh; the names quoted below are what it composes). 0: nothing
 * recorded. */
enum cgp_path_id {
    CGP_PATH_NONE = 0,
    CGP_PATH_GENERIC, /* "generic": fp32-v1 */
    /* 2 and 3 were the retired versions' "fast" (tf32-v1..v3, 3xtf32-v1, v2) and "direct" (fp32-v2..v6) paths: the
     * numbers stay taken, so that the ids after them, which the kernels record, do not move */
    CGP_PATH_WINOGRAD_F2X2 = 4, /* "winograd-f2x2": fp32-v7 */
    CGP_PATH_WINOGRAD_F4X4, /* "winograd-f4x4": fp32-v9 */
    CGP_PATH_TMA,           /* "tma": a wgmma version's input tiles staged by TMA */
    CGP_PATH_CP_ASYNC,      /* "cp.async": a wgmma version's input tiles staged by cp.async */
    /* the mma.sync implicit GEMMs' (tf32-v9, 3xtf32-v9) 4 tiles: CGP_PATH_IGEMM_TILE0 + the tile's index in
     * fused_implicit_gemm.cu's order, "8x16 px x 64 ch", "8x8 px x 64 ch", "8x16 px x 32 ch", "8x8 px x 32 ch" */
    CGP_PATH_IGEMM_TILE0,
    /* the wgmma implicit GEMMs' (tf32-v10, 3xtf32-v10) 6 tiles: CGP_PATH_IGEMM_WGMMA_TILE0 + the tile's index in
     * fused_implicit_gemm_wgmma.cu's order, "16x16 px x 64 ch", "8x16 px x 64 ch", "8x8 px x 64 ch",
     * "16x16 px x 32 ch", "8x16 px x 32 ch", "8x8 px x 32 ch" */
    CGP_PATH_IGEMM_WGMMA_TILE0 = CGP_PATH_IGEMM_TILE0 + 4,
    /* the FFMA implicit GEMM's (fp32-v10) 6 tiles x 3 K splits: CGP_PATH_FFMA_IGEMM_TILE0 + the tile's index in
     * fused_fp32_implicit_gemm.cu's order ("ffma 16x16 px x 64 ch", "ffma 8x16 px x 64 ch", "ffma 8x8 px x 64 ch",
     * "ffma 8x16 px x 128 ch", "ffma 16x16 px x 32 ch", "ffma 8x8 px x 32 ch") + 6 x the split's index (K whole,
     * split over a cluster of 2 or 8 blocks: ", K split 2", ", K split 8") */
    CGP_PATH_FFMA_IGEMM_TILE0 = CGP_PATH_IGEMM_WGMMA_TILE0 + 6,
    /* the Winograd GEMM's (fp32-v11) 2 tiles x 3 K splits: CGP_PATH_WINOGRAD_GEMM_TILE0 + the tile's index in
     * fused_fp32_winograd_gemm.cu's order ("winograd 8x16 px x 64 ch", "winograd 16x16 px x 32 ch") + 2 x the
     * split's index (K whole, split over a cluster of 2 or 4 blocks: ", K split 2", ", K split 4") */
    CGP_PATH_WINOGRAD_GEMM_TILE0 = CGP_PATH_FFMA_IGEMM_TILE0 + 18,
    /* the wgmma implicit GEMMs' 6 tiles with K split over a cluster of 2 blocks (CGP_PATH_IGEMM_WGMMA_SPLIT_TILE0 +
     * the tile's index, its name + ", K split 2"), then over 4 (+ 6 + the index, ", K split 4") */
    CGP_PATH_IGEMM_WGMMA_SPLIT_TILE0 = CGP_PATH_WINOGRAD_GEMM_TILE0 + 6,
    /* "tma, shifted box": a wgmma version's input tiles of padding same staged by TMA, the box from 4 columns left of
     * the tile (tf32-v8, 3xtf32-v8) */
    CGP_PATH_TMA_SHIFTED = CGP_PATH_IGEMM_WGMMA_SPLIT_TILE0 + 12,
    /* "winograd-f4x4, shifted window": fp32-v9 on padding same with W % 4 = 0, its window copied in 16-byte chunks
     * from 4 columns left of the tile */
    CGP_PATH_WINOGRAD_F4X4_SHIFTED,
    /* the wgmma implicit GEMMs with resident weights' (tf32-v11, 3xtf32-v11) 6 tiles: CGP_PATH_RESIDENT_TILE0 + the
     * tile's index in kTileShapes (implicit_gemm_wgmma.cuh), named "resident " + its tf32-v10 name */
    CGP_PATH_RESIDENT_TILE0,
    /* the same with the input windows landed by TMA (3xtf32-v12): CGP_PATH_RESIDENT_TMA_TILE0 + the tile's
     * index, named "resident TMA " + its tf32-v10 name */
    CGP_PATH_RESIDENT_TMA_TILE0 = CGP_PATH_RESIDENT_TILE0 + 6,
    /* the wgmma implicit GEMMs with the input windows landed by TMA (tf32-v13, 3xtf32-v13): their 6 tiles
     * (CGP_PATH_IGEMM_WGMMA_TMA_TILE0 + the index), then with K split over 2 and 4 blocks
     * (CGP_PATH_IGEMM_WGMMA_TMA_SPLIT_TILE0 + the index, + 6 + the index), named "TMA " + tf32-v10's name */
    CGP_PATH_IGEMM_WGMMA_TMA_TILE0 = CGP_PATH_RESIDENT_TMA_TILE0 + 6,
    CGP_PATH_IGEMM_WGMMA_TMA_SPLIT_TILE0 = CGP_PATH_IGEMM_WGMMA_TMA_TILE0 + 6,
    /* the F(4x4) Winograd GEMM's (fp32-v12) tile x 3 K splits: CGP_PATH_WINOGRAD_F4X4_GEMM_TILE0 + the split's index
     * ("TMA winograd-f4x4 16x32 px x 32 ch", then ", K split 2", ", K split 4"): its input windows by TMA */
    CGP_PATH_WINOGRAD_F4X4_GEMM_TILE0 = CGP_PATH_IGEMM_WGMMA_TMA_SPLIT_TILE0 + 12,
    /* the wgmma implicit GEMMs with the weights rounded once a launch (tf32-v15, 3xtf32-v15), the windows by
     * cp.async: their 6 tiles, then with K split over 2 and 4 blocks, as tf32-v10's, named "rounded weights, " +
     * tf32-v10's name; then the same with the windows by TMA, named "rounded weights, " + tf32-v13's name */
    CGP_PATH_IGEMM_WGMMA_ROUNDED_TILE0 = CGP_PATH_WINOGRAD_F4X4_GEMM_TILE0 + 3,
    CGP_PATH_IGEMM_WGMMA_ROUNDED_SPLIT_TILE0 = CGP_PATH_IGEMM_WGMMA_ROUNDED_TILE0 + 6,
    CGP_PATH_IGEMM_WGMMA_ROUNDED_TMA_TILE0 = CGP_PATH_IGEMM_WGMMA_ROUNDED_SPLIT_TILE0 + 12,
    CGP_PATH_IGEMM_WGMMA_ROUNDED_TMA_SPLIT_TILE0 = CGP_PATH_IGEMM_WGMMA_ROUNDED_TMA_TILE0 + 6,
    /* the wgmma implicit GEMM with resident weights and A from registers (tf32-v16): CGP_PATH_RESIDENT_FRAGMENT_TILE0
     * + the tile's index, named "resident, A from registers, " + its tf32-v10 name */
    CGP_PATH_RESIDENT_FRAGMENT_TILE0 = CGP_PATH_IGEMM_WGMMA_ROUNDED_TMA_SPLIT_TILE0 + 12,
    /* tf32-v17's overlapped chunk loop (chunk k + 1's wgmmas issued before chunk k's wait; rounded weights, windows by
     * TMA): its 6 tiles, then with K split over 2 and 4 blocks, named "overlapped, " + tf32-v13's name */
    CGP_PATH_IGEMM_WGMMA_OVERLAPPED_TILE0 = CGP_PATH_RESIDENT_FRAGMENT_TILE0 + 6,
    CGP_PATH_IGEMM_WGMMA_OVERLAPPED_SPLIT_TILE0 = CGP_PATH_IGEMM_WGMMA_OVERLAPPED_TILE0 + 6,
    /* the F(4x4) Winograd GEMM (fp32-v12) with its input windows by cp.async (where TMA cannot read them: W not a
     * multiple of 4, ...): CGP_PATH_WINOGRAD_F4X4_GEMM_CP_ASYNC_TILE0 + the split's index ("cp.async, winograd-f4x4
     * 16x32 px x 32 ch", then ", K split 2", ", K split 4") */
    CGP_PATH_WINOGRAD_F4X4_GEMM_CP_ASYNC_TILE0 = CGP_PATH_IGEMM_WGMMA_OVERLAPPED_SPLIT_TILE0 + 12,
    /* the warp-specialised wgmma implicit GEMM's 2 tiles (128, then 64 channels), B rounded once a launch:
     * CGP_PATH_WS_TILE0 + 2, + 3 with the window by TMA (tf32-v21: "warp-specialised, register A, TMA window, 8x16
     * px x 128 ch", ...), + 4, + 5 with the window by the producer's cp.async (where TMA cannot read it:
     * "warp-specialised, register A, cp.async window, 8x16 px x 128 ch", ...); + 0, + 1 were the retired tf32-v20's
     * (A staged by the producer): the numbers stay taken */
    CGP_PATH_WS_TILE0 = CGP_PATH_WINOGRAD_F4X4_GEMM_CP_ASYNC_TILE0 + 3,
    /* the same with K split over a cluster: CGP_PATH_WS_SPLIT_TILE0 + 0, + 1, + 2 with the window by TMA (128
     * channels split over 2 blocks, over 4, 64 channels over 2: "warp-specialised, register A, TMA window, 8x16 px x
     * 128 ch, K split 2", ...), + 3, + 4, + 5 the same with the window by cp.async */
    CGP_PATH_WS_SPLIT_TILE0 = CGP_PATH_WS_TILE0 + 6,
    /* the same with two images side by side in a tile (output width 8 or less: each consumer warpgroup's 8 x 8 pixel
     * block an image), the window by cp.async: CGP_PATH_WS_PAIRED_TILE0 + 0, + 1 (128, 64 channels: "warp-specialised,
     * register A, 2 images a tile, 8x16 px x 128 ch", ...), + 2, + 3, + 4 with K split (128 channels over 2 blocks,
     * over 4, 64 channels over 2) */
    CGP_PATH_WS_PAIRED_TILE0 = CGP_PATH_WS_SPLIT_TILE0 + 6,
    CGP_PATH_COUNT = CGP_PATH_WS_PAIRED_TILE0 + 5 /* one past the last id */
};

/* A variant bit of a path id: the launch copied the weights 4 bytes at a time and tested every chunk's channels
 * against Cin (Cin not a multiple of 8, or weights not 16-byte aligned: cgp_weights_misaligned), where its version
 * copies them 16 bytes at a time otherwise; named as the path + CGP_PATH_WEIGHTS_4B_SUFFIX */
enum { CGP_PATH_FLAG_WEIGHTS_4B = 0x100 };
#define CGP_PATH_WEIGHTS_4B_SUFFIX ", 4-byte weights"

/* The bytes of the longest path name with its terminating NUL, at most (path_names.cuh checks every name, with its
 * 4-byte-weights variant, where its family composes it) */
enum { CGP_PATH_NAME_MAX = 96 };

/* The name of path `id` (a cgp_path_id, with CGP_PATH_FLAG_WEIGHTS_4B where set: exactly what cgp_kernel_path of a
 * version taking it returns), or of the word a launch's blocks recorded (path_record.cuh: each ORs in its id in the
 * low 16 bits and the id's complement in the high 16 bits): the name of their id where every block recorded the
 * same, CGP_PATH_NAME_MIXED where blocks recorded different ids. NULL for 0 (nothing recorded) and any id not in
 * cgp_path_id. */
const char *cgp_path_name(unsigned id);
#define CGP_PATH_NAME_MIXED "(blocks of one launch recorded different paths)"

/* Stages of a launch, for the stage split (`cgp bench --stages`): a launch without one of them
 * replaces it by a stand-in of one instruction per output element, so the time difference to the
 * full kernel is what that stage costs there (results are then not the function). */
enum { CGP_STAGE_MMA = 1, CGP_STAGE_EPILOGUE = 2, CGP_STAGE_ALL = 3 };

/* What a kernel version is, field by field (cgp_kernel_desc.kind; kernel_desc.cuh's Kind makes one): the pipe its
 * products run on and the algorithm, its tiles and warps, how its input windows and its weights reach the products,
 * the K split, the schedule and the chunk loop. cgp_kernel_kind_format composes the version's descriptive name from
 * these fields, in this order, each field's word in quotes below, a field at its default (marked "left out") not
 * written: e.g. "wgmma, 6 tiles, tma, w/launch, split-K 1/2/4, overlapped". For the mma.sync versions the fields are
 * those of their fast path (Cin = 8, weights in shared memory). */
typedef enum cgp_kernel_pipe {
    CGP_PIPE_FFMA = 1,  /* "ffma": fp32 multiply-adds, followed by the algorithm's word */
    CGP_PIPE_MMA_SYNC,  /* "mma.sync": tensor cores, m16n8k8 tf32 (an implicit GEMM: the algorithm is not written) */
    CGP_PIPE_WGMMA      /* "wgmma": Hopper's warpgroup tensor-core MMAs, sm_90a (an implicit GEMM, likewise) */
} cgp_kernel_pipe;
typedef enum cgp_kernel_algorithm {
    CGP_ALGORITHM_DIRECT = 1,    /* "direct": 9 taps x Cin multiply-adds an output, from the staged window */
    CGP_ALGORITHM_IMPLICIT_GEMM, /* "implicit-gemm": pixels x output channels, K = Cin x 9 in chunks of 8 channels */
    CGP_ALGORITHM_WINOGRAD_F2X2, /* "winograd-f2x2": Winograd F(2x2, 3x3) */
    CGP_ALGORITHM_WINOGRAD_F4X4  /* "winograd-f4x4": Winograd F(4x4, 3x3) */
} cgp_kernel_algorithm;
/* How the input windows land in shared memory */
typedef enum cgp_kernel_staging {
    CGP_STAGING_LOADS = 1,      /* "loads": the threads' loads and stores */
    CGP_STAGING_CP_ASYNC,       /* "cp.async": the threads' asynchronous copies */
    CGP_STAGING_TMA,            /* "tma": one TMA box copy a window (W % 4 = 0; the version refuses other widths) */
    CGP_STAGING_TMA_OR_CP_ASYNC /* "tma/cp.async": by TMA where TMA reads the window, else by cp.async */
} cgp_kernel_staging;
/* Where the weights come from */
typedef enum cgp_kernel_weights {
    CGP_WEIGHTS_PER_TILE = 1,  /* "w/tile": landed (and rounded) again for every tile, a chunk at a time */
    CGP_WEIGHTS_RESIDENT,      /* "w resident": landed and prepared once a block, kept in shared memory */
    CGP_WEIGHTS_REGISTERS,     /* "w in regs": once a block, the big weights as wgmma's A operand in registers */
    CGP_WEIGHTS_ROUNDED_ONCE   /* "w/launch": rounded once a launch into the workspace, a chunk's landed by one
                                  bulk copy where the products read them */
} cgp_kernel_weights;
typedef enum cgp_kernel_schedule {
    CGP_SCHEDULE_TILE_PER_BLOCK = 1, /* left out: one block per tile (and block of output channels) */
    CGP_SCHEDULE_PERSISTENT          /* "persistent": a grid of about one block an SM, each walking a range of tiles */
} cgp_kernel_schedule;
/* The main loop, where it is not the plain one */
typedef enum cgp_kernel_loop {
    CGP_LOOP_PLAIN = 1,    /* left out */
    CGP_LOOP_PIPELINED,    /* "pipelined": a tile's epilogue spread over the next tile's MMAs, two accumulator sets */
    CGP_LOOP_OVERLAPPED,   /* "overlapped": chunk k + 1's MMAs issued before chunk k's wait, two accumulator sets */
    CGP_LOOP_A_IN_REGISTERS, /* "A in regs": each thread loads its A fragments from the landed window into registers,
                                no block barrier a chunk */
    CGP_LOOP_WARP_SPECIALISED /* "warp-specialised": a producer warpgroup lands the chunks, consumer warpgroups (A in
                                 registers) multiply, mbarriers between them */
} cgp_kernel_loop;

/* A tile: h x w output pixels x c output channels */
typedef struct cgp_kernel_tile {
    short h, w, c;
} cgp_kernel_tile;
enum { CGP_KERNEL_TILES_MAX = 6 };

/* The shapes and GPUs a version runs, declared where it is defined (kernel_desc.cuh's Kind) beside what it is: a
 * field at 0 sets no limit. Its unsupported hook decides; tests/lib/expected_support.h derives from these, with its
 * kind's pipe and staging, what a version must run, must refuse, or may do either with (tests/cpu/cpu_paths.c holds
 * the hooks to it on a described H200, the GPU tests on the GPU), and cgp_kernel_limits_format says it in words.
 * Beyond them every version refuses what 32-bit indices or the grid cannot address (far larger shapes). */
typedef struct cgp_kernel_limits {
    /* the least compute capability (a wgmma version: exactly 9.0, and a build with sm_90a code; a version staging by
     * TMA alone: W % 4 = 0 and a driver with the tensor-map encoder) */
    int cc_major, cc_minor;
    int cin_only, cout_only; /* the one Cin, Cout it runs */
    int cin_max, cout_max;   /* the most it runs (resident weights: the most whose weights fit a tile's block) */
    int pixels_per_cin; /* k: it runs only k x Cin <= Hout x Wout (F(4x4)'s rounding error in the means) */
    unsigned smem_bytes; /* the shared memory a block needs for every shape it runs (less: it may refuse some) */
} cgp_kernel_limits;

typedef struct cgp_kernel_kind {
    cgp_kernel_pipe pipe;
    cgp_kernel_algorithm algorithm;
    /* the tiles a launch can take, tile_count of them: one ("HxWxC"; with warp_tile, "warp HxWxC": a warp's tile,
     * the warps of a block taking theirs independently), or chosen per shape ("N tiles") */
    cgp_kernel_tile tiles[CGP_KERNEL_TILES_MAX];
    int tile_count;
    int warp_tile;
    int warps; /* warps a block (" Nw" after the tiles), or 0 where each tile has its own (not written) */
    cgp_kernel_staging staging;
    cgp_kernel_weights weights;
    /* bit s (1 <= s <= 3): K (the input channels' chunks) can be split over a cluster of 2^s blocks, where the grid
     * is small ("split-K 1/2/4": whole, 2 or 4 blocks); 0: K whole (left out) */
    unsigned k_splits;
    cgp_kernel_schedule schedule;
    cgp_kernel_loop loop;
    /* 1: a superseded version (kernels/fused/history/), kept selectable so that docs/perf-log.md can be re-measured;
     * it may differ from the version after it in what no field here says (the GELU's form, the rounding, the code's
     * layout: its summary says what). Not written. */
    int history;
    /* What it runs: its declared limits. Not written into the name. */
    cgp_kernel_limits limits;
} cgp_kernel_kind;

/* Writes the limits of `kind` in words (its limits, pipe and staging: "compute capability 9.0 (sm_90a), Cin <= 8,
 * Cout <= 64, 57 KiB of shared memory a block"; "any shape" where nothing limits it) into buf (cap bytes,
 * NUL-terminated, cut where longer) and returns its length, as snprintf does */
int cgp_kernel_limits_format(const cgp_kernel_kind *kind, char *buf, size_t cap);

/* The bytes of the longest descriptive name with its terminating NUL, at most (tests/cpu/cpu_paths.c checks) */
enum { CGP_KERNEL_KIND_NAME_MAX = 96 };

/* Writes the descriptive name of `kind` into buf (cap bytes, NUL-terminated, cut where it is longer) and returns its
 * length, as snprintf does; the one composer of the names */
int cgp_kernel_kind_format(const cgp_kernel_kind *kind, char *buf, size_t cap);

/* A kernel version (kernel_api.h defines it) */
typedef struct cgp_kernel_desc cgp_kernel_desc;

/* All kernel versions, most preferred first within each precision. */
const cgp_kernel_desc *const *cgp_kernel_table(int *count);

/* The version numbered `version` in the table, or NULL */
const cgp_kernel_desc *cgp_kernel_find(int version);

/* What version k is: its number (the value of `--kernel`), its name ("fp32-v9"), its precision (a cgp_precision
 * value), a sentence of what it does */
int cgp_kernel_version(const cgp_kernel_desc *k);
const char *cgp_kernel_name(const cgp_kernel_desc *k);
int cgp_kernel_precision(const cgp_kernel_desc *k);
const char *cgp_kernel_summary(const cgp_kernel_desc *k);

/* The descriptive name of version k of the table (cgp_kernel_kind_format of its kind, composed once for the whole
 * table), e.g. "wgmma, 6 tiles, tma, w resident, persistent, A in regs" for tf32-v16; NULL for a descriptor not in
 * the table */
const char *cgp_kernel_kind_name(const cgp_kernel_desc *k);

/* What version k is and runs: its kind (with its limits) */
const cgp_kernel_kind *cgp_kernel_kind_of(const cgp_kernel_desc *k);

/* Version k's answers for problem p on device d (its hooks, kernel_api.h): NULL when it runs p, else why not; the
 * name of the path a launch of p takes, from its configuration (weights_misaligned: cgp_weights_misaligned of the
 * weight pointer, 0 for a plan's own question), NULL where it does not run p */
const char *cgp_kernel_unsupported(const cgp_kernel_desc *k, const cgp_problem *p, const cgp_device_info *d);
const char *cgp_kernel_path(const cgp_kernel_desc *k, const cgp_problem *p, const cgp_device_info *d,
                            int weights_misaligned);

/* The hooks' device info of device `ordinal` (the plan's query); cudaSuccess, or the error of the CUDA call
 * that failed (d untouched then) */
cudaError_t cgp_device_info_of(int ordinal, cgp_device_info *d);
/* The same for the current device */
cudaError_t cgp_current_device_info(cgp_device_info *d);

#ifdef __cplusplus
}
#endif
#endif
