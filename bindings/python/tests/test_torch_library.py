"""The torch.ops.actq custom ops: torch.library.opcheck of each (schema, fake
implementation against the real one, autograd registration, AOT dispatch with dynamic
shapes), the same bytes as the direct library calls, and the public entry points working
on fake tensors, which is what lets torch.compile trace them (test_torch_compile.py).

Needs torch.library.custom_op (PyTorch >= 2.4); skipped, with the reason, before that,
where the direct path serves every call (the rest of the suite tests it).
"""
import contextlib
import os
import re

import pytest
import torch

import actq
import actq.torch as at
from actq.torch import kernels, library
from conftest import DEVICES, assert_same_bytes

needs_ops = pytest.mark.skipif(not library.AVAILABLE, reason=library.REASON or "")

DTYPES = [torch.float32, torch.float16, torch.bfloat16]


def gen(seed):
    return torch.Generator().manual_seed(seed)


def test_ops_exist_exactly_where_pytorch_has_custom_ops():
    forced_off = os.environ.get("ACTQ_TORCH_OPS") == "0"
    assert library.AVAILABLE == (hasattr(torch.library, "custom_op") and not forced_off)
    if library.AVAILABLE:
        assert library.REASON is None
        for name in ("quantize", "dequantize", "fewbit_encode", "fewbit_backward",
                     "compress"):
            assert hasattr(torch.ops.actq, name)
    else:
        assert library.REASON
        assert library.CPP_PATH is None
    if os.environ.get("ACTQ_TORCH_CPP") == "0":
        assert library.CPP_PATH is None
    # IMPLEMENTATION names the path that serves the calls, and why not a faster one.
    impl = library.IMPLEMENTATION
    if library.CPP_PATH:
        assert impl.startswith("C++ operators") and library.CPP_PATH in impl, impl
    elif library.AVAILABLE:
        assert impl.startswith("Python custom operators"), impl
        assert library.CPP_REASON and library.CPP_REASON in impl, impl
    else:
        assert impl.startswith("direct library calls") and library.REASON in impl, impl


@contextlib.contextmanager
def op_raises(cls, match):
    """A direct torch.ops.actq call fails with cls and a message matching `match`: raised as
    such by the Python operators, and by the C++ ones as a RuntimeError whose tag
    library.translated() turns into exactly that (what the package's entry points raise)."""
    with pytest.raises(Exception) as info:
        yield
    got = library.translated(info.value)
    if not library.CPP_PATH:
        assert got is info.value
    assert isinstance(got, cls), "%r, want %s" % (got, cls.__name__)
    assert re.search(match, str(got)), "%r does not match %r" % (str(got), match)


def opcheck(op, args):
    # Every check opcheck has; it raises on the first that fails.
    torch.library.opcheck(op, args)


QUANTIZE_CASES = [
    # shape, rows, bits, group size, rounding, meta dtype
    ((5, 333), 5, 2, 64, "stochastic", "f32"),  # tail groups
    ((4, 3, 8, 8), 4, 3, 32, "nearest", "f16"),  # 4-d, rows = the batch
    ((1000,), 1, 1, 256, "stochastic", "bf16"),
    ((6, 40), 6, 8, 8, "nearest", "f32"),
]


@needs_ops
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,rows,bits,gs,rounding,meta", QUANTIZE_CASES)
def test_opcheck_quantize_and_dequantize(device, dtype, shape, rows, bits, gs, rounding,
                                         meta):
    x = torch.randn(shape, generator=gen(bits)).to(device, dtype)
    offset = torch.tensor(7)
    opcheck(torch.ops.actq.quantize.default,
            (x, None, rows, bits, gs, rounding, 5, offset, meta))
    packed, gmin, gscale = torch.ops.actq.quantize(x, None, rows, bits, gs, rounding, 5,
                                                   offset, meta)
    opcheck(torch.ops.actq.dequantize.default,
            (packed, gmin, gscale, None, list(shape), rows, bits, gs, dtype))


