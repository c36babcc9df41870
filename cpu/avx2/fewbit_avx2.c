/* fewbit_avx2.c - few-bit encode and backward, 32 elements (4 units) at a time.
 *
 * Codes, up to 5 bits: the binary search of actq_fewbit_code, with each level's bounds in
 * registers instead of memory (level s has 2^s candidates: a broadcast, then vpermilps
 * for 2 and 4, vpermps for 8, two vpermps and a blend for 16). Gathers cost some 15
 * cycles per 8 lanes on the CPUs this was tuned on, more than the whole in-register search.
 * Codes, 6 to 8 bits: one gather from the call's code_lut table (src/fewbit/code_lut.h)
 * by the top 16 bits of the order-preserving key and one compare of the low 16 bits; a
 * block meeting a bucket that holds several bounds takes the table's scalar walk. Without
 * a table (small calls) the search of actq_fewbit_code with one gather per level.
 * All of these count the bounds strictly below x as the reference does, NaN included.
 * y: the AVX2 twins of the shared activation functions (same operations, same bits).
 * Backward: levels by code from registers up to 5 bits (vpermps and blends), a gather
 * beyond; one multiplication. NaN results are canonicalized as in the scalar code. Fewer
 * than 32 elements at the end of a range run the reference kernel, so tails are the
 * reference's by construction.
 */
#include <immintrin.h>
#include <string.h>

#include "src/arith/fewbit_elem.h"
#include "cpu/avx2/act_avx2.h"
#include "cpu/bf16_keys.h"
#include "cpu/avx2/avx2.h"
#include "cpu/avx2/bits_avx2.h"
#include "cpu/avx2/elem_avx2.h"
#include "cpu/ref/ref.h"
#include "cpu/prefetch.h"
#include "cpu/stream.h"
#include "src/fewbit/code_lut.h"

#define INLINE static inline __attribute__((always_inline))

/* ---- codes --------------------------------------------------------------------------- */

/* The bounds of each level of the binary search over 2^b - 1 bounds (b <= 5): level s
 * compares x with bounds[(2l + 1) 2^(b-1-s) - 1] for the l found so far (l < 2^s), and
 * l becomes 2l + (that bound < x); after b levels l is the code. */
typedef struct tree {
  __m256 t0, t1, t2, t3, t4a, t4b;
} tree;

static void tree_init(tree *tr, const float *bounds, uint32_t b) {
  float lv[5][16] = {{0}};
  uint32_t s, l;
  for (s = 0; s < b; s++)
    for (l = 0; l < 16; l++) /* entries past 2^s repeat the level (in-lane permutes) */
      lv[s][l] = bounds[actq_fewbit_level_bound(b, s, l % (1u << s))];
  tr->t0 = _mm256_set1_ps(lv[0][0]);
  tr->t1 = _mm256_loadu_ps(lv[1]);
  tr->t2 = _mm256_loadu_ps(lv[2]);
  tr->t3 = _mm256_loadu_ps(lv[3]);
  tr->t4a = _mm256_loadu_ps(lv[4]);
  tr->t4b = _mm256_loadu_ps(lv[4] + 8);
}

INLINE __m256i tree_step(__m256i l, __m256 bound, __m256 x) {
  const __m256i lt = _mm256_castps_si256(_mm256_cmp_ps(bound, x, _CMP_LT_OQ));
  return _mm256_sub_epi32(_mm256_add_epi32(l, l), lt); /* 2l + (bound < x) */
}

INLINE __m256i codes8_tree(const tree *tr, uint32_t b, __m256 x) {
  __m256i l = _mm256_sub_epi32(_mm256_setzero_si256(),
                               _mm256_castps_si256(_mm256_cmp_ps(tr->t0, x, _CMP_LT_OQ)));
  if (b >= 2) l = tree_step(l, _mm256_permutevar_ps(tr->t1, l), x);
  if (b >= 3) l = tree_step(l, _mm256_permutevar_ps(tr->t2, l), x);
  if (b >= 4) l = tree_step(l, _mm256_permutevar8x32_ps(tr->t3, l), x);
  if (b >= 5)
    l = tree_step(l,
                  _mm256_blendv_ps(_mm256_permutevar8x32_ps(tr->t4a, l),
                                   _mm256_permutevar8x32_ps(tr->t4b, l),
                                   _mm256_castsi256_ps(_mm256_slli_epi32(l, 28))),
                  x);
  return l;
}

