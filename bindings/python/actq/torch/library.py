"""libactq's data calls as PyTorch custom operators, torch.ops.actq.*, so that
torch.compile traces models using them without graph breaks (PyTorch >= 2.4).

Each op is functional (no argument is written) and has a fake implementation giving its
outputs' exact shapes and dtypes from the arguments alone; packed sizes come from
actq_layout_sizes, which reads only the layout. Everything an op depends on is an
argument, so eager, opcheck and compiled calls agree byte for byte:

- the stochastic-rounding noise is (seed, offset): seed an int (a uint64 given as its
  int64 bit pattern), offset a 0-d int64 CPU tensor, so that a Quantizer can advance it
  in place from compiled code without a recompilation per call;
- a few-bit table travels as its fields (bits, activation, param, bounds, levels).

On PyTorch without torch.library.custom_op, AVAILABLE is False and REASON says why;
actq.torch.ops then calls the library directly (actq/torch/kernels.py). Setting
ACTQ_TORCH_OPS=0 in the environment forces that direct path on any PyTorch.
"""
import os
from typing import List, Optional, Tuple

import torch

from .. import _lib, raw
from ..enums import DType, Rounding, to_enum
from . import kernels
from .device import ACTQ_TO_TORCH, TORCH_DTYPES

_custom_op = getattr(torch.library, "custom_op", None)

if os.environ.get("ACTQ_TORCH_OPS", "1") == "0":
    AVAILABLE, REASON = False, "ACTQ_TORCH_OPS=0 is set"
elif _custom_op is None or not hasattr(torch.library, "register_fake"):
    AVAILABLE, REASON = False, ("torch.ops.actq needs torch.library.custom_op (PyTorch 2.4 "
                                "or later); this is PyTorch %s" % torch.__version__)
else:
    AVAILABLE, REASON = True, None

DEVICE_TYPES = ("cpu", "cuda")


def signed64(v):
    """A uint64 (seed or offset) as the int64 with the same bits: what a schema int holds."""
    v = int(v) & 0xFFFFFFFFFFFFFFFF
    return v - (1 << 64) if v >= 1 << 63 else v


def table_spec(table):
    """A FewbitTable's fields as plain Python values, the ops' table arguments."""
    s = table.struct
    n = 1 << s.bits
    return (int(s.bits), int(s.activation), float(s.param), tuple(s.bounds[: n - 1]),
            tuple(s.levels[:n]))


_structs = {}


def table_struct(bits, activation, param, bounds, levels):
    """The FewbitTableStruct of a table's fields, built once per distinct table."""
    key = (bits, activation, param, tuple(bounds), tuple(levels))
    t = _structs.get(key)
    if t is None:
        if not 1 <= bits <= 8 or len(bounds) != (1 << bits) - 1 or len(levels) != 1 << bits:
            raise ValueError("a %d-bit table has %d bounds and %d levels, got %d and %d"
                             % (bits, (1 << bits) - 1, 1 << bits, len(bounds), len(levels)))
        t = _lib.FewbitTableStruct()
        t.bits, t.activation, t.param = bits, activation, param
        t.bounds[: len(bounds)] = list(bounds)
        t.levels[: len(levels)] = list(levels)
        _structs[key] = t
    return t


