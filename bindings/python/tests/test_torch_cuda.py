"""CUDA tensors against CPU tensors: the library promises the same bytes on every backend,
so every PyTorch entry point must write, byte for byte, on the GPU what it writes on the
CPU; autograd functions, modules and hooks then give the CPU's gradients up to the
rounding of PyTorch's own matmul and convolution kernels. Also CUDA's own semantics as
docs/cuda.md states them: calls on PyTorch's current stream, data errors deferred to
actq.torch.synchronize.

Skipped without a CUDA device (and without a libactq built with CUDA)."""
import dataclasses

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import actq
import actq.torch as at
from conftest import assert_same_bytes, needs_cuda, recording_meter

pytestmark = needs_cuda

CUDA = torch.device("cuda")


@pytest.fixture(autouse=True)
def no_deferred_error_left():
    """A data error CUDA defers surfaces at the next synchronize: check at each test's end,
    so it is reported by the test that caused it."""
    yield
    at.synchronize(CUDA)


def gen(seed):
    return torch.Generator().manual_seed(seed)


def assert_same_quantized(got, want):
    for name in ("rows", "cols", "group_size", "bits", "meta_dtype", "shape", "dtype"):
        assert getattr(got, name) == getattr(want, name), name
    assert got.packed.device.type == "cuda" and got.group_min.device.type == "cuda"
    assert_same_bytes(got.packed, want.packed, "packed codes")
    assert_same_bytes(got.group_min, want.group_min, "group_min")
    assert_same_bytes(got.group_scale, want.group_scale, "group_scale")
    if want.row_bits is None:
        assert got.row_bits is None
    else:
        assert got.row_bits.device.type == "cpu"  # host memory on every backend
        assert_same_bytes(got.row_bits, want.row_bits, "row_bits")


def to_device(q, device):
    """A Quantized with its device buffers moved (row_bits stays host memory)."""
    return dataclasses.replace(q, packed=q.packed.to(device), group_min=q.group_min.to(device),
                               group_scale=q.group_scale.to(device))


def special_values(dtype):
    """Rows of the values kernels get wrong first: signed zeros, denormals, a constant
    group, huge finite ranges, one value among zeros; groups of 64."""
    fi = torch.finfo(dtype)
    rows = [
        [0.0, -0.0] * 32,
        [fi.tiny / 4, -fi.tiny / 8, fi.tiny, 0.0] * 16,  # denormals of the dtype
        [1.5] * 64,  # constant: scale 0
        [fi.max, fi.max / 2, fi.max / 4, 0.0] * 16,
        [-fi.max, -fi.max / 3, -1.0, -fi.max / 7] * 16,
        [0.0] * 63 + [1e-3],
    ]
    return torch.tensor(rows, dtype=torch.float64).to(dtype)


QUANTIZE_CASES = [
    # shape, dtype, bits, group_size, rounding, meta dtype
    ((7, 333), torch.float32, 2, 64, "stochastic", "f32"),  # tail groups in every row
    ((5, 1000), torch.float16, 3, 256, "stochastic", "f16"),
    ((3, 4096), torch.bfloat16, 4, 1024, "stochastic", "bf16"),  # block-wide groups
    ((2, 20000), torch.float32, 8, 16384, "nearest", "f32"),  # groups read twice
    ((257, 129), torch.float32, 1, 8, "stochastic", "f32"),  # tiny groups, many rows
    ((1, 100003), torch.float16, 5, 256, "stochastic", "f32"),
    ((11, 4, 24), torch.bfloat16, 6, 32, "nearest", "f16"),  # 3-d: rows = first dim
    ((64, 512), torch.float32, 7, 256, "stochastic", "bf16"),
]


@pytest.mark.parametrize("shape,dtype,bits,group,rounding,meta", QUANTIZE_CASES)
def test_quantize_and_dequantize_write_the_cpu_bytes(shape, dtype, bits, group, rounding,
                                                     meta):
    x = (torch.randn(shape, generator=gen(bits)) * 3 + 1).to(dtype)
    kw = dict(bits=bits, group_size=group, rounding=rounding, seed=2 ** 63 + bits,
              offset=2 ** 40 + 7, meta_dtype=meta)
    want = at.quantize(x, **kw)
    got = at.quantize(x.to(CUDA), **kw)
    assert_same_quantized(got, want)
    for out in (None, torch.float32, torch.float16, torch.bfloat16):
        y = at.dequantize(got, dtype=out)
        assert y.device.type == "cuda"
        assert_same_bytes(y, at.dequantize(want, dtype=out), "dequantized as %s" % out)


