/* fewbit_avx512.c - the few-bit kernels 16 lanes wide.
 *
 * Codes: the binary search of actq_fewbit_code with every level's bounds in
 * registers at every width. Level s compares x with bounds[(2l + 1) 2^(b-1-s) - 1] for
 * the l found so far and l becomes 2l + (that bound < x): levels 0-4 take their bound by
 * one vpermps from a 16-entry register, level 5 by vpermt2ps (32 bounds), levels 6 and 7
 * by 2 and 4 vpermt2ps and a tree of mask blends on l's high bits. No gather and no table
 * to build up to 6 bits (7-8 bits gather from the driver's 256 KiB code_lut in the AVX2
 * kernel, cheaper than levels 6 and 7 here); NaN compares false at every level, so its
 * code is 0 as the reference's. Each level's compare mask is one bit of every code (the
 * first the top bit), so at 1-4 bits the stream is those masks (fb_level_masks16)
 * deposited by pdep into the stream's bits (fb_store_planes32, fb_planes_word16), and only
 * wider codes are built as a vector, narrowed to bytes and packed. bf16 input at every width: the same search on
 * 16-bit keys, 32 lanes (fb_key_codes32; its planes at 1-2 bits), and no code_lut.
 *
 * y (fewbit_encode with y): the 16-lane activations of cpu/avx512/act_avx512.h, with the
 * codes in the same loop at 1-4 bits (yc16), else block by block before the block's codes
 * (see actq_avx512_fewbit_encode).
 *
 * Backward: grad_in = grad_out * levels[code]. The AVX2 kernel looks levels up with vpermps and blends up to 5 bits and with a gather
 * beyond (8 lanes a gather: the costliest step of the 8-bit backward). Here every width
 * stays in registers: the 2^b levels are 2^b / 16 zmm registers; vpermps serves up to 16
 * levels, vpermt2ps 32, and 6 to 8 bits take one vpermt2ps per 32 levels and a tree of
 * masked blends on the code's bits 5, 6 and 7 (at 8 bits: 8 + 7 operations for 16 lanes,
 * no memory access). bf16 results are rounded in 32-bit lanes (actq_f32_to_bf16: x +
 * 0x7fff + bit 16) and narrowed with vpmovdw; a NaN product is first replaced by the
 * canonical NaN, whose rounding gives the scalar code's 0x7fc0, so no NaN case remains.
 * bf16 at 7-8 bits looks the levels up as 16-bit halves on 32 lanes (backward_bf16_words).
 * The codes are unpacked 8 at a time by the AVX2 code (bits_avx2.h), 8-bit codes 16 at a
 * time by one zero-extension of their bytes. Fewer than 32
 * elements at the end of a range run the reference kernel. */
#include <immintrin.h>
#include <string.h>

#include "cpu/avx2/avx2.h"
#include "cpu/avx2/bits_avx2.h"
#include "cpu/avx2/elem_avx2.h"
#include "cpu/avx512/act_avx512.h"
#include "cpu/bf16_keys.h"
#include "cpu/avx512/avx512.h"
#include "cpu/ref/ref.h"
#include "cpu/prefetch.h"
#include "cpu/stream.h"
#include "src/arith/bitstream.h"
#include "src/arith/fewbit_elem.h"

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

FB512_INLINE __m512 fb_load16(const void *x, actq_dtype dt, size_t i) {
  if (dt == ACTQ_F32) return _mm512_loadu_ps((const float *)x + i);
  {
    const __m256i h = _mm256_loadu_si256((const __m256i *)((const uint16_t *)x + i));
    if (dt == ACTQ_F16) return _mm512_cvtph_ps(h);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
}

/* actq_f32_to_bf16 of 16 non-NaN (or canonical NaN) floats, in the low half of each dword:
 * x + 0x7fff + (bit 16 of x), shifted down */
FB512_INLINE __m512i fb_bf16_round(__m512 v) {
  const __m512i x = _mm512_castps_si512(v);
  const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
  return _mm512_srli_epi32(_mm512_add_epi32(x, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff))), 16);
}

/* AVX512_BF16's conversions (the avx512bf16 table's kernels, cvt = 1), written by their
 * encoding so that this file needs no -mavx512bf16 and the compiler emits them nowhere
 * else: cpu/isa.c has checked the CPU before any such kernel runs. They round as
 * fb_bf16_round, except that a denormal becomes a signed zero (Intel's pseudocode; the
 * callers take fb_bf16_round's path for vectors with a denormal lane). The emulated
 * AVX-512 build of the tests brings its own. */
#ifndef ACTQ_AVX512_BF16_CVT_DEFINED
/* hi's 16 rounded into the upper 256 bits, lo's into the lower */
FB512_INLINE __m512i fb_cvtne2ps_bf16(__m512 hi, __m512 lo) {
  __m512i r;
  __asm__("vcvtne2ps2bf16 %2, %1, %0" : "=v"(r) : "v"(hi), "v"(lo));
  return r;
}
FB512_INLINE __m256i fb_cvtneps_bf16(__m512 v) {
  __m256i r;
  __asm__("vcvtneps2bf16 %1, %0" : "=v"(r) : "v"(v));
  return r;
}
#endif

#define FB_DENORMAL 0x20 /* vfpclassps: denormal */

/* actq_f32_to_bf16 of 16 non-NaN (or canonical NaN) floats: by vcvtneps2bf16 when cvt and
 * no lane is denormal (one instruction for the five integer operations and the vpmovdw) */
FB512_INLINE __m256i fb_bf16_16(__m512 v, int cvt) {
  if (cvt && !_mm512_fpclass_ps_mask(v, FB_DENORMAL)) return fb_cvtneps_bf16(v);
  return _mm512_cvtepi32_epi16(fb_bf16_round(v));
}

/* 16 results (NaN already canonical) to y + i, streamed when nt (16-byte stores; the
 * address is then 16-byte aligned: cpu/stream.h); bf16 by fb_bf16_16. */
FB512_INLINE void fb_store16(void *y, actq_dtype dt, size_t i, __m512 v, int nt, int cvt) {
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
  if (dt == ACTQ_F16) h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  else h = fb_bf16_16(v, cvt);
  actq_avx2_store16h_nt((uint16_t *)y, i, h, nt);
}

/* 32 words in order to y + i, streamed when nt (as fb_store16) */
FB512_INLINE void fb_store32_words(void *y, size_t i, __m512i h, int nt) {
  if (!nt) {
    _mm512_storeu_si512((uint16_t *)y + i, h);
    return;
  }
  actq_avx2_store16h_nt((uint16_t *)y, i, _mm512_castsi512_si256(h), 1);
  actq_avx2_store16h_nt((uint16_t *)y, i + 16, _mm512_extracti64x4_epi64(h, 1), 1);
}

/* 32 results in order (NaN already canonical; v0: elements i to i + 15) to bf16 y + i by one
 * vcvtne2ps2bf16 where no lane is denormal, else by fb_bf16_16 twice (cvt tables only: one
 * instruction for 32 where vcvtneps2bf16 takes 16, whose zmm form measured no faster than
 * the integer rounding on Zen 4) */
