"""compressed_saved_tensors(ops=True), the default: widths by the op that saves a tensor
(actq/torch/op_rules.py). Attention's products and softmax at 4 bits with the
probabilities held once, a LayerNorm's normalized input at 4 bits shared with the Linear it
feeds, Linear inputs rounded to nearest, the cross-entropy's probabilities at 4 bits; and
none of it with ops=False, another width, per-row widths or a Quantizer subclass."""
import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import actq.torch as at
from actq.torch.op_rules import OpRules
from conftest import recording_meter


class Attention(nn.Module):
    def __init__(self, d=32, heads=2):
        super().__init__()
        self.heads = heads
        self.ln = nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln(x)).split(d, dim=2)
        q, k, v = (z.reshape(b, t, self.heads, -1).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)).softmax(-1)  # no scale: a scalar divisor is
        # saved as a float64 tensor by some PyTorch releases
        return self.proj((att @ v).transpose(1, 2).reshape(b, t, d))


def batch(seed=0, shape=(4, 32, 32)):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).requires_grad_()


def test_the_widths_by_op_and_the_probabilities_once():
    torch.manual_seed(0)
    m, x = Attention(), batch()
    rec = recording_meter()
    with at.compressed_saved_tensors(bits=2, seed=1, meter=rec, min_numel=1) as q:
        m(x)
    b, t, h, dh = 4, 32, 2, 16
    # q and k (q k^T's inputs), P (once: softmax and P @ v share it), v at 4 bits; the
    # projection's input at 2; the qkv Linear's input is the LayerNorm's copy (not here)
    fours = sorted(math.prod(s) for bits, s in rec.widths if bits == 4)
    assert fours == [b * h * t * dh] * 3 + [b * h * t * t]
    assert [(bits, s) for bits, s in rec.widths if bits == 2] == [(2, (b * t, h * dh))]
    # the block's quantizer counts every width stored (the LayerNorm's copy at 4 bits)
    assert q.elements_per_width[2] == b * t * h * dh
    assert q.elements_per_width[4] == sum(fours) + b * t * 32
    # and the LayerNorm keeps its copy as bytes: 4-bit codes, bf16 metadata (the hooks'
    # default) and 1/std
    assert rec.plain_bytes == b * t * 32 * 4 // 8 + b * t * (2 * 2) + b * t * 2


def test_without_ops_every_tensor_alike():
    torch.manual_seed(0)
    m, x = Attention(), batch()
    for kw in (dict(ops=False), dict(bits=4), dict(average_bits=2.0),
               dict(quantizer=type("Sub", (at.Quantizer,), {})(2))):
        rec = recording_meter()
        with at.compressed_saved_tensors(meter=rec, min_numel=1, **kw):
            m(x)
        bits = {w for w, _ in rec.widths}
        assert len(bits) == 1 and len(rec.widths) >= 6, kw  # P twice, the LayerNorm's input


def test_linear_inputs_are_rounded_to_nearest():
    torch.manual_seed(0)
    lin, x = nn.Linear(32, 8), batch()
    grads = []
    for seed in (1, 2):
        lin.zero_grad()
        with at.compressed_saved_tensors(bits=2, seed=seed):
            y = lin(x)
        y.sum().backward()
        grads.append(lin.weight.grad.clone())
    assert torch.equal(grads[0], grads[1])  # no noise
    ref = torch.autograd.grad(F.linear(x, lin.weight, lin.bias).sum(), lin.weight)[0]
    assert not torch.equal(grads[0], ref)  # but 2-bit


