/* alloc.h - internal interface of the bit-allocation solvers (actq_allocate_bits).
 *
 * The public call validates its arguments and turns them into an alloc_problem: the
 * allowed widths a[0] < ... < a[k-1], the per-width noise factor w[j] = 1/(2^a[j]-1)^2,
 * and the budget as an exact integer (sum numel*bits <= budget). The solvers choose a
 * width index x[i] in 0..k-1 per item and never see invalid input. */
#ifndef ACTQ_ALLOC_H
#define ACTQ_ALLOC_H

#include <float.h>
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

/* An item the exact solver's reduction left undecided: its kept widths are the
 * indices lo..hi (lo < hi). */
typedef struct alloc_free {
  uint32_t idx;
  uint8_t lo, hi;
} alloc_free;

/* The exact solver stops after this much work (a unit: one candidate state or one upgrade
 * scanned; about 1 s of CPU on a 2-core 2026 cloud VM) or this many states kept over all
 * levels (5 bytes each; the peak memory of a call stays under 100 MB), and reports
 * ACTQ_ERR_UNSUPPORTED rather than an unproven answer. */
#define ALLOC_WORK_LIMIT 400000000ull
#define ALLOC_STATE_LIMIT 16000000ull

/* Greedy upgrades (docs in greedy.c); x must hold m entries. */
actq_status alloc_greedy(const alloc_problem *p, uint8_t *x);
/* Exact branch and bound (docs in exact.c); x must hold m entries. */
actq_status alloc_exact(const alloc_problem *p, uint8_t *x);

/* The frontier DP over the free items (docs in frontier.c). cap: bits above their lo
 * widths; base: the loss of everything else (the fixed items). Lowers *U and writes widths[t] for f[t] (*improved = 1)
 * when it finds a solution better than *U by more than the tie margin; otherwise the
 * incumbent is optimal. ACTQ_ERR_UNSUPPORTED past the limits above. */
actq_status alloc_frontier(const alloc_problem *p, const alloc_free *f, size_t nf,
                           uint64_t cap, double base, double *U,
                           uint8_t *widths, int *improved);

/* Floating-point tie margin of the exact solver: bounds and objectives are sums of m rounded
 * terms (with cancellation in the LP's), so a relative 1e-12 + 4 m epsilon of U. */
static inline double alloc_tie_margin(const alloc_problem *p, double u) {
  return u * (1e-12 + 4.0 * (double)p->m * DBL_EPSILON);
}

/* sum_i s[i] * w[x[i]] in index order (the reported objective). */
double alloc_objective(const alloc_problem *p, const uint8_t *x);

/* Gain per bit*element of moving one item from width index j to j+1, per unit of s/n. */
static inline double alloc_step_gain(const alloc_problem *p, uint32_t j) {
  return (p->w[j] - p->w[j + 1]) / (double)(p->a[j + 1] - p->a[j]);
}

#endif /* ACTQ_ALLOC_H */
