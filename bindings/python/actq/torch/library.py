"""libactq's data calls as PyTorch operators, torch.ops.actq.*, so that torch.compile
traces models using them without graph breaks, served by one of two implementations:

- C++ operators (bindings/torch, libactq_torch.so beside libactq): registered by a small
  library on PyTorch's stable ABI that calls libactq's C ABI directly, so a call costs
  about what its kernel costs. Built for PyTorch >= 2.10 (TORCH_TARGET_VERSION), it loads
  into every later PyTorch;
- Python custom operators (torch.library.custom_op, PyTorch >= 2.4) calling the library
  through ctypes (actq/torch/kernels.py), where the C++ library is absent or cannot load.

Both have the same schemas, checks, messages and bytes, and the same fake implementations
(below) giving their outputs' exact shapes and dtypes from the arguments alone, which
opcheck and torch.compile use; packed sizes come from actq_layout_sizes, which reads only
the layout. Each op but compress is functional (no argument is written). Everything an op
depends on is an argument, so eager, opcheck and compiled calls agree byte for byte:

- the stochastic-rounding noise is (seed, offset): seed an int (a uint64 given as its
  int64 bit pattern), offset a 0-d int64 CPU tensor, so that a Quantizer can advance it
  in place from compiled code without a recompilation per call;
- a few-bit table travels as its fields (bits, activation, param, bounds, levels);
- compress is what a saved-tensor hook does per tensor: quantize at the offset, then
  advance the offset and count the elements stored at the width (both in place).

A C++ operator raises RuntimeError (the stable ABI's only exception) with a tag naming the
exception the Python binding raises for the same fault; the package's entry points turn
it back into that exception (translated()).

The few-bit layers' forward and backward have one more C++ operator,
torch.ops.actq.fewbit_activation, with its autograd node in C++ (bindings/torch/src/
autograd.cc): PyTorch's full C++ API, so its library (libactq_torch_autograd.<PyTorch
version>.so, beside the first) loads only into the PyTorch it was built against.
AUTOGRAD_PATH says where it was loaded from, AUTOGRAD_REASON why not;
ACTQ_TORCH_AUTOGRAD=0 leaves it unloaded, and the layers then run their Python
autograd.Function (functional.FewbitActivation), as they do in compiled graphs and on CUDA.
The operator is for eager calls: it has no fake implementation, and compiled code traces
the autograd.Function instead.

IMPLEMENTATION says which serves the calls, and why not the faster one. On PyTorch
without torch.library.custom_op, AVAILABLE is False and REASON says why; actq.torch.ops
then calls the library directly (actq/torch/kernels.py). ACTQ_TORCH_OPS=0 in the
environment forces that direct path on any PyTorch; ACTQ_TORCH_CPP=0 the Python custom
operators; ACTQ_TORCH_LIBRARY=<path> names the C++ library to load.
"""
import builtins
import os
import re
from typing import List, Optional, Tuple

import torch

from .. import _lib, raw, rules
from ..enums import DType, Rounding, to_enum
from ..errors import ActqError, ArgumentError, _BY_STATUS
from . import kernels
from .device import ACTQ_TO_TORCH, TORCH_DTYPES

_custom_op = getattr(torch.library, "custom_op", None)

# The C++ operators' library, and the oldest PyTorch it is built for (TORCH_TARGET_VERSION
# in bindings/torch/CMakeLists.txt).
CPP_LIBRARY = "libactq_torch.so"
CPP_MIN_TORCH = (2, 10)

DEVICE_TYPES = ("cpu", "cuda")


def _torch_version():
    m = re.match(r"(\d+)\.(\d+)", torch.__version__)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def cpp_library_path():
    """Where the C++ operators are looked for: ACTQ_TORCH_LIBRARY, else beside libactq."""
    return (os.environ.get("ACTQ_TORCH_LIBRARY")
            or os.path.join(os.path.dirname(_lib.PATH), CPP_LIBRARY))


def _load_cpp():
    """(path, None) once the C++ operators are registered, (None, why) when they are not."""
    if os.environ.get("ACTQ_TORCH_CPP", "1") == "0":
        return None, "ACTQ_TORCH_CPP=0 is set"
    if _torch_version() < CPP_MIN_TORCH:
        return None, ("the C++ operators need PyTorch %d.%d or later (stable ABI); this is "
                      "PyTorch %s" % (CPP_MIN_TORCH + (torch.__version__,)))
    path = cpp_library_path()
    if not os.path.isfile(path):
        return None, ("no %s (it is built with libactq where CMake finds PyTorch >= %d.%d: "
                      "docs/python.md)" % ((path,) + CPP_MIN_TORCH))
    try:
        torch.ops.load_library(path)
    except (OSError, RuntimeError) as e:
        return None, "%s does not load: %s" % (path, e)
    return path, None


