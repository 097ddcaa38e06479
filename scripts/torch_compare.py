#!/usr/bin/env python3
"""torch_compare.py - cgp's fused kernel beside PyTorch, on the same GPU tensors, in one process.

    y = adaptive_avg_pool2d(gelu(conv2d(x, w, b, 3x3, stride 1, padding 0|1)), 1).squeeze()

PyTorch computes it as nn.Conv2d -> F.gelu (exact erf) -> adaptive_avg_pool2d(1) -> squeeze, in
eager mode (NCHW and channels_last) and through torch.compile (default and max-autotune), each
with TF32 off and on; cgp runs through the cgp module (python/cgp: libcgp.so through ctypes,
docs/python.md) on the same tensors and torch's current stream, at each precision (fp32, tf32,
3xtf32). Every row is checked against the same pipeline in float64 (relative L2 error) and timed
with CUDA events: median, min and max of --iters runs after --warmup runs. Prints a table and
writes a CSV; compare_shape() does one problem.

Usage (from the repository root, after `make`):
    PYTHONUNBUFFERED=1 python3 scripts/torch_compare.py [--csv results/h200/torch_compare.csv]
        [--n 128 --cin 8 --cout 64 --h 256 --w 256 --padding valid] [--iters 30 --warmup 5]
        [--no-compile] [--no-max-autotune] [--lib build/libcgp.so]
    python3 scripts/torch_compare.py --check-lib     # only the cgp module's declaration check (no torch)

Without PyTorch or without a GPU it says so and exits 0. Exit 1 when a cgp row misses its
tolerance (relative L2, as host/bench/check.h: 1e-6 for fp32 and 3xtf32; 1e-4 for tf32, 3e-3 when a
mean averages fewer than 4096 pixels) or the library check fails; exit 2 on bad arguments or a
missing library.
"""
import argparse
import collections
import csv
import datetime
import importlib.util
import os
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---- cgp -----------------------------------------------------------------------------------------
PADDING = {"valid": 0, "same": 1}
PRECISIONS = [("fp32", 0), ("tf32", 1), ("3xtf32", 2)]  # name, cgp_precision
Shape = collections.namedtuple("Shape", "n cin cout h w padding")  # padding: "valid" or "same"


def tolerance(precision, pixels):
    """Relative L2 tolerance of a cgp precision, as host/bench/check.h check_tolerance states it."""
    if precision == 1:  # tf32: 10 mantissa bits; averaging many pixels brings the mean's error down
        return 1e-4 if pixels >= 4096 else 3e-3
    return 1e-6


def load_cgp(lib):
    """The cgp module (installed, else this repository's python/), loading `lib` when given (else
    the module's own search); None, after saying why, when it cannot be imported."""
    if lib:
        os.environ["CGP_LIBRARY"] = lib
    if importlib.util.find_spec("cgp") is None:
        sys.path.insert(0, os.path.join(REPO, "python"))
    try:
        import cgp
    except ImportError as e:
        print("torch_compare: %s" % e, file=sys.stderr)
        return None
    return cgp


