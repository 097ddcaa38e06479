"""_plans.py - the libcgp plans behind cgp.conv_gelu_mean: one per (framework, device, shape, options,
stream), since a plan must not run on two streams at once; the stream is what the handle really names, so
the per-thread default stream (handle 2) is one stream per thread. Made by the first call that needs it
(also inside CUDA-graph capture), kept with its workspace (allocated by the framework), run on the
caller's current stream; at most `limit` plans are kept, the least recently used destroyed first, but
never one that a CUDA graph may hold (it ran during a capture); clear() destroys them all
(cgp.clear_cache(), and at exit).
"""
import collections
import contextlib
import ctypes
import threading

from . import _lib

_SELECT_MEASURED = _lib.ENUMS["cgp_select"]["CGP_SELECT_MEASURED"]
_SELECT_HEURISTIC = _lib.ENUMS["cgp_select"]["CGP_SELECT_HEURISTIC"]
_PER_THREAD_STREAM = 2  # cudaStreamPerThread / CU_STREAM_PER_THREAD: a different stream in every thread
_INVALID_CONTEXT = 201  # CUDA_ERROR_INVALID_CONTEXT: the calling thread has no current context
DEFAULT_LIMIT = 32  # plans kept; a det plan's workspace can be tens of MB
_driver = []  # libcuda.so.1, loaded the first time a plan is made


def _cuda_driver():
    if not _driver:
        lib = ctypes.CDLL("libcuda.so.1")
        lib.cuStreamIsCapturing.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
        lib.cuThreadExchangeStreamCaptureMode.argtypes = [ctypes.POINTER(ctypes.c_int)]
        lib.cuEventCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
        lib.cuEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.cuStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
        lib.cuEventDestroy_v2.argtypes = [ctypes.c_void_p]
        lib.cuDeviceGet.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int]
        lib.cuDevicePrimaryCtxRetain.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int]
        lib.cuCtxSetCurrent.argtypes = [ctypes.c_void_p]
        _driver.append(lib)
    return _driver[0]


def _driver_check(call, result):
    if result != 0:
        raise RuntimeError("cgp: %s failed with CUresult %d" % (call, result))


def _driver_call(device, call, *args):
    """The CUDA driver's function `call` on args, checked. The driver API, unlike the runtime, binds no context
    to a thread by itself: in a thread whose first CUDA work this is, `device`'s primary context (the one every
    runtime in the process uses) is made current and the call made again (the context keeps the reference
    taken here, as it lives to the end of the process anyway)."""
    fn = getattr(_cuda_driver(), call)
    result = fn(*args)
    if result == _INVALID_CONTEXT:
        driver, handle, context = _cuda_driver(), ctypes.c_int(), ctypes.c_void_p()
        _driver_check("cuDeviceGet", driver.cuDeviceGet(ctypes.byref(handle), device))
        _driver_check("cuDevicePrimaryCtxRetain", driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), handle))
        _driver_check("cuCtxSetCurrent", driver.cuCtxSetCurrent(context))
        result = fn(*args)
    _driver_check(call, result)


def _capturing(stream, device):
    """Whether `stream` (the CUDA driver's view, shared by every runtime in the process) is capturing."""
    status = ctypes.c_int()
    _driver_call(device, "cuStreamIsCapturing", stream, ctypes.byref(status))
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


def stream_identity(stream):
    """What the stream handle `stream` names, as a cache key: the handle, but the per-thread default
    stream's with the calling thread (every thread's handle 2 is its own stream)."""
    return (stream, threading.get_ident()) if stream == _PER_THREAD_STREAM else stream


def wait_for_producers(producers, stream, device):
    """Makes `stream` wait (an event, no host wait) for the streams on which the
    __cuda_array_interface__ arrays read were produced (their "stream" entries: 1 legacy, 2 per-thread
    default, else a handle), as the protocol asks of a consumer."""
    for producer in producers:
        if producer == stream:
            continue
        event = ctypes.c_void_p()
        _driver_call(device, "cuEventCreate", ctypes.byref(event), 2)  # CU_EVENT_DISABLE_TIMING
        try:
            _driver_call(device, "cuEventRecord", event, producer)
            _driver_call(device, "cuStreamWaitEvent", stream, event, 0)
        finally:
            _driver_call(device, "cuEventDestroy_v2", event)


class Plan:
    __slots__ = ("handle", "workspace", "workspace_ptr", "workspace_bytes", "version", "name", "kind", "framework",
                 "device", "captured")


