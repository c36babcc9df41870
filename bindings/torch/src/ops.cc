// ops.cc - torch.ops.actq.* as C++ operators on PyTorch's stable ABI, calling libactq's C
// ABI directly: the same schemas, checks, messages and bytes as the Python custom ops of
// actq/torch/library.py, without the Python around each call. The fake (meta)
// implementations stay in Python (library.py registers them on these schemas), which is
// what opcheck and torch.compile use.
//
// Built against torch/csrc/stable with TORCH_TARGET_VERSION set (CMakeLists.txt), so one
// build loads into every PyTorch from that version on.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/stable/library.h>

#include "actq.h"
#include "bindings/torch/src/rules.h"
#include "bindings/torch/src/tables.h"
#include "bindings/torch/src/tensors.h"
#include "fewbit.h"

namespace actq_torch {
namespace {

using std::optional;
using std::string;
using std::tuple;
using std::vector;
using ScalarType = torch::headeronly::ScalarType;

// ---- arguments, with the Python binding's messages (rules.h) ------------------------

actq_dtype dtype_of_scalar_type(ScalarType t) {
  if (t == ScalarType::Float) return ACTQ_F32;
  if (t == ScalarType::Half) return ACTQ_F16;
  if (t == ScalarType::BFloat16) return ACTQ_BF16;
  fail("TypeError", "dtype must be torch.float32, torch.float16 or torch.bfloat16");
}

// row_bits is read as `rows` host bytes, each a width; returns its address (NULL: none).
const uint8_t *row_bits_of(const optional<Tensor> &row_bits, int64_t rows, Tensor *keep) {
  if (!row_bits.has_value()) return nullptr;
  const Tensor &rb = *row_bits;
  Device d = device_of(rb);
  int32_t dt = dtype_of(rb);
  if (d.type != codes().cpu || dt != codes().u8)
    fail("TypeError", "row_bits must be a torch.uint8 tensor in host memory, got ",
         dtype_name(dt), " on ", device_name(d));
  *keep = dense(rb);
  const uint8_t *w = static_cast<const uint8_t *>(addr(*keep));
  rules::row_bits(rows, w, rb.numel());
  return w;
}

// The layout's arguments: group_size, and bits unless every row has its width.
void check_layout(int64_t bits, int64_t group_size, bool has_row_bits) {
  rules::group_size(group_size);
  if (!has_row_bits) rules::bits("bits", bits);
}

// The Philox offset: a 0-d int64 host tensor, read when the call runs.
int64_t *offset_of(const Tensor &offset) {
  if (device_of(offset).type != codes().cpu || dtype_of(offset) != codes().i64 ||
      offset.numel() != 1)
    fail("ValueError", "offset must be one int64 value in host memory, got ", offset.numel(),
         " ", dtype_name(dtype_of(offset)), " on ", device_name(device_of(offset)));
  return static_cast<int64_t *>(offset.data_ptr());
}

actq_layout layout_of(int64_t rows, size_t cols, int64_t group_size, int64_t bits,
                      const uint8_t *row_bits, actq_dtype meta) {
  actq_layout lay;
  lay.rows = static_cast<size_t>(rows);
  lay.cols = cols;
  lay.group_size = static_cast<uint32_t>(group_size);
  lay.bits = static_cast<uint32_t>(bits);
  lay.row_bits = row_bits;
  lay.meta_dtype = meta;
  return lay;
}

// The buffers dequantize reads hold what the layout says.
void check_quantized(const Tensor &packed, const Tensor &gmin, const Tensor &gscale,
                     size_t nbytes, size_t groups) {
  Device dev = device_of(packed);
  actq_dtype md;
  const int32_t min_dt = dtype_of(gmin);
  struct Want {
    const char *name;
    const Tensor *t;
    size_t need;
    bool dtype_ok;
    const char *allowed;
  } wants[] = {
      {"packed", &packed, nbytes, dtype_of(packed) == codes().u8, "torch.uint8"},
      {"group_min", &gmin, groups, actq_dtype_of_code(min_dt, &md),
       "torch.float32/torch.float16/torch.bfloat16"},
      {"group_scale", &gscale, groups, dtype_of(gscale) == min_dt, nullptr},
  };
  for (const Want &w : wants) {
    Device d = device_of(*w.t);
    if (!w.dtype_ok || d != dev || static_cast<size_t>(w.t->numel()) < w.need)
      fail("ValueError", "the layout needs ", w.name, " of ", w.need, " elements (",
           w.allowed ? w.allowed : dtype_name(min_dt).c_str(), ") on ", device_name(dev),
           ", got ", w.t->numel(), " ", dtype_name(dtype_of(*w.t)), " on ", device_name(d));
  }
}

fewbit_table table_of(int64_t bits, int64_t activation, double param,
                      const vector<double> &bounds, const vector<double> &levels) {
  return actq_torch::table_of(bits, activation, param, bounds.data(), bounds.size(),
                              levels.data(), levels.size());
}

// ---- the operators --------------------------------------------------------------------

// actq_quantize of x as rows x (numel / rows), the noise at (seed, *offset).
tuple<Tensor, Tensor, Tensor> quantize_at(const Tensor &x_in, const optional<Tensor> &row_bits,
                                          int64_t rows, int64_t bits, int64_t group_size,
                                          const string &rounding, int64_t seed, int64_t offset,
                                          const string &meta_dtype) {
  const actq_dtype xd = actq_dtype_of(x_in, "x");
  const actq_dtype md = rules::meta_dtype(meta_dtype);
  const actq_rounding rd = rules::rounding(rounding);
  const size_t cols = rules::cols(x_in.numel(), rows);
  Tensor rb_keep = x_in;
  const uint8_t *rb = row_bits_of(row_bits, rows, &rb_keep);
  check_layout(bits, group_size, row_bits.has_value());
  const actq_layout lay = layout_of(rows, cols, group_size, bits, rb, md);
  size_t nbytes, groups;
  check("actq_layout_sizes", actq_layout_sizes(&lay, &nbytes, &groups));
  const Tensor x = dense(x_in);
  const Device dev = device_of(x);
  Tensor packed = empty1(static_cast<int64_t>(nbytes), codes().u8, dev);
  Tensor gmin = empty1(static_cast<int64_t>(groups), code_of(md), dev);
  Tensor gscale = empty1(static_cast<int64_t>(groups), code_of(md), dev);
  ContextFor ctx(dev);
  check("actq_quantize",
        actq_quantize(ctx.get(), &lay, xd, addr(x), rd, static_cast<uint64_t>(seed),
                      static_cast<uint64_t>(offset), addr(packed), addr(gmin), addr(gscale)));
  return {packed, gmin, gscale};
}

tuple<Tensor, Tensor, Tensor> quantize(Tensor x, optional<Tensor> row_bits, int64_t rows,
                                       int64_t bits, int64_t group_size, string rounding,
                                       int64_t seed, Tensor offset, string meta_dtype) {
  return quantize_at(x, row_bits, rows, bits, group_size, rounding, seed, *offset_of(offset),
                     meta_dtype);
}

// What a saved-tensor hook does per tensor, in one call: quantize at the quantizer's
// offset, then advance the offset and count the elements stored at `bits`.
tuple<Tensor, Tensor, Tensor> compress(Tensor x, Tensor offset, Tensor stored, int64_t rows,
                                       int64_t bits, int64_t group_size, string rounding,
                                       int64_t seed, string meta_dtype) {
  int64_t *off = offset_of(offset);
  if (device_of(stored).type != codes().cpu || dtype_of(stored) != codes().i64 ||
      stored.numel() != 9 || !stored.is_contiguous())
    fail("ValueError", "stored must be 9 contiguous int64 counters in host memory");
  auto out = quantize_at(x, std::nullopt, rows, bits, group_size, rounding, seed, *off,
                         meta_dtype);
  *off = static_cast<int64_t>(static_cast<uint64_t>(*off) + 1);  // a uint64 counter: wraps
  static_cast<int64_t *>(stored.data_ptr())[bits] += x.numel();
  return out;
}

Tensor dequantize(Tensor packed_in, Tensor gmin_in, Tensor gscale_in, optional<Tensor> row_bits,
                  vector<int64_t> shape, int64_t rows, int64_t bits, int64_t group_size,
                  ScalarType dtype) {
  const actq_dtype yd = dtype_of_scalar_type(dtype);
  const actq_dtype md = actq_dtype_of(gmin_in, "group_min");
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  const size_t cols = rules::cols(numel, rows);
  Tensor rb_keep = packed_in;
  const uint8_t *rb = row_bits_of(row_bits, rows, &rb_keep);
  check_layout(bits, group_size, row_bits.has_value());
  const actq_layout lay = layout_of(rows, cols, group_size, bits, rb, md);
  size_t nbytes, groups;
  check("actq_layout_sizes", actq_layout_sizes(&lay, &nbytes, &groups));
  check_quantized(packed_in, gmin_in, gscale_in, nbytes, groups);
  const Tensor packed = dense(packed_in), gmin = dense(gmin_in),
               gscale = dense(gscale_in);
  const Device dev = device_of(packed);
  Tensor y = empty(shape, code_of(yd), dev);
  ContextFor ctx(dev);
  check("actq_dequantize", actq_dequantize(ctx.get(), &lay, addr(packed), addr(gmin),
                                           addr(gscale), yd, addr(y)));
  return y;
}

tuple<Tensor, Tensor> fewbit_encode(Tensor x_in, int64_t bits, int64_t activation, double param,
                                    vector<double> bounds, vector<double> levels, bool with_y) {
  const fewbit_table table = table_of(bits, activation, param, bounds, levels);
  const actq_dtype d = actq_dtype_of(x_in, "x");
  const Tensor x = dense(x_in);
  const Device dev = device_of(x);
  Tensor codes_out = empty1(packed_bytes_1row(bits, x.numel()), codes().u8, dev);
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  Tensor y = with_y ? empty(shape, code_of(d), dev) : empty1(0, code_of(d), dev);
  ContextFor ctx(dev);
  check("fewbit_encode", ::fewbit_encode(ctx.get(), &table, static_cast<size_t>(x.numel()), d,
                                         addr(x), with_y ? addr(y) : nullptr, addr(codes_out)));
  return {codes_out, y};
}

Tensor fewbit_backward(Tensor codes_in, Tensor grad_out, int64_t bits, int64_t activation,
                       double param, vector<double> bounds, vector<double> levels) {
  const fewbit_table table = table_of(bits, activation, param, bounds, levels);
  const actq_dtype d = actq_dtype_of(grad_out, "grad_out");
  const Tensor g = dense(grad_out);
  const Device dev = device_of(g);
  const Device cdev = device_of(codes_in);
  const int32_t cdt = dtype_of(codes_in);
  if (cdt != codes().u8) fail("TypeError", "codes must be a torch.uint8 tensor, got ", dtype_name(cdt));
  if (cdev != dev)
    fail("ValueError", "codes must be on grad_out's device (", device_name(dev), "), got ",
         device_name(cdev));
  check_codes(codes_in.numel(), bits, g.numel());
  const Tensor c = dense(codes_in);
  std::vector<int64_t> shape(g.sizes().begin(), g.sizes().end());
  Tensor gi = empty(shape, code_of(d), dev);
  ContextFor ctx(dev);
  check("fewbit_backward", ::fewbit_backward(ctx.get(), &table, static_cast<size_t>(g.numel()),
                                             addr(c), d, addr(g), addr(gi)));
  return gi;
}

// Waits for the operators' work on anchor's device and reports its first deferred error:
// a CUDA call that meets NaN or Inf, or a code out of range, returns at once and the
// error comes from here, as actq_context_synchronize reports it for a context of one's
// own. The CPU reports at the call, so there it does nothing.
void synchronize(Tensor anchor) {
  const Device dev = device_of(anchor);
  if (dev.type != codes().cuda) return;
  torch::stable::accelerator::DeviceGuard guard(static_cast<int8_t>(dev.index));
  check("actq_context_synchronize",
        ContextPool::instance().synchronize_idle(ACTQ_BACKEND_CUDA, dev.index));
}

}  // namespace
}  // namespace actq_torch

