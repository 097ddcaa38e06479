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

/* The weights misread three ways: each tap flipped (w[co][ci][2-ky][2-kx]), transposed (w[co][ci][kx][ky]),
 * and the (Cout, Cin) block read as (Cin, Cout) where the sizes allow it, i.e. element (co, ci) taken from
 * flat position ci * Cout + co of the Cout x Cin grid. */
static void misread(const float *w, int how, float *out)
{
    for (int co = 0; co < TORCH_COUT; ++co)
        for (int ci = 0; ci < TORCH_CIN; ++ci)
            for (int ky = 0; ky < 3; ++ky)
                for (int kx = 0; kx < 3; ++kx) {
                    const int flat = ci * TORCH_COUT + co, src_co = flat / TORCH_CIN, src_ci = flat % TORCH_CIN;
                    const int from = how == 0   ? ((co * TORCH_CIN + ci) * 3 + 2 - ky) * 3 + 2 - kx
                                     : how == 1 ? ((co * TORCH_CIN + ci) * 3 + kx) * 3 + ky
                                                : ((src_co * TORCH_CIN + src_ci) * 3 + ky) * 3 + kx;
                    out[((co * TORCH_CIN + ci) * 3 + ky) * 3 + kx] = w[from];
                }
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

        static const char *misreadings[3] = {"flipped taps", "transposed taps", "(Cin, Cout) weights"};
        for (int how = 0; how < 3; ++how) {
            float w[TORCH_COUT * TORCH_CIN * 9];
            misread(t.w.data, how, w);
            reference_forward(t.x.data, w, t.b.data, TORCH_N, TORCH_CIN, TORCH_COUT, TORCH_H, TORCH_W, pad, y, 1);
            const double moved = rel_l2(y, t.y[pad]);
            snprintf(name, sizeof name, "torch case tells %s from the right filter, %s padding", misreadings[how],
                     pad ? "same" : "valid");
            TEST_EXPECT(name, moved > 0.05, "the outputs move by %.3g only (relative L2)", moved);
        }
    }
    torch_case_free(&t);
    return test_exit_code();
}
