/*
 * check.h - comparing a kernel's output with the fp64 reference. Relative L2 error
 * ||y - ref|| / ||ref|| is the pass criterion; max abs error is reported beside it.
 * A non-finite value passes only where the reference has the same non-finite value
 * (NaN where NaN, +inf where +inf), so an unwritten (NaN-poisoned) output always fails.
 */
#ifndef CGP_CHECK_H
#define CGP_CHECK_H

#include <stdint.h>

typedef struct check_report {
    double max_abs_error;   /* over elements where both are finite */
    double rel_l2_error;    /* over elements where the reference is finite */
    int64_t worst_index;    /* element with the largest abs error (or first mismatch) */
    int64_t nonfinite_mismatches;
    double tolerance;
    int passed;
} check_report;

check_report check_compare(const float *y, const double *ref, int64_t count, double tolerance);

/* relative L2 tolerances: fp32 and 3xtf32 1e-6, tf32 1e-4 (cgp_precision values) */
double check_tolerance(int precision);

#endif
