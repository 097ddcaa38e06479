/*
 * cpu_paths.c - the kernel versions' hooks (kernels/fused/kernel_api.h: unsupported, configure) and the heuristic
 * selection (host/lib/kernel_select.c) evaluated on the CPU for a described H200 (CGP_DEVICE_INFO_H200), without a GPU:
 *   - a sweep of shapes over the hooks' decision boundaries (batch, channels, planes, padding, the weight pointer's
 *     16-byte alignment) reaches, per version, every path id the version lists (cgp_kernel_desc.paths) and no other;
 *   - the fixed shapes of tests/lib/path_shapes.h, which gpu_fused and sanitize_main run on the GPU, reach every
 *     (version, path) pair the sweep reaches: a pair no fixed shape reaches fails, named, as does a fixed shape its
 *     version refuses or one that adds no pair of its own;
 *   - over the same sweep, each version's unsupported hook agrees with its declared limits
 *     (tests/lib/expected_support.h: it runs every shape they say it must run and refuses every shape they exclude);
 *   - the heuristic picks, per precision on a few shapes, a version of that precision that runs the shape, with the
 *     lowest GPU time the cost model predicts among those that run it;
 *   - every family's run of path names (path_names.cuh) lies inside the ids, apart from the others;
 *   - each version's kind (cgp_kernel_desc.kind) gives its descriptive name through cgp_kernel_kind_format and
 *     agrees with what its paths and hooks show (TMA, the algorithm, resident or rounded weights, the chunk loop, the
 *     K splits, the tiles, wgmma's compute capability, TMA's refusal of W % 4 != 0), the roofline model reads its pipe
 *     and algorithm from that name (host/plot/roofline_model.c), and the names tell the versions of a precision apart
 *     (history versions excepted among themselves); each version's summary says what it is without naming another.
 * Linked with libcgp (the Makefile's rule), whose hooks are host code: nothing here touches CUDA.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgp.h"
#include "cost_model.h"
#include "expected_support.h"
#include "kernel_api.h"
#include "kernel_select.h"
#include "path_shapes.h"
#include "roofline_model.h"
#include "testlib.h"

#ifndef CGP_WGMMA_BUILT
#define CGP_WGMMA_BUILT 0 /* the Makefile sets 1 where it builds the wgmma kernels (SM=90, for sm_90a) */
#endif

enum { ID_SPACE = 2 * CGP_PATH_FLAG_WEIGHTS_4B }; /* every id, with and without the variant bit */

static const cgp_device_info h200 = CGP_DEVICE_INFO_H200;

static int listed(const cgp_kernel_desc *k, unsigned id)
{
    for (int i = 0; i < k->path_count; ++i)
        if (k->paths[i] == id)
            return 1;
    return 0;
}

static cgp_problem problem_of(const cgp_shape *s, cgp_padding padding)
{
    const cgp_problem p = {s->n, s->cin, s->cout, s->h, s->w, cgp_output_height(s, padding),
                           cgp_output_width(s, padding), (int)padding};
    return p;
}

/* The path id version k takes on p with the weights 16-byte aligned or not, from its configuration (0 where it
 * refuses p; -1 where the configuration is malformed: a path cgp_path_name does not know, no kernel for a weight
 * width, a K split other than 1, 2, 4, 8, or a different answer when asked again) */
static int path_taken(const cgp_kernel_desc *k, const cgp_problem *p, int weights_misaligned)
{
    if (k->unsupported(p, &h200))
        return 0;
    cgp_kernel_config c, again;
    cgp_kernel_configure(k, p, &h200, &c);
    cgp_kernel_configure(k, p, &h200, &again);
    const unsigned id = c.path[weights_misaligned];
    const int split_ok = c.split == 1 || c.split == 2 || c.split == 4 || c.split == 8;
    if (!cgp_path_name(id) || !c.kernel[0] || !c.kernel[1] || !split_ok || memcmp(&c, &again, sizeof c) != 0)
        return -1;
    return (int)id;
}

/* The first shape of the sweep where a version's unsupported hook disagrees with its declared limits, per version */
typedef struct limits_breach {
    char text[200];
} limits_breach;

