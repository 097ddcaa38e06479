"""torch.py - cgp in PyTorch (imported by cgp when torch can be imported): the custom op
cgp::conv_gelu_mean with its fake-tensor implementation, so torch.compile(fullgraph=True) goes
through it; its autograd formula; the eager fast path, which calls the library itself where the
dispatcher would only hand the tensors to the op's CUDA implementation (_eager.rule; eager CUDA-graph
capture takes it too); and ConvGeluMean, the nn.Module that replaces Conv2d(3x3) -> GELU ->
AdaptiveAvgPool2d(1) -> flatten, with trainable weight and bias.

The backward (first derivatives) keeps only x, weight and bias from the forward and recomputes
z = conv2d(x, weight, bias) with PyTorch's own operations, in the op's precision class: TF32 off
for fp32 and 3xtf32, on for tf32 (tf32_convolutions). Then g = dy / (Hout Wout) * GELU'(z), written
over z, and dx, dweight, dbias = PyTorch's convolution backward of g. That runs inside a second custom
op, cgp::conv_gelu_mean_backward, so that the precision settings are made when it runs, also in a
graph torch.compile made (a setting made while tracing would not be in the graph), and
backward_formula, the math, is a plain function of tensors (CPU float64 included).
"""
import contextlib

import torch

from . import _arrays, _cache, _eager, _lib

_tensors = _arrays.framework("torch")
_fast = _eager.rule(torch)
PADDING_PIXELS = {"valid": 0, "same": 1}
TF32_ALLOWED = {"fp32": False, "tf32": True, "3xtf32": False}  # the backward's convolutions, per cgp precision


def _run_tensors(x, weight, bias, padding, precision, reduce, select):
    """One call on three tensors, checked as cgp._run checks, but with the checks that depend only on
    the call's metadata skipped for metadata that passed them before (_arrays.prepare_own)."""
    options = _lib.option_values(padding, precision, reduce, select)
    ptrs, shape, device = _arrays.prepare_own(_tensors, x, weight, bias, options.padding)
    return _cache.run(_tensors, ptrs, shape, device, options)


@torch.library.custom_op("cgp::conv_gelu_mean", mutates_args=())
def _op(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, padding: str = "valid", precision: str = "fp32",
        reduce: str = "det", select: str = "heuristic") -> torch.Tensor:
    return _run_tensors(x, weight, bias, padding, precision, reduce, select)


@_op.register_fake
def _(x, weight, bias, padding="valid", precision="fp32", reduce="det", select="heuristic"):
    options = _lib.option_values(padding, precision, reduce, select)
    _arrays.check([_tensors.info(t, fake=True) for t in (x, weight, bias)], options.padding)
    return x.new_empty((x.shape[0], weight.shape[0]))


# ---- the backward ---------------------------------------------------------------------------------
@contextlib.contextmanager
def tf32_convolutions(allowed):
    """Within it, PyTorch's fp32 convolutions on CUDA may use TF32 (allowed True) or not: cuDNN's, and
    the cuBLAS matmuls of the fallback without cuDNN. Only those two settings change, and both are
    restored on exit: torch.backends.cudnn.flags(allow_tf32=False) would also turn cuDNN off and
    cudnn.benchmark off (its other arguments' defaults). A torch with per-operation fp32_precision
    (torch.backends.cudnn.conv) gets the operations' own settings (conv, matmul: "ieee" or "tf32"),
    which take precedence over the global ones and leave the legacy allow_tf32 flags readable; an
    older one the allow_tf32 flags. The settings are the process's, not the thread's."""
    backends = torch.backends
    if hasattr(backends.cudnn, "conv"):
        settings, name = (backends.cudnn.conv, backends.cuda.matmul), "fp32_precision"
        value = "tf32" if allowed else "ieee"
    else:
        settings, name, value = (backends.cudnn, backends.cuda.matmul), "allow_tf32", allowed
    saved = [getattr(s, name) for s in settings]
    try:
        for s in settings:
            setattr(s, name, value)
        yield
    finally:
        for s, old in zip(settings, saved):
            setattr(s, name, old)


def backward_formula(grad_y, x, weight, bias, padding, output_mask=(True, True, True)):
    """(dx, dweight, dbias) of y[n, c] = mean over (h, w) of GELU(conv3x3(x, weight) + bias)[n, c, h, w]
    for grad_y = dL/dy (N, Cout), any strides; each None where output_mask (3 bools) says it is not
    wanted. Recomputes z = conv2d(x, weight, bias) (the one N x Cout x Hout x Wout buffer it holds),
    overwrites it with g = grad_y / (Hout Wout) * GELU'(z), the exact GELU's derivative
    Phi(z) + z phi(z) (aten.gelu_backward, approximate="none", the function PyTorch's own GELU backward
    runs), then PyTorch's convolution backward of g: dx = conv_transpose(g, weight), dweight = the
    correlation of x with g, dbias = g summed over (n, h, w). Any device and floating dtype; the
    convolutions' precision is the caller's settings (tf32_convolutions)."""
    if not any(output_mask):
        return None, None, None
    pad = PADDING_PIXELS[padding]
    with torch.no_grad():
        z = torch.nn.functional.conv2d(x, weight, bias, padding=pad)
        scale = (grad_y.to(z.dtype) / (z.shape[2] * z.shape[3]))[:, :, None, None].expand_as(z)
        g = torch.ops.aten.gelu_backward.grad_input(scale, z, approximate="none", grad_input=z)  # g over z
        grads = torch.ops.aten.convolution_backward(g, x, weight, [weight.shape[0]], [1, 1], [pad, pad], [1, 1],
                                                    False, [0, 0], 1, list(output_mask))
    return tuple(grad if wanted else None for grad, wanted in zip(grads, output_mask))


