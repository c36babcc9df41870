/* dequantize_avx512.c - y = fma(q, s, m) to bf16 and f16 at 6 to 8 bits, 16 lanes wide.
 * There the AVX2 kernel (cpu/avx2/dequantize_avx2.c) is bound by its arithmetic on cores
 * without AVX512_BF16 (docs/bench-cpu.md, "A second AVX-512 Xeon"): 8 lanes a vector and,
 * for bf16, the rounding in integer operations. Other outputs and widths keep the AVX2
 * kernel, which runs at the memory's speed; at 5 bits its table of the 32 outputs (16-bit
 * outputs) ran faster from memory than this kernel, which is faster in L2 (paired on the
 * Ice Lake Xeon: 0.92-0.94x at 2^26, 1.34x at 2^18).
 *
 * 16 codes (2b bytes) a step: vpermb gives each 32-bit lane the 4 stream bytes around its
 * code (actq_avx512_window16), which keeps its bits in place, q * 2^sh, sh = (i*b) % 8; the
 * scale is taken per lane as s * 2^-sh, so that the product inside the fma is still exactly
 * q*s (the AVX2 kernel's method; s * 2^-7 must then be exact: |s| >= 2^-119 or s = 0, and
 * at 8 bits every sh is 0). Smaller scales shift the codes down instead. bf16 is rounded
 * as actq_f32_to_bf16 (fma(q, s, m) of finite m and s is never NaN) and its 16 high
 * halves gathered by one vpermb; f16 by vcvtps2ph. Near the row's end a step reads only
 * the stream's bytes, and a group's last, partial step stores only its elements. */
#include <immintrin.h>
#include <math.h>

#include "src/arith/elem.h"
#include "src/arith/quant.h"
#include "cpu/avx2/avx2.h"
#include "cpu/avx2/elem_avx2.h"
#include "cpu/avx512/avx512.h"
#include "cpu/avx512/bits_tables_avx512.h"
#include "cpu/dequantize_instance.h"
#include "cpu/prefetch.h"
#include "cpu/stream.h"
#include "cpu/ref/ref.h"

#define INLINE static inline __attribute__((always_inline))

/* The 16 values of lanes y as bf16 (actq_f32_to_bf16 without its NaN case) or f16, in
 * order. */
INLINE __m256i to_h16(__m512 y, actq_dtype dt) {
  __m512i x;
  if (dt == ACTQ_F16) return _mm512_cvtps_ph(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  x = _mm512_castps_si512(y);
  x = _mm512_add_epi32(x, _mm512_add_epi32(_mm512_and_si512(_mm512_srli_epi32(x, 16),
                                                            _mm512_set1_epi32(1)),
                                           _mm512_set1_epi32(0x7fff)));
  return _mm512_castsi512_si256(
      _mm512_permutexvar_epi8(_mm512_load_si512((const void *)actq_avx512_high_halves16), x));
}

/* The codes of 16 elements from `in` in 32-bit lanes: q * 2^sh with `shifted` 0, else q.
 * `have`: the stream's bytes from `in` to the row's end; where fewer than 16, only those
 * are read (the step's 2b bytes, or the row's last codes). */
INLINE __m512i codes16(const uint8_t *in, size_t have, uint32_t b, __m512i keep, __m512i sh,
                       int shifted) {
  /* lanes read past the 16 bytes feed no code bit: any value */
  const __m512i src =
      have >= 16 ? _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)in))
                 : _mm512_maskz_loadu_epi8((__mmask64)(((uint64_t)1 << have) - 1u), in);
  const __m512i w =
      _mm512_permutexvar_epi8(_mm512_load_si512((const void *)actq_avx512_window16[b]), src);
  if (!shifted) return _mm512_and_si512(w, keep);
  return _mm512_and_si512(_mm512_srlv_epi32(w, sh), _mm512_set1_epi32((int)((1u << b) - 1u)));
}