FB512_INLINE void fb_store32_bf16_cvt(void *y, size_t i, __m512 v0, __m512 v1, int nt) {
  const __m512i h =
      !(_mm512_fpclass_ps_mask(v0, FB_DENORMAL) | _mm512_fpclass_ps_mask(v1, FB_DENORMAL))
          ? fb_cvtne2ps_bf16(v1, v0)
          : _mm512_inserti64x4(_mm512_castsi256_si512(fb_bf16_16(v0, 0)), fb_bf16_16(v1, 0), 1);
  fb_store32_words(y, i, h, nt);
}

/* 32 bf16 of x + i as two float vectors: each 128-bit lane's words 0-3 go to *lo, 4-7 to
 * *hi (a bf16 in the high half of a dword is its float), the order fb_store32_bf16 undoes */
FB512_INLINE void fb_unpack32_bf16(__m512i h, __m512 *lo, __m512 *hi) {
  const __m512i zero = _mm512_setzero_si512();
  *lo = _mm512_castsi512_ps(_mm512_unpacklo_epi16(zero, h));
  *hi = _mm512_castsi512_ps(_mm512_unpackhi_epi16(zero, h));
}

FB512_INLINE void fb_load32_bf16(const void *x, size_t i, __m512 *lo, __m512 *hi) {
  fb_unpack32_bf16(_mm512_loadu_si512((const uint16_t *)x + i), lo, hi);
}

/* fb_load32_bf16's halves (NaN already canonical), rounded, back to y + i: vpackusdw puts
 * each lane's 4 + 4 words back in order (no saturation: the values are below 2^16); with
 * cvt and no denormal lane, one vcvtne2ps2bf16 and a vpermq of its quadwords (lo's words
 * 0-3 of each 128-bit lane, then hi's) for the ten integer operations and the pack */
FB512_INLINE void fb_store32_bf16(void *y, size_t i, __m512 lo, __m512 hi, int nt, int cvt) {
  const __m512i h =
      cvt && !(_mm512_fpclass_ps_mask(lo, FB_DENORMAL) | _mm512_fpclass_ps_mask(hi, FB_DENORMAL))
          ? _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 4, 1, 5, 2, 6, 3, 7),
                                     fb_cvtne2ps_bf16(hi, lo))
          : _mm512_packus_epi32(fb_bf16_round(lo), fb_bf16_round(hi));
  fb_store32_words(y, i, h, nt);
}

/* bf16 at 7-8 bits: 32 lanes of 16-bit words. Each level's float splits into its high and
 * low words; each half is looked up from registers of 32 words by two vpermt2w and a blend
 * on the code's bit 6 (7 bits) or four and a blend tree on bits 6 and 7 (8 bits): half the
 * permutes of the float lookup for the same 32 elements. (At 5-6 bits the codes'
 * conversion to words cost more than the permutes it saved: 0.82-1.0x, paired.)
 * vpunpck{l,h}wd rebuild the floats in fb_load32_bf16's order, so grad_out and grad_in
 * move as 32 bf16 at a time. */
typedef struct fb_level_words {
  __m512i hi[8], lo[8];
} fb_level_words;

static void fb_level_words_init(fb_level_words *lw, const float *levels) {
  uint16_t hi[256], lo[256];
  uint32_t k, u;
  for (k = 0; k < 256; k++) { /* 256 entries in every table (the driver's) */
    memcpy(&u, levels + k, 4);
    hi[k] = (uint16_t)(u >> 16);
    lo[k] = (uint16_t)u;
  }
  for (k = 0; k < 8; k++) {
    lw->hi[k] = _mm512_loadu_si512(hi + 32 * k);
    lw->lo[k] = _mm512_loadu_si512(lo + 32 * k);
  }
}

/* t[code] for 32 codes c of b = 7 or 8 bits; b6, b7: the codes' bits 6 and 7 */
FB512_INLINE __m512i fb_lookup_words(const __m512i *t, uint32_t b, __m512i c, __mmask32 b6,
                                     __mmask32 b7) {
  if (b == 7)
    return _mm512_mask_blend_epi16(b6, _mm512_permutex2var_epi16(t[0], c, t[1]),
                                   _mm512_permutex2var_epi16(t[2], c, t[3]));
  return _mm512_mask_blend_epi16(
      b7,
      _mm512_mask_blend_epi16(b6, _mm512_permutex2var_epi16(t[0], c, t[1]),
                              _mm512_permutex2var_epi16(t[2], c, t[3])),
      _mm512_mask_blend_epi16(b6, _mm512_permutex2var_epi16(t[4], c, t[5]),
                              _mm512_permutex2var_epi16(t[6], c, t[7])));
}

/* The 16 codes of elements [i, i + 16) (i a multiple of 16) as dwords, in order: two units
 * of 8, each read as 8 bytes where the stream has them; 8-bit codes are their bytes. */
FB512_INLINE __m512i fb_code_dwords16(const uint8_t *codes, size_t i, uint32_t b,
                                      size_t stream_bytes) {
  const size_t u = (i / 8) * b, w = u + b;
  if (b == 8) return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(codes + u)));
  return _mm512_inserti64x4(
      _mm512_castsi256_si512(actq_avx2_unpack_unit(codes + u, b, u + 8 <= stream_bytes)),
      actq_avx2_unpack_unit(codes + w, b, w + 8 <= stream_bytes), 1);
}

/* The 32 codes of elements [i, i + 32) as words, in order */
FB512_INLINE __m512i fb_code_words32(const uint8_t *codes, size_t i, uint32_t b,
                                     size_t stream_bytes) {
  if (b == 8) return _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(codes + i)));
  return _mm512_inserti64x4(
      _mm512_castsi256_si512(_mm512_cvtepi32_epi16(fb_code_dwords16(codes, i, b, stream_bytes))),
      _mm512_cvtepi32_epi16(fb_code_dwords16(codes, i + 16, b, stream_bytes)), 1);
}

FB512_INLINE void backward_bf16_words(const actq_fewbit_job *job, size_t i0, size_t i1,
                                      const uint32_t b, const int nt, const int cvt) {
  const __m512 cnan = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000));
  const size_t stream_bytes = actq_stream_bytes(job->n, b);
  const uint8_t *const codes = job->codes_in;
  const void *const gout = job->grad_out;
  void *const gin = job->grad_in;
  fb_level_words lw;
  size_t i;
  fb_level_words_init(&lw, job->table->levels);
  for (i = i0; i + 32 <= i1; i += 32) {
    const __m512i c = fb_code_words32(codes, i, b, stream_bytes);
    const __mmask32 b6 = _mm512_test_epi16_mask(c, _mm512_set1_epi16(64));
    const __mmask32 b7 = _mm512_test_epi16_mask(c, _mm512_set1_epi16(128));
    const __m512i hi = fb_lookup_words(lw.hi, b, c, b6, b7);
    const __m512i lo = fb_lookup_words(lw.lo, b, c, b6, b7);
    __m512 g0, g1, v0, v1;
    fb_load32_bf16(gout, i, &g0, &g1);
    v0 = _mm512_mul_ps(g0, _mm512_castsi512_ps(_mm512_unpacklo_epi16(lo, hi)));
    v1 = _mm512_mul_ps(g1, _mm512_castsi512_ps(_mm512_unpackhi_epi16(lo, hi)));
    v0 = _mm512_mask_mov_ps(v0, _mm512_cmp_ps_mask(v0, v0, _CMP_UNORD_Q), cnan);
    v1 = _mm512_mask_mov_ps(v1, _mm512_cmp_ps_mask(v1, v1, _CMP_UNORD_Q), cnan);
    fb_store32_bf16(gin, i, v0, v1, nt, cvt);
  }
  if (i < i1) actq_ref_fewbit_backward(job, i, i1);
}

