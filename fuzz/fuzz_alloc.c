/* fuzz_alloc.c - libFuzzer harness for actq_allocate_bits.
 *
 * Instances of up to 12 items: sensitivities (NaN, Inf, negative, denormal, huge, zero),
 * element counts (zero, huge enough to overflow), budgets (NaN, Inf, negative, fractional,
 * exactly fitting), any allowed_bits mask and method value.
 * Contract checked:
 *   - invalid instances give ACTQ_ERR_INVALID_ARGUMENT or ACTQ_ERR_SIZE_OVERFLOW as
 *     actq.h says, never ACTQ_OK, and write nothing; m = 0 writes only *objective = 0;
 *   - GREEDY: ACTQ_OK on every valid instance, allowed widths within the budget (checked
 *     in exact integers), deterministic (same bytes twice), its objective the sum it claims;
 *   - EXACT: ACTQ_OK or ACTQ_ERR_UNSUPPORTED; when OK, feasible, never worse than GREEDY,
 *     and equal to the brute-force optimum where enumeration is small enough;
 *   - nothing is written outside bits[0..m) (guard page after, canary before).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_support.h"

#define MAX_M 12

typedef struct inst {
  size_t m;
  double s[MAX_M];
  uint64_t numel[MAX_M];
  double avg;
  uint32_t allowed;
  int method;
} inst;

/* floor(avg * total) >= used, in exact integers: avg = M * 2^E with integer M < 2^53. */
static int fits(double avg, uint64_t total, unsigned __int128 used) {
  int e;
  double f;
  uint64_t M;
  unsigned __int128 prod;
  if (avg >= 8.0) return used <= (unsigned __int128)8 * total;
  if (avg <= 0.0 || total == 0) return used == 0;
  f = frexp(avg, &e);       /* avg = f * 2^e, e <= 3 */
  M = (uint64_t)ldexp(f, 53); /* avg = M * 2^(e - 53) */
  prod = (unsigned __int128)M * total; /* < 2^117 */
  if (53 - e >= 128) return used == 0; /* prod < 2^117: the floor is 0 */
  return (prod >> (53 - e)) >= used;
}

static double objective_of(const inst *p, const uint8_t *bits) {
  double sum = 0;
  size_t i;
  for (i = 0; i < p->m; i++) {
    const double q = (double)((1u << bits[i]) - 1u);
    sum += p->s[i] / (q * q);
  }
  return sum;
}

/* The documented statuses of an instance (actq.h's list) as a mask. A bad sensitivity
 * and an overflowing total together may give either: actq.h orders neither first. */
static unsigned expected(const inst *p) {
  size_t i;
  uint64_t total = 0;
  int overflow = 0, bad_s = 0, low;
  if (p->method != ACTQ_ALLOC_GREEDY && p->method != ACTQ_ALLOC_EXACT) return FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
  if (p->allowed == 0 || (p->allowed & ~0x1feu)) return FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
  if (isnan(p->avg) || p->avg < 0) return FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
  if (p->m == 0) return FZ_ST(ACTQ_OK);
  for (i = 0; i < p->m; i++) {
    if (!(p->s[i] >= 0) || isinf(p->s[i])) bad_s = 1;
    if (p->numel[i] > UINT64_MAX / 8 - total) overflow = 1;
    else total += p->numel[i];
  }
  if (overflow || bad_s)
    return (overflow ? FZ_ST(ACTQ_ERR_SIZE_OVERFLOW) : 0) | (bad_s ? FZ_ST(ACTQ_ERR_INVALID_ARGUMENT) : 0);
  for (low = 1; !(p->allowed & (1u << low)); low++) {}
  if (!fits(p->avg, total, (unsigned __int128)low * total)) return FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
  return FZ_ST(ACTQ_OK);
}

/* The instance, for the report of a failure. */
static void dump(const inst *p, const uint8_t *bits) {
  size_t i;
  fprintf(stderr, "instance: m %zu avg %a allowed 0x%x method %d\n", p->m, p->avg, p->allowed,
          p->method);
  for (i = 0; i < p->m; i++)
    fprintf(stderr, "  s %a numel %llu bits %u\n", p->s[i], (unsigned long long)p->numel[i],
            bits ? bits[i] : 0u);
}

static void check_solution(const inst *p, const uint8_t *bits, double obj, const char *who) {
  unsigned __int128 used = 0;
  uint64_t total = 0;
  size_t i;
  double want;
  for (i = 0; i < p->m; i++) {
    FZ_CHECK(bits[i] >= 1 && bits[i] <= 8 && (p->allowed & (1u << bits[i])),
             "%s: item %zu got width %u, not allowed (mask 0x%x)", who, i, bits[i], p->allowed);
    used += (unsigned __int128)p->numel[i] * bits[i];
    total += p->numel[i];
  }
  FZ_CHECK(fits(p->avg, total, used), "%s: widths exceed the budget (avg %a)", who, p->avg);
  want = objective_of(p, bits);
  FZ_CHECK(fabs(obj - want) <= 1e-12 * want + 1e-300 || obj == want,
           "%s: objective %a, the widths give %a", who, obj, want);
}

