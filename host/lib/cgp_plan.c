/*
 * cgp_plan.c - the library behind include/cgp.h: validates a shape and options, picks the
 * kernel version (host/lib/kernel_select.h: the heuristic, or the measured selection), owns the small
 * device state the in-launch reduction needs, and launches. The CLI, the tests and the benchmarks all go
 * through these functions.
 */
#include "cgp.h"
#include "kernel_api.h"
#include "kernel_select.h"
#include "plan_stages.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_MAX_CANDIDATES 32 /* kernel versions of one precision */

/* What a plan is. The caller's cgp_plan * is a handle naming it (below), never its address. */
typedef struct plan_state {
    cgp_problem problem;
    cgp_options options;
    const cgp_kernel_desc *kernel;
    cgp_kernel_config config; /* the kernel's configuration for the problem, made once (kernel_api.h) */
    /* cgp_kernel_prepare has raised the configured kernel's shared-memory limit: at the plan's first run, not at
     * its creation, since that touches the kernel's module and may wait for the device (lazy loading), and a
     * heuristic plan is made without waiting for the GPU (tests/gpu/gpu_select.c) */
    atomic_int prepared;
    cgp_device_info device;
    int device_ordinal;
    size_t workspace_bytes;
    double *accum;      /* [n * cout], zero between runs */
    unsigned *counters; /* [n + CGP_LAUNCH_WORDS], zero between runs */
    unsigned *path_record; /* one word: the cgp_path_id the last launch recorded, 0 after cgp_plan_recorded_path */
    cgp_candidate candidates[PLAN_MAX_CANDIDATES]; /* what the selection considered, table order */
    int candidate_count;
    int from_cache; /* a measured plan that took a winner measured earlier in the process */
} plan_state;

static _Thread_local char last_detail[512];

static cgp_status fail(cgp_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_detail, sizeof last_detail, fmt, ap);
    va_end(ap);
    return status;
}

static cgp_status fail_cuda_at(const char *call, cudaError_t err, const char *file, int line)
{
    return fail(CGP_ERROR_CUDA, "%s failed at %s:%d: %s: %s", call, file, line, cudaGetErrorName(err),
                cudaGetErrorString(err));
}
/* the failing call, where it was made, and CUDA's name and description of the error */
#define fail_cuda(call, err) fail_cuda_at((call), (err), __FILE__, __LINE__)

const char *cgp_last_error_detail(void) { return last_detail; }

const char *cgp_status_string(cgp_status status)
{
    switch (status) {
    case CGP_SUCCESS: return "success";
    case CGP_ERROR_NULL_POINTER: return "a required pointer is NULL";
    case CGP_ERROR_INVALID_SHAPE: return "invalid shape";
    case CGP_ERROR_INVALID_OPTION: return "invalid option";
    case CGP_ERROR_MISALIGNED: return "misaligned pointer";
    case CGP_ERROR_WORKSPACE_TOO_SMALL: return "workspace too small";
    case CGP_ERROR_UNSUPPORTED: return "kernel version does not support this shape";
    case CGP_ERROR_CUDA: return "CUDA error";
    case CGP_ERROR_INVALID_PLAN: return "not a live plan";
    case CGP_ERROR_OUT_OF_HOST_MEMORY: return "out of host memory";
    }
    return "unknown status";
}

int cgp_version(void) { return CGP_VERSION_MAJOR * 1000 + CGP_VERSION_MINOR; }

cgp_options cgp_default_options(void)
{
    cgp_options o = {CGP_PADDING_VALID, CGP_REDUCE_DET, CGP_PRECISION_FP32, 0, CGP_SELECT_HEURISTIC};
    return o;
}

/* With a size >= 1 and padding 0 or 1, size - 2 + 2 * padding cannot overflow. */
static int64_t output_size(int64_t size, cgp_padding padding)
{
    if (size < 1 || (padding != CGP_PADDING_VALID && padding != CGP_PADDING_SAME))
        return 0;
    const int64_t v = size - 2 + 2 * (int64_t)padding;
    return v > 0 ? v : 0;
}

