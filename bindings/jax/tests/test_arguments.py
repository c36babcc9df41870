"""Every argument of every public entry point, given one bad value (some two), is refused
in Python before any ffi_call, with an exception that names it, shows its value and says
what is allowed, in the words of the actq package's rules (actq_jax/rules.py): an
ArgumentError (a ValueError) for a bad value, an ArgumentTypeError (a TypeError) for an
array of the wrong dtype or something that is no array. `e.argument` is the name and
`e.value` what the message shows after "got"."""
import dataclasses
import math
import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import actq_jax as aj

X = np.linspace(-3, 3, 4 * 64, dtype=np.float32).reshape(4, 64)
XI = np.arange(8, dtype=np.int32)
W = np.ones((64, 3), np.float32)
KEY = jax.random.key(0)
CODES = np.zeros(aj.code_bytes(X.size, 2), np.uint8)
AE, TE = aj.ArgumentError, aj.ArgumentTypeError


def q_with(**fields):
    """A Quantized of X (4 x 64, 2 bits, groups of 64) with some fields replaced."""
    return dataclasses.replace(aj.quantize(X, 2, 64, seed=3), **fields)


Q = aj.quantize(X, 2, 64, seed=3)

# (entry point, lambda giving it one bad argument, exception, argument, value)
CASES = [
    # quantize
    ("quantize", lambda: aj.quantize(XI), TE, "x", "int32"),
    ("quantize", lambda: aj.quantize("abc"), TE, "x", "str"),
    ("quantize", lambda: aj.quantize(X, 9), AE, "bits", 9),
    ("quantize", lambda: aj.quantize(X, 2.0), AE, "bits", 2.0),
    ("quantize", lambda: aj.quantize(X, 2, 7), AE, "group_size", 7),
    ("quantize", lambda: aj.quantize(X, 2, 65544), AE, "group_size", 65544),
    ("quantize", lambda: aj.quantize(X, noise=np.zeros(3, np.uint32)), AE, "noise",
     "uint32[3]"),
    ("quantize", lambda: aj.quantize(X, noise=np.zeros(4, np.float32)), TE, "noise",
     "float32[4]"),
    ("quantize", lambda: aj.quantize(X, seed=-1), AE, "seed", -1),
    ("quantize", lambda: aj.quantize(X, seed=2 ** 64), AE, "seed", 2 ** 64),
    ("quantize", lambda: aj.quantize(X, seed=1.5), AE, "seed", 1.5),
    ("quantize", lambda: aj.quantize(X, seed=jnp.float32(1)), TE, "seed", "float32[]"),
    ("quantize", lambda: aj.quantize(X, offset=-5), AE, "offset", -5),
    ("quantize", lambda: aj.quantize(X, offset=np.zeros(2, np.int32)), TE, "offset",
     "int32[2]"),
    ("quantize", lambda: aj.quantize(X, rounding="up"), AE, "rounding", "up"),
    ("quantize", lambda: aj.quantize(X, meta_dtype="f64"), AE, "meta_dtype", "f64"),
    ("quantize", lambda: aj.quantize(X, rows=3), AE, "rows", 3),
    ("quantize", lambda: aj.quantize(X, rows=-1), AE, "rows", -1),
    ("quantize", lambda: aj.quantize(X, rows=0), AE, "rows", 0),
    # dequantize: the Quantized and each of its fields, then dtype
    ("dequantize", lambda: aj.dequantize(X), TE, "q", "ndarray"),
    ("dequantize", lambda: aj.dequantize(q_with(bits=9)), AE, "q.bits", 9),
    ("dequantize", lambda: aj.dequantize(q_with(group_size=12)), AE, "q.group_size", 12),
    ("dequantize", lambda: aj.dequantize(q_with(shape=(4, -64))), AE, "q.shape", (4, -64)),
    ("dequantize", lambda: aj.dequantize(q_with(rows=3)), AE, "q.rows", 3),
    ("dequantize", lambda: aj.dequantize(q_with(dtype=np.dtype(np.int32))), TE, "q.dtype",
     "int32"),
    ("dequantize", lambda: aj.dequantize(q_with(packed=Q.packed[:-1])), AE, "q.packed", 63),
    ("dequantize", lambda: aj.dequantize(q_with(packed=Q.packed.astype(jnp.int8))), TE,
     "q.packed", "int8"),
    ("dequantize", lambda: aj.dequantize(q_with(bits=3)), AE, "q.packed", 64),
    ("dequantize", lambda: aj.dequantize(q_with(group_min=Q.group_min[:3])), AE,
     "q.group_min", 3),
    ("dequantize", lambda: aj.dequantize(q_with(group_min=Q.group_min.astype(jnp.int32))), TE,
     "q.group_min", "int32"),
    ("dequantize", lambda: aj.dequantize(q_with(group_scale=Q.group_scale.astype(jnp.float16))),
     TE, "q.group_scale", "float16"),
    ("dequantize", lambda: aj.dequantize(q_with(group_scale=Q.group_scale[:2],
                                                group_min=Q.group_min[:2])),
     AE, "q.group_min", 2),
    ("dequantize", lambda: aj.dequantize(q_with(group_scale=jnp.concatenate(
        [Q.group_scale, Q.group_scale]))), AE, "q.group_scale", 8),
    ("dequantize", lambda: aj.dequantize(Q, "f64"), AE, "dtype", "f64"),
    ("dequantize", lambda: aj.dequantize(Q, np.int32), AE, "dtype", "int32"),
    # code_bytes
    ("code_bytes", lambda: aj.code_bytes(-1, 2), AE, "n", -1),
    ("code_bytes", lambda: aj.code_bytes(10, 0), AE, "bits", 0),
    # fewbit_encode and fewbit_codes
    ("fewbit_encode", lambda: aj.fewbit_encode(XI), TE, "x", "int32"),
    ("fewbit_encode", lambda: aj.fewbit_encode(X, "swish"), AE, "activation", "swish"),
    ("fewbit_encode", lambda: aj.fewbit_encode(X, 20), AE, "activation", 20),
    ("fewbit_encode", lambda: aj.fewbit_encode(X, "gelu", 9), AE, "bits", 9),
    ("fewbit_encode", lambda: aj.fewbit_encode(X, "softplus", 2, 0.0), AE, "param", 0.0),
    ("fewbit_encode", lambda: aj.fewbit_encode(X, "elu", 2, -1.0), AE, "param", -1.0),
    ("fewbit_encode", lambda: aj.fewbit_encode(X, "celu", 2, math.nan), AE, "param",
     math.nan),
    ("fewbit_encode", lambda: aj.fewbit_encode(X, "leaky_relu", 2, math.inf), AE, "param",
     math.inf),
    ("fewbit_encode", lambda: aj.fewbit_encode(X, "leaky_relu", 2, 1e39), AE, "param", 1e39),
    ("fewbit_encode", lambda: aj.fewbit_encode(X, "gelu", 2, "a"), AE, "param", "a"),
    ("fewbit_codes", lambda: aj.fewbit_codes(XI), TE, "x", "int32"),
    ("fewbit_codes", lambda: aj.fewbit_codes(X, "Swish"), AE, "activation", "Swish"),
    ("fewbit_codes", lambda: aj.fewbit_codes(X, "gelu", 0), AE, "bits", 0),
    ("fewbit_codes", lambda: aj.fewbit_codes(X, "softplus", 2, -2.0), AE, "param", -2.0),
    # fewbit_backward
    ("fewbit_backward", lambda: aj.fewbit_backward(CODES.astype(np.int32), X), TE, "codes",
     "int32"),
    ("fewbit_backward", lambda: aj.fewbit_backward(CODES[:-1], X), AE, "codes", 63),
    ("fewbit_backward", lambda: aj.fewbit_backward(CODES, X, "gelu", 3), AE, "codes", 64),
    ("fewbit_backward", lambda: aj.fewbit_backward(CODES, X.astype(np.int32)), TE, "grad",
     "int32"),
    ("fewbit_backward", lambda: aj.fewbit_backward(CODES, X, "swish"), AE, "activation",
     "swish"),
    ("fewbit_backward", lambda: aj.fewbit_backward(CODES, X, "gelu", 9), AE, "bits", 9),
    ("fewbit_backward", lambda: aj.fewbit_backward(CODES, X, "elu", 2, 0.0), AE, "param", 0.0),
    # the layers
    ("fewbit_activation", lambda: aj.fewbit_activation(XI), TE, "x", "int32"),
    ("fewbit_activation", lambda: aj.fewbit_activation(X, "swish"), AE, "activation",
     "swish"),
    ("fewbit_activation", lambda: aj.fewbit_activation(X, "gelu", 9), AE, "bits", 9),
    ("fewbit_activation", lambda: aj.fewbit_activation(X, "celu", 2, 0.0), AE, "param", 0.0),
    ("gelu", lambda: aj.gelu(XI), TE, "x", "int32"),
    ("gelu", lambda: aj.gelu(X, 9), AE, "bits", 9),
    ("dense", lambda: aj.dense(X.astype(np.int32), W, noise=KEY), TE, "x", "int32"),
    ("dense", lambda: aj.dense(np.float32(1), W, noise=KEY), AE, "x", ()),
    ("dense", lambda: aj.dense(X, W.astype(np.int32), noise=KEY), TE, "w", "int32"),
    ("dense", lambda: aj.dense(X, np.ones(64, np.float32), noise=KEY), AE, "w", (64,)),
    ("dense", lambda: aj.dense(X, np.ones((32, 3), np.float32), noise=KEY), AE, "w", 32),
    ("dense", lambda: aj.dense(X, W, np.ones(4, np.float32), KEY), AE, "b", (4,)),
    ("dense", lambda: aj.dense(X, W, np.ones(3, np.int32), KEY), TE, "b", "int32"),
    ("dense", lambda: aj.dense(X, W), AE, "noise", None),
    ("dense", lambda: aj.dense(X, W, None, np.zeros(5, np.uint32)), AE, "noise", "uint32[5]"),
    ("dense", lambda: aj.dense(X, W, None, KEY, bits=9), AE, "bits", 9),
    ("dense", lambda: aj.dense(X, W, None, KEY, group_size=7), AE, "group_size", 7),
    ("dense", lambda: aj.dense(X, W, None, KEY, rounding="up"), AE, "rounding", "up"),
    ("dense", lambda: aj.dense(X, W, None, KEY, meta_dtype="f64"), AE, "meta_dtype", "f64"),
    ("dense", lambda: aj.dense(X, W, None, KEY, rows=3), AE, "rows", 3),
    # the noise helpers
    ("as_noise", lambda: aj.as_noise(np.zeros(3, np.uint32)), AE, "noise", "uint32[3]"),
    ("as_noise", lambda: aj.as_noise(np.zeros(4, np.int32)), TE, "noise", "int32[4]"),
    ("as_noise", lambda: aj.as_noise(jax.random.split(KEY, 2)), AE, "noise", "key<fry>[2]"),
    ("as_noise", lambda: aj.as_noise(jnp.zeros((2, 4), jnp.uint32)), AE, "noise",
     "uint32[2,4]"),
    ("as_noise", lambda: aj.as_noise(object()), TE, "noise", "object"),
    ("noise_counter", lambda: aj.noise_counter(-1), AE, "seed", -1),
    ("noise_counter", lambda: aj.noise_counter(jnp.float32(1)), TE, "seed", "float32[]"),
    ("noise_counter", lambda: aj.noise_counter(1, 2 ** 64), AE, "offset", 2 ** 64),
    ("noise_counter", lambda: aj.noise_counter(1, True), AE, "offset", True),
    ("noise_from_key", lambda: aj.noise_from_key(np.zeros(3, np.uint32)), AE, "key",
     "uint32[3]"),
    ("noise_from_key", lambda: aj.noise_from_key(np.zeros(2, np.float32)), TE, "key",
     "float32[2]"),
    ("noise_from_key", lambda: aj.noise_from_key(jax.random.split(KEY, 3)), AE, "key",
     "key<fry>[3]"),
    ("rows_cols", lambda: aj.rows_cols((2, -1)), AE, "shape", (2, -1)),
    ("rows_cols", lambda: aj.rows_cols((4, 64), 3), AE, "rows", 3),
    ("rows_cols", lambda: aj.rows_cols((4, 64), "2"), AE, "rows", "2"),
]


