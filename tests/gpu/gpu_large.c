/*
 * gpu_large.c - problems past 32-bit indexing, through every precision:
 *   - a batch whose input has more than 2^31 elements, the fewest images that cross it (N = 4097, Cin = 8,
 *     256 x 256: 2^31 + 2^19 elements, 8.6 GB; the last image starts at element 2^31), both paddings: fp32 kernel 0
 *     (the best), fp32-v1 (generic), fp32-v9 (Winograd F(4x4), its shifted window on same padding), fp32-v10 (the
 *     FFMA implicit GEMM), fp32-v11 and fp32-v12 (the Winograd GEMMs); tf32 and 3xtf32 kernel 0, tf32-v8 and
 *     3xtf32-v8 (wgmma, TMA and its shifted box), the implicit GEMMs v9 (mma.sync, any shape), v10 (wgmma), the
 *     resident and TMA ones (tf32-v11, v13, 3xtf32-v11..v13), v15 (weights rounded once a launch) and tf32-v16, v17,
 *     v21. Checked on sampled images on both sides of 2^30 and 2^31 elements (2^32 and 2^33 bytes);
 *   - one image of more than 2^31 elements (1 x 8 x 16400 x 16400: 2^31 + 3.6 x 10^6 elements, 8.6 GB), both
 *     paddings, through the versions that take it (kernel 0, fp32-v1, v9; tf32 and 3xtf32 v9, v10, tf32-v11, v13,
 *     3xtf32-v11..v13, v15, tf32-v16, v17, v21), all 64 outputs checked;
 *   - the hooks' overflow refusals: each version whose `unsupported` hook refuses a size past its 32-bit indexing
 *     (N, tiles, blocks, pixels or input channels past 2^31, 2^28, 2^20, an image of 2^31 elements or 2^40 bytes)
 *     refuses it with its message, through cgp_plan_create with that kernel (no allocation: the shapes are far
 *     beyond any device); the image above is one of them (fp32-v10, v11, v12, the wgmma direct versions).
 * Both reductions; the wgmma and TMA versions where the GPU runs them (compute capability 9.0, the sm_90a build).
 * Against the fp64 GPU reference (tf32: of the tf32-rounded inputs), bounds from tests/lib/tolerance.h, every
 * output written and finite. Too little free device memory for a problem skips the rest (a FAIL with
 * CGP_TEST_REQUIRE_GPU=1). Device memory: 8.6 GB for a problem, 17.2 GB with the image's tf32-rounded copy.
 * Time on the H200: 200 runs of about 2^31 input elements each (at 01e58da, 32 such runs took 3 s in all).
 */
#include <math.h>

#include "gpulib.h"
#include "problem.h"
#include "tolerance.h"

#ifndef CGP_WGMMA_BUILT
#define CGP_WGMMA_BUILT 0 /* the Makefile sets 1 where it builds the wgmma kernels (SM=90, for sm_90a) */
#endif

/* A version to run; hopper: only on compute capability 9.0 with a build for it (the wgmma versions: sm_90a;
 * fp32-v12 and the TMA versions: TMA) */
typedef struct large_version {
    int precision, version, hopper;
} large_version;

static const large_version batch_versions[] = {
    {CGP_PRECISION_FP32, 0, 0},    {CGP_PRECISION_FP32, 1, 0},    {CGP_PRECISION_FP32, 9, 0},
    {CGP_PRECISION_FP32, 10, 0},   {CGP_PRECISION_FP32, 31, 0},   {CGP_PRECISION_FP32, 38, 1},
    {CGP_PRECISION_TF32, 0, 0},    {CGP_PRECISION_TF32, 18, 1},   {CGP_PRECISION_TF32, 19, 0},
    {CGP_PRECISION_TF32, 20, 1},   {CGP_PRECISION_TF32, 32, 1},   {CGP_PRECISION_TF32, 36, 1},
    {CGP_PRECISION_TF32, 39, 1},   {CGP_PRECISION_TF32, 41, 1},   {CGP_PRECISION_TF32, 42, 1},
    {CGP_PRECISION_TF32, 46, 1},   {CGP_PRECISION_TF32X3, 0, 0},  {CGP_PRECISION_TF32X3, 28, 1},
    {CGP_PRECISION_TF32X3, 29, 0}, {CGP_PRECISION_TF32X3, 30, 1}, {CGP_PRECISION_TF32X3, 33, 1},
    {CGP_PRECISION_TF32X3, 35, 1}, {CGP_PRECISION_TF32X3, 37, 1}, {CGP_PRECISION_TF32X3, 40, 1},
    {CGP_PRECISION_TF32X3, 47, 1},
};

