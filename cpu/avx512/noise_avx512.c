/* noise_avx512.c - Philox4x32-10 for many consecutive blocks into a buffer, 8 instances
 * per ZMM (cpu/avx512/philox_avx512.h; the lane layout of cpu/avx2/noise_avx2.c, twice as
 * wide). */
#include <immintrin.h>

#include "cpu/avx512/avx512.h"
#include "cpu/avx512/philox_avx512.h"

/* Writes 8 blocks (8 x 16 bytes) in block order from their word pairs (philox8_last_pairs). */
static inline void philox8_store(__m512i a, __m512i b, uint16_t *out) {
  __m512i even = _mm512_unpacklo_epi64(a, b); /* blocks 0 | 2 | 4 | 6 */
  __m512i odd = _mm512_unpackhi_epi64(a, b);  /* blocks 1 | 3 | 5 | 7 */
  const __m512i lo_idx = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
  const __m512i hi_idx = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
  _mm512_storeu_si512((void *)out, _mm512_permutex2var_epi64(even, lo_idx, odd));
  _mm512_storeu_si512((void *)(out + 32), _mm512_permutex2var_epi64(even, hi_idx, odd));
}

/* Out of line: inlined (link-time) into quantize's twelve loop instances, it kept its 20
 * key vectors spilled around their loops (stochastic bf16 at groups of 64, in L2: 0.93x). */
__attribute__((noinline)) void actq_avx512_noise_fill(uint64_t seed, uint64_t offset,
                                                      uint64_t block0, size_t nblocks,
                                                      uint16_t *out) {
  __m512i k0[10], k1[10];
  const __m512i off_lo = _mm512_set1_epi64((long long)(uint32_t)offset);
  const __m512i off_hi = _mm512_set1_epi64((long long)(offset >> 32));
  const __m512i eight = _mm512_set1_epi64(8);
  __m512i blocks = _mm512_add_epi64(_mm512_set1_epi64((long long)block0),
                                    _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
  uint32_t s0 = (uint32_t)seed, s1 = (uint32_t)(seed >> 32);
  size_t i;
  int round;
  for (round = 0; round < 10; round++) {
    k0[round] = _mm512_set1_epi32((int)s0);
    k1[round] = _mm512_set1_epi32((int)s1);
    s0 += ACTQ_PHILOX_W0;
    s1 += ACTQ_PHILOX_W1;
  }
  /* 8 blocks per instance group; two groups interleaved when there is enough work. */
  for (i = 0; i + 16 <= nblocks; i += 16) {
    philox8 a = philox8_start(blocks, off_lo, off_hi);
    philox8 b = philox8_start(_mm512_add_epi64(blocks, eight), off_lo, off_hi);
    __m512i pa[2], pb[2];
    for (round = 0; round < 9; round++) {
      philox8_round(&a, k0[round], k1[round]);
      philox8_round(&b, k0[round], k1[round]);
    }
    philox8_last_pairs(&a, k0[9], k1[9], &pa[0], &pa[1]);
    philox8_last_pairs(&b, k0[9], k1[9], &pb[0], &pb[1]);
    philox8_store(pa[0], pa[1], out + 8 * i);
    philox8_store(pb[0], pb[1], out + 8 * i + 64);
    blocks = _mm512_add_epi64(blocks, _mm512_add_epi64(eight, eight));
  }
  if (i < nblocks) { /* at most 15 blocks left: one or two batches of 8 */
    for (; i < nblocks; i += 8) {
      philox8 a = philox8_start(blocks, off_lo, off_hi);
      __m512i pa[2];
      for (round = 0; round < 9; round++) philox8_round(&a, k0[round], k1[round]);
      philox8_last_pairs(&a, k0[9], k1[9], &pa[0], &pa[1]);
      philox8_store(pa[0], pa[1], out + 8 * i);
      blocks = _mm512_add_epi64(blocks, eight);
    }
  }
}
