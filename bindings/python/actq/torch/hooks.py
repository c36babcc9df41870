"""GACT's generic approach: compress every floating tensor autograd saves, for any model.

    with actq.torch.compressed_saved_tensors(bits=2):
        logits = model(x)
    loss_fn(logits, y).backward()

Inside the block, each saved floating tensor (float32/float16/bfloat16, at least
`min_numel` elements, not an nn.Parameter) is quantized when autograd saves it and
dequantized when backward needs it; the original is then free to be released. Others
(integer indices, small statistics, parameters the model holds anyway, codes saved by
actq's own functions) are kept as they are. backward() may run outside the block.

By default (ops=True, one width below 4 bits) the width and rounding follow the op that
saves a tensor (op_rules.py): what a transformer needs to hold at 2 bits (issue 27,
docs/python.md). A cross-entropy inside the block then keeps its probabilities at 4 bits
(functional.cross_entropy); with ops=False it keeps its log-softmax, which backward passes
through exp(), so quantization noise on it is no longer unbiased (at 2 bits it made a
small GPT diverge): keep the loss outside the block then.
"""
import contextlib

import torch

from .. import rules
from ..quantized import Quantized
from .meter import is_parameter
from .op_rules import COMPRESSIBLE, OpRules, Shared
from .quantizer import Quantizer

WIDE_BITS = 4  # op_rules.py: what attention, softmax and LayerNorm keep


class SavedTensorHooks:
    """The pack and unpack hooks of compressed_saved_tensors: one operator call each per
    compressed tensor (Quantizer.compress, Quantizer.decompress), little Python around."""

    def __init__(self, quantizer, min_numel=1024, meter=None, rules=None):
        self.quantizer, self.min_numel, self.meter = quantizer, min_numel, meter
        self._compress, self._decompress = quantizer.compress, quantizer.decompress
        self.rules = rules  # an OpRules, or None: every tensor by `quantizer`

    def pack(self, t):
        if t.dtype not in COMPRESSIBLE or t.numel() < self.min_numel or is_parameter(t):
            if self.meter is not None:
                self.meter.add_plain(t)
            return t
        compress, keep = self._compress, False
        if self.rules is not None:
            shared = self.rules.shared(t)
            if shared is not None:
                return shared  # held (and counted) where its copy was made
            q, keep = self.rules.quantizer_for(t)
            if q is not None:
                compress = q.compress
        c = compress(t)
        if keep:
            self.rules.keep(t, c)
        if self.meter is not None:
            # An AutoPrecision measuring sensitivities keeps some tensors as they are.
            if isinstance(c, Quantized):
                self.meter.add_compressed(c, t)
            else:
                self.meter.add_plain(t)
        return c

    def unpack(self, saved):
        if isinstance(saved, Quantized):
            return self._decompress(saved)
        return saved.value(self._decompress) if isinstance(saved, Shared) else saved


@contextlib.contextmanager
def compressed_saved_tensors(bits=2, group_size=256, *, average_bits=None,
                             allowed_bits=(1, 2, 3, 4, 8), rounding="stochastic",
                             meta_dtype="bf16", seed=None, min_numel=1024, quantizer=None,
                             meter=None, ops=True):
    """Yields the Quantizer in use. average_bits: per-sample mixed widths (first dimension
    of each saved tensor) among allowed_bits. meter: a SavedTensorMeter to count into.
    quantizer: one to use instead, e.g. an AutoPrecision (per-tensor widths, GACT).
    ops: with one width below 4 bits (a Quantizer, not a subclass, without average_bits),
    the widths and roundings of op_rules.py by the op that saves each tensor (attention's
    products, softmax and LayerNorm at 4 bits, one copy each; Linear inputs rounded to
    nearest; a cross-entropy inside the block keeps 4-bit probabilities); False: every
    tensor alike. meta_dtype: the groups' minimum and scale, bf16 by default (half the
    metadata of f32, at no loss measured: docs/python.md, issue 27)."""
    if not isinstance(min_numel, int) or min_numel < 0:
        rules.refuse("min_numel", min_numel, "an integer >= 0")
    if quantizer is not None and not isinstance(quantizer, Quantizer):
        raise TypeError("quantizer must be a Quantizer (or an AutoPrecision), got %s"
                        % type(quantizer).__name__)
    q = quantizer or Quantizer(bits, group_size, average_bits=average_bits,
                               allowed_bits=allowed_bits, rounding=rounding,
                               meta_dtype=meta_dtype, seed=seed)
    by_op = OpRules(q, WIDE_BITS, min_numel) if ops and type(q) is Quantizer and \
        q.average_bits is None and q.bits < WIDE_BITS else None
    hooks = SavedTensorHooks(q, min_numel, meter, by_op)
    begin = getattr(q, "begin_forward", None)
    if begin is not None:
        begin()  # an AutoPrecision identifies saved tensors by their order from here
    with torch.autograd.graph.saved_tensors_hooks(hooks.pack, hooks.unpack), \
            (by_op if by_op is not None else contextlib.nullcontext()):
        yield q
