#!/usr/bin/env python3
"""torch_compare.py - cgp's fused kernel beside PyTorch, on the same GPU tensors, in one process.

    y = adaptive_avg_pool2d(gelu(conv2d(x, w, b, 3x3, stride 1, padding 0|1)), 1).squeeze()

PyTorch computes it as nn.Conv2d -> F.gelu (exact erf) -> adaptive_avg_pool2d(1) -> squeeze, in
eager mode (NCHW and channels_last) and through torch.compile (default and max-autotune), each
with TF32 off and on; cgp runs through build/libcgp.so (ctypes, include/cgp.h) on the tensors'
device pointers and torch's current stream, at each precision (fp32, tf32, 3xtf32). Every row
is checked against the same pipeline in float64 (relative L2 error) and timed with CUDA events:
median, min and max of --iters runs after --warmup runs. Prints a table and writes a CSV.

Usage (from the repository root, after `make`):
    PYTHONUNBUFFERED=1 python3 scripts/torch_compare.py [--csv results/h200/torch_compare.csv]
        [--n 128 --cin 8 --cout 64 --h 256 --w 256 --padding valid] [--iters 30 --warmup 5]
        [--no-compile] [--no-max-autotune] [--lib build/libcgp.so]
    python3 scripts/torch_compare.py --check-lib     # only check the ctypes declarations (no torch)

Without PyTorch or without a GPU it says so and exits 0. Exit 1 when a cgp row misses its
tolerance (relative L2, as host/bench/check.h: 1e-6 for fp32 and 3xtf32; 1e-4 for tf32, 3e-3 when a
mean averages fewer than 4096 pixels) or the library check fails; exit 2 on bad arguments or a
missing library.
"""
import argparse
import csv
import ctypes
import datetime
import os
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---- include/cgp.h, declared for ctypes ----------------------------------------------------------
CGP_SUCCESS = 0
CGP_ERROR_INVALID_OPTION = 3
CGP_ERROR_INVALID_SHAPE = 2
PADDING = {"valid": 0, "same": 1}
PRECISIONS = [("fp32", 0), ("tf32", 1), ("3xtf32", 2)]  # name, cgp_precision


def tolerance(precision, pixels):
    """Relative L2 tolerance of a cgp precision, as host/bench/check.h check_tolerance states it."""
    if precision == 1:  # tf32: 10 mantissa bits; averaging many pixels brings the mean's error down
        return 1e-4 if pixels >= 4096 else 3e-3
    return 1e-6


class CgpShape(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int64), ("cin", ctypes.c_int64), ("cout", ctypes.c_int64),
                ("h", ctypes.c_int64), ("w", ctypes.c_int64)]


class CgpOptions(ctypes.Structure):  # enums are int-sized
    _fields_ = [("padding", ctypes.c_int), ("reduce", ctypes.c_int), ("precision", ctypes.c_int),
                ("kernel", ctypes.c_int)]


def load_cgp(path):
    lib = ctypes.CDLL(path)
    c_plan = ctypes.c_void_p
    sigs = {
        "cgp_default_options": (CgpOptions, []),
        "cgp_output_height": (ctypes.c_int64, [ctypes.POINTER(CgpShape), ctypes.c_int]),
        "cgp_output_width": (ctypes.c_int64, [ctypes.POINTER(CgpShape), ctypes.c_int]),
        "cgp_plan_create": (ctypes.c_int, [ctypes.POINTER(c_plan), ctypes.POINTER(CgpShape),
                                           ctypes.POINTER(CgpOptions)]),
        "cgp_plan_workspace_size": (ctypes.c_int, [c_plan, ctypes.POINTER(ctypes.c_size_t)]),
        "cgp_plan_kernel": (ctypes.c_int, [c_plan, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_char_p)]),
        "cgp_plan_run": (ctypes.c_int, [c_plan, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                        ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]),
        "cgp_plan_destroy": (ctypes.c_int, [c_plan]),
        "cgp_status_string": (ctypes.c_char_p, [ctypes.c_int]),
        "cgp_last_error_detail": (ctypes.c_char_p, []),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


def cgp_error(lib, status):
    return "%s (%s)" % (lib.cgp_status_string(status).decode(), lib.cgp_last_error_detail().decode())


class CgpError(RuntimeError):
    """A cgp call failed; the message is cgp's own."""


