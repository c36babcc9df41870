/* pack_avx2.c - actq_pack / actq_unpack for one row of byte codes, 32 codes at a time.
 *
 * Each loop is compiled once per width (the width's constants fold into the shuffles).
 * Out-of-range codes are found by OR-ing every input byte together and testing the high
 * bits once at the end; the vector paths mask each code before packing, so an invalid code
 * never spills into its neighbours (as the reference). The last < 32 codes run the
 * reference kernel (the same bytes by construction). */
#include <immintrin.h>

#include "cpu/avx2/avx2.h"
#include "cpu/avx2/bits_avx2.h"
#include "cpu/prefetch.h"
#include "cpu/ref/ref.h"

static inline __attribute__((always_inline)) int pack_t(uint32_t bits, size_t n,
                                                        const uint8_t *codes, uint8_t *out) {
  const __m256i mask = _mm256_set1_epi8((char)((1u << bits) - 1u));
  const uint8_t *out_end = out + actq_stream_bytes(n, bits);
  __m256i any = _mm256_setzero_si256();
  size_t i = 0;
  if (bits == 1) {
    /* bit 0 of each code to the byte's sign bit, then one movemask per 32 codes */
    for (; i + 64 <= n; i += 64) {
      __m256i a = _mm256_loadu_si256((const __m256i *)(codes + i));
      __m256i b = _mm256_loadu_si256((const __m256i *)(codes + i + 32));
      uint64_t w;
      if ((i & 127) == 0 && i + ACTQ_PREFETCH_BYTES < n)
        _mm_prefetch((const char *)codes + i + ACTQ_PREFETCH_BYTES, _MM_HINT_T0);
      any = _mm256_or_si256(any, _mm256_or_si256(a, b));
      w = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(a, 7)) |
          (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(b, 7)) << 32;
      memcpy(out, &w, 8);
      out += 8;
    }
    for (; i + 32 <= n; i += 32) {
      __m256i a = _mm256_loadu_si256((const __m256i *)(codes + i));
      uint32_t w = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(a, 7));
      any = _mm256_or_si256(any, a);
      memcpy(out, &w, 4);
      out += 4;
    }
  } else {
    for (; i + 32 <= n; i += 32) {
      __m256i v = _mm256_loadu_si256((const __m256i *)(codes + i));
      if ((i & 63) == 0 && i + ACTQ_PREFETCH_BYTES < n)
        _mm_prefetch((const char *)codes + i + ACTQ_PREFETCH_BYTES, _MM_HINT_T0);
      any = _mm256_or_si256(any, v);
      actq_avx2_store_pack32(out, actq_avx2_pack32(_mm256_and_si256(v, mask), bits), bits,
                             4 * bits, (size_t)(out_end - out));
      out += 4 * bits;
    }
  }
  any = _mm256_andnot_si256(mask, any);
  return (!_mm256_testz_si256(any, any)) |
         (i < n ? actq_ref_pack(bits, n - i, codes + i, out) : 0);
}

int actq_avx2_pack(uint32_t bits, size_t n, const uint8_t *codes, uint8_t *out) {
  switch (bits) {
  case 1: return pack_t(1, n, codes, out);
  case 2: return pack_t(2, n, codes, out);
  case 3: return pack_t(3, n, codes, out);
  case 4: return pack_t(4, n, codes, out);
  case 5: return pack_t(5, n, codes, out);
  case 6: return pack_t(6, n, codes, out);
  case 7: return pack_t(7, n, codes, out);
  default: return pack_t(8, n, codes, out);
  }
}

static inline __attribute__((always_inline)) void unpack_t(uint32_t bits, size_t n,
                                                           const uint8_t *in, uint8_t *codes) {
  const uint8_t *in_end = in + actq_stream_bytes(n, bits);
  const size_t reach = actq_avx2_unpack32_reach(bits);
  size_t i = 0;
  /* the main loop reads up to `reach` bytes per 32 codes; its last blocks, and a row
   * shorter than that, go through a zero-padded copy so that nothing past in_end is read */
  for (; i + 32 <= n && (size_t)(in_end - in) >= reach; i += 32) {
    if ((i & 63) == 0 && in + ACTQ_PREFETCH_BYTES < in_end)
      _mm_prefetch((const char *)in + ACTQ_PREFETCH_BYTES, _MM_HINT_T0);
    _mm256_storeu_si256((__m256i *)(codes + i), actq_avx2_unpack32_bytes(in, bits));
    in += 4 * bits;
  }
  for (; i + 32 <= n; i += 32) {
    uint8_t tmp[64] = {0};
    memcpy(tmp, in, 4 * bits);
    _mm256_storeu_si256((__m256i *)(codes + i), actq_avx2_unpack32_bytes(tmp, bits));
    in += 4 * bits;
  }
  if (i < n) actq_ref_unpack(bits, n - i, in, codes + i);
}

void actq_avx2_unpack(uint32_t bits, size_t n, const uint8_t *in, uint8_t *codes) {
  switch (bits) {
  case 1: unpack_t(1, n, in, codes); break;
  case 2: unpack_t(2, n, in, codes); break;
  case 3: unpack_t(3, n, in, codes); break;
  case 4: unpack_t(4, n, in, codes); break;
  case 5: unpack_t(5, n, in, codes); break;
  case 6: unpack_t(6, n, in, codes); break;
  case 7: unpack_t(7, n, in, codes); break;
  default: unpack_t(8, n, in, codes); break;
  }
}
