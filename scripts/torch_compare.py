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
    PYTHONUNBUFFERED=1 python3 scripts/torch_compare.py --zoo [FILE] [--max-autotune]
        # every shape of the zoo (host/bench/zoo.csv, or FILE of the same form): per shape and cgp
        # precision the fastest PyTorch row of its class beside cgp, into results/h200/zoo.csv
        # (n,cin,cout,h,w,padding,precision,cgp_kernel,cgp_ms,best_torch_row,best_torch_ms,speedup)
        # and zoo.md, with the minimum and geometric-mean speedup per precision
    python3 scripts/torch_compare.py --check-lib     # only the cgp module's declaration check (no torch)

Classes (--zoo): cgp fp32 and 3xtf32 against the PyTorch rows with TF32 off, cgp tf32 against those
with TF32 on (cuDNN and matmul); PyTorch rows: eager NCHW, eager channels_last, torch.compile
default, and with --max-autotune also torch.compile max-autotune-no-cudagraphs; cudnn.benchmark on.
cgp rows use the measured kernel selection (select="measured": cgp_plan_create_measured times every
version of the precision that runs the shape, as cudnn.benchmark does for cuDNN's algorithms).

Without PyTorch or without a GPU it says so and exits 0. Exit 1 when a cgp row misses its
tolerance or the library check fails; exit 2 on bad arguments or a missing library. Tolerances
(relative L2 against float64, tolerance() says how they grow with Cin, as host/bench/check.c): fp32
and 3xtf32 1e-6 up to Cin = 64; tf32 against the float64 pipeline on x and w rounded to tf32 as the
kernels round them (to nearest, ties away from zero: cvt.rna), since TF32's own rounding of the
operands is the format's error, not the kernel's; the error of tf32 against the exact float64 result
is printed beside it.
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


def tolerance(precision, cin):
    """Relative L2 tolerance of a cgp precision, as the tools judge it (host/bench/check.c): fp32 and 3xtf32
    1e-6, growing as sqrt(Cin / 64) above Cin = 64 (fp32 sums of 9 Cin products); tf32 against the reference
    on tf32-rounded operands at least that, and 2 x 9 ceil(Cin / 8) x 2^-24, since the tf32 kernels chain
    their MMAs in the tensor cores' accumulator, whose error grows linearly with Cin."""
    fp32 = 1e-6 if cin <= 64 else 1e-6 * (cin / 64.0) ** 0.5
    return max(fp32, 2.0 * 9.0 * ((cin + 7) // 8) / 2.0 ** 24) if precision == 1 else fp32


def round_tf32(torch, t):
    """t rounded to tf32 as the kernels round it: to nearest, ties away from zero (cvt.rna)."""
    bits = t.contiguous().view(torch.int32)
    return ((bits + 0x1000) & -8192).view(torch.float32)


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
def cuda_torch(tool, what):
    """PyTorch, when it is installed and sees a CUDA GPU; else None, after `tool` says which is missing and
    that there is nothing to `what`."""
    try:
        import torch
    except ImportError as e:
        print("%s: PyTorch is not installed (%s); nothing to %s" % (tool, e, what))
        return None
    if not torch.cuda.is_available():
        print("%s: PyTorch %s sees no CUDA GPU; nothing to %s" % (tool, torch.__version__, what))
        return None
    return torch


def make_inputs(torch, shape, seed):
    """x, weight, bias of a Shape on the current CUDA device: x uniform in [-1, 1), weight scaled so that
    the convolution's outputs are of order 1, bias in [-0.5, 0.5)."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    scale = 2.0 / (shape.cin * 9) ** 0.5
    x = torch.rand(shape.n, shape.cin, shape.h, shape.w, generator=gen, device="cuda") * 2 - 1
    w = (torch.rand(shape.cout, shape.cin, 3, 3, generator=gen, device="cuda") * 2 - 1) * scale
    b = torch.rand(shape.cout, generator=gen, device="cuda") - 0.5
    return x, w, b


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
    """Per-run times (ms) from CUDA events on the current stream, after `warmup` untimed runs. The events are
    recorded on that stream as an object fetched once: Event.record() without one looks it up each time
    (torch.cuda.current_stream(), 4-9 us of Python a record on an H200's host), and where a call is shorter on
    the GPU than on the host (a few small shapes, both cgp's rows and PyTorch's) the end event's lookup fell
    inside the timed interval (docs/perf-log.md, "The timer's own host time")."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    stream = torch.cuda.current_stream()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    for start, end in events:
        start.record(stream)
        fn()
        end.record(stream)
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
    ap.add_argument("--zoo", nargs="?", const=os.path.join(REPO, "host", "bench", "zoo.csv"), metavar="FILE",
                    help="every shape of the zoo (default host/bench/zoo.csv): the fastest PyTorch row per cgp "
                    "precision, into --zoo-csv and --zoo-md")
    ap.add_argument("--max-autotune", action="store_true", help="--zoo: also torch.compile max-autotune-no-cudagraphs")
    ap.add_argument("--zoo-csv", default=os.path.join(REPO, "results", "h200", "zoo.csv"), help="--zoo: summary CSV")
    ap.add_argument("--zoo-md", default=os.path.join(REPO, "results", "h200", "zoo.md"), help="--zoo: Markdown table")
    ap.add_argument("--check-lib", action="store_true", help="only check the cgp module's ctypes declarations "
                    "against include/cgp.h and the library")
    args = ap.parse_args(argv)
    if args.zoo:  # the zoo's rows: torch.compile default, max-autotune only when asked; every row to its own CSV
        args.no_max_autotune = not args.max_autotune
        args.autotune_mode = "max-autotune-no-cudagraphs"
        if "--csv" not in argv:
            args.csv = os.path.join(REPO, "results", "h200", "torch_compare_zoo.csv")
    else:
        args.autotune_mode = "max-autotune"
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

    if args.zoo:
        try:
            shapes = read_zoo(args.zoo)
        except (OSError, ValueError) as e:
            print("torch_compare: %s" % e, file=sys.stderr)
            return 2
    else:
        shapes = [Shape(args.n, args.cin, args.cout, args.h, args.w, args.padding)]
    for shape in shapes:
        if min(shape.h, shape.w) + 2 * PADDING[shape.padding] < 3:
            print("torch_compare: H=%d W=%d give no output pixel with %s padding" % (shape.h, shape.w,
                                                                                   shape.padding), file=sys.stderr)
            return 2
    torch = cuda_torch("torch_compare", "compare")
    if torch is None:
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
    rows = []
    for shape in shapes:
        rows += compare_shape(shape, args)
    print_table(rows)
    write_csv(args.csv, meta, rows, args)
    print("\nwrote %s" % args.csv)
    if args.zoo:
        best = zoo_rows(shapes, rows)
        write_zoo(args.zoo_csv, args.zoo_md, meta, best, args)
        print_zoo_summary(sys.stdout, best)
        print("wrote %s and %s" % (args.zoo_csv, args.zoo_md))
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
    name = "%dx%dx%dx%dx%d" % shape[:5]
    print("problem N x Cin x Cout x H x W = %s, padding %s" % (name, shape.padding))

    x, w, b = make_inputs(torch, shape, args.seed)
    pad = PADDING[shape.padding]
    ref = reference_fp64(torch, x, w, b, pad)
    ref_tf32 = reference_fp64(torch, round_tf32(torch, x), round_tf32(torch, w), b, pad)

    rows = []

    def add(variant, fn_factory, tol=None, check_ref=None):
        """fn_factory() -> (callable running one forward and returning y, note); errors -> unavailable."""
        start = time.time()
        kernel = ""
        try:
            fn, note, *named = fn_factory()  # a cgp row also names the kernel that runs
            kernel = named[0] if named else ""
            with torch.no_grad():
                y = fn().clone()  # first run (compiles a torch.compile row); the output is checked
                ms = time_ms(torch, fn, args.warmup, args.iters)
            row = {"variant": variant, "ms": ms, "err": rel_l2(torch, y, ref), "note": note, "tolerance": tol}
            if check_ref is not None:  # tf32: checked on the operands as the kernel rounds them
                row["err_checked"] = rel_l2(torch, y, check_ref)
                row["note"] += "; rel err on tf32-rounded x, w %.2e" % row["err_checked"]
        except Exception as e:  # a row that cannot run is reported, not fatal
            row = {"variant": variant, "ms": None, "err": None, "note": "unavailable: " + one_line(e),
                   "tolerance": tol}
        row.update(shape=name, padding=shape.padding, kernel=kernel)
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
            version, kernel = cgp.kernel_of(x, w, b, padding=shape.padding, precision=precision, select="measured")
            return (lambda: cgp.conv_gelu_mean(x, w, b, padding=shape.padding, precision=precision, select="measured"),
                    "cgp %s (version %d)" % (kernel, version), kernel)
        return factory

    for precision, number in PRECISIONS:
        add("cgp %s" % precision, fused(precision), tolerance(number, shape.cin), ref_tf32 if number == 1 else None)
    for tf32 in (False, True):
        tag = "tf32 on" if tf32 else "tf32 off"
        add("torch eager NCHW fp32, %s" % tag, eager(False, tf32))
        add("torch eager channels_last fp32, %s" % tag, eager(True, tf32))
    if not args.no_compile:
        modes = [None] + ([] if args.no_max_autotune else [args.autotune_mode])
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
        r["failed"] = bool(r["ms"]) and r["tolerance"] is not None and not r.get("err_checked", r["err"]) <= r["tolerance"]
    return rows


def read_zoo(path):
    """The shapes of a zoo CSV (host/bench/zoo.h describes the form; the C reader is the strict one)."""
    with open(path, newline="") as f:
        records = list(csv.DictReader(f))
    shapes = []
    for i, r in enumerate(records, start=2):
        try:
            dims = [int(r[k]) for k in ("n", "cin", "cout", "h", "w")]
        except (KeyError, TypeError, ValueError):
            raise ValueError("%s:%d: n, cin, cout, h, w must be whole numbers" % (path, i))
        if min(dims) < 1 or r.get("padding") not in PADDING:
            raise ValueError("%s:%d: dimensions must be >= 1 and padding valid or same" % (path, i))
        shapes.append(Shape(*dims, r["padding"]))
    if not shapes:
        raise ValueError("%s: no shape" % path)
    return shapes


# the PyTorch rows each cgp precision is compared with: TF32 off for fp32 and 3xtf32, on for tf32
ZOO_CLASS = {"fp32": "tf32 off", "tf32": "tf32 on", "3xtf32": "tf32 off"}


def zoo_rows(shapes, rows):
    """Per shape and cgp precision: cgp's row beside the fastest PyTorch row of its class."""
    out = []
    for shape in shapes:
        name = "%dx%dx%dx%dx%d" % shape[:5]
        mine = [r for r in rows if r["shape"] == name and r["padding"] == shape.padding]
        for precision, _ in PRECISIONS:
            cgp_row = next(r for r in mine if r["variant"] == "cgp " + precision)
            torch_rows = [r for r in mine if r["variant"].startswith("torch") and r["ms"] and
                          r["variant"].endswith(ZOO_CLASS[precision])]
            fastest = min(torch_rows, key=lambda r: r["stats"][0], default=None)
            cgp_ms = cgp_row["stats"][0] if cgp_row["ms"] else None
            out.append({"shape": shape, "precision": precision, "cgp_kernel": cgp_row["kernel"] or "unavailable",
                        "cgp_ms": cgp_ms, "best_torch_row": fastest["variant"] if fastest else "none",
                        "best_torch_ms": fastest["stats"][0] if fastest else None,
                        "speedup": fastest["stats"][0] / cgp_ms if fastest and cgp_ms else None})
    return out


def zoo_summary(best, precision):
    """(shapes with a speedup, minimum, geometric mean, how many below 1.0x) of one precision"""
    import math
    s = [r["speedup"] for r in best if r["precision"] == precision and r["speedup"]]
    if not s:
        return 0, None, None, 0
    return len(s), min(s), math.exp(sum(math.log(v) for v in s) / len(s)), sum(v < 1.0 for v in s)


def print_zoo_summary(f, best):
    for precision, _ in PRECISIONS:
        count, low, geomean, below = zoo_summary(best, precision)
        if count:
            print("zoo %-6s: %d shapes, speedup over the fastest PyTorch row (%s) min %.2fx, geometric mean %.2fx, "
                  "%d below 1.0x" % (precision, count, ZOO_CLASS[precision], low, geomean, below), file=f)
        else:
            print("zoo %-6s: no shape with both a cgp and a PyTorch time" % precision, file=f)


def write_zoo(csv_path, md_path, meta, best, args):
    """results/h200/zoo.csv (the columns issue 16 fixes) and zoo.md, each written whole or not at all"""
    fields = ["n", "cin", "cout", "h", "w", "padding", "precision", "cgp_kernel", "cgp_ms", "best_torch_row",
              "best_torch_ms", "speedup"]
    ms = lambda v: "%.5f" % v if v is not None else ""
    for path in (csv_path, md_path):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(csv_path + ".tmp", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(fields)
        for r in best:
            out.writerow(list(r["shape"]) + [r["precision"], r["cgp_kernel"], ms(r["cgp_ms"]), r["best_torch_row"],
                                             ms(r["best_torch_ms"]), "%.3f" % r["speedup"] if r["speedup"] else ""])
    with open(md_path + ".tmp", "w") as f:
        f.write("# cgp against the fastest PyTorch row, per zoo shape\n\n")
        f.write("Device %(device)s, PyTorch %(torch)s, cuDNN %(cudnn)s, CUDA %(cuda)s, commit %(commit)s, %(date)s.\n"
                % meta)
        f.write("`scripts/torch_compare.py --zoo%s`: median of %d timed runs after %d warm-up, in one process on the "
                "same tensors; cudnn.benchmark on, cgp's measured kernel selection. fp32 and 3xtf32 against PyTorch "
                "with TF32 off, tf32 against PyTorch with TF32 on.\n\n"
                % (" --max-autotune" if args.max_autotune else "", args.iters, args.warmup))
        f.write("| N | Cin | Cout | H x W | padding | precision | cgp kernel | cgp ms | fastest PyTorch row | "
                "PyTorch ms | speedup |\n|---:|---:|---:|---|---|---|---|---:|---|---:|---:|\n")
        for r in best:
            s = r["shape"]
            f.write("| %d | %d | %d | %dx%d | %s | %s | %s | %s | %s | %s | %s |\n" % (
                s.n, s.cin, s.cout, s.h, s.w, s.padding, r["precision"], r["cgp_kernel"], ms(r["cgp_ms"]) or "-",
                r["best_torch_row"], ms(r["best_torch_ms"]) or "-", "%.2fx" % r["speedup"] if r["speedup"] else "-"))
        f.write("\n")
        print_zoo_summary(f, best)
    os.replace(csv_path + ".tmp", csv_path)
    os.replace(md_path + ".tmp", md_path)


def print_table(rows):
    print()
    print("| problem | variant | ms median | ms min | ms max | rel L2 err vs fp64 | cgp fp32 speedup | note |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        problem = "%s %s" % (r["shape"], r["padding"])
        if not r["ms"]:
            print("| %s | %s | - | - | - | - | - | %s |" % (problem, r["variant"], r["note"]))
            continue
        mark = " (above %.0e on what it is checked against!)" % r["tolerance"] if r["failed"] else ""
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
