#!/usr/bin/env python3
"""
fit_gelu.py - derives and verifies the constants of gelu_fast (kernels/fused/gelu.cuh).
Optional tooling (numpy + scipy), not part of the build. docs/gelu.md explains the form.

    python3 scripts/fit_gelu.py fit             derive the constants, print them as CUDA #defines
    python3 scripts/fit_gelu.py fit-tf32        the same for gelu_tf32 (degree 4, absolute error)
    python3 scripts/fit_gelu.py fit-x2          gelu_x2's constants (tf32-v5: exponential form, one MUFU)
    python3 scripts/fit_gelu.py fit-x2-fine     gelu_x2_fine's (3xtf32-v5: the same form, degree 7, A = 6.5)
    python3 scripts/fit_gelu.py check [--full]  emulate kernels/fused/gelu.cuh in fp32, print worst errors

The form. With a = |v| and q(a) = a Phi(-a) (Phi the normal CDF), GELU(v) = relu(v) - q(a) exactly
(v Phi(v) = v - v Phi(-v) for v >= 0, and = -a Phi(-a) for v < 0), and q is what erfc gives, with no
cancellation. The kernel computes

    a = min(|v|, A)                       FMNMX   (A = 6.5: q(A) = 2.6e-10, far below 2^-26)
    t = a * rcp(C + P a)                  FFMA, MUFU.RCP, FMUL     t in [0, 1/P)
    L = L0 + t (L1 + ... + t L6)          6 FFMA (Horner)
    s = a * a                             FMUL    (v^2 rounded once; a <= A, so no overflow)
    [safe: L += -HALF_LOG2E fma(a, a, -s) 2 FFMA: adds back the rounding error of s, exactly]
    E = ex2(L - HALF_LOG2E s)             FFMA, MUFU.EX2
    w = v / 2                             FMUL    (exact: relu = w + |w|, -inf -> NaN)
    GELU = fma(-t, E, w + |w|)            FADD, FFMA
so that q = t 2^(L(t) - log2(e) a^2 / 2): L(t) = log2(q(a) / t) + log2(e) a^2 / 2 is a smooth,
slowly varying function of the rational variable t (the log of a Mills ratio), fitted here.
16 instructions (18 with the compensated variant), 2 of them MUFU.

The fit. L is a degree-6 weighted minimax polynomial in t over [0, t(A)] (linear programming on a
dense grid, Chebyshev basis), whose coefficients are then rounded to float one at a time, low degree
first (trying both neighbours, refitting the higher ones, a beam of 3) and polished by +-1, +-2 ulp
steps. An error dL in L is a relative error ln2 dL in q, so the weight is ln2 q / allowed(q), where
allowed(q) = max(B - k q 2^-23, B / 10) and B = max(q 2^-21, 2^-26) is the project's bound (8 ulp of
the result at the top of a binade, where 8 ulp is 4 x 2^-23 relative, or 2^-26): the fit may use
what the rounding errors of the evaluation (about k x 2^-23 relative) leave, which is little where
the bound is relative (|GELU| >= 2^-6, a < 2.49) and almost all of it in the tail.

The check emulates the kernel operation by operation: float32 products and sums, fma correctly
rounded (exact product in double, TwoSum, halfway cases fixed), MUFU.RCP and MUFU.EX2 with flush
to zero, either correctly rounded ("ideal") or, as stress, the float farthest from the exact value
in one direction within a bound: ex2 within 1 ulp, within 2^-22.5 relative, within 2 ulp (the
documented exp2f bound), rcp within 1 ulp; "cr+-2" moves the correctly rounded ex2 by 2 ulp and rcp
by 1 ulp (pessimistic: up to 2.5 and 1.5 ulp from exact). The error is measured in units of the
bound max(8 ulp(ref), 2^-26) (<= 1 passes) and in ulp of ref = 0.5 v erfc(-v / sqrt 2) in double.
Inputs: the floats at the tops of the binades of the result (mantissa >= 1.7, where 8 ulp is
tightest) for |v| in [2^-8, 2.6] (every 7th, all with --full), every 97th (--full: 7th) float of
each sign in [2^-12, 6.5], and every 65537th bit pattern (all magnitudes, denormals included).
The exhaustive check over all 2^32 inputs with the real MUFU is tests/gpu/gpu_gelu.c on the GPU.
"""
import argparse
import math
import re
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import linprog
from scipy.special import erfc

