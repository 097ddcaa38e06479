/*
 * cpu_reference.c - the CPU reference (reference/reference.c) against hand-worked cases, since
 * everything else is checked against it:
 *   - GELU at points whose values come from standard-normal tables (x * Phi(x));
 *   - an all-ones input with constant weights: every valid output is GELU(9 Cin w + b);
 *   - the same with padding 1: corner, edge and interior pixels see 4, 6 and 9 taps;
 *   - a centre-tap-only filter: the convolution is the input itself;
 *   - threads do not change the result; the one-output function agrees with the full one.
 * Those are symmetric: a filter read flipped or transposed, or weights read as (Cin, Cout), would pass
 * them. The asymmetric cases below would not (each also checks that the misread filter gives another y):
 *   - a 3 x 4 input with taps 1..9 / 16, worked out by hand to the two valid outputs;
 *   - one nonzero input pixel in a corner, in one of two input channels, for two output channels: in the
 *     scatter form of the definition, the output pixels that see it and the tap each sees it through;
 *   - 2 images, Cin = 3, Cout = 4, 5 x 6, every weight distinct, both paddings: y from the definition,
 *     y[n][co] = mean over (oy, ox) of GELU(b[co] + sum over ci, ky, kx of
 *                                                w[co][ci][ky][kx] * x[n][ci][oy + ky - pad][ox + kx - pad]),
 *     written over a zero-bordered copy of x instead of the reference's skipped taps.
 * tests/cpu/cpu_torch_case.c checks the reference against PyTorch as well.
 */
#include <math.h>
#include <stdint.h>

#include "misread.h"
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