INLINE void dequantize16_t(const actq_dequant_job *job, size_t r, size_t g0, size_t g1,
                           const uint8_t *row_packed, actq_dtype dt, uint32_t b, int nt,
                           size_t pf_bytes) {
  const actq_grid *gr = &job->grid;
  const size_t base = r * gr->cols;
  const uint8_t *row_end = row_packed + actq_stream_bytes(gr->cols, b);
  const __m512i sh = _mm512_load_si512((const void *)actq_avx512_window16_shift[b]);
  const __m512i keep = _mm512_sllv_epi32(_mm512_set1_epi32((int)((1u << b) - 1u)), sh);
  /* 2^-sh a lane */
  const __m512 p2 = _mm512_castsi512_ps(
      _mm512_slli_epi32(_mm512_sub_epi32(_mm512_set1_epi32(127), sh), 23));
  uint16_t *y16 = (uint16_t *)job->y;
  size_t gi, c;

  for (gi = g0; gi < g1; gi++) {
    const size_t c0 = actq_grid_group_begin(gr, gi), c1 = actq_grid_group_end(gr, gi);
    const uint8_t *in = row_packed + (c0 / 8) * b;
    float m, s;
    __m512 vm, vs;
    int shifted;
    actq_ref_group_meta(job, r, gi, &m, &s);
    if (!actq_f32_is_finite(m) || !actq_f32_is_finite(s)) {
      actq_ref_dequantize_groups(job, r, gi, gi + 1, row_packed);
      continue;
    }
    actq_prefetch_group_codes(in, row_end, pf_bytes);
    shifted = !(b == 8 || s == 0.0f || fabsf(s) >= 0x1p-119f);
    vm = _mm512_set1_ps(m);
    vs = shifted ? _mm512_set1_ps(s) : _mm512_mul_ps(_mm512_set1_ps(s), p2);
    for (c = c0; c + 16 <= c1; c += 16) {
      const __m512i q = codes16(in, (size_t)(row_end - in), b, keep, sh, shifted);
      actq_avx2_store16h_nt(y16, base + c, to_h16(_mm512_fmadd_ps(_mm512_cvtepi32_ps(q), vs, vm), dt),
                            nt);
      in += 2 * b;
    }
    if (c < c1) {
      const __m512i q = codes16(in, (size_t)(row_end - in), b, keep, sh, shifted);
      _mm512_mask_storeu_epi16(
          y16 + base + c, (__mmask32)((1u << (c1 - c)) - 1u),
          _mm512_castsi256_si512(to_h16(_mm512_fmadd_ps(_mm512_cvtepi32_ps(q), vs, vm), dt)));
    }
  }
}

/* one instance a dtype and width (cpu/dequantize_instance.h) */
#define INSTANCE(DT, B) ACTQ_DEQUANTIZE_INSTANCE(avx512_dequantize, dequantize16_t, DT, B)
INSTANCE(ACTQ_F16, 6) INSTANCE(ACTQ_F16, 7) INSTANCE(ACTQ_F16, 8)
INSTANCE(ACTQ_BF16, 6) INSTANCE(ACTQ_BF16, 7) INSTANCE(ACTQ_BF16, 8)

/* [bf16?][width - 6] */
static const actq_dequantize_instance_fn by_dtype_bits[2][3] = {
    {avx512_dequantize_ACTQ_F16_6, avx512_dequantize_ACTQ_F16_7, avx512_dequantize_ACTQ_F16_8},
    {avx512_dequantize_ACTQ_BF16_6, avx512_dequantize_ACTQ_BF16_7, avx512_dequantize_ACTQ_BF16_8}};

void actq_avx512_dequantize_groups(const actq_dequant_job *job, size_t r, size_t g0, size_t g1,
                                   const uint8_t *row_packed) {
  const actq_grid *gr = &job->grid;
  const uint32_t bits = actq_grid_row_bits(gr, r);
  int nt;
  if (job->y_dtype == ACTQ_F32 || bits < ACTQ_AVX512_DEQUANTIZE_MIN_BITS) {
    actq_avx2_dequantize_groups(job, r, g0, g1, row_packed);
    return;
  }
  /* the row's first element sets the alignment of every 16-element store of the row */
  nt = actq_stream_ok((const char *)job->y + r * gr->cols * 2, gr->rows * gr->cols * 2);
  by_dtype_bits[job->y_dtype == ACTQ_BF16][bits - ACTQ_AVX512_DEQUANTIZE_MIN_BITS](
      job, r, g0, g1, row_packed, nt);
  if (nt) actq_stream_fence();
}
