/* roofline_model.c - see roofline_model.h. */
#include "roofline_model.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

int roofline_model_compute(const roofline_shape *s, roofline_model *m)
{
    memset(m, 0, sizeof *m);
    if (s->n < 1 || s->cin < 1 || s->cout < 1 || s->h < 1 || s->w < 1 || s->pad < 0 || s->pad > 1)
        return -1;
    const int64_t hout = s->h + 2 * s->pad - 2, wout = s->w + 2 * s->pad - 2;
    if (hout < 1 || wout < 1)
        return -1;
    m->hout = hout;
    m->wout = wout;
    const double outputs = (double)s->n * (double)s->cout * (double)hout * (double)wout;
    m->gelu_count = outputs;
    m->conv_flops = 2.0 * outputs * (double)s->cin * 9.0;
    m->x_bytes = 4.0 * (double)s->n * (double)s->cin * (double)s->h * (double)s->w;
    m->w_bytes = 4.0 * (double)s->cout * (double)s->cin * 9.0;
    m->b_bytes = 4.0 * (double)s->cout;
    m->y_bytes = 4.0 * (double)s->n * (double)s->cout;
    m->min_bytes = m->x_bytes + m->w_bytes + m->b_bytes + m->y_bytes;
    m->intensity = m->conv_flops / m->min_bytes;
    m->intermediate_bytes = 4.0 * outputs;
    m->unfused_bytes = m->min_bytes + 2.0 * m->intermediate_bytes;
    m->unfused_intensity = m->conv_flops / m->unfused_bytes;
    return 0;
}

/* work / rate in milliseconds; NaN when the rate was not measured */
static double floor_ms(double work, double rate) { return rate > 0.0 ? 1e3 * work / rate : NAN; }

/* fmax would drop a NaN operand: a max with an unmeasured ceiling stays NaN */
static double max_or_nan(double a, double b) { return isnan(a) || isnan(b) ? NAN : fmax(a, b); }

void roofline_floors_compute(const roofline_model *m, const roofline_ceilings *c, roofline_floors *f)
{
    const double tensor = roofline_pipe_roof(c, ROOFLINE_PIPE_TF32_BEST);
    f->memory_ms = floor_ms(m->min_bytes, c->dram_bytes_per_s);
    f->ffma_ms = floor_ms(m->conv_flops, c->ffma_flops_per_s);
    f->mma_sync_ms = floor_ms(m->conv_flops, c->mma_sync_flops_per_s);
    f->wgmma_ms = floor_ms(m->conv_flops, c->wgmma_flops_per_s);
    f->tensor_ms = floor_ms(m->conv_flops, tensor);
    f->tensor_x3_ms = floor_ms(3.0 * m->conv_flops, tensor);
    f->gelu_ms = floor_ms(m->gelu_count, c->gelu_fast_per_s);
    f->mufu_ms = floor_ms(m->gelu_count, c->mufu_ex2_per_s);
    f->fp32_kernel_ms = f->ffma_ms + f->gelu_ms; /* NaN when either is */
    f->tf32_kernel_ms = max_or_nan(f->tensor_ms, f->gelu_ms);
    f->tf32x3_kernel_ms = max_or_nan(f->tensor_x3_ms, f->gelu_ms);
}

double roofline_winograd_ffma_per_output(int m) { return (double)((m + 2) * (m + 2)) / (double)(m * m); }

/* The word of a descriptive name at `at` (up to a space, a comma or its end) equal to `word` */
static int word_is(const char *at, const char *word)
{
    const size_t n = strlen(word);
    return strncmp(at, word, n) == 0 && (at[n] == '\0' || at[n] == ' ' || at[n] == ',');
}

roofline_work roofline_kind_work(const char *kind, roofline_math math)
{
    const double products = math == ROOFLINE_MATH_3XTF32 ? 3.0 : 1.0;
    const char *products_name = products == 3.0 ? "3xTF32 split" : "direct";
    static const char ffma[] = "ffma "; /* the pipe's word, then the algorithm's */
    if (kind && strncmp(kind, ffma, strlen(ffma)) == 0 && math == ROOFLINE_MATH_FP32) {
        const char *algorithm = kind + strlen(ffma);
        if (word_is(algorithm, "winograd-f2x2") || word_is(algorithm, "winograd-f4x4")) {
            const int m = word_is(algorithm, "winograd-f2x2") ? 2 : 4;
            return (roofline_work){ROOFLINE_PIPE_FFMA, roofline_winograd_ffma_per_output(m) / 9.0,
                                   m == 2 ? "Winograd F(2x2,3x3)" : "Winograd F(4x4,3x3)", 1};
        }
        if (word_is(algorithm, "direct") || word_is(algorithm, "implicit-gemm"))
            return (roofline_work){ROOFLINE_PIPE_FFMA, 1.0, "direct", 1};
    }
    if (kind && (math == ROOFLINE_MATH_TF32 || math == ROOFLINE_MATH_3XTF32)) {
        if (word_is(kind, "mma.sync"))
            return (roofline_work){ROOFLINE_PIPE_MMA_SYNC, products, products_name, 1};
        if (word_is(kind, "wgmma"))
            return (roofline_work){ROOFLINE_PIPE_WGMMA, products, products_name, 1};
    }
    switch (math) {
    case ROOFLINE_MATH_FP32: return (roofline_work){ROOFLINE_PIPE_FFMA, 1.0, "direct", 0};
    case ROOFLINE_MATH_TF32: return (roofline_work){ROOFLINE_PIPE_TF32_BEST, 1.0, "direct", 0};
    case ROOFLINE_MATH_3XTF32: return (roofline_work){ROOFLINE_PIPE_TF32_BEST, 3.0, "3xTF32 split", 0};
    default: return (roofline_work){ROOFLINE_PIPE_NONE, 0.0, "no convolution", 0};
    }
}

