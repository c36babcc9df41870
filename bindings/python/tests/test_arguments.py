"""Every argument of every public entry point, one bad value each: the exception type, and a
message that names the argument and the value given (actq/rules.py; the C++ operators say
the same, bindings/torch/src/rules.h). The refusals come before any C call."""
import numpy as np
import pytest

import actq

X = np.zeros((4, 64), np.float32)
TABLE = actq.cached_table("gelu", 2)
Q = actq.quantize(X)

# (entry point, exception, argument as ArgumentError.argument (None: a TypeError, which has
#  no attribute), text the message must hold, call)
NUMPY = [
    ("quantize", actq.ArgumentError, "bits", "got 9", lambda: actq.quantize(X, bits=9)),
    ("quantize", actq.ArgumentError, "bits", "got 0", lambda: actq.quantize(X, bits=0)),
    ("quantize", actq.ArgumentError, "group_size", "got 7",
     lambda: actq.quantize(X, group_size=7)),
    ("quantize", actq.ArgumentError, "group_size", "got 65544",
     lambda: actq.quantize(X, group_size=65544)),
    ("quantize", actq.ArgumentError, "row_bits", "row_bits has 3 entries for 4 rows",
     lambda: actq.quantize(X, row_bits=[2, 2, 2])),
    ("quantize", actq.ArgumentError, "row_bits[2]", "got 0",
     lambda: actq.quantize(X, row_bits=[2, 2, 0, 2])),
    ("quantize", actq.ArgumentError, "row_bits[1]", "got 256",
     lambda: actq.quantize(X, row_bits=[2, 256, 2, 2])),
    ("quantize", actq.ArgumentError, "rounding", "got 'up'",
     lambda: actq.quantize(X, rounding="up")),
    ("quantize", actq.ArgumentError, "meta_dtype", "got 'f64'",
     lambda: actq.quantize(X, meta_dtype="f64")),
    ("quantize", actq.ArgumentError, "seed", "got -9223372036854775809",
     lambda: actq.quantize(X, seed=-2 ** 63 - 1)),
    ("quantize", actq.ArgumentError, "offset", "got 18446744073709551616",
     lambda: actq.quantize(X, offset=2 ** 64)),
    ("quantize", actq.ArgumentError, "rows", "got 3", lambda: actq.quantize(X, rows=3)),
    ("quantize", actq.ArgumentError, "rows", "got -1", lambda: actq.quantize(X, rows=-1)),
    ("quantize", actq.ArgumentError, "x_dtype", "got 'f8'",
     lambda: actq.quantize(X, x_dtype="f8")),
    ("quantize", TypeError, None, "x must be a float32 or float16 array",
     lambda: actq.quantize(X.astype(np.int32))),
    ("quantize", TypeError, None, "x must be a uint16 array for x_dtype='bf16', got float32",
     lambda: actq.quantize(X, x_dtype="bf16")),
    ("layout_sizes", actq.ArgumentError, "bits", "got 9",
     lambda: actq.layout_sizes(4, 64, bits=9)),
    ("layout_sizes", actq.ArgumentError, "rows", "got -4", lambda: actq.layout_sizes(-4, 64)),
    ("layout_sizes", actq.ArgumentError, "cols", "got -1", lambda: actq.layout_sizes(4, -1)),
    ("dequantize", TypeError, None, "q must be a Quantized", lambda: actq.dequantize(X)),
    ("dequantize", actq.ArgumentError, "y_dtype", "got 'f64'",
     lambda: actq.dequantize(Q, y_dtype="f64")),
    ("pack", actq.ArgumentError, "bits", "got 9", lambda: actq.pack(np.zeros(8, np.uint8), 9)),
    ("pack", actq.ArgumentError, "codes[3]", "got 4",
     lambda: actq.pack(np.array([0, 1, 2, 4], np.uint8), 2)),
    ("pack", TypeError, None, "codes must be unsigned integers",
     lambda: actq.pack(np.array([0.5, 1.0]), 2)),
    ("unpack", actq.ArgumentError, "bits", "got 0", lambda: actq.unpack(np.zeros(4, np.uint8),
                                                                         0, 8)),
    ("unpack", actq.ArgumentError, "n", "got -8", lambda: actq.unpack(np.zeros(4, np.uint8),
                                                                      2, -8)),
    ("unpack", actq.ArgumentError, "packed", "packed has 1 bytes",
     lambda: actq.unpack(np.zeros(1, np.uint8), 2, 8)),
    ("fewbit_encode", TypeError, None, "table must be a FewbitTable, got str",
     lambda: actq.fewbit_encode("gelu", X)),
    ("fewbit_encode", TypeError, None, "x must be a float32 or float16 array",
     lambda: actq.fewbit_encode(TABLE, X.astype(np.float64))),
    ("fewbit_encode", actq.ArgumentError, "dtype", "got 'f64'",
     lambda: actq.fewbit_encode(TABLE, X, dtype="f64")),
    ("fewbit_backward", actq.ArgumentError, "codes", "codes has 3 bytes",
     lambda: actq.fewbit_backward(TABLE, np.zeros(3, np.uint8), X)),
    ("fewbit_backward", TypeError, None, "grad_out must be a float32 or float16 array",
     lambda: actq.fewbit_backward(TABLE, np.zeros(64, np.uint8), X.astype(np.int64))),
    ("FewbitTable.build", actq.ArgumentError, "activation", "got 'swish'",
     lambda: actq.FewbitTable.build("swish", 2)),
    ("FewbitTable.build", actq.ArgumentError, "activation", "got 'custom'",
     lambda: actq.FewbitTable.build("custom", 2)),
    ("FewbitTable.build", actq.ArgumentError, "bits", "got 9",
     lambda: actq.FewbitTable.build("gelu", 9)),
    ("FewbitTable.build", actq.ArgumentError, "param", "got -1.0",
     lambda: actq.FewbitTable.build("elu", 2, param=-1.0)),
    ("FewbitTable.build", actq.ArgumentError, "param", "got nan",
     lambda: actq.FewbitTable.build("leaky_relu", 1, param=float("nan"))),
    ("FewbitTable.build", actq.ArgumentError, "weight", "got 'cauchy'",
     lambda: actq.FewbitTable.build("gelu", 2, weight="cauchy")),
    ("FewbitTable.build", actq.ArgumentError, "mean", "got inf",
     lambda: actq.FewbitTable.build("gelu", 2, mean=float("inf"))),
    ("FewbitTable.build", actq.ArgumentError, "std", "got 0.0",
     lambda: actq.FewbitTable.build("gelu", 2, std=0.0)),
    ("FewbitTable.build", actq.ArgumentError, "hi", "got -200.0",
     lambda: actq.FewbitTable.build("gelu", 2, weight="uniform", hi=-200.0)),
    ("FewbitTable.build", actq.ArgumentError, "lo", "got nan",
     lambda: actq.FewbitTable.build("gelu", 2, weight="uniform", lo=float("nan"))),
    ("FewbitTable.build", actq.ArgumentError, "grid", "got 8",
     lambda: actq.FewbitTable.build("gelu", 2, grid=8)),
    ("FewbitTable.build", actq.ArgumentError, "grid", "got 64",
     lambda: actq.FewbitTable.build("gelu", 7, grid=64)),
    ("FewbitTable.build_custom", actq.ArgumentError, "x", "at least 2 samples",
     lambda: actq.FewbitTable.build_custom([0.0], [1.0], 1)),
    ("FewbitTable.build_custom", actq.ArgumentError, "x[2]", "x[2] = 1.0 is not above x[1]",
     lambda: actq.FewbitTable.build_custom([0.0, 1.0, 1.0], [1.0, 1.0, 1.0], 1)),
    ("FewbitTable.build_custom", actq.ArgumentError, "x[1]", "got nan",
     lambda: actq.FewbitTable.build_custom([0.0, float("nan")], [1.0, 1.0], 1)),
    ("FewbitTable.build_custom", actq.ArgumentError, "dydx", "dydx has 2 elements",
     lambda: actq.FewbitTable.build_custom([0.0, 1.0, 2.0], [1.0, 1.0], 1)),
    ("FewbitTable.build_custom", actq.ArgumentError, "dydx[0]", "got inf",
     lambda: actq.FewbitTable.build_custom([0.0, 1.0], [float("inf"), 1.0], 1)),
    ("FewbitTable.build_custom", actq.ArgumentError, "weight[1]", "got -1.0",
     lambda: actq.FewbitTable.build_custom([0.0, 1.0], [1.0, 1.0], 1, weight=[1.0, -1.0])),
    ("FewbitTable.build_custom", actq.ArgumentError, "bits", "got 0",
     lambda: actq.FewbitTable.build_custom([0.0, 1.0], [1.0, 1.0], 0)),
    ("allocate_bits", actq.ArgumentError, "numel", "numel has 3 elements",
     lambda: actq.allocate_bits([1.0, 2.0], [10, 10, 10], 2.0)),
    ("allocate_bits", actq.ArgumentError, "numel", "got -5",
     lambda: actq.allocate_bits([1.0, 2.0], -5, 2.0)),
    ("allocate_bits", actq.ArgumentError, "sensitivity[1]", "got nan",
     lambda: actq.allocate_bits([1.0, float("nan")], 10, 2.0)),
    ("allocate_bits", actq.ArgumentError, "sensitivity[0]", "got -1.0",
     lambda: actq.allocate_bits([-1.0, 1.0], 10, 2.0)),
    ("allocate_bits", actq.ArgumentError, "average_bits", "got nan",
     lambda: actq.allocate_bits([1.0], 10, float("nan"))),
    ("allocate_bits", actq.ArgumentError, "average_bits", "got 0.5",
     lambda: actq.allocate_bits([1.0], 10, 0.5)),
    ("allocate_bits", actq.ArgumentError, "allowed[1]", "got 9",
     lambda: actq.allocate_bits([1.0], 10, 2.0, allowed=(2, 9))),
    ("allocate_bits", actq.ArgumentError, "allowed", "got ()",
     lambda: actq.allocate_bits([1.0], 10, 2.0, allowed=())),
    ("allocate_bits", actq.ArgumentError, "allowed", "got 0x1",
     lambda: actq.allocate_bits([1.0], 10, 2.0, allowed=0x1)),
    ("allocate_bits", actq.ArgumentError, "method", "got 'optimal'",
     lambda: actq.allocate_bits([1.0], 10, 2.0, method="optimal")),
    ("Context", actq.ArgumentError, "backend", "got 7", lambda: actq.Context(7)),
    ("Context", actq.ArgumentError, "threads", "got -2", lambda: actq.Context(threads=-2)),
    ("Context.set_threads", actq.ArgumentError, "threads", "got 1.5",
     lambda: actq.Context().set_threads(1.5)),
]


