/* fewbit_avx512.c - fewbit_backward 16 lanes wide: grad_in = grad_out * levels[code].
 *
 * The AVX2 kernel looks levels up with vpermps and blends up to 5 bits and with a gather
 * beyond (8 lanes a gather: the costliest step of the 8-bit backward). Here every width
 * stays in registers: the 2^b levels are 2^b / 16 zmm registers; vpermps serves up to 16
 * levels, vpermt2ps 32, and 6 to 8 bits take one vpermt2ps per 32 levels and a tree of
 * masked blends on the code's bits 5, 6 and 7 (at 8 bits: 8 + 7 operations for 16 lanes,
 * no memory access). bf16 results are rounded in 32-bit lanes (actq_f32_to_bf16: x +
 * 0x7fff + bit 16) and narrowed with vpmovdw; a NaN product is first replaced by the
 * canonical NaN, whose rounding gives the scalar code's 0x7fc0, so no NaN case remains.
 * The codes are unpacked 8 at a time by the AVX2 code (bits_avx2.h), 8-bit codes 16 at a
 * time by one zero-extension of their bytes. Fewer than 32
 * elements at the end of a range run the reference kernel. */
#include <immintrin.h>

#include "cpu/avx2/bits_avx2.h"
#include "cpu/avx2/elem_avx2.h"
#include "cpu/avx512/avx512.h"
#include "cpu/ref/ref.h"
#include "cpu/stream.h"
#include "src/arith/bitstream.h"

#define FB512_INLINE static inline __attribute__((always_inline))

/* levels[q] for 16 codes q < 2^b; lv holds the 2^b levels (at least 16), 16 a register. */
FB512_INLINE __m512 backward_levels16(const __m512 *lv, uint32_t b, __m512i q) {
  __m512 r[8];
  uint32_t k, n;
  if (b <= 4) return _mm512_permutexvar_ps(q, lv[0]);
  n = 1u << (b - 5); /* pairs of registers: 32 levels each, by the code's low 5 bits */
  for (k = 0; k < n; k++) r[k] = _mm512_permutex2var_ps(lv[2 * k], q, lv[2 * k + 1]);
  for (k = 5; k < b; k++) { /* bit k of the code picks between neighbouring results */
    const __mmask16 hi = _mm512_test_epi32_mask(q, _mm512_set1_epi32(1 << k));
    uint32_t j;
    n >>= 1;
    for (j = 0; j < n; j++) r[j] = _mm512_mask_blend_ps(hi, r[2 * j], r[2 * j + 1]);
  }
  return r[0];
}

FB512_INLINE __m512 backward_load16(const void *x, actq_dtype dt, size_t i) {
  if (dt == ACTQ_F32) return _mm512_loadu_ps((const float *)x + i);
  {
    const __m256i h = _mm256_loadu_si256((const __m256i *)((const uint16_t *)x + i));
    if (dt == ACTQ_F16) return _mm512_cvtph_ps(h);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
}

/* 16 results (NaN already canonical) to y + i, streamed when nt (16-byte stores; the
 * address is then 16-byte aligned: cpu/stream.h). */
FB512_INLINE void backward_store16(void *y, actq_dtype dt, size_t i, __m512 v, int nt) {
  __m256i h;
  if (dt == ACTQ_F32) {
    if (nt) {
      actq_avx2_store8_nt(y, dt, i, _mm512_castps512_ps256(v), 1);
      actq_avx2_store8_nt(y, dt, i + 8, _mm256_castpd_ps(_mm512_extractf64x4_pd(
                                               _mm512_castps_pd(v), 1)), 1);
    } else {
      _mm512_storeu_ps((float *)y + i, v);
    }
    return;
  }
  if (dt == ACTQ_F16) {
    h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  } else {
    const __m512i x = _mm512_castps_si512(v);
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
    const __m512i t = _mm512_add_epi32(x, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff)));
    h = _mm512_cvtepi32_epi16(_mm512_srli_epi32(t, 16));
  }
  actq_avx2_store16h_nt((uint16_t *)y, i, h, nt);
}

FB512_INLINE void backward16_body(const actq_fewbit_job *job, size_t i0, size_t i1, const actq_dtype dt,
                          const uint32_t b, const int nt) {
  const float *levels = job->table->levels; /* 256 entries: whole registers can be read */
  const size_t stream_bytes = actq_stream_bytes(job->n, b);
  const __m512 cnan = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000));
  __m512 lv[16];
  size_t i = i0;
  uint32_t k;
  for (k = 0; k < (b <= 4 ? 1u : 1u << (b - 4)); k++) lv[k] = _mm512_loadu_ps(levels + 16 * k);
  for (; i + 32 <= i1; i += 32) {
    const size_t at = (i / 8) * b;
    int j;
    for (j = 0; j < 2; j++) {
      /* a unit may be read as 8 bytes where the stream has them */
      const size_t u = at + (size_t)(2 * j) * b, w = u + b;
      const __m512i q =
          b == 8 ? _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(job->codes_in + u)))
                 : _mm512_inserti64x4(_mm512_castsi256_si512(actq_avx2_unpack_unit(
                                          job->codes_in + u, b, u + 8 <= stream_bytes)),
                                      actq_avx2_unpack_unit(job->codes_in + w, b,
                                                            w + 8 <= stream_bytes),
                                      1);
      const size_t e = i + 16 * (size_t)j;
      __m512 v = _mm512_mul_ps(backward_load16(job->grad_out, dt, e), backward_levels16(lv, b, q));
      v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), cnan);
      backward_store16(job->grad_in, dt, e, v, nt);
    }
  }
  if (i < i1) actq_ref_fewbit_backward(job, i, i1);
}

#define BACKWARD16_DT(B)                                                                     \
  switch (dt) {                                                                            \
  case ACTQ_F32: backward16_body(job, i0, i1, ACTQ_F32, B, nt); break;                       \
  case ACTQ_F16: backward16_body(job, i0, i1, ACTQ_F16, B, nt); break;                       \
  default: backward16_body(job, i0, i1, ACTQ_BF16, B, nt); break;                            \
  }                                                                                        \
  break;

void actq_avx512_fewbit_backward(const actq_fewbit_job *job, size_t i0, size_t i1) {
  const actq_dtype dt = job->dtype;
  const int nt = actq_stream_ok(job->grad_in, job->n * actq_dtype_size(dt));
  switch (job->table->bits) {
  case 1: BACKWARD16_DT(1)
  case 2: BACKWARD16_DT(2)
  case 3: BACKWARD16_DT(3)
  case 4: BACKWARD16_DT(4)
  case 5: BACKWARD16_DT(5)
  case 6: BACKWARD16_DT(6)
  case 7: BACKWARD16_DT(7)
  default: BACKWARD16_DT(8)
  }
  if (nt) actq_stream_fence();
}
