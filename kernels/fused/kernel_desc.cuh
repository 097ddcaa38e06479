/*
 * kernel_desc.cuh - the CUDA side of kernel_api.h (library layer): a kernel version's descriptor made from
 * its hooks, and the sentences its unsupported() returns about shared memory, computed from the bytes.
 *
 *   kernel_desc<Hooks>(version, name, summary, kind)   the cgp_kernel_desc of one version, Hooks a struct with
 *       precision (a cgp_precision) and the static functions unsupported, configure and launch, either
 *       stages_unsupported and launch_stages or, deriving from NoStageSplit, neither, and kPaths (every path id
 *       its launches can record: a PathList, made by path_run, + and with_weights_4b)
 *   configured(c, kernel, smem_bytes, path)        fills a cgp_kernel_config's kernel, shared memory and path for a
 *       version whose weight pointer does not matter (the same kernel and path both ways)
 *   Kind(pipe, algorithm).tile(h, w, c)...        what the version is (cgp_kernel_kind, kernel_info.h), field by
 *       field, at compile time: .tile (one per tile it can take; .warp_tile: a warp's; .tiles: those of a list of
 *       the version's own), .warps, .staging, .weights, .k_split (.k_splits: a list of cluster sizes), .persistent,
 *       .loop, .history; what it runs (cgp_kernel_limits): .needs_cc, .cin_only, .cout_only, .cin_max, .cout_max,
 *       .pixels_per_cin, .smem; a field not set keeps its default (cp.async staging, weights per tile, K
 *       whole, one tile a block, the plain loop; compute capability 9.0 for wgmma, 8.0 for mma.sync, no other limit);
 *       CGP_DEFINE_KERNEL_DESC checks the tiles (1 to CGP_KERNEL_TILES_MAX) and splits
 *   CGP_DEFINE_KERNEL_DESC(symbol, Hooks, version, name, summary, kind)   defines the descriptor `symbol`
 *       (extern "C", as dispatch.cu declares it) = kernel_desc<Hooks>(version, name, summary, kind): the row
 *       macro of a file's X-macro table of its versions, TABLE(CGP_DEFINE_KERNEL_DESC)
 *   kSharedMemoryNeed<kBytes>.text               "needs N KiB of shared memory per block", N = kBytes in
 *       KiB rounded up, made at compile time
 */
#ifndef CGP_KERNEL_DESC_CUH
#define CGP_KERNEL_DESC_CUH

#include <stddef.h>

#include "cgp.h"
#include "kernel_api.h"

/* A version without a stage split (kernel_api.h: both hooks NULL) */
struct NoStageSplit {
    static constexpr decltype(nullptr) stages_unsupported = nullptr, launch_stages = nullptr;
};

/* What a version is (kernel_info.h's cgp_kernel_kind), made field by field at compile time */
struct Kind {
    cgp_kernel_kind k;
    constexpr Kind(cgp_kernel_pipe pipe, cgp_kernel_algorithm algorithm) : k{}
    {
        k.pipe = pipe;
        k.algorithm = algorithm;
        k.staging = CGP_STAGING_CP_ASYNC;
        k.weights = CGP_WEIGHTS_PER_TILE;
        k.schedule = CGP_SCHEDULE_TILE_PER_BLOCK;
        k.loop = CGP_LOOP_PLAIN;
        k.limits.cc_major = pipe == CGP_PIPE_WGMMA ? 9 : pipe == CGP_PIPE_MMA_SYNC ? 8 : 0;
    }
    /* one more tile it can take: h x w pixels x c channels */
    constexpr Kind tile(int h, int w, int c) const
    {
        Kind r = *this;
        if (r.k.tile_count < CGP_KERNEL_TILES_MAX)
            r.k.tiles[r.k.tile_count] = cgp_kernel_tile{(short)h, (short)w, (short)c};
        ++r.k.tile_count; /* past CGP_KERNEL_TILES_MAX: kernel_desc's static check fails */
        return r;
    }
    /* the tile is a warp's (h rows x w columns x c channels), the warps of a block taking theirs independently */
    constexpr Kind warp_tile(int h, int w, int c) const
    {
        Kind r = tile(h, w, c);
        r.k.warp_tile = 1;
        return r;
    }
    constexpr Kind warps(int n) const
    {
        Kind r = *this;
        r.k.warps = n;
        return r;
    }
    constexpr Kind staging(cgp_kernel_staging s) const
    {
        Kind r = *this;
        r.k.staging = s;
        return r;
    }
    constexpr Kind weights(cgp_kernel_weights w) const
    {
        Kind r = *this;
        r.k.weights = w;
        return r;
    }
    /* .tile(t.h, t.w, t.c) for t = f(shape) of each of shapes, in their order */
    template <class S, size_t N, class F> constexpr Kind tiles(const S (&shapes)[N], F f) const
    {
        Kind r = *this;
        for (size_t i = 0; i < N; ++i) {
            const cgp_kernel_tile t = f(shapes[i]);
            r = r.tile(t.h, t.w, t.c);
        }
        return r;
    }
    /* .k_split of each of a version's cluster sizes above 1 (1: K whole) */
    template <size_t N> constexpr Kind k_splits(const int (&blocks)[N]) const
    {
        Kind r = *this;
        for (size_t i = 0; i < N; ++i)
            if (blocks[i] > 1)
                r = r.k_split(blocks[i]);
        return r;
    }
    /* K can be split over a cluster of `blocks` (2, 4 or 8) */
    constexpr Kind k_split(int blocks) const
    {
        Kind r = *this;
        r.k.k_splits |= blocks == 2 ? 2u : blocks == 4 ? 4u : blocks == 8 ? 8u : 0x100u; /* 0x100: not a split */
        return r;
    }
    constexpr Kind persistent() const
    {
        Kind r = *this;
        r.k.schedule = CGP_SCHEDULE_PERSISTENT;
        return r;
    }
    constexpr Kind loop(cgp_kernel_loop l) const
    {
        Kind r = *this;
        r.k.loop = l;
        return r;
    }
    /* its limits (kernel_info.h's cgp_kernel_limits), each field named */
    constexpr Kind needs_cc(int major, int minor) const
    {
        return limit(&cgp_kernel_limits::cc_major, major).limit(&cgp_kernel_limits::cc_minor, minor);
    }
    constexpr Kind cin_only(int n) const { return limit(&cgp_kernel_limits::cin_only, n); }
    constexpr Kind cout_only(int n) const { return limit(&cgp_kernel_limits::cout_only, n); }
    constexpr Kind cin_max(int n) const { return limit(&cgp_kernel_limits::cin_max, n); }
    constexpr Kind cout_max(int n) const { return limit(&cgp_kernel_limits::cout_max, n); }
    constexpr Kind pixels_per_cin(int n) const { return limit(&cgp_kernel_limits::pixels_per_cin, n); }
    constexpr Kind smem(size_t bytes) const
    {
        Kind r = *this;
        r.k.limits.smem_bytes = (unsigned)bytes;
        return r;
    }
    /* a copy with one limit set */
    constexpr Kind limit(int cgp_kernel_limits::*field, int value) const
    {
        Kind r = *this;
        r.k.limits.*field = value;
        return r;
    }
    constexpr Kind history() const
    {
        Kind r = *this;
        r.k.history = 1;
        return r;
    }
};

