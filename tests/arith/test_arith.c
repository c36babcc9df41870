/* test_arith.c - the shared inline arithmetic (src/arith) on its own: float16/bfloat16
 * conversions against F16C and an independent implementation, directed rounding,
 * Philox4x32-10 against the published known-answer vectors of Random123, and the biased
 * codes and their packer against the plain ones. */
#include <criterion/criterion.h>
#include <immintrin.h>
#include <math.h>

#include "src/arith/bitstream.h"
#include "src/arith/half.h"
#include "src/arith/philox.h"
#include "src/arith/quant.h"
#include "support/tensor.h"

__attribute__((target("f16c"))) static uint16_t hw_f32_to_f16(float f) {
  return (uint16_t)_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
}
__attribute__((target("f16c"))) static float hw_f16_to_f32(uint16_t h) { return _cvtsh_ss(h); }

Test(half, f16_to_f32_all_patterns) {
  uint32_t h;
  int hw = __builtin_cpu_supports("f16c");
  for (h = 0; h < 65536; h++) {
    float got = actq_f16_to_f32((uint16_t)h);
    float want = test_load(&h, ACTQ_F16, 0);
    if (isnan(want)) {
      cr_assert(isnan(got), "pattern %04x", h);
    } else {
      cr_assert(got == want && signbit(got) == signbit(want), "pattern %04x: %a vs %a", h,
                got, want);
    }
    if (hw) {
      float hwv = hw_f16_to_f32((uint16_t)h);
      cr_assert_eq(actq_f32_bits(got), actq_f32_bits(hwv), "pattern %04x", h);
    }
  }
}

static void check_f32_to_16(uint32_t bits, int hw) {
  float f = actq_f32_from_bits(bits);
  uint16_t got = actq_f32_to_f16(f), gotb = actq_f32_to_bf16(f);
  uint16_t want, wantb;
  test_store(&want, ACTQ_F16, 0, f);
  test_store(&wantb, ACTQ_BF16, 0, f);
  if (isnan(f)) {
    cr_assert((got & 0x7c00) == 0x7c00 && (got & 0x3ff) != 0, "%08x", bits);
    cr_assert((gotb & 0x7f80) == 0x7f80 && (gotb & 0x7f) != 0, "%08x", bits);
  } else {
    cr_assert_eq(got, want, "f16 of %08x (%a): %04x vs %04x", bits, f, got, want);
    cr_assert_eq(gotb, wantb, "bf16 of %08x (%a): %04x vs %04x", bits, f, gotb, wantb);
  }
  if (hw) cr_assert_eq(got, hw_f32_to_f16(f), "f16c of %08x", bits);
}

Test(half, f32_to_f16_bf16_round_to_nearest_even) {
  int hw = __builtin_cpu_supports("f16c");
  uint64_t st = 1;
  uint32_t e, m;
  /* every exponent with mantissas around all rounding points, then random patterns */
  for (e = 0; e < 256; e++)
    for (m = 0; m < 0x800000; m += 0x1fff) {
      check_f32_to_16((e << 23) | m, hw);
      check_f32_to_16(0x80000000u | (e << 23) | m, hw);
      check_f32_to_16((e << 23) | (m & ~0x1fffu) | 0x1000u, hw); /* f16 ties */
      check_f32_to_16((e << 23) | (m & ~0xffffu) | 0x8000u, hw); /* bf16 ties */
    }
  for (m = 0; m < 1u << 22; m++) check_f32_to_16((uint32_t)test_rand_u64(&st), hw);
}

Test(half, directed_rounding_brackets_the_value) {
  uint64_t st = 7;
  int i, t;
  for (i = 0; i < 200000; i++) {
    double d = ldexp(test_rand_normal(&st), (int)(test_rand_u64(&st) % 300) - 150);
    for (t = 0; t < 3; t++) {
      float dn, up;
      if (t == 0) {
        dn = actq_f32_round_down(d);
        up = actq_f32_round_up(d);
      } else {
        dn = actq_h16_round_dir(d, -1, (actq_dtype)t);
        up = actq_h16_round_dir(d, +1, (actq_dtype)t);
      }
      cr_assert((double)dn <= d && (double)up >= d, "d=%a t=%d dn=%a up=%a", d, t, dn, up);
      /* tight: nothing of the format lies strictly between, i.e. one step apart or equal */
      if ((double)dn != d) {
        float step = t == 0 ? actq_f32_step(dn, +1)
                            : (t == 1 ? actq_f16_to_f32(actq_h16_step(actq_f32_to_f16(dn), 1, 0x7c00))
                                      : actq_bf16_to_f32(actq_h16_step(actq_f32_to_bf16(dn), 1, 0x7f80)));
        cr_assert_eq(actq_f32_bits(step), actq_f32_bits(up), "d=%a t=%d", d, t);
      }
    }
  }
  cr_assert(isinf(actq_h16_round_dir(-70000.0, -1, ACTQ_F16)));
  cr_assert_eq(actq_h16_round_dir(-70000.0, +1, ACTQ_F16), -65504.0f);
  cr_assert(isinf(actq_h16_round_dir(65505.0, +1, ACTQ_F16)));
  cr_assert(isinf(actq_f32_round_up(0x1.fffffffp127)));
  cr_assert_eq(actq_f32_round_down(0x1.fffffffp127), ACTQ_FLT_MAX);
}

Test(philox, random123_known_answers) {
  static const uint32_t kat[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
      {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
       0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
       0x94fdcceb, 0x5001e420, 0x24126ea1},
  };
  int i, j;
  for (i = 0; i < 3; i++) {
    uint32_t out[4];
    actq_philox4x32_10(kat[i], kat[i] + 4, out);
    for (j = 0; j < 4; j++) cr_assert_eq(out[j], kat[i][6 + j], "vector %d word %d", i, j);
  }
}

