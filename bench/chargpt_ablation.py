#!/usr/bin/env python3
"""chargpt_ablation.py - issue 27's ablation rows on the character GPT: train_chargpt.py's
loop and model with extra 2-bit settings, each one change from the plain 2-bit setting:
  "2-bit rows1"          groups across rows: each saved tensor quantized as one row, so a
                         [batch x positions, 64] input gets groups of 256, not 64
                         (Quantizer.compress(x, rows=1); fine for one uniform width)
  "2-bit bf16meta"       group minimum and scale stored as bf16 (meta_dtype="bf16")
  (these rows, and every row below built on the hooks' 2-bit quantizer, keep the hooks'
  behaviour of before ops=True: TensorsOnly; "2-bit" itself is the library's default)
  "2-bit tensors only"   the hooks with every saved tensor alike (ops=False)
  "2-bit ops bf16meta"   the hooks' default (op_rules.py) with bf16 metadata; "3-bit ops
                         bf16meta" the same at 3 bits
  "2-bit rows1 bf16meta" both
  "2-bit hadamard"       each group rotated by a randomized Hadamard matrix before
                         quantizing and back after (a PyTorch prototype, class Hadamard)
  "2-bit hadamard nonzero" the same, except for tensors holding exact zeros
  "2-bit softmax2"       attention's softmax saves two independent 2-bit draws of its
                         output P and its backward takes P1 * (g - sum(g * P2)): unbiased,
                         where one draw used twice gives P * (g - sum(g * P)) a bias of
                         -Var(P) g on the diagonal term (class SavedSoftmax)
  "2-bit softmax exact"  the softmax's backward on the exact P; P @ V's P and V 2-bit
  "2-bit av exact"       P @ V saves P and V exact; the softmax's P 2-bit (the hooks)
  "2-bit scores"         the softmax keeps its 2-bit scores (before the causal mask) and
                         recomputes P from them for its backward (class ScoresSoftmax)
  "2-bit all attention exact"  both of the above exact ("--softmax-fp32" of train_chargpt)
  "2-bit attention 4-bit"      attention's saves (softmax P, P @ V's P and V) at 4 bits
  "2-bit attention 8-bit"      the same at 8 bits
  "2-bit layernorm exact"      every LayerNorm saves its input exact (inner identity hook)
  "2-bit layernorm and attention exact"  both
  "2-bit linear exact"         every block's Linear keeps its input exact (the 2-bit
                               setting's gap that the linear inputs hold, at most)
  "2-bit linear nearest"       the Linear inputs rounded to nearest (biased, half the
                               squared error of stochastic rounding)
  "2-bit linear channels"      the Linear inputs quantized per feature: [N, d] as d rows
                               of N positions, so each group of 256 holds one feature's
                               values at 256 positions, not one position's 64 features
  "2-bit head exact"           the final LayerNorm and the head Linear keep their inputs
                               exact (the loss head's own log-softmax is fp32 in every
                               setting)
  "2-bit attention 4-bit linear nearest"  both of those rows' changes
  "2-bit nearest"              every saved tensor rounded to nearest (biased)
  "2-bit attention op 4-bit"   each block's attention through the library's
                               functional.attention: q, k at 2 bits, v and one copy of P at 4
  "2-bit attention op 4-bit linear nearest"  that and the Linear inputs rounded to nearest
  "2-bit attention op 4-bit linear nearest bf16meta"  the same with bf16 group metadata
  "2-bit attention op 4-bit head 4-bit"  attention op 4-bit, the head Linear's input at 4
                               bits (also with bf16meta, and with linear nearest bf16meta)
  "... linear nearest bf16meta ln stats"  and every LayerNorm's per-position mean and
                               1/std kept (1024 elements each: the hooks' min_numel quantizes
                               them at 2 bits otherwise); "ln 4-bit": those kept and the
                               LayerNorm inputs at 4 bits; "qk 4-bit": q and k at 4 bits
  "2-bit attention 4-bit nearest"  attention's saves at 4 bits, everything rounded to nearest
Results go to --out/chargpt.json as train_chargpt.py writes them; pair them by seed with
an fp32 run of the same invocation (--settings fp32,2-bit,...).

  cd bindings/python/examples && ACTQ_LIBRARY=../../../build-test/libactq.so.0 \\
    PYTHONPATH=..:. python ../../../bench/chargpt_ablation.py \\
    --settings "fp32,2-bit,2-bit rows1,2-bit bf16meta" --seeds 3 --out OUT
"""
import contextlib
import math
import types

