"""cgp - y[n, c] = mean over (h, w) of GELU(conv3x3(x, weight)[n, c, h, w] + bias[c]) in one CUDA
launch, for PyTorch tensors, CuPy arrays and any CUDA array offering __cuda_array_interface__ or
DLPack, through libcgp.so (include/cgp.h) and ctypes. docs/python.md has the details.

    import cgp
    y = cgp.conv_gelu_mean(x, weight, bias, padding="same", precision="tf32")

Importing loads libcgp.so (CGP_LIBRARY, else next to this package, else the repository's build/)
and checks that its version is this package's MAJOR.MINOR. With PyTorch importable, cgp.torch
registers the custom op cgp::conv_gelu_mean (torch.compile, CUDA graphs) and ConvGeluMean.
"""
import atexit
import collections
import importlib.util

from . import _arrays, _lib, _plans
from ._lib import Error

__version__ = "0.3.0"  # MAJOR.MINOR: those of the libcgp it needs (include/cgp.h CGP_VERSION_*)
__all__ = ["Error", "Kernel", "cached_plans", "clear_cache", "conv_gelu_mean", "declaration_problems",
           "kernel_of", "library_path", "set_cache_limit"]

_library = _lib.load(__version__)
_cache = _plans.Cache(_library)
library_path = _library.path


def conv_gelu_mean(x, weight, bias, padding="valid", precision="fp32", reduce="det", select="heuristic"):
    """y (N, Cout) = mean over (h, w) of GELU(conv3x3(x, weight) + bias), one CUDA launch.

    x (N, Cin, H, W), weight (Cout, Cin, 3, 3), bias (Cout,): float32, C-contiguous, on one CUDA
    device. padding "valid" or "same"; precision "fp32", "tf32" or "3xtf32"; reduce "det"
    (bit-identical run to run) or "atomic"; select "heuristic" (the library's choice of kernel) or
    "measured" (every supported kernel timed once on these arrays, the fastest kept).
    Returns an array of x's framework (PyTorch or CuPy; for other objects CuPy, else PyTorch),
    enqueued on that framework's current stream, without a host synchronisation. A PyTorch x goes
    through the custom op torch.ops.cgp.conv_gelu_mean, or straight to the library where the
    dispatcher would do nothing but call the op's CUDA implementation (cgp.torch.conv_gelu_mean).
    Raises TypeError or ValueError naming the argument for bad input, cgp.Error when the library
    fails."""
    if _torch is not None and _torch.is_tensor(x):
        return _torch.conv_gelu_mean(x, weight, bias, padding, precision, reduce, select)
    return _run(x, weight, bias, padding, precision, reduce, select)


def _run(x, weight, bias, padding, precision, reduce, select):
    options = _lib.option_values(padding, precision, reduce, select)
    output, keep, ptrs, shape, device, producers = _arrays.prepare(x, weight, bias, options.padding)
    # `keep`: adopted arrays, alive until the launch
    return _cache.run(output, ptrs, shape, device, options, producers)


class Kernel(collections.namedtuple("Kernel", "version name")):
    """(version, name) of a kernel version, e.g. (9, "fp32-v9"), as kernel_of returns it: a 2-tuple, with
    .kind, what the version is in words (the library's cgp_plan_kernel_kind), e.g. "ffma winograd-f4x4,
    16x32x64 8w, cp.async, w resident, persistent"."""

    def __new__(cls, version, name, kind):
        self = super().__new__(cls, version, name)
        self.kind = kind
        return self

    def __getnewargs__(self):  # copy and pickle
        return self.version, self.name, self.kind

    def __repr__(self):
        return "Kernel(version=%d, name=%r, kind=%r)" % (self.version, self.name, self.kind)


def kernel_of(x, weight, bias, padding="valid", precision="fp32", reduce="det", select="heuristic"):
    """Kernel (version, name), with .kind, of the kernel conv_gelu_mean runs for these arguments on the
    current stream, e.g. (9, "fp32-v9"), .kind "ffma winograd-f4x4, 16x32x64 8w, cp.async, w resident,
    persistent"; makes and caches the plan when there is none yet."""
    options = _lib.option_values(padding, precision, reduce, select)
    output, keep, ptrs, shape, device, _ = _arrays.prepare(x, weight, bias, options.padding)
    with output.device(device):
        return Kernel(*_cache.kernel(output, ptrs, shape, device, options))


def cached_plans():
    """The cached plans, least recently used first, one dict each: framework, device, shape (N, Cin,
    Cout, H, W), options (the enum values), stream (the handle), thread (the thread's ident for the
    per-thread default stream, else None), captured (a run was captured: kept past the limit), kernel."""
    return _cache.entries()


def set_cache_limit(plans):
    """Keeps at most `plans` plans (default 32), destroying the least recently used beyond it (after
    synchronizing their device), but never one whose run a CUDA graph may hold; returns the previous
    limit."""
    return _cache.set_limit(plans)


def clear_cache():
    """Synchronizes the devices of the cached plans, then destroys the plans and drops their
    workspaces (also done at exit), and forgets which call metadata passed the checks. CUDA graphs
    that captured a call must not replay afterwards."""
    _cache.clear()
    _arrays.forget_checked()


def declaration_problems(header):
    """The ctypes declarations against `header` (the path of include/cgp.h) and against the loaded
    library (calls that need no GPU); a list of problems, empty when everything matches."""
    return _lib.header_problems(header, __version__) + _lib.library_problems(_library, __version__)


_torch = None
if importlib.util.find_spec("torch") is not None:
    from . import torch as _torch  # noqa: E402 (it takes _cache from here)

atexit.register(clear_cache)  # after torch's own exit handlers are registered, so it runs before them