f32, f64 = np.float32, np.float64
HEADER = Path(__file__).resolve().parent.parent / "kernels" / "fused" / "gelu.cuh"

# ------------------------------------------------------------------ the chosen parameters
HALF_LOG2E = f32(math.log2(math.e)) / f32(2)  # the exponent is -HALF_LOG2E a^2, this float constant
CLAMP = f32(6.5)                              # A
DEGREE = 6
TF32_DEGREE = 4  # gelu_tf32
VARIANTS = {
    # name: (P, C, compensated, k: the rounding budget the fit leaves, in 2^-23 relative)
    "GELU_FAST": (f32(1.4), f32(4.0), False, 3.0),
    # a compensated variant, ("GELU_FAST_SAFE": (f32(1.44), f32(4.0), True, 2.5)), fits with more margin
    # (0.44 of the bound emulated) for 2 FFMA more; the H200 measurement of GELU_FAST (0.68 of the
    # bound over all 2^32 inputs) made it unnecessary, so the kernels do not carry it
}

# ------------------------------------------------------------------ fp32 emulation


def fma32(a, b, c):
    """correctly rounded float32 fma of float32 arrays"""
    a = np.asarray(a, f32).astype(f64)
    b = np.asarray(b, f32).astype(f64)
    c = np.asarray(c, f32).astype(f64)
    p = a * b  # exact: 24 + 24 bits
    with np.errstate(invalid="ignore", over="ignore"):
        s = p + c
        bb = s - p
        e = (p - (s - bb)) + (c - bb)  # s + e == p + c exactly (TwoSum)
        r = s.astype(f32)
        toward = np.where(s > r.astype(f64), f32(np.inf), f32(-np.inf)).astype(f32)
        nb = np.nextafter(r, toward)
        mid = (r.astype(f64) + nb.astype(f64)) * 0.5
        fix = (s == mid) & (s != r.astype(f64)) & (e != 0) & np.isfinite(s)
    if fix.any():  # s is halfway between two floats: the exact value decides
        r = np.where(fix, np.where(e > 0, np.maximum(r, nb), np.minimum(r, nb)), r)
    return r


def ulp32(x):
    x = np.abs(x)
    e = np.floor(np.log2(np.maximum(x, 2.0 ** -149)))
    return np.exp2(np.maximum(e, -126) - 23)


def farthest_within(exact, bound, sign):
    """the float farthest from `exact` (double) in direction `sign` with |f - exact| <= bound"""
    with np.errstate(over="ignore", invalid="ignore"):
        target = exact + sign * bound
        f = target.astype(f32)
        over = (f.astype(f64) > target) if sign > 0 else (f.astype(f64) < target)
        return np.where(over, np.nextafter(f, f32(-np.inf) if sign > 0 else f32(np.inf)), f).astype(f32)


def mufu(exact, model):
    """model None: correctly rounded; ('ulp'|'rel', amount, sign): farthest within the bound;
    ('cr', k, sign): correctly rounded, then k ulps in direction sign"""
    if model is None:
        return exact.astype(f32)
    kind, amount, sign = model
    if kind == "cr":
        r = exact.astype(f32)
        for _ in range(amount):
            r = np.nextafter(r, f32(np.inf) if sign > 0 else f32(-np.inf))
        return r
    bound = amount * ulp32(exact) if kind == "ulp" else amount * np.abs(exact)
    return farthest_within(exact, bound, sign)


def ftz(x):
    return np.where(np.abs(x) < f32(2.0 ** -126), np.copysign(f32(0), x), x).astype(f32)


def ex2_approx_ftz(x, model=None):
    x = ftz(np.asarray(x, f32))
    with np.errstate(over="ignore"):
        exact = np.exp2(x.astype(f64))
    ok = np.isfinite(exact) & (exact > 0)
    r = np.where(ok, mufu(np.where(ok, exact, 1.0), model), exact.astype(f32))
    return ftz(r)