def _check(exc, argument, text, call):
    with pytest.raises(exc) as e:
        call()
    assert text in str(e.value), str(e.value)
    if argument is not None:
        assert e.value.argument == argument
        # the message names the argument (an element by its sequence) and the value
        assert str(e.value).startswith(argument.split("[")[0]), str(e.value)
        assert isinstance(e.value, actq.InvalidArgumentError) and isinstance(e.value,
                                                                             ValueError)
        assert e.value.status == actq.Status.ERR_INVALID_ARGUMENT


@pytest.mark.parametrize("entry,exc,argument,text,call", NUMPY,
                         ids=["%s-%s" % (c[0], c[2] or c[3][:20]) for c in NUMPY])
def test_numpy_entry_points(entry, exc, argument, text, call):
    _check(exc, argument, text, call)


def test_every_numpy_entry_point_is_covered():
    names = {c[0].split(".")[0] for c in NUMPY}
    public = {"quantize", "layout_sizes", "dequantize", "pack", "unpack", "fewbit_encode",
              "fewbit_backward", "FewbitTable", "allocate_bits", "Context"}
    assert public <= names, public - names


def test_the_messages_read_as_the_issue_asks():
    with pytest.raises(actq.ArgumentError) as e:
        actq.quantize(X, bits=9)
    assert str(e.value) == "bits must be 1..8, got 9"
    with pytest.raises(actq.ArgumentError) as e:
        actq.quantize(X, group_size=7)
    assert str(e.value) == "group_size must be a multiple of 8 in 8..65536, got 7"
    assert e.value.value == 7
    with pytest.raises(actq.ArgumentError) as e:
        actq.quantize(X, row_bits=[2, 2, 2])
    assert str(e.value) == "row_bits has 3 entries for 4 rows"