@needs_ops
@pytest.mark.parametrize("device", DEVICES)
def test_opcheck_quantize_with_per_row_widths(device):
    """The packed length then depends on the widths' values: a dynamic size in the fake."""
    x = torch.randn(4, 100, generator=gen(1)).to(device)
    rb = torch.tensor([1, 8, 3, 2], dtype=torch.uint8)  # host memory on every backend
    opcheck(torch.ops.actq.quantize.default,
            (x, rb, 4, 2, 16, "stochastic", 3, torch.tensor(0), "f32"))
    packed, gmin, gscale = torch.ops.actq.quantize(x, rb, 4, 2, 16, "stochastic", 3,
                                                   torch.tensor(0), "f32")
    assert packed.numel() == (100 * 1 + 7) // 8 + 100 + (300 + 7) // 8 + 200 // 8
    opcheck(torch.ops.actq.dequantize.default,
            (packed, gmin, gscale, rb, [4, 100], 4, 2, 16, torch.float32))


@needs_ops
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation,bits", [("gelu", 2), ("silu", 3), ("relu", 1)])
def test_opcheck_fewbit_encode_and_backward(device, dtype, activation, bits):
    spec = library.table_spec(actq.cached_table(activation, bits))
    x = torch.randn(3, 37, generator=gen(bits)).to(device, dtype)
    for with_y in (True, False):
        opcheck(torch.ops.actq.fewbit_encode.default, (x, *spec, with_y))
    codes, _ = torch.ops.actq.fewbit_encode(x, *spec, False)
    g = torch.randn(3, 37, generator=gen(9)).to(device, dtype)
    opcheck(torch.ops.actq.fewbit_backward.default, (codes, g, *spec))


@needs_ops
@pytest.mark.parametrize("device", DEVICES)
def test_ops_write_the_bytes_of_the_direct_calls(device):
    """The public entry points through the ops against the same calls with an explicit
    context, which go to the library directly; a seed and an offset above 2^63 check the
    int64 form the schema holds."""
    x = torch.randn(6, 300, generator=gen(3)).to(device)
    for seed, offset in [(5, 2), (2 ** 64 - 3, 2 ** 63 + 1)]:
        with at.context_for(x) as ctx:
            want = at.quantize(x, 3, 64, seed=seed, offset=offset, ctx=ctx)
            y_want = at.dequantize(want, ctx=ctx)
        for off in (offset, torch.tensor(library.signed64(offset))):
            got = at.quantize(x, 3, 64, seed=seed, offset=off)
            assert_same_bytes(got.packed, want.packed, "packed codes")
            assert_same_bytes(got.group_scale, want.group_scale, "group_scale")
            assert_same_bytes(at.dequantize(got), y_want, "dequantized")
    table = actq.cached_table("gelu", 3)
    with at.context_for(x) as ctx:
        codes_want, y_want = at.fewbit_encode(table, x, ctx=ctx)
        gi_want = at.fewbit_backward(table, codes_want, x, ctx=ctx)
    codes, y = at.fewbit_encode(table, x)
    assert_same_bytes(codes, codes_want, "codes")
    assert_same_bytes(y, y_want, "f(x)")
    assert_same_bytes(at.fewbit_backward(table, codes, x), gi_want, "grad_in")


@needs_ops
def test_public_calls_run_on_fake_tensors():
    """Shapes and dtypes without data: only the ops' path can do that (the direct one
    needs data pointers)."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    real = at.quantize(torch.randn(5, 333), bits=3, group_size=64, meta_dtype="bf16")
    with FakeTensorMode():
        q = at.quantize(torch.empty(5, 333), bits=3, group_size=64, meta_dtype="bf16")
        y = at.dequantize(q, dtype=torch.float16)
        codes, fx = at.fewbit_encode(actq.cached_table("gelu", 2), torch.empty(10, 7))
    assert q.packed.shape == real.packed.shape and q.group_min.dtype == torch.bfloat16
    assert q.group_scale.shape == real.group_scale.shape
    assert y.shape == (5, 333) and y.dtype == torch.float16
    assert codes.shape == (18,) and fx.shape == (10, 7)


@needs_ops
def test_fakes_reject_what_the_library_rejects():
    """A bad layout fails at tracing time with the library's own error."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        with pytest.raises(actq.InvalidArgumentError):
            torch.ops.actq.quantize(torch.empty(2, 64), None, 2, 2, 12, "stochastic", 0,
                                    torch.tensor(0), "f32")  # group size not a multiple of 8
        with pytest.raises(ValueError, match="^codes has 3 bytes, grad_out's 20 elements"):
            spec = library.table_spec(actq.cached_table("gelu", 2))
            torch.ops.actq.fewbit_backward(torch.empty(3, dtype=torch.uint8),
                                           torch.empty(20), *spec)


