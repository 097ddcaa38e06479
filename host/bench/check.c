/* check.c - see check.h. */
#include "check.h"

#include <math.h>
#include <string.h>

int check_never_written(float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits == CHECK_UNWRITTEN_BITS;
}

int check_nonfinite_agrees(float v, double e, int inf_may_be_nan)
{
    if (isnan(e))
        return isnan(v);
    if (isinf(e))
        return (double)v == e || (inf_may_be_nan && isnan(v));
    return isfinite(v);
}

check_report check_compare(const float *y, const double *ref, int64_t count, double tolerance)
{
    check_report r = {0.0, 0.0, -1, 0, 0, tolerance, 0};
    int64_t first_unwritten = -1, first_mismatch = -1;
    double diff2 = 0.0, ref2 = 0.0;
    for (int64_t i = 0; i < count; ++i) {
        if (check_never_written(y[i])) {
            if (r.never_written++ == 0)
                first_unwritten = i;
            continue;
        }
        const double v = (double)y[i], e = ref[i];
        if (!isfinite(e) || !isfinite(v)) {
            if (!check_nonfinite_agrees(y[i], e, 0) && r.nonfinite_mismatches++ == 0)
                first_mismatch = i;
            continue;
        }
        const double d = fabs(v - e);
        if (r.worst_index < 0 || d > r.max_abs_error) {
            r.max_abs_error = d;
            r.worst_index = i;
        }
        diff2 += d * d;
        ref2 += e * e;
    }
    if (first_mismatch >= 0)
        r.worst_index = first_mismatch;
    if (first_unwritten >= 0)
        r.worst_index = first_unwritten;
    const double floor2 = 0.05 * 0.05 * (double)count;
    r.rel_l2_error = sqrt(diff2 / (ref2 > floor2 ? ref2 : floor2));
    r.passed = r.never_written == 0 && r.nonfinite_mismatches == 0 && r.rel_l2_error <= tolerance;
    return r;
}

double check_tolerance(int precision, int64_t pixels, int64_t cin)
{
    if (precision != 1) /* CGP_PRECISION_TF32 */
        return check_fp32_tolerance(cin);
    return pixels >= 4096 && cin >= 8 ? 1e-4 : 3e-3;
}

double check_fp32_tolerance(int64_t cin) { return cin <= 64 ? 1e-6 : 1e-6 * sqrt((double)cin / 64.0); }

double check_tf32_operands_tolerance(int64_t cin)
{
    const double chain = 2.0 * 9.0 * (double)((cin + 7) / 8) / 16777216.0;
    const double fp32 = check_fp32_tolerance(cin);
    return (chain > fp32 ? chain : fp32) + 3.0 * 3.1e-7; /* + 3 x the tensor-core kernels' GELU floor */
}