def rcp_approx_ftz(x, model=None):
    x = ftz(np.asarray(x, f32))
    with np.errstate(divide="ignore"):
        exact = 1.0 / x.astype(f64)
    ok = np.isfinite(exact) & (exact != 0)
    r = np.where(ok, mufu(np.where(ok, exact, 1.0), model), exact.astype(f32))
    return ftz(r)


def gelu_kernel(v, P, C, coef, compensated, ex2_model=None, rcp_model=None):
    """gelu_fast (or, compensated, the variant the fit can also derive) exactly as kernels/fused/gelu.cuh evaluates it"""
    v = np.asarray(v, f32)
    a = np.minimum(np.abs(v), CLAMP)  # fminf: NaN -> CLAMP
    a = np.where(np.isnan(v), CLAMP, a)
    t = a * rcp_approx_ftz(fma32(a, P, C), rcp_model)
    L = np.full_like(t, coef[-1])
    for ck in coef[-2::-1]:
        L = fma32(L, t, ck)
    s = a * a
    if compensated:
        L = fma32(fma32(a, a, -s), -HALF_LOG2E, L)
    E = ex2_approx_ftz(fma32(s, -HALF_LOG2E, L), ex2_model)
    w = f32(0.5) * v
    with np.errstate(invalid="ignore"):
        return fma32(-t, E, w + np.abs(w))


# ------------------------------------------------------------------ reference and criterion


def gelu_reference(v):
    x = np.asarray(v, f32).astype(f64)
    with np.errstate(invalid="ignore"):
        return 0.5 * x * erfc(-x * math.sqrt(0.5))


def criterion(v, got):
    """(error / max(8 ulp, 2^-26), error in ulp of the reference)"""
    ref = gelu_reference(v)
    err = np.abs(got.astype(f64) - ref)
    ulp = ulp32(ref)
    return err / np.maximum(8 * ulp, 2.0 ** -26), err / ulp


def q_exact(a):
    return a * 0.5 * erfc(a / math.sqrt(2))


# ------------------------------------------------------------------ the fit


def lp_minimax(B, g):
    """min e subject to |B c - g| <= e (rows already weighted)"""
    m, k = B.shape
    A_ub = np.vstack([np.hstack([B, -np.ones((m, 1))]), np.hstack([-B, -np.ones((m, 1))])])
    res = linprog(np.r_[np.zeros(k), 1.0], A_ub=A_ub, b_ub=np.r_[g, -g], bounds=[(None, None)] * k + [(0, None)],
                  method="highs")
    if res.status != 0:
        raise RuntimeError("linprog failed: " + res.message)
    return res.x[:k], res.x[-1]


def fit_top(x, F, W, fixed, hi, degree=DEGREE):
    """fit the coefficients j0..degree (j0 = len(fixed); the lower ones are fixed); monomials in x"""
    j0 = len(fixed)
    g = F - sum(fixed[j] * x ** j for j in range(j0))
    n = degree - j0
    basis = np.polynomial.chebyshev.chebvander(2 * x / hi - 1, n) * ((x / hi) ** j0)[:, None]
    c, e = lp_minimax(basis * W[:, None], g * W)
    poly = np.polynomial.Polynomial(np.polynomial.chebyshev.cheb2poly(c))(np.polynomial.Polynomial([-1, 2 / hi]))
    coef = list(fixed) + [0.0] * (n + 1)
    for i, ci in enumerate(poly.coef):
        coef[j0 + i] += ci / hi ** j0
    return coef, e


def weighted_error(x, F, W, coef):
    p = np.zeros_like(x)
    for c in coef[::-1]:
        p = p * x + float(c)
    return np.abs(p - F) * W