# ---- PyTorch side -------------------------------------------------------------------------------
def make_module(torch, cin, cout, padding, w, b):
    import torch.nn.functional as F

    class ConvGeluMean(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(cin, cout, 3, padding=padding)
            with torch.no_grad():
                self.conv.weight.copy_(w)
                self.conv.bias.copy_(b)

        def forward(self, x):
            return F.adaptive_avg_pool2d(F.gelu(self.conv(x)), 1).squeeze(-1).squeeze(-1)

    return ConvGeluMean().to(w.device)


class Tf32:
    """Context: TF32 allowed (or not) in cuDNN convolutions and cuBLAS matmuls; restored on exit."""

    def __init__(self, torch, allow):
        self.torch, self.allow = torch, allow

    def __enter__(self):
        be = self.torch.backends
        self.saved = (be.cudnn.allow_tf32, be.cuda.matmul.allow_tf32)
        be.cudnn.allow_tf32 = be.cuda.matmul.allow_tf32 = self.allow

    def __exit__(self, *exc):
        be = self.torch.backends
        be.cudnn.allow_tf32, be.cuda.matmul.allow_tf32 = self.saved


def time_ms(torch, fn, warmup, iters):
    """Per-run times (ms) from CUDA events on the current stream, after `warmup` untimed runs."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    for start, end in events:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return [start.elapsed_time(end) for start, end in events]


def rel_l2(torch, y, ref):
    y = y.double()
    return float(torch.linalg.vector_norm(y - ref) / torch.linalg.vector_norm(ref))


def reference_fp64(torch, x, w, b, padding, chunk=16):
    """The PyTorch pipeline in float64, a few images at a time to bound the intermediate."""
    import torch.nn.functional as F
    w64, b64 = w.double(), b.double()
    parts = []
    with torch.no_grad():
        for i in range(0, x.shape[0], chunk):
            v = F.conv2d(x[i:i + chunk].double(), w64, b64, padding=padding)
            parts.append(F.adaptive_avg_pool2d(F.gelu(v), 1).squeeze(-1).squeeze(-1))
    return torch.cat(parts)


def git_commit():
    """GIT_COMMIT as the Makefile takes it (a tree from git archive has no .git), else this checkout's HEAD"""
    if os.environ.get("GIT_COMMIT"):
        return os.environ["GIT_COMMIT"]
    try:
        top = subprocess.run(["git", "-C", REPO, "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                             check=True).stdout.strip()
        if os.path.realpath(top) != os.path.realpath(REPO):  # a tree without .git inside another checkout
            return "unknown"
        head = subprocess.run(["git", "-C", REPO, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", REPO, "diff", "--quiet", "HEAD", "--"]).returncode != 0
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def one_line(exc, limit=240):
    import cgp
    text = " ".join(str(exc).split())
    return (text if isinstance(exc, cgp.Error) else type(exc).__name__ + ": " + text)[:limit]


# ---- main ---------------------------------------------------------------------------------------
def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", help="path of libcgp.so (default: CGP_LIBRARY, else where the cgp module looks: next "
                                  "to the package, then build/)")
    ap.add_argument("--csv", default=os.path.join(REPO, "results", "h200", "torch_compare.csv"), help="CSV output")
    ap.add_argument("--n", type=int, default=128)
    ap.add_argument("--cin", type=int, default=8)
    ap.add_argument("--cout", type=int, default=64)
    ap.add_argument("--h", type=int, default=256)
    ap.add_argument("--w", type=int, default=256)
    ap.add_argument("--padding", choices=sorted(PADDING), default="valid")
    ap.add_argument("--iters", type=int, default=30, help="timed runs per row (at least 20)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed runs first (torch.compile compiles in the first)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-compile", action="store_true", help="skip every torch.compile row")
    ap.add_argument("--no-max-autotune", action="store_true", help="skip the torch.compile max-autotune rows")
    ap.add_argument("--check-lib", action="store_true", help="only check the cgp module's ctypes declarations "
                    "against include/cgp.h and the library")
    args = ap.parse_args(argv)
    if min(args.n, args.cin, args.cout, args.h, args.w) < 1:
        ap.error("every dimension must be >= 1")
    if args.iters < 20:
        ap.error("--iters must be at least 20, got %d" % args.iters)
    if args.warmup < 1:
        ap.error("--warmup must be at least 1 (the first run of a torch.compile row compiles), got %d" % args.warmup)
    return args


def main(argv):
    args = parse_args(argv)
    cgp = load_cgp(args.lib)
    if cgp is None:
        return 2
    if args.check_lib:
        problems = cgp.declaration_problems(os.path.join(REPO, "include", "cgp.h"))
        if problems:
            print("torch_compare: the cgp module's declarations do not match %s:\n  %s" % (
                cgp.library_path, "\n  ".join(problems)), file=sys.stderr)
            return 1
        print("libcgp: %s (ctypes declarations checked against it and include/cgp.h)" % cgp.library_path)
        return 0
    print("libcgp: %s" % cgp.library_path)

    shape = Shape(args.n, args.cin, args.cout, args.h, args.w, args.padding)
    if min(args.h, args.w) + 2 * PADDING[args.padding] < 3:
        print("torch_compare: H=%d W=%d give no output pixel with %s padding" % (args.h, args.w, args.padding),
              file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError as e:
        print("torch_compare: PyTorch is not installed (%s); nothing to compare" % e)
        return 0
    if not torch.cuda.is_available():
        print("torch_compare: PyTorch %s sees no CUDA GPU; nothing to compare" % torch.__version__)
        return 0
    torch.backends.cudnn.benchmark = True  # eager convolutions use the fastest algorithm cuDNN finds
    meta = {
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "cudnn": str(torch.backends.cudnn.version()),
        "cuda": str(torch.version.cuda),
        "commit": git_commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    print("device %(device)s, torch %(torch)s, cuDNN %(cudnn)s, CUDA %(cuda)s, commit %(commit)s" % meta)
    print("timing: %d warm-up + %d timed runs per row" % (args.warmup, args.iters))
    rows = compare_shape(shape, args)
    print_table(rows)
    write_csv(args.csv, meta, rows, args)
    print("\nwrote %s" % args.csv)
    if any(r["failed"] for r in rows):
        print("torch_compare: a cgp row is above its tolerance", file=sys.stderr)
        return 1
    return 0


def compare_shape(shape, args):
    """Every row for one problem (a Shape): cgp at each precision, PyTorch eager and torch.compile,
    each checked against the float64 pipeline and timed. Returns the rows: dicts with shape,
    padding, variant, ms (list, or None when unavailable), err, note, tolerance, stats (median, min,
    max), speedup (of cgp fp32 over the row) and failed (above its tolerance)."""
    import cgp
    import torch
    dev = torch.device("cuda")
    name = "%dx%dx%dx%dx%d" % shape[:5]
    print("problem N x Cin x Cout x H x W = %s, padding %s" % (name, shape.padding))

    gen = torch.Generator(device=dev).manual_seed(args.seed)
    scale = 2.0 / (shape.cin * 9) ** 0.5  # conv outputs of order 1
    x = torch.rand(shape.n, shape.cin, shape.h, shape.w, generator=gen, device=dev) * 2 - 1
    w = (torch.rand(shape.cout, shape.cin, 3, 3, generator=gen, device=dev) * 2 - 1) * scale
    b = torch.rand(shape.cout, generator=gen, device=dev) - 0.5
    pad = PADDING[shape.padding]
    ref = reference_fp64(torch, x, w, b, pad)

    rows = []

    def add(variant, fn_factory, tol=None):
        """fn_factory() -> (callable running one forward and returning y, note); errors -> unavailable."""
        start = time.time()
        try:
            fn, note = fn_factory()
            with torch.no_grad():
                y = fn().clone()  # first run (compiles a torch.compile row); the output is checked
                ms = time_ms(torch, fn, args.warmup, args.iters)
            row = {"variant": variant, "ms": ms, "err": rel_l2(torch, y, ref), "note": note, "tolerance": tol}
        except Exception as e:  # a row that cannot run is reported, not fatal
            row = {"variant": variant, "ms": None, "err": None, "note": "unavailable: " + one_line(e),
                   "tolerance": tol}
        row.update(shape=name, padding=shape.padding)
        rows.append(row)
        took = time.time() - start
        if row["ms"]:
            print("  %-34s %9.4f ms median  rel err %.2e  (%.0f s)" % (variant, statistics.median(row["ms"]),
                                                                       row["err"], took))
        else:
            print("  %-34s %s  (%.0f s)" % (variant, row["note"], took))
        torch.cuda.empty_cache()

    def eager(channels_last, tf32):
        def factory():
            with Tf32(torch, tf32):
                model = make_module(torch, shape.cin, shape.cout, pad, w, b)
                xin = x
                if channels_last:
                    model = model.to(memory_format=torch.channels_last)
                    xin = x.contiguous(memory_format=torch.channels_last)

            def fn():
                with Tf32(torch, tf32):
                    return model(xin)
            return fn, "eager, cudnn.benchmark"
        return factory

    def compiled(mode, tf32):
        def factory():
            import torch._dynamo
            torch._dynamo.reset()  # a fresh compilation for each row and TF32 setting
            model = make_module(torch, shape.cin, shape.cout, pad, w, b)
            cmodel = torch.compile(model, mode=mode)

            def fn():
                with Tf32(torch, tf32):
                    return cmodel(x)
            t0 = time.time()
            with torch.no_grad():
                fn()
            torch.cuda.synchronize()
            return fn, "torch.compile mode=%s, first call %.1f s" % (mode or "default", time.time() - t0)
        return factory

    def fused(precision):
        def factory():
            version, kernel = cgp.kernel_of(x, w, b, padding=shape.padding, precision=precision)
            return (lambda: cgp.conv_gelu_mean(x, w, b, padding=shape.padding, precision=precision),
                    "cgp %s (version %d)" % (kernel, version))
        return factory

    pixels = (shape.h - 2 + 2 * pad) * (shape.w - 2 + 2 * pad)
    for precision, number in PRECISIONS:
        add("cgp %s" % precision, fused(precision), tolerance(number, pixels))
    for tf32 in (False, True):
        tag = "tf32 on" if tf32 else "tf32 off"
        add("torch eager NCHW fp32, %s" % tag, eager(False, tf32))
        add("torch eager channels_last fp32, %s" % tag, eager(True, tf32))
    if not args.no_compile:
        modes = [None] + ([] if args.no_max_autotune else ["max-autotune"])
        for mode in modes:
            for tf32 in (False, True):
                add("torch.compile %s, %s" % (mode or "default", "tf32 on" if tf32 else "tf32 off"),
                    compiled(mode, tf32))
    cgp.clear_cache()

    base = next((r for r in rows if r["variant"] == "cgp fp32" and r["ms"]), None)
    base_ms = statistics.median(base["ms"]) if base else None
    for r in rows:
        r["stats"] = (statistics.median(r["ms"]), min(r["ms"]), max(r["ms"])) if r["ms"] else None
        r["speedup"] = r["stats"][0] / base_ms if r["ms"] and base_ms else None
        r["failed"] = bool(r["ms"]) and r["tolerance"] is not None and not r["err"] <= r["tolerance"]
    return rows


def print_table(rows):
    print()
    print("| problem | variant | ms median | ms min | ms max | rel L2 err vs fp64 | cgp fp32 speedup | note |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        problem = "%s %s" % (r["shape"], r["padding"])
        if not r["ms"]:
            print("| %s | %s | - | - | - | - | - | %s |" % (problem, r["variant"], r["note"]))
            continue
        mark = " (above %.0e!)" % r["tolerance"] if r["failed"] else ""
        print("| %s | %s | %.4f | %.4f | %.4f | %.2e%s | %s | %s |" % (
            problem, r["variant"], r["stats"][0], r["stats"][1], r["stats"][2], r["err"], mark,
            "%.2fx" % r["speedup"] if r["speedup"] else "n/a", r["note"]))


def write_csv(path, meta, rows, args):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    fields = ["device", "torch", "cudnn", "cuda", "commit", "date", "shape", "padding", "variant", "status",
              "ms_median", "ms_min", "ms_max", "iters", "rel_l2_error", "speedup_of_cgp_fp32", "note"]
    with open(tmp, "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=fields)
        out.writeheader()
        for r in rows:
            ok = bool(r["ms"])
            rec = dict(meta)
            rec.update({
                "shape": r["shape"],
                "padding": r["padding"],
                "variant": r["variant"],
                "status": "ok" if ok else "unavailable",
                "ms_median": "%.5f" % r["stats"][0] if ok else "",
                "ms_min": "%.5f" % r["stats"][1] if ok else "",
                "ms_max": "%.5f" % r["stats"][2] if ok else "",
                "iters": args.iters if ok else "",
                "rel_l2_error": "%.3e" % r["err"] if ok else "",
                "speedup_of_cgp_fp32": "%.3f" % r["speedup"] if ok and r.get("speedup") else "",
                "note": r["note"],
            })
            out.writerow(rec)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