Test(philox, noise_mapping) {
  /* block/lane layout of docs/format.md: counter {block lo, block hi, offset lo, hi} */
  uint32_t ctr[4] = {0x89abcdefu, 0x1234567u, 0xdeadbeefu, 0x0badf00du};
  uint32_t key[2] = {0x55555555u, 0xaaaaaaaau}, out[4];
  uint16_t r16[8];
  actq_noise_cursor nc;
  int i;
  actq_philox4x32_10(ctr, key, out);
  actq_noise_block(0xaaaaaaaa55555555ull, 0x0badf00ddeadbeefull, 0x0123456789abcdefull, r16);
  for (i = 0; i < 8; i++) cr_assert_eq(r16[i], (uint16_t)(out[i / 2] >> (16 * (i % 2))));
  actq_noise_cursor_init(&nc, 0xaaaaaaaa55555555ull, 0x0badf00ddeadbeefull);
  for (i = 0; i < 8; i++)
    cr_assert_eq(actq_noise_at(&nc, 0x0123456789abcdefull * 8 + (uint64_t)i), r16[i]);
  cr_assert_eq(actq_noise_u(0), 1.0f / 131072.0f);
  cr_assert_eq(actq_noise_u(65535), 1.0f - 1.0f / 131072.0f);
}

/* The bit construction of actq_noise_u is the value r16 * 2^-16 + 2^-17 for every r16,
 * and the noise block from precomputed round keys is the block from the seed. */
/* Round 0 split into a call's terms and a block's: the same words as the whole generator,
 * for blocks and offsets with every word nonzero, zero and all ones. */
Test(philox, noise_words_from_round0_terms) {
  static const uint64_t special[] = {0, 1, 0xffffffffull, 0x100000000ull, ~0ull};
  uint64_t state = 0x0123456789abcdefull;
  uint32_t rk[20], t[3], a[4], b[4];
  int i, j;
  for (i = 0; i < 4000; i++) {
    uint64_t seed, offset, block;
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    seed = state ^ (state >> 29);
    offset = i < 25 ? special[i % 5] : seed * 0x9e3779b97f4a7c15ull;
    block = i < 25 ? special[i / 5] : (seed >> 7) * (i % 3 ? 1u : 0x100000001ull);
    actq_noise_round_keys(seed, rk);
    actq_noise_round0_terms(rk, offset, t);
    actq_noise_words_rk(rk, offset, block, a);
    actq_noise_words_r0(rk, t, block, b);
    for (j = 0; j < 4; j++) cr_assert_eq(a[j], b[j], "case %d word %d", i, j);
  }
}

Test(philox, noise_u_every_value_and_round_keys) {
  uint32_t r, rk[20];
  uint16_t a[8], b[8];
  int i;
  for (r = 0; r < 65536; r++)
    cr_assert_eq(actq_noise_u((uint16_t)r), (float)((double)r / 65536.0 + 1.0 / 131072.0),
                 "r16 = %u", r);
  actq_noise_round_keys(0xfedcba9876543210ull, rk);
  for (r = 0; r < 1000; r++) {
    const uint64_t block = (uint64_t)r * 0x9e3779b97f4a7c15ull;
    actq_noise_block(0xfedcba9876543210ull, 0x1122334455667788ull, block, a);
    actq_noise_block_rk(rk, 0x1122334455667788ull, block, b);
    for (i = 0; i < 8; i++) cr_assert_eq(a[i], b[i], "block %u lane %d", r, i);
  }
}

/* actq_code_*_biased equal actq_code_*_t plus the bias, clamp included, over quotients
 * around every level, at midpoints and a hair above L; actq_pack_word_biased equals
 * actq_pack_word at the widths it takes, codes up to 2^bits - 1 in every position. */
Test(codes, biased_codes_and_packer_equal_the_plain_ones) {
  static const uint32_t widths[] = {1, 2, 4, 8};
  uint64_t state = 0x9e3779b97f4a7c15ull;
  size_t w, i, j;
  for (w = 0; w < 4; w++) {
    const uint32_t bits = widths[w];
    const float levels = (float)((1u << bits) - 1u);
    const uint32_t lb = actq_f32_bits(levels + 8388608.0f);
    cr_assert(actq_pack_biased_width(bits));
    for (i = 0; i < 20000; i++) {
      uint32_t codes[8], biased[8];
      /* t in [0, L + 1), denser near integers and midpoints */
      const float t = (float)(i % (2u * (1u << bits))) * 0.5f +
                      (i & 1 ? 0.0f : (float)((i / 7) % 5) * 0x1p-20f);
      const float u = actq_noise_u((uint16_t)(i * 2654435761u >> 16));
      cr_assert_eq(actq_code_stochastic_biased(t, u, lb) - ACTQ_CODE_BIAS,
                   actq_code_stochastic_t(t, u, levels), "bits %u t %a u %a", bits, t, u);
      cr_assert_eq(actq_code_nearest_biased(t, lb) - ACTQ_CODE_BIAS,
                   actq_code_nearest_t(t, levels), "bits %u t %a", bits, t);
      for (j = 0; j < 8; j++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        codes[j] = (uint32_t)(state >> 33) & ((1u << bits) - 1u);
        if (i % 3 == 0) codes[j] = (1u << bits) - 1u; /* every code at its largest */
        biased[j] = ACTQ_CODE_BIAS + codes[j];
      }
      cr_assert_eq(actq_pack_word_biased(biased, bits), actq_pack_word(codes, 8, bits),
                   "bits %u case %zu", bits, i);
    }
  }
  cr_assert(!actq_pack_biased_width(3) && !actq_pack_biased_width(5) &&
            !actq_pack_biased_width(6) && !actq_pack_biased_width(7));
}
