/* test_isa_equivalence.c - ACTQ_BACKEND_CPU equals ACTQ_BACKEND_CPU_REFERENCE byte for byte.
 *
 * ctest runs this binary once per ISA path (ACTQ_CPU_ISA=scalar, avx2, avx512, avx512bf16;
 * a path the machine lacks is capped to the best it has and the test says so). Each test draws random
 * shapes, widths, group sizes, dtypes, seeds and offsets, plants special groups (NaN, Inf,
 * denormals, +-FLT_MAX, constants, signed zeros, values past the f16 range), shifts every
 * pointer to an odd byte address, and compares every output byte and the status of the CPU
 * backend at 1, 2, 3 and 7 threads against the reference backend.
 *
 * Built with ACTQ_TEST_EMU512 (test_isa_equivalence_emu512), the CPU context runs the
 * AVX-512 table with its AVX-512 kernels emulated (avx512_emulated.h), so that machines
 * without AVX-512 check those kernels' bytes too.
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actq.h"
#include "fewbit.h"
#include "src/arith/bitstream.h"
#include "src/arith/half.h"
#include "cpu/isa.h"
#include "src/backend.h"
#include "cpu/state.h"

#include "src/arith/philox.h"
#include "src/arith/quant.h"
#ifdef ACTQ_TEST_EMU512
#  include "avx512_emulated.h"
#  include "src/backend.h"
#  include "cpu/avx512/avx512.h"
#  include "cpu/quantize_groups.h"
#endif

/* ---- deterministic random numbers ----------------------------------------------------- */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static size_t rnd_below(size_t n) { return (size_t)(rnd() % n); }
static float rnd_unit(void) { return (float)(rnd() >> 40) / 16777216.0f; } /* [0,1) */

/* ---- buffers at odd addresses ------------------------------------------------------------ */
typedef struct buf {
  uint8_t *raw;
  uint8_t *p; /* raw + 1: odd, so that no kernel may assume any alignment */
  size_t n;
} buf;

static buf buf_new(size_t n) {
  buf b;
  b.n = n;
  b.raw = malloc(n + 64);
  cr_assert(b.raw);
  memset(b.raw, 0xa5, n + 64); /* a fill the kernels must overwrite, or leave outside */
  b.p = b.raw + 1;
  return b;
}
static void buf_free(buf *b) { free(b->raw); }

static actq_context *ref_ctx, *cpu_ctx;

#ifdef ACTQ_TEST_EMU512
/* The emulated table under test: ACTQ_TEST_EMU512_TABLE=avx512bf16 (a ctest entry of its
 * own) for the avx512bf16 table's, else the avx512 table's. */
static int emu_bf16(void) {
  const char *t = getenv("ACTQ_TEST_EMU512_TABLE");
  return t && strcmp(t, "avx512bf16") == 0;
}
#endif

static void setup(void) {
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ref_ctx), ACTQ_OK);
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU, &cpu_ctx), ACTQ_OK);
#ifdef ACTQ_TEST_EMU512
  {
    const char *isa = emu_bf16() ? ACTQ_EMU512BF16_ISA : ACTQ_EMU512_ISA;
    char want[64];
    cr_assert_eq(actq_cpu_context_use_kernels(
                     cpu_ctx, emu_bf16() ? &actq_cpu_emu512bf16_kernels : &actq_cpu_emu512_kernels),
                 ACTQ_OK);
    /* the description names the table the context now runs */
    snprintf(want, sizeof want, "cpu %s,", isa);
    cr_assert(strncmp(actq_context_describe(cpu_ctx), want, strlen(want)) == 0, "%s",
              actq_context_describe(cpu_ctx));
  }
#endif
}
static void teardown(void) {
  actq_context_destroy(ref_ctx);
  actq_context_destroy(cpu_ctx);
}

static const int thread_counts[] = {1, 2, 3, 7};

/* ---- input values ------------------------------------------------------------------------ */
/* A value of the kind `kind`; base/spread set the group's range. */
static float special_value(int kind, float base, float spread) {
  switch (kind) {
  case 0: return base + spread * (rnd_unit() * 2.0f - 1.0f);
  case 1: return base; /* constant group */
  case 2: return (rnd() & 1) ? NAN : base;
  case 3: return (rnd() & 1) ? ((rnd() & 1) ? INFINITY : -INFINITY) : base;
  case 4: /* denormals: tiny ones, and ones large enough to be bf16 denormals too */
    return (rnd() & 1) ? (float)((int)rnd_below(200) - 100) * 1e-45f
                       : ldexpf(rnd_unit() * 2.0f - 1.0f, -126 - (int)rnd_below(8));
  case 5: { int k = (int)rnd_below(3); return k == 0 ? FLT_MAX : k == 1 ? -FLT_MAX : base; }
  case 6: return (rnd() & 1) ? 0.0f : -0.0f;
  case 7: return (rnd_unit() * 2.0f - 1.0f) * 1e5f; /* beyond f16 */
  case 8: return base + (float)rnd_below(4) * spread; /* few distinct values: ties in t */
  case 10: { /* scales at both edges of the reciprocal's domain (2^-32, 2^32), and values a
              * hair above the minimum 0 (0 < x - m < 2^-64: the division's lanes) */
    const int k = (int)rnd_below(8);
    if (k == 0) return 0.0f;
    if (k == 1) return ldexpf(1.0f + rnd_unit(), -64 - (int)rnd_below(80));
    return spread * rnd_unit();
  }
  default: return rnd_unit() * 3e38f * ((rnd() & 1) ? 1.0f : -1.0f); /* wide, finite */
  }
}

/* -1, or the kind every group of fill_input takes (THRESHOLD_KIND included). */
static int force_kind = -1;

/* Groups whose values sit at the 1-bit nearest threshold: the two ends lo and hi, and the
 * rest within 40 steps of the input format around their midpoint, where a code of 0 turns
 * to 1 (with f32 metadata the stored minimum is lo itself, and the threshold is a few
 * steps from the midpoint). A threshold off by one step in the vector path changes codes
 * here; random values almost never meet it. */
#define THRESHOLD_KIND 11
static void fill_threshold_group(buf *x, actq_dtype dt, size_t at, size_t n, float base,
                                 float spread) {
  const float lo = base - spread, hi = base + spread, mid = lo + (hi - lo) * 0.5f;
  size_t i;
  for (i = 0; i < n; i++) {
    const int k = (int)rnd_below(81) - 40;
    int s;
    if (dt == ACTQ_F32) {
      float v = i == 0 ? lo : i == 1 ? hi : mid;
      for (s = 0; i > 1 && s < (k < 0 ? -k : k); s++) v = actq_f32_step(v, k < 0 ? -1 : 1);
      memcpy(x->p + 4 * (at + i), &v, 4);
    } else {
      uint16_t h = actq_f32_to_h16(i == 0 ? lo : i == 1 ? hi : mid, dt);
      for (s = 0; i > 1 && s < (k < 0 ? -k : k); s++)
        h = actq_h16_step(h, k < 0 ? -1 : 1, actq_h16_inf_bits(dt));
      memcpy(x->p + 2 * (at + i), &h, 2);
    }
  }
}

/* Groups whose 1-bit step sits where the exact arithmetic matters, among +0, -0 and values
 * a few steps from zero:
 *  - min -2^-20, max 15 * 2^-24 (f16 denormals): the least num with code 1 is a hair above
 *    15.5 * 2^-24, which 0's num (2^-20) reaches and -2^-24's (15 * 2^-24) does not, so
 *    for f16 the step is at zero itself: -0 must take code 1 with +0, though their order
 *    keys differ;
 *  - min -1, max 1: a scale of 2, so sc * (0.5 + 2^-25) ties between 1 and the float above,
 *    and 0's t is exactly 0.5 (code 0). */
#define ZERO_STEP_KIND 12
static void fill_zero_step_group(buf *x, actq_dtype dt, size_t at, size_t n) {
  static const float near0[] = {0.0f, -0.0f, 0x1p-24f, -0x1p-24f, 0x1p-23f, -0x1p-23f};
  const int pow2 = (int)(rnd() & 1);
  size_t i;
  for (i = 0; i < n; i++) {
    const float v = i == 0 ? (pow2 ? -1.0f : -0x1p-20f)
                    : i == 1 ? (pow2 ? 1.0f : 15 * 0x1p-24f)
                             : near0[rnd_below(6)];
    if (dt == ACTQ_F32) {
      memcpy(x->p + 4 * (at + i), &v, 4);
    } else {
      const uint16_t h = actq_f32_to_h16(v, dt);
      memcpy(x->p + 2 * (at + i), &h, 2);
    }
  }
}

