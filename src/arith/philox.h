/* philox.h - Philox4x32-10 (Salmon et al., SC'11) and the noise mapping of quantize.
 *
 * Noise for element e (= r*cols + c) with (seed, offset):
 *   block  = e / 8, lane = e % 8
 *   out[4] = Philox4x32-10(counter = {lo32(block), hi32(block), lo32(offset), hi32(offset)},
 *                          key     = {lo32(seed), hi32(seed)})
 *   r16    = 16-bit half `lane % 2` (0 = low half) of out[lane / 2]
 *   u      = r16 * 2^-16 + 2^-17        (uniform on the midpoints of 2^16 cells of [0,1))
 * One Philox call feeds 8 consecutive elements. Every bit of seed and offset enters the
 * generator, and offset and element index occupy different counter words, so no two
 * (offset, e) pairs share a counter.
 */
#ifndef ACTQ_ARITH_PHILOX_H
#define ACTQ_ARITH_PHILOX_H

#include "src/arith/common.h"

#define ACTQ_PHILOX_M0 0xD2511F53u
#define ACTQ_PHILOX_M1 0xCD9E8D57u
#define ACTQ_PHILOX_W0 0x9E3779B9u
#define ACTQ_PHILOX_W1 0xBB67AE85u

/* The key of each of the 10 rounds: rk[2i], rk[2i+1] = key + i * (W0, W1). A caller that
 * runs many blocks under one key (a CUDA kernel) computes this once. */
ACTQ_HD void actq_philox_round_keys(const uint32_t key[2], uint32_t rk[20]) {
  int round;
  for (round = 0; round < 10; round++) {
    rk[2 * round] = key[0] + (uint32_t)round * ACTQ_PHILOX_W0;
    rk[2 * round + 1] = key[1] + (uint32_t)round * ACTQ_PHILOX_W1;
  }
}

/* Rounds `from` .. 9 of Philox4x32-10 on the state c, under the round keys of
 * actq_philox_round_keys. */
ACTQ_HD void actq_philox_rounds(uint32_t c[4], const uint32_t rk[20], int from) {
  uint32_t c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3];
  int round;
  for (round = from; round < 10; round++) {
    uint64_t p0 = (uint64_t)ACTQ_PHILOX_M0 * c0;
    uint64_t p1 = (uint64_t)ACTQ_PHILOX_M1 * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ rk[2 * round];
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ rk[2 * round + 1];
    c0 = n0;
    c1 = (uint32_t)p1;
    c2 = n2;
    c3 = (uint32_t)p0;
  }
  c[0] = c0;
  c[1] = c1;
  c[2] = c2;
  c[3] = c3;
}

/* Philox4x32-10 of counter ctr under the round keys of actq_philox_round_keys. */
ACTQ_HD void actq_philox4x32_10_rk(const uint32_t ctr[4], const uint32_t rk[20],
                                   uint32_t out[4]) {
  int i;
  for (i = 0; i < 4; i++) out[i] = ctr[i];
  actq_philox_rounds(out, rk, 0);
}

ACTQ_HD void actq_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
                                uint32_t out[4]) {
  uint32_t rk[20];
  actq_philox_round_keys(key, rk);
  actq_philox4x32_10_rk(ctr, rk, out);
}

/* The round keys of noise seed `seed`. */
ACTQ_HD void actq_noise_round_keys(uint64_t seed, uint32_t rk[20]) {
  uint32_t key[2];
  key[0] = (uint32_t)seed;
  key[1] = (uint32_t)(seed >> 32);
  actq_philox_round_keys(key, rk);
}

/* The four Philox output words of noise block `block` (words i holds the noise of
 * elements 8*block + 2i (low half) and 2i + 1 (high half)), from the seed's round keys. */
ACTQ_HD void actq_noise_words_rk(const uint32_t rk[20], uint64_t offset, uint64_t block,
                                 uint32_t out[4]) {
  uint32_t ctr[4];
  ctr[0] = (uint32_t)block;
  ctr[1] = (uint32_t)(block >> 32);
  ctr[2] = (uint32_t)offset;
  ctr[3] = (uint32_t)(offset >> 32);
  actq_philox4x32_10_rk(ctr, rk, out);
}

/* Round 0 of a noise block takes counter words 2 and 3 from the offset alone, so its half
 * on them is the same for every block of a call: the terms of round 0 that depend on
 * (round keys, offset) only, computed once a call (as the round keys are), for
 * actq_noise_words_r0. */
