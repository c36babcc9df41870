/* fewbit_avx2.c - few-bit encode and backward, 32 elements (4 units) at a time.
 *
 * Codes: the branch-free binary search of actq_fewbit_code on 8 lanes, one gather of the
 * bounds per step. y: the AVX2 twins of the shared activation functions (same operations,
 * same bits). Backward: gather of the levels by code, one multiplication. NaN results are
 * canonicalized as in the scalar code. Fewer than 32 elements at the end of a range run
 * the reference kernel, so tails are the reference's by construction.
 */
#include <immintrin.h>

#include "arith/fewbit.h"
#include "cpu/avx2/act_avx2.h"
#include "cpu/avx2/avx2.h"
#include "cpu/avx2/bits_avx2.h"
#include "cpu/avx2/elem_avx2.h"
#include "cpu/ref/ref.h"

/* Number of bounds strictly below each lane (NaN: 0): the branch-free binary search of
 * actq_fewbit_code, one gather of the bounds per step. */
static inline __attribute__((always_inline)) __m256i codes8_search(const float *bounds,
                                                                  uint32_t bits, __m256 x) {
  __m256i pos = _mm256_setzero_si256();
  uint32_t step;
  for (step = 1u << (bits - 1); step; step >>= 1) {
    const __m256i idx = _mm256_add_epi32(pos, _mm256_set1_epi32((int)step - 1));
    const __m256 b = _mm256_i32gather_ps(bounds, idx, 4);
    const __m256i lt = _mm256_castps_si256(_mm256_cmp_ps(b, x, _CMP_LT_OQ));
    pos = _mm256_add_epi32(pos, _mm256_and_si256(lt, _mm256_set1_epi32((int)step)));
  }
  return pos;
}

size_t actq_avx2_fewbit_encode(const actq_fewbit_job *job, size_t i0, size_t i1) {
  const fewbit_table *t = job->table;
  const int dt = (int)job->dtype, act = (int)t->activation;
  const uint32_t b = t->bits, nb = (1u << b) - 1u;
  /* bytes of the stream up to this range's end: store_pack32 may write ahead up to there
   * (later blocks of the range rewrite them), never into another thread's range */
  const size_t range_bytes = actq_stream_bytes(i1, b);
  /* Up to 15 bounds: each code is a count of compares against the bounds held in
   * registers (no gathers), the same count as the binary search. */
  const int count = b <= 4;
  __m256 bv[15];
  size_t i = i0, nan = 0;
  uint32_t k;
  for (k = 0; k < nb && count; k++) bv[k] = _mm256_set1_ps(t->bounds[k]);
  for (; i + 32 <= i1; i += 32) {
    __m256 x[4];
    __m256i q[4];
    int j;
    for (j = 0; j < 4; j++) {
      x[j] = actq_avx2_load8(job->x, dt, i + 8 * (size_t)j);
      nan += (size_t)__builtin_popcount(_mm256_movemask_ps(_mm256_cmp_ps(x[j], x[j], _CMP_UNORD_Q)));
      q[j] = count ? _mm256_setzero_si256() : codes8_search(t->bounds, b, x[j]);
    }
    for (k = 0; k < nb && count; k++) /* q -= (bound < x ? -1 : 0) */
      for (j = 0; j < 4; j++)
        q[j] = _mm256_sub_epi32(q[j], _mm256_castps_si256(_mm256_cmp_ps(bv[k], x[j], _CMP_LT_OQ)));
    if (job->y)
      for (j = 0; j < 4; j++)
        actq_avx2_store8(job->y, dt, i + 8 * (size_t)j,
                         actq_avx2_canonical_nan(actq_avx2_act_forward(act, t->param, x[j])));
    actq_avx2_store_pack32(job->codes + (i / 8) * b,
                           actq_avx2_pack32(actq_avx2_codes_to_bytes(q[0], q[1], q[2], q[3]), b),
                           b, 4 * b, range_bytes - (i / 8) * b);
  }
  return nan + (i < i1 ? actq_ref_fewbit_encode(job, i, i1) : 0);
}

void actq_avx2_fewbit_backward(const actq_fewbit_job *job, size_t i0, size_t i1) {
  const fewbit_table *t = job->table;
  const int dt = (int)job->dtype;
  const uint32_t b = t->bits;
  const size_t stream_bytes = actq_stream_bytes(job->n, b);
  size_t i = i0;
  for (; i + 32 <= i1; i += 32) {
    const size_t at = (i / 8) * b;
    int j;
    for (j = 0; j < 4; j++) {
      /* a unit may be read as 8 bytes where the stream has them */
      const size_t u = at + (size_t)j * b;
      const __m256i q = actq_avx2_unpack_unit(job->codes_in + u, b, u + 8 <= stream_bytes);
      const __m256 level = _mm256_i32gather_ps(t->levels, q, 4);
      const __m256 g = actq_avx2_load8(job->grad_out, dt, i + 8 * (size_t)j);
      actq_avx2_store8(job->grad_in, dt, i + 8 * (size_t)j,
                       actq_avx2_canonical_nan(_mm256_mul_ps(g, level)));
    }
  }
  if (i < i1) actq_ref_fewbit_backward(job, i, i1);
}
