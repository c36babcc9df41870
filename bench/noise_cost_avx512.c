/* noise_cost_avx512.c - AVX-512 versions of the candidates, the same shapes as
 * noise_cost_avx2.c twice as wide. Compiled everywhere so that their instructions can be
 * counted with objdump; noise_cost runs them only where the CPU has the ISA. */
#include <immintrin.h>

#include "noise_cost.h"
#include "cpu/avx512/philox_avx512.h"

void actq_avx512_noise_fill(uint64_t seed, uint64_t offset, uint64_t block0, size_t nblocks,
                            uint16_t *out);

void nc_philox10_lib_avx512(uint64_t seed, uint64_t offset, uint64_t e0, size_t n,
                            uint16_t *out) {
  actq_avx512_noise_fill(seed, offset, e0 >> 3, n / 8, out);
}

/* ---- philox7: cpu/avx512/noise_avx512.c with 7 rounds (the library's round, shared) --- */
static inline void ph8_store(const philox8 *p, uint16_t *out) {
  __m512i a = _mm512_mask_shuffle_epi32(p->c0, 0xaaaa, p->c1, _MM_PERM_CDAB);
  __m512i b = _mm512_mask_shuffle_epi32(p->c2, 0xaaaa, p->c3, _MM_PERM_CDAB);
  __m512i even = _mm512_unpacklo_epi64(a, b);
  __m512i odd = _mm512_unpackhi_epi64(a, b);
  const __m512i lo_idx = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
  const __m512i hi_idx = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
  _mm512_storeu_si512((void *)out, _mm512_permutex2var_epi64(even, lo_idx, odd));
  _mm512_storeu_si512((void *)(out + 32), _mm512_permutex2var_epi64(even, hi_idx, odd));
}

void nc_philox7_avx512(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out) {
  enum { R = 7 };
  __m512i k0[R], k1[R];
  const __m512i off_lo = _mm512_set1_epi64((long long)(uint32_t)offset);
  const __m512i off_hi = _mm512_set1_epi64((long long)(offset >> 32));
  const __m512i eight = _mm512_set1_epi64(8), sixteen = _mm512_set1_epi64(16);
  __m512i blocks = _mm512_add_epi64(_mm512_set1_epi64((long long)(e0 >> 3)),
                                    _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
  uint32_t s0 = (uint32_t)seed, s1 = (uint32_t)(seed >> 32);
  size_t i;
  int r;
  for (r = 0; r < R; r++) {
    k0[r] = _mm512_set1_epi64(s0);
    k1[r] = _mm512_set1_epi64(s1);
    s0 += ACTQ_PHILOX_W0;
    s1 += ACTQ_PHILOX_W1;
  }
  for (i = 0; i + 16 <= n / 8; i += 16) { /* n is a multiple of 128 here */
    __m512i b8 = _mm512_add_epi64(blocks, eight);
    philox8 a = {blocks, _mm512_srli_epi64(blocks, 32), off_lo, off_hi};
    philox8 b = {b8, _mm512_srli_epi64(b8, 32), off_lo, off_hi};
    for (r = 0; r < R; r++) {
      philox8_round(&a, k0[r], k1[r]);
      philox8_round(&b, k0[r], k1[r]);
    }
    ph8_store(&a, out + 8 * i);
    ph8_store(&b, out + 8 * i + 64);
    blocks = _mm512_add_epi64(blocks, sixteen);
  }
}

/* ---- mx3: 16 pairs (32 elements) per vector, two interleaved; xor-of-three in one
 * vpternlogd ----------------------------------------------------------------------- */
static inline __m512i mx3_16(__m512i q, __m512i k0, __m512i k1h, __m512i k2) {
  const __m512i c1 = _mm512_set1_epi32((int)NG_MX_C1);
  const __m512i c2 = _mm512_set1_epi32((int)NG_MX_C2);
  const __m512i c3 = _mm512_set1_epi32((int)NG_MX_C3);
  __m512i x = _mm512_xor_si512(q, k0);
  x = _mm512_xor_si512(x, _mm512_srli_epi32(x, 17));
  x = _mm512_mullo_epi32(x, c1);
  x = _mm512_ternarylogic_epi32(x, _mm512_srli_epi32(x, 11), k1h, 0x96);
  x = _mm512_mullo_epi32(x, c2);
  x = _mm512_ternarylogic_epi32(x, _mm512_srli_epi32(x, 15), k2, 0x96);
  x = _mm512_mullo_epi32(x, c3);
  return _mm512_xor_si512(x, _mm512_srli_epi32(x, 14));
}

void nc_mx3_avx512(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out) {
  const ng_mx_key k = ng_mx_derive(seed, offset);
  const __m512i k0 = _mm512_set1_epi32((int)k.k0), k2 = _mm512_set1_epi32((int)k.k2);
  const __m512i sixteen = _mm512_set1_epi32(16), thirtytwo = _mm512_set1_epi32(32);
  uint64_t q0 = e0 >> 1;
  size_t i = 0;
  while (i < n) { /* runs of equal hi32(q), as in noise_cost_avx2.c */
    const uint64_t q = q0 + i / 2;
    const uint64_t run_end = ((q >> 32) + 1) << 32;
    size_t stop = n;
    if ((run_end - q) * 2 < (uint64_t)(n - i)) stop = i + (size_t)(run_end - q) * 2;
    const __m512i k1h = _mm512_set1_epi32((int)(k.k1 ^ (uint32_t)(q >> 32)));
    __m512i qa = _mm512_add_epi32(_mm512_set1_epi32((int)(uint32_t)q),
                                  _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                    12, 13, 14, 15));
    for (; i < stop; i += 64) {
      __m512i qb = _mm512_add_epi32(qa, sixteen);
      _mm512_storeu_si512((void *)(out + i), mx3_16(qa, k0, k1h, k2));
      _mm512_storeu_si512((void *)(out + i + 32), mx3_16(qb, k0, k1h, k2));
      qa = _mm512_add_epi32(qa, thirtytwo);
    }
  }
}

