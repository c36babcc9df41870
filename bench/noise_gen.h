/* noise_gen.h - scalar references of the noise generators compared in docs/noise.md.
 *
 * Every generator maps (seed, offset, element e) to the 16-bit value r16 that quantize
 * would turn into u = r16 * 2^-16 + 2^-17. Philox4x32-10 is the library's own
 * (src/arith/philox.h, included, not copied, so the benchmark measures what ships). The
 * others are candidates for ABI.md section 3 "Noise"; none of them is used by the library.
 *
 *   philox10  the library: Philox4x32-10, one call per 8 elements.
 *   philox7   the same counter, key and mapping with 7 rounds (the smallest round count
 *             the Random123 paper reports Crush-resistant for Philox4x32).
 *   mx3       keyed multiply-xorshift hash: 32 bits per evaluation, i.e. 2 elements, from
 *             the 64-bit pair index q = e/2 and a 96-bit key derived once per call from
 *             (seed, offset) by one Philox4x32-10 call. Three 32x32->32 multiplies
 *             (vpmulld on x86, IMAD on CUDA) with the key words entering between them.
 *   mx2       the same with two multiplies (Wellons' best two-multiply "lowbias32" shape,
 *             constants 0x21f0aaad / 0xd35a2d97), a 64-bit key (k0, k1): the cheap end.
 *   ars5      ARS-4x32-5 (Random123): 5 AES rounds on the counter {block, offset} with a
 *             Weyl key schedule from {seed, 0}; 8 elements per call. Two versions that
 *             must agree: AES-NI (x86 only) and a portable one-table T-table AES
 *             (ng_ars5_soft), which is what a GPU without AES instructions has to run.
 * Functions are ACTQ_HD (src/arith/common.h) so bench/noise_sass.cu compiles them as
 * device code.
 */
#ifndef ACTQ_BENCH_NOISE_GEN_H
#define ACTQ_BENCH_NOISE_GEN_H

#include <stdint.h>

#include "src/arith/philox.h"

