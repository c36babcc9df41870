"""Tests import actq_jax and, as the reference, the ctypes binding actq. From this checkout
(bindings/jax, bindings/python), with ACTQ_JAX_FFI naming the handler library built and
ACTQ_LIBRARY the libactq it is linked against; or, with ACTQ_TEST_INSTALLED=1 (what
scripts/test-jax runs), both as installed by `pip install .` and `pip install bindings/jax`,
the handler library bundled in actq_jax and linked against the actq package's libactq. Both
sides run the same library either way."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BINDINGS = os.path.dirname(os.path.dirname(HERE))
INSTALLED = os.environ.get("ACTQ_TEST_INSTALLED") == "1"
if not INSTALLED:
    sys.path.insert(0, os.path.join(BINDINGS, "jax"))
    sys.path.insert(0, os.path.join(BINDINGS, "python"))

import numpy as np  # noqa: E402


def host_bytes(a):
    """The bytes of a JAX or NumPy array, as a flat uint8 NumPy array."""
    a = np.ascontiguousarray(np.asarray(a))
    return a.reshape(-1).view(np.uint8)


def assert_same_bytes(got, want, what="array"):
    g, w = host_bytes(got), host_bytes(want)
    assert g.size == w.size, "%s: %d bytes, want %d" % (what, g.size, w.size)
    diff = np.flatnonzero(g != w)
    assert diff.size == 0, "%s: %d of %d bytes differ, the first at byte %d" % (
        what, diff.size, w.size, diff[0])


def as_ctypes_input(x):
    """(array, dtype name) as the ctypes binding takes it: bf16 as uint16."""
    x = np.asarray(x)
    if x.dtype.name == "bfloat16":
        return x.view(np.uint16), "bf16"
    return x, {"float32": "f32", "float16": "f16"}[x.dtype.name]