import torch

import common
import actq.torch as at


class AcrossRows(at.Quantizer):
    """A Quantizer whose saved tensors are quantized as one row each."""

    def compress(self, x, rows=None):
        return super().compress(x, rows=1)


class TensorsOnly(at.Quantizer):
    """A Quantizer that compressed_saved_tensors does not give op_rules.py's widths (it
    engages them for a Quantizer, not a subclass): every saved tensor alike, the hooks'
    behaviour before ops=True."""


class Hadamard(at.Quantizer):
    """A prototype of the issue's rotation, in PyTorch around the library's calls: each
    group (the row's blocks of group_size, or the whole row where it is shorter and a power
    of two) multiplied by a randomized Hadamard matrix H D / sqrt(L) (D: random signs fixed
    by the seed) before quantizing, and by its transpose after dequantizing. Orthogonal,
    so the dequantized tensor stays unbiased; a group's outliers spread over its elements.
    Tensors whose rows fit neither are quantized as they are."""

    def __init__(self, *a, keep_zeros=False, **kw):
        super().__init__(*a, **kw)
        self._mats = {}
        self.keep_zeros = keep_zeros  # tensors holding exact zeros (masked attention
        # probabilities, ReLU outputs) stay unrotated: plain codes keep their zeros exact

    def _mat(self, n, device, dtype):
        key = (n, device, dtype)
        m = self._mats.get(key)
        if m is None:
            h = torch.ones(1, 1, dtype=torch.float64)
            while h.shape[0] < n:
                h = torch.cat([torch.cat([h, h], 1), torch.cat([h, -h], 1)], 0)
            g = torch.Generator().manual_seed(int(self.seed) & 0x7FFFFFFF)
            d = torch.randint(0, 2, (n,), generator=g).double() * 2 - 1
            m = self._mats[key] = (h * d[None, :] / math.sqrt(n)).to(device, dtype)
        return m

    def _block(self, x):
        rows = x.shape[0] if x.dim() >= 2 else 1
        cols = x.numel() // rows if rows else 0
        n = self.group_size if cols % self.group_size == 0 else cols
        return (n if n >= 8 and n & (n - 1) == 0 and cols % n == 0 else 0), rows

    def compress(self, x, rows=None):
        n, r = self._block(x)
        if not n or (self.keep_zeros and bool((x == 0).any())):
            return super().compress(x, rows)
        m = self._mat(n, x.device, x.dtype)
        xr = (x.detach().reshape(-1, n) @ m.T).reshape(x.shape)  # rows of H D: x -> H D x
        q = super().compress(xr, r)
        q.rotation = n
        return q

    def decompress(self, q):
        y = super().decompress(q)
        n = getattr(q, "rotation", 0)
        if not n:
            return y
        m = self._mat(n, y.device, y.dtype)
        return (y.reshape(-1, n) @ m).reshape(y.shape)  # (H D)^T y


