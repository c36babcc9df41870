/* demo.c - what actq does to a realistic activation: 64 MiB of GELU outputs of a normal
 * input (the tensor a transformer MLP saves for backward), quantized at every width with
 * both roundings. Prints storage per element (codes + metadata), compression against
 * fp32 and bf16, the relative error of the round trip, and throughput.
 *
 *   demo [MiB] [group_size] [backend: cpu|reference]
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <actq.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float gelu(float v) { return 0.5f * v * (1.0f + erff(v / sqrtf(2.0f))); }

/* Box-Muller over a 64-bit LCG: reproducible input without any dependency. */
static void fill_gelu_of_normal(float *x, size_t n) {
  uint64_t s = 0x9E3779B97F4A7C15ull;
  size_t i;
  for (i = 0; i < n; i += 2) {
    double u1, u2, r;
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    u1 = ((double)(s >> 11) + 1.0) * 0x1p-53;
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    u2 = (double)(s >> 11) * 0x1p-53;
    r = sqrt(-2.0 * log(u1));
    x[i] = gelu((float)(r * cos(6.283185307179586 * u2)));
    if (i + 1 < n) x[i + 1] = gelu((float)(r * sin(6.283185307179586 * u2)));
  }
}

static int check(actq_status st, const char *what) {
  if (st == ACTQ_OK) return 0;
  fprintf(stderr, "%s: %s\n", what, actq_status_string(st));
  return 1;
}

int main(int argc, char **argv) {
  const size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 64;
  const uint32_t group = argc > 2 ? (uint32_t)atol(argv[2]) : 256;
  const int reference = argc > 3 && strcmp(argv[3], "reference") == 0;
  const size_t cols = 4096, rows = mib * 1024 * 1024 / 4 / cols, n = rows * cols;
  float *x = malloc(n * 4), *y = malloc(n * 4);
  actq_context *ctx;
  double sum_x2 = 0;
  size_t i;
  uint32_t bits;
  int rnd;

  if (!x || !y || rows == 0) {
    fprintf(stderr, "demo: cannot allocate %zu MiB\n", mib);
    return 1;
  }
  if (check(actq_context_create(reference ? ACTQ_BACKEND_CPU_REFERENCE : ACTQ_BACKEND_CPU, &ctx),
            "context"))
    return 1;
  fill_gelu_of_normal(x, n);
  for (i = 0; i < n; i++) sum_x2 += (double)x[i] * x[i];

  printf("actq %d.%d.%d (format %d) on %s\n", ACTQ_VERSION_MAJOR, ACTQ_VERSION_MINOR,
         ACTQ_VERSION_PATCH, ACTQ_FORMAT_VERSION, actq_context_describe(ctx));
  printf("input: GELU(N(0,1)), %zu x %zu f32 (%zu MiB), groups of %u, f32 min/scale\n\n", rows,
         cols, n * 4 >> 20, group);
  printf("%4s  %-10s  %9s  %8s  %8s  %10s  %12s  %12s\n", "bits", "rounding", "bits/elem",
         "vs fp32", "vs bf16", "rel. error", "quant GB/s", "dequant GB/s");

  for (bits = 1; bits <= 8; bits++)
    for (rnd = 0; rnd < 2; rnd++) {
      const actq_layout lay = {rows, cols, group, bits, NULL, ACTQ_F32};
      size_t packed_bytes, groups;
      void *packed;
      float *mn, *sc;
      double t0, tq, td, err2 = 0, stored_bits;
      if (check(actq_layout_sizes(&lay, &packed_bytes, &groups), "sizes")) return 1;
      packed = malloc(packed_bytes);
      mn = malloc(groups * 4);
      sc = malloc(groups * 4);
      t0 = now();
      if (check(actq_quantize(ctx, &lay, ACTQ_F32, x, (actq_rounding)rnd, 42, 0, packed, mn, sc),
                "quantize"))
        return 1;
      tq = now() - t0;
      t0 = now();
      if (check(actq_dequantize(ctx, &lay, packed, mn, sc, ACTQ_F32, y), "dequantize")) return 1;
      td = now() - t0;
      for (i = 0; i < n; i++) err2 += ((double)y[i] - x[i]) * ((double)y[i] - x[i]);
      stored_bits = 8.0 * (double)(packed_bytes + 2 * groups * 4) / (double)n;
      printf("%4u  %-10s  %9.3f  %7.1fx  %7.1fx  %10.2e  %12.2f  %12.2f\n", bits,
             rnd == ACTQ_ROUND_STOCHASTIC ? "stochastic" : "nearest", stored_bits,
             32.0 / stored_bits, 16.0 / stored_bits, sqrt(err2 / sum_x2),
             (double)(n * 4 + packed_bytes) / tq * 1e-9, (double)(n * 4 + packed_bytes) / td * 1e-9);
      free(packed);
      free(mn);
      free(sc);
    }
  printf("\nrel. error = ||dequant(quant(x)) - x|| / ||x||; GB/s counts f32 in + packed out "
         "(quantize), packed in + f32 out (dequantize); metadata bytes excluded.\n");
  actq_context_destroy(ctx);
  free(x);
  free(y);
  return 0;
}