/* The binary search of actq_fewbit_code, one gather of the bounds per level. */
INLINE __m256i codes8_search(const float *bounds, uint32_t bits, __m256 x) {
  __m256i pos = _mm256_setzero_si256();
  uint32_t step;
  for (step = 1u << (bits - 1); step; step >>= 1) {
    const __m256i idx = _mm256_add_epi32(pos, _mm256_set1_epi32((int)step - 1));
    const __m256 bd = _mm256_i32gather_ps(bounds, idx, 4);
    const __m256i lt = _mm256_castps_si256(_mm256_cmp_ps(bd, x, _CMP_LT_OQ));
    pos = _mm256_add_epi32(pos, _mm256_and_si256(lt, _mm256_set1_epi32((int)step)));
  }
  return pos;
}

/* code_lut level 1 on 8 lanes (nan: the lanes that are NaN, which take key 0). Sets
 * *deep when a lane's bucket holds several bounds (its code is then wrong). */
INLINE __m256i codes8_lut(const actq_fewbit_lut *lut, __m256 x, __m256 nan, int *deep) {
  const __m256i u = _mm256_castps_si256(x), lo = _mm256_set1_epi32(0xffff);
  __m256i k = _mm256_xor_si256(u, _mm256_or_si256(_mm256_srai_epi32(u, 31),
                                                  _mm256_set1_epi32((int)0x80000000u)));
  __m256i e;
  k = _mm256_andnot_si256(_mm256_castps_si256(nan), k);
  e = _mm256_i32gather_epi32((const int *)lut->root, _mm256_srli_epi32(k, 16), 4);
  *deep |= _mm256_movemask_ps(_mm256_castsi256_ps(e));
  return _mm256_sub_epi32(_mm256_srli_epi32(e, 16),
                          _mm256_cmpgt_epi32(_mm256_and_si256(k, lo), _mm256_and_si256(e, lo)));
}

enum { CODES_TREE, CODES_LUT, CODES_SEARCH };

/* y for 32 elements; kept out of line so that the code paths stay small. */
static __attribute__((noinline)) void store_y32(const actq_fewbit_job *job, actq_dtype dt, size_t i,
                                               const __m256 *x, int nt) {
  const fewbit_table *t = job->table;
  int j;
  for (j = 0; j < 4; j++)
    actq_avx2_store8_nt(job->y, dt, i + 8 * (size_t)j,
                        actq_avx2_fewbit_forward((int)t->activation, t->param, x[j]),
                        nt);
}

/* y for 32 16-bit elements from job->y_lut (cpu/y_lut.h): a dword gather at scale 2 for
 * each 8, whose low words are the results (the table's extra entry keeps the gather at
 * x = 0xffff inside it), narrowed by one vpackusdw for 16 */
static __attribute__((noinline)) void store_y32_lut(const actq_fewbit_job *job, size_t i, int nt) {
  const uint16_t *const x = (const uint16_t *)job->x + i;
  const int *const lut = (const int *)(const void *)job->y_lut;
  const __m256i low = _mm256_set1_epi32(0xffff);
  int j;
  for (j = 0; j < 2; j++) {
    const __m256i h = _mm256_loadu_si256((const __m256i *)(x + 16 * j));
    const __m256i lo = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(h));
    const __m256i hi = _mm256_cvtepu16_epi32(_mm256_extracti128_si256(h, 1));
    const __m256i a = _mm256_i32gather_epi32(lut, lo, 2), b = _mm256_i32gather_epi32(lut, hi, 2);
    /* packus works within 128-bit halves: its quadwords 0, 2, 1, 3 are in order */
    actq_avx2_store16h_nt((uint16_t *)job->y, i + 16 * (size_t)j,
                          _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_and_si256(a, low),
                                                                       _mm256_and_si256(b, low)),
                                                   0xd8),
                          nt);
  }
}

INLINE size_t encode_body(const actq_fewbit_job *job, size_t i0, size_t i1, const actq_dtype dt,
                          const uint32_t b, const int mode, const int nt) {
  const fewbit_table *t = job->table;
  const actq_fewbit_lut *lut = job->code_lut;
  /* bytes of the stream up to this range's end: store_pack32 may write ahead up to there
   * (later blocks of the range rewrite them), never into another thread's range */
  const size_t range_bytes = actq_stream_bytes(i1, b);
  const size_t es = actq_dtype_size(dt);
  tree tr;
  size_t i = i0, nan = 0;
  if (mode == CODES_TREE) tree_init(&tr, t->bounds, b);
  for (; i + 32 <= i1; i += 32) {
    __m256 x[4];
    __m256i q[4];
    int j, deep = 0;
    actq_prefetch_stream(job->x, i * es, 32 * es, job->n * es);
    for (j = 0; j < 4; j++) {
      const __m256 xn = (x[j] = actq_avx2_load8(job->x, dt, i + 8 * (size_t)j),
                         _mm256_cmp_ps(x[j], x[j], _CMP_UNORD_Q));
      nan += (size_t)__builtin_popcount(_mm256_movemask_ps(xn));
      q[j] = mode == CODES_TREE  ? codes8_tree(&tr, b, x[j])
             : mode == CODES_LUT ? codes8_lut(lut, x[j], xn, &deep)
                                 : codes8_search(t->bounds, b, x[j]);
    }
    if (mode == CODES_LUT && deep) { /* a bucket with several bounds: the table's walk */
      float xs[32];
      uint32_t qs[32];
      for (j = 0; j < 4; j++) _mm256_storeu_ps(xs + 8 * j, x[j]);
      for (j = 0; j < 32; j++) qs[j] = actq_fewbit_lut_code(lut, xs[j]);
      for (j = 0; j < 4; j++) q[j] = _mm256_loadu_si256((const __m256i *)(qs + 8 * j));
    }
    if (job->y) { /* y_lut only with y: the AVX-512 codes passes call with neither */
      if (job->y_lut) store_y32_lut(job, i, nt);
      else store_y32(job, dt, i, x, nt);
    }
    actq_avx2_store_pack32(job->codes + (i / 8) * b,
                           actq_avx2_pack32(actq_avx2_codes_to_bytes(q[0], q[1], q[2], q[3]), b),
                           b, 4 * b, range_bytes - (i / 8) * b);
  }
  return nan + (i < i1 ? actq_ref_fewbit_encode(job, i, i1) : 0);
}

