/* fuzz_quantize.c - libFuzzer harness for layouts, actq_quantize and actq_dequantize
 * (and the small context calls: set_threads, set_stream, synchronize, describe,
 * actq_status_string).
 *
 * The input chooses the layout (rows <= 8, cols <= 600, any group size, width or row_bits,
 * valid or not; sometimes sizes that overflow), the dtypes (valid or not), rounding, seed
 * and offset, and the values: generated around a base and spread the input picks, or raw
 * bits, with NaN, Inf, denormals, +-FLT_MAX, f16-range edges and constant groups planted.
 * Contract checked on every context (reference, every ISA path, 1-3 threads):
 *   - the status is the documented one: invalid layouts and arguments never give ACTQ_OK;
 *     valid ones give ACTQ_OK, or ACTQ_ERR_NONFINITE exactly when a group stored NaN;
 *   - actq_layout_sizes agrees with the formulas of docs/format.md;
 *   - every output byte equals the reference's; nothing is written outside the outputs
 *     (guard page after, canary before), nothing at all by a call that fails;
 *   - metadata bound the group (m <= x <= m + L*s), NaN/Inf groups store NaN metadata and
 *     zero codes, constant groups store s = 0 and m = the value, unused row bits are zero;
 *   - dequantization of those outputs, and of metadata and codes the input corrupts,
 *     equals the reference byte for byte, and NaN metadata dequantizes to NaN.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_support.h"

#define MAX_ROWS 8
#define MAX_COLS 600

typedef struct case_t {
  actq_layout layout;
  uint8_t row_bits[MAX_ROWS];
  int x_dtype, y_dtype, rounding;
  uint64_t seed, offset;
} case_t;

/* The documented status of a layout: OK, INVALID_ARGUMENT or SIZE_OVERFLOW, in the order
 * actq.h gives (group size, width, meta dtype; size; row_bits entries). */
static actq_status layout_status(const actq_layout *l) {
  size_t r;
  if (l->group_size < 8 || l->group_size > 65536 || l->group_size % 8) return ACTQ_ERR_INVALID_ARGUMENT;
  if (!l->row_bits && (l->bits < 1 || l->bits > 8)) return ACTQ_ERR_INVALID_ARGUMENT;
  if (!fz_dtype_valid((int)l->meta_dtype)) return ACTQ_ERR_INVALID_ARGUMENT;
  if (l->cols && l->rows > SIZE_MAX / 4 / l->cols) return ACTQ_ERR_SIZE_OVERFLOW;
  if (l->row_bits)
    for (r = 0; r < l->rows; r++)
      if (l->row_bits[r] < 1 || l->row_bits[r] > 8) return ACTQ_ERR_INVALID_ARGUMENT;
  return ACTQ_OK;
}

static uint32_t row_width(const actq_layout *l, size_t r) {
  return l->row_bits ? l->row_bits[r] : l->bits;
}

static int pick_dtype(fz_input *in) {
  const uint8_t v = fz_u8(in);
  return v < 240 ? v % 3 : v; /* mostly valid; 3..255 are not dtypes */
}

/* The values: a base and spread, then plants; or raw bits. */
static void fill_values(fz_input *in, const case_t *k, void *x) {
  const actq_dtype t = (actq_dtype)k->x_dtype;
  const size_t n = k->layout.rows * k->layout.cols, es = fz_dtype_size(t);
  const uint8_t mode = fz_u8(in);
  size_t i;
  if (n == 0) return;
  if (mode & 1) {
    for (i = 0; i < n * es; i++) ((uint8_t *)x)[i] = fz_u8(in);
  } else {
    const float base = fz_float(in), spread = fz_float(in);
    uint64_t s = fz_u64(in);
    for (i = 0; i < n; i++) {
      float u = (float)(fz_mix(&s) >> 40) / 16777216.0f;
      fz_store(t, x, i, base + spread * (2.0f * u - 1.0f));
    }
  }
  if (mode & 2) { /* a constant group */
    const size_t r = fz_below(in, k->layout.rows), g = fz_below(in, k->layout.cols / k->layout.group_size + 1);
    const float v = fz_float(in);
    for (i = g * k->layout.group_size; i < (g + 1) * k->layout.group_size && i < k->layout.cols; i++)
      fz_store(t, x, r * k->layout.cols + i, v);
  }
  { /* plants: special values at chosen places */
    const unsigned plants = (mode >> 2) % 16;
    unsigned p;
    for (p = 0; p < plants; p++) fz_store(t, x, fz_below(in, n), fz_float(in));
  }
}

