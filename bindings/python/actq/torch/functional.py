"""Autograd functions in ActNN's style: each saves exactly what its backward needs, packed.

- linear, conv2d: the input, quantized by a Quantizer (the weight is the model's own);
- fewbit_activation: one few-bit code per element (Few-Bit Backward); with the exact 1-bit
  ReLU table that is ReLU's 1-bit mask, and GELU/SiLU/... get an optimal 2..8-bit table;
- attention: q, k, v and one copy of the probabilities, each quantized;
- layer_norm_linear: one copy of a LayerNorm's normalized input and its 1/std, serving
  both the LayerNorm's backward and the Linear's after it;
- cross_entropy: the softmax probabilities, quantized by a Quantizer: the loss's backward
  is linear in them, so unbiased codes give an unbiased gradient (PyTorch's keeps the
  float log-softmax, which its backward passes through exp()).
What they save goes through save_for_backward as uint8 tensors (metadata viewed as bytes),
so saved-tensor hooks see them: a SavedTensorMeter counts them and
compressed_saved_tensors leaves them alone.
"""
import torch
import torch.nn.functional as F
from torch.nn.grad import conv2d_input
from torch.nn.modules.utils import _pair

from .. import rules
from ..enums import Activation as _A, DType as _DType
from ..fewbit import FewbitTable, cached_table
from ..quantized import Quantized
from . import library, ops
from .device import ACTQ_TO_TORCH

# Marks a function whose result torch.compile may take as a constant (PyTorch >= 2.1).
_assume_constant_result = getattr(getattr(torch, "compiler", None), "assume_constant_result",
                                  lambda fn: fn)


def _save_quantized(ctx, q, *others):
    """Saves q's buffers (q: a Quantized or a list of them) as uint8 tensors, their shape
    fields on ctx."""
    qs = q if isinstance(q, list) else [q]
    tensors, fields = [], []
    for one in qs:
        tensors += [one.packed, one.group_min.view(torch.uint8),
                    one.group_scale.view(torch.uint8)]
        if one.row_bits is not None:
            tensors.append(one.row_bits)
        fields.append((one.rows, one.cols, one.group_size, one.bits, one.meta_dtype, one.shape,
                       one.dtype, one.row_bits is not None))
    ctx.q_fields = (isinstance(q, list), fields)
    ctx.save_for_backward(*tensors, *others)


def _load_quantized(ctx):
    """(the Quantized or the list of them, the other saved tensors)."""
    is_list, fields = ctx.q_fields
    saved = ctx.saved_tensors
    qs, n = [], 0
    for rows, cols, group_size, bits, meta_dtype, shape, dtype, has_rb in fields:
        packed, gmin, gscale = saved[n:n + 3]
        mt = ACTQ_TO_TORCH[meta_dtype]
        qs.append(Quantized(packed, gmin.view(mt), gscale.view(mt),
                            saved[n + 3] if has_rb else None, rows, cols, group_size, bits,
                            meta_dtype, shape, dtype))
        n += 4 if has_rb else 3
    return (qs if is_list else qs[0]), saved[n:]


# The functions take the input already compressed (q, by the caller): the quantizer's
# noise counter then advances outside autograd.Function, where torch.compile allows the
# side effect, and the forward saves tensors only.

class CompressedLinear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, q):
        ctx.has_bias = bias is not None
        _save_quantized(ctx, q, weight)
        return F.linear(x, weight, bias)

    @staticmethod
    def backward(ctx, gy):
        q, (weight,) = _load_quantized(ctx)
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            gx = gy.matmul(weight)
        g2 = gy.reshape(-1, gy.shape[-1])
        if ctx.needs_input_grad[1]:
            x = ops.dequantize(q)
            gw = g2.t().mm(x.reshape(-1, x.shape[-1]))
        if ctx.has_bias and ctx.needs_input_grad[2]:
            gb = g2.sum(0)
        return gx, gw, gb, None


