#!/usr/bin/env python3
"""py_call_overhead.py - what a Python call of cgp.conv_gelu_mean costs beside the kernel it launches,
and beside PyTorch's eager pipeline, per shape and precision, on a GPU with PyTorch.

For each shape and precision (select="measured", reduce="det", as scripts/torch_compare.py calls cgp),
under torch.no_grad(), one table row:

    kernel ms        the launch alone: --graph-calls calls captured back to back in one CUDA graph
                     (after a warm-up call on a side stream), each of --replays replays timed by CUDA
                     events and divided by the calls; median (includes the graph's gaps between launches)
    fast ms          cgp.conv_gelu_mean on the eager fast path (docs/python.md, "Per-call cost")
    op ms            torch.ops.cgp.conv_gelu_mean, the custom op's eager dispatch
    torch ms         PyTorch eager F.conv2d -> F.gelu -> F.adaptive_avg_pool2d(1) -> flatten, TF32 on
                     for the tf32 rows and off for the others, cudnn.benchmark on
                     (these three: CUDA events around each call, median of --iters after --warmup,
                     torch_compare.time_ms, as torch_compare.py times its rows)
    fast/op/torch us host wall time a call of the same three in a loop of --loop calls: time.perf_counter
                     around the loop, one synchronize at its end; median of --repeats loops

Each row first checks that the rule sends the call to the fast path and that its output has the bits
of the op's. --breakdown prints instead, per shape and precision, the host microseconds of each step of
a fast-path call, each in its own loop (no synchronize inside; median of --repeats loops of --loop): the
whole call, the eager rule, the option lookup, prepare_own, the plan lookup, the output's allocation,
the library call through ctypes (cgp_plan_run: the launch), a trivial ctypes call
(cgp_plan_workspace_size), and the timer's two Event.record() calls with and without the stream given.
--profile runs cProfile on --calls calls of the first shape and precision, on the fast path or through
the op, and prints the --top functions by tottime instead of the table.

Usage (from the repository root, after `make build/libcgp.so`):
    python3 scripts/py_call_overhead.py [--shape N,CIN,COUT,H,W,PADDING ...] [--precision all|fp32,tf32,...]
        [--iters 200 --warmup 20 --graph-calls 50 --replays 20 --loop 200 --repeats 5] [--lib build/libcgp.so]
    python3 scripts/py_call_overhead.py --profile [fast|op] [--calls 1000 --top 25] [--shape ...]
    python3 scripts/py_call_overhead.py --breakdown [--shape ...] [--precision ...] [--loop 200 --repeats 5]

Without PyTorch or without a GPU it says so and exits 0. Exit 1 when a call (or --profile fast) does not
take the fast path or its output differs from the op's; exit 2 on bad arguments or a missing library.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_compare  # noqa: E402 (scripts/: load_cgp, cuda_torch, make_inputs, time_ms, Tf32, Shape, ...)

# the zoo's small shapes (host/bench/zoo.csv), where a call's host time weighs most
SMALL_SHAPES = [torch_compare.Shape(16, 256, 256, 14, 14, "same"), torch_compare.Shape(8, 512, 512, 7, 7, "same"),
                torch_compare.Shape(1, 8, 64, 256, 256, "valid"), torch_compare.Shape(128, 64, 64, 32, 32, "valid")]
PRECISIONS = [name for name, _ in torch_compare.PRECISIONS]


def shape_text(shape):
    return "%d,%d,%d,%d,%d,%s" % shape


def parse_shape(text):
    """"N,CIN,COUT,H,W,PADDING" -> Shape; ValueError saying what is wrong."""
    parts = text.split(",")
    if len(parts) != 6 or parts[5] not in torch_compare.PADDING:
        raise ValueError("a shape is N,CIN,COUT,H,W,PADDING with PADDING valid or same, got %r" % text)
    try:
        dims = [int(p) for p in parts[:5]]
    except ValueError:
        raise ValueError("N, CIN, COUT, H, W must be whole numbers, got %r" % text) from None
    if min(dims) < 1 or min(dims[3:]) + 2 * torch_compare.PADDING[parts[5]] < 3:
        raise ValueError("%r: every dimension must be >= 1 and give an output pixel" % text)
    return torch_compare.Shape(*dims, parts[5])


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", action="append", metavar="N,CIN,COUT,H,W,PADDING",
                    help="a shape (repeatable; default the zoo's small shapes: %s)"
                    % "; ".join(shape_text(s) for s in SMALL_SHAPES))
    ap.add_argument("--precision", default="all", help="all, or a comma-separated list of %s" % ", ".join(PRECISIONS))
    ap.add_argument("--iters", type=int, default=200, help="calls timed by CUDA events per row (median)")
    ap.add_argument("--warmup", type=int, default=20, help="untimed calls first")
    ap.add_argument("--graph-calls", type=int, default=50, help="calls captured back to back in the kernel's graph")
    ap.add_argument("--replays", type=int, default=20, help="timed replays of that graph")
    ap.add_argument("--loop", type=int, default=200, help="calls in a host-timed loop")
    ap.add_argument("--repeats", type=int, default=5, help="host-timed loops per row (median)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lib", help="path of libcgp.so (default: CGP_LIBRARY, else where the cgp module looks)")
    ap.add_argument("--profile", nargs="?", const="fast", choices=["fast", "op"],
                    help="cProfile of --calls calls of the first shape and precision, on the fast path (default) "
                    "or through torch.ops, instead of the table")
    ap.add_argument("--breakdown", action="store_true",
                    help="host microseconds of each step of a fast-path call instead of the table")
    ap.add_argument("--calls", type=int, default=1000, help="--profile: calls profiled")
    ap.add_argument("--top", type=int, default=25, help="--profile: functions printed, by tottime")
    args = ap.parse_args(argv)
    try:
        args.shapes = [parse_shape(s) for s in args.shape] if args.shape else SMALL_SHAPES
    except ValueError as e:
        ap.error(str(e))
    args.precisions = PRECISIONS if args.precision == "all" else args.precision.split(",")
    unknown = [p for p in args.precisions if p not in PRECISIONS]
    if unknown:
        ap.error("--precision: unknown %s (choices: all, %s)" % (", ".join(unknown), ", ".join(PRECISIONS)))
    for name in ("iters", "warmup", "graph_calls", "replays", "loop", "repeats", "calls", "top"):
        if getattr(args, name) < 1:
            ap.error("--%s must be at least 1" % name.replace("_", "-"))
    return args


def calls(torch, cgp, shape, precision, x, w, b):
    """The three calls a row times: {"fast": ..., "op": ..., "torch": ...}, each returning y."""
    import torch.nn.functional as F
    pad = torch_compare.PADDING[shape.padding]
    return {
        "fast": lambda: cgp.conv_gelu_mean(x, w, b, padding=shape.padding, precision=precision, select="measured"),
        "op": lambda: torch.ops.cgp.conv_gelu_mean(x, w, b, shape.padding, precision, "det", "measured"),
        "torch": lambda: F.adaptive_avg_pool2d(F.gelu(F.conv2d(x, w, b, padding=pad)), 1).flatten(1),
    }


def graph_ms(torch, fn, count, replays):
    """ms a launch of fn: `count` calls captured in one CUDA graph, each replay timed, over count; median."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(count):
            fn()
    return statistics.median(torch_compare.time_ms(torch, graph.replay, 2, replays)) / count


