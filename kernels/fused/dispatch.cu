/*
 * dispatch.cu - the table of fused kernel versions the plan chooses from (library layer, kernel_api.h).
 * Within each precision the most preferred version comes first: the heuristic selection takes the version with the
 * lowest GPU time its cost model predicts (host/lib/cost_model.h), and this order only where the model has no
 * coefficients for any version that runs the problem. The table holds the versions that are the measured fastest on
 * some shape of the recorded samples (results/h200/selection.csv, checked by tests/cpu/cpu_version_table.c) and the
 * fallbacks that run every shape on every GPU (fp32-v1, tf32-v9, 3xtf32-v9); the others left it (docs/perf-log.md,
 * "Retired versions", names the commit that has them). Beside the table, what the tools need
 * to ask a version about a plan's problem: the version by number and the current device's info; each version's
 * descriptive name, composed from its kind (cgp_kernel_kind_format); and the names of the paths a launch records
 * (cgp_path_id, with its variant bit CGP_PATH_FLAG_WEIGHTS_4B, and the recorded word).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <mutex>

#include "kernel_api.h"
#include "tensor_map.cuh"

/* X(descriptor) for every version, in the table's order; what each is: its descriptor's kind (cgp_kernel_kind_name,
 * `cgp kernels`), how it came to be: docs/perf-log.md */
#define CGP_KERNEL_VERSIONS(X)                                                                                         \
    /* fp32 */                                                                                                         \
    X(cgp_kernel_fp32_v9)                                                                                              \
    X(cgp_kernel_fp32_v12)                                                                                             \
    X(cgp_kernel_fp32_v11)                                                                                             \
    X(cgp_kernel_fp32_v10)                                                                                             \
    X(cgp_kernel_fp32_v7)                                                                                              \
    X(cgp_kernel_fp32_v1)                                                                                              \
    /* tf32 */                                                                                                         \
    X(cgp_kernel_tf32_v8)                                                                                              \
    X(cgp_kernel_tf32_v16)                                                                                             \
    X(cgp_kernel_tf32_v17)                                                                                             \
    X(cgp_kernel_tf32_v15)                                                                                             \
    X(cgp_kernel_tf32_v11)                                                                                             \
    X(cgp_kernel_tf32_v13)                                                                                             \
    X(cgp_kernel_tf32_v10)                                                                                             \
    X(cgp_kernel_tf32_v9)                                                                                              \
    X(cgp_kernel_tf32_v6)                                                                                              \
    X(cgp_kernel_tf32_v21)                                                                                             \
    /* 3xtf32 */                                                                                                       \
    X(cgp_kernel_tf32x3_v8)                                                                                            \
    X(cgp_kernel_tf32x3_v12)                                                                                           \
    X(cgp_kernel_tf32x3_v15)                                                                                           \
    X(cgp_kernel_tf32x3_v11)                                                                                           \
    X(cgp_kernel_tf32x3_v13)                                                                                           \
    X(cgp_kernel_tf32x3_v10)                                                                                           \
    X(cgp_kernel_tf32x3_v9)                                                                                            \
    X(cgp_kernel_tf32x3_v7)

#define CGP_DECLARE_VERSION(desc) extern "C" const cgp_kernel_desc desc;
#define CGP_LIST_VERSION(desc) &desc,

CGP_KERNEL_VERSIONS(CGP_DECLARE_VERSION)

static const cgp_kernel_desc *const kernel_table[] = {CGP_KERNEL_VERSIONS(CGP_LIST_VERSION)};

extern "C" const cgp_kernel_desc *const *cgp_kernel_table(int *count)
{
    *count = (int)(sizeof(kernel_table) / sizeof(kernel_table[0]));
    return kernel_table;
}

extern "C" const cgp_kernel_desc *cgp_kernel_find(int version)
{
    for (const cgp_kernel_desc *k : kernel_table)
        if (k->version == version)
            return k;
    return NULL;
}

/* What a version is, and its hooks' answers, for the tools (kernel_info.h) */
extern "C" int cgp_kernel_version(const cgp_kernel_desc *k) { return k->version; }
extern "C" const char *cgp_kernel_name(const cgp_kernel_desc *k) { return k->name; }
extern "C" int cgp_kernel_precision(const cgp_kernel_desc *k) { return k->precision; }
extern "C" const char *cgp_kernel_summary(const cgp_kernel_desc *k) { return k->summary; }
extern "C" const cgp_kernel_kind *cgp_kernel_kind_of(const cgp_kernel_desc *k) { return &k->kind; }

