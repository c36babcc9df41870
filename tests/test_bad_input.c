/* test_bad_input.c - every kind of bad argument gives its documented status and leaves
 * the outputs untouched; empty work is ACTQ_OK with NULL data; outputs end at guard pages
 * (support/guard.h), so a write past them would crash the test. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "actq.h"
#include "support/guard.h"
#include "support/tensor.h"

enum { ROWS = 2, COLS = 19, GS = 8, GROUPS = ROWS * 3 };

typedef struct fixture {
  actq_context *ctx;
  float *x, *y, *mn, *sc;
  uint8_t *packed;
  size_t packed_bytes;
} fixture;

static fixture fx_make(actq_backend be) {
  fixture f;
  const actq_layout lay = {ROWS, COLS, GS, 8, NULL, ACTQ_F32};
  size_t i;
  cr_assert_eq(actq_context_create(be, &f.ctx), ACTQ_OK);
  cr_assert_eq(actq_layout_sizes(&lay, &f.packed_bytes, NULL), ACTQ_OK);
  f.x = guard_alloc(ROWS * COLS * 4);
  f.y = guard_alloc(ROWS * COLS * 4);
  f.mn = guard_alloc(GROUPS * 4);
  f.sc = guard_alloc(GROUPS * 4);
  f.packed = guard_alloc(f.packed_bytes);
  for (i = 0; i < ROWS * COLS; i++) f.x[i] = (float)i;
  memset(f.y, 0xa5, ROWS * COLS * 4);
  memset(f.mn, 0xa5, GROUPS * 4);
  memset(f.sc, 0xa5, GROUPS * 4);
  memset(f.packed, 0xa5, f.packed_bytes);
  return f;
}

static void fx_untouched(const fixture *f) {
  size_t i;
  for (i = 0; i < ROWS * COLS * 4; i++) cr_assert_eq(((uint8_t *)f->y)[i], 0xa5);
  for (i = 0; i < GROUPS * 4; i++) {
    cr_assert_eq(((uint8_t *)f->mn)[i], 0xa5);
    cr_assert_eq(((uint8_t *)f->sc)[i], 0xa5);
  }
  for (i = 0; i < f->packed_bytes; i++) cr_assert_eq(f->packed[i], 0xa5);
}

static void fx_free(fixture *f) {
  guard_free(f->x);
  guard_free(f->y);
  guard_free(f->mn);
  guard_free(f->sc);
  guard_free(f->packed);
  actq_context_destroy(f->ctx);
}

static actq_status q(fixture *f, const actq_layout *lay) {
  return actq_quantize(f->ctx, lay, ACTQ_F32, f->x, ACTQ_ROUND_NEAREST, 0, 0, f->packed, f->mn,
                       f->sc);
}

static actq_status dq(fixture *f, const actq_layout *lay) {
  return actq_dequantize(f->ctx, lay, f->packed, f->mn, f->sc, ACTQ_F32, f->y);
}

Test(bad_input, layouts) {
  int b;
  for (b = 0; b < TEST_CPU_BACKENDS; b++) {
    fixture f = fx_make(test_cpu_backends[b]);
    static const uint32_t bad_groups[] = {0, 7, 12, 65544, 65537, 1u << 31};
    static const uint32_t bad_bits[] = {0, 9, 255};
    uint8_t row_bits[ROWS] = {3, 9};
    actq_layout lay = {ROWS, COLS, GS, 8, NULL, ACTQ_F32};
    size_t i, pb;
    for (i = 0; i < sizeof bad_groups / sizeof *bad_groups; i++) {
      lay.group_size = bad_groups[i];
      cr_assert_eq(q(&f, &lay), ACTQ_ERR_INVALID_ARGUMENT, "group size %u", bad_groups[i]);
      cr_assert_eq(dq(&f, &lay), ACTQ_ERR_INVALID_ARGUMENT);
      cr_assert_eq(actq_layout_sizes(&lay, &pb, NULL), ACTQ_ERR_INVALID_ARGUMENT);
    }
    lay.group_size = GS;
    for (i = 0; i < sizeof bad_bits / sizeof *bad_bits; i++) {
      lay.bits = bad_bits[i];
      cr_assert_eq(q(&f, &lay), ACTQ_ERR_INVALID_ARGUMENT, "bits %u", bad_bits[i]);
      cr_assert_eq(dq(&f, &lay), ACTQ_ERR_INVALID_ARGUMENT);
      cr_assert_eq(actq_layout_sizes(&lay, &pb, NULL), ACTQ_ERR_INVALID_ARGUMENT);
    }
    lay.bits = 0; /* ignored with row_bits */
    lay.row_bits = row_bits;
    cr_assert_eq(q(&f, &lay), ACTQ_ERR_INVALID_ARGUMENT, "row_bits entry 9");
    row_bits[1] = 0;
    cr_assert_eq(q(&f, &lay), ACTQ_ERR_INVALID_ARGUMENT, "row_bits entry 0");
    row_bits[1] = 8;
    cr_assert_eq(actq_layout_sizes(&lay, &pb, NULL), ACTQ_OK);
    cr_assert_eq(pb, (COLS * 3 + 7) / 8 + COLS);
    lay.row_bits = NULL;
    lay.bits = 8;
    lay.meta_dtype = (actq_dtype)3;
    cr_assert_eq(q(&f, &lay), ACTQ_ERR_INVALID_ARGUMENT, "meta dtype 3");
    lay.meta_dtype = (actq_dtype)-1;
    cr_assert_eq(dq(&f, &lay), ACTQ_ERR_INVALID_ARGUMENT, "meta dtype -1");
    cr_assert_eq(q(&f, NULL), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(dq(&f, NULL), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_layout_sizes(NULL, &pb, NULL), ACTQ_ERR_INVALID_ARGUMENT);
    fx_untouched(&f);
    fx_free(&f);
  }
}

