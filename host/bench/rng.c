/* rng.c - host side of rng.h; kernels/bench/random.cu is the device side (same values, bit for bit). */
#include "rng.h"

#include <math.h>

void rng_fill_uniform(float *out, int64_t count, float lo, float hi, uint64_t seed)
{
    const float span = hi - lo;
    for (int64_t i = 0; i < count; ++i)
        out[i] = fmaf(rng_unit(seed, (uint64_t)i), span, lo);
}