/* Notes where version k's hook and its declared limits (expected_support.h) disagree on p, the first time */
static void check_limits_on(const cgp_kernel_desc *k, const cgp_problem *p, limits_breach *breach)
{
    const int expected = test_expected_support(k, p, &h200, CGP_WGMMA_BUILT);
    const char *why = k->unsupported(p, &h200);
    if (breach->text[0] || expected == TEST_MAY_RUN || (expected == TEST_MUST_RUN) == (why == NULL))
        return;
    snprintf(breach->text, sizeof breach->text, "%s %lldx%lldx%lldx%lldx%lld %s%s%s",
             why ? "refuses" : "runs", (long long)p->n, (long long)p->cin, (long long)p->cout, (long long)p->h,
             (long long)p->w, p->pad ? "same" : "valid", why ? ": " : ", which its limits exclude", why ? why : "");
}

/* The sweep: each version's reached ids into reached[version index * ID_SPACE + id], and where its hook disagrees
 * with its limits */
static void sweep(const cgp_kernel_desc *const *table, int count, unsigned char *reached, int *unnamed,
                  limits_breach *breaches)
{
    static const int64_t ns[] = {1, 2, 4, 8, 9, 16, 32, 128}; /* 9: an odd batch, whose last pair of images is one */
    static const int64_t cins[] = {1, 3, 8, 16, 24, 36, 56, 64, 72, 80, 88, 96, 128, 176, 184, 256, 512};
    static const int64_t couts[] = {1, 16, 32, 40, 64, 128, 256, 512};
    static const int64_t planes[][2] = {{3, 3},   {5, 5},   {8, 8},   {9, 9},    {12, 12},   {13, 11},   {16, 16},
                                        {17, 17}, {20, 24}, {24, 24}, {28, 28},  {32, 32},   {33, 33},   {37, 44},
                                        {37, 45}, {40, 40}, {56, 56}, {64, 64},  {100, 100}, {128, 128}, {256, 256},
                                        {4, 8},   {8, 4},   {6, 16},  {10, 18},  {10, 20},   {18, 10},   {18, 12},
                                        {10, 36}, {18, 36}, {34, 20}, {12, 64},  {64, 12}};
    for (size_t a = 0; a < sizeof ns / sizeof *ns; ++a)
        for (size_t b = 0; b < sizeof cins / sizeof *cins; ++b)
            for (size_t c = 0; c < sizeof couts / sizeof *couts; ++c)
                for (size_t e = 0; e < sizeof planes / sizeof *planes; ++e)
                    for (int pad = 0; pad <= 1; ++pad)
                        for (int misaligned = 0; misaligned <= 1; ++misaligned) {
                            const cgp_shape s = {ns[a], cins[b], couts[c], planes[e][0], planes[e][1]};
                            const cgp_problem p = problem_of(&s, (cgp_padding)pad);
                            for (int k = 0; k < count; ++k) {
                                if (!misaligned)
                                    check_limits_on(table[k], &p, &breaches[k]);
                                const int id = path_taken(table[k], &p, misaligned);
                                if (id > 0)
                                    reached[(size_t)k * ID_SPACE + (unsigned)id] = 1;
                                else if (id < 0)
                                    unnamed[k] = 1;
                            }
                        }
}

static void check_listed_paths(const cgp_kernel_desc *const *table, int count, const unsigned char *reached,
                               const int *unnamed)
{
    for (int k = 0; k < count; ++k) {
        char name[96], missing[2048] = "", extra[2048] = "";
        snprintf(name, sizeof name, "paths %s: the sweep reaches every listed path and no other", table[k]->name);
        int reached_count = 0;
        for (unsigned id = 1; id < ID_SPACE; ++id) {
            const int hit = reached[(size_t)k * ID_SPACE + id], wanted = listed(table[k], id);
            reached_count += hit;
            char *into = hit && !wanted ? extra : !hit && wanted ? missing : NULL;
            if (into && strlen(into) + 80 < sizeof missing)
                snprintf(into + strlen(into), sizeof missing - strlen(into), "%s\"%s\"", *into ? ", " : "",
                         cgp_path_name(id));
        }
        if (unnamed[k])
            TEST_FAIL(name, "its configure names a path that cgp_path_name does not know, leaves a kernel out, splits "
                            "K other than 1, 2, 4 or 8, or answers differently when asked again");
        else if (*extra)
            TEST_FAIL(name, "reaches paths it does not list: %s", extra);
        else if (*missing)
            TEST_FAIL(name, "no swept shape reaches these listed paths: %s", missing);
        else
            test_report("PASS", name, "%d paths", reached_count);
    }
}

