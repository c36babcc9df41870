// ffi.cc - XLA FFI handlers over libactq's C ABI, for jax.ffi.ffi_call: each operation
// for the CPU platform (actq_jax_<op>, the CPU backend) and for CUDA (actq_jax_<op>_cuda,
// the CUDA backend on the stream XLA gives, device pointers as XLA holds them).
//
// Each handler checks that the buffers XLA hands it have exactly the sizes the library
// will read and write (the Python side computes them to declare the result shapes), then
// makes one library call. Any failure comes back to JAX as an error carrying the
// library's status string; nothing is written outside the buffers XLA gave. On CUDA the
// calls are asynchronous: what the library defers (ACTQ_ERR_NONFINITE for NaN inputs,
// which it still handles as documented) is not reported, since a handler may not wait
// for its stream; only quantize waits, to read the noise counter (below).
//
// Integer attributes are int64 (numpy.int64 on the Python side), the activation's
// parameter a float32. Data may be float32, float16 or bfloat16; metadata likewise.
#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "actq.h"
#include "contexts.h"
#include "fewbit.h"
#include "tables.h"
#include "xla/ffi/api/ffi.h"

#include <mutex>

namespace ffi = xla::ffi;
using actq_jax::LentContext;
using actq_jax::Place;

namespace {

ffi::Error library_error(const char *call, actq_status s) {
  ffi::ErrorCode code = ffi::ErrorCode::kInternal;
  switch (s) {
    case ACTQ_ERR_INVALID_ARGUMENT:
    case ACTQ_ERR_NONFINITE:
      code = ffi::ErrorCode::kInvalidArgument;
      break;
    case ACTQ_ERR_UNSUPPORTED:
      code = ffi::ErrorCode::kUnimplemented;
      break;
    case ACTQ_ERR_OUT_OF_MEMORY:
    case ACTQ_ERR_SIZE_OVERFLOW:
      code = ffi::ErrorCode::kResourceExhausted;
      break;
    default:
      break;
  }
  return ffi::Error(code, std::string(call) + ": " + actq_status_string(s));
}

ffi::Error bad(const std::string &what) { return ffi::Error::InvalidArgument(what); }

ffi::Error no_context(const LentContext &ctx) { return library_error(ctx.failed_call(), ctx.status()); }

constexpr Place kCpu = {ACTQ_BACKEND_CPU, -1, nullptr};

// The 16 bytes of the noise counter, which the contract takes as host values (seed,
// offset). On CUDA XLA holds it in device memory: one copy to the host on the call's
// stream, waited for, through the CUDA driver API that every CUDA process has loaded
// (libcuda.so.1; the handler library links no CUDA runtime). That wait is the one
// synchronization of these handlers.
ffi::Error read_noise(const Place &p, const void *noise, uint32_t w[4]) {
  if (p.backend != ACTQ_BACKEND_CUDA) {
    std::memcpy(w, noise, 4 * sizeof(uint32_t));
    return ffi::Error::Success();
  }
  using copy_fn = int (*)(void *, unsigned long long, size_t, void *);
  using sync_fn = int (*)(void *);
  static copy_fn copy = nullptr;
  static sync_fn sync = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) return;
    copy = reinterpret_cast<copy_fn>(dlsym(lib, "cuMemcpyDtoHAsync_v2"));
    sync = reinterpret_cast<sync_fn>(dlsym(lib, "cuStreamSynchronize"));
  });
  if (!copy || !sync)
    return ffi::Error(ffi::ErrorCode::kInternal,
                      "actq_quantize: the CUDA driver (libcuda.so.1) cannot be loaded to read "
                      "the noise counter");
  int rc = copy(w, reinterpret_cast<uintptr_t>(noise), 4 * sizeof(uint32_t), p.stream);
  if (rc == 0) rc = sync(p.stream);
  if (rc != 0)
    return ffi::Error(ffi::ErrorCode::kInternal,
                      "actq_quantize: reading the noise counter from the device failed (CUDA "
                      "driver error " + std::to_string(rc) + ")");
  return ffi::Error::Success();
}

bool actq_type(ffi::DataType t, actq_dtype *d) {
  switch (t) {
    case ffi::DataType::F32: *d = ACTQ_F32; return true;
    case ffi::DataType::F16: *d = ACTQ_F16; return true;
    case ffi::DataType::BF16: *d = ACTQ_BF16; return true;
    default: return false;
  }
}

