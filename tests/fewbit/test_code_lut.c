/* test_code_lut.c - the constant-time code table (src/fewbit/code_lut.c) and the search
 * over the bounds in level order (actq_fewbit_code_level_order, the GPU's) against the
 * reference binary search (actq_fewbit_code), and fewbit_encode through the table (the CPU
 * backend builds one per large call) against the reference backend.
 *
 * Inputs: every 2^14-th float32 bit pattern (from a per-table offset), all specials (+-0,
 * +-Inf, NaNs of both signs and several payloads, denormals, +-FLT_MIN, +-FLT_MAX), and
 * around each bound its neighbours 1 and 2 ulps away and the first and last keys of its
 * level-1 and level-2 buckets. Tables: activation tables of every width, and hand-made
 * ones: consecutive floats (one bucket holding 255 bounds), bounds around zero with -0 or
 * +0, -Inf and +Inf bounds, +-FLT_MAX, pairs sharing buckets at each level, random bit
 * patterns. scripts/check-fewbit-codes runs all 2^32 patterns.
 */
/* Timeouts of 600 s: memcheck (scripts/valgrind-ctest) runs these some 50x slower. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/arith/fewbit_elem.h"
#include "fewbit.h"
#include "src/fewbit/code_lut.h"
#include "support/tensor.h"

static float from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint32_t to_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
/* the float of an order-preserving key (inverse of actq_fewbit_key off NaN) */
static float from_key(uint32_t k) { return from_bits(k & 0x80000000u ? k ^ 0x80000000u : ~k); }

static actq_fewbit_lut *lut_new(const float *bounds, uint32_t bits) {
  actq_fewbit_lut *lut = malloc(actq_fewbit_lut_size(bounds, bits));
  cr_assert(lut);
  actq_fewbit_lut_build(lut, bounds, bits);
  return lut;
}

static const uint32_t special_bits[] = {
    0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
    0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffffffffu, 0x7fa00000u, 0x00000001u,
    0x80000001u, 0x007fffffu, 0x807fffffu, 0x00800000u, 0x80800000u, 0x7f7fffffu,
    0xff7fffffu, 0x3f800000u, 0xbf800000u, 0x0000ffffu, 0x80010000u, 0x7f80ffffu};

static size_t n_checked;
/* The bounds of the table being checked in level order (check_table fills it). */
static float level_order[255];

static void check_one(const actq_fewbit_lut *lut, const float *bounds, uint32_t bits, float x) {
  const uint32_t want = actq_fewbit_code(bounds, bits, x), got = actq_fewbit_lut_code(lut, x);
  const uint32_t ordered = actq_fewbit_code_level_order(level_order, bits, x);
  n_checked++;
  if (got != want)
    cr_assert_fail("bits %u x=%a (0x%08x): table code %u, search %u", bits, (double)x,
                   to_bits(x), got, want);
  if (ordered != want)
    cr_assert_fail("bits %u x=%a (0x%08x): level-order search %u, search %u", bits, (double)x,
                   to_bits(x), ordered, want);
}

static void check_key(const actq_fewbit_lut *lut, const float *bounds, uint32_t bits, uint32_t k) {
  check_one(lut, bounds, bits, from_key(k));
}

static void check_table(const float *bounds, uint32_t bits, uint32_t offset) {
  actq_fewbit_lut *lut = lut_new(bounds, bits);
  const uint32_t nb = (1u << bits) - 1u;
  uint64_t p;
  uint32_t i;
  int d;
  for (i = 0; i < nb; i++) level_order[i] = bounds[actq_fewbit_level_slot_bound(bits, i)];
  for (p = offset % 16384; p < ((uint64_t)1 << 32); p += 16384)
    check_one(lut, bounds, bits, from_bits((uint32_t)p));
  for (i = 0; i < sizeof special_bits / sizeof *special_bits; i++) {
    check_one(lut, bounds, bits, from_bits(special_bits[i]));
  }
  for (i = 0; i < nb; i++) {
    const uint32_t k = actq_fewbit_key(bounds[i]);
    for (d = -2; d <= 2; d++) check_key(lut, bounds, bits, k + (uint32_t)d);
    check_one(lut, bounds, bits, bounds[i]);
    check_one(lut, bounds, bits, -bounds[i]);
    check_key(lut, bounds, bits, k & ~0xffffu);
    check_key(lut, bounds, bits, k | 0xffffu);
    check_key(lut, bounds, bits, k & ~0xffu);
    check_key(lut, bounds, bits, k | 0xffu);
  }
  free(lut);
}

