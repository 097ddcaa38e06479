"""_arrays.py - the arrays cgp.conv_gelu_mean takes and returns: PyTorch tensors and CuPy arrays
as they are, any other object through __cuda_array_interface__ or DLPack (taken over without a
copy by CuPy, or else PyTorch, which then also allocates the output); the checks of dtype,
dimensions, layout, device and alignment, each naming the argument, with a memo of the metadata
that passed them for a framework's own arrays (prepare_own); and, per framework, the device context,
current stream and allocations the plans need.
"""
import collections
import importlib.util
import sys

# shape: tuple; dtype: "float32", ...; ptr: the data's address (None for a fake tensor); device: the
# CUDA ordinal, None while not known (a __cuda_array_interface__ object), or where else it is ("cpu")
Info = collections.namedtuple("Info", "shape dtype contiguous ptr device")

NAMES = ("x", "weight", "bias")
LAYOUT = {"x": "(N, Cin, H, W)", "weight": "(Cout, Cin, 3, 3)", "bias": "(Cout,)"}
ALIGNMENT = {"x": 16, "weight": 4, "bias": 4}  # bytes, as cgp_plan_run requires


class Torch:
    name = "torch"

    def __init__(self):
        import torch
        self.torch = torch
        # what PyTorch's own generated code asks (an integer, as current_stream(ordinal).cuda_stream), where it exists
        self._raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self._cuda = {}  # ordinal -> torch.device("cuda", ordinal)

    def owns(self, obj):
        return isinstance(obj, self.torch.Tensor)

    def info(self, t, fake=False):
        device = t.device.index if t.device.type == "cuda" else str(t.device)
        return Info(tuple(t.shape), str(t.dtype).replace("torch.", ""), t.is_contiguous(),
                    None if fake else t.data_ptr(), device)

    def metadata(self, x, weight, bias, padding):
        """What check() reads of three tensors but their addresses, with padding, as a hashable key (the
        device type is CUDA: None for anything else, which check() then reports)."""
        if not (x.is_cuda and weight.is_cuda and bias.is_cuda):
            return None
        return (padding, x.shape, weight.shape, bias.shape, x.dtype, weight.dtype, bias.dtype, x.is_contiguous(),
                weight.is_contiguous(), bias.is_contiguous(), x.get_device(), weight.get_device(), bias.get_device())

    def adopt(self, obj):
        if hasattr(obj, "__cuda_array_interface__"):
            return self.torch.as_tensor(obj)
        return self.torch.from_dlpack(obj)

    def device(self, ordinal):
        return self.torch.cuda.device(ordinal)

    def current_device(self):
        return self.torch._C._cuda_getDevice()

    def stream(self, ordinal):
        if self._raw_stream is not None:
            return self._raw_stream(ordinal)
        return self.torch.cuda.current_stream(ordinal).cuda_stream

    def empty(self, shape, ordinal, dtype="float32"):
        device = self._cuda.get(ordinal)
        if device is None:
            device = self._cuda[ordinal] = self.torch.device("cuda", ordinal)
        return self.torch.empty(shape, dtype=getattr(self.torch, dtype), device=device)

    def ptr(self, array):
        return array.data_ptr()

    def follow_default_stream(self, ordinal):
        self.torch.cuda.current_stream(ordinal).wait_stream(self.torch.cuda.default_stream(ordinal))

    def synchronize(self, ordinal):
        self.torch.cuda.synchronize(ordinal)


class CuPy:
    name = "cupy"

    def __init__(self):
        import cupy
        self.cupy = cupy

    def owns(self, obj):
        return isinstance(obj, self.cupy.ndarray)

    def info(self, a):
        return Info(tuple(a.shape), str(a.dtype), a.flags.c_contiguous, a.data.ptr, a.device.id)

    def adopt(self, obj):
        if hasattr(obj, "__cuda_array_interface__"):
            return self.cupy.asarray(obj)
        return self.cupy.from_dlpack(obj)

    def device(self, ordinal):
        return self.cupy.cuda.Device(ordinal)

    def current_device(self):
        return self.cupy.cuda.runtime.getDevice()

    def stream(self, ordinal):  # under device(ordinal)
        return self.cupy.cuda.get_current_stream().ptr

    def empty(self, shape, ordinal, dtype="float32"):  # under device(ordinal)
        return self.cupy.empty(shape, dtype=dtype)

    def ptr(self, array):
        return array.data.ptr

    def follow_default_stream(self, ordinal):  # under device(ordinal)
        self.cupy.cuda.get_current_stream().wait_event(self.cupy.cuda.Stream.null.record())

    def synchronize(self, ordinal):
        self.cupy.cuda.Device(ordinal).synchronize()