bool fits_u32(int64_t v) { return v >= 0 && v <= INT64_C(0xffffffff); }

// The rows x cols layout of n elements, as actq_layout_sizes validates it.
ffi::Error make_layout(size_t n, int64_t rows, int64_t group_size, int64_t bits,
                       actq_dtype meta, actq_layout *lay, size_t *packed_bytes,
                       size_t *groups) {
  if (rows < 0 || (rows == 0 && n != 0) || (rows > 0 && n % static_cast<size_t>(rows)))
    return bad("actq: " + std::to_string(n) + " elements do not split into " +
               std::to_string(rows) + " rows");
  if (!fits_u32(group_size) || !fits_u32(bits))
    return library_error("actq_layout_sizes", ACTQ_ERR_INVALID_ARGUMENT);
  lay->rows = static_cast<size_t>(rows);
  lay->cols = rows ? n / static_cast<size_t>(rows) : 0;
  lay->group_size = static_cast<uint32_t>(group_size);
  lay->bits = static_cast<uint32_t>(bits);
  lay->row_bits = nullptr;
  lay->meta_dtype = meta;
  actq_status s = actq_layout_sizes(lay, packed_bytes, groups);
  if (s != ACTQ_OK) return library_error("actq_layout_sizes", s);
  return ffi::Error::Success();
}

ffi::Error metadata_type(ffi::AnyBuffer gmin, ffi::AnyBuffer gscale, actq_dtype *meta) {
  actq_dtype other;
  if (!actq_type(gmin.element_type(), meta) || !actq_type(gscale.element_type(), &other) ||
      other != *meta)
    return bad("actq: group minimum and scale must share one of float32, float16, bfloat16");
  return ffi::Error::Success();
}

ffi::Error check_count(const char *what, size_t got, size_t want) {
  if (got == want) return ffi::Error::Success();
  return bad(std::string("actq: ") + what + " holds " + std::to_string(got) +
             " entries, the layout needs " + std::to_string(want));
}

ffi::Error quantize(const Place &p, ffi::AnyBuffer x, ffi::Buffer<ffi::U32> noise,
                    ffi::Result<ffi::Buffer<ffi::U8>> packed, ffi::Result<ffi::AnyBuffer> gmin,
                    ffi::Result<ffi::AnyBuffer> gscale, int64_t rows, int64_t group_size,
                    int64_t bits, int64_t rounding) {
  actq_dtype xd, meta;
  if (!actq_type(x.element_type(), &xd))
    return bad("actq_quantize: x must be float32, float16 or bfloat16");
  if (ffi::Error e = metadata_type(*gmin, *gscale, &meta); e.failure()) return e;
  if (ffi::Error e = check_count("the noise counter", noise.element_count(), 4); e.failure())
    return e;
  actq_layout lay;
  size_t nbytes = 0, groups = 0;
  if (ffi::Error e = make_layout(x.element_count(), rows, group_size, bits, meta, &lay,
                                 &nbytes, &groups);
      e.failure())
    return e;
  if (ffi::Error e = check_count("packed", packed->element_count(), nbytes); e.failure())
    return e;
  if (ffi::Error e = check_count("group_min", gmin->element_count(), groups); e.failure())
    return e;
  if (ffi::Error e = check_count("group_scale", gscale->element_count(), groups); e.failure())
    return e;
  if (rounding != ACTQ_ROUND_STOCHASTIC && rounding != ACTQ_ROUND_NEAREST)
    return library_error("actq_quantize", ACTQ_ERR_INVALID_ARGUMENT);
  // (seed low word, seed high word, offset low word, offset high word): 32-bit words,
  // because JAX arrays are 32-bit unless x64 is enabled.
  uint32_t w[4];
  if (ffi::Error e = read_noise(p, noise.typed_data(), w); e.failure()) return e;
  uint64_t seed = w[0] | static_cast<uint64_t>(w[1]) << 32;
  uint64_t offset = w[2] | static_cast<uint64_t>(w[3]) << 32;
  LentContext ctx(p);
  if (!ctx.get()) return no_context(ctx);
  actq_status s = actq_quantize(ctx.get(), &lay, xd, x.untyped_data(),
                                static_cast<actq_rounding>(rounding), seed, offset,
                                packed->untyped_data(), gmin->untyped_data(),
                                gscale->untyped_data());
  if (s != ACTQ_OK) return library_error("actq_quantize", s);
  return ffi::Error::Success();
}