static void check_fixed_shapes(const cgp_kernel_desc *const *table, int count, const unsigned char *reached)
{
    unsigned char *covered = calloc((size_t)count * ID_SPACE, 1);
    if (!covered) {
        TEST_FAIL("paths: fixed shapes", "out of host memory");
        return;
    }
    int pairs = 0, covered_pairs = 0;
    for (size_t i = 0; i < sizeof path_shapes / sizeof *path_shapes; ++i) {
        const path_shape *f = &path_shapes[i];
        char name[160];
        path_shape_name(f, name, sizeof name);
        int k = 0;
        while (k < count && table[k]->version != f->version)
            ++k;
        const cgp_problem p = problem_of(&f->shape, f->padding);
        const int id = k < count ? path_taken(table[k], &p, f->weights_misaligned) : 0;
        if (k == count)
            TEST_FAIL(name, "no kernel version %d", f->version);
        else if (id <= 0)
            TEST_FAIL(name, "%s refuses it: %s", table[k]->name,
                      id == 0 ? table[k]->unsupported(&p, &h200) : "its configuration is malformed");
        else if (covered[(size_t)k * ID_SPACE + (unsigned)id])
            TEST_FAIL(name, "path \"%s\" of %s is reached by an earlier fixed shape already", cgp_path_name((unsigned)id),
                      table[k]->name);
        else {
            covered[(size_t)k * ID_SPACE + (unsigned)id] = 1;
            test_report("PASS", name, "%s takes \"%s\"", table[k]->name, cgp_path_name((unsigned)id));
        }
    }
    for (int k = 0; k < count; ++k) {
        char name[96], missing[4096] = "";
        snprintf(name, sizeof name, "paths %s: the fixed shapes reach every path the sweep reaches", table[k]->name);
        for (unsigned id = 1; id < ID_SPACE; ++id) {
            const int hit = reached[(size_t)k * ID_SPACE + id], fixed = covered[(size_t)k * ID_SPACE + id];
            pairs += hit;
            covered_pairs += hit && fixed;
            if (hit && !fixed && strlen(missing) + 80 < sizeof missing)
                snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s(%s, \"%s\")",
                         *missing ? ", " : "", table[k]->name, cgp_path_name(id));
        }
        TEST_EXPECT(name, !*missing, "no fixed shape of tests/lib/path_shapes.h reaches %s", missing);
    }
    printf("# %d (version, path) pairs reachable on the described H200, %d reached by the %zu fixed shapes\n", pairs,
           covered_pairs, sizeof path_shapes / sizeof *path_shapes);
    free(covered);
}

/* The heuristic's pick per precision: a version of that precision that runs the shape, none of which the cost model
 * predicts faster (or, where it has coefficients for none, the first in the table's order that runs it) */