FRAMEWORKS = {"torch": Torch, "cupy": CuPy}
_made = {}


def framework(name):
    """The adapter of framework `name` ("torch" or "cupy"), made once."""
    if name not in _made:
        _made[name] = FRAMEWORKS[name]()
    return _made[name]


def _native(obj):
    """The framework that owns obj, among those already imported; else None."""
    for name, module in (("torch", "torch"), ("cupy", "cupy")):
        if sys.modules.get(module) is not None and framework(name).owns(obj):
            return framework(name)
    return None


def framework_for(x):
    """Whose arrays the output is: x's framework, or for any other x CuPy, else PyTorch; None when
    neither can be imported."""
    native = _native(x)
    if native is not None:
        return native
    for name in ("cupy", "torch"):
        if importlib.util.find_spec(name) is not None:
            return framework(name)
    return None


def _interface_info(obj, name):
    """Info of an object offering __cuda_array_interface__ (version 2 or 3); device not known."""
    iface = obj.__cuda_array_interface__
    if iface.get("mask") is not None:
        raise ValueError("%s: a masked __cuda_array_interface__ array is not supported" % name)
    shape = tuple(int(d) for d in iface["shape"])
    typestr = iface["typestr"]
    dtype = "float32" if typestr == "<f4" else "typestr %r" % typestr
    strides, contiguous, expected = iface.get("strides"), True, int(typestr[2:] or 0)
    if strides is not None:
        for size, stride in zip(reversed(shape), reversed(strides)):
            contiguous &= size == 1 or stride == expected
            expected *= size
    return Info(shape, dtype, contiguous, int(iface["data"][0]), None)


def interface_stream(obj, name):
    """The stream on which a __cuda_array_interface__ object's data is produced (its "stream" entry,
    version 3): None when it names none (absent or None: no wait), else the handle, 1 the legacy and 2
    the per-thread default stream. 0 is refused, as the protocol disallows it (ambiguous)."""
    stream = obj.__cuda_array_interface__.get("stream")
    if stream is None:
        return None
    if not isinstance(stream, int) or isinstance(stream, bool) or stream < 0:
        raise ValueError("%s: __cuda_array_interface__ 'stream' must be None or a stream handle (an integer "
                         ">= 1), got %r" % (name, stream))
    if stream == 0:
        raise ValueError("%s: __cuda_array_interface__ 'stream' is 0, which the protocol disallows (ambiguous: "
                         "1 is the legacy default stream, 2 the per-thread default stream)" % name)
    return stream


def _describe(obj, name, output):
    """(obj, or its adoption by `output` for a DLPack-only object; its Info)"""
    native = _native(obj)
    if native is not None:
        return obj, native.info(obj)
    if hasattr(obj, "__cuda_array_interface__"):
        return obj, _interface_info(obj, name)
    if hasattr(obj, "__dlpack__"):
        if output is None:
            raise TypeError("%s: a %s offers only DLPack; cgp reads such arrays through CuPy or PyTorch, and "
                            "neither can be imported" % (name, type(obj).__name__))
        adopted = output.adopt(obj)
        return adopted, output.info(adopted)
    raise TypeError("%s: expected a CUDA array (a PyTorch tensor, a CuPy array, or an object with "
                    "__cuda_array_interface__ or __dlpack__), got %s" % (name, type(obj).__name__))