int64_t cgp_output_height(const cgp_shape *s, cgp_padding padding) { return s ? output_size(s->h, padding) : 0; }
int64_t cgp_output_width(const cgp_shape *s, cgp_padding padding) { return s ? output_size(s->w, padding) : 0; }

/* ---- plan handles: a slot of the table below and the generation of its occupant, so no handle is ever given
 * twice: a destroyed plan's handle stays invalid whatever is created after it (a slot whose generation would
 * wrap is retired). The handle is (generation << 32) | (slot + 1), never NULL and never an address. ---- */
_Static_assert(sizeof(uintptr_t) == 8, "plan handles are 64-bit");

typedef struct plan_slot {
    plan_state *state;   /* NULL: free */
    uint32_t generation; /* of the current or last occupant */
} plan_slot;

static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static plan_slot *slots;
static size_t slot_count, slot_capacity;

/* A new handle for `state`, or NULL when out of host memory. */
static cgp_plan *handle_add(plan_state *state)
{
    cgp_plan *handle = NULL;
    pthread_mutex_lock(&slots_lock);
    size_t i = 0;
    while (i < slot_count && (slots[i].state || slots[i].generation == UINT32_MAX))
        ++i;
    if (i == slot_count && slot_count < UINT32_MAX - 1) {
        if (slot_count == slot_capacity) {
            const size_t capacity = slot_capacity ? 2 * slot_capacity : 16;
            plan_slot *grown = realloc(slots, capacity * sizeof *grown);
            if (grown)
                slots = grown, slot_capacity = capacity;
        }
        if (slot_count < slot_capacity)
            slots[slot_count++] = (plan_slot){NULL, 0};
    }
    if (i < slot_count) {
        slots[i].state = state;
        ++slots[i].generation;
        handle = (cgp_plan *)(((uintptr_t)slots[i].generation << 32) | (uintptr_t)(i + 1));
    }
    pthread_mutex_unlock(&slots_lock);
    return handle;
}

/* The state `handle` names while its plan lives, else NULL; remove: the handle is given up (destroy). */
static plan_state *handle_state(const cgp_plan *handle, int remove)
{
    const uintptr_t h = (uintptr_t)handle;
    const size_t i = (size_t)(h & UINT32_MAX) - 1;
    const uint32_t generation = (uint32_t)(h >> 32);
    plan_state *state = NULL;
    pthread_mutex_lock(&slots_lock);
    if (h && i < slot_count && slots[i].generation == generation) {
        state = slots[i].state;
        if (remove)
            slots[i].state = NULL;
    }
    pthread_mutex_unlock(&slots_lock);
    return state;
}

/* ---- validation ---- */
static int mul_fits(int64_t a, int64_t b, int64_t limit) { return a > 0 && b > 0 && a <= limit / b; }

static cgp_status validate_shape(const cgp_shape *s, cgp_padding padding, cgp_problem *out)
{
    if (s->n < 1 || s->cin < 1 || s->cout < 1 || s->h < 1 || s->w < 1)
        return fail(CGP_ERROR_INVALID_SHAPE, "every dimension must be >= 1, got N=%lld Cin=%lld Cout=%lld H=%lld W=%lld",
                    (long long)s->n, (long long)s->cin, (long long)s->cout, (long long)s->h, (long long)s->w);
    const int64_t hout = cgp_output_height(s, padding), wout = cgp_output_width(s, padding);
    if (hout < 1 || wout < 1)
        return fail(CGP_ERROR_INVALID_SHAPE, "H=%lld W=%lld give no output pixel with padding %d (valid needs H, W >= 3)",
                    (long long)s->h, (long long)s->w, (int)padding);
    /* every tensor's element count times 8 bytes must fit in int64 */
    const int64_t limit = INT64_MAX / 8;
    const int ok = mul_fits(s->n, s->cin, limit) && mul_fits(s->n * s->cin, s->h, limit) &&
                   mul_fits(s->n * s->cin * s->h, s->w, limit) && mul_fits(s->cout, s->cin, limit / 9) &&
                   mul_fits(s->n, s->cout, limit) && mul_fits(hout, wout, limit);
    if (!ok)
        return fail(CGP_ERROR_INVALID_SHAPE, "tensor sizes overflow 64-bit byte counts");
    cgp_problem p = {s->n, s->cin, s->cout, s->h, s->w, hout, wout, (int)padding};
    *out = p;
    return CGP_SUCCESS;
}