def test_the_layernorm_copy_serves_the_linear_unbiased():
    torch.manual_seed(0)
    ln, lin = nn.LayerNorm(24), nn.Linear(24, 5)
    with torch.no_grad():
        ln.weight.uniform_(0.5, 1.5)
        ln.bias.uniform_(-0.5, 0.5)
    x = batch(shape=(3, 40, 24))
    g = torch.randn(3, 40, 5, generator=torch.Generator().manual_seed(3))
    ref = torch.autograd.grad(lin(ln(x)), (lin.weight, ln.bias, x), g)
    draws = []
    for seed in range(200):
        rec = recording_meter()
        with at.compressed_saved_tensors(bits=2, seed=seed, meter=rec):
            y = lin(ln(x))
        gw, glb, gx = torch.autograd.grad(y, (lin.weight, ln.bias, x), g)
        assert rec.widths == []  # the Linear's input is the LayerNorm's copy
        assert torch.allclose(glb, ref[1], atol=1e-5)
        assert (gx - ref[2]).norm() < 0.2 * ref[2].norm()
        draws.append(gw)
    s = torch.stack(draws)
    mean, sem = s.mean(0), s.std(0) / len(draws) ** 0.5
    assert ((mean - ref[0]).abs() <= 5 * sem + 1e-5).float().mean() > 0.99
    assert (s.std(0) > 0).float().mean() > 0.9


def test_cross_entropy_inside_keeps_probabilities():
    logits = batch(shape=(64, 40)).reshape(64, 40)
    target = torch.randint(0, 40, (64,), generator=torch.Generator().manual_seed(1))
    rec = recording_meter()
    with at.compressed_saved_tensors(bits=2, meter=rec):
        loss = F.cross_entropy(logits, target)
    assert torch.allclose(loss, F.cross_entropy(logits, target))
    assert rec.widths == [] and rec.plain_bytes > 0  # 4-bit P as bytes, no log-softmax
    g = torch.autograd.grad(loss, logits)[0]
    ref = torch.autograd.grad(F.cross_entropy(logits, target), logits)[0]
    assert (g - ref).norm() < 0.3 * ref.norm()
    with at.compressed_saved_tensors(bits=2, meter=rec):  # class weights: PyTorch's own
        F.cross_entropy(logits, target, weight=torch.ones(40))
    assert rec.widths


@pytest.mark.skipif(not hasattr(F, "scaled_dot_product_attention"), reason="torch < 2")
def test_scaled_dot_product_attention_runs_the_op():
    q, k, v = (batch(i, (2, 2, 64, 16)) for i in range(3))
    rec = recording_meter()
    with at.compressed_saved_tensors(bits=2, meter=rec):
        z = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert torch.allclose(z, F.scaled_dot_product_attention(q, k, v, is_causal=True),
                          atol=1e-5)
    groups = lambda n: 2 * -(-n // 2 // 256)  # rows: the leading dimension (2)
    assert rec.widths == [] and rec.plain_bytes == (3 * 4096 + 16384) // 2 + \
        4 * (3 * groups(4096) + groups(16384))  # bf16 metadata
    torch.autograd.grad(z.sum(), (q, k, v))


def test_a_copy_is_shared_only_while_its_tensor_lives():
    rules = OpRules(at.Quantizer(2))
    t = torch.randn(2048)
    c = rules.wide.compress(t)
    rules.keep(t, c)
    assert rules.shared(t.view(32, 64)).shape == (32, 64)
    assert rules.shared(t[:1024]) is None  # same address, other bytes
    key = (t.device, t.data_ptr())
    del t
    assert rules._kept[key][0]() is None
    u = torch.empty(2048)  # often at the freed tensor's address: other bytes all the same
    assert rules.shared(u) is None


@pytest.mark.skipif(not hasattr(torch, "compile") or
                    tuple(int(v) for v in torch.__version__.split(".")[:2]) < (2, 4),
                    reason="torch.compile of this test needs PyTorch >= 2.4")
def test_compiled_code_runs_with_the_blocks_widths():
    # Dynamo cannot trace the mode's bookkeeping: inside compiled code the mode steps
    # aside and every saved tensor takes the block's width
    torch.manual_seed(0)
    m = nn.Sequential(nn.LayerNorm(64), nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 8))
    x = torch.randn(32, 64)
    with at.compressed_saved_tensors(bits=2, min_numel=1):
        y = torch.compile(m)(x)
    y.sum().backward()
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in m.parameters())
