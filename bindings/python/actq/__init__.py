"""actq: Python binding of libactq, packed low-bit quantization for activation-compressed
training (ActNN / GACT / Few-Bit Backward). NumPy entry points here; PyTorch ones, autograd
functions, modules and the saved-tensor hooks in actq.torch."""
from ._lib import ABI_MAJOR, VERSION, LibraryNotFound
from .alloc import allocate_bits
from .arrays import (dequantize, fewbit_backward, fewbit_encode, layout_sizes, pack,
                     quantize, rows_cols, unpack)
from .context import Backend, Context, default_context
from .enums import Activation, AllocMethod, DType, Rounding, Weight
from .errors import (ActqError, DeviceError, InternalError, InvalidArgumentError,
                     NonFiniteError, OutOfMemoryError, SizeOverflowError, Status,
                     UnsupportedError, status_string)
from .fewbit import FewbitTable, cached_table
from .quantized import Quantized

__version__ = "%d.%d.%d" % (VERSION // 10000, VERSION // 100 % 100, VERSION % 100)