static void check_selection(const cgp_kernel_desc *const *table, int count)
{
    static const cgp_shape shapes[] = {{128, 8, 64, 256, 256}, {1, 3, 64, 224, 224}, {32, 64, 128, 56, 56},
                                       {8, 512, 512, 7, 7},    {2, 36, 72, 13, 11}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; ++i)
        for (int pad = 0; pad <= 1; ++pad)
            for (int precision = 0; precision < 3; ++precision) {
                const cgp_problem p = problem_of(&shapes[i], (cgp_padding)pad);
                char name[160];
                snprintf(name, sizeof name, "selection %s %lldx%lldx%lldx%lldx%lld %s",
                         precision == 0 ? "fp32" : precision == 1 ? "tf32" : "3xtf32", (long long)p.n,
                         (long long)p.cin, (long long)p.cout, (long long)p.h, (long long)p.w, pad ? "same" : "valid");
                const char *reason = NULL;
                const cgp_kernel_desc *pick = cgp_select_heuristic(&p, &h200, precision, &reason);
                double pick_ms = 0.0;
                const int modelled = pick && cgp_cost_model_ms(pick->version, &p, &h200, &pick_ms);
                const cgp_kernel_desc *faster = NULL, *first = NULL;
                for (int k = 0; k < count; ++k) {
                    double ms = 0.0;
                    if (table[k]->precision != precision || table[k]->unsupported(&p, &h200))
                        continue;
                    first = first ? first : table[k];
                    if (modelled && cgp_cost_model_ms(table[k]->version, &p, &h200, &ms) && ms < pick_ms)
                        faster = table[k];
                }
                if (!pick)
                    TEST_FAIL(name, "no pick, while %s runs the shape", first ? first->name : "no version");
                else if (pick->precision != precision || pick->unsupported(&p, &h200))
                    TEST_FAIL(name, "picks %s, which does not run the shape in this precision", pick->name);
                else if (faster)
                    TEST_FAIL(name, "picks %s, while the cost model predicts %s faster", pick->name, faster->name);
                else if (!modelled && pick != first)
                    TEST_FAIL(name, "picks %s without a prediction, not the first that runs it (%s)", pick->name,
                              first->name);
                else
                    test_report("PASS", name, "%s, path %s", pick->name, cgp_kernel_path(pick, &p, &h200, 0));
            }
}

/* ---- what each version is: its kind (cgp_kernel_desc.kind) and descriptive name (cgp_kernel_kind_name) ---- */

/* 1 where a path name of k contains `text` (all: every one of them does) */
static int paths_say(const cgp_kernel_desc *k, const char *text, int all)
{
    int some = 0;
    for (int i = 0; i < k->path_count; ++i) {
        const int says = strstr(cgp_path_name(k->paths[i]), text) != NULL;
        if (all && !says)
            return 0;
        some |= says;
    }
    return some;
}

static int paths_say_tma(const cgp_kernel_desc *k)
{
    return paths_say(k, "TMA", 0) || paths_say(k, "tma", 0);
}

/* The first of a few shapes with W % 4 = 0 that k runs on the described H200 (its padding in *padding), or NULL */
static const cgp_shape *shape_it_runs(const cgp_kernel_desc *k, cgp_padding *padding)
{
    static const cgp_shape shapes[] = {{2, 8, 64, 34, 32}, {2, 16, 32, 34, 32}, {2, 64, 64, 34, 32}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; ++i)
        for (int pad = 0; pad <= 1; ++pad) {
            const cgp_problem p = problem_of(&shapes[i], (cgp_padding)pad);
            if (!k->unsupported(&p, &h200)) {
                *padding = (cgp_padding)pad;
                return &shapes[i];
            }
        }
    return NULL;
}

