"""The PyTorch entry points: the same bytes as the NumPy ones, dtypes, errors; on CPU
tensors and, where there is a device, CUDA tensors (test_torch_cuda.py compares the two
byte for byte)."""
import numpy as np
import pytest
import torch

import actq
import actq.torch as at
from conftest import DEVICES, assert_same_bytes


@pytest.mark.parametrize("device", DEVICES)
def test_quantize_writes_the_numpy_bytes(device):
    x = torch.randn(5, 333, generator=torch.Generator().manual_seed(0))
    q = at.quantize(x.to(device), bits=3, group_size=64, seed=9, offset=4)
    assert q.packed.device.type == device
    qn = actq.quantize(x.numpy(), bits=3, group_size=64, seed=9, offset=4)
    assert np.array_equal(q.packed.cpu().numpy(), qn.packed)
    assert np.array_equal(q.group_scale.cpu().numpy(), qn.group_scale)
    y = at.dequantize(q)
    assert y.device.type == device
    assert torch.equal(y.cpu(), torch.from_numpy(actq.dequantize(qn)))


@pytest.mark.parametrize("device", DEVICES)
def test_non_contiguous_and_bfloat16_tensors(device):
    x = torch.randn(64, 40, device=device).t()  # a transposed view
    q = at.quantize(x, bits=8, rounding="nearest", meta_dtype="f16")
    assert q.shape == (40, 64) and q.group_min.dtype == torch.float16
    assert (at.dequantize(q) - x).abs().max() < 0.05
    xb = torch.randn(3, 256, device=device).bfloat16()
    qb = at.quantize(xb, bits=4)
    yb = at.dequantize(qb)
    assert yb.dtype == torch.bfloat16 and yb.device == xb.device
    assert at.dequantize(qb, dtype=torch.float32).dtype == torch.float32
    with pytest.raises(TypeError, match="float32, float16 or bfloat16"):
        at.quantize(torch.zeros(8, dtype=torch.float64))


@pytest.mark.parametrize("device", DEVICES)
def test_per_row_widths_from_a_tensor(device):
    x = torch.randn(4, 512, device=device)
    q = at.quantize(x, row_bits=torch.tensor([1, 2, 4, 8]), rounding="nearest")
    err = (at.dequantize(q) - x).abs().amax(dim=1)
    assert err[0] > err[1] > err[2] > err[3]
    with pytest.raises(ValueError, match="row_bits has 3 entries for 4 rows"):
        at.quantize(x, row_bits=torch.tensor([1, 2, 4]))


@pytest.mark.parametrize("device", DEVICES)
def test_pack_unpack_and_fewbit_on_tensors(device):
    codes = torch.randint(0, 8, (77,), dtype=torch.uint8, device=device)
    packed = at.pack(codes, 3)
    assert torch.equal(at.unpack(packed, 3, 77), codes)
    t = actq.cached_table("gelu", 4)
    x = torch.randn(1000, device=device)
    c, y = at.fewbit_encode(t, x)
    assert torch.allclose(y, torch.nn.functional.gelu(x), atol=1e-6)
    g = torch.randn(1000, device=device)
    gi = at.fewbit_backward(t, c, g)
    idx = torch.from_numpy(np.searchsorted(t.bounds, x.cpu().numpy(), side="left"))
    assert torch.equal(gi.cpu(), g.cpu() * torch.from_numpy(t.levels)[idx])


def test_errors_name_the_argument_or_carry_the_status_string():
    # CPU tensors: at once. CUDA defers data errors to synchronize (test_torch_cuda.py).
    with pytest.raises(actq.ArgumentError, match=r"^codes\[0\] must be < 8 .*got 9$"):
        at.pack(torch.tensor([9], dtype=torch.uint8), 3)
    with pytest.raises(actq.NonFiniteError, match="nonfinite"):
        at.quantize(torch.tensor([[1.0, float("inf")] * 8]))
    with pytest.raises(ValueError):
        at.fewbit_backward(actq.cached_table("gelu", 2), torch.zeros(1, dtype=torch.uint8),
                           torch.randn(100))


def test_allocate_bits_on_tensors():
    bits, obj = at.allocate_bits(torch.tensor([1.0, 100.0]), torch.tensor([10, 10]), 2.0,
                                 allowed=(1, 2, 3))
    assert bits.tolist() == [1, 3] and bits.dtype == torch.uint8


def test_the_byte_comparison_catches_one_byte_a_signed_zero_and_a_nan_payload():
    """The CUDA tests compare against the CPU with assert_same_bytes: it must see what
    torch.equal does not."""
    x = torch.randn(1000)
    assert_same_bytes(x.clone(), x)
    y = x.clone()
    y.view(torch.uint8)[2345] ^= 1
    with pytest.raises(AssertionError, match="1 of 4000 bytes differ, the first at byte 2345"):
        assert_same_bytes(y, x)
    zeros = torch.zeros(4)
    with pytest.raises(AssertionError, match="1 of 16 bytes differ"):
        assert_same_bytes(torch.tensor([0.0, -0.0, 0.0, 0.0]), zeros)
    nan = torch.tensor([float("nan")])
    other_nan = nan.view(torch.int32).add(1).view(torch.float32)
    assert torch.isnan(other_nan).all()
    with pytest.raises(AssertionError, match="bytes differ"):
        assert_same_bytes(other_nan, nan)
    with pytest.raises(AssertionError, match="dtype"):
        assert_same_bytes(x.half(), x)
