"""`python -m actq`, the install diagnosis, run as a user runs it: in a subprocess, from a
directory of its own, on the package and library these tests use."""
import os
import re
import subprocess
import sys

import pytest

import actq
from conftest import REPO


def _run(tmp_path, **env_changes):
    env = dict(os.environ)
    # The package under test: this checkout's, or the installed one (ACTQ_TEST_INSTALLED).
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(actq.__file__)))
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run([sys.executable, "-m", "actq"], env=env, cwd=str(tmp_path),
                          capture_output=True, text=True, timeout=120)


def _fields(stdout):
    return dict(line.split(": ", 1) for line in stdout.splitlines() if ": " in line)


def test_reports_the_library_versions_cpu_path_and_cuda(tmp_path):
    r = _run(tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    f = _fields(r.stdout)
    assert f["library"].startswith(actq.get_library() + " (found by: ")
    assert f["library version"].startswith(actq.__version__ + " (actq_version() = %d"
                                           % actq.VERSION)
    with open(os.path.join(REPO, "include", "actq.h")) as h:
        fmt = re.search(r"#define ACTQ_FORMAT_VERSION (\d+)", h.read()).group(1)
    assert f["format version"].startswith(fmt + " (")
    assert re.fullmatch(r"cpu (scalar|avx2|avx512|avx512bf16), \d+ threads?", f["CPU"]), f["CPU"]
    assert f["CUDA backend"]
    assert "torch" in f


def test_the_cpu_path_is_the_one_the_library_selects(tmp_path):
    r = _run(tmp_path, ACTQ_CPU_ISA="scalar")
    assert r.returncode == 0, r.stdout + r.stderr
    assert _fields(r.stdout)["CPU"].startswith("cpu scalar, ")


def test_a_library_that_does_not_load_fails_with_the_reason(tmp_path):
    missing = str(tmp_path / "nowhere" / "libactq.so.0")
    r = _run(tmp_path, ACTQ_LIBRARY=missing)
    assert r.returncode == 1
    assert "ACTQ_LIBRARY=%s cannot be loaded" % missing in r.stderr
    assert r.stdout == ""
    if sys.version_info >= (3, 10):  # sys.orig_argv: said plainly, not as a traceback
        assert r.stderr.startswith("python -m actq: libactq cannot be loaded: ACTQ_LIBRARY=")


def test_names_the_torch_operators_in_use(tmp_path):
    """Which implementation serves torch.ops.actq, and why not the C++ one."""
    pytest.importorskip("torch")
    from actq.torch import library
    f = _fields(_run(tmp_path).stdout)
    assert f["torch operators"] == library.IMPLEMENTATION
    if library.AVAILABLE:
        f = _fields(_run(tmp_path, ACTQ_TORCH_CPP="0").stdout)
        assert f["torch operators"] == ("Python custom operators (no C++ operators: "
                                        "ACTQ_TORCH_CPP=0 is set)")
    f = _fields(_run(tmp_path, ACTQ_TORCH_OPS="0").stdout)
    assert f["torch operators"].startswith("direct library calls, no torch.ops.actq (")


def test_the_cuda_line_tells_no_device_from_not_built():
    """A CUDA backend that is built in but finds no device is not 'not built in', and the
    driver's own reason is given."""
    from actq.__main__ import cuda_context_line, cuda_driver_reason
    unsupported = actq.UnsupportedError("actq_context_create", 2)
    reason = lambda: "cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
    assert cuda_context_line(True, None, unsupported, reason) == (
        "none: the CUDA backend is built in, but no CUDA device is usable (cuInit: "
        "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected)")
    assert cuda_context_line(False, None, unsupported, reason) == (
        "none: the CUDA backend is not built in")
    assert cuda_context_line(None, None, unsupported, reason) == (
        "none: actq_context_create: unsupported: backend or feature not available")
    assert cuda_context_line(True, "cuda 0: H200", None, reason) == "cuda 0: H200"
    # Asked of this machine's driver: a sentence either way, never an exception.
    assert isinstance(cuda_driver_reason(), str) and cuda_driver_reason()
