/* fuzz_fewbit.c - libFuzzer harness for the few-bit backward calls: fewbit_table_build,
 * fewbit_table_build_custom, fewbit_encode and fewbit_backward.
 *
 * The table comes from the solver (any activation value, parameter, width and options,
 * valid or not, grids kept small so that an execution stays fast), from user samples
 * (increasing or not, with NaN/Inf/huge values), or straight from the input's bytes (any
 * bounds and levels: tables can come from files). Then up to 2000 elements are encoded
 * and a gradient is multiplied back, in every dtype.
 * Contract checked on every context (reference, every ISA path, 1-3 threads):
 *   - statuses: invalid arguments give ACTQ_ERR_INVALID_ARGUMENT (never OK), y with a
 *     custom table ACTQ_ERR_UNSUPPORTED, NaN input ACTQ_ERR_NONFINITE; a failed build
 *     leaves the table untouched; a built table has increasing bounds and encode accepts it;
 *   - codes are the number of bounds strictly below x (NaN: 0), y, codes and grad_in equal
 *     the reference byte for byte, grad_in = grad_out * levels[code] rounded once;
 *   - nothing is written outside the outputs (guard page after, canary before).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fewbit.h"
#include "fuzz_support.h"

#define MAX_N 2000
#define MAX_SAMPLES 64

static int param_valid(int act, float p) {
  switch (act) {
  case FEWBIT_SOFTPLUS: case FEWBIT_ELU: case FEWBIT_CELU: return isfinite(p) && p > 0;
  case FEWBIT_LEAKY_RELU: return isfinite(p);
  default: return act >= FEWBIT_GELU && act < FEWBIT_CUSTOM;
  }
}

/* How many floats lie in [a, b] (a <= b), after rounding both to float. */
static double floats_between(double a, double b) {
  const float fa = (float)a, fb = (float)b;
  int32_t ia, ib;
  memcpy(&ia, &fa, 4);
  memcpy(&ib, &fb, 4);
  if (ia < 0) ia = INT32_MIN - ia; /* order the bit patterns of negative floats */
  if (ib < 0) ib = INT32_MIN - ib;
  return (double)ib - (double)ia + 1.0;
}

