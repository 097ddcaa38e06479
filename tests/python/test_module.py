#!/usr/bin/env python3
"""test_module.py - the Python module (python/cgp), one line per case: "PASS name",
"FAIL name: why" or "SKIP name: why" (tests/run_tests.sh counts them); exit 1 on any FAIL.

CPU cases, always (Python's standard library only): where libcgp.so is looked for and what the
import says when it is missing, unloadable or of another version; the ctypes declarations against
include/cgp.h and against the library; cgp.Error; argument checking on fake
__cuda_array_interface__ objects, which must fail before any GPU call.
GPU cases (PyTorch with a CUDA device; each is a SKIP without one, a FAIL with
CGP_TEST_REQUIRE_GPU=1): every precision and reduction against float64 on random shapes, torch.compile
with fullgraph, CUDA-graph capture and replay, two streams at once, CuPy arrays, objects offering
only __cuda_array_interface__ or only DLPack, the nn.Module against the PyTorch pipeline, errors on
real tensors, select="measured", the cache, the example of docs/python.md.

Environment: CGP_LIBRARY (default $BUILD/libcgp.so, BUILD default build), CGP_TEST_SEED (default:
the time; printed), CGP_TEST_REQUIRE_GPU=1, CGP_TEST_TMP (scratch directory, default /tmp).
Run from anywhere: python3 tests/python/test_module.py
"""
import ctypes
import importlib.util
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import types

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(REPO, "python")
HEADER = os.path.join(REPO, "include", "cgp.h")
os.environ.setdefault("CGP_LIBRARY", os.path.join(REPO, os.environ.get("BUILD", "build"), "libcgp.so"))
LIBRARY = os.path.abspath(os.environ["CGP_LIBRARY"])
sys.path.insert(0, PACKAGE)
sys.path.insert(0, os.path.join(REPO, "tests", "lib"))
from pycases import Fail, Skip, gpu_absent, expect, failed, run_case  # noqa: E402 (tests/lib/)



# ---- CPU: finding and loading the library ---------------------------------------------------------
def import_in_subprocess(env_changes, path, code="import cgp; print(cgp.library_path)"):
    """(exit code, stdout + stderr) of `code` in a fresh interpreter importing cgp from `path`."""
    env = dict(os.environ, PYTHONPATH=path)
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


