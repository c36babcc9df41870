/* frontier.c - the last stage of ACTQ_ALLOC_EXACT: dynamic programming over the
 * (cost, loss) frontier of the items the Lagrangian reduction left free.
 *
 * The items are decided one at a time. After d of them, every partial choice is a state
 * (cost, loss): its bits above the items' smallest kept widths, and its loss above their
 * largest ones (both sums of non-negative terms, so that nothing cancels: a loss measured
 * from the smallest widths would carry the rounding of terms that may exceed the optimum
 * by orders of magnitude). A state that costs no less and loses no less than another is
 * dominated and dropped (nothing the remaining items do can make it better), so each level
 * holds a list sorted by cost with strictly decreasing loss, and the next level is the
 * merge of that list shifted by each width of the next item.
 * This is the Nemhauser-Ullmann frontier: exact, with no scaling of the budget.
 *
 * Bounds keep the lists short. The undecided items' LP relaxation over the capacity a state
 * leaves is a lower bound on their loss; states whose loss plus that bound cannot beat the
 * incumbent U by more than the tie margin are dropped. Because a level is sorted by cost
 * (the capacity left decreasing), one backward pointer over the undecided items' upgrades,
 * sorted by key with prefix sums of cost (and suffix sums of the gains the LP leaves out),
 * gives every state's bound: O(states + upgrades) a level. The LP's whole upgrades without
 * its fractional one are a feasible completion of the state (the LP takes an item's
 * upgrades in order, since w is convex), and whenever one beats U it becomes the
 * incumbent, remembered as (level, state, capacity) and rebuilt at the end.
 *
 * The largest items go first. Their widths move the cost in coarse steps, so few states
 * differ little; the small items, decided last when few undecided items are left and the
 * bounds are tightest, fill in between. On 1024-layer instances with numel over 1e3..1e7
 * this order kept the lists 100x shorter than deciding the most contested items last
 * (bench/alloc_stress.c). */
#include <stdlib.h>

#include "src/alloc/alloc.h"

typedef struct upgrade {
  double key;    /* gain per bit*element */
  double gain;   /* s (w[j] - w[j+1]) */
  uint64_t cost; /* n (a[j+1] - a[j]) */
  uint32_t pos;  /* the item's position in the decision order */
  uint32_t j;    /* from width index j to j+1 */
} upgrade;

static int cmp_upgrade(const void *pa, const void *pb) {
  const upgrade *a = (const upgrade *)pa, *b = (const upgrade *)pb;
  if (a->key != b->key) return a->key > b->key ? -1 : 1;
  if (a->pos != b->pos) return a->pos < b->pos ? -1 : 1;
  return a->j < b->j ? -1 : a->j > b->j;
}

/* Growable arrays of the states of every level: parent index and width, for rebuilding. */
typedef struct history {
  uint32_t *parent;
  uint8_t *width;
  size_t len, cap;
} history;

static int history_reserve(history *h, size_t more) {
  if (h->len + more > h->cap) {
    size_t cap = h->cap ? h->cap : 1024;
    uint32_t *pa;
    uint8_t *wa;
    while (cap < h->len + more) cap *= 2;
    pa = (uint32_t *)realloc(h->parent, cap * sizeof *pa);
    if (!pa) return 0;
    h->parent = pa;
    wa = (uint8_t *)realloc(h->width, cap);
    if (!wa) return 0;
    h->width = wa;
    h->cap = cap;
  }
  return 1;
}

typedef struct level {
  uint64_t *cost;
  double *loss;
  size_t len, cap;
} level;

/* Room for cap states, growing by doubling. */
static int level_reserve(level *l, size_t cap) {
  if (cap > l->cap) {
    size_t grow = l->cap ? 2 * l->cap : 1024;
    uint64_t *c;
    double *s;
    if (grow < cap) grow = cap;
    c = (uint64_t *)realloc(l->cost, grow * sizeof *c);
    if (!c) return 0;
    l->cost = c;
    s = (double *)realloc(l->loss, grow * sizeof *s);
    if (!s) return 0;
    l->loss = s;
    l->cap = grow;
  }
  return 1;
}

/* The undecided items' upgrades (positions >= d), best key first, with pc[t] = the cost of
 * the first t and sg[t] = the gain of those from t on. Returns their count. */
