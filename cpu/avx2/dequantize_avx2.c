/* dequantize_avx2.c - y = fma(q, s, m) (AVX2 + FMA + F16C), compiled once per output dtype
 * and width so that the width's tables and constants fold.
 *
 * With finite m and s, fma(q, s, m) cannot be NaN (q*s is exact inside the fma), so the
 * vector paths need no NaN canonicalization; a group whose stored metadata is NaN or Inf
 * is rare and runs the reference kernel. Three vector paths, all giving the reference's
 * bits because each output is the same function of (q, m, s):
 *
 * - 16-bit outputs at b <= 5 look the results up: the group's 2^b values
 *   conv(fma(q, s, m)) are computed once (vector fma, then the exact conversion), split
 *   into a low-byte and a high-byte plane of 16 entries, and each block of 32 codes is
 *   decoded to bytes (bits_avx2.h) and looked up with two pshufb (at b = 5, 32 values in
 *   two pairs of planes: four pshufb and two blends on bit 4). On Zen 1 that is about 20
 *   micro-ops per 32 outputs (32 at b = 5), against about 70 for fma and a bf16 rounding
 *   per element.
 * - Otherwise 8 codes per vector: each 32-bit lane gets the 4 stream bytes around its code
 *   and keeps the code's bits in place, q * 2^sh with sh = (i*b) % 8, and the scale is
 *   taken per lane as s * 2^-sh: the product inside the fma is still exactly q*s, so the
 *   result is fma(q, s, m), without a variable shift (vpsrlvd is the slowest step on Zen
 *   1). That needs s * 2^-7 to be exact, so |s| >= 2^-119 or s = 0 (2^-118 where a
 *   code sits at bit 8); other scales shift.
 * - bf16 at b >= 5 takes 16 codes as even and odd elements, so that their words
 *   interleave into element order with word blends (bf16_round_eo).
 * The row's partial unit is the reference's.
 */
#include <immintrin.h>
#include <math.h>

#include "src/arith/elem.h"
#include "src/arith/quant.h"
#include "cpu/avx2/avx2.h"
#include "cpu/avx2/bits_avx2.h"
#include "cpu/avx2/elem_avx2.h"
#include "cpu/dequantize_instance.h"
#include "cpu/prefetch.h"
#include "cpu/stream.h"
#include "cpu/ref/ref.h"

/* Shortest group for the lookup path: building the two planes costs about as much as
 * looking up 32 outputs. */
#define LUT_MIN_ELEMS 64

/* The converted values of codes q_first .. q_first + 15 of the group: their low bytes in
 * the plane *lo, their high bytes in *hi, both halves alike. */
static inline __attribute__((always_inline)) void lut_planes(actq_dtype dt, __m256 vm, __m256 vs,
                                                             float q_first, __m256i *lo,
                                                             __m256i *hi) {
  const __m256 first = _mm256_set1_ps(q_first);
  const __m256 q0 = _mm256_add_ps(_mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7), first);
  const __m256 q1 = _mm256_add_ps(_mm256_setr_ps(8, 9, 10, 11, 12, 13, 14, 15), first);
  const __m128i sep = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
  __m256 y0 = _mm256_fmadd_ps(q0, vs, vm), y1 = _mm256_fmadd_ps(q1, vs, vm);
  __m128i w0, w1;
  if (dt == ACTQ_F16) {
    w0 = _mm256_cvtps_ph(y0, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    w1 = _mm256_cvtps_ph(y1, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  } else {
    w0 = actq_avx2_hi16_8(actq_avx2_bf16_round_hi(_mm256_castps_si256(y0)));
    w1 = actq_avx2_hi16_8(actq_avx2_bf16_round_hi(_mm256_castps_si256(y1)));
  }
  w0 = _mm_shuffle_epi8(w0, sep); /* low bytes of values 0-7, then their high bytes */
  w1 = _mm_shuffle_epi8(w1, sep);
  *lo = _mm256_broadcastsi128_si256(_mm_unpacklo_epi64(w0, w1));
  *hi = _mm256_broadcastsi128_si256(_mm_unpackhi_epi64(w0, w1));
}

/* 8 codes of one unit as q * 2^sh in 32-bit lanes (see the header). */
static inline __attribute__((always_inline)) __m256 unit_scaled_codes(const uint8_t *in,
                                                                      uint32_t b, int can_load8,
                                                                      __m256i keep) {
  return _mm256_cvtepi32_ps(_mm256_and_si256(actq_avx2_unit_windows(in, b, can_load8), keep));
}

/* bf16 of 8 even (e) and 8 odd (o) finite floats, 16 results in element order. The
 * halves are split into words first, high words h and low words l in element order (two
 * shifts, two blends), and the rounding of actq_f32_to_bf16 is done on 16 words at once:
 * h + 1 exactly when l + (h & 1) > 0x8000, i.e. (l ^ 0x8000) + (h & 1) > 0 as signed
 * words (saturating, so that l = 0xffff stays above). Five word operations for 16 results
 * instead of four dword operations for each 8. */
static inline __attribute__((always_inline)) __m256i bf16_round_eo(__m256i e, __m256i o) {
  __m256i h = _mm256_blend_epi16(_mm256_srli_epi32(e, 16), o, 0xaa);
  __m256i l = _mm256_blend_epi16(e, _mm256_slli_epi32(o, 16), 0xaa);
  __m256i up = _mm256_adds_epi16(_mm256_xor_si256(l, _mm256_set1_epi16((short)0x8000)),
                                 _mm256_and_si256(h, _mm256_set1_epi16(1)));
  return _mm256_sub_epi16(h, _mm256_cmpgt_epi16(up, _mm256_setzero_si256()));
}

/* 2^-sh for each lane's shift. */
static inline __m256 pow2_neg(__m256i sh) {
  return _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(127), sh), 23));
}

