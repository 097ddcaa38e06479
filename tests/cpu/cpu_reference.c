/*
 * cpu_reference.c - the CPU reference (reference/reference.c) against hand-worked cases, since
 * everything else is checked against it:
 *   - GELU at points whose values come from standard-normal tables (x * Phi(x));
 *   - an all-ones input with constant weights: every valid output is GELU(9 Cin w + b);
 *   - the same with padding 1: corner, edge and interior pixels see 4, 6 and 9 taps;
 *   - a centre-tap-only filter: the convolution is the input itself;
 *   - threads do not change the result; the one-output function agrees with the full one.
 */
#include <math.h>
#include <stdint.h>

#include "reference.h"
#include "rng.h"
#include "testlib.h"

static int close_rel(double a, double b, double tol) { return fabs(a - b) <= tol * fmax(1e-300, fabs(b)); }

static void test_gelu_table(void)
{
    /* Phi(x) from standard normal tables (Abramowitz & Stegun 26.2, 16+ digits) */
    static const struct { double x, phi; } t[] = {
        {0.0, 0.5},
        {1.0, 0.8413447460685429486},
        {-1.0, 0.1586552539314570514},
        {2.0, 0.9772498680518207928},
        {-2.0, 0.0227501319481792072},
        {-3.0, 0.0013498980316300946},
        {0.5, 0.6914624612740131036},
        {-0.5, 0.3085375387259868964},
    };
    int ok = 1;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i) {
        const double want = t[i].x * t[i].phi, got = reference_gelu(t[i].x);
        if (!(fabs(got - want) <= 1e-15 * fmax(1.0, fabs(want)))) {
            TEST_FAIL("reference gelu table", "GELU(%g) = %.17g, table gives %.17g", t[i].x, got, want);
            ok = 0;
        }
    }
    if (ok)
        TEST_PASS("reference gelu table");
    TEST_EXPECT("reference gelu(+inf)", isinf(reference_gelu(INFINITY)) && reference_gelu(INFINITY) > 0, "%g",
                reference_gelu(INFINITY));
    TEST_EXPECT("reference gelu(nan)", isnan(reference_gelu(NAN)), "%g", reference_gelu(NAN));
}

static void test_all_ones(void)
{
    enum { N = 2, CIN = 3, COUT = 2, H = 6, W = 7 };
    static float x[N * CIN * H * W], w[COUT * CIN * 9], b[COUT];
    for (int i = 0; i < N * CIN * H * W; ++i)
        x[i] = 1.0f;
    const float wv[COUT] = {0.125f, -0.0625f}, bv[COUT] = {0.25f, 0.5f};
    for (int c = 0; c < COUT; ++c) {
        for (int k = 0; k < CIN * 9; ++k)
            w[c * CIN * 9 + k] = wv[c];
        b[c] = bv[c];
    }
    double y[N * COUT];
    reference_forward(x, w, b, N, CIN, COUT, H, W, 0, y, 1);
    int ok = 1;
    for (int n = 0; n < N; ++n)
        for (int c = 0; c < COUT; ++c) {
            const double want = reference_gelu(9.0 * CIN * wv[c] + bv[c]);
            if (!close_rel(y[n * COUT + c], want, 1e-14))
                ok = 0;
        }
    TEST_EXPECT("reference all-ones valid", ok, "y[0,0] = %.17g, expected GELU(%g)", y[0], 9.0 * CIN * wv[0] + bv[0]);

    reference_forward(x, w, b, N, CIN, COUT, H, W, 1, y, 1);
    ok = 1;
    for (int c = 0; c < COUT; ++c) {
        /* padding 1: H x W outputs; corners see 4 taps, non-corner border pixels 6, interior 9 */
        const double corner = 4, edges = 2.0 * (H - 2) + 2.0 * (W - 2), interior = (double)(H - 2) * (W - 2);
        const double g4 = reference_gelu(4.0 * CIN * wv[c] + bv[c]), g6 = reference_gelu(6.0 * CIN * wv[c] + bv[c]),
                     g9 = reference_gelu(9.0 * CIN * wv[c] + bv[c]);
        const double want = (corner * g4 + edges * g6 + interior * g9) / ((double)H * W);
        if (!close_rel(y[c], want, 1e-14) || !close_rel(y[COUT + c], want, 1e-14))
            ok = 0;
    }
    TEST_EXPECT("reference all-ones same", ok, "y[0,0] = %.17g", y[0]);
}

static void test_centre_tap(void)
{
    enum { N = 1, CIN = 1, COUT = 1, H = 5, W = 4 };
    float x[H * W], w[9] = {0, 0, 0, 0, 1, 0, 0, 0, 0}, b[1] = {-0.25f};
    for (int i = 0; i < H * W; ++i)
        x[i] = (float)(i % 7) * 0.5f - 1.0f;
    double y, want = 0.0;
    reference_forward(x, w, b, N, CIN, COUT, H, W, 0, &y, 1);
    for (int r = 1; r < H - 1; ++r)
        for (int c = 1; c < W - 1; ++c)
            want += reference_gelu((double)x[r * W + c] - 0.25);
    want /= (double)(H - 2) * (W - 2);
    TEST_EXPECT("reference centre tap", close_rel(y, want, 1e-15), "y = %.17g, expected %.17g", y, want);
}

static void test_threads_and_single_output(void)
{
    enum { N = 3, CIN = 4, COUT = 5, H = 9, W = 11 };
    static float x[N * CIN * H * W], w[COUT * CIN * 9], b[COUT];
    rng_fill_uniform(x, N * CIN * H * W, -1.0f, 1.0f, 11);
    rng_fill_uniform(w, COUT * CIN * 9, -0.2f, 0.2f, 12);
    rng_fill_uniform(b, COUT, -0.2f, 0.2f, 13);
    double y1[N * COUT], y4[N * COUT];
    for (int pad = 0; pad <= 1; ++pad) {
        reference_forward(x, w, b, N, CIN, COUT, H, W, pad, y1, 1);
        reference_forward(x, w, b, N, CIN, COUT, H, W, pad, y4, 4);
        int same = 1;
        for (int i = 0; i < N * COUT; ++i)
            same &= y1[i] == y4[i] && y1[i] == reference_forward_one(x, w, b, CIN, H, W, pad, i / COUT, i % COUT);
        TEST_EXPECT(pad ? "reference threads agree (same)" : "reference threads agree (valid)", same,
                    "1-thread, 4-thread and one-output results differ");
    }
    TEST_EXPECT("reference no output pixel", reference_forward(x, w, b, N, CIN, COUT, 2, 2, 0, y1, 1) == -1,
                "H=W=2 with valid padding must be refused");
}

int main(void)
{
    test_gelu_table();
    test_all_ones();
    test_centre_tap();
    test_threads_and_single_output();
    return test_exit_code();
}
