// tables.h - a few-bit table as the operators receive it (bits, activation, param, bounds,
// levels: the fields library.table_spec gives) made into libactq's struct, with the
// Python binding's checks and words; the packed length of n codes, and its check. Shared by the
// stable-ABI operators (ops.cc) and the C++ autograd layer (autograd.cc).
#ifndef ACTQ_TORCH_TABLES_H
#define ACTQ_TORCH_TABLES_H

#include <cstddef>
#include <cstdint>
#include <string>

#include "bindings/torch/src/errors.h"
#include "bindings/torch/src/rules.h"
#include "fewbit.h"

namespace actq_torch {

inline fewbit_table table_of(int64_t bits, int64_t activation, double param,
                             const double *bounds, size_t n_bounds, const double *levels,
                             size_t n_levels) {
  rules::bits("bits", bits);
  if (n_bounds != (size_t(1) << bits) - 1 || n_levels != size_t(1) << bits)
    fail("ValueError", "a ", bits, "-bit table has ", (int64_t(1) << bits) - 1, " bounds and ",
         int64_t(1) << bits, " levels, got ", n_bounds, " and ", n_levels);
  fewbit_table t{};
  t.bits = static_cast<uint32_t>(bits);
  t.activation = static_cast<uint32_t>(activation);
  t.param = static_cast<float>(param);
  for (size_t i = 0; i < n_bounds; i++) t.bounds[i] = static_cast<float>(bounds[i]);
  for (size_t i = 0; i < n_levels; i++) t.levels[i] = static_cast<float>(levels[i]);
  return t;
}

// Bytes of n codes of `bits` bits in one packed row.
inline int64_t packed_bytes_1row(int64_t bits, int64_t n) {
  return (n * (bits > 0 ? bits : 0) + 7) / 8;
}

// codes of `have` bytes hold the codes of n elements at `bits` bits; the message is built
// only on a refusal (a call's hot path makes no string).
inline void check_codes(int64_t have, int64_t bits, int64_t n) {
  const int64_t need = packed_bytes_1row(bits, n);
  if (have < need)
    rules::at_least("codes", have, need, "bytes",
                    "grad_out's " + std::to_string(n) + " elements at " + std::to_string(bits) +
                        " bits");
}

}  // namespace actq_torch

#endif  // ACTQ_TORCH_TABLES_H