static const char *precision_name(int precision)
{
    return precision == CGP_PRECISION_TF32 ? "tf32" : precision == CGP_PRECISION_TF32X3 ? "3xtf32" : "fp32";
}

static cgp_status validate_options(const cgp_options *o)
{
    if (o->padding != CGP_PADDING_VALID && o->padding != CGP_PADDING_SAME)
        return fail(CGP_ERROR_INVALID_OPTION, "padding must be 0 (valid) or 1 (same), got %d", (int)o->padding);
    if (o->reduce != CGP_REDUCE_DET && o->reduce != CGP_REDUCE_ATOMIC)
        return fail(CGP_ERROR_INVALID_OPTION, "reduce must be 0 (det) or 1 (atomic), got %d", (int)o->reduce);
    if (o->precision < CGP_PRECISION_FP32 || o->precision > CGP_PRECISION_TF32X3)
        return fail(CGP_ERROR_INVALID_OPTION, "precision must be 0 (fp32), 1 (tf32) or 2 (3xtf32), got %d",
                    (int)o->precision);
    if (o->kernel < 0)
        return fail(CGP_ERROR_INVALID_OPTION, "kernel must be 0 (best) or a version number, got %d", o->kernel);
    if (o->select != CGP_SELECT_HEURISTIC && o->select != CGP_SELECT_MEASURED)
        return fail(CGP_ERROR_INVALID_OPTION, "select must be 0 (heuristic) or 1 (measured), got %d", (int)o->select);
    if (o->select == CGP_SELECT_MEASURED && o->kernel != 0)
        return fail(CGP_ERROR_INVALID_OPTION, "select 1 (measured) chooses kernel 0's version: kernel must be 0, got %d",
                    o->kernel);
    if (o->kernel != 0) { /* the version and its precision, before any device work */
        const cgp_kernel_desc *k = cgp_kernel_find(o->kernel);
        if (!k)
            return fail(CGP_ERROR_INVALID_OPTION, "there is no kernel version %d (see `cgp kernels`; a version that "
                        "left the library is built by the commit docs/perf-log.md's \"Retired versions\" names)",
                        o->kernel);
        if (k->precision != (int)o->precision)
            return fail(CGP_ERROR_INVALID_OPTION, "kernel %d (%s) is a %s kernel, but the precision asked for is %s",
                        k->version, k->name, precision_name(k->precision), precision_name(o->precision));
    }
    return CGP_SUCCESS;
}

/* The version of options.kernel, or the heuristic's choice for kernel 0. */
static cgp_status choose_kernel(const cgp_problem *p, const cgp_options *o, const cgp_device_info *d,
                                const cgp_kernel_desc **chosen)
{
    if (o->kernel == 0) {
        *chosen = cgp_select_heuristic(p, d, (int)o->precision, NULL);
        return *chosen ? CGP_SUCCESS
                       : fail(CGP_ERROR_UNSUPPORTED, "no %s kernel supports this shape", precision_name(o->precision));
    }
    const cgp_kernel_desc *k = cgp_kernel_find(o->kernel); /* there, of the precision: validate_options */
    const char *why = k->unsupported(p, d);
    if (why)
        return fail(CGP_ERROR_UNSUPPORTED, "kernel %d (%s) cannot run this shape: %s", k->version, k->name, why);
    *chosen = k;
    return CGP_SUCCESS;
}

static cgp_status query_device(int *ordinal, cgp_device_info *d)
{
    cudaError_t err = cudaGetDevice(ordinal);
    if (err != cudaSuccess)
        return fail_cuda("cudaGetDevice", err);
    if ((err = cgp_device_info_of(*ordinal, d)) != cudaSuccess)
        return fail_cuda("cudaDeviceGetAttribute", err);
    return CGP_SUCCESS;
}

