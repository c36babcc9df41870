/* dequantize_avx2.c - y = fma(q, s, m) for 8 codes at a time (AVX2 + FMA + F16C).
 *
 * With finite m and s, fma(q, s, m) cannot be NaN (q*s is exact inside the fma), so the
 * vector loop needs no NaN canonicalization; a group whose stored metadata is NaN or Inf
 * is rare and runs the reference kernel. Conversions to f16 use vcvtps2ph with
 * round-to-nearest-even (the same bits as actq_f32_to_f16 for non-NaN values), to bf16
 * the integer rounding of actq_f32_to_bf16. The row's partial unit is the reference's.
 */
#include <immintrin.h>

#include "arith/elem.h"
#include "arith/quant.h"
#include "cpu/avx2/avx2.h"
#include "cpu/avx2/bits_avx2.h"
#include "cpu/avx2/elem_avx2.h"
#include "cpu/prefetch.h"
#include "cpu/ref/ref.h"

static inline __attribute__((always_inline)) void dequantize_groups_t(
    const actq_dequant_job *job, size_t r, size_t g0, size_t g1, const uint8_t *row_packed,
    int dt) {
  const actq_grid *gr = &job->grid;
  const uint32_t bits = actq_grid_row_bits(gr, r);
  const size_t base = r * gr->cols;
  const uint8_t *row_end = row_packed + actq_stream_bytes(gr->cols, bits);
  size_t gi, c, j;

  for (gi = g0; gi < g1; gi++) {
    const size_t c0 = actq_grid_group_begin(gr, gi), c1 = actq_grid_group_end(gr, gi);
    const size_t meta_index = r * gr->groups_per_row + gi;
    const float m = actq_load_elem(job->group_min, (int)gr->meta_dtype, meta_index);
    const float s = actq_load_elem(job->group_scale, (int)gr->meta_dtype, meta_index);
    const uint8_t *in = row_packed + (c0 / 8) * bits;
    __m256 vm, vs;
    if (!actq_f32_is_finite(m) || !actq_f32_is_finite(s)) {
      actq_ref_dequantize_groups(job, r, gi, gi + 1, row_packed);
      continue;
    }
    vm = _mm256_set1_ps(m);
    vs = _mm256_set1_ps(s);
    if (in + ACTQ_PREFETCH_BYTES < row_end) /* a group's codes are at most 1 KiB at G=1024 */
      _mm_prefetch((const char *)in + ACTQ_PREFETCH_BYTES, _MM_HINT_T0);
    for (c = c0; c + 8 <= c1; c += 8) {
      __m256i q = actq_avx2_unpack_unit(in, bits, in + 8 <= row_end);
      actq_avx2_store8(job->y, dt, base + c, _mm256_fmadd_ps(_mm256_cvtepi32_ps(q), vs, vm));
      in += bits;
    }
    if (c < c1) { /* the row's last, partial unit */
      uint32_t codes[8];
      actq_unpack_unit(in, c1 - c, bits, codes);
      for (j = 0; j < c1 - c; j++)
        actq_store_elem(job->y, dt, base + c + j, actq_dequant(codes[j], m, s));
    }
  }
}

void actq_avx2_dequantize_groups(const actq_dequant_job *job, size_t r, size_t g0, size_t g1,
                                 const uint8_t *row_packed) {
  switch (job->y_dtype) {
  case ACTQ_F16: dequantize_groups_t(job, r, g0, g1, row_packed, ACTQ_F16); break;
  case ACTQ_BF16: dequantize_groups_t(job, r, g0, g1, row_packed, ACTQ_BF16); break;
  default: dequantize_groups_t(job, r, g0, g1, row_packed, ACTQ_F32); break;
  }
}