const char *roofline_math_name(roofline_math math)
{
    static const char *const names[] = {"n/a", "fp32", "tf32", "3xtf32"};
    return math >= ROOFLINE_MATH_NONE && math <= ROOFLINE_MATH_3XTF32 ? names[math] : "n/a";
}

double roofline_pipe_roof(const roofline_ceilings *c, roofline_pipe pipe)
{
    switch (pipe) {
    case ROOFLINE_PIPE_FFMA: return c->ffma_flops_per_s;
    case ROOFLINE_PIPE_MMA_SYNC: return c->mma_sync_flops_per_s;
    case ROOFLINE_PIPE_WGMMA: return c->wgmma_flops_per_s;
    case ROOFLINE_PIPE_TF32_BEST: return fmax(c->wgmma_flops_per_s, c->mma_sync_flops_per_s);
    default: return 0.0;
    }
}

const char *roofline_pipe_name(roofline_pipe pipe)
{
    static const char *const names[ROOFLINE_PIPE_COUNT] = {"", "FFMA", "mma.sync TF32", "wgmma TF32", "TF32 tensor"};
    return pipe >= 0 && pipe < ROOFLINE_PIPE_COUNT ? names[pipe] : "";
}

double roofline_attainable(double intensity, double compute_flops_per_s, double bytes_per_s)
{
    return fmin(compute_flops_per_s, intensity * bytes_per_s);
}

int roofline_point_place(double conv_flops, double bytes, double ms, const roofline_work *work,
                         const roofline_ceilings *c, roofline_point *p)
{
    memset(p, 0, sizeof *p);
    if (!(conv_flops > 0.0) || !(bytes > 0.0) || !(ms > 0.0))
        return -1;
    const double seconds = ms * 1e-3;
    p->flops_per_s = conv_flops / seconds;
    p->bytes_per_s = bytes / seconds;
    p->intensity = conv_flops / bytes;
    p->work = *work;
    p->executed_flops_per_s = work->executed_per_direct * p->flops_per_s;
    p->executed_intensity = work->executed_per_direct * p->intensity;
    p->pipe_flops_per_s = roofline_pipe_roof(c, work->pipe);
    const int roof = p->pipe_flops_per_s > 0.0;
    p->pct_pipe = roof ? 100.0 * p->executed_flops_per_s / p->pipe_flops_per_s : NAN;
    p->pct_memory = c->dram_bytes_per_s > 0.0 ? 100.0 * p->bytes_per_s / c->dram_bytes_per_s : NAN;
    if (roof && c->dram_bytes_per_s > 0.0) {
        p->roof_flops = roofline_attainable(p->executed_intensity, p->pipe_flops_per_s, c->dram_bytes_per_s);
        p->pct_roof = 100.0 * p->executed_flops_per_s / p->roof_flops;
    } else {
        p->roof_flops = NAN;
        p->pct_roof = NAN;
    }
    return 0;
}

/* NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column: FP32 67 TFLOPS, TF32 Tensor Core 989 TFLOPS with
 * sparsity (dense: half), GPU memory bandwidth 4.8 TB/s */
static const roofline_datasheet datasheets[] = {
    {"NVIDIA H200", "NVIDIA H200 datasheet (SXM): FP32 67 TFLOPS, TF32 989 TFLOPS with sparsity, 4.8 TB/s", 67e12,
     989e12 / 2.0, 4.8e12},
};

const roofline_datasheet *roofline_datasheet_find(const char *device)
{
    for (size_t i = 0; device && i < sizeof datasheets / sizeof datasheets[0]; ++i)
        if (strcmp(device, datasheets[i].device) == 0)
            return &datasheets[i];
    return NULL;
}
