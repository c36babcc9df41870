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

#include "arith/bitstream.h"
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
static inline __m256i actq_avx2_pack32(__m256i v, uint32_t b) {
  __m256i w;
  if (b <= 6) { /* c_even + c_odd * 2^b, as unsigned x signed byte products */
    v = _mm256_maddubs_epi16(v, _mm256_set1_epi16((short)((1 << b) << 8 | 1)));
  } else if (b == 7) {
    const __m256i lo = _mm256_set1_epi16(0x00ff);
    v = _mm256_or_si256(_mm256_and_si256(v, lo),
                        _mm256_srli_epi16(_mm256_andnot_si256(lo, v), 1));
  }
  if (b <= 7) /* 16-bit pairs (2b bits each) -> 32-bit lanes of 4b bits */
    v = _mm256_madd_epi16(v, _mm256_set1_epi32((1 << (2 * b)) << 16 | 1));
  /* 32-bit pairs -> 64-bit lanes of 8b bits = b bytes */
  w = _mm256_slli_epi64(_mm256_srli_epi64(v, 32), (int)(4 * b));
  v = _mm256_or_si256(_mm256_and_si256(v, _mm256_set1_epi64x(0xffffffffLL)), w);
  return _mm256_shuffle_epi8(v, _mm256_load_si256((const __m256i *)actq_avx2_compress_shuf[b]));
}

/* Stores the first `nbytes` (<= 4b) bytes of a pack32 result at out. `room` is how many
 * bytes from out may be written: with room for two 16-byte stores they go straight out
 * (their zero padding is overwritten by the next stores in order); otherwise through a
 * scratch buffer, so that nothing past the caller's range is ever written. */
static inline void actq_avx2_store_pack32(uint8_t *out, __m256i p, uint32_t b, size_t nbytes,
                                          size_t room) {
  if (room >= 2 * b + 16) {
    _mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(p));
    _mm_storeu_si128((__m128i *)(out + 2 * b), _mm256_extracti128_si256(p, 1));
  } else {
    uint8_t tmp[48];
    _mm_storeu_si128((__m128i *)tmp, _mm256_castsi256_si128(p));
    _mm_storeu_si128((__m128i *)(tmp + 2 * b), _mm256_extracti128_si256(p, 1));
    memcpy(out, tmp, nbytes);
  }
}

/* One whole unit of 8 codes (b bytes at in) -> 8 codes in 32-bit lanes. With can_load8
 * the unit is read as 8 bytes (the caller guarantees they are readable) by a broadcast
 * straight from memory, which keeps port 5 free for the pshufb. */
static inline __m256i actq_avx2_unpack_unit(const uint8_t *in, uint32_t b, int can_load8) {
  __m256i v;
  if (can_load8) {
    v = _mm256_broadcastq_epi64(_mm_loadl_epi64((const __m128i *)in));
  } else {
    long long q = 0;
    memcpy(&q, in, b);
    v = _mm256_set1_epi64x(q);
  }
  v = _mm256_shuffle_epi8(v, _mm256_load_si256((const __m256i *)actq_avx2_unpack_shuf[b]));
  v = _mm256_srlv_epi32(v, _mm256_load_si256((const __m256i *)actq_avx2_unpack_shift[b]));
  return _mm256_and_si256(v, _mm256_set1_epi32((1 << b) - 1));
}

#endif /* ACTQ_CPU_AVX2_BITS_H */
