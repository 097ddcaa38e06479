#!/usr/bin/env python3
"""test_autograd.py - cgp.conv_gelu_mean in training (python/cgp/torch.py: the autograd formula of
cgp::conv_gelu_mean, the backward op cgp::conv_gelu_mean_backward, ConvGeluMean's parameters), one line
per case: "PASS name", "FAIL name: why" or "SKIP name: why" (tests/run_tests.sh counts them); exit 1 on
any FAIL.

CPU cases (PyTorch without a GPU; each a SKIP without PyTorch, a FAIL with CGP_TEST_REQUIRE_GPU=1): the
backward formula on CPU float64 tensors, with the op's forward replaced by the float64 reference (the
library computes only float32 on a GPU; stand_in_forward): torch.autograd.gradcheck of the op, its
autograd formula and backward op for every precision and both paddings; backward_formula against
autograd of the reference for every output mask and a non-contiguous dy; only the gradients autograd
needs are computed; dy None; tf32_convolutions sets and restores only the TF32 settings;
torch.compile(fullgraph=True) through AOTAutograd: the backward graph calls cgp::conv_gelu_mean_backward,
which runs with its class's TF32 setting whatever the global one, and a tiny classifier's loss falls;
ConvGeluMean's trainable parameters.
GPU cases (PyTorch with a CUDA device; each a SKIP without one, a FAIL with CGP_TEST_REQUIRE_GPU=1):
gradcheck on CUDA float64 (the stand-in forward); the op's gradients (libcgp's forward, the backward in
PyTorch's float32 convolutions of the class) against PyTorch's pipeline's in float64 for every
precision, on small shapes with both paddings and random shapes up to Cin, Cout 256, with TF32 allowed
globally (PyTorch's default for cuDNN): relative L2 <= 1e-5 for fp32 and 3xtf32 (strict fp32
convolutions: float32 sums of at most 9 x 256 terms for dx and 6400 for dweight, about 1e-6 at
worst, and some room for cuDNN's FFT and Winograd algorithms), <= 5e-3 for tf32 (TF32 rounds x, weight
and g to 11 significant bits, 2^-11 = 4.9e-4 relative each; the bound is ten times that); fp32 strict
under torch.compile too; torch.compile(fullgraph=True) of a tiny classifier trains; needs_input_grad on
real tensors; ConvGeluMean against the PyTorch pipeline in training; forward + backward captured in a
CUDA graph; peak memory (the forward keeps nothing, the step peaks below PyTorch's pipeline); the
training example of docs/python.md.

Environment: CGP_LIBRARY (default $BUILD/libcgp.so, BUILD default build), CGP_TEST_SEED (default: the
time; printed), CGP_TEST_REQUIRE_GPU=1.
Run from anywhere: python3 tests/python/test_autograd.py
"""
import contextlib
import importlib.util
import os
import random
import re
import subprocess
import sys
import time
import types

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(REPO, "python")
os.environ.setdefault("CGP_LIBRARY", os.path.join(REPO, os.environ.get("BUILD", "build"), "libcgp.so"))
LIBRARY = os.path.abspath(os.environ["CGP_LIBRARY"])
sys.path.insert(0, PACKAGE)
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
from pycases import expect, failed, gpu_absent, run_case  # noqa: E402 (tests/lib/)

PRECISIONS = ("fp32", "tf32", "3xtf32")
PADDINGS = ("valid", "same")
GRAD_TOLERANCE = {"fp32": 1e-5, "tf32": 5e-3, "3xtf32": 1e-5}  # the docstring says why
TF32_ALLOWED = {"fp32": False, "tf32": True, "3xtf32": False}


def reference(x, weight, bias, padding):
    """PyTorch's pipeline, y (N, Cout), in the inputs' dtype: conv2d -> exact GELU -> mean over (h, w)."""
    import torch.nn.functional as F
    return F.gelu(F.conv2d(x, weight, bias, padding=1 if padding == "same" else 0)).mean(dim=(2, 3))


