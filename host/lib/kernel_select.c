/* kernel_select.c - the heuristic and the measured kernel selection of a plan (kernel_select.h). */
#include "kernel_select.h"

#include "cost_model.h"
#include "kernel_api.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first version of the precision in the preference order of kernels/fused/dispatch.cu that runs the problem (the
 * selection where the cost model has coefficients for none of them), or NULL */
static const cgp_kernel_desc *first_in_order(const cgp_problem *p, const cgp_device_info *d, int precision,
                                             const char **reason)
{
    int count = 0;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&count);
    for (int i = 0; i < count; ++i)
        if (table[i]->precision == precision && !table[i]->unsupported(p, d)) {
            if (reason)
                *reason = "the cost model has coefficients for none of the versions that run the shape: the first "
                          "of them in the preference order of kernels/fused/dispatch.cu";
            return table[i];
        }
    if (reason)
        *reason = "no version of the precision supports the shape";
    return NULL;
}

const cgp_kernel_desc *cgp_select_heuristic(const cgp_problem *p, const cgp_device_info *d, int precision,
                                            const char **reason)
{
    int count = 0;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&count);
    const cgp_kernel_desc *best = NULL;
    double best_ms = 0.0;
    for (int i = 0; i < count; ++i) {
        double ms = 0.0;
        if (table[i]->precision != precision || table[i]->unsupported(p, d) ||
            !cgp_cost_model_ms(table[i]->version, p, d, &ms))
            continue;
        if (!best || ms < best_ms) {
            best = table[i];
            best_ms = ms;
        }
    }
    if (!best)
        return first_in_order(p, d, precision, reason);
    if (reason)
        *reason = "the lowest GPU time the cost model predicts among the versions that run the shape "
                  "(host/lib/cost_model.c)";
    return best;
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

/* Launches a graph holds for a candidate whose one launch took about one_ms: about 1 ms of GPU work, 1 to
 * CGP_SELECT_GRAPH_RUNS */
static int graph_runs(float one_ms)
{
    if (!(one_ms > 0.0f))
        return CGP_SELECT_GRAPH_RUNS;
    const float runs = 1.0f / one_ms + 1.0f;
    return runs >= (float)CGP_SELECT_GRAPH_RUNS ? CGP_SELECT_GRAPH_RUNS : (int)runs;
}

/* `runs` launches of k captured on `capture_stream` (its own, so the caller's stream is never in capture mode)
 * into *exec. Returns the first CUDA error, *step naming the call; a refused capture is ended and cleared. */
static cudaError_t capture_launches(const cgp_kernel_desc *k, const cgp_kernel_config *c, const cgp_device_info *d,
                                    const cgp_launch_args *args, int runs, cudaStream_t capture_stream,
                                    cudaGraphExec_t *exec, const char **step)
{
    cudaGraph_t graph = NULL;
    *step = "cudaStreamBeginCapture";
    cudaError_t e = cudaStreamBeginCapture(capture_stream, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess)
        return e;
    *step = "a captured launch";
    for (int r = 0; r < runs && e == cudaSuccess; ++r)
        e = k->launch(args, c, d, capture_stream);
    const cudaError_t ended = cudaStreamEndCapture(capture_stream, &graph);
    if (e == cudaSuccess && ended != cudaSuccess) {
        *step = "cudaStreamEndCapture";
        e = ended;
    }
    if (e == cudaSuccess) {
        *step = "cudaGraphInstantiate";
        e = cudaGraphInstantiate(exec, graph, 0);
    }
    if (graph)
        cudaGraphDestroy(graph);
    return e;
}

/* One candidate, in GPU time: a warm-up launch (timed, to size the graph), then graph_runs() launches captured into
 * one CUDA graph, replayed once untimed and CGP_SELECT_TIMED_RUNS times between CUDA events on `stream`; the
 * median replay / launches into *median. No host launch cost is inside (a launch between two events on an idle
 * GPU holds the launch's host time too, most of a kernel of a few microseconds). Returns the first CUDA error,
 * *step naming the call. */
