/*
 * variants_stages.c - the stage split of `cgp bench --stages`: for each tensor-core precision asked
 * for, timing-only rows of its kernel with the MMAs alone, the epilogue (bias, GELU, mean) alone and
 * neither (the skeleton: input staging, loop, reduction), and the summary that takes differences with
 * the full kernel's row:
 *     what the MMAs add      = T(full) - T(epilogue only)
 *     what the epilogue adds = T(full) - T(MMA only)
 *     no overlap at all      = T(MMA only) + T(epilogue only) - T(neither)
 *     perfect overlap        = max(T(MMA only), T(epilogue only))
 * T(neither) is latency-bound (each warp waits for its next tile's input with nothing to compute), so
 * it is an upper bound of what the skeleton costs inside the full kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "kernel_info.h"
#include "plan_stages.h"

static const char *const stage_names[] = {
    [0] = "neither (skeleton)", [CGP_STAGE_MMA] = "MMA only", [CGP_STAGE_EPILOGUE] = "epilogue only"};

static int stage_run(bench_variant *v, const bench_problem *p, cudaStream_t s)
{
    plan_state *st = v->state;
    const cgp_status rc =
        cgp_plan_run_stages(st->plan, p->x, p->w, p->b, p->y, st->workspace, st->workspace_bytes, st->stages, s);
    if (rc != CGP_SUCCESS) {
        fprintf(stderr, "cgp: %s: %s (%s)\n", v->name, cgp_status_string(rc), cgp_last_error_detail());
        return 1;
    }
    return 0;
}

static void stage_row_name(char *out, size_t size, int prec, int stages)
{
    snprintf(out, size, "stages %s: %s", bench_precision_name((bench_precision)prec), stage_names[stages]);
}

/* One row: a det plan of the precision (and --kernel) whose launches keep only `stages`; or the row left
 * unavailable with the reason. Returns 0, or 1 after printing a CUDA error that should stop the run. */
static int stage_row(const bench_problem *p, const fused_selection *sel, int prec, int stages, bench_variant *v)
{
    memset(v, 0, sizeof *v);
    stage_row_name(v->name, sizeof v->name, prec, stages);
    snprintf(v->family, sizeof v->family, "stages");
    v->precision = BENCH_PRECISION_NONE; /* timing-only: y is not the function */
    cgp_options o = cgp_default_options();
    o.padding = p->padding;
    o.precision = (cgp_precision)prec;
    o.kernel = sel->kernel;
    plan_state *st = plan_state_create(v, p, &o);
    if (!st)
        return 0;
    st->stages = stages;
    v->state = st;
    /* one trial launch tells whether this kernel has a stage split for the shape */
    const cgp_status rc =
        cgp_plan_run_stages(st->plan, p->x, p->w, p->b, p->y, st->workspace, st->workspace_bytes, stages, 0);
    if (rc == CGP_ERROR_UNSUPPORTED) {
        snprintf(v->unavailable, sizeof v->unavailable, "%s", cgp_last_error_detail());
        plan_state_destroy(v);
        return 0;
    }
    const cudaError_t e = rc == CGP_SUCCESS ? cudaDeviceSynchronize() : cudaSuccess;
    if (rc != CGP_SUCCESS || e != cudaSuccess) {
        fprintf(stderr, "cgp: %s: %s\n", v->name,
                rc != CGP_SUCCESS ? cgp_last_error_detail() : cudaGetErrorString(e));
        snprintf(v->unavailable, sizeof v->unavailable, "the trial launch failed (see the message above)");
        plan_state_destroy(v);
        return 1;
    }
    int version = 0;
    const char *kname = "?", *kind = NULL;
    cgp_plan_kernel(st->plan, &version, &kname);
    cgp_plan_kernel_kind(st->plan, &kind);
    snprintf(v->detail, sizeof v->detail, "kernel %s (--kernel %d: %s); the skipped stage is a stand-in of one "
             "instruction per output element", kname, version, kind ? kind : "?");
    v->bytes_moved = problem_min_bytes(p);
    v->run = stage_run;
    v->destroy = plan_state_destroy;
    return 0;
}

int variants_stages(const bench_problem *p, const fused_selection *sel, bench_variant *out, int *count, int max)
{
    for (int prec = 1; prec < 3; ++prec) {
        if (!(sel->precisions & (1u << prec)))
            continue;
        for (int stages = 0; stages < CGP_STAGE_ALL && *count < max; ++stages)
            if (stage_row(p, sel, prec, stages, &out[(*count)++]) != 0)
                return 1;
    }
    return 0;
}

static const bench_row *find_row(const bench_result *r, const char *name)
{
    for (int i = 0; i < r->count; ++i)
        if (strcmp(r->rows[i].v.name, name) == 0 && r->rows[i].timed)
            return &r->rows[i];
    return NULL;
}

void stages_print_split(FILE *f, const bench_result *r)
{
    for (int prec = 1; prec < 3; ++prec) {
        const char *pname = bench_precision_name((bench_precision)prec);
        char name[64];
        const bench_row *t[CGP_STAGE_ALL + 1];
        snprintf(name, sizeof name, "fused %s det", pname);
        t[CGP_STAGE_ALL] = find_row(r, name);
        int any = 0;
        for (int stages = 0; stages < CGP_STAGE_ALL; ++stages) {
            stage_row_name(name, sizeof name, prec, stages);
            t[stages] = find_row(r, name);
            any |= t[stages] != NULL;
        }
        if (any && !t[CGP_STAGE_ALL])
            fprintf(f, "stage split %s: no timed 'fused %s det' row to compare with (add det to --reduce)\n",
                    pname, pname);
        if (!t[0] || !t[1] || !t[2] || !t[3])
            continue;
        const double full = t[CGP_STAGE_ALL]->ms_median, none = t[0]->ms_median;
        const double mma = t[CGP_STAGE_MMA]->ms_median, epi = t[CGP_STAGE_EPILOGUE]->ms_median;
        fprintf(f, "stage split %s (medians, ms): full %.4f, MMA only %.4f, epilogue only %.4f, neither %.4f; the MMAs "
                "add %.4f, the epilogue adds %.4f; no overlap would give %.4f, perfect overlap %.4f\n",
                pname, full, mma, epi, none, full - epi, full - mma, mma + epi - none, mma > epi ? mma : epi);
    }
}
