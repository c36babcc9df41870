/* noise_bytechi.c - byte-frequency chi-square of a noise stream, chunk by chunk: a quick
 * check, in the spirit of dieharder's dab_bytedistrib, for counts that are too even (a
 * weakly mixed bijection of a counter leaves its outputs more equidistributed than chance)
 * as well as too uneven. For each chunk of W 32-bit words and each byte position 0..3 it
 * prints z = (chi2 - 255) / sqrt(510) (255 degrees of freedom); the last line is the mean
 * z and the combined z = sum / sqrt(count), which is N(0,1) for a good generator.
 * usage: noise_stream GEN | noise_bytechi [W (default 2^22)] [chunks (default 16)] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  const long w = argc > 1 ? atol(argv[1]) : 1L << 22;
  const int chunks = argc > 2 ? atoi(argv[2]) : 16;
  uint32_t *b = malloc((size_t)w * 4);
  double sum = 0;
  int c, p, k = 0;
  for (c = 0; c < chunks; c++) {
    if (fread(b, 4, (size_t)w, stdin) != (size_t)w) return 1;
    printf("chunk %2d:", c);
    for (p = 0; p < 4; p++) {
      long h[256] = {0}, i;
      const double e = (double)w / 256.0;
      double x = 0, z;
      for (i = 0; i < w; i++) h[(b[i] >> (8 * p)) & 255]++;
      for (i = 0; i < 256; i++) x += ((double)h[i] - e) * ((double)h[i] - e) / e;
      z = (x - 255.0) / sqrt(510.0);
      sum += z;
      k++;
      printf(" %6.2f", z);
    }
    printf("\n");
  }
  printf("mean z %.3f, combined z %.2f over %d chunk x byte values\n", sum / k, sum / sqrt(k), k);
  free(b);
  return 0;
}