static void fill_input(buf *x, actq_dtype dt, size_t rows, size_t cols, size_t group) {
  size_t r, c;
  for (r = 0; r < rows; r++) {
    for (c = 0; c < cols; c += group) {
      const size_t end = c + group < cols ? c + group : cols;
      const int kind = force_kind >= 0 ? force_kind : rnd_below(3) ? 0 : (int)rnd_below(11);
      const float base = (rnd_unit() * 2.0f - 1.0f) * powf(10.0f, (float)rnd_below(9) - 4.0f);
      const float spread = kind == 10 ? ldexpf(1.0f + rnd_unit(), (rnd() & 1 ? -40 : 24) + (int)rnd_below(17))
                                      : rnd_unit() * fabsf(base) + 1e-3f;
      size_t i;
      if (kind == THRESHOLD_KIND) {
        fill_threshold_group(x, dt, r * cols + c, end - c, base, spread);
        continue;
      }
      if (kind == ZERO_STEP_KIND) {
        fill_zero_step_group(x, dt, r * cols + c, end - c);
        continue;
      }
      for (i = c; i < end; i++) {
        float v = special_value(kind, base, spread);
        size_t at = r * cols + i;
        if (dt == ACTQ_F32) {
          memcpy(x->p + 4 * at, &v, 4);
        } else {
          uint16_t h = dt == ACTQ_F16 ? actq_f32_to_f16(v) : actq_f32_to_bf16(v);
          if (rnd_below(64) == 0) h = (uint16_t)rnd(); /* any bit pattern, NaNs included */
          memcpy(x->p + 2 * at, &h, 2);
        }
      }
    }
  }
}

static size_t dsize(actq_dtype t) { return t == ACTQ_F32 ? 4 : 2; }

/* ---- one quantize + dequantize case ------------------------------------------------------ */
static void check_case(size_t rows, size_t cols, uint32_t group, uint32_t bits, int mixed,
                       actq_dtype xdt, actq_dtype mdt, actq_rounding rnd_mode, uint64_t seed,
                       uint64_t offset) {
  actq_layout lay;
  uint8_t *row_bits = NULL;
  size_t packed_bytes, groups, r, ti;
  buf x, pk_ref, mn_ref, sc_ref, pk, mn, sc;
  actq_status st_ref, st;
  actq_dtype ydt;

  if (mixed) {
    row_bits = malloc(rows);
    for (r = 0; r < rows; r++) row_bits[r] = (uint8_t)(1 + rnd_below(8));
  }
  lay.rows = rows;
  lay.cols = cols;
  lay.group_size = group;
  lay.bits = bits;
  lay.row_bits = row_bits;
  lay.meta_dtype = mdt;
  cr_assert_eq(actq_layout_sizes(&lay, &packed_bytes, &groups), ACTQ_OK);

  x = buf_new(rows * cols * dsize(xdt));
  fill_input(&x, xdt, rows, cols, group);
  pk_ref = buf_new(packed_bytes);
  mn_ref = buf_new(groups * dsize(mdt));
  sc_ref = buf_new(groups * dsize(mdt));
  st_ref = actq_quantize(ref_ctx, &lay, xdt, x.p, rnd_mode, seed, offset, pk_ref.p, mn_ref.p,
                         sc_ref.p);
  cr_assert(st_ref == ACTQ_OK || st_ref == ACTQ_ERR_NONFINITE);

  for (ti = 0; ti < sizeof thread_counts / sizeof *thread_counts; ti++) {
    cr_assert_eq(actq_context_set_threads(cpu_ctx, thread_counts[ti]), ACTQ_OK);
    pk = buf_new(packed_bytes);
    mn = buf_new(groups * dsize(mdt));
    sc = buf_new(groups * dsize(mdt));
    st = actq_quantize(cpu_ctx, &lay, xdt, x.p, rnd_mode, seed, offset, pk.p, mn.p, sc.p);
    cr_assert_eq(st, st_ref, "status %d vs %d", st, st_ref);
    cr_assert(memcmp(pk.raw, pk_ref.raw, packed_bytes + 64) == 0,
              "packed differs: %zux%zu G=%u b=%u mixed=%d x=%d meta=%d round=%d seed=%llu "
              "offset=%llu threads=%d",
              rows, cols, group, bits, mixed, xdt, mdt, rnd_mode, (unsigned long long)seed,
              (unsigned long long)offset, thread_counts[ti]);
    cr_assert(memcmp(mn.raw, mn_ref.raw, mn.n + 64) == 0, "group_min differs");
    cr_assert(memcmp(sc.raw, sc_ref.raw, sc.n + 64) == 0, "group_scale differs");
    buf_free(&pk);
    buf_free(&mn);
    buf_free(&sc);
  }

  /* dequantize what was stored, into every output dtype */
  for (ydt = ACTQ_F32; ydt <= ACTQ_BF16; ydt++) {
    buf y_ref = buf_new(rows * cols * dsize(ydt)), y;
    cr_assert_eq(actq_dequantize(ref_ctx, &lay, pk_ref.p, mn_ref.p, sc_ref.p, ydt, y_ref.p),
                 ACTQ_OK);
    for (ti = 0; ti < sizeof thread_counts / sizeof *thread_counts; ti++) {
      cr_assert_eq(actq_context_set_threads(cpu_ctx, thread_counts[ti]), ACTQ_OK);
      y = buf_new(y_ref.n);
      cr_assert_eq(actq_dequantize(cpu_ctx, &lay, pk_ref.p, mn_ref.p, sc_ref.p, ydt, y.p),
                   ACTQ_OK);
      cr_assert(memcmp(y.raw, y_ref.raw, y.n + 64) == 0,
                "dequantize differs: %zux%zu G=%u b=%u mixed=%d meta=%d y=%d threads=%d", rows,
                cols, group, bits, mixed, mdt, ydt, thread_counts[ti]);
      buf_free(&y);
    }
    buf_free(&y_ref);
  }
  buf_free(&x);
  buf_free(&pk_ref);
  buf_free(&mn_ref);
  buf_free(&sc_ref);
  free(row_bits);
}

static const size_t col_choices[] = {1, 7, 8, 9, 255, 257, 1000};
static const uint32_t group_choices[] = {8, 16, 24, 64, 256, 1000, 4096};

static size_t pick_cols(void) {
  return rnd_below(4) ? col_choices[rnd_below(7)] : 1 + rnd_below(3000);
}

TestSuite(isa_equivalence, .init = setup, .fini = teardown, .timeout = 600);

Test(isa_equivalence, describe_names_the_path) {
  const char *d = actq_context_describe(cpu_ctx);
  const char *names[] = {"scalar", "avx2", "avx512", "avx512bf16"};
  const char *cap = getenv("ACTQ_CPU_ISA");
  actq_cpu_isa want_isa = actq_cpu_isa_detected(); /* unset or unknown cap: the best */
  char want[64];
  if (cap && strcmp(cap, "scalar") == 0) want_isa = ACTQ_ISA_SCALAR;
  if (cap && strcmp(cap, "avx2") == 0 && want_isa > ACTQ_ISA_AVX2) want_isa = ACTQ_ISA_AVX2;
  if (cap && strcmp(cap, "avx512") == 0 && want_isa > ACTQ_ISA_AVX512) want_isa = ACTQ_ISA_AVX512;
  cr_assert_eq(actq_cpu_isa_selected(), want_isa, "ACTQ_CPU_ISA=%s", cap ? cap : "(unset)");
#ifdef ACTQ_TEST_EMU512
  snprintf(want, sizeof want, "cpu %s,", emu_bf16() ? ACTQ_EMU512BF16_ISA : ACTQ_EMU512_ISA);
#else
  snprintf(want, sizeof want, "cpu %s,", names[want_isa]);
#endif
  cr_assert(strncmp(d, want, strlen(want)) == 0, "describe: '%s', expected '%s'", d, want);
  cr_log_info("path under test: %s (best on this machine: %s)", d,
              names[actq_cpu_isa_detected()]);
}

