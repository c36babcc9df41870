/* pack_avx2.c - actq_pack / actq_unpack for one row of byte codes, 32 codes at a time.
 * The last < 32 codes run the reference kernel (the same bytes by construction). */
#include <immintrin.h>

#include "cpu/avx2/avx2.h"
#include "cpu/avx2/bits_avx2.h"
#include "cpu/prefetch.h"
#include "cpu/ref/ref.h"

int actq_avx2_pack(uint32_t bits, size_t n, const uint8_t *codes, uint8_t *out) {
  const __m256i mask = _mm256_set1_epi8((char)((1u << bits) - 1u));
  const uint8_t *out_end = out + actq_stream_bytes(n, bits);
  __m256i over = _mm256_setzero_si256();
  size_t i;
  for (i = 0; i + 32 <= n; i += 32) {
    __m256i v = _mm256_loadu_si256((const __m256i *)(codes + i));
    if ((i & 63) == 0 && i + ACTQ_PREFETCH_BYTES < n)
      _mm_prefetch((const char *)codes + i + ACTQ_PREFETCH_BYTES, _MM_HINT_T0);
    over = _mm256_or_si256(over, _mm256_andnot_si256(mask, v));
    /* masked, so that an invalid code cannot spill into its neighbours */
    actq_avx2_store_pack32(out, actq_avx2_pack32(_mm256_and_si256(v, mask), bits), bits,
                           4 * bits, (size_t)(out_end - out));
    out += 4 * bits;
  }
  return (!_mm256_testz_si256(over, over)) | (i < n ? actq_ref_pack(bits, n - i, codes + i, out) : 0);
}

void actq_avx2_unpack(uint32_t bits, size_t n, const uint8_t *in, uint8_t *codes) {
  const uint8_t *in_end = in + actq_stream_bytes(n, bits);
  size_t i;
  for (i = 0; i + 32 <= n; i += 32) {
    __m256i a;
    if (in + ACTQ_PREFETCH_BYTES < in_end) _mm_prefetch((const char *)in + ACTQ_PREFETCH_BYTES, _MM_HINT_T0);
    a = actq_avx2_unpack_unit(in, bits, in + 8 <= in_end);
    __m256i b = actq_avx2_unpack_unit(in + bits, bits, in + bits + 8 <= in_end);
    __m256i c = actq_avx2_unpack_unit(in + 2 * bits, bits, in + 2 * bits + 8 <= in_end);
    __m256i d = actq_avx2_unpack_unit(in + 3 * bits, bits, in + 3 * bits + 8 <= in_end);
    _mm256_storeu_si256((__m256i *)(codes + i), actq_avx2_codes_to_bytes(a, b, c, d));
    in += 4 * bits;
  }
  if (i < n) actq_ref_unpack(bits, n - i, in, codes + i);
}
