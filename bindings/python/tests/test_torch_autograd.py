"""torch.ops.actq.fewbit_activation (bindings/torch/src/autograd.cc): the few-bit layers'
forward and backward as one C++ operator with its autograd node, against the Python
autograd.Function (functional.FewbitActivation) that serves everywhere else: the same y,
the same saved codes, the same gradient, the same errors."""
import os

import numpy as np
import pytest
import torch

import actq
import actq.torch as at
from actq.enums import Activation as A
from actq.torch import functional as AF, library
from conftest import assert_same_bytes

needs_cpp = pytest.mark.skipif(not library.AUTOGRAD_PATH,
                               reason="no C++ autograd library: %s" % library.AUTOGRAD_REASON)

PARAMS = {A.SOFTPLUS: 1.5, A.ELU: 0.7, A.CELU: 1.3, A.LEAKY_RELU: 0.05}
DTYPES = [torch.float32, torch.bfloat16, torch.float16]


def gen(seed):
    return torch.Generator().manual_seed(seed)


def test_loaded_where_built():
    """Built beside the stable-ABI operators for this PyTorch (CMake does where PyTorch is
    2.15 or later), the library is loaded unless ACTQ_TORCH_AUTOGRAD=0 says not."""
    if not library.CPP_PATH:
        pytest.skip("no C++ operators: %s" % library.CPP_REASON)
    built = os.path.isfile(library.autograd_library_path())
    off = os.environ.get("ACTQ_TORCH_AUTOGRAD") == "0"
    assert bool(library.AUTOGRAD_PATH) == (built and not off), library.AUTOGRAD_REASON
    if built and not off:
        assert hasattr(torch.ops.actq, "fewbit_activation")


def both(x, gy, spec, route):
    """(y, x's gradient, the saved tensors) from the C++ operator and from the Python
    function, on the same x and incoming gradient."""
    out = []
    for fn in (lambda xr: AF.fewbit_apply(xr, spec, route),
               lambda xr: AF.FewbitActivation.apply(xr, spec, route)):
        xr = x.clone().requires_grad_()
        saved = []
        with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t,
                                                      lambda t: t):
            y = fn(xr)
        y.backward(gy)
        out.append((y.detach(), xr.grad, saved))
    return out


@needs_cpp
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("route", ["torch", "fused"])
@pytest.mark.parametrize("bits", [1, 2, 5, 8])
@pytest.mark.parametrize("activation", sorted(set(A) - {A.CUSTOM}, key=int))
def test_same_bytes_as_the_python_function(activation, bits, route, dtype):
    """Every built-in activation, width and dtype, on both routes: y, the gradient and the
    saved codes are the Python function's bytes; y on the torch route is PyTorch's own
    (TORCH_FORWARD), so the C++ operator's ATen calls are the same ones."""
    p = PARAMS.get(activation, 0.0)
    spec = library.table_spec(actq.cached_table(activation, bits, p))
    x = (torch.randn(7, 301, generator=gen(int(activation))) * 4).to(dtype)
    gy = torch.randn(7, 301, generator=gen(100 + bits)).to(dtype)
    (yc, gc, sc), (yp, gp, sp) = both(x, gy, spec, route)
    assert_same_bytes(yc, yp, "y")
    assert_same_bytes(gc, gp, "gradient")
    assert len(sc) == len(sp) == 1
    assert_same_bytes(sc[0], sp[0], "saved codes")
    assert sc[0].dtype == torch.uint8 and sc[0].numel() == (x.numel() * bits + 7) // 8
    if route == "torch":
        assert_same_bytes(yc, AF.TORCH_FORWARD[activation](x, p), "PyTorch's y")


@needs_cpp
def test_custom_table_refused_as_by_the_python_function():
    """A custom table has no f (PyTorch's or actq's), so neither path makes its y: both
    raise fewbit_encode's UnsupportedError, on either route."""
    s = np.linspace(-4, 4, 2001)
    table = actq.FewbitTable.build_custom(s, np.tanh(s) + 1.5, 3)
    spec = library.table_spec(table)
    x = torch.randn(100, generator=gen(5), requires_grad=True)
    for route in ("torch", "fused"):
        for fn in (AF.fewbit_apply, AF.FewbitActivation.apply):
            with pytest.raises(actq.UnsupportedError, match="fewbit_encode: unsupported"):
                fn(x, spec, route)


