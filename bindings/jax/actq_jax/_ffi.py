"""Finds the handler library (libactq_jax_ffi.so) and registers its targets with XLA, once.

Where it is looked for, first found wins:
  1. the environment variable ACTQ_JAX_FFI (a path to the .so), as scripts/test-jax sets it;
  2. libactq_jax_ffi.so next to this file (where `pip install bindings/jax` puts it).
The handler library finds libactq itself (it was linked against it, with a run path).
"""
import ctypes
import os
import threading

import jax

LIBRARY_NAME = "libactq_jax_ffi.so"
# Target name -> the exported handler symbol (bindings/jax/src/ffi.cc); the CUDA one is
# the symbol + "_cuda".
TARGETS = {
    "actq_quantize": "actq_jax_quantize",
    "actq_dequantize": "actq_jax_dequantize",
    "actq_fewbit_encode": "actq_jax_fewbit_encode",
    "actq_fewbit_codes": "actq_jax_fewbit_codes",
    "actq_fewbit_backward": "actq_jax_fewbit_backward",
}


class HandlerLibraryNotFound(ImportError):
    pass


_lock = threading.Lock()
_lib = None


def _path():
    env = os.environ.get("ACTQ_JAX_FFI")
    if env:
        if not os.path.isfile(env):
            raise HandlerLibraryNotFound("ACTQ_JAX_FFI=%s: no such file" % env)
        return env
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), LIBRARY_NAME)
    if os.path.isfile(here):
        return here
    raise HandlerLibraryNotFound(
        "actq_jax needs its XLA FFI handler library: `pip install bindings/jax` (after "
        "`pip install .`) bundles it; or build bindings/jax with CMake and set ACTQ_JAX_FFI "
        "to the path of %s, or put it next to %s"
        % (LIBRARY_NAME, os.path.dirname(here)))


def _has_cuda():
    """Whether this JAX runs a CUDA platform (jaxlib's CUDA plugin found a GPU)."""
    try:
        return bool(jax.devices("cuda"))
    except RuntimeError:
        return False


def ensure_registered():
    """Loads the handler library and registers every target for the CPU platform, and for
    CUDA where JAX has it (the handlers of the library's CUDA backend, suffix _cuda; a
    libactq built without CUDA refuses those calls with its UNSUPPORTED status)."""
    global _lib
    with _lock:
        if _lib is not None:
            return
        lib = ctypes.CDLL(_path())
        cuda = _has_cuda()
        for target, symbol in TARGETS.items():
            jax.ffi.register_ffi_target(target, jax.ffi.pycapsule(getattr(lib, symbol)),
                                        platform="cpu")
            if cuda:
                jax.ffi.register_ffi_target(
                    target, jax.ffi.pycapsule(getattr(lib, symbol + "_cuda")), platform="CUDA")
        _lib = lib