FB512_INLINE void backward16_body(const actq_fewbit_job *job, size_t i0, size_t i1, const actq_dtype dt,
                          const uint32_t b, const int nt, const int cvt) {
  const float *levels = job->table->levels; /* 256 entries: whole registers can be read */
  const size_t stream_bytes = actq_stream_bytes(job->n, b);
  const __m512 cnan = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000));
  __m512 lv[16];
  size_t i = i0;
  uint32_t k;
  if (dt == ACTQ_BF16 && b >= 7) {
    backward_bf16_words(job, i0, i1, b, nt, cvt);
    return;
  }
  for (k = 0; k < (b <= 4 ? 1u : 1u << (b - 4)); k++) lv[k] = _mm512_loadu_ps(levels + 16 * k);
  for (; i + 32 <= i1; i += 32) {
    __m512 v[2];
    int j;
    for (j = 0; j < 2; j++) {
      const size_t e = i + 16 * (size_t)j;
      const __m512i q = fb_code_dwords16(job->codes_in, e, b, stream_bytes);
      v[j] = _mm512_mul_ps(fb_load16(job->grad_out, dt, e), backward_levels16(lv, b, q));
      v[j] = _mm512_mask_mov_ps(v[j], _mm512_cmp_ps_mask(v[j], v[j], _CMP_UNORD_Q), cnan);
      if (!(dt == ACTQ_BF16 && cvt)) fb_store16(job->grad_in, dt, e, v[j], nt, 0);
    }
    if (dt == ACTQ_BF16 && cvt) fb_store32_bf16_cvt(job->grad_in, i, v[0], v[1], nt);
  }
  if (i < i1) actq_ref_fewbit_backward(job, i, i1);
}

/* ---- codes ------------------------------------------------------------------------- */

/* The bounds of the search's levels (see the header): level s < 5 in one register (its
 * 2^s entries repeated), level 5 in two, level 6 in four, level 7 in eight. */
typedef struct fb_tree16 {
  __m512 lv[5], l5[2], l6[4], l7[8];
  __m512 l1[2]; /* level 1's two bounds, each in every lane (fb_level_masks16) */
} fb_tree16;

static void fb_tree16_init(fb_tree16 *tr, const float *bounds, uint32_t b) {
  float lv[8][128];
  uint32_t s, l, k;
  memset(lv, 0, sizeof lv);
  for (s = 0; s < b; s++)
    for (l = 0; l < 128; l++) /* entries past 2^s repeat the level */
      lv[s][l] = bounds[actq_fewbit_level_bound(b, s, l % (1u << s))];
  for (s = 0; s < 5; s++) tr->lv[s] = _mm512_loadu_ps(lv[s]);
  for (k = 0; k < 2; k++) tr->l1[k] = _mm512_set1_ps(lv[1][k]);
  for (k = 0; k < 2; k++) tr->l5[k] = _mm512_loadu_ps(lv[5] + 16 * k);
  for (k = 0; k < 4; k++) tr->l6[k] = _mm512_loadu_ps(lv[6] + 16 * k);
  for (k = 0; k < 8; k++) tr->l7[k] = _mm512_loadu_ps(lv[7] + 16 * k);
}

/* r[j] <- r[2j] or r[2j+1] by bit `bit` of l, for n results */
FB512_INLINE void fb_halve(__m512 *r, uint32_t n, __m512i l, int bit) {
  const __mmask16 hi = _mm512_test_epi32_mask(l, _mm512_set1_epi32(1 << bit));
  uint32_t j;
  for (j = 0; j < n; j++) r[j] = _mm512_mask_blend_ps(hi, r[2 * j], r[2 * j + 1]);
}

FB512_INLINE __m512i fb_codes16(const fb_tree16 *tr, uint32_t b, __m512 x) {
  const __m512i one = _mm512_set1_epi32(1);
  __m512i l = _mm512_maskz_mov_epi32(_mm512_cmp_ps_mask(tr->lv[0], x, _CMP_LT_OQ), one);
  uint32_t s;
  for (s = 1; s < b; s++) {
    __m512 bound, r[4];
    if (s < 5) {
      bound = _mm512_permutexvar_ps(l, tr->lv[s]);
    } else if (s == 5) {
      bound = _mm512_permutex2var_ps(tr->l5[0], l, tr->l5[1]);
    } else if (s == 6) {
      r[0] = _mm512_permutex2var_ps(tr->l6[0], l, tr->l6[1]);
      r[1] = _mm512_permutex2var_ps(tr->l6[2], l, tr->l6[3]);
      fb_halve(r, 1, l, 5);
      bound = r[0];
    } else {
      uint32_t k;
      for (k = 0; k < 4; k++) r[k] = _mm512_permutex2var_ps(tr->l7[2 * k], l, tr->l7[2 * k + 1]);
      fb_halve(r, 2, l, 5);
      fb_halve(r, 1, l, 6);
      bound = r[0];
    }
    l = _mm512_add_epi32(l, l);
    l = _mm512_mask_add_epi32(l, _mm512_cmp_ps_mask(bound, x, _CMP_LT_OQ), l, one);
  }
  return l;
}

/* The bits of v, lowest first, to the set bits of mask, lowest first (BMI2's pdep). */
FB512_INLINE uint64_t fb_pdep64(uint64_t v, uint64_t mask) {
#ifdef __BMI2__
  return _pdep_u64(v, mask);
#else /* the emulated build (tests): bit by bit */
  uint64_t r = 0, bit;
  for (bit = 1; mask; bit += bit) {
    if (v & bit) r |= mask & -mask;
    mask &= mask - 1;
  }
  return r;
#endif
}

/* The stream of 32 codes of 1 or 2 bits from their bit planes: hi holds each code's top
 * bit (the search's first compare), lo its low bit (the second; unused at 1 bit), bit j
 * for element j. At 2 bits element j's code is bits 2j (low) and 2j + 1 of the word, so
 * the planes interleave: two pdep. The word goes to out as 4b bytes, all of them the
 * codes', so no store reaches past them. */
