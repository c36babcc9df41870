"""Differentiable layers (jax.custom_vjp) that save compressed activations for backward.

- fewbit_activation / gelu: f(x) forward; what backward keeps is one few-bit code per
  element, and the gradient is the incoming one times the table's level for that code
  (Few-Bit Backward), as actq.torch's few-bit activations do.
- dense: x @ w + b forward, exact; what backward keeps of x is its actq-quantized form
  (ActNN). dx = g @ w.T needs only w and is exact; dw = x^T g is computed from the
  dequantized x, so with stochastic rounding it is unbiased: its mean over independent
  noise is the exact dw. db needs neither.
"""
import functools

import jax
import jax.numpy as jnp

from . import ops, rules


@functools.partial(jax.custom_vjp, nondiff_argnums=(1, 2, 3))
def _fewbit(x, activation, bits, param):
    return ops.fewbit_encode(x, activation, bits, param)[1]


def _fewbit_fwd(x, activation, bits, param):
    codes, y = ops.fewbit_encode(x, activation, bits, param)
    return y, codes


def _fewbit_bwd(activation, bits, param, codes, g):
    return (ops.fewbit_backward(codes, g, activation, bits, param),)


_fewbit.defvjp(_fewbit_fwd, _fewbit_bwd)


def fewbit_activation(x, activation="gelu", bits=2, param=0.0):
    """activation(x), saving a `bits`-bit code per element for backward."""
    x = ops._data("x", x)
    return _fewbit(x, *ops._table(activation, bits, param))


def gelu(x, bits=2):
    """GELU (the exact one, x * Phi(x)) with a `bits`-bit few-bit backward."""
    x = ops._data("x", x)
    return _fewbit(x, "gelu", rules.check("bits", bits), 0.0)


def _affine(x, w, b):
    y = jnp.matmul(x, w)
    return y if b is None else y + b


# conf: (bits, group_size, rounding, meta_dtype, rows), static.
@functools.partial(jax.custom_vjp, nondiff_argnums=(4,))
def _dense(x, w, b, noise, conf):
    return _affine(x, w, b)


def _dense_fwd(x, w, b, noise, conf):
    bits, group_size, rounding, meta_dtype, rows = conf
    q = ops.quantize(x, bits, group_size, noise=noise, rounding=rounding,
                     meta_dtype=meta_dtype, rows=rows)
    return _affine(x, w, b), (q, w, b is not None)


def _dense_bwd(conf, res, g):
    q, w, has_bias = res
    gx = jnp.matmul(g, w.T).astype(q.dtype)
    g2 = g.reshape(-1, g.shape[-1])
    x2 = ops.dequantize(q).reshape(-1, w.shape[0])
    gw = jnp.matmul(x2.T, g2).astype(w.dtype)
    gb = g2.sum(0) if has_bias else None
    return gx, gw, gb, None  # the noise counter is an integer input: no cotangent


_dense.defvjp(_dense_fwd, _dense_bwd)


def dense(x, w, b=None, noise=None, *, bits=2, group_size=256, rounding="stochastic",
          meta_dtype="f32", rows=None):
    """x @ w (+ b), w of shape (in, out), saving x quantized to `bits` bits.

    noise: the stochastic rounding's noise, a PRNG key (jax.random.key) or a noise counter
    (ops.noise_counter); give each step a fresh one, or the rounding errors repeat.
    Required unless rounding="nearest" (deterministic, and then biased)."""
    x = ops._data("x", x)
    if x.ndim < 1:
        rules.refuse_shape("x", x.shape, "at least 1-D (..., in)")
    w = rules.array("w", w)
    rules.any_floating("w", w)
    if len(w.shape) != 2:
        rules.refuse_shape("w", w.shape, "2-D (in, out)")
    rules.length("w", w.shape[0], x.shape[-1], "rows",
                 "x (last dimension %d)" % x.shape[-1])
    if b is not None:
        b = rules.array("b", b)
        rules.any_floating("b", b)
        rules.shape("b", b.shape, (w.shape[1],), "w's output dimension")
    conf = ops._layout(x, bits, group_size, rounding, meta_dtype, rows)
    if noise is None:
        if conf[2] != ops.ROUNDINGS["nearest"]:
            rules.refuse("noise", None, "a PRNG key or a noise counter for stochastic "
                         "rounding (rounding=\"nearest\" needs none)")
        counter = ops.noise_counter(0)
    else:
        counter = ops._as_noise(noise)
    bits, group_size, rnd, md, r, _ = conf
    rounding = "nearest" if rnd == ops.ROUNDINGS["nearest"] else "stochastic"
    return _dense(x, w, b, counter, (bits, group_size, rounding, str(md), r))