/* The optimum by enumeration, where allowed^m is small; -1 when too large. */
static double brute_force(const inst *p) {
  int widths[8], k = 0, b;
  size_t i, combos = 1, c;
  double best = INFINITY;
  uint64_t total = 0;
  for (b = 1; b <= 8; b++)
    if (p->allowed & (1u << b)) widths[k++] = b;
  for (i = 0; i < p->m; i++) {
    combos *= (size_t)k;
    total += p->numel[i];
    if (combos > 4096) return -1;
  }
  for (c = 0; c < combos; c++) {
    uint8_t bits[MAX_M];
    size_t rest = c;
    unsigned __int128 used = 0;
    for (i = 0; i < p->m; i++) {
      bits[i] = (uint8_t)widths[rest % (size_t)k];
      rest /= (size_t)k;
      used += (unsigned __int128)p->numel[i] * bits[i];
    }
    if (fits(p->avg, total, used)) {
      const double o = objective_of(p, bits);
      if (o < best) best = o;
    }
  }
  return best;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_input in = {data, size};
  inst p;
  const uint8_t f = fz_u8(&in);
  size_t i;
  unsigned want;
  actq_status st, st2;
  double obj = -1, obj2 = -1, gobj = -1;
  fz_buf bits, bits2;
  uint8_t greedy_bits[MAX_M];
  int null_case = (f & 0x80) ? 1 + (int)fz_below(&in, 3) : 0;

  memset(&p, 0, sizeof p);
  p.m = fz_below(&in, MAX_M + 1);
  for (i = 0; i < p.m; i++) {
    p.s[i] = (f & 0x01) ? fz_double(&in) : (double)fz_u16(&in) * pow(2.0, (int)(fz_u8(&in) % 64) - 32);
    p.numel[i] = (f & 0x02) ? fz_u64(&in) : (uint64_t)fz_u16(&in) * (1 + (fz_u8(&in) % 4 == 0) * 1000);
  }
  p.avg = (f & 0x04) ? fz_double(&in) : 1.0 + (double)fz_u16(&in) / 8192.0;
  p.allowed = (f & 0x08) ? fz_u32(&in) : ((uint32_t)fz_u8(&in) << 1) | (1u << (1 + fz_u8(&in) % 8));
  p.method = (f & 0x10) ? (int)fz_u8(&in) : (int)(fz_u8(&in) & 1);

  want = expected(&p);
  /* a NULL array (m > 0) is invalid; with an overflow as well, either may come first */
  if (null_case && p.m && want == FZ_ST(ACTQ_OK)) want = FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
  if (null_case && p.m) want |= FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
  if (want == FZ_ST(ACTQ_OK) && p.method == ACTQ_ALLOC_EXACT) want |= FZ_ST(ACTQ_ERR_UNSUPPORTED);
  bits = fz_buf_new(p.m, 0x5a);
  st = actq_allocate_bits(p.m, null_case == 1 ? NULL : p.s, null_case == 2 ? NULL : p.numel, p.avg,
                          p.allowed, (actq_alloc_method)p.method, null_case == 3 ? NULL : bits.p,
                          (f & 0x20) ? NULL : &obj);
  fz_buf_check(&bits, "actq_allocate_bits: bits");
  fz_expect_status(st, want, "actq_allocate_bits");

  if (st != ACTQ_OK || p.m == 0) {
    fz_buf_untouched(&bits, 0x5a, "actq_allocate_bits (failed or m = 0): bits");
    if (st == ACTQ_OK && !(f & 0x20)) FZ_CHECK(obj == 0.0, "m = 0: objective %a, not 0", obj);
    else if (!(f & 0x20)) FZ_CHECK(obj == -1, "objective written by a call that failed");
    fz_buf_free(&bits);
    return 0;
  }
  check_solution(&p, bits.p, (f & 0x20) ? objective_of(&p, bits.p) : obj, "allocate_bits");

  /* GREEDY: deterministic; the reference point for EXACT */
  bits2 = fz_buf_new(p.m, 0x5a);
  st2 = actq_allocate_bits(p.m, p.s, p.numel, p.avg, p.allowed, ACTQ_ALLOC_GREEDY, bits2.p, &gobj);
  fz_expect_status(st2, FZ_ST(ACTQ_OK), "actq_allocate_bits(GREEDY) on a valid instance");
  fz_buf_check(&bits2, "greedy: bits");
  check_solution(&p, bits2.p, gobj, "greedy");
  memcpy(greedy_bits, bits2.p, p.m);
  st2 = actq_allocate_bits(p.m, p.s, p.numel, p.avg, p.allowed, ACTQ_ALLOC_GREEDY, bits2.p, &obj2);
  FZ_CHECK(st2 == ACTQ_OK && memcmp(greedy_bits, bits2.p, p.m) == 0 && obj2 == gobj,
           "GREEDY is not deterministic");
  fz_buf_free(&bits2);

  if (p.method == ACTQ_ALLOC_EXACT) {
    const double best = brute_force(&p), e = objective_of(&p, bits.p);
    const double tol = 1e-12 + 4.0 * (double)p.m * DBL_EPSILON;
    if (!(e <= gobj * (1 + tol) + 1e-300 || e <= gobj)) {
      dump(&p, bits.p);
      fz_fail("EXACT (%a) worse than GREEDY (%a)", e, gobj);
    }
    if (best >= 0 && !(e <= best * (1 + tol) + 1e-300 || e <= best)) {
      dump(&p, bits.p);
      fz_fail("EXACT objective %a, the optimum by enumeration is %a", e, best);
    }
  }
  fz_buf_free(&bits);
  return 0;
}