def check(infos, padding):
    """The problem (N, Cin, Cout, H, W) of x, weight and bias (their Infos), checked; padding: 0 valid,
    1 same. TypeError for a dtype, ValueError for anything else, each naming the argument."""
    for name, info, ndim in zip(NAMES, infos, (4, 4, 1)):
        if info.dtype != "float32":
            raise TypeError("%s: dtype must be float32, got %s" % (name, info.dtype))
        if len(info.shape) != ndim:
            raise ValueError("%s: must have %d dimensions %s, got shape %s" % (name, ndim, LAYOUT[name],
                                                                               info.shape))
        if min(info.shape) < 1:
            raise ValueError("%s: every dimension must be >= 1, got shape %s" % (name, info.shape))
        if not info.contiguous:
            raise ValueError("%s: must be C-contiguous %s (e.g. .contiguous(); a channels_last or sliced view "
                             "is not)" % (name, LAYOUT[name]))
        if isinstance(info.device, str):
            raise ValueError("%s: must be on a CUDA device, is on %s" % (name, info.device))
        if info.ptr is not None and info.ptr % ALIGNMENT[name]:
            raise ValueError("%s: data must be %d-byte aligned, its address 0x%x is not (a view at an offset? "
                             "copy it)" % (name, ALIGNMENT[name], info.ptr))
    (n, cin, h, w), cout = infos[0].shape, infos[1].shape[0]
    if tuple(infos[1].shape[1:]) != (cin, 3, 3):
        raise ValueError("weight: must be (Cout, Cin, 3, 3) with Cin = %s as in x, got shape %s"
                         % (cin, infos[1].shape))
    if tuple(infos[2].shape) != (cout,):
        raise ValueError("bias: must be (Cout,) with Cout = %s as in weight, got shape %s" % (cout, infos[2].shape))
    if min(h, w) + 2 * padding < 3:
        raise ValueError("x: H=%s, W=%s give no output pixel with valid padding (it needs H, W >= 3)" % (h, w))
    check_devices(infos)
    return n, cin, cout, h, w


def check_devices(infos):
    """ValueError naming the first array on another CUDA device than x (unknown devices pass)."""
    for name, info in zip(NAMES[1:], infos[1:]):
        if None not in (info.device, infos[0].device) and info.device != infos[0].device:
            raise ValueError("%s: is on CUDA device %d, x on device %d (all must be on one device)"
                             % (name, info.device, infos[0].device))


def prepare(x, weight, bias, padding):
    """Checks x, weight, bias -> (framework of the output, the three arrays (adopted where needed, to
    keep alive until the launch), their data addresses, (N, Cin, Cout, H, W), CUDA ordinal, the
    streams the launch must wait for: those __cuda_array_interface__ arrays name (interface_stream))."""
    output = framework_for(x)
    arrays, infos = zip(*(_describe(a, name, output) for a, name in zip((x, weight, bias), NAMES)))
    shape = check(infos, padding)
    producers = [interface_stream(a, name) for a, name, info in zip(arrays, NAMES, infos) if info.device is None]
    if output is None:
        raise TypeError("x: cgp allocates the output (N, Cout) with CuPy or PyTorch, and neither can be imported "
                        "(x is a %s)" % type(x).__name__)
    arrays, infos = list(arrays), list(infos)
    for i, info in enumerate(infos):
        if info.device is None:  # a __cuda_array_interface__ object: the framework finds its device
            arrays[i] = output.adopt(arrays[i])
            infos[i] = output.info(arrays[i])
    check_devices(infos)
    return (output, arrays, [info.ptr for info in infos], shape, infos[0].device,
            sorted({p for p in producers if p is not None}))


_checked = {}  # metadata (an adapter's metadata()) of calls that passed check() -> (problem, CUDA ordinal)
_X_ALIGNMENT, _WEIGHT_ALIGNMENT, _BIAS_ALIGNMENT = (ALIGNMENT[name] for name in NAMES)


def prepare_own(output, x, weight, bias, padding):
    """prepare() for three arrays of the framework `output` (which allocates the output) -> (their data
    addresses, (N, Cin, Cout, H, W), CUDA ordinal). A call whose metadata (shapes, dtypes, contiguity,
    devices) and padding passed check() before skips it: only the addresses' alignment, the one thing
    check() reads that can change under the same metadata, is checked again."""
    key = output.metadata(x, weight, bias, padding)
    known = None if key is None else _checked.get(key)
    if known is not None:
        ptrs = output.ptr(x), output.ptr(weight), output.ptr(bias)
        if not (ptrs[0] % _X_ALIGNMENT or ptrs[1] % _WEIGHT_ALIGNMENT or ptrs[2] % _BIAS_ALIGNMENT):
            return ptrs, known[0], known[1]
    infos = [output.info(a) for a in (x, weight, bias)]
    shape = check(infos, padding)
    if key is not None:
        _checked[key] = shape, infos[0].device
    return [info.ptr for info in infos], shape, infos[0].device


def forget_checked():
    """Empties prepare_own's memo of checked metadata (cgp.clear_cache)."""
    _checked.clear()
