"""Every raw operation writes exactly the bytes the C library writes through the ctypes
binding, eagerly and under jax.jit, and the noise counter reaches the library intact."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import actq
import actq_jax as aj
from conftest import as_ctypes_input, assert_same_bytes

DTYPES = [jnp.float32, jnp.float16, jnp.bfloat16]


def data(shape, dtype=jnp.float32, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * 3 + 0.5
    return np.asarray(jnp.asarray(x, dtype))


def reference_quantize(x, bits, group_size, **kw):
    xr, xd = as_ctypes_input(x)
    return actq.quantize(xr, bits, group_size, x_dtype=xd, **kw)


def assert_same_quantized(q, r):
    assert_same_bytes(q.packed, r.packed, "packed")
    assert_same_bytes(q.group_min, r.group_min, "group_min")
    assert_same_bytes(q.group_scale, r.group_scale, "group_scale")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bits", [1, 3, 8])  # 2 and 4: the tests below
def test_quantize_and_dequantize_bytes_equal_the_librarys(bits, dtype):
    # 3-D, with a row length (7 * 45 = 315) that is no multiple of the group size
    x = data((6, 7, 45), dtype, seed=bits)
    for rounding in ("stochastic", "nearest"):
        q = aj.quantize(x, bits, 64, seed=2 ** 40 + 17, offset=9, rounding=rounding)
        r = reference_quantize(x, bits, 64, seed=2 ** 40 + 17, offset=9, rounding=rounding)
        assert (q.rows, q.shape, q.dtype) == (6, x.shape, x.dtype)
        assert_same_quantized(q, r)
        y = aj.dequantize(q)
        assert y.shape == x.shape and y.dtype == x.dtype
        assert_same_bytes(y, actq.dequantize(r), "dequantized")


@pytest.mark.parametrize("meta", ["f16", "bf16"])
def test_narrow_metadata_and_explicit_rows(meta):
    x = data((4, 96), seed=3)
    q = aj.quantize(x, 4, 32, seed=1, meta_dtype=meta, rows=8)
    r = reference_quantize(x, 4, 32, seed=1, meta_dtype=meta, rows=8)
    assert q.group_min.dtype == aj.ops.DTYPES[meta] and q.group_min.shape == (8 * 2,)
    assert_same_quantized(q, r)
    assert_same_bytes(aj.dequantize(q), actq.dequantize(r), "dequantized")
    assert_same_bytes(aj.dequantize(q, "bf16"), actq.dequantize(r, "bf16"), "as bf16")


def test_jit_passes_the_noise_counter_as_data():
    x = data((16, 256), seed=4)
    traces = []  # Python runs a jitted function's body once per compilation

    def quantize(x, noise):
        traces.append(1)
        return aj.quantize(x, 2, noise=noise)

    f = jax.jit(quantize)
    for seed, offset in [(5, 0), (5, 1), (2 ** 63 + 11, 2 ** 33 + 2)]:
        q = f(x, aj.noise_counter(seed, offset))
        assert_same_quantized(q, reference_quantize(x, 2, 256, seed=seed, offset=offset))
    # traced integer scalars work as seed and offset too
    g = jax.jit(lambda x, s, o: aj.quantize(x, 2, noise=aj.noise_counter(s, o)))
    q = g(x, jnp.uint32(7), jnp.int32(3))
    assert_same_quantized(q, reference_quantize(x, 2, 256, seed=7, offset=3))
    assert len(traces) == 1  # one compilation for all seeds


def test_noise_from_a_key_is_the_counter_of_its_bits():
    x = data((8, 128), seed=5)
    key = jax.random.key(42)
    w = [int(v) for v in np.asarray(jax.random.bits(key, (4,), jnp.uint32))]
    want = reference_quantize(x, 3, 128, seed=w[0] | w[1] << 32, offset=w[2] | w[3] << 32)
    assert_same_quantized(aj.quantize(x, 3, 128, noise=key), want)
    assert_same_quantized(aj.quantize(x, 3, 128, noise=jax.random.PRNGKey(42)), want)
    other = aj.quantize(x, 3, 128, noise=jax.random.key(43))
    assert not np.array_equal(np.asarray(other.packed), want.packed)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation,bits", [("gelu", 1), ("gelu", 2), ("gelu", 3),
                                             ("silu", 4), ("tanh", 2)])
def test_fewbit_bytes_equal_the_librarys(activation, bits, dtype):
    x = data((5, 333), dtype, seed=bits)
    gy = data((5, 333), dtype, seed=bits + 10)
    t = actq.cached_table(activation, bits)
    xr, d = as_ctypes_input(x)
    codes_ref, y_ref = actq.fewbit_encode(t, xr, dtype=d)
    gr, _ = as_ctypes_input(gy)
    gi_ref = actq.fewbit_backward(t, codes_ref, gr, dtype=d)

    enc = jax.jit(lambda x: aj.fewbit_encode(x, activation, bits))
    back = jax.jit(lambda c, g: aj.fewbit_backward(c, g, activation, bits))
    for codes, y in [aj.fewbit_encode(x, activation, bits), enc(x)]:
        assert codes.shape == (aj.code_bytes(x.size, bits),)
        assert_same_bytes(codes, codes_ref, "codes")
        assert y.dtype == x.dtype
        assert_same_bytes(y, y_ref, "y")
    assert_same_bytes(aj.fewbit_codes(x, activation, bits), codes_ref, "codes only")
    for gi in [aj.fewbit_backward(codes_ref, gy, activation, bits), back(codes_ref, gy)]:
        assert gi.shape == gy.shape and gi.dtype == gy.dtype
        assert_same_bytes(gi, gi_ref, "grad_in")


def test_vmap_runs_one_call_per_element():
    # packed codes of a batch are not the batch's packed codes (3 bits, 7 elements per row)
    x = data((4, 7), seed=6)
    codes = jax.vmap(lambda r: aj.fewbit_codes(r, "gelu", 3))(x)
    t = actq.cached_table("gelu", 3)
    for i in range(4):
        assert_same_bytes(codes[i], actq.fewbit_encode(t, x[i], with_y=False)[0], "row")


def test_a_quantized_prints_as_one_line():
    """repr: what it stands for and what it holds, as the actq package's records print."""
    x = jnp.asarray(np.random.default_rng(0).standard_normal((64, 1000), dtype=np.float32))
    q = aj.quantize(x, bits=4, seed=1)
    assert repr(q) == ("Quantized(shape=(64, 1000), dtype=f32, bits=4, group_size=256, "
                       "meta=f32, %d bytes held (%.2f bits per element))"
                       % (q.nbytes, 8 * q.nbytes / 64000))
    assert q.nbytes == 32000 + 2 * 4 * 64 * 4