/* Why kind k of version d disagrees with what the test can see of d (into why), or 0 where it agrees */
static int kind_disagrees(const cgp_kernel_desc *d, char *why, size_t cap)
{
    const cgp_kernel_kind *k = &d->kind;
    char composed[CGP_KERNEL_KIND_NAME_MAX + 32];
    const char *name = cgp_kernel_kind_name(d);
    const int length = cgp_kernel_kind_format(k, composed, sizeof composed);
#define DISAGREE(...) return snprintf(why, cap, __VA_ARGS__), 1
    if (!name || !*name)
        DISAGREE("no descriptive name");
    if (length >= CGP_KERNEL_KIND_NAME_MAX || strcmp(name, composed) != 0)
        DISAGREE("its name \"%s\" is not cgp_kernel_kind_format's \"%s\" below %d bytes", name, composed,
                 CGP_KERNEL_KIND_NAME_MAX);
    if (strchr(name, '?'))
        DISAGREE("a field out of its range: \"%s\"", name);
    if (k->tile_count < 1 || k->tile_count > CGP_KERNEL_TILES_MAX)
        DISAGREE("%d tiles", k->tile_count);
    if ((d->precision == CGP_PRECISION_FP32) != (k->pipe == CGP_PIPE_FFMA))
        DISAGREE("precision %d on pipe %d: FFMA is fp32's pipe alone", d->precision, (int)k->pipe);
    if (k->pipe != CGP_PIPE_FFMA && k->algorithm != CGP_ALGORITHM_IMPLICIT_GEMM)
        DISAGREE("a tensor-core version not an implicit GEMM");
    /* the paths' names: the staging, the algorithm, the weights, the loop, the tiles, the K split */
    const int tma = paths_say_tma(d);
    if (tma && k->staging != CGP_STAGING_TMA && k->staging != CGP_STAGING_TMA_OR_CP_ASYNC)
        DISAGREE("a path by TMA, staging \"%s\"", name);
    if (k->staging == CGP_STAGING_TMA_OR_CP_ASYNC) {
        int untagged = 0; /* a path by cp.async: one that does not say TMA */
        for (int i = 0; i < d->path_count; ++i) {
            const char *p = cgp_path_name(d->paths[i]);
            untagged |= !strstr(p, "TMA") && !strstr(p, "tma");
        }
        if (!tma || !untagged)
            DISAGREE("staging by TMA or cp.async, but its paths are not of both");
    }
    if ((paths_say(d, "winograd-f4x4", 0) && k->algorithm != CGP_ALGORITHM_WINOGRAD_F4X4) ||
        ((paths_say(d, "winograd-f2x2", 0) || paths_say(d, "winograd ", 0)) &&
         k->algorithm != CGP_ALGORITHM_WINOGRAD_F2X2) ||
        (paths_say(d, "direct", 0) && k->algorithm != CGP_ALGORITHM_DIRECT) ||
        (paths_say(d, "ffma ", 0) && k->algorithm != CGP_ALGORITHM_IMPLICIT_GEMM))
        DISAGREE("its paths name another algorithm than %d", (int)k->algorithm);
    if (paths_say(d, "resident", 0) && k->weights != CGP_WEIGHTS_RESIDENT)
        DISAGREE("resident paths, weights %d", (int)k->weights);
    if (paths_say(d, "rounded weights", 0) && k->weights != CGP_WEIGHTS_ROUNDED_ONCE)
        DISAGREE("paths of rounded weights, weights %d", (int)k->weights);
    if ((k->loop == CGP_LOOP_OVERLAPPED) != paths_say(d, "overlapped", 1))
        DISAGREE("loop %d, overlapped paths %d", (int)k->loop, paths_say(d, "overlapped", 1));
    if ((k->loop == CGP_LOOP_A_IN_REGISTERS) != paths_say(d, "A from registers", 1))
        DISAGREE("loop %d, paths with A from registers %d", (int)k->loop, paths_say(d, "A from registers", 1));
    if ((k->loop == CGP_LOOP_WARP_SPECIALISED) != paths_say(d, "warp-specialised", 1))
        DISAGREE("loop %d, warp-specialised paths %d", (int)k->loop, paths_say(d, "warp-specialised", 1));
    for (int s = 1; s <= 3; ++s) {
        char split[16];
        snprintf(split, sizeof split, "K split %d", 1 << s);
        if (!!(k->k_splits & 1u << s) != paths_say(d, split, 0))
            DISAGREE("split-K over %d blocks %s its kind, %s its paths", 1 << s,
                     k->k_splits & 1u << s ? "in" : "not in", paths_say(d, split, 0) ? "in" : "not in");
    }
    for (int i = 0; i < d->path_count; ++i) { /* a tile a path names is one of the kind's */
        const char *p = cgp_path_name(d->paths[i]);
        int h = 0, w = 0, c = 0, found = 0;
        for (const char *at = p; *at && !found; ++at)
            found = (at == p || at[-1] == ' ') && sscanf(at, "%dx%d px x %d ch", &h, &w, &c) == 3;
        int listed_tile = !found;
        for (int t = 0; t < k->tile_count && t < CGP_KERNEL_TILES_MAX; ++t)
            listed_tile |= k->tiles[t].h == h && k->tiles[t].w == w && k->tiles[t].c == c;
        if (!listed_tile)
            DISAGREE("its path \"%s\" takes a tile not among its kind's %d", p, k->tile_count);
    }
    /* the devices: wgmma runs on compute capability 9.0 alone, mma.sync and FFMA (but by TMA) on 8.0 too (the
     * described H200 with compute capability 8.0); TMA refuses W % 4 != 0, the other stagings take it */
    cgp_padding padding = CGP_PADDING_VALID;
    const cgp_shape *s = shape_it_runs(d, &padding);
    if (!s)
        DISAGREE("runs none of the kind test's shapes");
    cgp_device_info cc80 = h200;
    cc80.cc_major = 8;
    const cgp_problem p = problem_of(s, padding);
    const char *on_cc80 = d->unsupported(&p, &cc80);
    if ((k->pipe == CGP_PIPE_WGMMA) != (on_cc80 != NULL) && !(k->staging == CGP_STAGING_TMA && on_cc80))
        DISAGREE("pipe %d, with compute capability 8.0 %s", (int)k->pipe, on_cc80 ? on_cc80 : "runs");
    cgp_shape narrower = *s;
    narrower.w -= 2;
    const cgp_problem q = problem_of(&narrower, padding);
    const char *narrow = d->unsupported(&q, &h200);
    if ((k->staging == CGP_STAGING_TMA) != (narrow != NULL))
        DISAGREE("staging \"%s\", W = %lld: %s", name, (long long)narrower.w, narrow ? narrow : "runs");
    /* the roofline model's reading of the name: the kind's pipe, and on FFMA its algorithm's products */
    const roofline_math math = d->precision == CGP_PRECISION_FP32   ? ROOFLINE_MATH_FP32
                               : d->precision == CGP_PRECISION_TF32 ? ROOFLINE_MATH_TF32
                                                                    : ROOFLINE_MATH_3XTF32;
    const roofline_work work = roofline_kind_work(name, math);
    const roofline_pipe pipe = k->pipe == CGP_PIPE_FFMA       ? ROOFLINE_PIPE_FFMA
                               : k->pipe == CGP_PIPE_MMA_SYNC ? ROOFLINE_PIPE_MMA_SYNC
                                                              : ROOFLINE_PIPE_WGMMA;
    const double executed = k->algorithm == CGP_ALGORITHM_WINOGRAD_F2X2   ? 4.0 / 9.0
                            : k->algorithm == CGP_ALGORITHM_WINOGRAD_F4X4 ? 0.25
                            : math == ROOFLINE_MATH_3XTF32                ? 3.0
                                                                          : 1.0;
    if (!work.from_kind || work.pipe != pipe || work.executed_per_direct != executed)
        DISAGREE("the roofline model reads \"%s\" as pipe %d, %g products a product (from the kind: %d), not pipe %d, "
                 "%g", name, (int)work.pipe, work.executed_per_direct, work.from_kind, (int)pipe, executed);
#undef DISAGREE
    return 0;
}

