/*
 * gpu_cold_l2.c - `cgp bench --cold-l2` (host/bench/bench.c, l2_flusher): the flush changes timing and not
 * results.
 *   Timing: a device-to-device copy whose source and destination together take half the L2 is timed warm
 *   (both stay in the L2 from run to run) and cold (the L2 flushed before each run); the cold median must
 *   be at least 10% above the warm one (from DRAM, not the L2; the copy is memory-bound, so it shows).
 *   Results: bench_run of an L2-sized problem (x of 1 MB) with and without --cold-l2 gives every row the
 *   same check (same error, same pass) and times every row in both.
 * Without a GPU: one SKIP (a FAIL with CGP_TEST_REQUIRE_GPU=1).
 * Run: CGP_TEST_REQUIRE_GPU=1 make test CGP_TEST_FILTER=gpu_cold_l2
 */
#include <string.h>

#include "bench.h"
#include "gpulib.h"

typedef struct copy_state {
    void *src, *dst;
    size_t bytes;
} copy_state;

static int copy_run(bench_variant *v, const bench_problem *p, cudaStream_t s)
{
    (void)p;
    const copy_state *c = v->state;
    const cudaError_t e = cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, s);
    if (e != cudaSuccess)
        fprintf(stderr, "copy: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}

static void test_timing(void)
{
    const char *name = "gpu_cold_l2 a copy of half the L2 is slower cold than warm";
    int device = 0, l2 = 0;
    copy_state c = {NULL, NULL, 0};
    l2_flusher flush = {0};
    char err[512] = "";
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device) != cudaSuccess || l2 <= 0) {
        TEST_FAIL(name, "no L2 size (cudaDevAttrL2CacheSize)");
        return;
    }
    c.bytes = (size_t)l2 / 4; /* source and destination: half the L2 together */
    if (cudaMalloc(&c.src, c.bytes) != cudaSuccess || cudaMalloc(&c.dst, c.bytes) != cudaSuccess ||
        cudaMemset(c.src, 1, c.bytes) != cudaSuccess || l2_flusher_create(&flush, err, sizeof err) != 0) {
        TEST_FAIL(name, "setup: %s", err[0] ? err : "cudaMalloc or cudaMemset failed");
        goto out;
    }
    bench_row warm, cold;
    memset(&warm, 0, sizeof warm);
    warm.v.run = copy_run;
    warm.v.state = &c;
    snprintf(warm.v.name, sizeof warm.v.name, "copy of %zu bytes", c.bytes);
    cold = warm;
    const bench_options o = {5, 31, 1, {0, 0, 0}, 0, 0, 0};
    const bench_problem none = {{1, 1, 1, 3, 3}, CGP_PADDING_VALID, 1, 1, NULL, NULL, NULL, NULL};
    if (bench_time_row(&warm, &none, &o, NULL, err, sizeof err) != 0 ||
        bench_time_row(&cold, &none, &o, &flush, err, sizeof err) != 0 || !warm.timed || !cold.timed) {
        TEST_FAIL(name, "timing: %s", err[0] ? err : "a run failed");
        goto out;
    }
    printf("# L2 %d bytes; copy of %zu bytes: warm median %.4f ms, cold median %.4f ms (%u flushes)\n", l2, c.bytes,
           warm.ms_median, cold.ms_median, flush.flushes);
    TEST_EXPECT(name, cold.ms_median > 1.1 * warm.ms_median && flush.flushes == (unsigned)o.iters,
                "warm %.4f ms, cold %.4f ms, %u flushes for %d runs", warm.ms_median, cold.ms_median, flush.flushes,
                o.iters);
out:
    l2_flusher_destroy(&flush);
    cudaFree(c.src);
    cudaFree(c.dst);
}

static void test_results(uint64_t seed)
{
    const char *name = "gpu_cold_l2 bench of an L2-sized problem: the same checks warm and cold";
    static bench_result warm, cold;
    const cgp_shape shape = {8, 8, 64, 64, 64}; /* x: 1 MB */
    bench_options o = {1, 3, seed, {7u, 3u, 0}, BASELINE_CUDNN | BASELINE_UNFUSED, 0, 0};
    char err[512];
    if (bench_run(&shape, CGP_PADDING_SAME, &o, &warm, err, sizeof err) != 0) {
        TEST_FAIL(name, "warm: %s", err);
        return;
    }
    o.cold_l2 = 1;
    if (bench_run(&shape, CGP_PADDING_SAME, &o, &cold, err, sizeof err) != 0) {
        TEST_FAIL(name, "cold: %s", err);
        return;
    }
    int same = warm.count == cold.count && !warm.cold_l2 && cold.cold_l2;
    for (int i = 0; same && i < warm.count; ++i) {
        const bench_row *a = &warm.rows[i], *b = &cold.rows[i];
        printf("# %-20s warm %.4f ms, cold %.4f ms\n", a->v.name, a->ms_median, b->ms_median);
        same = strcmp(a->v.name, b->v.name) == 0 && a->timed == b->timed && a->checked == b->checked &&
               bench_row_passed(a) == bench_row_passed(b) && (!a->v.run || a->timed);
        /* det rows are bit-identical, so their errors are equal; atomic rows may differ in the last bits */
        if (same && strstr(a->v.name, "atomic") == NULL)
            same = a->check.rel_l2_error == b->check.rel_l2_error;
        if (!same)
            TEST_FAIL(name, "row %s: warm timed %d checked %d passed %d error %.3e; cold %d %d %d %.3e", a->v.name,
                      a->timed, a->checked, bench_row_passed(a), a->check.rel_l2_error, b->timed, b->checked,
                      bench_row_passed(b), b->check.rel_l2_error);
    }
    if (same)
        TEST_PASS(name);
}

int main(void)
{
    if (!test_gpu_available("gpu_cold_l2"))
        return test_exit_code();
    const uint64_t seed = test_seed("gpu_cold_l2");
    test_timing();
    test_results(seed);
    return test_exit_code();
}
