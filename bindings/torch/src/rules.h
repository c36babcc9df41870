// rules.h - the contract's argument rules for the C++ operators, in one place, with the
// words of the Python package's table (actq/rules.py), so that a call refused on either
// path reads the same: "bits must be 1..8, got 9". Every operator checks its arguments
// here before any C call; libactq's status stays the last line of defence.
//
// A refused argument throws "[actq ArgumentError <name>] <message>" (errors.h explains the
// tags); actq/torch/library.py turns it into actq.ArgumentError with .argument = <name>.
#ifndef ACTQ_TORCH_RULES_H
#define ACTQ_TORCH_RULES_H

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "actq.h"

namespace actq_torch {
namespace rules {

constexpr int64_t kBitsMin = 1, kBitsMax = 8;
constexpr int64_t kGroupStep = 8, kGroupMax = 65536;

// "<name> must be <allowed>, got <value>".
template <typename V>
[[noreturn]] inline void refuse(const std::string &name, const V &value, const std::string &allowed) {
  std::ostringstream s;
  s << "[actq ArgumentError " << name << "] " << name << " must be " << allowed << ", got "
    << value;
  throw std::runtime_error(s.str());
}

// A message of its own ("row_bits has 3 entries for 4 rows").
[[noreturn]] inline void refuse_as(const std::string &name, const std::string &message) {
  throw std::runtime_error("[actq ArgumentError " + name + "] " + message);
}

inline std::string quoted(const std::string &v) { return "'" + v + "'"; }

inline void bits(const std::string &name, int64_t v) {
  if (v < kBitsMin || v > kBitsMax) refuse(name, v, "1..8");
}

inline void group_size(int64_t v) {
  if (v < kGroupStep || v > kGroupMax || v % kGroupStep)
    refuse("group_size", v, "a multiple of 8 in 8..65536");
}

inline void rows(int64_t v) {
  if (v < 0) refuse("rows", v, "an integer >= 0");
}

// The columns of numel elements seen as `rows` rows.
inline size_t cols(int64_t numel, int64_t r) {
  rows(r);
  if ((r && numel % r) || (!r && numel)) {
    std::ostringstream s;
    s << "rows must divide the " << numel << " elements, got " << r;
    refuse_as("rows", s.str());
  }
  return r ? static_cast<size_t>(numel / r) : 0;
}

// Per-row widths read from host bytes: one entry per row, each 1..8.
inline void row_bits(int64_t r, const uint8_t *w, int64_t n) {
  if (n != r) {
    std::ostringstream s;
    s << "row_bits has " << n << " entries for " << r << " rows";
    refuse_as("row_bits", s.str());
  }
  for (int64_t i = 0; i < n; i++)
    if (w[i] < kBitsMin || w[i] > kBitsMax)
      refuse("row_bits[" + std::to_string(i) + "]", static_cast<int>(w[i]), "1..8");
}

inline actq_rounding rounding(const std::string &v) {
  if (v == "stochastic" || v == "STOCHASTIC") return ACTQ_ROUND_STOCHASTIC;
  if (v == "nearest" || v == "NEAREST") return ACTQ_ROUND_NEAREST;
  refuse("rounding", quoted(v), "one of stochastic, nearest");
}

inline actq_dtype meta_dtype(const std::string &v) {
  if (v == "f32" || v == "F32") return ACTQ_F32;
  if (v == "f16" || v == "F16") return ACTQ_F16;
  if (v == "bf16" || v == "BF16") return ACTQ_BF16;
  refuse("meta_dtype", quoted(v), "one of f32, f16, bf16");
}

// A buffer that must hold at least `need` units.
inline void at_least(const std::string &name, int64_t got, int64_t need, const char *unit,
                     const std::string &what) {
  if (got < need) {
    std::ostringstream s;
    s << name << " has " << got << " " << unit << ", " << what << " needs at least " << need;
    refuse_as(name, s.str());
  }
}

}  // namespace rules
}  // namespace actq_torch

#endif  // ACTQ_TORCH_RULES_H
