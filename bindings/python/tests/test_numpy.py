"""The NumPy entry points against the contract's semantics."""
import numpy as np
import pytest

import actq


def rng(seed=0):
    return np.random.default_rng(seed)


def test_known_bytes_of_one_row():
    # 0,1,2,3 at 2 bits, nearest: m = 0, s = 1, codes 0..3 packed LSB first: 0b11100100.
    q = actq.quantize(np.array([[0, 1, 2, 3]], np.float32), bits=2, group_size=8,
                      rounding="nearest")
    assert q.packed.tolist() == [0xE4]
    assert q.group_min.tolist() == [0.0] and q.group_scale.tolist() == [1.0]
    assert actq.dequantize(q).tolist() == [[0, 1, 2, 3]]


@pytest.mark.parametrize("bits", [1, 2, 4, 8])
def test_error_is_within_one_step_stochastic_and_half_step_nearest(bits):
    x = rng().standard_normal((6, 1000)).astype(np.float32)
    for rounding, steps in (("stochastic", 1.0), ("nearest", 0.5)):
        q = actq.quantize(x, bits=bits, group_size=128, rounding=rounding, seed=3)
        y = actq.dequantize(q)
        assert y.shape == x.shape and y.dtype == np.float32
        scale = np.repeat(q.group_scale.reshape(6, -1), 128, axis=1)[:, :1000]
        assert np.all(np.abs(y - x) <= steps * scale * (1 + 1e-6))


def test_stochastic_rounding_is_unbiased():
    x = rng(1).standard_normal((2, 512)).astype(np.float32)
    ys = np.stack([actq.dequantize(actq.quantize(x, bits=2, seed=5, offset=k))
                   for k in range(400)])
    scale = actq.quantize(x, bits=2).group_scale.max()
    # Each element's noise has variance <= scale^2/4: its mean over 400 draws is within
    # 5 standard errors, scale/2/20 each.
    assert np.all(np.abs(ys.mean(0) - x) <= 5 * scale / 2 / 20)


def test_seed_and_offset_make_it_reproducible_and_different():
    x = rng(2).standard_normal((4, 300)).astype(np.float32)
    a = actq.quantize(x, seed=1, offset=7).packed
    assert np.array_equal(a, actq.quantize(x, seed=1, offset=7).packed)
    assert not np.array_equal(a, actq.quantize(x, seed=1, offset=8).packed)
    assert not np.array_equal(a, actq.quantize(x, seed=2, offset=7).packed)


def test_layout_sizes_and_per_row_widths():
    assert actq.layout_sizes(3, 100, bits=3, group_size=64) == (3 * 38, 6)
    rb = np.array([1, 8, 3], np.uint8)
    assert actq.layout_sizes(3, 100, group_size=64, row_bits=rb) == (13 + 100 + 38, 6)
    x = rng(3).standard_normal((3, 100)).astype(np.float32)
    q = actq.quantize(x, group_size=64, row_bits=rb, rounding="nearest")
    assert q.packed.size == 151 and q.nbytes == 151 + 2 * 6 * 4 + 3
    err = np.abs(actq.dequantize(q) - x).max(axis=1)
    assert err[1] < err[2] < err[0]  # 8 bits beat 3 bits beat 1 bit


def test_half_and_bfloat16_data_and_metadata():
    x = rng(4).standard_normal((2, 64)).astype(np.float16)
    q = actq.quantize(x, bits=8, group_size=64, meta_dtype="bf16", rounding="nearest")
    assert q.group_min.dtype == np.uint16  # bf16 as raw bits
    y = actq.dequantize(q)
    assert y.dtype == np.float16
    assert np.abs(y.astype(np.float32) - x.astype(np.float32)).max() < 0.05
    ybf = actq.dequantize(q, y_dtype="bf16")
    assert ybf.dtype == np.uint16
    as_f32 = (ybf.astype(np.uint32) << 16).view(np.float32)
    assert np.abs(as_f32 - x.astype(np.float32)).max() < 0.05
    with pytest.raises(TypeError):
        actq.quantize(np.zeros(8, np.float64))


def test_bad_input_names_the_argument_and_data_errors_the_library_status_string():
    x = np.zeros((2, 16), np.float32)
    with pytest.raises(actq.InvalidArgumentError, match="^bits must be 1..8, got 9$"):
        actq.quantize(x, bits=9)
    with pytest.raises(actq.InvalidArgumentError, match="^group_size must be a multiple of 8"):
        actq.quantize(x, group_size=12)
    with pytest.raises(actq.InvalidArgumentError, match=r"^codes\[1\] must be < 4 .*got 4$"):
        actq.pack(np.array([0, 4], np.uint8), bits=2)  # 4 >= 2^2
    x[1, 3] = np.nan
    with pytest.raises(actq.NonFiniteError) as e:
        actq.quantize(x, group_size=8)
    assert e.value.status == actq.Status.ERR_NONFINITE
    assert e.value.status_string == actq.status_string(5)