/* Returns the build's status after checking it; *t holds a table when it is ACTQ_OK. */
static actq_status build_from_solver(fz_input *in, fewbit_table *t) {
  const uint8_t f = fz_u8(in);
  const int act = (f & 0x80) ? (int)fz_u8(in) % 24 - 1 : 1 + (int)fz_u8(in) % 19;
  const float param = (f & 0x40) ? fz_float(in) : (float)(1 + fz_u8(in)) / 64.0f;
  const uint32_t bits = (f & 0x20) ? fz_u8(in) % 10u : 1u + fz_u8(in) % 8u;
  fewbit_options o;
  const fewbit_options *op = NULL;
  int valid = bits >= 1 && bits <= 8 && param_valid(act, param), maybe = 0;
  actq_status st;
  memset(&o, 0, sizeof o);
  /* NULL options use the default grid (1024 cells at least): only at 1 bit here,
   * so that an execution stays fast; the options path keeps its grid small. */
  if ((f & 0x10) && bits == 1) {
    op = NULL;
  } else {
    op = &o;
    o.weight = (f & 0x08) ? (fewbit_weight)fz_u8(in) : (fewbit_weight)(fz_u8(in) & 1);
    o.mean = (f & 0x04) ? fz_double(in) : (double)(int8_t)fz_u8(in) / 16.0;
    o.std = (f & 0x04) ? fz_double(in) : (double)(1 + fz_u8(in)) / 32.0;
    o.lo = (f & 0x02) ? fz_double(in) : -(double)fz_u8(in) / 8.0;
    o.hi = (f & 0x02) ? fz_double(in) : (double)(1 + fz_u8(in)) / 8.0;
    o.grid = (f & 0x01) ? fz_u32(in) : (uint32_t)(16 + fz_below(in, 2033));
    /* speed, not validity: the exact DP grows with cells x levels x scan, so grids stay
     * at most 2 cells per level at 6-7 bits, 1 at 8 bits and 256 cells below; the
     * default grid (1024 cells and more) only at 1 bit. A build still takes 10-20 ms
     * instrumented, so builds are one input in eight. */
    {
      const uint32_t cap = bits >= 6 && bits <= 8 ? (bits == 8 ? 256u : 2u << bits) : 256u;
      if (o.grid == 0 && bits > 1) o.grid = cap;
      if (o.grid > cap && o.grid <= (1u << 20)) o.grid = cap;
    }
    if (o.weight == FEWBIT_WEIGHT_NORMAL)
      valid &= isfinite(o.mean) && isfinite(o.std) && o.std > 0;
    else if (o.weight == FEWBIT_WEIGHT_UNIFORM)
      valid &= isfinite(o.lo) && isfinite(o.hi) && o.lo < o.hi;
    else
      valid = 0;
    if (o.grid != 0 && (o.grid < 16 || o.grid > (1u << 20))) valid = 0;
    if (o.grid != 0 && o.grid < (1u << bits)) valid = 0; /* grid >= 2^bits (fewbit.h) */
    /* grid == 2^bits exactly can lose a cell (ReLU6 at 8 bits, grid 256, domain ending at
     * its kink, found by this harness: docs/reliability.md); fewbit.h is silent, so a grid
     * under twice the levels may be refused as too coarse */
    if (o.grid != 0 && o.grid < (2u << bits)) maybe = 1;
    /* a domain whose width or ends overflow, whose ends lie beyond the float range of the
     * table's bounds, or too narrow for the float bounds of the grid's cells (fewbit.h is
     * silent on all three), may be refused as invalid */
    if (o.weight == FEWBIT_WEIGHT_NORMAL &&
        (!isfinite(o.mean + 10 * o.std) || !isfinite(o.mean - 10 * o.std) || o.std > 1e290 ||
         fabs(o.mean) + 10 * o.std > FLT_MAX ||
         floats_between(o.mean - 10 * o.std, o.mean + 10 * o.std) < 4.0 * (o.grid ? o.grid : 65536)))
      maybe = 1;
    if (o.weight == FEWBIT_WEIGHT_UNIFORM &&
        (!isfinite(o.hi - o.lo) || fabs(o.lo) > FLT_MAX || fabs(o.hi) > FLT_MAX ||
         floats_between(o.lo, o.hi) < 4.0 * (o.grid ? o.grid : 65536)))
      maybe = 1;
  }
  memset(t, 0x5a, sizeof *t);
  st = fewbit_table_build((fewbit_activation)act, param, bits, op, t);
  if ((st != ACTQ_OK && st != ACTQ_ERR_OUT_OF_MEMORY && valid && !maybe) || (st == ACTQ_OK && !valid))
    fprintf(stderr, "build: act %d param %a bits %u options %s weight %d mean %a std %a lo %a "
            "hi %a grid %u\n", act, param, bits, op ? "set" : "NULL", (int)o.weight, o.mean,
            o.std, o.lo, o.hi, o.grid);
  if (valid && !maybe)
    fz_expect_status(st, FZ_ST(ACTQ_OK) | FZ_ST(ACTQ_ERR_OUT_OF_MEMORY), "fewbit_table_build");
  else if (valid)
    fz_expect_status(st, FZ_ST(ACTQ_OK) | FZ_ST(ACTQ_ERR_INVALID_ARGUMENT) |
                     FZ_ST(ACTQ_ERR_OUT_OF_MEMORY), "fewbit_table_build (extreme domain)");
  else
    fz_expect_status(st, FZ_ST(ACTQ_ERR_INVALID_ARGUMENT), "fewbit_table_build (invalid)");
  fz_expect_status(fewbit_table_build((fewbit_activation)act, param, bits, op, NULL),
                   FZ_ST(ACTQ_ERR_INVALID_ARGUMENT), "fewbit_table_build(NULL table)");
  if (st == ACTQ_OK)
    FZ_CHECK(t->bits == bits && t->activation == (uint32_t)act &&
             memcmp(&t->param, &param, sizeof param) == 0,
             "built table does not record its bits/activation/param");
  return st;
}