@needs_ops
@pytest.mark.parametrize("fake", [False, True])
def test_ops_check_their_buffers_before_the_library_reads_them(fake):
    """Called directly, the ops get any tensors: each size the C call relies on is checked,
    by the real implementation and by the fake alike."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    mode = FakeTensorMode() if fake else contextlib.nullcontext()
    with mode:
        x = torch.zeros(4, 64)
        off = torch.tensor(0)
        with op_raises(ValueError, "^rows must divide the 256 elements, got 3$"):
            torch.ops.actq.quantize(x, None, 3, 2, 64, "nearest", 0, off, "f32")
        with op_raises(ValueError, "^row_bits has 3 entries for 4 rows$"):
            torch.ops.actq.quantize(x, torch.ones(3, dtype=torch.uint8), 4, 2, 64,
                                    "nearest", 0, off, "f32")
        packed, gmin, gscale = torch.ops.actq.quantize(x, None, 4, 2, 64, "nearest", 0, off,
                                                       "f32")
        with op_raises(ValueError, "needs packed of 64 elements"):
            torch.ops.actq.dequantize(packed[:63], gmin, gscale, None, [4, 64], 4, 2, 64,
                                      torch.float32)
        with op_raises(ValueError, "needs group_scale of 4 elements"):
            torch.ops.actq.dequantize(packed, gmin, gscale.half(), None, [4, 64], 4, 2, 64,
                                      torch.float32)
        y = torch.ops.actq.dequantize(packed, gmin, gscale, None, [4, 64], 4, 2, 64,
                                      torch.float32)
    assert y.shape == (4, 64)


# ---- actq::compress, the C++ operators against the C calls, the tagged errors ----------

needs_cpp = pytest.mark.skipif(
    not library.CPP_PATH, reason="no C++ operators: %s" % library.CPP_REASON)

COMPRESS_CASES = [
    # shape, rows, dtype, bits, group size, rounding, meta dtype, offset before the call
    ((5, 333), 5, torch.float32, 1, 64, "stochastic", "f32", 0),  # tail groups
    ((3, 7, 50), 3, torch.float16, 2, 32, "nearest", "bf16", 41),
    ((1000,), 1, torch.bfloat16, 3, 256, "stochastic", "f16", 2 ** 63 + 5),
    ((6, 40), 6, torch.float32, 4, 8, "nearest", "f16", 7),
    ((2, 3, 5, 7), 2, torch.float16, 5, 16, "stochastic", "f32", 2 ** 64 - 1),  # wraps to 0
    ((9, 130), 9, torch.bfloat16, 6, 128, "nearest", "f32", 3),
    ((4, 129), 4, torch.float32, 7, 64, "stochastic", "bf16", 12345),
    ((7, 77), 7, torch.bfloat16, 8, 24, "stochastic", "f16", 2 ** 40),
]


@needs_ops
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape,rows,dtype,bits,gs,rounding,meta,start", COMPRESS_CASES)
def test_opcheck_compress(device, shape, rows, dtype, bits, gs, rounding, meta, start):
    """opcheck (it calls the op several times: fresh counters for it), then one call: the
    bytes of quantize at the offset it held, the offset advanced by exactly one (mod 2^64),
    x's elements added to stored[bits] and nothing else counted."""
    x = torch.randn(shape, generator=gen(bits)).to(device, dtype)
    seed = library.signed64(2 ** 64 - 17 * bits)  # above 2^63 as a uint64
    opcheck(torch.ops.actq.compress.default,
            (x, torch.tensor(library.signed64(start)), torch.zeros(9, dtype=torch.int64),
             rows, bits, gs, rounding, seed, meta))
    offset = torch.tensor(library.signed64(start))
    stored = torch.arange(100, 109, dtype=torch.int64)
    want = torch.ops.actq.quantize(x, None, rows, bits, gs, rounding, seed, offset.clone(),
                                   meta)
    got = torch.ops.actq.compress(x, offset, stored, rows, bits, gs, rounding, seed, meta)
    for what, g, w in zip(("packed", "group_min", "group_scale"), got, want):
        assert_same_bytes(g, w, what)
    assert offset.dtype == torch.int64 and offset.shape == ()
    assert int(offset) == library.signed64(start + 1)
    counted = torch.arange(100, 109, dtype=torch.int64)
    counted[bits] += x.numel()
    assert stored.tolist() == counted.tolist()


