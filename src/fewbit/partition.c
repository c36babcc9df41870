/* partition.c - exact DP for the optimal K-interval partition (see partition.h).
 *
 *   E_k[j] = min( E_{k-1}[j], min_{i<j} E_{k-1}[i] + cost(i, j) )
 *
 * Exact pruning, from two facts that hold for any g:
 *  - E_{k-1} is nondecreasing in its argument, so splits i with E_{k-1}[i] >= best lose;
 *  - the within-interval sum of squares is superadditive, cost(i', j) >= cost(i', i) +
 *    cost(i, j), hence E_{k-1}[i'] + cost(i', j) >= E_k[i] + cost(i, j) for all i' <= i:
 *    the downward scan stops once E_k[i] + cost(i, j) reaches the best value found.
 * A warm start at the previous j's split makes `best` good early. Nothing is assumed
 * about the shape of g (no Monge property), so the result is the exact optimum.
 */
#include "src/fewbit/partition.h"

#include <stdlib.h>
#include <string.h>

typedef struct prefix {
  double *w, *s, *q; /* n + 1 entries; sums of cells [0, i) */
} prefix;

static double cost(const prefix *p, size_t i, size_t j) {
  const double w = p->w[j] - p->w[i], s = p->s[j] - p->s[i], q = p->q[j] - p->q[i];
  const double c = w > 0 ? q - s * s / w : q;
  return c > 0 ? c : 0; /* rounding can push an exact fit a hair below zero */
}

/* Splits intervals that the optimum left out, largest first, at their middle allowed
 * edge. */
static int fill_to_k(const uint8_t *allowed, uint32_t used, uint32_t K, size_t *ends) {
  while (used < K) {
    size_t best = K, best_len = 0, k, e, lo, hi, mid = 0;
    for (k = 0; k < used; k++) {
      lo = k ? ends[k - 1] : 0;
      hi = ends[k];
      for (e = lo + 1; e < hi; e++)
        if (!allowed || allowed[e]) break;
      if (e < hi && hi - lo > best_len) {
        best = k;
        best_len = hi - lo;
      }
    }
    if (best == K) return 0;
    lo = best ? ends[best - 1] : 0;
    hi = ends[best];
    for (e = lo + 1; e < hi; e++) /* the allowed edge nearest the middle */
      if ((!allowed || allowed[e]) &&
          (mid == 0 || (e > (lo + hi) / 2 ? e - (lo + hi) / 2 : (lo + hi) / 2 - e) <
                           (mid > (lo + hi) / 2 ? mid - (lo + hi) / 2 : (lo + hi) / 2 - mid)))
        mid = e;
    memmove(ends + best + 1, ends + best, (used - best) * sizeof *ends);
    ends[best] = mid;
    used++;
  }
  return 1;
}

actq_status actq_partition(size_t n, const double *W, const double *S, const double *Q,
                           const uint8_t *allowed, uint32_t K, size_t *ends) {
  prefix p;
  double *prev, *cur, *tmp;
  uint32_t *arg; /* arg[k*(n+1) + j]: start of the last interval, or j for "none new" */
  size_t i, j, k, used;
  actq_status st = ACTQ_OK;

  p.w = malloc((n + 1) * sizeof(double));
  p.s = malloc((n + 1) * sizeof(double));
  p.q = malloc((n + 1) * sizeof(double));
  prev = malloc((n + 1) * sizeof(double));
  cur = malloc((n + 1) * sizeof(double));
  arg = K > 1 ? malloc((size_t)K * (n + 1) * sizeof(uint32_t)) : NULL;
  if (!p.w || !p.s || !p.q || !prev || !cur || (K > 1 && !arg) || n >= UINT32_MAX) {
    st = ACTQ_ERR_OUT_OF_MEMORY;
    goto done;
  }
  p.w[0] = p.s[0] = p.q[0] = 0;
  for (i = 0; i < n; i++) {
    p.w[i + 1] = p.w[i] + W[i];
    p.s[i + 1] = p.s[i] + S[i];
    p.q[i + 1] = p.q[i] + Q[i];
  }
  for (j = 0; j <= n; j++) prev[j] = cost(&p, 0, j);
  for (j = 1; j <= n; j++) /* E is nondecreasing in j; keep rounding from saying otherwise */
    if (prev[j] < prev[j - 1]) prev[j] = prev[j - 1];
  for (k = 1; k < K; k++) {
    uint32_t *a = arg + k * (n + 1);
    cur[0] = 0;
    a[0] = 0;
    for (j = 1; j <= n; j++) {
      double best = prev[j];
      uint32_t best_i = (uint32_t)j;
      size_t lo, hi, warm = a[j - 1];
      /* warm start at the previous j's split: optimal splits move slowly */
      if (warm >= 1 && warm < j && (!allowed || allowed[warm])) {
        const double c = prev[warm] + cost(&p, warm, j);
        if (c < best) {
          best = c;
          best_i = (uint32_t)warm;
        }
      }
      /* prev is nondecreasing: splits with prev[i] >= best cannot win */
      lo = 0;
      hi = j; /* find the first i in [1, j) with prev[i] >= best */
      while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (prev[mid] >= best) hi = mid; else lo = mid;
      }
      for (i = hi - 1; i >= 1; i--) {
        const double c = cost(&p, i, j);
        /* every split i' <= i costs at least cur[i] + c (superadditivity of the
         * within-interval sum of squares): nothing further down can win */
        if (cur[i] + c >= best) break;
        if ((!allowed || allowed[i]) && prev[i] + c < best) {
          best = prev[i] + c;
          best_i = (uint32_t)i;
        }
      }
      cur[j] = best > cur[j - 1] ? best : cur[j - 1];
      a[j] = best_i;
    }
    tmp = prev;
    prev = cur;
    cur = tmp;
  }

  /* backtrack the interval ends, last to first, then fill up to K */
  used = 0;
  j = n;
  for (k = K; k-- > 1;) {
    uint32_t i0 = arg[k * (n + 1) + j];
    if (i0 == j) continue;
    cur[used++] = (double)j;
    j = i0;
  }
  cur[used++] = (double)j;
  for (k = 0; k < used; k++) ends[k] = (size_t)cur[used - 1 - k];
  if (!fill_to_k(allowed, (uint32_t)used, K, ends)) st = ACTQ_ERR_INVALID_ARGUMENT;

done:
  free(p.w);
  free(p.s);
  free(p.q);
  free(prev);
  free(cur);
  free(arg);
  return st;
}