def copied_package(tmp, with_library):
    """A copy of python/cgp in tmp/pkg (so neither a library beside it nor a build/ above it)."""
    target = os.path.join(tmp, "pkg%d" % with_library, "cgp")
    shutil.copytree(os.path.join(PACKAGE, "cgp"), target, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    if with_library:
        shutil.copy(LIBRARY, os.path.join(target, "libcgp.so"))
    return os.path.dirname(target)


def stub_library(tmp, name, source):
    """A shared library compiled from C `source` (Skip without gcc)."""
    if shutil.which("gcc") is None:
        raise Skip("no gcc to build a stub library")
    src, lib = os.path.join(tmp, name + ".c"), os.path.join(tmp, name + ".so")
    with open(src, "w") as f:
        f.write(source)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", lib, src], check=True, capture_output=True)
    return lib


def cpu_cases(tmp):
    cases = []

    def case(name):
        return lambda fn: cases.append((name, fn))

    @case("import cgp loads CGP_LIBRARY and checks its version")
    def _():
        import cgp
        expect(os.path.samefile(cgp.library_path, LIBRARY), "loaded %s, not %s" % (cgp.library_path, LIBRARY))
        return "cgp %s, %s" % (cgp.__version__, cgp.library_path)

    @case("discovery: CGP_LIBRARY naming a missing file")
    def _():
        rc, out = import_in_subprocess({"CGP_LIBRARY": "/nonexistent/libcgp.so"}, PACKAGE)
        expect(rc != 0 and "ImportError" in out and "CGP_LIBRARY: /nonexistent/libcgp.so (no such file)" in out,
               "exit %d, output: %s" % (rc, out.strip()[-400:]))

    @case("discovery: no library anywhere names every place looked in")
    def _():
        path = copied_package(tmp, False)
        rc, out = import_in_subprocess({"CGP_LIBRARY": None}, path)
        want = ["CGP_LIBRARY is not set", os.path.join(path, "cgp", "libcgp.so"),
                os.path.join(os.path.dirname(path), "build", "libcgp.so"), "make build/libcgp.so"]
        missing = [w for w in want if w not in out]
        expect(rc != 0 and not missing, "exit %d, %s missing from: %s" % (rc, missing, out.strip()[-600:]))

    @case("discovery: libcgp.so next to the package")
    def _():
        path = copied_package(tmp, True)
        rc, out = import_in_subprocess({"CGP_LIBRARY": None}, path)
        expect(rc == 0 and out.strip().splitlines()[-1] == os.path.join(path, "cgp", "libcgp.so"),
               "exit %d: %s" % (rc, out.strip()[-400:]))

    @case("discovery: the repository's build/libcgp.so")
    def _():
        built = os.path.join(REPO, "build", "libcgp.so")
        if not os.path.isfile(built):
            raise Skip("%s not built" % built)
        rc, out = import_in_subprocess({"CGP_LIBRARY": None}, PACKAGE)
        expect(rc == 0 and out.strip().splitlines()[-1] == built, "exit %d: %s" % (rc, out.strip()[-400:]))

    @case("discovery: a file that is not a library")
    def _():
        bogus = os.path.join(tmp, "not_a_library.so")
        with open(bogus, "w") as f:
            f.write("not ELF\n")
        rc, out = import_in_subprocess({"CGP_LIBRARY": bogus}, PACKAGE)
        expect(rc != 0 and "cannot load libcgp.so (CGP_LIBRARY: %s)" % bogus in out, "exit %d: %s"
               % (rc, out.strip()[-400:]))

    @case("version: a libcgp of another MAJOR.MINOR is refused, naming both")
    def _():
        lib = stub_library(tmp, "libcgp_v1_1", "int cgp_version(void) { return 1001; }\n")
        rc, out = import_in_subprocess({"CGP_LIBRARY": lib}, PACKAGE)
        expect(rc != 0 and "%s (CGP_LIBRARY) is libcgp 1.1, but this cgp package is 0.3.0 and needs libcgp 0.3" % lib
               in out, "exit %d: %s" % (rc, out.strip()[-400:]))

    @case("version: a libcgp without cgp_version is refused")
    def _():
        lib = stub_library(tmp, "libcgp_old", "int cgp_plan_destroy(void *p) { return p != 0; }\n")
        rc, out = import_in_subprocess({"CGP_LIBRARY": lib}, PACKAGE)
        expect(rc != 0 and "has no cgp_version()" in out and "needs libcgp 0.3" in out, "exit %d: %s"
               % (rc, out.strip()[-400:]))

    @case("declarations: the ctypes declarations match include/cgp.h")
    def _():
        import cgp
        problems = cgp._lib.header_problems(HEADER, cgp.__version__)
        expect(not problems, "; ".join(problems))

    @case("declarations: the library agrees with them (calls that need no GPU)")
    def _():
        import cgp
        problems = cgp._lib.library_problems(cgp._library, cgp.__version__)
        expect(not problems, "; ".join(problems))

    @case("cgp.Error carries the library's status and detail")
    def _():
        import cgp
        plan = ctypes.c_void_p()
        try:
            cgp._library.call("cgp_plan_create", ctypes.byref(plan), ctypes.byref(cgp._lib.Shape(2, 3, 4, 9, 11)),
                              ctypes.byref(cgp._lib.Options(padding=5)))
            raise Fail("cgp_plan_create with padding 5 succeeded")
        except cgp.Error as e:
            expect(e.status == 3 and e.status_name == "CGP_ERROR_INVALID_OPTION" and "padding" in e.detail and
                   e.function == "cgp_plan_create" and e.detail in str(e), "got %r" % (str(e),))
            return str(e)

    @case("cgp.Error for a function the loaded library lacks")
    def _():
        import cgp
        lib = cgp._lib.Library(stub_library(tmp, "libcgp_partial", "int cgp_version(void) { return 2; }\n"))
        try:
            lib.fn("cgp_plan_create_measured")
            raise Fail("resolving cgp_plan_create_measured in a stub succeeded")
        except cgp.Error as e:
            expect(e.status is None and lib.path in str(e) and "cgp_plan_create_measured" in str(e), str(e))

    return cases


# ---- CPU: argument checking on fake arrays ---------------------------------------------------------
class FakeArray:
    """__cuda_array_interface__ (version 3) with any shape, typestr, address and strides; never read."""

    def __init__(self, shape, ptr, typestr="<f4", strides=None, mask=None, stream=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (ptr, False), "version": 3,
                                         "strides": strides, "mask": mask, "stream": stream}


class FakeDLPack:
    def __dlpack__(self, stream=None):
        raise AssertionError("a fake DLPack object was read")

    def __dlpack_device__(self):
        return (2, 0)


def fakes(**given):
    """x (2, 3, 8, 9), weight (4, 3, 3, 3), bias (4,) as FakeArrays at aligned addresses; a keyword
    replaces one by a FakeArray of that shape (a tuple) or by the object given."""
    arrays = {"x": (2, 3, 8, 9), "weight": (4, 3, 3, 3), "bias": (4,)}
    arrays.update(given)
    return [FakeArray(arrays[name], ptr) if isinstance(arrays[name], tuple) else arrays[name]
            for name, ptr in (("x", 0x10000), ("weight", 0x20000), ("bias", 0x30000))]


def argument_cases(frameworks=None):
    if frameworks is None:
        frameworks = [name for name in ("cupy", "torch") if importlib.util.find_spec(name) is not None]
    # (name, arrays, keywords, exception, text the message must contain)
    table = [
        ("x a list", fakes(x=[1.0]), {}, TypeError, "x: expected a CUDA array"),
        ("weight float64", fakes(weight=FakeArray((4, 3, 3, 3), 0x20000, "<f8")), {}, TypeError,
         "weight: dtype must be float32, got typestr '<f8'"),
        ("bias big-endian", fakes(bias=FakeArray((4,), 0x30000, ">f4")), {}, TypeError, "bias: dtype must be float32"),
        ("x 3-d", fakes(x=FakeArray((2, 3, 8), 0x10000)), {}, ValueError, "x: must have 4 dimensions (N, Cin, H, W)"),
        ("x N = 0", fakes(x=FakeArray((0, 3, 8, 9), 0x10000)), {}, ValueError, "x: every dimension must be >= 1"),
        ("x channels_last strides", fakes(x=FakeArray((2, 3, 8, 9), 0x10000, strides=(864, 4, 108, 12))), {},
         ValueError, "x: must be C-contiguous"),
        ("weight sliced strides", fakes(weight=FakeArray((4, 3, 3, 3), 0x20000, strides=(216, 36, 12, 4))), {},
         ValueError, "weight: must be C-contiguous"),
        ("x 8-byte aligned", fakes(x=FakeArray((2, 3, 8, 9), 0x10008)), {}, ValueError,
         "x: data must be 16-byte aligned, its address 0x10008"),
        ("bias 2-byte aligned", fakes(bias=FakeArray((4,), 0x30002)), {}, ValueError, "bias: data must be 4-byte"),
        ("weight 5x5", fakes(weight=(4, 3, 5, 5)), {}, ValueError, "weight: must be (Cout, Cin, 3, 3)"),
        ("weight Cin 2 for x Cin 3", fakes(weight=(4, 2, 3, 3)), {}, ValueError, "with Cin = 3 as in x"),
        ("bias of 5 for Cout 4", fakes(bias=(5,)), {}, ValueError, "bias: must be (Cout,) with Cout = 4"),
        ("x 2x9 with valid padding", fakes(x=(2, 3, 2, 9)), {}, ValueError, "x: H=2, W=9 give no output pixel"),
        ("x masked", fakes(x=FakeArray((2, 3, 8, 9), 0x10000, mask=FakeArray((2, 3, 8, 9), 0x40000))), {},
         ValueError, "x: a masked"),
        ("x stream 0 (the protocol disallows it)", fakes(x=FakeArray((2, 3, 8, 9), 0x10000, stream=0)), {},
         ValueError, "x: __cuda_array_interface__ 'stream' is 0, which the protocol disallows"),
        ("weight stream True", fakes(weight=FakeArray((4, 3, 3, 3), 0x20000, stream=True)), {}, ValueError,
         "weight: __cuda_array_interface__ 'stream' must be None or a stream handle"),
        ("padding 'full'", fakes(), {"padding": "full"}, ValueError, "padding must be one of 'valid', 'same'"),
        ("padding 1 (not a string)", fakes(), {"padding": 1}, ValueError, "padding must be one of"),
        ("padding ['same'] (unhashable)", fakes(), {"padding": ["same"]}, ValueError,
         "padding must be one of 'valid', 'same', got ['same']"),
        ("precision 'fp16'", fakes(), {"precision": "fp16"}, ValueError, "precision must be one of 'fp32', 'tf32'"),
        ("reduce 'fast'", fakes(), {"reduce": "fast"}, ValueError, "reduce must be one of 'det', 'atomic'"),
        ("select 'fastest'", fakes(), {"select": "fastest"}, ValueError, "select must be one of 'heuristic'"),
    ]
    no_framework = [  # cases that pass every check and would reach CuPy or PyTorch with fake addresses
        ("x DLPack only", fakes(x=FakeDLPack()), {}, TypeError, "x: a FakeDLPack offers only DLPack"),
        ("valid fakes without a framework", fakes(x=FakeArray((2, 3, 8, 9), 0x10000, strides=(864, 288, 36, 4))),
         {}, TypeError, "x: cgp allocates the output (N, Cout) with CuPy or PyTorch, and neither"),
        ("x 2x9 with same padding", fakes(x=(2, 3, 2, 9)), {"padding": "same"}, TypeError,
         "neither can be imported"),
    ]
    if frameworks:  # run them in a fresh interpreter in which neither framework can be imported
        table += [(name, None, None, None, None) for name, *_ in no_framework]
    else:
        table += no_framework
    cases = []
    for name, arrays, keywords, exception, text in table:
        def fn(arrays=arrays, keywords=keywords, exception=exception, text=text):
            if arrays is None:
                code = ("import runpy, sys; sys.modules['torch'] = sys.modules['cupy'] = None; "
                        "sys.argv = [%r, '--argument-case', %r]; runpy.run_path(%r, run_name='__main__')"
                        % (__file__, name, __file__))
                done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
                expect(done.returncode == 0 and ("PASS argument check: " + name) in done.stdout,
                       "with torch and cupy blocked: %s" % " ".join((done.stdout + done.stderr).split())[-400:])
                return None
            import cgp
            try:
                cgp.conv_gelu_mean(*arrays, **keywords)
            except exception as e:
                expect(text in str(e), "%s says %r, not %r" % (exception.__name__, str(e), text))
                return None
            except Exception as e:
                raise Fail("%s: %s, expected %s containing %r" % (type(e).__name__, e, exception.__name__, text))
            raise Fail("no exception, expected %s" % exception.__name__)
        cases.append(("argument check: %s" % name, fn))
    return cases


# ---- CPU: the eager fast path's rule, on a stand-in torch -----------------------------------------
STRIDED, SPARSE = "strided", "sparse_coo"  # the stand-in layouts (the rule compares layouts by identity)


class StandInTensor:
    """What cgp._eager.rule reads of a tensor: a plain dense CUDA tensor unless a keyword says otherwise."""

    def __init__(self, **changes):
        self.is_cuda, self.layout, self.is_nested, self.requires_grad = True, STRIDED, False, False
        self.neg = self.conj = False
        self.__dict__.update(changes)

    def is_neg(self):
        return self.neg

    def is_conj(self):
        return self.conj


class StandInParameter(StandInTensor):
    pass


class StandInSubclass(StandInTensor):  # as FakeTensor or FunctionalTensor are of torch.Tensor
    pass


def stand_in_torch(state, probes):
    """A module with what cgp._eager.rule reads of torch: the thread's state from the dict `state` (keys
    compiling, grad, function_mode, dispatch_modes, transforms, tracing, profiling), and of torch._C only
    the functions named in `probes`."""
    read = {"_is_torch_function_mode_enabled": lambda: state["function_mode"],
            "_len_torch_dispatch_stack": lambda: state["dispatch_modes"],
            "_are_functorch_transforms_active": lambda: state["transforms"],
            "_is_tracing": lambda: state["tracing"]}
    return types.SimpleNamespace(
        Tensor=StandInTensor, nn=types.SimpleNamespace(Parameter=StandInParameter), strided=STRIDED,
        compiler=types.SimpleNamespace(is_compiling=lambda: state["compiling"]),
        is_grad_enabled=lambda: state["grad"],
        autograd=types.SimpleNamespace(_profiler_enabled=lambda: state["profiling"]),
        _C=types.SimpleNamespace(**{name: read[name] for name in probes}))


def rule_cases():
    """cgp._eager.rule on a stand-in torch: which calls skip torch.ops (docs/python.md)."""
    plain = {"compiling": False, "grad": True, "function_mode": False, "dispatch_modes": 0, "transforms": False,
             "tracing": False, "profiling": False}
    # (name, state changes, {argument: StandInTensor keywords or a class}, torch._C probes left out, fast?)
    table = [
        ("plain CUDA tensors, grad mode on, nothing requires grad", {}, {}, (), True),
        ("weight requires grad, grad mode off", {"grad": False}, {"weight": {"requires_grad": True}}, (), True),
        ("weight an nn.Parameter", {}, {"weight": StandInParameter}, (), True),
        ("bias requires grad, grad mode on", {}, {"bias": {"requires_grad": True}}, (), False),
        ("x a tensor subclass (a FakeTensor)", {}, {"x": StandInSubclass}, (), False),
        ("torch.compile tracing", {"compiling": True}, {}, (), False),
        ("x on another device", {}, {"x": {"is_cuda": False}}, (), False),
        ("weight sparse", {}, {"weight": {"layout": SPARSE}}, (), False),
        ("x nested", {}, {"x": {"is_nested": True}}, (), False),
        ("x with the negative bit", {}, {"x": {"neg": True}}, (), False),
        ("bias with the conjugate bit", {}, {"bias": {"conj": True}}, (), False),
        ("a TorchFunctionMode", {"function_mode": True}, {}, (), False),
        ("a TorchDispatchMode", {"dispatch_modes": 1}, {}, (), False),
        ("a torch.func transform", {"transforms": True}, {}, (), False),
        ("torch.jit.trace", {"tracing": True}, {}, (), False),
        ("the autograd profiler", {"profiling": True}, {}, (), False),
        ("a torch without _len_torch_dispatch_stack", {}, {}, ("_len_torch_dispatch_stack",), False),
    ]
    cases = []
    for name, changes, arguments, left_out, want in table:
        def fn(changes=changes, arguments=arguments, left_out=left_out, want=want):
            import cgp._eager
            probes = [p for p in cgp._eager.STATE_PROBES if p not in left_out]
            fast = cgp._eager.rule(stand_in_torch(dict(plain, **changes), probes))
            specs = [arguments.get(argument, {}) for argument in ("x", "weight", "bias")]
            got = fast(*(spec() if isinstance(spec, type) else StandInTensor(**spec) for spec in specs))
            expect(got is want, "the rule says %r, expected %r" % (got, want))
            return "fast path" if want else "torch.ops"
        cases.append(("fast-path rule: %s" % name, fn))
    return cases


# ---- CPU: the memos of checked metadata and of option values, on stand-ins -------------------------
class StandInArrays:
    """A framework adapter for prepare_own over SimpleNamespace arrays (shape, ptr, device), counting the
    arrays it describes for check()."""
    name = "stand-in"

    def __init__(self):
        self.described = 0

    def metadata(self, x, weight, bias, padding):
        return None if x.device is None else (padding,) + tuple((a.shape, a.device) for a in (x, weight, bias))

    def info(self, a):
        import cgp
        self.described += 1
        return cgp._arrays.Info(a.shape, "float32", True, a.ptr, a.device)

    def ptr(self, a):
        return a.ptr


def memo_cases():
    cases = []

    def case(name):
        return lambda fn: cases.append((name, fn))

    def arrays(x_ptr=0x10000, bias=(4,), device=0):
        return [types.SimpleNamespace(shape=shape, ptr=ptr, device=device) for shape, ptr in
                (((2, 3, 8, 9), x_ptr), ((4, 3, 3, 3), 0x20000), (bias, 0x30000))]

    @case("prepare_own: checks new metadata once, then only the addresses' alignment")
    def _():
        import cgp
        cgp._arrays.forget_checked()
        own = StandInArrays()
        got = cgp._arrays.prepare_own(own, *arrays(), 0)
        expect(own.described == 3 and tuple(got[0]) == (0x10000, 0x20000, 0x30000) and got[1:] == ((2, 3, 4, 8, 9), 0),
               "first call: described %d arrays, returned %r" % (own.described, got))
        got = cgp._arrays.prepare_own(own, *arrays(x_ptr=0x50000), 0)
        expect(own.described == 3 and tuple(got[0]) == (0x50000, 0x20000, 0x30000) and got[1:] == ((2, 3, 4, 8, 9), 0),
               "same metadata: described %d arrays in all, returned %r" % (own.described, got))
        try:
            cgp._arrays.prepare_own(own, *arrays(x_ptr=0x50008), 0)
            raise Fail("x at 0x50008 with metadata checked before was accepted")
        except ValueError as e:
            expect("x: data must be 16-byte aligned, its address 0x50008" in str(e), str(e))
        cgp._arrays.prepare_own(own, *arrays(), 1)
        expect(own.described == 9, "another padding: described %d arrays in all, expected 9" % own.described)
        cgp._arrays.forget_checked()
        cgp._arrays.prepare_own(own, *arrays(), 0)
        expect(own.described == 12, "after forget_checked: described %d arrays in all, expected 12" % own.described)
        cgp._arrays.forget_checked()

    @case("prepare_own: metadata that failed a check, or that has no key, is checked every call")
    def _():
        import cgp
        own = StandInArrays()
        for _ in range(2):
            try:
                cgp._arrays.prepare_own(own, *arrays(bias=(5,)), 0)
                raise Fail("bias (5,) for Cout 4 was accepted")
            except ValueError as e:
                expect("bias: must be (Cout,) with Cout = 4" in str(e), str(e))
        for _ in range(2):
            try:
                cgp._arrays.prepare_own(own, *arrays(device=None), 0)
            except Exception as e:
                raise Fail("unknown devices: %s: %s" % (type(e).__name__, e))
        expect(own.described == 12, "described %d arrays, expected 3 a call" % own.described)
        cgp._arrays.forget_checked()

    @case("option_values: values that passed are looked up, an unhashable one is named")
    def _():
        import cgp
        first = cgp._lib.option_values("same", "tf32", "atomic", "measured")
        expect(first == (1, 1, 1, 1) and first._asdict() == {"padding": 1, "precision": 1, "reduce": 1, "select": 1},
               "got %r" % (first,))
        expect(cgp._lib.option_values("same", "tf32", "atomic", "measured") is first, "not looked up")
        try:
            cgp._lib.option_values("same", ["tf32"], "det", "heuristic")
            raise Fail("precision ['tf32'] was accepted")
        except ValueError as e:
            expect("precision must be one of 'fp32', 'tf32', '3xtf32', got ['tf32']" in str(e), str(e))

    return cases


# ---- GPU cases -------------------------------------------------------------------------------------
PRECISIONS = ("fp32", "tf32", "3xtf32")
TOLERANCE = {"fp32": 1e-6, "tf32": 1e-5, "3xtf32": 1e-6}  # tf32: against fp64 of tf32-rounded x and weight


class Gpu:
    """Inputs, references and comparisons in PyTorch."""

    def __init__(self, seed):
        import torch
        self.torch = torch
        self.gen = torch.Generator(device="cuda").manual_seed(seed)

    def inputs(self, n, cin, cout, h, w):
        torch = self.torch
        scale = 2.0 / (cin * 9) ** 0.5  # conv outputs of order 1
        x = torch.rand(n, cin, h, w, generator=self.gen, device="cuda") * 2 - 1
        wt = (torch.rand(cout, cin, 3, 3, generator=self.gen, device="cuda") * 2 - 1) * scale
        b = torch.rand(cout, generator=self.gen, device="cuda") - 0.5
        return x, wt, b

    def tf32(self, t):
        """t rounded to 10 mantissa bits, to nearest with ties away from zero: cvt.rna.tf32.f32, as the
        kernels round (tests/gpu_tensorcore.c); integer bit operations on the float32 pattern."""
        bits = t.contiguous().view(self.torch.int32)
        return ((bits + 0x1000) & -8192).view(self.torch.float32)

    def reference(self, x, w, b, padding, precision="fp32"):
        F = self.torch.nn.functional
        if precision == "tf32":
            x, w = self.tf32(x), self.tf32(w)
        y = F.conv2d(x.double(), w.double(), b.double(), padding=1 if padding == "same" else 0)
        return F.gelu(y).mean(dim=(2, 3))

    def rel_l2(self, y, ref):
        """||y - ref|| / max(||ref||, 0.05 sqrt(count)): the relative L2 error of host/bench/check.h, which `cgp
        bench` and the C tests report; the floor keeps means that cancel to near 0 (outputs of 0.01 averaging GELUs
        of order 1) from dividing a well-sized error by a small norm."""
        torch = self.torch
        y = torch.as_tensor(y).double()
        expect(bool(torch.isfinite(y).all()), "non-finite outputs")
        norm = max(float(torch.linalg.vector_norm(ref)), 0.05 * ref.numel() ** 0.5)
        return float(torch.linalg.vector_norm(y - ref)) / norm

    def same_bits(self, a, b):
        torch = self.torch
        return torch.equal(torch.as_tensor(a).view(torch.int32), torch.as_tensor(b).view(torch.int32))


def gpu_cases(seed):
    cases = []

    def case(name):
        return lambda fn: cases.append((name, fn))

    rng = random.Random(seed)
    shapes = [(rng.randint(1, 4), rng.randint(1, 24), rng.randint(1, 80), rng.randint(3, 48), rng.randint(3, 48),
               rng.choice(("valid", "same"))) for _ in range(4)]
    shapes += [(4, 8, 64, 64, 64, "valid"), (2, 16, 32, 33, 47, "same")]
    state = {}

    def gpu():
        if "gpu" not in state:
            state["gpu"] = Gpu(seed)
        return state["gpu"]

    for precision in PRECISIONS:
        for reduce in ("det", "atomic"):
            @case("fp64 reference: %s %s on %d shapes" % (precision, reduce, len(shapes)))
            def _(precision=precision, reduce=reduce):
                import cgp
                g, worst = gpu(), (0.0, None)
                for n, cin, cout, h, w, padding in shapes:
                    x, wt, b = g.inputs(n, cin, cout, h, w)
                    y = cgp.conv_gelu_mean(x, wt, b, padding=padding, precision=precision, reduce=reduce)
                    where = "%dx%dx%dx%dx%d %s" % (n, cin, cout, h, w, padding)
                    expect(tuple(y.shape) == (n, cout) and y.dtype == g.torch.float32, "%s: y is %s %s"
                           % (where, tuple(y.shape), y.dtype))
                    err = g.rel_l2(y, g.reference(x, wt, b, padding, precision))
                    expect(err <= TOLERANCE[precision], "%s: rel L2 %.2e > %.0e (%s)" % (
                        where, err, TOLERANCE[precision], cgp.kernel_of(x, wt, b, padding, precision, reduce)[1]))
                    if reduce == "det":
                        again = cgp.conv_gelu_mean(x, wt, b, padding=padding, precision=precision, reduce=reduce)
                        expect(g.same_bits(y, again), "%s: det output differs between two runs" % where)
                    worst = max(worst, (err, where))
                return "worst rel L2 %.2e at %s" % worst

    @case("kernel_of names a kernel of each precision, and what it is")
    def _():
        import cgp
        x, w, b = gpu().inputs(2, 8, 64, 32, 32)
        kernels = [cgp.kernel_of(x, w, b, precision=p) for p in PRECISIONS]
        names = [k[1] for k in kernels]
        expect(all(name.startswith(p + "-") for name, p in zip(names, PRECISIONS)), "kernels %s" % names)
        # a (version, name) pair as before, with .kind: the library's words for the version (FFMA: fp32's pipe alone)
        expect(all(len(k) == 2 and k == (k.version, k.name) and isinstance(k.kind, str) and
                   k.kind.startswith("ffma ") == (p == "fp32") for k, p in zip(kernels, PRECISIONS)),
               "kernels %r" % kernels)
        return ", ".join("%s (%s)" % (k.name, k.kind) for k in kernels)

    @case("torch.compile(fullgraph=True) through cgp::conv_gelu_mean, two batch sizes")
    def _():
        import cgp
        torch, g = gpu().torch, gpu()
        x, w, b = g.inputs(4, 8, 32, 40, 36)

        def f(x, w, b):
            return cgp.conv_gelu_mean(x * 0.5, w, b, padding="same", precision="3xtf32").sum(dim=1)

        compiled = torch.compile(f, fullgraph=True)
        for batch in (4, 2):
            got, want = compiled(x[:batch], w, b), f(x[:batch], w, b)
            err = g.rel_l2(got, want.double())
            expect(tuple(got.shape) == (batch,) and err <= 1e-6, "N=%d: shape %s, rel L2 against eager %.2e"
                   % (batch, tuple(got.shape), err))

    @case("CUDA graph: capture after warm-up on a side stream, replay with new inputs copied in")
    def _():
        import cgp
        torch, g = gpu().torch, gpu()
        for precision in ("fp32", "tf32"):
            static_x, w, b = g.inputs(3, 8, 64, 48, 40)
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                cgp.conv_gelu_mean(static_x, w, b, padding="same", precision=precision)
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                static_y = cgp.conv_gelu_mean(static_x, w, b, padding="same", precision=precision)
            for replay in range(3):
                new_x = g.inputs(3, 8, 64, 48, 40)[0]
                static_x.copy_(new_x)
                graph.replay()
                eager = cgp.conv_gelu_mean(new_x, w, b, padding="same", precision=precision)
                torch.cuda.synchronize()
                err = g.rel_l2(static_y, g.reference(new_x, w, b, "same", precision))
                expect(g.same_bits(static_y, eager) and err <= TOLERANCE[precision],
                       "%s replay %d: rel L2 %.2e, bit-identical to eager: %s"
                       % (precision, replay, err, g.same_bits(static_y, eager)))

    @case("two streams at once, each with its own plan")
    def _():
        import cgp
        torch, g = gpu().torch, gpu()
        xs = [g.inputs(8, 16, 64, 96, 96)[0] for _ in range(2)]
        _, w, b = g.inputs(8, 16, 64, 96, 96)
        want = [cgp.conv_gelu_mean(x, w, b) for x in xs]
        streams = [torch.cuda.Stream() for _ in xs]
        got = [[], []]
        for s in streams:
            s.wait_stream(torch.cuda.current_stream())
        for _ in range(4):
            for i, (s, x) in enumerate(zip(streams, xs)):
                with torch.cuda.stream(s):
                    got[i].append(cgp.conv_gelu_mean(x, w, b))
        torch.cuda.synchronize()
        expect(all(g.same_bits(y, want[i]) for i in range(2) for y in got[i]), "a result differs from the "
               "single-stream one")
        used = {p["stream"] for p in cgp.cached_plans() if p["shape"] == (8, 16, 64, 96, 96)}
        expect({s.cuda_stream for s in streams} <= used, "plans on streams %s, the streams are %s"
               % (used, [s.cuda_stream for s in streams]))

    @case("the per-thread default stream (handle 2): one plan per thread, never shared")
    def _():
        import threading
        import cgp
        torch, g = gpu().torch, gpu()
        shape = (4, 8, 48, 40, 44)
        xs = [g.inputs(*shape)[0] for _ in range(2)]
        _, w, b = g.inputs(*shape)
        want = [cgp.conv_gelu_mean(x, w, b, padding="same") for x in xs]
        torch.cuda.synchronize()
        got, errors, start = [[], []], [], threading.Barrier(2)

        def worker(i):
            try:
                with torch.cuda.stream(torch.cuda.ExternalStream(2)):  # cudaStreamPerThread: this thread's own
                    start.wait()
                    for _ in range(16):
                        got[i].append(cgp.conv_gelu_mean(xs[i], w, b, padding="same"))
                    torch.cuda.current_stream().synchronize()
            except Exception as e:  # reported below, in the case's thread
                errors.append(repr(e))

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        expect(not errors, "; ".join(errors))
        plans = [p for p in cgp.cached_plans() if p["shape"] == shape and p["stream"] == 2]
        expect(len(plans) == 2 and len({p.get("thread") for p in plans}) == 2,
               "plans on handle 2: %s (one per thread expected)" % plans)
        expect(all(g.same_bits(y, want[i]) for i in range(2) for y in got[i]), "a result differs from the "
               "single-thread one")
        return "%d plans on handle 2" % len(plans)

    @case("set_cache_limit: the least recently used plan goes, a plan a graph holds stays")
    def _():
        import cgp
        torch, g = gpu().torch, gpu()
        shapes = [(2, 4, 8, 16, 16 + i) for i in range(4)]  # A, B, C, and D captured
        inputs = [g.inputs(*s) for s in shapes]
        want = [cgp.conv_gelu_mean(*t) for t in inputs]
        cgp.clear_cache()
        previous = cgp.set_cache_limit(2)
        try:
            for i in (0, 1, 0, 2):  # A, B, A again (B is now the least recently used), C: B goes, not A
                cgp.conv_gelu_mean(*inputs[i])
            kept = [p["shape"] for p in cgp.cached_plans()]
            expect(kept == [shapes[0], shapes[2]], "kept %s, expected A then C" % kept)
            cgp.clear_cache()
            cgp.set_cache_limit(1)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                static_y = cgp.conv_gelu_mean(*inputs[3])
            for i in range(3):  # A, B, C: each evicts the one before, never D
                again = cgp.conv_gelu_mean(*inputs[i])
                expect(g.same_bits(again, want[i]), "shape %s made again differs" % (shapes[i],))
            plans = cgp.cached_plans()
            expect([(p["shape"], p["captured"]) for p in plans] == [(shapes[3], True), (shapes[2], False)],
                   "kept %s, expected D (captured) and C" % plans)
            static_y.zero_()
            graph.replay()
            torch.cuda.synchronize()
            expect(g.same_bits(static_y, want[3]), "the graph's replay after the evictions differs")
            return "limit %d restored" % previous
        finally:
            cgp.set_cache_limit(previous)
            cgp.clear_cache()

    @case("__cuda_array_interface__ 'stream': the launch waits for the stream that produces x")
    def _():
        import cgp
        torch, g = gpu().torch, gpu()
        x_src, w, b = g.inputs(2, 8, 32, 40, 40)
        want = cgp.conv_gelu_mean(x_src, w, b)
        x = torch.zeros_like(x_src)
        producer = torch.cuda.Stream()
        torch.cuda.synchronize()
        with torch.cuda.stream(producer):
            torch.cuda._sleep(200_000_000)  # about 0.1 s of the producer stream before x gets its values
            x.copy_(x_src)

        class Produced:  # x as a producer outside PyTorch would offer it: still being written on `producer`
            def __init__(self, t, stream):
                self.__cuda_array_interface__ = dict(t.__cuda_array_interface__, stream=stream)

        y = cgp.conv_gelu_mean(Produced(x, producer.cuda_stream), w, b)
        torch.cuda.synchronize()
        expect(g.same_bits(y, want), "y was computed from x before its producer stream wrote it")

    @case("CuPy arrays in, a CuPy array out (current stream, and a non-blocking stream)")
    def _():
        if importlib.util.find_spec("cupy") is None:
            raise Skip("CuPy is not installed")
        import cupy
        import cgp
        torch, g = gpu().torch, gpu()
        x, w, b = g.inputs(2, 8, 64, 30, 31)
        want = cgp.conv_gelu_mean(x, w, b, padding="same")
        torch.cuda.synchronize()
        xc, wc, bc = (cupy.asarray(t) for t in (x, w, b))
        y = cgp.conv_gelu_mean(xc, wc, bc, padding="same")
        with cupy.cuda.Stream(non_blocking=True) as s:
            y2 = cgp.conv_gelu_mean(xc, wc, bc, padding="same")
            s.synchronize()
        cupy.cuda.Device().synchronize()
        expect(isinstance(y, cupy.ndarray) and isinstance(y2, cupy.ndarray), "got %s" % type(y).__name__)
        expect(g.same_bits(y, want) and g.same_bits(y2, want), "CuPy results differ from the PyTorch one")

    class Interface:
        def __init__(self, t):
            self.__cuda_array_interface__ = t.__cuda_array_interface__

    class DLPackOnly:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, *args, **kwargs):
            return self.t.__dlpack__(*args, **kwargs)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    for kind, wrap in (("__cuda_array_interface__", Interface), ("DLPack", DLPackOnly)):
        @case("objects offering only %s" % kind)
        def _(wrap=wrap):
            import cgp
            torch, g = gpu().torch, gpu()
            x, w, b = g.inputs(2, 4, 16, 20, 20)
            want = cgp.conv_gelu_mean(x, w, b)
            torch.cuda.synchronize()
            y = cgp.conv_gelu_mean(wrap(x), wrap(w), wrap(b))
            torch.cuda.synchronize()
            expect(g.same_bits(y, want), "the result differs from the tensors' one")
            return "output: %s" % type(y).__module__

    @case("nn.Module ConvGeluMean.from_conv2d against Conv2d -> GELU -> AdaptiveAvgPool2d(1) -> Flatten")
    def _():
        import copy
        import cgp
        torch, g = gpu().torch, gpu()
        x = g.inputs(3, 8, 1, 40, 41)[0]
        errs = []
        for padding in (0, 1, "same"):
            conv = torch.nn.Conv2d(8, 48, 3, padding=padding).cuda()
            pipeline = torch.nn.Sequential(conv, torch.nn.GELU(), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten())
            module = cgp.torch.ConvGeluMean.from_conv2d(conv)
            with torch.no_grad():
                y = module(x)
                ref = copy.deepcopy(pipeline).double()(x.double())
                compiled = torch.compile(module, fullgraph=True)(x)
            errs.append(g.rel_l2(y, ref))
            expect(errs[-1] <= 1e-6, "padding %r: rel L2 %.2e against the float64 pipeline" % (padding, errs[-1]))
            expect(g.same_bits(y, compiled), "padding %r: the compiled module differs from the eager one" % padding)
        try:
            cgp.torch.ConvGeluMean.from_conv2d(torch.nn.Conv2d(8, 16, 3, stride=2))
            raise Fail("a stride-2 Conv2d was accepted")
        except ValueError as e:
            expect("conv.stride" in str(e), str(e))
        return "rel L2 %s" % ", ".join("%.1e" % e for e in errs)

    @case("errors on real tensors name the argument, on the fast path and through torch.ops alike")
    def _():
        import cgp
        torch, g = gpu().torch, gpu()
        x, w, b = g.inputs(2, 4, 8, 16, 16)
        cgp.conv_gelu_mean(x, w, b)  # x's metadata passes: the misaligned view of the same metadata must still fail
        flat = torch.empty(x.numel() + 1, device="cuda")
        table = [((x.cpu(), w, b), ValueError, "x: must be on a CUDA device, is on cpu"),
                 ((x, w.double(), b), TypeError, "weight: dtype must be float32, got float64"),
                 ((x.contiguous(memory_format=torch.channels_last), w, b), ValueError, "x: must be C-contiguous"),
                 ((flat[1:].view(x.shape), w, b), ValueError, "x: data must be 16-byte aligned"),
                 ((x, w, b.cpu()), ValueError, "bias: must be on a CUDA device")]
        for args, exception, text in table:
            for path, call in (("cgp.conv_gelu_mean", cgp.conv_gelu_mean), ("torch.ops", torch.ops.cgp.conv_gelu_mean)):
                try:
                    call(*args)
                    raise Fail("%s: no exception for %r" % (path, text))
                except exception as e:
                    expect(text in str(e), "%s: %r, expected %r" % (path, str(e), text))

    @case("eager fast path: taken for plain tensors, the same bits and plan as torch.ops; autograd gets the op")
    def _():
        import cgp
        torch, g = gpu().torch, gpu()
        x, w, b = g.inputs(3, 8, 32, 21, 19)
        expect(cgp.torch._fast(x, w, b), "the rule sends plain tensors that require no grad through torch.ops")
        fast = cgp.conv_gelu_mean(x, w, b, padding="same", precision="tf32")
        op = torch.ops.cgp.conv_gelu_mean(x, w, b, "same", "tf32", "det", "heuristic")
        expect(g.same_bits(fast, op), "the fast path and torch.ops differ")
        err = g.rel_l2(fast, g.reference(x, w, b, "same", "tf32"))
        expect(err <= TOLERANCE["tf32"], "rel L2 %.2e against float64" % err)
        options = {"padding": 1, "precision": 1, "reduce": 0, "select": 0}
        plans = [p for p in cgp.cached_plans() if p["shape"] == (3, 8, 32, 21, 19) and p["options"] == options]
        expect(len(plans) == 1, "%d plans for the call, expected one for both paths: %s" % (len(plans), plans))
        recorded = cgp.conv_gelu_mean(x, w.clone().requires_grad_(), b, padding="same", precision="tf32")
        expect(recorded.grad_fn is not None and g.same_bits(recorded.detach(), fast),
               "with weight requiring grad: grad_fn %s, same bits %s" % (recorded.grad_fn,
                                                                         g.same_bits(recorded.detach(), fast)))
        return "kernel %s, rel L2 %.1e" % (plans[0]["kernel"], err)

    @case("eager fast path: the rule on PyTorch's own states, and the modes see the op")
    def _():
        import cgp
        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch.overrides import TorchFunctionMode
        from torch.utils._python_dispatch import TorchDispatchMode
        torch, g = gpu().torch, gpu()
        x, w, b = g.inputs(2, 4, 8, 12, 12)
        fast, want = cgp.torch._fast, cgp.conv_gelu_mean(x, w, b)
        param = torch.nn.Parameter(w.clone())
        verdicts = {"plain, grad mode on": (fast(x, w, b), True),
                    "an nn.Parameter requiring grad, grad mode on": (fast(x, param, b), False),
                    "x on the CPU": (fast(x.cpu(), w, b), False),
                    "x on the meta device": (fast(x.to("meta"), w, b), False),
                    "x a FakeTensor": (fast(FakeTensorMode().from_tensor(x), w, b), False)}
        with torch.no_grad():
            verdicts["an nn.Parameter requiring grad, no_grad"] = (fast(x, param, b), True)
        with torch.inference_mode():
            verdicts["inference_mode"] = (fast(x, param, b), True)

        class Dispatches(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                seen.append(str(func))
                return func(*args, **(kwargs or {}))

        class Functions(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append(str(func))
                return func(*args, **(kwargs or {}))

        for name, mode in (("a TorchDispatchMode", Dispatches), ("a TorchFunctionMode", Functions)):
            seen = []
            with mode():
                verdicts[name] = (fast(x, w, b), False)
                y = cgp.conv_gelu_mean(x, w, b)
            expect(any("cgp.conv_gelu_mean" in f for f in seen) and g.same_bits(y, want),
                   "%s saw %s; same bits %s" % (name, seen[:8], g.same_bits(y, want)))
        inside = {}

        def per_image(image):
            inside["inside torch.func.vmap"] = (fast(image[None], w, b), False)
            return image.sum()

        def doubled(a):
            inside["inside torch.jit.trace"] = (fast(a, w, b), False)
            return a * 2

        torch.func.vmap(per_image)(x)
        torch.jit.trace(doubled, (x,), check_trace=False)
        verdicts.update(inside)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
            verdicts["the profiler on"] = (fast(x, w, b), False)
        wrong = ["%s: %s, expected %s" % (name, got, expected) for name, (got, expected) in verdicts.items()
                 if got is not expected]
        expect(not wrong, "; ".join(wrong))
        return "%d states" % len(verdicts)

    @case("select='measured' (cgp_plan_create_measured) against float64")
    def _():
        import cgp
        g = gpu()
        x, w, b = g.inputs(4, 8, 64, 64, 64)
        try:
            y = cgp.conv_gelu_mean(x, w, b, select="measured")
        except cgp.Error as e:
            if e.status is None:
                raise Skip(str(e))
            raise
        err = g.rel_l2(y, g.reference(x, w, b, "valid"))
        expect(err <= 1e-6, "rel L2 %.2e" % err)
        return "%s, rel L2 %.1e" % (cgp.kernel_of(x, w, b, select="measured")[1], err)

    @case("docs/python.md's example runs as written")
    def _():
        path = os.path.join(REPO, "docs", "python.md")
        with open(path) as f:
            blocks = re.findall(r"```python\n(.*?)```", f.read(), flags=re.S)
        expect(blocks, "no python block in %s" % path)
        rc, out = import_in_subprocess({}, PACKAGE, blocks[0])
        expect(rc == 0, "exit %d: %s" % (rc, out.strip()[-600:]))
        return " ".join(out.split())

    @case("clear_cache empties the cache; the next call makes a plan again")
    def _():
        import cgp
        g = gpu()
        x, w, b = g.inputs(2, 4, 8, 16, 16)
        before = cgp.conv_gelu_mean(x, w, b)
        count = len(cgp.cached_plans())
        cgp.clear_cache()
        expect(cgp.cached_plans() == [], "plans left: %s" % cgp.cached_plans())
        after = cgp.conv_gelu_mean(x, w, b)
        expect(g.same_bits(before, after) and len(cgp.cached_plans()) == 1, "after clearing %d plans" % count)
        return "%d plans cleared" % count

    return cases


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--argument-case":  # one case, frameworks blocked by the caller
        for name, fn in argument_cases(frameworks=[]):
            if name == "argument check: " + sys.argv[2]:
                run_case(name, fn)
                return 1 if failed() else 0
        print("FAIL argument check: %s: no such case" % sys.argv[2])
        return 1
    seed = int(os.environ.get("CGP_TEST_SEED") or time.time())
    print("test_module: seed %d (CGP_TEST_SEED), library %s" % (seed, LIBRARY))
    with tempfile.TemporaryDirectory(dir=os.environ.get("CGP_TEST_TMP")) as tmp:
        for name, fn in cpu_cases(tmp) + argument_cases() + rule_cases() + memo_cases():
            run_case(name, fn)
    absent = gpu_absent()
    for name, fn in gpu_cases(seed):
        if absent is None:
            run_case("gpu: " + name, fn)
        elif os.environ.get("CGP_TEST_REQUIRE_GPU") == "1":
            run_case("gpu: " + name, lambda: expect(False, absent + " and CGP_TEST_REQUIRE_GPU=1"))
        else:
            print("SKIP gpu: %s: %s" % (name, absent))
    return 1 if failed() else 0


if __name__ == "__main__":
    sys.exit(main())
