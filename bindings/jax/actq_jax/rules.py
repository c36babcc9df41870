"""The contract's argument rules (include/actq.h, include/fewbit.h), in one table for
actq_jax: every public entry point checks its arguments here, in Python, at trace time and
before any ffi_call, so that a bad one is refused with its name, its value and what is
allowed, in the words of the actq package's table (bindings/python/actq/rules.py):

    ArgumentError: bits must be 1..8, got 9
    ArgumentTypeError: x must be float32, float16 or bfloat16, got int32

Only static Python values and array shapes and dtypes are inspected, never the contents of
an array (a traced one has none), so jit, grad and vmap work as before. The handler library
(src/ffi.cc) and libactq validate every call again: their status is the last line of
defence. actq_jax does not import the actq package: this module stands alone.
"""
import math
import numbers

import jax
import jax.numpy as jnp
import numpy as np

BITS = (1, 8)
GROUP_SIZE = (8, 65536, 8)  # min, max, step
U64 = (1 << 64) - 1
F32_MAX = float(np.finfo(np.float32).max)

# Data arrays (x, grad, y) and group metadata: the library's three float types.
FLOATS = ("float32", "float16", "bfloat16")
FLOATS_SHOWN = "float32, float16 or bfloat16"
# Names for the metadata / output dtype, as the actq package spells them.
DTYPE_NAMES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16"}
ROUNDINGS = {"stochastic": 0, "nearest": 1}  # actq_rounding
# fewbit_activation of include/fewbit.h (the built-in ones; custom tables are not offered).
ACTIVATIONS = {name: i for i, name in enumerate(
    ["gelu", "gelu_tanh", "silu", "sigmoid", "tanh", "softplus", "elu", "selu", "celu",
     "mish", "hardswish", "hardsigmoid", "hardtanh", "softsign", "logsigmoid", "tanhshrink",
     "relu", "relu6", "leaky_relu"], start=1)}


class _Refusal:
    """What both refusals carry: the argument's name, the value given, the message."""

    def __init__(self, argument, value, message):
        self.argument = argument
        self.value = value
        super().__init__(message)

    def __reduce__(self):
        return type(self), (self.argument, self.value, str(self))


class ArgumentError(_Refusal, ValueError):
    """An argument actq_jax refused before calling the library: `argument` names it (a
    field of a Quantized as "q.packed"), `value` is what was given (for an array, what the
    message shows of it: its element count, shape or "dtype[shape]"), and the message says
    what is allowed: "bits must be 1..8, got 9"."""


class ArgumentTypeError(_Refusal, TypeError):
    """An argument of the wrong kind (an array of the wrong dtype, something that is no
    array): `argument` and `value` as ArgumentError's, and the message in the same words:
    "x must be float32, float16 or bfloat16, got int32"."""


def _int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))


def _real(v):
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def _shown(v):
    return repr(v) if isinstance(v, str) else str(v)


def refuse(name, value, allowed):
    """Raises the ArgumentError "<name> must be <allowed>, got <value>"."""
    raise ArgumentError(name, value, "%s must be %s, got %s" % (name, allowed, _shown(value)))


def refuse_type(name, value, allowed):
    """Raises the ArgumentTypeError "<name> must be <allowed>, got <value>"."""
    raise ArgumentTypeError(name, value, "%s must be %s, got %s" % (name, allowed, value))


# name -> (predicate, what is allowed). Arguments that share a rule name it ("q.bits" is
# checked under "bits").
_SCALAR = {
    "bits": (lambda v: _int(v) and BITS[0] <= v <= BITS[1], "%d..%d" % BITS),
    "group_size": (lambda v: _int(v) and GROUP_SIZE[0] <= v <= GROUP_SIZE[1]
                   and v % GROUP_SIZE[2] == 0,
                   "a multiple of %d in %d..%d" % ((GROUP_SIZE[2],) + GROUP_SIZE[:2])),
    "seed": (lambda v: _int(v) and 0 <= v <= U64, "an integer in 0..2^64-1"),
    "offset": (lambda v: _int(v) and 0 <= v <= U64, "an integer in 0..2^64-1"),
    "rows": (lambda v: _int(v) and v >= 0, "an integer >= 0"),
    "n": (lambda v: _int(v) and v >= 0, "an integer >= 0"),
}


def check(name, value, rule=None):
    """value under the rule of `rule` (default: the rule named like the argument), as an
    int."""
    ok, allowed = _SCALAR[rule or name]
    if not ok(value):
        refuse(name, value, allowed)
    return int(value)


def _choice(name, value, names, alias=None):
    """An enum argument given by name (any case) or, through alias, another spelling: its
    canonical name."""
    if isinstance(value, str) and value.lower() in names:
        return value.lower()
    if alias is not None:
        got = alias(value)
        if got is not None:
            return got
    refuse(name, value, "one of " + ", ".join(names))


