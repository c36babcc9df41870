"""PyTorch entry points for every data call of the contract, on CPU or CUDA tensors.

quantize, dequantize and the few-bit calls go through the torch.ops.actq custom ops where
PyTorch has them (actq/torch/library.py), so torch.compile traces them; with an explicit
context, or on older PyTorch, they call the library directly (actq/torch/kernels.py).

Outputs are allocated on the input's device; row_bits and tables stay host memory as the
contract requires. Inputs are made contiguous (a copy only when they are not).
"""
import math

import numpy as np
import torch

from .. import alloc, raw, rules
from ..enums import DType, Rounding, to_enum
from ..quantized import Quantized
from . import kernels, library
from .device import ACTQ_TO_TORCH, TORCH_DTYPES, actq_dtype, addr, context_for

# The ops' spelling of the enums (their schema takes names).
_ROUNDING = {m: m.name.lower() for m in Rounding}
_DTYPE = {m: m.name.lower() for m in DType}


def _row_bits(row_bits, rows):
    if row_bits is None:
        return None
    rb = torch.as_tensor(np.asarray(row_bits) if not torch.is_tensor(row_bits) else row_bits)
    rb = rb.to(device="cpu").reshape(-1)
    rules.row_bits(rows, rb.tolist())  # before the uint8 cast, which would wrap 256 to 0
    return rb.to(dtype=torch.uint8).contiguous()


def rows_cols(shape, rows):
    """actq.rows_cols in plain Python (math.prod, not NumPy), so torch.compile traces it."""
    if rows is None:
        rows = shape[0] if len(shape) >= 2 else 1
    rules.check("rows", rows)
    if rows == 0:
        return 0, 0
    numel = math.prod(shape)
    if numel % rows:
        raise rules.ArgumentError("rows", rows, "rows must divide the %d elements, got %d"
                                  % (numel, rows))
    return rows, numel // rows


def _no_grad(t):
    """t as the operators take it (they have no autograd formula): detached where autograd
    would record the call; as it is in a Function's forward or backward, where grad mode is
    off (a detach costs about as much as the rest of the Python around the call)."""
    return t.detach() if t.requires_grad and torch.is_grad_enabled() else t


def _use_ops(ctx):
    """The torch.ops.actq path serves calls on the default contexts."""
    return library.AVAILABLE and ctx is None


def quantize(x, bits=2, group_size=256, *, row_bits=None, rounding="stochastic", seed=0,
             offset=0, meta_dtype="f32", rows=None, ctx=None):
    """actq_quantize on a tensor seen as rows x cols (rows = first dimension by default).
    offset: an int, or a 0-d int64 CPU tensor (read when the call runs)."""
    xd = actq_dtype(x, "x")
    md = to_enum(DType, meta_dtype, "meta_dtype")
    rd = to_enum(Rounding, rounding, "rounding")
    rules.check("seed", seed)
    if not torch.is_tensor(offset):
        rules.check("offset", offset)
    r, c = rows_cols(tuple(x.shape), rows)
    rb = _row_bits(row_bits, r)
    if rb is None:
        rules.layout(bits, group_size)
    else:
        rules.check("group_size", group_size)
    if _use_ops(ctx):
        off = offset if torch.is_tensor(offset) else torch.tensor(library.signed64(offset))
        try:
            packed, gmin, gscale = torch.ops.actq.quantize.default(
                x.detach(), rb, r, bits, group_size, _ROUNDING[rd], library.signed64(seed),
                off, _DTYPE[md])
        except RuntimeError as e:
            raise library.translated(e) from None
    else:
        packed, gmin, gscale = kernels.quantize(x, r, bits, group_size, rb, rd, seed,
                                                int(offset), md, ctx)
    return Quantized(packed, gmin, gscale, rb, r, c, group_size, bits, md, tuple(x.shape), xd)


