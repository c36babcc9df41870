// autograd.cc - torch.ops.actq.fewbit_activation: a few-bit activation layer (forward
// saving the codes, backward from them) as one C++ operator carrying its own autograd
// node, for eager calls on CPU tensors.
//
// Why a second library: PyTorch's stable ABI (ops.cc) has no autograd, so the layers'
// backward is a Python autograd.Function around two operators. At 2^16 float32 elements
// its Python and the two boxed calls were 9-10% of the layer's forward + backward, the
// whole of the gap to nn.SiLU (docs/fewbit.md, "Layers"). This file uses PyTorch's full
// C++ API, whose ABI is that of one PyTorch release: CMake names the library after the
// version it is built against (libactq_torch_autograd.<torch version>.so) and
// actq/torch/library.py loads only the one named after the running PyTorch. Elsewhere,
// in compiled graphs (which trace the Python function) and on CUDA, the layers take the
// Python autograd.Function; both give the same bytes, which the tests hold equal. Nodes
// are held by intrusive pointers from PyTorch 2.15 on (shared pointers before): CMake
// builds this file for 2.15 and later, the releases it is tested on.
#include <cstdint>
#include <memory>
#include <string>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/functions/utils.h>
#include <torch/csrc/autograd/saved_variable.h>
#include <torch/library.h>

#include "actq.h"
#include "bindings/torch/src/contexts.h"
#include "bindings/torch/src/errors.h"
#include "bindings/torch/src/tables.h"
#include "fewbit.h"

namespace actq_torch {
namespace {

using at::Tensor;
using torch::autograd::variable_list;

// The Python binding's name of a dtype ("torch.float64") for its messages.
std::string dtype_name(at::ScalarType t) {
  switch (t) {
    case at::kFloat: return "torch.float32";
    case at::kHalf: return "torch.float16";
    case at::kBFloat16: return "torch.bfloat16";
    case at::kDouble: return "torch.float64";
    case at::kByte: return "torch.uint8";
    case at::kChar: return "torch.int8";
    case at::kShort: return "torch.int16";
    case at::kInt: return "torch.int32";
    case at::kLong: return "torch.int64";
    case at::kBool: return "torch.bool";
    default: return std::string("torch dtype ") + c10::toString(t);
  }
}

actq_dtype actq_dtype_of(const Tensor &t, const char *name) {
  switch (t.scalar_type()) {
    case at::kFloat: return ACTQ_F32;
    case at::kHalf: return ACTQ_F16;
    case at::kBFloat16: return ACTQ_BF16;
    default:
      fail("TypeError", name, " must be a float32, float16 or bfloat16 tensor, got ",
           dtype_name(t.scalar_type()));
  }
}

void *addr(const Tensor &t) { return t.numel() ? t.data_ptr() : nullptr; }

// A CPU context lent for one call, running with PyTorch's thread count.
class CpuContext {
 public:
  CpuContext() : lent_(ACTQ_BACKEND_CPU, -1) { lent_.use_threads(at::get_num_threads()); }
  actq_context *get() const { return lent_.get(); }

 private:
  LentContext lent_;
};

// PyTorch's own forward of each built-in activation: the same ATen calls as
// actq/torch/functional.py's TORCH_FORWARD, so the torch route gives the bytes
// nn.GELU & co. give. Undefined for custom tables.
Tensor torch_forward(uint32_t activation, const Tensor &x, double p) {
  switch (activation) {
    case FEWBIT_GELU: return at::gelu(x);
    case FEWBIT_GELU_TANH: return at::gelu(x, "tanh");
    case FEWBIT_SILU: return at::silu(x);
    case FEWBIT_SIGMOID: return at::sigmoid(x);
    case FEWBIT_TANH: return at::tanh(x);
    case FEWBIT_SOFTPLUS: return at::softplus(x, p, 20);
    case FEWBIT_ELU: return at::elu(x, p);
    case FEWBIT_SELU: return at::selu(x);
    case FEWBIT_CELU: return at::celu(x, p);
    case FEWBIT_MISH: return at::mish(x);
    case FEWBIT_HARDSWISH: return at::hardswish(x);
    case FEWBIT_HARDSIGMOID: return at::hardsigmoid(x);
    case FEWBIT_HARDTANH: return at::hardtanh(x);
    case FEWBIT_SOFTSIGN: return x / (x.abs() + 1);
    case FEWBIT_LOGSIGMOID: return at::log_sigmoid(x);
    case FEWBIT_TANHSHRINK: return x - x.tanh();
    case FEWBIT_RELU: return at::relu(x);
    case FEWBIT_RELU6: return at::relu6(x);
    case FEWBIT_LEAKY_RELU: return at::leaky_relu(x, p);
    default: return Tensor();
  }
}

// d loss / d x = grad * levels[code], from the codes the forward saved.
struct FewbitActivationBackward : public torch::autograd::Node {
  fewbit_table table{};
  torch::autograd::SavedVariable codes;