def _by_number(table):
    def alias(value):
        if _int(value):
            for k, v in table.items():
                if v == value:
                    return k
        return None
    return alias


def _dtype_name(value):
    """The name of the dtype `value` stands for ("float32"), or None."""
    if value is None or isinstance(value, bool):  # jnp.dtype(None) is the default float
        return None
    try:
        return str(jnp.dtype(value))
    except Exception:  # noqa: BLE001 - anything that is no dtype
        return None


def _dtype_alias(value):
    d = _dtype_name(value)
    for k, v in DTYPE_NAMES.items():
        if v == d:
            return k
    return None


def rounding(value, name="rounding"):
    """"stochastic" or "nearest" (any case, or the actq_rounding value): its C value."""
    return ROUNDINGS[_choice(name, value, ROUNDINGS, _by_number(ROUNDINGS))]


def activation(value, name="activation"):
    """A built-in activation's name (any case, or its fewbit_activation value): the
    canonical name."""
    return _choice(name, value, ACTIVATIONS, _by_number(ACTIVATIONS))


def dtype(name, value):
    """A metadata or output dtype: "f32", "f16", "bf16" (or float32, float16, bfloat16 as
    a dtype): the NumPy dtype (bfloat16 through ml_dtypes, as JAX's)."""
    if not isinstance(value, str) and _dtype_alias(value) is None:
        d = _dtype_name(value)  # another dtype: shown by its name
        if d is not None:
            refuse(name, d, "one of " + ", ".join(DTYPE_NAMES))
    return np.dtype(getattr(jnp, DTYPE_NAMES[_choice(name, value, DTYPE_NAMES,
                                                     _dtype_alias)]))


# Activations whose parameter has a rule (fewbit.h); the others ignore its value.
_PARAM = {"softplus": "beta", "elu": "alpha", "celu": "alpha", "leaky_relu": "negative slope"}


def param(act, value):
    """fewbit's param for `act` (a canonical name): a real number (the handler takes it as
    a float32 attribute); Softplus beta, ELU/CELU alpha > 0 and finite, LeakyReLU's slope
    finite; its value is ignored elsewhere."""
    if not _real(value):
        refuse("param", value, "a real number")
    what = _PARAM.get(act)
    if what is None:
        return float(value)
    if not (math.isfinite(value) and abs(value) <= F32_MAX):
        refuse("param", value, "finite (%s %s)" % (act, what))
    if act != "leaky_relu" and not value > 0:
        refuse("param", value, "> 0 (%s %s)" % (act, what))
    return float(value)


def length(name, got, need, unit="elements", what=None):
    """A buffer of `got` units where exactly `need` are needed ("x has 5 elements, the
    layout needs 6")."""
    if got != need:
        raise ArgumentError(name, got, "%s has %d %s, %s needs %d"
                            % (name, got, unit, what or "the call", need))


def refuse_shape(name, got, allowed):
    """Raises the ArgumentError "<name> must be <allowed>, got shape <got>"."""
    got = tuple(got)
    raise ArgumentError(name, got, "%s must be %s, got shape %s" % (name, allowed, got))


def shape(name, got, need, what):
    """An array of shape `got` where `need` is needed ("b has shape (3,), w's output
    dimension needs (24,)")."""
    got, need = tuple(got), tuple(need)
    if got != need:
        raise ArgumentError(name, got, "%s has shape %s, %s needs %s" % (name, got, what, need))


def described(a):
    """What a message shows of an array: "uint32[3]", "float32[]"."""
    return "%s[%s]" % (a.dtype, ",".join(str(d) for d in a.shape))


def _is_array(v):
    return hasattr(v, "shape") and hasattr(v, "dtype")


def array(name, value):
    """An array argument as an array (anything jnp.asarray takes), or ArgumentTypeError."""
    if _is_array(value):
        return value
    try:
        return jnp.asarray(value)
    except (TypeError, ValueError):
        refuse_type(name, type(value).__name__, "an array")


def floating(name, a):
    """A data array (x, grad; a Quantized's dtype): float32, float16 or bfloat16."""
    if str(a.dtype) not in FLOATS:
        refuse_type(name, str(a.dtype), FLOATS_SHOWN)


def any_floating(name, a):
    """An array that only JAX computes with (dense's w and b): any floating dtype."""
    if not jnp.issubdtype(a.dtype, jnp.floating):
        refuse_type(name, str(a.dtype), "a floating-point array")


def bytes_array(name, a):
    """Packed codes: uint8."""
    if str(a.dtype) != "uint8":
        refuse_type(name, str(a.dtype), "uint8")


def numel(shp):
    return int(np.prod(shp, dtype=np.int64)) if len(shp) else 1


def dims(name, value):
    """A shape: a tuple of integers >= 0."""
    if not isinstance(value, (tuple, list)) or not all(_int(d) and d >= 0 for d in value):
        refuse(name, value, "a tuple of integers >= 0")
    return tuple(int(d) for d in value)


