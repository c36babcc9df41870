// tables.h - few-bit derivative tables, built once per (activation, param, bits).
//
// The forward and the backward of one activation name the same table by its attributes,
// so both find the same levels; building an 8-bit table takes about half a second, far
// too long to repeat per call. Tables are for N(0,1) inputs, as the Python binding's
// cached_table builds them, so codes and gradients can be compared with it.
#ifndef ACTQ_JAX_TABLES_H
#define ACTQ_JAX_TABLES_H

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

#include "fewbit.h"

namespace actq_jax {

// *table points into the cache (entries are never removed), or the build's status.
inline actq_status cached_table(int64_t activation, float param, int64_t bits,
                                const fewbit_table **table) {
  static std::mutex mutex;
  static auto *cache = new std::map<std::tuple<int64_t, uint32_t, int64_t>, fewbit_table>();
  uint32_t param_bits;  // the key compares parameters bit for bit (NaN included)
  std::memcpy(&param_bits, &param, sizeof param_bits);
  auto key = std::make_tuple(activation, param_bits, bits);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache->find(key);
  if (it == cache->end()) {
    if (bits < 1 || bits > 8 || activation < 0 || activation > INT32_MAX)
      return ACTQ_ERR_INVALID_ARGUMENT;
    fewbit_table t;
    actq_status s = fewbit_table_build(static_cast<fewbit_activation>(activation), param,
                                       static_cast<uint32_t>(bits), nullptr, &t);
    if (s != ACTQ_OK) return s;
    it = cache->emplace(key, t).first;
  }
  *table = &it->second;
  return ACTQ_OK;
}

}  // namespace actq_jax

#endif  // ACTQ_JAX_TABLES_H
