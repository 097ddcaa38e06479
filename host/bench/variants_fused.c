/*
 * variants_fused.c - the fused kernel's bench rows: one plan per (precision, reduction) asked
 * for, run through the public API exactly as a user would call it; each row names the kernel version and the
 * path inside it that its checked run's launch recorded (host/lib/plan_stages.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_info.h"
#include "plan_stages.h"
#include "variants.h"

static const char *const reduce_names[] = {"det", "atomic"};

static int fused_run(bench_variant *v, const bench_problem *p, cudaStream_t s)
{
    plan_state *st = v->state;
    const cgp_status rc = cgp_plan_run(st->plan, p->x, p->w, p->b, p->y, st->workspace, st->workspace_bytes, s);
    if (rc != CGP_SUCCESS) {
        fprintf(stderr, "cgp: %s: cgp_plan_run: %s (%s)\n", v->name, cgp_status_string(rc), cgp_last_error_detail());
        return 1;
    }
    return 0;
}

/* The row's detail: kernel, version, what it is (its descriptive name), path (`how` says where the name comes
 * from), workspace */
static void fused_detail(bench_variant *v, const char *how)
{
    const plan_state *st = v->state;
    int version = 0;
    const char *kind = NULL;
    cgp_plan_kernel(st->plan, &version, NULL);
    cgp_plan_kernel_kind(st->plan, &kind);
    snprintf(v->detail, sizeof v->detail,
             "kernel %s (--kernel %d: %s; path %s%s), workspace %zu B, no intermediate", v->kernel, version,
             kind ? kind : "?", v->path, how, st->workspace_bytes);
}

static int fused_describe_run(bench_variant *v, char *failure, size_t cap)
{
    plan_state *st = v->state;
    const char *recorded = NULL;
    const cgp_status rc = cgp_plan_recorded_path(st->plan, &recorded);
    if (rc != CGP_SUCCESS)
        snprintf(failure, cap, "cgp_plan_recorded_path: %s (%s)", cgp_status_string(rc), cgp_last_error_detail());
    else if (!recorded)
        snprintf(failure, cap, "the launch of %s recorded no path (its configuration says %s)", v->kernel, v->path);
    else if (strcmp(recorded, v->path) != 0)
        snprintf(failure, cap, "the launch of %s took path %s, its configuration says %s", v->kernel, recorded, v->path);
    else {
        fused_detail(v, " as its launch recorded it");
        return 0;
    }
    return 1;
}

void plan_state_destroy(bench_variant *v)
{
    plan_state *st = v->state;
    if (!st)
        return;
    if (st->plan)
        cgp_plan_destroy(st->plan);
    cudaFree(st->workspace);
    free(st);
    v->state = NULL;
}

plan_state *plan_state_create(bench_variant *v, const bench_problem *p, const cgp_options *o)
{
    plan_state *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(v->unavailable, sizeof v->unavailable, "out of host memory");
        return NULL;
    }
    st->stages = CGP_STAGE_ALL;
    cgp_status rc = cgp_plan_create(&st->plan, &p->shape, o);
    if (rc == CGP_SUCCESS)
        rc = cgp_plan_workspace_size(st->plan, &st->workspace_bytes);
    if (rc != CGP_SUCCESS) {
        snprintf(v->unavailable, sizeof v->unavailable, "%s: %s", cgp_status_string(rc), cgp_last_error_detail());
    } else if (st->workspace_bytes > 0) {
        const cudaError_t e = cudaMalloc(&st->workspace, st->workspace_bytes);
        if (e == cudaSuccess)
            return st;
        snprintf(v->unavailable, sizeof v->unavailable, "workspace of %zu bytes: %s", st->workspace_bytes,
                 cudaGetErrorString(e));
    } else {
        return st;
    }
    v->state = st;
    plan_state_destroy(v);
    return NULL;
}

int variants_fused(const bench_problem *p, const fused_selection *sel, bench_variant *out, int *count, int max)
{
    for (int prec = 0; prec < 3; ++prec) {
        if (!(sel->precisions & (1u << prec)))
            continue;
        for (int red = 0; red < 2; ++red) {
            if (!(sel->reduces & (1u << red)) || *count >= max)
                continue;
            bench_variant *v = &out[(*count)++];
            memset(v, 0, sizeof *v);
            v->precision = (bench_precision)prec;
            snprintf(v->name, sizeof v->name, "fused %s %s", bench_precision_name(v->precision), reduce_names[red]);
            snprintf(v->family, sizeof v->family, "fused");
            cgp_options o = cgp_default_options();
            o.padding = p->padding;
            o.reduce = (cgp_reduce)red;
            o.precision = (cgp_precision)prec;
            o.kernel = sel->kernel;
            plan_state *st = plan_state_create(v, p, &o);
            if (!st)
                continue;
            int version = 0;
            const char *kname = "?", *path = "?";
            cgp_plan_kernel(st->plan, &version, &kname);
            snprintf(v->kernel, sizeof v->kernel, "%s", kname);
            const char *kind = "";
            cgp_plan_kernel_kind(st->plan, &kind);
            snprintf(v->kind, sizeof v->kind, "%s", kind ? kind : "");
            const cgp_kernel_desc *k = cgp_kernel_find(version);
            const cgp_shape *s = &p->shape;
            const cgp_problem kp = {s->n, s->cin, s->cout, s->h, s->w, p->hout, p->wout, (int)p->padding};
            cgp_device_info d;
            if (k && cgp_current_device_info(&d) == cudaSuccess)
                path = cgp_kernel_path(k, &kp, &d, cgp_weights_misaligned(p->w));
            snprintf(v->path, sizeof v->path, "%s", path);
            v->bytes_moved = problem_min_bytes(p) + 2.0 * (double)st->workspace_bytes;
            v->state = st;
            fused_detail(v, " by its configuration, not yet run");
            v->run = fused_run;
            v->describe_run = fused_describe_run;
            v->destroy = plan_state_destroy;
        }
    }
    return 0;
}