class Cache:
    def __init__(self, lib, limit=DEFAULT_LIMIT):
        self._lib = lib
        self._run_plan = lib.fn("cgp_plan_run")  # bound once: its argtypes convert the arguments
        # key: (framework, device, shape, options, stream identity) -> Plan, least recently used first
        self._plans = collections.OrderedDict()
        self._lock = threading.Lock()  # held around every lookup, run, creation and destruction
        self.limit = limit

    def plan(self, output, ptrs, shape, device, options):
        """(the Plan for these on the current stream of `device`, that stream); `device` is current."""
        with self._lock:
            return self._plan(output, ptrs, shape, device, options)

    def kernel(self, output, ptrs, shape, device, options):
        """(version, name, kind) of the kernel of the Plan for these on the current stream of `device` (made
        when there is none; `device` is current): kind, what the version is (cgp_plan_kernel_kind), is asked
        of the library the first time."""
        with self._lock:
            plan, _ = self._plan(output, ptrs, shape, device, options)
            if plan.kind is None:
                kind = ctypes.c_char_p()
                self._lib.call("cgp_plan_kernel_kind", plan.handle, ctypes.byref(kind))
                plan.kind = kind.value.decode()
            return plan.version, plan.name, plan.kind

    def _plan(self, output, ptrs, shape, device, options):
        stream = output.stream(device)
        key = (output.name, device, shape, options, stream_identity(stream))
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._create(output, ptrs, shape, device, options, stream, key)
            if not plan.captured:  # no device synchronisation during a capture: the cache may stay over its limit
                self._evict(self.limit, keep=key)
        else:
            self._plans.move_to_end(key)
        return plan, stream

    def run(self, output, ptrs, shape, device, options, producers=()):
        """y (N, Cout), allocated by `output`, enqueued on the current stream of `device`, which is made
        current around the call when it is not; the stream first waits for `producers` (wait_for_producers)."""
        if output.current_device() != device:
            with output.device(device):
                return self.run(output, ptrs, shape, device, options, producers)
        y = output.empty((shape[0], shape[2]), device)
        with self._lock:  # a plan is not destroyed (evicted) between its lookup and its launch
            plan, stream = self._plan(output, ptrs, shape, device, options)
            if not plan.captured and _capturing(stream, device):
                plan.captured = True  # a graph may hold this run: never evicted
            if producers:
                wait_for_producers(producers, stream, device)
            status = self._run_plan(plan.handle, ptrs[0], ptrs[1], ptrs[2], output.ptr(y), plan.workspace_ptr,
                                    plan.workspace_bytes, stream)
        if status != _lib.CGP_SUCCESS:
            self._lib.check("cgp_plan_run", status)
        return y
    def _create(self, output, ptrs, shape, device, options, stream, key):
        capturing = _capturing(stream, device)
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
            plan.handle, plan.framework, plan.device, plan.captured = handle, output, device, capturing
            plan.kind = None  # asked for by Cache.kernel
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
        """One dict per cached plan, least recently used first: framework, device, shape, options, stream
        (the handle), thread (for the per-thread default stream, else None), captured, kernel."""
        with self._lock:
            return [{"framework": k[0], "device": k[1], "shape": k[2], "options": k[3]._asdict(),
                     "stream": k[4][0] if isinstance(k[4], tuple) else k[4],
                     "thread": k[4][1] if isinstance(k[4], tuple) else None, "captured": p.captured,
                     "kernel": "%s (version %d)" % (p.name, p.version)} for k, p in self._plans.items()]

    def set_limit(self, limit):
        """Keeps at most `limit` plans from now on (destroying the least recently used beyond it that no
        graph may hold); returns the previous limit."""
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ValueError("limit: must be an integer >= 1, got %r" % (limit,))
        with self._lock:
            previous, self.limit = self.limit, limit
            self._evict(limit)
        return previous

    def _evict(self, limit, keep=None):
        """Destroys the least recently used plans, but `keep` and those a graph may hold, until at most
        `limit` are kept (or only those are left); call with the lock held, outside a capture."""
        doomed = []
        for key in list(self._plans):
            if len(self._plans) - len(doomed) <= limit:
                break
            if key != keep and not self._plans[key].captured:
                doomed.append(key)
        self._destroy([self._plans.pop(key) for key in doomed])

    def _destroy(self, plans):
        """Destroys `plans` after synchronizing their devices (no run may be pending) and drops their
        workspaces."""
        for fw, device in {(p.framework, p.device) for p in plans}:
            with fw.device(device):
                fw.synchronize(device)
        for plan in plans:
            self._lib.call("cgp_plan_destroy", plan.handle)

    def clear(self):
        """Destroys every plan, those graphs may hold too. Graphs that captured a run must not be replayed
        afterwards."""
        with self._lock:
            plans, self._plans = list(self._plans.values()), collections.OrderedDict()
            self._destroy(plans)
