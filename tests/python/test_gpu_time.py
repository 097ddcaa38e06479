#!/usr/bin/env python3
"""test_gpu_time.py - scripts/torch_compare.py's GPU time (CUDA-graph replay) and the zoo files it writes, one
line per case: "PASS name", "FAIL name: why" or "SKIP name: why" (tests/run_tests.sh counts them); exit 1 on
any FAIL.

CPU cases, always (Python's standard library only, on fake rows): zoo_rows() and write_zoo() give zoo.csv
exactly its columns, gpu_speedup = best_torch_gpu_ms / cgp_gpu_ms, empty cells where a time is missing;
cuDNN's convolution alone and the layout row are never a best row; the "no TF32 seen" classification;
zoo_summary()'s minimum, geometric mean and count below 1.0x; zoo.md's order (GPU time first); the per-row
CSV's GPU columns; the timing options' defaults.
GPU cases (PyTorch with a CUDA device; without one, a single SKIP ending in "(skips the rest of the
program)", exit 0): time_graph_ms() against the profiler's sum of device activity over 20 calls, within
10%, for cgp tf32 and for PyTorch's eager NCHW pipeline on (32, 64, 128, 56, 56, same); a graph replay of a
cgp call writes the same y as an eager call; a call that cannot be captured raises, leaves the caller's
stream current and not capturing, and the next capture works.

Environment: CGP_LIBRARY (default $BUILD/libcgp.so, BUILD default build), CGP_TEST_SEED (default 1),
CGP_TEST_TMP (scratch directory, default /tmp).
Run from anywhere: python3 tests/python/test_gpu_time.py
"""
import csv
import io
import math
import os
import statistics
import sys
import tempfile
import types

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("CGP_LIBRARY", os.path.join(REPO, os.environ.get("BUILD", "build"), "libcgp.so"))
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.join(REPO, "scripts"))
import torch_compare  # noqa: E402 (scripts/)
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
from pycases import Fail, gpu_absent, expect, failed, run_case  # noqa: E402 (tests/lib/)

ZOO_HEADER = ("n,cin,cout,h,w,padding,precision,cgp_kernel,cgp_ms,best_torch_row,best_torch_ms,speedup,"
              "cgp_gpu_ms,best_torch_gpu_row,best_torch_gpu_ms,conv_alone_gpu_ms,gpu_speedup")
SHAPE = torch_compare.Shape(32, 64, 128, 56, 56, "same")  # the GPU cases' shape, and the fake rows' first
OTHER = torch_compare.Shape(1, 8, 64, 256, 256, "valid")  # the fake rows' second shape: cgp fp32 not capturable
ARGS = types.SimpleNamespace(max_autotune=False, iters=20, warmup=3, graph_runs=20, graph_replays=15)
META = {"device": "NVIDIA H200", "torch": "2.11.0", "cudnn": "91900", "cuda": "13.0", "commit": "0123456789ab",
        "date": "2026-12-02T11:04:02+00:00"}



# ---- CPU: fake rows through the zoo's pure functions ----------------------------------------------
def fake_row(shape, variant, kind, tf32, ms, gpu_ms, err=None, kernel=""):
    """A row as compare_shape() makes it, before summarize_rows()."""
    return {"shape": torch_compare.shape_name(shape), "padding": shape.padding, "variant": variant, "kind": kind,
            "tf32": tf32, "kernel": kernel, "gpu_kernel": kernel if gpu_ms else "", "ms": ms, "gpu_ms": gpu_ms,
            "err": err, "tolerance": None, "note": "fake"}