if AVAILABLE:
    @_custom_op("actq::quantize", mutates_args=(), device_types=DEVICE_TYPES)
    def quantize(x: torch.Tensor, row_bits: Optional[torch.Tensor], rows: int, bits: int,
                 group_size: int, rounding: str, seed: int, offset: torch.Tensor,
                 meta_dtype: str) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """actq_quantize of x as rows x (numel / rows): (packed, group_min, group_scale).
        row_bits: host uint8 widths per row or None (then bits)."""
        return kernels.quantize(x, rows, bits, group_size, row_bits,
                                to_enum(Rounding, rounding), seed, int(offset),
                                to_enum(DType, meta_dtype))

    @quantize.register_fake
    def _(x, row_bits, rows, bits, group_size, rounding, seed, offset, meta_dtype):
        md = to_enum(DType, meta_dtype)
        to_enum(Rounding, rounding)  # the same error as the real call for a bad name
        rows = int(rows)
        cols = kernels.cols_of(int(x.numel()), rows)
        kernels.check_row_bits(row_bits, rows)
        if row_bits is None:
            nbytes, groups = kernels.sizes(rows, cols, bits, group_size, None, md)
        else:
            # Groups do not depend on the widths; the packed length does, on their values.
            _, groups = kernels.sizes(rows, cols, 8, group_size, None, md)
            nbytes = torch.library.get_ctx().new_dynamic_size()
        mt = ACTQ_TO_TORCH[md]
        return (x.new_empty(nbytes, dtype=torch.uint8), x.new_empty(groups, dtype=mt),
                x.new_empty(groups, dtype=mt))

    @_custom_op("actq::dequantize", mutates_args=(), device_types=DEVICE_TYPES)
    def dequantize(packed: torch.Tensor, group_min: torch.Tensor, group_scale: torch.Tensor,
                   row_bits: Optional[torch.Tensor], shape: List[int], rows: int, bits: int,
                   group_size: int, dtype: torch.dtype) -> torch.Tensor:
        """actq_dequantize: a tensor of `shape` and `dtype`; the metadata dtype is
        group_min's."""
        return kernels.dequantize(packed, group_min, group_scale, row_bits, shape, rows,
                                  bits, group_size, TORCH_DTYPES[group_min.dtype],
                                  TORCH_DTYPES[dtype])

    @dequantize.register_fake
    def _(packed, group_min, group_scale, row_bits, shape, rows, bits, group_size, dtype):
        if dtype not in TORCH_DTYPES or group_min.dtype not in TORCH_DTYPES:
            raise TypeError("actq takes float32, float16 or bfloat16 tensors")
        rows = int(rows)
        cols = kernels.cols_of(kernels.numel([int(s) for s in shape]), rows)
        kernels.check_row_bits(row_bits, rows)
        md = TORCH_DTYPES[group_min.dtype]
        # With row_bits the packed length depends on their values: only groups is known.
        nbytes, groups = kernels.sizes(rows, cols, 8 if row_bits is not None else bits,
                                       group_size, None, md)
        kernels.check_quantized(packed, group_min, group_scale,
                                None if row_bits is not None else nbytes, groups)
        return packed.new_empty(shape, dtype=dtype)

    @_custom_op("actq::fewbit_encode", mutates_args=(), device_types=DEVICE_TYPES)
    def fewbit_encode(x: torch.Tensor, bits: int, activation: int, param: float,
                      bounds: List[float], levels: List[float],
                      with_y: bool) -> Tuple[torch.Tensor, torch.Tensor]:
        """fewbit_encode: (packed codes, f(x)); f(x) is an empty tensor when not with_y."""
        table = table_struct(bits, activation, param, bounds, levels)
        codes, y = kernels.fewbit_encode(table, x, with_y)
        return codes, (y if with_y else x.new_empty(0))

    @fewbit_encode.register_fake
    def _(x, bits, activation, param, bounds, levels, with_y):
        codes = x.new_empty(raw.packed_bytes_1row(bits, x.numel()), dtype=torch.uint8)
        return codes, x.new_empty(x.shape if with_y else (0,))

    @_custom_op("actq::fewbit_backward", mutates_args=(), device_types=DEVICE_TYPES)
    def fewbit_backward(codes: torch.Tensor, grad_out: torch.Tensor, bits: int,
                        activation: int, param: float, bounds: List[float],
                        levels: List[float]) -> torch.Tensor:
        """fewbit_backward: grad_out * levels[code], in grad_out's dtype and shape."""
        table = table_struct(bits, activation, param, bounds, levels)
        return kernels.fewbit_backward(table, codes, grad_out)

    @fewbit_backward.register_fake
    def _(codes, grad_out, bits, activation, param, bounds, levels):
        kernels.check_codes(bits, codes, grad_out)
        return grad_out.new_empty(grad_out.shape)
