"""What compressed_saved_tensors(ops=True) changes by the op that saves a tensor (issue 27):
on a transformer, which tensors take 2 bits and which need more is a matter of the op
(docs/python.md, "Two bits on a transformer"), and saved-tensor hooks alone see only
tensors. A TorchFunctionMode around the block tells the hooks which torch function is
running when autograd saves:

- the inputs of a product of two activations (matmul, @, bmm: attention's q k^T and P v)
  and a softmax's output, at `wide` bits (default 4): their noise reaches the input
  gradient of the layers below, and the softmax's backward is quadratic in what it
  keeps. The probabilities P, saved by the softmax and by P @ v, are kept once;
- F.scaled_dot_product_attention (no mask tensor, no dropout) runs
  functional.attention: q, k, v and one copy of P at `wide` bits;
- F.layer_norm over the last dimension runs functional.layer_norm: it keeps the
  normalized input at `wide` bits and 1/std; a Linear that then saves the LayerNorm's
  output rebuilds it from that copy (x_hat * weight + bias) instead of keeping its own;
- the input of a product with a parameter (F.linear, x @ W) is rounded to nearest at the
  block's width: only that layer's weight gradient sees it, where rounding's bias costs
  less than stochastic rounding's variance (measured);
- F.cross_entropy (class indices, no class weights) runs functional.cross_entropy,
  keeping the probabilities at `wide` bits: the loss may sit inside the block.

Everything else is as without: the block's quantizer, stochastic rounding. The copies
share the block's group size, metadata dtype and seed (offset by one and two). Inside code
that torch.compile traces the mode steps aside (Dynamo cannot trace its bookkeeping), so
there every saved tensor takes the block's width."""
import weakref

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from . import functional as AF
from .meter import is_parameter
from .quantizer import Quantizer

COMPRESSIBLE = frozenset((torch.float32, torch.float16, torch.bfloat16))  # the library's
_SOFTMAX = frozenset((F.softmax, torch.softmax, torch.Tensor.softmax))
_PRODUCTS = frozenset((torch.matmul, torch.Tensor.matmul, torch.Tensor.__matmul__,
                       torch.Tensor.__rmatmul__, torch.bmm, torch.Tensor.bmm))
_SDPA = getattr(F, "scaled_dot_product_attention", None)  # PyTorch >= 2.0
_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", lambda: False)


def _cross_entropy_args(input, target, weight=None, size_average=None, ignore_index=-100,
                        reduce=None, reduction="mean", label_smoothing=0.0):
    """F.cross_entropy's arguments where functional.cross_entropy computes the same loss,
    else None."""
    if weight is not None or size_average is not None or reduce is not None or \
            target.dtype.is_floating_point or input.dim() not in (1, 2):
        return None
    return input, target, reduction, ignore_index, label_smoothing


def _sdpa_args(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
               **more):
    if attn_mask is not None or dropout_p or any(more.values()):
        return None
    return query, key, value, is_causal, scale


class Shared:
    """A saved tensor that is another saved tensor's copy: the copy itself (a Quantized), or
    a LayerNorm's normalized input with the weight and bias that make its output."""

    def __init__(self, copy, shape, weight=None, bias=None):
        self.copy, self.shape, self.weight, self.bias = copy, shape, weight, bias

    def value(self, decompress):
        y = decompress(self.copy)
        if self.weight is not None:
            y = y * self.weight
        if self.bias is not None:
            y = y + self.bias
        return y.reshape(self.shape)


class OpRules(TorchFunctionMode):
    """The mode, and what the hooks ask it: which quantizer a tensor being saved takes,
    and whether it is a copy already kept."""

    def __init__(self, quantizer, wide_bits=4, min_numel=1024):
        super().__init__()
        kw = dict(group_size=quantizer.group_size, meta_dtype=quantizer.meta_dtype)
        self.wide = Quantizer(wide_bits, seed=quantizer.seed + 1, **kw)
        self.nearest = Quantizer(quantizer.bits, rounding="nearest", seed=quantizer.seed + 2,
                                 **kw)
        # their elements counted in the block's quantizer (elements_per_width): one tally
        # of what the block stores at each width
        self.wide.stored = self.nearest.stored = quantizer.stored
        self.min_numel = min_numel
        self.kind = None
        # (device, address of the first element) -> (a weak reference to the tensor kept,
        # its size, the Shared to give a tensor on the same bytes); the reference proves
        # the bytes still are that tensor's (an allocator reuses freed tensors' addresses)
        self._kept = {}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if _compiling():
            return func(*args, **kwargs)
        if func is F.layer_norm:
            out = self._layer_norm(*args, **kwargs)
        elif func is F.cross_entropy:
            a = _cross_entropy_args(*args, **kwargs)
            out = None if a is None else AF.cross_entropy(a[0], a[1], self.wide, *a[2:])
        elif _SDPA is not None and func is _SDPA:
            a = _sdpa_args(*args, **kwargs)
            out = None if a is None else AF.attention(
                a[0], a[1], a[2], self.wide, causal=a[3], scale=a[4])
        else:
            out = None
        if out is not None:
            return out
        before, self.kind = self.kind, self._kind(func, args)
        try:
            return func(*args, **kwargs)
        finally:
            self.kind = before

    @staticmethod
    def _kind(func, args):
        if func is F.linear:
            return "linear"
        if func in _SOFTMAX:
            return "wide"
        if func in _PRODUCTS:  # a product with a parameter is a Linear's
            return "linear" if any(isinstance(a, torch.Tensor) and is_parameter(a)
                                   for a in args[:2]) else "wide"
        return None

    def _layer_norm(self, input, normalized_shape, weight=None, bias=None, eps=1e-5):
        shape = tuple(normalized_shape) if not isinstance(normalized_shape, int) \
            else (normalized_shape,)
        if len(shape) != 1 or input.dim() < 1 or shape[0] != input.shape[-1] or \
                input.numel() < self.min_numel or not torch.is_grad_enabled() or \
                input.dtype not in COMPRESSIBLE:
            return None
        y, copy = AF.layer_norm(input, weight, bias, self.wide, eps)
        self._keep(y, Shared(copy, None, weight, bias))
        return y

    def _keep(self, t, shared):
        self._kept[(t.device, t.data_ptr())] = (weakref.ref(t), t.numel(), shared)

    def shared(self, t):
        """The Shared that t's bytes are kept as already, or None."""
        if not self._kept or not t.is_contiguous():
            return None
        got = self._kept.get((t.device, t.data_ptr()))
        if got is None:
            return None
        ref, numel, shared = got
        kept = ref()
        if kept is None or numel != t.numel() or not kept.is_contiguous() or \
                kept.dtype != t.dtype:
            return None
        return Shared(shared.copy, tuple(t.shape), shared.weight, shared.bias)

    def quantizer_for(self, t):
        """The quantizer of a tensor being saved now (None: the block's own), and whether
        its copy is to be kept for other ops that save the same bytes."""
        if self.kind == "wide":
            return self.wide, t.is_contiguous()
        if self.kind == "linear":
            return self.nearest, False
        return None, False

    def keep(self, t, copy):
        self._keep(t, Shared(copy, None))
