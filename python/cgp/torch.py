"""torch.py - cgp in PyTorch (imported by cgp when torch can be imported): the custom op
cgp::conv_gelu_mean with its fake-tensor implementation, so torch.compile(fullgraph=True) goes
through it; the eager fast path, which calls the library itself where the dispatcher would only hand
the tensors to the op's CUDA implementation (_eager.rule; eager CUDA-graph capture takes it too); and
ConvGeluMean, the nn.Module that replaces Conv2d(3x3) -> GELU -> AdaptiveAvgPool2d(1) -> flatten.
Forward only: the op has no backward.
"""
import torch

from . import _arrays, _cache, _eager, _lib

_tensors = _arrays.framework("torch")
_fast = _eager.rule(torch)


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

    weight (Cout, Cin, 3, 3) and bias (Cout,) become buffers (detached: no gradient), bias None is
    zeros. from_conv2d(conv, ...) takes those of an nn.Conv2d with kernel 3x3, stride 1, dilation 1,
    groups 1, zero padding 0 or 1 ("valid" or "same"); the GELU replaced must be the exact one
    (approximate="none"). The keyword options are those of cgp.conv_gelu_mean."""

    def __init__(self, weight, bias=None, padding="valid", precision="fp32", reduce="det", select="heuristic"):
        super().__init__()
        _lib.option_values(padding, precision, reduce, select)
        self.padding, self.precision, self.reduce, self.select = padding, precision, reduce, select
        weight = weight.detach()
        self.register_buffer("weight", weight)
        self.register_buffer("bias", torch.zeros(weight.shape[0], dtype=weight.dtype, device=weight.device)
                             if bias is None else bias.detach())

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