@torch.library.custom_op("cgp::conv_gelu_mean_backward", mutates_args=())
def _backward_op(grad_y: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, padding: str,
                 precision: str, output_mask: list[bool]) -> list[torch.Tensor]:
    """backward_formula in the precision class of `precision`; the wanted gradients only, in order."""
    if precision not in TF32_ALLOWED:
        raise ValueError("precision must be one of %s, got %r" % (", ".join(map(repr, TF32_ALLOWED)), precision))
    with tf32_convolutions(TF32_ALLOWED[precision]):
        grads = backward_formula(grad_y, x, weight, bias, padding, output_mask)
    return [grad for grad in grads if grad is not None]


@_backward_op.register_fake
def _(grad_y, x, weight, bias, padding, precision, output_mask):
    return [t.new_empty(t.shape) for t, wanted in zip((x, weight, bias), output_mask) if wanted]


def _save_for_backward(ctx, inputs, output):
    x, weight, bias, padding, precision = inputs[:5]
    ctx.save_for_backward(x, weight, bias)
    ctx.padding, ctx.precision = padding, precision


def _backward(ctx, grad_y):
    """Gradients for (x, weight, bias, padding, precision, reduce, select): those autograd needs of the
    first three, None for the rest."""
    wanted = list(ctx.needs_input_grad[:3])
    if grad_y is None or not any(wanted):
        return (None,) * 7
    grads = iter(torch.ops.cgp.conv_gelu_mean_backward(grad_y, *ctx.saved_tensors, ctx.padding, ctx.precision,
                                                       wanted))
    return tuple(next(grads) if w else None for w in wanted) + (None,) * 4


_op.register_autograd(_backward, setup_context=_save_for_backward)


def is_tensor(obj):
    return isinstance(obj, torch.Tensor)


def conv_gelu_mean(x, weight, bias, padding="valid", precision="fp32", reduce="det", select="heuristic"):
    """cgp.conv_gelu_mean for tensors: the library called directly where _eager.rule allows it (eager,
    plain CUDA tensors, nothing for autograd, a mode, a transform, the tracer or the profiler to do),
    else torch.ops.cgp.conv_gelu_mean. Both check the same and launch the same."""
    if _fast(x, weight, bias):
        return _run_tensors(x, weight, bias, padding, precision, reduce, select)
    return torch.ops.cgp.conv_gelu_mean(x, weight, bias, padding, precision, reduce, select)


class ConvGeluMean(torch.nn.Module):
    """y = flatten(AdaptiveAvgPool2d(1)(GELU(conv3x3(x) + bias))) through cgp::conv_gelu_mean.

    weight (Cout, Cin, 3, 3) and bias (Cout,) become nn.Parameters (trainable) holding the tensors'
    storage (no copy: training the module changes them, e.g. conv's, too; clone first to keep them
    apart); bias None is a zero buffer (not trained, as Conv2d(bias=False)). Outside torch.no_grad()
    or torch.inference_mode() the parameters make autograd record the op (through torch.ops, not the
    eager fast path). from_conv2d(conv, ...) takes those of an nn.Conv2d with kernel 3x3, stride 1, dilation 1,
    groups 1, zero padding 0 or 1 ("valid" or "same"); the GELU replaced must be the exact one
    (approximate="none"). The keyword options are those of cgp.conv_gelu_mean."""

    def __init__(self, weight, bias=None, padding="valid", precision="fp32", reduce="det", select="heuristic"):
        super().__init__()
        _lib.option_values(padding, precision, reduce, select)
        self.padding, self.precision, self.reduce, self.select = padding, precision, reduce, select
        self.weight = torch.nn.Parameter(weight.detach())
        if bias is None:
            self.register_buffer("bias", torch.zeros(weight.shape[0], dtype=weight.dtype, device=weight.device))
        else:
            self.bias = torch.nn.Parameter(bias.detach())

    @classmethod
    def from_conv2d(cls, conv, precision="fp32", reduce="det", select="heuristic"):
        if not isinstance(conv, torch.nn.Conv2d):
            raise TypeError("conv: expected a torch.nn.Conv2d, got %s" % type(conv).__name__)
        padding = {(0, 0): "valid", "valid": "valid", (1, 1): "same", "same": "same"}.get(conv.padding)
        for attribute, value, wanted in (("kernel_size", conv.kernel_size, (3, 3)), ("stride", conv.stride, (1, 1)),
                                         ("dilation", conv.dilation, (1, 1)), ("groups", conv.groups, 1),
                                         ("padding_mode", conv.padding_mode, "zeros")):
            if value != wanted:
                raise ValueError("conv.%s must be %r, got %r" % (attribute, wanted, value))
        if padding is None:
            raise ValueError("conv.padding must be 0, 1, 'valid' or 'same', got %r" % (conv.padding,))
        return cls(conv.weight, conv.bias, padding, precision, reduce, select)

    def forward(self, x):
        return conv_gelu_mean(x, self.weight, self.bias, self.padding, self.precision, self.reduce, self.select)

    def extra_repr(self):
        return "%d, %d, padding=%r, precision=%r, reduce=%r, select=%r" % (
            self.weight.shape[1], self.weight.shape[0], self.padding, self.precision, self.reduce, self.select)
