/* test_large.c - element counts past 2^31: one row of 2^31 + 40 bf16 values (4 GiB)
 * quantized at 2 bits on the CPU backend. The groups around element 2^31 and at the end
 * are recomputed from the shared arithmetic with 64-bit element indices (noise block
 * counters above 2^28, byte offsets above 2^29), so any 32-bit truncation in the driver or
 * a kernel shows. Skipped, with the reason, when the machine lacks the memory. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actq.h"
#include "src/arith/elem.h"
#include "src/arith/quant.h"

#define GS 4096

static void expect_group(const uint16_t *x, const uint8_t *packed, const uint16_t *mn,
                         const uint16_t *sc, size_t g, size_t cols) {
  size_t c0 = g * GS, c1 = c0 + GS < cols ? c0 + GS : cols, c;
  float lo = actq_bf16_to_f32(x[c0]), hi = lo;
  actq_group_meta meta;
  actq_noise_cursor nc;
  for (c = c0; c < c1; c++) {
    float v = actq_bf16_to_f32(x[c]);
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  actq_group_meta_compute(lo, hi, 1, 2, ACTQ_BF16, &meta);
  cr_assert_eq(mn[g], actq_f32_to_bf16(meta.m), "min of group %zu", g);
  cr_assert_eq(sc[g], actq_f32_to_bf16(meta.s), "scale of group %zu", g);
  actq_noise_cursor_init(&nc, 0xfeedULL, 0xbeefULL);
  for (c = c0; c < c1; c++) {
    uint32_t q = actq_code_stochastic(actq_bf16_to_f32(x[c]), &meta, actq_noise_at(&nc, c));
    uint32_t got = (packed[c / 4] >> (2 * (c % 4))) & 3u;
    cr_assert_eq(got, q, "code of element %zu", c);
  }
}

Test(large, past_two_to_the_31_elements, .timeout = 900) {
  const size_t cols = ((size_t)1 << 31) + 40, groups = (cols + GS - 1) / GS;
  const actq_layout lay = {1, cols, GS, 2, NULL, ACTQ_BF16};
  const size_t need = cols * 2 + cols / 4 + groups * 4 + ((size_t)1 << 28);
  size_t avail = (size_t)sysconf(_SC_AVPHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE), pb, ng, i;
  uint16_t *x, *mn, *sc;
  uint8_t *packed;
  actq_context *ctx;
  if (avail < need) cr_skip_test("needs %zu MiB free, %zu MiB available", need >> 20, avail >> 20);
  cr_assert_eq(actq_layout_sizes(&lay, &pb, &ng), ACTQ_OK);
  cr_assert(pb == cols / 4 && ng == groups);
  x = malloc(cols * 2);
  packed = malloc(pb);
  mn = malloc(ng * 2);
  sc = malloc(ng * 2);
  cr_assert(x && packed && mn && sc);
  for (i = 0; i < cols; i++) x[i] = (uint16_t)(0x3f80u + ((uint32_t)(i * 2654435761u) >> 25)); /* [1, 2) */
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU, &ctx), ACTQ_OK);
  cr_assert_eq(actq_quantize(ctx, &lay, ACTQ_BF16, x, ACTQ_ROUND_STOCHASTIC, 0xfeed, 0xbeef,
                             packed, mn, sc),
               ACTQ_OK);
  expect_group(x, packed, mn, sc, 0, cols);
  expect_group(x, packed, mn, sc, ((size_t)1 << 31) / GS - 1, cols);
  expect_group(x, packed, mn, sc, ((size_t)1 << 31) / GS, cols);
  expect_group(x, packed, mn, sc, groups - 1, cols);
  actq_context_destroy(ctx);
  free(x);
  free(packed);
  free(mn);
  free(sc);
}
