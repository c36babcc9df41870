/* test_partition.c - the DP against brute force over every border placement on small
 * random instances (including non-monotone g, zero weights and forbidden edges). */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>

#include "src/fewbit/partition.h"
#include "support/tensor.h"

enum { MAXN = 12 };

static double interval_cost(const double *W, const double *S, const double *Q, size_t a, size_t b) {
  double w = 0, s = 0, q = 0;
  size_t i;
  for (i = a; i < b; i++) {
    w += W[i];
    s += S[i];
    q += Q[i];
  }
  return w > 0 ? fmax(q - s * s / w, 0) : fmax(q, 0);
}

static double total_cost(const double *W, const double *S, const double *Q, const size_t *ends,
                         uint32_t K) {
  double t = 0;
  uint32_t k;
  for (k = 0; k < K; k++) t += interval_cost(W, S, Q, k ? ends[k - 1] : 0, ends[k]);
  return t;
}

/* best over all ways to choose at most K-1 borders among allowed edges (bitmask walk) */
static double brute(size_t n, const double *W, const double *S, const double *Q,
                    const uint8_t *allowed, uint32_t K) {
  double best = DBL_MAX;
  uint32_t mask, e;
  for (mask = 0; mask < (1u << (n - 1)); mask++) {
    size_t ends[MAXN], m = 0;
    int ok = __builtin_popcount(mask) <= (int)K - 1;
    for (e = 1; e < n && ok; e++)
      if (mask & (1u << (e - 1))) {
        if (allowed && !allowed[e]) ok = 0;
        ends[m++] = e;
      }
    if (!ok) continue;
    ends[m++] = n;
    best = fmin(best, total_cost(W, S, Q, ends, (uint32_t)m));
  }
  return best;
}

Test(partition, matches_brute_force) {
  uint64_t st = 11;
  int trial;
  for (trial = 0; trial < 3000; trial++) {
    const size_t n = 2 + test_rand_u64(&st) % (MAXN - 1);
    const uint32_t K = 1 + (uint32_t)(test_rand_u64(&st) % 5);
    double W[MAXN], S[MAXN], Q[MAXN], got;
    uint8_t allowed[MAXN];
    size_t ends[8], i, nallowed = 0;
    int use_mask = trial % 3 == 0;
    actq_status s;
    for (i = 0; i < n; i++) {
      const double g = test_rand_normal(&st) * (trial % 2 ? 1 : 100); /* non-monotone */
      W[i] = test_rand_u64(&st) % 7 == 0 ? 0.0 : test_rand_uniform(&st);
      S[i] = W[i] * g;
      Q[i] = W[i] * g * g;
      allowed[i] = i > 0 && (!use_mask || test_rand_u64(&st) % 2);
      nallowed += allowed[i];
    }
    s = actq_partition(n, W, S, Q, use_mask ? allowed : NULL, K, ends);
    if (use_mask && nallowed < K - 1) {
      cr_assert_eq(s, ACTQ_ERR_INVALID_ARGUMENT);
      continue;
    }
    if (!use_mask && n < K) {
      cr_assert_eq(s, ACTQ_ERR_INVALID_ARGUMENT);
      continue;
    }
    cr_assert_eq(s, ACTQ_OK, "trial %d", trial);
    for (i = 0; i < K; i++) {
      cr_assert(ends[i] > (i ? ends[i - 1] : 0), "intervals nonempty and increasing");
      if (i + 1 < K && use_mask) cr_assert(allowed[ends[i]], "border at a forbidden edge");
    }
    cr_assert_eq(ends[K - 1], n);
    got = total_cost(W, S, Q, ends, K);
    {
      const double want = brute(n, W, S, Q, use_mask ? allowed : NULL, K);
      cr_assert(got <= want * (1 + 1e-9) + 1e-12, "trial %d n %zu K %u: DP %.15g, brute %.15g",
                trial, n, K, got, want);
    }
  }
}