def test_argument_errors_pickle():
    import pickle
    e = actq.ArgumentError("bits", 9, "bits must be 1..8, got 9")
    f = pickle.loads(pickle.dumps(e))
    assert (f.argument, f.value, str(f)) == ("bits", 9, "bits must be 1..8, got 9")


# ---- PyTorch ---------------------------------------------------------------------------

torch = pytest.importorskip("torch")
at = pytest.importorskip("actq.torch")
T = torch.zeros(4, 64)


def _torch_cases():
    tq = at.quantize(T)
    codes, _ = at.fewbit_encode(TABLE, T)
    return [
        ("ops.quantize", actq.ArgumentError, "bits", "got 9", lambda: at.quantize(T, bits=9)),
        ("ops.quantize", actq.ArgumentError, "group_size", "got 7",
         lambda: at.quantize(T, group_size=7)),
        ("ops.quantize", actq.ArgumentError, "row_bits", "row_bits has 3 entries for 4 rows",
         lambda: at.quantize(T, row_bits=[2, 2, 2])),
        ("ops.quantize", actq.ArgumentError, "row_bits[0]", "got 9",
         lambda: at.quantize(T, row_bits=torch.tensor([9, 2, 2, 2]))),
        ("ops.quantize", actq.ArgumentError, "rounding", "got 'up'",
         lambda: at.quantize(T, rounding="up")),
        ("ops.quantize", actq.ArgumentError, "meta_dtype", "got 'f64'",
         lambda: at.quantize(T, meta_dtype="f64")),
        ("ops.quantize", actq.ArgumentError, "seed", "got 1.5",
         lambda: at.quantize(T, seed=1.5)),
        ("ops.quantize", actq.ArgumentError, "offset", "got -9223372036854775809",
         lambda: at.quantize(T, offset=-2 ** 63 - 1)),
        ("ops.quantize", actq.ArgumentError, "rows", "got 5", lambda: at.quantize(T, rows=5)),
        ("ops.quantize", TypeError, None, "x must be a float32, float16 or bfloat16 tensor, "
         "got torch.int32", lambda: at.quantize(T.int())),
        ("ops.quantize", TypeError, None, "x must be a tensor, got ndarray",
         lambda: at.quantize(X)),
        ("ops.dequantize", TypeError, None, "q must be a Quantized", lambda: at.dequantize(T)),
        ("ops.dequantize", TypeError, None, "dtype must be torch.float32",
         lambda: at.dequantize(tq, dtype=torch.int8)),
        ("ops.dequantize", actq.ArgumentError, "dtype", "got 'f64'",
         lambda: at.dequantize(tq, dtype="f64")),
        ("ops.pack", actq.ArgumentError, "bits", "got 9",
         lambda: at.pack(torch.zeros(8, dtype=torch.uint8), 9)),
        ("ops.pack", actq.ArgumentError, "codes[1]", "got 4",
         lambda: at.pack(torch.tensor([0, 4], dtype=torch.uint8), 2)),
        ("ops.pack", TypeError, None, "codes must be a torch.uint8 tensor, got torch.int64",
         lambda: at.pack(torch.tensor([0, 1]), 2)),
        ("ops.unpack", actq.ArgumentError, "bits", "got 0",
         lambda: at.unpack(torch.zeros(4, dtype=torch.uint8), 0, 8)),
        ("ops.unpack", actq.ArgumentError, "packed", "packed has 1 bytes",
         lambda: at.unpack(torch.zeros(1, dtype=torch.uint8), 2, 8)),
        ("ops.unpack", TypeError, None, "packed must be a torch.uint8 tensor",
         lambda: at.unpack(torch.zeros(4), 2, 8)),
        ("ops.fewbit_encode", TypeError, None, "x must be a float32, float16 or bfloat16",
         lambda: at.fewbit_encode(TABLE, T.double())),
        ("ops.fewbit_backward", actq.ArgumentError, "codes", "codes has 3 bytes",
         lambda: at.fewbit_backward(TABLE, codes[:3], T)),
        ("ops.fewbit_backward", TypeError, None, "codes must be a torch.uint8 tensor",
         lambda: at.fewbit_backward(TABLE, codes.int(), T)),
        ("ops.fewbit_backward", TypeError, None, "grad_out must be a float32, float16",
         lambda: at.fewbit_backward(TABLE, codes, T.long())),
        ("ops.allocate_bits", actq.ArgumentError, "average_bits", "got -1.0",
         lambda: at.allocate_bits(torch.ones(2), torch.tensor([4, 4]), -1.0)),
        ("nn.GELU", actq.ArgumentError, "bits", "got 9", lambda: at.nn.GELU(bits=9)),
        ("nn.SiLU", actq.ArgumentError, "route", "got 'fast'",
         lambda: at.nn.SiLU(route="fast")),
        ("nn.FewbitActivation", actq.ArgumentError, "activation", "got 'swish'",
         lambda: at.nn.FewbitActivation("swish")),
        ("nn.FewbitActivation", actq.ArgumentError, "param", "got 0.0",
         lambda: at.nn.FewbitActivation("softplus", 2, param=0.0)),
        ("functional.fewbit_activation", actq.ArgumentError, "bits", "got 0",
         lambda: at.functional.fewbit_activation(T, "gelu", bits=0)),
        ("functional.fewbit_activation", actq.ArgumentError, "route", "got 'c'",
         lambda: at.functional.fewbit_activation(T, "gelu", route="c")),
        ("Quantizer", actq.ArgumentError, "bits", "got 9", lambda: at.Quantizer(bits=9)),
        ("Quantizer", actq.ArgumentError, "group_size", "got 100",
         lambda: at.Quantizer(group_size=100)),
        ("Quantizer", actq.ArgumentError, "average_bits", "got nan",
         lambda: at.Quantizer(average_bits=float("nan"))),
        ("Quantizer", actq.ArgumentError, "allowed[0]", "got 0",
         lambda: at.Quantizer(allowed_bits=(0, 2))),
        ("Quantizer", actq.ArgumentError, "rounding", "got 'down'",
         lambda: at.Quantizer(rounding="down")),
        ("Quantizer", actq.ArgumentError, "meta_dtype", "got 'int8'",
         lambda: at.Quantizer(meta_dtype="int8")),
        ("Quantizer", actq.ArgumentError, "seed", "got 'x'", lambda: at.Quantizer(seed="x")),
        ("Quantizer", actq.ArgumentError, "alloc_method", "got 'best'",
         lambda: at.Quantizer(alloc_method="best")),
        ("AutoPrecision", actq.ArgumentError, "average_bits", "got -2.0",
         lambda: at.AutoPrecision(torch.nn.Linear(2, 2), average_bits=-2.0)),
        ("AutoPrecision", actq.ArgumentError, "allowed[1]", "got 16",
         lambda: at.AutoPrecision(torch.nn.Linear(2, 2), allowed_bits=(2, 16))),
        ("AutoPrecision", actq.ArgumentError, "refresh_every", "got 0",
         lambda: at.AutoPrecision(torch.nn.Linear(2, 2), refresh_every=0)),
        ("AutoPrecision", actq.ArgumentError, "probes", "got -1",
         lambda: at.AutoPrecision(torch.nn.Linear(2, 2), probes=-1)),
        ("compressed_saved_tensors", actq.ArgumentError, "bits", "got 9",
         lambda: at.compressed_saved_tensors(bits=9).__enter__()),
        ("compressed_saved_tensors", actq.ArgumentError, "min_numel", "got -1",
         lambda: at.compressed_saved_tensors(min_numel=-1).__enter__()),
        ("compressed_saved_tensors", TypeError, None, "quantizer must be a Quantizer",
         lambda: at.compressed_saved_tensors(quantizer=object()).__enter__()),
    ]