class LinearInputs(at.Quantizer):
    """The 2-bit Quantizer of the outer hooks, except for what the blocks' Linear layers
    save (their input; the weight is a parameter the hooks keep): "exact" keeps it,
    "nearest" rounds it to nearest, "channels" quantizes it per feature (the [N, d] input
    as d rows of N, transposed back when backward needs it); mode None leaves them as
    the rest. head_bits: the head Linear's input at that width (rounded as the mode says).
    The meter counts all of it as the outer hooks see it."""

    def __init__(self, mode, model, *a, head_bits=None, ln=None, **kw):
        super().__init__(*a, **kw)
        self.mode, self.inside = mode, None
        # ln: every LayerNorm's saves; "stats": its mean and 1/std (numel / d elements)
        # kept, its input as the rest; an int: those kept and the input at that width
        self.ln = ln
        if ln:
            self.ln_q = at.Quantizer(ln, *a[1:], **kw) if isinstance(ln, int) else None
            for m in model.modules():
                if isinstance(m, torch.nn.LayerNorm):
                    m.forward = self._marked(m.forward, "ln")
        self.nearest = at.Quantizer(*a, rounding="nearest", **kw) if mode == "nearest" else None
        if mode:
            for block in model.blocks:
                for m in block.modules():
                    if isinstance(m, torch.nn.Linear):
                        m.forward = self._marked(m.forward, "block")
        if head_bits:
            kw = dict(kw, rounding="nearest") if mode == "nearest" else kw
            self.head = at.Quantizer(head_bits, *a[1:], **kw)
            model.head.forward = self._marked(model.head.forward, "head")

    def _marked(self, forward, where):
        def marked(*args, **kw):
            self.inside = where
            try:
                return forward(*args, **kw)
            finally:
                self.inside = None
        return marked

    def compress(self, x, rows=None):
        if self.inside is None:
            return super().compress(x, rows)
        if self.inside == "head":
            return self.head.compress(x, rows)
        if self.inside == "ln":
            if x.dim() and x.shape[-1] == 1:
                return x  # the per-position statistics
            return (self.ln_q or super()).compress(x, rows)
        if self.mode == "exact":
            return x
        if self.mode == "nearest":
            return self.nearest.compress(x, rows)
        d = x.shape[-1]
        q = super().compress(x.detach().reshape(-1, d).t().contiguous(), d)
        q.channels = tuple(x.shape)
        return q

    def decompress(self, q):
        y = super().decompress(q)  # the rounding does not change how codes decode
        shape = getattr(q, "channels", None)
        return y if shape is None else y.t().contiguous().reshape(shape)


class SavedSoftmax(torch.autograd.Function):
    """softmax(-1) whose backward P1 * (g - sum(g * P2, -1)) takes P1 and P2 from what it
    keeps on ctx, past the saved-tensor hooks (the meter does not count it; the rows' bits
    all-in are corrected by hand in docs/python.md): with a quantizer, two independent
    quantizations of P (two compress calls: the offset advances), an unbiased estimate of
    the exact P * (g - sum(g * P)); without, P itself (the exact backward)."""

    @staticmethod
    def forward(ctx, s, q, draws):
        p = s.softmax(-1)
        ctx.q = q
        if q is None:
            ctx.c = (p, p)
        else:
            c = q.compress(p)
            ctx.c = (c, q.compress(p) if draws == 2 else c)
        return p

    @staticmethod
    def backward(ctx, g):
        p1, p2 = ((ctx.q.decompress(c) for c in ctx.c) if ctx.q is not None else ctx.c)
        return p1 * (g - (g * p2).sum(-1, keepdim=True)), None, None


class ScoresSoftmax(torch.autograd.Function):
    """softmax(-1) of the scores with the causal mask applied inside, that keeps the
    2-bit scores (finite: before the mask) instead of the probabilities and recomputes
    P~ = softmax(masked scores~) for its backward P~ * (g - sum(g * P~)): the noise lands
    in logit space, a relative error of each probability, instead of an absolute one that
    small probabilities cannot carry."""

    @staticmethod
    def forward(ctx, s, mask, q):
        ctx.q, ctx.mask, ctx.c = q, mask, q.compress(s)
        return s.masked_fill(mask, float("-inf")).softmax(-1)

    @staticmethod
    def backward(ctx, g):
        p = ctx.q.decompress(ctx.c).masked_fill(ctx.mask, float("-inf")).softmax(-1)
        return p * (g - (g * p).sum(-1, keepdim=True)), None, None