FB512_INLINE void fb_store_planes32(uint8_t *out, uint32_t b, uint32_t hi, uint32_t lo) {
  if (b == 1) {
    memcpy(out, &hi, 4);
  } else {
    const uint64_t w = fb_pdep64(hi, 0xaaaaaaaaaaaaaaaaull) | fb_pdep64(lo, 0x5555555555555555ull);
    memcpy(out, &w, 8);
  }
}

/* 1-4 bits: the compare mask of each level s < b of the search for 16 x (fb_codes16's
 * compares, without building the codes): bit j of m[s] is bit b - 1 - s of element j's
 * code. Level 1's bound is a blend of its two by level 0's mask; from level 2 on, the
 * index l as in fb_codes16 (not the last level's, which no permute reads). */
FB512_INLINE void fb_level_masks16(const fb_tree16 *tr, uint32_t b, __m512 x, __mmask16 *m) {
  const __m512i one = _mm512_set1_epi32(1);
  __m512i l;
  uint32_t s;
  m[0] = _mm512_cmp_ps_mask(tr->lv[0], x, _CMP_LT_OQ);
  if (b < 2) return;
  m[1] = _mm512_cmp_ps_mask(_mm512_mask_blend_ps(m[0], tr->l1[0], tr->l1[1]), x, _CMP_LT_OQ);
  l = _mm512_maskz_mov_epi32(m[0], one); /* level 1's index */
  for (s = 2; s < b; s++) {
    l = _mm512_mask_add_epi32(_mm512_add_epi32(l, l), m[s - 1], _mm512_add_epi32(l, l), one);
    m[s] = _mm512_cmp_ps_mask(_mm512_permutexvar_ps(l, tr->lv[s]), x, _CMP_LT_OQ);
  }
}

/* 3 and 4 bits: the stream word of 16 codes (16 b bits), level s's mask deposited as bit
 * b - 1 - s of every b-bit field */
FB512_INLINE uint64_t fb_plane_bits16(uint32_t b, uint32_t s) {
  uint64_t m = 0;
  uint32_t j;
  for (j = 0; j < 16; j++) m |= 1ull << (j * b + (b - 1 - s));
  return m;
}

/* The stream word of the 16 codes whose level masks are bits shift to shift + 15 of m[s] */
FB512_INLINE uint64_t fb_masks_word16(uint32_t b, const uint32_t *m, uint32_t shift) {
  uint64_t w = 0;
  uint32_t s;
  for (s = 0; s < b; s++) w |= fb_pdep64((m[s] >> shift) & 0xffffu, fb_plane_bits16(b, s));
  return w;
}

FB512_INLINE uint64_t fb_planes_word16(const fb_tree16 *tr, uint32_t b, __m512 x) {
  __mmask16 m[4];
  uint32_t m32[4];
  uint32_t s;
  fb_level_masks16(tr, b, x, m);
  for (s = 0; s < b; s++) m32[s] = m[s];
  return fb_masks_word16(b, m32, 0);
}

/* 32 codes of 3 or 4 bits (4b bytes) from the words of their two halves. 4 bits: two
 * 8-byte stores, 8-byte aligned in the stream. 3 bits: 12 bytes at a stride of 12, where
 * an 8-byte and a 4-byte store straddled cache lines often enough to run at 0.63x of the
 * byte path from memory (2^26), so one 16-byte store where `room` bytes may be written
 * (its last 4 bytes are rewritten by the next store in order). */
FB512_INLINE void fb_store_words32(uint8_t *out, uint32_t b, uint64_t w0, uint64_t w1,
                                   size_t room) {
  const uint64_t lo = b == 4 ? w0 : w0 | w1 << 48, hi = b == 4 ? w1 : w1 >> 16;
  if (b == 3 && room >= 16) {
    _mm_storeu_si128((__m128i *)out, _mm_set_epi64x((long long)hi, (long long)lo));
  } else {
    memcpy(out, &lo, 8);
    memcpy(out + 8, &hi, 4 * b - 8);
  }
}

/* nan with -1 in the lanes where x0 or x1 is NaN: a vector register, because a mask
 * accumulator went through a general register every iteration (gcc 12) */
FB512_INLINE __m512i fb_nan_lanes(__m512i nan, __m512 x0, __m512 x1) {
  return _mm512_mask_mov_epi32(nan, _mm512_cmp_ps_mask(x0, x1, _CMP_UNORD_Q),
                               _mm512_set1_epi32(-1));
}

/* 32 codes of 1 or 2 bits, of x0 (elements 0-15) and x1 (16-31), to out as bit planes */
FB512_INLINE void fb_planes32_store(const fb_tree16 *tr, uint32_t b, __m512 x0, __m512 x1,
                                    uint8_t *out) {
  __mmask16 m0[2] = {0, 0}, m1[2] = {0, 0};
  fb_level_masks16(tr, b, x0, m0);
  fb_level_masks16(tr, b, x1, m1);
  fb_store_planes32(out, b, (uint32_t)m1[0] << 16 | m0[0], (uint32_t)m1[1] << 16 | m0[1]);
}

/* The codes of [i0, i1), i1 <= range_end, the end of this thread's range; tr from
 * fb_tree16_init of the table. 1-4 bits store bit planes (fb_store_planes32,
 * fb_store_words32), wider codes are narrowed to bytes and packed. */
FB512_INLINE size_t encode16_body(const actq_fewbit_job *job, const fb_tree16 *tree, size_t i0,
                                  size_t i1, size_t range_end, const actq_dtype dt,
                                  const uint32_t b) {
  /* bytes of the stream up to the range's end: store_pack32 may write ahead up to there
   * (later blocks of the range rewrite them), never into another thread's range */
  const size_t range_bytes = actq_stream_bytes(range_end, b);
  /* local copies: the code stores (bytes, which may alias anything) would otherwise make
   * the loop reload the tree and the job's pointers after every store */
  const fb_tree16 local = *tree, *tr = &local;
  const void *const x = job->x;
  uint8_t *const codes = job->codes;
  const size_t es = actq_dtype_size(dt), x_bytes = job->n * es;
  size_t i = i0;
  __m512i nan = _mm512_setzero_si512(); /* fb_nan_lanes */
  for (; i + 32 <= i1; i += 32) {
    const __m512 x0 = fb_load16(x, dt, i), x1 = fb_load16(x, dt, i + 16);
    actq_prefetch_stream(x, i * es, 32 * es, x_bytes);
    nan = fb_nan_lanes(nan, x0, x1);
    if (b <= 2) {
      fb_planes32_store(tr, b, x0, x1, codes + (i / 8) * b);
    } else if (b <= 4) {
      fb_store_words32(codes + (i / 8) * b, b, fb_planes_word16(tr, b, x0),
                       fb_planes_word16(tr, b, x1), range_bytes - (i / 8) * b);
    } else {
      const __m256i bytes = _mm256_inserti128_si256(
          _mm256_castsi128_si256(_mm512_cvtepi32_epi8(fb_codes16(tr, b, x0))),
          _mm512_cvtepi32_epi8(fb_codes16(tr, b, x1)), 1);
      actq_avx2_store_pack32(codes + (i / 8) * b, actq_avx2_pack32(bytes, b), b, 4 * b,
                             range_bytes - (i / 8) * b);
    }
  }
  return (_mm512_test_epi32_mask(nan, nan) != 0) +
         (i < i1 ? actq_ref_fewbit_encode(job, i, i1) : 0);
}

