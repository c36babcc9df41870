"""Few-bit derivative tables (contract section 4): building them, reading them.

Tables are host memory on every backend; the same table serves NumPy and PyTorch calls.
"""
import ctypes
import functools

import numpy as np

from . import _lib, rules
from .enums import Activation, Weight, to_enum
from .errors import check


class FewbitTable:
    """A fewbit_table: 2^bits derivative levels and the 2^bits - 1 borders between them."""

    def __init__(self, struct):
        self.struct = struct

    @classmethod
    def build(cls, activation, bits, param=0.0, weight="normal", mean=0.0, std=1.0,
              lo=-100.0, hi=100.0, grid=0):
        """The optimal table for a built-in activation (fewbit_table_build). weight="normal"
        weights the error by N(mean, std^2); "uniform" by 1 on [lo, hi]."""
        act = to_enum(Activation, activation, "activation")
        if act == Activation.CUSTOM:
            rules.refuse("activation", activation, "a built-in activation (custom tables come "
                         "from FewbitTable.build_custom)")
        rules.check("bits", bits)
        rules.param(act, param)
        wt = to_enum(Weight, weight, "weight")
        rules.weight_options(wt, mean, std, lo, hi, grid, bits)
        opt = _lib.FewbitOptions()
        opt.weight = int(wt)
        opt.mean, opt.std, opt.lo, opt.hi, opt.grid = mean, std, lo, hi, grid
        t = _lib.FewbitTableStruct()
        check("fewbit_table_build",
              _lib.fewbit_table_build(int(act), param, bits,
                                      ctypes.byref(opt), ctypes.byref(t)))
        return cls(t)

    @classmethod
    def build_custom(cls, x, dydx, bits, weight=None):
        """A table fitted to samples of a derivative (fewbit_table_build_custom)."""
        rules.check("bits", bits)
        x = np.ascontiguousarray(x, dtype=np.float64)
        dydx = np.ascontiguousarray(dydx, dtype=np.float64)
        w = None if weight is None else np.ascontiguousarray(weight, dtype=np.float64)
        rules.samples(x, dydx, w)
        ptr = lambda a: None if a is None else a.ctypes.data_as(_lib.dbl_p)
        t = _lib.FewbitTableStruct()
        check("fewbit_table_build_custom",
              _lib.fewbit_table_build_custom(x.size, ptr(x), ptr(dydx), ptr(w), bits,
                                             ctypes.byref(t)))
        return cls(t)

    @property
    def bits(self):
        return self.struct.bits

    @property
    def activation(self):
        return Activation(self.struct.activation)

    @property
    def param(self):
        return self.struct.param

    @property
    def error(self):
        return self.struct.error

    @property
    def bounds(self):
        return np.array(self.struct.bounds[: (1 << self.bits) - 1], dtype=np.float32)

    @property
    def levels(self):
        return np.array(self.struct.levels[: 1 << self.bits], dtype=np.float32)

    def __repr__(self):
        return "FewbitTable(%s, bits=%d, error=%.3e)" % (self.activation.name.lower(),
                                                         self.bits, self.error)


@functools.lru_cache(maxsize=None)
def cached_table(activation, bits, param=0.0):
    """One shared table per (activation, bits, param) for N(0,1) inputs: modules build
    them once, not per call (an 8-bit table takes about half a second)."""
    return FewbitTable.build(activation, bits, param)
