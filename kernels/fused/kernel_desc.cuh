/*
 * kernel_desc.cuh - the CUDA side of kernel_api.h (library layer): a kernel version's descriptor made from
 * its hooks, and the sentences its unsupported() returns about shared memory, computed from the bytes.
 *
 *   kernel_desc<Hooks>(version, name, summary)   the cgp_kernel_desc of one version, Hooks a struct with
 *       precision (a cgp_precision) and the static functions unsupported, workspace_bytes, launch and path,
 *       either stages_unsupported and launch_stages or, deriving from NoStageSplit, neither, and kPaths (every
 *       path id its launches can record: a PathList, made by path_run, + and with_weights_4b)
 *   CGP_DEFINE_KERNEL_DESC(symbol, Hooks, version, name, summary)   defines the descriptor `symbol` (extern "C",
 *       as dispatch.cu declares it) = kernel_desc<Hooks>(version, name, summary): the row macro of a file's
 *       X-macro table of its versions, TABLE(CGP_DEFINE_KERNEL_DESC)
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

template <class Hooks> constexpr cgp_kernel_desc kernel_desc(int version, const char *name, const char *summary)
{
    return cgp_kernel_desc{version,       name,         Hooks::precision,          summary,
                           Hooks::unsupported, Hooks::workspace_bytes, Hooks::launch, Hooks::path,
                           Hooks::kPaths.ids, Hooks::kPaths.count, Hooks::stages_unsupported, Hooks::launch_stages};
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

#define CGP_DEFINE_KERNEL_DESC(symbol, Hooks, version, name, summary)                                             \
    extern "C" const cgp_kernel_desc symbol = kernel_desc<Hooks>(version, name, summary);

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