def attention_variant(q, softmax, av=None):
    """train_chargpt.Block.attention (the same lines; a prototype here, not a library
    call) with softmax: "two draws" or "one draw" (SavedSoftmax keeping quantizations of P
    by q), "exact" (SavedSoftmax keeping P), "scores" (ScoresSoftmax with q) or "hooks"
    (the plain softmax, its P compressed by the outer hooks); av, what P @ V saves P and V
    with: None (the outer hooks), "exact" (an inner identity hook) or a Quantizer (inner
    hooks of its own)."""
    if av == "exact":
        av_hooks = lambda: torch.autograd.graph.saved_tensors_hooks(lambda z: z, lambda z: z)
    elif av is not None:
        av_hooks = lambda: at.compressed_saved_tensors(quantizer=av)
    else:
        av_hooks = contextlib.nullcontext

    def attention(self, x):
        b, t, d = x.shape
        qq, k, v = self.qkv(x).split(d, dim=2)
        qq, k, v = (z.reshape(b, t, self.heads, -1).transpose(1, 2) for z in (qq, k, v))
        att = qq @ k.transpose(-2, -1) / math.sqrt(qq.shape[-1])
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        if softmax == "scores":
            att = ScoresSoftmax.apply(att, mask, q)
        elif softmax == "hooks":
            att = att.masked_fill(mask, float("-inf")).softmax(-1)
        else:
            att = SavedSoftmax.apply(att.masked_fill(mask, float("-inf")),
                                     None if softmax == "exact" else q,
                                     1 if softmax == "one draw" else 2)
        with av_hooks():
            z = att @ v
        return self.proj(z.transpose(1, 2).reshape(b, t, d))

    return attention


def attention_setting(softmax, av=None, bits=None, rounding="stochastic"):
    """The 2-bit quantizer, with each block's attention as attention_variant says; bits:
    attention's own quantizer of that width for the softmax and P @ V; rounding: both
    quantizers'."""
    def make(seed, model):
        q = TensorsOnly(2, seed=seed, rounding=rounding)
        qa = at.Quantizer(bits, seed=seed + 1, rounding=rounding) if bits else q
        for block in model.blocks:
            block.attention = types.MethodType(
                attention_variant(qa, softmax, qa if bits else av), block)
        return q
    return make


def exact_module(module):
    """module's forward saves what it saves uncompressed (an inner identity hook)."""
    forward = module.forward

    def exact_forward(*args, **kw):
        with torch.autograd.graph.saved_tensors_hooks(lambda z: z, lambda z: z):
            return forward(*args, **kw)

    module.forward = exact_forward


def layernorm_setting(attention_exact):
    def make(seed, model):
        q = TensorsOnly(2, seed=seed)
        for m in model.modules():
            if isinstance(m, torch.nn.LayerNorm):
                exact_module(m)
        if attention_exact:
            for block in model.blocks:
                block.attention = types.MethodType(attention_variant(q, "exact", "exact"), block)
        return q
    return make


def attention_op(qpv, qqk):
    """Block.attention through actq.torch.functional.attention (the library's op)."""
    def attention(self, x):
        b, t, d = x.shape
        qq, k, v = self.qkv(x).split(d, dim=2)
        qq, k, v = (z.reshape(b, t, self.heads, -1).transpose(1, 2) for z in (qq, k, v))
        z = at.functional.attention(qq, k, v, qpv, qk_quantizer=qqk, causal=True)
        return self.proj(z.transpose(1, 2).reshape(b, t, d))
    return attention


def ln_linear(ln, linear, x, q, rows):
    """linear(ln(x)) through actq.torch.functional.layer_norm_linear."""
    return at.functional.layer_norm_linear(x, ln.weight, ln.bias, linear.weight, linear.bias,
                                           q, ln.eps, rows)


