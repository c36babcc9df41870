/* simde_avx512_extra.h - the AVX-512 intrinsics of cpu/avx512 that SIMDe 0.7.4 lacks
 * (or gets wrong), for the emulated AVX-512 kernels of the tests (tests/cpu/avx512_emulated.c).
 *
 * Include after <simde/x86/avx512.h> with SIMDE_ENABLE_NATIVE_ALIASES, in a unit compiled
 * with -mavx2 -mfma -mf16c and no -mavx512* flag. Each emulation has the instruction's
 * semantics from Intel's guide, lane for lane:
 *  - where a 256- or 128-bit instruction does the same per lane (conversions, shuffles,
 *    compares), it runs on each half, so the result is this CPU's own, not a model of it
 *    (F16C's NaN quieting, the integer indefinite 0x80000000 of invalid conversions);
 *  - masked loads and stores touch only the selected elements, as the hardware's fault
 *    suppression does (a masked-off element past a buffer's end is never read);
 *  - the float reductions are not instructions but the sequence of GCC's avx512fintrin.h
 *    (which the real kernels are compiled with), in its operand order, since min/max
 *    return their second operand for NaNs and zeros of either sign.
 */
#ifndef ACTQ_TEST_SIMDE_AVX512_EXTRA_H
#define ACTQ_TEST_SIMDE_AVX512_EXTRA_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef SIMDE_X86_AVX512_H
#  error "include <simde/x86/avx512.h> first"
#endif
#if defined(__AVX512F__)
#  error "the emulation is for a unit compiled without AVX-512"
#endif
#if !defined(__AVX2__) || !defined(__FMA__) || !defined(__F16C__)
#  error "compile with -mavx2 -mfma -mf16c"
#endif

#define EMU_INLINE static inline __attribute__((always_inline))

/* ---- between SIMDe's 512-bit types and native halves ------------------------------------ */
EMU_INLINE void emu_split_ps(simde__m512 v, __m256 *lo, __m256 *hi) {
  float f[16];
  memcpy(f, &v, sizeof f);
  *lo = _mm256_loadu_ps(f);
  *hi = _mm256_loadu_ps(f + 8);
}
EMU_INLINE simde__m512 emu_join_ps(__m256 lo, __m256 hi) {
  float f[16];
  simde__m512 v;
  _mm256_storeu_ps(f, lo);
  _mm256_storeu_ps(f + 8, hi);
  memcpy(&v, f, sizeof v);
  return v;
}
EMU_INLINE void emu_split_si(simde__m512i v, __m256i *lo, __m256i *hi) {
  uint8_t b[64];
  memcpy(b, &v, sizeof b);
  *lo = _mm256_loadu_si256((const __m256i *)b);
  *hi = _mm256_loadu_si256((const __m256i *)(b + 32));
}
EMU_INLINE simde__m512i emu_join_si(__m256i lo, __m256i hi) {
  uint8_t b[64];
  simde__m512i v;
  _mm256_storeu_si256((__m256i *)b, lo);
  _mm256_storeu_si256((__m256i *)(b + 32), hi);
  memcpy(&v, b, sizeof v);
  return v;
}

/* ---- conversions -------------------------------------------------------------------------- */
/* vcvtdq2ps: rounded as MXCSR says, as the 256-bit form. */
EMU_INLINE simde__m512 emu_mm512_cvtepi32_ps(simde__m512i a) {
  __m256i lo, hi;
  emu_split_si(a, &lo, &hi);
  return emu_join_ps(_mm256_cvtepi32_ps(lo), _mm256_cvtepi32_ps(hi));
}

/* vpmovzxwd zmm, ymm: 16 words zero-extended. */
EMU_INLINE simde__m512i emu_mm512_cvtepu16_epi32(__m256i a) {
  return emu_join_si(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(a)),
                     _mm256_cvtepu16_epi32(_mm256_extracti128_si256(a, 1)));
}

/* vcvttps2dq: truncation; NaN and out of range give 0x80000000 (as the 256-bit form). */
EMU_INLINE simde__m512i emu_mm512_cvttps_epi32(simde__m512 a) {
  __m256 lo, hi;
  emu_split_ps(a, &lo, &hi);
  return emu_join_si(_mm256_cvttps_epi32(lo), _mm256_cvttps_epi32(hi));
}

