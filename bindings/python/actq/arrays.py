"""NumPy entry points for every data call of the contract (host memory, CPU backends).

NumPy has no bfloat16: pass bf16 data as uint16 arrays with dtype="bf16" (x_dtype= or
meta_dtype=/y_dtype=); bf16 results come back as uint16 arrays.
"""
import numpy as np

from . import raw, rules
from .context import default_context
from .enums import DType, Rounding, to_enum
from .quantized import Quantized

_NP = {DType.F32: np.float32, DType.F16: np.float16, DType.BF16: np.uint16}


def _dtype_of(a, given, name="x", given_name="x_dtype"):
    """The actq dtype of array `a` (argument `name`), declared by `given` (argument
    `given_name`) or from its NumPy dtype."""
    if given is not None:
        d = to_enum(DType, given, given_name)
        if a.dtype != _NP[d]:
            raise TypeError("%s must be a %s array for %s=%r, got %s"
                            % (name, np.dtype(_NP[d]).name, given_name, given, a.dtype))
        return d
    if a.dtype == np.float32:
        return DType.F32
    if a.dtype == np.float16:
        return DType.F16
    raise TypeError("%s must be a float32 or float16 array (bf16 as uint16 with %s='bf16'),"
                    " got %s" % (name, given_name, a.dtype))


def _addr(a):
    return a.ctypes.data if a is not None else None


def _row_bits(row_bits, rows):
    if row_bits is None:
        return None
    rb = np.asarray(row_bits).reshape(-1)
    rules.row_bits(rows, rb)  # before the uint8 cast, which would wrap 256 to 0
    return np.ascontiguousarray(rb, dtype=np.uint8)


def rows_cols(shape, rows=None):
    """How a tensor of `shape` is seen as rows x cols: rows = the first dimension (the
    sample, for per-sample widths) unless given; a 0-d or 1-d tensor is one row."""
    numel = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
    if rows is None:
        rows = shape[0] if len(shape) >= 2 else 1
    rules.check("rows", rows)
    if rows == 0:
        return 0, 0
    if numel % rows:
        raise rules.ArgumentError("rows", rows, "rows must divide the %d elements, got %d"
                                  % (numel, rows))
    return rows, numel // rows


def layout_sizes(rows, cols, bits=2, group_size=256, row_bits=None, meta_dtype="f32"):
    """(packed_bytes, groups) for a layout (actq_layout_sizes)."""
    rules.check("rows", rows)
    rules.check("cols", cols, "rows")
    rb = _row_bits(row_bits, rows)
    rules.layout(bits, group_size, rows, rb)
    lay = raw.layout(rows, cols, group_size, bits, _addr(rb),
                     to_enum(DType, meta_dtype, "meta_dtype"))
    return raw.layout_sizes(lay)


def quantize(x, bits=2, group_size=256, *, row_bits=None, rounding="stochastic", seed=0,
             offset=0, meta_dtype="f32", x_dtype=None, rows=None, ctx=None):
    """Quantizes x group by group (actq_quantize) into a Quantized."""
    x = np.ascontiguousarray(x)
    xd = _dtype_of(x, x_dtype)
    md = to_enum(DType, meta_dtype, "meta_dtype")
    rd = to_enum(Rounding, rounding, "rounding")
    rules.check("seed", seed)
    rules.check("offset", offset)
    r, c = rows_cols(x.shape, rows)
    rb = _row_bits(row_bits, r)
    rules.layout(bits, group_size, r, rb)
    lay = raw.layout(r, c, group_size, bits, _addr(rb), md)
    nbytes, groups = raw.layout_sizes(lay)
    packed = np.zeros(nbytes, dtype=np.uint8)
    gmin = np.zeros(groups, dtype=_NP[md])
    gscale = np.zeros(groups, dtype=_NP[md])
    raw.quantize(ctx or default_context(), lay, xd, _addr(x), rd, seed, offset, _addr(packed), _addr(gmin), _addr(gscale))
    return Quantized(packed, gmin, gscale, rb, r, c, group_size, bits, md, x.shape, xd)


def dequantize(q, y_dtype=None, ctx=None):
    """The reconstruction of a Quantized (actq_dequantize), in its original shape."""
    if not isinstance(q, Quantized):
        raise TypeError("q must be a Quantized (what quantize returns), got %s"
                        % type(q).__name__)
    yd = q.dtype if y_dtype is None else to_enum(DType, y_dtype, "y_dtype")
    lay = raw.layout(q.rows, q.cols, q.group_size, q.bits, _addr(q.row_bits), q.meta_dtype)
    y = np.empty(q.shape, dtype=_NP[yd])
    packed = np.ascontiguousarray(q.packed)  # named: the C call must not see a freed temporary
    raw.dequantize(ctx or default_context(), lay, _addr(packed), _addr(q.group_min),
                   _addr(q.group_scale), yd, _addr(y))
    return y


def pack(codes, bits, ctx=None):
    """One row of codes (uint8, each < 2^bits) into the packed bit stream (actq_pack)."""
    rules.check("bits", bits)
    codes = np.asarray(codes).reshape(-1)
    if codes.size and (codes.dtype.kind not in "ui" or codes.min() < 0):
        raise TypeError("codes must be unsigned integers (uint8), got %s" % codes.dtype)
    rules.codes_below(codes, bits)
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    out = np.zeros(raw.packed_bytes_1row(bits, codes.size), dtype=np.uint8)
    raw.pack(ctx or default_context(), bits, codes.size, _addr(codes), _addr(out))
    return out


def unpack(packed, bits, n, ctx=None):
    """n codes from a packed bit stream (actq_unpack)."""
    rules.check("bits", bits)
    rules.check("n", n, "rows")
    packed = np.ascontiguousarray(packed, dtype=np.uint8).reshape(-1)
    rules.at_least("packed", packed.size, raw.packed_bytes_1row(bits, n),
                   what="%d codes of %d bits" % (n, bits))
    codes = np.zeros(n, dtype=np.uint8)
    raw.unpack(ctx or default_context(), bits, n, _addr(packed), _addr(codes))
    return codes


def _table(table):
    from .fewbit import FewbitTable
    if not isinstance(table, FewbitTable):
        raise TypeError("table must be a FewbitTable, got %s" % type(table).__name__)


def fewbit_encode(table, x, with_y=True, dtype=None, ctx=None):
    """(packed codes, f(x) or None) of x through a FewbitTable (fewbit_encode)."""
    _table(table)
    x = np.ascontiguousarray(x)
    d = _dtype_of(x, dtype, "x", "dtype")
    codes = np.zeros(raw.packed_bytes_1row(table.bits, x.size), dtype=np.uint8)
    y = np.empty(x.shape, dtype=x.dtype) if with_y else None
    raw.fewbit_encode(ctx or default_context(), table.struct, x.size, d, _addr(x), _addr(y),
                      _addr(codes))
    return codes, y


def fewbit_backward(table, codes, grad_out, dtype=None, ctx=None):
    """grad_out * levels[code] (fewbit_backward), in grad_out's dtype and shape."""
    _table(table)
    g = np.ascontiguousarray(grad_out)
    d = _dtype_of(g, dtype, "grad_out", "dtype")
    codes = np.ascontiguousarray(codes, dtype=np.uint8).reshape(-1)
    rules.at_least("codes", codes.size, raw.packed_bytes_1row(table.bits, g.size),
                   what="grad_out's %d elements at %d bits" % (g.size, table.bits))
    gi = np.empty_like(g)
    raw.fewbit_backward(ctx or default_context(), table.struct, g.size, _addr(codes), d,
                        _addr(g), _addr(gi))
    return gi