/* What a plan is made from: the validated problem and options, the device, the candidate versions. */
typedef struct plan_setup {
    cgp_problem problem;
    cgp_options options;
    cgp_device_info device;
    int ordinal;
    const cgp_kernel_desc *kernels[PLAN_MAX_CANDIDATES];
    cgp_candidate candidates[PLAN_MAX_CANDIDATES];
    int count;
} plan_setup;

static cgp_status plan_setup_make(const cgp_shape *shape, const cgp_options *options, plan_setup *s)
{
    cgp_status st = validate_options(options);
    if (st == CGP_SUCCESS)
        st = validate_shape(shape, options->padding, &s->problem);
    if (st == CGP_SUCCESS)
        st = query_device(&s->ordinal, &s->device);
    if (st != CGP_SUCCESS)
        return st;
    s->options = *options;
    s->count = cgp_select_candidates(&s->problem, &s->device, (int)options->precision, s->kernels, s->candidates,
                                     PLAN_MAX_CANDIDATES);
    return CGP_SUCCESS;
}

static cgp_select_key select_key(const plan_setup *s, int weight_aligned16)
{
    cgp_select_key k;
    memset(&k, 0, sizeof k);
    k.device = s->ordinal;
    k.n = s->problem.n, k.cin = s->problem.cin, k.cout = s->problem.cout, k.h = s->problem.h, k.w = s->problem.w;
    k.pad = s->problem.pad, k.reduce = (int)s->options.reduce, k.precision = (int)s->options.precision;
    k.weight_aligned16 = weight_aligned16;
    return k;
}

/* The setup's kernel of `version` with the measured medians put into its candidates, or NULL. */
static const cgp_kernel_desc *take_winner(plan_setup *s, int version, const float *medians)
{
    const cgp_kernel_desc *chosen = NULL;
    for (int i = 0; i < s->count; ++i) {
        s->candidates[i].median_ms = medians[i];
        if (s->kernels[i]->version == version)
            chosen = s->kernels[i];
    }
    return chosen;
}

/* cgp_plan_create's measured winner for the setup's key: the one measured with 16-byte-aligned weights, else the
 * one measured with 4-byte-aligned weights, else NULL. */
static const cgp_kernel_desc *cached_choice(plan_setup *s)
{
    float medians[PLAN_MAX_CANDIDATES];
    int version = 0;
    for (int aligned16 = 1; aligned16 >= 0; --aligned16) {
        const cgp_select_key key = select_key(s, aligned16);
        if (cgp_select_cache_find(&key, &version, medians, s->count))
            return take_winner(s, version, medians);
    }
    return NULL;
}

static void plan_free(plan_state *p)
{
    cudaFree(p->accum);
    cudaFree(p->counters);
    cudaFree(p->path_record);
    free(p);
}

/* A live plan of the setup running `kernel`, with its device state zeroed on `stream` (synchronized): its handle
 * into *out, its state into *state_out (may be NULL). */
