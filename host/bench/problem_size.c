/*
 * problem_size.c - what a problem costs, as every bench row counts it (variants.h): the convolution's
 * FLOPs and the least DRAM traffic of the fused computation. No CUDA: the CPU tests link it.
 */
#include "variants.h"

double problem_min_bytes(const bench_problem *p)
{
    const cgp_shape *s = &p->shape;
    return 4.0 * ((double)s->n * s->cin * s->h * s->w + (double)s->cout * s->cin * 9 + (double)s->cout +
                  (double)s->n * s->cout);
}

double problem_conv_flops(const bench_problem *p)
{
    const cgp_shape *s = &p->shape;
    return 2.0 * (double)s->n * s->cout * (double)p->hout * (double)p->wout * (double)s->cin * 9.0;
}