ACTQ_HD void actq_noise_round0_terms(const uint32_t rk[20], uint64_t offset, uint32_t t[3]) {
  const uint64_t p1 = (uint64_t)ACTQ_PHILOX_M1 * (uint32_t)offset;
  t[0] = (uint32_t)(p1 >> 32) ^ rk[0]; /* new word 0 = t[0] ^ block's high word */
  t[1] = (uint32_t)p1;                 /* new word 1 */
  t[2] = (uint32_t)(offset >> 32) ^ rk[1]; /* new word 2 = high half of M0 * word 0 ^ t[2] */
}

/* What a generator that runs many blocks of one (seed, offset) computes once: the round
 * keys and round 0's terms. */
typedef struct actq_noise_keys {
  uint64_t offset;
  uint32_t rk[20];
  uint32_t t[3];
} actq_noise_keys;

ACTQ_HD void actq_noise_keys_init(uint64_t seed, uint64_t offset, actq_noise_keys *k) {
  k->offset = offset;
  actq_noise_round_keys(seed, k->rk);
  actq_noise_round0_terms(k->rk, offset, k->t);
}

/* actq_noise_words_rk from the round-0 terms of actq_noise_round0_terms: round 0 is one
 * multiply and two XORs, the other rounds as ever (on the GPU: an IMAD.WIDE and the
 * offset's work fewer a block). */
ACTQ_HD void actq_noise_words_r0(const uint32_t rk[20], const uint32_t t[3], uint64_t block,
                                 uint32_t out[4]) {
  const uint64_t p0 = (uint64_t)ACTQ_PHILOX_M0 * (uint32_t)block;
  out[0] = t[0] ^ (uint32_t)(block >> 32);
  out[1] = t[1];
  out[2] = (uint32_t)(p0 >> 32) ^ t[2];
  out[3] = (uint32_t)p0;
  actq_philox_rounds(out, rk, 1);
}

/* actq_noise_block with the seed's round keys computed once (actq_noise_round_keys). */
ACTQ_HD void actq_noise_block_rk(const uint32_t rk[20], uint64_t offset, uint64_t block,
                                 uint16_t r16[8]) {
  uint32_t out[4];
  int i;
  actq_noise_words_rk(rk, offset, block, out);
  for (i = 0; i < 4; i++) {
    r16[2 * i] = (uint16_t)out[i];
    r16[2 * i + 1] = (uint16_t)(out[i] >> 16);
  }
}

ACTQ_HD void actq_noise_block(uint64_t seed, uint64_t offset, uint64_t block,
                              uint16_t r16[8]) {
  uint32_t rk[20];
  actq_noise_round_keys(seed, rk);
  actq_noise_block_rk(rk, offset, block, r16);
}

/* u in (0, 1) from 16 random bits: u = r16 * 2^-16 + 2^-17 = (2*r16 + 1) * 2^-17, exact
 * in float32. Built from bits, without an integer-to-float conversion (a quarter-rate
 * instruction on GPUs): 1 + (2*r16 + 1) * 2^-17 has (2*r16 + 1) << 6 as its significand,
 * and subtracting 1 from a float in [1, 2) is exact. */
ACTQ_HD float actq_noise_u(uint16_t r16) {
  return actq_f32_from_bits(0x3f800000u | ((uint32_t)r16 << 7) | 0x40u) - 1.0f;
}

/* Element-wise access for scalar code that walks elements in order: one Philox call per
 * block of 8, reused while e stays inside it. */
typedef struct actq_noise_cursor {
  uint64_t seed, offset, block;
  int valid;
  uint16_t r16[8];
} actq_noise_cursor;

ACTQ_HD void actq_noise_cursor_init(actq_noise_cursor *nc, uint64_t seed, uint64_t offset) {
  nc->seed = seed;
  nc->offset = offset;
  nc->block = 0;
  nc->valid = 0;
}

ACTQ_HD uint16_t actq_noise_at(actq_noise_cursor *nc, uint64_t e) {
  if (!nc->valid || nc->block != (e >> 3)) {
    nc->block = e >> 3;
    nc->valid = 1;
    actq_noise_block(nc->seed, nc->offset, nc->block, nc->r16);
  }
  return nc->r16[e & 7];
}

#endif /* ACTQ_ARITH_PHILOX_H */
