#!/usr/bin/env python3
"""torch_compare.py - cgp's fused kernel beside PyTorch, on the same GPU tensors, in one process.

    y = adaptive_avg_pool2d(gelu(conv2d(x, w, b, 3x3, stride 1, padding 0|1)), 1).squeeze()

PyTorch computes it as nn.Conv2d -> F.gelu (exact erf) -> adaptive_avg_pool2d(1) -> squeeze, in
eager mode (NCHW and channels_last) and through torch.compile (default and max-autotune), each
with TF32 off and on; cgp runs through the cgp module (python/cgp: libcgp.so through ctypes,
docs/python.md) on the same tensors, at each precision (fp32, tf32, 3xtf32). Every row of the
function is checked against the same pipeline in float64 (relative L2 error). Two more kinds of row
are only timed, since they are not the function: cuDNN's convolution alone (F.conv2d, the
convolution and its bias, nothing else; NCHW and channels_last on x and w converted beforehand, TF32
off and on), and the layout change NCHW -> channels_last of x, which the eager channels_last rows do
not include (their x is converted before they are timed). Prints a table and writes a CSV;
compare_shape() does one problem.

Two times per row:
  GPU time, the measure (time_graph_ms): on a dedicated stream, 3 warm-up calls (outside capture:
      cudnn.benchmark's search, cgp's measured selection and torch.compile's first-call work happen
      there), then --graph-runs calls captured into one CUDA graph, one untimed replay, then
      --graph-replays replays each between two CUDA events; a replay's time / --graph-runs is a
      sample; median and min. No host launch is inside it. A row whose calls cannot be captured
      gets no GPU time and the note "not capturable: <why>"; the run goes on.
  per-call wall time, host launches included (time_ms): CUDA events around each of --iters calls
      on the current stream after --warmup calls; median, min and max. Where PyTorch launches 3-5
      kernels a call, their host launches are inside it.

Usage (from the repository root, after `make`):
    PYTHONUNBUFFERED=1 python3 scripts/torch_compare.py [--csv results/h200/torch_compare.csv]
        [--n 128 --cin 8 --cout 64 --h 256 --w 256 --padding valid] [--iters 30 --warmup 5]
        [--graph-runs 20 --graph-replays 15] [--no-compile] [--no-max-autotune] [--lib build/libcgp.so]
    PYTHONUNBUFFERED=1 python3 scripts/torch_compare.py --zoo [FILE] [--max-autotune]
        # every shape of the zoo (host/bench/zoo.csv, or FILE of the same form): per shape and cgp
        # precision the fastest PyTorch row of its class beside cgp, into results/h200/zoo.csv
        #   n,cin,cout,h,w,padding,precision,cgp_kernel,cgp_ms,best_torch_row,best_torch_ms,speedup,
        #   cgp_gpu_ms,best_torch_gpu_row,best_torch_gpu_ms,conv_alone_gpu_ms,gpu_speedup
        # (cgp_ms, best_torch_ms, speedup: per-call; the gpu_ columns: GPU time, the fastest PyTorch
        # row by GPU time, which can differ from the per-call one; gpu_speedup = best_torch_gpu_ms /
        # cgp_gpu_ms; conv_alone_gpu_ms: the fastest of cuDNN's convolution alone in the class) and
        # zoo.md (the GPU-time table first, then the per-call one), with the minimum and geometric-mean
        # speedups per precision; every row also into --csv (default results/h200/torch_compare_zoo.csv,
        # with gpu_ms_median, gpu_ms_min, gpu_runs_per_graph beside the per-call columns)
    PYTHONUNBUFFERED=1 python3 scripts/torch_compare.py --train [FILE] [--train-csv results/h200/train.csv]
        # training, every shape of the zoo (as --zoo reads it): per shape and cgp precision, forward +
        # backward (y, then torch.autograd.grad of x, weight and bias for a fixed random dy) of PyTorch's
        # eager NCHW pipeline (conv2d -> gelu -> adaptive_avg_pool2d(1) -> flatten, TF32 as the class
        # says) and of cgp's op, into train.csv:
        #   n,cin,cout,h,w,padding,precision,cgp_kernel,cgp_gpu_ms,torch_gpu_ms,gpu_speedup,cgp_call_ms,
        #   torch_call_ms,call_speedup,cgp_peak_mib,torch_peak_mib,peak_saved_mib,grad_rel_diff,note,
        #   device,torch,cudnn,cuda,commit,date
        # (the _gpu_ms: GPU time of one step, its forward and backward captured in a CUDA graph, empty
        # where the step could not be captured, the note says why; the _call_ms: per step, host launches
        # included; speedups: PyTorch's / cgp's; _peak_mib: torch.cuda.max_memory_allocated over one
        # step minus the memory allocated before it (x, weight, bias, dy and anything held before are
        # not in it; the gradients the step returns are); peak_saved_mib: PyTorch's minus cgp's;
        # grad_rel_diff: the largest relative L2 difference of cgp's dx, dweight, dbias from PyTorch's
        # of the class). Defaults --warmup 2 --iters 10 --graph-runs 2 --graph-replays 5. Then the
        # summary: per precision the speedups and peak ratios over the zoo, and the memory cgp saves on
        # the default problem. Exit 1 when grad_rel_diff is above 1e-4 (fp32, 3xtf32) or 1e-2 (tf32).
    python3 scripts/torch_compare.py --check-lib     # only the cgp module's declaration check (no torch)

Classes (--zoo): cgp fp32 and 3xtf32 against the PyTorch rows with TF32 off, cgp tf32 against those
with TF32 on (cuDNN and matmul); PyTorch rows: eager NCHW, eager channels_last, torch.compile
default, and with --max-autotune also torch.compile max-autotune-no-cudagraphs (off by default: its
compilation takes minutes); cudnn.benchmark on. cgp rows use the measured kernel selection
(select="measured": cgp_plan_create_measured times every version of the precision that runs the
shape, as cudnn.benchmark does for cuDNN's algorithms); the cgp module keeps a plan per stream, so
the graph's stream makes its own selection (a row whose graph ran another kernel says so).
cuDNN's convolution alone is never a class's fastest PyTorch row: it gives conv_alone_gpu_ms, the
fastest of its NCHW and channels_last GPU times with the class's TF32 setting.

TF32 honesty: a PyTorch row with TF32 allowed must show TF32's rounding. Its relative error against
the float64 result is compared with the error TF32 rounding of x and w alone causes (the float64
pipeline on tf32-rounded x and w against the exact one); below a tenth of that it ran no TF32, and
its note says so and its label gets " (no TF32 seen)" (it stays in the tf32 class: it is what
PyTorch ran with TF32 allowed).

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


WARMUP_BEFORE_CAPTURE = 3  # calls of fn on the capture stream before it is captured


def capture_graph(torch, fn, runs, grad=False):
    """(graph, stream, output of the last captured call): `runs` calls of fn captured into one
    torch.cuda.CUDAGraph on a dedicated stream, under torch.no_grad() (grad mode on with grad=True: a
    call that runs a backward, captured with it). First the stream waits for the current one and fn
    runs WARMUP_BEFORE_CAPTURE times on it, outside capture: the first call's work
    (cudnn.benchmark's search, cgp's measured selection and plan, which the cgp module keys on the
    stream, torch.compile's compilation and autotuning) must not be captured. Each replay rewrites the
    output's memory. When the capture raises, end_failed_capture() cleans up and the first error of fn's
    calls (else the capture's own) is raised again."""
    caller = torch.cuda.current_stream()
    stream = torch.cuda.Stream()
    stream.wait_stream(caller)
    graph, call_errors = torch.cuda.CUDAGraph(), []
    with torch.set_grad_enabled(grad):
        with torch.cuda.stream(stream):
            for _ in range(WARMUP_BEFORE_CAPTURE):
                fn()
        torch.cuda.synchronize()
        try:
            with torch.cuda.graph(graph, stream=stream):
                for _ in range(runs):
                    try:
                        out = fn()
                    except Exception as e:  # kept: capture_end's "invalidated" error would hide it
                        call_errors.append(e)
                        raise
        except Exception as e:
            end_failed_capture(torch, graph, stream, caller)
            raise (call_errors[0] if call_errors else e)
    return graph, stream, out


def end_failed_capture(torch, graph, stream, caller):
    """Cleans up after a capture that raised: ends the capture if `stream` is still capturing (capture_end
    raised before ending it), makes `caller` the current stream again (torch.cuda.graph's __exit__ does not
    restore it when capture_end raises) and synchronizes, so that the rows after it run as if it had not
    been tried. An error ending the capture here is not raised: the capture's own error is the one reported."""
    with torch.cuda.stream(stream):
        if torch.cuda.is_current_stream_capturing():
            try:
                graph.capture_end()  # ends an invalidated capture too, then raises its error
            except Exception:
                pass
    torch.cuda.set_stream(caller)
    torch.cuda.synchronize()


def time_graph_ms(torch, fn, runs=20, replays=15, grad=False):
    """GPU time of one call of fn (ms), one value per timed replay: `runs` calls captured into one CUDA
    graph (capture_graph, grad mode as `grad` says), one untimed replay, then `replays` replays, each between
    two CUDA events recorded on the graph's stream; each replay's time / runs. No host launch is inside the
    time. Raises what the capture raises (a call that synchronizes, or another stream's work, cannot be
    captured)."""
    graph, stream, _ = capture_graph(torch, fn, runs, grad)
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(replays)]
    with torch.cuda.stream(stream):
        graph.replay()
        for start, end in events:
            start.record(stream)
            graph.replay()
            end.record(stream)
    torch.cuda.synchronize()
    return [start.elapsed_time(end) / runs for start, end in events]


def rel_l2(torch, y, ref):
    """Relative L2 error of y against ref (float64)."""
    y = y.double()
    return float(torch.linalg.vector_norm(y - ref) / torch.linalg.vector_norm(ref))


NO_TF32_FRACTION = 0.1  # a "tf32 on" row whose error is below this fraction of TF32's rounding effect ran no TF32


def mark_tf32(row, tf32_effect):
    """A PyTorch row with TF32 allowed (row["tf32"] True) whose rel err against the exact float64 result is
    below NO_TF32_FRACTION x tf32_effect (the rel err TF32 rounding of x and w alone causes) ran no TF32: its
    note says so and its variant gets " (no TF32 seen)", so that it never carries the TF32 label silently.
    Returns whether the row was marked."""
    if not row["tf32"] or row["err"] is None or row["err"] >= NO_TF32_FRACTION * tf32_effect:
        return False
    row["variant"] += " (no TF32 seen)"
    row["note"] += "; ran no TF32 (rel err %.2e vs TF32 rounding effect %.2e)" % (row["err"], tf32_effect)
    return True


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
    ap.add_argument("--iters", type=int, help="per-call time: timed runs per row (at least 20; default 30, --train "
                    "10, at least 5)")
    ap.add_argument("--warmup", type=int, help="per-call time: untimed runs first (torch.compile compiles in the "
                    "first; default 5, --train 2)")
    ap.add_argument("--graph-runs", type=int, help="GPU time: calls captured into one CUDA graph (default 20, "
                    "--train 2)")
    ap.add_argument("--graph-replays", type=int, help="GPU time: timed replays of that graph (default 15, --train 5)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-compile", action="store_true", help="skip every torch.compile row")
    ap.add_argument("--no-max-autotune", action="store_true", help="skip the torch.compile max-autotune rows")
    ap.add_argument("--zoo", nargs="?", const=os.path.join(REPO, "host", "bench", "zoo.csv"), metavar="FILE",
                    help="every shape of the zoo (default host/bench/zoo.csv): the fastest PyTorch row per cgp "
                    "precision, into --zoo-csv and --zoo-md")
    ap.add_argument("--max-autotune", action="store_true", help="--zoo: also torch.compile max-autotune-no-cudagraphs")
    ap.add_argument("--zoo-csv", default=os.path.join(REPO, "results", "h200", "zoo.csv"), help="--zoo: summary CSV")
    ap.add_argument("--zoo-md", default=os.path.join(REPO, "results", "h200", "zoo.md"), help="--zoo: Markdown table")
    ap.add_argument("--train", nargs="?", const=os.path.join(REPO, "host", "bench", "zoo.csv"), metavar="FILE",
                    help="training: per shape of the zoo (default host/bench/zoo.csv) and precision, forward+backward "
                    "time and peak memory of PyTorch's eager pipeline and of cgp, into --train-csv")
    ap.add_argument("--train-csv", default=os.path.join(REPO, "results", "h200", "train.csv"),
                    help="--train: the CSV written")
    ap.add_argument("--check-lib", action="store_true", help="only check the cgp module's ctypes declarations "
                    "against include/cgp.h and the library")
    args = ap.parse_args(argv)
    if args.zoo and args.train:
        ap.error("--zoo and --train are separate runs: give one")
    for name, default, train_default in (("iters", 30, 10), ("warmup", 5, 2), ("graph_runs", 20, 2),
                                         ("graph_replays", 15, 5)):
        if getattr(args, name) is None:
            setattr(args, name, train_default if args.train else default)
    if args.zoo:  # the zoo's rows: torch.compile default, max-autotune only when asked; every row to its own CSV
        args.no_max_autotune = not args.max_autotune
        args.autotune_mode = "max-autotune-no-cudagraphs"
        if "--csv" not in argv:
            args.csv = os.path.join(REPO, "results", "h200", "torch_compare_zoo.csv")
    else:
        args.autotune_mode = "max-autotune"
    if min(args.n, args.cin, args.cout, args.h, args.w) < 1:
        ap.error("every dimension must be >= 1")
    least_iters = 5 if args.train else 20
    if args.iters < least_iters:
        ap.error("--iters must be at least %d, got %d" % (least_iters, args.iters))
    if args.warmup < 1:
        ap.error("--warmup must be at least 1 (the first run of a torch.compile row compiles), got %d" % args.warmup)
    if args.graph_runs < 1 or args.graph_replays < 1:
        ap.error("--graph-runs and --graph-replays must be at least 1, got %d and %d" % (args.graph_runs,
                                                                                        args.graph_replays))
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

    if args.zoo or args.train:
        try:
            shapes = read_zoo(args.zoo or args.train)
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
    if args.train:
        print("timing: forward+backward, GPU time from %d steps a CUDA graph, %d timed replays (after %d warm-up steps "
              "on its stream); per call %d warm-up + 1 measured for memory + %d timed steps"
              % (args.graph_runs, args.graph_replays, WARMUP_BEFORE_CAPTURE, args.warmup, args.iters))
        return run_train(shapes, meta, args)
    print("timing: GPU time from %d calls a CUDA graph, %d timed replays (after %d warm-up calls on its stream); "
          "per call %d warm-up + %d timed runs" % (args.graph_runs, args.graph_replays, WARMUP_BEFORE_CAPTURE,
                                                    args.warmup, args.iters))
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


def shape_name(shape):
    """"NxCinxCoutxHxW" of a Shape, as the rows name their problem."""
    return "%dx%dx%dx%dx%d" % tuple(shape[:5])


def tf32_tag(tf32):
    """The label of a TF32 setting in the rows' variants."""
    return "tf32 on" if tf32 else "tf32 off"


CHECKED_KINDS = ("cgp", "torch")  # rows of the function; "conv alone" and "layout" rows are only timed


def compare_shape(shape, args):
    """Every row for one problem (a Shape): cgp at each precision, PyTorch eager and torch.compile (the
    function, checked against the float64 pipeline), cuDNN's convolution alone and the layout change of x
    (timed only); each timed per call (time_ms) and by CUDA-graph replay (time_graph_ms). Returns the rows:
    dicts with shape (shape_name), padding, variant, kind ("cgp", "torch", "conv alone", "layout"), tf32
    (TF32 allowed in a PyTorch row, None for cgp and layout rows), kernel and gpu_kernel (a cgp row's
    kernel per call and in the graph, else ""), ms (per-call list, or None when unavailable), gpu_ms (per
    replay list, or None: unavailable or not capturable), err (rel L2 against float64, None when not
    checked), note, tolerance, and what summarize_rows() adds."""
    import cgp
    import torch
    import torch.nn.functional as F
    name = shape_name(shape)
    x, w, b = make_inputs(torch, shape, args.seed)
    pad = PADDING[shape.padding]
    ref = reference_fp64(torch, x, w, b, pad)
    ref_tf32 = reference_fp64(torch, round_tf32(torch, x), round_tf32(torch, w), b, pad)
    tf32_effect = rel_l2(torch, ref_tf32, ref)
    print("problem N x Cin x Cout x H x W = %s, padding %s; TF32 rounding of x and w alone: rel err %.2e"
          % (name, shape.padding, tf32_effect))

    rows = []

    def add(variant, fn_factory, kind, tf32=None, tol=None, check_ref=None):
        """fn_factory() -> (callable running one call and returning its output, note[, kernel]); a row of
        `kind`, checked against the reference when it is the function, per-call and GPU timed. An error
        before the GPU time makes the row unavailable; a capture that fails only costs it the GPU time."""
        start = time.time()
        row = {"variant": variant, "kind": kind, "tf32": tf32, "kernel": "", "gpu_kernel": "", "ms": None,
               "gpu_ms": None, "err": None, "tolerance": tol, "shape": name, "padding": shape.padding}
        fn = None
        try:
            fn, row["note"], *named = fn_factory()  # a cgp row also names the kernel that runs
            row["kernel"] = named[0] if named else ""
            with torch.no_grad():
                y = fn()  # first run (compiles a torch.compile row)
                if kind in CHECKED_KINDS:  # checked now: a torch.compile row with CUDA graphs rewrites y
                    row["err"] = rel_l2(torch, y, ref)
                if check_ref is not None:  # tf32: checked on the operands as the kernel rounds them
                    row["err_checked"] = rel_l2(torch, y, check_ref)
                    row["note"] += "; rel err on tf32-rounded x, w %.2e" % row["err_checked"]
                del y
                row["ms"] = time_ms(torch, fn, args.warmup, args.iters)
            mark_tf32(row, tf32_effect)
        except Exception as e:  # a row that cannot run is reported, not fatal
            fn = None
            row.update(ms=None, err=None, note="unavailable: " + one_line(e))
        if fn is not None:
            try:
                row["gpu_ms"] = time_graph_ms(torch, fn, args.graph_runs, args.graph_replays)
            except Exception as e:  # a row that cannot be captured keeps its per-call time
                row["note"] += "; not capturable: " + one_line(e)
        rows.append(row)
        took = time.time() - start
        if row["ms"]:
            print("  %-48s GPU %9s ms  per call %9.4f ms  rel err %s  (%.0f s)" % (
                row["variant"], "%.4f" % statistics.median(row["gpu_ms"]) if row["gpu_ms"] else "-",
                statistics.median(row["ms"]), "%.2e" % row["err"] if row["err"] is not None else "-", took))
        else:
            print("  %-48s %s  (%.0f s)" % (variant, row["note"], took))
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

    def conv_alone(channels_last, tf32):
        def factory():
            fmt = torch.channels_last if channels_last else torch.contiguous_format
            xin, win = x.contiguous(memory_format=fmt), w.contiguous(memory_format=fmt)

            def fn():
                with Tf32(torch, tf32):
                    return F.conv2d(xin, win, b, padding=pad)
            return fn, ("F.conv2d, its bias and nothing else (cudnn.benchmark): not the function, not checked, "
                        "never a best row")
        return factory

    def layout():
        return (lambda: x.contiguous(memory_format=torch.channels_last),
                "timing only: x.contiguous(memory_format=torch.channels_last), which the eager channels_last rows "
                "do not include (their x is converted before timing)")

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
        add("cgp %s" % precision, fused(precision), "cgp", tol=tolerance(number, shape.cin),
            check_ref=ref_tf32 if number == 1 else None)
    for tf32 in (False, True):
        add("torch eager NCHW fp32, %s" % tf32_tag(tf32), eager(False, tf32), "torch", tf32)
        add("torch eager channels_last fp32, %s" % tf32_tag(tf32), eager(True, tf32), "torch", tf32)
    for tf32 in (False, True):
        add("cudnn conv alone NCHW, %s" % tf32_tag(tf32), conv_alone(False, tf32), "conv alone", tf32)
        add("cudnn conv alone channels_last, %s" % tf32_tag(tf32), conv_alone(True, tf32), "conv alone", tf32)
    add("layout NCHW->channels_last", layout, "layout")
    if not args.no_compile:
        modes = [None] + ([] if args.no_max_autotune else [args.autotune_mode])
        for mode in modes:
            for tf32 in (False, True):
                add("torch.compile %s, %s" % (mode or "default", tf32_tag(tf32)), compiled(mode, tf32), "torch", tf32)
    note_graph_kernels(cgp, torch, shape, rows)
    cgp.clear_cache()
    summarize_rows(rows)
    return rows


def note_graph_kernels(cgp, torch, shape, rows):
    """Sets gpu_kernel of the cgp rows that have a GPU time: the kernel of the plan the graph's stream made
    (the cgp module keeps a plan per stream, and select="measured" times the kernels anew for each), found
    among the cached plans of this shape on a stream other than the current one. Where it is not the kernel
    of the per-call time, the row's note says so."""
    here = torch.cuda.current_stream().cuda_stream
    for r in rows:
        if r["kind"] != "cgp" or not r["gpu_ms"]:
            continue
        prefix = r["variant"][len("cgp "):] + "-"  # kernel names start with their precision: "tf32-v8"
        graph = [p["kernel"].split(" ")[0] for p in cgp.cached_plans() if p["stream"] != here and
                 p["shape"] == tuple(shape[:5]) and p["kernel"].startswith(prefix)]
        r["gpu_kernel"] = graph[0] if graph else r["kernel"]
        if r["gpu_kernel"] != r["kernel"]:
            r["note"] += "; the graph's stream selected %s (GPU time), the current stream %s (per call)" % (
                r["gpu_kernel"], r["kernel"])
            print("  %s: the graph's stream selected %s, the current stream %s" % (r["variant"], r["gpu_kernel"],
                                                                               r["kernel"]))


def summarize_rows(rows):
    """Adds to each row of one problem: stats (per-call median, min, max) and gpu_stats (GPU-time median,
    min), each None without times; speedup (of cgp fp32's per-call median over the row's); failed (a
    checked row above its tolerance)."""
    base = next((r for r in rows if r["variant"] == "cgp fp32" and r["ms"]), None)
    base_ms = statistics.median(base["ms"]) if base else None
    for r in rows:
        r["stats"] = (statistics.median(r["ms"]), min(r["ms"]), max(r["ms"])) if r["ms"] else None
        r["gpu_stats"] = (statistics.median(r["gpu_ms"]), min(r["gpu_ms"])) if r["gpu_ms"] else None
        r["speedup"] = r["stats"][0] / base_ms if r["ms"] and base_ms else None
        r["failed"] = (bool(r["ms"]) and r["tolerance"] is not None
                       and not r.get("err_checked", r["err"]) <= r["tolerance"])


# ---- --train: forward + backward, time and peak memory ------------------------------------------
TRAIN_FIELDS = ["n", "cin", "cout", "h", "w", "padding", "precision", "cgp_kernel", "cgp_gpu_ms", "torch_gpu_ms",
                "gpu_speedup", "cgp_call_ms", "torch_call_ms", "call_speedup", "cgp_peak_mib", "torch_peak_mib",
                "peak_saved_mib", "grad_rel_diff", "note", "device", "torch", "cudnn", "cuda", "commit", "date"]
# cgp's gradients against PyTorch's pipeline's of the same class (the same backward but for the recomputed
# convolution's algorithm): a larger difference fails the run
TRAIN_GRAD_BOUND = {"fp32": 1e-4, "tf32": 1e-2, "3xtf32": 1e-4}
DEFAULT_PROBLEM = Shape(128, 8, 64, 256, 256, "valid")
MIB = 1024.0 * 1024.0


def train_row(torch, step, args):
    """Measures one forward+backward `step` (a callable returning the gradients): the first calls (cudnn's
    benchmark search, cgp's measured selection) untimed, then one call between reset_peak_memory_stats and
    max_memory_allocated, whose peak minus the memory allocated before it is the row's peak (the inputs, dy
    and anything held before are not in it; the gradients it returns are), then per-call times (time_ms)
    and the GPU time by CUDA-graph replay with grad mode on (time_graph_ms). Returns (gradients of the
    measured call, peak bytes, per-call ms list, GPU ms list or None, note)."""
    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    grads = step()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - before
    call_ms = time_ms(torch, step, 1, args.iters)
    gpu_ms, note = None, ""
    try:
        gpu_ms = time_graph_ms(torch, step, args.graph_runs, args.graph_replays, grad=True)
    except Exception as e:  # a step that cannot be captured keeps its per-call time
        note = "not capturable: " + one_line(e)
    torch.cuda.empty_cache()
    return grads, peak, call_ms, gpu_ms, note


def train_shape(shape, args):
    """Every precision of one shape in training: PyTorch's eager NCHW pipeline (conv2d -> gelu ->
    adaptive_avg_pool2d(1) -> flatten; TF32 off, then on) and cgp's op (each precision), each step the
    forward and torch.autograd.grad of x, weight and bias (all three require grad: a layer inside a network)
    for a fixed random dy. Returns one dict per precision: shape, precision, cgp_kernel, the times (median
    ms: cgp_gpu_ms, torch_gpu_ms, None where not capturable; cgp_call_ms, torch_call_ms), the peaks in
    bytes (cgp_peak, torch_peak), grad_rel_diff (the largest relative L2 difference of cgp's dx, dweight,
    dbias from PyTorch's of the class) and note."""
    import cgp
    import torch
    import torch.nn.functional as F
    x, w, b = (t.requires_grad_() for t in make_inputs(torch, shape, args.seed))
    dy = torch.rand(shape.n, shape.cout, generator=torch.Generator(device="cuda").manual_seed(args.seed + 1),
                    device="cuda") - 0.5
    pad = PADDING[shape.padding]
    print("problem N x Cin x Cout x H x W = %s, padding %s (training)" % (shape_name(shape), shape.padding))

    def torch_step():
        y = F.adaptive_avg_pool2d(F.gelu(F.conv2d(x, w, b, padding=pad)), 1).flatten(1)
        return torch.autograd.grad(y, (x, w, b), dy)

    def cgp_step(precision):
        return lambda: torch.autograd.grad(cgp.conv_gelu_mean(x, w, b, padding=shape.padding, precision=precision,
                                                              select="measured"), (x, w, b), dy)

    def measured(label, step, tf32):
        start = time.time()
        with Tf32(torch, tf32):
            result = train_row(torch, step, args)
        grads, peak, call_ms, gpu_ms, note = result
        print("  %-28s GPU %9s ms  per call %9.4f ms  peak %10.1f MiB  (%.0f s)%s" % (
            label, "%.4f" % statistics.median(gpu_ms) if gpu_ms else "-", statistics.median(call_ms), peak / MIB,
            time.time() - start, "  " + note if note else ""))
        return result

    pipeline = {tf32: measured("torch eager NCHW, %s" % tf32_tag(tf32), torch_step, tf32) for tf32 in (False, True)}
    out = []
    for precision, _ in PRECISIONS:
        tf32 = ZOO_TF32[precision]
        kernel = cgp.kernel_of(x.detach(), w.detach(), b.detach(), padding=shape.padding, precision=precision,
                               select="measured")[1]
        grads, peak, call_ms, gpu_ms, note = measured("cgp %s (%s)" % (precision, kernel), cgp_step(precision), tf32)
        torch_grads, torch_peak, torch_call_ms, torch_gpu_ms, torch_note = pipeline[tf32]
        diff = max(rel_l2(torch, got, want.double()) for got, want in zip(grads, torch_grads))
        notes = ["cgp " + note] if note else []
        notes += ["torch " + torch_note] if torch_note else []
        out.append({"shape": shape, "precision": precision, "cgp_kernel": kernel,
                    "cgp_gpu_ms": statistics.median(gpu_ms) if gpu_ms else None,
                    "torch_gpu_ms": statistics.median(torch_gpu_ms) if torch_gpu_ms else None,
                    "cgp_call_ms": statistics.median(call_ms), "torch_call_ms": statistics.median(torch_call_ms),
                    "cgp_peak": peak, "torch_peak": torch_peak, "grad_rel_diff": diff, "note": "; ".join(notes)})
        del grads
    cgp.clear_cache()
    return out


def write_train(path, meta, records):
    """results/h200/train.csv (TRAIN_FIELDS), written whole or not at all."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    mib = lambda v: "%.1f" % (v / MIB)
    with open(path + ".tmp", "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=TRAIN_FIELDS)
        out.writeheader()
        for r in records:
            rec = dict(zip(("n", "cin", "cout", "h", "w", "padding"), r["shape"]), **meta)
            rec.update({"precision": r["precision"], "cgp_kernel": r["cgp_kernel"],
                        "cgp_gpu_ms": fmt_ms(r["cgp_gpu_ms"]), "torch_gpu_ms": fmt_ms(r["torch_gpu_ms"]),
                        "gpu_speedup": fmt_speedup(ratio(r["torch_gpu_ms"], r["cgp_gpu_ms"])),
                        "cgp_call_ms": fmt_ms(r["cgp_call_ms"]), "torch_call_ms": fmt_ms(r["torch_call_ms"]),
                        "call_speedup": fmt_speedup(ratio(r["torch_call_ms"], r["cgp_call_ms"])),
                        "cgp_peak_mib": mib(r["cgp_peak"]), "torch_peak_mib": mib(r["torch_peak"]),
                        "peak_saved_mib": mib(r["torch_peak"] - r["cgp_peak"]),
                        "grad_rel_diff": "%.3e" % r["grad_rel_diff"], "note": r["note"]})
            out.writerow(rec)
    os.replace(path + ".tmp", path)


def print_train_summary(records):
    """Per precision: the GPU-time speedup of forward+backward over PyTorch's pipeline of the class and the
    ratio of the peaks (PyTorch's / cgp's) over the shapes; then the default problem's peaks and what cgp
    saves there."""
    for precision, _ in PRECISIONS:
        mine = [r for r in records if r["precision"] == precision]
        count, low, where, geomean, below = ratio_summary([(r["shape"], ratio(r["torch_gpu_ms"], r["cgp_gpu_ms"]))
                                                           for r in mine])
        line = "train %s: forward+backward GPU time over PyTorch eager NCHW (%s): " % (
            precision, tf32_tag(ZOO_TF32[precision]))
        line += ("%d shapes, min %.2fx (%s), geometric mean %.2fx, %d below 1.0x" % (count, low, where, geomean, below)
                 if count else "no shape with both GPU times")
        count, low, where, geomean, _ = ratio_summary([(r["shape"], ratio(r["torch_peak"], r["cgp_peak"]))
                                                       for r in mine])
        if count:
            line += "; peak memory PyTorch / cgp min %.2fx (%s), geometric mean %.2fx" % (low, where, geomean)
        print(line)
    default = [r for r in records if r["shape"] == DEFAULT_PROBLEM]
    if not default:
        print("train: the default problem (%s %s) is not among the shapes" % (shape_name(DEFAULT_PROBLEM),
                                                                            DEFAULT_PROBLEM.padding))
    for r in default:
        print("train, the default problem (%s %s), %s: peak memory of forward+backward above what it started with: "
              "PyTorch %.1f MiB, cgp %.1f MiB, %.1f MiB saved (%.2fx)" % (
                  shape_name(DEFAULT_PROBLEM), DEFAULT_PROBLEM.padding, r["precision"], r["torch_peak"] / MIB,
                  r["cgp_peak"] / MIB, (r["torch_peak"] - r["cgp_peak"]) / MIB, ratio(r["torch_peak"], r["cgp_peak"])))


def run_train(shapes, meta, args):
    """--train: train_shape() for every shape, train.csv, the summary. Exit 1 when cgp's gradients differ
    from PyTorch's by more than TRAIN_GRAD_BOUND, else 0."""
    start = time.time()
    records = []
    for shape in shapes:
        records += train_shape(shape, args)
    write_train(args.train_csv, meta, records)
    print("\nwrote %s (%.0f s)" % (args.train_csv, time.time() - start))
    print_train_summary(records)
    off = ["%s %s %s: %.2e" % (shape_name(r["shape"]), r["shape"].padding, r["precision"], r["grad_rel_diff"])
           for r in records if not r["grad_rel_diff"] <= TRAIN_GRAD_BOUND[r["precision"]]]
    if off:
        print("torch_compare: cgp's gradients differ from PyTorch's beyond the bound: %s" % "; ".join(off),
              file=sys.stderr)
        return 1
    return 0


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
ZOO_TF32 = {"fp32": False, "tf32": True, "3xtf32": False}

# results/h200/zoo.csv: the columns issue 16 fixed, then those of GPU time
ZOO_FIELDS = ["n", "cin", "cout", "h", "w", "padding", "precision", "cgp_kernel", "cgp_ms", "best_torch_row",
              "best_torch_ms", "speedup", "cgp_gpu_ms", "best_torch_gpu_row", "best_torch_gpu_ms", "conv_alone_gpu_ms",
              "gpu_speedup"]


def ratio(num, den):
    """num / den, or None when either is missing."""
    return num / den if num is not None and den else None


def zoo_rows(shapes, rows):
    """Per shape and cgp precision, cgp's row beside the PyTorch rows of its class (ZOO_TF32): a dict with
    shape, precision, cgp_kernel and cgp_gpu_kernel, cgp_ms, best_torch_row and best_torch_ms (the fastest
    per call), speedup (best_torch_ms / cgp_ms), cgp_gpu_ms, best_torch_gpu_row and best_torch_gpu_ms (the
    fastest by GPU time, which can be another row), gpu_speedup (best_torch_gpu_ms / cgp_gpu_ms),
    conv_alone_gpu_ms (the fastest GPU time of cuDNN's convolution alone in the class, NCHW or
    channels_last) and vs_conv_alone (conv_alone_gpu_ms / cgp_gpu_ms). Only rows of kind "torch" can be a
    best row; times and ratios are None where missing, rows "none"."""
    out = []
    for shape in shapes:
        mine = [r for r in rows if r["shape"] == shape_name(shape) and r["padding"] == shape.padding]
        for precision, _ in PRECISIONS:
            tf32 = ZOO_TF32[precision]
            cgp_row = next(r for r in mine if r["variant"] == "cgp " + precision)
            torch_rows = [r for r in mine if r["kind"] == "torch" and r["tf32"] == tf32]
            fastest = min((r for r in torch_rows if r["stats"]), key=lambda r: r["stats"][0], default=None)
            fastest_gpu = min((r for r in torch_rows if r["gpu_stats"]), key=lambda r: r["gpu_stats"][0], default=None)
            conv_alone = min((r["gpu_stats"][0] for r in mine if r["kind"] == "conv alone" and r["tf32"] == tf32
                              and r["gpu_stats"]), default=None)
            rec = {"shape": shape, "precision": precision, "cgp_kernel": cgp_row["kernel"] or "unavailable",
                   "cgp_gpu_kernel": cgp_row["gpu_kernel"] or cgp_row["kernel"] or "unavailable",
                   "cgp_ms": cgp_row["stats"][0] if cgp_row["stats"] else None,
                   "best_torch_row": fastest["variant"] if fastest else "none",
                   "best_torch_ms": fastest["stats"][0] if fastest else None,
                   "cgp_gpu_ms": cgp_row["gpu_stats"][0] if cgp_row["gpu_stats"] else None,
                   "best_torch_gpu_row": fastest_gpu["variant"] if fastest_gpu else "none",
                   "best_torch_gpu_ms": fastest_gpu["gpu_stats"][0] if fastest_gpu else None,
                   "conv_alone_gpu_ms": conv_alone}
            rec["speedup"] = ratio(rec["best_torch_ms"], rec["cgp_ms"])
            rec["gpu_speedup"] = ratio(rec["best_torch_gpu_ms"], rec["cgp_gpu_ms"])
            rec["vs_conv_alone"] = ratio(conv_alone, rec["cgp_gpu_ms"])
            out.append(rec)
    return out


def shape_label(shape):
    """"NxCinxCoutxHxW padding" of a Shape, as the summary names the shape of a minimum."""
    return "%s %s" % (shape_name(shape), shape.padding)


def ratio_summary(pairs):
    """(count, minimum, shape_label of the minimum's shape, geometric mean, how many below 1.0) of the ratios
    in (shape, ratio) pairs, those whose ratio is None left out; (0, None, None, None, 0) when none is left."""
    import math
    known = [(v, shape) for shape, v in pairs if v is not None]
    if not known:
        return 0, None, None, None, 0
    low, where = min(known, key=lambda p: p[0])
    return (len(known), low, shape_label(where), math.exp(sum(math.log(v) for v, _ in known) / len(known)),
            sum(v < 1.0 for v, _ in known))


def zoo_summary(best, precision):
    """The numbers the zoo summary gives for one precision, each a ratio_summary() over the zoo_rows() of
    that precision: "gpu" (GPU-time speedup over the fastest PyTorch row), "conv_alone" (cgp's GPU time
    against cuDNN's convolution alone: conv_alone_gpu_ms / cgp_gpu_ms) and "per_call" (the per-call
    speedup)."""
    mine = [r for r in best if r["precision"] == precision]
    return {key: ratio_summary([(r["shape"], r[field]) for r in mine])
            for key, field in (("gpu", "gpu_speedup"), ("conv_alone", "vs_conv_alone"), ("per_call", "speedup"))}


def print_zoo_summary(f, best):
    """Two lines per precision into file f, from zoo_summary(): GPU time first (over the fastest PyTorch row,
    then against cuDNN's convolution alone), then per call, host launches included."""
    for precision, _ in PRECISIONS:
        numbers = zoo_summary(best, precision)
        count, low, where, geomean, below = numbers["gpu"]
        if count:
            line = ("zoo %s: %d shapes, GPU-time speedup over the fastest PyTorch row (%s) min %.2fx (%s), geometric "
                    "mean %.2fx, %d below 1.0x" % (precision, count, tf32_tag(ZOO_TF32[precision]), low, where,
                                                   geomean, below))
        else:
            line = "zoo %s: no shape with both a cgp and a PyTorch GPU time" % precision
        conv_count, low, where, geomean, below = numbers["conv_alone"]
        if conv_count:
            line += "; against cuDNN's convolution alone%s min %.2fx (%s), geometric mean %.2fx, %d below 1.0x" % (
                " (%d shapes)" % conv_count if conv_count != count else "", low, where, geomean, below)
        else:
            line += "; against cuDNN's convolution alone: no shape with both GPU times"
        print(line, file=f)
        count, low, where, geomean, below = numbers["per_call"]
        if count:
            print("zoo %s per-call (host launches included): %d shapes, speedup over the fastest PyTorch row min "
                  "%.2fx (%s), geometric mean %.2fx, %d below 1.0x" % (precision, count, low, where, geomean, below),
                  file=f)
        else:
            print("zoo %s per-call (host launches included): no shape with both a cgp and a PyTorch time" % precision,
                  file=f)


def fmt_ms(v):
    """A time in ms as the zoo files write it; "" when missing."""
    return "%.5f" % v if v is not None else ""


def fmt_speedup(v):
    """A speedup as zoo.csv writes it; "" when missing."""
    return "%.3f" % v if v is not None else ""


def write_zoo(csv_path, md_path, meta, best, args):
    """results/h200/zoo.csv (ZOO_FIELDS) and zoo.md (the GPU-time table, then the per-call one, then the
    summary), each written whole or not at all"""
    for path in (csv_path, md_path):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(csv_path + ".tmp", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(ZOO_FIELDS)
        for r in best:
            out.writerow(list(r["shape"]) + [
                r["precision"], r["cgp_kernel"], fmt_ms(r["cgp_ms"]), r["best_torch_row"], fmt_ms(r["best_torch_ms"]),
                fmt_speedup(r["speedup"]), fmt_ms(r["cgp_gpu_ms"]), r["best_torch_gpu_row"],
                fmt_ms(r["best_torch_gpu_ms"]), fmt_ms(r["conv_alone_gpu_ms"]), fmt_speedup(r["gpu_speedup"])])
    times = lambda v: "%.2fx" % v if v is not None else "-"
    with open(md_path + ".tmp", "w") as f:
        f.write("# cgp against the fastest PyTorch row, per zoo shape\n\n")
        f.write("Device %(device)s, PyTorch %(torch)s, cuDNN %(cudnn)s, CUDA %(cuda)s, commit %(commit)s, %(date)s.\n"
                % meta)
        f.write("`scripts/torch_compare.py --zoo%s`, in one process on the same tensors; cudnn.benchmark on, cgp's "
                "measured kernel selection. fp32 and 3xtf32 against PyTorch with TF32 off, tf32 against PyTorch with "
                "TF32 on.\n\n"
                "GPU time, the measure: per row, %d warm-up calls on a dedicated stream, then %d calls captured into "
                "one CUDA graph on it, one untimed replay, then %d replays each timed with CUDA events; a replay's "
                "time / %d per call, median over the replays. No host launch is inside it. cuDNN's convolution alone "
                "is `F.conv2d` with its bias and nothing else, the fastest of NCHW and channels_last with the "
                "class's TF32 setting: not the function, never a best row.\n\n"
                % (" --max-autotune" if args.max_autotune else "", WARMUP_BEFORE_CAPTURE, args.graph_runs,
                   args.graph_replays, args.graph_runs))
        f.write("| N | Cin | Cout | H x W | padding | precision | cgp kernel | cgp GPU ms | fastest PyTorch row (GPU) | "
                "its GPU ms | GPU speedup | cuDNN conv alone GPU ms | cgp vs conv alone |\n"
                "|---:|---:|---:|---|---|---|---|---:|---|---:|---:|---:|---:|\n")
        for r in best:
            s = r["shape"]
            f.write("| %d | %d | %d | %dx%d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
                s.n, s.cin, s.cout, s.h, s.w, s.padding, r["precision"], r["cgp_gpu_kernel"],
                fmt_ms(r["cgp_gpu_ms"]) or "-", r["best_torch_gpu_row"], fmt_ms(r["best_torch_gpu_ms"]) or "-",
                times(r["gpu_speedup"]), fmt_ms(r["conv_alone_gpu_ms"]) or "-", times(r["vs_conv_alone"])))
        f.write("\nPer-call wall time, host launches included: CUDA events around each call on the current stream, "
                "median of %d timed calls after %d warm-up.\n\n" % (args.iters, args.warmup))
        f.write("| N | Cin | Cout | H x W | padding | precision | cgp kernel | cgp ms per call | fastest PyTorch row "
                "(per call) | its ms per call | per-call speedup |\n|---:|---:|---:|---|---|---|---|---:|---|---:|---:|\n")
        for r in best:
            s = r["shape"]
            f.write("| %d | %d | %d | %dx%d | %s | %s | %s | %s | %s | %s | %s |\n" % (
                s.n, s.cin, s.cout, s.h, s.w, s.padding, r["precision"], r["cgp_kernel"], fmt_ms(r["cgp_ms"]) or "-",
                r["best_torch_row"], fmt_ms(r["best_torch_ms"]) or "-", times(r["speedup"])))
        f.write("\n")
        print_zoo_summary(f, best)
    os.replace(csv_path + ".tmp", csv_path)
    os.replace(md_path + ".tmp", md_path)


def print_table(rows):
    """Every row as a Markdown table on stdout: GPU time, per-call time, error, cgp fp32's speedup, note."""
    print()
    print("| problem | variant | GPU ms median | GPU ms min | per-call ms median | per-call ms min | per-call ms max | "
          "rel L2 err vs fp64 | cgp fp32 speedup (per call) | note |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        problem = "%s %s" % (r["shape"], r["padding"])
        if not r["ms"]:
            print("| %s | %s | - | - | - | - | - | - | - | %s |" % (problem, r["variant"], r["note"]))
            continue
        gpu = ("%.4f" % r["gpu_stats"][0], "%.4f" % r["gpu_stats"][1]) if r["gpu_stats"] else ("-", "-")
        mark = " (above %.0e on what it is checked against!)" % r["tolerance"] if r["failed"] else ""
        print("| %s | %s | %s | %s | %.4f | %.4f | %.4f | %s%s | %s | %s |" % (
            problem, r["variant"], gpu[0], gpu[1], r["stats"][0], r["stats"][1], r["stats"][2],
            "%.2e" % r["err"] if r["err"] is not None else "not checked", mark,
            "%.2fx" % r["speedup"] if r["speedup"] else "n/a", r["note"]))


ROW_FIELDS = ["device", "torch", "cudnn", "cuda", "commit", "date", "shape", "padding", "variant", "status",
              "ms_median", "ms_min", "ms_max", "iters", "gpu_ms_median", "gpu_ms_min", "gpu_runs_per_graph",
              "rel_l2_error", "speedup_of_cgp_fp32", "note"]


def write_csv(path, meta, rows, args):
    """Every row into the CSV at `path` (ROW_FIELDS; ms_*: per call, gpu_ms_*: GPU time, empty where a row has
    none), written whole or not at all."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=ROW_FIELDS)
        out.writeheader()
        for r in rows:
            ok, gpu = bool(r["ms"]), r["gpu_stats"]
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
                "gpu_ms_median": "%.5f" % gpu[0] if gpu else "",
                "gpu_ms_min": "%.5f" % gpu[1] if gpu else "",
                "gpu_runs_per_graph": args.graph_runs if gpu else "",
                "rel_l2_error": "%.3e" % r["err"] if ok and r["err"] is not None else "",
                "speedup_of_cgp_fp32": "%.3f" % r["speedup"] if ok and r.get("speedup") else "",
                "note": r["note"],
            })
            out.writerow(rec)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
