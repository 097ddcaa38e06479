#!/usr/bin/env python3
"""winograd_error.py - how the error of a Winograd GEMM over the input channels grows with Cin, in fp32
arithmetic emulated on the CPU (numpy): F(2x2, 3x3) as fp32-v11 computes it (additions-only transforms, U
without G's halves, M divided by their powers of two) and F(4x4, 3x3) with fp32-v9's transforms (B^T d B in
fp32 with its FMAs along y then x, U = G g G^T in double rounded once, A^T M A in fp32 along x then y), and
F(4x4) again as fp32-v12 computes it (winograd_f4x4.cuh): U in fp32 from G's rows scaled to integers (x 4, -6,
-6, 24, 24, 1, scaled_line's additions and FMAs in its order, along y then x), M multiplied once by the fp32
reciprocal of the scales' product; each M element one fp32 FMA chain over Cin, input channel by input channel
(fmaf: the product exact in double, one rounding). Two variants of fp32-v12's M accumulation, for issue 40's
question (what would hold F(4x4) to 1e-6 at large Cin): --chunk C, each M element C input channels to a fresh fp32
FMA chain, the chains added into a running fp32 sum (as the tensor-core kernels add their chunks' chains); and the
M sums in fp64 (what the transforms' own roundings leave: no accumulation scheme does better).

For each Cin, one problem (padding same, x uniform in [-sqrt 3, sqrt 3] or [0, 1], w and b uniform in
+-1/sqrt(9 Cin), so the convolution's outputs are of order 1) and two relative L2 errors against fp64:
the convolution's outputs, and y = mean over (h, w) of GELU(conv + b) (the GELU and the mean in fp64, so
what is left is the Winograd GEMM's), y measured as host/bench/check.h does,
||y - ref|| / max(||ref||, 0.05 sqrt(count)).

    python3 scripts/winograd_error.py [--cin 8 16 ... 1024] [--n 2] [--cout 16] [--hw 28] [--dist sym|01] [--seed 1]
                                      [--chunk 32]

It needs numpy only; docs/perf-log.md ("Warp-specialised blocks", "fp32-v12") has runs.
"""
import argparse
from math import erf, sqrt

import numpy as np

F32, F64 = np.float32, np.float64

# F(2x2, 3x3): B^T, G without its halves (rows 1 and 2 doubled), A^T; F(4x4, 3x3): G, as fp32-v9
G2_SCALED = np.array([[1, 0, 0], [1, 1, 1], [1, -1, 1], [0, 0, 1]], F64)
G2_SCALE = np.array([1.0, 2.0, 2.0, 1.0])
BT2 = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], F64)
AT2 = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], F64)
G4 = np.array([[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6],
               [1 / 24, 1 / 12, 1 / 6], [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]])
G4_SCALE = np.array([4.0, -6.0, -6.0, 24.0, 24.0, 1.0])  # WinogradF4x4::filter_scale


def fma(a, b, c):
    """fmaf on fp32 arrays"""
    return (np.asarray(a, F64) * np.asarray(b, F64) + np.asarray(c, F64)).astype(F32)


def input_1d_f4(d):
    """fp32-v9's input_transform_1d (B^T d) along the last axis"""
    t1, t2 = fma(-4.0, d[..., 2], d[..., 4]), fma(-4.0, d[..., 1], d[..., 3])
    t3, t4 = d[..., 4] - d[..., 2], d[..., 3] - d[..., 1]
    return np.stack([fma(4.0, d[..., 0], fma(-5.0, d[..., 2], d[..., 4])), t1 + t2, t1 - t2,
                     fma(2.0, t4, t3), fma(-2.0, t4, t3), fma(4.0, d[..., 1], fma(-5.0, d[..., 3], d[..., 5]))],
                    -1).astype(F32)


