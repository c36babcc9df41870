/* fuzz_pack.c - libFuzzer harness for actq_pack and actq_unpack.
 *
 * Widths 0..9 (0 and 9 invalid), n up to 4000, codes straight from the input (masked to
 * the width, except where the input asks for out-of-range codes), NULL pointers on
 * request. Contract checked on every context (reference, every ISA path, 1-3 threads):
 * the status is the documented one, the bytes equal an independent bit-by-bit packer and
 * the reference, nothing is written outside ceil(n*bits/8) bytes (guard page after, canary
 * before), a failed call leaves the codes it could not pack within that range only, and
 * unpack(pack(c)) == c.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_support.h"

/* The packed format spelled out bit by bit (docs/format.md): bit k of the stream is bit
 * k % 8 of byte k / 8, element c at bits [c*b, c*b + b). */
static void oracle_pack(uint32_t bits, size_t n, const uint8_t *codes, uint8_t *out) {
  size_t c, k;
  memset(out, 0, (n * bits + 7) / 8);
  for (c = 0; c < n; c++)
    for (k = 0; k < bits; k++)
      if (codes[c] >> k & 1) out[(c * bits + k) / 8] |= (uint8_t)(1u << ((c * bits + k) % 8));
}

static uint8_t oracle_code(uint32_t bits, const uint8_t *packed, size_t c) {
  uint8_t v = 0;
  size_t k;
  for (k = 0; k < bits; k++)
    v |= (uint8_t)((packed[(c * bits + k) / 8] >> ((c * bits + k) % 8) & 1) << k);
  return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_input in = {data, size};
  const fz_context *ctxs;
  const int nctx = fz_contexts(&ctxs);
  const uint8_t flags = fz_u8(&in);
  const uint32_t bits = (flags & 0x80) ? fz_u8(&in) % 10u : 1u + fz_u8(&in) % 8u;
  const size_t n = fz_below(&in, 4001);
  const int bits_ok = bits >= 1 && bits <= 8;
  const size_t bytes = bits_ok ? (n * bits + 7) / 8 : 64;
  const uint8_t mask = bits_ok ? (uint8_t)((1u << bits) - 1u) : 0xff;
  uint8_t *codes = malloc(n + 1), *expect = malloc(bytes + 1), *raw = malloc(bytes + 1);
  int any_bad = 0, null_case = (flags & 0x40) ? (int)fz_u8(&in) % 4 : 0, i;
  unsigned pack_allowed, unpack_allowed;
  size_t c;
  fz_buf codes_in, packed_in, ref_packed = {0}, ref_codes = {0};

  /* codes: the input's bytes; out-of-range ones only where asked for */
  for (c = 0; c < n; c++) {
    uint8_t v = fz_u8(&in);
    codes[c] = (flags & 0x20) ? v : (uint8_t)(v & mask);
    any_bad |= codes[c] > mask;
  }
  /* an arbitrary packed stream for unpack */
  for (c = 0; c < bytes; c++) raw[c] = fz_u8(&in);

  if (!bits_ok) pack_allowed = unpack_allowed = FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
  else if (n == 0) pack_allowed = unpack_allowed = FZ_ST(ACTQ_OK);
  else if (null_case) pack_allowed = unpack_allowed = FZ_ST(ACTQ_ERR_INVALID_ARGUMENT);
  else {
    pack_allowed = any_bad ? FZ_ST(ACTQ_ERR_INVALID_ARGUMENT) : FZ_ST(ACTQ_OK);
    unpack_allowed = FZ_ST(ACTQ_OK);
  }
  codes_in = fz_buf_copy(codes, n);
  packed_in = fz_buf_copy(raw, bytes);
  if (bits_ok && !any_bad) oracle_pack(bits, n, codes, expect);

  for (i = 0; i < nctx; i++) {
    fz_buf packed = fz_buf_new(bytes, 0x5a), out = fz_buf_new(n, 0x5a);
    const void *cin = null_case == 1 ? NULL : codes_in.p;
    void *pout = null_case == 2 ? NULL : packed.p;
    actq_status st;
    if (null_case == 3) { /* a NULL context */
      fz_expect_status(actq_pack(NULL, bits, n, codes_in.p, packed.p),
                       FZ_ST(ACTQ_ERR_INVALID_ARGUMENT), "actq_pack(NULL ctx)");
      fz_expect_status(actq_unpack(NULL, bits, n, packed_in.p, out.p),
                       FZ_ST(ACTQ_ERR_INVALID_ARGUMENT), "actq_unpack(NULL ctx)");
      fz_buf_untouched(&packed, 0x5a, "pack(NULL ctx)");
      fz_buf_untouched(&out, 0x5a, "unpack(NULL ctx)");
      fz_buf_free(&packed);
      fz_buf_free(&out);
      continue;
    }
    st = actq_pack(ctxs[i].ctx, bits, n, cin, pout);
    fz_expect_status(st, pack_allowed, "actq_pack");
    fz_buf_check(&packed, "actq_pack");
    if (st == ACTQ_OK && n) {
      fz_expect_same(expect, packed.p, bytes, "actq_pack vs the bit-by-bit packer", ctxs[i].name);
    } else if (!(bits_ok && n && !null_case)) {
      fz_buf_untouched(&packed, 0x5a, "actq_pack (rejected)");
    }

    st = actq_unpack(ctxs[i].ctx, bits, n, null_case == 2 ? NULL : packed_in.p,
                     null_case == 1 ? NULL : out.p);
    fz_expect_status(st, unpack_allowed, "actq_unpack");
    fz_buf_check(&out, "actq_unpack");
    if (st == ACTQ_OK && n) {
      for (c = 0; c < n; c++)
        FZ_CHECK(out.p[c] == oracle_code(bits, raw, c),
                 "actq_unpack on %s: code %zu is %u, the stream holds %u", ctxs[i].name, c,
                 out.p[c], oracle_code(bits, raw, c));
      if (i == 0) ref_codes = fz_buf_copy(out.p, n);
      else fz_expect_same(ref_codes.p, out.p, n, "actq_unpack", ctxs[i].name);
      /* unpack(pack(codes)) == codes */
      if (!any_bad) {
        fz_buf rt = fz_buf_new(n, 0);
        FZ_CHECK(actq_unpack(ctxs[i].ctx, bits, n, packed.p, rt.p) == ACTQ_OK, "unpack failed");
        fz_expect_same(codes, rt.p, n, "unpack(pack(codes))", ctxs[i].name);
        fz_buf_free(&rt);
      }
    } else {
      fz_buf_untouched(&out, 0x5a, "actq_unpack (rejected)");
    }
    if (i == 0) ref_packed = fz_buf_copy(packed.p, bytes);
    fz_buf_free(&packed);
    fz_buf_free(&out);
  }
  fz_buf_free(&ref_packed);
  fz_buf_free(&ref_codes);
  fz_buf_free(&codes_in);
  fz_buf_free(&packed_in);
  free(codes);
  free(expect);
  free(raw);
  return 0;
}
