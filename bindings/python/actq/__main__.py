"""`python -m actq`: what this install of actq is and sees, the way `python -m bitsandbytes`
diagnoses one. Exit status 0 when the library loads and a CPU context works, 1 otherwise
(a library that does not load is reported by actq/__init__.py, which runs first)."""
import os
import re
import sys

import actq
from actq import _lib


def _build_facts():
    """actq-build.txt beside the library (a wheel's cmake/wheel.cmake writes it): how the
    library was built, {} for a library from elsewhere."""
    path = os.path.join(os.path.dirname(_lib.PATH), "actq-build.txt")
    facts = {}
    if os.path.isfile(path):
        with open(path) as f:
            for line in f:
                key, _, value = line.strip().partition(" ")
                if key:
                    facts[key] = value
    return facts


def _format_version():
    """ACTQ_FORMAT_VERSION of the headers beside the library: the ABI has no call for it."""
    try:
        header = os.path.join(actq.get_include(), "actq.h")
    except FileNotFoundError:
        return "unknown (no actq.h beside the library)"
    with open(header) as f:
        m = re.search(r"^#define ACTQ_FORMAT_VERSION (\d+)", f.read(), re.MULTILINE)
    return "%s (%s)" % (m.group(1), header) if m else "unknown (%s names none)" % header


def _context(backend):
    """describe() of a new context of `backend`, or the error that says why there is none."""
    try:
        ctx = actq.Context(backend)
    except actq.ActqError as e:
        return None, e
    try:
        return ctx.describe(), None
    finally:
        ctx.close()


def cuda_driver_reason():
    """What the CUDA driver itself says about the devices it sees: cuInit's error, or the
    count. Asked through libcuda directly, as the library's CUDA runtime asks it."""
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return "no NVIDIA driver: %s" % e
    status = cuda.cuInit(0)
    if status != 0:
        name, text = ctypes.c_char_p(), ctypes.c_char_p()
        cuda.cuGetErrorName(status, ctypes.byref(name))
        cuda.cuGetErrorString(status, ctypes.byref(text))
        return "cuInit: %s: %s" % ((name.value or b"error %d" % status).decode(),
                                   (text.value or b"").decode())
    count = ctypes.c_int()
    cuda.cuDeviceGetCount(ctypes.byref(count))
    return "the driver sees %d device(s)" % count.value


def cuda_context_line(built_in, describe, error, driver_reason):
    """The "CUDA context" line: the context's description, or why there is none, telling a
    backend that is built in but finds no device from one that is not built in."""
    if describe:
        return describe
    if isinstance(error, actq.UnsupportedError) and built_in:
        return "none: the CUDA backend is built in, but no CUDA device is usable (%s)" % (
            driver_reason())
    if isinstance(error, actq.UnsupportedError) and built_in is False:
        return "none: the CUDA backend is not built in"
    return "none: %s" % error


def _torch_lines():
    try:
        import torch
    except ImportError as e:
        return ["torch: not importable (%s)" % e]
    lines = ["torch: %s (%s)" % (torch.__version__, os.path.dirname(torch.__file__))]
    try:
        from actq.torch import library
    except Exception as e:  # the package's PyTorch part must not hide the rest
        lines.append("torch operators: actq.torch does not import (%s)" % e)
    else:
        lines.append("torch operators: %s" % library.IMPLEMENTATION)
        lines.append("few-bit layers' autograd: %s" % (
            "C++ (%s)" % library.AUTOGRAD_PATH if library.AUTOGRAD_PATH
            else "Python autograd.Function (no C++ one: %s)" % library.AUTOGRAD_REASON))
    if not torch.cuda.is_available():
        lines.append("torch CUDA: no device" + (" (torch built with CUDA %s)" % torch.version.cuda
                                                if torch.version.cuda else " (CPU-only torch)"))
        return lines
    lines.append("torch CUDA: %s, %d device(s)" % (torch.version.cuda,
                                                   torch.cuda.device_count()))
    for i in range(torch.cuda.device_count()):
        p = torch.cuda.get_device_properties(i)
        lines.append("  cuda:%d %s (sm_%d%d, %.1f GiB)"
                     % (i, p.name, p.major, p.minor, p.total_memory / 2**30))
    return lines


def main():
    ok = True
    facts = _build_facts()
    print("actq %s (package %s)" % (actq.__version__, os.path.dirname(actq.__file__)))
    print("library: %s (found by: %s)" % (_lib.PATH, _lib.FOUND_BY))
    print("library version: %s (actq_version() = %d, ABI major %d)"
          % (actq.__version__, actq.VERSION, actq.ABI_MAJOR))
    print("format version: %s" % _format_version())
    if facts:
        print("built: %s, %s" % (facts.get("compiler", "?"), facts.get("build_type", "?")))
        if "torch_ops" in facts:
            print("built with the PyTorch C++ operators: %s" % facts["torch_ops"])
        if "torch_autograd" in facts:
            print("built with the few-bit layers' C++ autograd: %s" % facts["torch_autograd"])
    print("ACTQ_LIBRARY: %s" % os.environ.get("ACTQ_LIBRARY", "(unset)"))
    if os.environ.get("ACTQ_CPU_ISA"):
        print("ACTQ_CPU_ISA: %s (caps the CPU path)" % os.environ["ACTQ_CPU_ISA"])
    cpu, why = _context(actq.Backend.CPU)
    if cpu is None:
        ok = False
        print("CPU: no context: %s" % why)
    else:
        print("CPU: %s" % cpu)
    if facts.get("cuda") == "OFF":
        print("CUDA backend: not built in (built without nvcc, or with ACTQ_CUDA=OFF)")
    else:
        built = ("built in, for %s" % facts["cuda_architectures"] if facts.get("cuda")
                 else "unknown whether built in (no actq-build.txt beside the library)")
        cuda, why = _context(actq.Backend.CUDA)
        print("CUDA backend: %s" % built)
        built_in = True if facts.get("cuda") else None  # None: not known
        print("CUDA context: %s" % cuda_context_line(built_in, cuda, why, cuda_driver_reason))
    for line in _torch_lines():
        print(line)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