def fit_variant(P, C, k, beam=3):
    """(float32 coefficients L0..L6, weighted error with real coefficients, with the float ones)"""
    hi = float(CLAMP) / (float(C) + float(P) * float(CLAMP))
    j = np.arange(4000)
    x = np.sort(np.r_[hi / 2 + hi / 2 * np.cos(np.pi * (j + 0.5) / j.size), np.linspace(0, hi, j.size)])
    a = float(C) * x / (1 - float(P) * x)  # t = a / (C + P a)
    q = q_exact(a)
    with np.errstate(divide="ignore"):
        F = np.where(x > 0, np.log2(q / np.maximum(x, 1e-300)) + float(HALF_LOG2E) * a * a, math.log2(0.5 * float(C)))
    bound = np.maximum(q * 2.0 ** -21, 2.0 ** -26)
    allowed = np.maximum(bound - k * q * 2.0 ** -23, 0.1 * bound)
    W = np.where(x > 1e-12, math.log(2) * q / np.minimum(np.maximum(allowed, 1e-300), 0.5 * np.maximum(q, 1e-300)),
                 2 * math.log(2))  # the limit at a = 0, where the bound is absolute
    start, e_real = fit_top(x, F, W, [], hi)
    coef, best_e = round_to_float(start, e_real, DEGREE, lambda fixed: fit_top(x, F, W, fixed, hi)[0],
                                  lambda c: weighted_error(x, F, W, c).max(), beam)
    return coef, e_real, best_e


def round_to_float(start, e_start, degree, refit, error, beam=3):
    """float32 coefficients near the real ones `start`: coefficient j rounded to float (both neighbours),
    refit(fixed) fitting the higher ones, the `beam` best by error(coef) kept, j = 0..degree; then polished
    by +-1, +-2 ulp steps while error falls. Returns (coefficients, their error)."""
    states = [(e_start, start)]
    for j in range(degree + 1):
        new = []
        for _, coef in states:
            r = f32(coef[j])
            for cand in {float(r), float(np.nextafter(r, f32(np.inf if r < coef[j] else -np.inf)))}:
                fixed = [float(c) for c in coef[:j]] + [cand]
                try:
                    sol = refit(fixed) if j < degree else fixed
                except RuntimeError:
                    continue
                new.append((error(sol), sol))
        states = sorted(new, key=lambda s: s[0])[:beam]
    best_e, coef = states[0]
    coef = np.array(coef, dtype=f32)
    improved = True
    while improved:
        improved = False
        for j in range(degree + 1):
            for steps in (-2, -1, 1, 2):
                trial = coef.copy()
                for _ in range(abs(steps)):
                    trial[j] = np.nextafter(trial[j], f32(np.inf) if steps > 0 else f32(-np.inf))
                e = error(trial)
                if e < best_e:
                    best_e, coef, improved = e, trial, True
    return coef, best_e


def cuda_literal(x):
    """the exact C hex-float literal of a float32 value, e.g. -0x1.2f3ep-3f"""
    mantissa, exponent = float(f32(x)).hex().split("p")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return "%sp%sf" % (mantissa, exponent)


def cmd_fit(_args):
    print("/* generated by scripts/fit_gelu.py fit */")
    print("#define GELU_HALF_LOG2E %s /* %.9g */" % (cuda_literal(HALF_LOG2E), float(HALF_LOG2E)))
    print("#define GELU_CLAMP %s /* %.9g */" % (cuda_literal(CLAMP), float(CLAMP)))
    for name, (P, C, _, k) in VARIANTS.items():
        coef, e_real, e_float = fit_variant(P, C, k)
        print("/* %s: weighted minimax error %.4f of the allowance with real coefficients, %.4f with float */"
              % (name, e_real, e_float))
        print("#define %s_P %s /* %.9g */" % (name, cuda_literal(P), float(P)))
        print("#define %s_C %s /* %.9g */" % (name, cuda_literal(C), float(C)))
        for j, c in enumerate(coef):
            print("#define %s_L%d %s /* %.9g */" % (name, j, cuda_literal(c), float(c)))
    return 0


