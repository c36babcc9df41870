/* pack_ref.c - reference packing of one row of codes, 8 codes (= `bits` bytes) at a time. */
#include "src/arith/bitstream.h"
#include "cpu/kernels.h"
#include "cpu/ref/ref.h"

int actq_ref_pack(uint32_t bits, size_t n, const uint8_t *codes, uint8_t *out) {
  const uint32_t mask = (1u << bits) - 1u;
  uint32_t over = 0, unit[8];
  size_t i, j;
  for (i = 0; i < n; i += 8) {
    const size_t k = n - i < 8 ? n - i : 8;
    for (j = 0; j < k; j++) {
      over |= codes[i + j] & ~mask;
      unit[j] = codes[i + j] & mask; /* an invalid code must not spill into its neighbours */
    }
    actq_pack_unit(unit, k, bits, out);
    out += bits;
  }
  return over != 0;
}

void actq_ref_unpack(uint32_t bits, size_t n, const uint8_t *in, uint8_t *codes) {
  uint32_t unit[8];
  size_t i, j;
  for (i = 0; i < n; i += 8) {
    const size_t k = n - i < 8 ? n - i : 8;
    actq_unpack_unit(in, k, bits, unit);
    for (j = 0; j < k; j++) codes[i + j] = (uint8_t)unit[j];
    in += bits;
  }
}