static cudaError_t time_candidate(const cgp_kernel_desc *k, const cgp_device_info *d, cgp_launch_args args,
                                  cudaStream_t stream, cudaStream_t capture_stream, cudaEvent_t *ev, float *median,
                                  const char **step)
{
    cgp_kernel_config config;
    cgp_kernel_configure(k, &args.p, d, &config);
    const size_t bytes = config.workspace_bytes;
    void *workspace = NULL;
    cudaGraphExec_t exec = NULL;
    *step = "cgp_kernel_prepare";
    cudaError_t e = cgp_kernel_prepare(&config);
    if (e == cudaSuccess && bytes > 0) {
        *step = "cudaMalloc of its workspace";
        e = cudaMalloc(&workspace, bytes);
    }
    args.workspace = workspace;
    float one_ms = 0.0f;
    if (e == cudaSuccess) {
        *step = "the warm-up launch";
        e = cudaEventRecord(ev[0], stream);
        if (e == cudaSuccess)
            e = k->launch(&args, &config, d, stream);
        if (e == cudaSuccess)
            e = cudaEventRecord(ev[1], stream);
        if (e == cudaSuccess)
            e = cudaEventSynchronize(ev[1]);
        if (e == cudaSuccess)
            e = cudaEventElapsedTime(&one_ms, ev[0], ev[1]);
    }
    const int runs = graph_runs(one_ms);
    if (e == cudaSuccess)
        e = capture_launches(k, &config, d, &args, runs, capture_stream, &exec, step);
    if (e == cudaSuccess) {
        *step = "cudaGraphLaunch";
        e = cudaGraphLaunch(exec, stream);
    }
    for (int r = 0; r < CGP_SELECT_TIMED_RUNS && e == cudaSuccess; ++r) {
        *step = "cudaEventRecord";
        e = cudaEventRecord(ev[2 * r], stream);
        if (e == cudaSuccess) {
            *step = "cudaGraphLaunch";
            e = cudaGraphLaunch(exec, stream);
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
        ms[r] /= (float)runs;
    }
    if (exec)
        cudaGraphExecDestroy(exec);
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
    cudaStream_t capture_stream = NULL;
    for (; created < 2 * CGP_SELECT_TIMED_RUNS && e == cudaSuccess; ++created)
        e = cudaEventCreate(&ev[created]);
    if (e != cudaSuccess)
        --created;
    if (e == cudaSuccess) {
        step = "cudaStreamCreateWithFlags";
        e = cudaStreamCreateWithFlags(&capture_stream, cudaStreamNonBlocking);
    }
    for (int i = 0; i < count && e == cudaSuccess; ++i) {
        if (candidates[i].unsupported)
            continue;
        float median = 0.0f;
        e = time_candidate(kernels[i], d, args, stream, capture_stream, ev, &median, &step);
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
    if (capture_stream)
        cudaStreamDestroy(capture_stream);
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
/* One key's measurement: being measured by the thread that claimed it (medians NULL), or measured. */
typedef struct cache_entry {
    cgp_select_key key;
    int measured, version, count;
    float *medians;
} cache_entry;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cache_changed = PTHREAD_COND_INITIALIZER; /* a claim was settled: stored or released */
static cache_entry *cache;
static size_t cache_count, cache_capacity;

static int same_key(const cgp_select_key *a, const cgp_select_key *b)
{
    return a->device == b->device && a->n == b->n && a->cin == b->cin && a->cout == b->cout && a->h == b->h &&
           a->w == b->w && a->pad == b->pad && a->reduce == b->reduce && a->precision == b->precision &&
           a->weight_aligned16 == b->weight_aligned16;
}

/* the entry of key (measured or claimed), or NULL; call with the lock held */
static cache_entry *cache_lookup(const cgp_select_key *key)
{
    for (size_t i = 0; i < cache_count; ++i)
        if (same_key(&cache[i].key, key))
            return &cache[i];
    return NULL;
}

/* a new entry of key, not measured, or NULL when out of host memory; call with the lock held */
static cache_entry *cache_append(const cgp_select_key *key)
{
    if (cache_count == cache_capacity) {
        const size_t capacity = cache_capacity ? 2 * cache_capacity : 16;
        cache_entry *grown = realloc(cache, capacity * sizeof *grown);
        if (!grown)
            return NULL;
        cache = grown;
        cache_capacity = capacity;
    }
    cache[cache_count] = (cache_entry){*key, 0, 0, 0, NULL};
    return &cache[cache_count++];
}

static void copy_medians(const cache_entry *e, int *version, float *medians, int count)
{
    *version = e->version;
    for (int i = 0; i < count; ++i)
        medians[i] = i < e->count ? e->medians[i] : -1.0f;
}

int cgp_select_cache_find(const cgp_select_key *key, int *version, float *medians, int count)
{
    pthread_mutex_lock(&cache_lock);
    const cache_entry *e = cache_lookup(key);
    const int found = e && e->measured;
    if (found)
        copy_medians(e, version, medians, count);
    pthread_mutex_unlock(&cache_lock);
    return found;
}

int cgp_select_cache_claim(const cgp_select_key *key, int *version, float *medians, int count)
{
    pthread_mutex_lock(&cache_lock);
    const cache_entry *e;
    while ((e = cache_lookup(key)) && !e->measured)
        pthread_cond_wait(&cache_changed, &cache_lock);
    const int found = e != NULL;
    if (found)
        copy_medians(e, version, medians, count);
    else
        cache_append(key); /* out of host memory: no claim, so threads measuring the key at once do not wait */
    pthread_mutex_unlock(&cache_lock);
    return found;
}

int cgp_select_cache_store(const cgp_select_key *key, int version, const float *medians, int count)
{
    int rc = 0;
    pthread_mutex_lock(&cache_lock);
    cache_entry *e = cache_lookup(key);
    if (!e || !e->measured) {
        float *copy = malloc((size_t)(count > 0 ? count : 1) * sizeof *copy);
        if (copy && (e || (e = cache_append(key)))) {
            memcpy(copy, medians, (size_t)count * sizeof *copy);
            e->measured = 1, e->version = version, e->count = count, e->medians = copy;
        } else {
            free(copy);
            if (e) /* the claim, which cannot be filled: released */
                *e = cache[--cache_count];
            rc = -1;
        }
    }
    pthread_cond_broadcast(&cache_changed);
    pthread_mutex_unlock(&cache_lock);
    return rc;
}

void cgp_select_cache_release(const cgp_select_key *key)
{
    pthread_mutex_lock(&cache_lock);
    cache_entry *e = cache_lookup(key);
    if (e && !e->measured)
        *e = cache[--cache_count];
    pthread_cond_broadcast(&cache_changed);
    pthread_mutex_unlock(&cache_lock);
}
