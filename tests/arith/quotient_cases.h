/* quotient_cases.h - the inputs on which actq_quot_rcp could differ from the division.
 *
 * In the frame a = A * 2^-23, b = B * 2^-23 (A, B in [2^23, 2^24): every quotient of the
 * kernels' domain is one of these scaled by a power of two, and inside the domain every
 * intermediate scales with it exactly), the corrected value of actq_quot_rcp is within a
 * relative 2^-45.99 of a/b (docs/format.md). It can round differently from a/b only if a
 * rounding midpoint M lies that close to a/b. Writing the distance as
 *     A/B - M = k / (B * 2^s),   k = A * 2^s - B * (2j + 1),
 * with s = 24 for quotients in [1, 2) (M = (2j+1) 2^-24) and s = 25 for quotients in
 * [1/2, 1) (M = (2j+1) 2^-25), the bound leaves |k| <= 4 (s = 24) and |k| <= 8 (s = 25).
 * For one B this file lists every A with |k| <= QUOT_K (a margin over both) by solving
 * A * 2^s = k (mod B), and compares actq_quot_rcp with the division on each.
 */
#ifndef ACTQ_TESTS_QUOTIENT_CASES_H
#define ACTQ_TESTS_QUOTIENT_CASES_H

#include <stdint.h>
#include <stdio.h>

#include "src/arith/quant.h"

#define QUOT_K 16

/* p^-1 mod m, m odd and > 1 */
static uint64_t quot_inverse(uint64_t p, uint64_t m) {
  int64_t t = 0, nt = 1, r = (int64_t)m, nr = (int64_t)(p % m);
  while (nr) {
    int64_t q = r / nr, x;
    x = t - q * nt, t = nt, nt = x;
    x = r - q * nr, r = nr, nr = x;
  }
  return (uint64_t)(t < 0 ? t + (int64_t)m : t);
}

/* The division as the reference computes it, kept out of constant folding. */
static float quot_divide(float a, float b) {
  volatile float va = a;
  return va / b;
}

/* A way to compute num / sc from rcp = RN(1 / sc): actq_quot_rcp, or a broken one that a
 * test uses to show that these inputs catch it. */
typedef float (*quot_fn)(float num, float sc, float rcp);

/* Checks every hard A for significand B with f; returns how many (A, B) were compared,
 * adds the disagreements to *fails and prints the first few when `verbose`. */
static uint64_t quot_check_significand_with(quot_fn f, uint32_t B, uint64_t *fails,
                                            int verbose) {
  const float b = (float)B * 0x1p-23f;
  const float y = quot_divide(1.0f, b); /* actq_group_meta_compute's rcp */
  const int v = __builtin_ctz(B);
  const uint64_t g = 1ull << v, Bp = B >> v; /* gcd(2^s, B) = 2^v, v <= 23 < s */
  uint64_t tested = 0;
  int s, k;
  for (s = 24; s <= 25; s++) {
    const uint64_t inv = Bp == 1 ? 0 : quot_inverse((1ull << (s - v)) % Bp, Bp);
    const uint32_t lo = s == 24 ? B : 1u << 23, hi = s == 24 ? 1u << 24 : B;
    for (k = -QUOT_K; k <= QUOT_K; k++) {
      uint64_t A, a0;
      if (k % (int64_t)g) continue;
      /* A * 2^(s-v) = k / 2^v (mod Bp) */
      a0 = Bp == 1 ? 0
                   : (uint64_t)((k / (int64_t)g) % (int64_t)Bp + (int64_t)Bp) % Bp * inv % Bp;
      for (A = lo + (a0 + Bp - lo % Bp) % Bp; A < hi; A += Bp) {
        const float a = (float)A * 0x1p-23f;
        const float t = f(a, b, y), d = quot_divide(a, b);
        tested++;
        if (actq_f32_bits(t) != actq_f32_bits(d)) {
          if (verbose && *fails < 10)
            printf("quot_rcp(%a, %a) = %a, division %a (A=%llu B=%u k=%d)\n", a, b, t, d,
                   (unsigned long long)A, B, k);
          ++*fails;
        }
        if (Bp == 1) break; /* B a power of two: a/b is exact, one A stands for all */
      }
    }
  }
  return tested;
}

static float quot_rcp(float num, float sc, float rcp) { return actq_quot_rcp(num, sc, rcp); }

static uint64_t quot_check_significand(uint32_t B, uint64_t *fails) {
  return quot_check_significand_with(quot_rcp, B, fails, 1);
}

#endif /* ACTQ_TESTS_QUOTIENT_CASES_H */