Test(bad_input, pointers_and_enums) {
  int b;
  for (b = 0; b < TEST_CPU_BACKENDS; b++) {
    fixture f = fx_make(test_cpu_backends[b]);
    const actq_layout lay = {ROWS, COLS, GS, 4, NULL, ACTQ_F32};
    uint8_t codes[4] = {0};
    cr_assert_eq(actq_quantize(NULL, &lay, ACTQ_F32, f.x, 0, 0, 0, f.packed, f.mn, f.sc), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_quantize(f.ctx, &lay, ACTQ_F32, NULL, 0, 0, 0, f.packed, f.mn, f.sc), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_quantize(f.ctx, &lay, ACTQ_F32, f.x, 0, 0, 0, NULL, f.mn, f.sc), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_quantize(f.ctx, &lay, ACTQ_F32, f.x, 0, 0, 0, f.packed, NULL, f.sc), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_quantize(f.ctx, &lay, ACTQ_F32, f.x, 0, 0, 0, f.packed, f.mn, NULL), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_quantize(f.ctx, &lay, (actq_dtype)3, f.x, 0, 0, 0, f.packed, f.mn, f.sc), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_quantize(f.ctx, &lay, (actq_dtype)-1, f.x, 0, 0, 0, f.packed, f.mn, f.sc), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_quantize(f.ctx, &lay, ACTQ_F32, f.x, (actq_rounding)2, 0, 0, f.packed, f.mn, f.sc), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_quantize(f.ctx, &lay, ACTQ_F32, f.x, (actq_rounding)-1, 0, 0, f.packed, f.mn, f.sc), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_dequantize(NULL, &lay, f.packed, f.mn, f.sc, ACTQ_F32, f.y), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_dequantize(f.ctx, &lay, NULL, f.mn, f.sc, ACTQ_F32, f.y), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_dequantize(f.ctx, &lay, f.packed, NULL, f.sc, ACTQ_F32, f.y), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_dequantize(f.ctx, &lay, f.packed, f.mn, NULL, ACTQ_F32, f.y), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_dequantize(f.ctx, &lay, f.packed, f.mn, f.sc, ACTQ_F32, NULL), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_dequantize(f.ctx, &lay, f.packed, f.mn, f.sc, (actq_dtype)7, f.y), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_pack(NULL, 4, 4, codes, f.packed), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_pack(f.ctx, 0, 4, codes, f.packed), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_pack(f.ctx, 9, 4, codes, f.packed), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_pack(f.ctx, 4, 4, NULL, f.packed), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_pack(f.ctx, 4, 4, codes, NULL), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_unpack(NULL, 4, 4, f.packed, codes), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_unpack(f.ctx, 0, 4, f.packed, codes), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_unpack(f.ctx, 9, 4, f.packed, codes), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_unpack(f.ctx, 4, 4, NULL, codes), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_unpack(f.ctx, 4, 4, f.packed, NULL), ACTQ_ERR_INVALID_ARGUMENT);
    fx_untouched(&f);
    fx_free(&f);
  }
}