static cgp_status plan_make(const plan_setup *s, const cgp_kernel_desc *kernel, int from_cache, cudaStream_t stream,
                            cgp_plan **out, plan_state **state_out)
{
    plan_state *p = calloc(1, sizeof *p);
    if (!p)
        return fail(CGP_ERROR_OUT_OF_HOST_MEMORY, "cgp_plan_create: out of host memory");
    p->problem = s->problem;
    p->options = s->options;
    p->kernel = kernel;
    p->device = s->device;
    p->device_ordinal = s->ordinal;
    cgp_kernel_configure(kernel, &s->problem, &s->device, &p->config);
    p->workspace_bytes = p->config.workspace_bytes;
    memcpy(p->candidates, s->candidates, (size_t)s->count * sizeof s->candidates[0]);
    p->candidate_count = s->count;
    p->from_cache = from_cache;
    const size_t accum_bytes = (size_t)(s->problem.n * s->problem.cout) * sizeof(double);
    const size_t counter_bytes = (size_t)(s->problem.n + CGP_LAUNCH_WORDS) * sizeof(unsigned);
    cudaError_t err;
    if ((err = cudaMalloc((void **)&p->accum, accum_bytes)) != cudaSuccess ||
        (err = cudaMalloc((void **)&p->counters, counter_bytes)) != cudaSuccess ||
        (err = cudaMalloc((void **)&p->path_record, sizeof *p->path_record)) != cudaSuccess ||
        (err = cudaMemsetAsync(p->accum, 0, accum_bytes, stream)) != cudaSuccess ||
        (err = cudaMemsetAsync(p->counters, 0, counter_bytes, stream)) != cudaSuccess ||
        (err = cudaMemsetAsync(p->path_record, 0, sizeof *p->path_record, stream)) != cudaSuccess ||
        /* a stream that another (a non-blocking one) does not wait for: finish the memsets here, so a first
         * run on any stream sees the state zeroed */
        (err = cudaStreamSynchronize(stream)) != cudaSuccess) {
        plan_free(p);
        return fail_cuda("cgp_plan_create: allocating the plan's device state", err);
    }
    cgp_plan *handle = handle_add(p);
    if (!handle) {
        plan_free(p);
        return fail(CGP_ERROR_OUT_OF_HOST_MEMORY, "cgp_plan_create: out of host memory");
    }
    *out = handle;
    if (state_out)
        *state_out = p;
    return CGP_SUCCESS;
}

/* A launch of the plan's problem on these tensors, with the plan's device state. */
static cgp_launch_args launch_args(const plan_state *p, const float *x, const float *weight, const float *bias, float *y,
                                   void *workspace)
{
    cgp_launch_args a;
    memset(&a, 0, sizeof a);
    a.x = x;
    a.weight = weight;
    a.bias = bias;
    a.y = y;
    a.workspace = workspace;
    a.accum = p->accum;
    a.counters = p->counters;
    a.path_record = p->path_record;
    a.atomic = p->options.reduce == CGP_REDUCE_ATOMIC;
    a.p = p->problem;
    return a;
}

cgp_status cgp_plan_create(cgp_plan **plan, const cgp_shape *shape, const cgp_options *options)
{
    if (!plan || !shape || !options)
        return fail(CGP_ERROR_NULL_POINTER, "cgp_plan_create: plan, shape and options must not be NULL");
    *plan = NULL;
    plan_setup s;
    cgp_status st = plan_setup_make(shape, options, &s);
    if (st != CGP_SUCCESS)
        return st;
    const cgp_kernel_desc *kernel = NULL;
    if (options->select == CGP_SELECT_MEASURED) {
        if (!(kernel = cached_choice(&s)))
            return fail(CGP_ERROR_INVALID_OPTION, "cgp_plan_create: select 1 (measured): this process has not measured "
                        "this device, shape, padding, reduce and precision yet; call cgp_plan_create_measured, which "
                        "times the versions on your buffers");
    } else if ((st = choose_kernel(&s.problem, options, &s.device, &kernel)) != CGP_SUCCESS) {
        return st;
    }
    return plan_make(&s, kernel, options->select == CGP_SELECT_MEASURED, 0, plan, NULL);
}

static int aligned(const void *ptr, size_t alignment) { return ((uintptr_t)ptr % alignment) == 0; }

