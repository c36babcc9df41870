/* exact.c - ACTQ_ALLOC_EXACT: the optimum of the multiple-choice knapsack
 *   minimize sum_i s_i w[x_i]  subject to  sum_i n_i a[x_i] <= budget
 * by Lagrangian reduction, then depth-first branch and bound with LP bounds.
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
 *    p_i(j) = s_i w_j + lambda n_i a_j - h_i >= 0 and LR = sum_i h_i - lambda*budget.
 *    A width j with LR + p_i(j) >= U - tol cannot improve on U and is dropped. p_i is
 *    convex in j, so the kept widths are an interval; items left with one width are fixed.
 * 4. Branch and bound over the remaining items, largest n first (their choices move the
 *    budget most), children in order of penalty. A node's bound is its partial loss plus
 *    the LP of the undecided items over the budget left; it is pruned when the bound is
 *    >= U - tol, or when even the smallest kept widths of the rest no longer fit.
 *
 * tol = (1e-12 + 4 m DBL_EPSILON) * U is the floating-point tie margin: a solution replaces
 * the incumbent only when it is better by more than tol, so the result is the optimum up to
 * that relative margin (the rounding of the sums themselves), and among solutions within that margin of
 * each other the first found wins: the greedy's if it is within it, else the first in the
 * fixed search order above. The search is deterministic.
 *
 * The search stops after ALLOC_WORK_LIMIT units of work (a unit = one step of an LP bound,
 * a node counts 16; about 0.8 s on a 2-core 2026 cloud VM) and reports ACTQ_ERR_UNSUPPORTED instead of an unproven answer. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"

#define ALLOC_WORK_LIMIT 300000000ull
#define ALLOC_TOL 1e-12

typedef struct step {
  double key;   /* gain per bit*element of the upgrade */
  uint32_t pos; /* search position of the item */
  uint32_t j;   /* from width index j to j+1 */
} step;

typedef struct freeitem {
  uint32_t idx;
  uint8_t lo, hi;
} freeitem;

