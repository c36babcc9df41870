/* greedy.c - ACTQ_ALLOC_GREEDY: marginal-gain upgrades.
 *
 * Every item starts at the smallest allowed width. An upgrade of item i from width index
 * j to j+1 gains s_i*(w[j]-w[j+1]) for n_i*(a[j+1]-a[j]) more bits: its key (gain per
 * bit*element) is (s_i/n_i) * g_j with g_j = (w[j]-w[j+1])/(a[j+1]-a[j]). Upgrades are
 * taken best key first; one that does not fit the remaining budget freezes its item at
 * its current width, and the others continue. This is the textbook heap greedy (a heap
 * holding each unfrozen item's next upgrade; tests/alloc checks the two agree), computed
 * without the heap: w is convex in the width, so g_0 > g_1 > ... and an item's keys
 * decrease; and every key is the item's ratio times a factor shared by all items, so the
 * global order of upgrades is the merge of k-1 lists that are all the items sorted once by
 * s/n.
 *
 * Two shortcuts give the same widths as walking the whole merge:
 * - Bulk: no upgrade can freeze before the running cost exceeds the budget, so every
 *   upgrade with a key above a threshold kappa is taken at once, kappa being the smallest
 *   (found by bisection over the doubles) whose upgrades above it all fit. In each list
 *   those are a prefix, found by binary search; prefix sums of numel give their cost.
 * - Skip: the budget left only shrinks, so an upgrade that costs more than what is left
 *   now would freeze its item whenever reached; the merge steps over such items, 64 at a
 *   time where a block's smallest numel is already too large.
 * Cost: one radix sort, O(m) passes, and a merge over the upgrades that still fit.
 *
 * Ties (equal keys, as computed in double) go to the smaller step j, then to the larger
 * s/n, then to the lower index. Items with n = 0 cost nothing and get the largest width.
 *
 * Optimal when all n_i are equal and the widths consecutive: every upgrade then costs the
 * same n bits, so the budget buys a fixed number of upgrades and the greedy takes the
 * largest gains available (each item's gains decrease), which is the optimum. Not optimal
 * in general: a cheap upgrade taken early can block a larger one that no longer fits. */
#include <stdlib.h>
#include <string.h>

#include "src/alloc/alloc.h"

#define BLOCK 64u

typedef struct greedy_lists {
  size_t c;             /* active items, in ratio order */
  const double *ratio;  /* s/n by position */
  const uint64_t *n;    /* numel by position */
  const uint64_t *pn;   /* pn[t] = numel of positions < t */
  const uint64_t *bmin; /* smallest numel of each block of BLOCK positions */
  uint8_t *width;       /* width index by position */
  uint32_t steps;       /* k - 1 lists */
  double g[8];
  uint64_t d[8];        /* a[j+1] - a[j] */
} greedy_lists;

