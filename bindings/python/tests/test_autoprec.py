"""AutoPrecision (GACT, per-tensor widths): budget, sensitivity order, refresh schedule and
unbiased gradients."""

import torch
import torch.nn as nn

import actq.torch as at

ALLOWED = (1, 2, 3, 4, 8)


class TwoBranches(nn.Module):
    """out = scale_a * A(xa) + scale_b * B(xb): each linear layer saves its input, and the
    scale multiplies the weight-gradient error that quantizing that input causes."""

    def __init__(self, scale_a=1.0, scale_b=1.0, width=64):
        super().__init__()
        self.a = nn.Linear(width, width)
        self.b = nn.Linear(width, width)
        self.scale_a, self.scale_b = scale_a, scale_b

    def forward(self, xa, xb):
        return self.scale_a * self.a(xa) + self.scale_b * self.b(xb)


class Mlp(nn.Module):
    """Saved tensors of very different sizes: the input, two hidden activations."""

    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(96, 256)
        self.l2 = nn.Linear(256, 32)
        self.l3 = nn.Linear(32, 10)

    def forward(self, x):
        return self.l3(torch.relu(self.l2(torch.relu(self.l1(x)))))


def backprop_for(model, ap, inputs, gy):
    def backprop():
        with at.compressed_saved_tensors(quantizer=ap, min_numel=256):
            out = model(*inputs)
        out.backward(gy)
    return backprop


def data(seed, *shapes):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(*s, generator=g) for s in shapes]


def test_widths_fill_the_budget_to_the_solver_granularity():
    torch.manual_seed(0)
    model = Mlp()
    x, gy = data(1, (64, 96), (64, 10))
    ap = at.AutoPrecision(model, 2.0, allowed_bits=ALLOWED, seed=3, probes=1)
    ap.refresh(backprop_for(model, ap, (x,), gy))
    # the input, then relu(l1) and relu(l2), each saved twice (by the relu and the next layer)
    assert len(ap.tensor_bits) == len(ap.numel) == len(ap.sensitivity) >= 3
    assert all(b in ALLOWED for b in ap.tensor_bits)
    used = sum(b * n for b, n in zip(ap.tensor_bits, ap.numel))
    budget = int(2.0 * sum(ap.numel))
    assert used <= budget
    # EXACT's optimum with positive sensitivities: no single upgrade still fits.
    assert all(s > 0 for s in ap.sensitivity)
    for b, n in zip(ap.tensor_bits, ap.numel):
        up = [w for w in ALLOWED if w > b]
        if up:
            assert used + (up[0] - b) * n > budget


def test_a_sensitive_tensor_gets_more_bits_than_an_insensitive_one():
    for scale_a, scale_b in ((100.0, 1.0), (1.0, 100.0)):
        torch.manual_seed(0)
        model = TwoBranches(scale_a, scale_b)
        xa, xb, gy = data(2, (32, 64), (32, 64), (32, 64))
        ap = at.AutoPrecision(model, 2.0, allowed_bits=ALLOWED, seed=5)
        ap.refresh(backprop_for(model, ap, (xa, xb), gy))
        assert ap.numel == [32 * 64, 32 * 64]  # xa saved first, then xb
        sens_a, sens_b = ap.sensitivity
        bits_a, bits_b = ap.tensor_bits
        if scale_a > scale_b:
            assert sens_a > 1000 * sens_b and bits_a > bits_b
        else:
            assert sens_b > 1000 * sens_a and bits_b > bits_a


def test_refresh_every_n_steps_and_not_between():
    torch.manual_seed(0)
    model = TwoBranches(10.0, 1.0)
    xa, xb, gy = data(3, (16, 64), (16, 64), (16, 64))
    ap = at.AutoPrecision(model, 2.0, allowed_bits=ALLOWED, refresh_every=3, probes=1, seed=7)
    backprop = backprop_for(model, ap, (xa, xb), gy)
    refreshed, passes = [], []
    for step in range(7):
        before = ap.backprops
        refreshed.append(ap.step(backprop))
        passes.append(ap.backprops - before)
        model.zero_grad()
        backprop()  # the training step itself
    assert refreshed == [True, False, False, True, False, False, True]
    assert ap.refreshes == 3
    # a refresh: one exact pass plus probes per saved tensor; nothing between
    assert passes == [3, 0, 0, 3, 0, 0, 3]


