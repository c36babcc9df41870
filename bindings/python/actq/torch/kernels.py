"""The C calls on tensors, each into freshly allocated outputs: what the torch.ops.actq
custom ops run (actq/torch/library.py) and what actq.torch.ops calls directly where
those ops are not available (PyTorch < 2.4) or a context is given.

Arguments are already resolved (actq enums, host row_bits, ints); inputs are made
contiguous here, outputs are contiguous on the input's device.
"""
import torch

from .. import raw
from .device import ACTQ_TO_TORCH, actq_dtype, addr, context_for


def sizes(rows, cols, bits, group_size, row_bits, meta_dtype):
    """(packed bytes, groups) by actq_layout_sizes: the one formula for both."""
    return raw.layout_sizes(raw.layout(rows, cols, group_size, bits, addr(row_bits),
                                       meta_dtype))


def quantize(x, rows, bits, group_size, row_bits, rounding, seed, offset, meta_dtype,
             ctx=None):
    """(packed, group_min, group_scale) of x seen as rows x (numel / rows)."""
    x = x.detach().contiguous()
    xd = actq_dtype(x)
    cols = x.numel() // rows if rows else 0
    lay = raw.layout(rows, cols, group_size, bits, addr(row_bits), meta_dtype)
    nbytes, groups = raw.layout_sizes(lay)
    packed = torch.empty(nbytes, dtype=torch.uint8, device=x.device)
    gmin = torch.empty(groups, dtype=ACTQ_TO_TORCH[meta_dtype], device=x.device)
    gscale = torch.empty(groups, dtype=ACTQ_TO_TORCH[meta_dtype], device=x.device)
    with context_for(x, ctx) as cx:
        raw.quantize(cx, lay, xd, addr(x), rounding, seed, offset, addr(packed), addr(gmin),
                     addr(gscale))
    return packed, gmin, gscale


def dequantize(packed, gmin, gscale, row_bits, shape, rows, bits, group_size, meta_dtype,
               y_dtype, ctx=None):
    """A tensor of `shape` and actq dtype y_dtype, on packed's device."""
    cols = _numel(shape) // rows if rows else 0
    lay = raw.layout(rows, cols, group_size, bits, addr(row_bits), meta_dtype)
    packed, gmin, gscale = packed.contiguous(), gmin.contiguous(), gscale.contiguous()
    y = torch.empty(tuple(shape), dtype=ACTQ_TO_TORCH[y_dtype], device=packed.device)
    with context_for(packed, ctx) as cx:
        raw.dequantize(cx, lay, addr(packed), addr(gmin), addr(gscale), y_dtype, addr(y))
    return y


def fewbit_encode(table, x, with_y, ctx=None):
    """(packed codes, f(x) or None); table: a FewbitTableStruct."""
    x = x.detach().contiguous()
    d = actq_dtype(x)
    codes = torch.empty(raw.packed_bytes_1row(table.bits, x.numel()), dtype=torch.uint8,
                        device=x.device)
    y = torch.empty_like(x) if with_y else None
    with context_for(x, ctx) as cx:
        raw.fewbit_encode(cx, table, x.numel(), d, addr(x), addr(y), addr(codes))
    return codes, y


def fewbit_backward(table, codes, grad_out, ctx=None):
    """grad_out * levels[code], in grad_out's dtype and shape."""
    g = grad_out.detach().contiguous()
    d = actq_dtype(g)
    check_codes(table.bits, codes, g)
    codes = codes.contiguous()  # kept in a name: the C call must not see a freed temporary
    gi = torch.empty_like(g)
    with context_for(g, ctx) as cx:
        raw.fewbit_backward(cx, table, g.numel(), addr(codes), d, addr(g), addr(gi))
    return gi


def check_codes(bits, codes, g):
    """The C call reads ceil(numel * bits / 8) bytes of codes on g's device: make sure."""
    need = raw.packed_bytes_1row(bits, g.numel())
    if codes.dtype != torch.uint8 or codes.numel() < need or codes.device != g.device:
        raise ValueError("%d elements need %d bytes of uint8 codes on %s, got %d %s on %s"
                         % (g.numel(), need, g.device, codes.numel(), codes.dtype,
                            codes.device))


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n
