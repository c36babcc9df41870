/* stream_copy.c - what streaming stores are worth on this machine, without any kernel:
 * 256 MiB read and written by one thread, ordinary 32-byte stores against the 16-byte
 * streaming stores the library uses (cpu/stream.h), alternated six times so that a drift
 * of the machine's speed shows as such. Build and run:
 *   cc -O2 -mavx2 bench/floor/stream_copy.c -o stream_copy && ./stream_copy */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void plain(const char *in, char *out, size_t n) {
  size_t i;
  for (i = 0; i < n; i += 32) {
    __m256i v = _mm256_load_si256((const __m256i *)(in + i));
    _mm256_store_si256((__m256i *)(out + i), _mm256_add_epi8(v, v));
  }
}

static void streamed(const char *in, char *out, size_t n) {
  size_t i;
  for (i = 0; i < n; i += 32) {
    __m256i v = _mm256_load_si256((const __m256i *)(in + i));
    v = _mm256_add_epi8(v, v);
    _mm_stream_si128((__m128i *)(out + i), _mm256_castsi256_si128(v));
    _mm_stream_si128((__m128i *)(out + i + 16), _mm256_extracti128_si256(v, 1));
  }
  _mm_sfence();
}

int main(void) {
  const size_t n = (size_t)256 << 20;
  char *in = aligned_alloc(64, n), *out = aligned_alloc(64, n);
  int r;
  if (!in || !out) return 1;
  memset(in, 1, n);
  memset(out, 2, n);
  for (r = 0; r < 6; r++) {
    double t0 = now(), t1, t2;
    plain(in, out, n);
    t1 = now();
    streamed(in, out, n);
    t2 = now();
    printf("ordinary stores %6.1f ms   streaming stores %6.1f ms   ratio %.2f\n", (t1 - t0) * 1e3,
           (t2 - t1) * 1e3, (t2 - t1) / (t1 - t0));
  }
  free(in);
  free(out);
  return 0;
}
