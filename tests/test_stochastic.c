/* test_stochastic.c - stochastic rounding is unbiased with the predicted variance, and
 * its noise is a pure function of (seed, offset, element): deterministic, sensitive to
 * every bit of seed and offset, independent of backend, threads and alignment. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "actq.h"
#include "support/guard.h"
#include "support/tensor.h"

typedef struct qbuf {
  size_t packed_bytes, groups;
  uint8_t *packed;
  float *gmin, *gscale, *y;
} qbuf;

static qbuf qbuf_make(const actq_layout *lay) {
  qbuf b;
  cr_assert_eq(actq_layout_sizes(lay, &b.packed_bytes, &b.groups), ACTQ_OK);
  b.packed = malloc(b.packed_bytes + 64);
  b.gmin = malloc(b.groups * 4 + 64);
  b.gscale = malloc(b.groups * 4 + 64);
  b.y = malloc(lay->rows * lay->cols * 4 + 64);
  return b;
}

static void qbuf_free(qbuf *b) {
  free(b->packed);
  free(b->gmin);
  free(b->gscale);
  free(b->y);
}

/* One group of 256 values spread over fractional positions of a 2-bit grid: the mean of
 * K round trips converges to x with the variance s^2 f (1-f) / K the formula predicts. */
Test(stochastic, unbiased_with_predicted_variance) {
  enum { N = 256, K = 4000 };
  const actq_layout lay = {1, N, N, 2, NULL, ACTQ_F32};
  float x[N];
  double sum[N] = {0}, sumsq[N] = {0};
  actq_context *ctx;
  qbuf b = qbuf_make(&lay);
  int i, k;
  double worst_z = 0, var_ratio_sum = 0;
  int var_count = 0;
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU, &ctx), ACTQ_OK);
  for (i = 0; i < N; i++) x[i] = (float)i / (N - 1) * 3.0f; /* codes 0..3, all fractions */
  for (k = 0; k < K; k++) {
    cr_assert_eq(actq_quantize(ctx, &lay, ACTQ_F32, x, ACTQ_ROUND_STOCHASTIC, 12345, (uint64_t)k,
                               b.packed, b.gmin, b.gscale),
                 ACTQ_OK);
    cr_assert_eq(actq_dequantize(ctx, &lay, b.packed, b.gmin, b.gscale, ACTQ_F32, b.y), ACTQ_OK);
    for (i = 0; i < N; i++) {
      sum[i] += b.y[i];
      sumsq[i] += (double)b.y[i] * b.y[i];
    }
  }
  cr_assert_eq(b.gmin[0], 0.0f);
  cr_assert_eq(b.gscale[0], 1.0f);
  for (i = 0; i < N; i++) {
    const double s = b.gscale[0], t = (x[i] - b.gmin[0]) / s, f = t - floor(t);
    const double var = s * s * f * (1 - f), mean = sum[i] / K;
    const double measured_var = sumsq[i] / K - mean * mean;
    if (var > 0.02) {
      const double z = fabs(mean - x[i]) / sqrt(var / K);
      if (z > worst_z) worst_z = z;
      var_ratio_sum += measured_var / var;
      var_count++;
      /* measured p(1-p) s^2 with p ~ Binomial(K, f)/K: sd about s^2 |1-2f| sqrt(f(1-f)/K) */
      cr_assert(fabs(measured_var - var) <=
                    5 * s * s * fabs(1 - 2 * f) * sqrt(f * (1 - f) / K) + 1e-9,
                "x=%g var %g vs %g", x[i], measured_var, var);
    } else {
      cr_assert(fabs(mean - x[i]) < 0.01, "x=%g mean %g", x[i], mean);
    }
  }
  /* 250-odd z-scores: the largest of them stays below 4.5 for an unbiased rounding */
  cr_assert(worst_z < 4.5, "bias: worst z-score %g", worst_z);
  cr_assert(fabs(var_ratio_sum / var_count - 1) < 0.03, "mean variance ratio %g",
            var_ratio_sum / var_count);
  qbuf_free(&b);
  actq_context_destroy(ctx);
}

