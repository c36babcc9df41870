"""Bad input raises a Python exception, never crashes: the public functions refuse a bad
argument at trace time (rules.py, test_arguments.py covers every argument); what they let
through, and the handler library called directly with what they would refuse, come back
as the library's status, through XLA."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import actq_jax as aj
from actq_jax import ops

X = np.linspace(-3, 3, 4 * 64, dtype=np.float32).reshape(4, 64)
COUNTER = np.zeros(4, np.uint32)


def run(f, *args):
    return jax.block_until_ready(f(*args))


def raw_quantize(x, rows, group_size, bits, nbytes, groups, rounding=0):
    """actq_quantize's handler with the given attributes, no Python-side check."""
    return ops._call(
        "actq_quantize",
        (jax.ShapeDtypeStruct((nbytes,), jnp.uint8), jax.ShapeDtypeStruct((groups,), jnp.float32),
         jax.ShapeDtypeStruct((groups,), jnp.float32)),
        x, COUNTER, rows=np.int64(rows), group_size=np.int64(group_size), bits=np.int64(bits),
        rounding=np.int64(rounding))[0]


def raw_table_call(target, x, bits, activation=1, param=0.0):
    attrs = dict(activation=np.int64(activation), param=np.float32(param), bits=np.int64(bits))
    codes = jax.ShapeDtypeStruct((x.size,), jnp.uint8)
    if target == "actq_fewbit_backward":
        return ops._call(target, jax.ShapeDtypeStruct(x.shape, x.dtype),
                         np.zeros(x.size, np.uint8), x, **attrs)
    return ops._call(target, codes, x, **attrs)


@pytest.mark.parametrize("bits", [0, 9])
def test_the_handlers_refuse_unsupported_widths(bits):
    with pytest.raises(jax.errors.JaxRuntimeError, match="invalid argument"):
        run(lambda x: raw_quantize(x, 4, 64, bits, 4 * 64, 4), X)
    for target in ("actq_fewbit_codes", "actq_fewbit_backward"):
        with pytest.raises(jax.errors.JaxRuntimeError, match="fewbit_table_build: invalid"):
            run(lambda x: raw_table_call(target, x, bits), X)


def test_the_handlers_refuse_bad_layouts_and_enums():
    with pytest.raises(jax.errors.JaxRuntimeError, match="invalid argument"):
        run(lambda x: raw_quantize(x, 4, 12, 2, 64, 24), X)  # no multiple of 8
    with pytest.raises(jax.errors.JaxRuntimeError, match="packed holds"):
        run(lambda x: raw_quantize(x, 4, 64, 2, 63, 4), X)
    with pytest.raises(jax.errors.JaxRuntimeError, match="do not split"):
        run(lambda x: raw_quantize(x, 3, 64, 2, 63, 3), X)
    with pytest.raises(jax.errors.JaxRuntimeError, match="invalid argument"):
        run(lambda x: raw_quantize(x, 4, 64, 2, 64, 4, rounding=7), X)
    with pytest.raises(jax.errors.JaxRuntimeError, match="fewbit_table_build: invalid"):
        run(lambda x: raw_table_call("actq_fewbit_codes", x, 2, activation=99), X)


def test_the_handlers_refuse_unsupported_dtypes():
    with pytest.raises(jax.errors.JaxRuntimeError, match="float32, float16 or bfloat16"):
        run(lambda x: raw_table_call("actq_fewbit_codes", x, 2), np.arange(8, dtype=np.int32))


def test_nonfinite_input_raises_the_library_error():
    """On the CPU handlers (the CUDA ones do not report NaN inputs: docs/jax.md)."""
    x = X.copy()
    x[1, 5] = np.nan
    with pytest.raises(jax.errors.JaxRuntimeError, match="nonfinite"):
        run(jax.jit(lambda x: aj.quantize(x, 2, seed=1).packed),
            jax.device_put(x, jax.devices("cpu")[0]))


def test_the_public_functions_refuse_before_any_call():
    """The same bad values through the public functions: ArgumentError at trace time, so
    under jit too, and no ffi_call is made (the handler library is never asked)."""
    calls = []
    real = ops._call
    ops._call = lambda *a, **k: calls.append(a) or real(*a, **k)
    try:
        for f in (lambda x: aj.quantize(x, 9, seed=1).packed,
                  lambda x: aj.quantize(x, 2, 12).packed,
                  lambda x: aj.quantize(x, 2, rounding=7).packed,
                  lambda x: aj.fewbit_codes(x, "gelu", 0),
                  lambda x: aj.fewbit_codes(x, 99, 2)):
            with pytest.raises(aj.ArgumentError):
                run(jax.jit(f), X)
        with pytest.raises(aj.ArgumentTypeError, match="float32, float16 or bfloat16"):
            run(lambda x: aj.fewbit_encode(x)[0], np.arange(8, dtype=np.int32))
    finally:
        ops._call = real
    assert calls == []