static inline __attribute__((always_inline)) void dequantize_groups_t(
    const actq_dequant_job *job, size_t r, size_t g0, size_t g1, const uint8_t *row_packed,
    actq_dtype dt, uint32_t bits, int nt, size_t pf_bytes) {
  const actq_grid *gr = &job->grid;
  const size_t base = r * gr->cols;
  const uint8_t *row_end = row_packed + actq_stream_bytes(gr->cols, bits);
  const __m256i cmask = _mm256_set1_epi32((int)((1u << bits) - 1u));
  const __m256i sh = _mm256_load_si256((const __m256i *)actq_avx2_unpack_shift[bits]);
  const __m256i keep = _mm256_sllv_epi32(cmask, sh);
  const __m256 p2 = pow2_neg(sh);
  /* bf16 at b >= 5: even and odd elements of 16 */
  const __m256i sh_e = _mm256_load_si256((const __m256i *)actq_avx2_eo_shift[bits][0]);
  const __m256i sh_o = _mm256_load_si256((const __m256i *)actq_avx2_eo_shift[bits][1]);
  const __m256i keep_e = _mm256_sllv_epi32(cmask, sh_e), keep_o = _mm256_sllv_epi32(cmask, sh_o);
  const __m256 p2_e = pow2_neg(sh_e), p2_o = pow2_neg(sh_o);
  /* y in a local: stores through it could alias *job, which gcc would then read again */
  void *const y = job->y;
  uint16_t *y16 = (uint16_t *)y;
  size_t gi, c, j;

  for (gi = g0; gi < g1; gi++) {
    const size_t c0 = actq_grid_group_begin(gr, gi), c1 = actq_grid_group_end(gr, gi);
    float m, s;
    const uint8_t *in = row_packed + (c0 / 8) * bits;
    __m256 vm, vs;
    actq_ref_group_meta(job, r, gi, &m, &s);
    if (!actq_f32_is_finite(m) || !actq_f32_is_finite(s)) {
      actq_ref_dequantize_groups(job, r, gi, gi + 1, row_packed);
      continue;
    }
    vm = _mm256_set1_ps(m);
    vs = _mm256_set1_ps(s);
    actq_prefetch_group_codes(in, row_end, pf_bytes);
    c = c0;
    if (dt != ACTQ_F32 && bits <= 5 && c1 - c0 >= LUT_MIN_ELEMS) {
      const size_t reach = actq_avx2_unpack32_units_reach(bits);
      __m256i lo, hi, lo1 = _mm256_setzero_si256(), hi1 = _mm256_setzero_si256();
      lut_planes(dt, vm, vs, 0.0f, &lo, &hi);
      if (bits == 5) lut_planes(dt, vm, vs, 16.0f, &lo1, &hi1);
      for (; c + 32 <= c1; c += 32) {
        __m256i q, a, b;
        if ((size_t)(row_end - in) >= reach) {
          q = actq_avx2_unpack32_units(in, bits);
        } else { /* the row's last bytes: a zero-padded copy, nothing past row_end read */
          uint8_t tmp[32] = {0};
          memcpy(tmp, in, 4 * bits);
          q = actq_avx2_unpack32_units(tmp, bits);
        }
        a = _mm256_shuffle_epi8(lo, q);
        b = _mm256_shuffle_epi8(hi, q);
        if (bits == 5) { /* codes 16-31 from the second planes: bit 4 moved to the sign */
          const __m256i upper = _mm256_slli_epi16(q, 3);
          a = _mm256_blendv_epi8(a, _mm256_shuffle_epi8(lo1, q), upper);
          b = _mm256_blendv_epi8(b, _mm256_shuffle_epi8(hi1, q), upper);
        }
        actq_avx2_store16h_nt(y16, base + c, _mm256_unpacklo_epi8(a, b), nt);
        actq_avx2_store16h_nt(y16, base + c + 16, _mm256_unpackhi_epi8(a, b), nt);
        in += 4 * bits;
      }
    }
    if (s == 0.0f || fabsf(s) >= (dt == ACTQ_BF16 && bits == 8 ? 0x1p-118f : 0x1p-119f)) {
      if (dt == ACTQ_BF16 && bits == 8) {
        /* the codes are bytes: a zero-extension of 16 bytes to words-in-dwords gives the
         * even code at bit 0 and the odd one at bit 8 of each lane (scale s * 2^-8) */
        const __m256 vs_o = _mm256_mul_ps(vs, _mm256_set1_ps(0x1p-8f));
        const __m256i lo8 = _mm256_set1_epi32(0xff), hi8 = _mm256_set1_epi32(0xff00);
        for (; c + 16 <= c1; c += 16) {
          __m256i x = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)in));
          __m256i e = _mm256_castps_si256(
              _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_and_si256(x, lo8)), vs, vm));
          __m256i o = _mm256_castps_si256(
              _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_and_si256(x, hi8)), vs_o, vm));
          actq_avx2_store16h_nt(y16, base + c, bf16_round_eo(e, o), nt);
          in += 16;
        }
      } else if (dt == ACTQ_BF16 && bits >= 5) {
        const __m256 vs_e = _mm256_mul_ps(vs, p2_e), vs_o = _mm256_mul_ps(vs, p2_o);
        const __m256i ie = _mm256_load_si256((const __m256i *)actq_avx2_eo_shuf[bits][0]);
        const __m256i io = _mm256_load_si256((const __m256i *)actq_avx2_eo_shuf[bits][1]);
        for (; c + 16 <= c1; c += 16) {
          __m256i src, e, o;
          if (row_end - in >= 16) {
            src = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)in));
          } else {
            uint8_t tmp[16] = {0};
            memcpy(tmp, in, 2 * bits);
            src = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)tmp));
          }
          e = _mm256_and_si256(_mm256_shuffle_epi8(src, ie), keep_e);
          o = _mm256_and_si256(_mm256_shuffle_epi8(src, io), keep_o);
          e = _mm256_castps_si256(_mm256_fmadd_ps(_mm256_cvtepi32_ps(e), vs_e, vm));
          o = _mm256_castps_si256(_mm256_fmadd_ps(_mm256_cvtepi32_ps(o), vs_o, vm));
          actq_avx2_store16h_nt(y16, base + c, bf16_round_eo(e, o), nt);
          in += 2 * bits;
        }
      }
      {
        const __m256 vsl = _mm256_mul_ps(vs, p2);
        for (; c + 8 <= c1; c += 8) {
          __m256 q = unit_scaled_codes(in, bits, in + 8 <= row_end, keep);
          actq_avx2_store8_nt(y, dt, base + c, _mm256_fmadd_ps(q, vsl, vm), nt);
          in += bits;
        }
      }
    } else { /* a scale this small is inexact times 2^-sh: shift the codes instead */
      for (; c + 8 <= c1; c += 8) {
        __m256i q = actq_avx2_unpack_unit(in, bits, in + 8 <= row_end);
        actq_avx2_store8_nt(y, dt, base + c, _mm256_fmadd_ps(_mm256_cvtepi32_ps(q), vs, vm),
                            nt);
        in += bits;
      }
    }
    if (c < c1) { /* the row's last, partial unit */
      uint32_t codes[8];
      actq_unpack_unit(in, c1 - c, bits, codes);
      for (j = 0; j < c1 - c; j++)
        actq_store_elem(y, dt, base + c + j, actq_dequant(codes[j], m, s));
    }
  }
}