ffi::Error dequantize(const Place &p, ffi::Buffer<ffi::U8> packed, ffi::AnyBuffer gmin,
                      ffi::AnyBuffer gscale,
                      ffi::Result<ffi::AnyBuffer> y, int64_t rows, int64_t group_size,
                      int64_t bits) {
  actq_dtype yd, meta;
  if (!actq_type(y->element_type(), &yd))
    return bad("actq_dequantize: y must be float32, float16 or bfloat16");
  if (ffi::Error e = metadata_type(gmin, gscale, &meta); e.failure()) return e;
  actq_layout lay;
  size_t nbytes = 0, groups = 0;
  if (ffi::Error e = make_layout(y->element_count(), rows, group_size, bits, meta, &lay,
                                 &nbytes, &groups);
      e.failure())
    return e;
  if (ffi::Error e = check_count("packed", packed.element_count(), nbytes); e.failure())
    return e;
  if (ffi::Error e = check_count("group_min", gmin.element_count(), groups); e.failure())
    return e;
  if (ffi::Error e = check_count("group_scale", gscale.element_count(), groups); e.failure())
    return e;
  LentContext ctx(p);
  if (!ctx.get()) return no_context(ctx);
  actq_status s = actq_dequantize(ctx.get(), &lay, packed.untyped_data(), gmin.untyped_data(),
                                  gscale.untyped_data(), yd, y->untyped_data());
  if (s != ACTQ_OK) return library_error("actq_dequantize", s);
  return ffi::Error::Success();
}

// The table of the attributes and the code bytes n elements need.
// The cached table of (activation, param, bits), and a check that `codes` holds exactly
// the packed codes of n elements: what encode and backward both need first.
ffi::Error table_for_codes(int64_t activation, float param, int64_t bits, size_t n,
                           size_t codes_count, const fewbit_table **table) {
  actq_status s = actq_jax::cached_table(activation, param, bits, table);
  if (s != ACTQ_OK) return library_error("fewbit_table_build", s);
  if (n > SIZE_MAX / 8) return library_error("fewbit", ACTQ_ERR_SIZE_OVERFLOW);
  return check_count("codes", codes_count, (n * static_cast<size_t>(bits) + 7) / 8);
}

// y may be NULL: codes only.
ffi::Error encode(const Place &p, ffi::AnyBuffer x, ffi::Buffer<ffi::U8> &codes, ffi::AnyBuffer *y,
                  int64_t activation, float param, int64_t bits) {
  actq_dtype xd;
  if (!actq_type(x.element_type(), &xd))
    return bad("fewbit_encode: x must be float32, float16 or bfloat16");
  if (y && (y->element_type() != x.element_type() || y->element_count() != x.element_count()))
    return bad("fewbit_encode: y must have x's dtype and size");
  const fewbit_table *table = nullptr;
  const size_t n = x.element_count();
  if (ffi::Error e = table_for_codes(activation, param, bits, n, codes.element_count(), &table);
      e.failure())
    return e;
  LentContext ctx(p);
  if (!ctx.get()) return no_context(ctx);
  actq_status s = fewbit_encode(ctx.get(), table, n, xd, x.untyped_data(),
                                y ? y->untyped_data() : nullptr, codes.untyped_data());
  if (s != ACTQ_OK) return library_error("fewbit_encode", s);
  return ffi::Error::Success();
}

ffi::Error fewbit_encode_y(const Place &p, ffi::AnyBuffer x, ffi::Result<ffi::Buffer<ffi::U8>> codes,
                          ffi::Result<ffi::AnyBuffer> y, int64_t activation, float param,
                          int64_t bits) {
  return encode(p, x, *codes, &*y, activation, param, bits);
}

ffi::Error fewbit_codes(const Place &p, ffi::AnyBuffer x, ffi::Result<ffi::Buffer<ffi::U8>> codes,
                        int64_t activation, float param, int64_t bits) {
  return encode(p, x, *codes, nullptr, activation, param, bits);
}

