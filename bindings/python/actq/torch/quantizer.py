"""Quantizer: the settings and the noise counter behind every compressed activation.

A Quantizer turns a tensor into a Quantized (packed codes + group metadata) and back. It
owns a seed and a call counter used as the Philox offset, so stochastic rounding is
reproducible (same seed, same sequence of calls, same bytes) and independent between calls.

Mixed precision (ActNN, per sample): with `average_bits` set, each call chooses one width
per row (the tensor's first dimension is the sample) with actq_allocate_bits, from the
row's sensitivity as docs/mixed-precision.md derives it: the variance stochastic rounding
adds to row n is at most sum over its groups of G_g * R_g^2 / (4 (2^b - 1)^2), R_g the
group's range. ActNN multiplies that by the squared norm of the gradient reaching the
sample, known only after backward: a training loop that has it from an earlier visit of
the same samples sets `row_weight` (a tensor of shape (batch,) or (batch, positions)) before
the forward pass; without it the allocation balances ranges only (docs/python.md).
"""
import itertools

import torch

from .. import rules
from ..enums import AllocMethod, DType, Rounding, to_enum
from ..quantized import Quantized
from . import library, ops
from .device import ACTQ_TO_TORCH, TORCH_DTYPES

_seeds = itertools.count(0x5EED)


def row_sensitivity(x2d, group_size):
    """sum_g G_g * R_g^2 / 4 for each row of a rows x cols tensor (float64, CPU)."""
    rows, cols = x2d.shape
    full = cols // group_size * group_size
    s = torch.zeros(rows, dtype=torch.float64, device=x2d.device)
    if full:
        g = x2d[:, :full].reshape(rows, -1, group_size)
        r = (g.amax(dim=2) - g.amin(dim=2)).double()
        s += group_size * (r * r).sum(dim=1) / 4
    if full < cols:
        t = x2d[:, full:]
        r = (t.amax(dim=1) - t.amin(dim=1)).double()
        s += (cols - full) * r * r / 4
    return s.cpu()