cgp_status cgp_plan_create_measured(cgp_plan **plan, const cgp_shape *shape, const cgp_options *options,
                                    const float *x, const float *weight, const float *bias, float *y,
                                    cudaStream_t stream)
{
    if (!plan || !shape || !options)
        return fail(CGP_ERROR_NULL_POINTER, "cgp_plan_create_measured: plan, shape and options must not be NULL");
    *plan = NULL;
    if (!x || !weight || !bias || !y)
        return fail(CGP_ERROR_NULL_POINTER,
                    "cgp_plan_create_measured: x, weight, bias and y must not be NULL (the versions are timed on them)");
    cgp_options o = *options;
    o.select = CGP_SELECT_MEASURED;
    plan_setup s;
    cgp_status st = plan_setup_make(shape, &o, &s);
    if (st != CGP_SUCCESS)
        return st;
    if (!aligned(x, 16))
        return fail(CGP_ERROR_MISALIGNED, "cgp_plan_create_measured: x must be 16-byte aligned");
    if (!aligned(weight, 4) || !aligned(bias, 4) || !aligned(y, 4))
        return fail(CGP_ERROR_MISALIGNED, "cgp_plan_create_measured: weight, bias and y must be 4-byte aligned");
    /* one thread measures a key; another asking for it meanwhile waits here and takes its winner */
    const cgp_select_key key = select_key(&s, aligned(weight, 16));
    float medians[PLAN_MAX_CANDIDATES];
    int version = 0;
    if (cgp_select_cache_claim(&key, &version, medians, s.count)) {
        const cgp_kernel_desc *winner = take_winner(&s, version, medians);
        return winner ? plan_make(&s, winner, 1, stream, plan, NULL)
                      : fail(CGP_ERROR_UNSUPPORTED, "cgp_plan_create_measured: the cached winner, version %d, is not "
                             "a candidate of this shape", version);
    }
    const cgp_kernel_desc *kernel = cgp_select_heuristic(&s.problem, &s.device, (int)o.precision, NULL);
    if (!kernel) {
        cgp_select_cache_release(&key);
        return fail(CGP_ERROR_UNSUPPORTED, "no %s kernel supports this shape", precision_name(o.precision));
    }
    cgp_plan *handle = NULL;
    plan_state *p = NULL;
    if ((st = plan_make(&s, kernel, 0, stream, &handle, &p)) != CGP_SUCCESS) { /* the state the timed runs use */
        cgp_select_cache_release(&key);
        return st;
    }
    const cgp_launch_args args = launch_args(p, x, weight, bias, y, NULL);
    cudaError_t cuda_error = cudaSuccess;
    char why[400];
    const int best = cgp_select_measure(s.kernels, p->candidates, p->candidate_count, &s.device, args, stream,
                                        &cuda_error, why, sizeof why);
    if (best < 0) {
        cgp_select_cache_release(&key);
        handle_state(handle, 1);
        plan_free(p);
        return fail(cuda_error != cudaSuccess ? CGP_ERROR_CUDA : CGP_ERROR_UNSUPPORTED, "cgp_plan_create_measured: %s",
                    why);
    }
    /* the candidates' timed runs recorded their paths into the plan's record: cleared, so that it holds what the
     * plan's own runs record */
    p->kernel = s.kernels[best];
    cgp_kernel_configure(p->kernel, &s.problem, &s.device, &p->config);
    p->workspace_bytes = p->config.workspace_bytes;
    cudaError_t err = cudaMemsetAsync(p->path_record, 0, sizeof *p->path_record, stream);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess) {
        cgp_select_cache_release(&key);
        handle_state(handle, 1);
        plan_free(p);
        return fail_cuda("cgp_plan_create_measured: clearing the path record", err);
    }
    for (int i = 0; i < p->candidate_count; ++i)
        medians[i] = p->candidates[i].median_ms;
    cgp_select_cache_store(&key, p->kernel->version, medians, p->candidate_count); /* out of memory: not cached */
    *plan = handle;
    return CGP_SUCCESS;
}

cgp_status cgp_plan_candidates(const cgp_plan *plan, const cgp_candidate **candidates, int *count, int *from_cache)
{
    if (!candidates || !count)
        return fail(CGP_ERROR_NULL_POINTER, "cgp_plan_candidates: candidates and count must not be NULL");
    const plan_state *p = handle_state(plan, 0);
    if (!p)
        return fail(CGP_ERROR_INVALID_PLAN, "cgp_plan_candidates: not a live plan");
    *candidates = p->candidates;
    *count = p->candidate_count;
    if (from_cache)
        *from_cache = p->from_cache;
    return CGP_SUCCESS;
}

cgp_status cgp_plan_workspace_size(const cgp_plan *plan, size_t *bytes)
{
    if (!bytes)
        return fail(CGP_ERROR_NULL_POINTER, "cgp_plan_workspace_size: bytes must not be NULL");
    const plan_state *p = handle_state(plan, 0);
    if (!p)
        return fail(CGP_ERROR_INVALID_PLAN, "cgp_plan_workspace_size: not a live plan");
    *bytes = p->workspace_bytes;
    return CGP_SUCCESS;
}