/* bf16 codes at every width: 32 elements a vector as 16-bit keys (cpu/bf16_keys.h), the
 * binary search of fb_codes16 on words: level s compares with the key of its bound, taken
 * from registers: by vpermw from 32 words up to level 5 (2^s <= 32 candidates), by
 * vpermt2w from 64 at level 6, and at level 7 two vpermt2w and a blend on bit 6 of the
 * index. No widening to float32, twice the lanes of the float search, and no code_lut
 * (the AVX-512 table's fewbit_no_code_lut). */
typedef struct fb_keys32 {
  __m512i lv[6], l6[2], l7[4];
  __m512i l1[2]; /* level 1's two keys, each in every lane (fb_key_planes32 at 2 bits) */
} fb_keys32;

static void fb_keys32_init(fb_keys32 *kt, const float *bounds, uint32_t b) {
  uint16_t lv[8][128];
  uint32_t s, l, k;
  memset(lv, 0, sizeof lv);
  for (s = 0; s < b; s++)
    for (l = 0; l < 128; l++) /* entries past 2^s repeat the level */
      lv[s][l] = actq_bf16_floor_key(bounds[actq_fewbit_level_bound(b, s, l % (1u << s))]);
  for (s = 0; s < 6; s++) kt->lv[s] = _mm512_loadu_si512(lv[s]);
  for (k = 0; k < 2; k++) kt->l1[k] = _mm512_set1_epi16((short)lv[1][k]);
  for (k = 0; k < 2; k++) kt->l6[k] = _mm512_loadu_si512(lv[6] + 32 * k);
  for (k = 0; k < 4; k++) kt->l7[k] = _mm512_loadu_si512(lv[7] + 32 * k);
}

/* 32 codes (words) of 32 bf16 values h; *nan counts their NaNs, whose code is 0 */
FB512_INLINE __m512i fb_key_codes32(const fb_keys32 *kt, uint32_t b, __m512i h, size_t *nan) {
  const __m512i low15 = _mm512_set1_epi16(0x7fff), one = _mm512_set1_epi16(1);
  const __m512i k = _mm512_xor_si512(h, _mm512_and_si512(_mm512_srai_epi16(h, 15), low15));
  const __mmask32 isnan =
      _mm512_cmpgt_epi16_mask(_mm512_and_si512(h, low15), _mm512_set1_epi16(0x7f80));
  const __mmask32 m0 = _mm512_cmpgt_epi16_mask(k, kt->lv[0]);
  __m512i l = _mm512_maskz_mov_epi16(m0, one);
  uint32_t s;
  for (s = 1; s < b; s++) {
    __m512i bound;
    if (s == 1) { /* level 1: a blend of its two bounds by level 0's mask, no permute */
      bound = _mm512_mask_blend_epi16(m0, kt->l1[0], kt->l1[1]);
    } else if (s < 6) {
      bound = _mm512_permutexvar_epi16(l, kt->lv[s]);
    } else if (s == 6) {
      bound = _mm512_permutex2var_epi16(kt->l6[0], l, kt->l6[1]);
    } else {
      const __mmask32 hi = _mm512_test_epi16_mask(l, _mm512_set1_epi16(1 << 6));
      bound = _mm512_mask_blend_epi16(hi, _mm512_permutex2var_epi16(kt->l7[0], l, kt->l7[1]),
                                      _mm512_permutex2var_epi16(kt->l7[2], l, kt->l7[3]));
    }
    l = _mm512_add_epi16(l, l);
    l = _mm512_mask_add_epi16(l, _mm512_cmpgt_epi16_mask(k, bound), l, one);
  }
  *nan += (size_t)__builtin_popcount((unsigned)isnan);
  return _mm512_maskz_mov_epi16((__mmask32)~isnan, l);
}

/* The NaN lanes of 32 bf16 values h (their codes are 0) */
FB512_INLINE __mmask32 fb_key_nan32(__m512i h) {
  return _mm512_cmpgt_epi16_mask(_mm512_and_si512(h, _mm512_set1_epi16(0x7fff)),
                                 _mm512_set1_epi16(0x7f80));
}

/* 1-4 bits: the compare mask of each level s < b of fb_key_codes32's search for 32 bf16
 * values h, as fb_level_masks16 (level 1's key a blend of its two by level 0's mask, later
 * levels' by vpermw), each compare under `ok`. Callers clear the NaN lanes: at 1-2 bits by
 * ok (k registers), at 3-4 bits with ok all ones and the NaN mask cleared on the way to
 * pdep; each the faster there, paired. */
FB512_INLINE void fb_key_level_masks32(const fb_keys32 *kt, uint32_t b, __m512i h, __mmask32 ok,
                                       __mmask32 *m) {
  const __m512i low15 = _mm512_set1_epi16(0x7fff), one = _mm512_set1_epi16(1);
  const __m512i k = _mm512_xor_si512(h, _mm512_and_si512(_mm512_srai_epi16(h, 15), low15));
  __m512i l;
  uint32_t s;
  m[0] = _mm512_mask_cmpgt_epi16_mask(ok, k, kt->lv[0]);
  if (b < 2) return;
  m[1] = _mm512_mask_cmpgt_epi16_mask(ok, k, _mm512_mask_blend_epi16(m[0], kt->l1[0], kt->l1[1]));
  l = _mm512_maskz_mov_epi16(m[0], one); /* level 1's index */
  for (s = 2; s < b; s++) {
    l = _mm512_mask_add_epi16(_mm512_add_epi16(l, l), m[s - 1], _mm512_add_epi16(l, l), one);
    m[s] = _mm512_mask_cmpgt_epi16_mask(ok, k, _mm512_permutexvar_epi16(l, kt->lv[s]));
  }
}

/* 1 or 2 bits: the top plane of 32 bf16 codes, NaN lanes 0; *lo the second level's (2
 * bits; else 0); *nan grows when some h is NaN */
FB512_INLINE __mmask32 fb_key_planes32(const fb_keys32 *kt, uint32_t b, __m512i h,
                                       __mmask32 *lo, size_t *nan) {
  __mmask32 m[2] = {0, 0};
  const __mmask32 isnan = fb_key_nan32(h);
  fb_key_level_masks32(kt, b, h, (__mmask32)~isnan, m);
  *lo = m[1];
  *nan += (size_t)(isnan != 0);
  return m[0];
}

/* 3 or 4 bits: the codes of 32 bf16 values h, NaN lanes 0, stored from their bit planes as
 * the float search's (fb_planes_word16, fb_store_words32; room as there); *nan grows when
 * some h is NaN */
