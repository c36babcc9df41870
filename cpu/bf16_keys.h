/* bf16_keys.h - bf16 values compared as 16-bit integer keys, for the few-bit codes of bf16
 * input (cpu/avx2/fewbit_avx2.c, cpu/avx512/fewbit_avx512.c).
 *
 * key(h) = h ^ ((h >> 15) & 0x7fff) orders the bf16 bit patterns, as signed words, as
 * their values are ordered (-0 just below +0). For a float bound t, x > t exactly when
 * key(x) > key(the largest bf16 <= t), with -0 taken as +0 there (x = -0 is not above 0):
 * so "bound < x" is one word compare. Bounds strictly increasing give keys that do not
 * decrease, so the compares stay monotone along the bounds (a count of them, or a binary
 * search, gives the number of bounds below x). A NaN x has a key past every bound's; the
 * kernels mask it to code 0, as the reference codes it. */
#ifndef ACTQ_CPU_BF16_KEYS_H
#define ACTQ_CPU_BF16_KEYS_H

#include <stdint.h>
#include <string.h>

/* The key of the largest bf16 <= t (t finite), -0 as +0. */
static inline uint16_t actq_bf16_floor_key(float t) {
  uint32_t u;
  uint16_t h;
  memcpy(&u, &t, 4);
  h = (uint16_t)(u >> 16);                  /* toward zero: the floor of a positive t */
  if ((u & 0xffffu) && (u >> 31)) h++;      /* negative and inexact: one step down */
  if ((h & 0x7fffu) == 0) h = 0;            /* -0 as +0 */
  return (uint16_t)(h ^ ((h & 0x8000u) ? 0x7fffu : 0u));
}

#endif /* ACTQ_CPU_BF16_KEYS_H */