@pytest.mark.parametrize("bits", range(1, 9))
def test_every_width_and_per_row_widths(bits):
    x = torch.randn(9, 777, generator=gen(20 + bits))
    want = at.quantize(x, bits=bits, group_size=128, seed=bits, offset=3)
    got = at.quantize(x.to(CUDA), bits=bits, group_size=128, seed=bits, offset=3)
    assert_same_quantized(got, want)
    assert_same_bytes(at.dequantize(got), at.dequantize(want), "dequantized")
    rb = torch.tensor([(bits + r) % 8 + 1 for r in range(9)], dtype=torch.uint8)
    want = at.quantize(x, row_bits=rb, group_size=64, seed=bits)
    got = at.quantize(x.to(CUDA), row_bits=rb, group_size=64, seed=bits)
    assert_same_quantized(got, want)
    assert_same_bytes(at.dequantize(got), at.dequantize(want), "dequantized, per-row widths")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_special_values_and_misaligned_tensors(dtype):
    x = special_values(dtype)
    for rounding in ("nearest", "stochastic"):
        want = at.quantize(x, bits=4, group_size=64, rounding=rounding, seed=1)
        got = at.quantize(x.to(CUDA), bits=4, group_size=64, rounding=rounding, seed=1)
        assert_same_quantized(got, want)
        assert_same_bytes(at.dequantize(got), at.dequantize(want), "dequantized")
    # A contiguous tensor one element into its storage: the kernels' vector loads and
    # stores must handle an address that is not 16-byte aligned.
    base = torch.randn(1 + 6 * 400, generator=gen(30)).to(dtype)
    xm = base.to(CUDA)[1:].view(6, 400)
    assert xm.is_contiguous() and xm.data_ptr() % 16 != 0
    want = at.quantize(base[1:].view(6, 400), bits=3, group_size=80, seed=4)
    assert_same_quantized(at.quantize(xm, bits=3, group_size=80, seed=4), want)
    ym = torch.empty(1 + 6 * 400, dtype=dtype, device=CUDA)[1:].view(6, 400)
    yq = at.dequantize(to_device(want, CUDA))
    ym.copy_(yq)
    assert_same_bytes(ym, at.dequantize(want), "dequantized")


def test_cpu_bytes_dequantize_on_the_gpu_and_back():
    x = torch.randn(33, 300, generator=gen(40))
    q = at.quantize(x, bits=2, group_size=96, seed=8)
    assert_same_bytes(at.dequantize(to_device(q, CUDA)), at.dequantize(q), "dequantized")
    qg = at.quantize(x.to(CUDA), bits=2, group_size=96, seed=8)
    assert_same_bytes(at.dequantize(to_device(qg, "cpu")), at.dequantize(q), "dequantized")


def test_empty_and_non_contiguous_tensors():
    e = at.quantize(torch.empty(0, 256, device=CUDA), bits=2)
    assert e.packed.numel() == 0 and at.dequantize(e).shape == (0, 256)
    x = torch.randn(64, 40, generator=gen(41))
    want = at.quantize(x.t(), bits=8, group_size=64, seed=2)
    assert_same_quantized(at.quantize(x.to(CUDA).t(), bits=8, group_size=64, seed=2), want)


@pytest.mark.parametrize("bits", range(1, 9))
def test_pack_and_unpack_write_the_cpu_bytes(bits):
    codes = torch.randint(0, 1 << bits, (10001,), dtype=torch.uint8, generator=gen(bits))
    want = at.pack(codes, bits)
    got = at.pack(codes.to(CUDA), bits)
    assert got.device.type == "cuda"
    assert_same_bytes(got, want, "packed")
    assert_same_bytes(at.unpack(got, bits, 10001), codes, "unpacked")
    assert_same_bytes(at.unpack(got, bits, 9999), codes[:9999], "unpacked, shorter")


FEWBIT_CASES = [("gelu", 2), ("gelu", 4), ("silu", 3), ("tanh", 2), ("sigmoid", 8),
                ("relu", 1), ("mish", 2), ("elu", 4)]