def fake_rows():
    """Rows of SHAPE and OTHER (summarized). On SHAPE the per-call fastest of TF32 off is eager NCHW (2.0 ms) but
    the GPU-time fastest is eager channels_last (1.2 ms); cuDNN's convolution alone and the layout row are faster
    than every row of the function; torch.compile is not capturable. On OTHER cgp fp32 is not capturable."""
    rows = []
    for shape, fp32_gpu in ((SHAPE, [0.5, 0.4, 0.9]), (OTHER, None)):
        rows += [fake_row(shape, "cgp fp32", "cgp", None, [1.0, 1.1, 0.9], fp32_gpu, 3e-8, "fp32-v9"),
                 fake_row(shape, "cgp tf32", "cgp", None, [0.4], [0.2], 5e-5, "tf32-v8"),
                 fake_row(shape, "cgp 3xtf32", "cgp", None, [0.6], [0.3], 2e-7, "3xtf32-v8"),
                 fake_row(shape, "torch eager NCHW fp32, tf32 off", "torch", False, [2.0], [1.5], 1e-7),
                 fake_row(shape, "torch eager channels_last fp32, tf32 off", "torch", False, [2.5], [1.2], 1e-7),
                 fake_row(shape, "torch eager NCHW fp32, tf32 on", "torch", True, [1.0], [0.8], 3e-4),
                 fake_row(shape, "torch eager channels_last fp32, tf32 on", "torch", True, [1.1], [0.9], 3e-4),
                 fake_row(shape, "cudnn conv alone NCHW, tf32 off", "conv alone", False, [0.3], [0.25]),
                 fake_row(shape, "cudnn conv alone channels_last, tf32 off", "conv alone", False, [0.35], [0.2]),
                 fake_row(shape, "cudnn conv alone NCHW, tf32 on", "conv alone", True, [0.12], [0.1]),
                 fake_row(shape, "cudnn conv alone channels_last, tf32 on", "conv alone", True, [0.2], [0.15]),
                 fake_row(shape, "layout NCHW->channels_last", "layout", None, [0.05], [0.04]),
                 fake_row(shape, "torch.compile default, tf32 off", "torch", False, [3.0], None, 1e-7)]
    torch_compare.summarize_rows(rows)
    return rows


def close(a, b, rel=1e-9):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b))


def written_zoo(tmp, best):
    """(rows of zoo.csv as lists, its header line, zoo.md's text) of write_zoo(best) into tmp."""
    csv_path, md_path = os.path.join(tmp, "zoo.csv"), os.path.join(tmp, "zoo.md")
    torch_compare.write_zoo(csv_path, md_path, META, best, ARGS)
    with open(csv_path, newline="") as f:
        text = f.read()
    with open(md_path) as f:
        md = f.read()
    return list(csv.reader(io.StringIO(text))), text.splitlines()[0], md


def record(best, shape, precision):
    return next(r for r in best if r["shape"] == shape and r["precision"] == precision)


