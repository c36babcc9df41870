"""The installed wheel is what runs (ACTQ_TEST_INSTALLED=1, scripts/test-wheel): the package
from the environment's site-packages, not this checkout, with the library it bundles."""
import os
import sys
import sysconfig

import pytest

import actq
from actq import _lib
from conftest import INSTALLED, REPO

pytestmark = pytest.mark.skipif(not INSTALLED, reason="needs ACTQ_TEST_INSTALLED=1 (a wheel)")


def _real(path):
    return os.path.realpath(path)


def test_the_package_is_the_installed_one():
    package = _real(os.path.dirname(actq.__file__))
    site = _real(sysconfig.get_paths()["purelib"])
    assert package == os.path.join(site, "actq")
    assert sys.prefix != sys.base_prefix, "run in a virtual environment"


def test_the_library_is_the_bundled_one():
    assert "ACTQ_LIBRARY" not in os.environ
    bundled = os.path.join(os.path.dirname(actq.__file__), "lib", "libactq.so.0")
    assert _lib.FOUND_BY == "bundled"
    assert _real(actq.get_library()) == _real(bundled)


def test_the_headers_are_bundled_with_it():
    include = actq.get_include()
    assert _real(include) == _real(os.path.join(os.path.dirname(actq.__file__), "include"))
    for name in ("actq.h", "fewbit.h"):
        with open(os.path.join(include, name)) as got, \
                open(os.path.join(REPO, "include", name)) as want:
            assert got.read() == want.read(), name


def test_the_torch_operators_are_bundled_and_serve_the_calls():
    """pip install . in an environment with PyTorch >= 2.10 builds the C++ operators
    against it (bindings/torch) and bundles them beside the library; with an older
    PyTorch, or none, the wheel has none and says why in actq-build.txt."""
    torch = pytest.importorskip("torch")
    from actq.torch import library
    lib_dir = os.path.dirname(actq.get_library())
    with open(os.path.join(lib_dir, "actq-build.txt")) as f:
        facts = dict(line.rstrip("\n").split(" ", 1) for line in f if " " in line)
    ops = os.path.join(lib_dir, library.CPP_LIBRARY)
    if library._torch_version() < library.CPP_MIN_TORCH:
        assert facts["torch_ops"].startswith("OFF"), facts
        assert not os.path.exists(ops)
        return
    assert facts["torch_ops"].startswith("ON (PyTorch %s" % torch.__version__.split("+")[0])
    assert os.path.isfile(ops)
    if os.environ.get("ACTQ_TORCH_CPP") != "0":
        assert library.CPP_PATH == ops
        assert library.IMPLEMENTATION == "C++ operators (%s)" % ops
