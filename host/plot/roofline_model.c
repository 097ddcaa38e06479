/* roofline_model.c - see roofline_model.h. */
#include "roofline_model.h"

#include <math.h>
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
    return 0;
}

/* work / rate in milliseconds; NaN when the rate was not measured */
static double floor_ms(double work, double rate) { return rate > 0.0 ? 1e3 * work / rate : NAN; }

void roofline_floors_compute(const roofline_model *m, const roofline_ceilings *c, roofline_floors *f)
{
    f->memory_ms = floor_ms(m->min_bytes, c->dram_bytes_per_s);
    f->ffma_ms = floor_ms(m->conv_flops, c->ffma_flops_per_s);
    f->tf32_ms = floor_ms(m->conv_flops, c->tf32_flops_per_s);
    f->tf32x3_ms = floor_ms(3.0 * m->conv_flops, c->tf32_flops_per_s);
    f->gelu_ms = floor_ms(m->gelu_count, c->gelu_fast_per_s);
    f->fp32_kernel_ms = f->ffma_ms + f->gelu_ms; /* NaN when either is */
    /* fmax would drop a NaN operand: a max of an unmeasured ceiling stays NaN */
    const int known = !isnan(f->tf32_ms) && !isnan(f->gelu_ms);
    f->tf32_kernel_ms = known ? fmax(f->tf32_ms, f->gelu_ms) : NAN;
    f->tf32x3_kernel_ms = known ? fmax(f->tf32x3_ms, f->gelu_ms) : NAN;
}

roofline_roof roofline_precision_roof(const char *precision, double *work_factor)
{
    *work_factor = 1.0;
    if (strcmp(precision, "fp32") == 0)
        return ROOFLINE_ROOF_FFMA;
    if (strcmp(precision, "tf32") == 0)
        return ROOFLINE_ROOF_TF32;
    if (strcmp(precision, "3xtf32") == 0) {
        *work_factor = 3.0;
        return ROOFLINE_ROOF_TF32;
    }
    return ROOFLINE_ROOF_NONE;
}

double roofline_attainable(double intensity, double compute_flops_per_s, double bytes_per_s)
{
    return fmin(compute_flops_per_s, intensity * bytes_per_s);
}

int roofline_point_place(double conv_flops, double bytes, double ms, const char *precision,
                         const roofline_ceilings *c, roofline_point *p)
{
    memset(p, 0, sizeof *p);
    if (!(conv_flops > 0.0) || !(bytes > 0.0) || !(ms > 0.0))
        return -1;
    const double seconds = ms * 1e-3;
    p->flops_per_s = conv_flops / seconds;
    p->bytes_per_s = bytes / seconds;
    p->intensity = conv_flops / bytes;
    p->roof = roofline_precision_roof(precision, &p->work_factor);
    const double ceiling = p->roof == ROOFLINE_ROOF_FFMA   ? c->ffma_flops_per_s
                           : p->roof == ROOFLINE_ROOF_TF32 ? c->tf32_flops_per_s
                                                           : 0.0;
    p->pct_compute = ceiling > 0.0 ? 100.0 * p->work_factor * p->flops_per_s / ceiling : NAN;
    p->pct_memory = c->dram_bytes_per_s > 0.0 ? 100.0 * p->bytes_per_s / c->dram_bytes_per_s : NAN;
    if (ceiling > 0.0 && c->dram_bytes_per_s > 0.0) {
        p->roof_flops = roofline_attainable(p->intensity, ceiling / p->work_factor, c->dram_bytes_per_s);
        p->pct_roof = 100.0 * p->flops_per_s / p->roof_flops;
    } else {
        p->roof_flops = NAN;
        p->pct_roof = NAN;
    }
    return 0;
}