ffi::Error backward_grad(const Place &p, ffi::Buffer<ffi::U8> codes, ffi::AnyBuffer grad,
                          ffi::Result<ffi::AnyBuffer> grad_in, int64_t activation, float param,
                          int64_t bits) {
  actq_dtype gd;
  if (!actq_type(grad.element_type(), &gd))
    return bad("fewbit_backward: the gradient must be float32, float16 or bfloat16");
  if (grad_in->element_type() != grad.element_type() ||
      grad_in->element_count() != grad.element_count())
    return bad("fewbit_backward: grad_in must have the gradient's dtype and size");
  const fewbit_table *table = nullptr;
  const size_t n = grad.element_count();
  if (ffi::Error e = table_for_codes(activation, param, bits, n, codes.element_count(), &table);
      e.failure())
    return e;
  LentContext ctx(p);
  if (!ctx.get()) return no_context(ctx);
  actq_status s = fewbit_backward(ctx.get(), table, n, codes.untyped_data(), gd,
                                  grad.untyped_data(), grad_in->untyped_data());
  if (s != ACTQ_OK) return library_error("fewbit_backward", s);
  return ffi::Error::Success();
}

// Each operation's entry points: on the CPU, and on CUDA at XLA's stream and device.
Place cuda(void *stream, int32_t device) { return Place{ACTQ_BACKEND_CUDA, device, stream}; }

ffi::Error quantize_cpu(ffi::AnyBuffer x, ffi::Buffer<ffi::U32> noise,
                        ffi::Result<ffi::Buffer<ffi::U8>> packed, ffi::Result<ffi::AnyBuffer> gmin,
                        ffi::Result<ffi::AnyBuffer> gscale, int64_t rows, int64_t group_size,
                        int64_t bits, int64_t rounding) {
  return quantize(kCpu, x, noise, packed, gmin, gscale, rows, group_size, bits, rounding);
}
ffi::Error quantize_cuda(void *stream, int32_t device, ffi::AnyBuffer x,
                         ffi::Buffer<ffi::U32> noise, ffi::Result<ffi::Buffer<ffi::U8>> packed,
                         ffi::Result<ffi::AnyBuffer> gmin, ffi::Result<ffi::AnyBuffer> gscale,
                         int64_t rows, int64_t group_size, int64_t bits, int64_t rounding) {
  return quantize(cuda(stream, device), x, noise, packed, gmin, gscale, rows, group_size, bits,
                  rounding);
}

ffi::Error dequantize_cpu(ffi::Buffer<ffi::U8> packed, ffi::AnyBuffer gmin, ffi::AnyBuffer gscale,
                          ffi::Result<ffi::AnyBuffer> y, int64_t rows, int64_t group_size,
                          int64_t bits) {
  return dequantize(kCpu, packed, gmin, gscale, y, rows, group_size, bits);
}
ffi::Error dequantize_cuda(void *stream, int32_t device, ffi::Buffer<ffi::U8> packed,
                           ffi::AnyBuffer gmin, ffi::AnyBuffer gscale,
                           ffi::Result<ffi::AnyBuffer> y, int64_t rows, int64_t group_size,
                           int64_t bits) {
  return dequantize(cuda(stream, device), packed, gmin, gscale, y, rows, group_size, bits);
}

ffi::Error fewbit_encode_cpu(ffi::AnyBuffer x, ffi::Result<ffi::Buffer<ffi::U8>> codes,
                             ffi::Result<ffi::AnyBuffer> y, int64_t activation, float param,
                             int64_t bits) {
  return fewbit_encode_y(kCpu, x, codes, y, activation, param, bits);
}
ffi::Error fewbit_encode_cuda(void *stream, int32_t device, ffi::AnyBuffer x,
                              ffi::Result<ffi::Buffer<ffi::U8>> codes,
                              ffi::Result<ffi::AnyBuffer> y, int64_t activation, float param,
                              int64_t bits) {
  return fewbit_encode_y(cuda(stream, device), x, codes, y, activation, param, bits);
}

