/* test_meta_batch.c - the metadata of several groups in vector lanes (cpu/avx2/meta_avx2.h,
 * the meta hook of the AVX2 and AVX-512 quantize kernels) against the scalar
 * actq_group_meta_compute, byte for byte, for every width, meta dtype and batch length.
 *
 * Ranges are drawn to reach every branch of the scalar function and every lane the vector
 * code must hand back to it: ordinary ranges at every scale, constant groups, +-0, groups
 * flagged nonfinite, minimums beyond the bf16 and f16 ranges, subnormal minimums and
 * scales, wide groups (range >= 2^127), and ranges whose first scale guess falls short
 * (max - m = L s exactly with the minimum's tiny part lost in the double difference, or a
 * quotient a hair above a float: the scalar's step-up loop). The test counts the last
 * kind, so that a generator that stops producing them fails it.
 * Skipped where the CPU has no AVX2. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu/avx2/meta_avx2.h"
#include "cpu/isa.h"
#include "support/data_gen.h"

static test_rng rng = {0x13198a2e03707344ull};
static uint64_t rnd(void) { return rng_next(&rng); }
static float unit(void) { return (float)(rnd() >> 40) * 0x1p-24f; } /* [0, 1), exact */

/* one group's pass-1 result: min, max, finite; *short_guess set for the step-up kind */
static void draw(uint32_t bits, float *mn, float *mx, int *finite, int *short_guess) {
  const float L = (float)((1u << bits) - 1u);
  const int kind = (int)(rnd() % 12);
  float a, b;
  *finite = 1;
  *short_guess = 0;
  switch (kind) {
  case 0: case 1: case 2: /* ordinary, any scale and sign */
    a = (unit() * 2.0f - 1.0f) * ldexpf(1.0f, (int)(rnd() % 60) - 30);
    b = a + unit() * ldexpf(1.0f, (int)(rnd() % 60) - 30);
    break;
  case 3: /* constant, including +-0 */
    a = b = (rnd() & 3) == 0 ? ((rnd() & 1) ? -0.0f : 0.0f) : (unit() * 2.0f - 1.0f);
    break;
  case 4: /* nonfinite (the hook must not look at min and max) */
    a = unit();
    b = (rnd() & 1) ? NAN : a;
    *finite = 0;
    break;
  case 5: /* minimums near and past the bf16 / f16 ranges */
    a = (rnd() & 1) ? -FLT_MAX * (0.99f + 0.01f * unit()) : -65504.0f * (1.0f + unit());
    b = a + unit() * 1e3f;
    break;
  case 6: /* subnormal minimum or scale */
    a = (float)((int)(rnd() % 200) - 100) * 1e-45f;
    b = a + (float)(rnd() % 50) * 1e-45f;
    break;
  case 7: /* wide: max - m >= 2^127 */
    a = -FLT_MAX * unit();
    b = FLT_MAX * unit();
    break;
  case 8: { /* max - m = L s exactly in double, the minimum's tiny negative part lost */
    const float s = ldexpf(1.0f + (float)(rnd() % 64) / 64.0f, (int)(rnd() % 20) - 10);
    b = L * s; /* exact: s has at most 7 significant bits, L at most 8 */
    a = -ldexpf(1.0f + unit(), -70 - (int)(rnd() % 30));
    *short_guess = 1;
    break;
  }
  case 9: /* scales at the reciprocal's domain edges */
    a = 0.0f;
    b = L * ldexpf(1.0f + unit(), (rnd() & 1) ? -33 + (int)(rnd() % 3) : 31 + (int)(rnd() % 3));
    break;
  default: /* few bits: quotients near short binary fractions */
    a = (float)((int)(rnd() % 64) - 32) / 16.0f;
    b = a + (float)(rnd() % 256) / 64.0f;
    break;
  }
  *mn = a;
  *mx = b;
}

static void check_batches(void) {
  static const actq_dtype metas[] = {ACTQ_F32, ACTQ_BF16, ACTQ_F16};
  size_t short_cases = 0, stepped = 0, rounds;
  for (rounds = 0; rounds < 4000; rounds++) {
    const actq_dtype md = metas[rounds % 3];
    const uint32_t bits = 1 + (uint32_t)(rnd() % 8);
    const size_t n = 2 + (size_t)(rnd() % 15); /* the hook's lengths: 2..16 */
    float mn[16], mx[16];
    int finite[16], sg[16];
    actq_group_meta got[16], want;
    size_t j;
    for (j = 0; j < n; j++) draw(bits, &mn[j], &mx[j], &finite[j], &sg[j]);
    actq_meta_groups_avx2(mn, mx, finite, n, bits, md, got);
    for (j = 0; j < n; j++) {
      actq_group_meta_compute(mn[j], mx[j], finite[j], bits, md, &want);
      cr_assert(memcmp(&got[j], &want, sizeof want) == 0,
                "meta %d bits %u lane %zu of %zu: min %a max %a finite %d: m %a/%a s %a/%a "
                "sc %a/%a rcp %a/%a rcp_ok %d/%d c %a/%a nonfinite %d/%d",
                (int)md, bits, j, n, mn[j], mx[j], finite[j], got[j].m, want.m, got[j].s,
                want.s, got[j].sc, want.sc, got[j].rcp, want.rcp, got[j].rcp_ok, want.rcp_ok,
                got[j].c, want.c, got[j].nonfinite, want.nonfinite);
      if (sg[j] && md == ACTQ_F32) {
        /* the first guess RU(hi / L) was short iff the stored scale is one step above it */
        const double L = (double)((1u << bits) - 1u);
        short_cases++;
        stepped += want.s != actq_f32_round_up(((double)mx[j] - (double)want.m) / L);
      }
    }
  }
  cr_assert(short_cases > 100 && stepped > 0,
            "the step-up kind was drawn %zu times and stepped %zu times", short_cases, stepped);
}

Test(meta_batch, equals_scalar_metadata) {
  if (actq_cpu_isa_detected() < ACTQ_ISA_AVX2) cr_skip_test("no AVX2 on this CPU");
  check_batches();
}

/* A caller that runs with subnormals flushed (FTZ and DAZ set, as some frameworks allow)
 * gets the scalar function's metadata too: the lanes with subnormal minimums or scales are
 * the scalar's. */
Test(meta_batch, equals_scalar_metadata_with_subnormals_flushed) {
  const unsigned csr = _mm_getcsr();
  if (actq_cpu_isa_detected() < ACTQ_ISA_AVX2) cr_skip_test("no AVX2 on this CPU");
  _mm_setcsr(csr | 0x8040u); /* FTZ | DAZ */
  check_batches();
  _mm_setcsr(csr);
}
