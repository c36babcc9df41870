"""PyTorch entry points for every data call of the contract, on CPU or CUDA tensors.

Outputs are allocated on the input's device; row_bits and tables stay host memory as the
contract requires. Inputs are made contiguous (a copy only when they are not).
"""
import numpy as np
import torch

from .. import alloc, raw
from ..arrays import rows_cols
from ..enums import DType, Rounding, to_enum
from ..quantized import Quantized
from .device import ACTQ_TO_TORCH, actq_dtype, addr, context_for


def _row_bits(row_bits, rows):
    if row_bits is None:
        return None
    rb = torch.as_tensor(np.asarray(row_bits) if not torch.is_tensor(row_bits) else row_bits)
    rb = rb.to(device="cpu", dtype=torch.uint8).contiguous().reshape(-1)
    if rb.numel() != rows:
        raise ValueError("row_bits has %d entries for %d rows" % (rb.numel(), rows))
    return rb


def quantize(x, bits=2, group_size=256, *, row_bits=None, rounding="stochastic", seed=0,
             offset=0, meta_dtype="f32", rows=None, ctx=None):
    """actq_quantize on a tensor seen as rows x cols (rows = first dimension by default)."""
    x = x.detach().contiguous()
    xd = actq_dtype(x)
    md = to_enum(DType, meta_dtype)
    r, c = rows_cols(tuple(x.shape), rows)
    rb = _row_bits(row_bits, r)
    lay = raw.layout(r, c, group_size, bits, addr(rb), md)
    nbytes, groups = raw.layout_sizes(lay)
    packed = torch.empty(nbytes, dtype=torch.uint8, device=x.device)
    gmin = torch.empty(groups, dtype=ACTQ_TO_TORCH[md], device=x.device)
    gscale = torch.empty(groups, dtype=ACTQ_TO_TORCH[md], device=x.device)
    with context_for(x, ctx) as cx:
        raw.quantize(cx, lay, xd, addr(x), to_enum(Rounding, rounding), seed, offset,
                     addr(packed), addr(gmin), addr(gscale))
    return Quantized(packed, gmin, gscale, rb, r, c, group_size, bits, md, tuple(x.shape), xd)


def dequantize(q, dtype=None, ctx=None):
    """actq_dequantize: a tensor of q's original shape (and dtype unless given)."""
    yd = q.dtype if dtype is None else (actq_dtype(torch.empty(0, dtype=dtype))
                                        if isinstance(dtype, torch.dtype)
                                        else to_enum(DType, dtype))
    lay = raw.layout(q.rows, q.cols, q.group_size, q.bits, addr(q.row_bits), q.meta_dtype)
    y = torch.empty(q.shape, dtype=ACTQ_TO_TORCH[yd], device=q.packed.device)
    with context_for(q.packed, ctx) as cx:
        raw.dequantize(cx, lay, addr(q.packed), addr(q.group_min), addr(q.group_scale), yd,
                       addr(y))
    return y


def pack(codes, bits, ctx=None):
    """actq_pack: one row of uint8 codes into the packed bit stream."""
    codes = codes.detach().to(torch.uint8).contiguous().reshape(-1)
    out = torch.zeros(raw.packed_bytes_1row(bits, codes.numel()), dtype=torch.uint8,
                      device=codes.device)
    with context_for(codes, ctx) as cx:
        raw.pack(cx, bits, codes.numel(), addr(codes), addr(out))
    return out


def unpack(packed, bits, n, ctx=None):
    """actq_unpack: n uint8 codes from a packed bit stream."""
    packed = packed.detach().contiguous().reshape(-1)
    if packed.dtype != torch.uint8:
        raise TypeError("packed codes are uint8, not %s" % packed.dtype)
    need = raw.packed_bytes_1row(bits, n)
    if packed.numel() < need:
        raise ValueError("%d codes of %d bits need %d bytes, got %d"
                         % (n, bits, need, packed.numel()))
    codes = torch.empty(n, dtype=torch.uint8, device=packed.device)
    with context_for(packed, ctx) as cx:
        raw.unpack(cx, bits, n, addr(packed), addr(codes))
    return codes


def fewbit_encode(table, x, with_y=True, ctx=None):
    """fewbit_encode: (packed codes, f(x) or None)."""
    x = x.detach().contiguous()
    d = actq_dtype(x)
    codes = torch.empty(raw.packed_bytes_1row(table.bits, x.numel()), dtype=torch.uint8,
                        device=x.device)
    y = torch.empty_like(x) if with_y else None
    with context_for(x, ctx) as cx:
        raw.fewbit_encode(cx, table.struct, x.numel(), d, addr(x), addr(y), addr(codes))
    return codes, y


def fewbit_backward(table, codes, grad_out, ctx=None):
    """fewbit_backward: grad_out * levels[code], in grad_out's dtype and shape."""
    g = grad_out.detach().contiguous()
    d = actq_dtype(g)
    need = raw.packed_bytes_1row(table.bits, g.numel())
    if codes.dtype != torch.uint8 or codes.numel() < need or codes.device != g.device:
        raise ValueError("%d elements need %d bytes of uint8 codes on %s, got %d %s on %s"
                         % (g.numel(), need, g.device, codes.numel(), codes.dtype,
                            codes.device))
    codes = codes.contiguous()  # kept in a name: the C call must not see a freed temporary
    gi = torch.empty_like(g)
    with context_for(g, ctx) as cx:
        raw.fewbit_backward(cx, table.struct, g.numel(), addr(codes), d, addr(g), addr(gi))
    return gi


def allocate_bits(sensitivity, numel, average_bits, allowed=(1, 2, 4, 8), method="greedy"):
    """actq_allocate_bits on tensors (host computation): (uint8 CPU tensor, objective)."""
    s = sensitivity.detach().double().cpu().numpy() if torch.is_tensor(sensitivity) \
        else sensitivity
    n = numel.detach().cpu().numpy() if torch.is_tensor(numel) else numel
    bits, objective = alloc.allocate_bits(s, n, average_bits, allowed, method)
    return torch.from_numpy(bits), objective