extern "C" const char *cgp_kernel_unsupported(const cgp_kernel_desc *k, const cgp_problem *p,
                                              const cgp_device_info *d)
{
    return k->unsupported(p, d);
}

extern "C" void cgp_kernel_configure(const cgp_kernel_desc *k, const cgp_problem *p, const cgp_device_info *d,
                                     cgp_kernel_config *c)
{
    memset(c, 0, sizeof *c); /* padding too: a configuration compares bytewise (tests/cpu/cpu_paths.c) */
    c->split = 1;
    k->configure(p, d, c);
}

extern "C" const char *cgp_kernel_path(const cgp_kernel_desc *k, const cgp_problem *p, const cgp_device_info *d,
                                       int weights_misaligned)
{
    if (k->unsupported(p, d))
        return NULL;
    cgp_kernel_config c;
    cgp_kernel_configure(k, p, d, &c);
    return cgp_path_name(c.path[weights_misaligned ? 1 : 0]);
}

extern "C" cudaError_t cgp_kernel_prepare(const cgp_kernel_config *c)
{
    static std::mutex raising;
    const std::lock_guard<std::mutex> hold(raising);
    for (int i = 0; i < 2; ++i) {
        if (!c->kernel[i] || (i == 1 && c->kernel[1] == c->kernel[0]))
            continue;
        cudaFuncAttributes now;
        cudaError_t err = cudaFuncGetAttributes(&now, c->kernel[i]);
        if (err == cudaSuccess && (size_t)now.maxDynamicSharedSizeBytes < c->smem_bytes)
            err = cudaFuncSetAttribute(c->kernel[i], cudaFuncAttributeMaxDynamicSharedMemorySize, (int)c->smem_bytes);
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

/* The words of a cgp_kernel_kind's fields (kernel_info.h), by value; NULL: left out of the name */
static const char *const pipe_words[] = {NULL, "ffma", "mma.sync", "wgmma"};
static const char *const algorithm_words[] = {NULL, "direct", "implicit-gemm", "winograd-f2x2", "winograd-f4x4"};
static const char *const staging_words[] = {NULL, "loads", "cp.async", "tma", "tma/cp.async"};
static const char *const weights_words[] = {NULL, "w/tile", "w resident", "w in regs", "w/launch"};
static const char *const schedule_words[] = {NULL, NULL, "persistent"};
static const char *const loop_words[] = {NULL, NULL, "pipelined", "overlapped", "A in regs", "warp-specialised"};

template <size_t N> static const char *word(const char *const (&words)[N], int value)
{
    return value >= 0 && (size_t)value < N ? words[value] : NULL;
}

namespace {
/* Appends to a NUL-terminated buffer, cutting where it is full; counts what the whole text would take */
struct Text {
    char *buf;
    size_t cap;
    int length;
    void add(const char *format, ...) __attribute__((format(printf, 2, 3)))
    {
        va_list args;
        va_start(args, format);
        const size_t at = (size_t)length < cap ? (size_t)length : cap;
        const int n = vsnprintf(buf ? buf + at : NULL, buf && at < cap ? cap - at : 0, format, args);
        va_end(args);
        length += n > 0 ? n : 0;
    }
};
} // namespace

extern "C" int cgp_kernel_kind_format(const cgp_kernel_kind *k, char *buf, size_t cap)
{
    Text t{buf, cap, 0};
    if (buf && cap > 0)
        buf[0] = '\0';
    const char *pipe = word(pipe_words, k->pipe), *algorithm = word(algorithm_words, k->algorithm);
    /* the pipe, and the algorithm where the pipe has more than one (every tensor-core version is an implicit GEMM) */
    t.add("%s", pipe ? pipe : "?");
    if (k->pipe == CGP_PIPE_FFMA || !pipe)
        t.add(" %s", algorithm ? algorithm : "?");
    if (k->tile_count == 1)
        t.add(", %s%dx%dx%d", k->warp_tile ? "warp " : "", k->tiles[0].h, k->tiles[0].w, k->tiles[0].c);
    else
        t.add(", %d tiles", k->tile_count);
    if (k->warps > 0)
        t.add(" %dw", k->warps);
    const char *staging = word(staging_words, k->staging), *weights = word(weights_words, k->weights);
    t.add(", %s, %s", staging ? staging : "?", weights ? weights : "?");
    if (k->k_splits) {
        t.add(", split-K 1");
        for (int s = 1; s <= 3; ++s)
            if (k->k_splits & 1u << s)
                t.add("/%d", 1 << s);
    }
    if (const char *schedule = word(schedule_words, k->schedule))
        t.add(", %s", schedule);
    if (const char *loop = word(loop_words, k->loop))
        t.add(", %s", loop);
    return t.length;
}

extern "C" int cgp_kernel_limits_format(const cgp_kernel_kind *k, char *buf, size_t cap)
{
    Text t{buf, cap, 0};
    if (buf && cap > 0)
        buf[0] = '\0';
    const cgp_kernel_limits &l = k->limits;
    const char *comma = "";
    auto next = [&comma] { /* the separator before a limit: none before the first */
        const char *c = comma;
        comma = ", ";
        return c;
    };
    if (k->pipe == CGP_PIPE_WGMMA)
        t.add("%scompute capability 9.0 (sm_90a)", next());
    else if (l.cc_major > 0)
        t.add("%scompute capability %d.%d or newer", next(), l.cc_major, l.cc_minor);
    if (l.cin_only)
        t.add("%sCin = %d", next(), l.cin_only);
    if (l.cout_only)
        t.add("%sCout = %d", next(), l.cout_only);
    if (l.cin_max)
        t.add("%sCin <= %d", next(), l.cin_max);
    if (l.cout_max)
        t.add("%sCout <= %d", next(), l.cout_max);
    if (l.pixels_per_cin)
        t.add("%s%d Cin <= Hout x Wout", next(), l.pixels_per_cin);
    if (k->staging == CGP_STAGING_TMA)
        t.add("%sW %% 4 = 0 (TMA)", next());
    if (l.smem_bytes)
        t.add("%s%u KiB of shared memory a block", next(), (l.smem_bytes + 1023) / 1024);
    if (t.length == 0)
        t.add("any shape");
    return t.length;
}

extern "C" const char *cgp_kernel_kind_name(const cgp_kernel_desc *k)
{
    enum { kCount = sizeof kernel_table / sizeof kernel_table[0] };
    struct Names {
        char of[kCount][CGP_KERNEL_KIND_NAME_MAX];
    };
    /* composed once, at the first call (thread-safe: a function's static) */
    static const Names names = [] {
        Names n{};
        for (int i = 0; i < kCount; ++i)
            cgp_kernel_kind_format(&kernel_table[i]->kind, n.of[i], sizeof n.of[i]);
        return n;
    }();
    for (int i = 0; i < kCount; ++i)
        if (kernel_table[i] == k)
            return names.of[i];
    return NULL;
}

/* The names of the cgp_path_id values, by id */
static constexpr const char *path_names[] = {
    NULL,                                                                     /* CGP_PATH_NONE */
    "generic",                                                                /* CGP_PATH_GENERIC */
    NULL, NULL,                                                               /* 2, 3: retired (kernel_info.h) */
    "winograd-f2x2",                                                          /* CGP_PATH_WINOGRAD_F2X2 */
    "winograd-f4x4",                                                          /* CGP_PATH_WINOGRAD_F4X4 */
    "tma",                                                                    /* CGP_PATH_TMA */
    "cp.async",                                                               /* CGP_PATH_CP_ASYNC */
    "8x16 px x 64 ch", "8x8 px x 64 ch", "8x16 px x 32 ch", "8x8 px x 32 ch", /* CGP_PATH_IGEMM_TILE0 + 0..3 */
    "16x16 px x 64 ch", "8x16 px x 64 ch", "8x8 px x 64 ch",                  /* CGP_PATH_IGEMM_WGMMA_TILE0 + 0..2 */
    "16x16 px x 32 ch", "8x16 px x 32 ch", "8x8 px x 32 ch",                  /* CGP_PATH_IGEMM_WGMMA_TILE0 + 3..5 */
    /* CGP_PATH_FFMA_IGEMM_TILE0 + 0..17: the 6 tiles with K whole, then split over 2 and 8 blocks */
    "ffma 16x16 px x 64 ch", "ffma 8x16 px x 64 ch", "ffma 8x8 px x 64 ch",
    "ffma 8x16 px x 128 ch", "ffma 16x16 px x 32 ch", "ffma 8x8 px x 32 ch",
    "ffma 16x16 px x 64 ch, K split 2", "ffma 8x16 px x 64 ch, K split 2", "ffma 8x8 px x 64 ch, K split 2",
    "ffma 8x16 px x 128 ch, K split 2", "ffma 16x16 px x 32 ch, K split 2", "ffma 8x8 px x 32 ch, K split 2",
    "ffma 16x16 px x 64 ch, K split 8", "ffma 8x16 px x 64 ch, K split 8", "ffma 8x8 px x 64 ch, K split 8",
    "ffma 8x16 px x 128 ch, K split 8", "ffma 16x16 px x 32 ch, K split 8", "ffma 8x8 px x 32 ch, K split 8",
    /* CGP_PATH_WINOGRAD_GEMM_TILE0 + 0..5: the 2 tiles with K whole, then split over 2 and 4 blocks */
    "winograd 8x16 px x 64 ch", "winograd 16x16 px x 32 ch", "winograd 8x16 px x 64 ch, K split 2",
    "winograd 16x16 px x 32 ch, K split 2", "winograd 8x16 px x 64 ch, K split 4",
    "winograd 16x16 px x 32 ch, K split 4",
    /* CGP_PATH_IGEMM_WGMMA_SPLIT_TILE0 + 0..11: the wgmma implicit GEMMs' 6 tiles, K split over 2, then 4 blocks */
    "16x16 px x 64 ch, K split 2", "8x16 px x 64 ch, K split 2", "8x8 px x 64 ch, K split 2",
    "16x16 px x 32 ch, K split 2", "8x16 px x 32 ch, K split 2", "8x8 px x 32 ch, K split 2",
    "16x16 px x 64 ch, K split 4", "8x16 px x 64 ch, K split 4", "8x8 px x 64 ch, K split 4",
    "16x16 px x 32 ch, K split 4", "8x16 px x 32 ch, K split 4", "8x8 px x 32 ch, K split 4",
    "tma, shifted box",              /* CGP_PATH_TMA_SHIFTED */
    "winograd-f4x4, shifted window", /* CGP_PATH_WINOGRAD_F4X4_SHIFTED */
    /* CGP_PATH_RESIDENT_TILE0 + 0..5 */
    "resident 16x16 px x 64 ch", "resident 8x16 px x 64 ch", "resident 8x8 px x 64 ch",
    "resident 16x16 px x 32 ch", "resident 8x16 px x 32 ch", "resident 8x8 px x 32 ch",
    /* CGP_PATH_RESIDENT_TMA_TILE0 + 0..5 */
    "resident TMA 16x16 px x 64 ch", "resident TMA 8x16 px x 64 ch", "resident TMA 8x8 px x 64 ch",
    "resident TMA 16x16 px x 32 ch", "resident TMA 8x16 px x 32 ch", "resident TMA 8x8 px x 32 ch",
    /* CGP_PATH_IGEMM_WGMMA_TMA_TILE0 + 0..5, then CGP_PATH_IGEMM_WGMMA_TMA_SPLIT_TILE0 + 0..11 */
    "TMA 16x16 px x 64 ch", "TMA 8x16 px x 64 ch", "TMA 8x8 px x 64 ch",
    "TMA 16x16 px x 32 ch", "TMA 8x16 px x 32 ch", "TMA 8x8 px x 32 ch",
    "TMA 16x16 px x 64 ch, K split 2", "TMA 8x16 px x 64 ch, K split 2", "TMA 8x8 px x 64 ch, K split 2",
    "TMA 16x16 px x 32 ch, K split 2", "TMA 8x16 px x 32 ch, K split 2", "TMA 8x8 px x 32 ch, K split 2",
    "TMA 16x16 px x 64 ch, K split 4", "TMA 8x16 px x 64 ch, K split 4", "TMA 8x8 px x 64 ch, K split 4",
    "TMA 16x16 px x 32 ch, K split 4", "TMA 8x16 px x 32 ch, K split 4", "TMA 8x8 px x 32 ch, K split 4",
    /* CGP_PATH_WINOGRAD_F4X4_GEMM_TILE0 + 0..2: K whole, then split over 2 and 4 blocks */
    "TMA winograd-f4x4 16x32 px x 32 ch", "TMA winograd-f4x4 16x32 px x 32 ch, K split 2",
    "TMA winograd-f4x4 16x32 px x 32 ch, K split 4",
    /* CGP_PATH_IGEMM_WGMMA_ROUNDED_TILE0 + 0..5, CGP_PATH_IGEMM_WGMMA_ROUNDED_SPLIT_TILE0 + 0..11, then the same by
     * TMA (CGP_PATH_IGEMM_WGMMA_ROUNDED_TMA_TILE0 + 0..5, CGP_PATH_IGEMM_WGMMA_ROUNDED_TMA_SPLIT_TILE0 + 0..11) */
    "rounded weights, 16x16 px x 64 ch", "rounded weights, 8x16 px x 64 ch",
    "rounded weights, 8x8 px x 64 ch", "rounded weights, 16x16 px x 32 ch",
    "rounded weights, 8x16 px x 32 ch", "rounded weights, 8x8 px x 32 ch",
    "rounded weights, 16x16 px x 64 ch, K split 2", "rounded weights, 8x16 px x 64 ch, K split 2",
    "rounded weights, 8x8 px x 64 ch, K split 2", "rounded weights, 16x16 px x 32 ch, K split 2",
    "rounded weights, 8x16 px x 32 ch, K split 2", "rounded weights, 8x8 px x 32 ch, K split 2",
    "rounded weights, 16x16 px x 64 ch, K split 4", "rounded weights, 8x16 px x 64 ch, K split 4",
    "rounded weights, 8x8 px x 64 ch, K split 4", "rounded weights, 16x16 px x 32 ch, K split 4",
    "rounded weights, 8x16 px x 32 ch, K split 4", "rounded weights, 8x8 px x 32 ch, K split 4",
    "rounded weights, TMA 16x16 px x 64 ch", "rounded weights, TMA 8x16 px x 64 ch",
    "rounded weights, TMA 8x8 px x 64 ch", "rounded weights, TMA 16x16 px x 32 ch",
    "rounded weights, TMA 8x16 px x 32 ch", "rounded weights, TMA 8x8 px x 32 ch",
    "rounded weights, TMA 16x16 px x 64 ch, K split 2", "rounded weights, TMA 8x16 px x 64 ch, K split 2",
    "rounded weights, TMA 8x8 px x 64 ch, K split 2", "rounded weights, TMA 16x16 px x 32 ch, K split 2",
    "rounded weights, TMA 8x16 px x 32 ch, K split 2", "rounded weights, TMA 8x8 px x 32 ch, K split 2",
    "rounded weights, TMA 16x16 px x 64 ch, K split 4", "rounded weights, TMA 8x16 px x 64 ch, K split 4",
    "rounded weights, TMA 8x8 px x 64 ch, K split 4", "rounded weights, TMA 16x16 px x 32 ch, K split 4",
    "rounded weights, TMA 8x16 px x 32 ch, K split 4", "rounded weights, TMA 8x8 px x 32 ch, K split 4",
    /* CGP_PATH_RESIDENT_FRAGMENT_TILE0 + 0..5 */
    "resident, A from registers, 16x16 px x 64 ch", "resident, A from registers, 8x16 px x 64 ch",
    "resident, A from registers, 8x8 px x 64 ch", "resident, A from registers, 16x16 px x 32 ch",
    "resident, A from registers, 8x16 px x 32 ch", "resident, A from registers, 8x8 px x 32 ch",
    /* CGP_PATH_IGEMM_WGMMA_OVERLAPPED_TILE0 + 0..5, then CGP_PATH_IGEMM_WGMMA_OVERLAPPED_SPLIT_TILE0 + 0..11 */
    "overlapped, TMA 16x16 px x 64 ch", "overlapped, TMA 8x16 px x 64 ch", "overlapped, TMA 8x8 px x 64 ch",
    "overlapped, TMA 16x16 px x 32 ch", "overlapped, TMA 8x16 px x 32 ch", "overlapped, TMA 8x8 px x 32 ch",
    "overlapped, TMA 16x16 px x 64 ch, K split 2", "overlapped, TMA 8x16 px x 64 ch, K split 2",
    "overlapped, TMA 8x8 px x 64 ch, K split 2", "overlapped, TMA 16x16 px x 32 ch, K split 2",
    "overlapped, TMA 8x16 px x 32 ch, K split 2", "overlapped, TMA 8x8 px x 32 ch, K split 2",
    "overlapped, TMA 16x16 px x 64 ch, K split 4", "overlapped, TMA 8x16 px x 64 ch, K split 4",
    "overlapped, TMA 8x8 px x 64 ch, K split 4", "overlapped, TMA 16x16 px x 32 ch, K split 4",
    "overlapped, TMA 8x16 px x 32 ch, K split 4", "overlapped, TMA 8x8 px x 32 ch, K split 4",
    /* CGP_PATH_WINOGRAD_F4X4_GEMM_CP_ASYNC_TILE0 + 0..2: K whole, then split over 2 and 4 blocks */
    "cp.async, winograd-f4x4 16x32 px x 32 ch", "cp.async, winograd-f4x4 16x32 px x 32 ch, K split 2",
    "cp.async, winograd-f4x4 16x32 px x 32 ch, K split 4",
    /* CGP_PATH_WS_TILE0 + 0..5 */
    NULL, NULL, /* CGP_PATH_WS_TILE0 + 0, + 1: retired (kernel_info.h) */
    "warp-specialised, register A, TMA window, 8x16 px x 128 ch",
    "warp-specialised, register A, TMA window, 8x16 px x 64 ch",
    "warp-specialised, register A, cp.async window, 8x16 px x 128 ch",
    "warp-specialised, register A, cp.async window, 8x16 px x 64 ch",
};
static_assert(sizeof path_names / sizeof path_names[0] == CGP_PATH_COUNT, "a name for every cgp_path_id");

constexpr bool path_names_fit()
{
    for (const char *name : path_names) {
        int length = 0;
        while (name && name[length])
            ++length;
        if (length >= CGP_PATH_NAME_MAX)
            return false;
    }
    return true;
}
static_assert(path_names_fit(), "every path name below CGP_PATH_NAME_MAX bytes with its NUL");

/* The names of the ids with CGP_PATH_FLAG_WEIGHTS_4B: path_names[id] + ", 4-byte weights", made at compile time */
struct PathName {
    char text[CGP_PATH_NAME_MAX];
};
struct FlaggedNames {
    PathName of[CGP_PATH_COUNT];
};
constexpr FlaggedNames weights_4b_names()
{
    constexpr char kSuffix[] = ", 4-byte weights";
    FlaggedNames all{};
    for (int id = 1; id < CGP_PATH_COUNT; ++id) {
        if (!path_names[id]) /* a retired id */
            continue;
        int at = 0;
        for (const char *c = path_names[id]; *c; ++c)
            all.of[id].text[at++] = *c;
        for (int i = 0; kSuffix[i]; ++i)
            all.of[id].text[at++] = kSuffix[i];
    }
    return all;
}
constexpr bool weights_4b_names_fit()
{
    for (const char *name : path_names)
        if (name && sizeof ", 4-byte weights" + __builtin_strlen(name) > CGP_PATH_NAME_MAX)
            return false;
    return true;
}
static_assert(weights_4b_names_fit(), "every name with its variant below CGP_PATH_NAME_MAX bytes with its NUL");
static constexpr FlaggedNames weights_4b = weights_4b_names();

extern "C" const char *cgp_path_name(unsigned id)
{
    if (id >> 16 != 0) { /* a recorded word: the id, and its complement from every block */
        if ((id & id >> 16) != 0 || ((id | id >> 16) & 0xffffu) != 0xffffu)
            return CGP_PATH_NAME_MIXED;
        id &= 0xffffu;
    }
    const unsigned base = id & ~(unsigned)CGP_PATH_FLAG_WEIGHTS_4B;
    if (base >= CGP_PATH_COUNT || !path_names[base]) /* none, a retired id or past the last */
        return NULL;
    return id & CGP_PATH_FLAG_WEIGHTS_4B ? weights_4b.of[base].text : path_names[base];
}

extern "C" cudaError_t cgp_device_info_of(int ordinal, cgp_device_info *d)
{
    int sms = 0, major = 0, minor = 0, smem = 0;
    cudaError_t err;
    if ((err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ordinal)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ordinal)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal)) != cudaSuccess)
        return err;
    d->sm_count = sms;
    d->cc_major = major;
    d->cc_minor = minor;
    d->smem_per_block_optin = (size_t)smem;
    d->tma_encoder = tensor_map_encoder() != nullptr;
    return cudaSuccess;
}

extern "C" cudaError_t cgp_current_device_info(cgp_device_info *d)
{
    int device = 0;
    const cudaError_t err = cudaGetDevice(&device);
    return err != cudaSuccess ? err : cgp_device_info_of(device, d);
}
