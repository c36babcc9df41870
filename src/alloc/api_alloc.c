/* api_alloc.c - actq_allocate_bits: argument checks, the exact integer budget, then the
 * chosen solver. Outputs are written only on success. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "src/alloc/alloc.h"

/* floor(v * t) for 0 <= v < 8 exactly: v = M * 2^(e-53) with an integer M < 2^53, so
 * the product is M*t (at most 117 bits, formed from 32-bit halves) shifted right. */
static uint64_t floor_product(double v, uint64_t t) {
  int e;
  double f = frexp(v, &e); /* v = f * 2^e, 0.5 <= f < 1 */
  uint64_t mm, lo, hi, a0, a1, b0, b1, p00, p01, p10, p11, mid;
  int sh;
  if (v == 0.0 || t == 0) return 0;
  mm = (uint64_t)ldexp(f, 53);
  sh = 53 - e; /* e <= 3, so sh >= 50 */
  a0 = mm & 0xffffffffu; a1 = mm >> 32;
  b0 = t & 0xffffffffu; b1 = t >> 32;
  p00 = a0 * b0; p01 = a0 * b1; p10 = a1 * b0; p11 = a1 * b1;
  mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  lo = (p00 & 0xffffffffu) | (mid << 32);
  hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  if (sh >= 128) return 0;
  if (sh >= 64) return hi >> (sh - 64);
  return (hi << (64 - sh)) | (lo >> sh);
}

/* EXACT's bounds are sums of terms s_i w_j and lambda n_i a_j, with a dual price
 * lambda <= max_i s_i w_0 / n_i. Where those sums could overflow (sensitivities near
 * DBL_MAX: fuzz/fuzz_alloc found EXACT returning widths whose objective is Inf next to a
 * finite optimum) its comparisons are meaningless, so such instances are refused as
 * ACTQ_ERR_UNSUPPORTED rather than answered unproven. The margin of 16 covers the
 * differences of two such sums. */
static int exact_magnitudes_safe(const alloc_problem *p) {
  double loss0 = 0.0, ratio = 0.0;
  size_t i;
  for (i = 0; i < p->m; i++) {
    loss0 += p->s[i] * p->w[0];
    if (p->n[i] > 0 && p->s[i] / (double)p->n[i] > ratio) ratio = p->s[i] / (double)p->n[i];
  }
  return loss0 + ratio * p->w[0] * 8.0 * (double)p->total <= DBL_MAX / 16;
}

actq_status actq_allocate_bits(size_t m, const double *sensitivity, const uint64_t *numel,
                               double average_bits, uint32_t allowed_bits,
                               actq_alloc_method method, uint8_t *bits, double *objective) {
  alloc_problem p;
  uint8_t *x;
  size_t i;
  uint32_t b;
  actq_status st;

  if (method != ACTQ_ALLOC_GREEDY && method != ACTQ_ALLOC_EXACT)
    return ACTQ_ERR_INVALID_ARGUMENT;
  if (allowed_bits == 0 || (allowed_bits & ~0x1feu) != 0) return ACTQ_ERR_INVALID_ARGUMENT;
  if (isnan(average_bits) || average_bits < 0.0) return ACTQ_ERR_INVALID_ARGUMENT;
  if (m == 0) {
    if (objective) *objective = 0.0;
    return ACTQ_OK;
  }
  if (!sensitivity || !numel || !bits) return ACTQ_ERR_INVALID_ARGUMENT;
  if (m > UINT32_MAX) return ACTQ_ERR_SIZE_OVERFLOW;

  p.m = m;
  p.s = sensitivity;
  p.n = numel;
  p.k = 0;
  for (b = 1; b <= 8; b++) {
    if (allowed_bits & (1u << b)) {
      double q = (double)((1u << b) - 1u);
      p.a[p.k] = b;
      p.w[p.k] = 1.0 / (q * q);
      p.k++;
    }
  }
  p.total = 0;
  for (i = 0; i < m; i++) {
    double s = sensitivity[i];
    if (!(s >= 0.0) || isinf(s)) return ACTQ_ERR_INVALID_ARGUMENT; /* NaN, < 0, +Inf */
    if (numel[i] > UINT64_MAX / 8 - p.total) return ACTQ_ERR_SIZE_OVERFLOW;
    p.total += numel[i];
  }
  if (average_bits >= (double)p.a[p.k - 1])
    p.budget = (uint64_t)p.a[p.k - 1] * p.total; /* never binding */
  else
    p.budget = floor_product(average_bits, p.total);
  if ((uint64_t)p.a[0] * p.total > p.budget) return ACTQ_ERR_INVALID_ARGUMENT; /* infeasible */

  if (method == ACTQ_ALLOC_EXACT && !exact_magnitudes_safe(&p)) return ACTQ_ERR_UNSUPPORTED;

  x = (uint8_t *)malloc(m);
  if (!x) return ACTQ_ERR_OUT_OF_MEMORY;
  st = method == ACTQ_ALLOC_GREEDY ? alloc_greedy(&p, x) : alloc_exact(&p, x);
  if (st == ACTQ_OK) {
    if (objective) *objective = alloc_objective(&p, x);
    for (i = 0; i < m; i++) bits[i] = (uint8_t)p.a[x[i]];
  }
  free(x);
  return st;
}