@pytest.mark.parametrize("entry, call, exc, argument, value", CASES,
                         ids=["%s-%s-%d" % (c[0], c[3], i) for i, c in enumerate(CASES)])
def test_a_bad_argument_is_named_with_its_value(entry, call, exc, argument, value):
    with pytest.raises(exc) as info:
        call()
    e = info.value
    msg = str(e)
    assert type(e) is exc, "%s: %r" % (type(e).__name__, msg)
    assert e.argument == argument, msg
    assert msg.startswith(argument + " "), msg
    assert str(value) in msg, msg
    if isinstance(value, float) and math.isnan(value):
        assert math.isnan(e.value)
    else:
        assert e.value == value, (e.value, msg)
    assert " must be " in msg or " has " in msg, msg


def test_every_public_entry_point_has_cases():
    functions = {n for n in dir(aj) if not n.startswith("_") and callable(getattr(aj, n))
                 and not isinstance(getattr(aj, n), type)}
    assert "quantize" in functions and "dense" in functions
    # ensure_registered takes no argument
    assert functions - {c[0] for c in CASES} == {"ensure_registered"}


# The wording is the actq package's (bindings/python/actq/rules.py), word for word.
@pytest.mark.parametrize("call, exc, message", [
    (lambda: aj.quantize(X, 9), AE, "bits must be 1..8, got 9"),
    (lambda: aj.quantize(X, 2, 7), AE, "group_size must be a multiple of 8 in 8..65536, got 7"),
    (lambda: aj.quantize(X, rounding="up"), AE,
     "rounding must be one of stochastic, nearest, got 'up'"),
    (lambda: aj.quantize(X, meta_dtype="f64"), AE,
     "meta_dtype must be one of f32, f16, bf16, got 'f64'"),
    (lambda: aj.quantize(X, seed=-1), AE, "seed must be an integer in 0..2^64-1, got -1"),
    (lambda: aj.quantize(X, rows=3), AE,
     "rows must be a divisor of the 256 elements of x, got 3"),
    (lambda: aj.fewbit_encode(XI), TE, "x must be float32, float16 or bfloat16, got int32"),
    (lambda: aj.fewbit_encode(X, "softplus", 2, 0.0), AE,
     "param must be > 0 (softplus beta), got 0.0"),
    (lambda: aj.fewbit_encode(X, "leaky_relu", 2, math.inf), AE,
     "param must be finite (leaky_relu negative slope), got inf"),
    (lambda: aj.fewbit_encode(X, "swish"), AE,
     "activation must be one of " + ", ".join(aj.ACTIVATIONS) + ", got 'swish'"),
    (lambda: aj.fewbit_backward(CODES[:-1], X), AE,
     "codes has 63 bytes, grad (256 elements at 2 bits) needs 64"),
    (lambda: aj.dequantize(q_with(packed=Q.packed[:-1])), AE,
     "q.packed has 63 bytes, the layout (4 x 64 at 2 bits, groups of 64) needs 64"),
    (lambda: aj.as_noise(np.zeros(3, np.uint32)), AE,
     "noise must be a uint32[4] noise counter or a PRNG key (jax.random.key, uint32[2]), "
     "got uint32[3]"),
])
def test_the_messages_are_the_rules_words(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message


def test_checks_run_at_trace_time_under_jit_grad_and_vmap():
    """A bad static argument is refused while tracing (no ffi_call is made); traced
    values (the data, a traced seed) are not inspected, so good calls still compile."""
    with pytest.raises(AE, match="bits must be 1..8, got 9"):
        jax.jit(lambda x: aj.quantize(x, 9).packed)(X)
    with pytest.raises(AE, match="activation"):
        jax.grad(lambda x: aj.fewbit_activation(x, "swish").sum())(X)
    with pytest.raises(AE, match="codes has"):
        jax.vmap(lambda c, g: aj.fewbit_backward(c, g, "gelu", 2))(
            np.zeros((4, 15), np.uint8), X)
    with pytest.raises(TE, match="seed must be"):
        jax.jit(lambda s: aj.noise_counter(s))(jnp.float32(1))
    counter = jax.jit(lambda s, o: aj.noise_counter(s, o))(np.uint32(7), np.int32(3))
    assert np.asarray(counter).tolist() == [7, 0, 3, 0]


def test_good_spellings_are_accepted():
    """Enums in any case or as their C values, dtypes as names or dtypes."""
    a = aj.quantize(X, 2, 64, seed=1, rounding="NEAREST", meta_dtype=jnp.float16)
    b = aj.quantize(X, 2, 64, seed=1, rounding=1, meta_dtype="f16")
    assert np.array_equal(a.packed, b.packed) and a.group_min.dtype == jnp.float16
    assert aj.dequantize(a, "BF16").dtype == jnp.bfloat16
    assert np.array_equal(aj.fewbit_codes(X, "GELU", 2), aj.fewbit_codes(X, 1, 2))
    assert aj.rows_cols((4, 64), 8) == (8, 32) and aj.rows_cols((0, 5)) == (0, 0)


def test_the_errors_are_value_and_type_errors_and_pickle():
    assert issubclass(AE, ValueError) and issubclass(TE, TypeError)
    for exc in (AE, TE):
        e = pickle.loads(pickle.dumps(exc("bits", 9, "bits must be 1..8, got 9")))
        assert (type(e), e.argument, e.value, str(e)) == (exc, "bits", 9,
                                                          "bits must be 1..8, got 9")