static uint32_t table_offset = 1;

static void check_bounds(const float *bounds, uint32_t bits) {
  uint32_t i;
  for (i = 1; i + 1 < (1u << bits); i++)
    cr_assert(bounds[i - 1] < bounds[i], "test table increases at %u", i);
  table_offset = table_offset * 2654435761u + 977u;
  check_table(bounds, bits, table_offset);
}

Test(code_lut, activation_tables_every_width, .timeout = 600) {
  static const fewbit_activation acts[] = {FEWBIT_SILU, FEWBIT_TANH, FEWBIT_SIGMOID,
                                           FEWBIT_ELU,  FEWBIT_SOFTPLUS, FEWBIT_HARDSWISH,
                                           FEWBIT_RELU, FEWBIT_LEAKY_RELU};
  uint32_t bits, a;
  for (bits = 1; bits <= 8; bits++) {
    fewbit_table t;
    cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0, bits, NULL, &t), ACTQ_OK);
    check_bounds(t.bounds, bits);
  }
  for (a = 0; a < sizeof acts / sizeof *acts; a++)
    for (bits = 1; bits <= 4; bits++) {
      fewbit_table t;
      const float param = acts[a] == FEWBIT_LEAKY_RELU ? 0.01f : 1.0f;
      cr_assert_eq(fewbit_table_build(acts[a], param, bits, NULL, &t), ACTQ_OK);
      check_bounds(t.bounds, bits);
    }
}

/* 2^bits - 1 consecutive keys from k0; of the keys of -0 and +0 only the first (-0 and
 * +0 are equal, so a table cannot hold both) */
static void consecutive(float *b, uint32_t bits, uint32_t k0) {
  uint32_t i, k = k0;
  for (i = 0; i + 1 < (1u << bits); i++, k++) {
    if (k == 0x80000000u && k != k0) k++;
    b[i] = from_key(k);
  }
}

Test(code_lut, adversarial_tables, .timeout = 600) {
  float b[255];
  uint32_t bits, i;
  uint64_t st = 5;
  for (bits = 1; bits <= 8; bits++) {
    const uint32_t nb = (1u << bits) - 1u;
    consecutive(b, bits, actq_fewbit_key(1.0f)); /* many bounds in one bucket */
    check_bounds(b, bits);
    consecutive(b, bits, actq_fewbit_key(1.0f) - nb / 2); /* straddling buckets at 1.0 */
    check_bounds(b, bits);
    consecutive(b, bits, 0x80000000u - nb / 2); /* around zero, one zero bound */
    for (i = 0; i < nb; i++)
      if (to_bits(b[i]) == 0x80000000u) b[i] = 0.0f;
    check_bounds(b, bits);
    consecutive(b, bits, 0x7fffffffu - nb / 2); /* ... -0 */
    check_bounds(b, bits);
    consecutive(b, bits, 0x7fffffffu - nb + 1); /* the last bound is -0 */
    b[nb - 1] = -0.0f;
    check_bounds(b, bits);
    consecutive(b, bits, 0x80000000u); /* the first bound is +0, then denormals */
    check_bounds(b, bits);
    consecutive(b, bits, actq_fewbit_key(-INFINITY)); /* -Inf first */
    check_bounds(b, bits);
    consecutive(b, bits, actq_fewbit_key(INFINITY) - nb + 1); /* +Inf last */
    check_bounds(b, bits);
    for (i = 0; i < nb; i++) /* -FLT_MAX .. FLT_MAX spread wide */
      b[i] = nb == 1 ? FLT_MAX : (float)(-(double)FLT_MAX + i * (2.0 * FLT_MAX / (nb - 1)));
    b[nb - 1] = FLT_MAX;
    check_bounds(b, bits);
    /* pairs sharing a level-1 bucket, a level-2 bucket, and neighbouring buckets */
    for (i = 0; i < nb; i++) {
      const uint32_t k = 0x80000000u + (i / 2) * 0x00100000u + (i % 2) * (i % 4 == 1 ? 0x100u : 0x1u);
      b[i] = from_key(k);
    }
    check_bounds(b, bits);
    for (i = 0; i < nb; i++) b[i] = from_key(0x40000000u + i * 0x10000u - 1u); /* bucket edges */
    check_bounds(b, bits);
    { /* random distinct bit patterns, sorted by key */
      uint32_t k[255], j;
      for (i = 0; i < nb; i++) {
        uint32_t v;
        do v = (uint32_t)test_rand_u64(&st);
        while (v < 0x00800000u || v > 0xff000000u); /* no NaN, room for the nudges */
        for (j = i; j > 0 && k[j - 1] > v; j--) k[j] = k[j - 1];
        k[j] = v;
      }
      for (i = 1; i < nb; i++) /* repeats (rare) and the -0/+0 pair: nudged upwards */
        if (k[i] <= k[i - 1] || (k[i - 1] == 0x7fffffffu && k[i] == 0x80000000u))
          k[i] = k[i - 1] + (k[i - 1] == 0x7fffffffu ? 2 : 1);
      for (i = 0; i < nb; i++) b[i] = from_key(k[i]);
      check_bounds(b, bits);
    }
  }
  cr_log_info("%zu codes compared", n_checked);
}