def strided(t):
    """t's values as a non-contiguous view (every other element of a larger tensor)."""
    return torch.stack([t, torch.zeros_like(t)], dim=-1)[..., 0]


@needs_cpp
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bits", range(1, 9))
def test_cpp_operators_write_the_bytes_of_the_c_calls(device, dtype, bits):
    """Each C++ operator against the same C call made through ctypes (actq.torch.kernels,
    what the Python operators and the direct path run): non-contiguous inputs, per-row
    widths, both roundings, every metadata dtype, seeds and offsets above 2^63 (the int64
    form the schema holds)."""
    from actq.enums import DType, Rounding, to_enum
    from actq.torch.device import TORCH_DTYPES
    rows, cols = 6, 100
    gs = 8 * (bits + 2)  # 24..80: a tail group in every row
    x = torch.randn(cols, rows, generator=gen(bits)).to(device, dtype).t()
    assert not x.is_contiguous()
    meta = ("f32", "f16", "bf16")[bits % 3]
    md = to_enum(DType, meta)
    y_dtype = DTYPES[(bits + 1) % 3]
    rb = torch.tensor([(bits + i) % 8 + 1 for i in range(rows)], dtype=torch.uint8)
    for rounding in ("stochastic", "nearest"):
        for seed, offset in ((bits, 7), (2 ** 64 - 1 - bits, 2 ** 63 + bits)):
            for row_bits in (None, rb):
                what = "%s, seed %d, offset %d, row_bits %s" % (rounding, seed, offset,
                                                                row_bits is not None)
                got = torch.ops.actq.quantize(x, row_bits, rows, bits, gs, rounding,
                                              library.signed64(seed),
                                              torch.tensor(library.signed64(offset)), meta)
                want = kernels.quantize(x, rows, bits, gs, row_bits,
                                        to_enum(Rounding, rounding), seed, offset, md)
                for name, g, w in zip(("packed", "group_min", "group_scale"), got, want):
                    assert_same_bytes(g, w, "quantize %s: %s" % (name, what))
                y = torch.ops.actq.dequantize(*(strided(t) for t in got), row_bits,
                                              [rows, cols], rows, bits, gs, y_dtype)
                y_want = kernels.dequantize(*want, row_bits, [rows, cols], rows, bits, gs,
                                            md, TORCH_DTYPES[y_dtype])
                assert_same_bytes(y, y_want, "dequantize: %s" % what)
            # compress: quantize at the offset it holds, then one more.
            off = torch.tensor(library.signed64(offset))
            stored = torch.zeros(9, dtype=torch.int64)
            got = torch.ops.actq.compress(x, off, stored, rows, bits, gs, rounding,
                                          library.signed64(seed), meta)
            want = kernels.quantize(x, rows, bits, gs, None, to_enum(Rounding, rounding),
                                    seed, offset, md)
            for name, g, w in zip(("packed", "group_min", "group_scale"), got, want):
                assert_same_bytes(g, w, "compress %s: %s, offset %d"
                                  % (name, rounding, offset))
            assert int(off) == library.signed64(offset + 1) and stored[bits] == x.numel()
    table = actq.cached_table(("gelu", "silu", "relu")[bits % 3], bits)
    spec = library.table_spec(table)
    for with_y in (True, False):
        codes, y = torch.ops.actq.fewbit_encode(x, *spec, with_y)
        codes_want, y_want = kernels.fewbit_encode(table.struct, x, with_y)
        assert_same_bytes(codes, codes_want, "fewbit_encode codes")
        if with_y:
            assert_same_bytes(y, y_want, "fewbit_encode f(x)")
        else:
            assert y.numel() == 0
    g = torch.randn(cols, rows, generator=gen(bits + 9)).to(device, dtype).t()
    gi = torch.ops.actq.fewbit_backward(strided(codes), g, *spec)
    assert_same_bytes(gi, kernels.fewbit_backward(table.struct, codes_want, g),
                      "fewbit_backward")