def ln_linear_model(model, q, rows):
    """Every LayerNorm and the Linear it feeds (ln1 and qkv, ln2 and fc, the final ln and
    the head) as one layer_norm_linear keeping one copy of the normalized input by q."""
    def block_forward(self, x):
        b, t, d = x.shape
        qq, k, v = ln_linear(self.ln1, self.qkv, x, q, rows).split(d, dim=2)
        qq, k, v = (z.reshape(b, t, self.heads, -1).transpose(1, 2) for z in (qq, k, v))
        z = at.functional.attention(qq, k, v, self.qpv, qk_quantizer=self.qqk, causal=True)
        x = x + self.proj(z.transpose(1, 2).reshape(b, t, d))
        return x + self.out(self.gelu(ln_linear(self.ln2, self.fc, x, q, rows)))

    def model_forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        return ln_linear(self.ln, self.head, self.blocks(x), q, rows)

    for block in model.blocks:
        block.forward = types.MethodType(block_forward, block)
    model.forward = types.MethodType(model_forward, model)


def attention_op_setting(linear=None, meta_dtype="f32", head_bits=None, ln=None, qk_bits=2,
                         ln_linear_bits=None, ln_linear_rows=None):
    def make(seed, model):
        kw = dict(seed=seed, meta_dtype=meta_dtype)
        q = LinearInputs(linear, model, 2, head_bits=head_bits, ln=ln, **kw) \
            if linear or head_bits or ln else TensorsOnly(2, **kw)
        qpv = at.Quantizer(4, seed=seed + 1, meta_dtype=meta_dtype)
        qqk = q if qk_bits == 2 else qpv
        for block in model.blocks:
            block.attention = types.MethodType(attention_op(qpv, qqk), block)
            block.qpv, block.qqk = qpv, qqk
        if ln_linear_bits:
            ln_linear_model(model, at.Quantizer(ln_linear_bits, **dict(kw, seed=seed + 2)),
                            ln_linear_rows)
        return q
    return make


def head_exact(model, q):
    exact_module(model.ln)
    exact_module(model.head)
    return q


