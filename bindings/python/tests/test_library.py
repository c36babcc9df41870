"""Loading, version check, the C structs' layout, statuses and contexts."""
import ctypes
import ctypes.util
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import actq
from actq import _lib
from conftest import HERE, REPO


def test_version_is_the_majors_the_binding_was_written_for():
    assert actq.VERSION // 10000 == actq.ABI_MAJOR
    assert actq.__version__.count(".") == 2


def _import_with(env_value, **extra):
    env = dict(os.environ, **extra)
    env.pop("ACTQ_LIBRARY", None)
    if env_value is not None:
        env["ACTQ_LIBRARY"] = env_value
    return subprocess.run([sys.executable, "-c", "import actq; print(actq._lib.lib._name)"],
                          env=env, cwd=os.path.dirname(HERE), capture_output=True, text=True)


def test_without_actq_library_the_soname_is_found_on_the_loader_path():
    libdir = os.path.dirname(os.path.abspath(_lib.lib._name))
    r = _import_with(None, LD_LIBRARY_PATH=libdir)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() in ("libactq.so.0", ctypes.util.find_library("actq"))


@pytest.mark.skipif(ctypes.util.find_library("actq") is not None,
                    reason="libactq is installed system-wide")
def test_without_any_library_the_error_says_how_to_fix_it():
    r = _import_with(None, LD_LIBRARY_PATH="")
    assert r.returncode != 0
    assert "libactq not found (tried libactq.so.0)" in r.stderr
    assert "set ACTQ_LIBRARY" in r.stderr


def test_missing_library_says_how_to_fix_it():
    r = _import_with("/nonexistent/libactq.so")
    assert r.returncode != 0
    assert "LibraryNotFound" in r.stderr
    assert "set ACTQ_LIBRARY to the full path of libactq.so" in r.stderr


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_ctypes_structs_match_the_c_headers(tmp_path):
    """sizeof and every offsetof of the mirrored structs, as the C compiler sees them."""
    structs = {"actq_layout": _lib.Layout, "fewbit_options": _lib.FewbitOptions,
               "fewbit_table": _lib.FewbitTableStruct}
    lines = []
    for cname, cls in structs.items():
        lines.append('printf("%s %%zu\\n", sizeof(%s));' % (cname, cname))
        for field, _ in cls._fields_:
            lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));'
                         % (cname, field, cname, field))
    src = tmp_path / "layout.c"
    src.write_text(textwrap.dedent("""\
        #include <stdio.h>
        #include <stddef.h>
        #include <fewbit.h>
        int main(void) { %s return 0; }
        """) % "\n".join(lines))
    exe = tmp_path / "layout"
    subprocess.run(["cc", "-std=c99", "-I", os.path.join(REPO, "include"), str(src), "-o",
                    str(exe)], check=True)
    seen = dict(l.split() for l in subprocess.run([str(exe)], capture_output=True, text=True,
                                                   check=True).stdout.splitlines())
    for cname, cls in structs.items():
        assert int(seen[cname]) == ctypes.sizeof(cls), cname
        for field, _ in cls._fields_:
            assert int(seen["%s.%s" % (cname, field)]) == getattr(cls, field).offset, field


def test_status_strings_come_from_the_library():
    assert actq.status_string(actq.Status.OK) == "ok"
    assert actq.status_string(actq.Status.ERR_INVALID_ARGUMENT) == "invalid argument"
    assert actq.status_string(99) == "unknown actq status"


def test_every_status_maps_to_its_exception():
    from actq.errors import check
    expected = {1: actq.InvalidArgumentError, 2: actq.UnsupportedError,
                3: actq.OutOfMemoryError, 4: actq.SizeOverflowError, 5: actq.NonFiniteError,
                6: actq.DeviceError, 7: actq.InternalError, 42: actq.ActqError}
    check("ok_call", 0)
    for status, cls in expected.items():
        with pytest.raises(cls) as e:
            check("some_call", status)
        assert e.value.status == status
        assert e.value.status_string == actq.status_string(status)
        assert str(e.value) == "some_call: " + actq.status_string(status)


def test_context_describe_and_threads():
    ctx = actq.Context(actq.Backend.CPU, threads=1)
    assert ctx.describe().startswith("cpu")
    with pytest.raises(actq.ArgumentError, match=r"threads must be >= 0 .*, got -1"):
        ctx.set_threads(-1)
    with pytest.raises(actq.UnsupportedError):
        ctx.set_stream(None)  # CPU contexts have no stream
    ctx.synchronize()
    ctx.close()
    with pytest.raises(ValueError):
        ctx.describe()


def test_unknown_backend_is_an_invalid_argument():
    with pytest.raises(actq.InvalidArgumentError):
        actq.Context(7)


def test_cuda_backend_without_a_device_is_unsupported():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(actq.UnsupportedError, match="unsupported"):
        actq.Context(actq.Backend.CUDA)


def test_default_contexts_are_per_thread():
    import threading
    mine = actq.default_context()
    assert actq.default_context() is mine
    other = []
    t = threading.Thread(target=lambda: other.append(actq.default_context()))
    t.start()
    t.join()
    assert other[0] is not mine


@pytest.mark.skipif(os.environ.get("ACTQ_TEST_REQUIRE_CUDA") != "1",
                    reason="set ACTQ_TEST_REQUIRE_CUDA=1 where CUDA tests must run")
def test_cuda_tests_run_where_required():
    """On the GPU machine a missing device or a libactq built without CUDA would only
    skip the CUDA tests; there it must fail."""
    from conftest import CUDA, CUDA_REASON
    assert CUDA, CUDA_REASON