@pytest.mark.parametrize("activation,bits", FEWBIT_CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_fewbit_encode_and_backward_write_the_cpu_bytes(activation, bits, dtype):
    t = actq.cached_table(activation, bits, 1.0 if activation == "elu" else 0.0)
    x = (torch.randn(3, 3001, generator=gen(bits)) * 2).to(dtype)
    x[0, :4] = torch.tensor([0.0, -0.0, float("inf"), float("-inf")]).to(dtype)
    g = torch.randn(3, 3001, generator=gen(50 + bits)).to(dtype)
    codes, y = at.fewbit_encode(t, x)
    codes_g, y_g = at.fewbit_encode(t, x.to(CUDA))
    assert_same_bytes(codes_g, codes, "codes")
    assert_same_bytes(y_g, y, "f(x)")
    codes_only, none = at.fewbit_encode(t, x.to(CUDA), with_y=False)
    assert none is None
    assert_same_bytes(codes_only, codes, "codes without y")
    gi = at.fewbit_backward(t, codes_g, g.to(CUDA))
    assert_same_bytes(gi, at.fewbit_backward(t, codes, g), "grad_in")


def test_fewbit_backward_wants_codes_on_the_gradients_device():
    t = actq.cached_table("gelu", 2)
    codes, _ = at.fewbit_encode(t, torch.randn(100))
    with pytest.raises(ValueError, match=r"on grad_out's device \(cuda:0\), got cpu"):
        at.fewbit_backward(t, codes, torch.randn(100, device=CUDA))


def test_calls_run_on_pytorchs_current_stream():
    """The input is written on a side stream after a delay; actq, called on that stream,
    must read it after the write (on any other stream it would read zeros)."""
    src = torch.randn(256, 4096, generator=gen(60))
    want = at.quantize(src, bits=2, seed=5)
    x = torch.zeros(256, 4096, device=CUDA)
    src_g = src.to(CUDA)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(100_000_000)  # ~50 ms of GPU time before the write
        x.copy_(src_g)
        q = at.quantize(x, bits=2, seed=5)
        y = at.dequantize(q)
        codes, fy = at.fewbit_encode(actq.cached_table("gelu", 2), x)
    side.synchronize()
    at.synchronize(CUDA)
    assert_same_quantized(q, want)
    assert_same_bytes(y, at.dequantize(want), "dequantized")
    assert_same_bytes(codes, at.fewbit_encode(actq.cached_table("gelu", 2), src)[0], "codes")


def test_data_errors_are_deferred_to_synchronize():
    x = torch.randn(4, 512, generator=gen(70))
    xg = x.to(CUDA)
    xg[3, 5] = float("inf")  # the last row, so the rows before keep their element indices
    q = at.quantize(xg, bits=2, group_size=256, seed=3)  # no error yet
    with pytest.raises(actq.NonFiniteError, match="nonfinite"):
        at.synchronize(CUDA)
    at.synchronize(CUDA)  # the error was cleared
    # The contract's outputs: NaN metadata and zero codes in the group that met Inf, the
    # CPU's bytes everywhere else.
    gmin = q.group_min.cpu().view(4, 2)
    assert torch.isnan(gmin[3, 0]) and not torch.isnan(gmin[3, 1])
    assert q.packed.cpu().view(4, 128)[3, :64].eq(0).all()
    want = at.quantize(x[:3], bits=2, group_size=256, seed=3)
    assert_same_bytes(q.packed.cpu().view(4, 128)[:3].reshape(-1), want.packed, "packed")
    assert_same_bytes(gmin[:3].reshape(-1), want.group_min, "group_min")

    # pack's codes are checked before the call on every device: an error at once
    with pytest.raises(actq.InvalidArgumentError, match=r"codes\[1\] must be < 8"):
        at.pack(torch.tensor([1, 9, 2], dtype=torch.uint8, device=CUDA), 3)  # 9 >= 2^3
    at.synchronize(CUDA)  # and nothing deferred
    codes, y = at.fewbit_encode(actq.cached_table("gelu", 2),
                                torch.tensor([1.0, float("nan")] * 8, device=CUDA))
    with pytest.raises(actq.NonFiniteError):
        at.synchronize(CUDA)
    assert torch.isnan(y[1]).item()
    assert int(codes[0]) & 0b1100 == 0  # NaN gets code 0
    # Argument errors are returned at once.
    with pytest.raises(actq.InvalidArgumentError):
        at.quantize(xg, bits=9)
    at.synchronize(CUDA)


# --- autograd functions, modules, hooks: CUDA against CPU -----------------------------
# (conftest turns TF32 off: the comparisons are at float32 tolerances.)


def run_both(make, x, gy, seed):
    """Grads of make(quantizer) on CPU and on CUDA, same weights, same input, same seed."""
    out = []
    for device in ("cpu", CUDA):
        torch.manual_seed(0)
        m = make(at.Quantizer(2, group_size=64, seed=seed)).to(device)
        xd = x.detach().to(device).requires_grad_()  # a leaf on each device
        y = m(xd)
        y.backward(gy.to(device))
        at.synchronize(xd.device)
        out.append((y.detach().cpu(), xd.grad.cpu(), [p.grad.cpu() for p in m.parameters()]))
    return out


def test_linear_and_conv2d_give_the_cpu_gradients():
    x = torch.randn(8, 3, 10, 10, generator=gen(80))
    gy = torch.randn(8, 4, 5, 5, generator=gen(81))
    (y, gx, gp), (y_g, gx_g, gp_g) = run_both(
        lambda q: at.nn.Conv2d(3, 4, 3, stride=2, padding=1, quantizer=q), x, gy, 9)
    assert torch.allclose(y_g, y, rtol=1e-5, atol=1e-5)
    assert torch.allclose(gx_g, gx, rtol=1e-5, atol=1e-5)
    for a, b in zip(gp_g, gp):  # from the same dequantized bytes
        assert torch.allclose(a, b, rtol=1e-4, atol=1e-4)
    x = torch.randn(16, 48, generator=gen(82))
    gy = torch.randn(16, 24, generator=gen(83))
    (y, gx, gp), (y_g, gx_g, gp_g) = run_both(lambda q: at.nn.Linear(48, 24, quantizer=q),
                                              x, gy, 10)
    for a, b in zip([y_g, gx_g] + gp_g, [y, gx] + gp):
        assert torch.allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("make", [lambda: at.nn.ReLU(), lambda: at.nn.GELU(2),
                                  lambda: at.nn.SiLU(4)], ids=["relu", "gelu2", "silu4"])
def test_fewbit_modules_give_the_cpu_gradient_bytes(make):
    x = torch.randn(32, 1000, generator=gen(84))
    gy = torch.randn(32, 1000, generator=gen(85))
    grads = []
    for device in ("cpu", CUDA):
        xd = x.detach().to(device).requires_grad_()  # a leaf on each device
        meter = at.SavedTensorMeter()
        with meter.counting():
            y = make()(xd)
        y.backward(gy.to(device))
        grads.append((y, xd.grad, meter.activation_bytes))
    (y, g, held), (y_g, g_g, held_g) = grads
    assert_same_bytes(y_g, y, "forward")
    assert_same_bytes(g_g, g, "input gradient")
    assert held_g == held


def test_hooks_save_the_cpu_bytes_and_give_the_cpu_gradients():
    x = torch.randn(32, 64, generator=gen(86))
    gy = torch.randn(32, 16, generator=gen(87))
    runs = []
    for device in ("cpu", CUDA):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(64, 128), nn.Linear(128, 16)).to(device)
        rec = recording_meter()
        with at.compressed_saved_tensors(quantizer=at.Quantizer(2, seed=12), meter=rec):
            y = model(x.to(device))
        assert all(q.packed.device == y.device for q in rec.quantized)
        y.backward(gy.to(device))
        at.synchronize(y.device)
        runs.append((rec, [p.grad.cpu() for p in model.parameters()]))
    (rec, gp), (rec_g, gp_g) = runs
    assert rec_g.compressed_bytes == rec.compressed_bytes
    assert rec_g.parameter_bytes == rec.parameter_bytes
    # The model's input is the same on both devices: its saved bytes are too. (The second
    # layer's input comes from each device's own matmul and may differ in the last bit.)
    assert_same_quantized(rec_g.quantized[0], rec.quantized[0])
    # The first layer's weight gradient uses the first saved input (the same bytes) and the
    # second layer's weight (exact): float32 rounding apart, the CPU's.
    assert torch.allclose(gp_g[0], gp[0], rtol=1e-4, atol=1e-4)
    for a, b in zip(gp_g[1:], gp[1:]):  # a few codes of the second input may differ
        assert (a - b).norm() < 0.02 * b.norm()