static size_t suffix_upgrades(const upgrade *all, size_t nall, size_t d, upgrade *out,
                              uint64_t *pc, double *sg) {
  size_t t, ns = 0;
  pc[0] = 0;
  for (t = 0; t < nall; t++) {
    if (all[t].pos < d) continue;
    out[ns] = all[t];
    pc[ns + 1] = pc[ns] + all[t].cost;
    ns++;
  }
  sg[ns] = 0.0;
  for (t = ns; t-- > 0;) sg[t] = sg[t + 1] + out[t].gain;
  return ns;
}

typedef struct size_rank {
  uint64_t n;
  double s;
  uint32_t idx; /* the item */
  uint32_t t;   /* its index in the caller's free list */
} size_rank;

/* numel decreasing, then sensitivity decreasing, then index: a total order */
static int cmp_size(const void *pa, const void *pb) {
  const size_rank *a = (const size_rank *)pa, *b = (const size_rank *)pb;
  if (a->n != b->n) return a->n > b->n ? -1 : 1;
  if (a->s != b->s) return a->s > b->s ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

actq_status alloc_frontier(const alloc_problem *p, const alloc_free *f_in, size_t nf,
                           uint64_t cap, double base, double *U,
                           uint8_t *widths, int *improved) {
  actq_status st = ACTQ_OK;
  alloc_free *f = NULL;
  uint32_t *perm = NULL;
  size_rank *rank = NULL;
  double *sg = NULL, hiloss = base, tol = alloc_tie_margin(p, *U);
  upgrade *all = NULL, *suf = NULL;
  uint64_t *pc = NULL, work = 0;
  level cur = {0}, nxt = {0};
  history h = {0};
  size_t *lvl_start = NULL, nall = 0, d, t;
  size_t rec_level = 0, rec_state = 0;
  uint64_t rec_cap = 0;
  int have_rec = 0;

  *improved = 0;
  if (nf == 0) return ACTQ_OK;
  f = (alloc_free *)malloc(nf * sizeof *f);
  perm = (uint32_t *)malloc(nf * sizeof *perm);
  rank = (size_rank *)malloc(nf * sizeof *rank);
  all = (upgrade *)malloc(nf * 7 * sizeof *all);
  suf = (upgrade *)malloc(nf * 7 * sizeof *suf);
  pc = (uint64_t *)malloc((nf * 7 + 1) * sizeof *pc);
  sg = (double *)malloc((nf * 7 + 1) * sizeof *sg);
  lvl_start = (size_t *)malloc((nf + 2) * sizeof *lvl_start);
  if (!f || !perm || !rank || !all || !suf || !pc || !sg || !lvl_start) goto oom;

  /* decision order: largest numel first */
  for (t = 0; t < nf; t++) {
    rank[t].n = p->n[f_in[t].idx];
    rank[t].s = p->s[f_in[t].idx];
    rank[t].idx = f_in[t].idx;
    rank[t].t = (uint32_t)t;
  }
  qsort(rank, nf, sizeof *rank, cmp_size);
  for (t = 0; t < nf; t++) {
    perm[t] = rank[t].t;
    f[t] = f_in[perm[t]];
  }

  for (t = 0; t < nf; t++) {
    uint32_t i = f[t].idx, j;
    hiloss += p->s[i] * p->w[f[t].hi];
    for (j = f[t].lo; j < f[t].hi; j++) {
      upgrade *u = &all[nall++];
      u->gain = p->s[i] * (p->w[j] - p->w[j + 1]);
      u->cost = p->n[i] * (uint64_t)(p->a[j + 1] - p->a[j]);
      u->key = (p->s[i] / (double)p->n[i]) * alloc_step_gain(p, j);
      u->pos = (uint32_t)t;
      u->j = j;
    }
  }
  qsort(all, nall, sizeof *all, cmp_upgrade);
  work += nall * 64;

  /* level 0: the empty choice */
  if (!level_reserve(&cur, 1024) || !history_reserve(&h, 1)) goto oom;
  cur.cost[0] = 0;
  cur.loss[0] = 0.0;
  cur.len = 1;
  h.parent[0] = 0;
  h.width[0] = 0;
  h.len = 1;
  lvl_start[0] = 0;

  for (d = 0; d < nf; d++) {
    const uint32_t i = f[d].idx, lo = f[d].lo, nq = f[d].hi - f[d].lo + 1;
    uint64_t dc[8];
    double dl[8], minloss = 0.0;
    size_t head[8], ns, tp;
    uint32_t q;
    int any = 0;

    for (q = 0; q < nq; q++) {
      dc[q] = p->n[i] * (uint64_t)(p->a[lo + q] - p->a[lo]);
      dl[q] = p->s[i] * (p->w[lo + q] - p->w[f[d].hi]);
      head[q] = 0;
    }
    ns = suffix_upgrades(all, nall, d + 1, suf, pc, sg);
    tp = ns;
    work += ns + 2 * cur.len * nq;
    if (work > ALLOC_WORK_LIMIT) {
      st = ACTQ_ERR_UNSUPPORTED;
      goto done;
    }
    nxt.len = 0;
    lvl_start[d + 1] = h.len;
    for (;;) {
      /* the next candidate by cost, then loss, then width: a k-way merge */
      uint32_t bq = nq;
      uint64_t bc = 0, r;
      double bl = 0.0, lp, bound;
      for (q = 0; q < nq; q++) {
        uint64_t c;
        double l;
        if (head[q] >= cur.len) continue;
        c = cur.cost[head[q]] + dc[q];
        if (c > cap) { head[q] = cur.len; continue; } /* the rest of this list is dearer */
        l = cur.loss[head[q]] + dl[q];
        if (bq == nq || c < bc || (c == bc && l < bl)) { bq = q; bc = c; bl = l; }
      }
      if (bq == nq) break;
      t = head[bq]++;
      if (any && bl >= minloss) continue; /* dominated by a cheaper state */
      any = 1;
      minloss = bl;
      /* the LP of the undecided items over the capacity left; the pointer only falls */
      r = cap - bc;
      while (pc[tp] > r) tp--;
      lp = sg[tp]; /* the LP leaves upgrade tp in part and those after it out */
      if (tp < ns) lp = sg[tp + 1] + suf[tp].gain * (1.0 - (double)(r - pc[tp]) / (double)suf[tp].cost);
      bound = hiloss + bl + lp;
      if (bound >= *U - tol) continue;
      {
        double whole = hiloss + bl + sg[tp]; /* the LP's integral part: feasible */
        size_t idx = nxt.len;
        /* kept states are the frontier, usually far fewer than the candidates: grow */
        if (h.len >= ALLOC_STATE_LIMIT) {
          st = ACTQ_ERR_UNSUPPORTED;
          goto done;
        }
        if (!level_reserve(&nxt, idx + 1) || !history_reserve(&h, 1)) goto oom;
        nxt.cost[idx] = bc;
        nxt.loss[idx] = bl;
        h.parent[h.len] = (uint32_t)(lvl_start[d] + t);
        h.width[h.len] = (uint8_t)(lo + bq);
        h.len++;
        nxt.len++;
        if (whole < *U - tol) {
          *U = whole;
          tol = alloc_tie_margin(p, *U);
          have_rec = 1;
          rec_level = d + 1;
          rec_state = idx;
          rec_cap = r;
        }
      }
    }
    if (nxt.len == 0) break; /* nothing left can beat the incumbent */
    {
      level tmp = cur;
      cur = nxt;
      nxt = tmp;
    }
  }

  if (have_rec) {
    /* rebuild: the record's own choices, then the integral LP completion of the rest */
    size_t s = lvl_start[rec_level] + rec_state, lev = rec_level;
    uint64_t used = 0;
    size_t ns;
    for (t = 0; t < nf; t++) widths[perm[t]] = f[t].lo;
    while (lev > 0) {
      widths[perm[lev - 1]] = h.width[s];
      s = h.parent[s];
      lev--;
    }
    ns = suffix_upgrades(all, nall, rec_level, suf, pc, sg);
    for (t = 0; t < ns && used + suf[t].cost <= rec_cap; t++) {
      used += suf[t].cost;
      widths[perm[suf[t].pos]]++;
    }
    *improved = 1;
  }
  goto done;
oom:
  st = ACTQ_ERR_OUT_OF_MEMORY;
done:
  free(f); free(perm); free(rank); free(all); free(suf); free(pc); free(sg); free(lvl_start);
  free(cur.cost); free(cur.loss); free(nxt.cost); free(nxt.loss);
  free(h.parent); free(h.width);
  return st;
}