def cmd_fit_tf32(_args):
    """gelu_tf32: gelu_fast's form and P, C with a degree-4 L, fitted for the smallest absolute error of the
    GELU, ln2 q |dL| (the TF32 kernels' inputs carry 2^-11 relative rounding: a relative bound near 0 buys
    nothing there). The float coefficients are the rounded real ones; the error printed is with them."""
    P, C, _, _ = VARIANTS["GELU_FAST"]
    a = np.linspace(1e-6, float(CLAMP), 20000)
    t = a / (float(C) + float(P) * a)
    q = q_exact(a)
    L = np.log2(q / t) + float(HALF_LOG2E) * a * a
    basis = np.vstack([t ** j for j in range(TF32_DEGREE + 1)]).T
    W = math.log(2) * q
    coef, e_real = lp_minimax(basis * W[:, None], L * W)
    coef = coef.astype(f32)
    e_float = np.max(q * np.abs(2.0 ** (basis @ coef.astype(f64) - L) - 1))
    print("/* generated by scripts/fit_gelu.py fit-tf32 */")
    print("/* GELU_TF32: max |GELU error| %.3g with real coefficients, %.3g with float (exact arithmetic) */"
          % (e_real, e_float))
    for j, c in enumerate(coef):
        print("#define GELU_TF32_L%d %s /* %.9g */" % (j, cuda_literal(c), float(c)))
    return 0


# ------------------------------------------------------------------ gelu_x2 (tf32-v5), gelu_x2_fine (3xtf32-v5)
# The exponential form. With b = min(|v|, A), 2 q(b) = b 2^N(b) exactly, N(b) = log2(erfc(b / sqrt 2)):
# N is smooth (the log of a Mills ratio plus the Gaussian's parabola), and a polynomial in b fits it,
# weighted by q. The kernel computes twice the GELU:
#     b = min(|v|, A)           FMNMX
#     N = Horner in b           degree FFMA
#     E = ex2(N)                MUFU.EX2
#     G = fma(-b, E, v + |v|)   FADD, FFMA      (= 2 GELU(v); the kernel's sum takes G * 0.5, exact)
# one MUFU, no reciprocal, no v^2. Past the clamp, q(v) is replaced by q(A).
#   gelu_x2       degree 5, A = 5.5: |error| <= 2^-20 (q(A) = 1e-7), for the TF32 kernels
#   gelu_x2_fine  degree 7, A = 6.5: the fit's own error is 2e-8 (q(A) = 2.6e-10), so what is left is the
#                 rounding of the fp32 evaluation, which does not lean one way; for 3xTF32, whose means
#                 must stay within 1e-6 of fp64 and which gelu_x2's fit error (up to 4e-7, of one sign
#                 over wide ranges of v) would bias
X2_VARIANTS = {  # name: (degree, A, bound on |G / 2 - GELU(v)|, absolute)
    "GELU_X2": (5, f32(5.5), 2.0 ** -20),
    "GELU_X2_FINE": (7, f32(6.5), 2.0 ** -21),
}


def gelu_x2_kernel(v, coef, clamp, ex2_model=None):
    """kernels/fused/gelu.cuh gelu_x2 (and gelu_x2_fine), operation by operation in float32: 2 GELU(v)"""
    v = np.asarray(v, f32)
    b = np.where(np.isnan(v), clamp, np.minimum(np.abs(v), clamp)).astype(f32)
    N = np.full_like(b, coef[-1])
    for ck in coef[-2::-1]:
        N = fma32(N, b, ck)
    with np.errstate(invalid="ignore", over="ignore"):
        return fma32(-b, ex2_approx_ftz(N, ex2_model), (v + np.abs(v)).astype(f32))


def x2_error(v, coef, clamp, ex2_model=None):
    """|G(v) / 2 - GELU(v)| in double, finite v"""
    return np.abs(gelu_x2_kernel(v, coef, clamp, ex2_model).astype(f64) / 2 - gelu_reference(v))