/* vcvtps2dq with embedded rounding {rn,rd,ru,rz}-sae, or MXCSR's (_MM_FROUND_CUR_DIRECTION):
 * vroundps to an integer in that direction, then a conversion that is exact for integers
 * (invalid ones give 0x80000000 as the instruction does). `r` must be a constant. */
#define emu_mm512_cvt_roundps_epi32(a, r) emu_cvt_roundps_epi32_((a), (r))
EMU_INLINE __m256i emu_cvt_round_half(__m256 v, int r) {
  switch (r & 7) {
  case _MM_FROUND_TO_NEAREST_INT:
    v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    break;
  case _MM_FROUND_TO_NEG_INF:
    v = _mm256_round_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    break;
  case _MM_FROUND_TO_POS_INF:
    v = _mm256_round_ps(v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
    break;
  case _MM_FROUND_TO_ZERO:
    v = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    break;
  default: break; /* _MM_FROUND_CUR_DIRECTION: the conversion rounds as MXCSR says */
  }
  return _mm256_cvtps_epi32(v);
}
EMU_INLINE simde__m512i emu_cvt_roundps_epi32_(simde__m512 a, int r) {
  __m256 lo, hi;
  emu_split_ps(a, &lo, &hi);
  return emu_join_si(emu_cvt_round_half(lo, r), emu_cvt_round_half(hi, r));
}

/* vcvtph2ps zmm, ymm: exact, denormals included; F16C quiets signalling NaNs (payload kept,
 * shifted into the high fraction bits). */
EMU_INLINE simde__m512 emu_mm512_cvtph_ps(__m256i a) {
  return emu_join_ps(_mm256_cvtph_ps(_mm256_castsi256_si128(a)),
                     _mm256_cvtph_ps(_mm256_extracti128_si256(a, 1)));
}

/* ---- masked loads and stores: only the selected elements are read or written ------------ */
EMU_INLINE simde__m512 emu_mm512_mask_loadu_ps(simde__m512 src, __mmask16 k, const void *p) {
  float f[16];
  int i;
  memcpy(f, &src, sizeof f);
  for (i = 0; i < 16; i++)
    if ((k >> i) & 1) memcpy(&f[i], (const char *)p + 4 * i, 4);
  memcpy(&src, f, sizeof f);
  return src;
}

EMU_INLINE __m256i emu_mm256_maskz_loadu_epi16(__mmask16 k, const void *p) {
  uint16_t w[16];
  int i;
  for (i = 0; i < 16; i++) {
    w[i] = 0;
    if ((k >> i) & 1) memcpy(&w[i], (const char *)p + 2 * i, 2);
  }
  return _mm256_loadu_si256((const __m256i *)w);
}

EMU_INLINE simde__m512i emu_mm512_mask_loadu_epi16(simde__m512i src, __mmask32 k, const void *p) {
  uint16_t w[32];
  int i;
  memcpy(w, &src, sizeof w);
  for (i = 0; i < 32; i++)
    if ((k >> i) & 1) memcpy(&w[i], (const char *)p + 2 * i, 2);
  memcpy(&src, w, sizeof w);
  return src;
}

EMU_INLINE simde__m512i emu_mm512_maskz_loadu_epi16(__mmask32 k, const void *p) {
  return emu_mm512_mask_loadu_epi16(simde_mm512_setzero_si512(), k, p);
}

EMU_INLINE void emu_mm512_mask_storeu_epi8(void *p, __mmask64 k, simde__m512i a) {
  uint8_t b[64];
  int i;
  memcpy(b, &a, sizeof b);
  for (i = 0; i < 64; i++)
    if ((k >> i) & 1) ((uint8_t *)p)[i] = b[i];
}

EMU_INLINE simde__m512i emu_mm512_maskz_loadu_epi8(__mmask64 k, const void *p) {
  uint8_t b[64];
  int i;
  for (i = 0; i < 64; i++) b[i] = (k >> i) & 1 ? ((const uint8_t *)p)[i] : 0;
  return simde_mm512_loadu_si512(b);
}

EMU_INLINE void emu_mm512_mask_storeu_epi16(void *p, __mmask32 k, simde__m512i a) {
  uint16_t w[32];
  int i;
  memcpy(w, &a, sizeof w);
  for (i = 0; i < 32; i++)
    if ((k >> i) & 1) memcpy((char *)p + 2 * i, &w[i], 2);
}

/* ---- shuffles ------------------------------------------------------------------------------ */
/* vpshufd: the 128-bit lanes' dwords by imm, as the 256-bit form on each half. */
#define emu_mm512_shuffle_epi32(a, imm)                                                  \
  __extension__({                                                                        \
    __m256i emu_lo_, emu_hi_;                                                            \
    emu_split_si((a), &emu_lo_, &emu_hi_);                                               \
    emu_join_si(_mm256_shuffle_epi32(emu_lo_, (int)(imm)),                               \
                _mm256_shuffle_epi32(emu_hi_, (int)(imm)));                              \
  })

/* The shuffle's dwords where k is set, src's elsewhere. */
#define emu_mm512_mask_shuffle_epi32(src, k, a, imm)                                     \
  emu_mask_mov_epi32_((src), (k), emu_mm512_shuffle_epi32((a), (imm)))
EMU_INLINE simde__m512i emu_mask_mov_epi32_(simde__m512i src, __mmask16 k, simde__m512i a) {
  uint32_t s[16], v[16];
  int i;
  memcpy(s, &src, sizeof s);
  memcpy(v, &a, sizeof v);
  for (i = 0; i < 16; i++)
    if ((k >> i) & 1) s[i] = v[i];
  memcpy(&src, s, sizeof s);
  return src;
}

/* ---- compares ------------------------------------------------------------------------------ */
/* vcmpps k{k1}: predicate imm (all 32, as vcmpps ymm), then AND with k1. */
#define emu_mm512_mask_cmp_ps_mask(k1, a, b, imm)                                        \
  __extension__({                                                                        \
    __m256 emu_alo_, emu_ahi_, emu_blo_, emu_bhi_;                                       \
    emu_split_ps((a), &emu_alo_, &emu_ahi_);                                             \
    emu_split_ps((b), &emu_blo_, &emu_bhi_);                                             \
    (__mmask16)((__mmask16)(k1) &                                                        \
                (unsigned)(_mm256_movemask_ps(_mm256_cmp_ps(emu_alo_, emu_blo_, (imm))) | \
                           _mm256_movemask_ps(_mm256_cmp_ps(emu_ahi_, emu_bhi_, (imm))) << 8)); \
  })

/* ---- reductions: GCC's sequence (avx512fintrin.h, __MM512_REDUCE_OP) ----------------------- */
#define EMU_REDUCE_PS(op, a)                                                             \
  __m256 lo_, hi_, t3_;                                                                  \
  __m128 t6_, t8_, t10_;                                                                 \
  emu_split_ps((a), &lo_, &hi_);                                                         \
  t3_ = _mm256_##op(hi_, lo_);                                                           \
  t6_ = _mm_##op(_mm256_extractf128_ps(t3_, 1), _mm256_castps256_ps128(t3_));            \
  t8_ = _mm_##op(t6_, _mm_shuffle_ps(t6_, t6_, _MM_SHUFFLE(1, 0, 3, 2)));                \
  t10_ = _mm_##op(t8_, _mm_shuffle_ps(t8_, t8_, _MM_SHUFFLE(0, 1, 0, 1)));               \
  return _mm_cvtss_f32(t10_)

EMU_INLINE float emu_mm512_reduce_min_ps(simde__m512 a) { EMU_REDUCE_PS(min_ps, a); }
EMU_INLINE float emu_mm512_reduce_max_ps(simde__m512 a) { EMU_REDUCE_PS(max_ps, a); }

EMU_INLINE unsigned int emu_mm512_reduce_max_epu32(simde__m512i a) {
  uint32_t u[16], m = 0;
  int i;
  memcpy(u, &a, sizeof u);
  for (i = 0; i < 16; i++) m = u[i] > m ? u[i] : m;
  return m;
}

/* vcvtps2ph with round-to-nearest-even (the only rounding the kernels use), per half:
 * F16C's own conversion, NaN quieting included. */
EMU_INLINE __m256i emu_mm512_cvtps_ph_rne(simde__m512 a) {
  __m256 lo, hi;
  emu_split_ps(a, &lo, &hi);
  return _mm256_setr_m128i(_mm256_cvtps_ph(lo, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
                           _mm256_cvtps_ph(hi, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

/* vpmovdw: each 32-bit lane truncated to its low 16 bits. */
EMU_INLINE __m256i emu_mm512_cvtepi32_epi16(simde__m512i a) {
  uint32_t u[16];
  uint16_t h[16];
  int i;
  memcpy(u, &a, sizeof u);
  for (i = 0; i < 16; i++) h[i] = (uint16_t)u[i];
  return _mm256_loadu_si256((const __m256i *)h);
}

/* vpmovdb: each 32-bit lane truncated to its low byte. */
EMU_INLINE __m128i emu_mm512_cvtepi32_epi8(simde__m512i a) {
  uint32_t u[16];
  uint8_t c[16];
  int i;
  memcpy(u, &a, sizeof u);
  for (i = 0; i < 16; i++) c[i] = (uint8_t)u[i];
  return _mm_loadu_si128((const __m128i *)c);
}

/* vpmovzxbd: 16 bytes zero-extended to 32-bit lanes. */
EMU_INLINE simde__m512i emu_mm512_cvtepu8_epi32(__m128i a) {
  return emu_join_si(_mm256_cvtepu8_epi32(a), _mm256_cvtepu8_epi32(_mm_srli_si128(a, 8)));
}

/* vpmovzxbw: 32 bytes zero-extended to 16-bit lanes. */
EMU_INLINE simde__m512i emu_mm512_cvtepu8_epi16(__m256i a) {
  return emu_join_si(_mm256_cvtepu8_epi16(_mm256_castsi256_si128(a)),
                     _mm256_cvtepu8_epi16(_mm256_extracti128_si256(a, 1)));
}

/* vpcmpgtw into a mask register (signed words): this CPU's 256-bit compare on each half,
 * one mask bit a word. */
EMU_INLINE uint32_t emu_word_mask16(__m256i m) {
  uint16_t w[16];
  uint32_t r = 0;
  int j;
  _mm256_storeu_si256((__m256i *)w, m);
  for (j = 0; j < 16; j++) r |= (uint32_t)(w[j] != 0) << j;
  return r;
}
EMU_INLINE __mmask32 emu_mm512_cmpgt_epi16_mask(simde__m512i a, simde__m512i b) {
  __m256i alo, ahi, blo, bhi;
  emu_split_si(a, &alo, &ahi);
  emu_split_si(b, &blo, &bhi);
  return (__mmask32)(emu_word_mask16(_mm256_cmpgt_epi16(alo, blo)) |
                     emu_word_mask16(_mm256_cmpgt_epi16(ahi, bhi)) << 16);
}

/* vfpclassps (AVX512DQ) for the one class the kernels test, denormal (imm 0x20; the
 * macro below refuses any other imm at compile time) */
EMU_INLINE __mmask16 emu_mm512_fpclass_ps_denormal(simde__m512 a) {
  uint32_t u[16], r = 0;
  int j;
  memcpy(u, &a, sizeof u);
  for (j = 0; j < 16; j++)
    r |= (uint32_t)((u[j] & 0x7f800000u) == 0 && (u[j] & 0x7fffffu) != 0) << j;
  return (__mmask16)r;
}

/* vpgatherdd: lane j is the dword at base + index[j] * scale (unaligned, as the hardware's) */
EMU_INLINE simde__m512i emu_mm512_i32gather_epi32(simde__m512i index, const void *base, int scale) {
  int32_t idx[16], r[16];
  simde__m512i out;
  int j;
  memcpy(idx, &index, sizeof idx);
  for (j = 0; j < 16; j++)
    memcpy(&r[j], (const unsigned char *)base + (ptrdiff_t)idx[j] * scale, 4);
  memcpy(&out, r, sizeof out);
  return out;
}

/* ---- SIMDe 0.7.4 fixes ------------------------------------------------------------------- */
/* Its alias of vpmaddwd takes the masked form's four arguments. */
#undef _mm512_madd_epi16
#define _mm512_madd_epi16(a, b) simde_mm512_madd_epi16(a, b)

/* ---- the names the kernels use ----------------------------------------------------------- */
#undef _mm512_cvtepi32_ps
#undef _mm512_cvtepu16_epi32
#undef _mm512_cvttps_epi32
#undef _mm512_cvt_roundps_epi32
#undef _mm512_cvtph_ps
#undef _mm512_mask_loadu_ps
#undef _mm256_maskz_loadu_epi16
#undef _mm512_mask_loadu_epi16
#undef _mm512_maskz_loadu_epi16
#undef _mm512_mask_storeu_epi8
#undef _mm512_shuffle_epi32
#undef _mm512_mask_shuffle_epi32
#undef _mm512_mask_cmp_ps_mask
#undef _mm512_reduce_min_ps
#undef _mm512_reduce_max_ps
#undef _mm512_reduce_max_epu32
#undef _mm512_cvtps_ph
#undef _mm512_cmpgt_epi16_mask
#undef _mm512_cvtepi32_epi16
#undef _mm512_cvtepu8_epi32
#undef _mm512_i32gather_epi32
#undef _mm512_cvtepi32_epi8
#define _mm512_cvtepu8_epi32 emu_mm512_cvtepu8_epi32
#define _mm512_i32gather_epi32 emu_mm512_i32gather_epi32
#define _mm512_cvtepu8_epi16 emu_mm512_cvtepu8_epi16
#define _mm512_cvtepi32_epi8 emu_mm512_cvtepi32_epi8
#define _mm512_cvtps_ph(a, rounding)                                                       \
  ((void)sizeof(char[(rounding) == (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC) ? 1 : -1]), \
   emu_mm512_cvtps_ph_rne(a))
#define _mm512_cvtepi32_epi16 emu_mm512_cvtepi32_epi16
#define _mm512_cvtepi32_ps emu_mm512_cvtepi32_ps
#define _mm512_cvtepu16_epi32 emu_mm512_cvtepu16_epi32
#define _mm512_cvttps_epi32 emu_mm512_cvttps_epi32
#define _mm512_cvt_roundps_epi32 emu_mm512_cvt_roundps_epi32
#define _mm512_cvtph_ps emu_mm512_cvtph_ps
#define _mm512_mask_loadu_ps emu_mm512_mask_loadu_ps
#define _mm256_maskz_loadu_epi16 emu_mm256_maskz_loadu_epi16
#define _mm512_mask_loadu_epi16 emu_mm512_mask_loadu_epi16
#define _mm512_maskz_loadu_epi16 emu_mm512_maskz_loadu_epi16
#define _mm512_mask_storeu_epi8 emu_mm512_mask_storeu_epi8
#define _mm512_maskz_loadu_epi8 emu_mm512_maskz_loadu_epi8
#define _mm512_mask_storeu_epi16 emu_mm512_mask_storeu_epi16
#define _mm512_shuffle_epi32 emu_mm512_shuffle_epi32
#define _mm512_mask_shuffle_epi32 emu_mm512_mask_shuffle_epi32
#define _mm512_mask_cmp_ps_mask emu_mm512_mask_cmp_ps_mask
#define _mm512_reduce_min_ps emu_mm512_reduce_min_ps
#define _mm512_reduce_max_ps emu_mm512_reduce_max_ps
#define _mm512_reduce_max_epu32 emu_mm512_reduce_max_epu32
#define _mm512_cmpgt_epi16_mask emu_mm512_cmpgt_epi16_mask
#undef _mm512_mask_cmpgt_epi16_mask
#define _mm512_mask_cmpgt_epi16_mask(k, a, b) ((__mmask32)((k) & emu_mm512_cmpgt_epi16_mask(a, b)))
#undef _mm512_fpclass_ps_mask
#define _mm512_fpclass_ps_mask(a, imm)                                                     \
  ((void)sizeof(char[(imm) == 0x20 ? 1 : -1]), emu_mm512_fpclass_ps_denormal(a))

/* Mask register operations SIMDe 0.7.4 lacks, on the mask bits as integers (kunpckwd:
 * a's low 16 bits above b's; kunpckdq: a's low 32 above b's). */
#undef _mm512_kunpackw
#undef _mm512_kunpackd
#undef _cvtmask64_u64
#define _mm512_kunpackw(a, b)                                                              \
  ((__mmask32)((((uint32_t)(a) & 0xffffu) << 16) | ((uint32_t)(b) & 0xffffu)))
#define _mm512_kunpackd(a, b)                                                              \
  ((__mmask64)((((uint64_t)(a) & 0xffffffffu) << 32) | ((uint64_t)(b) & 0xffffffffu)))
#define _cvtmask64_u64(k) ((uint64_t)(k))

#endif /* ACTQ_TEST_SIMDE_AVX512_EXTRA_H */
