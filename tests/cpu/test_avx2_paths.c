/* test_avx2_paths.c - the AVX2 table's pack, unpack and dequantize kernels, and the element
 * conversions of cpu/avx2/elem_avx2.h, against the reference, called directly (so that
 * they are tested on AVX-512 machines too, where ACTQ_BACKEND_CPU picks another table).
 *
 * Inputs end at a guard page (support/guard.h) so that a read past the stream faults;
 * outputs end at one too and start at every small misalignment. Dequantize metadata is
 * chosen to put the outputs on rounding ties of both parities (bf16, f16), in the f16 and
 * f32 subnormal ranges, past the f16 and f32 ranges (Inf), and at the scale bound below
 * which the kernel shifts the codes instead of scaling them.
 * Skipped where the CPU has no AVX2. */
#include <criterion/criterion.h>
#include <float.h>
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "src/arith/half.h"
#include "cpu/avx2/avx2.h"
#include "cpu/avx2/elem_avx2.h"
#include "cpu/isa.h"
#include "cpu/ref/ref.h"
#include "support/guard.h"

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t rnd(void) { /* splitmix64 */
  uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void need_avx2(void) {
  if (actq_cpu_isa_detected() < ACTQ_ISA_AVX2) cr_skip_test("no AVX2 on this CPU");
}

static float from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* ---- element conversions: every 16-bit pattern, every high half with edge low halves ---- */
Test(avx2_elem, store8_matches_scalar_conversions) {
  static const uint32_t lows[] = {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff};
  uint32_t hi, k;
  need_avx2();
  for (hi = 0; hi < 0x10000; hi++)
    for (k = 0; k < sizeof lows / sizeof *lows + 2; k++) {
      float v[8];
      uint16_t got_bf[8], got_h[8];
      int j;
      for (j = 0; j < 8; j++) {
        uint32_t lo = k < 6 ? lows[(k + (uint32_t)j) % 6] : (uint32_t)rnd() & 0xffffu;
        v[j] = from_bits(hi << 16 | lo);
      }
      actq_avx2_store8(got_bf, ACTQ_BF16, 0, _mm256_loadu_ps(v));
      actq_avx2_store8(got_h, ACTQ_F16, 0, _mm256_loadu_ps(v));
      for (j = 0; j < 8; j++) {
        uint32_t u;
        memcpy(&u, &v[j], 4);
        cr_assert_eq(got_bf[j], actq_f32_to_bf16(v[j]), "bf16 of 0x%08x", u);
        cr_assert_eq(got_h[j], actq_f32_to_f16(v[j]), "f16 of 0x%08x", u);
      }
    }
}

Test(avx2_elem, load8_matches_scalar_conversions) {
  uint32_t h;
  need_avx2();
  for (h = 0; h < 0x10000; h += 8) {
    uint16_t in[8];
    float got[8];
    int j, dt;
    for (j = 0; j < 8; j++) in[j] = (uint16_t)(h + (uint32_t)j);
    for (dt = ACTQ_F16; dt <= ACTQ_BF16; dt++) {
      _mm256_storeu_ps(got, actq_avx2_load8(in, dt, 0));
      for (j = 0; j < 8; j++) {
        float want = dt == ACTQ_F16 ? actq_f16_to_f32(in[j]) : actq_bf16_to_f32(in[j]);
        cr_assert(memcmp(&got[j], &want, 4) == 0, "dtype %d of 0x%04x", dt, in[j]);
      }
    }
  }
}

/* ---- pack / unpack ------------------------------------------------------------------------ */
static void pack_case(uint32_t bits, size_t n, size_t mis_in, size_t mis_out, int bad_at) {
  const size_t nb = actq_stream_bytes(n, bits);
  uint8_t *codes = (uint8_t *)guard_alloc(n + mis_in) + mis_in;
  uint8_t *pk = (uint8_t *)guard_alloc(nb + mis_out) + mis_out;
  uint8_t *pk_ref = guard_alloc(nb);
  uint8_t *out = (uint8_t *)guard_alloc(n + mis_in) + mis_in;
  uint8_t *out_ref = guard_alloc(n);
  size_t i;
  int st, st_ref;
  for (i = 0; i < n; i++) codes[i] = (uint8_t)(rnd() & ((1u << bits) - 1u));
  if (bad_at >= 0) codes[bad_at] = (uint8_t)((1u << bits) | rnd());
  memset(pk, 0xa5, nb);
  st = actq_cpu_avx2_kernels.pack(bits, n, codes, pk);
  st_ref = actq_ref_pack(bits, n, codes, pk_ref);
  cr_assert_eq(st != 0, st_ref != 0, "pack status b=%u n=%zu bad=%d", bits, n, bad_at);
  cr_assert(memcmp(pk, pk_ref, nb) == 0, "pack b=%u n=%zu mis=%zu,%zu bad=%d", bits, n,
            mis_in, mis_out, bad_at);
  /* unpack arbitrary stream bytes (unused high bits set) read from the guard's edge */
  for (i = 0; i < nb; i++) pk[i] = (uint8_t)rnd();
  memset(out, 0x5a, n);
  actq_cpu_avx2_kernels.unpack(bits, n, pk, out);
  actq_ref_unpack(bits, n, pk, out_ref);
  cr_assert(memcmp(out, out_ref, n) == 0, "unpack b=%u n=%zu mis=%zu,%zu", bits, n, mis_out,
            mis_in);
  guard_free(codes - mis_in);
  guard_free(pk - mis_out);
  guard_free(pk_ref);
  guard_free(out - mis_in);
  guard_free(out_ref);
}

Test(avx2_pack, every_width_size_and_misalignment) {
  static const size_t big[] = {511, 512, 513, 1000, 4099, 65537};
  uint32_t bits;
  size_t n, k;
  need_avx2();
  for (bits = 1; bits <= 8; bits++) {
    for (n = 0; n <= 300; n++) pack_case(bits, n, n % 5, (n / 5) % 7, -1);
    for (k = 0; k < sizeof big / sizeof *big; k++)
      pack_case(bits, big[k], k % 4, (k + 1) % 4, -1);
  }
}

Test(avx2_pack, invalid_code_found_at_every_position) {
  uint32_t bits;
  int at;
  need_avx2();
  for (bits = 1; bits <= 7; bits++)
    for (at = 0; at < 160; at++) pack_case(bits, 160, (size_t)at % 3, (size_t)at % 2, at);
}

/* ---- dequantize ----------------------------------------------------------------------------- */
/* Group metadata of kind k (see the header); q is the group's index, for variety. */
static void meta_of_kind(int k, float *m, float *s) {
  switch (k) {
  case 0: *m = 1.0f + 0x1p-8f; *s = 0x1p-7f; break;         /* bf16 ties, both parities */
  case 1: *m = -(1.0f + 0x1p-11f); *s = -0x1p-10f; break;   /* f16 ties, negative */
  case 2: *m = 0.0f; *s = 3 * 0x1p-27f; break;               /* f16 subnormal outputs */
  case 3: *m = -0.0f; *s = 0x1p-119f; break;                 /* the scale bound */
  case 4: *m = 0x1p-126f; *s = 0x1.abcdeep-120f; break;     /* below it: shifted codes */
  case 5: *m = 0.0f; *s = from_bits(0x00012345u); break;     /* subnormal scale */
  case 14: *m = 0.0f; *s = 0x1.abcdeep-119f; break;          /* between the two bounds */
  case 6: *m = 60000.0f; *s = 100.0f; break;                 /* past the f16 range */
  case 7: *m = FLT_MAX * 0.99f; *s = FLT_MAX / 300.0f; break; /* past f32: Inf */
  case 8: *m = -FLT_MAX; *s = FLT_MAX / 200.0f; break;
  case 9: *m = 3.5f; *s = 0.0f; break;
  case 10: *m = 2.0f; *s = -0.0f; break;
  case 11: *m = NAN; *s = 1.0f; break;
  case 12: *m = 1.0f; *s = INFINITY; break;
  case 13: { /* any finite bit patterns */
    do *m = from_bits((uint32_t)rnd()); while (!isfinite(*m));
    do *s = from_bits((uint32_t)rnd()); while (!isfinite(*s));
    break;
  }
  default: *m = (float)(rnd() % 2001) * 0.01f - 10.0f; *s = (float)(rnd() % 1000) * 1e-3f; break;
  }
}

static void dequant_case(uint32_t bits, size_t rows, size_t cols, size_t group, actq_dtype ydt,
                         actq_dtype mdt, size_t mis) {
  const size_t gpr = (cols + group - 1) / group, groups = rows * gpr;
  const size_t row_bytes = actq_stream_bytes(cols, bits), nb = rows * row_bytes;
  const size_t es = ydt == ACTQ_F32 ? 4 : 2, ms = mdt == ACTQ_F32 ? 4 : 2;
  uint8_t *pk = guard_alloc(nb);
  uint8_t *mn = guard_alloc(groups * ms), *sc = guard_alloc(groups * ms);
  uint8_t *y = (uint8_t *)guard_alloc(rows * cols * es + mis) + mis;
  uint8_t *y_ref = guard_alloc(rows * cols * es);
  actq_dequant_job job;
  size_t i, r;
  for (i = 0; i < nb; i++) pk[i] = (uint8_t)rnd();
  for (i = 0; i < groups; i++) {
    float m, s;
    meta_of_kind((int)(rnd() % 17), &m, &s);
    if (mdt == ACTQ_F32) {
      memcpy(mn + 4 * i, &m, 4);
      memcpy(sc + 4 * i, &s, 4);
    } else {
      uint16_t hm = mdt == ACTQ_F16 ? actq_f32_to_f16(m) : actq_f32_to_bf16(m);
      uint16_t hs = mdt == ACTQ_F16 ? actq_f32_to_f16(s) : actq_f32_to_bf16(s);
      memcpy(mn + 2 * i, &hm, 2);
      memcpy(sc + 2 * i, &hs, 2);
    }
  }
  memset(&job, 0, sizeof job);
  job.grid.rows = rows;
  job.grid.cols = cols;
  job.grid.group_size = group;
  job.grid.groups_per_row = gpr;
  job.grid.bits = bits;
  job.grid.meta_dtype = mdt;
  job.packed = pk;
  job.group_min = mn;
  job.group_scale = sc;
  job.y_dtype = ydt;
  memset(y, 0xa5, rows * cols * es);
  memset(y_ref, 0x5a, rows * cols * es);
  for (r = 0; r < rows; r++) {
    job.y = y;
    actq_cpu_avx2_kernels.dequantize_groups(&job, r, 0, gpr, pk + r * row_bytes);
    job.y = y_ref;
    actq_ref_dequantize_groups(&job, r, 0, gpr, pk + r * row_bytes);
  }
  for (i = 0; i < rows * cols * es; i++)
    cr_assert_eq(y[i], y_ref[i],
                 "dequantize b=%u %zux%zu G=%zu y=%d meta=%d mis=%zu: byte %zu (element %zu)",
                 bits, rows, cols, group, ydt, mdt, mis, i, i / es);
  guard_free(pk);
  guard_free(mn);
  guard_free(sc);
  guard_free(y - mis);
  guard_free(y_ref);
}

Test(avx2_dequantize, every_width_dtype_and_special_outputs) {
  static const size_t groups[] = {8, 16, 24, 32, 56, 64, 72, 128, 256, 264};
  static const size_t cols[] = {1, 7, 8, 9, 31, 33, 63, 64, 65, 100, 255, 257, 515, 1024};
  uint32_t bits;
  size_t gi, ci;
  int ydt, mdt;
  need_avx2();
  for (bits = 1; bits <= 8; bits++)
    for (ydt = 0; ydt < 3; ydt++)
      for (gi = 0; gi < sizeof groups / sizeof *groups; gi++)
        for (ci = 0; ci < sizeof cols / sizeof *cols; ci++) {
          mdt = (int)((gi + ci) % 3);
          dequant_case(bits, 1 + (gi + ci) % 3, cols[ci], groups[gi], (actq_dtype)ydt,
                       (actq_dtype)mdt, (gi * 3 + ci) % 5);
        }
}
