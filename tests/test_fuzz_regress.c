/* test_fuzz_regress.c - the inputs the fuzzers of fuzz/ found mishandled
 * (docs/reliability.md), each a regression test.
 *
 * actq_allocate_bits (fuzz_alloc), checked against enumeration of every width choice:
 *  1. A sensitivity of -0.0: the solvers' radix sort keyed on the float's bits and put
 *     the sign bit first, so the item with nothing to lose was upgraded before the others
 *     and both methods returned an objective 72x the optimum. -0.0 must behave as +0.0.
 *  2. The first instance it reported had the same -0.0 next to a sensitivity of DBL_MAX:
 *     EXACT must give the optimum there too (or ACTQ_ERR_UNSUPPORTED), with no overflow.
 *  3. Four sensitivities of DBL_MAX: EXACT's sums overflowed and it returned, as ACTQ_OK,
 *     widths whose objective is Inf where the optimum is finite (2.5e307). It must return
 *     the optimum or ACTQ_ERR_UNSUPPORTED.
 * fewbit_table_build (fuzz_fewbit):
 *  4. A grid of fewer than 2^bits cells (127 at 7 bits) was accepted whenever the
 *     activation's kinks added cells; fewbit.h says grid >= 2^bits.
 *  5. A grid of exactly 2^bits cells was refused (ReLU6, 8 bits, grid 256, a domain ending
 *     on the kink at 6): the density crammed edges next to the kink into one float and
 *     rounding merged them, leaving 255 cells. fewbit.h calls that grid valid.
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "actq.h"
#include "fewbit.h"

/* The least objective over every choice of allowed widths within the budget
 * floor(avg * total) (avg here is well inside double precision of the budget). */
static double optimum(size_t m, const double *s, const uint64_t *n, double avg, uint32_t allowed) {
  unsigned widths[8], k = 0, b;
  size_t combos = 1, c, i;
  uint64_t total = 0, budget;
  double best = INFINITY;
  for (b = 1; b <= 8; b++)
    if (allowed & (1u << b)) widths[k++] = b;
  for (i = 0; i < m; i++) {
    combos *= k;
    total += n[i];
  }
  budget = (uint64_t)floor(avg * (double)total);
  for (c = 0; c < combos; c++) {
    size_t rest = c;
    uint64_t used = 0;
    double obj = 0;
    for (i = 0; i < m; i++) {
      const unsigned w = widths[rest % k];
      const double q = (double)((1u << w) - 1u);
      rest /= k;
      used += n[i] * w;
      obj += s[i] / (q * q);
    }
    if (used <= budget && obj < best) best = obj;
  }
  return best;
}

Test(fuzz_regress, negative_zero_sensitivity_is_zero) {
  /* the second fuzz_alloc crash: widths {1,3,4,6,7}; the optimum is (7, 1, 7) */
  const double s_neg[3] = {0x1.f8b8p+5, -0.0, 0x1.d4d4d4d7effffp+213};
  const double s_pos[3] = {0x1.f8b8p+5, 0.0, 0x1.d4d4d4d7effffp+213};
  const uint64_t n[3] = {18451, 64943, 19789};
  const double avg = 0x1.b534p+1;
  const uint32_t allowed = 0xda;
  const double best = optimum(3, s_pos, n, avg, allowed);
  int method;
  for (method = 0; method < 2; method++) {
    uint8_t bn[3], bp[3];
    double on, op;
    cr_assert_eq(actq_allocate_bits(3, s_neg, n, avg, allowed, (actq_alloc_method)method, bn, &on), ACTQ_OK);
    cr_assert_eq(actq_allocate_bits(3, s_pos, n, avg, allowed, (actq_alloc_method)method, bp, &op), ACTQ_OK);
    cr_assert(memcmp(bn, bp, 3) == 0, "method %d: -0.0 gives (%u,%u,%u), +0.0 gives (%u,%u,%u)",
              method, bn[0], bn[1], bn[2], bp[0], bp[1], bp[2]);
    cr_assert_eq(on, op);
    cr_assert_eq(bn[1], 1, "method %d: the item with zero sensitivity takes the smallest width",
                 method);
  }
  {
    uint8_t b[3];
    double o;
    cr_assert_eq(actq_allocate_bits(3, s_neg, n, avg, allowed, ACTQ_ALLOC_EXACT, b, &o), ACTQ_OK);
    cr_assert(o <= best * (1 + 1e-12), "EXACT %a, optimum %a", o, best);
  }
}