template <class Hooks>
constexpr cgp_kernel_desc kernel_desc(int version, const char *name, const char *summary, const Kind &kind)
{
    return cgp_kernel_desc{version,
                           name,
                           Hooks::precision,
                           summary,
                           kind.k,
                           Hooks::unsupported,
                           Hooks::configure,
                           Hooks::launch,
                           Hooks::kPaths.ids,
                           Hooks::kPaths.count,
                           Hooks::stages_unsupported,
                           Hooks::launch_stages};
}

/* The kernel, its dynamic shared memory and the path id of a configuration whose weight pointer does not matter */
inline void configured(cgp_kernel_config *c, const void *kernel, size_t smem_bytes, unsigned path)
{
    c->kernel[0] = c->kernel[1] = kernel;
    c->path[0] = c->path[1] = path;
    c->smem_bytes = smem_bytes;
}

/* A kind kernel_desc takes: 1 to CGP_KERNEL_TILES_MAX tiles, K splits of 2, 4 or 8 blocks, warps where set */
constexpr bool kind_valid(const Kind &kind)
{
    const cgp_kernel_kind &k = kind.k;
    return k.tile_count >= 1 && k.tile_count <= CGP_KERNEL_TILES_MAX && (k.k_splits & ~0xeu) == 0 && k.warps >= 0 &&
           k.warps <= 32 && (!k.warp_tile || k.tile_count == 1);
}

/* A version's path ids (cgp_kernel_desc.paths): Hooks::kPaths, made of path_run, + and with_weights_4b */
template <int N> struct PathList {
    static constexpr int count = N;
    unsigned short ids[N];
};

/* The N ids first, first + 1, ..., first + N - 1 */
template <int N> constexpr PathList<N> path_run(unsigned first)
{
    PathList<N> l{};
    for (int i = 0; i < N; ++i)
        l.ids[i] = (unsigned short)(first + i);
    return l;
}

template <int A, int B> constexpr PathList<A + B> operator+(const PathList<A> &a, const PathList<B> &b)
{
    PathList<A + B> l{};
    for (int i = 0; i < A; ++i)
        l.ids[i] = a.ids[i];
    for (int i = 0; i < B; ++i)
        l.ids[A + i] = b.ids[i];
    return l;
}

/* Each id of l, then each with CGP_PATH_FLAG_WEIGHTS_4B: a version that copies its weights either way */
template <int N> constexpr PathList<2 * N> with_weights_4b(const PathList<N> &l)
{
    PathList<2 * N> both{};
    for (int i = 0; i < N; ++i) {
        both.ids[i] = l.ids[i];
        both.ids[N + i] = (unsigned short)(l.ids[i] | CGP_PATH_FLAG_WEIGHTS_4B);
    }
    return both;
}

#define CGP_DEFINE_KERNEL_DESC(symbol, Hooks, version, name, summary, kind)                                       \
    static_assert(kind_valid(kind), name ": a kind of 1 to CGP_KERNEL_TILES_MAX tiles and K splits of 2, 4 or 8");  \
    extern "C" const cgp_kernel_desc symbol = kernel_desc<Hooks>(version, name, summary, kind);

struct SharedMemoryText {
    char text[64];
};

constexpr SharedMemoryText shared_memory_need(size_t bytes)
{
    SharedMemoryText t{};
    const char head[] = "needs ", tail[] = " KiB of shared memory per block";
    int at = 0;
    for (int i = 0; head[i]; ++i)
        t.text[at++] = head[i];
    char digits[24] = {};
    int count = 0;
    for (size_t kib = (bytes + 1023) / 1024; kib > 0 || count == 0; kib /= 10)
        digits[count++] = (char)('0' + kib % 10);
    while (count > 0)
        t.text[at++] = digits[--count];
    for (int i = 0; tail[i]; ++i)
        t.text[at++] = tail[i];
    return t;
}

template <size_t kBytes> constexpr SharedMemoryText kSharedMemoryNeed = shared_memory_need(kBytes);

#endif
