"""The PyTorch entry points: the same bytes as the NumPy ones, dtypes, errors."""
import numpy as np
import pytest
import torch

import actq
import actq.torch as at


def test_quantize_writes_the_numpy_bytes():
    x = torch.randn(5, 333, generator=torch.Generator().manual_seed(0))
    q = at.quantize(x, bits=3, group_size=64, seed=9, offset=4)
    qn = actq.quantize(x.numpy(), bits=3, group_size=64, seed=9, offset=4)
    assert np.array_equal(q.packed.numpy(), qn.packed)
    assert np.array_equal(q.group_scale.numpy(), qn.group_scale)
    y = at.dequantize(q)
    assert torch.equal(y, torch.from_numpy(actq.dequantize(qn)))


def test_non_contiguous_and_bfloat16_tensors():
    x = torch.randn(64, 40).t()  # a transposed view
    q = at.quantize(x, bits=8, rounding="nearest", meta_dtype="f16")
    assert q.shape == (40, 64) and q.group_min.dtype == torch.float16
    assert (at.dequantize(q) - x).abs().max() < 0.05
    xb = torch.randn(3, 256).bfloat16()
    qb = at.quantize(xb, bits=4)
    yb = at.dequantize(qb)
    assert yb.dtype == torch.bfloat16
    assert at.dequantize(qb, dtype=torch.float32).dtype == torch.float32
    with pytest.raises(TypeError, match="float32, float16 or bfloat16"):
        at.quantize(torch.zeros(8, dtype=torch.float64))


def test_per_row_widths_from_a_tensor():
    x = torch.randn(4, 512)
    q = at.quantize(x, row_bits=torch.tensor([1, 2, 4, 8]), rounding="nearest")
    err = (at.dequantize(q) - x).abs().amax(dim=1)
    assert err[0] > err[1] > err[2] > err[3]
    with pytest.raises(ValueError, match="row_bits has 3 entries for 4 rows"):
        at.quantize(x, row_bits=torch.tensor([1, 2, 4]))


def test_pack_unpack_and_fewbit_on_tensors():
    codes = torch.randint(0, 8, (77,), dtype=torch.uint8)
    packed = at.pack(codes, 3)
    assert torch.equal(at.unpack(packed, 3, 77), codes)
    t = actq.cached_table("gelu", 4)
    x = torch.randn(1000)
    c, y = at.fewbit_encode(t, x)
    assert torch.allclose(y, torch.nn.functional.gelu(x), atol=1e-6)
    g = torch.randn(1000)
    gi = at.fewbit_backward(t, c, g)
    idx = torch.from_numpy(np.searchsorted(t.bounds, x.numpy(), side="left"))
    assert torch.equal(gi, g * torch.from_numpy(t.levels)[idx])


def test_errors_carry_the_status_string():
    with pytest.raises(actq.InvalidArgumentError, match="actq_pack: invalid argument"):
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
