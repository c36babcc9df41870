/* test_quotient.c - actq_quot_rcp (src/arith/quant.h), the division-free quotient of the
 * quantize kernels, against IEEE division: the inputs closest to a rounding midpoint for a
 * sample of scale significands (every significand: scripts/check-quotient), random inputs
 * over the whole proven domain, its edges, and which groups actq_group_meta_compute lets
 * take it. */
#include <criterion/criterion.h>
#include <math.h>

#include "quotient_cases.h"

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t rnd(void) { /* splitmix64 */
  uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Every 997th significand, the first and last 2000, and those of 2^23 + 2^k - 1 and
 * 2^24 - 2^k (long runs of ones and zeros). */
static int sampled(uint32_t B) {
  const uint32_t i = B - (1u << 23);
  int k;
  if (i % 997 == 0 || i < 2000 || i >= (1u << 23) - 2000) return 1;
  for (k = 0; k <= 23; k++)
    if (i == (1u << k) - 1u || B == (1u << 24) - (1u << k)) return 1;
  return 0;
}

Test(quotient, hard_cases_of_sampled_significands) {
  uint64_t tested = 0, fails = 0;
  uint32_t B;
  for (B = 1u << 23; B < 1u << 24; B++)
    if (sampled(B)) tested += quot_check_significand(B, &fails);
  cr_assert_gt(tested, 1000000, "only %llu inputs enumerated", (unsigned long long)tested);
  cr_assert_eq(fails, 0, "%llu of %llu hard inputs disagree with the division",
               (unsigned long long)fails, (unsigned long long)tested);
}

/* The uncorrected product, and a correction with a reciprocal one ulp off: the hard cases
 * must catch both, or the test above proves nothing. */
static float no_correction(float num, float sc, float rcp) { (void)sc; return num * rcp; }
static float rcp_one_ulp_off(float num, float sc, float rcp) {
  return actq_quot_rcp(num, sc, nextafterf(rcp, 2.0f));
}

Test(quotient, hard_cases_catch_weaker_methods) {
  uint64_t fails_plain = 0, fails_ulp = 0;
  uint32_t B;
  for (B = 1u << 23; B < (1u << 23) + 20000; B++) {
    quot_check_significand_with(no_correction, B, &fails_plain, 0);
    quot_check_significand_with(rcp_one_ulp_off, B, &fails_ulp, 0);
  }
  cr_assert_gt(fails_plain, 1000);
  cr_assert_gt(fails_ulp, 0);
}

/* A float with a random significand and exponent e. */
static float random_float(int e) { return ldexpf(1.0f + (float)(rnd() >> 41) * 0x1p-23f, e); }

static void check_one(float num, float sc) {
  const float t = actq_quot_rcp(num, sc, quot_divide(1.0f, sc)), d = quot_divide(num, sc);
  cr_assert_eq(actq_f32_bits(t), actq_f32_bits(d), "num %a sc %a: %a, division %a", num, sc,
               t, d);
}

/* Random scales over [2^-32, 2^32] and dividends from 2^-64 to 2^9 * sc (quotients far
 * below 1, and up to the 255 levels of 8 bits with room). */
Test(quotient, random_inputs_over_the_domain) {
  int i;
  for (i = 0; i < 4000000; i++) {
    const float sc = random_float((int)(rnd() % 64) - 32);
    int lo = -64 - ilogbf(sc), e = lo + (int)(rnd() % (uint64_t)(9 - lo + 1));
    float num = ldexpf(random_float(e), ilogbf(sc));
    if (num < ACTQ_QUOT_NUM_MIN) num = ACTQ_QUOT_NUM_MIN;
    check_one(num, sc);
  }
}

Test(quotient, edges_of_the_domain) {
  const float scs[] = {ACTQ_QUOT_SC_MIN, nextafterf(ACTQ_QUOT_SC_MIN, 1.0f), ACTQ_QUOT_SC_MAX,
                       nextafterf(ACTQ_QUOT_SC_MAX, 0.0f), 1.0f, nextafterf(2.0f, 0.0f)};
  size_t i, j;
  for (i = 0; i < sizeof scs / sizeof scs[0]; i++) {
    const float sc = scs[i];
    const float nums[] = {0.0f, ACTQ_QUOT_NUM_MIN, nextafterf(ACTQ_QUOT_NUM_MIN, 1.0f), sc,
                          nextafterf(sc, 0.0f), 255.0f * sc, nextafterf(256.0f * sc, 0.0f),
                          sc * 0.5f, 3.0f * sc};
    for (j = 0; j < sizeof nums / sizeof nums[0]; j++) check_one(nums[j], sc);
  }
  cr_assert(actq_quot_rcp_lane_ok(0.0f));
  cr_assert(actq_quot_rcp_lane_ok(ACTQ_QUOT_NUM_MIN));
  cr_assert(!actq_quot_rcp_lane_ok(nextafterf(ACTQ_QUOT_NUM_MIN, 0.0f)));
  cr_assert(!actq_quot_rcp_lane_ok(1e-45f));
}

/* rcp_ok exactly when c = 1 and sc is inside [2^-32, 2^32], and then rcp = RN(1 / sc). */
Test(quotient, groups_that_take_the_reciprocal) {
  const float ranges[] = {1.0f, 0x1p-33f, 0x1p-32f * 255.0f, 0x1p-31f, 0x1p32f, 0x1p33f * 255.0f,
                          3e38f, 1e-30f, 0.0f};
  uint32_t bits;
  size_t i;
  for (bits = 1; bits <= 8; bits++)
    for (i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
      actq_group_meta g;
      actq_group_meta_compute(-ranges[i] * 0.25f, ranges[i] * 0.75f, 1, bits, 0, &g);
      cr_assert_eq(g.rcp_ok, g.c == 1.0f && g.sc >= ACTQ_QUOT_SC_MIN && g.sc <= ACTQ_QUOT_SC_MAX);
      if (g.rcp_ok) cr_assert_eq(actq_f32_bits(g.rcp), actq_f32_bits(quot_divide(1.0f, g.sc)));
    }
}