static unsigned quantize_allowed(actq_status layout_st, const case_t *k, int null_case) {
  if (null_case == 1 || null_case == 2) return FZ_ST(ACTQ_ERR_INVALID_ARGUMENT); /* ctx, layout */
  if (!fz_dtype_valid(k->x_dtype) || (k->rounding != 0 && k->rounding != 1))
    return FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
  if (layout_st != ACTQ_OK) return FZ_ST(layout_st);
  if (k->layout.rows == 0 || k->layout.cols == 0) return FZ_ST(ACTQ_OK);
  if (null_case) return FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
  return FZ_ST(ACTQ_OK) | FZ_ST(ACTQ_ERR_NONFINITE);
}

static unsigned dequantize_allowed(actq_status layout_st, const case_t *k, int null_case) {
  if (null_case == 1 || null_case == 2) return FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
  if (!fz_dtype_valid(k->y_dtype)) return FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
  if (layout_st != ACTQ_OK) return FZ_ST(layout_st);
  if (k->layout.rows == 0 || k->layout.cols == 0) return FZ_ST(ACTQ_OK);
  if (null_case) return FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
  return FZ_ST(ACTQ_OK);
}

/* Properties of the reference's outputs that follow from the contract alone. */
static void check_semantics(const case_t *k, const void *x, const uint8_t *packed,
                            const void *gmin, const void *gscale, actq_status st) {
  const actq_layout *l = &k->layout;
  const size_t G = l->group_size, gpr = (l->cols + G - 1) / G;
  const actq_dtype md = l->meta_dtype, xd = (actq_dtype)k->x_dtype;
  size_t r, g, c, row_off = 0;
  int any_nan_meta = 0;
  for (r = 0; r < l->rows; r++) {
    const uint32_t b = row_width(l, r);
    const double L = (double)((1u << b) - 1u);
    const size_t row_bytes = (l->cols * b + 7) / 8;
    for (g = 0; g < gpr; g++) {
      const float m = fz_load(md, gmin, r * gpr + g), s = fz_load(md, gscale, r * gpr + g);
      const size_t c0 = g * G, c1 = c0 + G < l->cols ? c0 + G : l->cols;
      int has_nonfinite = 0, constant = 1;
      const float first = fz_load(xd, x, r * l->cols + c0);
      for (c = c0; c < c1; c++) {
        const float v = fz_load(xd, x, r * l->cols + c);
        has_nonfinite |= !isfinite(v);
        constant &= v == first;
      }
      FZ_CHECK(isnan(m) == isnan(s), "row %zu group %zu: only one of min/scale is NaN", r, g);
      if (has_nonfinite)
        FZ_CHECK(isnan(m) && isnan(s), "row %zu group %zu holds NaN/Inf but stored finite "
                 "metadata (%g, %g)", r, g, m, s);
      /* finite groups, even huge ones, give finite f32 metadata from 2 bits on */
      if (!has_nonfinite && md == ACTQ_F32 && b >= 2)
        FZ_CHECK(!isnan(m), "row %zu group %zu: finite values but NaN f32 metadata at %u bits",
                 r, g, b);
      if (isnan(m)) {
        any_nan_meta = 1;
        for (c = c0; c < c1; c++) {
          const size_t bit = c * b;
          const unsigned code = (unsigned)((packed[row_off + bit / 8] |
                                            (bit % 8 + b > 8 ? packed[row_off + bit / 8 + 1] << 8 : 0)) >>
                                           (bit % 8)) & ((1u << b) - 1u);
          FZ_CHECK(code == 0, "row %zu group %zu: NaN metadata but code %u at col %zu", r, g, code, c);
        }
        continue;
      }
      FZ_CHECK(isfinite(m) && isfinite(s) && s >= 0, "row %zu group %zu: metadata (%g, %g) "
               "neither NaN nor finite with s >= 0", r, g, m, s);
      /* m <= x <= m + L*s: L*s is exact in double and the sum rounds monotonically, so a
       * violation here is a violation in exact arithmetic too. */
      for (c = c0; c < c1; c++) {
        const float v = fz_load(xd, x, r * l->cols + c);
        FZ_CHECK((double)m <= (double)v && (double)v <= (double)m + L * (double)s,
                 "row %zu group %zu col %zu: x = %a outside [m, m + L*s] = [%a, %a + %g*%a]",
                 r, g, c, v, m, m, L, s);
      }
      /* a constant group of a value meta_dtype holds stores s = 0 and m = that value */
      if (constant) {
        uint8_t tmp[4];
        fz_store(md, tmp, 0, first);
        if (fz_load(md, tmp, 0) == first)
          FZ_CHECK(s == 0 && m == first, "row %zu group %zu: constant %a stored as (%a, %a)",
                   r, g, first, m, s);
      }
    }
    if ((l->cols * b) % 8)
      FZ_CHECK((packed[row_off + row_bytes - 1] >> ((l->cols * b) % 8)) == 0,
               "row %zu: unused high bits of the last byte are not zero", r);
    row_off += row_bytes;
  }
  FZ_CHECK((st == ACTQ_ERR_NONFINITE) == any_nan_meta,
           "status %d but %s group stored NaN metadata", (int)st, any_nan_meta ? "a" : "no");
}