cgp_status cgp_plan_kernel(const cgp_plan *plan, int *version, const char **name)
{
    const plan_state *p = handle_state(plan, 0);
    if (!p)
        return fail(CGP_ERROR_INVALID_PLAN, "cgp_plan_kernel: not a live plan");
    if (version)
        *version = p->kernel->version;
    if (name)
        *name = p->kernel->name;
    return CGP_SUCCESS;
}

cgp_status cgp_plan_kernel_kind(const cgp_plan *plan, const char **kind)
{
    if (!kind)
        return fail(CGP_ERROR_NULL_POINTER, "cgp_plan_kernel_kind: kind must not be NULL");
    const plan_state *p = handle_state(plan, 0);
    if (!p)
        return fail(CGP_ERROR_INVALID_PLAN, "cgp_plan_kernel_kind: not a live plan");
    *kind = cgp_kernel_kind_name(p->kernel);
    return CGP_SUCCESS;
}

/* cgp_plan_run (caller) and the stage split: stages = CGP_STAGE_ALL is the plan's kernel as it is */
static cgp_status plan_launch(const char *caller, cgp_plan *handle, const float *x, const float *weight,
                              const float *bias, float *y, void *workspace, size_t workspace_bytes, int stages,
                              cudaStream_t stream)
{
    plan_state *plan = handle_state(handle, 0);
    if (!plan)
        return fail(CGP_ERROR_INVALID_PLAN, "%s: not a live plan (never created, or destroyed)", caller);
    if (!x || !weight || !bias || !y)
        return fail(CGP_ERROR_NULL_POINTER, "%s: x, weight, bias and y must not be NULL", caller);
    if (plan->workspace_bytes > 0 && !workspace)
        return fail(CGP_ERROR_NULL_POINTER, "%s: this plan needs %zu bytes of workspace, got NULL", caller,
                    plan->workspace_bytes);
    if (workspace_bytes < plan->workspace_bytes)
        return fail(CGP_ERROR_WORKSPACE_TOO_SMALL, "%s: workspace of %zu bytes, the plan needs %zu", caller,
                    workspace_bytes, plan->workspace_bytes);
    if (!aligned(x, 16) || (workspace && !aligned(workspace, 16)))
        return fail(CGP_ERROR_MISALIGNED, "%s: x and workspace must be 16-byte aligned", caller);
    if (!aligned(weight, 4) || !aligned(bias, 4) || !aligned(y, 4))
        return fail(CGP_ERROR_MISALIGNED, "%s: weight, bias and y must be 4-byte aligned", caller);
    int current = -1;
    cudaError_t err = cudaGetDevice(&current);
    if (err != cudaSuccess)
        return fail_cuda("cudaGetDevice", err);
    if (current != plan->device_ordinal)
        return fail(CGP_ERROR_CUDA, "%s: the plan was created on device %d, the current device is %d", caller,
                    plan->device_ordinal, current);
    if (!atomic_load_explicit(&plan->prepared, memory_order_acquire)) { /* idempotent: concurrent first runs agree */
        if ((err = cgp_kernel_prepare(&plan->config)) != cudaSuccess)
            return fail(CGP_ERROR_CUDA, "%s: raising %s's shared-memory limit failed: %s: %s", caller,
                        plan->kernel->name, cudaGetErrorName(err), cudaGetErrorString(err));
        atomic_store_explicit(&plan->prepared, 1, memory_order_release);
    }
    const cgp_launch_args args = launch_args(plan, x, weight, bias, y, workspace);
    if (stages == CGP_STAGE_ALL) {
        err = plan->kernel->launch(&args, &plan->config, &plan->device, stream);
    } else {
        if (!plan->kernel->launch_stages)
            return fail(CGP_ERROR_UNSUPPORTED, "%s: %s has no stage split (only the tensor-core versions have one)",
                        caller, plan->kernel->name);
        const char *why = plan->kernel->stages_unsupported(&plan->problem, &plan->device);
        if (why)
            return fail(CGP_ERROR_UNSUPPORTED, "%s: %s: %s", caller, plan->kernel->name, why);
        err = plan->kernel->launch_stages(&args, &plan->config, &plan->device, stream, stages);
    }
    if (err != cudaSuccess)
        return fail(CGP_ERROR_CUDA, "launching %s failed at %s:%d: %s: %s", plan->kernel->name, __FILE__, __LINE__,
                    cudaGetErrorName(err), cudaGetErrorString(err));
    return CGP_SUCCESS;
}

