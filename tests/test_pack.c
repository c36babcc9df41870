/* test_pack.c - actq_pack / actq_unpack against the bit-level definition of the stream:
 * code c occupies bits [c*b, c*b+b), bit k of the stream is bit k%8 of byte k/8, unused
 * high bits of the last byte are zero. Outputs end at a guard page. */
#include <criterion/criterion.h>
#include <string.h>

#include "actq.h"
#include "support/guard.h"
#include "support/tensor.h"

static void naive_pack(uint32_t bits, size_t n, const uint8_t *codes, uint8_t *out) {
  size_t c, k, nbytes = (n * bits + 7) / 8;
  memset(out, 0, nbytes);
  for (c = 0; c < n; c++)
    for (k = 0; k < bits; k++)
      if ((codes[c] >> k) & 1) {
        size_t bit = c * bits + k;
        out[bit / 8] |= (uint8_t)(1u << (bit % 8));
      }
}

static void check_case(actq_backend be, uint32_t bits, size_t n, uint64_t seed, size_t mis) {
  actq_context *ctx;
  const size_t nbytes = (n * bits + 7) / 8;
  uint8_t *codes = (uint8_t *)guard_alloc(n + mis) + mis;
  uint8_t *back = (uint8_t *)guard_alloc(n + mis) + mis;
  uint8_t *packed = (uint8_t *)guard_alloc(nbytes + mis) + mis;
  uint8_t *want = guard_alloc(nbytes);
  size_t i;
  uint64_t st = seed;
  cr_assert_eq(actq_context_create(be, &ctx), ACTQ_OK);
  for (i = 0; i < n; i++) codes[i] = (uint8_t)(test_rand_u64(&st) & ((1u << bits) - 1u));
  naive_pack(bits, n, codes, want);
  memset(packed, 0xa5, nbytes); /* stale bytes must be overwritten, high bits zeroed */
  cr_assert_eq(actq_pack(ctx, bits, n, codes, packed), ACTQ_OK);
  cr_assert(memcmp(packed, want, nbytes) == 0, "pack: backend %d bits %u n %zu", be, bits, n);
  memset(back, 0xff, n);
  cr_assert_eq(actq_unpack(ctx, bits, n, packed, back), ACTQ_OK);
  cr_assert(memcmp(back, codes, n) == 0, "unpack: backend %d bits %u n %zu", be, bits, n);
  guard_free(codes - mis);
  guard_free(back - mis);
  guard_free(packed - mis);
  guard_free(want);
  actq_context_destroy(ctx);
}

Test(pack, matches_bit_definition_all_widths_odd_sizes) {
  static const size_t sizes[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 255, 257, 1000,
                                 4097, 100003, 300001};
  int b;
  uint32_t bits;
  size_t i;
  for (b = 0; b < TEST_CPU_BACKENDS; b++)
    for (bits = 1; bits <= 8; bits++)
      for (i = 0; i < sizeof sizes / sizeof *sizes; i++)
        check_case(test_cpu_backends[b], bits, sizes[i], bits * 1000 + i, i % 5);
}

Test(pack, known_bytes) {
  /* 3-bit codes 1..7,0 then 5: bits 001 010 011 100 101 110 111 000 | 101 */
  const uint8_t codes[9] = {1, 2, 3, 4, 5, 6, 7, 0, 5};
  uint8_t out[4];
  actq_context *ctx;
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ctx), ACTQ_OK);
  cr_assert_eq(actq_pack(ctx, 3, 9, codes, out), ACTQ_OK);
  cr_assert_eq(out[0], 0xd1); /* 1 | 2<<3 | (3&3)<<6 = 0b11010001 */
  cr_assert_eq(out[1], 0x58); /* 3>>2 | 4<<1 | 5<<4 | (6&1)<<7 = 0b01011000 */
  cr_assert_eq(out[2], 0x1f); /* 6>>1 | 7<<2 | 0<<5 = 0b00011111 */
  cr_assert_eq(out[3], 0x05); /* 5, unused high bits zero */
  actq_context_destroy(ctx);
}

Test(pack, out_of_range_code_is_invalid_and_contained) {
  int b;
  for (b = 0; b < TEST_CPU_BACKENDS; b++) {
    actq_context *ctx;
    uint32_t bits;
    cr_assert_eq(actq_context_create(test_cpu_backends[b], &ctx), ACTQ_OK);
    for (bits = 1; bits <= 7; bits++) {
      const size_t n = 37, nbytes = (n * bits + 7) / 8;
      uint8_t *codes = guard_alloc(n), *packed = guard_alloc(nbytes);
      memset(codes, 0, n);
      codes[20] = (uint8_t)(1u << bits);
      cr_assert_eq(actq_pack(ctx, bits, n, codes, packed), ACTQ_ERR_INVALID_ARGUMENT,
                   "bits %u", bits);
      codes[20] = 0;
      codes[n - 1] = 0xff;
      cr_assert_eq(actq_pack(ctx, bits, n, codes, packed), ACTQ_ERR_INVALID_ARGUMENT);
      guard_free(codes);
      guard_free(packed);
    }
    actq_context_destroy(ctx);
  }
}
