"""Tests import the package from this checkout (bindings/python), and find libactq through
ACTQ_LIBRARY as a user would (scripts/test-python sets it to a freshly installed copy).
With ACTQ_TEST_INSTALLED=1 they import the installed package instead, the wheel with its
bundled library (scripts/test-wheel), and test_installed.py checks that they do."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INSTALLED = os.environ.get("ACTQ_TEST_INSTALLED") == "1"
if not INSTALLED:
    sys.path.insert(0, os.path.dirname(HERE))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))

import pytest  # noqa: E402


def _cuda_reason():
    """Why CUDA tests cannot run here, or None when they can: PyTorch must see a device
    and the libactq in use must have been built with the CUDA backend."""
    try:
        import torch
    except ImportError:
        return "needs PyTorch"
    if not torch.cuda.is_available():
        return "needs PyTorch with a CUDA device"
    import actq
    try:
        actq.Context(actq.Backend.CUDA).close()
    except actq.UnsupportedError:
        return "libactq was built without the CUDA backend (or sees no device)"
    except actq.ActqError as e:  # a driver or device failure: say which
        return "libactq's CUDA context: %s" % e
    return None


CUDA_REASON = _cuda_reason()
CUDA = CUDA_REASON is None
needs_cuda = pytest.mark.skipif(not CUDA, reason=CUDA_REASON or "")
# For tests that run the same way on every device PyTorch has here: CPU always, CUDA
# where present (skipped, with the reason, elsewhere).
DEVICES = ["cpu", pytest.param("cuda", marks=needs_cuda)]


@pytest.fixture(autouse=True)
def float32_matmul_and_convolution():
    """On a GPU, PyTorch's convolutions may use TF32 (10-bit mantissas) by default; the
    tests compare gradients computed by different kernels at float32 tolerances. Saved and
    restored by hand: torch.backends.cuda.matmul computes allow_tf32 in __getattr__, which
    pytest 9's monkeypatch takes for an absent attribute and deletes when it undoes."""
    try:
        import torch
    except ImportError:
        yield
        return
    matmul, cudnn = torch.backends.cuda.matmul, torch.backends.cudnn
    # Newer PyTorch states it as a precision ("ieee": no TF32) and no longer has
    # matmul.allow_tf32; its settings are not plain attributes, so they are saved and
    # restored here rather than through monkeypatch.
    if hasattr(cudnn, "conv") and hasattr(cudnn.conv, "fp32_precision"):
        settings = [(cudnn.conv, "fp32_precision", "ieee"), (matmul, "fp32_precision", "ieee")]
    else:
        settings = [(cudnn, "allow_tf32", False), (matmul, "allow_tf32", False)]
    saved = [getattr(obj, name) for obj, name, _ in settings]
    for obj, name, value in settings:
        setattr(obj, name, value)
    yield
    for (obj, name, _), value in zip(settings, saved):
        setattr(obj, name, value)


def recording_meter():
    """A SavedTensorMeter that also keeps what the hooks compress: .quantized (the
    Quantized objects), .widths ((bits, the original's shape) of each)."""
    import actq.torch as at

    class RecordingMeter(at.SavedTensorMeter):
        def reset(self):
            super().reset()
            self.quantized, self.widths = [], []

        def add_compressed(self, q, original):
            super().add_compressed(q, original)
            self.quantized.append(q)
            self.widths.append((q.bits, tuple(original.shape)))

    return RecordingMeter()


def assert_same_bytes(got, want, what="tensor"):
    """got (any device) holds exactly want's bytes: same dtype and shape, every byte (NaN
    payloads and signed zeros included)."""
    import torch
    assert got.dtype == want.dtype, "%s: dtype %s, want %s" % (what, got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), "%s: shape %s, want %s" % (
        what, tuple(got.shape), tuple(want.shape))
    a = got.detach().cpu().contiguous().reshape(-1).view(torch.uint8)
    b = want.detach().cpu().contiguous().reshape(-1).view(torch.uint8)
    diff = (a != b).nonzero()
    assert diff.numel() == 0, "%s: %d of %d bytes differ, the first at byte %d (%d, want %d)" \
        % (what, diff.numel(), b.numel(), diff[0, 0], a[diff[0, 0]], b[diff[0, 0]])