static void quantize_bytes(actq_backend be, int threads, const actq_layout *lay, const float *x,
                           uint64_t seed, uint64_t offset, uint8_t *packed) {
  actq_context *ctx;
  size_t pb, ng;
  float *mn, *sc;
  cr_assert_eq(actq_layout_sizes(lay, &pb, &ng), ACTQ_OK);
  mn = malloc(ng * 4);
  sc = malloc(ng * 4);
  cr_assert_eq(actq_context_create(be, &ctx), ACTQ_OK);
  cr_assert_eq(actq_context_set_threads(ctx, threads), ACTQ_OK);
  cr_assert_eq(actq_quantize(ctx, lay, ACTQ_F32, x, ACTQ_ROUND_STOCHASTIC, seed, offset, packed,
                             mn, sc),
               ACTQ_OK);
  actq_context_destroy(ctx);
  free(mn);
  free(sc);
}

Test(stochastic, deterministic_across_backends_threads_alignment) {
  const actq_layout lay = {37, 1001, 64, 3, NULL, ACTQ_F32};
  size_t pb, n = 37 * 1001, i;
  float *x = malloc(n * 4 + 64), *xs;
  uint8_t *ref, *got;
  static const int threads[] = {1, 2, 3, 7};
  int t, b;
  uint64_t st = 5;
  actq_layout_sizes(&lay, &pb, NULL);
  ref = malloc(pb);
  got = malloc(pb + 64);
  for (i = 0; i < n; i++) x[i] = (float)test_rand_normal(&st);
  quantize_bytes(ACTQ_BACKEND_CPU_REFERENCE, 1, &lay, x, 77, 88, ref);
  for (b = 0; b < TEST_CPU_BACKENDS; b++)
    for (t = 0; t < 4; t++) {
      /* x shifted by one float, packed by an odd number of bytes */
      xs = (float *)((uint8_t *)x + 4 * (size_t)(t % 2));
      if (t % 2) memmove(xs, x, n * 4);
      quantize_bytes(test_cpu_backends[b], threads[t], &lay, xs, 77, 88, got + t);
      cr_assert(memcmp(ref, got + t, pb) == 0, "backend %d threads %d", b, threads[t]);
      if (t % 2) memmove(x, xs, n * 4);
    }
  free(x);
  free(ref);
  free(got);
}

Test(stochastic, every_bit_of_seed_and_offset_matters) {
  const actq_layout lay = {1, 512, 512, 8, NULL, ACTQ_F32};
  float x[512];
  uint8_t base[512], other[512];
  int bit, i, which;
  for (i = 0; i < 512; i++) x[i] = (float)i + 0.5f; /* t = i + 0.5: noise decides every code */
  quantize_bytes(ACTQ_BACKEND_CPU, 1, &lay, x, 0x0123456789abcdefull, 0xfedcba9876543210ull, base);
  for (which = 0; which < 2; which++)
    for (bit = 0; bit < 64; bit++) {
      uint64_t seed = 0x0123456789abcdefull, offset = 0xfedcba9876543210ull;
      int diff = 0;
      if (which) offset ^= 1ull << bit; else seed ^= 1ull << bit;
      quantize_bytes(ACTQ_BACKEND_CPU, 1, &lay, x, seed, offset, other);
      for (i = 0; i < 512; i++) diff += base[i] != other[i];
      /* independent noise: about half of the 512 codes change */
      cr_assert(diff > 150 && diff < 362, "%s bit %d changed %d codes",
                which ? "offset" : "seed", bit, diff);
    }
}

Test(stochastic, offsets_do_not_shift_the_stream) {
  /* offset k must not reuse the noise of element e+k under offset 0 */
  const actq_layout lay = {1, 4096, 4096, 8, NULL, ACTQ_F32};
  float *x = malloc(4096 * 4);
  uint8_t *a = malloc(4096), *b = malloc(4096);
  int i, k, same;
  for (i = 0; i < 4096; i++) x[i] = (float)(i % 255) + 0.5f;
  quantize_bytes(ACTQ_BACKEND_CPU, 1, &lay, x, 9, 0, a);
  for (k = 1; k <= 16; k++) {
    quantize_bytes(ACTQ_BACKEND_CPU, 1, &lay, x, 9, (uint64_t)k, b);
    same = 0;
    for (i = 0; i + k < 4096; i++) same += (a[i + k] - (i + k) % 255) == (b[i] - i % 255);
    cr_assert(same < 4096 * 3 / 4, "offset %d looks like a shifted stream (%d)", k, same);
  }
  free(x);
  free(a);
  free(b);
}
