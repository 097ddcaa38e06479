/*
 * cpu_torch_case.c - the CPU reference (reference/reference.c) against PyTorch, an implementation that
 * shares nothing with this project: on tests/data/torch_case/ (scripts/make_torch_case.py: F.conv2d ->
 * F.gelu -> mean in float64, its provenance in the README there), both paddings, every output within
 * 1e-12 relative (both sides fp64; only the order of the sums and the erf differ). A flipped or
 * transposed filter, or weights read as (Cin, Cout), in the reference would miss by far more; the case is
 * checked to tell them apart: each such misreading moves the outputs by more than 5% (relative L2),
 * above every bound of tests/lib/tolerance.h for this shape.
 * Fails while the files are missing (they are made on a machine with torch and committed).
 */
#include <math.h>

#include "misread.h"
#include "reference.h"
#include "testlib.h"
#include "torch_case.h"

enum { OUTPUTS = TORCH_N * TORCH_COUT };

static double rel_l2(const double *a, const double *b)
{
    double d2 = 0.0, b2 = 0.0;
    for (int i = 0; i < OUTPUTS; ++i) {
        d2 += (a[i] - b[i]) * (a[i] - b[i]);
        b2 += b[i] * b[i];
    }
    return sqrt(d2 / b2);
}

int main(void)
{
    torch_case t;
    char err[1024];
    if (torch_case_load(&t, err, sizeof err) != 0) {
        TEST_FAIL("torch case", "%s", err);
        return test_exit_code();
    }
    for (int pad = 0; pad <= 1; ++pad) {
        char name[96];
        double y[OUTPUTS], worst = 0.0;
        snprintf(name, sizeof name, "torch case: CPU reference vs PyTorch, %s padding", pad ? "same" : "valid");
        reference_forward(t.x.data, t.w.data, t.b.data, TORCH_N, TORCH_CIN, TORCH_COUT, TORCH_H, TORCH_W, pad, y, 1);
        for (int i = 0; i < OUTPUTS; ++i)
            worst = fmax(worst, fabs(y[i] - t.y[pad][i]) / fmax(fabs(t.y[pad][i]), 1e-300));
        TEST_EXPECT(name, worst <= 1e-12, "max relative difference %.3e (y[0] = %.17g, PyTorch %.17g)", worst, y[0],
                    t.y[pad][0]);

        for (int how = 0; how < MISREAD_WAYS; ++how) {
            float w[TORCH_COUT * TORCH_CIN * 9];
            misread_filter(t.w.data, TORCH_COUT, TORCH_CIN, how, w);
            reference_forward(t.x.data, w, t.b.data, TORCH_N, TORCH_CIN, TORCH_COUT, TORCH_H, TORCH_W, pad, y, 1);
            const double moved = rel_l2(y, t.y[pad]);
            snprintf(name, sizeof name, "torch case tells %s from the right filter, %s padding", misread_names[how],
                     pad ? "same" : "valid");
            TEST_EXPECT(name, moved > 0.05, "the outputs move by %.3g only (relative L2)", moved);
        }
    }
    torch_case_free(&t);
    return test_exit_code();
}