static void check_kinds(const cgp_kernel_desc *const *table, int count)
{
    for (int i = 0; i < count; ++i) {
        char name[96], why[512];
        snprintf(name, sizeof name, "kind %s: a descriptive name from its fields, as its paths and hooks say",
                 table[i]->name);
        if (kind_disagrees(table[i], why, sizeof why))
            TEST_FAIL(name, "%s", why);
        else
            test_report("PASS", name, "\"%s\"", cgp_kernel_kind_name(table[i]));
    }
    /* a summary says what its version is, not which version it grew from (the lineage is docs/perf-log.md's) */
    for (int i = 0; i < count; ++i) {
        char name[96];
        snprintf(name, sizeof name, "summary %s: what it is, naming no other version", table[i]->name);
        const char *summary = cgp_kernel_summary(table[i]);
        const char *other = strstr(summary, "tf32-v");
        if (!other)
            other = strstr(summary, "fp32-v");
        if (other)
            TEST_FAIL(name, "it names \"%.12s\": \"%s\"", other, summary);
        else
            test_report("PASS", name, "%zu characters", strlen(summary));
    }
    /* a version is told apart from the others of its precision by its name, but for the superseded ones, which may
     * differ from each other in what the fields do not say (the GELU's form, the rounding, the code) */
    for (int precision = 0; precision < 3; ++precision) {
        char name[96], same[1024] = "";
        int current = 0;
        snprintf(name, sizeof name, "kinds %s: each version's descriptive name its own, history versions excepted",
                 precision == 0 ? "fp32" : precision == 1 ? "tf32" : "3xtf32");
        for (int i = 0; i < count; ++i) {
            if (table[i]->precision != precision)
                continue;
            current += !table[i]->kind.history;
            for (int j = i + 1; j < count; ++j)
                if (table[j]->precision == precision &&
                    strcmp(cgp_kernel_kind_name(table[i]), cgp_kernel_kind_name(table[j])) == 0 &&
                    !(table[i]->kind.history && table[j]->kind.history) && strlen(same) + 200 < sizeof same)
                    snprintf(same + strlen(same), sizeof same - strlen(same), "%s%s and %s (\"%s\")",
                             *same ? ", " : "", table[i]->name, table[j]->name, cgp_kernel_kind_name(table[i]));
        }
        if (*same)
            TEST_FAIL(name, "the same name: %s", same);
        else if (current == 0)
            TEST_FAIL(name, "no current version");
        else
            test_report("PASS", name, "%d current versions", current);
    }
}

