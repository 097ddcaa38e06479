#!/usr/bin/env python3
"""make_torch_case.py - the PyTorch reference case of the tests: a small problem whose answer PyTorch gives.

Writes into DIR (tests/data/torch_case):
    x.npy        (2, 3, 7, 6) float32   inputs, uniform in [-2, 2)
    w.npy        (5, 3, 3, 3) float32   weights, uniform in [-0.5, 0.5): every tap its own value
    b.npy        (5,)         float32   bias, uniform in [-0.5, 0.5)
    y_valid.npy  (2, 5)       float64   F.conv2d(padding=0) -> F.gelu (exact erf) -> mean over (H, W)
    y_same.npy   (2, 5)       float64   the same with padding=1
    README.md    provenance: torch and Python versions, the command, the date, the seed, SHA-256 of each file

The inputs come from Python's own random.Random(SEED) rounded to float32, so they do not depend on torch;
y is computed by torch in float64 on the CPU from exactly those float32 values, one thread, deterministic
algorithms, so the same torch gives the same bytes every run. The .npy files are written here (numpy's
format 1.0 header, little-endian), numpy is not needed.

tests/cpu/cpu_torch_case.c checks the CPU reference against y, tests/gpu/gpu_torch_case.c every
precision's default kernel and the GPU reference. Both fail while the files are missing.

Usage: python3 scripts/make_torch_case.py tests/data/torch_case
"""
import datetime
import hashlib
import os
import platform
import random
import struct
import sys

import torch
import torch.nn.functional as F

N, CIN, COUT, H, W = 2, 3, 5, 7, 6
SEED = 22


def float32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def draw(rng, count, lo, hi):
    return [float32(rng.uniform(lo, hi)) for _ in range(count)]


def npy_bytes(descr, shape, payload):
    """A .npy file (format 1.0) as numpy.save writes it: magic, version, header padded to 64 bytes."""
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + payload


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: python3 scripts/make_torch_case.py DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)

    rng = random.Random(SEED)
    x = draw(rng, N * CIN * H * W, -2.0, 2.0)
    w = draw(rng, COUT * CIN * 9, -0.5, 0.5)
    b = draw(rng, COUT, -0.5, 0.5)
    if len(set(w)) != len(w):
        sys.exit("make_torch_case: two weights drew the same value; a flipped filter could hide")

    xt = torch.tensor(x, dtype=torch.float64).reshape(N, CIN, H, W)
    wt = torch.tensor(w, dtype=torch.float64).reshape(COUT, CIN, 3, 3)
    bt = torch.tensor(b, dtype=torch.float64)
    files = {
        "x.npy": npy_bytes("<f4", (N, CIN, H, W), struct.pack("<%df" % len(x), *x)),
        "w.npy": npy_bytes("<f4", (COUT, CIN, 3, 3), struct.pack("<%df" % len(w), *w)),
        "b.npy": npy_bytes("<f4", (COUT,), struct.pack("<%df" % len(b), *b)),
    }
    for name, padding in (("y_valid.npy", 0), ("y_same.npy", 1)):
        y = F.gelu(F.conv2d(xt, wt, bt, padding=padding), approximate="none").mean(dim=(2, 3))
        values = y.flatten().tolist()
        files[name] = npy_bytes("<f8", (N, COUT), struct.pack("<%dd" % len(values), *values))
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# torch_case - a small problem whose answer PyTorch computed",
        "",
        "Written by `python3 scripts/make_torch_case.py %s` on %s with torch %s (Python %s, %s)."
        % (out, now, torch.__version__, platform.python_version(), platform.machine()),
        "",
        "N=%d, Cin=%d, Cout=%d, H=%d, W=%d. x, w and b are float32 values drawn by Python's "
        "`random.Random(%d)` (x uniform in [-2, 2), w and b in [-0.5, 0.5); every weight distinct, so a "
        "flipped or transposed filter gives other outputs). y_valid and y_same are "
        "`F.gelu(F.conv2d(x, w, b, padding=p), approximate='none').mean(dim=(2, 3))` in float64 on the CPU "
        "(one thread, deterministic algorithms) from those float32 values, p = 0 and 1." % (N, CIN, COUT, H, W, SEED),
        "",
        "Checked by tests/cpu/cpu_torch_case.c (the CPU reference) and tests/gpu/gpu_torch_case.c (every "
        "precision's default kernel and the GPU reference). Rerunning the command with the same torch rewrites "
        "the same data bytes; only this README's date changes.",
        "",
        "| file | SHA-256 |",
        "| --- | --- |",
    ]
    lines += ["| %s | %s |" % (name, hashlib.sha256(data).hexdigest()) for name, data in sorted(files.items())]
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("make_torch_case: wrote %s (%s)" % (out, ", ".join(sorted(files))))


if __name__ == "__main__":
    main()
