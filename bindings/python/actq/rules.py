"""The contract's argument rules (include/actq.h, include/fewbit.h), in one table for the
Python package: every entry point (NumPy, PyTorch, layers, hooks, Quantizer, AutoPrecision)
checks its arguments here before any C call, so that a bad one is refused with its name,
its value and what is allowed:

    ArgumentError: bits must be 1..8, got 9

The C library validates every call again (its status is the last line of defence). The
C++ operators (bindings/torch/src/rules.h) keep the same rules with the same words.
"""
import math
import numbers

from .errors import ArgumentError

BITS = (1, 8)
GROUP_SIZE = (8, 65536, 8)  # min, max, step
GRID = (16, 1 << 20)
U64 = (1 << 64) - 1
INT_MAX = (1 << 31) - 1


def _int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _real(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _shown(v):
    return repr(v) if isinstance(v, str) else str(v)


def refuse(name, value, allowed):
    """Raises the ArgumentError "<name> must be <allowed>, got <value>"."""
    raise ArgumentError(name, value, "%s must be %s, got %s" % (name, allowed, _shown(value)))


# name -> (predicate, what is allowed). Arguments that share a rule name it: a table's
# width is "bits" as the layout's is.
_SCALAR = {
    "bits": (lambda v: _int(v) and BITS[0] <= v <= BITS[1], "%d..%d" % BITS),
    "group_size": (lambda v: _int(v) and GROUP_SIZE[0] <= v <= GROUP_SIZE[1]
                   and v % GROUP_SIZE[2] == 0,
                   "a multiple of %d in %d..%d" % ((GROUP_SIZE[2],) + GROUP_SIZE[:2])),
    "threads": (lambda v: _int(v) and 0 <= v <= INT_MAX, ">= 0 (0 = all CPUs)"),
    # 64 bits: as unsigned, or as the int64 with the same bits (torch's integers)
    "seed": (lambda v: _int(v) and -(1 << 63) <= v <= U64, "an integer in -2^63..2^64-1"),
    "offset": (lambda v: _int(v) and -(1 << 63) <= v <= U64, "an integer in -2^63..2^64-1"),
    "rows": (lambda v: _int(v) and v >= 0, "an integer >= 0"),
    "grid": (lambda v: _int(v) and (v == 0 or GRID[0] <= v <= GRID[1]),
             "0 (the library's default) or %d..%d" % GRID),
    "mean": (lambda v: _real(v) and math.isfinite(v), "finite"),
    "std": (lambda v: _real(v) and math.isfinite(v) and v > 0, "finite and > 0"),
    "lo": (lambda v: _real(v) and math.isfinite(v), "finite"),
    "hi": (lambda v: _real(v) and math.isfinite(v), "finite"),
    "average_bits": (lambda v: _real(v) and not math.isnan(v) and v >= 0, ">= 0 and not NaN"),
}


def check(name, value, rule=None):
    """value under the rule of `rule` (default: the rule named like the argument)."""
    ok, allowed = _SCALAR[rule or name]
    if not ok(value):
        refuse(name, value, allowed)
    return value


def choice(name, cls, value):
    """An enum argument (DType, Rounding, ...) given as the enum, its value or its name in
    any case: the enum member."""
    if isinstance(value, cls):
        return value
    try:
        if isinstance(value, str):
            return cls[value.upper()]
        if _int(value):
            return cls(value)
    except (KeyError, ValueError):
        pass
    refuse(name, value, "one of " + ", ".join(m.name.lower() for m in cls))


def length(name, got, need, unit="elements", what=None):
    """A buffer of `got` units where exactly `need` are needed ("x has 5 elements, the
    layout needs 6")."""
    if got != need:
        raise ArgumentError(name, got, "%s has %d %s, %s needs %d"
                            % (name, got, unit, what or "the call", need))


def at_least(name, got, need, unit="bytes", what=None):
    if got < need:
        raise ArgumentError(name, got, "%s has %d %s, %s needs at least %d"
                            % (name, got, unit, what or "the call", need))


def row_bits(rows, widths):
    """Per-row widths (a sequence or array of ints): one entry per row, each 1..8."""
    n = len(widths)
    if n != rows:
        raise ArgumentError("row_bits", n, "row_bits has %d entries for %d rows" % (n, rows))
    for r, b in enumerate(widths):
        b = int(b)
        if not BITS[0] <= b <= BITS[1]:
            refuse("row_bits[%d]" % r, b, "%d..%d" % BITS)


def layout(bits, group_size, rows=None, widths=None):
    """The layout's arguments: group_size, and bits or (with widths) every row's width."""
    check("group_size", group_size)
    if widths is None:
        check("bits", bits)
    else:
        row_bits(rows, widths)


def codes_below(codes, bits):
    """pack's codes: each < 2^bits (codes: a NumPy array of uint8). C would refuse a bad
    one only after writing part of the stream."""
    if codes.size:
        i = int(codes.argmax())
        if int(codes[i]) >= 1 << bits:
            raise ArgumentError("codes[%d]" % i, int(codes[i]),
                                "codes[%d] must be < %d (2^bits, bits = %d), got %d"
                                % (i, 1 << bits, bits, int(codes[i])))


# Activations whose parameter has a rule (fewbit.h); the others ignore it.
_PARAM = {"SOFTPLUS": "beta", "ELU": "alpha", "CELU": "alpha", "LEAKY_RELU": "negative slope"}


def param(activation, value):
    """fewbit's param for `activation` (an Activation): Softplus beta, ELU/CELU alpha > 0
    and finite, LeakyReLU's slope finite; ignored elsewhere."""
    what = _PARAM.get(activation.name)
    if what is None:
        return
    if not _real(value) or not math.isfinite(value):
        refuse("param", value, "finite (%s %s)" % (activation.name.lower(), what))
    if activation.name != "LEAKY_RELU" and not value > 0:
        refuse("param", value, "> 0 (%s %s)" % (activation.name.lower(), what))


def weight_options(weight, mean, std, lo, hi, grid, bits):
    """fewbit_options: NORMAL needs a finite mean and std > 0 with mean + 10 std finite;
    UNIFORM finite lo < hi with hi - lo finite; grid 0 or 16..2^20 and >= 2^bits."""
    if weight.name == "NORMAL":
        check("mean", mean)
        check("std", std)
        if not math.isfinite(mean + 10 * std):
            refuse("std", std, "small enough that mean + 10 std is finite (mean = %s)" % mean)
    else:
        check("lo", lo)
        check("hi", hi)
        if not hi > lo:
            refuse("hi", hi, "> lo (%s)" % lo)
        if not math.isfinite(hi - lo):
            refuse("hi", hi, "within a finite distance of lo (%s)" % lo)
    check("grid", grid)
    if grid and grid < 1 << bits:
        refuse("grid", grid, "0 or at least 2^bits = %d" % (1 << bits))


def samples(x, dydx, weight):
    """fewbit_table_build_custom's samples (1-D float64 arrays): x finite, strictly
    increasing, at least 2; dydx (and weight, a density) as long as x; all finite, weight
    >= 0."""
    n = x.size
    if x.ndim != 1 or n < 2:
        raise ArgumentError("x", n, "x must be 1-D with at least 2 samples, got shape %s"
                            % (tuple(x.shape),))
    for name, a in (("dydx", dydx), ("weight", weight)):
        if a is not None and a.shape != x.shape:
            raise ArgumentError(name, a.size, "%s has %d elements, it must have as many as x"
                                " (%d)" % (name, a.size, n))
    for name, a in (("x", x), ("dydx", dydx), ("weight", weight)):
        if a is None:
            continue
        bad = ~(abs(a) < math.inf) if name != "weight" else ~((a >= 0) & (a < math.inf))
        if bad.any():
            i = int(bad.argmax())
            refuse("%s[%d]" % (name, i), float(a[i]), "finite" + (" and >= 0" if name ==
                                                                     "weight" else ""))
    up = x[1:] > x[:-1]
    if not up.all():
        i = int((~up).argmax()) + 1
        raise ArgumentError("x[%d]" % i, float(x[i]), "x must be strictly increasing: x[%d]"
                            " = %s is not above x[%d] = %s" % (i, x[i], i - 1, x[i - 1]))


def allowed_widths(allowed):
    """actq_allocate_bits's allowed widths, given as widths (an iterable) or as the C mask:
    the mask, or ArgumentError naming the bad width."""
    if _int(allowed):
        if allowed == 0 or allowed & ~0x1FE:
            raise ArgumentError("allowed", allowed, "allowed must be a mask with some of bits "
                                "1..8 set and no other, got %#x" % allowed)
        return int(allowed)
    widths = list(allowed)
    if not widths:
        refuse("allowed", tuple(widths), "at least one width in 1..8")
    mask = 0
    for i, b in enumerate(widths):
        if not _int(b) or not BITS[0] <= b <= BITS[1]:
            refuse("allowed[%d]" % i, b, "%d..%d" % BITS)
        mask |= 1 << int(b)
    return mask


def allocation(sensitivity, numel, average_bits, mask):
    """actq_allocate_bits's data (1-D float64 and uint64 arrays of one length): every
    sensitivity finite and >= 0, a budget that the narrowest allowed width meets."""
    if numel.shape != sensitivity.shape:
        raise ArgumentError("numel", numel.size, "numel has %d elements, it must have as many"
                            " as sensitivity (%d)" % (numel.size, sensitivity.size))
    bad = ~((sensitivity >= 0) & (sensitivity < math.inf))
    if bad.any():
        i = int(bad.argmax())
        refuse("sensitivity[%d]" % i, float(sensitivity[i]), "finite and >= 0")
    check("average_bits", average_bits)
    narrowest = (mask & -mask).bit_length() - 1
    if average_bits < narrowest and int(numel.sum()) > 0:
        refuse("average_bits", average_bits, ">= the narrowest allowed width (%d), or no "
               "width fits the budget" % narrowest)
