"""Drop-in modules over the functions of actq.torch.functional (ActNN's layers).

They compress only in training mode with gradients enabled; in eval they are the plain
PyTorch ops. Linear and Conv2d share a Quantizer when given one (one noise stream, one
mixed-precision setting for the model); each gets its own otherwise.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from . import functional as AF
from .quantizer import Quantizer


def _active(module):
    return module.training and torch.is_grad_enabled()


class Linear(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, quantizer=None, **kw):
        super().__init__(in_features, out_features, bias, **kw)
        self.quantizer = quantizer or Quantizer()

    def forward(self, x):
        if _active(self):
            return AF.linear(x, self.weight, self.bias, self.quantizer)
        return F.linear(x, self.weight, self.bias)


class Conv2d(nn.Conv2d):
    def __init__(self, *args, quantizer=None, **kw):
        super().__init__(*args, **kw)
        if self.padding_mode != "zeros" or isinstance(self.padding, str):
            raise ValueError("actq Conv2d supports zero padding given as numbers")
        self.quantizer = quantizer or Quantizer()

    def forward(self, x):
        if _active(self):
            return AF.conv2d(x, self.weight, self.bias, self.quantizer, self.stride,
                             self.padding, self.dilation, self.groups)
        return super().forward(x)


class LayerNormLinear(nn.Module):
    """nn.Linear(in_features, out_features)(nn.LayerNorm(in_features)(x)) as one layer whose
    backward keeps one quantized copy of the normalized input and each position's 1/std
    (functional.layer_norm_linear), where PyTorch's two layers keep the LayerNorm's input
    and the Linear's input apart. The parameters are `norm`'s and `linear`'s, named as
    those modules'. The copy at 4 bits by default: at 2 it cost a transformer 0.05 nats
    more (docs/python.md). rows: the copy's quantizer rows (default one a position)."""

    def __init__(self, in_features, out_features, bias=True, eps=1e-5,
                 elementwise_affine=True, quantizer=None, rows=None, **kw):
        super().__init__()
        self.norm = nn.LayerNorm(in_features, eps, elementwise_affine, **kw)
        self.linear = nn.Linear(in_features, out_features, bias, **kw)
        self.quantizer = quantizer or Quantizer(4)
        self.rows = rows

    def forward(self, x):
        if _active(self):
            return AF.layer_norm_linear(x, self.norm.weight, self.norm.bias,
                                        self.linear.weight, self.linear.bias, self.quantizer,
                                        self.norm.eps, self.rows)
        return self.linear(self.norm(x))


class CrossEntropyLoss(nn.Module):
    """nn.CrossEntropyLoss (class indices, no class weights) whose backward keeps the
    softmax probabilities at `bits` (functional.cross_entropy): the loss head can then sit
    inside the compressed part of a model without the bias a quantized log-softmax gives.
    Compresses whenever gradients are enabled (a loss module has no training mode of its
    own to follow)."""

    def __init__(self, bits=4, quantizer=None, reduction="mean", ignore_index=-100,
                 label_smoothing=0.0):
        super().__init__()
        self.quantizer = quantizer or Quantizer(bits)
        self.reduction, self.ignore_index = reduction, ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, logits, target):
        if torch.is_grad_enabled() and logits.requires_grad:
            return AF.cross_entropy(logits, target, self.quantizer, self.reduction,
                                    self.ignore_index, self.label_smoothing)
        return F.cross_entropy(logits, target, reduction=self.reduction,
                               ignore_index=self.ignore_index,
                               label_smoothing=self.label_smoothing)


class FewbitActivation(nn.Module):
    """A pointwise activation whose backward keeps a `bits`-bit code per element."""

    def __init__(self, activation, bits=2, param=0.0, route=None):
        """route: how training-mode forwards compute y: "torch" (PyTorch's activation,
        fewbit_encode for the codes alone), "fused" (fewbit_encode writes both), or None:
        functional.default_route by device, dtype and activation."""
        super().__init__()
        AF.check_route(route)
        self.activation, self.bits, self.param, self.route = activation, bits, param, route
        self.table = AF.cached_table(activation, bits, param)
        self.spec = AF.library.table_spec(self.table)  # what the autograd function takes

    def forward(self, x):
        if _active(self):
            return AF.fewbit_apply(x, self.spec, self.route)
        return AF.TORCH_FORWARD[self.table.activation](x, self.param)

    def extra_repr(self):
        return "%s, bits=%d" % (self.table.activation.name.lower(), self.bits)


class ReLU(FewbitActivation):
    def __init__(self):
        super().__init__("relu", 1)


class GELU(FewbitActivation):
    def __init__(self, bits=2, route=None):
        super().__init__("gelu", bits, route=route)


class SiLU(FewbitActivation):
    def __init__(self, bits=2, route=None):
        super().__init__("silu", bits, route=route)


class Tanh(FewbitActivation):
    def __init__(self, bits=2, route=None):
        super().__init__("tanh", bits, route=route)


class Sigmoid(FewbitActivation):
    def __init__(self, bits=2, route=None):
        super().__init__("sigmoid", bits, route=route)


