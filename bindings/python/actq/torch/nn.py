"""Drop-in modules over the functions of actq.torch.functional (ActNN's layers).

They compress only in training mode with gradients enabled; in eval they are the plain
PyTorch ops. Linear and Conv2d share a Quantizer when given one (one noise stream, one
mixed-precision setting for the model); each gets its own otherwise.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from ..enums import Activation as _A
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


class FewbitActivation(nn.Module):
    """A pointwise activation whose backward keeps a `bits`-bit code per element."""

    def __init__(self, activation, bits=2, param=0.0):
        super().__init__()
        self.activation, self.bits, self.param = activation, bits, param
        self.table = AF.cached_table(activation, bits, param)
        self.spec = AF.library.table_spec(self.table)  # what the autograd function takes

    def forward(self, x):
        if _active(self):
            return AF.FewbitActivation.apply(x, self.spec)
        return _PLAIN[self.table.activation](x, self.param)

    def extra_repr(self):
        return "%s, bits=%d" % (self.table.activation.name.lower(), self.bits)


class ReLU(FewbitActivation):
    def __init__(self):
        super().__init__("relu", 1)


class GELU(FewbitActivation):
    def __init__(self, bits=2):
        super().__init__("gelu", bits)


class SiLU(FewbitActivation):
    def __init__(self, bits=2):
        super().__init__("silu", bits)


class Tanh(FewbitActivation):
    def __init__(self, bits=2):
        super().__init__("tanh", bits)


class Sigmoid(FewbitActivation):
    def __init__(self, bits=2):
        super().__init__("sigmoid", bits)



# Eval-mode forward of each built-in activation with PyTorch's own op.
_PLAIN = {
    _A.GELU: lambda x, p: F.gelu(x),
    _A.GELU_TANH: lambda x, p: F.gelu(x, approximate="tanh"),
    _A.SILU: lambda x, p: F.silu(x),
    _A.SIGMOID: lambda x, p: x.sigmoid(),
    _A.TANH: lambda x, p: x.tanh(),
    _A.SOFTPLUS: lambda x, p: F.softplus(x, beta=p),
    _A.ELU: lambda x, p: F.elu(x, alpha=p),
    _A.SELU: lambda x, p: F.selu(x),
    _A.CELU: lambda x, p: F.celu(x, alpha=p),
    _A.MISH: lambda x, p: F.mish(x),
    _A.HARDSWISH: lambda x, p: F.hardswish(x),
    _A.HARDSIGMOID: lambda x, p: F.hardsigmoid(x),
    _A.HARDTANH: lambda x, p: F.hardtanh(x),
    _A.SOFTSIGN: lambda x, p: F.softsign(x),
    _A.LOGSIGMOID: lambda x, p: F.logsigmoid(x),
    _A.TANHSHRINK: lambda x, p: F.tanhshrink(x),
    _A.RELU: lambda x, p: F.relu(x),
    _A.RELU6: lambda x, p: F.relu6(x),
    _A.LEAKY_RELU: lambda x, p: F.leaky_relu(x, p),
}