def output_1d_f4(m):
    """fp32-v9's output_transform_1d (A^T m) along the last axis"""
    s1, d1, s2, d2 = m[..., 1] + m[..., 2], m[..., 1] - m[..., 2], m[..., 3] + m[..., 4], m[..., 3] - m[..., 4]
    return np.stack([m[..., 0] + s1 + s2, fma(2.0, d2, d1), fma(4.0, s2, s1), fma(8.0, d2, d1) + m[..., 5]],
                    -1).astype(F32)


def scaled_line_f4(g):
    """fp32-v12's WinogradF4x4::scaled_line along the last axis (three values -> six, G's rows scaled to integers)"""
    g0, g1, g2 = g[..., 0], g[..., 1], g[..., 2]
    outer, wide = (g0 + g2).astype(F32), fma(4.0, g2, g0)
    return np.stack([g0, (outer + g1).astype(F32), (outer - g1).astype(F32), fma(2.0, g1, wide),
                     fma(-2.0, g1, wide), g2], -1).astype(F32)


def transform_1d(mat, v):
    """mat v along the last axis, each output one fp32 sum of exact +-1 terms in order"""
    out = []
    for row in mat:
        acc = np.zeros(v.shape[:-1], F32)
        for j, coef in enumerate(row):
            if coef:
                acc = (acc + F32(coef) * v[..., j]).astype(F32)
        out.append(acc)
    return np.stack(out, -1)