/* ctest sets ACTQ_PREFETCH_L2_MIN_BYTES low (tests/cpu/CMakeLists.txt), so that the
 * nearest calls of these tests take both sides of the threshold of nearest's second
 * prefetch (cpu/prefetch.h), whose loops are instances of their own. */
Test(isa_equivalence, prefetch_l2_threshold_from_the_environment) {
  const char *env = getenv("ACTQ_PREFETCH_L2_MIN_BYTES");
  cr_assert(env != NULL, "run through ctest, which sets ACTQ_PREFETCH_L2_MIN_BYTES");
  cr_expect_eq(actq_cpu_prefetch_l2_min_env(), (size_t)strtoull(env, NULL, 10));
}

#ifdef ACTQ_TEST_EMU512
/* The emulated table is cpu/avx512/kernels_avx512.c's with the emulated kernels in its
 * AVX-512 slots: the same kernels run here as on an AVX-512 machine. */
Test(isa_equivalence, emulated_table_mirrors_avx512) {
  const actq_cpu_kernels *e = &actq_cpu_emu512_kernels, *a = &actq_cpu_avx512_kernels;
  cr_assert(a->quantize_groups == actq_avx512_quantize_groups &&
                e->quantize_groups == actq_emu512_quantize_groups,
            "the AVX-512 table's quantize changed: update tests/cpu/kernels_emu512.c");
  cr_assert(a->dequantize_groups == actq_avx512_dequantize_groups &&
                e->dequantize_groups == actq_emu512_dequantize_groups,
            "the AVX-512 table's dequantize changed: update tests/cpu/kernels_emu512.c");
  cr_assert(a->fewbit_backward == actq_avx512_fewbit_backward &&
                e->fewbit_backward == actq_emu512_fewbit_backward &&
                a->fewbit_encode == actq_avx512_fewbit_encode &&
                e->fewbit_encode == actq_emu512_fewbit_encode,
            "the AVX-512 table's few-bit kernels changed: update tests/cpu/kernels_emu512.c");
  cr_assert(e->pack == a->pack && e->unpack == a->unpack && e->fewbit_no_code_lut == a->fewbit_no_code_lut &&
                e->fewbit_code_lut_min_bits == a->fewbit_code_lut_min_bits &&
                e->fewbit_y_lut_dtypes == a->fewbit_y_lut_dtypes,
            "a slot of the AVX-512 table changed: update tests/cpu/kernels_emu512.c");
  cr_assert_eq(offsetof(actq_cpu_kernels, fewbit_no_code_lut),
               sizeof(const char *) + 6 * sizeof(void (*)(void)),
               "actq_cpu_kernels has new slots: compare them here");
  cr_assert_eq(sizeof *e,
               (offsetof(actq_cpu_kernels, fewbit_y_lut_dtypes) + sizeof(uint32_t) +
                _Alignof(actq_cpu_kernels) - 1) / _Alignof(actq_cpu_kernels) *
                   _Alignof(actq_cpu_kernels), /* the last slot, and the padding after it */
               "actq_cpu_kernels has new slots: compare them here");
}

/* The avx512bf16 table is the avx512 table with its few-bit kernels' bf16 conversions by
 * AVX512_BF16; its emulated twin likewise */
Test(isa_equivalence, emulated_table_mirrors_avx512bf16) {
  const actq_cpu_kernels *e = &actq_cpu_emu512bf16_kernels, *a = &actq_cpu_avx512bf16_kernels,
                         *e0 = &actq_cpu_emu512_kernels, *a0 = &actq_cpu_avx512_kernels;
  cr_assert(a->fewbit_backward == actq_avx512bf16_fewbit_backward &&
                e->fewbit_backward == actq_emu512bf16_fewbit_backward &&
                a->fewbit_encode == actq_avx512bf16_fewbit_encode &&
                e->fewbit_encode == actq_emu512bf16_fewbit_encode,
            "the avx512bf16 table's few-bit kernels changed: update tests/cpu/kernels_emu512.c");
  cr_assert(a->quantize_groups == a0->quantize_groups && e->quantize_groups == e0->quantize_groups &&
                a->dequantize_groups == a0->dequantize_groups &&
                e->dequantize_groups == e0->dequantize_groups && a->pack == a0->pack &&
                e->pack == e0->pack && a->unpack == a0->unpack && e->unpack == e0->unpack &&
                a->fewbit_no_code_lut == a0->fewbit_no_code_lut &&
                e->fewbit_no_code_lut == e0->fewbit_no_code_lut &&
                a->fewbit_code_lut_min_bits == a0->fewbit_code_lut_min_bits &&
                e->fewbit_code_lut_min_bits == e0->fewbit_code_lut_min_bits &&
                a->fewbit_y_lut_dtypes == a0->fewbit_y_lut_dtypes &&
                e->fewbit_y_lut_dtypes == e0->fewbit_y_lut_dtypes,
            "a slot of the avx512bf16 table differs from the avx512 table's: update "
            "tests/cpu/kernels_emu512.c");
}

/* Instruction semantics the emulation must get right (tests/support/simde_avx512_extra.h). */
Test(isa_equivalence, emulated_intrinsics) {
  const char *why = actq_emu512_selfcheck();
  cr_assert(why == NULL, "emulated intrinsic: %s", why);
}

/* The 8-instance Philox generator against the reference's blocks, for every count of
 * blocks up to 40 (both loops and the tail), within the slack it may write past them. */
Test(isa_equivalence, emulated_noise_fill) {
  enum { MAXB = 40, SENT = 0x5a5a };
  static uint16_t out[8 * MAXB + ACTQ_QUANTIZE_NOISE_SLACK + 64], want[8];
  int rep;
  size_t nb, i, b;
  rng_state = 6;
  for (rep = 0; rep < 20; rep++)
    for (nb = 1; nb <= MAXB; nb++) {
      const uint64_t seed = rnd() >> rnd_below(64), offset = rnd() >> rnd_below(64);
      const uint64_t block0 = rep & 1 ? rnd() : (uint64_t)0xfffffff0u + rnd_below(32);
      for (i = 0; i < sizeof out / sizeof *out; i++) out[i] = SENT;
      actq_emu512_noise_fill(seed, offset, block0, nb, out);
      for (b = 0; b < nb; b++) {
        actq_noise_block(seed, offset, block0 + b, want);
        cr_assert(memcmp(out + 8 * b, want, sizeof want) == 0,
                  "noise block %zu of %zu: seed=%llu offset=%llu block0=%llu", b, nb,
                  (unsigned long long)seed, (unsigned long long)offset,
                  (unsigned long long)block0);
      }
      for (i = 8 * nb + ACTQ_QUANTIZE_NOISE_SLACK; i < sizeof out / sizeof *out; i++)
        cr_assert_eq(out[i], SENT, "noise_fill(%zu blocks) wrote past its slack", nb);
    }
}
#endif

/* Every width, dtype pair and rounding on shapes drawn from the list above. */
Test(isa_equivalence, quantize_dequantize_all_combinations) {
  uint32_t bits;
  int xdt, mdt, rm, rep;
  rng_state = 1;
  for (rep = 0; rep < 4; rep++)
  for (bits = 1; bits <= 8; bits++)
    for (xdt = 0; xdt < 3; xdt++)
      for (mdt = 0; mdt < 3; mdt++)
        for (rm = 0; rm < 2; rm++) {
          size_t rows = 1 + rnd_below(5);
          check_case(rows, pick_cols(), group_choices[rnd_below(7)], bits, 0, (actq_dtype)xdt,
                     (actq_dtype)mdt, (actq_rounding)rm, rnd(), rnd());
        }
}

/* Nearest codes at the step where the 1-bit code turns from 0 to 1 (the AVX-512 path
 * compares against it instead of dividing), every input and meta dtype, 2 bits beside;
 * and steps at zero. */
Test(isa_equivalence, nearest_one_bit_threshold) {
  static const uint32_t groups[] = {8, 24, 64, 256, 1000};
  int xdt, mdt, rep;
  rng_state = 5;
  force_kind = THRESHOLD_KIND;
  for (rep = 0; rep < 8; rep++)
    for (xdt = 0; xdt < 3; xdt++)
      for (mdt = 0; mdt < 3; mdt++)
        check_case(1 + rnd_below(4), 1 + rnd_below(3000), groups[rnd_below(5)],
                   rep < 6 ? 1 : 2, 0, (actq_dtype)xdt, (actq_dtype)mdt, ACTQ_ROUND_NEAREST, rnd(),
                   rnd());
  force_kind = ZERO_STEP_KIND;
  for (xdt = 0; xdt < 3; xdt++)
    check_case(2, 4096 + rnd_below(100), 256, 1, 0, (actq_dtype)xdt, ACTQ_F32,
               ACTQ_ROUND_NEAREST, 1, 0);
  force_kind = -1;
}

