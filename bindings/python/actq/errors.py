"""actq_status values and the exceptions they map to.

Every call that returns something other than ACTQ_OK raises the exception for its status;
the message is the library's own actq_status_string, prefixed with the call's name.
"""
import enum

from . import _lib


class Status(enum.IntEnum):
    OK = 0
    ERR_INVALID_ARGUMENT = 1
    ERR_UNSUPPORTED = 2
    ERR_OUT_OF_MEMORY = 3
    ERR_SIZE_OVERFLOW = 4
    ERR_NONFINITE = 5
    ERR_DEVICE = 6
    ERR_INTERNAL = 7


def status_string(status):
    return _lib.actq_status_string(int(status)).decode("utf-8", "replace")


class ActqError(RuntimeError):
    """A call into libactq returned a status other than ACTQ_OK.

    `status` is the raw status value, `status_string` the library's text for it."""

    def __init__(self, call, status, detail=None):
        self.call = call
        self.status = status
        self.status_string = status_string(status)
        msg = "%s: %s" % (call, self.status_string)
        if detail:
            msg += " (%s)" % detail
        super().__init__(msg)


class InvalidArgumentError(ActqError, ValueError):
    pass


class ArgumentError(InvalidArgumentError):
    """An argument the binding refused before calling the library (actq/rules.py):
    `argument` names it (an element of a sequence as "row_bits[2]"), `value` is what was
    given, and the message says what is allowed: "bits must be 1..8, got 9"."""

    def __init__(self, argument, value, message):
        self.argument = argument
        self.value = value
        self.call = None
        self.status = Status.ERR_INVALID_ARGUMENT
        self.status_string = status_string(self.status)
        ValueError.__init__(self, message)

    def __reduce__(self):
        return type(self), (self.argument, self.value, str(self))


class UnsupportedError(ActqError):
    pass


class OutOfMemoryError(ActqError, MemoryError):
    pass


class SizeOverflowError(ActqError, OverflowError):
    pass


class NonFiniteError(ActqError, ArithmeticError):
    """NaN or Inf met in the data. The outputs were still written as documented (NaN
    metadata for the groups concerned); the exception reports it."""


class DeviceError(ActqError):
    pass


class InternalError(ActqError):
    pass


_BY_STATUS = {
    Status.ERR_INVALID_ARGUMENT: InvalidArgumentError,
    Status.ERR_UNSUPPORTED: UnsupportedError,
    Status.ERR_OUT_OF_MEMORY: OutOfMemoryError,
    Status.ERR_SIZE_OVERFLOW: SizeOverflowError,
    Status.ERR_NONFINITE: NonFiniteError,
    Status.ERR_DEVICE: DeviceError,
    Status.ERR_INTERNAL: InternalError,
}


def check(call, status, detail=None):
    """Raises the exception for `status` unless it is ACTQ_OK."""
    if status != 0:
        raise _BY_STATUS.get(status, ActqError)(call, status, detail)