Test(bad_input, sizes_that_overflow) {
  int b;
  for (b = 0; b < TEST_CPU_BACKENDS; b++) {
    fixture f = fx_make(test_cpu_backends[b]);
    actq_layout lay = {SIZE_MAX / 2, 4, GS, 4, NULL, ACTQ_F32};
    size_t pb = 123, ng = 456;
    cr_assert_eq(actq_layout_sizes(&lay, &pb, &ng), ACTQ_ERR_SIZE_OVERFLOW);
    cr_assert(pb == 123 && ng == 456, "outputs untouched on error");
    cr_assert_eq(q(&f, &lay), ACTQ_ERR_SIZE_OVERFLOW);
    cr_assert_eq(dq(&f, &lay), ACTQ_ERR_SIZE_OVERFLOW);
    lay.rows = 3;
    lay.cols = SIZE_MAX / 8;
    cr_assert_eq(q(&f, &lay), ACTQ_ERR_SIZE_OVERFLOW);
    lay.rows = (size_t)1 << 32;
    lay.cols = (size_t)1 << 31;
    cr_assert_eq(actq_layout_sizes(&lay, &pb, &ng), ACTQ_ERR_SIZE_OVERFLOW);
    /* an overflowing row count is caught before its row_bits would be read */
    lay.row_bits = (const uint8_t *)f.packed;
    cr_assert_eq(q(&f, &lay), ACTQ_ERR_SIZE_OVERFLOW);
    /* 2^31 elements and more are fine for the size arithmetic */
    lay.row_bits = NULL;
    lay.rows = 1;
    lay.cols = ((size_t)1 << 33) + 5;
    cr_assert_eq(actq_layout_sizes(&lay, &pb, &ng), ACTQ_OK);
    cr_assert_eq(pb, ((((size_t)1 << 33) + 5) * 4 + 7) / 8);
    cr_assert_eq(ng, (((size_t)1 << 33) + 5 + GS - 1) / GS);
    fx_untouched(&f);
    fx_free(&f);
  }
}

Test(bad_input, empty_work_touches_nothing) {
  int b;
  for (b = 0; b < TEST_CPU_BACKENDS; b++) {
    actq_context *ctx;
    actq_layout lay = {0, 100, GS, 4, NULL, ACTQ_F32};
    size_t pb = 1, ng = 1;
    cr_assert_eq(actq_context_create(test_cpu_backends[b], &ctx), ACTQ_OK);
    cr_assert_eq(actq_layout_sizes(&lay, &pb, &ng), ACTQ_OK);
    cr_assert(pb == 0 && ng == 0);
    cr_assert_eq(actq_quantize(ctx, &lay, ACTQ_F32, NULL, 0, 0, 0, NULL, NULL, NULL), ACTQ_OK);
    cr_assert_eq(actq_dequantize(ctx, &lay, NULL, NULL, NULL, ACTQ_BF16, NULL), ACTQ_OK);
    lay.rows = 5;
    lay.cols = 0;
    cr_assert_eq(actq_layout_sizes(&lay, &pb, &ng), ACTQ_OK);
    cr_assert(pb == 0 && ng == 0);
    cr_assert_eq(actq_quantize(ctx, &lay, ACTQ_F16, NULL, 1, 0, 0, NULL, NULL, NULL), ACTQ_OK);
    cr_assert_eq(actq_dequantize(ctx, &lay, NULL, NULL, NULL, ACTQ_F32, NULL), ACTQ_OK);
    cr_assert_eq(actq_pack(ctx, 3, 0, NULL, NULL), ACTQ_OK);
    cr_assert_eq(actq_unpack(ctx, 3, 0, NULL, NULL), ACTQ_OK);
    /* parameters are still checked on empty work */
    lay.bits = 0;
    cr_assert_eq(actq_quantize(ctx, &lay, ACTQ_F32, NULL, 0, 0, 0, NULL, NULL, NULL), ACTQ_ERR_INVALID_ARGUMENT);
    cr_assert_eq(actq_pack(ctx, 9, 0, NULL, NULL), ACTQ_ERR_INVALID_ARGUMENT);
    actq_context_destroy(ctx);
  }
}

Test(bad_input, guard_page_catches_an_overrun, .signal = SIGSEGV) {
  /* the guard itself works: one byte past a guarded buffer faults */
  volatile uint8_t *p = guard_alloc(13);
  p[13] = 1;
}