// The schemas are those torch.library.custom_op inferred for the Python operators, so
// either implementation serves the same graphs, fakes and saved programs.
STABLE_TORCH_LIBRARY(actq, m) {
  m.def("quantize(Tensor x, Tensor? row_bits, SymInt rows, SymInt bits, SymInt group_size, "
        "str rounding, SymInt seed, Tensor offset, str meta_dtype) -> (Tensor, Tensor, Tensor)");
  m.def("dequantize(Tensor packed, Tensor group_min, Tensor group_scale, Tensor? row_bits, "
        "SymInt[] shape, SymInt rows, SymInt bits, SymInt group_size, ScalarType dtype) -> Tensor");
  m.def("fewbit_encode(Tensor x, SymInt bits, SymInt activation, float param, float[] bounds, "
        "float[] levels, bool with_y) -> (Tensor, Tensor)");
  m.def("fewbit_backward(Tensor codes, Tensor grad_out, SymInt bits, SymInt activation, "
        "float param, float[] bounds, float[] levels) -> Tensor");
  m.def("compress(Tensor x, Tensor(a!) offset, Tensor(b!) stored, SymInt rows, SymInt bits, "
        "SymInt group_size, str rounding, SymInt seed, str meta_dtype) -> (Tensor, Tensor, Tensor)");
  m.def("synchronize(Tensor anchor) -> ()");
}

#define ACTQ_TORCH_IMPL(m)                                          \
  m.impl("quantize", TORCH_BOX(&actq_torch::quantize));             \
  m.impl("dequantize", TORCH_BOX(&actq_torch::dequantize));         \
  m.impl("fewbit_encode", TORCH_BOX(&actq_torch::fewbit_encode));   \
  m.impl("fewbit_backward", TORCH_BOX(&actq_torch::fewbit_backward)); \
  m.impl("compress", TORCH_BOX(&actq_torch::compress));            \
  m.impl("synchronize", TORCH_BOX(&actq_torch::synchronize))

STABLE_TORCH_LIBRARY_IMPL(actq, CPU, m) { ACTQ_TORCH_IMPL(m); }
STABLE_TORCH_LIBRARY_IMPL(actq, CUDA, m) { ACTQ_TORCH_IMPL(m); }
