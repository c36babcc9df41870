/* philox_avx512.h - Philox4x32-10 on 8 blocks at once, one block per 64-bit lane of a ZMM
 * (its word in the low half, so vpmuludq gives the whole product in place; the high
 * halves carry garbage that no multiply reads). Shared by the noise fill
 * (noise_avx512.c) and quantize's generator in the codes loop (quantize_avx512.c). */
#ifndef ACTQ_CPU_PHILOX_AVX512_H
#define ACTQ_CPU_PHILOX_AVX512_H

#include <immintrin.h>

#include "src/arith/philox.h"

#define ACTQ_PHILOX8_INLINE static inline __attribute__((always_inline))

typedef struct philox8 {
  __m512i c0, c1, c2, c3;
} philox8;

ACTQ_PHILOX8_INLINE philox8 philox8_start(__m512i blocks, __m512i off_lo, __m512i off_hi) {
  philox8 p;
  p.c0 = blocks;
  p.c1 = _mm512_srli_epi64(blocks, 32);
  p.c2 = off_lo;
  p.c3 = off_hi;
  return p;
}

/* One round under round keys k0, k1 (in the low half of each lane; the high half is
 * ignored). */
ACTQ_PHILOX8_INLINE void philox8_round(philox8 *p, __m512i k0, __m512i k1) {
  const __m512i m0 = _mm512_set1_epi64(ACTQ_PHILOX_M0);
  const __m512i m1 = _mm512_set1_epi64(ACTQ_PHILOX_M1);
  __m512i p0 = _mm512_mul_epu32(p->c0, m0);
  __m512i p1 = _mm512_mul_epu32(p->c2, m1);
  /* hi32 to the low half by a dword swap (port 5; shifts and multiplies share port 0);
   * 0x96 = a ^ b ^ c in one vpternlogd (bitwise: the dword form lets a key be a {1to16}
   * broadcast operand) */
  __m512i n0 = _mm512_ternarylogic_epi32(_mm512_shuffle_epi32(p1, _MM_PERM_CDAB), p->c1, k0, 0x96);
  __m512i n2 = _mm512_ternarylogic_epi32(_mm512_shuffle_epi32(p0, _MM_PERM_CDAB), p->c3, k1, 0x96);
  p->c0 = n0;
  p->c1 = p1;
  p->c2 = n2;
  p->c3 = p0;
}

/* The last round (keys k0, k1) and the output of its 8 blocks as word pairs: qword j of
 * `a` holds words 0 (low dword) and 1 of block j, of `b` words 2 and 3. The dword swap of
 * a product already holds its low half (the round's new c1, c3) in the high dword, so the
 * round's xors, masked to the low dwords, leave the pairs: no merges of words after the
 * round (2 micro-ops fewer per 8 blocks, on port 5). */
ACTQ_PHILOX8_INLINE void philox8_last_pairs(const philox8 *p, __m512i k0, __m512i k1, __m512i *a,
                                            __m512i *b) {
  const __m512i p0 = _mm512_mul_epu32(p->c0, _mm512_set1_epi64(ACTQ_PHILOX_M0));
  const __m512i p1 = _mm512_mul_epu32(p->c2, _mm512_set1_epi64(ACTQ_PHILOX_M1));
  *a = _mm512_mask_ternarylogic_epi32(_mm512_shuffle_epi32(p1, _MM_PERM_CDAB), 0x5555, p->c1, k0,
                                      0x96);
  *b = _mm512_mask_ternarylogic_epi32(_mm512_shuffle_epi32(p0, _MM_PERM_CDAB), 0x5555, p->c3, k1,
                                      0x96);
}

/* The state after round 0 of 8 noise blocks (lane j: block blocks[j]) from the call's
 * round-0 terms t0, t1, t2 (actq_noise_round0_terms, each broadcast), as
 * actq_noise_words_r0: one multiply instead of two. */
ACTQ_PHILOX8_INLINE philox8 philox8_after_round0(__m512i blocks, __m512i t0, __m512i t1,
                                                 __m512i t2) {
  const __m512i p0 = _mm512_mul_epu32(blocks, _mm512_set1_epi64(ACTQ_PHILOX_M0));
  philox8 p;
  p.c0 = _mm512_xor_si512(t0, _mm512_srli_epi64(blocks, 32));
  p.c1 = t1;
  p.c2 = _mm512_xor_si512(_mm512_shuffle_epi32(p0, _MM_PERM_CDAB), t2);
  p.c3 = p0;
  return p;
}

/* The high half of the dwords that carry the noise to quantize's codes: r16 | 0x4b000000
 * is the float 2^23 + r16, so that u = r16 * 2^-16 + 2^-17 is one exact fma of it
 * (quantize_avx512.c, codes16) with no int-to-float conversion. */
#define ACTQ_NOISE_F32_HI 0x4b00

/* The 16-bit noise of the 64 elements of 8 consecutive blocks (lane j: block b + j), in
 * element order as 4 vectors of 16 dwords r16 | ACTQ_NOISE_F32_HI << 16: r[v] holds
 * elements 16v .. 16v + 15 (blocks 2v, 2v + 1). Word i of a block holds its elements 2i
 * (low half) and 2i + 1 (high half) (src/arith/philox.h), so that in the pairs `a`, `b`
 * (philox8_last_pairs) qword j of `a` holds elements 8j .. 8j + 3, of `b` 8j + 4 ..
 * 8j + 7. A qword permute puts in 128-bit lane m of x01 the 4 elements of lane m of r[0]
 * (low qword) and of r[1] (high qword), likewise x23; vpunpck{l,h}wd with the constant
 * high words widens them. All one-uop permutes (a word permute, vpermt2w, is
 * three on Intel cores; in L2 it made quantize 5% slower). `quads`: the order of
 * quantize's bf16 vectors instead (quantize_avx512.c, load_v): lane k of r[2c] holds
 * elements 32c + 8k .. 32c + 8k + 3 (qword k + 4c of a), of r[2c + 1] the next 4 (of b);
 * the same permutes with other indices. */
ACTQ_PHILOX8_INLINE void philox8_noise64(__m512i a, __m512i b, int quads, __m512i r[4]) {
  const __m512i x01 = _mm512_permutex2var_epi64(
      a, quads ? _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11) : _mm512_setr_epi64(0, 2, 8, 10, 1, 3, 9, 11), b);
  const __m512i x23 = _mm512_permutex2var_epi64(
      a, quads ? _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15) : _mm512_setr_epi64(4, 6, 12, 14, 5, 7, 13, 15), b);
  const __m512i hi = _mm512_set1_epi16(ACTQ_NOISE_F32_HI);
  r[0] = _mm512_unpacklo_epi16(x01, hi);
  r[1] = _mm512_unpackhi_epi16(x01, hi);
  r[2] = _mm512_unpacklo_epi16(x23, hi);
  r[3] = _mm512_unpackhi_epi16(x23, hi);
}

#endif /* ACTQ_CPU_PHILOX_AVX512_H */
