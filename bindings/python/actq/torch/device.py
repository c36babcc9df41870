"""Which actq context serves a tensor: CPU tensors the calling thread's CPU context, CUDA
tensors an ACTQ_BACKEND_CUDA context of their device, on PyTorch's current stream."""
import contextlib

import torch

from ..context import Backend, default_context
from ..enums import DType
from ..errors import ActqError

TORCH_DTYPES = {torch.float32: DType.F32, torch.float16: DType.F16, torch.bfloat16: DType.BF16}
ACTQ_TO_TORCH = {v: k for k, v in TORCH_DTYPES.items()}


def actq_dtype(t, name="x"):
    """The actq dtype of tensor t, the argument `name` of the call."""
    try:
        return TORCH_DTYPES[t.dtype]
    except (KeyError, AttributeError):
        if not torch.is_tensor(t):
            raise TypeError("%s must be a tensor, got %s" % (name, type(t).__name__)) from None
        raise TypeError("%s must be a float32, float16 or bfloat16 tensor, got %s"
                        % (name, t.dtype)) from None


@contextlib.contextmanager
def context_for(t, ctx=None):
    """Yields the context for calls on tensor t, with t's CUDA device current (a CUDA
    context must be called with the device it was created on current)."""
    dev = t.device
    if dev.type == "cpu":
        yield ctx or default_context(Backend.CPU)
    elif dev.type == "cuda":
        index = dev.index if dev.index is not None else torch.cuda.current_device()
        with torch.cuda.device(index):
            if ctx is None:
                ctx = default_context(Backend.CUDA, index)
                # PyTorch's current stream, so the call is ordered with the surrounding ops.
                ctx.set_stream(torch.cuda.current_stream(index).cuda_stream)
            yield ctx
    else:
        raise TypeError("actq runs on CPU and CUDA tensors, not on %s" % dev.type)


def synchronize(device=None, ctx=None):
    """Waits for actq's work on a CUDA device and raises its first deferred error (data
    errors such as NaN on CUDA are reported here, not by the call that met them): the
    work of the package's own context for the device and of the C++ operators' contexts,
    all of which are waited for and cleared before the first error is raised."""
    if ctx is not None:
        ctx.synchronize()
        return
    dev = torch.device(device or "cuda")
    if dev.type != "cuda":
        return
    from . import library  # here: library imports this module
    index = dev.index if dev.index is not None else torch.cuda.current_device()
    errors = []
    with torch.cuda.device(index):
        for wait in (default_context(Backend.CUDA, index).synchronize,
                     lambda: library.synchronize_operators(index)):
            try:
                wait()
            except ActqError as e:
                errors.append(e)
    if errors:
        raise errors[0]


def addr(t):
    """The data address of a tensor for the C calls; None for empty ones (allowed then)."""
    return t.data_ptr() if t is not None and t.numel() else None