static void context_calls(fz_input *in, const fz_context *c) {
  const int threads = (int)(int8_t)fz_u8(in);
  actq_status st;
  FZ_CHECK(actq_status_string((actq_status)fz_u32(in)) != NULL, "actq_status_string gave NULL");
  FZ_CHECK(actq_context_describe(c->ctx) != NULL, "describe gave NULL");
  FZ_CHECK(actq_context_describe(NULL) != NULL, "describe(NULL) gave NULL");
  fz_expect_status(actq_context_set_stream(c->ctx, NULL), FZ_ST(ACTQ_ERR_UNSUPPORTED), "set_stream");
  fz_expect_status(actq_context_synchronize(c->ctx), FZ_ST(ACTQ_OK), "synchronize");
  fz_expect_status(actq_context_set_threads(NULL, 1), FZ_ST(ACTQ_ERR_INVALID_ARGUMENT),
                   "set_threads(NULL)");
  if (threads < 0) {
    st = actq_context_set_threads(c->ctx, threads);
    fz_expect_status(st, FZ_ST(ACTQ_ERR_INVALID_ARGUMENT), "set_threads(<0)");
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_input in = {data, size};
  const fz_context *ctxs;
  const int nctx = fz_contexts(&ctxs);
  case_t k;
  const uint8_t flags = fz_u8(&in);
  const int null_case = (flags & 0x01) ? 1 + (int)fz_below(&in, 6) : 0; /* 1 ctx 2 layout 3.. data */
  actq_status lst;
  size_t packed_bytes = 0, groups = 0, n, r, ms;
  size_t got_bytes = 7, got_groups = 7;
  int i;
  void *x;
  fz_buf xin, ref_packed = {0}, ref_min = {0}, ref_scale = {0};
  actq_status ref_st = ACTQ_OK;

  memset(&k, 0, sizeof k);
  if (flags & 0x02) { /* sizes near SIZE_MAX: only validation may look at them */
    k.layout.rows = (size_t)fz_u64(&in);
    k.layout.cols = (size_t)fz_u64(&in);
  } else {
    k.layout.rows = fz_below(&in, MAX_ROWS + 1);
    k.layout.cols = fz_below(&in, MAX_COLS + 1);
  }
  k.layout.group_size = (flags & 0x04) ? fz_u32(&in) : 8u * (1u + (uint32_t)fz_below(&in, 80));
  k.layout.bits = (flags & 0x08) ? fz_u32(&in) % 10u : 1u + fz_u8(&in) % 8u;
  if (flags & 0x10) {
    for (r = 0; r < MAX_ROWS; r++) {
      const uint8_t v = fz_u8(&in);
      k.row_bits[r] = v < 248 ? (uint8_t)(1 + v % 8) : (uint8_t)(v & 1 ? 0 : v);
    }
    k.layout.row_bits = k.row_bits;
  }
  k.layout.meta_dtype = (actq_dtype)pick_dtype(&in);
  k.x_dtype = pick_dtype(&in);
  k.y_dtype = pick_dtype(&in);
  k.rounding = (flags & 0x20) ? (int)fz_u8(&in) : (int)(fz_u8(&in) & 1);
  k.seed = fz_u64(&in);
  k.offset = fz_u64(&in);
  context_calls(&in, &ctxs[fz_below(&in, (size_t)nctx)]);

  /* huge sizes with row_bits: only overflowing ones may be passed (the library reads
   * rows entries of row_bits once the size is known to be addressable) */
  if ((flags & 0x02) && k.layout.row_bits) {
    actq_layout probe = k.layout;
    probe.row_bits = NULL;
    probe.bits = 1;
    if (layout_status(&probe) == ACTQ_OK && k.layout.rows > MAX_ROWS) return 0;
  }
  lst = layout_status(&k.layout);
  {
    const actq_status st = actq_layout_sizes(&k.layout, (flags & 0x40) ? NULL : &got_bytes,
                                             (flags & 0x80) ? NULL : &got_groups);
    fz_expect_status(st, FZ_ST(lst), "actq_layout_sizes");
    fz_expect_status(actq_layout_sizes(NULL, &got_bytes, &got_groups),
                     FZ_ST(ACTQ_ERR_INVALID_ARGUMENT), "actq_layout_sizes(NULL)");
    if (st == ACTQ_OK) {
      if (k.layout.row_bits) /* rows <= MAX_ROWS here */
        for (r = 0; r < k.layout.rows; r++) packed_bytes += (k.layout.cols * row_width(&k.layout, r) + 7) / 8;
      else
        packed_bytes = k.layout.rows * ((k.layout.cols * k.layout.bits + 7) / 8);
      groups = k.layout.rows * ((k.layout.cols + k.layout.group_size - 1) / k.layout.group_size);
      FZ_CHECK((flags & 0x40) || got_bytes == packed_bytes, "packed bytes %zu, expected %zu", got_bytes, packed_bytes);
      FZ_CHECK((flags & 0x80) || got_groups == groups, "groups %zu, expected %zu", got_groups, groups);
    } else {
      FZ_CHECK(got_bytes == 7 && got_groups == 7, "actq_layout_sizes wrote its outputs on failure");
    }
  }
  if (lst == ACTQ_OK && (k.layout.rows > MAX_ROWS || k.layout.cols > MAX_COLS)) return 0;
  if (lst != ACTQ_OK) packed_bytes = groups = 16; /* buffers that must stay untouched */

  n = lst == ACTQ_OK ? k.layout.rows * k.layout.cols : 16;
  x = calloc(n ? n : 1, 4);
  if (lst == ACTQ_OK && fz_dtype_valid(k.x_dtype)) fill_values(&in, &k, x);
  xin = fz_buf_copy(x, n * (fz_dtype_valid(k.x_dtype) ? fz_dtype_size((actq_dtype)k.x_dtype) : 4));
  ms = fz_dtype_valid((int)k.layout.meta_dtype) ? fz_dtype_size(k.layout.meta_dtype) : 4;

  for (i = 0; i < nctx; i++) {
    fz_buf packed = fz_buf_new(packed_bytes, 0x5a), gmin = fz_buf_new(groups * ms, 0x5a),
           gscale = fz_buf_new(groups * ms, 0x5a);
    const unsigned allowed = quantize_allowed(lst, &k, null_case);
    const actq_status st = actq_quantize(
        null_case == 1 ? NULL : ctxs[i].ctx, null_case == 2 ? NULL : &k.layout,
        (actq_dtype)k.x_dtype, null_case == 3 ? NULL : xin.p, (actq_rounding)k.rounding, k.seed,
        k.offset, null_case == 4 ? NULL : packed.p, null_case == 5 ? NULL : gmin.p,
        null_case == 6 ? NULL : gscale.p);
    fz_expect_status(st, allowed, "actq_quantize");
    fz_buf_check(&packed, "quantize: packed");
    fz_buf_check(&gmin, "quantize: group_min");
    fz_buf_check(&gscale, "quantize: group_scale");
    if (st != ACTQ_OK && st != ACTQ_ERR_NONFINITE) {
      fz_buf_untouched(&packed, 0x5a, "quantize (rejected): packed");
      fz_buf_untouched(&gmin, 0x5a, "quantize (rejected): group_min");
      fz_buf_untouched(&gscale, 0x5a, "quantize (rejected): group_scale");
    } else if (i == 0) {
      ref_st = st;
      if (k.layout.rows && k.layout.cols)
        check_semantics(&k, xin.p, packed.p, gmin.p, gscale.p, st);
      ref_packed = fz_buf_copy(packed.p, packed_bytes);
      ref_min = fz_buf_copy(gmin.p, groups * ms);
      ref_scale = fz_buf_copy(gscale.p, groups * ms);
    } else {
      FZ_CHECK(st == ref_st, "actq_quantize on %s returned %d, the reference %d", ctxs[i].name,
               (int)st, (int)ref_st);
      fz_expect_same(ref_packed.p, packed.p, packed_bytes, "quantize: packed", ctxs[i].name);
      fz_expect_same(ref_min.p, gmin.p, groups * ms, "quantize: group_min", ctxs[i].name);
      fz_expect_same(ref_scale.p, gscale.p, groups * ms, "quantize: group_scale", ctxs[i].name);
    }
    fz_buf_free(&packed);
    fz_buf_free(&gmin);
    fz_buf_free(&gscale);
  }

  /* dequantize: the reference's outputs, with bytes the input corrupts */
  {
    const size_t ys = fz_dtype_valid(k.y_dtype) ? fz_dtype_size((actq_dtype)k.y_dtype) : 4;
    const unsigned allowed = dequantize_allowed(lst, &k, null_case);
    const unsigned corrupt = fz_u8(&in) % 8;
    fz_buf ref_y = {0};
    unsigned c;
    if (!ref_packed.p) { /* nothing quantized: arbitrary inputs of the right sizes */
      ref_packed = fz_buf_new(packed_bytes, 0);
      ref_min = fz_buf_new(groups * ms, 0);
      ref_scale = fz_buf_new(groups * ms, 0);
    }
    for (c = 0; c < corrupt; c++) {
      fz_buf *t = c % 3 == 0 ? &ref_packed : c % 3 == 1 ? &ref_min : &ref_scale;
      if (t->n) t->p[fz_below(&in, t->n)] = fz_u8(&in);
    }
    for (i = 0; i < nctx; i++) {
      fz_buf y = fz_buf_new(n * ys, 0x5a);
      const actq_status st = actq_dequantize(
          null_case == 1 ? NULL : ctxs[i].ctx, null_case == 2 ? NULL : &k.layout,
          null_case == 3 ? NULL : ref_packed.p, null_case == 4 ? NULL : ref_min.p,
          null_case == 5 ? NULL : ref_scale.p, (actq_dtype)k.y_dtype, null_case == 6 ? NULL : y.p);
      fz_expect_status(st, allowed, "actq_dequantize");
      fz_buf_check(&y, "dequantize: y");
      if (st != ACTQ_OK || n == 0 || !k.layout.rows || !k.layout.cols) {
        fz_buf_untouched(&y, 0x5a, "dequantize (rejected or empty): y");
      } else if (i == 0) {
        const size_t gpr = (k.layout.cols + k.layout.group_size - 1) / k.layout.group_size;
        size_t e;
        for (e = 0; e < n; e++) {
          const size_t g = (e / k.layout.cols) * gpr + (e % k.layout.cols) / k.layout.group_size;
          if (isnan(fz_load(k.layout.meta_dtype, ref_min.p, g)) ||
              isnan(fz_load(k.layout.meta_dtype, ref_scale.p, g)))
            FZ_CHECK(isnan(fz_load((actq_dtype)k.y_dtype, y.p, e)),
                     "element %zu: NaN metadata dequantized to a number", e);
        }
        ref_y = fz_buf_copy(y.p, n * ys);
      } else {
        fz_expect_same(ref_y.p, y.p, n * ys, "dequantize: y", ctxs[i].name);
      }
      fz_buf_free(&y);
    }
    fz_buf_free(&ref_y);
  }
  fz_buf_free(&ref_packed);
  fz_buf_free(&ref_min);
  fz_buf_free(&ref_scale);
  fz_buf_free(&xin);
  free(x);
  return 0;
}
