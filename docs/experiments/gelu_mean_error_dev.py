#!/usr/bin/env python3
"""gelu_mean_error_dev.py - the GELU's own share of a fused output's relative L2 error, emulated on the CPU: for
each (Cin, input distribution, pixels an image), 4 images x 64 channels of pre-activations drawn as the bench's
problems make them (x uniform with unit variance, or in [0, 1]; weights and bias uniform +-1/sqrt(9 Cin), as
PyTorch's default init; the conv sum taken as normal with its mean and variance), each channel's mean of GELU
evaluated as gelu_fast and as gelu_x2_fine / 2 operation by operation in fp32 (scripts/fit_gelu.py's emulation),
against the GELU in double; rel L2 over the (image, channel) means with the check's floor (host/bench/check.c).
Needs numpy and scipy (fit_gelu.py imports it). Run from the repository root:
    python3 docs/experiments/gelu_mean_error_dev.py"""
import importlib.util
import math
from pathlib import Path

import numpy as np

spec = importlib.util.spec_from_file_location("fit_gelu", Path(__file__).resolve().parents[2] / "scripts" / "fit_gelu.py")
fit_gelu = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fit_gelu)
consts = fit_gelu.read_header()
P, C, coef = fit_gelu.header_variant(consts, "GELU_FAST")
fine = np.array([consts["GELU_X2_FINE_N%d" % j] for j in range(8)], dtype=np.float32)
rng = np.random.default_rng(1)
for cin, symmetric, pixels in [(8, True, 65536), (8, False, 65536), (64, True, 900), (512, True, 49)]:
    k = 1 / math.sqrt(cin * 9)
    mean_x, var_x = (0.0, 1.0) if symmetric else (0.5, 1 / 12)
    bias = rng.uniform(-k, k, 64)
    refs, err_fast, err_fine = [], [], []
    for _image in range(4):
        for c in range(64):
            w = rng.uniform(-k, k, 9 * cin)
            v = rng.normal(bias[c] + mean_x * w.sum(), math.sqrt(var_x * (w ** 2).sum()), pixels).astype(np.float32)
            ref = fit_gelu.gelu_reference(v).mean()
            refs.append(ref)
            err_fast.append(fit_gelu.gelu_kernel(v, P, C, coef, False).astype(np.float64).mean() - ref)
            err_fine.append(fit_gelu.gelu_x2_kernel(v, fine, np.float32(6.5)).astype(np.float64).mean() / 2 - ref)
    refs, err_fast, err_fine = map(np.array, (refs, err_fast, err_fine))
    norm = max((refs ** 2).sum(), 0.05 ** 2 * len(refs))
    print(f"Cin {cin}, x {'symmetric' if symmetric else 'in [0, 1]'}, {pixels} px: the GELU's rel L2 of the means: "
          f"gelu_fast {math.sqrt((err_fast ** 2).sum() / norm):.2g}, gelu_x2_fine {math.sqrt((err_fine ** 2).sum() / norm):.2g}")
