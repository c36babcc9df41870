"""GACT's generic approach: compress every floating tensor autograd saves, for any model.

    with actq.torch.compressed_saved_tensors(bits=2):
        logits = model(x)
    loss_fn(logits, y).backward()

The loss head stays outside: a cross-entropy saves its log-softmax, which backward passes
through exp(), so quantization noise on it is no longer unbiased (at 2 bits it made a
small GPT diverge; docs/python.md).

Inside the block, each saved floating tensor (float32/float16/bfloat16, at least
`min_numel` elements, not an nn.Parameter) is quantized when autograd saves it and
dequantized when backward needs it; the original is then free to be released. Others
(integer indices, small statistics, parameters the model holds anyway, codes saved by
actq's own functions) are kept as they are. backward() may run outside the block.
"""
import contextlib

import torch

from ..quantized import Quantized
from .meter import is_parameter
from .quantizer import Quantizer

COMPRESSIBLE = (torch.float32, torch.float16, torch.bfloat16)


def _compressible(t, min_numel):
    return t.dtype in COMPRESSIBLE and t.numel() >= min_numel and not is_parameter(t)


@contextlib.contextmanager
def compressed_saved_tensors(bits=2, group_size=256, *, average_bits=None,
                             allowed_bits=(1, 2, 3, 4, 8), rounding="stochastic",
                             meta_dtype="f32", seed=None, min_numel=1024, quantizer=None,
                             meter=None):
    """Yields the Quantizer in use. average_bits: per-sample mixed widths (first dimension
    of each saved tensor) among allowed_bits. meter: a SavedTensorMeter to count into.
    quantizer: one to use instead, e.g. an AutoPrecision (per-tensor widths, GACT)."""
    q = quantizer or Quantizer(bits, group_size, average_bits=average_bits,
                               allowed_bits=allowed_bits, rounding=rounding,
                               meta_dtype=meta_dtype, seed=seed)

    def pack(t):
        if not _compressible(t, min_numel):
            if meter is not None:
                meter.add_plain(t)
            return t
        c = q.compress(t)
        if meter is not None:
            # An AutoPrecision measuring sensitivities keeps some tensors as they are.
            if isinstance(c, Quantized):
                meter.add_compressed(c, t)
            else:
                meter.add_plain(t)
        return c

    def unpack(saved):
        if isinstance(saved, Quantized):
            return q.decompress(saved)
        return saved

    begin = getattr(q, "begin_forward", None)
    if begin is not None:
        begin()  # an AutoPrecision identifies saved tensors by their order from here
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        yield q