def test_torch_entry_points():
    for entry, exc, argument, text, call in _torch_cases():
        try:
            _check(exc, argument, text, call)
        except BaseException as e:
            raise AssertionError("%s: %s" % (entry, e)) from e


def test_the_operators_refuse_with_the_same_words():
    """torch.ops.actq.* called directly (C++ or Python operators): the argument's name in
    the tag, translated back to ArgumentError by the package's entry points."""
    from actq.torch import library
    if not library.AVAILABLE:
        pytest.skip("no torch.ops.actq on this PyTorch")
    off = torch.tensor(0)
    cases = [
        ("bits", "bits must be 1..8, got 9",
         lambda: torch.ops.actq.quantize(T, None, 4, 9, 64, "nearest", 0, off, "f32")),
        ("group_size", "group_size must be a multiple of 8 in 8..65536, got 12",
         lambda: torch.ops.actq.quantize(T, None, 4, 2, 12, "nearest", 0, off, "f32")),
        ("rounding", "rounding must be one of stochastic, nearest, got 'up'",
         lambda: torch.ops.actq.quantize(T, None, 4, 2, 64, "up", 0, off, "f32")),
        ("meta_dtype", "meta_dtype must be one of f32, f16, bf16, got 'f64'",
         lambda: torch.ops.actq.quantize(T, None, 4, 2, 64, "nearest", 0, off, "f64")),
        ("row_bits[1]", "row_bits[1] must be 1..8, got 0",
         lambda: torch.ops.actq.quantize(T, torch.tensor([2, 0, 2, 2], dtype=torch.uint8), 4,
                                         2, 64, "nearest", 0, off, "f32")),
        ("bits", "bits must be 1..8, got 0",
         lambda: torch.ops.actq.compress(T, off, torch.zeros(9, dtype=torch.int64), 4, 0, 64,
                                         "nearest", 0, "f32")),
    ]
    for argument, message, call in cases:
        with pytest.raises(Exception) as e:
            call()
        got = library.translated(e.value) if isinstance(e.value, RuntimeError) else e.value
        assert isinstance(got, actq.ArgumentError), (message, e.value)
        assert (got.argument, str(got)) == (argument, message)
