/* kernel_select.c - the heuristic and the measured kernel selection of a plan (kernel_select.h). */
#include "kernel_select.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cgp_kernel_desc *cgp_select_heuristic(const cgp_problem *p, const cgp_device_info *d, int precision,
                                            const char **reason)
{
    int count = 0;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&count);
    const cgp_kernel_desc *deferring = NULL; /* the first supported version that defers */
    for (int i = 0; i < count; ++i) {
        if (table[i]->precision != precision || table[i]->unsupported(p, d))
            continue;
        if (!table[i]->defers || !table[i]->defers(p, d)) {
            if (reason)
                *reason = deferring ? "first supported in the preference order of kernels/fused/dispatch.cu that "
                                      "does not defer to a later one"
                                    : "first supported in the preference order of kernels/fused/dispatch.cu";
            return table[i];
        }
        if (!deferring)
            deferring = table[i];
    }
    if (reason)
        *reason = deferring ? "first supported in the preference order of kernels/fused/dispatch.cu (every one "
                              "that runs the shape defers)"
                            : "no version of the precision supports the shape";
    return deferring;
}

int cgp_select_candidates(const cgp_problem *p, const cgp_device_info *d, int precision,
                          const cgp_kernel_desc **kernels, cgp_candidate *candidates, int max)
{
    int count = 0, n = 0;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&count);
    for (int i = 0; i < count && n < max; ++i) {
        if (table[i]->precision != precision)
            continue;
        kernels[n] = table[i];
        candidates[n].version = table[i]->version;
        candidates[n].name = table[i]->name;
        candidates[n].unsupported = table[i]->unsupported(p, d);
        candidates[n].median_ms = -1.0f;
        ++n;
    }
    return n;
}

static int compare_floats(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* One candidate: warm-up, timed runs, median. Returns the first CUDA error, *step naming the call. */
static cudaError_t time_candidate(const cgp_kernel_desc *k, const cgp_device_info *d, cgp_launch_args args,
                                  cudaStream_t stream, cudaEvent_t *ev, float *median, const char **step)
{
    const size_t bytes = k->workspace_bytes(&args.p, d);
    void *workspace = NULL;
    cudaError_t e = cudaSuccess;
    if (bytes > 0) {
        *step = "cudaMalloc of its workspace";
        e = cudaMalloc(&workspace, bytes);
    }
    args.workspace = workspace;
    *step = "the warm-up launch";
    if (e == cudaSuccess)
        e = k->launch(&args, d, stream);
    for (int r = 0; r < CGP_SELECT_TIMED_RUNS && e == cudaSuccess; ++r) {
        *step = "cudaEventRecord";
        e = cudaEventRecord(ev[2 * r], stream);
        if (e == cudaSuccess) {
            *step = "a timed launch";
            e = k->launch(&args, d, stream);
        }
        if (e == cudaSuccess) {
            *step = "cudaEventRecord";
            e = cudaEventRecord(ev[2 * r + 1], stream);
        }
    }
    if (e == cudaSuccess) {
        *step = "cudaStreamSynchronize";
        e = cudaStreamSynchronize(stream);
    }
    float ms[CGP_SELECT_TIMED_RUNS];
    for (int r = 0; r < CGP_SELECT_TIMED_RUNS && e == cudaSuccess; ++r) {
        *step = "cudaEventElapsedTime";
        e = cudaEventElapsedTime(&ms[r], ev[2 * r], ev[2 * r + 1]);
    }
    if (workspace) { /* cudaFree waits for the runs that use it */
        const cudaError_t freed = cudaFree(workspace);
        if (e == cudaSuccess && freed != cudaSuccess) {
            *step = "cudaFree of its workspace";
            e = freed;
        }
    }
    if (e == cudaSuccess) {
        qsort(ms, CGP_SELECT_TIMED_RUNS, sizeof ms[0], compare_floats);
        *median = ms[CGP_SELECT_TIMED_RUNS / 2];
    }
    return e;
}

int cgp_select_measure(const cgp_kernel_desc *const *kernels, cgp_candidate *candidates, int count,
                       const cgp_device_info *d, cgp_launch_args args, cudaStream_t stream, cudaError_t *cuda_error,
                       char *why, size_t why_size)
{
    cudaEvent_t ev[2 * CGP_SELECT_TIMED_RUNS];
    int created = 0, best = -1, failed = -1;
    const char *step = "cudaEventCreate";
    cudaError_t e = cudaSuccess;
    for (; created < 2 * CGP_SELECT_TIMED_RUNS && e == cudaSuccess; ++created)
        e = cudaEventCreate(&ev[created]);
    if (e != cudaSuccess)
        --created;
    for (int i = 0; i < count && e == cudaSuccess; ++i) {
        if (candidates[i].unsupported)
            continue;
        float median = 0.0f;
        e = time_candidate(kernels[i], d, args, stream, ev, &median, &step);
        if (e != cudaSuccess) {
            failed = i;
            break;
        }
        candidates[i].median_ms = median;
        if (best < 0 || median < candidates[best].median_ms)
            best = i;
    }
    for (int i = 0; i < created; ++i)
        cudaEventDestroy(ev[i]);
    *cuda_error = e;
    if (e != cudaSuccess) {
        snprintf(why, why_size, "timing %s: %s failed: %s: %s", failed >= 0 ? kernels[failed]->name : "the candidates",
                 step, cudaGetErrorName(e), cudaGetErrorString(e));
        return -1;
    }
    if (best < 0)
        snprintf(why, why_size, "no version of the precision supports the shape");
    return best;
}

/* ---- the measured cache ---- */
typedef struct cache_entry {
    cgp_select_key key;
    int version, count;
    float *medians;
} cache_entry;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cache_entry *cache;
static size_t cache_count, cache_capacity;

static int same_key(const cgp_select_key *a, const cgp_select_key *b)
{
    return a->device == b->device && a->n == b->n && a->cin == b->cin && a->cout == b->cout && a->h == b->h &&
           a->w == b->w && a->pad == b->pad && a->reduce == b->reduce && a->precision == b->precision;
}

/* the entry of key, or NULL; call with the lock held */
static const cache_entry *cache_lookup(const cgp_select_key *key)
{
    for (size_t i = 0; i < cache_count; ++i)
        if (same_key(&cache[i].key, key))
            return &cache[i];
    return NULL;
}

int cgp_select_cache_find(const cgp_select_key *key, int *version, float *medians, int count)
{
    pthread_mutex_lock(&cache_lock);
    const cache_entry *e = cache_lookup(key);
    if (e) {
        *version = e->version;
        for (int i = 0; i < count; ++i)
            medians[i] = i < e->count ? e->medians[i] : -1.0f;
    }
    pthread_mutex_unlock(&cache_lock);
    return e != NULL;
}

int cgp_select_cache_store(const cgp_select_key *key, int version, const float *medians, int count)
{
    int rc = 0;
    pthread_mutex_lock(&cache_lock);
    if (!cache_lookup(key)) {
        if (cache_count == cache_capacity) {
            const size_t capacity = cache_capacity ? 2 * cache_capacity : 16;
            cache_entry *grown = realloc(cache, capacity * sizeof *grown);
            if (grown) {
                cache = grown;
                cache_capacity = capacity;
            }
        }
        float *copy = malloc((size_t)(count > 0 ? count : 1) * sizeof *copy);
        if (cache_count < cache_capacity && copy) {
            memcpy(copy, medians, (size_t)count * sizeof *copy);
            cache[cache_count++] = (cache_entry){*key, version, count, copy};
        } else {
            free(copy);
            rc = -1;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    return rc;
}
