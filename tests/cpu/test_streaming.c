/* test_streaming.c - the calls whose kernels write large outputs with streaming stores
 * (cpu/stream.h: dequantize's y, fewbit_encode's y, fewbit_backward's grad_in) give the
 * reference's bytes past the streaming threshold, on 1 and 2 threads, every output dtype,
 * with the output 16-byte aligned (streamed) and 8 or 2-4 bytes off (ordinary stores),
 * lengths that end in a partial vector. Outputs end at a guard page.
 * Below the threshold the other tests cover the same calls. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "actq.h"
#include "fewbit.h"
#include "cpu/stream.h"
#include "src/arith/half.h"
#include "support/guard.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { /* splitmix64 */
  uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* uniform in [-4, 4): GELU's codes and y cover every piece */
static float rnd_x(void) { return (float)((double)(rnd() >> 11) * 0x1p-53 * 8.0 - 4.0); }

static size_t esize(actq_dtype dt) { return dt == ACTQ_F32 ? 4 : 2; }

/* Elements whose output of dtype dt is past the threshold and, ending at a guard page
 * (support/guard.h: the end sits on a page boundary), starts `skew` bytes past a 16-byte
 * boundary: the length then ends in a partial vector for every skew but 0. */
static size_t n_past(actq_dtype dt, size_t skew) {
  size_t n = actq_stream_min_bytes() / esize(dt) + 8 * 37 + 1;
  while ((16 - n * esize(dt) % 16) % 16 != skew) n++;
  return n;
}

static void fill_x(void *x, actq_dtype dt, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    const float v = rnd_x();
    if (dt == ACTQ_F32) ((float *)x)[i] = v;
    else if (dt == ACTQ_F16) ((uint16_t *)x)[i] = actq_f32_to_f16(v);
    else ((uint16_t *)x)[i] = actq_f32_to_bf16(v);
  }
}

/* An output of `bytes` that ends at a guard page, prefilled. */
static uint8_t *out_alloc(size_t bytes, size_t skew) {
  uint8_t *p = guard_alloc(bytes);
  cr_assert_eq((uintptr_t)p % 16, skew, "output alignment");
  memset(p, 0xa5, bytes);
  return p;
}

static const actq_dtype dtypes[] = {ACTQ_F32, ACTQ_BF16, ACTQ_F16};
/* 16-byte aligned (streamed), 8 bytes off, and a dtype's smallest misalignment */
static const size_t skews[3][3] = {{0, 8, 4}, {0, 8, 2}, {0, 8, 2}};

static void contexts(actq_context **cpu, actq_context **ref) {
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU, cpu), ACTQ_OK);
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, ref), ACTQ_OK);
}

/* ACTQ_STREAM_MIN_BYTES in the environment (ctest sets it: tests/cpu/CMakeLists.txt) is
 * the threshold, so the outputs below have one size on every machine */
Test(streaming, threshold_from_the_environment) {
  const char *env = getenv("ACTQ_STREAM_MIN_BYTES");
  cr_assert(env != NULL, "run through ctest, which sets ACTQ_STREAM_MIN_BYTES");
  cr_expect_eq(actq_stream_min_bytes(), (size_t)strtoull(env, NULL, 10));
}

Test(streaming, dequantize_past_the_threshold) {
  actq_context *cpu, *ref;
  size_t d, k, t;
  contexts(&cpu, &ref);
  for (d = 0; d < 3; d++)
    for (k = 0; k < 3; k++) {
      const actq_dtype dt = dtypes[d];
      const size_t skew = skews[d][k], n = n_past(dt, skew), bytes = n * esize(dt);
      actq_layout l = {1, n, 256, 3, NULL, ACTQ_F32};
      size_t pb, groups, i;
      uint8_t *packed, *want;
      float *mn, *sc;
      cr_assert_eq(actq_layout_sizes(&l, &pb, &groups), ACTQ_OK);
      packed = malloc(pb);
      mn = malloc(groups * sizeof *mn);
      sc = malloc(groups * sizeof *sc);
      want = malloc(bytes);
      for (i = 0; i < pb; i++) packed[i] = (uint8_t)rnd();
      if (n * 3 % 8) packed[pb - 1] &= (uint8_t)((1u << (n * 3 % 8)) - 1u); /* unused bits 0 */
      for (i = 0; i < groups; i++) {
        mn[i] = rnd_x();
        sc[i] = (float)(rnd() % 1000 + 1) * 0x1p-10f;
      }
      cr_assert_eq(actq_dequantize(ref, &l, packed, mn, sc, dt, want), ACTQ_OK);
      for (t = 1; t <= 2; t++) {
        uint8_t *y = out_alloc(bytes, skew);
        cr_assert_eq(actq_context_set_threads(cpu, (int)t), ACTQ_OK);
        cr_assert_eq(actq_dequantize(cpu, &l, packed, mn, sc, dt, y), ACTQ_OK);
        cr_assert(memcmp(y, want, bytes) == 0, "dequantize dtype %d, %zu bytes off, %zu threads",
                  (int)dt, skew, t);
        guard_free(y);
      }
      free(packed);
      free(mn);
      free(sc);
      free(want);
    }
  actq_context_destroy(cpu);
  actq_context_destroy(ref);
}