/* Stochastic 1-bit codes from the codes-loop generator (groups of a multiple of 128: the
 * AVX-512 path compares t + u against 1, and puts bf16's quads back in element order with
 * a byte permute of the masks), every input and meta dtype, whole and partial groups, rows
 * that start at whole Philox blocks. */
Test(isa_equivalence, stochastic_one_bit_codes_loop) {
  static const uint32_t groups[] = {128, 256, 4096};
  int xdt, mdt, rep;
  rng_state = 7;
  for (rep = 0; rep < 3; rep++)
    for (xdt = 0; xdt < 3; xdt++)
      for (mdt = 0; mdt < 3; mdt++) {
        const uint32_t g = groups[rep];
        check_case(1 + rnd_below(3), g * (1 + rnd_below(3)) + 8 * rnd_below(g / 8), g, 1, 0,
                   (actq_dtype)xdt, (actq_dtype)mdt, ACTQ_ROUND_STOCHASTIC, rnd(), rnd());
      }
}

/* Stochastic 1-bit codes where t + u is exactly 1: in groups of min 1 and scale 1, x = 2 - u
 * (exact in f32) gives t = 1 - u, and floor(t + u) = 1, the code 1. A compare of t + u
 * against 1 keeps that only as >=. */
Test(isa_equivalence, stochastic_one_bit_sum_at_one) {
  const size_t cols = 4096 + 512, group = 256;
  const uint64_t seed = 12345, offset = 678;
  actq_layout lay = {1, cols, group, 1, NULL, ACTQ_F32};
  buf x = buf_new(cols * 4), pk_ref = buf_new(cols / 8), pk = buf_new(cols / 8);
  float mn[(4096 + 512) / 256], sc[(4096 + 512) / 256], v;
  uint16_t r16[8];
  size_t e, g, ti;
  for (e = 0; e < cols; e++) {
    actq_noise_block(seed, offset, e >> 3, r16);
    v = e % group == 0 ? 1.0f : e % group == 1 ? 2.0f : 2.0f - actq_noise_u(r16[e & 7]);
    memcpy(x.p + 4 * e, &v, 4);
  }
  cr_assert_eq(actq_quantize(ref_ctx, &lay, ACTQ_F32, x.p, ACTQ_ROUND_STOCHASTIC, seed, offset,
                             pk_ref.p, mn, sc),
               ACTQ_OK);
  for (g = 0; g < cols / group; g++)
    cr_assert(mn[g] == 1.0f && sc[g] == 1.0f, "group %zu: min %g, scale %g", g, mn[g], sc[g]);
  for (e = 0; e < cols; e++) /* the ties' codes are 1 */
    if (e % group > 1) cr_assert(pk_ref.p[e / 8] >> (e % 8) & 1, "element %zu", e);
  for (ti = 0; ti < sizeof thread_counts / sizeof *thread_counts; ti++) {
    cr_assert_eq(actq_context_set_threads(cpu_ctx, thread_counts[ti]), ACTQ_OK);
    cr_assert_eq(actq_quantize(cpu_ctx, &lay, ACTQ_F32, x.p, ACTQ_ROUND_STOCHASTIC, seed,
                               offset, pk.p, mn, sc),
                 ACTQ_OK);
    cr_assert(memcmp(pk.raw, pk_ref.raw, cols / 8 + 64) == 0, "threads %d", thread_counts[ti]);
  }
  buf_free(&x);
  buf_free(&pk_ref);
  buf_free(&pk);
}

/* The first offset from 0 at which the noise value 65535 falls on an element of [0, n)
 * that does not start a group; that element in *at. */
static uint64_t offset_with_top_noise(uint64_t seed, size_t n, uint32_t group, size_t *at) {
  uint16_t r16[8];
  uint64_t offset;
  size_t e;
  for (offset = 0;; offset++)
    for (e = 0; e < n; e++) {
      if (e % 8 == 0) actq_noise_block(seed, offset, e / 8, r16);
      if (r16[e % 8] == 65535 && e % group != 0) {
        *at = e;
        return offset;
      }
    }
}

/* Stochastic codes that reach L + 1 before the clamp. At the top of a group t is L
 * (8 bits: x = 255 in groups of min 0 and scale 1) or L + ulp(L) (7 bits: the pairs below,
 * where x - m rounds up past L*s), and with the noise value 65535 (u = 1 - 2^-17) t + u then
 * rounds to L + 1 in float32; the code must be L (the AVX-512 and AVX2 loops clamp the
 * codes as bytes: at 7 bits with a byte min, at 8 bits by the pack's saturation). Each
 * group is its minimum and then the top value; the offset is chosen so that the noise
 * value 65535 falls on a top element. Groups of 256 (the codes-loop generator) and of 24
 * (the noise buffer), every input dtype, the premise checked with the library's own
 * arithmetic. */
Test(isa_equivalence, stochastic_top_code_clamped) {
  static const struct {
    uint32_t bits;
    actq_dtype xdt;
    float mn, mx;
  } cases[] = {
      {8, ACTQ_F32, 0.0f, 255.0f},           {8, ACTQ_BF16, 0.0f, 255.0f},
      {8, ACTQ_F16, 0.0f, 255.0f},           {7, ACTQ_F32, -0x1.22p+11f, 0x1.b6p-6f},
      {7, ACTQ_BF16, -0x1.22p+11f, 0x1.b6p-6f}, {7, ACTQ_F16, -0x1.538p+8f, 0x1.304p-12f},
  };
  static const uint32_t groups[] = {256, 24};
  const size_t cols = 4096 + 40;
  const uint64_t seed = 4242;
  size_t c, gi, e, ti;
  for (c = 0; c < sizeof cases / sizeof *cases; c++)
    for (gi = 0; gi < 2; gi++) {
      const uint32_t bits = cases[c].bits, group = groups[gi];
      const actq_dtype xdt = cases[c].xdt;
      /* the values are exact in the input dtype (those of f32 are bf16 values) */
      const actq_dtype hdt = xdt == ACTQ_F32 ? ACTQ_BF16 : xdt;
      const uint16_t hmn = actq_f32_to_h16(cases[c].mn, hdt),
                     hmx = actq_f32_to_h16(cases[c].mx, hdt);
      actq_layout lay = {1, cols, group, bits, NULL, ACTQ_F32};
      size_t packed, groups_n, top;
      const uint64_t offset = offset_with_top_noise(seed, cols, group, &top);
      actq_group_meta g;
      buf x, pk_ref, pk;
      float mn[200], sc[200];
      uint32_t codes[8];
      cr_assert(actq_h16_to_f32(hmn, hdt) == cases[c].mn &&
                actq_h16_to_f32(hmx, hdt) == cases[c].mx);
      actq_group_meta_compute(cases[c].mn, cases[c].mx, 1, bits, ACTQ_F32, &g);
      cr_assert(actq_floorf(actq_quant_t(cases[c].mx, &g) + actq_noise_u(65535)) ==
                    g.levels + 1.0f,
                "case %zu: the top element's t + u does not reach L + 1", c);
      cr_assert_eq(actq_layout_sizes(&lay, &packed, &groups_n), ACTQ_OK);
      cr_assert(groups_n <= 200);
      x = buf_new(cols * dsize(xdt));
      pk_ref = buf_new(packed);
      pk = buf_new(packed);
      for (e = 0; e < cols; e++) {
        const int at_min = e % group == 0;
        if (xdt == ACTQ_F32) {
          const float v = at_min ? cases[c].mn : cases[c].mx;
          memcpy(x.p + 4 * e, &v, 4);
        } else {
          memcpy(x.p + 2 * e, at_min ? &hmn : &hmx, 2);
        }
      }
      cr_assert_eq(actq_quantize(ref_ctx, &lay, xdt, x.p, ACTQ_ROUND_STOCHASTIC, seed, offset,
                                 pk_ref.p, mn, sc),
                   ACTQ_OK);
      actq_unpack_unit(pk_ref.p + top / 8 * bits, 8, bits, codes);
      cr_assert_eq(codes[top % 8], (uint32_t)g.levels, "case %zu: the reference's top code", c);
      for (ti = 0; ti < sizeof thread_counts / sizeof *thread_counts; ti++) {
        cr_assert_eq(actq_context_set_threads(cpu_ctx, thread_counts[ti]), ACTQ_OK);
        cr_assert_eq(actq_quantize(cpu_ctx, &lay, xdt, x.p, ACTQ_ROUND_STOCHASTIC, seed,
                                   offset, pk.p, mn, sc),
                     ACTQ_OK);
        cr_assert(memcmp(pk.raw, pk_ref.raw, packed + 64) == 0,
                  "case %zu (b=%u x=%d G=%u), threads %d: packed differs", c, bits, xdt, group,
                  thread_counts[ti]);
      }
      buf_free(&x);
      buf_free(&pk_ref);
      buf_free(&pk);
    }
}

