"""actq_context: a handle on one backend, and the per-thread defaults.

A context may be used by one thread at a time (contract section 2), so the default
contexts are kept per (backend, device, thread). A user who wants control (threads, a
CUDA stream) creates a Context and passes it as `ctx=` to any call.
"""
import ctypes
import enum
import threading
import weakref

from . import _lib, rules
from .errors import check


class Backend(enum.IntEnum):
    CPU_REFERENCE = 0
    CPU = 1
    CUDA = 2


class Context:
    def __init__(self, backend=Backend.CPU, threads=None):
        backend = rules.choice("backend", Backend, backend)
        if threads is not None:
            rules.check("threads", threads)
        handle = _lib.ctx_p()
        check("actq_context_create", _lib.actq_context_create(int(backend),
                                                              ctypes.byref(handle)))
        self.backend = Backend(backend)
        self._handle = handle
        # Destroyed when the object goes away, also at interpreter exit.
        self._finalizer = weakref.finalize(self, _lib.actq_context_destroy, handle)
        if threads is not None:
            self.set_threads(threads)

    @property
    def handle(self):
        if not self._finalizer.alive:
            raise ValueError("actq context already closed")
        return self._handle

    def close(self):
        self._finalizer()

    def describe(self):
        return _lib.actq_context_describe(self.handle).decode("utf-8", "replace")

    def set_threads(self, threads):
        rules.check("threads", threads)
        check("actq_context_set_threads", _lib.actq_context_set_threads(self.handle, threads))

    def set_stream(self, cuda_stream):
        """cuda_stream: a cudaStream_t as an integer (torch: stream.cuda_stream), or None."""
        check("actq_context_set_stream",
              _lib.actq_context_set_stream(self.handle, cuda_stream or None))

    def synchronize(self):
        """Waits for the context's work; raises the first deferred error (CUDA)."""
        check("actq_context_synchronize", _lib.actq_context_synchronize(self.handle))

    def __repr__(self):
        return "Context(%s)" % (self.describe() if self._finalizer.alive else "closed")


_local = threading.local()


def default_context(backend=Backend.CPU, device=None):
    """The calling thread's context for `backend` (and CUDA device index), created once."""
    cache = getattr(_local, "contexts", None)
    if cache is None:
        cache = _local.contexts = {}
    key = (int(backend), device)
    ctx = cache.get(key)
    if ctx is None:
        ctx = cache[key] = Context(backend)
    return ctx
