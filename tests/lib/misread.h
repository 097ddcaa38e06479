/*
 * misread.h - the ways code can read a (Cout, Cin, 3, 3) filter wrongly, for tests that must tell them
 * from the right reading: each tap flipped, transposed, or the (Cout, Cin) block read as (Cin, Cout).
 */
#ifndef CGP_MISREAD_H
#define CGP_MISREAD_H

enum { MISREAD_FLIPPED, MISREAD_TRANSPOSED, MISREAD_CIN_COUT, MISREAD_WAYS };

static const char *const misread_names[MISREAD_WAYS] = {"flipped taps", "transposed taps", "(Cin, Cout) weights"};

/* out[co][ci][ky][kx] = w as misread `how`: w[co][ci][2-ky][2-kx], w[co][ci][kx][ky], or element (ci, co) of a
 * Cin x Cout grid (flat position ci * Cout + co of the Cout x Cin one) */
static inline void misread_filter(const float *w, int cout, int cin, int how, float *out)
{
    for (int co = 0; co < cout; ++co)
        for (int ci = 0; ci < cin; ++ci)
            for (int ky = 0; ky < 3; ++ky)
                for (int kx = 0; kx < 3; ++kx) {
                    const int flat = ci * cout + co;
                    const int from = how == MISREAD_FLIPPED      ? ((co * cin + ci) * 3 + 2 - ky) * 3 + 2 - kx
                                     : how == MISREAD_TRANSPOSED ? ((co * cin + ci) * 3 + kx) * 3 + ky
                                                                 : (flat * 3 + ky) * 3 + kx;
                    out[((co * cin + ci) * 3 + ky) * 3 + kx] = w[from];
                }
}

#endif