def check_lib(lib):
    """Calls that need no GPU and show whether every field above sits where libcgp reads it.
    Returns a list of problems (empty: the declarations match)."""
    problems = []
    o = lib.cgp_default_options()
    if (o.padding, o.reduce, o.precision, o.kernel) != (0, 0, 0, 0):
        problems.append("cgp_default_options gave %r, expected (0, 0, 0, 0)" % ((o.padding, o.reduce, o.precision,
                                                                                  o.kernel),))
    s = CgpShape(2, 3, 4, 9, 11)
    got = (lib.cgp_output_height(ctypes.byref(s), 0), lib.cgp_output_width(ctypes.byref(s), 1))
    if got != (7, 11):
        problems.append("cgp_output_height/width of H=9 valid, W=11 same gave %r, expected (7, 11)" % (got,))
    if lib.cgp_status_string(CGP_SUCCESS) != b"success":
        problems.append("cgp_status_string(0) is %r" % lib.cgp_status_string(CGP_SUCCESS))
    # each field set alone to a bad value must be named in the detail: the offsets agree
    cases = [("padding", 5, "padding"), ("reduce", 7, "reduce"), ("precision", 9, "precision"), ("kernel", -1, "kernel")]
    for field, value, word in cases:
        bad = lib.cgp_default_options()
        setattr(bad, field, value)
        plan = ctypes.c_void_p()
        st = lib.cgp_plan_create(ctypes.byref(plan), ctypes.byref(s), ctypes.byref(bad))
        if st != CGP_ERROR_INVALID_OPTION or word not in lib.cgp_last_error_detail().decode():
            problems.append("options.%s = %d gave %s" % (field, value, cgp_error(lib, st)))
    for i, field in enumerate(("n", "cin", "cout", "h", "w")):
        dims = [2, 3, 4, 9, 11]
        dims[i] = -7
        st = lib.cgp_plan_create(ctypes.byref(ctypes.c_void_p()), ctypes.byref(CgpShape(*dims)),
                                 ctypes.byref(lib.cgp_default_options()))
        want = "%s=-7" % {"n": "N", "cin": "Cin", "cout": "Cout", "h": "H", "w": "W"}[field]
        if st != CGP_ERROR_INVALID_SHAPE or want not in lib.cgp_last_error_detail().decode():
            problems.append("shape.%s = -7 gave %s" % (field, cgp_error(lib, st)))
    return problems


class CgpRunner:
    """One cgp plan on torch tensors: run() enqueues on torch's current stream."""

    def __init__(self, lib, torch, shape, padding, precision, x, w, b):
        self.lib, self.torch = lib, torch
        self.plan = ctypes.c_void_p()
        opts = lib.cgp_default_options()
        opts.padding, opts.precision = padding, precision
        st = lib.cgp_plan_create(ctypes.byref(self.plan), ctypes.byref(shape), ctypes.byref(opts))
        if st != CGP_SUCCESS:
            self.plan = None
            raise CgpError(cgp_error(lib, st))
        nbytes, version, name = ctypes.c_size_t(), ctypes.c_int(), ctypes.c_char_p()
        self._check(lib.cgp_plan_workspace_size(self.plan, ctypes.byref(nbytes)))
        self._check(lib.cgp_plan_kernel(self.plan, ctypes.byref(version), ctypes.byref(name)))
        self.kernel = "%s (version %d)" % (name.value.decode(), version.value)
        self.ws_bytes = nbytes.value
        self.ws = torch.empty(max(self.ws_bytes, 1), dtype=torch.uint8, device=x.device)
        self.x, self.w, self.b = x, w, b  # contiguous fp32; torch allocations are 512-byte aligned
        self.y = torch.empty(shape.n, shape.cout, dtype=torch.float32, device=x.device)

    def _check(self, st):
        if st != CGP_SUCCESS:
            raise CgpError(cgp_error(self.lib, st))

    def run(self):
        stream = self.torch.cuda.current_stream().cuda_stream
        self._check(self.lib.cgp_plan_run(self.plan, self.x.data_ptr(), self.w.data_ptr(), self.b.data_ptr(),
                                          self.y.data_ptr(), self.ws.data_ptr() if self.ws_bytes else None,
                                          self.ws_bytes, stream))
        return self.y

    def close(self):
        if self.plan:
            self.lib.cgp_plan_destroy(self.plan)
            self.plan = None


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
    text = " ".join(str(exc).split())
    return (text if isinstance(exc, CgpError) else type(exc).__name__ + ": " + text)[:limit]


