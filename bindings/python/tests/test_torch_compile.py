"""torch.compile(fullgraph=True) of models built from actq.torch's modules and functions:
no graph break, no recompilation from one step to the next (the quantizer's counters are
tensors), and the eager model's bytes for the same seeds.

Most checks use the aot_eager backend (the whole of Dynamo and AOTAutograd, without
Inductor's code generation, which takes tens of seconds per model on a CPU); one test
compiles with Inductor. Needs torch.library.custom_op (PyTorch >= 2.4).
"""
import pytest
import torch
import torch.nn as nn

import actq.torch as at
import actq.torch.functional as AF
from actq.torch import library
from conftest import DEVICES, assert_same_bytes

pytestmark = pytest.mark.skipif(not library.AVAILABLE, reason=library.REASON or "")


class Net(nn.Module):
    """Every compressed path: Conv2d, Linear (one shared Quantizer), the ReLU mask, GELU
    and SiLU modules, and the functional activations by name."""

    def __init__(self, quantizer):
        super().__init__()
        self.conv = at.nn.Conv2d(3, 4, 3, padding=1, quantizer=quantizer)
        self.relu = at.nn.ReLU()
        self.fc1 = at.nn.Linear(4 * 6 * 6, 32, quantizer=quantizer)
        self.gelu = at.nn.GELU(bits=2)
        self.fc2 = at.nn.Linear(32, 16, quantizer=quantizer)
        self.silu = at.nn.SiLU(bits=3)
        self.fc3 = at.nn.Linear(16, 5, quantizer=quantizer)

    def forward(self, x):
        h = self.relu(self.conv(x)).flatten(1)
        h = self.silu(self.fc2(self.gelu(self.fc1(h))))
        return self.fc3(AF.relu(AF.fewbit_activation(h, "tanh", 2)))


def make(device):
    torch.manual_seed(0)
    quantizer = at.Quantizer(bits=2, group_size=64, seed=11)
    return Net(quantizer).to(device), quantizer


def train(model, x, steps):
    """(output, parameter gradients) of each step."""
    got = []
    for _ in range(steps):
        model.zero_grad()
        out = model(x)
        out.square().sum().backward()
        got.append((out.detach(), [p.grad.clone() for p in model.parameters()]))
    return got


def compiled(model, backend):
    torch._dynamo.reset()
    return torch.compile(model, fullgraph=True, backend=backend)


@pytest.mark.parametrize("device", DEVICES)
def test_compiled_model_gives_the_eager_bytes(device, monkeypatch):
    # cuDNN may pick atomics-based convolution backward kernels, whose sums vary by run.
    monkeypatch.setattr(torch.backends.cudnn, "deterministic", True)
    x = torch.randn(4, 3, 6, 6, generator=torch.Generator().manual_seed(1)).to(device)
    eager, qe = make(device)
    model, qc = make(device)
    want = train(eager, x, 3)
    with torch._dynamo.config.patch(error_on_recompile=True):
        got = train(compiled(model, "aot_eager"), x, 3)
    for step, ((out, grads), (out_want, grads_want)) in enumerate(zip(got, want)):
        assert_same_bytes(out, out_want, "output of step %d" % step)
        for p, (g, gw) in enumerate(zip(grads, grads_want)):
            assert_same_bytes(g, gw, "gradient %d of step %d" % (p, step))
    # The noise counter advanced at run time: 4 compressed layers, 3 steps; with the same
    # input and weights, fresh noise is all that makes two steps' gradients differ (a
    # graph that froze the offset would repeat them).
    assert qc.calls == qe.calls == 12
    fc1 = [n for n, _ in model.named_parameters()].index("fc1.weight")
    assert not torch.equal(got[0][1][fc1], got[1][1][fc1])
    assert qc.elements_per_width == qe.elements_per_width


def test_inductor_compiles_the_model():
    """Inductor fuses the float ops around the actq ops, so values agree to rounding and
    the later layers' stochastic rounding sees inputs a rounding apart: compared with a
    tolerance; the ops themselves are opaque to it."""
    x = torch.randn(4, 3, 6, 6, generator=torch.Generator().manual_seed(1))
    eager, qe = make("cpu")
    model, qc = make("cpu")
    want = train(eager, x, 2)
    got = train(compiled(model, "inductor"), x, 2)
    for (out, grads), (out_want, grads_want) in zip(got, want):
        torch.testing.assert_close(out, out_want, rtol=1e-4, atol=1e-5)
        for g, gw in zip(grads, grads_want):
            torch.testing.assert_close(g, gw, rtol=1e-2, atol=1e-3)
    assert qc.calls == qe.calls == 8
