"""The raw operations: one jax.ffi.ffi_call each, usable under jax.jit (CPU only).

They make the choices of the ctypes and PyTorch bindings (bindings/python/actq), so their
bytes can be compared with those: a tensor is quantized as rows x cols with rows its first
dimension (one row for 0-d and 1-d), groups of 256, float32 metadata; few-bit tables are
the library's optimal tables for N(0,1) inputs. Sizes are computed here only to declare
the result shapes; the library validates every argument and a bad one (bits outside 1..8,
a group size that is no multiple of 8, ...) raises at execution, never crashes.

Stochastic rounding draws its noise from Philox keyed by a 64-bit seed with a 64-bit
offset in the counter. Both travel as a uint32[4] array, the *noise counter* (seed low
word, seed high word, offset low word, offset high word): an ordinary traced input, so a
jitted function called with a new counter draws new noise without recompiling.
"""
import dataclasses
import functools
from typing import Tuple

import jax
import jax.numpy as jnp
import numpy as np

from . import _ffi

# fewbit_activation of include/fewbit.h (the built-in ones; custom tables are not offered).
ACTIVATIONS = {name: i for i, name in enumerate(
    ["gelu", "gelu_tanh", "silu", "sigmoid", "tanh", "softplus", "elu", "selu", "celu",
     "mish", "hardswish", "hardsigmoid", "hardtanh", "softsign", "logsigmoid", "tanhshrink",
     "relu", "relu6", "leaky_relu"], start=1)}
ROUNDINGS = {"stochastic": 0, "nearest": 1}
DTYPES = {"f32": jnp.float32, "f16": jnp.float16, "bf16": jnp.bfloat16}
_MASK32 = 0xFFFFFFFF


@functools.partial(jax.tree_util.register_dataclass,
                   data_fields=["packed", "group_min", "group_scale"],
                   meta_fields=["rows", "group_size", "bits", "shape", "dtype"])
@dataclasses.dataclass(frozen=True, repr=False)
class Quantized:
    """The packed form of one array: what quantize returns and dequantize takes. A pytree
    (its arrays are leaves), so it can be returned from jit or saved as a residual."""
    packed: jax.Array       # uint8[packed_bytes]
    group_min: jax.Array    # meta dtype [groups]
    group_scale: jax.Array
    rows: int
    group_size: int
    bits: int
    shape: Tuple[int, ...]  # the original array's shape
    dtype: np.dtype         # and dtype

    @property
    def nbytes(self):
        """Bytes held: packed codes and both metadata arrays."""
        return sum(int(np.prod(a.shape)) * np.dtype(a.dtype).itemsize
                   for a in (self.packed, self.group_min, self.group_scale))

    def __repr__(self):
        """One line, as the actq package's records print (actq.quantized.summary): shape,
        dtype, width, group size, metadata dtype, bytes held, bits per element."""
        names = {np.dtype(v): k for k, v in DTYPES.items()}
        meta = names.get(np.dtype(self.group_min.dtype), str(self.group_min.dtype))
        data = names.get(np.dtype(self.dtype), str(self.dtype))
        try:
            from actq.quantized import summary
        except ImportError:  # actq_jax built with CMake, without the actq package
            return "Quantized(shape=%s, dtype=%s, bits=%d)" % (tuple(self.shape), data,
                                                               self.bits)
        return summary(self.shape, data, self.bits, self.group_size, meta, self.nbytes)


def rows_cols(shape, rows=None):
    """How an array of `shape` is seen as rows x cols (as actq.rows_cols)."""
    numel = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
    if rows is None:
        rows = shape[0] if len(shape) >= 2 else 1
    if rows == 0:
        return 0, 0
    if rows < 0 or numel % rows:
        raise ValueError("%d elements do not split into %d rows" % (numel, rows))
    return rows, numel // rows