/* fewbit_encode on the CPU backend (the AVX2 kernels build and read the table for large
 * calls) against the reference backend, on the adversarial tables, every dtype. */
static void encode_equal(const float *bounds, uint32_t bits) {
  static const actq_dtype dts[3] = {ACTQ_F32, ACTQ_BF16, ACTQ_F16};
  const size_t n = ((size_t)1 << 15) + 37, cb = (n * bits + 7) / 8;
  const uint32_t nb = (1u << bits) - 1u;
  fewbit_table t;
  float *x = malloc(n * 4);
  uint8_t *c_ref = malloc(cb), *c = malloc(cb);
  actq_context *ref, *cpu;
  uint64_t st = bits;
  size_t i, d;
  int th;
  memset(&t, 0, sizeof t);
  t.bits = bits;
  t.activation = FEWBIT_CUSTOM;
  memcpy(t.bounds, bounds, nb * 4);
  for (i = 0; i < n; i++) {
    const uint64_t r = test_rand_u64(&st);
    const uint32_t k = actq_fewbit_key(bounds[r % nb]) + (uint32_t)((r >> 8) % 5) - 2u;
    x[i] = (r >> 16) % 8 == 0 ? from_bits((uint32_t)(r >> 24))
           : (r >> 16) % 8 == 1 ? from_bits(special_bits[(r >> 20) % 24])
                                : from_key(k);
  }
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ref), ACTQ_OK);
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU, &cpu), ACTQ_OK);
  for (d = 0; d < 3; d++) {
    void *xd = malloc(n * 4);
    for (i = 0; i < n; i++) test_store(xd, dts[d], i, x[i]);
    actq_status s = fewbit_encode(ref, &t, n, dts[d], xd, NULL, c_ref);
    for (th = 1; th <= 2; th++) {
      cr_assert_eq(actq_context_set_threads(cpu, th), ACTQ_OK);
      memset(c, 0xee, cb);
      cr_assert_eq(fewbit_encode(cpu, &t, n, dts[d], xd, NULL, c), s);
      cr_assert(memcmp(c, c_ref, cb) == 0, "codes, bits %u %s threads %d", bits,
                test_dtype_name(dts[d]), th);
    }
    free(xd);
  }
  actq_context_destroy(ref);
  actq_context_destroy(cpu);
  free(x);
  free(c_ref);
  free(c);
}

Test(code_lut, encode_through_the_table_equals_the_reference, .timeout = 600) {
  float b[255];
  uint32_t bits, i;
  for (bits = 1; bits <= 8; bits++) {
    const uint32_t nb = (1u << bits) - 1u;
    fewbit_table t;
    cr_assert_eq(fewbit_table_build(FEWBIT_SILU, 0, bits, NULL, &t), ACTQ_OK);
    encode_equal(t.bounds, bits);
    consecutive(b, bits, actq_fewbit_key(1.0f) - nb / 2);
    encode_equal(b, bits);
    consecutive(b, bits, 0x7fffffffu - nb / 2); /* a -0 bound */
    encode_equal(b, bits);
    for (i = 0; i < nb; i++) b[i] = from_key(0x80000000u + (i / 2) * 0x00100000u + (i % 2) * 0x100u);
    encode_equal(b, bits);
  }
}
