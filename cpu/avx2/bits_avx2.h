/* bits_avx2.h - the packed code stream (src/arith/bitstream.h) in AVX2 registers.
 *
 * Packing works on 32 codes at once, one byte each: adjacent codes are merged pairwise
 * (bytes -> 16-bit -> 32-bit -> 64-bit lanes, each step doubling the bits per lane), until
 * every 64-bit lane holds one unit of 8 codes = b bytes; a pshufb then moves each half's
 * two units together. Unpacking gives each 32-bit lane the 4 bytes around its code and
 * shifts. Only whole units of 8 codes are handled here: partial units go through
 * actq_pack_unit / actq_unpack_unit, so the bytes are the reference's by construction.
 * Include only from translation units compiled with -mavx2 -mfma -mf16c.
 */
#ifndef ACTQ_CPU_AVX2_BITS_H
#define ACTQ_CPU_AVX2_BITS_H

#include <immintrin.h>
#include <string.h>

#include "src/arith/bitstream.h"
#include "cpu/avx2/bits_tables_avx2.h"

/* 4 vectors of 8 codes (32-bit lanes, each < 256) -> 32 code bytes in element order. */
static inline __m256i actq_avx2_codes_to_bytes(__m256i a, __m256i b, __m256i c, __m256i d) {
  __m256i ab = _mm256_packus_epi32(a, b);    /* a0-3 b0-3 | a4-7 b4-7 (16-bit) */
  __m256i cd = _mm256_packus_epi32(c, d);    /* c0-3 d0-3 | c4-7 d4-7 */
  __m256i x = _mm256_packus_epi16(ab, cd);   /* a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7 */
  return _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* 32 code bytes (each < 2^b) -> the 4 units' b bytes each, two units per 128-bit half:
 * half h holds units 2h and 2h+1 as 2b contiguous bytes at its start. */
static inline __attribute__((always_inline)) __m256i actq_avx2_pack32(__m256i v, uint32_t b) {
  __m256i w;
  if (b <= 6) { /* c_even + c_odd * 2^b, as unsigned x signed byte products */
    v = _mm256_maddubs_epi16(v, _mm256_set1_epi16((short)((1 << b) << 8 | 1)));
  } else if (b == 7) {
    const __m256i lo = _mm256_set1_epi16(0x00ff);
    v = _mm256_or_si256(_mm256_and_si256(v, lo),
                        _mm256_srli_epi16(_mm256_andnot_si256(lo, v), 1));
  }
  if (b == 8) return v; /* the codes are the bytes */
  if (b <= 7) /* 16-bit pairs (2b bits each) -> 32-bit lanes of 4b bits */
    v = _mm256_madd_epi16(v, _mm256_set1_epi32((1 << (2 * b)) << 16 | 1));
  if (b % 2 == 0) /* 4b bits are whole bytes: one pshufb gathers them (no 64-bit step) */
    return _mm256_shuffle_epi8(
        v, _mm256_load_si256((const __m256i *)actq_avx2_compress_dword_shuf[b]));
  /* 32-bit pairs -> 64-bit lanes of 8b bits = b bytes */
  w = _mm256_slli_epi64(_mm256_srli_epi64(v, 32), (int)(4 * b));
  v = _mm256_or_si256(_mm256_and_si256(v, _mm256_set1_epi64x(0xffffffffLL)), w);
  return _mm256_shuffle_epi8(v, _mm256_load_si256((const __m256i *)actq_avx2_compress_shuf[b]));
}

/* The end of a range: the first `nbytes` bytes of the two 16-byte halves lo and hi (hi at
 * out + 2b) through a scratch buffer, so that nothing past the caller's range is written.
 * Out of line and cold: the loops that store pack32 results keep only the fast path. */
static __attribute__((noinline, cold, unused)) void actq_avx2_store_pack32_end(
    uint8_t *out, __m128i lo, __m128i hi, uint32_t b, size_t nbytes) {
  uint8_t tmp[48];
  _mm_storeu_si128((__m128i *)tmp, lo);
  _mm_storeu_si128((__m128i *)(tmp + 2 * b), hi);
  memcpy(out, tmp, nbytes);
}

/* Stores the first `nbytes` (<= 4b) bytes of a pack32 result at out. `room` is how many
 * bytes from out may be written: with room for two 16-byte stores they go straight out
 * (their zero padding is overwritten by the next stores in order); otherwise through
 * actq_avx2_store_pack32_end. Always inlined: a call from a loop passes p through the
 * stack (AVX2 quantize of groups of 256 measured 5% slower with GCC's choice not to
 * inline it). */
static inline __attribute__((always_inline)) void actq_avx2_store_pack32(
    uint8_t *out, __m256i p, uint32_t b, size_t nbytes, size_t room) {
  if (__builtin_expect(room >= 2 * b + 16, 1)) {
    _mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(p));
    _mm_storeu_si128((__m128i *)(out + 2 * b), _mm256_extracti128_si256(p, 1));
  } else {
    actq_avx2_store_pack32_end(out, _mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1),
                               b, nbytes);
  }
}

/* One whole unit of 8 codes (b bytes at in) -> each 32-bit lane holds the 4 bytes around
 * its code (unshifted). With can_load8 the unit is read as 8 bytes (the caller guarantees
 * they are readable) by a broadcast straight from memory, which keeps port 5 free for the
 * pshufb. */
static inline __m256i actq_avx2_unit_windows(const uint8_t *in, uint32_t b, int can_load8) {
  __m256i v;
  if (can_load8) {
    v = _mm256_broadcastq_epi64(_mm_loadl_epi64((const __m128i *)in));
  } else {
    long long q = 0;
    memcpy(&q, in, b);
    v = _mm256_set1_epi64x(q);
  }
  return _mm256_shuffle_epi8(v, _mm256_load_si256((const __m256i *)actq_avx2_unpack_shuf[b]));
}

