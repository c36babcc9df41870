"""Bit allocation (contract section 5): per-sample or per-tensor widths for an average."""
import ctypes

import numpy as np

from . import _lib
from .enums import AllocMethod, to_enum, widths_mask
from .errors import check


def allocate_bits(sensitivity, numel, average_bits, allowed=(1, 2, 4, 8), method="greedy"):
    """Widths minimizing sum s_i / (2^b_i - 1)^2 with sum numel_i b_i <= average * sum numel_i.

    sensitivity: m floats; numel: m counts (or one int for all); allowed: widths or a
    mask as the C call takes it. Returns (bits as a uint8 array, objective)."""
    s = np.ascontiguousarray(sensitivity, dtype=np.float64).reshape(-1)
    if np.ndim(numel) == 0:
        n = np.full(s.shape, int(numel), dtype=np.uint64)
    else:
        n = np.ascontiguousarray(numel, dtype=np.uint64).reshape(-1)
        if n.shape != s.shape:
            raise ValueError("sensitivity and numel must have the same length")
    bits = np.zeros(s.shape, dtype=np.uint8)
    objective = ctypes.c_double()
    check("actq_allocate_bits",
          _lib.actq_allocate_bits(s.size, s.ctypes.data_as(_lib.dbl_p),
                                  n.ctypes.data_as(_lib.u64_p), float(average_bits),
                                  widths_mask(allowed), int(to_enum(AllocMethod, method)),
                                  bits.ctypes.data_as(_lib.u8_p), ctypes.byref(objective)))
    return bits, objective.value