/* bf16 codes at 1 and 2 bits, without y: 16 elements a vector, compared as 16-bit keys
 * (cpu/bf16_keys.h), so each bound is one word compare and the code (bounds strictly below
 * x) is the count of compares that hold. Against the f32 search this skips the widening
 * (two unpacks and an insert per 8) and works on twice the lanes. */
INLINE __m256i bf16_keys16(__m256i h) {
  return _mm256_xor_si256(h, _mm256_and_si256(_mm256_srai_epi16(h, 15), _mm256_set1_epi16(0x7fff)));
}

/* 16 codes (words) of 16 bf16 values; *nan counts their NaNs */
INLINE __m256i bf16_codes16(__m256i h, const __m256i *t, uint32_t nb, size_t *nan) {
  const __m256i k = bf16_keys16(h);
  const __m256i isnan = _mm256_cmpgt_epi16(_mm256_and_si256(h, _mm256_set1_epi16(0x7fff)),
                                           _mm256_set1_epi16(0x7f80));
  __m256i c = _mm256_setzero_si256();
  uint32_t j;
  for (j = 0; j < nb; j++) c = _mm256_sub_epi16(c, _mm256_cmpgt_epi16(k, t[j]));
  *nan += (size_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(isnan)) / 2;
  return _mm256_andnot_si256(isnan, c);
}

INLINE size_t encode_bf16_keys(const actq_fewbit_job *job, size_t i0, size_t i1, const uint32_t b) {
  const size_t range_bytes = actq_stream_bytes(i1, b);
  const uint32_t nb = (1u << b) - 1u;
  const uint16_t *x = (const uint16_t *)job->x;
  __m256i t[3];
  size_t i = i0, nan = 0;
  uint32_t j;
  for (j = 0; j < nb; j++) t[j] = _mm256_set1_epi16((short)actq_bf16_floor_key(job->table->bounds[j]));
  for (; i + 32 <= i1; i += 32) {
    const __m256i c0 = bf16_codes16(_mm256_loadu_si256((const __m256i *)(x + i)), t, nb, &nan);
    actq_prefetch_stream(x, 2 * i, 64, 2 * job->n);
    const __m256i c1 = bf16_codes16(_mm256_loadu_si256((const __m256i *)(x + i + 16)), t, nb, &nan);
    /* words to bytes in element order: packus works within 128-bit halves */
    const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(c0, c1), 0xd8);
    actq_avx2_store_pack32(job->codes + (i / 8) * b, actq_avx2_pack32(bytes, b), b, 4 * b,
                           range_bytes - (i / 8) * b);
  }
  return nan + (i < i1 ? actq_ref_fewbit_encode(job, i, i1) : 0);
}

#define ENCODE_DT(DT, B, MODE)                                                             \
  switch (dt) {                                                                            \
  case ACTQ_F32: return encode_body(job, i0, i1, ACTQ_F32, B, MODE, nt);                   \
  case ACTQ_F16: return encode_body(job, i0, i1, ACTQ_F16, B, MODE, nt);                   \
  default: return encode_body(job, i0, i1, ACTQ_BF16, B, MODE, nt);                        \
  }

