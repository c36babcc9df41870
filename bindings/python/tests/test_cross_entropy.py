"""actq.torch.functional.cross_entropy and nn.CrossEntropyLoss: the loss of F.cross_entropy,
a backward that keeps the softmax probabilities compressed and is linear in them, so that
stochastic rounding gives an unbiased gradient, and the same bytes held as the meter sees.
"""
import pytest
import torch
import torch.nn.functional as F

import actq
import actq.torch as at
from conftest import DEVICES


def case(device, n=37, c=11, seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    x = (3 * torch.randn(n, c, generator=g)).to(device, dtype).requires_grad_()
    t = torch.randint(0, c, (n,), generator=g).to(device)
    t[3] = -100  # one ignored row
    return x, t


def grad_of(loss, x, g):
    return torch.autograd.grad(loss, x, g)[0]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("eps", [0.0, 0.1])
def test_loss_is_torchs_and_the_gradient_is_unbiased(device, reduction, eps):
    x, t = case(device)
    ref = F.cross_entropy(x, t, reduction=reduction, label_smoothing=eps)
    g = torch.rand(ref.shape, generator=torch.Generator().manual_seed(5)).to(device) + 0.5
    gx_ref = grad_of(ref, x, g)
    q = at.Quantizer(2, seed=3)
    draws = []
    for _ in range(300):
        loss = at.functional.cross_entropy(x, t, q, reduction, label_smoothing=eps)
        assert torch.allclose(loss, ref, atol=1e-5, rtol=1e-6)
        draws.append(grad_of(loss, x, g))
    s = torch.stack(draws)
    assert torch.all(s[:, 3] == 0)  # the ignored row has no gradient
    # A draw of an element lies within one step of its row's probabilities (at most 1/3:
    # 2 bits over [0, 1]) times the row's weight w, so by Hoeffding the mean of K draws
    # is within 6 (step w / 2) / sqrt(K) of its expectation but for a chance of 3e-8 an
    # element; the probabilities are too skewed for a bound from the sample's spread.
    w = g if reduction == "none" else g.expand(x.shape[0])
    if reduction == "mean":
        w = w / (t != -100).sum()
    bound = (w.abs() / 3)[:, None]
    assert torch.all((s - gx_ref).abs() <= bound + 1e-6)
    assert torch.all((s.mean(0) - gx_ref).abs() <= 6 * bound / 2 / len(draws) ** 0.5 + 1e-7)
    assert (s.std(0) > 0).float().mean() > 0.5  # the draws are draws


@pytest.mark.parametrize("device", DEVICES)
def test_eight_bits_are_close_to_exact_and_bf16_keeps_its_dtype(device):
    x, t = case(device, n=64, c=96)
    gx_ref = grad_of(F.cross_entropy(x, t), x, None)
    gx = grad_of(at.functional.cross_entropy(x, t, at.Quantizer(8, seed=1)), x, None)
    assert (gx - gx_ref).abs().max() < 1e-4
    xb, tb = case(device, dtype=torch.bfloat16)
    loss = at.functional.cross_entropy(xb, tb, at.Quantizer(4, seed=1))
    assert loss.dtype == torch.bfloat16
    assert grad_of(loss, xb, None).dtype == torch.bfloat16


@pytest.mark.parametrize("device", DEVICES)
def test_what_it_holds_is_the_codes_the_metadata_and_the_targets(device):
    x, t = case(device, n=64, c=96)
    meter = at.SavedTensorMeter()
    with meter.counting():
        at.nn.CrossEntropyLoss(bits=4)(x, t)
    codes = 64 * 96 * 4 // 8  # one row of 96 = one group: its min and scale in f32
    assert meter.plain_bytes == codes + 64 * 2 * 4 + 64 * 8
    meter.reset()
    with meter.counting():
        F.cross_entropy(x, t)
    assert meter.plain_bytes > 64 * 96 * 4  # torch's: the float log-softmax


def test_inside_the_hooks_nothing_it_saves_is_quantized_again():
    x, t = case("cpu", n=512, c=96)
    gx_ref = grad_of(F.cross_entropy(x, t), x, None)
    with at.compressed_saved_tensors(bits=2):
        loss = at.functional.cross_entropy(x, t, at.Quantizer(8, seed=2))
    assert (grad_of(loss, x, None) - gx_ref).abs().max() < 1e-5


def test_the_module_is_torchs_without_gradients_and_checks_its_arguments():
    x, t = case("cpu")
    with torch.no_grad():
        assert torch.equal(at.nn.CrossEntropyLoss()(x, t), F.cross_entropy(x, t))
    q = at.Quantizer(2)
    one = at.functional.cross_entropy(x[0], t[0], q, reduction="none")
    assert one.shape == () and torch.allclose(one, F.cross_entropy(x[0], t[0], reduction="none"))
    with pytest.raises(actq.ArgumentError, match="reduction must be"):
        at.functional.cross_entropy(x, t, q, reduction="max")
    with pytest.raises(actq.ArgumentError, match="label_smoothing must be"):
        at.functional.cross_entropy(x, t, q, label_smoothing=1.5)
    with pytest.raises(ValueError, match="logits"):
        at.functional.cross_entropy(x[None], t, q)
    with pytest.raises(TypeError, match="class indices"):
        at.functional.cross_entropy(x, x.detach().softmax(1), q)
