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