static const large_version image_versions[] = {
    {CGP_PRECISION_FP32, 0, 0},    {CGP_PRECISION_FP32, 1, 0},    {CGP_PRECISION_FP32, 9, 0},
    {CGP_PRECISION_TF32, 0, 0},    {CGP_PRECISION_TF32, 19, 0},   {CGP_PRECISION_TF32, 20, 1},
    {CGP_PRECISION_TF32, 32, 1},   {CGP_PRECISION_TF32, 36, 1},   {CGP_PRECISION_TF32, 39, 1},
    {CGP_PRECISION_TF32, 41, 1},   {CGP_PRECISION_TF32, 42, 1},   {CGP_PRECISION_TF32, 46, 1},
    {CGP_PRECISION_TF32X3, 0, 0},  {CGP_PRECISION_TF32X3, 29, 0}, {CGP_PRECISION_TF32X3, 30, 1},
    {CGP_PRECISION_TF32X3, 33, 1}, {CGP_PRECISION_TF32X3, 35, 1}, {CGP_PRECISION_TF32X3, 37, 1},
    {CGP_PRECISION_TF32X3, 40, 1}, {CGP_PRECISION_TF32X3, 47, 1},
};

#define BATCH_SAMPLES 6
#define COUT 64
static const cgp_shape batch_shape = {4097, 8, COUT, 256, 256};
static const cgp_shape image_shape = {1, 8, COUT, 16400, 16400};

/* An overflow refusal: version `version` must refuse `shape` (valid padding) saying `why`. */
typedef struct overflow_refusal {
    int version, hopper;
    cgp_shape shape;
    const char *why;
} overflow_refusal;

#define N_PAST_2_31 {2147483648LL, 8, 64, 8, 8}
#define HUGE_IMAGE {1, 8, 64, 1048576, 1048576}
#define CIN_PAST_2_20 {1, 1048577, 64, 3, 3}
#define W_PAST_2_31 {1, 8, 64, 3, 2147483647LL}
static const char tiles_why[] = "more than 2^31-1 (image, output tile) pairs";
static const char tma_n_why[] = "needs N below 2^31 (TMA's 32-bit coordinates)";
static const char tma_image_why[] = "needs an image below 2^40 bytes (TMA's strides)";
static const char cin_why[] = "more than 2^20 input channels (32-bit weight offsets within a block)";
static const char pixels_why[] = "more than 2^28 pixels an image (32-bit input offsets within a chunk of 8 channels)";
static const char image_why[] = "needs Cin x H x W < 2^31 (32-bit offsets within an image)";
static const char blocks_image_why[] = "more than 2^32-1 blocks an image";
static const char rounded_blocks_why[] = "more than 2^31-1 blocks (round_weights_once counts claims and blocks in 32 bits)";
static const char winograd_why[] = "needs the output height and width a block tile below 2^31 (32-bit pixel coordinates)";
static const char resident_why[] = "needs H and W below 2^31 - 64 (32-bit tile coordinates)";
static const char ws_copies_why[] = "its cp.async windows need an image plane below 2^31 elements (32-bit offsets)";

