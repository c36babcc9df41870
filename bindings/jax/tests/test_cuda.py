"""The CUDA handlers (where JAX has a GPU): every operation on a GPU array writes the bytes
the CPU handlers write for the same input, eagerly and under jax.jit, and the layers'
gradients agree. Skipped without a CUDA device; ACTQ_TEST_REQUIRE_CUDA=1 (the GPU
machine's check) makes a missing device an error instead."""
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import actq_jax as aj
from conftest import assert_same_bytes


def _gpu():
    try:
        return jax.devices("cuda")[0]
    except RuntimeError:
        return None


GPU = _gpu()
if GPU is None and os.environ.get("ACTQ_TEST_REQUIRE_CUDA") == "1":
    raise RuntimeError("ACTQ_TEST_REQUIRE_CUDA=1, but JAX sees no CUDA device")
pytestmark = pytest.mark.skipif(GPU is None, reason="JAX sees no CUDA device")
CPU = jax.devices("cpu")[0]
DTYPES = [jnp.float32, jnp.float16, jnp.bfloat16]


def both(x):
    """x on the CPU and on the GPU."""
    return jax.device_put(x, CPU), jax.device_put(x, GPU)


def data(shape, dtype, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * 3 + 0.5
    return jnp.asarray(x, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bits", [1, 2, 4, 8])
@pytest.mark.parametrize("rounding", ["stochastic", "nearest"])
def test_quantize_dequantize_same_bytes_as_cpu(dtype, bits, rounding):
    xc, xg = both(data((6, 7, 45), dtype, seed=bits))  # rows of 315: no multiple of 64
    kw = dict(seed=2 ** 40 + 17, offset=9, rounding=rounding)
    qc, qg = aj.quantize(xc, bits, 64, **kw), aj.quantize(xg, bits, 64, **kw)
    for f in ("packed", "group_min", "group_scale"):
        assert_same_bytes(getattr(qg, f), getattr(qc, f), f)
    assert_same_bytes(aj.dequantize(qg), aj.dequantize(qc), "dequantized")


def test_jit_noise_counter_from_a_device_array():
    xc, xg = both(data((16, 256), jnp.float32, seed=4))
    f = jax.jit(lambda x, n: aj.quantize(x, 2, 256, noise=n).packed)
    for step in range(3):
        n = aj.ops.noise_counter(7, step)
        assert_same_bytes(f(xg, jax.device_put(n, GPU)), f(xc, jax.device_put(n, CPU)),
                          "packed, step %d" % step)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation", ["gelu", "silu", "tanh", "elu"])
@pytest.mark.parametrize("bits", [2, 5])
def test_fewbit_same_bytes_as_cpu(dtype, activation, bits):
    xc, xg = both(data((3, 1001), dtype, seed=bits))
    p = 1.0 if activation == "elu" else 0.0  # ELU: the kernel of the run-time activation
    (cc, yc), (cg, yg) = (aj.ops.fewbit_encode(x, activation, bits, p) for x in (xc, xg))
    assert_same_bytes(cg, cc, "codes")
    assert_same_bytes(yg, yc, "y")
    assert_same_bytes(aj.ops.fewbit_codes(xg, activation, bits, p), cc, "codes without y")
    gc, gg = both(data((3, 1001), dtype, seed=9))
    assert_same_bytes(aj.ops.fewbit_backward(cg, gg, activation, bits, p),
                      aj.ops.fewbit_backward(cc, gc, activation, bits, p), "grad_in")


def test_layers_grad_same_as_cpu():
    """Within float32 rounding, not to the byte: the layers' matrix products are XLA's
    (cuBLAS and Eigen sum in different orders; products in true float32 here). The
    operations under them are compared byte for byte above."""
    xc, xg = both(data((8, 512), jnp.float32, seed=5))
    wc, wg = both(data((512, 64), jnp.float32, seed=6) * 0.05)
    n = aj.ops.noise_counter(3, 0)

    def loss(x, w, noise):
        return jnp.sum(aj.dense(aj.gelu(x, bits=2), w, noise=noise, bits=2) ** 2)

    g = jax.jit(jax.grad(loss, argnums=(0, 1)))
    with jax.default_matmul_precision("highest"):
        for a, b in zip(g(xg, wg, jax.device_put(n, GPU)), g(xc, wc, jax.device_put(n, CPU))):
            a, b = np.asarray(a), np.asarray(b)
            assert a.dtype == b.dtype and a.shape == b.shape
            assert np.allclose(a, b, rtol=1e-4, atol=1e-5 * np.abs(b).max())