/* One whole unit of 8 codes (b bytes at in) -> 8 codes in 32-bit lanes. */
static inline __m256i actq_avx2_unpack_unit(const uint8_t *in, uint32_t b, int can_load8) {
  __m256i v = actq_avx2_unit_windows(in, b, can_load8);
  v = _mm256_srlv_epi32(v, _mm256_load_si256((const __m256i *)actq_avx2_unpack_shift[b]));
  return _mm256_and_si256(v, _mm256_set1_epi32((1 << b) - 1));
}

/* ---- codes -> bytes -------------------------------------------------------------------
 * 32 codes, one byte each, from 4b stream bytes. Each 128-bit half of `src` holds the
 * bytes of 16 codes; the tables (see tools/gen_bits_tables.py) say where in it code j's
 * bits are. AVX2 has no per-byte shift, so the byte of code j comes from a 16-bit window
 * shifted by a multiply: even j as the low byte of mulhi(window, 2^(16-s)) = window >> s,
 * odd j as the high byte of mullo(window, 2^(8-s)). Two pshufb, two multiplies, a blend
 * and a mask: about 14 micro-ops for 32 codes on Zen 1, where the per-unit variable
 * dword shifts of actq_avx2_unpack_unit cost 4 units x (pshufb, srlv, and) plus the
 * packs back to bytes. */
static inline __attribute__((always_inline)) __m256i actq_avx2_bytes_decode(
    __m256i src, uint32_t b, const uint8_t *idx_even, const uint8_t *idx_odd,
    const uint16_t *mul_even, const uint16_t *mul_odd) {
  __m256i e = _mm256_mulhi_epu16(
      _mm256_shuffle_epi8(src, _mm256_load_si256((const __m256i *)idx_even)),
      _mm256_load_si256((const __m256i *)mul_even));
  __m256i o = _mm256_mullo_epi16(
      _mm256_shuffle_epi8(src, _mm256_load_si256((const __m256i *)idx_odd)),
      _mm256_load_si256((const __m256i *)mul_odd));
  __m256i v = _mm256_blendv_epi8(e, o, _mm256_set1_epi16((short)0xff00));
  return _mm256_and_si256(v, _mm256_set1_epi8((char)((1u << b) - 1u)));
}

/* 1 bit: 32 codes from the 4 bytes in the low dword of every 32-bit lane of `v`: byte j/8
 * copied to byte j, then bit j%8 tested. */
static inline __attribute__((always_inline)) __m256i actq_avx2_bytes_decode1(__m256i v) {
  const __m256i rep = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2,
                                       2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
  const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ULL);
  v = _mm256_and_si256(_mm256_shuffle_epi8(v, rep), bit);
  return _mm256_min_epu8(v, _mm256_set1_epi8(1));
}

/* 32 codes in element order from the 4b bytes at in; 2b + 16 bytes from in must be
 * readable (16 at in and 16 at in + 2b). */
static inline __attribute__((always_inline)) __m256i actq_avx2_unpack32_bytes(const uint8_t *in,
                                                                              uint32_t b) {
  __m256i src;
  if (b == 1) {
    int32_t w;
    memcpy(&w, in, 4);
    return actq_avx2_bytes_decode1(_mm256_set1_epi32(w));
  }
  if (b == 8) return _mm256_loadu_si256((const __m256i *)in);
  src = _mm256_loadu2_m128i((const __m128i *)(in + 2 * b), (const __m128i *)in);
  return actq_avx2_bytes_decode(src, b, actq_avx2_bytes_idx_even[b], actq_avx2_bytes_idx_odd[b],
                                actq_avx2_bytes_mul_even[b], actq_avx2_bytes_mul_odd[b]);
}

/* How many bytes from in actq_avx2_unpack32_bytes reads. */
static inline size_t actq_avx2_unpack32_reach(uint32_t b) {
  return b == 1 ? 4 : b == 8 ? 32 : 2 * b + 16;
}

/* The same 32 codes, in units order for 16-bit lookups: half 0 holds units 0 and 2 (codes
 * 0-7, 16-23), half 1 units 1 and 3 (codes 8-15, 24-31), so that unpacklo/unpackhi_epi8
 * of two looked-up byte planes give codes 0-15 and 16-31 in order. b <= 5 (units 0 and 2
 * inside 16 bytes); b + 16 bytes from in must be readable. */
static inline __attribute__((always_inline)) __m256i actq_avx2_unpack32_units(const uint8_t *in,
                                                                              uint32_t b) {
  __m256i src;
  if (b == 1) {
    /* codes 0-7, 16-23 = bytes 0, 2; codes 8-15, 24-31 = bytes 1, 3 */
    int32_t w;
    memcpy(&w, in, 4);
    w = (w & (int32_t)0xff0000ff) | ((w & 0x0000ff00) << 8) | ((w >> 8) & 0x0000ff00);
    return actq_avx2_bytes_decode1(_mm256_set1_epi32(w));
  }
  src = _mm256_loadu2_m128i((const __m128i *)(in + b), (const __m128i *)in);
  return actq_avx2_bytes_decode(src, b, actq_avx2_bytes_units_idx_even[b],
                                actq_avx2_bytes_units_idx_odd[b],
                                actq_avx2_bytes_units_mul_even[b],
                                actq_avx2_bytes_units_mul_odd[b]);
}

static inline size_t actq_avx2_unpack32_units_reach(uint32_t b) { return b == 1 ? 4 : b + 16; }

#endif /* ACTQ_CPU_AVX2_BITS_H */
