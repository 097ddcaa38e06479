"""_plans.py - the libcgp plans behind cgp.conv_gelu_mean: one per (framework, device, shape,
options, stream), since a plan must not run on two streams at once; made by the first call that
needs it (also inside CUDA-graph capture), kept with its workspace (allocated by the framework),
run on the caller's current stream, and destroyed by clear() (cgp.clear_cache(), and at exit).
"""
import contextlib
import ctypes
import threading

from . import _lib

_SELECT_MEASURED = _lib.ENUMS["cgp_select"]["CGP_SELECT_MEASURED"]
_SELECT_HEURISTIC = _lib.ENUMS["cgp_select"]["CGP_SELECT_HEURISTIC"]
_driver = []  # libcuda.so.1, loaded the first time a plan is made


def _cuda_driver():
    if not _driver:
        lib = ctypes.CDLL("libcuda.so.1")
        lib.cuStreamIsCapturing.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
        lib.cuThreadExchangeStreamCaptureMode.argtypes = [ctypes.POINTER(ctypes.c_int)]
        _driver.append(lib)
    return _driver[0]


def _driver_check(call, result):
    if result != 0:
        raise RuntimeError("cgp: %s failed with CUresult %d" % (call, result))


def _capturing(stream):
    """Whether `stream` (the CUDA driver's view, shared by every runtime in the process) is capturing."""
    status = ctypes.c_int()
    _driver_check("cuStreamIsCapturing", _cuda_driver().cuStreamIsCapturing(stream, ctypes.byref(status)))
    return status.value != 0


@contextlib.contextmanager
def _relaxed_capture():
    """This thread's capture mode relaxed, as PyTorch's allocator does for its cudaMalloc during
    capture: cgp_plan_create allocates and zeroes the plan's device state."""
    mode = ctypes.c_int(2)  # CU_STREAM_CAPTURE_MODE_RELAXED
    exchange = _cuda_driver().cuThreadExchangeStreamCaptureMode
    _driver_check("cuThreadExchangeStreamCaptureMode", exchange(ctypes.byref(mode)))
    try:
        yield
    finally:
        _driver_check("cuThreadExchangeStreamCaptureMode", exchange(ctypes.byref(mode)))


class Plan:
    __slots__ = ("handle", "workspace", "workspace_ptr", "workspace_bytes", "version", "name", "framework", "device")


class Cache:
    def __init__(self, lib):
        self._lib = lib
        self._run_plan = lib.fn("cgp_plan_run")  # bound once: its argtypes convert the arguments
        self._plans = {}  # key: (framework, device, shape, options, stream) -> Plan
        self._lock = threading.Lock()

    def plan(self, output, ptrs, shape, device, options):
        """(the Plan for these on the current stream of `device`, that stream); `device` is current."""
        stream = output.stream(device)
        key = (output.name, device, shape, options, stream)
        plan = self._plans.get(key)  # a plan, once made, is only looked up: no lock
        if plan is None:
            with self._lock:
                plan = self._plans.get(key)
                if plan is None:
                    plan = self._plans[key] = self._create(output, ptrs, shape, device, options, stream, key)
        return plan, stream

    def run(self, output, ptrs, shape, device, options):
        """y (N, Cout), allocated by `output`, enqueued on the current stream of `device`, which is made
        current around the call when it is not."""
        if output.current_device() != device:
            with output.device(device):
                return self.run(output, ptrs, shape, device, options)
        plan, stream = self.plan(output, ptrs, shape, device, options)
        y = output.empty((shape[0], shape[2]), device)
        status = self._run_plan(plan.handle, ptrs[0], ptrs[1], ptrs[2], output.ptr(y), plan.workspace_ptr,
                                plan.workspace_bytes, stream)
        if status != _lib.CGP_SUCCESS:
            self._lib.check("cgp_plan_run", status)
        return y

    def _create(self, output, ptrs, shape, device, options, stream, key):
        capturing = _capturing(stream)
        opts = _lib.Options(padding=options.padding, reduce=options.reduce, precision=options.precision, kernel=0,
                            select=options.select)
        handle, dims = ctypes.c_void_p(), _lib.Shape(*shape)
        with _relaxed_capture() if capturing else contextlib.nullcontext():
            if options.select == _SELECT_MEASURED and not capturing:
                y = output.empty((shape[0], shape[2]), device)  # written by the timing runs
                self._lib.call("cgp_plan_create_measured", ctypes.byref(handle), ctypes.byref(dims),
                               ctypes.byref(opts), ptrs[0], ptrs[1], ptrs[2], output.ptr(y), stream)
            else:
                if options.select == _SELECT_MEASURED:  # no timing inside capture: another stream's winner
                    opts.kernel, opts.select = self._measured_version(key), _SELECT_HEURISTIC
                self._lib.call("cgp_plan_create", ctypes.byref(handle), ctypes.byref(dims), ctypes.byref(opts))
            plan = Plan()
            plan.handle, plan.framework, plan.device = handle, output, device
            try:
                nbytes, version, name = ctypes.c_size_t(), ctypes.c_int(), ctypes.c_char_p()
                self._lib.call("cgp_plan_workspace_size", handle, ctypes.byref(nbytes))
                self._lib.call("cgp_plan_kernel", handle, ctypes.byref(version), ctypes.byref(name))
                plan.version, plan.name, plan.workspace_bytes = version.value, name.value.decode(), nbytes.value
                plan.workspace = output.empty((nbytes.value,), device, "uint8") if nbytes.value else None
                plan.workspace_ptr = output.ptr(plan.workspace) if nbytes.value else None
            except BaseException:
                self._lib.call("cgp_plan_destroy", handle)
                raise
        if not capturing:  # the plan's state was zeroed on the legacy default stream: runs come after that
            output.follow_default_stream(device)
        return plan

    def _measured_version(self, key):
        for (fw, device, shape, options, _), plan in self._plans.items():
            if (fw, device, shape, options) == key[:4]:
                return plan.version
        raise RuntimeError("cgp: select='measured' cannot time the kernels during CUDA-graph capture; call "
                           "cgp.conv_gelu_mean once with the same shape and options before capturing")

    def entries(self):
        """One dict per cached plan: framework, device, shape, options, stream, kernel."""
        with self._lock:
            return [{"framework": k[0], "device": k[1], "shape": k[2], "options": k[3]._asdict(), "stream": k[4],
                     "kernel": "%s (version %d)" % (p.name, p.version)} for k, p in self._plans.items()]

    def clear(self):
        """Destroys every plan after synchronizing its device (no run may be pending) and drops its
        workspace. Graphs that captured a run must not be replayed afterwards."""
        with self._lock:
            plans, self._plans = list(self._plans.values()), {}
        for fw, device in {(p.framework, p.device) for p in plans}:
            with fw.device(device):
                fw.synchronize(device)
        for plan in plans:
            self._lib.call("cgp_plan_destroy", plan.handle)