static const overflow_refusal refusals[] = {
    {1, 0, N_PAST_2_31, "more than 2^31-1 output tiles (N x ceil(Hout/16) x ceil(Wout/16))"},
    {10, 0, N_PAST_2_31, tiles_why}, {31, 0, N_PAST_2_31, tiles_why}, {19, 0, N_PAST_2_31, tiles_why},
    {20, 1, N_PAST_2_31, tiles_why}, {32, 1, N_PAST_2_31, tiles_why}, {39, 1, N_PAST_2_31, tiles_why},
    {29, 0, N_PAST_2_31, tiles_why}, {30, 1, N_PAST_2_31, tiles_why}, {33, 1, N_PAST_2_31, tiles_why},
    {40, 1, N_PAST_2_31, tiles_why}, {38, 1, N_PAST_2_31, tiles_why}, {36, 1, N_PAST_2_31, tma_n_why},
    {41, 1, N_PAST_2_31, tma_n_why}, {42, 1, N_PAST_2_31, tma_n_why}, {35, 1, N_PAST_2_31, tma_n_why},
    {37, 1, N_PAST_2_31, tma_n_why}, {46, 1, N_PAST_2_31, tiles_why}, {47, 1, N_PAST_2_31, tiles_why},
    {39, 1, {2147483647LL, 8, 128, 8, 8}, rounded_blocks_why},
    {40, 1, {2147483647LL, 8, 128, 8, 8}, rounded_blocks_why},
    {39, 1, {1, 1048576, 8192, 3, 3},
     "more than 2^24 units of rounded weights (blocks of output channels x chunks of 8 input channels)"},
    {40, 1, {1, 1048576, 8192, 3, 3},
     "more than 2^24 units of rounded weights (blocks of output channels x chunks of 8 input channels)"},
    {10, 0, {1, 8, COUT, 16400, 16400}, pixels_why}, {31, 0, {1, 8, COUT, 16400, 16400}, pixels_why},
    {38, 1, {1, 8, COUT, 16400, 16400}, pixels_why}, {16, 1, {1, 8, COUT, 16400, 16400}, image_why},
    {18, 1, {1, 8, COUT, 16400, 16400}, image_why},
    {27, 1, {1, 8, COUT, 16400, 16400}, image_why}, {28, 1, {1, 8, COUT, 16400, 16400}, image_why},
    {10, 0, CIN_PAST_2_20, cin_why}, {31, 0, CIN_PAST_2_20, cin_why}, {19, 0, CIN_PAST_2_20, cin_why},
    {20, 1, CIN_PAST_2_20, cin_why}, {39, 1, CIN_PAST_2_20, cin_why}, {29, 0, CIN_PAST_2_20, cin_why},
    {30, 1, CIN_PAST_2_20, cin_why}, {40, 1, CIN_PAST_2_20, cin_why}, {20, 1, HUGE_IMAGE, blocks_image_why},
    {39, 1, HUGE_IMAGE, blocks_image_why}, {30, 1, HUGE_IMAGE, blocks_image_why}, {40, 1, HUGE_IMAGE, blocks_image_why},
    {38, 1, HUGE_IMAGE, pixels_why}, {36, 1, HUGE_IMAGE, tma_image_why}, {41, 1, HUGE_IMAGE, tma_image_why},
    {42, 1, HUGE_IMAGE, tma_image_why}, {35, 1, HUGE_IMAGE, tma_image_why}, {37, 1, HUGE_IMAGE, tma_image_why},
    {46, 1, HUGE_IMAGE, ws_copies_why}, {47, 1, HUGE_IMAGE, ws_copies_why}, {7, 0, W_PAST_2_31, winograd_why},
    {9, 0, W_PAST_2_31, winograd_why}, {32, 1, W_PAST_2_31, resident_why}, {33, 1, W_PAST_2_31, resident_why},
};

static int hopper_runs(void)
{
    const cgp_device_info dev = test_device_info();
    return CGP_WGMMA_BUILT && dev.cc_major == 9 && dev.cc_minor == 0;
}