def loop_us(torch, fn, loop, repeats, drained=True):
    """Microseconds a call of fn in a loop of `loop` calls, median of repeats: with `drained`, host wall time up to
    the end of the loop's GPU work (one synchronize at the loop's end, inside the timing); without, the host's
    time alone (the launches queue up, and the GPU drains them after the timing)."""
    per_call = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(loop):
            fn()
        if drained:
            torch.cuda.synchronize()
        per_call.append((time.perf_counter() - start) / loop * 1e6)
        torch.cuda.synchronize()
    return statistics.median(per_call)


def measure(torch, cgp, shape, precision, args):
    """One row: kernel, kernel/fast/op/torch ms, fast/op/torch host us; or a dict with "problem"."""
    x, w, b = torch_compare.make_inputs(torch, shape, args.seed)
    fns = calls(torch, cgp, shape, precision, x, w, b)
    row = {"shape": shape, "precision": precision}
    if not cgp.torch._fast(x, w, b):
        row["problem"] = "the eager fast path's rule sends the call through torch.ops"
        return row
    fast, op = fns["fast"](), fns["op"]()
    torch.cuda.synchronize()
    if not torch.equal(fast.view(torch.int32), op.view(torch.int32)):
        row["problem"] = "the fast path's output differs from torch.ops'"
        return row
    row["kernel"] = cgp.kernel_of(x, w, b, padding=shape.padding, precision=precision, select="measured")[1]
    row["kernel_ms"] = graph_ms(torch, fns["fast"], args.graph_calls, args.replays)
    with torch_compare.Tf32(torch, precision == "tf32"):
        for name, fn in fns.items():
            row[name + "_ms"] = statistics.median(torch_compare.time_ms(torch, fn, args.warmup, args.iters))
            row[name + "_us"] = loop_us(torch, fn, args.loop, args.repeats)
    return row