/* Every version's unsupported hook agrees with its declared limits (kernel_info.h's cgp_kernel_limits) on every
 * shape of the sweep on the described H200 */
static void check_limits(const cgp_kernel_desc *const *table, int count, const limits_breach *breaches)
{
    for (int k = 0; k < count; ++k) {
        char name[96], limits[256];
        snprintf(name, sizeof name, "limits %s: its hook agrees with what it declares", table[k]->name);
        cgp_kernel_limits_format(&table[k]->kind, limits, sizeof limits);
        if (breaches[k].text[0])
            TEST_FAIL(name, "%s (declared: %s)", breaches[k].text, limits);
        else
            test_report("PASS", name, "%s", limits);
    }
}

/* The families' runs of path names (path_names.cuh) against kernel_info.h's ids: each run inside the ids (1 to
 * CGP_PATH_COUNT - 1) and apart from the others, none naming a retired id (2, 3, CGP_PATH_WS_TILE0 + 0, + 1), every
 * name non-empty, and every other id in a run */
static void check_path_name_ranges(void)
{
    const char *name = "path names: the families' runs cover the ids but the retired, each once";
    int count = 0;
    const cgp_path_names *const *ranges = cgp_path_name_ranges(&count);
    unsigned char named[CGP_PATH_COUNT] = {0};
    named[2] = named[3] = named[CGP_PATH_WS_TILE0] = named[CGP_PATH_WS_TILE0 + 1] = 1; /* retired: may not be named */
    int covered = 0;
    for (int r = 0; r < count; ++r)
        for (int i = 0; i < ranges[r]->count; ++i) {
            const unsigned id = ranges[r]->first + (unsigned)i;
            if (id == 0 || id >= CGP_PATH_COUNT || named[id] || !ranges[r]->text[i][0]) {
                TEST_FAIL(name, "run %d names id %u: outside the ids, named twice, retired or empty", r, id);
                return;
            }
            named[id] = 1;
            ++covered;
        }
    for (unsigned id = 1; id < CGP_PATH_COUNT; ++id)
        if (!named[id]) {
            TEST_FAIL(name, "id %u, below CGP_PATH_COUNT and not retired, is in no family's run", id);
            return;
        }
    char passed[160];
    snprintf(passed, sizeof passed, "%s: %d runs, %d ids named", name, count, covered);
    TEST_PASS(passed);
}

int main(void)
{
    int count = 0;
    const cgp_kernel_desc *const *table = cgp_kernel_table(&count);
    unsigned char *reached = calloc((size_t)count * ID_SPACE, 1);
    int *unnamed = calloc((size_t)count, sizeof *unnamed);
    limits_breach *breaches = calloc((size_t)count, sizeof *breaches);
    if (!reached || !unnamed || !breaches) {
        TEST_FAIL("cpu_paths", "out of host memory");
        return test_exit_code();
    }
    check_path_name_ranges(); /* first: the checks after it ask every path of every version its name */
    sweep(table, count, reached, unnamed, breaches);
    check_listed_paths(table, count, reached, unnamed);
    check_limits(table, count, breaches);
    check_fixed_shapes(table, count, reached);
    check_selection(table, count);
    check_kinds(table, count);
    free(reached);
    free(unnamed);
    free(breaches);
    return test_exit_code();
}