MODEL_VARIANTS = {
    "2-bit softmax2": attention_setting("two draws"),
    "2-bit softmax exact": attention_setting("exact"),
    "2-bit av exact": attention_setting("hooks", "exact"),
    "2-bit scores": attention_setting("scores"),
    "2-bit all attention exact": attention_setting("exact", "exact"),
    "2-bit attention 4-bit": attention_setting("one draw", bits=4),
    "2-bit attention 8-bit": attention_setting("one draw", bits=8),
    "2-bit layernorm exact": layernorm_setting(False),
    "2-bit layernorm and attention exact": layernorm_setting(True),
    "2-bit linear exact": lambda seed, model: LinearInputs("exact", model, 2, seed=seed),
    "2-bit linear nearest": lambda seed, model: LinearInputs("nearest", model, 2, seed=seed),
    "2-bit linear channels": lambda seed, model: LinearInputs("channels", model, 2, seed=seed),
    "2-bit head exact": lambda seed, model: head_exact(model, TensorsOnly(2, seed=seed)),
    "2-bit attention 4-bit linear nearest": lambda seed, model: attention_setting(
        "one draw", bits=4)(seed, model) and LinearInputs("nearest", model, 2, seed=seed),
    "2-bit attention 4-bit nearest": attention_setting("one draw", bits=4, rounding="nearest"),
    "2-bit attention op 4-bit": attention_op_setting(),
    "2-bit attention op 4-bit linear nearest": attention_op_setting("nearest"),
    "2-bit attention op 4-bit linear nearest bf16meta": attention_op_setting("nearest", "bf16"),
    "2-bit attention op 4-bit head 4-bit": attention_op_setting(head_bits=4),
    "2-bit attention op 4-bit head 4-bit bf16meta": attention_op_setting(None, "bf16", 4),
    "2-bit attention op 4-bit linear nearest head 4-bit bf16meta":
        attention_op_setting("nearest", "bf16", 4),
    "2-bit attention op 4-bit linear nearest bf16meta ln stats":
        attention_op_setting("nearest", "bf16", ln="stats"),
    "2-bit attention op 4-bit linear nearest bf16meta ln 4-bit":
        attention_op_setting("nearest", "bf16", ln=4),
    "2-bit attention op 4-bit linear nearest bf16meta qk 4-bit":
        attention_op_setting("nearest", "bf16", qk_bits=4),
    "2-bit attention op 4-bit linear nearest bf16meta ln 4-bit qk 4-bit":
        attention_op_setting("nearest", "bf16", ln=4, qk_bits=4),
    "2-bit attention op 4-bit linear nearest bf16meta qk 4-bit ln stats":
        attention_op_setting("nearest", "bf16", ln="stats", qk_bits=4),
    "2-bit attention op 4-bit linear nearest bf16meta qk 4-bit head 4-bit":
        attention_op_setting("nearest", "bf16", head_bits=4, qk_bits=4),
    "2-bit attention op 4-bit linear nearest bf16meta qk 4-bit ln stats head 4-bit":
        attention_op_setting("nearest", "bf16", head_bits=4, ln="stats", qk_bits=4),
}
# "... qk 4-bit lnlinear B-bit": each LayerNorm and the Linear it feeds through
# functional.layer_norm_linear, one B-bit copy of the normalized input where the hooks kept
# the LayerNorm's input and the Linear's (rounded to nearest) apart; "rows1": its groups
# across positions
# (also without "linear nearest": the other Linear inputs stochastic; without "qk 4-bit":
# q and k at 2 bits)
for _b in (2, 3, 4):
    for _rows, _tail in ((None, ""), (1, " rows1")):
        for _linear, _qk in (("nearest", 4), (None, 4), ("nearest", 2), (None, 2)):
            MODEL_VARIANTS["2-bit attention op 4-bit%s bf16meta%s lnlinear %d-bit%s" % (
                " linear nearest" if _linear else "", " qk 4-bit" if _qk == 4 else "", _b,
                _tail)] = attention_op_setting(_linear, "bf16", qk_bits=_qk,
                                               ln_linear_bits=_b, ln_linear_rows=_rows)

VARIANTS = {
    "2-bit hadamard": lambda seed: Hadamard(2, seed=seed),
    "2-bit hadamard nonzero": lambda seed: Hadamard(2, seed=seed, keep_zeros=True),
    "2-bit rows1": lambda seed: AcrossRows(2, seed=seed),
    "2-bit bf16meta": lambda seed: TensorsOnly(2, seed=seed, meta_dtype="bf16"),
    "2-bit nearest": lambda seed: TensorsOnly(2, seed=seed, rounding="nearest"),
    "2-bit tensors only": lambda seed: TensorsOnly(2, seed=seed),
    "2-bit ops bf16meta": lambda seed: at.Quantizer(2, seed=seed, meta_dtype="bf16"),
    "3-bit ops bf16meta": lambda seed: at.Quantizer(3, seed=seed, meta_dtype="bf16"),
    "2-bit rows1 bf16meta": lambda seed: AcrossRows(2, seed=seed, meta_dtype="bf16"),
}
for _name in list(VARIANTS) + list(MODEL_VARIANTS):
    common.SETTINGS[_name] = {"bits": 2}
_plain = common.quantizer_for


def quantizer_for(setting, seed, model=None, refresh_every=100, probes=2):
    if setting in VARIANTS:
        return VARIANTS[setting](seed)
    if setting in MODEL_VARIANTS:
        return MODEL_VARIANTS[setting](seed, model)
    return _plain(setting, seed, model, refresh_every, probes)


common.quantizer_for = quantizer_for

if __name__ == "__main__":
    import train_chargpt
    train_chargpt.main()