def dequantize(q, dtype=None, ctx=None):
    """actq_dequantize: a tensor of q's original shape (and dtype unless given)."""
    if not isinstance(q, Quantized):
        raise TypeError("q must be a Quantized (what quantize returns), got %s"
                        % type(q).__name__)
    if dtype is None:
        yd = q.dtype
    elif isinstance(dtype, torch.dtype):
        if dtype not in TORCH_DTYPES:
            raise TypeError("dtype must be torch.float32, torch.float16 or torch.bfloat16, "
                            "got %s" % dtype)
        yd = TORCH_DTYPES[dtype]
    else:
        yd = to_enum(DType, dtype, "dtype")
    if _use_ops(ctx):
        try:
            return torch.ops.actq.dequantize.default(
                q.packed, q.group_min, q.group_scale, q.row_bits, list(q.shape), q.rows,
                q.bits, q.group_size, ACTQ_TO_TORCH[yd])
        except RuntimeError as e:
            raise library.translated(e) from None
    return kernels.dequantize(q.packed, q.group_min, q.group_scale, q.row_bits, q.shape,
                              q.rows, q.bits, q.group_size, q.meta_dtype, yd, ctx)


def pack(codes, bits, ctx=None):
    """actq_pack: one row of uint8 codes into the packed bit stream."""
    rules.check("bits", bits)
    if codes.dtype != torch.uint8:
        raise TypeError("codes must be a torch.uint8 tensor, got %s" % codes.dtype)
    codes = codes.detach().contiguous().reshape(-1)
    if codes.numel() and int(codes.max()) >= 1 << bits:
        rules.codes_below(codes.cpu().numpy(), bits)
    out = torch.zeros(raw.packed_bytes_1row(bits, codes.numel()), dtype=torch.uint8,
                      device=codes.device)
    with context_for(codes, ctx) as cx:
        raw.pack(cx, bits, codes.numel(), addr(codes), addr(out))
    return out


def unpack(packed, bits, n, ctx=None):
    """actq_unpack: n uint8 codes from a packed bit stream."""
    rules.check("bits", bits)
    rules.check("n", n, "rows")
    packed = packed.detach().contiguous().reshape(-1)
    if packed.dtype != torch.uint8:
        raise TypeError("packed must be a torch.uint8 tensor, got %s" % packed.dtype)
    rules.at_least("packed", packed.numel(), raw.packed_bytes_1row(bits, n),
                   what="%d codes of %d bits" % (n, bits))
    codes = torch.empty(n, dtype=torch.uint8, device=packed.device)
    with context_for(packed, ctx) as cx:
        raw.unpack(cx, bits, n, addr(packed), addr(codes))
    return codes


def fewbit_encode(table, x, with_y=True, ctx=None):
    """fewbit_encode: (packed codes, f(x) or None). table: a FewbitTable, or its fields
    as library.table_spec gives them (what compiled code passes)."""
    if _use_ops(ctx):
        spec = table if isinstance(table, tuple) else library.table_spec(table)
        try:
            codes, y = torch.ops.actq.fewbit_encode.default(_no_grad(x), *spec, with_y)
        except RuntimeError as e:
            raise library.translated(e) from None
        return codes, (y if with_y else None)
    return kernels.fewbit_encode(_struct(table), x, with_y, ctx)


def fewbit_backward(table, codes, grad_out, ctx=None):
    """fewbit_backward: grad_out * levels[code], in grad_out's dtype and shape."""
    if _use_ops(ctx):
        spec = table if isinstance(table, tuple) else library.table_spec(table)
        try:
            return torch.ops.actq.fewbit_backward.default(codes, _no_grad(grad_out), *spec)
        except RuntimeError as e:
            raise library.translated(e) from None
    return kernels.fewbit_backward(_struct(table), codes, grad_out, ctx)


def _struct(table):
    return library.table_struct(*table) if isinstance(table, tuple) else table.struct


def allocate_bits(sensitivity, numel, average_bits, allowed=(1, 2, 4, 8), method="greedy"):
    """actq_allocate_bits on tensors (host computation): (uint8 CPU tensor, objective)."""
    s = sensitivity.detach().double().cpu().numpy() if torch.is_tensor(sensitivity) \
        else sensitivity
    n = numel.detach().cpu().numpy() if torch.is_tensor(numel) else numel
    bits, objective = alloc.allocate_bits(s, n, average_bits, allowed, method)
    return torch.from_numpy(bits), objective
