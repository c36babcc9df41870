"""Autograd functions, modules and saved-tensor hooks: gradients against uncompressed ones.

Where the quantized tensor enters a gradient linearly (a weight gradient is the incoming
gradient times the saved input), stochastic rounding makes the gradient unbiased: its mean
over independent draws converges to the exact one, and each draw is off by at most the
quantization step. The tests check both against bounds computed from the stored scales.
"""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import actq
import actq.torch as at
from conftest import DEVICES, assert_same_bytes


def gen(seed):
    return torch.Generator().manual_seed(seed)


def grads(module, x, gy):
    module.zero_grad()
    y = module(x)
    y.backward(gy)
    return [p.grad.clone() for p in module.parameters()], y


def mean_and_sem(samples):
    s = torch.stack(samples)
    return s.mean(0), s.std(0) / len(samples) ** 0.5


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("bits", [2, 4])
def test_linear_weight_gradient_is_unbiased_and_input_gradient_exact(bits, device):
    torch.manual_seed(0)
    ref = nn.Linear(48, 24).to(device)
    lin = at.nn.Linear(48, 24, quantizer=at.Quantizer(bits, group_size=64, seed=1)).to(device)
    lin.load_state_dict(ref.state_dict())
    x = torch.randn(16, 48, generator=gen(1)).to(device).requires_grad_()
    gy = torch.randn(16, 24, generator=gen(2)).to(device)
    (gw_ref, gb_ref), y_ref = grads(ref, x, gy)
    gx_ref = x.grad.clone()
    draws = []
    for _ in range(300):
        x.grad = None
        (gw, gb), y = grads(lin, x, gy)
        assert torch.equal(y, y_ref)  # forward is untouched
        assert torch.allclose(gx_ref, x.grad, atol=1e-6)  # needs the weight only
        assert torch.allclose(gb, gb_ref, atol=1e-6)
        draws.append(gw)
    mean, sem = mean_and_sem(draws)
    assert ((mean - gw_ref).abs() <= 5 * sem + 1e-6).float().mean() > 0.999
    assert (mean - gw_ref).norm() < 2 * sem.norm()
    # One draw: |gy^T (x^ - x)| <= sum_n |gy_n| * step_n, step <= range / (2^b - 1)
    step = (x.amax() - x.amin()) / (2 ** bits - 1)
    assert torch.all((draws[0] - gw_ref).abs() <= gy.abs().sum(0)[:, None] * step + 1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_conv2d_gradients(device):
    torch.manual_seed(0)
    ref = nn.Conv2d(3, 5, 3, stride=2, padding=1).to(device)
    conv = at.nn.Conv2d(3, 5, 3, stride=2, padding=1,
                        quantizer=at.Quantizer(2, seed=3)).to(device)
    conv.load_state_dict(ref.state_dict())
    x = torch.randn(4, 3, 9, 9, generator=gen(3)).to(device).requires_grad_()
    gy = torch.randn(4, 5, 5, 5, generator=gen(4)).to(device)
    (gw_ref, gb_ref), _ = grads(ref, x, gy)
    gx_ref = x.grad.clone()
    draws = []
    for _ in range(300):
        x.grad = None
        (gw, gb), _ = grads(conv, x, gy)
        assert torch.allclose(x.grad, gx_ref, atol=1e-5)
        assert torch.allclose(gb, gb_ref, atol=1e-5)
        draws.append(gw)
    mean, sem = mean_and_sem(draws)
    assert ((mean - gw_ref).abs() <= 5 * sem + 1e-5).float().mean() > 0.999
    assert (mean - gw_ref).norm() < 2 * sem.norm()  # sum of squares ~ its expectation


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("frozen", ("weight", "input"))
def test_conv2d_gradients_of_only_the_input_or_only_the_weight(device, frozen):
    """One of the two gradients alone (a frozen layer, or the first layer of a model): the
    other stays None, and the one asked for is the plain convolution's (the input's
    exact, the weight's within one draw's quantization error)."""
    torch.manual_seed(0)
    ref = nn.Conv2d(4, 6, 3, padding=2, dilation=2, groups=2).to(device)
    conv = at.nn.Conv2d(4, 6, 3, padding=2, dilation=2, groups=2,
                        quantizer=at.Quantizer(8, seed=5)).to(device)
    conv.load_state_dict(ref.state_dict())
    x = torch.randn(3, 4, 7, 7, generator=gen(5)).to(device)
    gy = torch.randn(3, 6, 7, 7, generator=gen(6)).to(device)
    for m in (ref, conv):
        m.weight.requires_grad_(frozen != "weight")
    x.requires_grad_(frozen != "input")
    results = []
    for m in (ref, conv):
        x.grad = m.weight.grad = None
        (m(x) * gy).sum().backward()
        results.append((x.grad, m.weight.grad))
    (gx_ref, gw_ref), (gx, gw) = results
    if frozen == "weight":
        assert gw is None and torch.allclose(gx, gx_ref, atol=1e-5)
    else:
        assert gx is None and torch.allclose(gw, gw_ref, rtol=0, atol=0.05 * gw_ref.abs().max())


@pytest.mark.parametrize("device", DEVICES)
def test_relu_saves_a_one_bit_mask_and_is_exact(device):
    x = torch.randn(10, 1000, device=device, requires_grad=True)
    x.data[0, :5] = 0.0  # PyTorch's ReLU has gradient 0 at 0
    gy = torch.randn(10, 1000, device=device)
    (F.relu(x) * gy).sum().backward()
    g_ref = x.grad.clone()
    x.grad = None
    meter = at.SavedTensorMeter()
    with meter.counting():
        y = at.nn.ReLU()(x)
    assert torch.equal(y, F.relu(x))
    assert meter.activation_bytes == 10 * 1000 // 8  # one bit per element
    (y * gy).sum().backward()
    assert torch.equal(x.grad, g_ref)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("bits", [2, 4])
def test_fewbit_gelu_gradient_error_is_the_tables_error(bits, device):
    """Under N(0,1) inputs the mean squared derivative error is the table's objective."""
    x = torch.randn(400_000, generator=gen(5)).to(device).requires_grad_()
    y = at.nn.GELU(bits)(x)
    y.backward(torch.ones_like(y))
    x2 = x.detach().clone().requires_grad_()
    F.gelu(x2).backward(torch.ones_like(x2))
    mse = ((x.grad - x2.grad) ** 2).mean().item()
    table_error = actq.cached_table("gelu", bits).error
    assert abs(mse - table_error) < 0.03 * table_error
    assert torch.allclose(y, F.gelu(x.detach()), atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("activation,torch_fn", [("gelu", F.gelu), ("silu", F.silu),
                                                 ("tanh", torch.tanh)])
def test_both_routes_save_the_same_codes_and_give_their_own_y(device, dtype, activation,
                                                              torch_fn):
    """The torch route returns PyTorch's f(x) bit for bit, the fused route actq's; both
    save the codes of the same x, so the gradients are the same bytes."""
    from actq.torch import functional as AF
    x = torch.randn(3, 1001, generator=gen(2)).to(device, dtype)
    gy = torch.randn(3, 1001, generator=gen(3)).to(device, dtype)
    table = actq.cached_table(activation, 3)
    codes_want, y_fused_want = at.fewbit_encode(table, x)
    got = {}
    for route in ("torch", "fused"):
        xr = x.clone().requires_grad_()
        y = AF.fewbit_activation(xr, activation, 3, route=route)
        y.backward(gy)
        got[route] = (y.detach(), xr.grad)
    try:
        y_torch_want = torch_fn(x)
    except RuntimeError:  # PyTorch has no such kernel here (1.13: float16 on the CPU)
        y_torch_want = y_fused_want
    assert_same_bytes(got["torch"][0], y_torch_want, "torch route's y")
    assert_same_bytes(got["fused"][0], y_fused_want, "fused route's y")
    assert_same_bytes(got["torch"][1], got["fused"][1], "gradient")
    assert_same_bytes(got["fused"][1], at.fewbit_backward(table, codes_want, gy), "gradient")
    route = AF.default_route(x.device.type, x.dtype, actq.cached_table(activation, 3).activation)
    default = at.nn.FewbitActivation(activation, 3)(x.clone().requires_grad_())
    assert_same_bytes(default, got[route][0], "the default route's y")


def test_default_route_by_device_dtype_and_activation():
    """CPU: PyTorch's activation for y, except where the library's kernel table makes the
    fused layer faster (FUSED_CPU: Tanh and GELU_TANH from AVX2 on, SiLU, Sigmoid and GELU
    on AVX-512 in float32; in bfloat16 and float16, where y is looked up in a table, every
    activation on AVX-512 and all but the piecewise-linear ones on AVX2). CUDA: the fused kernels of their own
    in float32 (one pass, modelled faster) and for bfloat16 GELU and SiLU (measured
    faster), PyTorch's in float16, for the other bfloat16 ones and for other
    activations."""
    from actq.enums import Activation as A
    from actq.torch import functional as AF
    isa = AF.cpu_isa()
    assert isa in ("avx512bf16", "avx512", "avx2", "scalar")
    both = {A.SILU, A.SIGMOID, A.TANH, A.GELU_TANH}
    every = set(A) - {A.CUSTOM}
    smooth = every - {A.RELU, A.RELU6, A.LEAKY_RELU, A.HARDTANH, A.HARDSWISH, A.HARDSIGMOID}
    assert AF.FUSED_CPU == {("avx512", torch.float32): both | {A.GELU},
                            ("avx512", torch.bfloat16): every,
                            ("avx512", torch.float16): every,
                            ("avx512bf16", torch.float32): both | {A.GELU},
                            ("avx512bf16", torch.bfloat16): every,
                            ("avx512bf16", torch.float16): every,
                            ("avx2", torch.float32): {A.TANH, A.GELU_TANH},
                            ("avx2", torch.bfloat16): smooth,
                            ("avx2", torch.float16): smooth}
    for dt in (torch.float32, torch.bfloat16, torch.float16):
        for act in A:
            fused = act in AF.FUSED_CPU.get((isa, dt), ())
            assert AF.default_route("cpu", dt, act) == ("fused" if fused else "torch"), (dt, act)
            assert AF.default_route("cpu", dt, int(act)) == ("fused" if fused else "torch")
    gelu = "fused" if isa in ("avx512", "avx512bf16") else "torch"
    assert AF.default_route("cpu", torch.float32, A.GELU) == gelu
    assert AF.default_route("cpu", torch.bfloat16, A.GELU) == (
        "fused" if isa != "scalar" else "torch")
    assert AF.default_route("cpu", torch.float16, A.RELU) == gelu
    for act in (A.GELU, A.GELU_TANH, A.SILU, A.SIGMOID, A.TANH):
        assert AF.default_route("cuda", torch.float32, act) == "fused"
        assert AF.default_route("cuda", torch.float32, int(act)) == "fused"
        assert AF.default_route("cuda", torch.bfloat16, act) == (
            "fused" if act in (A.GELU, A.SILU) else "torch")
        assert AF.default_route("cuda", torch.float16, act) == "torch"
    for act in (A.ELU, A.MISH, A.RELU, A.SOFTPLUS):
        assert AF.default_route("cuda", torch.float32, act) == "torch"


def _mlp(device="cpu"):
    torch.manual_seed(0)
    # linear in saved inputs
    return nn.Sequential(nn.Linear(64, 128), nn.Linear(128, 32)).to(device)


@pytest.mark.parametrize("device", DEVICES)
def test_hooks_give_unbiased_gradients_and_leave_parameters_alone(device):
    model = _mlp(device)
    x = torch.randn(32, 64, generator=gen(6)).to(device)
    gy = torch.randn(32, 32, generator=gen(7)).to(device)
    ref, _ = grads(model, x, gy)
    q = at.Quantizer(2, seed=11)
    draws = []
    for _ in range(200):
        model.zero_grad()
        meter = at.SavedTensorMeter()
        # ops=False: every tensor stochastic (the default rounds Linear inputs to nearest,
        # tests/test_op_rules.py)
        with at.compressed_saved_tensors(quantizer=q, meter=meter, ops=False):
            y = model(x)
        y.backward(gy)
        draws.append([p.grad.clone() for p in model.parameters()])
    # weight of layer 2 saved as a view weight.t(): counted apart, never quantized
    assert meter.parameter_bytes == 128 * 32 * 4
    assert meter.compressed_original_bytes == (32 * 64 + 32 * 128) * 4
    for i, r in enumerate(ref):
        mean, sem = mean_and_sem([d[i] for d in draws])
        assert ((mean - r).abs() <= 5 * sem + 1e-5).float().mean() > 0.999
        assert (mean - r).norm() < 2 * sem.norm() + 1e-5 * r.norm()
    # the bias gradients do not depend on saved activations of their own layer's input
    assert torch.allclose(draws[0][3], ref[3], atol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_hooks_at_8_bits_are_close_to_exact(device):
    model = nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.LayerNorm(128),
                          nn.Linear(128, 8)).to(device)
    x = torch.randn(32, 64, generator=gen(8)).to(device)
    gy = torch.randn(32, 8, generator=gen(9)).to(device)
    ref, _ = grads(model, x, gy)
    model.zero_grad()
    with at.compressed_saved_tensors(bits=8, min_numel=1):
        y = model(x)
    y.backward(gy)
    for r, p in zip(ref, model.parameters()):
        assert (p.grad - r).norm() < 0.02 * r.norm()


@pytest.mark.parametrize("device", DEVICES)
def test_hooks_are_reproducible_per_seed_and_differ_per_call(device):
    def run(seed):
        model = _mlp(device)
        x = torch.randn(32, 64, generator=gen(6)).to(device)
        q = at.Quantizer(2, seed=seed)
        out = []
        for _ in range(2):
            model.zero_grad()
            with at.compressed_saved_tensors(quantizer=q, ops=False):
                model(x).sum().backward()
            out.append(model[0].weight.grad.clone())
        return out
    a, b = run(5), run(5)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    assert not torch.equal(a[0], a[1])  # the offset moved between calls
    assert not torch.equal(a[0], run(6)[0])


@pytest.mark.parametrize("device", DEVICES)
def test_mixed_precision_keeps_the_average_and_favours_sensitive_rows(device):
    q = at.Quantizer(average_bits=2.0, allowed_bits=(1, 2, 3, 4, 8), seed=1)
    x = torch.randn(16, 1024, generator=gen(10)).to(device)
    x[3] *= 100  # a row with a much wider range
    c = q.compress(x)
    rb = c.row_bits
    assert rb is not None and rb.float().mean() <= 2.0
    assert rb[3] == rb.max() and rb[3] >= 3
    q.row_weight = torch.ones(16, dtype=torch.float64)
    q.row_weight[7] = 1e6  # ActNN's gradient-norm factor: sample 7 matters most
    rb = q.compress(torch.randn(16, 1024, generator=gen(11)).to(device)).row_bits
    assert rb[7] >= 4 and (rb > 2).sum() == 1 and rb.float().mean() <= 2.0
    assert sum(q.elements_per_width[b] * b for b in range(9)) <= 2 * 2 * 16 * 1024


def test_nan_in_a_saved_activation_raises_the_library_error():
    # CPU: at the call. CUDA defers it to synchronize (test_torch_cuda.py).
    model = nn.Sequential(nn.Linear(64, 64), nn.Linear(64, 4))
    x = torch.randn(32, 64)
    x[0, 0] = float("nan")
    # torch 1.13 re-raises an exception from a saved-tensor hook as a RuntimeError that
    # quotes it; the library's status string must reach the user either way.
    with pytest.raises((actq.NonFiniteError, RuntimeError),
                       match="actq_quantize: nonfinite values met"):
        with at.compressed_saved_tensors(bits=2):
            model(x)
    with pytest.raises(actq.NonFiniteError, match="actq_quantize: nonfinite values met"):
        at.nn.Linear(64, 4)(x)


@pytest.mark.parametrize("device", DEVICES)
def test_eval_mode_uses_plain_ops(device):
    lin = at.nn.Linear(8, 8).to(device)
    lin.eval()
    meter = at.SavedTensorMeter()
    x = torch.randn(4, 8, device=device, requires_grad=True)
    with meter.counting():
        lin(x)
    assert meter.compressed_bytes == 0 and meter.plain_bytes == 4 * 8 * 4


def test_meter_counts_a_storage_once_and_parameters_apart():
    x = torch.randn(100, 50, requires_grad=True)
    meter = at.SavedTensorMeter()
    with meter.counting():
        y = x.exp()      # saves its output y
        z = y * y        # saves y twice more: the same storage
        w = z[:, :10].sin()  # saves a view of z: z's whole storage
    assert meter.tensors == 4
    assert meter.plain_bytes == 2 * 100 * 50 * 4
    lin = nn.Linear(50, 7)
    meter.reset()
    with meter.counting():
        lin(x)
    assert meter.parameter_bytes == 7 * 50 * 4 and meter.plain_bytes == 100 * 50 * 4
    del w