FB512_INLINE void fb_key_words32_store(const fb_keys32 *kt, uint32_t b, __m512i h, uint8_t *out,
                                       size_t room, size_t *nan) {
  __mmask32 mk[4];
  uint32_t m[4], s;
  const uint32_t isnan = fb_key_nan32(h);
  fb_key_level_masks32(kt, b, h, (__mmask32)~0u, mk);
  for (s = 0; s < b; s++) m[s] = (uint32_t)mk[s] & ~isnan;
  *nan += isnan != 0;
  fb_store_words32(out, b, fb_masks_word16(b, m, 0), fb_masks_word16(b, m, 16), room);
}

/* 1-4 bits: the codes of 32 bf16 values h, stored from their bit planes (1-2 bits:
 * fb_store_planes32; 3-4: fb_key_words32_store, room as there); *nan as there */
FB512_INLINE void fb_key_planes32_store(const fb_keys32 *kt, uint32_t b, __m512i h, uint8_t *out,
                                        size_t room, size_t *nan) {
  if (b <= 2) {
    __mmask32 lo;
    const __mmask32 hi = fb_key_planes32(kt, b, h, &lo, nan);
    fb_store_planes32(out, b, (uint32_t)hi, (uint32_t)lo);
  } else {
    fb_key_words32_store(kt, b, h, out, room, nan);
  }
}

/* The bf16 codes of [i0, i1), i1 <= range_end (as encode16_body) */
FB512_INLINE size_t encode_keys32_body(const actq_fewbit_job *job, const fb_keys32 *keys,
                                       size_t i0, size_t i1, size_t range_end,
                                       const uint32_t b) {
  const size_t range_bytes = actq_stream_bytes(range_end, b);
  const fb_keys32 local = *keys, *kt = &local; /* as encode16_body's copies */
  const uint16_t *const x = (const uint16_t *)job->x;
  uint8_t *const codes = job->codes;
  size_t i = i0, nan = 0;
  for (; i + 32 <= i1; i += 32) {
    const __m512i h = _mm512_loadu_si512((const void *)(x + i));
    actq_prefetch_stream(x, 2 * i, 64, 2 * job->n);
    if (b <= 4) {
      fb_key_planes32_store(kt, b, h, codes + (i / 8) * b, range_bytes - (i / 8) * b, &nan);
    } else {
      const __m512i c = fb_key_codes32(kt, b, h, &nan);
      actq_avx2_store_pack32(codes + (i / 8) * b, actq_avx2_pack32(_mm512_cvtepi16_epi8(c), b),
                             b, 4 * b, range_bytes - (i / 8) * b);
    }
  }
  return nan + (i < i1 ? actq_ref_fewbit_encode(job, i, i1) : 0);
}

/* What the codes pass searches with: the bounds' keys (bf16), the float tree
 * (other calls without the code_lut), or neither (the code_lut). */
typedef struct fb_search {
  int keys;
  fb_keys32 kt;
  fb_tree16 tr;
} fb_search;

static void fb_search_init(fb_search *sr, const actq_fewbit_job *job) {
  const uint32_t b = job->table->bits;
  sr->keys = job->dtype == ACTQ_BF16;
  if (sr->keys) fb_keys32_init(&sr->kt, job->table->bounds, b);
  else if (!job->code_lut) fb_tree16_init(&sr->tr, job->table->bounds, b);
}

#define ENCODE16_DT(B)                                                                     \
  switch (dt) {                                                                            \
  case ACTQ_F32: return encode16_body(job, &sr->tr, i0, i1, range_end, ACTQ_F32, B);           \
  case ACTQ_F16: return encode16_body(job, &sr->tr, i0, i1, range_end, ACTQ_F16, B);           \
  default: return encode16_body(job, &sr->tr, i0, i1, range_end, ACTQ_BF16, B);                \
  }

/* The codes of [i0, i1) (job->y is not written), by width; at 7-8 bits with the driver's
 * code_lut (fewbit_code_lut_min_bits) the AVX2 kernel, whose one gather a vector costs less
 * than the 10-16 permutes and blends of those levels (all on one port on Intel). Out of line, as y16: scripts/cpu-model
 * finds their loops by the function's name. */
static __attribute__((noinline)) size_t encode16_codes(const actq_fewbit_job *job,
                                                       const fb_search *sr, size_t i0,
                                                       size_t i1, size_t range_end) {
  const actq_dtype dt = job->dtype;
  if (sr->keys) {
    switch (job->table->bits) {
    case 1: return encode_keys32_body(job, &sr->kt, i0, i1, range_end, 1);
    case 2: return encode_keys32_body(job, &sr->kt, i0, i1, range_end, 2);
    case 3: return encode_keys32_body(job, &sr->kt, i0, i1, range_end, 3);
    case 4: return encode_keys32_body(job, &sr->kt, i0, i1, range_end, 4);
    case 5: return encode_keys32_body(job, &sr->kt, i0, i1, range_end, 5);
    case 6: return encode_keys32_body(job, &sr->kt, i0, i1, range_end, 6);
    case 7: return encode_keys32_body(job, &sr->kt, i0, i1, range_end, 7);
    default: return encode_keys32_body(job, &sr->kt, i0, i1, range_end, 8);
    }
  }
  if (job->code_lut) return actq_avx2_fewbit_encode(job, i0, i1); /* 7-8 bits: the table's */
  switch (job->table->bits) {
  case 1: ENCODE16_DT(1)
  case 2: ENCODE16_DT(2)
  case 3: ENCODE16_DT(3)
  case 4: ENCODE16_DT(4)
  case 5: ENCODE16_DT(5)
  case 6: ENCODE16_DT(6)
  case 7: ENCODE16_DT(7)
  default: ENCODE16_DT(8)
  }
}

/* ---- y ------------------------------------------------------------------------------- */

/* y of the 32 16-bit x of h from a y table (cpu/y_lut.h): a dword gather at scale 2 for
 * each 16, whose low words are the results (the table's extra entry keeps the gather at
 * x = 0xffff inside it), put back in order by one vpermt2w. The gathers are the loop's
 * bound (16 loads each); an activation's polynomial costs more (docs/fewbit.md). */
FB512_INLINE __m512i fb_y_lut32(const uint16_t *lut, __m512i h) {
  const __m512i even = _mm512_set_epi16(62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36,
                                        34, 32, 30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6,
                                        4, 2, 0);
  const __m512i lo = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(h));
  const __m512i hi = _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(h, 1));
  return _mm512_permutex2var_epi16(_mm512_i32gather_epi32(lo, (const void *)lut, 2), even,
                                   _mm512_i32gather_epi32(hi, (const void *)lut, 2));
}

/* y of [i0, i1), a multiple of 16 elements, 16-bit x, from job->y_lut */
FB512_INLINE void y_lut_body(const actq_fewbit_job *job, size_t i0, size_t i1, const int nt) {
  const uint16_t *const lut = job->y_lut, *const x = (const uint16_t *)job->x;
  void *const y = job->y;
  size_t i;
  for (i = i0; i + 32 <= i1; i += 32) {
    actq_prefetch_stream(x, 2 * i, 64, 2 * job->n);
    fb_store32_words(y, i, fb_y_lut32(lut, _mm512_loadu_si512(x + i)), nt);
  }
  if (i < i1) {
    const __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(x + i)));
    actq_avx2_store16h_nt((uint16_t *)y, i,
                          _mm512_cvtepi32_epi16(_mm512_i32gather_epi32(w, (const void *)lut, 2)),
                          nt);
  }
}

