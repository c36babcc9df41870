/* quantcheck.c - see quantcheck.h. Written from docs/format.md, not from src/arith. */
#include "quantcheck.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "tensor.h"

void qcheck_fill(void *x, actq_dtype t, size_t n, size_t cols, uint64_t seed) {
  uint64_t st = seed;
  size_t i;
  for (i = 0; i < n; i++) {
    size_t r = cols ? i / cols : 0;
    double scale = ldexp(1.0, (int)(r % 7) - 3), shift = (double)(r % 5) - 2.0;
    double v = test_rand_normal(&st) * scale + shift;
    if (test_rand_u64(&st) % 16 == 0) v = shift; /* repeats */
    test_store(x, t, i, (float)v);
  }
}

static uint32_t row_width(const qcase *c, size_t r) { return c->row_bits ? c->row_bits[r] : c->bits; }

qresult qcheck_run(const qcase *c, const void *x) {
  actq_layout lay = {c->rows, c->cols, c->group_size, c->bits, c->row_bits, c->meta_dtype};
  qresult res = {ACTQ_OK, 0, 0.0};
  actq_context *ctx;
  size_t packed_bytes, groups, r, gi, i, off = 0;
  const size_t n = c->rows * c->cols, gpr = (c->cols + c->group_size - 1) / c->group_size;
  uint8_t *packed, *codes;
  void *gmin, *gscale, *y;

  cr_assert_eq(actq_layout_sizes(&lay, &packed_bytes, &groups), ACTQ_OK);
  cr_assert_eq(groups, c->rows * gpr);
  packed = guard_alloc(packed_bytes);
  gmin = guard_alloc(groups * test_dtype_size(c->meta_dtype));
  gscale = guard_alloc(groups * test_dtype_size(c->meta_dtype));
  y = guard_alloc(n * test_dtype_size(c->y_dtype));
  codes = malloc(c->cols + 1);
  memset(packed, 0x5a, packed_bytes); /* stale bytes must be overwritten */

  cr_assert_eq(actq_context_create(c->backend, &ctx), ACTQ_OK);
  res.quantize_status = actq_quantize(ctx, &lay, c->x_dtype, x, c->rounding, c->seed, c->offset,
                                      packed, gmin, gscale);
  cr_assert(res.quantize_status == ACTQ_OK || res.quantize_status == ACTQ_ERR_NONFINITE,
            "quantize: %s", actq_status_string(res.quantize_status));
  cr_assert_eq(actq_dequantize(ctx, &lay, packed, gmin, gscale, c->y_dtype, y), ACTQ_OK);

  for (r = 0; r < c->rows; r++) {
    const uint32_t b = row_width(c, r);
    const double L = (double)((1u << b) - 1u);
    const size_t row_bytes = (c->cols * b + 7) / 8;
    cr_assert_eq(actq_unpack(ctx, b, c->cols, packed + off, codes), ACTQ_OK);
    if ((c->cols * b) % 8)
      cr_assert_eq(packed[off + row_bytes - 1] >> ((c->cols * b) % 8), 0,
                   "unused high bits of row %zu", r);
    for (gi = 0; gi < gpr; gi++) {
      const size_t c0 = gi * c->group_size;
      const size_t c1 = c0 + c->group_size < c->cols ? c0 + c->group_size : c->cols;
      const float m = test_load(gmin, c->meta_dtype, r * gpr + gi);
      const float s = test_load(gscale, c->meta_dtype, r * gpr + gi);
      double mn = INFINITY, mx = -INFINITY;
      int finite = 1;
      for (i = c0; i < c1; i++) {
        float v = test_load(x, c->x_dtype, r * c->cols + i);
        if (!isfinite(v)) finite = 0;
        if (v < mn) mn = v;
        if (v > mx) mx = v;
      }
      if (isnan(m) || isnan(s)) {
        cr_assert(isnan(m) && isnan(s), "both metadata NaN, row %zu group %zu", r, gi);
        res.nan_groups++;
        for (i = c0; i < c1; i++) {
          cr_assert_eq(codes[i], 0, "NaN group codes are 0");
          cr_assert(isnan(test_load(y, c->y_dtype, r * c->cols + i)), "NaN group gives NaN");
        }
        continue;
      }
      cr_assert(finite, "a group with NaN/Inf must store NaN metadata (row %zu group %zu)", r, gi);
      cr_assert(isfinite(m) && isfinite(s) && s >= 0.0f);
      /* bounds, exactly: m <= x and x - m <= L*s (long double holds both exactly) */
      cr_assert((long double)m <= (long double)mn, "m %a above min %a", m, mn);
      cr_assert((long double)mx - (long double)m <= (long double)L * s,
                "m + L*s = %a + %g*%a below max %a", m, L, s, mx);
      /* tight: m within one meta-dtype step of the minimum, L*s of the range */
      cr_assert(mn - m <= fabs(mn) * 0x1p-7 + 0x1p-24, "m %a far below min %a", m, mn);
      cr_assert((double)L * s <= (mx - m) * (1 + 0x1p-7) + 0x1p-24 * L, "s %a not tight", s);
      if (mn == mx && m == mn) cr_assert_eq(s, 0.0f, "constant group stores s = 0");
      for (i = c0; i < c1; i++) {
        const size_t e = r * c->cols + i;
        const float v = test_load(x, c->x_dtype, e);
        const float cfac = (double)mx - m >= 0x1p127 ? 0.5f : 1.0f;
        const float t = s == 0.0f ? 0.0f : (v * cfac - m * cfac) / (s * cfac);
        const unsigned q = codes[i];
        float yq, want_y;
        cr_assert(q <= L, "code in range");
        if (c->rounding == ACTQ_ROUND_NEAREST) {
          float want = rintf(t);
          want = want < 0 ? 0 : (want > (float)L ? (float)L : want);
          cr_assert_eq(q, (unsigned)want, "nearest code at %zu: t=%a got %u", e, t, q);
        } else {
          float lo = floorf(t), hi = ceilf(t);
          lo = lo > (float)L ? (float)L : lo;
          hi = hi > (float)L ? (float)L : hi;
          cr_assert(q == (unsigned)lo || q == (unsigned)hi, "stochastic code %u, t=%a", q, t);
        }
        yq = fmaf((float)q, s, m);
        test_store(&want_y, c->y_dtype, 0, yq);
        cr_assert_eq(memcmp((const uint8_t *)y + e * test_dtype_size(c->y_dtype), &want_y,
                            test_dtype_size(c->y_dtype)),
                     0, "y = fma(q, s, m) at %zu", e);
        if (s > 0.0f) {
          double err = fabs((double)yq - v) / s;
          double limit = c->rounding == ACTQ_ROUND_NEAREST ? 0.5 : 1.0;
          if (err > res.max_err_steps) res.max_err_steps = err;
          /* t carries float rounding: allow a relative 2^-20 of the range on top */
          cr_assert(err <= limit + 1e-5 + fabs(v) * 0x1p-20 / s, "error %g steps at %zu", err, e);
        }
      }
    }
    off += row_bytes;
  }
  cr_assert_eq(off, packed_bytes);

  actq_context_destroy(ctx);
  free(codes);
  guard_free(packed);
  guard_free(gmin);
  guard_free(gscale);
  guard_free(y);
  return res;
}