class Quantizer:
    def __init__(self, bits=2, group_size=256, *, average_bits=None,
                 allowed_bits=(1, 2, 3, 4, 8), rounding="stochastic", meta_dtype="f32",
                 seed=None, alloc_method="greedy"):
        """bits: the width of every row (ignored with average_bits). average_bits: per-row
        widths among allowed_bits with that average. seed: None takes the next of a
        process-wide sequence, so quantizers created in the same order get the same seeds
        and different quantizers never share a noise stream."""
        if average_bits is None:
            rules.check("bits", bits)
        else:
            rules.check("average_bits", average_bits)
        rules.check("group_size", group_size)
        if seed is not None:
            rules.check("seed", seed)
        to_enum(AllocMethod, alloc_method, "alloc_method")
        self.bits = bits
        self.group_size = group_size
        self.average_bits = average_bits
        self.allowed_mask = rules.allowed_widths(allowed_bits)
        self.rounding = rounding
        self.meta_dtype = meta_dtype
        self.seed = next(_seeds) if seed is None else seed  # also sets _seed64
        self.alloc_method = alloc_method
        # The Philox offset of the next call, a 0-d CPU tensor that compress advances in
        # place: compiled code reads and advances it at run time, not once at tracing.
        self.offset = torch.zeros((), dtype=torch.int64)
        self._rounding = to_enum(Rounding, rounding, "rounding")
        self._meta_dtype = to_enum(DType, meta_dtype, "meta_dtype")
        # The op's spelling of the enums, resolved once: compress is on every saved
        # tensor's path.
        self._op_names = (self._rounding.name.lower(), self._meta_dtype.name.lower())
        self.row_weight = None  # per-sample gradient-norm factors of the coming forward
        # How many elements were stored at each width 0..8; a tensor for the reason of
        # `offset` (an int counter would be a constant of a compiled graph).
        self.stored = torch.zeros(9, dtype=torch.int64)

    @property
    def seed(self):
        return self._seed

    @seed.setter
    def seed(self, value):
        rules.check("seed", value)
        self._seed = value
        self._seed64 = library.signed64(value)  # the op's form, computed once

    @property
    def calls(self):
        """How many calls this quantizer has made: the Philox offset of the next one."""
        return int(self.offset) & 0xFFFFFFFFFFFFFFFF

    @calls.setter
    def calls(self, value):
        self.offset.fill_(ops.library.signed64(value))

    @property
    def elements_per_width(self):
        """[elements stored at width b for b in 0..8], as ints."""
        return self.stored.tolist()

    def _row_weight_for(self, rows):
        """row_weight matched to a tensor of `rows` rows: per position when rows are the
        batch's positions (a (batch*positions) x features view), per sample when rows are
        the batch; None for tensors of another first dimension."""
        w = self.row_weight
        if w is None:
            return None
        w = w.detach().double().cpu()
        if w.numel() == rows:
            return w.reshape(-1)
        if w.shape[0] == rows:
            return w.reshape(rows, -1).sum(dim=1)
        return None

    def row_widths(self, x2d):
        """Per-row widths for a rows x cols tensor, with the configured average."""
        sens = row_sensitivity(x2d, self.group_size)
        w = self._row_weight_for(x2d.shape[0])
        if w is not None:
            sens = sens * w
        bits, _ = ops.allocate_bits(sens, x2d.shape[1], self.average_bits, self.allowed_mask,
                                    self.alloc_method)
        return bits

    def compress(self, x, rows=None):
        """x as a Quantized; the offset advances by one and the elements are counted at
        their width. With one width and the operators: one actq::compress call."""
        if self.average_bits is not None or not library.AVAILABLE:
            return self._compress_calls(x.detach(), rows)
        x = x.detach()
        if rows is None:
            rows = x.shape[0] if x.dim() >= 2 else 1
        bits, group_size = self.bits, self.group_size
        rounding, meta = self._op_names
        try:
            packed, gmin, gscale = torch.ops.actq.compress.default(
                x, self.offset, self.stored, rows, bits, group_size, rounding, self._seed64,
                meta)
        except RuntimeError as e:
            raise library.translated(e) from None
        return Quantized(packed, gmin, gscale, None, rows, x.numel() // rows if rows else 0,
                         group_size, bits, self._meta_dtype, tuple(x.shape),
                         TORCH_DTYPES[x.dtype])

    def _compress_calls(self, x, rows):
        """compress with per-row widths, or without the operators: a quantize call, then
        the offset and the counters advanced here."""
        r, c = ops.rows_cols(tuple(x.shape), rows)
        row_bits = None
        if self.average_bits is not None and r:
            row_bits = self.row_widths(x.reshape(r, c))
        q = ops.quantize(x, self.bits, self.group_size, row_bits=row_bits,
                         rounding=self._rounding, seed=self.seed, offset=self.offset,
                         meta_dtype=self._meta_dtype, rows=r)
        # After the call, which checks the widths: an op reads the offset when it runs, and
        # a call that failed counts nothing.
        if row_bits is None:
            self.stored[self.bits] += r * c
        else:
            for b, n in zip(*torch.unique(row_bits, return_counts=True)):
                self.stored[int(b)] += int(n) * c
        self.offset.add_(1)
        return q

    def decompress(self, q):
        if library.AVAILABLE:  # the operator itself: unpack runs this per saved tensor
            try:
                return torch.ops.actq.dequantize.default(
                    q.packed, q.group_min, q.group_scale, q.row_bits, list(q.shape), q.rows,
                    q.bits, q.group_size, ACTQ_TO_TORCH[q.dtype])
            except RuntimeError as e:
                raise library.translated(e) from None
        return ops.dequantize(q)

    def __repr__(self):
        width = ("average %g bits" % self.average_bits if self.average_bits is not None
                 else "%d bits" % self.bits)
        return "Quantizer(%s, group_size=%d, seed=%d)" % (width, self.group_size, self.seed)