def split(name, rows, shp, what):
    """rows x cols of an array of shape `shp` (`what` names it in messages): rows None (its
    first dimension, one row for 0-d and 1-d) or an integer >= 0 dividing its elements
    (0 rows only for no elements)."""
    n = numel(shp)
    if rows is None:
        rows = shp[0] if len(shp) >= 2 else 1
    else:
        rows = check(name, rows, "rows")
    if rows == 0:
        if n:
            refuse(name, rows, "a divisor of the %d elements of %s" % (n, what))
        return 0, 0
    if n % rows:
        refuse(name, rows, "a divisor of the %d elements of %s" % (n, what))
    return rows, n // rows


def layout(bits, group_size, names=("bits", "group_size")):
    """The layout's width and group size."""
    return check(names[0], bits, "bits"), check(names[1], group_size, "group_size")


def word(name, value):
    """A 64-bit seed or offset: a Python integer in 0..2^64-1, or an integer scalar array
    (traced or not; its value is not inspected)."""
    if _int(value):
        return check(name, value, name)
    if _is_array(value):
        if value.shape != () or str(value.dtype) not in _INTS:
            refuse_type(name, described(value),
                        "an integer in 0..2^64-1 or an integer scalar array")
        return value
    refuse(name, value, _SCALAR[name][1])


_INTS = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}

_NOISE = "a uint32[4] noise counter or a PRNG key (jax.random.key, uint32[2])"
_KEY = "a PRNG key (jax.random.key) or a uint32[2] raw key (jax.random.PRNGKey)"


def _typed_key(a):
    try:
        return jax.dtypes.issubdtype(a.dtype, jax.dtypes.prng_key)
    except TypeError:
        return False


def key(name, value):
    """A single PRNG key: a typed key of shape () or a raw uint32[2]. True for a typed
    key, False for a raw one."""
    a = array(name, value)
    if _typed_key(a):
        if a.shape != ():
            raise ArgumentError(name, described(a), "%s must be %s, got %s"
                                % (name, _KEY, described(a)))
        return a, True
    if str(a.dtype) != "uint32":
        refuse_type(name, described(a), _KEY)
    if a.shape != (2,):
        raise ArgumentError(name, described(a), "%s must be %s, got %s"
                            % (name, _KEY, described(a)))
    return a, False


def noise(value, name="noise"):
    """The stochastic rounding's noise: a uint32[4] counter or a single PRNG key (typed of
    shape (), or a raw uint32[2]). Returns (array, is_key)."""
    a = array(name, value)
    typed = _typed_key(a)
    if not typed and str(a.dtype) != "uint32":
        refuse_type(name, described(a), _NOISE)
    if a.shape != (() if typed else (4,)) and not (not typed and a.shape == (2,)):
        raise ArgumentError(name, described(a), "%s must be %s, got %s"
                            % (name, _NOISE, described(a)))
    return a, typed or a.shape == (2,)


def layout_sizes(rows, cols, bits, group_size):
    """(packed bytes, groups) of a rows x cols layout (actq_layout_sizes)."""
    return rows * -(-cols * bits // 8), rows * -(-cols // group_size)


def quantized(q, cls, name="q"):
    """A Quantized whose fields agree: width, group size, shape, rows, dtype, and arrays of
    the dtypes and sizes the layout needs. Returns (rows, cols)."""
    if not isinstance(q, cls):
        refuse_type(name, type(q).__name__, "a Quantized (what quantize returns)")
    bits, group_size = layout(q.bits, q.group_size, (name + ".bits", name + ".group_size"))
    shp = dims(name + ".shape", q.shape)
    rows, cols = split(name + ".rows", q.rows, shp, "%s.shape %s" % (name, shp))
    d = _dtype_name(q.dtype) or _shown(q.dtype)
    if d not in FLOATS:
        refuse_type(name + ".dtype", d, FLOATS_SHOWN)
    nbytes, groups = layout_sizes(rows, cols, bits, group_size)
    what = "the layout (%d x %d at %d bits, groups of %d)" % (rows, cols, bits, group_size)
    packed = array(name + ".packed", q.packed)
    bytes_array(name + ".packed", packed)
    length(name + ".packed", numel(packed.shape), nbytes, "bytes", what)
    gmin = array(name + ".group_min", q.group_min)
    gscale = array(name + ".group_scale", q.group_scale)
    floating(name + ".group_min", gmin)
    if str(gscale.dtype) != str(gmin.dtype):
        refuse_type(name + ".group_scale", str(gscale.dtype),
                    "%s like %s.group_min" % (gmin.dtype, name))
    length(name + ".group_min", numel(gmin.shape), groups, "entries", what)
    length(name + ".group_scale", numel(gscale.shape), groups, "entries", what)
    return rows, cols
