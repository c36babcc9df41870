/* noise_stream.c - writes a generator's noise stream exactly as quantize consumes it, for
 * `dieharder -a -g 200` (raw bytes on stdin).
 *
 * The stream is the 16-bit values r16 of elements 0, 1, 2, ... (little-endian, 2 bytes per
 * element) for one (seed, offset), then the next, and so on without end: segment j has
 * seed = j / 4 + base and offset = j % 4, each NSEG elements long. Small, adjacent seeds
 * and offsets are the case where a weak key schedule would show (ABI.md asks for
 * independence between s and s + 1, o and o + 1).
 *
 * usage: noise_stream GEN [log2_segment_elements (default 24)] [seed_base (default 0)]
 *        GEN: philox10 | philox7 | mx3 | mx2 | ars5
 *        NOISE_STREAM_LIMIT_MB=N stops after N MiB (for checks; default: never). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noise_gen.h"

enum { CHUNK = 1 << 16 }; /* elements per write; a multiple of 8 */

static void fill(const char *gen, uint64_t seed, uint64_t offset, uint64_t e0, uint16_t *out) {
  size_t i;
  if (!strcmp(gen, "philox10")) {
    for (i = 0; i < CHUNK; i += 8) actq_noise_block(seed, offset, (e0 + i) >> 3, out + i);
  } else if (!strcmp(gen, "philox7")) {
    for (i = 0; i < CHUNK; i += 8) ng_philox_block(7, seed, offset, (e0 + i) >> 3, out + i);
  } else if (!strcmp(gen, "mx3") || !strcmp(gen, "mx2")) {
    ng_mx_key k = ng_mx_derive(seed, offset);
    const int two = !strcmp(gen, "mx2");
    for (i = 0; i < CHUNK; i += 2) {
      uint32_t x = two ? ng_mx2(&k, (e0 + i) >> 1) : ng_mx3(&k, (e0 + i) >> 1);
      out[i] = (uint16_t)x;
      out[i + 1] = (uint16_t)(x >> 16);
    }
#if defined(__AES__)
  } else if (!strcmp(gen, "ars5")) {
    ng_ars_key k = ng_ars_derive(seed);
    for (i = 0; i < CHUNK; i += 8)
      _mm_storeu_si128((__m128i *)(out + i), ng_ars5(&k, offset, (e0 + i) >> 3));
#endif
  } else {
    fprintf(stderr, "noise_stream: unknown generator %s\n", gen);
    exit(2);
  }
}

int main(int argc, char **argv) {
  static uint16_t buf[CHUNK];
  const char *gen = argc > 1 ? argv[1] : "philox10";
  const unsigned lg = argc > 2 ? (unsigned)atoi(argv[2]) : 24u;
  const uint64_t base = argc > 3 ? strtoull(argv[3], NULL, 0) : 0;
  const char *lim = getenv("NOISE_STREAM_LIMIT_MB");
  const uint64_t limit = lim ? strtoull(lim, NULL, 0) << 20 : 0;
  const uint64_t seg = (uint64_t)1 << (lg < 16 ? 16 : lg);
  uint64_t j, e, written = 0;
  for (j = 0;; j++) {
    const uint64_t seed = base + j / 4, offset = j % 4;
    for (e = 0; e < seg; e += CHUNK) {
      fill(gen, seed, offset, e, buf);
      /* dieharder reads the bytes as they are; the values are stored little-endian */
      if (fwrite(buf, sizeof buf, 1, stdout) != 1) return 0; /* reader closed the pipe */
      written += sizeof buf;
      if (limit && written >= limit) return 0;
    }
  }
}