/* one instance a dtype and width (cpu/dequantize_instance.h says why) */
#define INSTANCE(DT, B) ACTQ_DEQUANTIZE_INSTANCE(avx2_dequantize, dequantize_groups_t, DT, B)
#define INSTANCES(DT)                                                                         \
  INSTANCE(DT, 1) INSTANCE(DT, 2) INSTANCE(DT, 3) INSTANCE(DT, 4)                             \
  INSTANCE(DT, 5) INSTANCE(DT, 6) INSTANCE(DT, 7) INSTANCE(DT, 8)
INSTANCES(ACTQ_F32)
INSTANCES(ACTQ_F16)
INSTANCES(ACTQ_BF16)

#define WIDTHS(DT)                                                                            \
  {avx2_dequantize_##DT##_1, avx2_dequantize_##DT##_2, avx2_dequantize_##DT##_3,              \
   avx2_dequantize_##DT##_4, avx2_dequantize_##DT##_5, avx2_dequantize_##DT##_6,              \
   avx2_dequantize_##DT##_7, avx2_dequantize_##DT##_8}
/* [actq_dtype (F32 0, F16 1, BF16 2)][width - 1] */
static const actq_dequantize_instance_fn by_dtype_bits[3][8] = {
    WIDTHS(ACTQ_F32), WIDTHS(ACTQ_F16), WIDTHS(ACTQ_BF16)};

void actq_avx2_dequantize_groups(const actq_dequant_job *job, size_t r, size_t g0, size_t g1,
                                 const uint8_t *row_packed) {
  const actq_grid *gr = &job->grid;
  const size_t es = job->y_dtype == ACTQ_F32 ? 4 : 2;
  /* the row's first element sets the alignment of every 8-element store of the row */
  const int nt = actq_stream_ok((const char *)job->y + r * gr->cols * es, gr->rows * gr->cols * es);
  by_dtype_bits[job->y_dtype][actq_grid_row_bits(gr, r) - 1](job, r, g0, g1, row_packed, nt);
  if (nt) actq_stream_fence();
}
