"""NumPy entry points for every data call of the contract (host memory, CPU backends).

NumPy has no bfloat16: pass bf16 data as uint16 arrays with dtype="bf16" (x_dtype= or
meta_dtype=/y_dtype=); bf16 results come back as uint16 arrays.
"""
import numpy as np

from . import raw
from .context import default_context
from .enums import DType, Rounding, to_enum
from .quantized import Quantized

_NP = {DType.F32: np.float32, DType.F16: np.float16, DType.BF16: np.uint16}


def _dtype_of(a, given):
    if given is not None:
        d = to_enum(DType, given)
        if a.dtype != _NP[d]:
            raise TypeError("a %s array is stored as %s, not %s"
                            % (d.name.lower(), np.dtype(_NP[d]).name, a.dtype))
        return d
    if a.dtype == np.float32:
        return DType.F32
    if a.dtype == np.float16:
        return DType.F16
    raise TypeError("actq takes float32 or float16 arrays (bf16 as uint16 with "
                    "dtype='bf16'), not %s" % a.dtype)


def _addr(a):
    return a.ctypes.data if a is not None else None


def _row_bits(row_bits, rows):
    if row_bits is None:
        return None
    rb = np.ascontiguousarray(row_bits, dtype=np.uint8).reshape(-1)
    if rb.size != rows:
        raise ValueError("row_bits has %d entries for %d rows" % (rb.size, rows))
    return rb


def rows_cols(shape, rows=None):
    """How a tensor of `shape` is seen as rows x cols: rows = the first dimension (the
    sample, for per-sample widths) unless given; a 0-d or 1-d tensor is one row."""
    numel = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
    if rows is None:
        rows = shape[0] if len(shape) >= 2 else 1
    if rows == 0:
        return 0, 0
    if numel % rows:
        raise ValueError("%d elements do not split into %d rows" % (numel, rows))
    return rows, numel // rows


def layout_sizes(rows, cols, bits=2, group_size=256, row_bits=None, meta_dtype="f32"):
    """(packed_bytes, groups) for a layout (actq_layout_sizes)."""
    rb = _row_bits(row_bits, rows)
    lay = raw.layout(rows, cols, group_size, bits, _addr(rb), to_enum(DType, meta_dtype))
    return raw.layout_sizes(lay)


def quantize(x, bits=2, group_size=256, *, row_bits=None, rounding="stochastic", seed=0,
             offset=0, meta_dtype="f32", x_dtype=None, rows=None, ctx=None):
    """Quantizes x group by group (actq_quantize) into a Quantized."""
    x = np.ascontiguousarray(x)
    xd = _dtype_of(x, x_dtype)
    md = to_enum(DType, meta_dtype)
    r, c = rows_cols(x.shape, rows)
    rb = _row_bits(row_bits, r)
    lay = raw.layout(r, c, group_size, bits, _addr(rb), md)
    nbytes, groups = raw.layout_sizes(lay)
    packed = np.zeros(nbytes, dtype=np.uint8)
    gmin = np.zeros(groups, dtype=_NP[md])
    gscale = np.zeros(groups, dtype=_NP[md])
    raw.quantize(ctx or default_context(), lay, xd, _addr(x), to_enum(Rounding, rounding),
                 seed, offset, _addr(packed), _addr(gmin), _addr(gscale))
    return Quantized(packed, gmin, gscale, rb, r, c, group_size, bits, md, x.shape, xd)


def dequantize(q, y_dtype=None, ctx=None):
    """The reconstruction of a Quantized (actq_dequantize), in its original shape."""
    yd = q.dtype if y_dtype is None else to_enum(DType, y_dtype)
    lay = raw.layout(q.rows, q.cols, q.group_size, q.bits, _addr(q.row_bits), q.meta_dtype)
    y = np.empty(q.shape, dtype=_NP[yd])
    packed = np.ascontiguousarray(q.packed)  # named: the C call must not see a freed temporary
    raw.dequantize(ctx or default_context(), lay, _addr(packed), _addr(q.group_min),
                   _addr(q.group_scale), yd, _addr(y))
    return y


def pack(codes, bits, ctx=None):
    """One row of codes (uint8, each < 2^bits) into the packed bit stream (actq_pack)."""
    codes = np.ascontiguousarray(codes, dtype=np.uint8).reshape(-1)
    out = np.zeros(raw.packed_bytes_1row(bits, codes.size), dtype=np.uint8)
    raw.pack(ctx or default_context(), bits, codes.size, _addr(codes), _addr(out))
    return out


def unpack(packed, bits, n, ctx=None):
    """n codes from a packed bit stream (actq_unpack)."""
    packed = np.ascontiguousarray(packed, dtype=np.uint8).reshape(-1)
    need = raw.packed_bytes_1row(bits, n)
    if packed.size < need:
        raise ValueError("%d codes of %d bits need %d bytes, got %d"
                         % (n, bits, need, packed.size))
    codes = np.zeros(n, dtype=np.uint8)
    raw.unpack(ctx or default_context(), bits, n, _addr(packed), _addr(codes))
    return codes


def fewbit_encode(table, x, with_y=True, dtype=None, ctx=None):
    """(packed codes, f(x) or None) of x through a FewbitTable (fewbit_encode)."""
    x = np.ascontiguousarray(x)
    d = _dtype_of(x, dtype)
    codes = np.zeros(raw.packed_bytes_1row(table.bits, x.size), dtype=np.uint8)
    y = np.empty(x.shape, dtype=x.dtype) if with_y else None
    raw.fewbit_encode(ctx or default_context(), table.struct, x.size, d, _addr(x), _addr(y),
                      _addr(codes))
    return codes, y


def fewbit_backward(table, codes, grad_out, dtype=None, ctx=None):
    """grad_out * levels[code] (fewbit_backward), in grad_out's dtype and shape."""
    g = np.ascontiguousarray(grad_out)
    d = _dtype_of(g, dtype)
    codes = np.ascontiguousarray(codes, dtype=np.uint8).reshape(-1)
    need = raw.packed_bytes_1row(table.bits, g.size)
    if codes.size < need:
        raise ValueError("%d elements need %d bytes of codes, got %d"
                         % (g.size, need, codes.size))
    gi = np.empty_like(g)
    raw.fewbit_backward(ctx or default_context(), table.struct, g.size, _addr(codes), d,
                        _addr(g), _addr(gi))
    return gi
