"""Bit allocation (contract section 5): per-sample or per-tensor widths for an average."""
import ctypes

import numpy as np

from . import _lib, rules
from .enums import AllocMethod, to_enum
from .errors import check


def allocate_bits(sensitivity, numel, average_bits, allowed=(1, 2, 4, 8), method="greedy"):
    """Widths minimizing sum s_i / (2^b_i - 1)^2 with sum numel_i b_i <= average * sum numel_i.

    sensitivity: m floats; numel: m counts (or one int for all); allowed: widths or a
    mask as the C call takes it. Returns (bits as a uint8 array, objective)."""
    s = np.ascontiguousarray(sensitivity, dtype=np.float64).reshape(-1)
    if np.ndim(numel) == 0:
        if not 0 <= int(numel) < 1 << 64:
            rules.refuse("numel", numel, "counts in 0..2^64-1")
        n = np.full(s.shape, int(numel), dtype=np.uint64)
    else:
        n = np.asarray(numel).reshape(-1)
        if n.size and (n.dtype.kind not in "ui" or n.min() < 0):
            raise TypeError("numel must be non-negative integer counts, got %s" % n.dtype)
        n = np.ascontiguousarray(n, dtype=np.uint64)
    mask = rules.allowed_widths(allowed)
    meth = to_enum(AllocMethod, method, "method")
    rules.allocation(s, n, average_bits, mask)
    bits = np.zeros(s.shape, dtype=np.uint8)
    objective = ctypes.c_double()
    check("actq_allocate_bits",
          _lib.actq_allocate_bits(s.size, s.ctypes.data_as(_lib.dbl_p),
                                  n.ctypes.data_as(_lib.u64_p), float(average_bits),
                                  mask, int(meth),
                                  bits.ctypes.data_as(_lib.u8_p), ctypes.byref(objective)))
    return bits, objective.value
