"""Loading libactq and declaring its C ABI (include/actq.h, include/fewbit.h) for ctypes.

Everything here mirrors the headers exactly: the structs field by field, every function's
argument and return types. Nothing is compiled; the library is found at import time:

1. the environment variable ACTQ_LIBRARY (a path to libactq.so or libactq.so.0): when set,
   that file or an ImportError, nothing else;
2. the library bundled in this package, actq/lib/libactq.so.0 (`pip install .` at the
   repository root puts it there);
3. ctypes.util.find_library("actq") (ldconfig's cache, LD_LIBRARY_PATH on some systems);
4. the soname libactq.so.0 through the dynamic loader's search path.

PATH is the file actually loaded and FOUND_BY says which of these found it.
"""
import ctypes
import ctypes.util
import os

# The ABI major this binding was written for: the N of libactq.so.N and the MAJOR of
# actq_version(). A library of another major may have other structs or semantics.
ABI_MAJOR = 0
SONAME = "libactq.so.%d" % ABI_MAJOR


class LibraryNotFound(ImportError):
    """libactq could not be loaded; the message says how to point the binding at it."""


BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", SONAME)


def _candidates():
    """[(path, found_by)], and whether the choice was explicit."""
    env = os.environ.get("ACTQ_LIBRARY")
    if env:
        # An explicit path is the user's decision: no silent fallback when it is wrong.
        return [(env, "ACTQ_LIBRARY")], True
    found = ctypes.util.find_library("actq")
    system = [(p, "system search") for p in (found, SONAME) if p]
    if os.path.exists(BUNDLED):
        return [(BUNDLED, "bundled")] + system, False
    return system, False


def _load():
    paths, explicit = _candidates()
    errors = []
    for path, found_by in paths:
        try:
            return ctypes.CDLL(path), found_by
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    how = ("install the package with its library (`pip install .` at the root of the actq "
           "repository), or set ACTQ_LIBRARY to the full path of libactq.so (for example "
           "<prefix>/lib/libactq.so.%d after `cmake --install`), or install libactq where "
           "the dynamic loader finds it (ldconfig, or LD_LIBRARY_PATH)" % ABI_MAJOR)
    if explicit:
        raise LibraryNotFound("ACTQ_LIBRARY=%s cannot be loaded (%s); %s"
                              % (paths[0][0], "; ".join(errors), how))
    raise LibraryNotFound("libactq not found (tried %s); %s"
                          % (", ".join(p for p, _ in paths) or "nothing", how))


class _DlInfo(ctypes.Structure):
    """Dl_info of <dlfcn.h>."""
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def _file_of(library, symbol):
    """The file the dynamic loader mapped for `library` (a soname may resolve anywhere):
    dladdr() on one of its symbols; the name it was opened by where dladdr is missing."""
    try:
        dladdr = ctypes.CDLL(None).dladdr
    except AttributeError:
        return library._name
    dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
    dladdr.restype = ctypes.c_int
    info = _DlInfo()
    address = ctypes.cast(getattr(library, symbol), ctypes.c_void_p)
    if dladdr(address, ctypes.byref(info)) and info.dli_fname:
        return os.path.realpath(os.fsdecode(info.dli_fname))
    return library._name


lib, FOUND_BY = _load()
PATH = _file_of(lib, "actq_version")

c_status = ctypes.c_int  # actq_status is a C enum: an int on every ABI we target
c_enum = ctypes.c_int


class Layout(ctypes.Structure):
    """struct actq_layout."""
    _fields_ = [
        ("rows", ctypes.c_size_t),
        ("cols", ctypes.c_size_t),
        ("group_size", ctypes.c_uint32),
        ("bits", ctypes.c_uint32),
        ("row_bits", ctypes.POINTER(ctypes.c_uint8)),
        ("meta_dtype", c_enum),
    ]


class FewbitOptions(ctypes.Structure):
    """struct fewbit_options."""
    _fields_ = [
        ("weight", c_enum),
        ("mean", ctypes.c_double),
        ("std", ctypes.c_double),
        ("lo", ctypes.c_double),
        ("hi", ctypes.c_double),
        ("grid", ctypes.c_uint32),
    ]


class FewbitTableStruct(ctypes.Structure):
    """struct fewbit_table."""
    _fields_ = [
        ("bits", ctypes.c_uint32),
        ("activation", ctypes.c_uint32),
        ("param", ctypes.c_float),
        ("bounds", ctypes.c_float * 255),
        ("levels", ctypes.c_float * 256),
        ("error", ctypes.c_double),
    ]


vp = ctypes.c_void_p
ctx_p = ctypes.c_void_p  # actq_context * (opaque)
size_t = ctypes.c_size_t
u32 = ctypes.c_uint32
u64 = ctypes.c_uint64
dbl_p = ctypes.POINTER(ctypes.c_double)
u8_p = ctypes.POINTER(ctypes.c_uint8)
u64_p = ctypes.POINTER(ctypes.c_uint64)
layout_p = ctypes.POINTER(Layout)
table_p = ctypes.POINTER(FewbitTableStruct)


def _declare(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


actq_version = _declare("actq_version", ctypes.c_int)
actq_status_string = _declare("actq_status_string", ctypes.c_char_p, c_status)
actq_context_create = _declare("actq_context_create", c_status, c_enum, ctypes.POINTER(ctx_p))
actq_context_destroy = _declare("actq_context_destroy", None, ctx_p)
actq_context_describe = _declare("actq_context_describe", ctypes.c_char_p, ctx_p)
actq_context_set_threads = _declare("actq_context_set_threads", c_status, ctx_p, ctypes.c_int)
actq_context_set_stream = _declare("actq_context_set_stream", c_status, ctx_p, vp)
actq_context_synchronize = _declare("actq_context_synchronize", c_status, ctx_p)
actq_layout_sizes = _declare("actq_layout_sizes", c_status, layout_p,
                             ctypes.POINTER(size_t), ctypes.POINTER(size_t))
actq_quantize = _declare("actq_quantize", c_status, ctx_p, layout_p, c_enum, vp, c_enum,
                         u64, u64, vp, vp, vp)
actq_dequantize = _declare("actq_dequantize", c_status, ctx_p, layout_p, vp, vp, vp,
                           c_enum, vp)
actq_pack = _declare("actq_pack", c_status, ctx_p, u32, size_t, vp, vp)
actq_unpack = _declare("actq_unpack", c_status, ctx_p, u32, size_t, vp, vp)
actq_allocate_bits = _declare("actq_allocate_bits", c_status, size_t, dbl_p, u64_p,
                              ctypes.c_double, u32, c_enum, u8_p, dbl_p)
fewbit_table_build = _declare("fewbit_table_build", c_status, c_enum, ctypes.c_float, u32,
                              ctypes.POINTER(FewbitOptions), table_p)
fewbit_table_build_custom = _declare("fewbit_table_build_custom", c_status, size_t, dbl_p,
                                     dbl_p, dbl_p, u32, table_p)
fewbit_encode = _declare("fewbit_encode", c_status, ctx_p, table_p, size_t, c_enum, vp, vp, vp)
fewbit_backward = _declare("fewbit_backward", c_status, ctx_p, table_p, size_t, vp, c_enum,
                           vp, vp)

VERSION = actq_version()
if VERSION // 10000 != ABI_MAJOR:
    raise LibraryNotFound(
        "the loaded libactq is version %d.%d.%d, this binding was written for major %d; "
        "point ACTQ_LIBRARY at a libactq.so.%d"
        % (VERSION // 10000, VERSION // 100 % 100, VERSION % 100, ABI_MAJOR, ABI_MAJOR))