/* y of [i0, i1), a multiple of 16 elements: activation `act` (ACTQ_AVX512_ACTS; any other
 * number runs actq_avx512_act_raw's AVX2 halves), NaN results canonical. Inlined with
 * constant act and dt, so that each loop keeps its constants (GELU's coefficient rows) in
 * registers. */
FB512_INLINE void y16_body(const actq_fewbit_job *job, size_t i0, size_t i1, const int act,
                           const actq_dtype dt, const int nt, const int cvt) {
  const float param = job->table->param;
  const void *const x = job->x; /* locals: the stores of y would force reloads */
  void *const y = job->y;
  const size_t es = actq_dtype_size(dt);
  size_t i;
  for (i = i0; i < i1; i += 16) {
    if (es == 4 || i % 32 == 0) actq_prefetch_stream(x, i * es, 64, job->n * es);
    fb_store16(y, dt, i, actq_avx512_fewbit_forward(act, param, fb_load16(x, dt, i)), nt, cvt);
  }
}

/* bf16: 32 elements an iteration, so that one vpackusdw narrows them (two vpmovdw
 * otherwise, the costliest part of the conversions); a last 16 as above */
FB512_INLINE void y32_bf16_body(const actq_fewbit_job *job, size_t i0, size_t i1, const int act,
                                const int nt, const int cvt) {
  const float param = job->table->param;
  const void *const x = job->x; /* as y16_body */
  void *const y = job->y;
  size_t i;
  for (i = i0; i + 32 <= i1; i += 32) {
    __m512 lo, hi;
    fb_load32_bf16(x, i, &lo, &hi);
    actq_prefetch_stream(x, 2 * i, 64, 2 * job->n);
    fb_store32_bf16(y, i,
                    actq_avx512_fewbit_forward(act, param, lo),
                    actq_avx512_fewbit_forward(act, param, hi), nt, cvt);
  }
  if (i < i1) y16_body(job, i, i1, act, ACTQ_BF16, nt, cvt);
}

#define Y16_DT(ACT)                                                                        \
  switch (dt) {                                                                            \
  case ACTQ_F32: y16_body(job, i0, i1, ACT, ACTQ_F32, nt, 0); return;                      \
  case ACTQ_F16: y16_body(job, i0, i1, ACT, ACTQ_F16, nt, 0); return;                      \
  default:                                                                                 \
    if (cvt) y32_bf16_body(job, i0, i1, ACT, nt, 1);                                       \
    else y32_bf16_body(job, i0, i1, ACT, nt, 0);                                           \
    return;                                                                                \
  }
#define Y16_CASE(a, name) case a: Y16_DT(a)

static __attribute__((noinline)) void y16(const actq_fewbit_job *job, size_t i0, size_t i1,
                                          int nt, int cvt) {
  const actq_dtype dt = job->dtype;
  const int act = (int)job->table->activation;
  if (job->y_lut) {
    if (nt) y_lut_body(job, i0, i1, 1);
    else y_lut_body(job, i0, i1, 0);
    return;
  }
  switch (act) {
  ACTQ_AVX512_ACTS(Y16_CASE)
  default: Y16_DT(act)
  }
}

#undef Y16_CASE
#undef Y16_DT

/* y and 1- to 4-bit codes of [i0, i1), a multiple of 32 elements,
 * i1 <= range_end (as encode16_body), in one loop: the codes of each 32 elements from the
 * registers that y is computed from (bf16: from its 16-bit keys, before the unpack),
 * stored as the codes passes store them. At these widths the codes are a few compares
 * and permutes a vector, cheaper than a second pass over the block (its loads, its loop,
 * its tree); wider codes keep the block passes. An activation of ACTQ_AVX512_ACTS, NaN
 * results canonical, as y16_body; lut: y from job->y_lut instead (16-bit dtypes, any
 * activation). Returns whether some x was NaN. */
FB512_INLINE size_t yc_body(const actq_fewbit_job *job, const fb_search *sr, size_t i0,
                            size_t i1, size_t range_end, const int act, const actq_dtype dt,
                            const uint32_t b, const int nt, const int cvt, const int lut) {
  const size_t range_bytes = actq_stream_bytes(range_end, b);
  const float param = job->table->param;
  const void *const x = job->x; /* locals, as encode16_body's */
  void *const y = job->y;
  uint8_t *const codes = job->codes;
  const uint16_t *const y_lut = job->y_lut;
  const size_t es = actq_dtype_size(dt);
  size_t i, nan_keys = 0;
  __m512i nan = _mm512_setzero_si512(); /* fb_nan_lanes */
  if (dt == ACTQ_BF16) {
    const fb_keys32 local = sr->kt, *kt = &local;
    for (i = i0; i < i1; i += 32) {
      const __m512i h = _mm512_loadu_si512((const uint16_t *)x + i);
      __m512 lo, hi;
      actq_prefetch_stream(x, 2 * i, 64, 2 * job->n);
      fb_key_planes32_store(kt, b, h, codes + (i / 8) * b, range_bytes - (i / 8) * b, &nan_keys);
      if (lut) {
        fb_store32_words(y, i, fb_y_lut32(y_lut, h), nt);
        continue;
      }
      fb_unpack32_bf16(h, &lo, &hi);
      fb_store32_bf16(y, i, actq_avx512_fewbit_forward(act, param, lo),
                      actq_avx512_fewbit_forward(act, param, hi), nt, cvt);
    }
  } else {
    const fb_tree16 local = sr->tr, *tr = &local;
    for (i = i0; i < i1; i += 32) {
      const __m512 x0 = fb_load16(x, dt, i), x1 = fb_load16(x, dt, i + 16);
      actq_prefetch_stream(x, i * es, 32 * es, job->n * es);
      nan = fb_nan_lanes(nan, x0, x1);
      if (b <= 2)
        fb_planes32_store(tr, b, x0, x1, codes + (i / 8) * b);
      else
        fb_store_words32(codes + (i / 8) * b, b, fb_planes_word16(tr, b, x0),
                         fb_planes_word16(tr, b, x1), range_bytes - (i / 8) * b);
      if (lut) {
        fb_store32_words(y, i, fb_y_lut32(y_lut, _mm512_loadu_si512((const uint16_t *)x + i)), nt);
        continue;
      }
      fb_store16(y, dt, i, actq_avx512_fewbit_forward(act, param, x0), nt, 0);
      fb_store16(y, dt, i + 16, actq_avx512_fewbit_forward(act, param, x1), nt, 0);
    }
  }
  return nan_keys + (_mm512_test_epi32_mask(nan, nan) != 0);
}