static void test_refusals(void)
{
    const int hopper = hopper_runs();
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; ++i) {
        const overflow_refusal *r = &refusals[i];
        const cgp_kernel_desc *k = cgp_kernel_find(r->version);
        char name[200];
        snprintf(name, sizeof name, "large refusal %s %lldx%lldx%lldx%lldx%lld valid", k ? k->name : "?",
                 (long long)r->shape.n, (long long)r->shape.cin, (long long)r->shape.cout, (long long)r->shape.h,
                 (long long)r->shape.w);
        if (!k)
            TEST_FAIL(name, "there is no kernel version %d", r->version);
        else if (hopper || !r->hopper)
            test_expect_refusal(name, &r->shape, CGP_PADDING_VALID, k, r->why);
    }
}

/* 0 when a problem of shape s fits in free device memory with extra bytes beside it; else skips the rest. */
static int fits(const cgp_shape *s, double extra)
{
    size_t free_bytes = 0, total = 0;
    const cudaError_t e = cudaMemGetInfo(&free_bytes, &total);
    if (e != cudaSuccess) {
        TEST_FAIL("gpu_large memory", "cudaMemGetInfo: %s", cudaGetErrorString(e));
        return 0;
    }
    const double need = (double)problem_tensor_bytes(s) + extra;
    if ((double)free_bytes < need) {
        char why[160];
        snprintf(why, sizeof why, "needs %.1f GB of free device memory, %.1f GB free", need / 1e9, free_bytes / 1e9);
        test_skip_rest("gpu_large", why);
        return 0;
    }
    return 1;
}

/* One version, one reduction on problem pr: the outputs of `images` (count of them) against ref[rounded] (COUT a
 * sampled image), every output written and finite. */
static void run_version(const problem *pr, const large_version *v, int reduce, const char *label,
                        const int64_t *images, int count, const double *ref[2], float *y, float *got)
{
    const cgp_shape *s = &pr->p.shape;
    const int64_t outputs = s->n * s->cout;
    char name[200];
    cgp_plan *plan;
    void *ws;
    size_t ws_bytes;
    cgp_status st = test_plan_with_workspace(s, pr->p.padding, reduce, v->precision, v->version, &plan, &ws, &ws_bytes);
    const char *kernel = "?";
    if (plan)
        cgp_plan_kernel(plan, NULL, &kernel);
    snprintf(name, sizeof name, "large %s %s kernel %d (%s) %s", label, pr->p.padding ? "same" : "valid", v->version,
             kernel, reduce ? "atomic" : "det");
    if (st == CGP_SUCCESS)
        st = run_poisoned(plan, pr->p.x, pr->p.w, pr->p.b, pr->p.y, outputs, ws, ws_bytes, y);
    if (st != CGP_SUCCESS) {
        TEST_FAIL(name, "%s: %s", cgp_status_string(st), cgp_last_error_detail());
    } else {
        int64_t unwritten = 0, nonfinite = 0;
        for (int64_t i = 0; i < outputs; ++i) {
            unwritten += check_never_written(y[i]);
            nonfinite += !isfinite(y[i]);
        }
        for (int k = 0; k < count; ++k)
            for (int c = 0; c < COUT; ++c)
                got[k * COUT + c] = y[images[k] * s->cout + c];
        const test_result t =
            test_check_y(name, got, ref[v->precision == CGP_PRECISION_TF32], (int64_t)count * COUT,
                         test_arith_of_precision(v->precision), pr->p.hout * pr->p.wout, s->cin);
        if (t.passed)
            TEST_EXPECT(name, nonfinite == 0, "%lld of %lld outputs non-finite, %lld of them never written",
                        (long long)nonfinite, (long long)outputs, (long long)unwritten);
    }
    cudaFree(ws);
    if (plan)
        cgp_plan_destroy(plan);
}

