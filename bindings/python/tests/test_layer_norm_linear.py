"""actq.torch.functional.layer_norm_linear and nn.LayerNormLinear: linear(layer_norm(x))
keeping one quantized copy of the normalized input and each position's 1/std. The forward
is PyTorch's, the Linear's weight gradient is unbiased, the biases' gradients are exact,
at 8 bits every gradient is close to PyTorch's, and what it holds is that copy only."""
import pytest
import torch
import torch.nn.functional as F

import actq.torch as at
from conftest import DEVICES


def params(device, d=37, out=11, affine=True, bias=True, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = (torch.randn(3, 19, d, generator=g) * 3 + 1).to(device, dtype).requires_grad_()
    P = lambda t: torch.nn.Parameter(t.to(device, dtype))  # the meter counts them apart
    lw = P(1 + 0.2 * torch.randn(d, generator=g)) if affine else None
    lb = P(0.2 * torch.randn(d, generator=g)) if affine else None
    w = P(torch.randn(out, d, generator=g))
    b = P(torch.randn(out, generator=g)) if bias else None
    return x, lw, lb, w, b


def torchs(x, lw, lb, w, b):
    return F.linear(F.layer_norm(x, x.shape[-1:], lw, lb), w, b)


def grads(y, inputs, g):
    live = [t for t in inputs if t is not None]
    return torch.autograd.grad(y, live, g)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("affine,bias", [(True, True), (False, True), (True, False)])
@pytest.mark.parametrize("rows", [None, 1])
def test_forward_is_torchs_and_eight_bits_are_close(device, affine, bias, rows):
    p = params(device, affine=affine, bias=bias)
    ref = torchs(*p)
    g = torch.randn(ref.shape, generator=torch.Generator().manual_seed(1)).to(device)
    y = at.functional.layer_norm_linear(*p, at.Quantizer(8, seed=1), rows=rows)
    assert torch.equal(y, ref)
    for a, r in zip(grads(y, p, g), grads(ref, p, g)):
        assert (a - r).norm() <= 0.02 * r.norm()


@pytest.mark.parametrize("device", DEVICES)
def test_bfloat16(device):
    p = params(device, d=64, dtype=torch.bfloat16)
    ref = torchs(*p)
    g = torch.randn(ref.shape, generator=torch.Generator().manual_seed(1)).to(device,
                                                                              torch.bfloat16)
    y = at.functional.layer_norm_linear(*p, at.Quantizer(8, seed=1, meta_dtype="bf16"))
    assert y.dtype == torch.bfloat16 and torch.equal(y, ref)
    for a, r in zip(grads(y, p, g), grads(ref, p, g)):
        assert a.dtype == torch.bfloat16
        assert (a.float() - r.float()).norm() <= 0.05 * r.float().norm()


@pytest.mark.parametrize("device", DEVICES)
def test_weight_gradient_is_unbiased_and_the_biases_exact_at_two_bits(device):
    p = params(device, d=24, out=5)
    x, lw, lb, w, b = p
    ref = torchs(*p)
    g = torch.randn(ref.shape, generator=torch.Generator().manual_seed(2)).to(device)
    gw_ref, glb_ref, gb_ref = torch.autograd.grad(ref, (w, lb, b), g)
    quant = at.Quantizer(2, seed=3)
    draws = []
    for _ in range(300):
        gw, glb, gb = torch.autograd.grad(
            at.functional.layer_norm_linear(*p, quant), (w, lb, b), g)
        assert torch.allclose(glb, glb_ref, atol=1e-5) and torch.allclose(gb, gb_ref, atol=1e-5)
        draws.append(gw)
    s = torch.stack(draws)
    mean, sem = s.mean(0), s.std(0) / len(draws) ** 0.5
    assert ((mean - gw_ref).abs() <= 5 * sem + 1e-5).float().mean() > 0.99
    assert (mean - gw_ref).norm() < 2 * sem.norm()
    assert (s.std(0) > 0).float().mean() > 0.9  # the draws do differ


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("meta", ["f32", "bf16"])
def test_it_holds_one_copy_and_the_positions_scales(device, meta):
    d, positions = 64, 3 * 19
    p = params(device, d=d)
    meter = at.SavedTensorMeter()
    with meter.counting():
        at.functional.layer_norm_linear(*p, at.Quantizer(4, meta_dtype=meta))
    meta_bytes = 4 if meta == "f32" else 2
    # the parameters are the model's; the copy: 4-bit codes, two metadata values a group of
    # 64 (one a position); 1/std a position in the metadata's dtype
    held = positions * d // 2 + 2 * meta_bytes * positions + meta_bytes * positions
    assert meter.plain_bytes == held
    meter = at.SavedTensorMeter()
    with meter.counting():  # groups across positions: 57 * 64 elements in 15 groups
        at.functional.layer_norm_linear(*p, at.Quantizer(4, meta_dtype=meta), rows=1)
    assert meter.plain_bytes == positions * d // 2 + 2 * meta_bytes * 15 + meta_bytes * positions


def test_the_hooks_leave_what_it_holds_alone():
    p = params("cpu", d=64)
    kinds = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: kinds.append(t.dtype) or t,
                                                  lambda t: t):
        at.functional.layer_norm_linear(*p, at.Quantizer(2))
    # codes, the two metadata arrays and 1/std as bytes; the three weights as they are
    assert kinds.count(torch.uint8) == 4 and len(kinds) == 7


def test_it_checks_the_shapes():
    x, lw, lb, w, b = params("cpu")
    with pytest.raises(ValueError, match="layer_norm_linear takes"):
        at.functional.layer_norm_linear(x, lw[:5], lb, w, b, at.Quantizer(2))
    with pytest.raises(ValueError, match="layer_norm_linear takes"):
        at.functional.layer_norm_linear(x, lw, lb, w[:, :5], b, at.Quantizer(2))
    with pytest.raises(ValueError, match="layer_norm_linear takes"):
        at.functional.layer_norm_linear(x, lw, lb, w, b[:3], at.Quantizer(2))


def test_the_module_compresses_in_training_only():
    torch.manual_seed(0)
    m = at.nn.LayerNormLinear(32, 8, quantizer=at.Quantizer(4))
    ref = torch.nn.Sequential(torch.nn.LayerNorm(32), torch.nn.Linear(32, 8))
    ref.load_state_dict({"0.weight": m.norm.weight, "0.bias": m.norm.bias,
                         "1.weight": m.linear.weight, "1.bias": m.linear.bias})
    assert set(m.state_dict()) == {"norm.weight", "norm.bias", "linear.weight", "linear.bias"}
    x = torch.randn(5, 7, 32, requires_grad=True)
    meter = at.SavedTensorMeter()
    with meter.counting():
        y = m(x)
    assert torch.equal(y, ref(x)) and meter.plain_bytes == 35 * 16 + 35 * 4 * 3
    m.eval()
    meter = at.SavedTensorMeter()
    with meter.counting():
        y = m(x)
    assert torch.equal(y, ref(x)) and meter.plain_bytes > 35 * 32 * 4  # PyTorch's saves
