"""Where the loaded libactq and its headers are: for C, C++ and JAX FFI extensions, which
must be built against the very library this binding calls (one library, one set of
contexts and threads in the process)."""
import os

from . import _lib


def get_library():
    """The full path of the libactq file loaded (link an extension with it)."""
    return _lib.PATH


def get_include():
    """The directory holding actq.h and fewbit.h of the loaded library: actq/include in a
    wheel, <prefix>/include beside <prefix>/lib (or <prefix>/lib/<multiarch>) otherwise."""
    libdir = os.path.dirname(_lib.PATH)
    tried = []
    for up in (1, 2):
        include = os.path.normpath(os.path.join(libdir, *[os.pardir] * up + ["include"]))
        if os.path.isfile(os.path.join(include, "actq.h")):
            return include
        tried.append(include)
    raise FileNotFoundError("no actq.h beside %s (looked in %s); install the headers with "
                            "the library (`cmake --install`, or `pip install .`)"
                            % (_lib.PATH, ", ".join(tried)))
