"""Autograd functions in ActNN's style: each saves exactly what its backward needs, packed.

- linear, conv2d: the input, quantized by a Quantizer (the weight is the model's own);
- fewbit_activation: one few-bit code per element (Few-Bit Backward); with the exact 1-bit
  ReLU table that is ReLU's 1-bit mask, and GELU/SiLU/... get an optimal 2..8-bit table.
What they save goes through save_for_backward as uint8 tensors (metadata viewed as bytes),
so saved-tensor hooks see them: a SavedTensorMeter counts them and
compressed_saved_tensors leaves them alone.
"""
import torch
import torch.nn.functional as F
from torch.nn.grad import conv2d_input
from torch.nn.modules.utils import _pair

from ..fewbit import FewbitTable, cached_table
from ..quantized import Quantized
from . import library, ops
from .device import ACTQ_TO_TORCH

# Marks a function whose result torch.compile may take as a constant (PyTorch >= 2.1).
_assume_constant_result = getattr(getattr(torch, "compiler", None), "assume_constant_result",
                                  lambda fn: fn)


def _save_quantized(ctx, q, *others):
    """Saves q's buffers as uint8 tensors, its shape fields on ctx."""
    tensors = [q.packed, q.group_min.view(torch.uint8), q.group_scale.view(torch.uint8)]
    if q.row_bits is not None:
        tensors.append(q.row_bits)
    ctx.q_fields = (q.rows, q.cols, q.group_size, q.bits, q.meta_dtype, q.shape, q.dtype,
                    q.row_bits is not None)
    ctx.save_for_backward(*tensors, *others)


def _load_quantized(ctx):
    """(Quantized, the other saved tensors)."""
    rows, cols, group_size, bits, meta_dtype, shape, dtype, has_rb = ctx.q_fields
    saved = ctx.saved_tensors
    n = 4 if has_rb else 3
    packed, gmin, gscale = saved[:3]
    mt = ACTQ_TO_TORCH[meta_dtype]
    q = Quantized(packed, gmin.view(mt), gscale.view(mt), saved[3] if has_rb else None, rows,
                  cols, group_size, bits, meta_dtype, shape, dtype)
    return q, saved[n:]


# The functions take the input already compressed (q, by the caller): the quantizer's
# noise counter then advances outside autograd.Function, where torch.compile allows the
# side effect, and the forward saves tensors only.

class CompressedLinear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, q):
        ctx.has_bias = bias is not None
        _save_quantized(ctx, q, weight)
        return F.linear(x, weight, bias)

    @staticmethod
    def backward(ctx, gy):
        q, (weight,) = _load_quantized(ctx)
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            gx = gy.matmul(weight)
        g2 = gy.reshape(-1, gy.shape[-1])
        if ctx.needs_input_grad[1]:
            x = ops.dequantize(q)
            gw = g2.t().mm(x.reshape(-1, x.shape[-1]))
        if ctx.has_bias and ctx.needs_input_grad[2]:
            gb = g2.sum(0)
        return gx, gw, gb, None


class CompressedConv2d(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, stride, padding, dilation, groups, q):
        ctx.conf = (stride, padding, dilation, groups)
        ctx.has_bias = bias is not None
        _save_quantized(ctx, q, weight)
        return F.conv2d(x, weight, bias, stride, padding, dilation, groups)

    @staticmethod
    def backward(ctx, gy):
        q, (weight,) = _load_quantized(ctx)
        stride, padding, dilation, groups = ctx.conf
        gx = gw = gb = None
        if ctx.needs_input_grad[1]:
            # Both gradients from one call on the dequantized input: torch.nn.grad's
            # helpers would run the backward twice and, for the input's, copy a full
            # input-sized dummy (an expanded tensor made contiguous), at the step's peak.
            x = ops.dequantize(q)
            gx, gw, _ = torch.ops.aten.convolution_backward(
                gy, x, weight, None, _pair(stride), _pair(padding), _pair(dilation), False,
                [0, 0], groups, (ctx.needs_input_grad[0], True, False))
        elif ctx.needs_input_grad[0]:
            gx = conv2d_input(q.shape, weight, gy, stride, padding, dilation, groups)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            gb = gy.sum((0, 2, 3))
        return gx, gw, gb, None, None, None, None, None


class FewbitActivation(torch.autograd.Function):
    """spec: the table's fields (library.table_spec), plain values torch.compile keeps as
    constants of the graph."""

    @staticmethod
    def forward(ctx, x, spec):
        codes, y = ops.fewbit_encode(spec, x)
        ctx.spec = spec
        ctx.save_for_backward(codes)
        return y

    @staticmethod
    def backward(ctx, gy):
        (codes,) = ctx.saved_tensors
        return ops.fewbit_backward(ctx.spec, codes, gy), None


def linear(x, weight, bias, quantizer):
    return CompressedLinear.apply(x, weight, bias, quantizer.compress(x))


def conv2d(x, weight, bias, quantizer, stride=1, padding=0, dilation=1, groups=1):
    return CompressedConv2d.apply(x, weight, bias, stride, padding, dilation, groups,
                                  quantizer.compress(x))


_specs = {}


@_assume_constant_result
def table_spec(activation, bits=2, param=0.0):
    """The fields of a table (library.table_spec): of a FewbitTable, or of the cached table
    of a name or Activation; read once per table in eager code (a plain dict: Dynamo cannot
    call through functools.lru_cache), and torch.compile calls it at tracing time only."""
    key = (activation, bits, param)
    spec = _specs.get(key)
    if spec is None:
        table = activation if isinstance(activation, FewbitTable) else \
            cached_table(activation, bits, param)
        spec = _specs[key] = library.table_spec(table)
    return spec


def fewbit_activation(x, activation, bits=2, param=0.0):
    """f(x) saving a `bits`-bit code per element; activation: a name ("gelu"), an
    Activation, or a FewbitTable."""
    return FewbitActivation.apply(x, table_spec(activation, bits, param))


def relu(x):
    """ReLU saving a 1-bit mask (the exact 1-bit table: levels 0 and 1, border 0)."""
    return FewbitActivation.apply(x, table_spec("relu", 1))