static actq_status build_from_samples(fz_input *in, fewbit_table *t) {
  const uint8_t f = fz_u8(in);
  const size_t n = fz_below(in, MAX_SAMPLES + 1);
  const uint32_t bits = (f & 0x20) ? fz_u8(in) % 10u : 1u + fz_u8(in) % 8u;
  double x[MAX_SAMPLES], dydx[MAX_SAMPLES], w[MAX_SAMPLES];
  int valid = bits >= 1 && bits <= 8 && n >= 2;
  size_t i;
  actq_status st;
  double at = (double)(int8_t)fz_u8(in);
  for (i = 0; i < n; i++) {
    if (f & 0x01) x[i] = fz_double(in); /* anything: increasing or not, finite or not */
    else x[i] = at += (double)(1 + fz_u8(in)) / 16.0;
    dydx[i] = (f & 0x02) ? fz_double(in) : (double)(int8_t)fz_u8(in) / 8.0;
    w[i] = (f & 0x04) ? fz_double(in) : (double)fz_u8(in) / 64.0;
    valid &= isfinite(x[i]) && isfinite(dydx[i]) && (i == 0 || x[i] > x[i - 1]);
    if (f & 0x08) valid &= isfinite(w[i]) && w[i] >= 0;
  }
  memset(t, 0x5a, sizeof *t);
  st = fewbit_table_build_custom(n, (f & 0x40) ? NULL : x, dydx, (f & 0x08) ? w : NULL, bits, t);
  if ((f & 0x40) && n >= 2 && bits >= 1 && bits <= 8) valid = 0; /* NULL x */
  fz_expect_status(st, valid ? FZ_ST(ACTQ_OK) | FZ_ST(ACTQ_ERR_OUT_OF_MEMORY)
                             : FZ_ST(ACTQ_ERR_INVALID_ARGUMENT), "fewbit_table_build_custom");
  if (st == ACTQ_OK)
    FZ_CHECK(t->bits == bits && t->activation == FEWBIT_CUSTOM, "custom table: bits/activation");
  return st;
}

static actq_status table_from_bytes(fz_input *in, fewbit_table *t) {
  const uint8_t f = fz_u8(in);
  uint32_t i, nb;
  memset(t, 0, sizeof *t);
  t->bits = (f & 0x20) ? fz_u8(in) % 10u : 1u + fz_u8(in) % 8u;
  t->activation = (f & 0x10) ? fz_u8(in) : 1u + fz_u8(in) % 20u;
  t->param = (f & 0x08) ? fz_float(in) : 1.0f;
  nb = t->bits >= 1 && t->bits <= 8 ? (1u << t->bits) - 1u : 0;
  {
    float at = (float)(int8_t)fz_u8(in);
    for (i = 0; i < nb; i++) t->bounds[i] = (f & 0x04) ? fz_float(in) : (at += (float)(1 + fz_u8(in)) / 8.0f);
  }
  for (i = 0; i <= nb; i++) t->levels[i] = fz_float(in);
  return ACTQ_OK; /* validity is the encode/backward call's to judge */
}

static int table_valid(const fewbit_table *t) {
  uint32_t i, nb;
  if (t->bits < 1 || t->bits > 8) return 0;
  if (t->activation != FEWBIT_CUSTOM && !param_valid((int)t->activation, t->param)) return 0;
  nb = (1u << t->bits) - 1u;
  for (i = 0; i < nb; i++)
    if (isnan(t->bounds[i]) || (i && !(t->bounds[i - 1] < t->bounds[i]))) return 0;
  return 1;
}