def breakdown(torch, cgp, shape, precision, args):
    """(kernel name, [(step, host us)]) of a fast-path call's steps, each timed alone (loop_us, not drained)."""
    import ctypes
    from cgp import _arrays, _lib
    x, w, b = torch_compare.make_inputs(torch, shape, args.seed)
    if not cgp.torch._fast(x, w, b):
        raise RuntimeError("the eager fast path's rule sends the call through torch.ops")
    call = calls(torch, cgp, shape, precision, x, w, b)["fast"]
    call()
    tensors, cache = cgp.torch._tensors, cgp._cache
    options = _lib.option_values(shape.padding, precision, "det", "measured")
    ptrs, dims, device = _arrays.prepare_own(tensors, x, w, b, options.padding)
    plan, stream = cache.plan(tensors, ptrs, dims, device, options)
    y = tensors.empty((dims[0], dims[2]), device)
    run, size, nbytes = cache._run_plan, cache._lib.fn("cgp_plan_workspace_size"), ctypes.c_size_t()
    start, end, current = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True), \
        torch.cuda.current_stream()

    def record_events():
        start.record()
        end.record()

    def record_events_on_stream():
        start.record(current)
        end.record(current)

    steps = [
        ("call", call),
        ("eager rule", lambda: cgp.torch._fast(x, w, b)),
        ("options", lambda: _lib.option_values(shape.padding, precision, "det", "measured")),
        ("prepare_own", lambda: _arrays.prepare_own(tensors, x, w, b, options.padding)),
        ("plan lookup", lambda: cache.plan(tensors, ptrs, dims, device, options)),
        ("output", lambda: tensors.empty((dims[0], dims[2]), device)),
        ("cgp_plan_run", lambda: run(plan.handle, ptrs[0], ptrs[1], ptrs[2], y.data_ptr(), plan.workspace_ptr,
                                     plan.workspace_bytes, stream)),
        ("trivial ctypes call", lambda: size(plan.handle, ctypes.byref(nbytes))),
        ("2 Event.record()", record_events),
        ("2 Event.record(stream)", record_events_on_stream),
    ]
    return plan.name, [(name, loop_us(torch, fn, args.loop, args.repeats, drained=False)) for name, fn in steps]


def print_breakdown(rows):
    names = [name for name, _ in rows[0][2]]
    print("| N, Cin -> Cout, H x W, padding | precision | kernel | %s |" % " | ".join(names))
    print("|---|---|---|" + "---:|" * len(names))
    for (shape, precision), kernel, steps in rows:
        where = "%d, %d -> %d, %dx%d, %s" % (shape.n, shape.cin, shape.cout, shape.h, shape.w, shape.padding)
        print("| %s | %s | %s | %s |" % (where, precision, kernel, " | ".join("%.1f" % us for _, us in steps)))
    print("\nhost microseconds a call of each step, in a loop of its own without a synchronize (median of loops)")


def print_table(rows):
    print("| N, Cin -> Cout, H x W, padding | precision | kernel | kernel ms | fast ms | op ms | torch ms | "
          "fast us | op us | torch us |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        s = r["shape"]
        where = "%d, %d -> %d, %dx%d, %s" % (s.n, s.cin, s.cout, s.h, s.w, s.padding)
        if "problem" in r:
            print("| %s | %s | %s | - | - | - | - | - | - | - |" % (where, r["precision"], r["problem"]))
            continue
        print("| %s | %s | %s | %.4f | %.4f | %.4f | %.4f | %.1f | %.1f | %.1f |" % (
            where, r["precision"], r["kernel"], r["kernel_ms"], r["fast_ms"], r["op_ms"], r["torch_ms"],
            r["fast_us"], r["op_us"], r["torch_us"]))
    print("\nms: CUDA events (kernel: in a CUDA graph; the others: around each call); us: host wall time a call "
          "in a loop")


def profile(torch, cgp, shape, precision, args):
    """cProfile of args.calls calls on the args.profile path; prints the top args.top by tottime. Returns the
    exit code: 1 when the fast path is asked for and the rule would not take it."""
    import cProfile
    import pstats
    x, w, b = torch_compare.make_inputs(torch, shape, args.seed)
    if args.profile == "fast" and not cgp.torch._fast(x, w, b):
        print("py_call_overhead: the eager fast path's rule sends the call through torch.ops", file=sys.stderr)
        return 1
    fn = calls(torch, cgp, shape, precision, x, w, b)[args.profile]
    for _ in range(args.warmup):
        fn()
    torch.cuda.synchronize()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(args.calls):
        fn()
    torch.cuda.synchronize()
    profiler.disable()
    print("cProfile of %d calls on the %s path, shape %s, %s:" % (args.calls, args.profile, shape_text(shape),
                                                                 precision))
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(args.top)
    return 0


def main(argv):
    args = parse_args(argv)
    cgp = torch_compare.load_cgp(args.lib)
    if cgp is None:
        return 2
    torch = torch_compare.cuda_torch("py_call_overhead", "measure")
    if torch is None:
        return 0
    torch.backends.cudnn.benchmark = True
    print("device %s, torch %s, CUDA %s, commit %s, libcgp %s" % (
        torch.cuda.get_device_name(), torch.__version__, torch.version.cuda, torch_compare.git_commit(),
        cgp.library_path))
    with torch.no_grad():
        if args.profile:
            return profile(torch, cgp, args.shapes[0], args.precisions[0], args)
        if args.breakdown:
            rows = []
            for shape in args.shapes:
                for precision in args.precisions:
                    rows.append(((shape, precision),) + breakdown(torch, cgp, shape, precision, args))
                cgp.clear_cache()
            print()
            print_breakdown(rows)
            return 0
        rows = []
        for shape in args.shapes:
            for precision in args.precisions:
                rows.append(measure(torch, cgp, shape, precision, args))
                print("  measured %s %s" % (shape_text(shape), precision), file=sys.stderr, flush=True)
            cgp.clear_cache()
    print()
    print_table(rows)
    return 1 if any("problem" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