ffi::Error fewbit_codes_cpu(ffi::AnyBuffer x, ffi::Result<ffi::Buffer<ffi::U8>> codes,
                            int64_t activation, float param, int64_t bits) {
  return fewbit_codes(kCpu, x, codes, activation, param, bits);
}
ffi::Error fewbit_codes_cuda(void *stream, int32_t device, ffi::AnyBuffer x,
                             ffi::Result<ffi::Buffer<ffi::U8>> codes, int64_t activation,
                             float param, int64_t bits) {
  return fewbit_codes(cuda(stream, device), x, codes, activation, param, bits);
}

ffi::Error fewbit_backward_cpu(ffi::Buffer<ffi::U8> codes, ffi::AnyBuffer grad,
                               ffi::Result<ffi::AnyBuffer> grad_in, int64_t activation,
                               float param, int64_t bits) {
  return backward_grad(kCpu, codes, grad, grad_in, activation, param, bits);
}
ffi::Error fewbit_backward_cuda(void *stream, int32_t device, ffi::Buffer<ffi::U8> codes,
                                ffi::AnyBuffer grad, ffi::Result<ffi::AnyBuffer> grad_in,
                                int64_t activation, float param, int64_t bits) {
  return backward_grad(cuda(stream, device), codes, grad, grad_in, activation, param, bits);
}

// The operands and attributes of each operation, after the platform's context values.
template <class B>
auto quantize_binding(B b) {
  return std::move(b).template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::Buffer<ffi::U32>>()
      .template Ret<ffi::Buffer<ffi::U8>>()
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Attr<int64_t>("rows")
      .template Attr<int64_t>("group_size")
      .template Attr<int64_t>("bits")
      .template Attr<int64_t>("rounding");
}

template <class B>
auto dequantize_binding(B b) {
  return std::move(b).template Arg<ffi::Buffer<ffi::U8>>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Attr<int64_t>("rows")
      .template Attr<int64_t>("group_size")
      .template Attr<int64_t>("bits");
}

template <class B>
auto table_attrs(B b) {
  return std::move(b).template Attr<int64_t>("activation").template Attr<float>("param").template Attr<int64_t>("bits");
}

template <class B>
auto fewbit_encode_binding(B b) {
  return table_attrs(std::move(b).template Arg<ffi::AnyBuffer>()
                         .template Ret<ffi::Buffer<ffi::U8>>()
                         .template Ret<ffi::AnyBuffer>());
}

template <class B>
auto fewbit_codes_binding(B b) {
  return table_attrs(std::move(b).template Arg<ffi::AnyBuffer>().template Ret<ffi::Buffer<ffi::U8>>());
}

template <class B>
auto fewbit_backward_binding(B b) {
  return table_attrs(std::move(b).template Arg<ffi::Buffer<ffi::U8>>()
                         .template Arg<ffi::AnyBuffer>()
                         .template Ret<ffi::AnyBuffer>());
}

auto cpu_bind() { return ffi::Ffi::Bind(); }
auto cuda_bind() {
  return ffi::Ffi::Bind().Ctx<ffi::PlatformStream<void *>>().Ctx<ffi::DeviceOrdinal>();
}

}  // namespace

// The library is built with hidden visibility: only these entry points are exported.
#pragma GCC visibility push(default)

XLA_FFI_DEFINE_HANDLER_SYMBOL(actq_jax_quantize, quantize_cpu, quantize_binding(cpu_bind()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(actq_jax_quantize_cuda, quantize_cuda, quantize_binding(cuda_bind()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(actq_jax_dequantize, dequantize_cpu, dequantize_binding(cpu_bind()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(actq_jax_dequantize_cuda, dequantize_cuda,
                              dequantize_binding(cuda_bind()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(actq_jax_fewbit_encode, fewbit_encode_cpu,
                              fewbit_encode_binding(cpu_bind()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(actq_jax_fewbit_encode_cuda, fewbit_encode_cuda,
                              fewbit_encode_binding(cuda_bind()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(actq_jax_fewbit_codes, fewbit_codes_cpu,
                              fewbit_codes_binding(cpu_bind()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(actq_jax_fewbit_codes_cuda, fewbit_codes_cuda,
                              fewbit_codes_binding(cuda_bind()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(actq_jax_fewbit_backward, fewbit_backward_cpu,
                              fewbit_backward_binding(cpu_bind()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(actq_jax_fewbit_backward_cuda, fewbit_backward_cuda,
                              fewbit_backward_binding(cuda_bind()));

#pragma GCC visibility pop