def _ceil_div(a, b):
    return -(-a // b) if b > 0 else 0


def _dtype(d):
    if isinstance(d, str):
        if d not in DTYPES:
            raise ValueError("dtype %r: one of %s" % (d, ", ".join(DTYPES)))
        return np.dtype(DTYPES[d])
    return np.dtype(d)


def _lookup(table, key, what):
    if key not in table:
        raise ValueError("%s %r: one of %s" % (what, key, ", ".join(table)))
    return table[key]


def _words(v, what):
    """The (low, high) uint32 words of a 64-bit value: a Python int or an integer scalar
    array (traced or not; a 32-bit one has high word 0)."""
    if isinstance(v, (int, np.integer)):
        v = int(v)
        if not 0 <= v <= 2 ** 64 - 1:
            raise ValueError("%s %d is outside 0..2^64-1" % (what, v))
        return [jnp.uint32(v & _MASK32), jnp.uint32(v >> 32)]
    a = jnp.asarray(v)
    if a.shape != () or not jnp.issubdtype(a.dtype, jnp.integer):
        raise TypeError("%s must be an integer scalar, not %s%s" % (what, a.dtype, a.shape))
    if a.dtype.itemsize == 8:
        return [(a & _MASK32).astype(jnp.uint32), (a >> 32).astype(jnp.uint32)]
    return [a.astype(jnp.uint32), jnp.uint32(0)]


def noise_counter(seed, offset=0):
    """The uint32[4] noise counter of (seed, offset), Python ints or integer scalars."""
    return jnp.stack(_words(seed, "seed") + _words(offset, "offset"))


def noise_from_key(key):
    """A noise counter drawn from a JAX PRNG key (jax.random.key, or a raw uint32[2] key
    from jax.random.PRNGKey): the JAX way to give each step fresh noise."""
    if not jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        key = jax.random.wrap_key_data(key)
    return jax.random.bits(key, (4,), jnp.uint32)


def as_noise(noise):
    """A noise counter from a counter (uint32[4]) or a PRNG key."""
    noise = jnp.asarray(noise) if not hasattr(noise, "dtype") else noise
    if jnp.issubdtype(noise.dtype, jax.dtypes.prng_key) or noise.shape == (2,):
        return noise_from_key(noise)
    if noise.shape != (4,) or noise.dtype != jnp.uint32:
        raise TypeError("noise: a uint32[4] noise counter (noise_counter) or a PRNG key, "
                        "not %s%s" % (noise.dtype, noise.shape))
    return noise


def _call(target, results, *args, **attrs):
    _ffi.ensure_registered()
    # One call per batch element: packed codes of a batch are not the batch of packed codes.
    return jax.ffi.ffi_call(target, results, vmap_method="sequential")(*args, **attrs)


def quantize(x, bits=2, group_size=256, *, noise=None, seed=0, offset=0,
             rounding="stochastic", meta_dtype="f32", rows=None):
    """Quantizes x group by group (actq_quantize) into a Quantized. The noise of
    stochastic rounding: `noise` (a counter or a PRNG key) when given, else (seed, offset)."""
    x = jnp.asarray(x)
    md = _dtype(meta_dtype)
    r, c = rows_cols(x.shape, rows)
    counter = as_noise(noise) if noise is not None else noise_counter(seed, offset)
    nbytes = r * _ceil_div(c * max(bits, 0), 8)
    groups = r * _ceil_div(c, group_size)
    packed, gmin, gscale = _call(
        "actq_quantize",
        (jax.ShapeDtypeStruct((nbytes,), jnp.uint8), jax.ShapeDtypeStruct((groups,), md),
         jax.ShapeDtypeStruct((groups,), md)),
        x, counter, rows=np.int64(r), group_size=np.int64(group_size), bits=np.int64(bits),
        rounding=np.int64(_lookup(ROUNDINGS, rounding, "rounding")))
    return Quantized(packed, gmin, gscale, r, group_size, bits, tuple(x.shape), x.dtype)


def dequantize(q, dtype=None):
    """The reconstruction of a Quantized (actq_dequantize), in its original shape."""
    yd = q.dtype if dtype is None else _dtype(dtype)
    return _call("actq_dequantize", jax.ShapeDtypeStruct(q.shape, yd), q.packed, q.group_min,
                 q.group_scale, rows=np.int64(q.rows), group_size=np.int64(q.group_size),
                 bits=np.int64(q.bits))


def code_bytes(n, bits):
    """Bytes of n packed few-bit codes of `bits` bits."""
    return _ceil_div(n * max(bits, 0), 8)


def _table_attrs(activation, bits, param):
    return dict(activation=np.int64(_lookup(ACTIVATIONS, activation, "activation")),
                param=np.float32(param), bits=np.int64(bits))


def fewbit_encode(x, activation="gelu", bits=2, param=0.0):
    """(packed codes, f(x)) of x through the activation's table (fewbit_encode)."""
    x = jnp.asarray(x)
    codes = jax.ShapeDtypeStruct((code_bytes(x.size, bits),), jnp.uint8)
    return tuple(_call("actq_fewbit_encode", (codes, jax.ShapeDtypeStruct(x.shape, x.dtype)),
                       x, **_table_attrs(activation, bits, param)))


def fewbit_codes(x, activation="gelu", bits=2, param=0.0):
    """The packed codes of x alone (fewbit_encode without y)."""
    x = jnp.asarray(x)
    codes = jax.ShapeDtypeStruct((code_bytes(x.size, bits),), jnp.uint8)
    return _call("actq_fewbit_codes", codes, x, **_table_attrs(activation, bits, param))


def fewbit_backward(codes, grad, activation="gelu", bits=2, param=0.0):
    """grad * levels[code] (fewbit_backward), in grad's dtype and shape."""
    grad = jnp.asarray(grad)
    return _call("actq_fewbit_backward", jax.ShapeDtypeStruct(grad.shape, grad.dtype), codes,
                 grad, **_table_attrs(activation, bits, param))