def fit_x2(name):
    """N as a polynomial in b, weighted minimax of the GELU's absolute error ln2 q |dN| (linear programming
    on a dense grid, Chebyshev basis); the coefficients are then rounded to float one at a time from the
    lowest (both neighbours, refitting the higher ones, a beam of 3) and polished by +-1, +-2 ulp steps,
    all on the error of the emulated fp32 evaluation."""
    degree, clamp, bound = X2_VARIANTS[name]
    hi = float(clamp)
    b = np.sort(np.r_[np.linspace(0, hi, 6000), hi / 2 + hi / 2 * np.cos(np.pi * (np.arange(2000) + 0.5) / 2000)])
    F = np.log2(erfc(b / math.sqrt(2)))
    W = np.maximum(math.log(2) * q_exact(b), 1e-12)
    start, e_real = fit_top(b, F, W, [], hi, degree)
    v_check = np.r_[np.linspace(-hi * 1.3, hi * 1.3, 200001), np.linspace(-1, 1, 20001)].astype(f32)
    coef, best_e = round_to_float(start, e_real, degree, lambda fixed: fit_top(b, F, W, fixed, hi, degree)[0],
                                  lambda c: float(x2_error(v_check, np.array(c, dtype=f32), clamp).max()))
    stress = max(float(x2_error(v_check, coef, clamp, (k, a, sgn)).max()) for k, a in (("ulp", 2), ("rel", 2 ** -22.5))
                 for sgn in (1, -1))
    flag = "fit-x2" if name == "GELU_X2" else "fit-x2-fine"
    print("/* generated by scripts/fit_gelu.py %s */" % flag)
    print("/* %s: max |GELU error| %.3g with real coefficients; emulated in fp32 %.3g (%.3f of 2^%d)\n"
          " * with a correctly rounded ex2, %.3g (%.3f) with ex2 2 ulp off; q(A) = %.3g */"
          % (name, e_real, best_e, best_e / bound, round(math.log2(bound)), stress, stress / bound, q_exact(hi)))
    print("#define %s_CLAMP %s /* %.9g */" % (name, cuda_literal(clamp), float(clamp)))
    for j, c in enumerate(coef):
        print("#define %s_N%d %s /* %.9g */" % (name, j, cuda_literal(c), float(c)))
    return 0


def cmd_fit_x2(_args):
    return fit_x2("GELU_X2")


def cmd_fit_x2_fine(_args):
    return fit_x2("GELU_X2_FINE")


# ------------------------------------------------------------------ the check


def read_header():
    text = HEADER.read_text()
    consts = {}
    for m in re.finditer(r"#define\s+(GELU_\w+)\s+\(?\s*(-?0x[0-9a-fA-F.]+p[-+]?\d+)f\s*\)?", text):
        consts[m.group(1)] = f32(float.fromhex(m.group(2)))
    need = ["GELU_HALF_LOG2E", "GELU_CLAMP"] + ["%s_%s" % (n, k) for n in VARIANTS
                                                for k in ["P", "C"] + ["L%d" % j for j in range(DEGREE + 1)]]
    missing = [k for k in need if k not in consts]
    if missing:
        sys.exit("fit_gelu.py: %s lacks %s" % (HEADER, ", ".join(missing)))
    if consts["GELU_HALF_LOG2E"] != HALF_LOG2E or consts["GELU_CLAMP"] != CLAMP:
        sys.exit("fit_gelu.py: GELU_HALF_LOG2E / GELU_CLAMP in %s differ from this script's" % HEADER)
    return consts


def header_variant(consts, name):
    coef = np.array([consts["%s_L%d" % (name, j)] for j in range(DEGREE + 1)], dtype=f32)
    return consts[name + "_P"], consts[name + "_C"], coef


def input_sets(full):
    def floats(lo, hi, stride):
        return np.arange(f32(lo).view(np.int32), f32(hi).view(np.int32), stride, dtype=np.int32).view(f32)

    tops = -floats(2.0 ** -8, 2.6, 1 if full else 7)
    ref = np.abs(gelu_reference(tops))
    mant = ref / np.exp2(np.floor(np.log2(ref)))
    tops = tops[(mant >= 1.7) & (ref >= 2.0 ** -6)]
    side = floats(2.0 ** -12, 6.5, 7 if full else 97)
    wide = np.arange(0, 2 ** 32, 65537, dtype=np.uint64).astype(np.uint32).view(f32)
    wide = wide[np.isfinite(wide)]
    return [("binade tops", tops), ("v < 0", -side), ("v > 0", side), ("all magnitudes", wide)]