@needs_cpp
def test_the_layers_take_it_on_the_cpu():
    """nn and functional layers in eager mode on CPU tensors record the C++ node; the
    Python function is still what compiled code and other devices get."""
    x = torch.randn(64, requires_grad=True)
    for y in (at.nn.GELU()(x), at.nn.SiLU(bits=3, route="torch")(x), at.nn.ReLU()(x),
              AF.fewbit_activation(x, "tanh", 4), AF.relu(x)):
        assert y.grad_fn.name() == "FewbitActivationCppBackward"
    y = AF.FewbitActivation.apply(x, library.table_spec(actq.cached_table("gelu", 2)))
    assert y.grad_fn.name() == "FewbitActivationBackward"  # the Python function's
    # a FakeTensor has no data for the C++ operator: it gets the Python function, whose
    # operators have fakes, as other tracing tensors do
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        xf = torch.randn(64, requires_grad=True)
        y = at.nn.GELU()(xf)
        assert y.shape == xf.shape and y.grad_fn.name() == "FewbitActivationBackward"


@needs_cpp
def test_shapes_strides_threads_and_no_grad():
    """A non-contiguous x of any shape, several threads; without a gradient to record (an
    x that needs none, no_grad, inference mode) y has no node and saves nothing."""
    spec = library.table_spec(actq.cached_table("silu", 4))
    base = torch.randn(40, 90, generator=gen(7))
    x = base.t()[::2]  # [45, 40], non-contiguous
    gy = torch.randn(45, 40, generator=gen(8))
    threads = torch.get_num_threads()
    try:
        for t in (1, 3):
            torch.set_num_threads(t)
            (yc, gc, _), (yp, gp, _) = both(x, gy, spec, "fused")
            assert yc.shape == x.shape and gc.shape == x.shape
            assert_same_bytes(yc, yp, "y")
            assert_same_bytes(gc, gp, "gradient")
    finally:
        torch.set_num_threads(threads)
    op = torch.ops.actq.fewbit_activation.default
    want = op(x, *spec, True).detach()
    assert op(x, *spec, True).grad_fn is None  # x needs no gradient
    xr = x.clone().requires_grad_()
    with torch.no_grad():
        assert op(xr, *spec, True).grad_fn is None
    with torch.inference_mode():
        y = op(xr, *spec, True)
    assert y.grad_fn is None
    assert_same_bytes(y, want, "y in inference mode")


@needs_cpp
def test_backward_once():
    """The node releases its codes after a backward, as PyTorch's own nodes do."""
    x = torch.randn(100, requires_grad=True)
    y = at.nn.GELU()(x)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()


@needs_cpp
def test_refuses_what_the_python_function_refuses():
    """Bad dtype, width and table, with the Python binding's exceptions and words."""
    spec = library.table_spec(actq.cached_table("gelu", 2))
    op = torch.ops.actq.fewbit_activation.default
    with pytest.raises(TypeError, match="x must be a float32, float16 or bfloat16 tensor, got "
                                        "torch.float64"):
        AF.fewbit_apply(torch.randn(8, dtype=torch.float64, requires_grad=True), spec)
    with pytest.raises(actq.ArgumentError, match="bits must be 1..8, got 9"):
        AF.fewbit_apply(torch.randn(8), (9,) + spec[1:])
    with pytest.raises(ValueError, match="a 2-bit table has 3 bounds and 4 levels, got 2 and 4"):
        AF.fewbit_apply(torch.randn(8), spec[:3] + (spec[3][:2], spec[4]))
    with pytest.raises(RuntimeError, match="a 2-bit table has 3 bounds"):
        op(torch.randn(8), *spec[:3], spec[3][:2], spec[4], True)