def autograd_library_path():
    """Where the few-bit layers' C++ autograd library for this PyTorch is looked for."""
    return os.path.join(os.path.dirname(CPP_PATH or cpp_library_path()),
                        "libactq_torch_autograd.%s.so" % torch.__version__)


def _load_autograd():
    """(path, None) once torch.ops.actq.fewbit_activation is registered, (None, why) when
    it is not."""
    if not CPP_PATH:
        return None, "no C++ operators"
    if os.environ.get("ACTQ_TORCH_AUTOGRAD", "1") == "0":
        return None, "ACTQ_TORCH_AUTOGRAD=0 is set"
    path = autograd_library_path()
    if not os.path.isfile(path):
        return None, ("no %s (built against this PyTorch only, from 2.15 on: docs/python.md)"
                      % path)
    try:
        torch.ops.load_library(path)
    except (OSError, RuntimeError) as e:
        return None, "%s does not load: %s" % (path, e)
    return path, None


CPP_PATH = None
if os.environ.get("ACTQ_TORCH_OPS", "1") == "0":
    AVAILABLE, REASON = False, "ACTQ_TORCH_OPS=0 is set"
    CPP_REASON = REASON
elif _custom_op is None or not hasattr(torch.library, "register_fake"):
    AVAILABLE, REASON = False, ("torch.ops.actq needs torch.library.custom_op (PyTorch 2.4 "
                                "or later); this is PyTorch %s" % torch.__version__)
    CPP_REASON = REASON
else:
    AVAILABLE, REASON = True, None
    CPP_PATH, CPP_REASON = _load_cpp()

AUTOGRAD_PATH, AUTOGRAD_REASON = _load_autograd()

if CPP_PATH:
    IMPLEMENTATION = "C++ operators (%s)" % CPP_PATH
elif AVAILABLE:
    IMPLEMENTATION = "Python custom operators (no C++ operators: %s)" % CPP_REASON
else:
    IMPLEMENTATION = "direct library calls, no torch.ops.actq (%s)" % REASON

# A fault: "[actq <Python class>] <message>", or "[actq status <N>] <call>: <status string>".
_TAGGED = re.compile(r"\[actq ([A-Za-z]+)(?: (\d+))?\] (.*)", re.S)
# An argument the operator refused (bindings/torch/src/rules.h): the argument's name in
# the tag, the message "<name> must be <allowed>, got <value>" (or "<name> has ...").
_ARGUMENT = re.compile(r"\[actq ArgumentError (\S+)\] (.*?)(?:, got (.*))?$", re.S)


def translated(e):
    """The exception the Python binding raises for the fault a C++ operator reported in
    RuntimeError e (its tag, ops.cc's errors.h); e itself when it has no tag."""
    a = _ARGUMENT.search(str(e))
    if a is not None:
        name, message, value = a.groups()
        return ArgumentError(name, value, message + (", got " + value if value else ""))
    m = _TAGGED.search(str(e))
    if m is None:
        return e
    kind, status, message = m.groups()
    if kind == "status":
        status = int(status)
        return _BY_STATUS.get(status, ActqError)(re.match(r"[^:\n]*", message).group(0), status)
    cls = getattr(builtins, kind, None)
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        return e
    return cls(message)  # whole: a message may hold colons ("cuda:0")


def synchronize_operators(index):
    """The C++ operators' part of device.synchronize(): waits for their contexts of CUDA
    device `index` and raises their first deferred error (nothing without them: the Python
    operators run on the package's own contexts)."""
    if CPP_PATH:
        try:
            torch.ops.actq.synchronize(torch.empty(0, device=torch.device("cuda", index)))
        except RuntimeError as e:
            raise translated(e) from None


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


# ---- fake implementations: shapes and dtypes from the arguments, the real checks --------

def quantize_fake(x, row_bits, rows, bits, group_size, rounding, seed, offset, meta_dtype):
    md = to_enum(DType, meta_dtype, "meta_dtype")
    to_enum(Rounding, rounding, "rounding")  # the same error as the real call for a bad name
    rules.check("group_size", group_size)
    if row_bits is None:
        rules.check("bits", bits)
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


def compress_fake(x, offset, stored, rows, bits, group_size, rounding, seed, meta_dtype):
    return quantize_fake(x, None, rows, bits, group_size, rounding, seed, offset, meta_dtype)


