// errors.h - how the operators report a bad argument or a failed call.
//
// A kernel on PyTorch's stable ABI can only throw std::exception, which reaches Python as
// a RuntimeError. The message therefore starts with a tag naming the exception the
// Python binding raises for the same fault, and actq/torch/library.py turns a tagged
// RuntimeError back into that exception for the package's entry points:
//   "[actq ValueError] 12 elements do not split into 5 rows"
//   "[actq TypeError] actq takes float32, float16 or bfloat16 tensors, not torch.int32"
//   "[actq status 1] actq_quantize: invalid argument"
// The texts are the Python binding's own (actq/torch/kernels.py, actq/errors.py), so a
// call fails with the same words on either path.
#ifndef ACTQ_TORCH_ERRORS_H
#define ACTQ_TORCH_ERRORS_H

#include <sstream>
#include <stdexcept>
#include <string>

#include "actq.h"

namespace actq_torch {

template <typename... Args>
[[noreturn]] inline void fail(const char *python_class, const Args &...args) {
  std::ostringstream s;
  s << "[actq " << python_class << "] ";
  (s << ... << args);
  throw std::runtime_error(s.str());
}

// A C status other than ACTQ_OK: "[actq status N] call: <actq_status_string>".
inline void check(const char *call, actq_status status) {
  if (status != ACTQ_OK) {
    std::ostringstream s;
    s << "[actq status " << static_cast<int>(status) << "] " << call << ": "
      << actq_status_string(status);
    throw std::runtime_error(s.str());
  }
}

}  // namespace actq_torch

#endif  // ACTQ_TORCH_ERRORS_H
