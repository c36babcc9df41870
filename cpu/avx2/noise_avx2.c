/* noise_avx2.c - Philox4x32-10 for many consecutive blocks at once (AVX2).
 *
 * Each 64-bit lane holds one Philox instance's 32-bit word in its low half: vpmuludq then
 * yields the full 64-bit product M*c in place (low half = lo32, high half = hi32), so a
 * round costs 2 multiplies, 2 dword swaps and 4 xors for 4 instances. The
 * high halves of the lanes carry garbage that vpmuludq ignores. Two groups of 4 instances
 * are interleaved to hide the multiply latency. The output is the exact 128-bit Philox
 * result per block, stored as 8 little-endian 16-bit values, i.e. actq_noise_block. */
#include <immintrin.h>

#include "src/arith/philox.h"
#include "cpu/avx2/avx2.h"

typedef struct philox4 {
  __m256i c0, c1, c2, c3;
} philox4;

static inline philox4 philox4_start(__m256i blocks, __m256i off_lo, __m256i off_hi) {
  philox4 p;
  p.c0 = blocks;                        /* low half = lo32(block) */
  p.c1 = _mm256_srli_epi64(blocks, 32); /* hi32(block) */
  p.c2 = off_lo;
  p.c3 = off_hi;
  return p;
}

static inline void philox4_round(philox4 *p, __m256i k0, __m256i k1) {
  const __m256i m0 = _mm256_set1_epi64x(ACTQ_PHILOX_M0);
  const __m256i m1 = _mm256_set1_epi64x(ACTQ_PHILOX_M1);
  __m256i p0 = _mm256_mul_epu32(p->c0, m0);
  __m256i p1 = _mm256_mul_epu32(p->c2, m1);
  /* hi32 to the low half by a dword swap (port 5) rather than a shift (ports 0/1, which
   * the multiplies need); the high half then holds garbage, which is never used */
  __m256i n0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_shuffle_epi32(p1, 0xb1), p->c1), k0);
  __m256i n2 = _mm256_xor_si256(_mm256_xor_si256(_mm256_shuffle_epi32(p0, 0xb1), p->c3), k1);
  p->c0 = n0;
  p->c1 = p1; /* low half: lo32(M1*c2) */
  p->c2 = n2;
  p->c3 = p0; /* low half: lo32(M0*c0) */
}

/* Writes 4 blocks (4 x 16 bytes) in block order. */
static inline void philox4_store(const philox4 *p, uint16_t *out) {
  const __m256i lo = _mm256_set1_epi64x(0xffffffffLL);
  __m256i a = _mm256_or_si256(_mm256_and_si256(p->c0, lo), _mm256_slli_epi64(p->c1, 32));
  __m256i b = _mm256_or_si256(_mm256_and_si256(p->c2, lo), _mm256_slli_epi64(p->c3, 32));
  __m256i i02 = _mm256_unpacklo_epi64(a, b); /* blocks 0 | 2 */
  __m256i i13 = _mm256_unpackhi_epi64(a, b); /* blocks 1 | 3 */
  _mm256_storeu_si256((__m256i *)out, _mm256_permute2x128_si256(i02, i13, 0x20));
  _mm256_storeu_si256((__m256i *)(out + 16), _mm256_permute2x128_si256(i02, i13, 0x31));
}

void actq_avx2_noise_fill(uint64_t seed, uint64_t offset, uint64_t block0, size_t nblocks,
                          uint16_t *out) {
  __m256i k0[10], k1[10];
  const __m256i off_lo = _mm256_set1_epi64x((long long)(uint32_t)offset);
  const __m256i off_hi = _mm256_set1_epi64x((long long)(offset >> 32));
  const __m256i four = _mm256_set1_epi64x(4), eight = _mm256_set1_epi64x(8);
  __m256i blocks = _mm256_add_epi64(_mm256_set1_epi64x((long long)block0),
                                    _mm256_setr_epi64x(0, 1, 2, 3));
  uint32_t s0 = (uint32_t)seed, s1 = (uint32_t)(seed >> 32);
  size_t i;
  int round;
  for (round = 0; round < 10; round++) {
    k0[round] = _mm256_set1_epi64x(s0);
    k1[round] = _mm256_set1_epi64x(s1);
    s0 += ACTQ_PHILOX_W0;
    s1 += ACTQ_PHILOX_W1;
  }
  for (i = 0; i < nblocks; i += 8) {
    philox4 a = philox4_start(blocks, off_lo, off_hi);
    philox4 b = philox4_start(_mm256_add_epi64(blocks, four), off_lo, off_hi);
    for (round = 0; round < 10; round++) {
      philox4_round(&a, k0[round], k1[round]);
      philox4_round(&b, k0[round], k1[round]);
    }
    philox4_store(&a, out + 8 * i);
    philox4_store(&b, out + 8 * i + 32);
    blocks = _mm256_add_epi64(blocks, eight);
  }
}
