/*
 * gelu.cuh - the exact (erf) GELU, 0.5 * v * (1 + erf(v / sqrt(2))), in fp32 on the device.
 *   gelu_erff: the plain libdevice form, kept for comparison and for fp32-v2.
 *   gelu_fast: the project's GELU (docs/gelu.md), an erfc-style form with one reciprocal and one
 *              exponential and no cancellation for negative v; checked over every float by
 *              tests/gpu_gelu.c against a double-precision erf GELU.
 *
 * gelu_fast. With a = |v| and q(a) = a * Phi(-a) (Phi the normal CDF):
 *     GELU(v) = relu(v) - q(a),   relu(v) computed as 0.5 * (v + |v|)
 * (for v < 0 the result is -q, never a difference of nearly equal terms). Then
 *     q(a) = a * 2^(-c v^2) * G(t),   c = log2(e) / 2 (as a float),   t = a / (1 + p a)
 * where G = Phi(-a) 2^(c a^2), a Mills-ratio-like smooth function of t, is a degree-6 polynomial
 * (scripts/fit_gelu.py fits it, weighted by the accuracy the result needs). The exponent -c v^2
 * (computed from a) is rounded twice (s = -c a, s * a); both roundings are recovered with FMAs and
 * applied as the first-order factor (1 + ln2 * residual). a is clamped to 5.9: beyond it q stays at
 * q(5.9) = 1.1e-8 < 2^-26, inside the absolute bound, everything stays finite, and the relu term
 * alone makes +inf -> +inf, -inf -> NaN (as the erf form does) and NaN -> NaN.
 * ex2/rcp are the .approx.ftz forms (one MUFU each; no denormal fix-up code).
 */
#ifndef CGP_GELU_CUH
#define CGP_GELU_CUH

__device__ __forceinline__ float gelu_erff(float v)
{
    return 0.5f * v * (1.0f + erff(v * 0.707106781186547524f));
}

__device__ __forceinline__ float gelu_ex2_approx(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ float gelu_rcp_approx(float x)
{
    float y;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ float gelu_fast(float v)
{
    const float c = 0.721347520444481703680f; /* log2(e) / 2 */
    const float a = fminf(fabsf(v), 5.9f);
    const float t = a * gelu_rcp_approx(fmaf(0.4f, a, 1.0f));
    float g = 2.358439669e-04f;
    g = fmaf(g, t, -8.818740025e-04f);
    g = fmaf(g, t, -2.201403957e-03f);
    g = fmaf(g, t, 2.972356975e-03f);
    g = fmaf(g, t, 9.048256278e-02f);
    g = fmaf(g, t, -3.989497721e-01f);
    g = fmaf(g, t, 5.000002980e-01f);
    const float s = a * -c;                     /* -c a, rounded */
    const float e = s * a;                      /* -c a^2, rounded again */
    const float s_lo = fmaf(a, -c, -s);         /* exact residual of the first rounding */
    const float e_lo = fmaf(s_lo, a, fmaf(s, a, -e)); /* what both roundings lost */
    const float w = (a * gelu_ex2_approx(e)) * g;
    const float q = fmaf(w, e_lo * 0.693147180559945309f, w); /* 2^e_lo ~ 1 + ln2 e_lo */
    return fmaf(v + fabsf(v), 0.5f, -q);
}

#endif