cgp_status cgp_plan_run(cgp_plan *plan, const float *x, const float *weight, const float *bias, float *y,
                        void *workspace, size_t workspace_bytes, cudaStream_t stream)
{
    return plan_launch("cgp_plan_run", plan, x, weight, bias, y, workspace, workspace_bytes, CGP_STAGE_ALL, stream);
}

cgp_status cgp_plan_run_stages(cgp_plan *plan, const float *x, const float *weight, const float *bias, float *y,
                               void *workspace, size_t workspace_bytes, int stages, cudaStream_t stream)
{
    if (stages < 0 || stages > CGP_STAGE_ALL)
        return fail(CGP_ERROR_INVALID_OPTION, "cgp_plan_run_stages: stages must be in [0, %d], got %d", CGP_STAGE_ALL,
                    stages);
    return plan_launch("cgp_plan_run_stages", plan, x, weight, bias, y, workspace, workspace_bytes, stages, stream);
}

cgp_status cgp_plan_recorded_path(cgp_plan *handle, const char **name)
{
    if (!name)
        return fail(CGP_ERROR_NULL_POINTER, "cgp_plan_recorded_path: name must not be NULL");
    const plan_state *plan = handle_state(handle, 0);
    if (!plan)
        return fail(CGP_ERROR_INVALID_PLAN, "cgp_plan_recorded_path: not a live plan (never created, or destroyed)");
    int current = -1;
    cudaError_t err = cudaGetDevice(&current);
    if (err != cudaSuccess)
        return fail_cuda("cudaGetDevice", err);
    if (current != plan->device_ordinal)
        return fail(CGP_ERROR_CUDA, "cgp_plan_recorded_path: the plan was created on device %d, the current device "
                    "is %d", plan->device_ordinal, current);
    /* the launches may be on any stream: wait for the device, read, clear, and wait for the clearing */
    unsigned id = 0;
    if ((err = cudaDeviceSynchronize()) != cudaSuccess)
        return fail_cuda("cgp_plan_recorded_path: cudaDeviceSynchronize", err);
    if ((err = cudaMemcpy(&id, plan->path_record, sizeof id, cudaMemcpyDeviceToHost)) != cudaSuccess)
        return fail_cuda("cgp_plan_recorded_path: cudaMemcpy of the record", err);
    if ((err = cudaMemset(plan->path_record, 0, sizeof id)) != cudaSuccess)
        return fail_cuda("cgp_plan_recorded_path: cudaMemset of the record", err);
    if ((err = cudaDeviceSynchronize()) != cudaSuccess)
        return fail_cuda("cgp_plan_recorded_path: cudaDeviceSynchronize", err);
    *name = cgp_path_name(id);
    return CGP_SUCCESS;
}

cgp_status cgp_plan_destroy(cgp_plan *plan)
{
    if (!plan)
        return fail(CGP_ERROR_NULL_POINTER, "cgp_plan_destroy: plan is NULL");
    plan_state *state = handle_state(plan, 1);
    if (!state)
        return fail(CGP_ERROR_INVALID_PLAN, "cgp_plan_destroy: not a live plan (never created, or destroyed twice)");
    const cudaError_t e1 = cudaFree(state->accum), e2 = cudaFree(state->counters), e3 = cudaFree(state->path_record);
    free(state);
    if (e1 != cudaSuccess)
        return fail_cuda("cudaFree", e1);
    if (e2 != cudaSuccess)
        return fail_cuda("cudaFree", e2);
    if (e3 != cudaSuccess)
        return fail_cuda("cudaFree", e3);
    return CGP_SUCCESS;
}