  std::string name() const override { return "FewbitActivationCppBackward"; }
  void release_variables() override { codes.reset_data(); }

  variable_list apply(variable_list &&grads) override {
    const Tensor c = codes.unpack(getptr());
    if (!grads[0].defined() || !should_compute_output(0)) return {Tensor()};
    const Tensor g = grads[0].contiguous();
    const actq_dtype d = actq_dtype_of(g, "grad_out");
    check_codes(c.numel(), table.bits, g.numel());
    Tensor gi = at::empty_like(g, at::MemoryFormat::Contiguous);
    CpuContext ctx;
    check("fewbit_backward", fewbit_backward(ctx.get(), &table, static_cast<size_t>(g.numel()),
                                             c.data_ptr<uint8_t>(), d, addr(g), addr(gi)));
    return {gi};
  }
};

// y = f(x), the codes of x saved for backward when x needs a gradient. fused: y from
// fewbit_encode's own f (one pass), else from PyTorch's activation and the codes alone
// (custom tables, which PyTorch has no forward for, always fused).
Tensor fewbit_activation(const Tensor &x_in, int64_t bits, int64_t activation, double param,
                         c10::ArrayRef<double> bounds, c10::ArrayRef<double> levels,
                         bool fused) {
  const fewbit_table table = table_of(bits, activation, param, bounds.data(), bounds.size(),
                                      levels.data(), levels.size());
  const actq_dtype d = actq_dtype_of(x_in, "x");
  const bool record = torch::autograd::compute_requires_grad(x_in);
  Tensor y, codes;
  {
    // The ATen calls below are this operator's forward, not part of the graph.
    at::AutoDispatchBelowADInplaceOrView below;
    const Tensor x = x_in.contiguous();
    if (!fused) {
      try {
        y = torch_forward(table.activation, x, param);
      } catch (const c10::Error &) {  // no such kernel for this dtype (an older PyTorch's
        y = Tensor();                 // float16 GELU on the CPU): fused then
      }
    }
    const bool with_y = !y.defined();
    if (with_y) y = at::empty_like(x, at::MemoryFormat::Contiguous);
    codes = at::empty({packed_bytes_1row(table.bits, x.numel())}, x.options().dtype(at::kByte));
    CpuContext ctx;
    check("fewbit_encode", ::fewbit_encode(ctx.get(), &table, static_cast<size_t>(x.numel()), d,
                                           addr(x), with_y ? addr(y) : nullptr, addr(codes)));
  }
  if (record) {
    auto node = c10::make_intrusive<FewbitActivationBackward>();
    node->set_next_edges(torch::autograd::collect_next_edges(x_in));
    node->table = table;
    node->codes = torch::autograd::SavedVariable(codes, false);
    const c10::intrusive_ptr<torch::autograd::Node> base = node;
    torch::autograd::set_history(y, base);
    torch::autograd::fire_node_creation_hooks(base);
  }
  return y;
}

}  // namespace
}  // namespace actq_torch

// The schema's table arguments are library.table_spec's fields, as fewbit_encode's.
TORCH_LIBRARY_FRAGMENT(actq, m) {
  m.def("fewbit_activation(Tensor x, int bits, int activation, float param, float[] bounds, "
        "float[] levels, bool fused) -> Tensor");
}

// AutogradCPU records the node; CPU serves calls below autograd (inference mode).
TORCH_LIBRARY_IMPL(actq, AutogradCPU, m) {
  m.impl("fewbit_activation", &actq_torch::fewbit_activation);
}
TORCH_LIBRARY_IMPL(actq, CPU, m) { m.impl("fewbit_activation", &actq_torch::fewbit_activation); }