/* Per-row widths and many seeds/offsets, including offsets and seeds with high bits set
 * and flat indices that cross 2^32 in the Philox counter's low word. */
Test(isa_equivalence, mixed_widths_and_seeds) {
  int i;
  rng_state = 2;
  for (i = 0; i < 600; i++) {
    size_t rows = 1 + rnd_below(9);
    check_case(rows, pick_cols(), group_choices[rnd_below(7)], 1 + (uint32_t)rnd_below(8),
               (int)(rnd() & 1), (actq_dtype)rnd_below(3), (actq_dtype)rnd_below(3),
               (actq_rounding)rnd_below(2), rnd() >> rnd_below(64), rnd() >> rnd_below(64));
  }
}

/* Group sizes up to 4096 (several noise chunks per group) and many groups for threads. */
Test(isa_equivalence, large_groups_and_many_rows) {
  int i;
  rng_state = 3;
  for (i = 0; i < 30; i++) { /* 2^17+ elements: the driver splits these across threads */
    size_t rows = 40 + rnd_below(60), cols = 3000 + rnd_below(5000);
    uint32_t g = 8 * (1 + (uint32_t)rnd_below(512));
    check_case(rows, cols, g, 1 + (uint32_t)rnd_below(8), (int)(rnd() & 1),
               (actq_dtype)rnd_below(3), (actq_dtype)rnd_below(3), (actq_rounding)rnd_below(2),
               rnd(), rnd());
  }
}

/* Dequantize of arbitrary stored bytes: random codes and metadata bit patterns (NaN, Inf,
 * denormal, huge), for every meta and output dtype. */
Test(isa_equivalence, dequantize_arbitrary_metadata) {
  int i;
  rng_state = 4;
  for (i = 0; i < 300; i++) {
    actq_layout lay;
    size_t packed_bytes, groups, j, ti;
    actq_dtype mdt = (actq_dtype)rnd_below(3), ydt = (actq_dtype)rnd_below(3);
    buf pk, mn, sc, y_ref, y;
    lay.rows = 1 + rnd_below(6);
    lay.cols = pick_cols();
    lay.group_size = group_choices[rnd_below(7)];
    lay.bits = 1 + (uint32_t)rnd_below(8);
    lay.row_bits = NULL;
    lay.meta_dtype = mdt;
    cr_assert_eq(actq_layout_sizes(&lay, &packed_bytes, &groups), ACTQ_OK);
    pk = buf_new(packed_bytes);
    mn = buf_new(groups * dsize(mdt));
    sc = buf_new(groups * dsize(mdt));
    for (j = 0; j < packed_bytes; j++) pk.p[j] = (uint8_t)rnd();
    for (j = 0; j < groups; j++) {
      float m = special_value((int)rnd_below(10), rnd_unit() * 100.0f - 50.0f, 1.0f);
      float s = rnd_below(4) ? rnd_unit() * powf(10.0f, (float)rnd_below(12) - 6.0f)
                             : special_value((int)rnd_below(10), 1.0f, 1.0f);
      if (mdt == ACTQ_F32) {
        memcpy(mn.p + 4 * j, &m, 4);
        memcpy(sc.p + 4 * j, &s, 4);
      } else {
        uint16_t hm = mdt == ACTQ_F16 ? actq_f32_to_f16(m) : actq_f32_to_bf16(m);
        uint16_t hs = mdt == ACTQ_F16 ? actq_f32_to_f16(s) : actq_f32_to_bf16(s);
        if (rnd_below(16) == 0) hm = (uint16_t)rnd();
        memcpy(mn.p + 2 * j, &hm, 2);
        memcpy(sc.p + 2 * j, &hs, 2);
      }
    }
    y_ref = buf_new(lay.rows * lay.cols * dsize(ydt));
    cr_assert_eq(actq_dequantize(ref_ctx, &lay, pk.p, mn.p, sc.p, ydt, y_ref.p), ACTQ_OK);
    for (ti = 0; ti < 4; ti++) {
      actq_context_set_threads(cpu_ctx, thread_counts[ti]);
      y = buf_new(y_ref.n);
      cr_assert_eq(actq_dequantize(cpu_ctx, &lay, pk.p, mn.p, sc.p, ydt, y.p), ACTQ_OK);
      cr_assert(memcmp(y.raw, y_ref.raw, y.n + 64) == 0, "dequantize (case %d) differs", i);
      buf_free(&y);
    }
    buf_free(&pk);
    buf_free(&mn);
    buf_free(&sc);
    buf_free(&y_ref);
  }
}

/* pack/unpack: odd n, every width, out-of-range codes reported and masked identically. */
Test(isa_equivalence, pack_unpack) {
  static const size_t ns[] = {1, 7, 8, 9, 31, 32, 33, 63, 255, 257, 1000, 4097, 100003, 1000003};
  size_t k, j, ti;
  uint32_t bits;
  rng_state = 5;
  for (k = 0; k < sizeof ns / sizeof *ns; k++)
    for (bits = 1; bits <= 8; bits++) {
      const size_t n = ns[k], nb = actq_stream_bytes(n, bits);
      const int bad = (int)(rnd_below(3) == 0);
      buf codes = buf_new(n), pk_ref = buf_new(nb), out_ref = buf_new(n);
      actq_status st_ref;
      for (j = 0; j < n; j++) codes.p[j] = (uint8_t)(rnd() & ((1u << bits) - 1u));
      if (bad) codes.p[rnd_below(n)] = (uint8_t)(((1u << bits) | rnd()) & 0xff);
      if (bad && bits == 8) codes.p[0] = 0xff; /* no invalid 8-bit code exists */
      st_ref = actq_pack(ref_ctx, bits, n, codes.p, pk_ref.p);
      cr_assert_eq(actq_unpack(ref_ctx, bits, n, pk_ref.p, out_ref.p), ACTQ_OK);
      for (ti = 0; ti < 4; ti++) {
        buf pk = buf_new(nb), out = buf_new(n), rpk = buf_new(nb), rout = buf_new(n),
            rout_ref = buf_new(n);
        actq_context_set_threads(cpu_ctx, thread_counts[ti]);
        cr_assert_eq(actq_pack(cpu_ctx, bits, n, codes.p, pk.p), st_ref);
        cr_assert(memcmp(pk.raw, pk_ref.raw, nb + 64) == 0, "pack n=%zu b=%u t=%d", n, bits,
                  thread_counts[ti]);
        cr_assert_eq(actq_unpack(cpu_ctx, bits, n, pk_ref.p, out.p), ACTQ_OK);
        cr_assert(memcmp(out.raw, out_ref.raw, n + 64) == 0, "unpack n=%zu b=%u", n, bits);
        /* unpack of arbitrary bytes, unused high bits included */
        for (j = 0; j < nb; j++) rpk.p[j] = (uint8_t)rnd();
        cr_assert_eq(actq_unpack(ref_ctx, bits, n, rpk.p, rout_ref.p), ACTQ_OK);
        cr_assert_eq(actq_unpack(cpu_ctx, bits, n, rpk.p, rout.p), ACTQ_OK);
        cr_assert(memcmp(rout.raw, rout_ref.raw, n + 64) == 0, "unpack random n=%zu b=%u", n,
                  bits);
        buf_free(&pk);
        buf_free(&out);
        buf_free(&rpk);
        buf_free(&rout);
        buf_free(&rout_ref);
      }
      buf_free(&codes);
      buf_free(&pk_ref);
      buf_free(&out_ref);
    }
}

