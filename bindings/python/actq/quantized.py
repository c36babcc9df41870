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


def summary(shape, dtype, bits, group_size, meta, nbytes, row_bits=None):
    """The one-line description of a quantized tensor that every binding's record prints:
    what it stands for, its widths, and what it holds, all-in (metadata and widths)."""
    numel = 1
    for s in shape:
        numel *= int(s)
    if row_bits is None:
        width = "bits=%d" % bits
    else:
        widths = [int(b) for b in row_bits]
        width = ("bits=per row %d..%d, mean %.2f" % (min(widths), max(widths),
                                                     sum(widths) / len(widths))
                 if widths else "bits=per row (no rows)")
    per = " (%.2f bits per element)" % (8.0 * nbytes / numel) if numel else ""
    return "Quantized(shape=%s, dtype=%s, %s, group_size=%d, meta=%s, %d bytes held%s)" % (
        tuple(int(s) for s in shape), dtype, width, group_size, meta, nbytes, per)


@dataclass(repr=False)
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

    def __repr__(self):
        rb = self.row_bits
        if rb is not None:
            rb = rb.tolist() if hasattr(rb, "tolist") else list(rb)
        return summary(self.shape, self.dtype.name.lower(), self.bits, self.group_size,
                       self.meta_dtype.name.lower(), self.nbytes, rb)