static void test_threads_and_single_output(uint64_t seed)
{
    enum { N = 3, CIN = 4, COUT = 5, H = 9, W = 11 };
    static float x[N * CIN * H * W], w[COUT * CIN * 9], b[COUT];
    rng_fill_uniform(x, N * CIN * H * W, -1.0f, 1.0f, rng_seed_x(seed));
    rng_fill_uniform(w, COUT * CIN * 9, -0.2f, 0.2f, rng_seed_w(seed));
    rng_fill_uniform(b, COUT, -0.2f, 0.2f, rng_seed_b(seed));
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

static double max_rel_diff(const double *a, const double *b, int count)
{
    double worst = 0.0;
    for (int i = 0; i < count; ++i)
        worst = fmax(worst, fabs(a[i] - b[i]) / fmax(fabs(b[i]), 1e-300));
    return worst;
}

/* x[r][c] = (4 r + c + 1) / 8 (3 x 4), w[ky][kx] = (3 ky + kx + 1) / 16, b = -2.5; valid: two outputs.
 *   output (0, 0): sum of (3 ky + kx + 1)(4 ky + kx + 1) / 128
 *                = (1 + 4 + 9) + (20 + 30 + 42) + (63 + 80 + 99) = 348, / 128 = 2.71875
 *   output (0, 1): sum of (3 ky + kx + 1)(4 ky + kx + 2) / 128
 *                = (2 + 6 + 12) + (24 + 35 + 48) + (70 + 88 + 108) = 393, / 128 = 3.0703125
 * so y = (GELU(0.21875) + GELU(0.5703125)) / 2. Flipped taps give 192 / 128 - 2.5 = -1 at (0, 0),
 * transposed taps 312 / 128 - 2.5 = -0.0625. */
static void test_hand_worked(void)
{
    float x[12], w[9], b[1] = {-2.5f};
    for (int i = 0; i < 12; ++i)
        x[i] = (float)(i + 1) / 8.0f;
    for (int i = 0; i < 9; ++i)
        w[i] = (float)(i + 1) / 16.0f;
    double y = 0.0, flipped = 0.0, transposed = 0.0;
    reference_forward(x, w, b, 1, 1, 1, 3, 4, 0, &y, 1);
    const double want = (reference_gelu(348.0 / 128 - 2.5) + reference_gelu(393.0 / 128 - 2.5)) / 2;
    TEST_EXPECT("reference hand-worked 3x4, taps 1..9", close_rel(y, want, 1e-15), "y = %.17g, expected %.17g", y,
                want);
    float wf[9], wt[9];
    misread_filter(w, 1, 1, MISREAD_FLIPPED, wf);
    misread_filter(w, 1, 1, MISREAD_TRANSPOSED, wt);
    reference_forward(x, wf, b, 1, 1, 1, 3, 4, 0, &flipped, 1);
    reference_forward(x, wt, b, 1, 1, 1, 3, 4, 0, &transposed, 1);
    /* flipped: (0, 0) sees 192 / 128, (0, 1) sees 237 / 128; transposed: 312 / 128 and 357 / 128 */
    const double want_flipped = (reference_gelu(-1.0) + reference_gelu(237.0 / 128 - 2.5)) / 2,
                 want_transposed = (reference_gelu(312.0 / 128 - 2.5) + reference_gelu(357.0 / 128 - 2.5)) / 2;
    TEST_EXPECT("reference hand-worked 3x4, taps 1..9, flipped and transposed differ",
                close_rel(flipped, want_flipped, 1e-15) && close_rel(transposed, want_transposed, 1e-15) &&
                    fabs(flipped - y) > 0.1 && fabs(transposed - y) > 0.1,
                "flipped %.17g (expected %.17g), transposed %.17g (expected %.17g), right %.17g", flipped,
                want_flipped, transposed, want_transposed, y);
}

/* One input pixel v in a corner of channel 1 of 2, everything else 0; 2 output channels with distinct taps.
 * Scatter form: input (r, c) reaches output (oy, ox) through tap (ky, kx) = (r - oy + pad, c - ox + pad)
 * when that tap is in 0..2; every other output pixel is GELU(b). */
static void test_one_hot_corners(void)
{
    enum { CIN = 2, COUT = 2, H = 5, W = 6 };
    float x[CIN * H * W], w[COUT * CIN * 9], b[COUT] = {0.125f, -0.375f};
    for (int i = 0; i < COUT * CIN * 9; ++i)
        w[i] = (float)(i * 7 % 37 - 18) / 16.0f; /* distinct: 7 i mod 37 for i < 36 */
    const float v = 1.5f;
    const int corners[2][2] = {{0, 0}, {H - 1, W - 1}};
    for (int pad = 0; pad <= 1; ++pad)
        for (int k = 0; k < 2; ++k) {
            const int r = corners[k][0], c = corners[k][1], hout = H + 2 * pad - 2, wout = W + 2 * pad - 2;
            for (int i = 0; i < CIN * H * W; ++i)
                x[i] = 0.0f;
            x[(1 * H + r) * W + c] = v;
            double y[COUT], want[COUT], flipped[COUT];
            float wf[COUT * CIN * 9];
            reference_forward(x, w, b, 1, CIN, COUT, H, W, pad, y, 1);
            misread_filter(w, COUT, CIN, MISREAD_FLIPPED, wf);
            reference_forward(x, wf, b, 1, CIN, COUT, H, W, pad, flipped, 1);
            for (int co = 0; co < COUT; ++co) {
                double sum = 0.0;
                int reached = 0;
                for (int oy = 0; oy < hout; ++oy)
                    for (int ox = 0; ox < wout; ++ox) {
                        const int ky = r - oy + pad, kx = c - ox + pad;
                        const int sees = ky >= 0 && ky < 3 && kx >= 0 && kx < 3;
                        const double tap = sees ? (double)w[((co * CIN + 1) * 3 + ky) * 3 + kx] : 0.0;
                        sum += reference_gelu((double)b[co] + tap * v);
                        reached += sees;
                    }
                want[co] = sum / ((double)hout * wout);
                if (reached != (pad ? 4 : 1))
                    want[co] = NAN; /* the scatter arithmetic above is wrong */
            }
            char name[96];
            snprintf(name, sizeof name, "reference one-hot corner (%d, %d), %s", r, c, pad ? "same" : "valid");
            TEST_EXPECT(name, max_rel_diff(y, want, COUT) <= 1e-15 && max_rel_diff(flipped, want, COUT) > 1e-3,
                        "y = (%.17g, %.17g), expected (%.17g, %.17g); flipped filter (%.17g, %.17g)", y[0], y[1],
                        want[0], want[1], flipped[0], flipped[1]);
        }
}

/* Several images, input and output channels, distinct weights, both paddings: the definition over a
 * zero-bordered copy of x. */
static void test_definition(void)
{
    enum { N = 2, CIN = 3, COUT = 4, H = 5, W = 6, WEIGHTS = COUT * CIN * 9 };
    float x[N * CIN * H * W], w[WEIGHTS], b[COUT];
    double xp[N][CIN][H + 2][W + 2]; /* xp[..][i + 1][j + 1] = x[..][i][j], a border of zeros */
    for (int i = 0; i < N * CIN * H * W; ++i)
        x[i] = (float)(i * 29 % 97 - 48) / 32.0f;
    for (int i = 0; i < WEIGHTS; ++i)
        w[i] = (float)(i * 37 % 109 - 54) / 256.0f; /* distinct: 109 is prime and > 108 */
    for (int c = 0; c < COUT; ++c)
        b[c] = 0.1875f * (float)c - 0.25f;
    for (int n = 0; n < N; ++n)
        for (int ci = 0; ci < CIN; ++ci)
            for (int i = 0; i < H + 2; ++i)
                for (int j = 0; j < W + 2; ++j)
                    xp[n][ci][i][j] = i >= 1 && i <= H && j >= 1 && j <= W ? x[((n * CIN + ci) * H + i - 1) * W + j - 1]
                                                                          : 0.0;
    for (int pad = 0; pad <= 1; ++pad) {
        const int hout = H + 2 * pad - 2, wout = W + 2 * pad - 2;
        double y[N * COUT], want[N * COUT], misread[MISREAD_WAYS][N * COUT];
        for (int n = 0; n < N; ++n)
            for (int co = 0; co < COUT; ++co) {
                double sum = 0.0;
                for (int oy = 0; oy < hout; ++oy)
                    for (int ox = 0; ox < wout; ++ox) {
                        double a = b[co];
                        for (int ci = 0; ci < CIN; ++ci)
                            for (int ky = 0; ky < 3; ++ky)
                                for (int kx = 0; kx < 3; ++kx) /* x[oy + ky - pad] is xp[oy + ky - pad + 1] */
                                    a += (double)w[((co * CIN + ci) * 3 + ky) * 3 + kx] *
                                         xp[n][ci][oy + ky - pad + 1][ox + kx - pad + 1];
                        sum += reference_gelu(a);
                    }
                want[n * COUT + co] = sum / ((double)hout * wout);
            }
        reference_forward(x, w, b, N, CIN, COUT, H, W, pad, y, 1);
        for (int how = 0; how < MISREAD_WAYS; ++how) {
            float wm[WEIGHTS];
            misread_filter(w, COUT, CIN, how, wm);
            reference_forward(x, wm, b, N, CIN, COUT, H, W, pad, misread[how], 1);
        }
        char name[96];
        snprintf(name, sizeof name, "reference from the definition, 2x3x4x5x6 %s", pad ? "same" : "valid");
        const double diff = max_rel_diff(y, want, N * COUT);
        TEST_EXPECT(name, diff <= 1e-14, "max relative difference %.3e (y[0] = %.17g, expected %.17g)", diff, y[0],
                    want[0]);
        snprintf(name, sizeof name, "reference 2x3x4x5x6 %s tells misread filters apart", pad ? "same" : "valid");
        const double moved[3] = {max_rel_diff(misread[0], want, N * COUT), max_rel_diff(misread[1], want, N * COUT),
                                 max_rel_diff(misread[2], want, N * COUT)};
        TEST_EXPECT(name, moved[0] > 1e-3 && moved[1] > 1e-3 && moved[2] > 1e-3,
                    "a flipped, transposed or (Cin, Cout) filter gives nearly the same y: %.3e, %.3e, %.3e", moved[0],
                    moved[1], moved[2]);
    }
}

int main(void)
{
    test_gelu_table();
    test_all_ones();
    test_centre_tap();
    test_threads_and_single_output(test_seed("cpu_reference"));
    test_hand_worked();
    test_one_hot_corners();
    test_definition();
    return test_exit_code();
}