/* The codes of [i0, i1) (and y), by width and search method. */
INLINE size_t encode_range(const actq_fewbit_job *job, size_t i0, size_t i1, int nt) {
  const actq_dtype dt = job->dtype;
  const uint32_t b = job->table->bits;
  const int lut = job->code_lut != NULL && b >= 6;
  if (dt == ACTQ_BF16 && b <= 2 && job->y == NULL)
    return b == 1 ? encode_bf16_keys(job, i0, i1, 1) : encode_bf16_keys(job, i0, i1, 2);
  switch (b) {
  case 1: ENCODE_DT(dt, 1, CODES_TREE)
  case 2: ENCODE_DT(dt, 2, CODES_TREE)
  case 3: ENCODE_DT(dt, 3, CODES_TREE)
  case 4: ENCODE_DT(dt, 4, CODES_TREE)
  case 5: ENCODE_DT(dt, 5, CODES_TREE)
  case 6: if (lut) { ENCODE_DT(dt, 6, CODES_LUT) } ENCODE_DT(dt, 6, CODES_SEARCH)
  case 7: if (lut) { ENCODE_DT(dt, 7, CODES_LUT) } ENCODE_DT(dt, 7, CODES_SEARCH)
  default: if (lut) { ENCODE_DT(dt, 8, CODES_LUT) } ENCODE_DT(dt, 8, CODES_SEARCH)
  }
}

size_t actq_avx2_fewbit_encode(const actq_fewbit_job *job, size_t i0, size_t i1) {
  const int nt =
      job->y != NULL && actq_stream_ok(job->y, job->n * actq_dtype_size(job->dtype));
  const size_t nan = encode_range(job, i0, i1, nt);
  if (nt) actq_stream_fence();
  return nan;
}

/* ---- backward ------------------------------------------------------------------------ */

/* levels[q] for 8 codes q < 2^b: up to 32 levels from four registers, a gather beyond. */
INLINE __m256 levels8(const float *levels, const __m256 *lv, uint32_t b, __m256i q) {
  __m256 r;
  if (b > 5) return _mm256_i32gather_ps(levels, q, 4);
  r = _mm256_permutevar8x32_ps(lv[0], q);
  if (b >= 4)
    r = _mm256_blendv_ps(r, _mm256_permutevar8x32_ps(lv[1], q),
                         _mm256_castsi256_ps(_mm256_slli_epi32(q, 28)));
  if (b >= 5) {
    const __m256 hi = _mm256_blendv_ps(_mm256_permutevar8x32_ps(lv[2], q),
                                       _mm256_permutevar8x32_ps(lv[3], q),
                                       _mm256_castsi256_ps(_mm256_slli_epi32(q, 28)));
    r = _mm256_blendv_ps(r, hi, _mm256_castsi256_ps(_mm256_slli_epi32(q, 27)));
  }
  return r;
}

INLINE void backward_body(const actq_fewbit_job *job, size_t i0, size_t i1, const actq_dtype dt,
                          const uint32_t b, const int nt) {
  const fewbit_table *t = job->table;
  const size_t stream_bytes = actq_stream_bytes(job->n, b);
  __m256 lv[4];
  size_t i = i0;
  int k;
  for (k = 0; k < 4; k++) lv[k] = _mm256_loadu_ps(t->levels + 8 * k); /* levels[256] */
  for (; i + 32 <= i1; i += 32) {
    const size_t at = (i / 8) * b;
    int j;
    for (j = 0; j < 4; j++) {
      /* a unit may be read as 8 bytes where the stream has them */
      const size_t u = at + (size_t)j * b;
      const __m256i q = actq_avx2_unpack_unit(job->codes_in + u, b, u + 8 <= stream_bytes);
      const __m256 g = actq_avx2_load8(job->grad_out, dt, i + 8 * (size_t)j);
      actq_avx2_store8_nt(job->grad_in, dt, i + 8 * (size_t)j,
                          actq_avx2_canonical_nan(_mm256_mul_ps(g, levels8(t->levels, lv, b, q))),
                          nt);
    }
  }
  if (i < i1) actq_ref_fewbit_backward(job, i, i1);
}

#define BACKWARD_DT(B)                                                                     \
  switch (dt) {                                                                            \
  case ACTQ_F32: backward_body(job, i0, i1, ACTQ_F32, B, nt); break;                       \
  case ACTQ_F16: backward_body(job, i0, i1, ACTQ_F16, B, nt); break;                       \
  default: backward_body(job, i0, i1, ACTQ_BF16, B, nt); break;                            \
  }                                                                                        \
  break;

void actq_avx2_fewbit_backward(const actq_fewbit_job *job, size_t i0, size_t i1) {
  const actq_dtype dt = job->dtype;
  const int nt = actq_stream_ok(job->grad_in, job->n * actq_dtype_size(dt));
  switch (job->table->bits) {
  case 1: BACKWARD_DT(1)
  case 2: BACKWARD_DT(2)
  case 3: BACKWARD_DT(3)
  case 4: BACKWARD_DT(4)
  case 5: BACKWARD_DT(5)
  case 6: BACKWARD_DT(6)
  case 7: BACKWARD_DT(7)
  default: BACKWARD_DT(8)
  }
  if (nt) actq_stream_fence();
}