static inline __m512i mx2_16(__m512i q, __m512i k0, __m512i k1h, __m512i unused) {
  const __m512i c1 = _mm512_set1_epi32((int)NG_MX2_C1);
  const __m512i c2 = _mm512_set1_epi32((int)NG_MX2_C2);
  __m512i x = _mm512_xor_si512(q, k0);
  (void)unused;
  x = _mm512_xor_si512(x, _mm512_srli_epi32(x, 16));
  x = _mm512_mullo_epi32(x, c1);
  x = _mm512_ternarylogic_epi32(x, _mm512_srli_epi32(x, 15), k1h, 0x96);
  x = _mm512_mullo_epi32(x, c2);
  return _mm512_xor_si512(x, _mm512_srli_epi32(x, 15));
}

/* mx2: the fill of mx3 with the two-multiply hash */
void nc_mx2_avx512(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out) {
  const ng_mx_key k = ng_mx_derive(seed, offset);
  const __m512i k0 = _mm512_set1_epi32((int)k.k0), k2 = _mm512_set1_epi32((int)k.k2);
  const __m512i sixteen = _mm512_set1_epi32(16), thirtytwo = _mm512_set1_epi32(32);
  uint64_t q0 = e0 >> 1;
  size_t i = 0;
  while (i < n) { /* runs of equal hi32(q), as in noise_cost_avx2.c */
    const uint64_t q = q0 + i / 2;
    const uint64_t run_end = ((q >> 32) + 1) << 32;
    size_t stop = n;
    if ((run_end - q) * 2 < (uint64_t)(n - i)) stop = i + (size_t)(run_end - q) * 2;
    const __m512i k1h = _mm512_set1_epi32((int)(k.k1 ^ (uint32_t)(q >> 32)));
    __m512i qa = _mm512_add_epi32(_mm512_set1_epi32((int)(uint32_t)q),
                                  _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                    12, 13, 14, 15));
    for (; i < stop; i += 64) {
      __m512i qb = _mm512_add_epi32(qa, sixteen);
      _mm512_storeu_si512((void *)(out + i), mx2_16(qa, k0, k1h, k2));
      _mm512_storeu_si512((void *)(out + i + 32), mx2_16(qb, k0, k1h, k2));
      qa = _mm512_add_epi32(qa, thirtytwo);
    }
  }
}

/* ---- ars5 with VAES: 4 blocks per ZMM, two ZMM in flight ----------------------------- */
void nc_ars5_vaes512(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out) {
  const ng_ars_key k = ng_ars_derive(seed);
  __m512i rk[6];
  const __m512i step = _mm512_setr_epi64(8, 0, 8, 0, 8, 0, 8, 0);
  __m512i c = _mm512_add_epi64(_mm512_set_epi64((long long)offset, (long long)(e0 >> 3),
                                                (long long)offset, (long long)(e0 >> 3),
                                                (long long)offset, (long long)(e0 >> 3),
                                                (long long)offset, (long long)(e0 >> 3)),
                               _mm512_setr_epi64(0, 0, 1, 0, 2, 0, 3, 0));
  const __m512i four = _mm512_setr_epi64(4, 0, 4, 0, 4, 0, 4, 0);
  size_t i;
  int r;
  for (r = 0; r < 6; r++) rk[r] = _mm512_broadcast_i32x4(k.rk[r]);
  for (i = 0; i < n; i += 64) {
    __m512i v0 = _mm512_xor_si512(c, rk[0]);
    __m512i v1 = _mm512_xor_si512(_mm512_add_epi64(c, four), rk[0]);
    for (r = 1; r < 5; r++) {
      v0 = _mm512_aesenc_epi128(v0, rk[r]);
      v1 = _mm512_aesenc_epi128(v1, rk[r]);
    }
    _mm512_storeu_si512((void *)(out + i), _mm512_aesenclast_epi128(v0, rk[5]));
    _mm512_storeu_si512((void *)(out + i + 32), _mm512_aesenclast_epi128(v1, rk[5]));
    c = _mm512_add_epi64(c, step);
  }
}