def test_mixed_precision_on_cuda_tensors_chooses_the_cpus_widths():
    x = torch.randn(12, 2048, generator=gen(88))
    x *= torch.logspace(-3, 3, 12)[:, None]  # distinct ranges: no ties between rows
    qs = [at.Quantizer(average_bits=2.0, seed=13), at.Quantizer(average_bits=2.0, seed=13)]
    want = qs[0].compress(x)
    got = qs[1].compress(x.to(CUDA))
    assert_same_quantized(got, want)
    assert qs[0].elements_per_width == qs[1].elements_per_width
    assert_same_bytes(qs[1].decompress(got), qs[0].decompress(want), "dequantized")


def test_backward_on_cuda_runs_on_autograds_thread_with_its_own_context():
    """CUDA backward runs on autograd's device thread: actq gives it that thread's default
    context, on the current stream there; the gradients are then the forward thread's."""
    lin = at.nn.Linear(256, 256, quantizer=at.Quantizer(4, seed=14)).to(CUDA)
    x = torch.randn(64, 256, device=CUDA, requires_grad=True)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = lin(x)
        y.sum().backward()
    side.synchronize()
    q = at.Quantizer(4, seed=14)
    xh = q.decompress(q.compress(x.detach()))
    assert torch.allclose(lin.weight.grad, torch.ones(64, 256, device=CUDA).t().mm(xh),
                          rtol=1e-5, atol=1e-4)
