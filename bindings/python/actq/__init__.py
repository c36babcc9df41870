"""actq: Python binding of libactq, packed low-bit quantization for activation-compressed
training (ActNN / GACT / Few-Bit Backward). NumPy entry points here; PyTorch ones, autograd
functions, modules and the saved-tensor hooks in actq.torch."""
import sys as _sys

try:
    from ._lib import ABI_MAJOR, VERSION, LibraryNotFound
except ImportError as _e:
    # `python -m actq` (the install diagnosis, __main__.py) imports this package first;
    # a library that cannot be loaded is then the diagnosis: said plainly, status 1. While
    # -m locates its module sys.argv[0] is "-m" (documented); sys.orig_argv names actq.
    if _sys.argv[:1] == ["-m"] and getattr(_sys, "orig_argv", [])[-2:] == ["-m", "actq"]:
        _sys.exit("python -m actq: libactq cannot be loaded: %s" % _e)
    raise
from .alloc import allocate_bits
from .arrays import (dequantize, fewbit_backward, fewbit_encode, layout_sizes, pack,
                     quantize, rows_cols, unpack)
from .context import Backend, Context, default_context
from .enums import Activation, AllocMethod, DType, Rounding, Weight
from .errors import (ActqError, ArgumentError, DeviceError, InternalError, InvalidArgumentError,
                     NonFiniteError, OutOfMemoryError, SizeOverflowError, Status,
                     UnsupportedError, status_string)
from .fewbit import FewbitTable, cached_table
from .paths import get_include, get_library
from .quantized import Quantized

__version__ = "%d.%d.%d" % (VERSION // 10000, VERSION // 100 % 100, VERSION % 100)