@contextlib.contextmanager
def stand_in_forward():
    """cgp::conv_gelu_mean with reference() in place of the library call and without its fake kernel's
    float32-on-CUDA check, so that the registered autograd formula, the backward op and torch.compile's
    handling of them run on tensors of any device and dtype (float64 for gradcheck). Restored on exit."""
    import cgp.torch
    saved = cgp.torch._run_tensors, cgp._arrays.check
    cgp.torch._run_tensors = lambda x, weight, bias, padding, *options: reference(x, weight, bias, padding)
    cgp._arrays.check = lambda infos, padding: None
    try:
        yield
    finally:
        cgp.torch._run_tensors, cgp._arrays.check = saved


def conv_tf32_setting():
    """The setting tf32_convolutions makes for convolutions: cudnn.conv.fp32_precision ("tf32" or "ieee")
    where torch has it, else cudnn.allow_tf32 (True or False)."""
    import torch
    cudnn = torch.backends.cudnn
    return cudnn.conv.fp32_precision if hasattr(cudnn, "conv") else cudnn.allow_tf32


def expected_setting(allowed):
    import torch
    if hasattr(torch.backends.cudnn, "conv"):
        return "tf32" if allowed else "ieee"
    return allowed


@contextlib.contextmanager
def formula_spy(calls):
    """Each call of cgp.torch.backward_formula appends (output_mask, conv_tf32_setting() at that moment)
    to `calls`."""
    import cgp.torch
    original = cgp.torch.backward_formula

    def spy(grad_y, x, weight, bias, padding, output_mask=(True, True, True)):
        calls.append((tuple(output_mask), conv_tf32_setting()))
        return original(grad_y, x, weight, bias, padding, output_mask)

    cgp.torch.backward_formula = spy
    try:
        yield
    finally:
        cgp.torch.backward_formula = original


def rel_l2(got, want):
    """||got - want|| / ||want|| in float64 (want nonzero)."""
    import torch
    got, want = got.double(), want.double()
    expect(bool(torch.isfinite(got).all()), "non-finite gradients")
    return float(torch.linalg.vector_norm(got - want) / torch.linalg.vector_norm(want))


def random_inputs(torch, n, cin, cout, h, w, dtype, device, gen):
    """x uniform in [-1, 1), weight scaled so that the convolution's outputs are of order 1, bias and dy
    in [-0.5, 0.5); x, weight and bias require grad."""
    scale = 2.0 / (cin * 9) ** 0.5
    rand = lambda *shape: torch.rand(*shape, generator=gen, dtype=dtype, device=device)
    x = (rand(n, cin, h, w) * 2 - 1).requires_grad_()
    weight = ((rand(cout, cin, 3, 3) * 2 - 1) * scale).requires_grad_()
    bias = (rand(cout) - 0.5).requires_grad_()
    return x, weight, bias, rand(n, cout) - 0.5


def reference_grads(x, weight, bias, dy, padding):
    """The gradients of PyTorch's pipeline in float64 for dy."""
    import torch
    inputs = [t.detach().double().requires_grad_() for t in (x, weight, bias)]
    return torch.autograd.grad(reference(*inputs, padding), inputs, dy.double())


