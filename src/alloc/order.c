/* order.c - items sorted by s/n, decreasing, by an LSD radix sort on the bits of the
 * ratio: O(m) passes instead of a comparison sort, so that the greedy stays within its
 * time target at m = 10^6. The sort is stable and starts from index order, so equal
 * ratios keep increasing indices (the documented tie rule). */
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"

typedef struct keyed {
  uint64_t key; /* ascending key = descending ratio */
  uint32_t idx;
} keyed;

actq_status alloc_order_by_ratio(const alloc_problem *p, uint32_t *order, size_t *count) {
  size_t i, c = 0;
  keyed *a, *b, *t;
  unsigned pass;
  a = (keyed *)malloc((p->m ? p->m : 1) * 2 * sizeof(keyed));
  if (!a) return ACTQ_ERR_OUT_OF_MEMORY;
  b = a + p->m;
  for (i = 0; i < p->m; i++) {
    double r;
    uint64_t bits;
    if (p->n[i] == 0) continue;
    r = p->s[i] / (double)p->n[i]; /* finite and >= 0: the bits order as the values */
    memcpy(&bits, &r, sizeof bits);
    a[c].key = ~bits;
    a[c].idx = (uint32_t)i;
    c++;
  }
  for (pass = 0; pass < 8; pass++) {
    size_t cnt[256] = {0}, pos = 0;
    unsigned sh = pass * 8, d;
    for (i = 0; i < c; i++) cnt[(a[i].key >> sh) & 255]++;
    for (d = 0; d < 256; d++) {
      size_t v = cnt[d];
      if (v == c) break; /* one bucket holds everything: this byte does not reorder */
      cnt[d] = pos;
      pos += v;
    }
    if (d < 256) continue;
    for (i = 0; i < c; i++) b[cnt[(a[i].key >> sh) & 255]++] = a[i];
    t = a; a = b; b = t;
  }
  for (i = 0; i < c; i++) order[i] = a[i].idx;
  *count = c;
  free(a < b ? a : b);
  return ACTQ_OK;
}

double alloc_objective(const alloc_problem *p, const uint8_t *x) {
  double sum = 0.0;
  size_t i;
  for (i = 0; i < p->m; i++) sum += p->s[i] * p->w[x[i]];
  return sum;
}