def cpu_cases(tmp):
    cases = []

    def case(name):
        return lambda fn: cases.append((name, fn))

    @case("zoo.csv: zoo_rows and write_zoo give exactly the issue's header, old columns first")
    def _():
        table, header, _ = written_zoo(tmp, torch_compare.zoo_rows([SHAPE, OTHER], fake_rows()))
        expect(header == ZOO_HEADER, "header %r" % header)
        expect(len(table) == 1 + 6 and all(len(row) == 17 for row in table), "%d lines, widths %s"
               % (len(table), sorted({len(row) for row in table})))

    @case("zoo.csv: gpu_speedup = best_torch_gpu_ms / cgp_gpu_ms, the GPU-time best row apart, missing cells empty")
    def _():
        best = torch_compare.zoo_rows([SHAPE, OTHER], fake_rows())
        fp32 = record(best, SHAPE, "fp32")
        expect(fp32["best_torch_row"] == "torch eager NCHW fp32, tf32 off" and close(fp32["speedup"], 2.0 / 1.0),
               "per call: %s %s" % (fp32["best_torch_row"], fp32["speedup"]))
        expect(fp32["best_torch_gpu_row"] == "torch eager channels_last fp32, tf32 off" and
               close(fp32["cgp_gpu_ms"], 0.5) and close(fp32["gpu_speedup"], 1.2 / 0.5),
               "GPU: %s cgp %s speedup %s" % (fp32["best_torch_gpu_row"], fp32["cgp_gpu_ms"], fp32["gpu_speedup"]))
        table, _, _ = written_zoo(tmp, best)
        rows = {(r[0], r[6]): dict(zip(ZOO_HEADER.split(","), r)) for r in table[1:]}
        got = rows["32", "fp32"]
        want = {"cgp_kernel": "fp32-v9", "cgp_ms": "1.00000", "best_torch_ms": "2.00000", "speedup": "2.000",
                "cgp_gpu_ms": "0.50000", "best_torch_gpu_ms": "1.20000", "conv_alone_gpu_ms": "0.20000",
                "gpu_speedup": "2.400"}
        wrong = {k: got[k] for k in want if got[k] != want[k]}
        expect(not wrong, "fp32 of %s: %s, expected %s" % (torch_compare.shape_label(SHAPE), wrong, want))
        tf32 = rows["32", "tf32"]
        expect(tf32["gpu_speedup"] == "%.3f" % (0.8 / 0.2) and tf32["best_torch_gpu_row"] ==
               "torch eager NCHW fp32, tf32 on", "tf32: %s" % tf32)
        missing = rows["1", "fp32"]
        expect(missing["cgp_gpu_ms"] == "" and missing["gpu_speedup"] == "" and missing["cgp_ms"] == "1.00000" and
               missing["conv_alone_gpu_ms"] == "0.20000", "fp32 of %s (not capturable): %s"
               % (torch_compare.shape_label(OTHER), missing))

    @case("zoo_rows: cuDNN's convolution alone and the layout row are never a best row, conv_alone_gpu_ms per class")
    def _():
        best = torch_compare.zoo_rows([SHAPE, OTHER], fake_rows())
        chosen = {r[k] for r in best for k in ("best_torch_row", "best_torch_gpu_row")}
        expect(all(name.startswith("torch") for name in chosen), "best rows %s" % sorted(chosen))
        for precision, conv in (("fp32", 0.2), ("tf32", 0.1), ("3xtf32", 0.2)):
            r = record(best, SHAPE, precision)
            expect(close(r["conv_alone_gpu_ms"], conv) and close(r["vs_conv_alone"], conv / r["cgp_gpu_ms"]),
                   "%s: conv alone %s, cgp vs conv alone %s" % (precision, r["conv_alone_gpu_ms"], r["vs_conv_alone"]))

    @case("mark_tf32: a 'tf32 on' row below a tenth of TF32's rounding effect ran no TF32, and stays in the class")
    def _():
        effect = 1e-4
        rows = fake_rows()
        by = {r["variant"]: r for r in rows if r["shape"] == torch_compare.shape_name(SHAPE)}
        quiet = by["torch eager NCHW fp32, tf32 on"]
        quiet["err"] = 5e-6  # 0.05 x the effect: no TF32
        rounded = by["torch eager channels_last fp32, tf32 on"]
        rounded["err"] = 1.5e-5  # 0.15 x: TF32 seen
        off = by["torch eager NCHW fp32, tf32 off"]
        off["err"] = 1e-9
        marked = [torch_compare.mark_tf32(r, effect) for r in (quiet, rounded, off)]
        expect(marked == [True, False, False], "marked %s (no TF32, TF32 seen, TF32 off)" % marked)
        expect(quiet["variant"] == "torch eager NCHW fp32, tf32 on (no TF32 seen)" and
               "ran no TF32 (rel err 5.00e-06 vs TF32 rounding effect 1.00e-04)" in quiet["note"],
               "variant %r, note %r" % (quiet["variant"], quiet["note"]))
        expect(rounded["variant"].endswith("tf32 on") and "ran no TF32" not in rounded["note"], rounded["note"])
        tf32 = record(torch_compare.zoo_rows([SHAPE, OTHER], rows), SHAPE, "tf32")
        expect(tf32["best_torch_gpu_row"] == quiet["variant"] and tf32["best_torch_row"] == quiet["variant"],
               "the tf32 class chose %s / %s" % (tf32["best_torch_row"], tf32["best_torch_gpu_row"]))

    @case("zoo_summary: min with its shape, geometric mean and count below 1.0x, GPU line before per-call line")
    def _():
        shapes = [torch_compare.Shape(i + 1, 8, 64, 32, 32, "same") for i in range(4)]
        gpu, conv, per_call = [2.0, 0.5, 4.0, None], [0.8, 1.25, None, 2.0], [1.0, 3.0, 3.0, 1.5]
        best = [{"shape": s, "precision": "fp32", "gpu_speedup": g, "vs_conv_alone": c, "speedup": p}
                for s, g, c, p in zip(shapes, gpu, conv, per_call)]
        best.append({"shape": shapes[0], "precision": "tf32", "gpu_speedup": 0.25, "vs_conv_alone": None,
                     "speedup": 9.0})
        numbers = torch_compare.zoo_summary(best, "fp32")
        want = {"gpu": (3, 0.5, "2x8x64x32x32 same", 4.0 ** (1 / 3), 1),
                "conv_alone": (3, 0.8, "1x8x64x32x32 same", 2.0 ** (1 / 3), 1),
                "per_call": (4, 1.0, "1x8x64x32x32 same", (1.0 * 3.0 * 3.0 * 1.5) ** 0.25, 0)}
        for key, (count, low, where, geomean, below) in want.items():
            got = numbers[key]
            expect(got[0] == count and close(got[1], low) and got[2] == where and close(got[3], geomean) and
                   got[4] == below, "%s: %s, expected %s" % (key, got, want[key]))
        expect(torch_compare.zoo_summary(best, "3xtf32")["gpu"] == (0, None, None, None, 0),
               "3xtf32 without rows: %s" % (torch_compare.zoo_summary(best, "3xtf32")["gpu"],))
        out = io.StringIO()
        torch_compare.print_zoo_summary(out, best)
        lines = out.getvalue().splitlines()
        expect(lines[0].startswith("zoo fp32: 3 shapes, GPU-time speedup over the fastest PyTorch row (tf32 off) "
                                   "min 0.50x (2x8x64x32x32 same), geometric mean 1.59x, 1 below 1.0x; against "
                                   "cuDNN's convolution alone min 0.80x (1x8x64x32x32 same), geometric mean 1.26x, "
                                   "1 below 1.0x") and lines[1].startswith("zoo fp32 per-call (host launches "
                                                                           "included): 4 shapes"),
               "printed:\n%s" % "\n".join(lines[:2]))
        return lines[0]

    @case("zoo.md: the GPU-time table first, then the per-call table, then the summary, GPU time leading")
    def _():
        _, _, md = written_zoo(tmp, torch_compare.zoo_rows([SHAPE, OTHER], fake_rows()))
        marks = ["Device NVIDIA H200,", "20 calls captured into one CUDA graph", "15 replays",
                 "| cgp GPU ms | fastest PyTorch row (GPU) | its GPU ms | GPU speedup | cuDNN conv alone GPU ms | "
                 "cgp vs conv alone |", "| 2.40x | 0.20000 | 0.40x |", "Per-call wall time, host launches included",
                 "| cgp ms per call |", "zoo fp32: 1 shapes, GPU-time speedup", "zoo fp32 per-call (host launches"]
        where = [md.find(m) for m in marks]
        expect(-1 not in where and where == sorted(where), "in zoo.md, at %s:\n%s"
               % (dict(zip(marks, where)), md))

    @case("per-row CSV: gpu_ms_median, gpu_ms_min, gpu_runs_per_graph beside the per-call columns")
    def _():
        path = os.path.join(tmp, "rows.csv")
        rows = fake_rows()
        torch_compare.write_csv(path, META, rows, ARGS)
        with open(path, newline="") as f:
            records = list(csv.DictReader(f))
        expect(list(records[0]) == torch_compare.ROW_FIELDS, "header %s" % list(records[0]))
        fields = torch_compare.ROW_FIELDS
        expect(fields.index("gpu_ms_median") == fields.index("iters") + 1, "columns %s" % fields)
        got = {(r["shape"], r["variant"]): r for r in records}
        fp32 = got[torch_compare.shape_name(SHAPE), "cgp fp32"]
        expect((fp32["gpu_ms_median"], fp32["gpu_ms_min"], fp32["gpu_runs_per_graph"], fp32["ms_median"]) ==
               ("0.50000", "0.40000", "20", "1.00000"), "cgp fp32: %s" % fp32)
        compiled = got[torch_compare.shape_name(SHAPE), "torch.compile default, tf32 off"]
        conv = got[torch_compare.shape_name(SHAPE), "cudnn conv alone NCHW, tf32 off"]
        expect(compiled["gpu_ms_median"] == compiled["gpu_runs_per_graph"] == "" and compiled["status"] == "ok",
               "not capturable: %s" % compiled)
        expect(conv["rel_l2_error"] == "" and conv["gpu_ms_median"] == "0.25000", "conv alone: %s" % conv)

    @case("options: --graph-runs 20 and --graph-replays 15 by default, --iters and --warmup kept")
    def _():
        args = torch_compare.parse_args(["--zoo"])
        expect((args.graph_runs, args.graph_replays, args.iters, args.warmup, args.no_max_autotune) ==
               (20, 15, 30, 5, True), "zoo defaults %s" % vars(args))
        args = torch_compare.parse_args(["--graph-runs", "7", "--graph-replays", "3", "--iters", "25"])
        expect((args.graph_runs, args.graph_replays, args.iters) == (7, 3, 25), "given %s" % vars(args))

    return cases


