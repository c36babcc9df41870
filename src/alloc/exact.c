/* exact.c - ACTQ_ALLOC_EXACT: the optimum of the multiple-choice knapsack
 *   minimize sum_i s_i w[x_i]  subject to  sum_i n_i a[x_i] <= budget
 * by Lagrangian reduction, then dynamic programming over the (cost, loss) frontier of
 * the items the reduction leaves open (frontier.c).
 *
 * 1. Items with n = 0 take the largest width (free); items with s = 0 the smallest (no
 *    loss, least cost); neither changes the optimum. The greedy solution is the first
 *    incumbent U.
 * 2. The LP relaxation: w is convex in the width, so every item's (cost, loss) points lie
 *    on their convex hull and the LP is solved by the greedy's upgrade order without
 *    freezing, filling the first upgrade that does not fit fractionally. Its key is the
 *    dual price lambda. An integral LP solution is optimal and returned.
 * 3. Reduction: for any feasible x, loss(x) >= loss(x) + lambda*(cost(x) - budget)
 *    = LR + sum_i p_i(x_i), with h_i = min_j (s_i w_j + lambda n_i a_j), the penalties
 *    p_i(j) = s_i w_j + lambda n_i a_j - h_i >= 0 and LR = sum_i h_i - lambda*budget,
 *    which is the LP's value. A width j with LR + p_i(j) >= U - tol cannot improve on U
 *    and is dropped. p_i is convex in j, so the kept widths are an interval; items left
 *    with one width are fixed. (Both are computed from the LP solution, in sums that do not
 *    cancel: see the code.)
 * 4. The frontier DP over the free items, with LP bounds against U.
 *
 * tol (alloc_tie_margin) is the floating-point tie margin: a solution replaces the
 * incumbent only when it is better by more than tol, so the result is the optimum up to that
 * relative margin (the rounding of the sums themselves), and among solutions within that
 * margin of each other the first found wins: the greedy's if it is within it. The search is
 * deterministic, and it reports ACTQ_ERR_UNSUPPORTED rather than an unproven answer past
 * ALLOC_WORK_LIMIT / ALLOC_STATE_LIMIT. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "src/alloc/alloc.h"

static uint64_t gcd64(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

actq_status alloc_exact(const alloc_problem *p, uint8_t *x) {
  actq_status st;
  uint32_t *order = NULL;
  uint8_t *lpx = NULL, *widths = NULL;
  alloc_free *f = NULL;
  size_t i, c = 0, nf = 0, t;
  uint32_t j, k = p->k;
  uint64_t bact, left, locost = 0;
  double U, tol, base, lambda = 0.0, llp, lr, fixloss, frac = 0.0, g[8];
  size_t frac_item = SIZE_MAX;
  int integral = 1, improved = 0;

  st = alloc_greedy(p, x);
  if (st != ACTQ_OK || k == 1) return st;
  U = alloc_objective(p, x);
  tol = alloc_tie_margin(p, U);
  if (U == 0.0) return ACTQ_OK; /* nothing is below zero loss */

  order = (uint32_t *)malloc(p->m * sizeof *order);
  lpx = (uint8_t *)malloc(p->m);
  if (!order || !lpx) { st = ACTQ_ERR_OUT_OF_MEMORY; goto done; }
  st = alloc_order_by_ratio(p, order, &c);
  if (st != ACTQ_OK) goto done;
  while (c > 0 && p->s[order[c - 1]] == 0.0) c--; /* s = 0: smallest width, fixed */

  /* 2. the LP relaxation over the active items order[0..c) */
  bact = p->budget - (uint64_t)p->a[0] * p->total; /* bits above all-smallest */
  {
    /* Every reachable cost above the all-smallest one is a multiple of gcd(n_i*(a_j-a_0)),
     * so the budget rounds down to that lattice: the LP tightens (with equal numel and
     * consecutive widths it becomes integral) and nothing feasible is lost. */
    /* gcd over i, j of n_i * d_j = gcd(n) * gcd(d) */
    uint64_t gn = 0, gd = 0;
    for (j = 1; j < k; j++) gd = gcd64(gd, p->a[j] - p->a[0]);
    for (i = 0; i < c && gn != 1; i++) gn = gcd64(gn, p->n[order[i]]);
    if (gn > 0 && gn * gd > 1) bact -= bact % (gn * gd);
  }
  left = bact;
  for (i = 0; i < p->m; i++) lpx[i] = 0;
  /* items with n = 0 sit at the largest width outside the search: a constant loss */
  base = 0.0;
  for (i = 0; i < p->m; i++) if (p->n[i] == 0) base += p->s[i] * p->w[k - 1];
  for (j = 0; j + 1 < k; j++) g[j] = alloc_step_gain(p, j);
  {
    size_t ptr[8] = {0};
    for (;;) {
      uint32_t bj = k - 1;
      double bkey = 0.0;
      uint64_t cost;
      uint32_t it;
      for (j = 0; j + 1 < k; j++) {
        if (ptr[j] < c) {
          double key = (p->s[order[ptr[j]]] / (double)p->n[order[ptr[j]]]) * g[j];
          if (bj == k - 1 || key > bkey) { bj = j; bkey = key; }
        }
      }
      if (bj == k - 1) break;
      it = order[ptr[bj]++];
      cost = p->n[it] * (uint64_t)(p->a[bj + 1] - p->a[bj]);
      if (cost <= left) {
        left -= cost;
        lpx[it] = (uint8_t)(bj + 1);
      } else if (left == 0) {
        break; /* the budget is used exactly: the LP solution is integral */
      } else {
        lambda = bkey;
        frac_item = it;
        frac = (double)left / (double)cost;
        integral = 0;
        break;
      }
    }
  }
  for (i = 0; i < p->m; i++) if (p->n[i] == 0) lpx[i] = (uint8_t)(k - 1);
  if (integral) { /* every active item at its largest width fits: optimal */
    memcpy(x, lpx, p->m);
    goto done;
  }
  /* The LP's value, as a sum of non-negative terms: from all-smallest minus the gains, the
   * rounding of s w[0] (which may exceed the optimum by many orders of magnitude) would
   * swamp the differences that matter. The fractional item: s (w[j+1] + (1-f)(w[j]-w[j+1])). */
  llp = base;
  for (t = 0; t < c; t++) {
    i = order[t];
    if (i == frac_item)
      llp += p->s[i] * (p->w[lpx[i] + 1] + (1.0 - frac) * (p->w[lpx[i]] - p->w[lpx[i] + 1]));
    else
      llp += p->s[i] * p->w[lpx[i]];
  }
  if (llp >= U - tol) goto done; /* the greedy is optimal within the tie margin */

  /* 3. reduction by penalties at lambda */
  f = (alloc_free *)malloc((c + 1) * sizeof *f);
  widths = (uint8_t *)malloc(c + 1);
  if (!f || !widths) { st = ACTQ_ERR_OUT_OF_MEMORY; goto done; }
  /* The Lagrangian bound at lambda equals the LP's value (strong duality of the convex
   * relaxation), so lr = llp, and the penalty of width j is measured from the item's LP
   * width j* (a minimizer at lambda): p(j) = s (w[j] - w[j*]) + lambda n (a[j] - a[j*]).
   * Neither is formed from sums over all widths or all items that cancel, so the test keeps
   * the accuracy of the LP's own terms. */
  lr = llp;
  fixloss = base;
  for (t = 0; t < c; t++) {
    int lo = -1, hi = -1;
    uint32_t js;
    i = order[t];
    js = lpx[i];
    for (j = 0; j < k; j++) {
      double pen = p->s[i] * (p->w[j] - p->w[js]) +
                   lambda * (double)p->n[i] * ((double)p->a[j] - (double)p->a[js]);
      if (lr + pen < U - tol) {
        if (lo < 0) lo = (int)j;
        hi = (int)j;
      }
    }
    if (lo < 0) goto done; /* no width of this item can improve on U: the greedy is optimal */
    lpx[i] = (uint8_t)lo; /* from here on: the width of the items the frontier leaves */
    locost += p->n[i] * (uint64_t)(p->a[lo] - p->a[0]);
    if (lo == hi) {
      fixloss += p->s[i] * p->w[lo];
    } else {
      f[nf].idx = (uint32_t)i;
      f[nf].lo = (uint8_t)lo;
      f[nf].hi = (uint8_t)hi;
      nf++;
    }
  }
  if (locost > bact) goto done; /* the kept widths cannot fit: nothing beats U */

  /* 4. the frontier of the free items */
  st = alloc_frontier(p, f, nf, bact - locost, fixloss, &U, widths, &improved);
  if (st == ACTQ_OK && improved) {
    memcpy(x, lpx, p->m);
    for (t = 0; t < nf; t++) x[f[t].idx] = widths[t];
  }
done:
  free(order); free(lpx); free(f); free(widths);
  return st;
}
