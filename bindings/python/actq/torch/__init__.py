"""PyTorch integration of actq: entry points on tensors (CPU, and CUDA through
ACTQ_BACKEND_CUDA), ActNN-style autograd functions and modules, GACT-style saved-tensor
hooks (with AutoPrecision's per-tensor widths), and a meter of the bytes autograd holds.
On PyTorch >= 2.4 the calls are the torch.ops.actq custom ops (actq.torch.library), which
torch.compile traces."""
from . import functional, library, nn
from .autoprec import AutoPrecision
from .device import context_for, synchronize
from .hooks import compressed_saved_tensors
from .meter import SavedTensorMeter
from .ops import (allocate_bits, dequantize, fewbit_backward, fewbit_encode, pack, quantize,
                  unpack)
from .quantizer import Quantizer, row_sensitivity
