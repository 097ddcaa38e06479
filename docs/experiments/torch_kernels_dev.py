"""dev: the GPU kernels PyTorch's fastest TF32 rows run on 56x56 and 28x28, by torch.profiler (throwaway)."""
import sys
sys.path.insert(0, "scripts")
import torch_compare
import torch
from torch.profiler import profile, ProfilerActivity
torch.backends.cudnn.benchmark = True
torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = True
for shape in (torch_compare.Shape(32, 64, 128, 56, 56, "same"), torch_compare.Shape(32, 128, 128, 28, 28, "same")):
    x, w, b = torch_compare.make_inputs(torch, shape, 1)
    m = torch_compare.make_module(torch, shape.cin, shape.cout, 1, w, b)
    mcl = torch_compare.make_module(torch, shape.cin, shape.cout, 1, w, b).to(memory_format=torch.channels_last)
    xcl = x.contiguous(memory_format=torch.channels_last)
    comp = torch.compile(torch_compare.make_module(torch, shape.cin, shape.cout, 1, w, b))
    for name, fn in (("eager NCHW", lambda: m(x)), ("eager channels_last", lambda: mcl(xcl)), ("compile default", lambda: comp(x))):
        with torch.no_grad():
            for _ in range(10):
                fn()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(20):
                    fn()
                torch.cuda.synchronize()
        print("%s %s:" % (shape, name))
        total = 0.0
        for e in prof.key_averages():
            if e.device_type.name == "CUDA" and e.count:
                t = e.device_time_total / 20 / 1000.0
                total += t
                print("   %8.4f ms/call  x%d  %s" % (t, e.count // 20, e.key[:110]))
        print("   %8.4f ms/call  all kernels" % total)