#define YC_B(ACT, DT, B) case B: return yc_body(job, sr, i0, i1, range_end, ACT, DT, B, nt, 0, 0);
#define YC_BF16(ACT, B)                                                                    \
  case B:                                                                                  \
    return cvt ? yc_body(job, sr, i0, i1, range_end, ACT, ACTQ_BF16, B, nt, 1, 0)          \
               : yc_body(job, sr, i0, i1, range_end, ACT, ACTQ_BF16, B, nt, 0, 0);
/* y from job->y_lut: one loop for every activation */
#define YC_LUT(DT, B) case B: return yc_body(job, sr, i0, i1, range_end, 0, DT, B, nt, 0, 1);
#define YC_LUT_B4(DT)                                                                      \
  switch (b) { YC_LUT(DT, 1) YC_LUT(DT, 2) YC_LUT(DT, 3) default: YC_LUT(DT, 4) }
#define YC_B4(ACT, DT)                                                                     \
  switch (b) { YC_B(ACT, DT, 1) YC_B(ACT, DT, 2) YC_B(ACT, DT, 3) default: YC_B(ACT, DT, 4) }
#define YC_DT(ACT)                                                                         \
  switch (job->dtype) {                                                                    \
  case ACTQ_F32: YC_B4(ACT, ACTQ_F32)                                                      \
  case ACTQ_F16: YC_B4(ACT, ACTQ_F16)                                                      \
  default: switch (b) { YC_BF16(ACT, 1) YC_BF16(ACT, 2) YC_BF16(ACT, 3) default: YC_BF16(ACT, 4) } \
  }
#define YC_CASE(a, name) case a: YC_DT(a)
#define YC_FUSED(a, name) case a:

/* Whether yc16 serves the job (nt: y is streamed): a 16-lane activation at 1-4 bits, f32
 * and f16 at 1-3 where y is streamed. Paired against the block passes: f32 at 4 bits ran
 * 1.07-1.31x from 2^16 to 2^23 elements, but 0.86-0.92x at 2^26, where y is streamed (3
 * bits: 1.09-1.10x there; Zen 5); bf16 at 3-4 bits, its codes from bit planes, 1.04-1.10x
 * from 2^16 to 2^26, streamed or not (Zen 4; the vector key codes had run 0.89-0.96x). */
static int yc_fused(const actq_fewbit_job *job, int nt) {
  if (job->table->bits > (job->dtype == ACTQ_BF16 || !nt ? 4u : 3u)) return 0;
  if (job->y_lut) return 1;
  switch ((int)job->table->activation) {
  ACTQ_AVX512_ACTS(YC_FUSED)
    return 1;
  default: return 0;
  }
}

/* Out of line, as y16, by activation, dtype and width (yc_fused says which; 80 loops),
 * and by dtype and width where y comes from job->y_lut (8 loops) */
static __attribute__((noinline)) size_t yc16(const actq_fewbit_job *job, const fb_search *sr,
                                             size_t i0, size_t i1, size_t range_end, int nt,
                                             int cvt) {
  const uint32_t b = job->table->bits;
  if (job->y_lut) {
    if (job->dtype == ACTQ_F16) YC_LUT_B4(ACTQ_F16)
    YC_LUT_B4(ACTQ_BF16)
  }
  switch ((int)job->table->activation) {
  ACTQ_AVX512_ACTS(YC_CASE)
  default: return 0; /* not reached: yc_fused */
  }
}

#undef YC_FUSED
#undef YC_CASE
#undef YC_DT
#undef YC_B4
#undef YC_BF16
#undef YC_B
#undef YC_LUT_B4
#undef YC_LUT

/* Other calls with y, block by block: the y of a block, then its codes from the x the y
 * pass left in L1, so that each loop is specialized to one thing (activation, or width)
 * and x is read from memory once. */
#define Y_BLOCK 1024

/* cvt: bf16 y by AVX512_BF16's conversions (the avx512bf16 table) */
static size_t fewbit_encode512(const actq_fewbit_job *job, size_t i0, size_t i1, int cvt) {
  actq_fewbit_job codes_job = *job;
  fb_search sr;
  size_t nan = 0, c0, v1;
  int nt;
  fb_search_init(&sr, job);
  if (!job->y) return encode16_codes(job, &sr, i0, i1, i1);
  nt = actq_stream_ok(job->y, job->n * actq_dtype_size(job->dtype));
  if (yc_fused(job, nt)) {
    v1 = i0 + ((i1 - i0) & ~(size_t)31); /* whole vectors of 32; the rest to the reference */
    nan = v1 > i0 ? yc16(job, &sr, i0, v1, i1, nt, cvt) : 0;
    if (v1 < i1) nan += actq_ref_fewbit_encode(job, v1, i1);
    if (nt) actq_stream_fence();
    return nan;
  }
  codes_job.y = NULL; /* the codes passes (and the AVX2 kernel they call at 7-8 bits) */
  codes_job.y_lut = NULL;
  for (c0 = i0; c0 < i1; c0 = v1) {
    /* whole vectors of 32; the last few elements of the range go to the reference */
    v1 = i1 - c0 > Y_BLOCK ? c0 + Y_BLOCK : c0 + ((i1 - c0) & ~(size_t)31);
    if (v1 == c0) break;
    y16(job, c0, v1, nt, cvt);
    nan += encode16_codes(&codes_job, &sr, c0, v1, i1);
  }
  if (c0 < i1) nan += actq_ref_fewbit_encode(job, c0, i1);
  if (nt) actq_stream_fence();
  return nan;
}

size_t actq_avx512_fewbit_encode(const actq_fewbit_job *job, size_t i0, size_t i1) {
  return fewbit_encode512(job, i0, i1, 0);
}

size_t actq_avx512bf16_fewbit_encode(const actq_fewbit_job *job, size_t i0, size_t i1) {
  return fewbit_encode512(job, i0, i1, 1);
}

/* ---- backward ---------------------------------------------------------------------- */

#define BACKWARD16_DT(B)                                                                     \
  switch (dt) {                                                                            \
  case ACTQ_F32: backward16_body(job, i0, i1, ACTQ_F32, B, nt, 0); break;                  \
  case ACTQ_F16: backward16_body(job, i0, i1, ACTQ_F16, B, nt, 0); break;                  \
  default:                                                                                 \
    if (cvt) backward16_body(job, i0, i1, ACTQ_BF16, B, nt, 1);                            \
    else backward16_body(job, i0, i1, ACTQ_BF16, B, nt, 0);                                \
    break;                                                                                 \
  }                                                                                        \
  break;

/* cvt: bf16 grad_in by AVX512_BF16's conversions (the avx512bf16 table) */
static void fewbit_backward512(const actq_fewbit_job *job, size_t i0, size_t i1, int cvt) {
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

#undef BACKWARD16_DT

void actq_avx512_fewbit_backward(const actq_fewbit_job *job, size_t i0, size_t i1) {
  fewbit_backward512(job, i0, i1, 0);
}

void actq_avx512bf16_fewbit_backward(const actq_fewbit_job *job, size_t i0, size_t i1) {
  fewbit_backward512(job, i0, i1, 1);
}
