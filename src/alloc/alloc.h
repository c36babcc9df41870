/* alloc.h - internal interface of the bit-allocation solvers (actq_allocate_bits).
 *
 * The public call validates its arguments and turns them into an alloc_problem: the
 * allowed widths a[0] < ... < a[k-1], the per-width noise factor w[j] = 1/(2^a[j]-1)^2,
 * and the budget as an exact integer (sum numel*bits <= budget). The solvers choose a
 * width index x[i] in 0..k-1 per item and never see invalid input. */
#ifndef ACTQ_ALLOC_H
#define ACTQ_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "actq.h"

typedef struct alloc_problem {
  size_t m;
  const double *s;   /* sensitivities: finite, >= 0 */
  const uint64_t *n; /* numel; sum(n) * 8 fits in uint64_t */
  uint32_t k;        /* number of allowed widths, 1..8 */
  uint32_t a[8];     /* allowed widths, increasing */
  double w[8];       /* 1 / (2^a[j] - 1)^2, strictly decreasing and convex in a[j] */
  uint64_t total;    /* sum of n */
  uint64_t budget;   /* floor(average_bits * total), capped at a[k-1] * total */
} alloc_problem;

/* Active items (n > 0) ordered by s/n decreasing, equal ratios by index increasing.
 * Writes the count to *count; order must hold m entries. ACTQ_ERR_OUT_OF_MEMORY only. */
actq_status alloc_order_by_ratio(const alloc_problem *p, uint32_t *order, size_t *count);

/* Greedy upgrades (docs in greedy.c); x must hold m entries. */
actq_status alloc_greedy(const alloc_problem *p, uint8_t *x);
/* Exact branch and bound (docs in exact.c); x must hold m entries. */
actq_status alloc_exact(const alloc_problem *p, uint8_t *x);

/* sum_i s[i] * w[x[i]] in index order (the reported objective). */
double alloc_objective(const alloc_problem *p, const uint8_t *x);

/* Gain per bit*element of moving one item from width index j to j+1, per unit of s/n. */
static inline double alloc_step_gain(const alloc_problem *p, uint32_t j) {
  return (p->w[j] - p->w[j + 1]) / (double)(p->a[j + 1] - p->a[j]);
}

#endif /* ACTQ_ALLOC_H */