def test_empty_work_is_fine():
    q = actq.quantize(np.zeros((0, 5), np.float32))
    assert q.packed.size == 0 and actq.dequantize(q).shape == (0, 5)
    assert actq.pack(np.zeros(0, np.uint8), 3).size == 0


@pytest.mark.parametrize("bits", range(1, 9))
def test_pack_unpack_round_trip(bits):
    codes = rng(bits).integers(0, 1 << bits, 1001).astype(np.uint8)
    packed = actq.pack(codes, bits)
    assert packed.size == (1001 * bits + 7) // 8
    assert np.array_equal(actq.unpack(packed, bits, 1001), codes)
    # the stream: element c at bits [c*b, c*b + b), least significant bit first
    stream = np.unpackbits(packed, bitorder="little")
    c = 17
    assert int("".join(map(str, stream[c * bits:(c + 1) * bits][::-1])), 2) == codes[c]


def test_fewbit_table_matches_the_documented_error():
    t = actq.FewbitTable.build("gelu", 2)
    assert t.bits == 2 and t.activation == actq.Activation.GELU
    assert t.bounds.size == 3 and t.levels.size == 4
    assert abs(t.error - 8.001e-03) < 5e-6  # README's table
    with pytest.raises(actq.InvalidArgumentError):
        actq.FewbitTable.build("gelu", 2, std=0.0)
    with pytest.raises(ValueError):
        actq.FewbitTable.build("no_such_activation", 2)


def test_fewbit_encode_and_backward():
    t = actq.cached_table("silu", 3)
    x = rng(5).standard_normal(999).astype(np.float32) * 3
    codes, y = actq.fewbit_encode(t, x)
    expected = np.searchsorted(t.bounds, x, side="left")  # number of bounds strictly below
    assert np.array_equal(actq.unpack(codes, 3, x.size), expected)
    assert np.allclose(y, x / (1 + np.exp(-x)), rtol=1e-5, atol=1e-6)
    g = rng(6).standard_normal(999).astype(np.float32)
    gi = actq.fewbit_backward(t, codes, g)
    assert np.array_equal(gi, g * t.levels[expected])
    with pytest.raises(ValueError):
        actq.fewbit_backward(t, codes[:10], g)


def test_custom_table_of_relu_samples_is_exact_at_one_bit():
    x = np.linspace(-3, 3, 601)
    t = actq.FewbitTable.build_custom(x, (x > 0).astype(float), 1)
    assert t.activation == actq.Activation.CUSTOM
    assert t.error < 1e-12 and list(t.levels) == [0.0, 1.0]
    with pytest.raises(actq.InvalidArgumentError):
        actq.FewbitTable.build_custom(x[::-1].copy(), x, 1)  # not increasing


def test_allocate_bits_worked_example():
    # docs/mixed-precision.md, ActNN-style example.
    s = [0.8, 3.1, 0.2, 12.5, 1.7, 0.05, 6.4, 2.2]
    bits, obj = actq.allocate_bits(s, 4096, 2.0, allowed=(1, 2, 4, 8))
    assert bits.tolist() == [2, 2, 1, 4, 2, 1, 2, 2] and abs(obj - 1.883) < 1e-3
    bits, obj = actq.allocate_bits(s, 4096, 2.0, allowed=0x1FE, method="exact")
    assert bits.tolist() == [2, 2, 1, 3, 2, 1, 3, 2]
    with pytest.raises(actq.InvalidArgumentError, match="^average_bits must be >= the narrowest"):
        actq.allocate_bits(s, 4096, 0.5, allowed=(1, 2))  # infeasible
    with pytest.raises(actq.InvalidArgumentError):
        actq.allocate_bits([1.0, float("nan")], 8, 2.0)


def test_a_quantized_prints_as_one_line():
    """repr: shape, dtype, widths, group size, metadata dtype, bytes held and bits per
    element, not the buffers."""
    q = actq.quantize(np.random.default_rng(0).standard_normal((64, 1000), dtype=np.float32),
                      bits=4)
    assert repr(q) == ("Quantized(shape=(64, 1000), dtype=f32, bits=4, group_size=256, "
                       "meta=f32, %d bytes held (%.2f bits per element))"
                       % (q.nbytes, 8 * q.nbytes / 64000))
    assert "\n" not in repr(q) and q.nbytes == 32000 + 2 * 4 * 64 * 4
    mixed = actq.quantize(np.zeros((4, 100), np.float32), bits=2, group_size=16,
                          row_bits=np.array([1, 8, 3, 2], np.uint8))
    assert "bits=per row 1..8, mean 3.50" in repr(mixed)