Test(fuzz_regress, huge_sensitivities_optimum_or_unsupported) {
  /* the first fuzz_alloc crash: widths {1,3,5,8}; the optimum lowers the zero item to
   * 1 bit and raises the third to 5 */
  const double s[3] = {DBL_MAX, -0.0, 0x1.7e43c8800759cp+996};
  const uint64_t n[3] = {23846, 13878, 5444};
  const double avg = 0x1.911p+1;
  const uint32_t allowed = 0x12a;
  const double best = optimum(3, s, n, avg, allowed);
  uint8_t b[3];
  double o;
  const actq_status st = actq_allocate_bits(3, s, n, avg, allowed, ACTQ_ALLOC_EXACT, b, &o);
  cr_assert(st == ACTQ_OK || st == ACTQ_ERR_UNSUPPORTED, "status %d", (int)st);
  if (st == ACTQ_OK) cr_assert(o <= best * (1 + 1e-12), "EXACT %a, optimum %a", o, best);
  /* GREEDY still answers, within the budget */
  cr_assert_eq(actq_allocate_bits(3, s, n, avg, allowed, ACTQ_ALLOC_GREEDY, b, &o), ACTQ_OK);
  cr_assert(isfinite(o));
}

Test(fuzz_regress, fewbit_grid_below_levels_is_invalid) {
  /* fuzz_fewbit: ReLU6 (kinks at 0 and 6), 7 bits, grid 127 */
  const fewbit_options o = {FEWBIT_WEIGHT_NORMAL, -0.0625, 8.0, 0.0, 0.0, 127};
  fewbit_options ok = o;
  fewbit_table t;
  cr_assert_eq(fewbit_table_build(FEWBIT_RELU6, 0.0f, 7, &o, &t), ACTQ_ERR_INVALID_ARGUMENT);
  ok.grid = 128;
  cr_assert_eq(fewbit_table_build(FEWBIT_RELU6, 0.0f, 7, &ok, &t), ACTQ_OK);
}

Test(fuzz_regress, fewbit_grid_of_exactly_levels_is_valid) {
  /* NORMAL(5.6875, 1/32): the domain is mean +- 10 std = [5.375, 6], ending on the kink */
  const fewbit_options o = {FEWBIT_WEIGHT_NORMAL, 5.6875, 1.0 / 32.0, 0.0, 0.0, 256};
  fewbit_table t;
  unsigned k;
  cr_assert_eq(fewbit_table_build(FEWBIT_RELU6, 0.0f, 8, &o, &t), ACTQ_OK);
  for (k = 1; k < 255; k++) cr_assert(t.bounds[k] > t.bounds[k - 1], "bounds increase at %u", k);
  cr_assert(t.bounds[0] >= 5.375f && t.bounds[254] <= 6.0f, "bounds inside the domain");
  cr_assert(isfinite(t.error) && t.error >= 0.0);
}

Test(fuzz_regress, dbl_max_sensitivities_never_an_infinite_answer) {
  /* fuzz_alloc on main's frontier solver: widths 1..5 */
  const double s[5] = {DBL_MAX, 0x1.353p-970, DBL_MAX, DBL_MAX, DBL_MAX};
  const uint64_t n[5] = {2901899, 0, 21075, 21285, 21295};
  const double avg = 0x1.054cp+1;
  const uint32_t allowed = 0x3e;
  const double best = optimum(5, s, n, avg, allowed);
  uint8_t b[5];
  double o;
  const actq_status st = actq_allocate_bits(5, s, n, avg, allowed, ACTQ_ALLOC_EXACT, b, &o);
  cr_assert(isfinite(best));
  cr_assert(st == ACTQ_OK || st == ACTQ_ERR_UNSUPPORTED, "status %d", (int)st);
  if (st == ACTQ_OK) cr_assert(o <= best * (1 + 1e-12), "EXACT %a, optimum %a", o, best);
}
