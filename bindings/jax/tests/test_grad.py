"""Gradients of the custom_vjp layers against uncompressed ones, with the bounds the PyTorch
tests use (bindings/python/tests/test_autograd.py).

The few-bit GELU's derivative error is the table's: under N(0,1) inputs its mean square is
the table's objective. The dense layer's weight gradient enters the quantized input
linearly, so stochastic rounding makes it unbiased: the mean over independent noise
converges to the exact gradient, and each draw is off by at most the quantization step.
"""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import actq
import actq_jax as aj
from conftest import assert_same_bytes


# NumPy makes the data: XLA compiles jax.random's samplers slowly on a busy CPU.
def normal(seed, shape, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def exact_gelu_and_derivative(x):
    x = x.astype(np.float64)
    phi = np.exp(-x * x / 2) / math.sqrt(2 * math.pi)
    cdf = 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))
    return x * cdf, cdf + x * phi


@pytest.mark.parametrize("bits", [2, 4])
def test_fewbit_gelu_gradient_error_is_the_tables_error(bits):
    x = normal(5, (400_000,))
    y, vjp = jax.vjp(lambda x: aj.gelu(x, bits), x)
    (g,) = vjp(jnp.ones_like(y))
    y_exact, g_exact = exact_gelu_and_derivative(x)
    mse = float(np.mean((np.asarray(g, np.float64) - g_exact) ** 2))
    table_error = actq.cached_table("gelu", bits).error
    assert abs(mse - table_error) < 0.03 * table_error
    assert np.allclose(np.asarray(y), y_exact, rtol=0, atol=1e-6)


def test_fewbit_gradient_is_the_librarys_under_jit():
    x, gy = normal(6, (3, 1001)), normal(7, (3, 1001))
    grad = jax.jit(jax.grad(lambda x: jnp.vdot(aj.fewbit_activation(x, "silu", 3), gy)))
    t = actq.cached_table("silu", 3)
    codes, _ = actq.fewbit_encode(t, x)
    assert_same_bytes(grad(x), actq.fewbit_backward(t, codes, gy), "grad")


def mean_and_sem(samples):
    s = np.asarray(samples, np.float64)
    return s.mean(0), s.std(0, ddof=1) / len(samples) ** 0.5


@pytest.mark.parametrize("bits", [2, 4])
def test_dense_weight_gradient_is_unbiased_and_input_gradient_exact(bits):
    x, w, b, gy = normal(1, (16, 48)), normal(2, (48, 24), 1 / 7), normal(3, (24,)), \
        normal(4, (16, 24))
    gx_ref, gw_ref, gb_ref = (np.asarray(a, np.float64) for a in (gy @ w.T, x.T @ gy,
                                                                  gy.sum(0)))

    def draw(noise):
        y, vjp = jax.vjp(lambda x, w, b: aj.dense(x, w, b, noise, bits=bits, group_size=64),
                         x, w, b)
        return (y, *vjp(gy))

    # 300 independent draws in one compiled program: vmap over noise counters
    counters = jnp.stack([aj.noise_counter(1000 + bits, i) for i in range(300)])
    y, gx, gw, gb = jax.jit(jax.vmap(draw))(counters)
    # The forward is the plain x @ w + b (XLA may fuse it differently under vmap: no bytes)
    assert np.allclose(y, x.astype(np.float64) @ w + b, rtol=0, atol=1e-5)
    assert np.allclose(gx, gx_ref, rtol=0, atol=1e-5)  # needs the weight only
    assert np.allclose(gb, gb_ref, rtol=0, atol=1e-5)
    draws = np.asarray(gw)
    assert not np.array_equal(draws[0], draws[1])  # each counter its own noise
    mean, sem = mean_and_sem(draws)
    assert (np.abs(mean - gw_ref) <= 5 * sem + 1e-6).mean() > 0.999
    assert np.linalg.norm(mean - gw_ref) < 2 * np.linalg.norm(sem)
    # One draw: |gy^T (x^ - x)| <= sum_n |gy_n| * step_n, step <= range / (2^b - 1)
    step = float(x.max() - x.min()) / (2 ** bits - 1)
    bound = np.abs(gy).sum(0)[None, :] * step + 1e-5
    assert np.all(np.abs(draws[0] - gw_ref) <= bound)


def test_dense_noise_is_reproducible_per_key_and_differs_between_keys():
    x, w = normal(8, (4, 8, 32)), normal(9, (32, 5))  # leading dimensions are kept
    traces = []  # Python runs a jitted function's body once per compilation

    def loss(w, key):
        traces.append(1)
        return aj.dense(x, w, None, key).sum()

    gw = jax.jit(jax.grad(loss))
    a, a2 = gw(w, jax.random.key(10)), gw(w, jax.random.key(10))
    c = gw(w, jax.random.key(11))
    assert jnp.array_equal(a, a2)
    assert not jnp.array_equal(a, c)
    assert len(traces) == 1  # new noise, no recompilation
    # The draw is x dequantized: the same bytes as the ctypes binding gives for the key
    bits = [int(v) for v in np.asarray(jax.random.bits(jax.random.key(10), (4,), jnp.uint32))]
    r = actq.quantize(np.asarray(x), 2, 256, seed=bits[0] | bits[1] << 32,
                      offset=bits[2] | bits[3] << 32)
    xh = actq.dequantize(r).reshape(-1, 32)
    # float32 products on a GPU too (XLA's default there may take TF32's 10-bit mantissa)
    with jax.default_matmul_precision("highest"):
        a = gw(w, jax.random.key(10))
    assert jnp.allclose(a, xh.T @ np.ones((xh.shape[0], 5), np.float32), rtol=1e-5, atol=1e-5)


def test_dense_in_bfloat16_and_nearest_rounding():
    x = jnp.asarray(normal(10, (8, 64)), jnp.bfloat16)
    w = jnp.asarray(normal(11, (64, 3)), jnp.bfloat16)
    b = jnp.zeros((3,), jnp.bfloat16)

    @jax.jit
    def run(x, w, b):
        y, vjp = jax.vjp(lambda x, w, b: aj.dense(x, w, b, rounding="nearest", bits=8),
                         x, w, b)
        return (y, *vjp(jnp.ones_like(y)))

    y, gx, gw, gb = run(x, w, b)
    assert y.dtype == gx.dtype == gw.dtype == gb.dtype == jnp.bfloat16
    exact = np.asarray(x, np.float32).T @ np.ones((8, 3), np.float32)
    assert np.allclose(np.asarray(gw, np.float32), exact, rtol=0.02, atol=0.05)