/* ---- philox7: the library's Philox with fewer rounds -------------------------------- */
ACTQ_HD void ng_philox_rounds(const uint32_t ctr[4], const uint32_t key[2], int rounds,
                                    uint32_t out[4]) {
  uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
  uint32_t k0 = key[0], k1 = key[1];
  int round;
  for (round = 0; round < rounds; round++) {
    uint64_t p0 = (uint64_t)ACTQ_PHILOX_M0 * c0;
    uint64_t p1 = (uint64_t)ACTQ_PHILOX_M1 * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c0 = n0;
    c1 = (uint32_t)p1;
    c2 = n2;
    c3 = (uint32_t)p0;
    k0 += ACTQ_PHILOX_W0;
    k1 += ACTQ_PHILOX_W1;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/* Same counter/key layout and 16-bit mapping as actq_noise_block. */
ACTQ_HD void ng_philox_block(int rounds, uint64_t seed, uint64_t offset, uint64_t block,
                                   uint16_t r16[8]) {
  uint32_t ctr[4], key[2], out[4];
  int i;
  ctr[0] = (uint32_t)block;
  ctr[1] = (uint32_t)(block >> 32);
  ctr[2] = (uint32_t)offset;
  ctr[3] = (uint32_t)(offset >> 32);
  key[0] = (uint32_t)seed;
  key[1] = (uint32_t)(seed >> 32);
  ng_philox_rounds(ctr, key, rounds, out);
  for (i = 0; i < 4; i++) {
    r16[2 * i] = (uint16_t)out[i];
    r16[2 * i + 1] = (uint16_t)(out[i] >> 16);
  }
}

/* ---- mx3 ---------------------------------------------------------------------------- */
/* Multipliers and shifts of Wellons' "triple32" integer hash (hash-prospector, a low-bias
 * 3-multiply 32-bit permutation); the key words are xored in after each xorshift so that
 * every multiply sees key-dependent input and two keys give unrelated permutations. */
#define NG_MX_C1 0xed5ad4bbu
#define NG_MX_C2 0xac4c1b51u
#define NG_MX_C3 0x31848babu

typedef struct ng_mx_key {
  uint32_t k0, k1, k2;
} ng_mx_key;

/* Once per call: every bit of seed and offset reaches all three key words through one
 * Philox4x32-10 evaluation (the fourth output word is unused). The counter's constant
 * words keep this call apart from the noise counters of philox10 with the same seed. */
ACTQ_HD ng_mx_key ng_mx_derive(uint64_t seed, uint64_t offset) {
  uint32_t ctr[4], key[2], out[4];
  ng_mx_key k;
  ctr[0] = (uint32_t)offset;
  ctr[1] = (uint32_t)(offset >> 32);
  ctr[2] = 0x6e6f6973u; /* "nois" */
  ctr[3] = 0x656b6579u; /* "ekey" */
  key[0] = (uint32_t)seed;
  key[1] = (uint32_t)(seed >> 32);
  actq_philox4x32_10(ctr, key, out);
  k.k0 = out[0];
  k.k1 = out[1];
  k.k2 = out[2];
  return k;
}

/* 32 bits for pair q = e / 2: low half is element 2q, high half element 2q + 1. A
 * bijection of lo32(q) for fixed key and hi32(q). */
ACTQ_HD uint32_t ng_mx3(const ng_mx_key *k, uint64_t q) {
  uint32_t x = (uint32_t)q ^ k->k0;
  x ^= x >> 17;
  x *= NG_MX_C1;
  x ^= (x >> 11) ^ (uint32_t)(q >> 32) ^ k->k1;
  x *= NG_MX_C2;
  x ^= (x >> 15) ^ k->k2;
  x *= NG_MX_C3;
  x ^= x >> 14;
  return x;
}


/* mx2: 32 bits for pair q, two multiplies; k0 before the first, hi32(q) ^ k1 between */
#define NG_MX2_C1 0x21f0aaadu
#define NG_MX2_C2 0xd35a2d97u
ACTQ_HD uint32_t ng_mx2(const ng_mx_key *k, uint64_t q) {
  uint32_t x = (uint32_t)q ^ k->k0;
  x ^= x >> 16;
  x *= NG_MX2_C1;
  x ^= (x >> 15) ^ (uint32_t)(q >> 32) ^ k->k1;
  x *= NG_MX2_C2;
  x ^= x >> 15;
  return x;
}

/* ---- ars5, portable: one 1 KiB T-table (the other three are its byte rotations) ------ */
#define NG_ARS_W0 0x9E3779B97F4A7C15ull
#define NG_ARS_W1 0xBB67AE8584CAA73Bull

static const uint8_t ng_aes_sbox[256] = {
    0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
    0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
    0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
    0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
    0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
    0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
    0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
    0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
    0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
    0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
    0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
    0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
    0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
    0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
    0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
    0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16,
};

/* te[x] = {2S[x], S[x], S[x], 3S[x]} as bytes 0..3 (little-endian word) */
ACTQ_HD void ng_aes_te0_init(uint32_t te[256], const uint8_t sbox[256]) {
  int x;
  for (x = 0; x < 256; x++) {
    const uint32_t s = sbox[x], s2 = ((s << 1) ^ ((s >> 7) * 0x1bu)) & 0xffu;
    te[x] = s2 | s << 8 | s << 16 | (s2 ^ s) << 24;
  }
}

/* round keys as 32-bit words: rk[r] = {seed + r*W0, r*W1} as two 64-bit halves */
typedef struct ng_ars_rk {
  uint32_t w[6][4];
} ng_ars_rk;

ACTQ_HD ng_ars_rk ng_ars_rk_derive(uint64_t seed) {
  ng_ars_rk k;
  uint64_t lo = seed, hi = 0;
  int r;
  for (r = 0; r < 6; r++) {
    k.w[r][0] = (uint32_t)lo;
    k.w[r][1] = (uint32_t)(lo >> 32);
    k.w[r][2] = (uint32_t)hi;
    k.w[r][3] = (uint32_t)(hi >> 32);
    lo += NG_ARS_W0;
    hi += NG_ARS_W1;
  }
  return k;
}

ACTQ_HD uint32_t ng_rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

/* One AESENC (last = AESENCLAST) on columns s[0..3], as the x86 instruction defines it. */
ACTQ_HD void ng_aes_round(uint32_t s[4], const uint32_t rk[4], const uint32_t *te, int last) {
  uint32_t t[4];
  int j;
  for (j = 0; j < 4; j++) {
    const uint32_t b0 = s[j] & 0xffu, b1 = (s[(j + 1) & 3] >> 8) & 0xffu;
    const uint32_t b2 = (s[(j + 2) & 3] >> 16) & 0xffu, b3 = s[(j + 3) & 3] >> 24;
    if (last)
      t[j] = ((te[b0] >> 8) & 0xffu) | (te[b1] & 0xff00u) | ((te[b2] << 8) & 0xff0000u) |
             ((te[b3] << 16) & 0xff000000u);
    else
      t[j] = te[b0] ^ ng_rotl32(te[b1], 8) ^ ng_rotl32(te[b2], 16) ^ ng_rotl32(te[b3], 24);
  }
  for (j = 0; j < 4; j++) s[j] = t[j] ^ rk[j];
}

/* 16 bytes = the 8 r16 values of block `block` */
ACTQ_HD void ng_ars5_soft(const ng_ars_rk *k, const uint32_t *te, uint64_t offset,
                          uint64_t block, uint32_t out[4]) {
  uint32_t s[4];
  int r, j;
  s[0] = (uint32_t)block;
  s[1] = (uint32_t)(block >> 32);
  s[2] = (uint32_t)offset;
  s[3] = (uint32_t)(offset >> 32);
  for (j = 0; j < 4; j++) s[j] ^= k->w[0][j];
  for (r = 1; r < 5; r++) ng_aes_round(s, k->w[r], te, 0);
  ng_aes_round(s, k->w[5], te, 1);
  for (j = 0; j < 4; j++) out[j] = s[j];
}

/* ---- ars5 (x86 AES-NI) -------------------------------------------------------------- */
#if defined(__AES__)
#include <wmmintrin.h>
typedef struct ng_ars_key {
  __m128i rk[6];
} ng_ars_key;

static inline ng_ars_key ng_ars_derive(uint64_t seed) {
  ng_ars_key k;
  const __m128i w = _mm_set_epi64x((long long)NG_ARS_W1, (long long)NG_ARS_W0);
  int r;
  k.rk[0] = _mm_set_epi64x(0, (long long)seed);
  for (r = 1; r < 6; r++) k.rk[r] = _mm_add_epi64(k.rk[r - 1], w);
  return k;
}

/* counter = {block, offset} as two 64-bit words, 16 bytes out = 8 elements */
static inline __m128i ng_ars5(const ng_ars_key *k, uint64_t offset, uint64_t block) {
  __m128i v = _mm_xor_si128(_mm_set_epi64x((long long)offset, (long long)block), k->rk[0]);
  v = _mm_aesenc_si128(v, k->rk[1]);
  v = _mm_aesenc_si128(v, k->rk[2]);
  v = _mm_aesenc_si128(v, k->rk[3]);
  v = _mm_aesenc_si128(v, k->rk[4]);
  return _mm_aesenclast_si128(v, k->rk[5]);
}
#endif

#endif /* ACTQ_BENCH_NOISE_GEN_H */
