"""Bad input raises a Python exception (the library's status, through XLA), never crashes."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import actq_jax as aj

X = np.linspace(-3, 3, 4 * 64, dtype=np.float32).reshape(4, 64)


def run(f, *args):
    return jax.block_until_ready(f(*args))


@pytest.mark.parametrize("bits", [0, 9])
def test_unsupported_widths_raise(bits):
    with pytest.raises(jax.errors.JaxRuntimeError, match="invalid argument"):
        run(lambda x: aj.quantize(x, bits, seed=1).packed, X)
    with pytest.raises(jax.errors.JaxRuntimeError, match="fewbit_table_build: invalid"):
        run(lambda x: aj.fewbit_encode(x, "gelu", bits)[0], X)
    with pytest.raises(jax.errors.JaxRuntimeError, match="fewbit_table_build: invalid"):
        run(jax.jit(lambda c, g: aj.fewbit_backward(c, g, "gelu", bits)),
            np.zeros(aj.code_bytes(X.size, bits), np.uint8), X)


def test_bad_layouts_raise():
    with pytest.raises(jax.errors.JaxRuntimeError, match="invalid argument"):
        run(lambda x: aj.quantize(x, 2, 12).packed, X)  # no multiple of 8
    q = aj.quantize(X, 2, 64, seed=3)
    wrong = aj.Quantized(q.packed[:-1], q.group_min, q.group_scale, q.rows, q.group_size,
                         q.bits, q.shape, q.dtype)
    with pytest.raises(jax.errors.JaxRuntimeError, match="packed holds"):
        run(aj.dequantize, wrong)
    with pytest.raises(ValueError, match="do not split"):
        aj.quantize(X, 2, rows=3)


def test_nonfinite_input_raises_the_library_error():
    x = X.copy()
    x[1, 5] = np.nan
    with pytest.raises(jax.errors.JaxRuntimeError, match="nonfinite"):
        run(jax.jit(lambda x: aj.quantize(x, 2, seed=1).packed), x)


def test_python_side_checks():
    with pytest.raises(ValueError, match="activation"):
        aj.fewbit_encode(X, "swish")
    with pytest.raises(ValueError, match="rounding"):
        aj.quantize(X, 2, rounding="up")
    with pytest.raises(ValueError, match="needs noise"):
        aj.dense(X, jnp.ones((64, 2)))
    with pytest.raises(TypeError, match="noise counter"):
        aj.dense(X, jnp.ones((64, 2)), noise=jnp.zeros(3, jnp.uint32))
    with pytest.raises(ValueError, match="outside"):
        aj.noise_counter(-1)
    with pytest.raises(TypeError, match="integer scalar"):
        aj.noise_counter(jnp.float32(1))


def test_unsupported_dtype_raises():
    with pytest.raises(jax.errors.JaxRuntimeError, match="float32, float16 or bfloat16"):
        run(lambda x: aj.fewbit_encode(x)[0], np.arange(8, dtype=np.int32))