/* fewbit_encode's codes and fewbit_backward of every width and dtype: tables of 1..8
 * bits (GELU; at 1 and 8 bits also levels with NaN, Inf and signed zeros, so products of
 * every kind reach the rounding), gradients with specials, lengths around the kernels'
 * blocks and units, odd addresses, every thread count. The codes come from random bytes
 * (unused high bits of the last byte included, which no call may read as a code). */
Test(isa_equivalence, fewbit_encode_and_backward) {
  static const size_t ns[] = {1, 7, 8, 9, 31, 32, 33, 63, 100, 257, 1000, 4097, 70001};
  size_t k, j, ti;
  uint32_t bits;
  int dt;
  rng_state = 7;
  for (bits = 1; bits <= 8; bits++) {
    fewbit_table t;
    /* 1 bit: ReLU's table, whose bound is 0, made -0 below (signed zeros on a bound) */
    cr_assert_eq(fewbit_table_build(bits == 1 ? FEWBIT_RELU : FEWBIT_GELU, 0.0f, bits, NULL, &t),
                 ACTQ_OK);
    if (bits >= 2) { /* times a gradient of 1: exact halfway cases of the bf16 rounding */
      t.levels[(1u << bits) / 2] = 1.0f + 0x1p-8f;             /* ties to the even 1.0 */
      t.levels[(1u << bits) / 2 - 1] = 1.0f + 0x1p-7f + 0x1p-8f; /* ties up, to even */
    }
    if (bits == 1) t.bounds[0] = -0.0f; /* the same bound as +0: x = +0 is not above it */
    if (bits == 1 || bits == 8) {
      t.levels[0] = NAN;
      t.levels[1] = -INFINITY;
      t.levels[(1u << bits) - 1] = -0.0f;
    }
    for (dt = 0; dt < 3; dt++)
      for (k = 0; k < sizeof ns / sizeof *ns; k++) {
        const size_t n = ns[k], nb = actq_stream_bytes(n, bits), es = dsize((actq_dtype)dt);
        buf x = buf_new(n * es), codes_ref = buf_new(nb), g = buf_new(n * es),
            gi_ref = buf_new(n * es);
        fill_input(&x, (actq_dtype)dt, 1, n, 1 + rnd_below(64));
        for (j = 0; j < n; j += 1 + rnd_below(7)) { /* x on a bound: "strictly below" */
          const float v = t.bounds[rnd_below((1u << bits) - 1)];
          if (dt == ACTQ_F32) memcpy(x.p + 4 * j, &v, 4);
          else { /* the 16-bit value nearest the bound, or the one below or above it */
            const uint16_t h = (uint16_t)((dt == ACTQ_F16 ? actq_f32_to_f16(v) : actq_f32_to_bf16(v)) +
                                          (int)rnd_below(3) - 1);
            memcpy(x.p + 2 * j, &h, 2);
          }
        }
        fill_input(&g, (actq_dtype)dt, 1, n, 1 + rnd_below(64));
        for (j = 0; j < n; j += 1 + rnd_below(5)) { /* gradients of +-1 (for the ties) */
          const float one = rnd() & 1 ? 1.0f : -1.0f;
          if (dt == ACTQ_F32) memcpy(g.p + 4 * j, &one, 4);
          else {
            const uint16_t h = dt == ACTQ_F16 ? actq_f32_to_f16(one) : actq_f32_to_bf16(one);
            memcpy(g.p + 2 * j, &h, 2);
          }
        }
        for (j = 0; j < nb; j++) codes_ref.p[j] = (uint8_t)rnd(); /* any bytes are codes */
        cr_assert_eq(fewbit_backward(ref_ctx, &t, n, codes_ref.p, (actq_dtype)dt, g.p, gi_ref.p),
                     ACTQ_OK);
        for (ti = 0; ti < 4; ti++) {
          buf codes = buf_new(nb), codes_x = buf_new(nb), gi = buf_new(n * es);
          actq_status st, st_ref;
          actq_context_set_threads(cpu_ctx, thread_counts[ti]);
          st_ref = fewbit_encode(ref_ctx, &t, n, (actq_dtype)dt, x.p, NULL, codes_x.p);
          st = fewbit_encode(cpu_ctx, &t, n, (actq_dtype)dt, x.p, NULL, codes.p);
          cr_assert_eq(st, st_ref, "encode status n=%zu b=%u dt=%d", n, bits, dt);
          cr_assert(memcmp(codes.raw, codes_x.raw, nb + 64) == 0, "encode n=%zu b=%u dt=%d t=%d",
                    n, bits, dt, thread_counts[ti]);
          cr_assert_eq(fewbit_backward(cpu_ctx, &t, n, codes_ref.p, (actq_dtype)dt, g.p, gi.p),
                       ACTQ_OK);
          cr_assert(memcmp(gi.raw, gi_ref.raw, n * es + 64) == 0,
                    "backward n=%zu b=%u dt=%d t=%d", n, bits, dt, thread_counts[ti]);
          buf_free(&codes);
          buf_free(&codes_x);
          buf_free(&gi);
        }
        buf_free(&x);
        buf_free(&codes_ref);
        buf_free(&g);
        buf_free(&gi_ref);
      }
  }
}

/* A CPU context keeps the code_lut of its last table (cpu/driver.c) for the next calls:
 * one context, calls alternating between tables that differ in everything (GELU, SiLU),
 * in one bound moved to its neighbours' midpoint, and in one bound moved by one float
 * ulp, at lengths that build a lut (20011) and that only reuse one (1000); every call's
 * codes are its own table's, as the reference's. x lies on and around the bounds that
 * differ. */
Test(isa_equivalence, fewbit_code_lut_follows_the_table) {
  enum { TA, TMID, TULP, TSILU, NT };
  static const struct {
    int table;
    size_t n;
  } steps[] = {{TA, 20011},   {TMID, 20011}, {TMID, 1000}, {TA, 1000},  {TULP, 1000},
               {TULP, 20011}, {TA, 1000},    {TSILU, 1000}, {TSILU, 20011}, {TA, 1000},
               {TA, 20011},   {TULP, 1000}};
  uint32_t bits;
  int dt;
  rng_state = 11;
  for (bits = 6; bits <= 8; bits++) {
    const uint32_t nb = (1u << bits) - 1u, k = nb / 2;
    /* the solver's coarsest grid (4 cells a level at 8 bits): any valid bounds will do,
     * and the default grid's solves were most of this test's time (under valgrind too) */
    const fewbit_options coarse = {FEWBIT_WEIGHT_NORMAL, 0.0, 1.0, 0.0, 0.0, 1024};
    fewbit_table t[NT];
    cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0.0f, bits, &coarse, &t[TA]), ACTQ_OK);
    cr_assert_eq(fewbit_table_build(FEWBIT_SILU, 0.0f, bits, &coarse, &t[TSILU]), ACTQ_OK);
    t[TMID] = t[TULP] = t[TA];
    t[TMID].bounds[k] = 0.5f * (t[TA].bounds[k] + t[TA].bounds[k + 1]);
    t[TULP].bounds[k] = nextafterf(t[TA].bounds[k], INFINITY);
    cr_assert(t[TULP].bounds[k] < t[TA].bounds[k + 1]);
    for (dt = 0; dt < 3; dt++) {
      size_t s;
      for (s = 0; s < sizeof steps / sizeof *steps; s++) {
        const fewbit_table *tab = &t[steps[s].table];
        const size_t n = steps[s].n, nbytes = actq_stream_bytes(n, bits), es = dsize((actq_dtype)dt);
        const int with_y = (int)(s & 1);
        const float lo = t[TA].bounds[k - 1], hi = t[TA].bounds[k + 2];
        buf x = buf_new(n * es), codes = buf_new(nbytes), codes_ref = buf_new(nbytes),
            y = buf_new(n * es), y_ref = buf_new(n * es);
        size_t j;
        for (j = 0; j < n; j++) { /* the bounds that differ, their neighbours, or between */
          const uint32_t r = (uint32_t)rnd_below(8);
          const float v = r == 0   ? t[TA].bounds[k]
                          : r == 1 ? t[TULP].bounds[k]
                          : r == 2 ? t[TMID].bounds[k]
                          : r == 3 ? t[TSILU].bounds[rnd_below(nb)]
                                   : lo + (hi - lo) * rnd_unit();
          if (dt == ACTQ_F32) memcpy(x.p + 4 * j, &v, 4);
          else {
            const uint16_t h = dt == ACTQ_F16 ? actq_f32_to_f16(v) : actq_f32_to_bf16(v);
            memcpy(x.p + 2 * j, &h, 2);
          }
        }
        cr_assert_eq(fewbit_encode(ref_ctx, tab, n, (actq_dtype)dt, x.p, with_y ? y_ref.p : NULL,
                                   codes_ref.p),
                     ACTQ_OK);
        cr_assert_eq(fewbit_encode(cpu_ctx, tab, n, (actq_dtype)dt, x.p, with_y ? y.p : NULL,
                                   codes.p),
                     ACTQ_OK);
        cr_assert(memcmp(codes.raw, codes_ref.raw, nbytes + 64) == 0,
                  "codes: step %zu (table %d, n=%zu) b=%u dt=%d", s, steps[s].table, n, bits, dt);
        cr_assert(memcmp(y.raw, y_ref.raw, n * es + 64) == 0, "y: step %zu b=%u dt=%d", s, bits,
                  dt);
        buf_free(&x);
        buf_free(&codes);
        buf_free(&codes_ref);
        buf_free(&y);
        buf_free(&y_ref);
      }
    }
  }
}