def test_refresh_leaves_gradients_and_batch_norm_statistics_alone():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 8))
    x, gy = data(4, (32, 64), (32, 8))
    ap = at.AutoPrecision(model, 2.0, allowed_bits=ALLOWED, seed=9, probes=1)
    model(x).backward(gy)
    grads = [p.grad.clone() for p in model.parameters()]
    stats = [b.clone() for b in model.buffers()]
    ap.refresh(backprop_for(model, ap, (x,), gy))
    assert all(torch.equal(g, p.grad) for g, p in zip(grads, model.parameters()))
    assert all(torch.equal(s, b) for s, b in zip(stats, model.buffers()))


def test_a_refresh_counts_no_stored_elements_and_reuses_no_noise():
    torch.manual_seed(0)
    model = TwoBranches(10.0, 1.0)
    xa, xb, gy = data(5, (16, 64), (16, 64), (16, 64))
    ap = at.AutoPrecision(model, 2.0, allowed_bits=ALLOWED, seed=11, probes=2)
    backprop = backprop_for(model, ap, (xa, xb), gy)
    ap.step(backprop)  # the first step refreshes
    assert sum(ap.elements_per_width) == 0  # the probes stored nothing for training
    offset = ap.calls
    assert offset >= 2 * 2  # but their noise was drawn: the offset moved on
    backprop()
    widths = ap.elements_per_width
    assert sum(widths) == 2 * 16 * 64
    assert widths[ap.tensor_bits[0]] >= 16 * 64 and ap.calls == offset + 2


def test_gradients_with_adaptive_widths_are_unbiased():
    torch.manual_seed(0)
    model = TwoBranches(10.0, 1.0, width=48)
    xa, xb, gy = data(5, (16, 48), (16, 48), (16, 48))
    model(xa, xb).backward(gy)
    exact = [p.grad.clone() for p in model.parameters()]
    ap = at.AutoPrecision(model, 2.0, allowed_bits=ALLOWED, seed=11, probes=1)
    backprop = backprop_for(model, ap, (xa, xb), gy)
    ap.refresh(backprop)
    assert ap.tensor_bits[0] > ap.tensor_bits[1]  # both compressed, at different widths
    draws = []
    for _ in range(300):
        model.zero_grad()
        backprop()
        draws.append(torch.cat([p.grad.reshape(-1) for p in model.parameters()]))
    ref = torch.cat([g.reshape(-1) for g in exact])
    s = torch.stack(draws)
    mean, sem = s.mean(0), s.std(0) / len(draws) ** 0.5
    assert (draws[0] - ref).abs().max() > 1e-4  # the draws are noisy
    # float32 rounding: the bias gradients are exact up to the order of summation
    assert ((mean - ref).abs() <= 5 * sem + 1e-6 * (1 + ref.abs())).float().mean() > 0.999
    assert (mean - ref).norm() < 2 * sem.norm()


def test_probes_see_the_same_dropout_masks():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.Dropout(0.5), nn.Linear(64, 8))
    x, gy = data(6, (32, 64), (32, 8))
    ap = at.AutoPrecision(model, 8, allowed_bits=(8,), seed=13, probes=1)
    state = torch.get_rng_state()
    ap.refresh(backprop_for(model, ap, (x,), gy))
    assert torch.equal(state, torch.get_rng_state())  # random numbers continue as before
    model(x).backward(gy)
    g2 = sum(float((p.grad.double() ** 2).sum()) for p in model.parameters())
    # 8-bit noise, measured against an exact gradient under the same mask: far below the
    # gradient (other masks would differ by about the gradient itself)
    assert 0 < max(ap.sensitivity) / (2 ** 8 - 1) ** 2 < 1e-4 * g2