# ---- main ---------------------------------------------------------------------------------------
def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", default=os.path.join(REPO, "build", "libcgp.so"), help="path of libcgp.so")
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
    ap.add_argument("--check-lib", action="store_true", help="only check the ctypes declarations against --lib")
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
    if not os.path.exists(args.lib):
        print("torch_compare: %s does not exist: run `make` first, or pass --lib PATH" % args.lib, file=sys.stderr)
        return 2
    lib = load_cgp(args.lib)
    problems = check_lib(lib)
    if problems:
        print("torch_compare: the ctypes declarations do not match %s:\n  %s" % (args.lib, "\n  ".join(problems)),
              file=sys.stderr)
        return 1
    print("libcgp: %s (ctypes declarations checked)" % args.lib)
    if args.check_lib:
        return 0

    pad = PADDING[args.padding]
    shape = CgpShape(args.n, args.cin, args.cout, args.h, args.w)
    if lib.cgp_output_height(ctypes.byref(shape), pad) < 1 or lib.cgp_output_width(ctypes.byref(shape), pad) < 1:
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
    return compare(args, lib, torch, shape, pad)


def compare(args, lib, torch, shape, pad):
    dev = torch.device("cuda")
    torch.backends.cudnn.benchmark = True  # eager convolutions use the fastest algorithm cuDNN finds
    meta = {
        "device": torch.cuda.get_device_name(dev),
        "torch": torch.__version__,
        "cudnn": str(torch.backends.cudnn.version()),
        "cuda": str(torch.version.cuda),
        "commit": git_commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "shape": "%dx%dx%dx%dx%d" % (args.n, args.cin, args.cout, args.h, args.w),
        "padding": args.padding,
    }
    print("device %(device)s, torch %(torch)s, cuDNN %(cudnn)s, CUDA %(cuda)s, commit %(commit)s" % meta)
    print("problem N x Cin x Cout x H x W = %(shape)s, padding %(padding)s" % meta)

    gen = torch.Generator(device=dev).manual_seed(args.seed)
    scale = 2.0 / (args.cin * 9) ** 0.5  # conv outputs of order 1
    x = torch.rand(args.n, args.cin, args.h, args.w, generator=gen, device=dev) * 2 - 1
    w = (torch.rand(args.cout, args.cin, 3, 3, generator=gen, device=dev) * 2 - 1) * scale
    b = torch.rand(args.cout, generator=gen, device=dev) - 0.5
    ref = reference_fp64(torch, x, w, b, pad)

    rows = []  # dicts: variant, ms (list) or None, err, note, tolerance

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
                model = make_module(torch, args.cin, args.cout, pad, w, b)
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
            model = make_module(torch, args.cin, args.cout, pad, w, b)
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

    def cgp(precision):
        def factory():
            runner = CgpRunner(lib, torch, shape, pad, precision, x, w, b)
            runners.append(runner)
            return runner.run, "cgp " + runner.kernel
        return factory

    runners = []
    print("timing: %d warm-up + %d timed runs per row" % (args.warmup, args.iters))
    pixels = lib.cgp_output_height(ctypes.byref(shape), pad) * lib.cgp_output_width(ctypes.byref(shape), pad)
    for name, precision in PRECISIONS:
        add("cgp %s" % name, cgp(precision), tolerance(precision, pixels))
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
    for runner in runners:
        runner.close()

    base = next((r for r in rows if r["variant"] == "cgp fp32" and r["ms"]), None)
    base_ms = statistics.median(base["ms"]) if base else None
    failed = False
    print()
    print("| variant | ms median | ms min | ms max | rel L2 err vs fp64 | cgp fp32 speedup | note |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        if not r["ms"]:
            print("| %s | - | - | - | - | - | %s |" % (r["variant"], r["note"]))
            continue
        med = statistics.median(r["ms"])
        r["stats"] = (med, min(r["ms"]), max(r["ms"]))
        r["speedup"] = med / base_ms if base_ms else None
        mark = ""
        if r["tolerance"] is not None and not r["err"] <= r["tolerance"]:
            mark, failed = " (above %.0e!)" % r["tolerance"], True
        print("| %s | %.4f | %.4f | %.4f | %.2e%s | %s | %s |" % (
            r["variant"], med, r["stats"][1], r["stats"][2], r["err"], mark,
            "%.2fx" % r["speedup"] if r["speedup"] else "n/a", r["note"]))
    write_csv(args.csv, meta, rows, args)
    print("\nwrote %s" % args.csv)
    if failed:
        print("torch_compare: a cgp row is above its tolerance", file=sys.stderr)
    return 1 if failed else 0


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
