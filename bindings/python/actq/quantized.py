"""The packed form of one tensor: what quantize returns and dequantize takes.

The same container serves NumPy arrays and PyTorch tensors (its buffers are of one kind).
"""
from dataclasses import dataclass
from typing import Any, Optional, Tuple

from .enums import DType


def buffer_nbytes(a):
    if a is None:
        return 0
    if hasattr(a, "element_size"):  # torch.Tensor
        return a.numel() * a.element_size()
    return a.nbytes


@dataclass
class Quantized:
    packed: Any            # uint8, packed_bytes long
    group_min: Any         # `groups` entries of meta_dtype (bf16 in NumPy: uint16)
    group_scale: Any
    row_bits: Optional[Any]  # host uint8 array of `rows` widths, or None (then `bits`)
    rows: int
    cols: int
    group_size: int
    bits: int
    meta_dtype: DType
    shape: Tuple[int, ...]  # the original tensor's shape
    dtype: DType           # the original tensor's dtype

    @property
    def nbytes(self):
        """Bytes held: packed codes, both metadata arrays and the per-row widths."""
        return (buffer_nbytes(self.packed) + buffer_nbytes(self.group_min)
                + buffer_nbytes(self.group_scale) + buffer_nbytes(self.row_bits))