def tiny_classifier_trains(torch, model, x, labels, steps):
    """(first loss, last loss) of `steps` Adam steps of cross-entropy on (x, labels) through `model`
    (compiled or not)."""
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    for _ in range(steps):
        loss = torch.nn.functional.cross_entropy(model(x), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
    return losses[0], losses[-1]


# ---- CPU cases (PyTorch, no GPU) ----------------------------------------------------------------
def cpu_cases(seed):
    cases = []

    def case(name):
        return lambda fn: cases.append((name, fn))

    def small_inputs():
        """x (2, 3, 5, 6), weight, bias requiring grad and dy (2, 4), CPU float64."""
        import torch
        return random_inputs(torch, 2, 3, 4, 5, 6, torch.float64, "cpu", torch.Generator().manual_seed(seed))

    for precision in PRECISIONS:
        for padding in PADDINGS:
            @case("gradcheck (CPU float64, stand-in forward): %s, padding %s" % (precision, padding))
            def _(precision=precision, padding=padding):
                import torch
                x, w, b, _ = small_inputs()
                with stand_in_forward():
                    ok = torch.autograd.gradcheck(
                        lambda x, w, b: torch.ops.cgp.conv_gelu_mean(x, w, b, padding, precision), (x, w, b))
                expect(ok, "gradcheck returned %r" % ok)

    @case("backward_formula against autograd of the float64 reference: every output mask, dy non-contiguous")
    def _():
        import itertools
        import torch
        import cgp.torch
        checked = 0
        for padding in PADDINGS:
            x, w, b, dy = small_inputs()
            dy = dy.t().contiguous().t()  # (N, Cout) with column-major strides
            expect(not dy.is_contiguous(), "dy is contiguous")
            want = torch.autograd.grad(reference(x, w, b, padding), (x, w, b), dy)
            for mask in itertools.product((False, True), repeat=3):
                got = cgp.torch.backward_formula(dy, x.detach(), w.detach(), b.detach(), padding, mask)
                for name, g, ref, wanted in zip(("dx", "dweight", "dbias"), got, want, mask):
                    if not wanted:
                        expect(g is None, "%s %s: %s not wanted but computed" % (padding, mask, name))
                        continue
                    expect(g is not None and g.shape == ref.shape, "%s %s: %s missing or misshapen" % (
                        padding, mask, name))
                    err = rel_l2(g, ref)
                    expect(err <= 1e-12, "%s %s: %s rel L2 %.2e" % (padding, mask, name, err))
                    checked += 1
        return "%d gradients" % checked

    @case("only the gradients autograd needs are computed (needs_input_grad), on the stand-in")
    def _():
        import torch
        x, w, b, dy = small_inputs()
        table = [((False, True, True), "weight and bias"), ((True, False, False), "x only"),
                 ((False, False, True), "bias only")]
        with stand_in_forward():
            for requires, what in table:
                calls = []
                inputs = [t.detach().requires_grad_(r) for t, r in zip((x, w, b), requires)]
                with formula_spy(calls):
                    y = torch.ops.cgp.conv_gelu_mean(*inputs, "same", "fp32")
                    y.backward(dy)
                expect(len(calls) == 1 and calls[0][0] == requires, "%s: the formula was asked for %s"
                       % (what, [c[0] for c in calls]))
                got = [t.grad is not None for t in inputs]
                expect(got == list(requires), "%s: gradients present %s" % (what, got))
            y = torch.ops.cgp.conv_gelu_mean(x.detach(), w.detach(), b.detach(), "same", "fp32")
            expect(y.grad_fn is None and not y.requires_grad, "nothing requires grad, yet y has %s" % y.grad_fn)

    @case("the autograd formula gives no gradient for dy None, or when none is needed")
    def _():
        import torch
        import cgp.torch
        x, w, b, dy = small_inputs()
        saved = types.SimpleNamespace(saved_tensors=(x.detach(), w.detach(), b.detach()), padding="valid",
                                      precision="fp32", needs_input_grad=(True,) * 3 + (False,) * 4)
        expect(cgp.torch._backward(saved, None) == (None,) * 7, "dy None gave gradients")
        saved.needs_input_grad = (False,) * 7
        expect(cgp.torch._backward(saved, dy) == (None,) * 7, "no gradient needed, yet some came")
        saved.needs_input_grad = (False, True, False) + (False,) * 4
        grads = cgp.torch._backward(saved, dy)
        want = torch.autograd.grad(reference(x, w, b, "valid"), w, dy)[0]
        expect(len(grads) == 7 and grads[0] is None and grads[2] is None and rel_l2(grads[1], want) <= 1e-12,
               "dweight only: %s" % [None if g is None else tuple(g.shape) for g in grads])

    @case("tf32_convolutions sets only the TF32 settings and restores them, also on an exception")
    def _():
        import torch
        import cgp.torch
        backends = torch.backends
        others = lambda: (backends.cudnn.enabled, backends.cudnn.benchmark, backends.cudnn.deterministic)
        before, before_others = conv_tf32_setting(), others()
        matmul = "fp32_precision" if hasattr(backends.cudnn, "conv") else "allow_tf32"
        before_matmul = getattr(backends.cuda.matmul, matmul)
        for allowed in (False, True):
            with cgp.torch.tf32_convolutions(allowed):
                inside = conv_tf32_setting(), getattr(backends.cuda.matmul, matmul), others()
            want_matmul = expected_setting(allowed)
            expect(inside == (expected_setting(allowed), want_matmul, before_others),
                   "allowed %s: inside (conv, matmul, cudnn enabled/benchmark/deterministic) %s" % (allowed, inside))
            expect((conv_tf32_setting(), getattr(backends.cuda.matmul, matmul), others()) ==
                   (before, before_matmul, before_others), "allowed %s: not restored" % allowed)
        for allowed in (False, True):
            try:
                with cgp.torch.tf32_convolutions(allowed):
                    raise KeyError("inside")
            except KeyError:
                pass
            expect(conv_tf32_setting() == before, "allowed %s: not restored after an exception: %r, was %r" % (
                allowed, conv_tf32_setting(), before))
        return "conv setting %r" % (before,)

    @case("torch.compile(fullgraph=True) on the stand-in: the backward graph runs cgp::conv_gelu_mean_backward in "
          "its class, a tiny classifier's loss falls")
    def _():
        import torch
        import torch._dynamo
        from functorch.compile import make_boxed_func
        from torch._functorch.aot_autograd import aot_module_simplified
        import cgp.torch
        graphs = []

        def backend(gm, example_inputs):
            def keep(kind):
                def compiler(graph, inputs):
                    graphs.append((kind, graph.code))
                    return make_boxed_func(graph.forward)
                return compiler
            return aot_module_simplified(gm, example_inputs, fw_compiler=keep("forward"), bw_compiler=keep("backward"))

        gen = torch.Generator().manual_seed(seed)
        x = torch.rand(16, 3, 8, 8, generator=gen, dtype=torch.float64) * 2 - 1
        labels = (x[:, 0].mean(dim=(1, 2)) > 0).long()
        details = []
        with stand_in_forward():
            for precision in ("fp32", "tf32"):
                torch._dynamo.reset()
                conv = torch.nn.Conv2d(3, 12, 3, padding=1).double()
                model = torch.nn.Sequential(cgp.torch.ConvGeluMean.from_conv2d(conv, precision=precision),
                                            torch.nn.Linear(12, 2).double())
                calls, graphs[:] = [], []
                with cgp.torch.tf32_convolutions(not TF32_ALLOWED[precision]), formula_spy(calls):
                    first, last = tiny_classifier_trains(torch, torch.compile(model, fullgraph=True, backend=backend),
                                                         x, labels, 6)
                backward = [code for kind, code in graphs if kind == "backward"]
                expect(len(backward) == 1 and "cgp.conv_gelu_mean_backward" in backward[0] and
                       "convolution" not in backward[0], "%s: backward graphs %s" % (precision, backward))
                want = expected_setting(TF32_ALLOWED[precision])
                expect(len(calls) == 6 and all(setting == want for _, setting in calls),
                       "%s: the formula ran %d times with settings %s, expected %r" % (
                           precision, len(calls), sorted({s for _, s in calls}), want))
                expect(all(mask == (False, True, True) for mask, _ in calls), "%s: masks %s" % (
                    precision, sorted({m for m, _ in calls})))
                expect(last < first, "%s: loss %.4f -> %.4f" % (precision, first, last))
                details.append("%s loss %.3f -> %.3f" % (precision, first, last))
        return ", ".join(details)

    @case("ConvGeluMean: trainable weight and bias sharing the given storage; bias None a zero buffer; its "
          "gradients on the stand-in")
    def _():
        import copy
        import torch
        import cgp.torch
        conv = torch.nn.Conv2d(3, 4, 3, padding=1).double()
        module = cgp.torch.ConvGeluMean.from_conv2d(conv)
        names = sorted(name for name, _ in module.named_parameters())
        expect(names == ["bias", "weight"] and all(p.requires_grad for p in module.parameters()),
               "parameters %s" % names)
        expect(module.weight.data_ptr() == conv.weight.data_ptr() and module.bias.data_ptr() == conv.bias.data_ptr(),
               "the parameters do not share the Conv2d's storage")
        no_bias = cgp.torch.ConvGeluMean(torch.rand(4, 3, 3, 3, dtype=torch.float64))
        expect([name for name, _ in no_bias.named_parameters()] == ["weight"] and
               [name for name, _ in no_bias.named_buffers()] == ["bias"] and not no_bias.bias.any(),
               "bias None: parameters %s, buffers %s" % ([n for n, _ in no_bias.named_parameters()],
                                                        [n for n, _ in no_bias.named_buffers()]))
        x, _, _, dy = small_inputs()
        pipeline = torch.nn.Sequential(copy.deepcopy(conv), torch.nn.GELU(), torch.nn.AdaptiveAvgPool2d(1),
                                       torch.nn.Flatten())
        with stand_in_forward():
            module(x.detach()).backward(dy)
        pipeline(x.detach()).backward(dy)
        errs = [rel_l2(mine.grad, theirs.grad) for mine, theirs in ((module.weight, pipeline[0].weight),
                                                                    (module.bias, pipeline[0].bias))]
        expect(max(errs) <= 1e-12, "rel L2 of dweight, dbias against the pipeline's: %s" % errs)

    return cases


# ---- GPU cases ------------------------------------------------------------------------------------
def gpu_cases(seed):
    cases = []

    def case(name):
        return lambda fn: cases.append((name, fn))

    state = {}

    def gen():
        import torch
        if "gen" not in state:
            state["gen"] = torch.Generator(device="cuda").manual_seed(seed)
        return state["gen"]

    def inputs(n, cin, cout, h, w):
        import torch
        return random_inputs(torch, n, cin, cout, h, w, torch.float32, "cuda", gen())

    rng = random.Random(seed)
    shapes = [(2, 3, 5, 7, 9, padding) for padding in PADDINGS] + [(3, 8, 64, 20, 17, padding) for padding in PADDINGS]
    shapes += [(rng.randint(1, 4), rng.randint(1, 256), rng.randint(1, 256), rng.randint(3, 40), rng.randint(3, 40),
                rng.choice(PADDINGS)) for _ in range(6)]

    @case("gradcheck on CUDA float64 (stand-in forward): every precision, both paddings")
    def _():
        import torch
        with stand_in_forward():
            for precision in PRECISIONS:
                for padding in PADDINGS:
                    x, w, b, _ = random_inputs(torch, 2, 3, 4, 5, 6, torch.float64, "cuda", gen())
                    # nondet_tol: cuDNN's float64 weight gradient sums with atomics, so two backward passes of the
                    # same inputs differ in the last bits (measured on the H200: gradcheck's reentrancy check fails
                    # at tolerance 0)
                    expect(torch.autograd.gradcheck(lambda x, w, b: torch.ops.cgp.conv_gelu_mean(
                        x, w, b, padding, precision), (x, w, b), nondet_tol=1e-10), "%s %s" % (precision, padding))

    for precision in PRECISIONS:
        @case("gradients against PyTorch's pipeline in float64: %s on %d shapes (random ones up to Cin, Cout 256), "
              "TF32 allowed globally" % (precision, len(shapes)))
        def _(precision=precision):
            import torch
            import cgp
            worst = (0.0, "")
            with cgp.torch.tf32_convolutions(True):
                for n, cin, cout, h, w, padding in shapes:
                    x, wt, b, dy = inputs(n, cin, cout, h, w)
                    got = torch.autograd.grad(cgp.conv_gelu_mean(x, wt, b, padding=padding, precision=precision),
                                              (x, wt, b), dy)
                    for name, g, want in zip(("dx", "dweight", "dbias"), got, reference_grads(x, wt, b, dy, padding)):
                        err = rel_l2(g, want)
                        where = "%s of %dx%dx%dx%dx%d %s" % (name, n, cin, cout, h, w, padding)
                        expect(g.dtype == torch.float32 and err <= GRAD_TOLERANCE[precision],
                               "%s: rel L2 %.2e > %.0e" % (where, err, GRAD_TOLERANCE[precision]))
                        worst = max(worst, (err, where))
            return "worst rel L2 %.2e (%s)" % worst

    @case("torch.compile(fullgraph=True): fp32 and 3xtf32 gradients strict fp32 with TF32 allowed globally; tf32's")
    def _():
        import torch
        import cgp
        x, w, b, dy = inputs(4, 64, 64, 24, 24)
        want = reference_grads(x, w, b, dy, "same")
        details = []
        with cgp.torch.tf32_convolutions(True):
            for precision in PRECISIONS:
                compiled = torch.compile(lambda x, w, b: cgp.conv_gelu_mean(x, w, b, padding="same",
                                                                            precision=precision), fullgraph=True)
                got = torch.autograd.grad(compiled(x, w, b), (x, w, b), dy)
                err = max(rel_l2(g, r) for g, r in zip(got, want))
                expect(err <= GRAD_TOLERANCE[precision], "%s: rel L2 %.2e > %.0e" % (
                    precision, err, GRAD_TOLERANCE[precision]))
                details.append("%s %.1e" % (precision, err))
        return "worst rel L2 " + ", ".join(details)

    @case("torch.compile(fullgraph=True) of a tiny classifier with ConvGeluMean trains, loss falling")
    def _():
        import torch
        import cgp
        x = inputs(32, 3, 1, 16, 16)[0].detach()
        labels = (x[:, 0].mean(dim=(1, 2)) > 0).long()
        details = []
        for precision in ("fp32", "tf32"):
            conv = torch.nn.Conv2d(3, 16, 3, padding=1).cuda()
            model = torch.nn.Sequential(cgp.torch.ConvGeluMean.from_conv2d(conv, precision=precision),
                                        torch.nn.Linear(16, 2).cuda())
            first, last = tiny_classifier_trains(torch, torch.compile(model, fullgraph=True), x, labels, 8)
            expect(last < first, "%s: loss %.4f -> %.4f" % (precision, first, last))
            details.append("%s %.3f -> %.3f" % (precision, first, last))
        return "loss " + ", ".join(details)

    @case("needs_input_grad on CUDA: x without grad gets no dx and the backward computes none; dy expanded")
    def _():
        import torch
        import cgp
        x, w, b, _ = inputs(2, 8, 16, 12, 12)
        calls = []
        with formula_spy(calls):
            y = cgp.conv_gelu_mean(x.detach(), w, b, padding="same")
            y.sum().backward()  # dy: ones expanded from a scalar, stride 0
        expect(calls and calls[0][0] == (False, True, True), "the formula was asked for %s" % [c[0] for c in calls])
        want = reference_grads(x, w, b, torch.ones(2, 16, device="cuda"), "same")
        errs = [rel_l2(t.grad, r) for t, r in zip((w, b), want[1:])]
        expect(max(errs) <= GRAD_TOLERANCE["fp32"], "dweight, dbias rel L2 %s" % errs)

    @case("ConvGeluMean in training: its gradients against Conv2d -> GELU -> AdaptiveAvgPool2d(1) -> Flatten in "
          "float64; an optimizer step changes its parameters")
    def _():
        import copy
        import torch
        import cgp
        x, _, _, dy = inputs(3, 8, 24, 21, 19)
        details = []
        for precision in PRECISIONS:
            conv = torch.nn.Conv2d(8, 24, 3, padding=1).cuda()
            pipeline = torch.nn.Sequential(copy.deepcopy(conv).double(), torch.nn.GELU(), torch.nn.AdaptiveAvgPool2d(1),
                                           torch.nn.Flatten())
            module = cgp.torch.ConvGeluMean.from_conv2d(conv, precision=precision)
            module(x.detach()).backward(dy)
            pipeline(x.detach().double()).backward(dy.double())
            err = max(rel_l2(module.weight.grad, pipeline[0].weight.grad),
                      rel_l2(module.bias.grad, pipeline[0].bias.grad))
            expect(err <= GRAD_TOLERANCE[precision], "%s: rel L2 %.2e" % (precision, err))
            before = module.weight.detach().clone()
            torch.optim.SGD(module.parameters(), lr=0.1).step()
            expect(not torch.equal(before, module.weight.detach()), "%s: the SGD step left weight as it was"
                   % precision)
            details.append("%s %.1e" % (precision, err))
        return "rel L2 " + ", ".join(details)

    @case("CUDA graph: forward + backward captured after warm-up on its stream, replayed, gradients as eager")
    def _():
        import torch
        import cgp
        x, w, b, dy = inputs(4, 8, 32, 30, 30)
        details = []
        for precision in PRECISIONS:
            def step():
                return torch.autograd.grad(cgp.conv_gelu_mean(x, w, b, padding="same", precision=precision),
                                           (x, w, b), dy)
            eager = step()
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                for _ in range(3):
                    step()
            torch.cuda.current_stream().wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, stream=stream):
                static = step()
            for replay in range(2):
                graph.replay()
                torch.cuda.synchronize()
                err = max(rel_l2(g, e) for g, e in zip(static, eager))
                expect(err <= 1e-6, "%s replay %d: rel L2 %.2e against eager" % (precision, replay, err))
            details.append("%s %.1e" % (precision, err))
        return "rel L2 against eager " + ", ".join(details)

    @case("peak memory: the forward keeps nothing but y; forward + backward peaks below PyTorch's pipeline")
    def _():
        import torch
        import torch.nn.functional as F
        import cgp
        n, cin, cout, h, w = 8, 8, 64, 128, 128
        x, wt, b, dy = inputs(n, cin, cout, h, w)
        z_bytes = n * cout * (h - 2) * (w - 2) * 4

        def pipeline():
            return F.adaptive_avg_pool2d(F.gelu(F.conv2d(x, wt, b)), 1).flatten(1)

        def fused():
            return cgp.conv_gelu_mean(x, wt, b)

        measured = {}
        for name, forward in (("cgp", fused), ("torch", pipeline)):
            torch.autograd.grad(forward(), (x, wt, b), dy)  # warm-up: plans, cuDNN's first calls
            torch.cuda.synchronize()
            before = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            y = forward()
            kept = torch.cuda.memory_allocated() - before
            grads = torch.autograd.grad(y, (x, wt, b), dy)
            torch.cuda.synchronize()
            measured[name] = (kept, torch.cuda.max_memory_allocated() - before)
            del y, grads
        expect(measured["cgp"][0] < 0.01 * z_bytes, "cgp's forward keeps %d bytes (the intermediate is %d)" % (
            measured["cgp"][0], z_bytes))
        expect(measured["cgp"][1] < measured["torch"][1], "peaks: cgp %d bytes, PyTorch %d" % (
            measured["cgp"][1], measured["torch"][1]))
        mib = 1024.0 * 1024.0
        return "intermediate %.1f MiB; kept by the forward: cgp %.2f MiB, PyTorch %.1f MiB; peak: cgp %.1f MiB, " \
               "PyTorch %.1f MiB" % (z_bytes / mib, measured["cgp"][0] / mib, measured["torch"][0] / mib,
                                     measured["cgp"][1] / mib, measured["torch"][1] / mib)

    @case("docs/python.md's training example runs as written")
    def _():
        path = os.path.join(REPO, "docs", "python.md")
        with open(path) as f:
            blocks = [block for block in re.findall(r"```python\n(.*?)```", f.read(), flags=re.S)
                      if "backward()" in block]
        expect(len(blocks) == 1, "%d python blocks with backward() in %s, expected 1" % (len(blocks), path))
        done = subprocess.run([sys.executable, "-c", blocks[0]], env=dict(os.environ, PYTHONPATH=PACKAGE),
                              capture_output=True, text=True, timeout=600)
        out = done.stdout + done.stderr
        expect(done.returncode == 0, "exit %d: %s" % (done.returncode, out.strip()[-600:]))
        return " ".join(out.split())[-200:]

    return cases


def run_or_skip(cases, absent):
    """Each case run, or a SKIP naming `absent` (a FAIL with CGP_TEST_REQUIRE_GPU=1)."""
    for name, fn in cases:
        if absent is None:
            run_case(name, fn)
        elif os.environ.get("CGP_TEST_REQUIRE_GPU") == "1":
            run_case(name, lambda: expect(False, absent + " and CGP_TEST_REQUIRE_GPU=1"))
        else:
            print("SKIP %s: %s" % (name, absent))


def main():
    seed = int(os.environ.get("CGP_TEST_SEED") or time.time())
    print("test_autograd: seed %d (CGP_TEST_SEED), library %s" % (seed, LIBRARY))
    no_torch = None if importlib.util.find_spec("torch") is not None else "PyTorch is not installed"
    run_or_skip(cpu_cases(seed), no_torch)
    run_or_skip([("gpu: " + name, fn) for name, fn in gpu_cases(seed)], gpu_absent())
    return 1 if failed() else 0


if __name__ == "__main__":
    sys.exit(main())