def dequantize_fake(packed, group_min, group_scale, row_bits, shape, rows, bits, group_size,
                    dtype):
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


def fewbit_encode_fake(x, bits, activation, param, bounds, levels, with_y):
    codes = x.new_empty(raw.packed_bytes_1row(bits, x.numel()), dtype=torch.uint8)
    return codes, x.new_empty(x.shape if with_y else (0,))


def fewbit_backward_fake(codes, grad_out, bits, activation, param, bounds, levels):
    kernels.check_codes(bits, codes, grad_out)
    return grad_out.new_empty(grad_out.shape)


FAKES = {"quantize": quantize_fake, "compress": compress_fake, "dequantize": dequantize_fake,
         "fewbit_encode": fewbit_encode_fake, "fewbit_backward": fewbit_backward_fake}

if CPP_PATH:
    for _name, _fake in FAKES.items():
        torch.library.register_fake("actq::" + _name)(_fake)

if AVAILABLE and not CPP_PATH:
    @_custom_op("actq::quantize", mutates_args=(), device_types=DEVICE_TYPES)
    def _quantize(x: torch.Tensor, row_bits: Optional[torch.Tensor], rows: int, bits: int,
                  group_size: int, rounding: str, seed: int, offset: torch.Tensor,
                  meta_dtype: str) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """actq_quantize of x as rows x (numel / rows): (packed, group_min, group_scale).
        row_bits: host uint8 widths per row or None (then bits)."""
        return kernels.quantize(x, rows, bits, group_size, row_bits,
                                to_enum(Rounding, rounding, "rounding"), seed, int(offset),
                                to_enum(DType, meta_dtype, "meta_dtype"))

    @_custom_op("actq::compress", mutates_args=("offset", "stored"),
                device_types=DEVICE_TYPES)
    def _compress(x: torch.Tensor, offset: torch.Tensor, stored: torch.Tensor, rows: int,
                  bits: int, group_size: int, rounding: str, seed: int,
                  meta_dtype: str) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """quantize at the offset, then the offset advanced by one and x's elements added
        to stored[bits]."""
        out = kernels.quantize(x, rows, bits, group_size, None,
                               to_enum(Rounding, rounding, "rounding"),
                               seed, int(offset), to_enum(DType, meta_dtype, "meta_dtype"))
        offset.add_(1)
        stored[bits] += x.numel()
        return out

    @_custom_op("actq::dequantize", mutates_args=(), device_types=DEVICE_TYPES)
    def _dequantize(packed: torch.Tensor, group_min: torch.Tensor, group_scale: torch.Tensor,
                    row_bits: Optional[torch.Tensor], shape: List[int], rows: int, bits: int,
                    group_size: int, dtype: torch.dtype) -> torch.Tensor:
        """actq_dequantize: a tensor of `shape` and `dtype`; the metadata dtype is
        group_min's."""
        return kernels.dequantize(packed, group_min, group_scale, row_bits, shape, rows,
                                  bits, group_size, TORCH_DTYPES[group_min.dtype],
                                  TORCH_DTYPES[dtype])

    @_custom_op("actq::fewbit_encode", mutates_args=(), device_types=DEVICE_TYPES)
    def _fewbit_encode(x: torch.Tensor, bits: int, activation: int, param: float,
                       bounds: List[float], levels: List[float],
                       with_y: bool) -> Tuple[torch.Tensor, torch.Tensor]:
        """fewbit_encode: (packed codes, f(x)); f(x) is an empty tensor when not with_y."""
        table = table_struct(bits, activation, param, bounds, levels)
        codes, y = kernels.fewbit_encode(table, x, with_y)
        return codes, (y if with_y else x.new_empty(0))

    @_custom_op("actq::fewbit_backward", mutates_args=(), device_types=DEVICE_TYPES)
    def _fewbit_backward(codes: torch.Tensor, grad_out: torch.Tensor, bits: int,
                         activation: int, param: float, bounds: List[float],
                         levels: List[float]) -> torch.Tensor:
        """fewbit_backward: grad_out * levels[code], in grad_out's dtype and shape."""
        table = table_struct(bits, activation, param, bounds, levels)
        return kernels.fewbit_backward(table, codes, grad_out)

    for _name, _op in (("quantize", _quantize), ("compress", _compress),
                       ("dequantize", _dequantize), ("fewbit_encode", _fewbit_encode),
                       ("fewbit_backward", _fewbit_backward)):
        _op.register_fake(FAKES[_name])
