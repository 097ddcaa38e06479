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
 * (cgp_path_id, with its variant bit CGP_PATH_FLAG_WEIGHTS_4B, and the recorded word), read from the runs of names
 * each family composes from its own tiles and splits (path_names.cuh).
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
    X(cgp_kernel_tf32x3_v7)                                                                                            \
    X(cgp_kernel_tf32x3_v21)

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

/* X(symbol) for every family's run of path names (path_names.cuh: each composed from the family's own tiles and
 * splits where its kernels record them), in the order of their first ids; ids 2 and 3 and CGP_PATH_WS_TILE0 + 0, + 1
 * are retired (kernel_info.h) and named by none */
#define PATH_NAME_RANGES(X)                                                                                            \
    X(cgp_paths_generic)                                                                                               \
    X(cgp_paths_winograd_f2x2)                                                                                         \
    X(cgp_paths_winograd_f4x4)                                                                                         \
    X(cgp_paths_wgmma_staging)                                                                                         \
    X(cgp_paths_igemm)                                                                                                 \
    X(cgp_paths_igemm_wgmma)                                                                                           \
    X(cgp_paths_ffma_igemm)                                                                                            \
    X(cgp_paths_winograd_gemm)                                                                                         \
    X(cgp_paths_igemm_wgmma_split)                                                                                     \
    X(cgp_paths_wgmma_shifted)                                                                                         \
    X(cgp_paths_winograd_f4x4_shifted)                                                                                 \
    X(cgp_paths_resident)                                                                                              \
    X(cgp_paths_resident_tma)                                                                                          \
    X(cgp_paths_igemm_wgmma_tma)                                                                                       \
    X(cgp_paths_igemm_wgmma_tma_split)                                                                                 \
    X(cgp_paths_winograd_f4x4_gemm_tma)                                                                                \
    X(cgp_paths_igemm_wgmma_rounded)                                                                                   \
    X(cgp_paths_igemm_wgmma_rounded_split)                                                                             \
    X(cgp_paths_igemm_wgmma_rounded_tma)                                                                               \
    X(cgp_paths_igemm_wgmma_rounded_tma_split)                                                                         \
    X(cgp_paths_resident_fragment)                                                                                     \
    X(cgp_paths_igemm_wgmma_overlapped)                                                                                \
    X(cgp_paths_igemm_wgmma_overlapped_split)                                                                          \
    X(cgp_paths_winograd_f4x4_gemm_cp_async)                                                                           \
    X(cgp_paths_ws)

#define DECLARE_PATH_NAMES(symbol) extern "C" const cgp_path_names symbol;
#define LIST_PATH_NAMES(symbol) &symbol,
PATH_NAME_RANGES(DECLARE_PATH_NAMES)
static const cgp_path_names *const path_name_ranges[] = {PATH_NAME_RANGES(LIST_PATH_NAMES)};

extern "C" const cgp_path_names *const *cgp_path_name_ranges(int *count)
{
    *count = (int)(sizeof path_name_ranges / sizeof path_name_ranges[0]);
    return path_name_ranges;
}

/* The name of id (no variant bit), or NULL: none, a retired id or past the last */
static const char *base_path_name(unsigned id)
{
    for (const cgp_path_names *r : path_name_ranges)
        if (id >= r->first && id - r->first < (unsigned)r->count && id < CGP_PATH_COUNT)
            return r->text[id - r->first];
    return NULL;
}

/* The names of the ids with CGP_PATH_FLAG_WEIGHTS_4B: the name + CGP_PATH_WEIGHTS_4B_SUFFIX (path_names.cuh checked
 * that each fits CGP_PATH_NAME_MAX), made once, at the first call */
struct FlaggedNames {
    char of[CGP_PATH_COUNT][CGP_PATH_NAME_MAX];
};
static const FlaggedNames &weights_4b_names()
{
    static const FlaggedNames names = [] {
        FlaggedNames all{};
        for (unsigned id = 1; id < CGP_PATH_COUNT; ++id)
            if (const char *name = base_path_name(id))
                snprintf(all.of[id], sizeof all.of[id], "%s" CGP_PATH_WEIGHTS_4B_SUFFIX, name);
        return all;
    }();
    return names;
}

extern "C" const char *cgp_path_name(unsigned id)
{
    if (id >> 16 != 0) { /* a recorded word: the id, and its complement from every block */
        if ((id & id >> 16) != 0 || ((id | id >> 16) & 0xffffu) != 0xffffu)
            return CGP_PATH_NAME_MIXED;
        id &= 0xffffu;
    }
    const unsigned base = id & ~(unsigned)CGP_PATH_FLAG_WEIGHTS_4B;
    const char *name = base_path_name(base);
    if (!name)
        return NULL;
    return id & CGP_PATH_FLAG_WEIGHTS_4B ? weights_4b_names().of[base] : name;
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