/* The batch past 2^31 input elements, one padding; 0 when the rest is skipped or failed to set up. */
static int test_batch(cgp_padding padding, uint64_t seed, int hopper)
{
    /* the images around 2^30 and 2^31 elements, the first and the last (image 4096 starts at 2^31) */
    static const int64_t sample[BATCH_SAMPLES] = {0, 2047, 2048, 4095, 4096, 1};
    const cgp_shape *s = &batch_shape;
    const int64_t outputs = s->n * s->cout;
    if (!fits(s, 64e6 + (double)outputs * 12.0))
        return 0;
    problem pr;
    char err[512];
    if (problem_create(&pr, s, padding, seed, 64000000, err, sizeof err) != 0) {
        TEST_FAIL("gpu_large batch problem", "%s", err);
        return 0;
    }
    printf("# batch: %lld input elements (2^31 = %lld), padding %s\n", (long long)(s->n * s->cin * s->h * s->w),
           (long long)INT32_MAX + 1, padding ? "same" : "valid");
    static double exact[BATCH_SAMPLES * COUT], rounded[BATCH_SAMPLES * COUT];
    for (int k = 0; k < BATCH_SAMPLES; ++k)
        for (int r = 0; r <= 1; ++r)
            if (test_reference(pr.p.x, pr.p.w, pr.p.b, s, sample[k], 1, padding, r, (r ? rounded : exact) + k * COUT,
                               err, sizeof err) != 0) {
                TEST_FAIL("gpu_large batch reference", "image %lld: %s", (long long)sample[k], err);
                problem_destroy(&pr);
                return 0;
            }
    float *y = malloc(sizeof(float) * (size_t)outputs), got[BATCH_SAMPLES * COUT];
    const double *ref[2] = {exact, rounded};
    for (size_t v = 0; y && v < sizeof batch_versions / sizeof batch_versions[0]; ++v)
        for (int reduce = 0; reduce <= 1 && (hopper || !batch_versions[v].hopper); ++reduce)
            run_version(&pr, &batch_versions[v], reduce, "N=4097 (> 2^31 input elements)", sample, BATCH_SAMPLES, ref,
                        y, got);
    const int ran = y != NULL;
    if (!ran)
        TEST_FAIL("gpu_large batch", "out of host memory");
    free(y);
    problem_destroy(&pr);
    return ran;
}

/* The one image past 2^31 elements, one padding; 0 when the rest is skipped or failed to set up. */
static int test_image(cgp_padding padding, uint64_t seed, int hopper)
{
    const cgp_shape *s = &image_shape;
    /* the reference's tf32-rounded copy of x beside the problem, and the reference's scratch */
    if (!fits(s, (double)problem_tensor_bytes(s) + 256e6))
        return 0;
    problem pr;
    char err[512];
    if (problem_create(&pr, s, padding, seed, 64000000, err, sizeof err) != 0) {
        TEST_FAIL("gpu_large image problem", "%s", err);
        return 0;
    }
    printf("# image: %lld elements in one image (2^31 = %lld), padding %s\n", (long long)(s->cin * s->h * s->w),
           (long long)INT32_MAX + 1, padding ? "same" : "valid");
    static double exact[COUT], rounded[COUT];
    if (problem_reference(&pr, exact, err, sizeof err) != 0 || problem_reference_tf32(&pr, rounded, err, sizeof err) != 0) {
        TEST_FAIL("gpu_large image reference", "%s", err);
        problem_destroy(&pr);
        return 0;
    }
    static const int64_t only[1] = {0};
    float y[COUT], got[COUT];
    const double *ref[2] = {exact, rounded};
    for (size_t v = 0; v < sizeof image_versions / sizeof image_versions[0]; ++v)
        for (int reduce = 0; reduce <= 1 && (hopper || !image_versions[v].hopper); ++reduce)
            run_version(&pr, &image_versions[v], reduce, "one image of 8x16400x16400 (> 2^31 elements)", only, 1, ref,
                        y, got);
    problem_destroy(&pr);
    return 1;
}

int main(void)
{
    if (!test_gpu_available("gpu_large"))
        return test_exit_code();
    test_refusals();
    const uint64_t seed = test_seed("gpu_large");
    const int hopper = hopper_runs();
    int go = 1;
    for (int padding = 0; go && padding <= 1; ++padding)
        go = test_batch((cgp_padding)padding, seed + (uint64_t)padding, hopper);
    for (int padding = 0; go && padding <= 1; ++padding)
        go = test_image((cgp_padding)padding, seed + 2 + (uint64_t)padding, hopper);
    test_tolerance_summary("gpu_large");
    return test_exit_code();
}