MODELS = [
    ("ideal (correctly rounded MUFU)", [(None, None)]),
    ("ex2 within 1 ulp, rcp 1 ulp", [(("ulp", 1, s), ("ulp", 1, s)) for s in (1, -1)]),
    ("ex2 within 2^-22.5 rel, rcp 1 ulp", [(("rel", 2 ** -22.5, s), ("ulp", 1, s)) for s in (1, -1)]),
    ("ex2 within 2 ulp, rcp 1 ulp", [(("ulp", 2, s), ("ulp", 1, s)) for s in (1, -1)]),
    ("cr+-2 ulp ex2, cr+-1 ulp rcp", [(("cr", 2, s), ("cr", 1, s)) for s in (1, -1)]),
]


def cmd_check(args):
    consts = read_header()
    sets = input_sets(args.full)
    print("inputs: " + ", ".join("%s %d" % (n, len(v)) for n, v in sets))
    worst_all = 0.0
    for name, (_, _, compensated, _) in VARIANTS.items():
        P, C, coef = header_variant(consts, name)
        print("\n%s (%s, %d instructions)" % (name.lower(), "compensated" if compensated else "plain",
                                              18 if compensated else 16))
        for model_name, combos in MODELS:
            worst = (-1.0, 0.0, 0.0)
            for _, v in sets:
                for start in range(0, len(v), 1 << 21):
                    chunk = v[start:start + (1 << 21)]
                    for ex2_model, rcp_model in combos:
                        got = gelu_kernel(chunk, P, C, coef, compensated, ex2_model, rcp_model)
                        ratio, ulps = criterion(chunk, got)
                        i = int(np.nanargmax(ratio))
                        if ratio[i] > worst[0]:
                            worst = (float(ratio[i]), float(ulps[i]), float(chunk[i]))
            print("  %-36s worst %.3f of the bound (%.2f ulp) at v = %.9g" % (model_name, *worst))
            worst_all = max(worst_all, worst[0])
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0 ** -149, -(2.0 ** -149), 3.4028235e38, -3.4028235e38],
                        dtype=f32)
    print("\nspecial values (ideal MUFU):")
    special_ok = True
    for name, (_, _, compensated, _) in VARIANTS.items():
        P, C, coef = header_variant(consts, name)
        got = gelu_kernel(specials, P, C, coef, compensated)
        ok = np.isnan(got[[3, 4]]).all() and got[2] == np.inf and (criterion(specials[[0, 1, 5, 6, 7, 8]],
                                                                             got[[0, 1, 5, 6, 7, 8]])[0] <= 1).all()
        special_ok &= bool(ok)
        print("  %-16s " % name.lower() + "  ".join("%g -> %g" % (float(v), float(g)) for v, g in zip(specials, got))
              + ("" if ok else "  WRONG"))
    passed = worst_all <= 1 and special_ok
    print("\nworst over everything: %.3f of the bound (%s)" % (worst_all, "PASS" if passed else "FAIL"))
    return 0 if passed else 1


def main():
    ap = argparse.ArgumentParser(description="derive and verify the constants of kernels/fused/gelu.cuh")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("fit", help="derive the constants, print them as CUDA #defines")
    sub.add_parser("fit-tf32", help="derive gelu_tf32's constants (degree 4, absolute error)")
    sub.add_parser("fit-x2", help="derive gelu_x2's constants (exponential form, degree 5, absolute error)")
    sub.add_parser("fit-x2-fine", help="derive gelu_x2_fine's constants (exponential form, degree 7)")
    chk = sub.add_parser("check", help="emulate kernels/fused/gelu.cuh in fp32 and print the worst errors")
    chk.add_argument("--full", action="store_true", help="every float at the binade tops, every 7th elsewhere (~15 min)")
    args = ap.parse_args()
    return {"fit": cmd_fit, "fit-tf32": cmd_fit_tf32, "fit-x2": cmd_fit_x2, "fit-x2-fine": cmd_fit_x2_fine,
            "check": cmd_check}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