class CompressedConv2d(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, stride, padding, dilation, groups, q):
        ctx.conf = (stride, padding, dilation, groups)
        ctx.has_bias = bias is not None
        _save_quantized(ctx, q, weight)
        return F.conv2d(x, weight, bias, stride, padding, dilation, groups)

    @staticmethod
    def backward(ctx, gy):
        q, (weight,) = _load_quantized(ctx)
        stride, padding, dilation, groups = ctx.conf
        gx = gw = gb = None
        if ctx.needs_input_grad[1]:
            # Both gradients from one call on the dequantized input: torch.nn.grad's
            # helpers would run the backward twice and, for the input's, copy a full
            # input-sized dummy (an expanded tensor made contiguous), at the step's peak.
            x = ops.dequantize(q)
            gx, gw, _ = torch.ops.aten.convolution_backward(
                gy, x, weight, None, _pair(stride), _pair(padding), _pair(dilation), False,
                [0, 0], groups, (ctx.needs_input_grad[0], True, False))
        elif ctx.needs_input_grad[0]:
            gx = conv2d_input(q.shape, weight, gy, stride, padding, dilation, groups)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            gb = gy.sum((0, 2, 3))
        return gx, gw, gb, None, None, None, None, None


# PyTorch's own forward of each built-in activation: what the layers return in eval mode,
# and in training mode on the "torch" route.
TORCH_FORWARD = {
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

# How a training-mode forward gets y = f(x), per device type (docs/fewbit.md, "Layers"):
#   "torch": PyTorch's own activation for y, fewbit_encode for the codes alone;
#   "fused": fewbit_encode writes codes and y in one pass (actq's f, src/arith/act.h).
# Either way the codes are those of the same x. On the CPU (Zen 3, AVX2, measured) the
# layer's forward takes 1.27-2.15x PyTorch's on the torch route and 1.67-2.73x on the
# fused one, so one pass over memory does not pay for actq's f, except where below
# (FUSED_CPU). Custom tables have no PyTorch forward, and an older PyTorch lacks some
# dtypes on some devices: fused there.
ROUTES = {"cpu": "torch", "cuda": "torch"}

# The CPU's exceptions, by the kernel table the library runs (cpu_isa()) and dtype: the
# activations whose fused layer forward was measured faster than the torch route (PyTorch
# 2.15, 1 thread, 2^16-2^22 elements; docs/fewbit.md). Tanh on AVX2 and AVX-512: 0.2-1.0x
# nn.Tanh (PyTorch's CPU tanh is slow), against 1.04-1.30x on the torch route; SiLU and
# Sigmoid with the 16-lane activations of AVX-512: 1.10-1.59x against 1.27-1.88x (AVX2:
# 2.6-3.8x against 1.1-1.7x; Zen 4). GELU float32 on AVX-512, with its central pieces
# without the exponential: 0.86-1.45x against 1.16-1.55x (Zen 5); in bfloat16 the fused
# GELU took 1.68-2.00x against 1.21-1.42x, and on AVX2 3.1-3.5x against 1.2-1.6x. GELU_TANH
# (its pieces likewise) against PyTorch's slow tanh-approximated GELU: 0.30-0.36x on
# AVX-512 and 0.80-0.95x on AVX2, against 1.05-1.14x on the torch route. GELU bfloat16 with
# AVX512_BF16's rounding of y (the avx512bf16 table): 1.02-1.19x fused against 1.15-1.42x on
# the torch route (Zen 4, two runs; 1.06-1.30x fused with the integer rounding).
# bfloat16 and float16 on AVX-512, where the library looks y up in its table of all 65536
# inputs (cpu/y_lut.h): every built-in activation. Measured on the Xeon of docs/fewbit.md
# (1 thread, 2^16-2^22): GELU, SiLU, Sigmoid, Tanh and GELU_TANH forwards 0.11-0.84x of
# nn.*'s fused, against 1.05-1.48x on the torch route; the other fourteen at 2^16-2^20
# 0.05-2.18x fused (ReLU-like ones, which PyTorch does in a compare, the slowest), against
# 1.03-2.63x on the torch route; forward + backward likewise but for one row of ReLU f16
# (1.28x against 1.22x). On AVX2, whose gathers of the table cost more, the smooth ones:
# GELU, SiLU, Sigmoid, Tanh, GELU_TANH, ELU and Mish forwards 0.11-1.22x fused against
# 1.07-1.65x (the same Xeon on the AVX2 table, 2^16 and 2^20), but ReLU 1.67-3.00x
# against 1.47-2.74x and hardswish a tie: the piecewise-linear ones stay on the torch
# route there.
_FUSED_CPU_BOTH = frozenset({_A.SILU, _A.SIGMOID, _A.TANH, _A.GELU_TANH})
_FUSED_CPU_AVX2 = frozenset({_A.TANH, _A.GELU_TANH})
_FUSED_CPU_Y_LUT = frozenset(a for a in _A if a != _A.CUSTOM)
_FUSED_CPU_Y_LUT_AVX2 = _FUSED_CPU_Y_LUT - {_A.RELU, _A.RELU6, _A.LEAKY_RELU, _A.HARDTANH,
                                            _A.HARDSWISH, _A.HARDSIGMOID}
FUSED_CPU = {("avx512", torch.float32): _FUSED_CPU_BOTH | {_A.GELU},
             ("avx512", torch.bfloat16): _FUSED_CPU_Y_LUT,
             ("avx512", torch.float16): _FUSED_CPU_Y_LUT,
             ("avx512bf16", torch.float32): _FUSED_CPU_BOTH | {_A.GELU},
             ("avx512bf16", torch.bfloat16): _FUSED_CPU_Y_LUT,
             ("avx512bf16", torch.float16): _FUSED_CPU_Y_LUT,
             ("avx2", torch.float32): _FUSED_CPU_AVX2,
             ("avx2", torch.bfloat16): _FUSED_CPU_Y_LUT_AVX2,
             ("avx2", torch.float16): _FUSED_CPU_Y_LUT_AVX2}

# Where the fused route is the default instead: (device type, dtype) -> the activations
# whose fused kernel is predicted faster than PyTorch's activation plus the codes pass.
# CUDA float32: the kernels of their own (cuda/fewbit_ops.cuh, with_y_act) model at 91-95%
# of the memory time of their 8.25 bytes an element (sm_90, scripts/cuda-model), against
# the 12.25 bytes of the torch route's two passes; in bfloat16 the same instructions come
# to 202-237% of 4.25 bytes, more than the torch route's 6.25. Measured, the model is
# wrong for bfloat16 GELU and SiLU: on the H200 (scripts/device-check, 2026-12-04, runs 5
# and 7; bench/torch_overhead.py --device cuda) their fused layers' forward + backward was
# 5-17% faster than the torch route's at 2^20 and 2^24 elements, and the forward faster
# or within 0.3 us (run 4 had GELU's forward at 2^24 the other way, 1.75x against 2.06x
# of nn.GELU); the torch route's second launch and pass cost more than the kernel's
# extra instructions. The other bf16 activations were not measured and stay on the torch
# route, with float16.
FUSED = {("cuda", torch.float32): frozenset({_A.GELU, _A.GELU_TANH, _A.SILU, _A.SIGMOID,
                                              _A.TANH}),
         ("cuda", torch.bfloat16): frozenset({_A.GELU, _A.SILU})}


_cpu_isa = []


@_assume_constant_result
def cpu_isa():
    """The kernel table the library's CPU backend runs in this process ("avx512bf16",
    "avx512", "avx2", "scalar"; the first word after "cpu" of a CPU context's description),
    or None without the library. Read once."""
    if not _cpu_isa:
        try:
            from ..context import Backend, default_context
            words = default_context(Backend.CPU).describe().split()
            _cpu_isa.append(words[1].rstrip(",") if len(words) > 1 and words[0] == "cpu" else None)
        except (OSError, RuntimeError, ValueError, ImportError):  # no libactq here
            _cpu_isa.append(None)
    return _cpu_isa[0]


def default_route(device_type, dtype, activation):
    """The route a layer takes without route=: FUSED (CUDA) or FUSED_CPU (the CPU's kernel
    table), else ROUTES by device type."""
    if activation in FUSED.get((device_type, dtype), ()):
        return "fused"
    if device_type == "cpu" and activation in FUSED_CPU.get((cpu_isa(), dtype), ()):
        return "fused"
    return ROUTES.get(device_type, "fused")


def _device_type(x):
    """x.device.type without building a torch.device (a third of a microsecond a call, a
    few % of a layer's forward at 2^16 elements)"""
    return "cpu" if x.is_cpu else "cuda" if x.is_cuda else x.device.type


def check_route(route):
    if route not in (None, "torch", "fused"):
        rules.refuse("route", route, "one of torch, fused, or None (ROUTES by device)")


class FewbitActivation(torch.autograd.Function):
    """The few-bit layers' autograd in Python: what compiled code traces, and what runs on
    CUDA and wherever the C++ operator of fewbit_apply is not loaded. spec: the table's
    fields (library.table_spec), plain values torch.compile keeps as constants of the
    graph; route: "torch", "fused", or None (default_route).

    Its forward and backward call the operators themselves, not ops.fewbit_encode and
    ops.fewbit_backward: grad mode is off here, so their detach checks have nothing to do,
    and at 2^16 elements those two Python layers cost 3-4% of the layer's forward +
    backward (docs/fewbit.md, "The layers' autograd in C++")."""

    @staticmethod
    def forward(ctx, x, spec, route=None):
        act = spec[1]
        plain = TORCH_FORWARD.get(act)
        y = None
        if plain is not None and (route or default_route(_device_type(x), x.dtype, act)) == "torch":
            try:
                y = plain(x, spec[2])
            except RuntimeError:  # no such kernel for this dtype and device (float16 GELU
                pass              # on the CPU of PyTorch 1.13): the fused route then
        if not library.AVAILABLE:
            codes, y2 = ops.fewbit_encode(spec, x, with_y=y is None)
        else:
            try:
                codes, y2 = torch.ops.actq.fewbit_encode.default(x, *spec, y is None)
            except RuntimeError as e:
                raise library.translated(e) from None
        ctx.spec = spec
        ctx.save_for_backward(codes)
        return y2 if y is None else y

    @staticmethod
    def backward(ctx, gy):
        (codes,) = ctx.saved_tensors
        if not library.AVAILABLE:
            return ops.fewbit_backward(ctx.spec, codes, gy), None, None
        try:
            return torch.ops.actq.fewbit_backward.default(codes, gy, *ctx.spec), None, None
        except RuntimeError as e:
            raise library.translated(e) from None


# torch.compiler.is_compiling: True while dynamo traces (PyTorch >= 2.3), where the layers
# take the autograd.Function, which it traces, and not the C++ operator, which has no fake.
_is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", lambda: False)
# The tensors the C++ operator takes: plain ones. Subclasses (FakeTensor under a
# FakeTensorMode, other tracing tensors) have no data to read, and take the function.
_PLAIN = (torch.Tensor, torch.nn.Parameter)


def fewbit_apply(x, spec, route=None):
    """f(x) saving a code per element: the few-bit layers' one entry. Eager calls on plain
    CPU tensors take the C++ operator with its autograd node (torch.ops.actq.fewbit_activation,
    where library.AUTOGRAD_PATH loaded it), which leaves out the Python of an
    autograd.Function and of two operator calls; everything else, FewbitActivation. Both
    give the same bytes."""
    if library.AUTOGRAD_PATH and type(x) in _PLAIN and x.is_cpu and not _is_compiling():
        act = spec[1]
        fused = act not in TORCH_FORWARD or \
            (route or default_route("cpu", x.dtype, act)) == "fused"
        try:
            return torch.ops.actq.fewbit_activation.default(x, *spec, fused)
        except RuntimeError as e:
            raise library.translated(e) from None
    return FewbitActivation.apply(x, spec, route)


def linear(x, weight, bias, quantizer):
    return CompressedLinear.apply(x, weight, bias, quantizer.compress(x))


class CompressedCrossEntropy(torch.autograd.Function):
    """F.cross_entropy of logits [N, C] and class indices target [N] whose backward takes
    the probabilities P from their quantization q: d loss / d logits = (P - T) * w, with
    T = (1 - eps) onehot(target) + eps / C and w the reduction's row weights (0 for rows
    whose target is ignore_index)."""

    @staticmethod
    def forward(ctx, logits, logp, target, q, reduction, ignore_index, label_smoothing):
        ctx.conf = (reduction, ignore_index, label_smoothing, logits.dtype)
        _save_quantized(ctx, q, target)
        # logp is a log-softmax, so its own cross-entropy (log_softmax(logp) = logp) is the
        # loss of the logits, label smoothing included
        loss = F.cross_entropy(logp, target, reduction=reduction, ignore_index=ignore_index,
                               label_smoothing=label_smoothing)
        return loss.to(logits.dtype)

    @staticmethod
    def backward(ctx, g):
        q, (target,) = _load_quantized(ctx)
        reduction, ignore_index, eps, dtype = ctx.conf
        d = ops.dequantize(q).float()  # P, becoming P - T in place
        valid = target != ignore_index
        idx = torch.where(valid, target, 0).unsqueeze(1)
        d.scatter_add_(1, idx, torch.full(idx.shape, eps - 1.0, dtype=d.dtype, device=d.device))
        if eps:
            d -= eps / d.shape[1]
        w = valid.to(d.dtype)
        if reduction == "mean":
            w = w / valid.sum().clamp(min=1)
        w = w * (g.float() if reduction == "none" else g.float().reshape(()))
        return (d * w.unsqueeze(1)).to(dtype), None, None, None, None, None, None


class CompressedAttention(torch.autograd.Function):
    """softmax(q k^T * scale (+ causal mask)) v, keeping q, k, v and one copy of the
    probabilities P, each quantized: where autograd keeps P twice (the softmax's output
    and the input of P @ v), as the float tensors the hooks then quantize apart."""

    @staticmethod
    def forward(ctx, q, k, v, p, cq, ck, cv, cp, scale):
        ctx.scale = scale
        _save_quantized(ctx, [cq, ck, cv, cp])
        return p @ v

    @staticmethod
    def backward(ctx, gz):
        (cq, ck, cv, cp), _ = _load_quantized(ctx)
        q, k, v, p = (ops.dequantize(c) for c in (cq, ck, cv, cp))
        gz = gz.to(p.dtype)
        gv = p.transpose(-2, -1) @ gz
        gp = gz @ v.transpose(-2, -1)
        gs = p * (gp - (gp * p).sum(-1, keepdim=True)) * ctx.scale
        return gs @ k, gs.transpose(-2, -1) @ q, gv, None, None, None, None, None, None


def attention(q, k, v, quantizer, qk_quantizer=None, causal=False, scale=None):
    """scaled_dot_product_attention(q, k, v) ([..., t, d], [..., s, d], [..., s, dv]; causal:
    the upper triangle masked) whose backward keeps q and k (by qk_quantizer, default
    quantizer), v and one copy of the probabilities P (by quantizer). Unbiased in q, k
    and v; the softmax's backward P (g - sum(g P)) is quadratic in P, whose one copy it
    uses twice (issue 27: two independent copies measured worse). The probabilities of a
    causal mask's upper triangle are exact zeros, and stay so."""
    if q.dim() < 2 or k.shape[-1] != q.shape[-1] or v.shape[-2] != k.shape[-2] or \
            q.shape[:-2] != k.shape[:-2] or k.shape[:-2] != v.shape[:-2]:
        raise ValueError("attention takes q [..., t, d], k [..., s, d], v [..., s, dv], got "
                         "%s, %s, %s" % (tuple(q.shape), tuple(k.shape), tuple(v.shape)))
    scale = q.shape[-1] ** -0.5 if scale is None else float(scale)
    qk = qk_quantizer or quantizer
    with torch.no_grad():
        s = (q @ k.transpose(-2, -1)) * scale
        if causal:
            t, n = s.shape[-2:]
            s = s.masked_fill(torch.ones(t, n, dtype=torch.bool, device=s.device).triu(n - t + 1),
                              float("-inf"))
        p = s.softmax(-1)
    return CompressedAttention.apply(q, k, v, p, qk.compress(q), qk.compress(k),
                                     quantizer.compress(v), quantizer.compress(p), scale)


def _layer_norm(x, ln_weight, ln_bias, eps, quantizer, rows):
    """One LayerNorm pass over x's last dimension: (its output, PyTorch's to the bit; the
    normalized input (x - mean) / std compressed by quantizer in `rows` rows, default one a
    position; each position's 1/std in the quantizer's metadata dtype)."""
    d = x.shape[-1]
    with torch.no_grad():
        y, mean, rstd = torch.native_layer_norm(x, (d,), ln_weight, ln_bias, eps)
        # in x's dtype: CUDA gives a 16-bit x's mean and 1/std in float32 (the CPU in x's
        # dtype), and backward multiplies the dequantized copy with x's weights
        xh = ((x - mean) * rstd).to(x.dtype)
    positions = xh.numel() // d if d else 0
    c = quantizer.compress(xh, positions if rows is None else rows)
    meta = torch.bfloat16 if quantizer._meta_dtype == _DType.BF16 else torch.float32
    return y, c, rstd.reshape(-1).to(meta).contiguous()


def _save_layer_norm(ctx, cxh, rstd, *others):
    """Saves the normalized input's copy and 1/std (as bytes: the saved-tensor hooks leave
    uint8 alone, where they would quantize a float tensor of 1024 or more positions)."""
    ctx.rstd_dtype = rstd.dtype
    _save_quantized(ctx, cxh, rstd.view(torch.uint8), *others)


def _layer_norm_grads(ctx, gh, xh2, rstd, ln_weight, has_bias):
    """The LayerNorm's (input, weight, bias) gradients, by ctx.needs_input_grad[:3], from
    d loss / d (its output) gh and the normalized input xh2 ([positions, d] both) and the
    saved 1/std bytes."""
    need = ctx.needs_input_grad
    glw = (gh * xh2).sum(0) if ln_weight is not None and need[1] else None
    glb = gh.sum(0) if has_bias and need[2] else None
    gx = None
    if need[0]:
        r = rstd.view(ctx.rstd_dtype).reshape(-1, 1).to(gh.dtype)
        gxh = gh * ln_weight if ln_weight is not None else gh
        gx = r * (gxh - gxh.mean(-1, keepdim=True) - xh2 * (gxh * xh2).mean(-1, keepdim=True))
    return gx, glw, glb


def _check_layer_norm(name, x, ln_weight, ln_bias):
    d = x.shape[-1] if x.dim() else 0
    if x.dim() == 0 or ln_weight is not None and ln_weight.shape != (d,) or \
            ln_bias is not None and ln_bias.shape != (d,):
        raise ValueError("%s takes x [..., d] and LayerNorm weight and bias [d], got %s, %s, "
                         "%s" % (name, tuple(x.shape), *(None if t is None else tuple(t.shape)
                                                        for t in (ln_weight, ln_bias))))


class CompressedLayerNorm(torch.autograd.Function):
    """layer_norm(x) over the last dimension (y, computed by the caller) keeping the
    quantized normalized input cxh and each position's 1/std."""

    @staticmethod
    def forward(ctx, x, ln_weight, ln_bias, y, cxh, rstd):
        ctx.has_bias = ln_bias is not None
        _save_layer_norm(ctx, cxh, rstd, ln_weight)
        return y

    @staticmethod
    def backward(ctx, gy):
        cxh, (rstd, ln_weight) = _load_quantized(ctx)
        xh = ops.dequantize(cxh)
        d = xh.shape[-1]
        gx, glw, glb = _layer_norm_grads(ctx, gy.to(xh.dtype).reshape(-1, d),
                                         xh.reshape(-1, d), rstd, ln_weight, ctx.has_bias)
        return None if gx is None else gx.reshape(xh.shape), glw, glb, None, None, None


def layer_norm(x, ln_weight, ln_bias, quantizer, eps=1e-5, rows=None):
    """F.layer_norm(x, (d,), ln_weight, ln_bias, eps) over the last dimension d, whose
    backward keeps the normalized input (x - mean) / std quantized by `quantizer` and each
    position's 1/std (in the quantizer's metadata dtype), where PyTorch's keeps x, the
    mean and 1/std. Returns (y, the quantized normalized input): compressed_saved_tensors
    (ops=True) lets a Linear that saves y use that copy instead of one of its own."""
    _check_layer_norm("layer_norm", x, ln_weight, ln_bias)
    y, c, rstd = _layer_norm(x, ln_weight, ln_bias, eps, quantizer, rows)
    return CompressedLayerNorm.apply(x, ln_weight, ln_bias, y, c, rstd), c


class CompressedLayerNormLinear(torch.autograd.Function):
    """linear(layer_norm(x)) keeping one quantized copy of the normalized input
    xh = (x - mean) * rstd and the per-position rstd: the LayerNorm's backward needs xh and
    rstd, the Linear's its input xh * gamma + beta, which backward rebuilds from the same
    xh. Autograd would keep x (the LayerNorm's input) and the LayerNorm's output apart."""

    @staticmethod
    def forward(ctx, x, ln_weight, ln_bias, weight, bias, h, cxh, rstd):
        ctx.has_bias = (ln_bias is not None, bias is not None)
        _save_layer_norm(ctx, cxh, rstd, ln_weight, ln_bias, weight)
        return F.linear(h, weight, bias)

    @staticmethod
    def backward(ctx, gy):
        cxh, (rstd, ln_weight, ln_bias, weight) = _load_quantized(ctx)
        xh = ops.dequantize(cxh)
        d = xh.shape[-1]
        xh2 = xh.reshape(-1, d)
        g2 = gy.to(xh.dtype).reshape(-1, gy.shape[-1])
        gw = gb = gx = glw = glb = None
        if ctx.needs_input_grad[3]:
            h2 = xh2 * ln_weight if ln_weight is not None else xh2
            gw = g2.t().mm(h2 + ln_bias if ln_bias is not None else h2)
        if ctx.has_bias[1] and ctx.needs_input_grad[4]:
            gb = g2.sum(0)
        if any(ctx.needs_input_grad[:3]):  # g2 @ weight: d loss / d (the LayerNorm's output)
            gx, glw, glb = _layer_norm_grads(ctx, g2.mm(weight), xh2, rstd, ln_weight,
                                             ctx.has_bias[0])
        return None if gx is None else gx.reshape(xh.shape), glw, glb, gw, gb, None, None, None


def layer_norm_linear(x, ln_weight, ln_bias, weight, bias, quantizer, eps=1e-5,
                      rows=None):
    """F.linear(F.layer_norm(x, (d,), ln_weight, ln_bias, eps), weight, bias) over the last
    dimension d, whose backward keeps one copy of the normalized input (x - mean) / std,
    quantized by `quantizer`, and each position's 1 / std (in the quantizer's metadata
    dtype), where autograd keeps the LayerNorm's input and its output, the Linear's input,
    apart. The Linear's weight gradient is linear in the copy, so unbiased where the
    rounding is; the LayerNorm's input gradient is quadratic in it (as the LayerNorm's own
    backward is in the input it keeps). rows: the quantizer's rows of the [positions, d]
    copy (a group never spans one; default one a position; the copy's rows all have mean
    0 and variance 1, so rows=1, groups across positions, costs little range)."""
    _check_layer_norm("layer_norm_linear", x, ln_weight, ln_bias)
    if weight.dim() != 2 or weight.shape[1] != x.shape[-1] or \
            bias is not None and bias.shape != weight.shape[:1]:
        raise ValueError("layer_norm_linear takes x [..., d], Linear weight [out, d] and bias "
                         "[out], got %s, %s, %s" % (tuple(x.shape), tuple(weight.shape),
                                                     None if bias is None else tuple(bias.shape)))
    h, c, rstd = _layer_norm(x, ln_weight, ln_bias, eps, quantizer, rows)
    return CompressedLayerNormLinear.apply(x, ln_weight, ln_bias, weight, bias, h, c, rstd)


def cross_entropy(logits, target, quantizer, reduction="mean", ignore_index=-100,
                  label_smoothing=0.0):
    """F.cross_entropy(logits, target) (logits [N, C] or [C], target class indices, no
    class weights) that keeps for backward the probabilities softmax(logits), compressed
    by `quantizer`, and the targets; unbiased when the quantizer's rounding is.

    The point is the loss head: PyTorch keeps its float log-softmax (N x C floats, often
    the largest single tensor of a language model's step) and a quantized log-softmax
    biases the gradient through exp(); the probabilities at a few bits do not."""
    if reduction not in ("mean", "sum", "none"):
        rules.refuse("reduction", reduction, "'mean', 'sum' or 'none'")
    if not 0.0 <= float(label_smoothing) <= 1.0:
        rules.refuse("label_smoothing", label_smoothing, "in [0, 1]")
    if target.dtype.is_floating_point:
        raise TypeError("target must hold class indices, not probabilities")
    if logits.dim() == 1:
        out = cross_entropy(logits.unsqueeze(0), target.reshape(1), quantizer, reduction,
                            ignore_index, label_smoothing)
        return out.reshape(()) if reduction == "none" else out
    if logits.dim() != 2 or target.dim() != 1 or target.shape[0] != logits.shape[0]:
        raise ValueError("cross_entropy takes logits [N, C] and class indices [N], got %s and "
                         "%s" % (tuple(logits.shape), tuple(target.shape)))
    logp = torch.log_softmax(logits.detach().float(), dim=1)
    q = quantizer.compress(logp.exp())
    return CompressedCrossEntropy.apply(logits, logp, target, q, reduction, ignore_index,
                                        float(label_smoothing))


def conv2d(x, weight, bias, quantizer, stride=1, padding=0, dilation=1, groups=1):
    return CompressedConv2d.apply(x, weight, bias, stride, padding, dilation, groups,
                                  quantizer.compress(x))


_specs = {}


@_assume_constant_result
def table_spec(activation, bits=2, param=0.0):
    """The fields of a table (library.table_spec): of a FewbitTable, or of the cached table
    of a name or Activation; read once per table in eager code (a plain dict: Dynamo cannot
    call through functools.lru_cache), and torch.compile calls it at tracing time only."""
    key = (activation, bits, param)
    spec = _specs.get(key)
    if spec is None:
        table = activation if isinstance(activation, FewbitTable) else \
            cached_table(activation, bits, param)
        spec = _specs[key] = library.table_spec(table)
    return spec


def fewbit_activation(x, activation, bits=2, param=0.0, route=None):
    """f(x) saving a `bits`-bit code per element; activation: a name ("gelu"), an
    Activation, or a FewbitTable; route: how y is computed (ROUTES)."""
    check_route(route)
    return fewbit_apply(x, table_spec(activation, bits, param), route)


def relu(x):
    """ReLU saving a 1-bit mask (the exact 1-bit table: levels 0 and 1, border 0)."""
    return fewbit_apply(x, table_spec("relu", 1))
