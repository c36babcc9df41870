/* test_alloc.c - actq_allocate_bits: both methods against brute force on every small
 * instance family (all 255 width sets, equal / heterogeneous / zero numel, zero and tied
 * sensitivities, budgets that fit exactly), the greedy's known optimal case and its
 * counterexample, the exact budget rounding, errors, m = 0 and m = 10^6. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "actq.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { /* xorshift64*: reproducible without libc rand */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}
static double rnd01(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

static double wgt(unsigned b) {
  double q = (double)((1u << b) - 1u);
  return 1.0 / (q * q);
}

static double objective_of(size_t m, const double *s, const uint8_t *bits) {
  double v = 0.0;
  size_t i;
  for (i = 0; i < m; i++) v += s[i] * wgt(bits[i]);
  return v;
}

static uint64_t cost_of(size_t m, const uint64_t *n, const uint8_t *bits) {
  uint64_t c = 0;
  size_t i;
  for (i = 0; i < m; i++) c += n[i] * bits[i];
  return c;
}

static int near(double a, double b) { return fabs(a - b) <= 1e-11 * fmax(fabs(a), fabs(b)) + 1e-300; }

/* the minimum over all width vectors within the budget (k^m <= a few thousand) */
static double brute(size_t m, const double *s, const uint64_t *n, uint64_t budget,
                    const unsigned *w, unsigned k) {
  uint8_t b[8];
  size_t idx[8] = {0}, i;
  double best = INFINITY;
  for (;;) {
    for (i = 0; i < m; i++) b[i] = (uint8_t)w[idx[i]];
    if (cost_of(m, n, b) <= budget) {
      double v = objective_of(m, s, b);
      if (v < best) best = v;
    }
    for (i = 0; i < m; i++) {
      if (++idx[i] < k) break;
      idx[i] = 0;
    }
    if (i == m) return best;
  }
}

/* Solves with a method and checks what every answer must satisfy; returns the objective. */
static double solve_checked(actq_alloc_method meth, size_t m, const double *s,
                            const uint64_t *n, double avg, uint32_t allowed, uint64_t budget,
                            uint8_t *bits) {
  double obj = -1.0;
  size_t i;
  actq_status st = actq_allocate_bits(m, s, n, avg, allowed, meth, bits, &obj);
  cr_assert_eq(st, ACTQ_OK, "method %d status %d", (int)meth, (int)st);
  for (i = 0; i < m; i++) cr_assert(bits[i] >= 1 && bits[i] <= 8 && (allowed >> bits[i]) & 1u);
  cr_assert_leq(cost_of(m, n, bits), budget, "budget not met");
  cr_assert(near(obj, objective_of(m, s, bits)), "reported objective");
  return obj;
}

Test(alloc, brute_force_every_width_set) {
  uint32_t allowed;
  unsigned rep;
  for (allowed = 2; allowed <= 0x1fe; allowed += 2) {
    unsigned w[8], k = 0, b;
    int consecutive;
    for (b = 1; b <= 8; b++) if (allowed >> b & 1u) w[k++] = b;
    consecutive = (w[k - 1] - w[0] == k - 1);
    for (rep = 0; rep < 12; rep++) {
      double s[8], avg, eg, ee, bf;
      uint64_t n[8], total = 0, budget, lo, hi;
      uint8_t bg[8], be[8];
      size_t m = 1, i, kind = rep % 4;
      while (m < 8 && pow((double)k, (double)(m + 1)) <= 4096.0) m++;
      m = 1 + (size_t)(rnd() % m);
      for (i = 0; i < m; i++) {
        /* kind 0: equal numel; 1: heterogeneous; 2: heterogeneous with zeros; 3: ties */
        n[i] = kind == 0 ? 64 : kind == 2 && rnd() % 3 == 0 ? 0 : 1 + rnd() % 1000;
        s[i] = rnd() % 4 == 0 ? 0.0 : kind == 3 ? (double)(1 + rnd() % 2) : rnd01() * 100.0;
        if (kind == 3) n[i] = 1 + rnd() % 3;
        total += n[i];
      }
      lo = (uint64_t)w[0] * total;
      hi = (uint64_t)w[k - 1] * total;
      if (rep % 2) { /* the cost of a random vector: a budget some solution fits exactly */
        for (i = 0; i < m; i++) bg[i] = (uint8_t)w[rnd() % k];
        budget = cost_of(m, n, bg);
      } else {
        budget = lo + (hi > lo ? rnd() % (hi - lo + 1) : 0);
      }
      avg = total ? ((double)budget + 0.5) / (double)total : 0.0; /* floor(avg*total) = budget */
      if (!total) budget = 0;
      bf = brute(m, s, n, budget, w, k);
      eg = solve_checked(ACTQ_ALLOC_GREEDY, m, s, n, avg, allowed, budget, bg);
      ee = solve_checked(ACTQ_ALLOC_EXACT, m, s, n, avg, allowed, budget, be);
      cr_assert(near(ee, bf), "exact %.17g brute %.17g (allowed %#x, m %zu)", ee, bf, allowed, m);
      cr_assert(eg >= ee || near(eg, ee), "greedy better than exact");
      if (kind == 0 && consecutive)
        cr_assert(near(eg, bf), "greedy %.17g brute %.17g (equal numel, consecutive)", eg, bf);
    }
  }
}

Test(alloc, greedy_optimal_equal_numel_consecutive) {
  enum { M = 300 };
  static double s[M];
  static uint64_t n[M];
  static uint8_t bg[M], be[M];
  unsigned lo, hi, rep;
  for (rep = 0; rep < 20; rep++) {
    size_t i;
    double avg, eg, ee;
    uint32_t allowed = 0, b;
    lo = 1 + (unsigned)(rnd() % 8);
    hi = lo + (unsigned)(rnd() % (9 - lo));
    for (b = lo; b <= hi; b++) allowed |= 1u << b;
    for (i = 0; i < M; i++) {
      n[i] = 4096;
      s[i] = rep % 2 ? exp(10.0 * rnd01()) : (double)(rnd() % 5);
    }
    avg = lo + (hi - lo) * rnd01();
    eg = solve_checked(ACTQ_ALLOC_GREEDY, M, s, n, avg, allowed, (uint64_t)floor(avg * 4096.0 * M), bg);
    ee = solve_checked(ACTQ_ALLOC_EXACT, M, s, n, avg, allowed, (uint64_t)floor(avg * 4096.0 * M), be);
    cr_assert(near(eg, ee), "greedy %.17g exact %.17g", eg, ee);
  }
}

/* The textbook greedy, one upgrade at a time: among the items not frozen, the next upgrade
 * with the best key s/n * (w[j]-w[j+1])/(a[j+1]-a[j]) (ties: smaller j, larger s/n, lower
 * index); taken if it fits, else its item freezes. ACTQ_ALLOC_GREEDY must choose the same
 * widths. O(m^2 k): for small m only. */
static void textbook_greedy(size_t m, const double *s, const uint64_t *n, uint64_t budget,
                            const unsigned *w, unsigned k, uint8_t *bits) {
  uint8_t at[512], frozen[512] = {0};
  uint64_t left = budget;
  size_t i;
  for (i = 0; i < m; i++) {
    at[i] = n[i] ? 0 : (uint8_t)(k - 1);
    left -= n[i] * w[0];
  }
  for (;;) {
    size_t best = m;
    double bkey = 0.0, bratio = 0.0;
    for (i = 0; i < m; i++) {
      double ratio, key;
      if (n[i] == 0 || frozen[i] || at[i] + 1u >= k) continue;
      ratio = s[i] / (double)n[i];
      key = ratio * ((wgt(w[at[i]]) - wgt(w[at[i] + 1])) / (double)(w[at[i] + 1] - w[at[i]]));
      if (best == m || key > bkey || (key == bkey && (at[i] < at[best] ||
                                                       (at[i] == at[best] && ratio > bratio)))) {
        best = i;
        bkey = key;
        bratio = ratio;
      }
    }
    if (best == m) break;
    if (n[best] * (uint64_t)(w[at[best] + 1] - w[at[best]]) <= left) {
      left -= n[best] * (uint64_t)(w[at[best] + 1] - w[at[best]]);
      at[best]++;
    } else {
      frozen[best] = 1;
    }
  }
  for (i = 0; i < m; i++) bits[i] = (uint8_t)w[at[i]];
}

Test(alloc, greedy_is_the_textbook_greedy) {
  unsigned rep;
  for (rep = 0; rep < 200; rep++) {
    double s[512], avg;
    uint64_t n[512], total = 0, budget, lo, hi;
    uint8_t bg[512], bt[512];
    unsigned w[8], k = 0, b;
    uint32_t allowed = (uint32_t)(rnd() % 255 + 1) << 1;
    size_t m = 1 + (size_t)(rnd() % 400), i;
    for (b = 1; b <= 8; b++) if (allowed >> b & 1u) w[k++] = b;
    for (i = 0; i < m; i++) {
      /* every third instance: few distinct values, so that keys tie */
      n[i] = rep % 3 == 0 ? 100 * (1 + rnd() % 3) : 1 + (uint64_t)exp(log(1e5) * rnd01());
      s[i] = rep % 3 == 0 ? (double)(rnd() % 4) * (double)n[i] : (double)n[i] * exp(8.0 * rnd01());
      if (rnd() % 16 == 0) n[i] = 0;
      total += n[i];
    }
    lo = (uint64_t)w[0] * total;
    hi = (uint64_t)w[k - 1] * total;
    budget = lo + (uint64_t)((double)(hi - lo) * rnd01());
    avg = ((double)budget + 0.5) / (double)(total ? total : 1);
    if (!total) budget = 0;
    solve_checked(ACTQ_ALLOC_GREEDY, m, s, n, avg, allowed, budget, bg);
    textbook_greedy(m, s, n, budget, w, k, bt);
    for (i = 0; i < m; i++)
      cr_assert_eq(bg[i], bt[i], "item %zu of %zu: greedy %u textbook %u (allowed %#x, rep %u)", i,
                   m, bg[i], bt[i], allowed, rep);
  }
}

Test(alloc, greedy_counterexample_1248) {
  const double s[2] = {1.0, 500.0};
  const uint64_t n[2] = {1, 1};
  uint8_t b[2];
  double og, oe;
  solve_checked(ACTQ_ALLOC_GREEDY, 2, s, n, 4.5, 0x116, 9, b);
  og = objective_of(2, s, b);
  cr_assert(b[0] == 4 && b[1] == 4, "greedy %u %u", b[0], b[1]);
  solve_checked(ACTQ_ALLOC_EXACT, 2, s, n, 4.5, 0x116, 9, b);
  oe = objective_of(2, s, b);
  cr_assert(b[0] == 1 && b[1] == 8, "exact %u %u", b[0], b[1]);
  cr_assert_lt(oe, og);
}

Test(alloc, exact_never_worse_heterogeneous) {
  enum { M = 512 };
  static double s[M];
  static uint64_t n[M];
  static uint8_t bg[M], be[M];
  const uint32_t sets[4] = {0x116, 0x1fe, 0x00e, 0x154};
  unsigned rep;
  for (rep = 0; rep < 16; rep++) {
    size_t i, m = 16 + (size_t)(rnd() % (M - 16));
    uint64_t total = 0;
    double avg, eg, ee;
    for (i = 0; i < m; i++) {
      n[i] = (uint64_t)exp(log(1000.0) + log(1e4) * rnd01());
      s[i] = n[i] * exp(4.0 * rnd01());
      total += n[i];
    }
    avg = 1.5 + 3.0 * rnd01();
    if (avg < 2.0 && sets[rep % 4] == 0x154) avg = 2.5; /* {2,4,6,8} */
    eg = solve_checked(ACTQ_ALLOC_GREEDY, m, s, n, avg, sets[rep % 4], (uint64_t)floor(avg * total), bg);
    ee = solve_checked(ACTQ_ALLOC_EXACT, m, s, n, avg, sets[rep % 4], (uint64_t)floor(avg * total), be);
    cr_assert(eg >= ee || near(eg, ee), "greedy %.17g below exact %.17g", eg, ee);
  }
}

/* The optimum by dynamic programming over every budget 0..B (an independent method:
 * best[c] = least loss of the items so far costing exactly c bits). B <= ~10^5 here. */
static double capacity_dp(size_t m, const double *s, const uint64_t *n, uint64_t budget,
                          const unsigned *w, unsigned k) {
  double *best = malloc((budget + 1) * sizeof *best), *next = malloc((budget + 1) * sizeof *next);
  double v = INFINITY;
  uint64_t c;
  size_t i;
  unsigned j;
  cr_assert(best && next);
  for (c = 0; c <= budget; c++) best[c] = c == 0 ? 0.0 : INFINITY;
  for (i = 0; i < m; i++) {
    for (c = 0; c <= budget; c++) next[c] = INFINITY;
    for (c = 0; c <= budget; c++) {
      if (best[c] == INFINITY) continue;
      for (j = 0; j < k; j++) {
        uint64_t cc = c + n[i] * w[j];
        double l = best[c] + s[i] * wgt(w[j]);
        if (cc <= budget && l < next[cc]) next[cc] = l;
      }
    }
    memcpy(best, next, (budget + 1) * sizeof *best);
  }
  for (c = 0; c <= budget; c++) if (best[c] < v) v = best[c];
  free(best);
  free(next);
  return v;
}

/* Past brute force: 20..60 items of heterogeneous numel, random width sets and budgets,
 * against the capacity DP. The frontier search runs for real here (dozens of free items). */
Test(alloc, exact_matches_capacity_dp) {
  unsigned rep;
  for (rep = 0; rep < 120; rep++) {
    double s[64], avg, ee, eg, dp;
    uint64_t n[64], total = 0, budget, lo, hi;
    uint8_t be[64], bg[64];
    unsigned w[8], k = 0, b;
    uint32_t allowed = 0;
    size_t m = 20 + (size_t)(rnd() % 41), i;
    while (k < 2) { /* at least two widths, or there is nothing to choose */
      allowed = (uint32_t)(rnd() % 255 + 1) << 1;
      for (k = 0, b = 1; b <= 8; b++) if (allowed >> b & 1u) w[k++] = b;
    }
    for (i = 0; i < m; i++) {
      n[i] = 1 + (uint64_t)exp(log(300.0) * rnd01()); /* 1..300, log-uniform */
      s[i] = (double)n[i] * exp(6.0 * rnd01()) * (rep % 3 == 0 ? 1.0 : rnd01());
      total += n[i];
    }
    lo = (uint64_t)w[0] * total;
    hi = (uint64_t)w[k - 1] * total;
    budget = lo + (uint64_t)((double)(hi - lo) * (0.1 + 0.6 * rnd01()));
    avg = ((double)budget + 0.5) / (double)total;
    dp = capacity_dp(m, s, n, budget, w, k);
    eg = solve_checked(ACTQ_ALLOC_GREEDY, m, s, n, avg, allowed, budget, bg);
    ee = solve_checked(ACTQ_ALLOC_EXACT, m, s, n, avg, allowed, budget, be);
    cr_assert(near(ee, dp), "exact %.17g dp %.17g (allowed %#x, m %zu, rep %u)", ee, dp,
              allowed, m, rep);
    cr_assert(eg >= ee || near(eg, ee), "greedy better than exact");
  }
}

/* Sensitivities over 18 orders of magnitude: the exact solver's LP value and bounds must
 * not be sums that cancel (all-width-1 losses of 1e14 minus gains), or their rounding
 * swamps differences far above the tie margin. Checked against brute force with the
 * documented margin itself, 1e-12 + 4 m DBL_EPSILON relative, not a looser one. */
static int within_tie_margin(double exact, double best, size_t m) {
  return exact <= best + best * (1e-12 + 4.0 * (double)m * DBL_EPSILON);
}

Test(alloc, exact_wide_magnitudes_brute_force) {
  /* found by fuzz_alloc: the LP value, summed from all widths at 1, came out above the
   * greedy's objective and the greedy's (8,8,8,8,5) was returned as optimal */
  const double s0[5] = {0x1.cap+6, 0x1.22p+12, 0x1.fffep+46, 0x1.cc0ep+46, 0x1.2256p+4};
  const uint64_t n0[5] = {65535, 65303, 62721, 62720, 127127};
  const unsigned w0[4] = {1, 5, 7, 8};
  uint8_t b[8];
  unsigned rep;
  uint64_t total = 0;
  size_t i;
  double obj, bf;
  for (i = 0; i < 5; i++) total += n0[i];
  bf = brute(5, s0, n0, (uint64_t)floor(0x1.e3aep+2 * (double)total), w0, 4);
  obj = solve_checked(ACTQ_ALLOC_EXACT, 5, s0, n0, 0x1.e3aep+2, 0x1a2,
                      (uint64_t)floor(0x1.e3aep+2 * (double)total), b);
  cr_assert(within_tie_margin(obj, bf, 5), "exact %a brute %a", obj, bf);

  for (rep = 0; rep < 3000; rep++) {
    double s[6], avg;
    uint64_t n[6], budget, lo, hi;
    unsigned w[8], k = 0, bb;
    uint32_t allowed = 0;
    size_t m = 2 + (size_t)(rnd() % 5);
    while (k < 2 || pow((double)k, (double)m) > 4096.0) {
      allowed = (uint32_t)(rnd() % 255 + 1) << 1;
      for (k = 0, bb = 1; bb <= 8; bb++) if (allowed >> bb & 1u) w[k++] = bb;
    }
    total = 0;
    for (i = 0; i < m; i++) {
      n[i] = 1 + (uint64_t)exp(log(2e5) * rnd01());
      s[i] = (double)n[i] * pow(10.0, -3.0 + 18.0 * rnd01());
      total += n[i];
    }
    lo = (uint64_t)w[0] * total;
    hi = (uint64_t)w[k - 1] * total;
    budget = lo + (uint64_t)((double)(hi - lo) * rnd01());
    avg = ((double)budget + 0.5) / (double)total;
    bf = brute(m, s, n, budget, w, k);
    obj = solve_checked(ACTQ_ALLOC_EXACT, m, s, n, avg, allowed, budget, b);
    cr_assert(within_tie_margin(obj, bf, m), "exact %a brute %a (allowed %#x, m %zu, rep %u)",
              obj, bf, allowed, m, rep);
  }
}

/* The budget is floor(average_bits * total) computed exactly, even past 2^53. */
Test(alloc, budget_rounding_exact) {
  const double s[2] = {1.0, 1.0};
  const uint64_t n[2] = {(1ull << 40) - 1, 1};
  uint8_t b[2];
  const actq_alloc_method meth = ACTQ_ALLOC_EXACT; /* the greedy spends it all on item 1 */
  {
    cr_assert_eq(actq_allocate_bits(2, s, n, 2.0 + ldexp(1.0, -40), 0x1fe, meth, b, NULL), ACTQ_OK);
    cr_assert(b[0] == 2 && b[1] == 3, "fits exactly: %u %u", b[0], b[1]);
    cr_assert_eq(actq_allocate_bits(2, s, n, 2.0 + ldexp(1.0, -41), 0x1fe, meth, b, NULL), ACTQ_OK);
    cr_assert(b[0] == 2 && b[1] == 2, "half a bit rounds down: %u %u", b[0], b[1]);
    cr_assert_eq(actq_allocate_bits(2, s, n, 2.0, 0x1fe, meth, b, NULL), ACTQ_OK);
    cr_assert(b[0] == 2 && b[1] == 2);
  }
}

Test(alloc, special_items) {
  /* numel 0: the largest width; s = 0 never needs more than the smallest (exact) */
  const double s[4] = {0.0, 3.0, 0.0, 7.0};
  const uint64_t n[4] = {0, 10, 10, 10};
  uint8_t b[4];
  double obj;
  cr_assert_eq(actq_allocate_bits(4, s, n, 3.0, 0x116, ACTQ_ALLOC_EXACT, b, &obj), ACTQ_OK);
  cr_assert_eq(b[0], 8);
  cr_assert_eq(b[2], 1);
  cr_assert(b[1] == 4 && b[3] == 4, "%u %u", b[1], b[3]);
  /* unconstrained budget: everyone at the top */
  cr_assert_eq(actq_allocate_bits(4, s, n, INFINITY, 0x116, ACTQ_ALLOC_GREEDY, b, &obj), ACTQ_OK);
  cr_assert(b[1] == 8 && b[3] == 8);
  /* all numel 0: budget 0, still feasible */
  {
    const uint64_t z[2] = {0, 0};
    cr_assert_eq(actq_allocate_bits(2, s, z, 0.0, 0x116, ACTQ_ALLOC_EXACT, b, &obj), ACTQ_OK);
    cr_assert(b[0] == 8 && b[1] == 8 && obj == objective_of(2, s, b));
  }
}

Test(alloc, errors_and_empty) {
  double s[2] = {1.0, 2.0}, obj = 5.0;
  uint64_t n[2] = {3, 4};
  uint8_t b[2] = {77, 77};
  const uint8_t untouched[2] = {77, 77};
  actq_alloc_method meth;
  cr_assert_eq(actq_allocate_bits(0, NULL, NULL, 2.0, 0x116, ACTQ_ALLOC_EXACT, NULL, &obj), ACTQ_OK);
  cr_assert_eq(obj, 0.0);
  cr_assert_eq(actq_allocate_bits(0, NULL, NULL, 2.0, 0x116, ACTQ_ALLOC_GREEDY, NULL, NULL), ACTQ_OK);
  for (meth = ACTQ_ALLOC_GREEDY; meth <= ACTQ_ALLOC_EXACT; meth++) {
    obj = 5.0;
#define BAD(expr) cr_assert_eq(expr, ACTQ_ERR_INVALID_ARGUMENT, #expr)
    BAD(actq_allocate_bits(2, s, n, 0.99, 0x116, meth, b, &obj)); /* infeasible */
    BAD(actq_allocate_bits(2, s, n, 1.99, 0x114, meth, b, &obj)); /* min width 2 */
    BAD(actq_allocate_bits(2, s, n, NAN, 0x116, meth, b, &obj));
    BAD(actq_allocate_bits(2, s, n, -1.0, 0x116, meth, b, &obj));
    BAD(actq_allocate_bits(2, s, n, 2.0, 0, meth, b, &obj));
    BAD(actq_allocate_bits(2, s, n, 2.0, 0x117, meth, b, &obj)); /* bit 0 */
    BAD(actq_allocate_bits(2, s, n, 2.0, 0x316, meth, b, &obj)); /* bit 9 */
    BAD(actq_allocate_bits(2, NULL, n, 2.0, 0x116, meth, b, &obj));
    BAD(actq_allocate_bits(2, s, NULL, 2.0, 0x116, meth, b, &obj));
    BAD(actq_allocate_bits(2, s, n, 2.0, 0x116, meth, NULL, &obj));
    s[1] = NAN;
    BAD(actq_allocate_bits(2, s, n, 2.0, 0x116, meth, b, &obj));
    s[1] = -1.0;
    BAD(actq_allocate_bits(2, s, n, 2.0, 0x116, meth, b, &obj));
    s[1] = INFINITY;
    BAD(actq_allocate_bits(2, s, n, 2.0, 0x116, meth, b, &obj));
    s[1] = 2.0;
    n[1] = UINT64_MAX / 8;
    cr_assert_eq(actq_allocate_bits(2, s, n, 2.0, 0x116, meth, b, &obj), ACTQ_ERR_SIZE_OVERFLOW);
    n[1] = 4;
    cr_assert(memcmp(b, untouched, 2) == 0 && obj == 5.0, "outputs written on failure");
  }
  BAD(actq_allocate_bits(2, s, n, 2.0, 0x116, (actq_alloc_method)2, b, &obj));
  BAD(actq_allocate_bits(2, s, n, 2.0, 0x116, (actq_alloc_method)-1, b, &obj));
#undef BAD
  /* exactly the smallest width everywhere fits */
  cr_assert_eq(actq_allocate_bits(2, s, n, 1.0, 0x116, ACTQ_ALLOC_EXACT, b, &obj), ACTQ_OK);
  cr_assert(b[0] == 1 && b[1] == 1);
}

Test(alloc, greedy_one_million_items) {
  const size_t m = 1000000;
  double *s = malloc(m * sizeof *s);
  uint64_t *n = malloc(m * sizeof *n);
  uint8_t *b = malloc(m);
  uint64_t total = 0;
  size_t i;
  cr_assert(s && n && b);
  for (i = 0; i < m; i++) {
    n[i] = 1 + rnd() % 100000;
    s[i] = rnd01() * (double)n[i];
    total += n[i];
  }
  solve_checked(ACTQ_ALLOC_GREEDY, m, s, n, 2.0, 0x116, 2 * total, b);
  free(s); free(n); free(b);
}

/* The benchmark's shape: 1024 layers, numel over four orders of magnitude. */
Test(alloc, exact_1024_layers) {
  enum { M = 1024 };
  static double s[M];
  static uint64_t n[M];
  static uint8_t bg[M], be[M];
  uint64_t total = 0;
  size_t i;
  double eg, ee;
  for (i = 0; i < M; i++) {
    n[i] = (uint64_t)exp(log(1e3) + log(1e4) * rnd01());
    s[i] = (double)n[i] * exp(6.0 * rnd01());
    total += n[i];
  }
  eg = solve_checked(ACTQ_ALLOC_GREEDY, M, s, n, 2.0, 0x116, 2 * total, bg);
  ee = solve_checked(ACTQ_ALLOC_EXACT, M, s, n, 2.0, 0x116, 2 * total, be);
  cr_assert(ee <= eg);
}

/* Equal numel at scale: the budget rounds to the numel lattice, the LP is integral, and the
 * exact solver proves the greedy's answer at once (no search). */
Test(alloc, exact_equal_numel_large) {
  const size_t m = 200000;
  double *s = malloc(m * sizeof *s);
  uint64_t *n = malloc(m * sizeof *n);
  uint8_t *bg = malloc(m), *be = malloc(m);
  size_t i;
  double eg, ee;
  cr_assert(s && n && bg && be);
  for (i = 0; i < m; i++) {
    n[i] = 4096;
    s[i] = rnd01() * 1e3;
  }
  eg = solve_checked(ACTQ_ALLOC_GREEDY, m, s, n, 2.3, 0x1fe, (uint64_t)floor(2.3 * 4096.0 * m), bg);
  ee = solve_checked(ACTQ_ALLOC_EXACT, m, s, n, 2.3, 0x1fe, (uint64_t)floor(2.3 * 4096.0 * m), be);
  cr_assert(near(eg, ee), "greedy %.17g exact %.17g", eg, ee);
  free(s); free(n); free(bg); free(be);
}