static int cmp_free(const void *pa, const void *pb) {
  const freeitem *a = (const freeitem *)pa, *b = (const freeitem *)pb;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Bounds and objectives are sums of m rounded terms (with cancellation in the LP's), so
 * the margin grows with m: a relative 1e-12 + 4 m epsilon. */
static double tie_margin(const alloc_problem *p, double u) {
  return u * (ALLOC_TOL + 4.0 * (double)p->m * DBL_EPSILON);
}

static uint64_t gcd64(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

static const alloc_problem *g_sort_p; /* for cmp_size only; qsort has no context */

static int cmp_size(const void *pa, const void *pb) {
  const freeitem *a = (const freeitem *)pa, *b = (const freeitem *)pb;
  uint64_t na = g_sort_p->n[a->idx], nb = g_sort_p->n[b->idx];
  double sa = g_sort_p->s[a->idx], sb = g_sort_p->s[b->idx];
  if (na != nb) return na > nb ? -1 : 1;
  if (sa != sb) return sa > sb ? -1 : 1;
  return cmp_free(pa, pb);
}

static int cmp_step(const void *pa, const void *pb) {
  const step *a = (const step *)pa, *b = (const step *)pb;
  if (a->key != b->key) return a->key > b->key ? -1 : 1;
  if (a->j != b->j) return a->j < b->j ? -1 : 1;
  return a->pos < b->pos ? -1 : a->pos > b->pos;
}

typedef struct search {
  const alloc_problem *p;
  freeitem *f;     /* free items in search order */
  size_t nf;
  step *st;        /* their upgrades, best key first */
  size_t nst;
  double *sfx_loss;  /* sum over positions >= d of s w[lo] */
  uint64_t *sfx_cost; /* sum over positions >= d of n a[lo] */
  double *sfx_h;      /* sum over positions >= d of min over kept j of s w[j] + lambda n a[j] */
  uint64_t work;
} search;

/* LP of the items at positions >= d with `left` bits above their smallest kept widths. */
static double lp_bound(search *S, size_t d, uint64_t left) {
  const alloc_problem *p = S->p;
  double v = S->sfx_loss[d];
  size_t t;
  for (t = 0; t < S->nst; t++) {
    const step *u = &S->st[t];
    uint32_t i;
    uint64_t cost;
    double gain;
    if (u->pos < d) continue;
    i = S->f[u->pos].idx;
    cost = p->n[i] * (uint64_t)(p->a[u->j + 1] - p->a[u->j]);
    gain = p->s[i] * (p->w[u->j] - p->w[u->j + 1]);
    if (cost <= left) {
      left -= cost;
      v -= gain;
    } else {
      v -= gain * ((double)left / (double)cost);
      break;
    }
  }
  S->work += t + 1;
  return v;
}

actq_status alloc_exact(const alloc_problem *p, uint8_t *x) {
  actq_status st;
  uint32_t *order = NULL;
  uint8_t *lpx = NULL, *cur = NULL, *next = NULL, *nch = NULL,
          (*choice)[8] = NULL;
  double *h = NULL, *lossd = NULL;
  uint64_t *usedd = NULL;
  freeitem *f = NULL;
  step *steps = NULL;
  search S;
  size_t i, c = 0, nf = 0, nst = 0, d, t;
  uint32_t j, k = p->k;
  uint64_t bact, left, fixcost = 0, bfree;
  double U, tol, base, lambda = 0.0, llp, lr, fixloss = 0.0, g[8];
  int integral = 1;

  st = alloc_greedy(p, x);
  if (st != ACTQ_OK || k == 1) return st;
  U = alloc_objective(p, x);
  tol = tie_margin(p, U);
  if (U == 0.0) return ACTQ_OK; /* nothing is below zero loss */

  order = (uint32_t *)malloc(p->m * sizeof *order);
  lpx = (uint8_t *)malloc(p->m);
  h = (double *)malloc(p->m * sizeof *h);
  if (!order || !lpx || !h) { st = ACTQ_ERR_OUT_OF_MEMORY; goto done; }
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
  llp = base;
  for (i = 0; i < c; i++) llp += p->s[order[i]] * p->w[0];
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
        llp -= p->s[it] * (p->w[bj] - p->w[bj + 1]);
      } else if (left == 0) {
        break; /* the budget is used exactly: the LP solution is integral */
      } else {
        lambda = bkey;
        llp -= p->s[it] * (p->w[bj] - p->w[bj + 1]) * ((double)left / (double)cost);
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
  if (llp >= U - tol) goto done; /* the greedy is optimal within the tie margin */

  /* 3-4 run again from here whenever the search improves the incumbent: a lower U drops
   * more widths, so the rest of the search is smaller. Arrays are sized for all c items. */
  f = (freeitem *)malloc((c + 1) * sizeof *f);
  steps = (step *)malloc((c * (k - 1) + 1) * sizeof *steps);
  S.sfx_loss = (double *)malloc((c + 1) * sizeof(double));
  S.sfx_cost = (uint64_t *)malloc((c + 1) * sizeof(uint64_t));
  S.sfx_h = (double *)malloc((c + 1) * sizeof(double));
  cur = (uint8_t *)malloc(c + 1);
  next = (uint8_t *)malloc(c + 1);
  nch = (uint8_t *)malloc(c + 1);
  choice = (uint8_t(*)[8])malloc((c + 1) * sizeof *choice);
  lossd = (double *)malloc((c + 1) * sizeof *lossd);
  usedd = (uint64_t *)malloc((c + 1) * sizeof *usedd);
  if (!f || !steps || !S.sfx_loss || !S.sfx_cost || !S.sfx_h || !cur || !next || !nch || !choice ||
      !lossd || !usedd) {
    free(S.sfx_loss);
    free(S.sfx_cost);
    free(S.sfx_h);
    st = ACTQ_ERR_OUT_OF_MEMORY;
    goto done;
  }
  S.work = 0;
reduce:
  nf = 0;
  nst = 0;
  fixloss = base;
  fixcost = 0;
  /* 3. reduction by penalties at lambda */
  /* lpx from here on: the width of every item the search does not decide */
  for (i = 0; i < p->m; i++) lpx[i] = p->n[i] ? 0 : (uint8_t)(k - 1);
  lr = base - lambda * (double)bact;
  for (t = 0; t < c; t++) {
    double hb = 0.0;
    i = order[t];
    for (j = 0; j < k; j++) {
      double v = p->s[i] * p->w[j] + lambda * (double)p->n[i] * (double)(p->a[j] - p->a[0]);
      if (j == 0 || v < hb) hb = v;
    }
    h[i] = hb;
    lr += hb;
  }
  for (t = 0; t < c; t++) {
    int lo = -1, hi = -1;
    i = order[t];
    for (j = 0; j < k; j++) {
      double v = p->s[i] * p->w[j] + lambda * (double)p->n[i] * (double)(p->a[j] - p->a[0]);
      if (lr + (v - h[i]) < U - tol) {
        if (lo < 0) lo = (int)j;
        hi = (int)j;
      }
    }
    if (lo < 0) goto searched; /* no width of this item can improve on U */
    lpx[i] = (uint8_t)lo;
    if (lo == hi) {
      fixloss += p->s[i] * p->w[lo];
      fixcost += p->n[i] * (uint64_t)(p->a[lo] - p->a[0]);
    } else {
      f[nf].idx = (uint32_t)i;
      f[nf].lo = (uint8_t)lo;
      f[nf].hi = (uint8_t)hi;
      nf++;
    }
  }
  if (fixcost > bact) goto searched;
  bfree = bact - fixcost; /* bits above the smallest width for the free items */

  /* 4. branch and bound over the free items */
  g_sort_p = p;
  qsort(f, nf, sizeof *f, cmp_size);
  for (t = 0; t < nf; t++) {
    i = f[t].idx;
    for (j = f[t].lo; j < f[t].hi; j++) {
      steps[nst].key = (p->s[i] / (double)p->n[i]) * g[j];
      steps[nst].pos = (uint32_t)t;
      steps[nst].j = j;
      nst++;
    }
  }
  /* sorting and scanning millions of undecided upgrades is beyond the work limit anyway */
  S.work += nst * 64;
  if (S.work > ALLOC_WORK_LIMIT) {
    st = ACTQ_ERR_UNSUPPORTED;
    goto searched;
  }
  qsort(steps, nst, sizeof *steps, cmp_step);
  S.sfx_loss[nf] = 0.0;
  S.sfx_cost[nf] = 0;
  S.sfx_h[nf] = 0.0;
  for (t = nf; t-- > 0;) {
    i = f[t].idx;
    S.sfx_h[t] = S.sfx_h[t + 1] + h[i]; /* the kept interval holds the minimizer */
    S.sfx_loss[t] = S.sfx_loss[t + 1] + p->s[i] * p->w[f[t].lo];
    S.sfx_cost[t] = S.sfx_cost[t + 1] + p->n[i] * (uint64_t)(p->a[f[t].lo] - p->a[0]);
  }
  S.p = p; S.f = f; S.nf = nf; S.st = steps; S.nst = nst;

  d = 0;
  usedd[0] = 0;
  lossd[0] = fixloss;
  for (;;) {
    /* entering node d: usedd[d], lossd[d] hold the decided items' bits and loss */
    int descend = 0;
    S.work += 16; /* a node's own cost, in LP-step units */
    if (d == nf) {
      if (lossd[d] < U - tol) { /* a better incumbent: take it, reduce again */
        memcpy(x, lpx, p->m);
        for (t = 0; t < nf; t++) x[f[t].idx] = cur[t];
        U = alloc_objective(p, x);
        tol = tie_margin(p, U);
        goto reduce;
      }
    } else if (S.sfx_cost[d] <= bfree - usedd[d] &&
               /* the Lagrangian bound at the root's lambda first: O(1) */
               lossd[d] + S.sfx_h[d] - lambda * (double)(bfree - usedd[d]) < U - tol &&
               lossd[d] + lp_bound(&S, d, bfree - usedd[d] - S.sfx_cost[d]) < U - tol) {
      /* children by penalty at lambda, the smallest first (insertion sort of <= 8) */
      double pen[8];
      uint32_t q, r;
      i = f[d].idx;
      nch[d] = 0;
      /* identical items (same n and s, hence same kept widths) are interchangeable:
       * only nonincreasing widths along a run of them are searched */
      uint32_t top = f[d].hi;
      if (d > 0 && p->n[f[d - 1].idx] == p->n[i] && p->s[f[d - 1].idx] == p->s[i] &&
          cur[d - 1] < top)
        top = cur[d - 1];
      for (q = f[d].lo; q <= top; q++) {
        double v = p->s[i] * p->w[q] + lambda * (double)p->n[i] * (double)(p->a[q] - p->a[0]);
        r = nch[d]++;
        while (r > 0 && pen[r - 1] > v) {
          pen[r] = pen[r - 1];
          choice[d][r] = choice[d][r - 1];
          r--;
        }
        pen[r] = v;
        choice[d][r] = (uint8_t)q;
      }
      next[d] = 0;
      descend = 1;
    }
    if (S.work > ALLOC_WORK_LIMIT) { st = ACTQ_ERR_UNSUPPORTED; break; }
    if (!descend) { /* back up to the nearest node with an untried child */
      for (;;) {
        if (d == 0) goto searched;
        d--;
        if (next[d] < nch[d]) break;
      }
    }
    /* the next feasible child of node d */
    for (;;) {
      uint64_t cost;
      if (next[d] >= nch[d]) {
        if (d == 0) goto searched;
        d--;
        continue;
      }
      j = choice[d][next[d]++];
      i = f[d].idx;
      cost = p->n[i] * (uint64_t)(p->a[j] - p->a[f[d].lo]);
      if (cost > bfree - usedd[d] - S.sfx_cost[d]) continue; /* the rest cannot fit */
      cur[d] = (uint8_t)j;
      usedd[d + 1] = usedd[d] + p->n[i] * (uint64_t)(p->a[j] - p->a[0]);
      lossd[d + 1] = lossd[d] + p->s[i] * p->w[j];
      d++;
      break;
    }
  }
searched:
  free(S.sfx_loss);
  free(S.sfx_cost);
  free(S.sfx_h);
done:
  free(order); free(lpx); free(h); free(f); free(steps); free(cur);
  free(next); free(nch); free(choice); free(lossd); free(usedd);
  return st;
}
