// tensors.h - what the operators need of a tensor through PyTorch's stable C shim:
// dtype and device, a fresh contiguous output, a data address, and the context that
// serves a tensor's device. Each is one shim call or two, no dispatcher round trip: the
// operators' whole point is to cost little more than their kernel.
#ifndef ACTQ_TORCH_TENSORS_H
#define ACTQ_TORCH_TENSORS_H

#include <dlfcn.h>

#include <cstdint>
#include <string>
#include <vector>

#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include "actq.h"
#include "bindings/torch/src/contexts.h"
#include "bindings/torch/src/errors.h"

namespace actq_torch {

using torch::stable::Tensor;

inline void shim(AOTITorchError e, const char *what) {
  if (e != AOTI_TORCH_SUCCESS) fail("RuntimeError", "PyTorch's shim failed in ", what);
}

// The shim's dtype codes, read once (they are function calls).
struct Codes {
  int32_t f32 = aoti_torch_dtype_float32();
  int32_t f16 = aoti_torch_dtype_float16();
  int32_t bf16 = aoti_torch_dtype_bfloat16();
  int32_t u8 = aoti_torch_dtype_uint8();
  int32_t i64 = aoti_torch_dtype_int64();
  int32_t cpu = aoti_torch_device_type_cpu();
  int32_t cuda = aoti_torch_device_type_cuda();
};

inline const Codes &codes() {
  static const Codes c;
  return c;
}

inline int32_t dtype_of(const Tensor &t) {
  int32_t d;
  shim(aoti_torch_get_dtype(t.get(), &d), "get_dtype");
  return d;
}

// "torch.float32", as Python prints a dtype in the binding's messages.
inline std::string dtype_name(int32_t d) {
  const struct {
    int32_t code;
    const char *name;
  } names[] = {{aoti_torch_dtype_float32(), "float32"}, {aoti_torch_dtype_float16(), "float16"},
               {aoti_torch_dtype_bfloat16(), "bfloat16"}, {aoti_torch_dtype_float64(), "float64"},
               {aoti_torch_dtype_uint8(), "uint8"},     {aoti_torch_dtype_int8(), "int8"},
               {aoti_torch_dtype_int16(), "int16"},     {aoti_torch_dtype_int32(), "int32"},
               {aoti_torch_dtype_int64(), "int64"},     {aoti_torch_dtype_bool(), "bool"}};
  for (const auto &n : names)
    if (n.code == d) return std::string("torch.") + n.name;
  return "torch dtype " + std::to_string(d);
}

// The actq dtype of a float32/float16/bfloat16 code; false for any other.
inline bool actq_dtype_of_code(int32_t d, actq_dtype *out) {
  const Codes &c = codes();
  if (d == c.f32) *out = ACTQ_F32;
  else if (d == c.f16) *out = ACTQ_F16;
  else if (d == c.bf16) *out = ACTQ_BF16;
  else return false;
  return true;
}

inline int32_t code_of(actq_dtype d) {
  const Codes &c = codes();
  return d == ACTQ_F32 ? c.f32 : d == ACTQ_F16 ? c.f16 : c.bf16;
}

// The actq dtype of data tensor t, the argument `name`, or the binding's TypeError.
inline actq_dtype actq_dtype_of(const Tensor &t, const char *name) {
  actq_dtype d;
  int32_t code = dtype_of(t);
  if (!actq_dtype_of_code(code, &d))
    fail("TypeError", name, " must be a float32, float16 or bfloat16 tensor, got ",
         dtype_name(code));
  return d;
}

struct Device {
  int32_t type;
  int32_t index;
  bool operator==(const Device &o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device &o) const { return !(*this == o); }
};

inline Device device_of(const Tensor &t) {
  Device d;
  shim(aoti_torch_get_device_type(t.get(), &d.type), "get_device_type");
  shim(aoti_torch_get_device_index(t.get(), &d.index), "get_device_index");
  return d;
}

inline std::string device_name(const Device &d) {
  if (d.type == codes().cpu) return "cpu";
  if (d.type == codes().cuda) return "cuda:" + std::to_string(d.index);
  return "device type " + std::to_string(d.type);
}

// A new contiguous tensor of `shape` on `device`.
inline Tensor empty(const std::vector<int64_t> &shape, int32_t dtype, const Device &device) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i] > 1 ? shape[i] : 1;
  }
  AtenTensorHandle h;
  shim(aoti_torch_empty_strided(static_cast<int64_t>(shape.size()), shape.data(), strides.data(),
                                dtype, device.type, device.index, &h),
       "empty_strided");
  return Tensor(h);
}

inline Tensor empty1(int64_t n, int32_t dtype, const Device &device) {
  return empty(std::vector<int64_t>{n}, dtype, device);
}

inline Tensor dense(const Tensor &t) {
  return t.is_contiguous() ? t : torch::stable::contiguous(t);
}

// The data address for the C calls; NULL for an empty tensor (allowed there).
inline void *addr(const Tensor &t) { return t.numel() ? t.data_ptr() : nullptr; }

// PyTorch's current CUDA stream of a device. The shim function lives in libtorch_cuda,
// which a CPU-only PyTorch lacks: it is looked up when a CUDA tensor first arrives, so
// one build of this library loads into either.
inline void *current_cuda_stream(int32_t device) {
  using Fn = AOTITorchError (*)(int32_t, void **);
  static Fn fn = [] {
    void *sym = dlsym(RTLD_DEFAULT, "aoti_torch_get_current_cuda_stream");
    if (!sym) {
      if (void *lib = dlopen("libtorch_cuda.so", RTLD_NOLOAD | RTLD_LAZY))
        sym = dlsym(lib, "aoti_torch_get_current_cuda_stream");
    }
    return reinterpret_cast<Fn>(sym);
  }();
  if (!fn) fail("RuntimeError", "a CUDA tensor, but this PyTorch has no CUDA stream shim");
  void *stream = nullptr;
  shim(fn(device, &stream), "get_current_cuda_stream");
  return stream;
}

// The context for calls on tensors of `device`, for the lifetime of one operator call:
// on CUDA with that device current and on PyTorch's current stream.
class ContextFor {
 public:
  explicit ContextFor(const Device &device)
      : guard_(device.type == codes().cuda ? new torch::stable::accelerator::DeviceGuard(
                                                 static_cast<int8_t>(device.index))
                                           : nullptr),
        lent_(backend_of(device), device.type == codes().cuda ? device.index : -1) {
    if (guard_)
      check("actq_context_set_stream",
            actq_context_set_stream(lent_.get(), current_cuda_stream(device.index)));
    else
      lent_.use_threads(static_cast<int>(torch::stable::get_num_threads()));
  }
  ~ContextFor() { delete guard_; }
  ContextFor(const ContextFor &) = delete;
  ContextFor &operator=(const ContextFor &) = delete;

  actq_context *get() const { return lent_.get(); }

 private:
  static actq_backend backend_of(const Device &d) {
    if (d.type == codes().cpu) return ACTQ_BACKEND_CPU;
    if (d.type == codes().cuda) return ACTQ_BACKEND_CUDA;
    fail("TypeError", "actq runs on CPU and CUDA tensors, not on ", device_name(d));
  }

  torch::stable::accelerator::DeviceGuard *guard_;  // declared first: the device is
  LentContext lent_;                                // current before the context is lent
};

}  // namespace actq_torch

#endif  // ACTQ_TORCH_TENSORS_H