/* fewbit_encode with y: codes and y of every activation (its own 16-lane code on AVX-512
 * for GELU, GELU_TANH, SiLU, Sigmoid and Tanh, the 8-lane halves for the rest), every
 * dtype, at 1-4 bits (AVX-512: the codes in y's loop for those five; bf16 at 1-2), 5 and
 * 7 (7: the code_lut from 2^14 elements on), lengths around the vectors (16, 32) and the AVX-512
 * kernel's blocks of 1024, odd addresses, 1 and 3 threads; inputs spread over the
 * activations' pieces, on the table's bounds and next to them, and the specials of
 * fill_input. */
Test(isa_equivalence, fewbit_encode_with_y_every_activation, .timeout = 600) {
  static const size_t ns[] = {15, 33, 1023, 1057, 3100, 20011};
  static const uint32_t widths[] = {1, 2, 3, 4, 5, 7};
  static const int threads[] = {1, 3};
  int act, dt;
  size_t k, w, ti, j;
  rng_state = 11;
  for (act = FEWBIT_GELU; act < FEWBIT_CUSTOM; act++) {
    const float param = act == FEWBIT_SOFTPLUS ? 2.0f : act == FEWBIT_LEAKY_RELU ? 0.01f
                                                                                : 1.0f;
    for (w = 0; w < sizeof widths / sizeof *widths; w++) {
      fewbit_table t;
      cr_assert_eq(fewbit_table_build((fewbit_activation)act, param, widths[w], NULL, &t), ACTQ_OK);
      for (dt = 0; dt < 3; dt++)
        for (k = 0; k < sizeof ns / sizeof *ns; k++) {
          const size_t n = ns[k], nb = actq_stream_bytes(n, widths[w]), es = dsize((actq_dtype)dt);
          buf x = buf_new(n * es), y_ref = buf_new(n * es), c_ref = buf_new(nb);
          actq_status st_ref;
          fill_input(&x, (actq_dtype)dt, 1, n, 1 + rnd_below(64));
          for (j = 0; j < n; j += 1 + rnd_below(3)) { /* most values where f is not trivial */
            const float v = (rnd_unit() * 2.0f - 1.0f) * ldexpf(1.0f, (int)rnd_below(12) - 4);
            if (dt == ACTQ_F32) memcpy(x.p + 4 * j, &v, 4);
            else {
              const uint16_t h = dt == ACTQ_F16 ? actq_f32_to_f16(v) : actq_f32_to_bf16(v);
              memcpy(x.p + 2 * j, &h, 2);
            }
          }
          for (j = 0; j < n; j += 1 + rnd_below(9)) { /* on a bound, or a step below or above */
            const float v = t.bounds[rnd_below((1u << widths[w]) - 1)];
            const int step = (int)rnd_below(3) - 1;
            if (dt == ACTQ_F32) {
              const float u = step ? nextafterf(v, step * INFINITY) : v;
              memcpy(x.p + 4 * j, &u, 4);
            } else {
              const uint16_t h = (uint16_t)((dt == ACTQ_F16 ? actq_f32_to_f16(v) : actq_f32_to_bf16(v)) + step);
              memcpy(x.p + 2 * j, &h, 2);
            }
          }
          st_ref = fewbit_encode(ref_ctx, &t, n, (actq_dtype)dt, x.p, y_ref.p, c_ref.p);
          for (ti = 0; ti < sizeof threads / sizeof *threads; ti++) {
            buf y = buf_new(n * es), c = buf_new(nb);
            actq_context_set_threads(cpu_ctx, threads[ti]);
            cr_assert_eq(fewbit_encode(cpu_ctx, &t, n, (actq_dtype)dt, x.p, y.p, c.p), st_ref);
            cr_assert(memcmp(c.raw, c_ref.raw, nb + 64) == 0, "codes act=%d n=%zu b=%u dt=%d t=%d",
                      act, n, widths[w], dt, threads[ti]);
            cr_assert(memcmp(y.raw, y_ref.raw, n * es + 64) == 0, "y act=%d n=%zu b=%u dt=%d t=%d",
                      act, n, widths[w], dt, threads[ti]);
            buf_free(&y);
            buf_free(&c);
          }
          buf_free(&x);
          buf_free(&y_ref);
          buf_free(&c_ref);
        }
    }
  }
}

/* The parameters each activation is checked with (two where it has one) */
static int act_params(int act, float p[2]) {
  switch (act) {
  case FEWBIT_SOFTPLUS: p[0] = 2.0f, p[1] = 0.5f; return 2;
  case FEWBIT_ELU: p[0] = 1.0f, p[1] = 0.5f; return 2;
  case FEWBIT_CELU: p[0] = 1.0f, p[1] = 2.0f; return 2;
  case FEWBIT_LEAKY_RELU: p[0] = 0.01f, p[1] = 0.2f; return 2;
  default: p[0] = 0.0f; return 1;
  }
}

/* fewbit_encode with y and a 16-bit dtype, where the context looks y up in its table of
 * every input (cpu/y_lut.h; the AVX2 and AVX-512 tables): every one of the 65536 inputs,
 * in a scrambled order and then an odd tail, gets the reference's y and codes, for every
 * activation and parameter, bf16 and f16, at 2 bits (AVX-512: y in the codes' loop), 5
 * (the block passes) and 8 (their codes by the AVX2 kernel and the code_lut), on 1 and 3
 * threads. */
Test(isa_equivalence, fewbit_y_lut_every_16bit_input, .timeout = 900) {
  static const uint32_t widths[] = {2, 5, 8};
  /* the solver's coarsest grid: any valid bounds will do, and fine 8-bit solves would be
   * most of the test's time */
  const fewbit_options coarse = {FEWBIT_WEIGHT_NORMAL, 0.0, 1.0, 0.0, 0.0, 1024};
  static const actq_dtype dts[] = {ACTQ_BF16, ACTQ_F16};
  static const int threads[] = {1, 3};
  const size_t n = 65536 + 1037;
  buf x = buf_new(2 * n);
  size_t j, w, d, ti;
  int act, pi;
  rng_state = 17;
  for (j = 0; j < n; j++) { /* 40503 is odd: the first 65536 are every value once */
    const uint16_t h = (uint16_t)(j < 65536 ? j * 40503u + 7u : rnd());
    memcpy(x.p + 2 * j, &h, 2);
  }
  for (act = FEWBIT_GELU; act < FEWBIT_CUSTOM; act++) {
    float params[2];
    const int np = act_params(act, params);
    for (pi = 0; pi < np; pi++)
      for (w = 0; w < sizeof widths / sizeof *widths; w++) {
        const size_t nb = actq_stream_bytes(n, widths[w]);
        fewbit_table t;
        cr_assert_eq(
            fewbit_table_build((fewbit_activation)act, params[pi], widths[w], &coarse, &t),
            ACTQ_OK);
        for (d = 0; d < 2; d++) {
          buf y_ref = buf_new(2 * n), c_ref = buf_new(nb);
          const actq_status st_ref = fewbit_encode(ref_ctx, &t, n, dts[d], x.p, y_ref.p, c_ref.p);
          for (ti = 0; ti < sizeof threads / sizeof *threads; ti++) {
            buf y = buf_new(2 * n), c = buf_new(nb);
            actq_context_set_threads(cpu_ctx, threads[ti]);
            cr_assert_eq(fewbit_encode(cpu_ctx, &t, n, dts[d], x.p, y.p, c.p), st_ref);
            cr_assert(memcmp(y.raw, y_ref.raw, 2 * n + 64) == 0, "y act=%d param=%g b=%u dt=%d t=%d",
                      act, (double)params[pi], widths[w], (int)dts[d], threads[ti]);
            cr_assert(memcmp(c.raw, c_ref.raw, nb + 64) == 0, "codes act=%d b=%u dt=%d t=%d", act,
                      widths[w], (int)dts[d], threads[ti]);
            buf_free(&y);
            buf_free(&c);
          }
          buf_free(&y_ref);
          buf_free(&c_ref);
        }
      }
  }
  buf_free(&x);
}

