"""_eager.py - when a PyTorch call of cgp.conv_gelu_mean may skip torch.ops.cgp.conv_gelu_mean and
call the library itself: when the dispatcher would do nothing but hand the three tensors, as they
are, to the op's CUDA implementation. Eager dispatch of a Python custom op through torch.ops costs
more than the launch itself on small shapes (docs/python.md, "Per-call cost"). The rule is built from
a `torch` module passed in, so that tests/python can run it on a stand-in without PyTorch.
"""

# torch._C's reads of the thread's state that the rule needs; a torch without one of them gets a rule
# that always answers False (every call through torch.ops)
STATE_PROBES = ("_is_torch_function_mode_enabled", "_len_torch_dispatch_stack", "_are_functorch_transforms_active",
                "_is_tracing")


def rule(torch):
    """fast(x, weight, bias): True when a call on these arguments may skip torch.ops, that is when

    - torch.compile is not tracing (torch.compiler.is_compiling()), no TorchFunctionMode or
      TorchDispatchMode is active (FakeTensorMode and make_fx's proxy mode included), no torch.func
      transform (vmap, grad, jvp, functionalize), no torch.jit.trace, and the autograd profiler is
      off (so that its trace names the op), and
    - each argument is a plain dense CUDA tensor: of type torch.Tensor itself or nn.Parameter (which
      leaves every operation to Tensor; a subclass such as FakeTensor or FunctionalTensor is not), on
      CUDA, strided, not nested, without a negative or conjugate bit (which the dispatcher resolves
      by copying), and
    - autograd would not record the op (as the op's autograd kernel decides: grad mode off, or no
      argument requires grad).
    """
    state = torch._C
    if not all(hasattr(state, name) for name in STATE_PROBES):
        return lambda x, weight, bias: False
    is_compiling, grad_enabled = torch.compiler.is_compiling, torch.is_grad_enabled
    profiling = torch.autograd._profiler_enabled
    function_mode, dispatch_modes, transforms, tracing = (getattr(state, name) for name in STATE_PROBES)
    tensor, parameter, strided = torch.Tensor, torch.nn.Parameter, torch.strided

    def plain(t):
        return ((type(t) is tensor or type(t) is parameter) and t.is_cuda and t.layout is strided
                and not t.is_nested and not t.is_neg() and not t.is_conj())

    def fast(x, weight, bias):  # the thread's state first: under a transform or a mode, tensors are not read
        return (not is_compiling() and not function_mode() and dispatch_modes() == 0 and not transforms()
                and not tracing() and not profiling() and plain(x) and plain(weight) and plain(bias)
                and not (grad_enabled() and (x.requires_grad or weight.requires_grad or bias.requires_grad)))

    return fast
