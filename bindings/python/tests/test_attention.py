"""actq.torch.functional.attention: scaled dot-product attention whose backward keeps q, k,
v and one copy of the probabilities, quantized: the forward is the one PyTorch's ops give
(and F.scaled_dot_product_attention's where torch has it), v's gradient is unbiased, and
at 8 bits every gradient is close to PyTorch's."""
import pytest
import torch

import actq.torch as at
from conftest import DEVICES


def sdpa(q, k, v, causal=False):
    """PyTorch's attention by its own ops (F.scaled_dot_product_attention needs torch 2)"""
    s = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if causal:
        t, n = s.shape[-2:]
        s = s.masked_fill(torch.ones(t, n, dtype=torch.bool, device=s.device).triu(n - t + 1),
                          float("-inf"))
    return s.softmax(-1) @ v


def qkv(device, t=8, s=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(2, 3, n, d, generator=g).to(device).requires_grad_()
            for n, d in ((t, 16), (s, 16), (s, 5))]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("causal", [False, True])
def test_forward_is_torchs_and_eight_bits_are_close(device, causal):
    q, k, v = qkv(device)
    ref = sdpa(q, k, v, causal)
    g = torch.randn(ref.shape, generator=torch.Generator().manual_seed(1)).to(device)
    grads_ref = torch.autograd.grad(ref, (q, k, v), g)
    z = at.functional.attention(q, k, v, at.Quantizer(8, seed=1), causal=causal)
    assert torch.allclose(z, ref, atol=1e-6)
    if hasattr(torch.nn.functional, "scaled_dot_product_attention"):  # torch >= 2.0
        assert torch.allclose(z, torch.nn.functional.scaled_dot_product_attention(
            q, k, v, is_causal=causal), atol=1e-5)
    for a, b in zip(torch.autograd.grad(z, (q, k, v), g), grads_ref):
        assert (a - b).norm() < 0.02 * b.norm()


@pytest.mark.parametrize("device", DEVICES)
def test_v_gradient_is_unbiased_at_two_bits(device):
    q, k, v = qkv(device, t=6, s=10)  # cross-attention shapes: t != s
    ref = sdpa(q, k, v)
    g = torch.randn(ref.shape, generator=torch.Generator().manual_seed(2)).to(device)
    gv_ref = torch.autograd.grad(ref, v, g)[0]
    quant = at.Quantizer(2, seed=3)
    draws = [torch.autograd.grad(at.functional.attention(q, k, v, quant), v, g)[0]
             for _ in range(300)]
    s = torch.stack(draws)
    mean, sem = s.mean(0), s.std(0) / len(draws) ** 0.5
    assert ((mean - gv_ref).abs() <= 5 * sem + 1e-6).float().mean() > 0.99
    assert (mean - gv_ref).norm() < 2 * sem.norm()
    assert (s.std(0) > 0).float().mean() > 0.9


@pytest.mark.parametrize("device", DEVICES)
def test_it_holds_four_quantized_tensors_and_q_k_take_their_own_width(device):
    q, k, v = qkv(device, t=64, s=64)
    meter = at.SavedTensorMeter()
    with meter.counting():
        at.functional.attention(q, k, v, at.Quantizer(4), qk_quantizer=at.Quantizer(2),
                                causal=True)
    n_qk, n_v, n_p = 2 * 3 * 64 * 16, 2 * 3 * 64 * 5, 2 * 3 * 64 * 64
    groups = lambda n: 2 * -(-n // 2 // 256)  # rows = the leading dimension (2)
    meta = 8 * (2 * groups(n_qk) + groups(n_v) + groups(n_p))
    assert meter.plain_bytes == 2 * n_qk * 2 // 8 + (n_v + n_p) * 4 // 8 + meta


def test_it_checks_the_shapes():
    q, k, v = qkv("cpu")
    with pytest.raises(ValueError, match="attention takes"):
        at.functional.attention(q, k[..., :8], v, at.Quantizer(2))
    with pytest.raises(ValueError, match="attention takes"):
        at.functional.attention(q, k, v[..., :4, :], at.Quantizer(2))