/* A context keeps y tables by activation, parameter and dtype, a few at a time (cpu/y_lut.h):
 * one context, calls over more such keys than it keeps, differing in one of the three at a
 * time, at lengths that build a table (40000, ctest's ACTQ_Y_LUT_BUILD_ELEMENTS) and that
 * only reuse one or add to a key's count (1000), in three orders; every call's y is its
 * own activation's, as the reference's. */
Test(isa_equivalence, fewbit_y_lut_follows_the_activation) {
  static const struct {
    int act;
    float param;
    actq_dtype dt;
  } keys[] = {{FEWBIT_GELU, 0.0f, ACTQ_BF16},     {FEWBIT_SILU, 0.0f, ACTQ_BF16},
              {FEWBIT_GELU, 0.0f, ACTQ_F16},      {FEWBIT_ELU, 1.0f, ACTQ_BF16},
              {FEWBIT_ELU, 0.5f, ACTQ_BF16},      {FEWBIT_SOFTPLUS, 2.0f, ACTQ_F16},
              {FEWBIT_SOFTPLUS, 0.5f, ACTQ_F16},  {FEWBIT_TANH, 0.0f, ACTQ_BF16},
              {FEWBIT_SIGMOID, 0.0f, ACTQ_F16},   {FEWBIT_MISH, 0.0f, ACTQ_BF16},
              {FEWBIT_LEAKY_RELU, 0.2f, ACTQ_BF16}, {FEWBIT_HARDSWISH, 0.0f, ACTQ_F16},
              {FEWBIT_SILU, 0.0f, ACTQ_F16}};
  enum { NK = sizeof keys / sizeof *keys };
  fewbit_table t[NK];
  int round, s;
  rng_state = 19;
  actq_context_set_threads(cpu_ctx, 2);
  for (s = 0; s < NK; s++)
    cr_assert_eq(fewbit_table_build((fewbit_activation)keys[s].act, keys[s].param, 2, NULL, &t[s]),
                 ACTQ_OK);
  for (round = 0; round < 3; round++)
    for (s = 0; s < NK; s++) {
      const int k = round == 1 ? NK - 1 - s : round == 2 ? (s * 5) % NK : s;
      const size_t n = round == 1 ? 1000 : 40000, nb = actq_stream_bytes(n, 2);
      buf x = buf_new(2 * n), y = buf_new(2 * n), y_ref = buf_new(2 * n), c = buf_new(nb),
          c_ref = buf_new(nb);
      size_t j;
      for (j = 0; j < n; j++) {
        const float v = (rnd_unit() * 2.0f - 1.0f) * ldexpf(1.0f, (int)rnd_below(12) - 6);
        const uint16_t h = keys[k].dt == ACTQ_F16 ? actq_f32_to_f16(v) : actq_f32_to_bf16(v);
        memcpy(x.p + 2 * j, &h, 2);
      }
      cr_assert_eq(fewbit_encode(ref_ctx, &t[k], n, keys[k].dt, x.p, y_ref.p, c_ref.p), ACTQ_OK);
      cr_assert_eq(fewbit_encode(cpu_ctx, &t[k], n, keys[k].dt, x.p, y.p, c.p), ACTQ_OK);
      cr_assert(memcmp(y.raw, y_ref.raw, 2 * n + 64) == 0, "y: round %d key %d", round, k);
      cr_assert(memcmp(c.raw, c_ref.raw, nb + 64) == 0, "codes: round %d key %d", round, k);
      buf_free(&x);
      buf_free(&y);
      buf_free(&y_ref);
      buf_free(&c);
      buf_free(&c_ref);
    }
}

/* The tables a context holds (cpu/state.h) */
static int y_luts_held(actq_context *ctx) {
  const actq_cpu_state *st = actq_cpu(ctx);
  int s, held = 0;
  for (s = 0; s < ACTQ_CPU_Y_LUTS; s++) held += st->y_luts[s].t != NULL;
  return held;
}

/* When a table is built (cpu/y_lut.c): once the context has computed y for
 * ACTQ_Y_LUT_BUILD_ELEMENTS elements of its key (40000 under ctest), the building call's
 * included; calls of other keys, and encodes without y, do not count. Every call's y and
 * codes are the reference's, before the table and after. */
Test(isa_equivalence, fewbit_y_lut_built_after_enough_elements) {
  static const struct {
    int act;
    size_t n;
    int with_y, held; /* the tables held after the call */
  } steps[] = {{FEWBIT_GELU, 15000, 1, 0}, {FEWBIT_SILU, 30000, 1, 0}, {FEWBIT_GELU, 15000, 0, 0},
               {FEWBIT_GELU, 15000, 1, 0}, {FEWBIT_GELU, 10000, 1, 1}, {FEWBIT_SILU, 10000, 1, 2},
               {FEWBIT_TANH, 64000, 1, 3},  {FEWBIT_GELU, 1000, 1, 3}};
  const size_t build_n = actq_cpu_y_lut_build_env();
  const int reads = (actq_cpu(cpu_ctx)->kernels->fewbit_y_lut_dtypes >> ACTQ_BF16) & 1;
  fewbit_table t[FEWBIT_CUSTOM];
  size_t s;
  if (build_n != 40000) cr_skip_test("needs ACTQ_Y_LUT_BUILD_ELEMENTS=40000 (ctest sets it)");
  rng_state = 23;
  actq_context_set_threads(cpu_ctx, 2);
  cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0.0f, 2, NULL, &t[FEWBIT_GELU]), ACTQ_OK);
  cr_assert_eq(fewbit_table_build(FEWBIT_SILU, 0.0f, 2, NULL, &t[FEWBIT_SILU]), ACTQ_OK);
  cr_assert_eq(fewbit_table_build(FEWBIT_TANH, 0.0f, 2, NULL, &t[FEWBIT_TANH]), ACTQ_OK);
  for (s = 0; s < sizeof steps / sizeof *steps; s++) {
    const size_t n = steps[s].n, nb = actq_stream_bytes(n, 2);
    const fewbit_table *tab = &t[steps[s].act];
    buf x = buf_new(2 * n), y = buf_new(2 * n), y_ref = buf_new(2 * n), c = buf_new(nb),
        c_ref = buf_new(nb);
    size_t j;
    for (j = 0; j < n; j++) {
      const uint16_t h = actq_f32_to_bf16((rnd_unit() * 2.0f - 1.0f) * 8.0f);
      memcpy(x.p + 2 * j, &h, 2);
    }
    cr_assert_eq(fewbit_encode(ref_ctx, tab, n, ACTQ_BF16, x.p, steps[s].with_y ? y_ref.p : NULL,
                               c_ref.p),
                 ACTQ_OK);
    cr_assert_eq(fewbit_encode(cpu_ctx, tab, n, ACTQ_BF16, x.p, steps[s].with_y ? y.p : NULL, c.p),
                 ACTQ_OK);
    cr_assert(memcmp(y.raw, y_ref.raw, 2 * n + 64) == 0, "y: step %zu", s);
    cr_assert(memcmp(c.raw, c_ref.raw, nb + 64) == 0, "codes: step %zu", s);
    cr_assert_eq(y_luts_held(cpu_ctx), reads ? steps[s].held : 0, "tables held after step %zu", s);
    buf_free(&x);
    buf_free(&y);
    buf_free(&y_ref);
    buf_free(&c);
    buf_free(&c_ref);
  }
}