/* The reference's outputs once per width and dtype, for the longest of the three lengths:
 * the call is elementwise, so a shorter call's y and grad_in are its prefix, and its codes
 * the prefix of the codes with the last byte's unused high bits zero. (The reference's GELU
 * on 4-8 M elements is most of this test's time, natively and under valgrind.) */
Test(streaming, fewbit_encode_y_and_backward_past_the_threshold) {
  actq_context *cpu, *ref;
  fewbit_table tab;
  size_t d, k, t;
  uint32_t bits;
  contexts(&cpu, &ref);
  /* 2 bits: AVX-512 computes the codes in y's loop; 4 bits: in passes when y streams */
  for (bits = 2; bits <= 4; bits += 2)
    for (d = 0; d < 3; d++) {
      const actq_dtype dt = dtypes[d];
      size_t nmax = 0;
      for (k = 0; k < 3; k++)
        if (n_past(dt, skews[d][k]) > nmax) nmax = n_past(dt, skews[d][k]);
      const size_t maxbytes = nmax * esize(dt), maxcb = (nmax * bits + 7) / 8;
      void *x = malloc(maxbytes), *g = malloc(maxbytes), *want_y = malloc(maxbytes);
      void *want_gi = malloc(maxbytes);
      uint8_t *want_codes = malloc(maxcb), *codes = malloc(maxcb);
      cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0.0f, bits, NULL, &tab), ACTQ_OK);
      fill_x(x, dt, nmax);
      fill_x(g, dt, nmax);
      cr_assert_eq(fewbit_encode(ref, &tab, nmax, dt, x, want_y, want_codes), ACTQ_OK);
      cr_assert_eq(fewbit_backward(ref, &tab, nmax, want_codes, dt, g, want_gi), ACTQ_OK);
      for (k = 0; k < 3; k++) {
        const size_t skew = skews[d][k], n = n_past(dt, skew), bytes = n * esize(dt);
        const size_t full = n * bits / 8, cb = (n * bits + 7) / 8;
        const unsigned tail = (unsigned)(n * bits % 8);
        for (t = 1; t <= 2; t++) {
          uint8_t *y = out_alloc(bytes, skew), *gi = out_alloc(bytes, skew);
          cr_assert_eq(actq_context_set_threads(cpu, (int)t), ACTQ_OK);
          memset(codes, 0xa5, maxcb);
          cr_assert_eq(fewbit_encode(cpu, &tab, n, dt, x, y, codes), ACTQ_OK);
          cr_assert(memcmp(codes, want_codes, full) == 0 &&
                        (!tail || codes[full] == (want_codes[full] & ((1u << tail) - 1u))),
                    "codes dtype %d, %u bits, %zu bytes off, %zu threads", (int)dt, bits, skew,
                    t);
          cr_assert(cb == maxcb || codes[cb] == 0xa5, "codes written past their end");
          cr_assert(memcmp(y, want_y, bytes) == 0, "y dtype %d, %zu bytes off, %zu threads",
                    (int)dt, skew, t);
          cr_assert_eq(fewbit_backward(cpu, &tab, n, codes, dt, g, gi), ACTQ_OK);
          cr_assert(memcmp(gi, want_gi, bytes) == 0,
                    "grad_in dtype %d, %zu bytes off, %zu threads", (int)dt, skew, t);
          guard_free(y);
          guard_free(gi);
        }
      }
      free(x);
      free(g);
      free(want_y);
      free(want_gi);
      free(want_codes);
      free(codes);
    }
  actq_context_destroy(cpu);
  actq_context_destroy(ref);
}
