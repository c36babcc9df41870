/* order.c - items sorted by s/n, decreasing; equal ratios by increasing index.
 *
 * Speed matters (the greedy's target is m = 10^6 in 100 ms), so this is an LSD radix sort
 * of 8-byte words (ratio rounded to float, index) in three 11-bit passes over the float's
 * bits, then a fix-up of each run of equal float keys by the full double ratio. Float
 * rounding is monotone, so only items within such a run can be out of double order, and
 * runs are short (a run of exactly equal ratios is already in index order: one pass). */
#include <stdlib.h>
#include <string.h>

#include "src/alloc/alloc.h"

#define NBUCKET 2048u

typedef struct rank {
  double r;
  uint32_t idx;
} rank;

static int cmp_rank(const void *pa, const void *pb) {
  const rank *a = (const rank *)pa, *b = (const rank *)pb;
  if (a->r != b->r) return a->r > b->r ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static void fix_run(const alloc_problem *p, uint32_t *order, size_t lo, size_t hi, rank *tmp) {
  size_t i, j, len = hi - lo;
  for (i = 0; i < len; i++) {
    tmp[i].idx = order[lo + i];
    tmp[i].r = p->s[tmp[i].idx] / (double)p->n[tmp[i].idx];
  }
  if (len > 32) {
    qsort(tmp, len, sizeof *tmp, cmp_rank);
  } else {
    for (i = 1; i < len; i++) {
      rank v = tmp[i];
      for (j = i; j > 0 && cmp_rank(&tmp[j - 1], &v) > 0; j--) tmp[j] = tmp[j - 1];
      tmp[j] = v;
    }
  }
  for (i = 0; i < len; i++) order[lo + i] = tmp[i].idx;
}

actq_status alloc_order_by_ratio(const alloc_problem *p, uint32_t *order, size_t *count) {
  size_t i, c = 0, run;
  uint64_t *a, *b, *t;
  size_t *cnt;
  rank *tmp = NULL;
  unsigned pass;
  a = (uint64_t *)malloc((p->m ? p->m : 1) * 2 * sizeof *a);
  cnt = (size_t *)calloc(3 * (size_t)NBUCKET, sizeof *cnt);
  if (!a || !cnt) {
    free(a);
    free(cnt);
    return ACTQ_ERR_OUT_OF_MEMORY;
  }
  b = a + p->m;
  for (i = 0; i < p->m; i++) {
    float f;
    uint32_t fb;
    uint64_t key;
    if (p->n[i] == 0) continue;
    f = (float)(p->s[i] / (double)p->n[i]); /* >= 0, may be +Inf: still monotone */
    if (f == 0.0f) f = 0.0f; /* a sensitivity of -0.0 is 0: its sign bit must not sort it first */
    memcpy(&fb, &f, sizeof fb);
    key = (uint64_t)(~fb) << 32 | (uint64_t)i; /* ascending = ratio descending */
    a[c++] = key;
    for (pass = 0; pass < 3; pass++) cnt[pass * NBUCKET + ((key >> (32 + 11 * pass)) & (NBUCKET - 1))]++;
  }
  for (pass = 0; pass < 3; pass++) {
    size_t *h = cnt + pass * NBUCKET, pos = 0;
    unsigned sh = 32 + 11 * pass, d;
    for (d = 0; d < NBUCKET; d++) {
      size_t v = h[d];
      if (v == c) break; /* one bucket holds everything: this digit does not reorder */
      h[d] = pos;
      pos += v;
    }
    if (d < NBUCKET) continue;
    for (i = 0; i < c; i++) b[h[(a[i] >> sh) & (NBUCKET - 1)]++] = a[i];
    t = a; a = b; b = t;
  }
  for (i = 0; i < c; i++) order[i] = (uint32_t)a[i];
  /* runs of equal float keys: restore the double order */
  for (i = 0; i < c; i = run) {
    for (run = i + 1; run < c && (a[run] >> 32) == (a[i] >> 32); run++) {}
    if (run - i > 1) {
      size_t q;
      int sorted = 1;
      for (q = i + 1; q < run && sorted; q++)
        sorted = p->s[order[q - 1]] / (double)p->n[order[q - 1]] >= p->s[order[q]] / (double)p->n[order[q]];
      if (sorted) continue; /* equal ratios keep index order, the tie rule */
      if (!tmp) tmp = (rank *)malloc(c * sizeof *tmp);
      if (!tmp) {
        free(a < b ? a : b);
        free(cnt);
        return ACTQ_ERR_OUT_OF_MEMORY;
      }
      fix_run(p, order, i, run, tmp);
    }
  }
  *count = c;
  free(a < b ? a : b);
  free(cnt);
  free(tmp);
  return ACTQ_OK;
}

double alloc_objective(const alloc_problem *p, const uint8_t *x) {
  double sum = 0.0;
  size_t i;
  for (i = 0; i < p->m; i++) sum += p->s[i] * p->w[x[i]];
  return sum;
}
