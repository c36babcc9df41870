/* code_lut.c - builds the constant-time code table of code_lut.h. */
#include "src/fewbit/code_lut.h"

/* -0 takes +0's key, so that x = +0 and x = -0 both stay at or below that bound. */
static uint32_t bound_key(float b) {
  const uint32_t k = actq_fewbit_key(b);
  return k == 0x7fffffffu ? 0x80000000u : k;
}

/* Nodes below the buckets of `shift` bits that hold two or more of keys[j0, j1). */
static uint32_t count_nodes(const uint32_t *keys, uint32_t j0, uint32_t j1, int shift) {
  uint32_t n = 0, j = j0;
  while (j < j1) {
    uint32_t e = j + 1;
    while (e < j1 && keys[e] >> shift == keys[j] >> shift) e++;
    if (e - j >= 2 && shift > 0) n += 1 + count_nodes(keys, j, e, shift - 8);
    j = e;
  }
  return n;
}

size_t actq_fewbit_lut_size(const float *bounds, uint32_t bits) {
  uint32_t keys[255], i, nb = (1u << bits) - 1u;
  for (i = 0; i < nb; i++) keys[i] = bound_key(bounds[i]);
  return offsetof(actq_fewbit_lut, node) +
         (size_t)count_nodes(keys, 0, nb, 16) * 256 * sizeof(uint32_t);
}

/* Fills `count` entries for buckets (key >> shift) & (count - 1) of the keys keys[j0, j1)
 * (all sharing the bits above the bucket), as code_lut.h describes. */
static void fill(actq_fewbit_lut *lut, uint32_t *dst, uint32_t count, int shift, uint32_t j0,
                 uint32_t j1) {
  const uint32_t low = shift ? (1u << shift) - 1u : 0;
  uint32_t i, j = j0;
  for (i = 0; i < count; i++) {
    uint32_t e = j;
    while (e < j1 && ((lut->keys[e] >> shift) & (count - 1)) == i) e++;
    if (shift == 0 || e == j) {
      dst[i] = shift == 0 ? j : j << 16 | low;
    } else if (e - j == 1) {
      dst[i] = j << 16 | (lut->keys[j] & low);
    } else {
      const uint32_t n = lut->nodes++;
      dst[i] = ACTQ_LUT_DESCEND | n;
      fill(lut, lut->node + (size_t)n * 256, 256, shift - 8, j, e);
    }
    j = e;
  }
}

void actq_fewbit_lut_build(actq_fewbit_lut *lut, const float *bounds, uint32_t bits) {
  const uint32_t nb = (1u << bits) - 1u;
  uint32_t i;
  lut->bits = bits;
  lut->nodes = 0;
  for (i = 0; i < 256; i++) lut->keys[i] = i < nb ? bound_key(bounds[i]) : 0xffffffffu;
  fill(lut, lut->root, ACTQ_LUT_ROOT, 16, 0, nb);
}

int actq_fewbit_lut_matches(const actq_fewbit_lut *lut, const float *bounds, uint32_t bits) {
  const uint32_t nb = (1u << bits) - 1u;
  uint32_t i;
  if (lut->bits != bits) return 0;
  for (i = 0; i < nb; i++)
    if (lut->keys[i] != bound_key(bounds[i])) return 0;
  return 1;
}