/* Positions whose upgrade j has a key above kappa: a prefix, since keys fall along a list. */
static size_t count_above(const greedy_lists *L, uint32_t j, double kappa) {
  size_t lo = 0, hi = L->c;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (L->ratio[mid] * L->g[j] > kappa) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static uint64_t cost_above(const greedy_lists *L, double kappa) {
  uint64_t cost = 0;
  uint32_t j;
  for (j = 0; j < L->steps; j++) cost += L->d[j] * L->pn[count_above(L, j, kappa)];
  return cost;
}

static double double_of(uint64_t bits) {
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

/* The bulk: takes every upgrade with a key above the smallest kappa whose upgrades fit;
 * sets ptr[j] to the first position of list j left for the merge. Returns their cost. */
static uint64_t take_bulk(const greedy_lists *L, uint64_t left, size_t *ptr) {
  /* non-negative doubles order as their bit patterns: bisect those, from +0 to +Inf */
  uint64_t lo = 0, hi = 0x7ff0000000000000ull, cost;
  double kappa;
  uint32_t j;
  size_t t;
  if (cost_above(L, double_of(lo)) <= left) {
    hi = lo;
  } else {
    while (hi - lo > 1) { /* cost_above(lo) > left >= cost_above(hi) */
      uint64_t mid = lo + (hi - lo) / 2;
      if (cost_above(L, double_of(mid)) <= left) hi = mid;
      else lo = mid;
    }
  }
  kappa = double_of(hi);
  cost = cost_above(L, kappa);
  for (j = 0; j < L->steps; j++) ptr[j] = count_above(L, j, kappa);
  /* ptr[0] >= ptr[1] >= ...: a position's width is the number of lists it is below */
  for (j = L->steps; j-- > 0;)
    for (t = j + 1 < L->steps ? ptr[j + 1] : 0; t < ptr[j]; t++) L->width[t] = (uint8_t)(j + 1);
  return cost;
}

/* The next position of list j from q on that may still be upgraded there: its upgrade fits
 * in left, and its item is at width j, or at a width w < j that is not final yet (list w
 * has not passed it: head[w] <= q; the merge checks the width when it gets there, by which
 * time every list before j has passed it). L->c if none. */
static size_t next_head(const greedy_lists *L, uint32_t j, size_t q, uint64_t left,
                        const size_t *head) {
  const uint64_t limit = left / L->d[j]; /* fits iff numel <= limit */
  while (q < L->c) {
    if (q % BLOCK == 0 && L->bmin[q / BLOCK] > limit) {
      q += BLOCK;
      continue;
    }
    if (L->n[q] <= limit && (L->width[q] == j || head[L->width[q]] <= q)) break;
    q++;
  }
  return q < L->c ? q : L->c;
}

actq_status alloc_greedy(const alloc_problem *p, uint8_t *x) {
  uint32_t *order;
  double *ratio = NULL;
  uint64_t *nsort = NULL, *pn = NULL, *bmin = NULL, nmin, left;
  uint8_t *width = NULL;
  size_t i, c = 0, ptr[8], head[8], nblock;
  uint32_t j, dmin;
  greedy_lists L;
  actq_status st;

  for (i = 0; i < p->m; i++) x[i] = p->n[i] ? 0 : (uint8_t)(p->k - 1);
  left = p->budget - (uint64_t)p->a[0] * p->total; /* validated: the minimum fits */
  if (p->k == 1) return ACTQ_OK;

  order = (uint32_t *)malloc((p->m ? p->m : 1) * sizeof *order);
  if (!order) return ACTQ_ERR_OUT_OF_MEMORY;
  st = alloc_order_by_ratio(p, order, &c);
  if (st != ACTQ_OK) goto done;
  nblock = (c + BLOCK - 1) / BLOCK;
  ratio = (double *)malloc((c ? c : 1) * sizeof *ratio);
  nsort = (uint64_t *)malloc((c ? c : 1) * sizeof *nsort);
  pn = (uint64_t *)malloc((c + 1) * sizeof *pn);
  bmin = (uint64_t *)malloc((nblock ? nblock : 1) * sizeof *bmin);
  width = (uint8_t *)calloc(c ? c : 1, 1);
  if (!ratio || !nsort || !pn || !bmin || !width) {
    st = ACTQ_ERR_OUT_OF_MEMORY;
    goto done;
  }
  /* the items by sorted position, so that every pass reads sequential memory */
  nmin = c ? UINT64_MAX : 0;
  pn[0] = 0;
  for (i = 0; i < c; i++) {
    uint64_t n = p->n[order[i]];
    ratio[i] = p->s[order[i]] / (double)n;
    nsort[i] = n;
    pn[i + 1] = pn[i] + n;
    if (i % BLOCK == 0) bmin[i / BLOCK] = n;
    if (n < bmin[i / BLOCK]) bmin[i / BLOCK] = n;
    if (n < nmin) nmin = n;
  }
  L.c = c;
  L.ratio = ratio;
  L.n = nsort;
  L.pn = pn;
  L.bmin = bmin;
  L.width = width;
  L.steps = p->k - 1;
  dmin = 8;
  for (j = 0; j < L.steps; j++) {
    L.g[j] = alloc_step_gain(p, j);
    L.d[j] = p->a[j + 1] - p->a[j];
    if (L.d[j] < dmin) dmin = (uint32_t)L.d[j];
  }

  left -= take_bulk(&L, left, ptr);
  for (j = 0; j < L.steps; j++) head[j] = ptr[j]; /* positions below ptr[j] are final */
  for (j = 0; j < L.steps; j++) head[j] = next_head(&L, j, ptr[j], left, head);
  while (left >= nmin * dmin) {
    /* the best head among the k-1 lists; strict '>' keeps the smaller j on ties */
    uint32_t best = L.steps;
    double bkey = 0.0;
    size_t q;
    for (j = 0; j < L.steps; j++) {
      if (head[j] < c) {
        double key = ratio[head[j]] * L.g[j];
        if (best == L.steps || key > bkey) {
          best = j;
          bkey = key;
        }
      }
    }
    if (best == L.steps) break;
    q = head[best];
    /* at width best (final now: a list before best with its head at or before q would
     * hold a larger key), and it fits; else the item keeps its width: it freezes */
    if (width[q] == best && nsort[q] * L.d[best] <= left) {
      left -= nsort[q] * L.d[best];
      width[q] = (uint8_t)(best + 1);
    }
    head[best] = next_head(&L, best, q + 1, left, head);
  }
  for (i = 0; i < c; i++) x[order[i]] = width[i];
done:
  free(order);
  free(ratio);
  free(nsort);
  free(pn);
  free(bmin);
  free(width);
  return st;
}
