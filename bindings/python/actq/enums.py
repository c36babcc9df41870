"""The C enums of the contract as Python IntEnums, and how user spellings map to them."""
import enum


class DType(enum.IntEnum):
    F32 = 0
    F16 = 1
    BF16 = 2


class Rounding(enum.IntEnum):
    STOCHASTIC = 0
    NEAREST = 1


class AllocMethod(enum.IntEnum):
    GREEDY = 0
    EXACT = 1


class Activation(enum.IntEnum):
    GELU = 1
    GELU_TANH = 2
    SILU = 3
    SIGMOID = 4
    TANH = 5
    SOFTPLUS = 6
    ELU = 7
    SELU = 8
    CELU = 9
    MISH = 10
    HARDSWISH = 11
    HARDSIGMOID = 12
    HARDTANH = 13
    SOFTSIGN = 14
    LOGSIGMOID = 15
    TANHSHRINK = 16
    RELU = 17
    RELU6 = 18
    LEAKY_RELU = 19
    CUSTOM = 20


class Weight(enum.IntEnum):
    NORMAL = 0
    UNIFORM = 1


def to_enum(cls, value, name=None):
    """Accepts the enum, its int value, or its name in any case ("f32", "stochastic");
    anything else is an ArgumentError naming the argument (`name`, by default the enum's)."""
    if isinstance(value, cls):
        return value
    from .rules import choice  # rules needs errors, which needs the library: not at import
    return choice(name or cls.__name__.lower(), cls, value)


def widths_mask(allowed):
    """allowed_bits for actq_allocate_bits from an iterable of widths, or a mask as is."""
    if isinstance(allowed, int):
        return allowed
    mask = 0
    for b in allowed:
        mask |= 1 << int(b)
    return mask
