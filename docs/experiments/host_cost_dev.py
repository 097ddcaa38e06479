"""dev: where a Python call's host time goes, and how torch_compare's per-call events read it (throwaway)."""
import os, statistics, sys, time, ctypes
sys.path.insert(0, "scripts")
import torch_compare
cgp = torch_compare.load_cgp(None)
import torch
from cgp import _arrays, _lib
import cgp.torch as ct
torch.backends.cudnn.benchmark = True

def host_us(fn, loop=200, repeats=7):
    out = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(loop):
            fn()
        out.append((time.perf_counter() - t) / loop * 1e6)
        torch.cuda.synchronize()
    return statistics.median(out)

def time_ms_stream(fn, warmup, iters):
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

SHAPES = [torch_compare.Shape(16, 256, 256, 14, 14, "same"), torch_compare.Shape(8, 512, 512, 7, 7, "same"),
          torch_compare.Shape(1, 8, 64, 256, 256, "valid")]
with torch.no_grad():
  for shape in SHAPES:
    for prec in ("tf32", "3xtf32", "fp32"):
        x, w, b = torch_compare.make_inputs(torch, shape, 1)
        call = lambda: cgp.conv_gelu_mean(x, w, b, padding=shape.padding, precision=prec, select="measured")
        call(); torch.cuda.synchronize()
        ver, name = cgp.kernel_of(x, w, b, padding=shape.padding, precision=prec, select="measured")
        opts = _lib.option_values(shape.padding, prec, "det", "measured")
        ptrs, sh, dev = _arrays.prepare_own(ct._tensors, x, w, b, opts.padding)
        plan, stream = cgp._cache.plan(ct._tensors, ptrs, sh, dev, opts)
        y = torch.empty((sh[0], sh[2]), device="cuda")
        yp = y.data_ptr()
        run = cgp._cache._run_plan
        ws = cgp._cache._lib.fn("cgp_plan_workspace_size")
        nb = ctypes.c_size_t()
        parts = {
            "full call": call,
            "rule _fast": lambda: ct._fast(x, w, b),
            "option_values": lambda: _lib.option_values(shape.padding, prec, "det", "measured"),
            "prepare_own": lambda: _arrays.prepare_own(ct._tensors, x, w, b, opts.padding),
            "cache.plan": lambda: cgp._cache.plan(ct._tensors, ptrs, sh, dev, opts),
            "torch.empty": lambda: ct._tensors.empty((sh[0], sh[2]), dev),
            "ctypes plan_run": lambda: run(plan.handle, ptrs[0], ptrs[1], ptrs[2], yp, plan.workspace_ptr,
                                           plan.workspace_bytes, stream),
            "ctypes trivial": lambda: ws(plan.handle, ctypes.byref(nb)),
            "event record x2": (lambda e=torch.cuda.Event(enable_timing=True), f=torch.cuda.Event(enable_timing=True): (e.record(), f.record())),
            "event record x2 given stream": (lambda e=torch.cuda.Event(enable_timing=True), f=torch.cuda.Event(enable_timing=True), st=torch.cuda.current_stream(): (e.record(st), f.record(st))),
        }
        print("%s %s %s (v%d):" % (torch_compare.Shape.__repr__(shape), prec, name, ver))
        print("   " + ", ".join("%s %.1f" % (k, host_us(f)) for k, f in parts.items()))
        direct = lambda: run(plan.handle, ptrs[0], ptrs[1], ptrs[2], yp, plan.workspace_ptr, plan.workspace_bytes, stream)
        for label, fn in (("call", call), ("direct", direct)):
            meds = [statistics.median(torch_compare.time_ms(torch, fn, 3, 20)) for _ in range(8)]
            print("   events %s: medians %s" % (label, " ".join("%.4f" % m for m in meds)))
            meds = [statistics.median(time_ms_stream(fn, 3, 20)) for _ in range(8)]
            print("   events(stream) %s: medians %s" % (label, " ".join("%.4f" % m for m in meds)))
        pad = torch_compare.PADDING[shape.padding]
        model = torch_compare.make_module(torch, shape.cin, shape.cout, pad, w, b)
        with torch_compare.Tf32(torch, prec == "tf32"):
            for label, m in (("torch eager NCHW", model),):
                meds = [statistics.median(torch_compare.time_ms(torch, lambda: m(x), 3, 20)) for _ in range(4)]
                print("   events %s: medians %s" % (label, " ".join("%.4f" % v for v in meds)))
                meds = [statistics.median(time_ms_stream(lambda: m(x), 3, 20)) for _ in range(4)]
                print("   events(stream) %s: medians %s" % (label, " ".join("%.4f" % v for v in meds)))
        cgp.clear_cache()
