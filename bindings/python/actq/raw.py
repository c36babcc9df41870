"""Thin pointer-level calls shared by the NumPy and PyTorch entry points.

Each function takes addresses (ints) of buffers that the caller sized and checked, calls
the C function once and raises on a status other than ACTQ_OK. Sizes are computed by the
library itself (actq_layout_sizes), except the one-row code stream of pack/unpack, whose
size the contract gives as ceil(n * bits / 8).
"""
import ctypes

from . import _lib
from .errors import check


def layout(rows, cols, group_size, bits, row_bits_addr, meta_dtype):
    lay = _lib.Layout()
    lay.rows = rows
    lay.cols = cols
    lay.group_size = group_size
    lay.bits = bits
    lay.row_bits = ctypes.cast(row_bits_addr or None, _lib.u8_p)
    lay.meta_dtype = int(meta_dtype)
    return lay


def layout_sizes(lay):
    packed, groups = _lib.size_t(), _lib.size_t()
    check("actq_layout_sizes",
          _lib.actq_layout_sizes(ctypes.byref(lay), ctypes.byref(packed), ctypes.byref(groups)))
    return packed.value, groups.value


def quantize(ctx, lay, x_dtype, x, rounding, seed, offset, packed, gmin, gscale):
    check("actq_quantize",
          _lib.actq_quantize(ctx.handle, ctypes.byref(lay), int(x_dtype), x, int(rounding),
                             seed & 0xFFFFFFFFFFFFFFFF, offset & 0xFFFFFFFFFFFFFFFF,
                             packed, gmin, gscale))


def dequantize(ctx, lay, packed, gmin, gscale, y_dtype, y):
    check("actq_dequantize",
          _lib.actq_dequantize(ctx.handle, ctypes.byref(lay), packed, gmin, gscale,
                               int(y_dtype), y))


def pack(ctx, bits, n, codes, packed):
    check("actq_pack", _lib.actq_pack(ctx.handle, bits, n, codes, packed))


def unpack(ctx, bits, n, packed, codes):
    check("actq_unpack", _lib.actq_unpack(ctx.handle, bits, n, packed, codes))


def fewbit_encode(ctx, table, n, dtype, x, y, codes):
    check("fewbit_encode",
          _lib.fewbit_encode(ctx.handle, ctypes.byref(table), n, int(dtype), x, y, codes))


def fewbit_backward(ctx, table, n, codes, dtype, grad_out, grad_in):
    check("fewbit_backward",
          _lib.fewbit_backward(ctx.handle, ctypes.byref(table), n, codes, int(dtype),
                               grad_out, grad_in))


def packed_bytes_1row(bits, n):
    """Bytes of one row of n codes at `bits` (the stream actq_pack writes). Out-of-range
    widths are left for the library to reject."""
    return (n * max(int(bits), 0) + 7) // 8