def winograd_conv(x, w, m, scaled_filters=False, chunk=0, exact_sum=False):
    """The fp32 convolution (padding same) by Winograd F(m x m, 3x3), m = 2 or 4; scaled_filters (m = 4): as
    fp32-v12, U in fp32 from G's rows scaled to integers; chunk > 0: M's FMA chains chunk input channels long, added
    into a running fp32 sum; exact_sum: M's sums over the input channels in fp64, rounded once"""
    n, c, h, wd = x.shape
    k, alpha = w.shape[0], m + 2
    th, tw = -(-h // m), -(-wd // m)
    xp = np.zeros((n, c, th * m + 2, tw * m + 2), F32)
    xp[:, :, 1:h + 1, 1:wd + 1] = x
    d = np.stack([np.stack([xp[:, :, i * m:i * m + alpha, j * m:j * m + alpha] for j in range(tw)], 2)
                  for i in range(th)], 2)  # [n][c][tile row][tile column][alpha][alpha]
    if m == 4:
        v = input_1d_f4(np.swapaxes(input_1d_f4(np.swapaxes(d, -1, -2)), -1, -2))
        if scaled_filters:  # along y (w's axis -2), then x
            u = scaled_line_f4(np.swapaxes(scaled_line_f4(np.swapaxes(w, -1, -2)), -1, -2))
            scale = np.outer(G4_SCALE, G4_SCALE)
        else:
            u = np.einsum('ra,kcab,sb->kcrs', G4, w.astype(F64), G4).astype(F32)
            scale = np.ones((alpha, alpha), F32)
    else:
        v = transform_1d(BT2, np.swapaxes(transform_1d(BT2, np.swapaxes(d, -1, -2)), -1, -2))
        u = np.einsum('ra,kcab,sb->kcrs', G2_SCALED, w.astype(F64), G2_SCALED).astype(F32)  # exact
        scale = np.outer(G2_SCALE, G2_SCALE).astype(F32)
    acc = np.zeros((n, k, th, tw, alpha, alpha), F32)
    if exact_sum:
        acc = np.einsum('kcrs,ncijrs->nkijrs', u.astype(F64), v.astype(F64)).astype(F32)
    else:  # FMA chains a (tile, channel, element), input channel by input channel; chunked: added into acc
        step = chunk if chunk > 0 else c
        for c0 in range(0, c, step):
            part = np.zeros_like(acc)
            for ci in range(c0, min(c, c0 + step)):
                part = fma(u[None, :, ci, None, None], v[:, ci, None], part)
            acc = (acc + part).astype(F32) if chunk > 0 else part
    if m == 4 and scaled_filters:  # fp32-v12: times the fp32 reciprocal of the scales' product (inverse_scale)
        acc = (acc.astype(F64) * (1.0 / scale).astype(F32)).astype(F32)
    else:  # F(2x2): powers of two, exact
        acc = (acc / scale).astype(F32)
    if m == 4:  # output_tile_transform: along x, then y
        y = np.swapaxes(output_1d_f4(np.swapaxes(output_1d_f4(acc), -1, -2)), -1, -2)
    else:
        y = transform_1d(AT2, np.swapaxes(transform_1d(AT2, np.swapaxes(acc, -1, -2)), -1, -2))
    return y.transpose(0, 1, 2, 4, 3, 5).reshape(n, k, th * m, tw * m)[:, :, :h, :wd]


def reference_conv(x, w):
    """fp64 direct convolution, padding same"""
    n, c, h, wd = x.shape
    xp = np.pad(x.astype(F64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, w.shape[0], h, wd))
    for ky in range(3):
        for kx in range(3):
            out += np.einsum('nchw,kc->nkhw', xp[:, :, ky:ky + h, kx:kx + wd], w[:, :, ky, kx].astype(F64))
    return out


GELU = np.vectorize(lambda v: 0.5 * v * (1.0 + erf(v / sqrt(2.0))))


def y_of(conv, b):
    return GELU(conv + b[None, :, None, None].astype(F64)).mean((2, 3))


def rel_l2(y, ref):
    return np.linalg.norm(y - ref) / max(np.linalg.norm(ref), 0.05 * sqrt(ref.size))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--cin', type=int, nargs='+', default=[8, 16, 32, 64, 128, 256, 512, 1024])
    ap.add_argument('--n', type=int, default=2)
    ap.add_argument('--cout', type=int, default=16)
    ap.add_argument('--hw', type=int, default=28)
    ap.add_argument('--dist', choices=['sym', '01'], default='sym')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--chunk', type=int, default=32, help="fp32-v12's variant: input channels an FMA chain")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    lo, hi = (-sqrt(3.0), sqrt(3.0)) if a.dist == 'sym' else (0.0, 1.0)
    print(f'N={a.n} Cout={a.cout} {a.hw}x{a.hw} padding same, x uniform in [{lo:.3g}, {hi:.3g}], seed {a.seed}')
    print(f'  Cin | conv rel L2 F(2x2)  F(4x4)  fp32-v12  chunk {a.chunk:<3d} M in fp64 | y rel L2 F(2x2)  F(4x4)  '
          f'fp32-v12  chunk {a.chunk:<3d} M in fp64')
    for c in a.cin:
        x = rng.uniform(lo, hi, (a.n, c, a.hw, a.hw)).astype(F32)
        bound = 1.0 / sqrt(9.0 * c)
        w = rng.uniform(-bound, bound, (a.cout, c, 3, 3)).astype(F32)
        b = rng.uniform(-bound, bound, a.cout).astype(F32)
        ref = reference_conv(x, w)
        y_ref = y_of(ref, b)
        conv_err, y_err = [], []
        for m, scaled, chunk, exact in ((2, False, 0, False), (4, False, 0, False), (4, True, 0, False),
                                        (4, True, a.chunk, False), (4, True, 0, True)):
            conv = winograd_conv(x, w, m, scaled, chunk, exact).astype(F64)
            conv_err.append(np.linalg.norm(conv - ref) / np.linalg.norm(ref))
            y_err.append(rel_l2(y_of(conv, b), y_ref))
        print(f'{c:5d} | {conv_err[0]:15.2e} {conv_err[1]:7.2e} {conv_err[2]:8.2e} {conv_err[3]:9.2e} '
              f'{conv_err[4]:10.2e} | {y_err[0]:12.2e} {y_err[1]:7.2e} {y_err[2]:8.2e} {y_err[3]:9.2e} '
              f'{y_err[4]:10.2e}', flush=True)


if __name__ == '__main__':
    main()