# ---- GPU ------------------------------------------------------------------------------------------
def profiled_ms(torch, fn, calls=20):
    """(device ms a call, the names summed): the CUDA activities (kernels, memsets, copies) torch.profiler records
    over `calls` calls of fn after 3 warm-up calls, their durations summed over `calls`. Only names recorded a
    whole multiple of `calls` times count: the profiler's own sporadic records (buffer requests, lazy loading)
    are not the calls' work."""
    from torch.profiler import ProfilerActivity, profile
    with torch.no_grad():
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                fn()
            torch.cuda.synchronize()
    totals, counts = {}, {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            totals[e.name] = totals.get(e.name, 0.0) + e.device_time_total
            counts[e.name] = counts.get(e.name, 0) + 1
    kept = [name for name in totals if counts[name] % calls == 0]
    expect(kept, "the profiler recorded no CUDA activity a whole multiple of %d times: %s" % (calls, counts))
    return sum(totals[name] for name in kept) / 1000.0 / calls, kept


def gpu_cases(seed):
    cases = []

    def case(name):
        return lambda fn: cases.append((name, fn))

    def agree(fn, what):
        import torch
        graph = torch_compare.time_graph_ms(torch, fn)
        median = statistics.median(graph)
        profiled, names = profiled_ms(torch, fn)
        off = abs(median - profiled) / profiled
        expect(off <= 0.10, "%s: graph replay %.4f ms a call, profiler %.4f ms (%d names: %s): %.1f%% apart"
               % (what, median, profiled, len(names), ", ".join(n[:60] for n in names), 100 * off))
        return "graph %.4f ms, profiler %.4f ms a call, %.1f%% apart, %d kernel names" % (median, profiled, 100 * off,
                                                                                          len(names))

    @case("graph replay time of cgp tf32 on 32x64x128x56x56 same agrees with the profiler's within 10%")
    def _():
        import cgp
        import torch
        x, w, b = torch_compare.make_inputs(torch, SHAPE, seed)
        return agree(lambda: cgp.conv_gelu_mean(x, w, b, padding="same", precision="tf32"), "cgp tf32")

    @case("graph replay time of torch eager NCHW (tf32 off) on 32x64x128x56x56 same agrees with the profiler's "
          "within 10%")
    def _():
        import torch
        x, w, b = torch_compare.make_inputs(torch, SHAPE, seed)
        model = torch_compare.make_module(torch, SHAPE.cin, SHAPE.cout, 1, w, b)
        saved = torch.backends.cudnn.benchmark
        torch.backends.cudnn.benchmark = True  # as torch_compare.py runs it
        try:
            with torch_compare.Tf32(torch, False):
                return agree(lambda: model(x), "torch eager NCHW")
        finally:
            torch.backends.cudnn.benchmark = saved

    @case("a graph replay of a cgp call writes the same y as an eager call (fp32, tf32, 3xtf32)")
    def _():
        import cgp
        import torch
        x, w, b = torch_compare.make_inputs(torch, SHAPE, seed)
        for precision in ("fp32", "tf32", "3xtf32"):
            def fn():
                return cgp.conv_gelu_mean(x, w, b, padding="same", precision=precision)
            graph, stream, out = torch_compare.capture_graph(torch, fn, 1)
            with torch.cuda.stream(stream):
                out.zero_()
                graph.replay()
            eager = fn()
            torch.cuda.synchronize()
            expect(bool(eager.abs().sum() > 0) and torch.equal(out, eager), "%s: replay and eager differ by up to %.3e"
                   % (precision, float((out - eager).abs().max())))

    @case("a call that cannot be captured: time_graph_ms raises, the caller's stream is current, the next capture "
          "works")
    def _():
        import torch
        x = torch.ones(1000, device="cuda")
        caller = torch.cuda.current_stream()
        try:
            torch_compare.time_graph_ms(torch, lambda: x.sum().item(), runs=2, replays=2)
        except Exception as e:
            error = "%s: %s" % (type(e).__name__, " ".join(str(e).split())[:200])
        else:
            raise Fail("a call that synchronizes with the host was captured")
        expect(torch.cuda.current_stream() == caller, "the current stream is %s, not the caller's %s"
               % (torch.cuda.current_stream(), caller))
        expect(not torch.cuda.is_current_stream_capturing(), "the current stream is still capturing")
        ms = torch_compare.time_graph_ms(torch, lambda: x * 2, runs=4, replays=3)
        expect(len(ms) == 3 and all(v > 0 and math.isfinite(v) for v in ms), "the next capture gave %s" % ms)
        return "raised %s" % error

    return cases


def main():
    seed = int(os.environ.get("CGP_TEST_SEED") or 1)
    print("test_gpu_time: seed %d (CGP_TEST_SEED), library %s" % (seed, os.environ["CGP_LIBRARY"]))
    with tempfile.TemporaryDirectory(dir=os.environ.get("CGP_TEST_TMP")) as tmp:
        for name, fn in cpu_cases(tmp):
            run_case(name, fn)
    absent = gpu_absent()
    if absent is not None:
        print("SKIP gpu: %s (skips the rest of the program)" % absent)
        return 1 if failed() else 0
    for name, fn in gpu_cases(seed):
        run_case("gpu: " + name, fn)
    return 1 if failed() else 0


if __name__ == "__main__":
    sys.exit(main())
