"""The raw operations: one jax.ffi.ffi_call each, usable under jax.jit (CPU and CUDA).

They make the choices of the ctypes and PyTorch bindings (bindings/python/actq), so their
bytes can be compared with those: a tensor is quantized as rows x cols with rows its first
dimension (one row for 0-d and 1-d), groups of 256, float32 metadata; few-bit tables are
the library's optimal tables for N(0,1) inputs. Sizes are computed here only to declare
the result shapes. Every argument is checked first, at trace time, by the rules of
rules.py (a bad one raises ArgumentError or ArgumentTypeError naming it, before any
ffi_call); the handler library and libactq validate every call again, so anything that
slips through raises at execution, never crashes.

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

from . import _ffi, rules
from .rules import ACTIVATIONS, ROUNDINGS  # noqa: F401 - part of the API

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
    return rules.split("rows", rows, rules.dims("shape", shape), "shape %s" % (tuple(shape),))


def _words(v, what):
    """The (low, high) uint32 words of a 64-bit value: a Python int or an integer scalar
    array (traced or not; a 32-bit one has high word 0)."""
    v = rules.word(what, v)
    if isinstance(v, int):
        return [jnp.uint32(v & _MASK32), jnp.uint32(v >> 32)]
    a = jnp.asarray(v)
    if a.dtype.itemsize == 8:
        return [(a & _MASK32).astype(jnp.uint32), (a >> 32).astype(jnp.uint32)]
    return [a.astype(jnp.uint32), jnp.uint32(0)]


def noise_counter(seed, offset=0):
    """The uint32[4] noise counter of (seed, offset), Python ints or integer scalars."""
    return jnp.stack(_words(seed, "seed") + _words(offset, "offset"))


def noise_from_key(key):
    """A noise counter drawn from a JAX PRNG key (jax.random.key, or a raw uint32[2] key
    from jax.random.PRNGKey): the JAX way to give each step fresh noise."""
    return _draw(*rules.key("key", key))


def _draw(key, typed):
    if not typed:
        key = jax.random.wrap_key_data(key)
    return jax.random.bits(key, (4,), jnp.uint32)


def as_noise(noise):
    """A noise counter from a counter (uint32[4]) or a PRNG key."""
    return _as_noise(noise)


def _as_noise(noise, name="noise"):
    a, is_key = rules.noise(noise, name)
    return _draw(a, _typed(a)) if is_key else a


def _typed(a):
    return jax.dtypes.issubdtype(a.dtype, jax.dtypes.prng_key)


def _call(target, results, *args, **attrs):
    _ffi.ensure_registered()
    # One call per batch element: packed codes of a batch are not the batch of packed codes.
    return jax.ffi.ffi_call(target, results, vmap_method="sequential")(*args, **attrs)


def _data(name, x):
    """A data array: float32, float16 or bfloat16."""
    x = rules.array(name, x)
    rules.floating(name, x)
    return jnp.asarray(x)


def _layout(x, bits, group_size, rounding, meta_dtype, rows):
    """quantize's (and dense's) layout arguments: (bits, group_size, rounding's C value,
    metadata dtype, rows, cols)."""
    bits, group_size = rules.layout(bits, group_size)
    rnd = rules.rounding(rounding)
    md = rules.dtype("meta_dtype", meta_dtype)
    r, c = rules.split("rows", rows, x.shape, "x")
    return bits, group_size, rnd, md, r, c


def quantize(x, bits=2, group_size=256, *, noise=None, seed=0, offset=0,
             rounding="stochastic", meta_dtype="f32", rows=None):
    """Quantizes x group by group (actq_quantize) into a Quantized. The noise of
    stochastic rounding: `noise` (a counter or a PRNG key) when given, else (seed, offset)."""
    x = _data("x", x)
    bits, group_size, rnd, md, r, c = _layout(x, bits, group_size, rounding, meta_dtype, rows)
    counter = _as_noise(noise) if noise is not None else noise_counter(seed, offset)
    nbytes, groups = rules.layout_sizes(r, c, bits, group_size)
    packed, gmin, gscale = _call(
        "actq_quantize",
        (jax.ShapeDtypeStruct((nbytes,), jnp.uint8), jax.ShapeDtypeStruct((groups,), md),
         jax.ShapeDtypeStruct((groups,), md)),
        x, counter, rows=np.int64(r), group_size=np.int64(group_size), bits=np.int64(bits),
        rounding=np.int64(rnd))
    return Quantized(packed, gmin, gscale, r, group_size, bits, tuple(x.shape), x.dtype)


def dequantize(q, dtype=None):
    """The reconstruction of a Quantized (actq_dequantize), in its original shape."""
    rules.quantized(q, Quantized)
    yd = jnp.dtype(q.dtype) if dtype is None else rules.dtype("dtype", dtype)
    return _call("actq_dequantize", jax.ShapeDtypeStruct(tuple(q.shape), yd), q.packed,
                 q.group_min, q.group_scale, rows=np.int64(q.rows),
                 group_size=np.int64(q.group_size), bits=np.int64(q.bits))


def code_bytes(n, bits):
    """Bytes of n packed few-bit codes of `bits` bits."""
    return -(-rules.check("n", n) * rules.check("bits", bits) // 8)


def _table(activation, bits, param):
    """The few-bit table's arguments, checked: (activation name, bits, param)."""
    act = rules.activation(activation)
    return act, rules.check("bits", bits), rules.param(act, param)


def _table_attrs(act, bits, param):
    return dict(activation=np.int64(ACTIVATIONS[act]), param=np.float32(param),
                bits=np.int64(bits))


def fewbit_encode(x, activation="gelu", bits=2, param=0.0):
    """(packed codes, f(x)) of x through the activation's table (fewbit_encode)."""
    x = _data("x", x)
    act, bits, param = _table(activation, bits, param)
    codes = jax.ShapeDtypeStruct((code_bytes(x.size, bits),), jnp.uint8)
    return tuple(_call("actq_fewbit_encode", (codes, jax.ShapeDtypeStruct(x.shape, x.dtype)),
                       x, **_table_attrs(act, bits, param)))


def fewbit_codes(x, activation="gelu", bits=2, param=0.0):
    """The packed codes of x alone (fewbit_encode without y)."""
    x = _data("x", x)
    act, bits, param = _table(activation, bits, param)
    codes = jax.ShapeDtypeStruct((code_bytes(x.size, bits),), jnp.uint8)
    return _call("actq_fewbit_codes", codes, x, **_table_attrs(act, bits, param))


def fewbit_backward(codes, grad, activation="gelu", bits=2, param=0.0):
    """grad * levels[code] (fewbit_backward), in grad's dtype and shape."""
    grad = _data("grad", grad)
    act, bits, param = _table(activation, bits, param)
    codes = rules.array("codes", codes)
    rules.bytes_array("codes", codes)
    rules.length("codes", rules.numel(codes.shape), code_bytes(grad.size, bits), "bytes",
                 "grad (%d elements at %d bits)" % (grad.size, bits))
    return _call("actq_fewbit_backward", jax.ShapeDtypeStruct(grad.shape, grad.dtype), codes,
                 grad, **_table_attrs(act, bits, param))
