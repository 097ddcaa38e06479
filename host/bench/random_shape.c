/* random_shape.c - shapes nobody listed (random_shape.h). */
#include "random_shape.h"

#include <math.h>

#include "rng.h"

int64_t random_draw_log(random_draw *d, int64_t lo, int64_t hi)
{
    const double u = (double)(rng_bits(d->seed, d->count++) >> 11) * (1.0 / 9007199254740992.0);
    const int64_t v = (int64_t)floor(exp(log((double)lo) + u * (log((double)hi + 1.0) - log((double)lo))));
    return v < lo ? lo : v > hi ? hi : v;
}

static double image_work(const random_shape_bounds *b, int64_t cin, int64_t cout, int64_t hout, int64_t wout)
{
    return b->work ? b->work(cin, cout, hout, wout) : (double)cout * (double)hout * (double)wout * (double)cin * 9.0;
}

cgp_shape random_shape_draw(random_draw *d, cgp_padding padding, const random_shape_bounds *b)
{
    const int64_t pad = padding == CGP_PADDING_SAME ? 1 : 0;
    cgp_shape s = {1, random_draw_log(d, 1, 1024), random_draw_log(d, 1, 1024), 3, 3};
    const int64_t n_min = (b->min_outputs + s.cout - 1) / s.cout;
    for (int tries = 0; tries < 1000; ++tries) { /* H = W = 3 fits any channels */
        const int64_t h = random_draw_log(d, 3, 600), w = random_draw_log(d, 3, 600);
        if ((double)n_min * image_work(b, s.cin, s.cout, h - 2 + 2 * pad, w - 2 + 2 * pad) <= b->work_max &&
            (double)n_min * (double)(s.cin * h * w) <= b->input_max) {
            s.h = h, s.w = w;
            break;
        }
    }
    double n_max = floor(b->work_max / image_work(b, s.cin, s.cout, s.h - 2 + 2 * pad, s.w - 2 + 2 * pad));
    if (n_max > floor(b->input_max / (double)(s.cin * s.h * s.w)))
        n_max = floor(b->input_max / (double)(s.cin * s.h * s.w));
    if (n_max > (double)b->n_max)
        n_max = (double)b->n_max;
    s.n = n_max > (double)n_min ? random_draw_log(d, n_min, (int64_t)n_max) : n_min;
    return s;
}