static unsigned code_at(const uint8_t *packed, uint32_t bits, size_t i) {
  unsigned v = 0, k;
  for (k = 0; k < bits; k++) v |= (unsigned)(packed[(i * bits + k) / 8] >> ((i * bits + k) % 8) & 1) << k;
  return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_input in = {data, size};
  const fz_context *ctxs;
  const int nctx = fz_contexts(&ctxs);
  const uint8_t mode = fz_u8(&in);
  fewbit_table t;
  actq_status st;
  int valid, i, want_y, null_case;
  actq_dtype dt;
  int dti;
  size_t n, es, cbytes, e;
  float *xv;
  fz_buf xin, gin, codes_in, ref_codes = {0}, ref_y = {0}, ref_g = {0};
  actq_status ref_st = ACTQ_OK;

  /* one input in eight builds with the solver (slow), three from samples, four take the
   * table's bytes from the input */
  switch (mode % 8) {
  case 0: st = build_from_solver(&in, &t); break;
  case 1: case 2: case 3: st = build_from_samples(&in, &t); break;
  default: st = table_from_bytes(&in, &t); break;
  }
  if (st != ACTQ_OK) return 0;
  valid = table_valid(&t);
  FZ_CHECK(mode % 8 >= 4 || valid, "a table the library built is not valid input for encode");

  dti = (mode & 0x80) ? fz_u8(&in) : fz_u8(&in) % 3;
  dt = (actq_dtype)dti;
  want_y = (mode & 0x40) != 0;
  null_case = (mode & 0x20) ? 1 + (int)fz_below(&in, 4) : 0; /* 1 ctx 2 table 3 x 4 codes */
  n = fz_below(&in, MAX_N + 1);
  es = fz_dtype_valid(dti) ? fz_dtype_size(dt) : 4;
  cbytes = valid ? (n * t.bits + 7) / 8 : 16;

  /* x and grad_out in dtype: generated, with plants, or raw */
  xv = calloc(n + 1, sizeof(float));
  {
    const float base = fz_float(&in), spread = fz_float(&in);
    uint64_t s = fz_u64(&in);
    unsigned p, plants = fz_u8(&in) % 32;
    uint8_t *xb = calloc(n + 1, 4), *gb = calloc(n + 1, 4);
    for (e = 0; e < n; e++) {
      const float u = (float)(fz_mix(&s) >> 40) / 16777216.0f;
      if (fz_dtype_valid(dti)) {
        fz_store(dt, xb, e, base + spread * (2.0f * u - 1.0f));
        fz_store(dt, gb, e, (float)(int32_t)(fz_mix(&s) >> 40) / 65536.0f - 128.0f);
      }
    }
    for (p = 0; p < plants && n && fz_dtype_valid(dti); p++) {
      fz_store(dt, xb, fz_below(&in, n), fz_float(&in));
      fz_store(dt, gb, fz_below(&in, n), fz_float(&in));
    }
    for (e = 0; e < n && fz_dtype_valid(dti); e++) xv[e] = fz_load(dt, xb, e);
    xin = fz_buf_copy(xb, n * es);
    gin = fz_buf_copy(gb, n * es);
    free(xb);
    free(gb);
  }

  /* encode */
  for (i = 0; i < nctx; i++) {
    fz_buf codes = fz_buf_new(cbytes, 0x5a), y = fz_buf_new(n * es, 0x5a);
    unsigned allowed;
    int any_nan = 0;
    for (e = 0; e < n; e++) any_nan |= isnan(xv[e]);
    if (null_case == 1 || null_case == 2 || !fz_dtype_valid(dti) || !valid)
      allowed = FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
    else if (want_y && t.activation == FEWBIT_CUSTOM) allowed = FZ_ST(ACTQ_ERR_UNSUPPORTED);
    else if (n == 0) allowed = FZ_ST(ACTQ_OK);
    else if (null_case) allowed = FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
    else allowed = any_nan ? FZ_ST(ACTQ_ERR_NONFINITE) : FZ_ST(ACTQ_OK);
    st = fewbit_encode(null_case == 1 ? NULL : ctxs[i].ctx, null_case == 2 ? NULL : &t, n, dt,
                       null_case == 3 ? NULL : xin.p, want_y ? y.p : NULL,
                       null_case == 4 ? NULL : codes.p);
    fz_expect_status(st, allowed, "fewbit_encode");
    fz_buf_check(&codes, "fewbit_encode: codes");
    fz_buf_check(&y, "fewbit_encode: y");
    if ((st != ACTQ_OK && st != ACTQ_ERR_NONFINITE) || n == 0 || !want_y)
      fz_buf_untouched(&y, 0x5a, "fewbit_encode: y not asked for or call rejected");
    if ((st != ACTQ_OK && st != ACTQ_ERR_NONFINITE) || n == 0) {
      fz_buf_untouched(&codes, 0x5a, "fewbit_encode (rejected or empty): codes");
    } else if (i == 0) {
      const uint32_t nb = (1u << t.bits) - 1u;
      ref_st = st;
      for (e = 0; e < n; e++) {
        unsigned want = 0, k;
        if (!isnan(xv[e]))
          for (k = 0; k < nb; k++) want += t.bounds[k] < xv[e];
        FZ_CHECK(code_at(codes.p, t.bits, e) == want, "element %zu (x = %a): code %u, %u bounds "
                 "are below it", e, xv[e], code_at(codes.p, t.bits, e), want);
        if (want_y && isnan(xv[e]))
          FZ_CHECK(isnan(fz_load(dt, y.p, e)), "element %zu: y of NaN is not NaN", e);
      }
      if ((n * t.bits) % 8)
        FZ_CHECK(codes.p[cbytes - 1] >> ((n * t.bits) % 8) == 0, "unused code bits not zero");
      ref_codes = fz_buf_copy(codes.p, cbytes);
      ref_y = fz_buf_copy(y.p, n * es);
    } else {
      FZ_CHECK(st == ref_st, "fewbit_encode on %s returned %d, the reference %d", ctxs[i].name,
               (int)st, (int)ref_st);
      fz_expect_same(ref_codes.p, codes.p, cbytes, "fewbit_encode: codes", ctxs[i].name);
      if (want_y) fz_expect_same(ref_y.p, y.p, n * es, "fewbit_encode: y", ctxs[i].name);
    }
    fz_buf_free(&codes);
    fz_buf_free(&y);
  }

  /* backward: the codes encode wrote, or the input's bytes */
  {
    uint8_t *cb = calloc(cbytes + 1, 1);
    if (ref_codes.p && !(mode & 0x08)) memcpy(cb, ref_codes.p, cbytes);
    else for (e = 0; e < cbytes; e++) cb[e] = fz_u8(&in);
    codes_in = fz_buf_copy(cb, cbytes);
    free(cb);
  }
  for (i = 0; i < nctx; i++) {
    fz_buf g = fz_buf_new(n * es, 0x5a);
    unsigned allowed;
    if (null_case == 1 || null_case == 2 || !fz_dtype_valid(dti) || !valid)
      allowed = FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
    else if (n == 0) allowed = FZ_ST(ACTQ_OK);
    else if (null_case) allowed = FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
    else allowed = FZ_ST(ACTQ_OK);
    st = fewbit_backward(null_case == 1 ? NULL : ctxs[i].ctx, null_case == 2 ? NULL : &t, n,
                         null_case == 4 ? NULL : codes_in.p, dt, null_case == 3 ? NULL : gin.p, g.p);
    fz_expect_status(st, allowed, "fewbit_backward");
    fz_buf_check(&g, "fewbit_backward: grad_in");
    if (st != ACTQ_OK || n == 0) {
      fz_buf_untouched(&g, 0x5a, "fewbit_backward (rejected or empty): grad_in");
    } else if (i == 0) {
      for (e = 0; e < n; e++) {
        const float lv = t.levels[code_at(codes_in.p, t.bits, e)];
        const float prod = fz_load(dt, gin.p, e) * lv;
        uint8_t want[4];
        fz_store(dt, want, 0, prod);
        if (isnan(prod))
          FZ_CHECK(isnan(fz_load(dt, g.p, e)), "grad_in %zu: not NaN", e);
        else
          FZ_CHECK(memcmp(want, g.p + e * es, es) == 0, "grad_in %zu is not grad_out * level "
                   "rounded once (%a * %a)", e, fz_load(dt, gin.p, e), lv);
      }
      ref_g = fz_buf_copy(g.p, n * es);
    } else {
      fz_expect_same(ref_g.p, g.p, n * es, "fewbit_backward: grad_in", ctxs[i].name);
    }
    fz_buf_free(&g);
  }

  fz_buf_free(&ref_codes);
  fz_buf_free(&ref_y);
  fz_buf_free(&ref_g);
  fz_buf_free(&codes_in);
  fz_buf_free(&xin);
  fz_buf_free(&gin);
  free(xv);
  return 0;
}
