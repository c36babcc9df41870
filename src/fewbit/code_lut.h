/* code_lut.h - few-bit codes in constant time: a radix table over the order-preserving
 * integer key of x, built from the table's bounds (a CPU context keeps the last one it built).
 *
 * key(x): the float32 bits mapped so that unsigned key order is float order (negative: all
 * bits flipped; positive: sign bit set). A bound of -0 is stored as +0's key, which makes
 * "key(b) < key(x)" equal to "b < x" for every non-NaN x, including x = -0 (the key just
 * below +0's: no bound key lies between them). NaN takes key 0, below every bound key
 * (the lowest possible bound, -Inf, has key 0x007fffff), so it gets code 0.
 *
 * Level 1 is indexed by key >> 16. An entry whose bucket holds at most one bound is
 * base << 16 | low: base = bounds below the bucket, low = the low 16 bits of the bucket's
 * bound key (0xffff without one, which no x exceeds), so code = base + (key & 0xffff > low).
 * A bucket with two or more bounds holds ACTQ_LUT_DESCEND | n instead: node n, indexed by
 * (key >> 8) & 0xff, with entries base << 16 | low8 in the same way, or again DESCEND | m:
 * node m, indexed by key & 0xff, whose buckets are single keys and hold the code itself.
 * Every code is at most three dependent loads and one compare; nodes exist only where two
 * bounds share a level-1 (or level-2) bucket, at most 127 of each kind.
 *
 * The reference backend keeps the binary search of actq_fewbit_code (the oracle); this
 * table is what the fast kernels use, and tests compare the two.
 */
#ifndef ACTQ_FEWBIT_CODE_LUT_H
#define ACTQ_FEWBIT_CODE_LUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ACTQ_LUT_DESCEND 0x80000000u
#define ACTQ_LUT_ROOT 65536u

typedef struct actq_fewbit_lut {
  uint32_t bits;
  uint32_t nodes;                /* entries of node[] in use, in blocks of 256 */
  uint32_t keys[256];            /* bound keys (-0 as +0), 0xffffffff past the last */
  uint32_t root[ACTQ_LUT_ROOT];  /* by key >> 16 */
  uint32_t node[];               /* nodes of 256 entries */
} actq_fewbit_lut;

static inline uint32_t actq_fewbit_key(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  if (x != x) return 0;
  return u ^ ((uint32_t)((int32_t)u >> 31) | 0x80000000u);
}

static inline uint32_t actq_fewbit_lut_code(const actq_fewbit_lut *lut, float x) {
  const uint32_t k = actq_fewbit_key(x);
  uint32_t e = lut->root[k >> 16];
  if (!(e & ACTQ_LUT_DESCEND)) return (e >> 16) + ((k & 0xffffu) > (e & 0xffffu));
  e = lut->node[(size_t)(e & ~ACTQ_LUT_DESCEND) * 256 + ((k >> 8) & 0xffu)];
  if (!(e & ACTQ_LUT_DESCEND)) return (e >> 16) + ((k & 0xffu) > (e & 0xffu));
  return lut->node[(size_t)(e & ~ACTQ_LUT_DESCEND) * 256 + (k & 0xffu)];
}

/* Bytes the table of these bounds (2^bits - 1, increasing, none NaN) needs. */
size_t actq_fewbit_lut_size(const float *bounds, uint32_t bits);
/* Fills lut (actq_fewbit_lut_size bytes) for these bounds. */
void actq_fewbit_lut_build(actq_fewbit_lut *lut, const float *bounds, uint32_t bits);
/* Whether lut was built from these bounds at this width (the same bound keys: a table
 * with -0 where another has +0 builds the same lut). */
int actq_fewbit_lut_matches(const actq_fewbit_lut *lut, const float *bounds, uint32_t bits);

#endif /* ACTQ_FEWBIT_CODE_LUT_H */
