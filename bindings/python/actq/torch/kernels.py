"""The C calls on tensors, each into freshly allocated outputs: what the torch.ops.actq
custom ops run (actq/torch/library.py) and what actq.torch.ops calls directly where
those ops are not available (PyTorch < 2.4) or a context is given.

Arguments are already resolved (actq enums, host row_bits, ints); inputs are made
contiguous here, outputs are contiguous on the input's device.
"""
import torch

from .. import raw, rules
from .device import ACTQ_TO_TORCH, actq_dtype, addr, context_for


def sizes(rows, cols, bits, group_size, row_bits, meta_dtype):
    """(packed bytes, groups) by actq_layout_sizes: the one formula for both."""
    return raw.layout_sizes(raw.layout(rows, cols, group_size, bits, addr(row_bits),
                                       meta_dtype))


def cols_of(numel, rows):
    """The columns of numel elements seen as `rows` rows; the C calls would otherwise read
    rows * cols elements of a tensor that has another count."""
    if rows < 0 or (rows and numel % rows) or (not rows and numel):
        raise rules.ArgumentError("rows", rows, "rows must divide the %d elements, got %d"
                                  % (numel, rows))
    return numel // rows if rows else 0


def check_layout(rows, bits, group_size, row_bits):
    """The layout's arguments (actq/rules.py); row_bits is read as `rows` host bytes."""
    if row_bits is None:
        rules.layout(bits, group_size)
        return
    check_row_bits(row_bits, rows)
    rules.layout(bits, group_size, rows, row_bits.tolist())


def check_row_bits(row_bits, rows):
    """What check_layout checks of row_bits without reading its values (the fakes: there
    are none at tracing time): a uint8 host tensor of one entry per row."""
    if row_bits is None:
        return
    if row_bits.device.type != "cpu" or row_bits.dtype != torch.uint8:
        raise TypeError("row_bits must be a torch.uint8 tensor in host memory, got %s on %s"
                        % (row_bits.dtype, row_bits.device))
    if row_bits.numel() != rows:
        raise rules.ArgumentError("row_bits", row_bits.numel(), "row_bits has %d entries for"
                                  " %d rows" % (row_bits.numel(), rows))


def check_quantized(packed, gmin, gscale, nbytes, groups):
    """The buffers dequantize reads hold what the layout says (nbytes None: not known)."""
    for name, t, need, dtypes in (("packed", packed, nbytes, (torch.uint8,)),
                                  ("group_min", gmin, groups, ACTQ_TO_TORCH.values()),
                                  ("group_scale", gscale, groups, (gmin.dtype,))):
        if (t.dtype not in dtypes or t.device != packed.device
                or (need is not None and t.numel() < need)):
            raise ValueError("the layout needs %s of %s elements (%s) on %s, got %d %s on %s"
                             % (name, need, "/".join(str(d) for d in dtypes),
                                packed.device, t.numel(), t.dtype, t.device))


def quantize(x, rows, bits, group_size, row_bits, rounding, seed, offset, meta_dtype,
             ctx=None):
    """(packed, group_min, group_scale) of x seen as rows x (numel / rows)."""
    x = x.detach().contiguous()
    xd = actq_dtype(x)
    cols = cols_of(x.numel(), rows)
    check_layout(rows, bits, group_size, row_bits)
    row_bits = row_bits.contiguous() if row_bits is not None else None
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
    cols = cols_of(numel(shape), rows)
    check_layout(rows, bits, group_size, row_bits)
    row_bits = row_bits.contiguous() if row_bits is not None else None
    lay = raw.layout(rows, cols, group_size, bits, addr(row_bits), meta_dtype)
    check_quantized(packed, gmin, gscale, *raw.layout_sizes(lay))
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
    d = actq_dtype(g, "grad_out")
    check_codes(table.bits, codes, g)
    codes = codes.contiguous()  # kept in a name: the C call must not see a freed temporary
    gi = torch.empty_like(g)
    with context_for(g, ctx) as cx:
        raw.fewbit_backward(cx, table, g.numel(), addr(codes), d, addr(g), addr(gi))
    return gi


def check_codes(bits, codes, g):
    """The C call reads ceil(numel * bits / 8) bytes of codes on g's device: make sure."""
    need = raw.packed_bytes_1row(bits, g.numel())
    if codes.dtype != torch.uint8:
        raise TypeError("codes must be a torch.uint8 tensor, got %s" % codes.dtype)
    if codes.device != g.device:
        raise ValueError("codes must be on grad_out's device (%s), got %s"
                         % (g.device, codes.device))
    rules.at_least("codes", codes.numel(), need,
                   what="grad_out's %d elements at %d bits" % (g.numel(), bits))


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n
