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
from actq.torch import library
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
        for name in ("quantize", "dequantize", "fewbit_encode", "fewbit_backward"):
            assert hasattr(torch.ops.actq, name)
    else:
        assert library.REASON


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
        with pytest.raises(ValueError, match="bytes of uint8 codes"):
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
        with op_raises(ValueError, "do not split into 3 rows"):
            torch.ops.actq.quantize(x, None, 3, 2, 64, "nearest", 0, off, "f32")
        with op_raises(ValueError, "row_bits must be 4 uint8"):
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
