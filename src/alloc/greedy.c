/* greedy.c - ACTQ_ALLOC_GREEDY: marginal-gain upgrades.
 *
 * Every item starts at the smallest allowed width. An upgrade of item i from width index
 * j to j+1 gains s_i*(w[j]-w[j+1]) for n_i*(a[j+1]-a[j]) more bits: its key (gain per
 * bit*element) is (s_i/n_i) * g_j with g_j = (w[j]-w[j+1])/(a[j+1]-a[j]). Upgrades are
 * taken best key first; one that does not fit the remaining budget freezes its item at
 * its current width, and the others continue. This is the textbook heap greedy (a heap
 * holding each unfrozen item's next upgrade), computed without the heap: w is convex in
 * the width, so g_0 > g_1 > ... and an item's keys decrease; and every key is the item's
 * ratio times a factor shared by all items, so the global order of upgrades is the merge
 * of k-1 lists that are all the items sorted once by s/n. Cost: one radix sort plus
 * O(m*k) merge steps.
 *
 * Ties (equal keys, as computed in double) go to the smaller step j, then to the larger
 * s/n, then to the lower index. Items with n = 0 cost nothing and get the largest width.
 *
 * Optimal when all n_i are equal and the widths consecutive: every upgrade then costs the
 * same n bits, so the budget buys a fixed number of upgrades and the greedy takes the
 * largest gains available (each item's gains decrease), which is the optimum. Not optimal
 * in general: a cheap upgrade taken early can block a larger one that no longer fits. */
#include <stdlib.h>

#include "alloc/alloc.h"

actq_status alloc_greedy(const alloc_problem *p, uint8_t *x) {
  uint32_t *order;
  uint8_t *frozen;
  double *ratio = NULL, head[8];
  uint64_t *nsort = NULL, nmin;
  uint32_t dmin;
  size_t i, c = 0, ptr[8];
  double g[8];
  uint64_t left;
  uint32_t j, steps = p->k - 1;
  actq_status st;

  for (i = 0; i < p->m; i++) x[i] = p->n[i] ? 0 : (uint8_t)(p->k - 1);
  left = p->budget - (uint64_t)p->a[0] * p->total; /* validated: the minimum fits */
  if (steps == 0) return ACTQ_OK;

  order = (uint32_t *)malloc((p->m ? p->m : 1) * sizeof *order);
  frozen = (uint8_t *)calloc(p->m ? p->m : 1, 1);
  if (!order || !frozen) {
    free(order);
    free(frozen);
    return ACTQ_ERR_OUT_OF_MEMORY;
  }
  st = alloc_order_by_ratio(p, order, &c);
  if (st != ACTQ_OK) goto done;
  ratio = (double *)malloc((c ? c : 1) * sizeof *ratio);
  if (!ratio) {
    st = ACTQ_ERR_OUT_OF_MEMORY;
    goto done;
  }
  /* state by sorted position, so that the k-1 list pointers read sequential memory */
  nsort = (uint64_t *)malloc((c ? c : 1) * sizeof *nsort);
  if (!nsort) {
    st = ACTQ_ERR_OUT_OF_MEMORY;
    goto done;
  }
  nmin = c ? UINT64_MAX : 0;
  for (i = 0; i < c; i++) {
    if (p->n[order[i]] < nmin) nmin = p->n[order[i]];
    ratio[i] = p->s[order[i]] / (double)p->n[order[i]];
    nsort[i] = p->n[order[i]];
    frozen[i] = 0; /* by position: width index, | 0x80 once frozen */
  }
  dmin = 8;
  for (j = 0; j < steps; j++) {
    if (p->a[j + 1] - p->a[j] < dmin) dmin = p->a[j + 1] - p->a[j];
    g[j] = alloc_step_gain(p, j);
    ptr[j] = 0;
    head[j] = c ? ratio[0] * g[j] : 0.0;
  }
  for (;;) {
    /* the best head among the k-1 lists; strict '>' keeps the smaller j on ties */
    uint32_t best = steps;
    double bkey = 0.0;
    for (j = 0; j < steps; j++) {
      if (ptr[j] < c && (best == steps || head[j] > bkey)) {
        best = j;
        bkey = head[j];
      }
    }
    if (best == steps || left < nmin * dmin) break; /* nothing left can fit */
    i = ptr[best]++;
    if (ptr[best] < c) head[best] = ratio[ptr[best]] * g[best];
    if (frozen[i] != best) continue; /* frozen; else it equals best */
    {
      uint64_t cost = nsort[i] * (uint64_t)(p->a[best + 1] - p->a[best]);
      if (cost <= left) {
        left -= cost;
        frozen[i] = (uint8_t)(best + 1);
      } else {
        frozen[i] |= 0x80;
      }
    }
  }
  for (i = 0; i < c; i++) x[order[i]] = (uint8_t)(frozen[i] & 0x7f);
done:
  free(order);
  free(frozen);
  free(ratio);
  free(nsort);
  return st;
}
