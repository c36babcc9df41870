/* bitstream.h - the packed code stream (ACTQ_FORMAT_VERSION 1).
 *
 * Element c of a row occupies bits [c*b, c*b + b) of the row's stream, least significant
 * bit first: bit k of the stream is bit k % 8 of byte k / 8. Eight codes of b bits fill
 * exactly b bytes, so the stream is handled in units of 8 codes; a row's last unit may be
 * partial, and its unused high bits are zero.
 */
#ifndef ACTQ_ARITH_BITSTREAM_H
#define ACTQ_ARITH_BITSTREAM_H

#include "src/arith/common.h"

/* Bytes of a stream of n codes of b bits: ceil(n*b/8), without overflow for any n. */
ACTQ_HD size_t actq_stream_bytes(size_t n, uint32_t bits) {
  return (n / 8) * bits + ((n % 8) * bits + 7) / 8;
}

/* A unit as one little-endian word: bit k of the unit's stream is bit k of the word. Split
 * out of the byte loops below so that vector code (CUDA) can store the word whole. */
ACTQ_HD uint64_t actq_pack_word(const uint32_t codes[8], size_t k, uint32_t bits) {
  uint64_t acc = 0;
  size_t i;
  for (i = 0; i < k; i++) acc |= (uint64_t)codes[i] << (i * bits);
  return acc;
}

/* actq_pack_word(codes, 8, bits) from the codes' biased bits (2^23 + code as a float,
 * ACTQ_CODE_BIAS + code as bits: actq_code_*_biased in src/arith/quant.h), at the widths
 * whose 8 codes fill whole 32-bit halves of the word (1, 2, 4: the low half; 8: both).
 * Each half is the sum of its shifted biased bits less the sum of the shifted biases,
 * modulo 2^32: the codes' word, since it fits. With `bits` a constant the biases fold to
 * one constant and each code costs one multiply-add. */
#define ACTQ_CODE_BIAS 0x4b000000u /* the bits of the float 2^23: code 0, biased */

ACTQ_HD int actq_pack_biased_width(uint32_t bits) {
  return bits == 1 || bits == 2 || bits == 4 || bits == 8;
}

ACTQ_HD uint64_t actq_pack_word_biased(const uint32_t biased[8], uint32_t bits) {
  const uint32_t per = bits == 8 ? 4u : 8u; /* codes in one 32-bit half */
  uint32_t half[2] = {0u, 0u}, bias = 0u, i;
  for (i = 0; i < per; i++) bias += ACTQ_CODE_BIAS << (i * bits);
  for (i = 0; i < 8; i++) half[i / per] += biased[i] << ((i % per) * bits);
  half[0] -= bias;
  if (per == 4u) half[1] -= bias;
  return (uint64_t)half[1] << 32 | half[0];
}

/* Code i of a unit word. */
ACTQ_HD uint32_t actq_unpack_code(uint64_t acc, size_t i, uint32_t bits) {
  return (uint32_t)(acc >> (i * bits)) & ((1u << bits) - 1u);
}

/* Packs k <= 8 codes (each < 2^bits) into ceil(k*bits/8) bytes at out. */
ACTQ_HD void actq_pack_unit(const uint32_t codes[8], size_t k, uint32_t bits, uint8_t *out) {
  uint64_t acc = actq_pack_word(codes, k, bits);
  size_t i, nbytes = (k * bits + 7) / 8;
  for (i = 0; i < nbytes; i++) out[i] = (uint8_t)(acc >> (8 * i));
}

/* Unpacks k <= 8 codes from ceil(k*bits/8) bytes at in. */
ACTQ_HD void actq_unpack_unit(const uint8_t *in, size_t k, uint32_t bits, uint32_t codes[8]) {
  uint64_t acc = 0;
  size_t i, nbytes = (k * bits + 7) / 8;
  for (i = 0; i < nbytes; i++) acc |= (uint64_t)in[i] << (8 * i);
  for (i = 0; i < k; i++) codes[i] = actq_unpack_code(acc, i, bits);
}

#endif /* ACTQ_ARITH_BITSTREAM_H */