def test_translated_gives_the_bindings_exceptions():
    """A C++ operator's tag names the exception; translated() makes it (needs no ops)."""
    e = library.translated(RuntimeError("[actq ValueError] x"))
    assert type(e) is ValueError and str(e) == "x"
    e = library.translated(RuntimeError("[actq ValueError] 12 elements: do not split"))
    assert type(e) is ValueError and str(e) == "12 elements: do not split"
    e = library.translated(RuntimeError("[actq ValueError] on grad_out's device (cuda:0), got cpu"))
    assert str(e) == "on grad_out's device (cuda:0), got cpu"  # colons of device names kept
    e = library.translated(RuntimeError("[actq TypeError] y"))
    assert type(e) is TypeError and str(e) == "y"
    e = library.translated(
        RuntimeError("[actq status 5] actq_quantize: nonfinite values met"))
    assert type(e) is actq.NonFiniteError and isinstance(e, ArithmeticError)
    assert e.call == "actq_quantize" and e.status == 5
    # The text after the call is the library's own actq_status_string, as a direct call's.
    assert str(e) == "actq_quantize: " + actq.errors.status_string(5)
    assert str(e).startswith("actq_quantize: nonfinite values met")
    e = library.translated(RuntimeError("[actq status 1] actq_quantize: invalid argument"))
    assert type(e) is actq.InvalidArgumentError and isinstance(e, ValueError)
    assert str(e) == "actq_quantize: invalid argument" and e.status == 1
    for untagged in (RuntimeError("actq_quantize: invalid argument"),
                     RuntimeError("[actq NoSuchError] z")):
        assert library.translated(untagged) is untagged


def test_public_entry_points_raise_the_bindings_exceptions():
    """On every path, the C++ operators' included: the exception a direct call raises."""
    x = torch.randn(4, 64)
    with pytest.raises(actq.InvalidArgumentError):
        at.quantize(x, bits=9)
    with pytest.raises(TypeError, match="float32, float16 or bfloat16"):
        at.quantize(torch.zeros(4, 64, dtype=torch.int32))
    bad = x.clone()
    bad[1, 5] = float("nan")
    with pytest.raises(actq.NonFiniteError, match="^actq_quantize: nonfinite values met"):
        at.quantize(bad, bits=2, rounding="stochastic")
    if library.AVAILABLE:  # the operator itself, tagged on the C++ path
        with op_raises(TypeError, "float32, float16 or bfloat16"):
            torch.ops.actq.quantize(torch.zeros(4, 64, dtype=torch.int32), None, 4, 2, 64,
                                    "nearest", 0, torch.tensor(0), "f32")
        with op_raises(actq.NonFiniteError, "^actq_quantize: nonfinite values met"):
            torch.ops.actq.compress(bad, torch.tensor(0), torch.zeros(9, dtype=torch.int64),
                                    4, 2, 64, "stochastic", 0, "f32")


@pytest.mark.parametrize("bits", [9, 0, -1])
def test_a_failed_compress_advances_and_counts_nothing(bits):
    """Quantizer.compress with a width the library rejects (set after construction, which
    refuses it): its exception, and neither the offset nor the counters move."""
    with pytest.raises(actq.ArgumentError, match="^bits must be 1..8, got %d$" % bits):
        at.Quantizer(bits=bits, seed=3)
    q = at.Quantizer(bits=2, seed=3)
    q.bits = bits
    q.calls = 2 ** 63 + 1
    with pytest.raises(actq.InvalidArgumentError, match="^bits must be 1..8, got %d$" % bits):
        q.compress(torch.randn(4, 64))
    assert q.calls == 2 ** 63 + 1
    assert q.elements_per_width == [0] * 9
