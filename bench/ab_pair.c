/* ab_pair.c - paired A/B timing of two builds of libactq in one process.
 *
 * usage: ab_pair LIB_A LIB_B N THREADS CALLS KERNEL DTYPE BITS GROUP
 *   KERNEL: q (quantize, stochastic), n (quantize, nearest), d (dequantize to DTYPE)
 *   DTYPE:  0 f32, 1 f16, 2 bf16 (the input of quantize, the output of dequantize)
 *
 * Both libraries are dlopen'ed (RTLD_LOCAL: each keeps its own symbols and contexts) and
 * called in alternation, A B B A A B ..., on the same input, so that the slow drift of a
 * shared VM (10-30% between minutes on the development VMs) falls on both alike. It
 * prints each build's median and fastest call and the quartiles of the per-pair ratio
 * time(A) / time(B) (above 1: B is faster), and checks that both wrote the same bytes.
 * Build: bench/CMakeLists.txt (target ab_pair), or
 *   cc -O2 -Iinclude bench/ab_pair.c -o ab_pair -ldl
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "actq.h"

typedef actq_status (*create_fn)(actq_backend, actq_context **);
typedef actq_status (*threads_fn)(actq_context *, int);
typedef actq_status (*quantize_fn)(actq_context *, const actq_layout *, actq_dtype, const void *,
                                   actq_rounding, uint64_t, uint64_t, void *, void *, void *);
typedef actq_status (*dequantize_fn)(actq_context *, const actq_layout *, const void *,
                                     const void *, const void *, actq_dtype, void *);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc != 10) {
    fprintf(stderr, "usage: %s LIB_A LIB_B N THREADS CALLS KERNEL(q|n|d) DTYPE BITS GROUP\n",
            argv[0]);
    return 2;
  }
  const size_t n = strtoull(argv[3], NULL, 10);
  const int threads = atoi(argv[4]), calls = atoi(argv[5]);
  const char kernel = argv[6][0];
  const actq_dtype dt = (actq_dtype)atoi(argv[7]);
  const uint32_t bits = (uint32_t)atoi(argv[8]), group = (uint32_t)atoi(argv[9]);
  const size_t es = dt == ACTQ_F32 ? 4 : 2;
  const actq_layout layout = {1, n, group, bits, NULL, ACTQ_F32};
  size_t packed_bytes = 0, groups = 0;
  void *lib[2];
  actq_context *ctx[2];
  quantize_fn quantize[2];
  dequantize_fn dequantize[2];
  uint8_t *packed[2];
  float *gmin[2], *gscale[2];
  double *t[2], *ratio;
  int i, r;

  if (calls < 1 || n == 0 || (kernel != 'q' && kernel != 'n' && kernel != 'd')) return 2;
  for (i = 0; i < 2; i++) {
    lib[i] = dlopen(argv[1 + i], RTLD_NOW | RTLD_LOCAL);
    if (!lib[i]) {
      fprintf(stderr, "dlopen: %s\n", dlerror());
      return 1;
    }
    if (((create_fn)dlsym(lib[i], "actq_context_create"))(ACTQ_BACKEND_CPU, &ctx[i]) != ACTQ_OK ||
        ((threads_fn)dlsym(lib[i], "actq_context_set_threads"))(ctx[i], threads) != ACTQ_OK)
      return 1;
    quantize[i] = (quantize_fn)dlsym(lib[i], "actq_quantize");
    dequantize[i] = (dequantize_fn)dlsym(lib[i], "actq_dequantize");
  }
  if (actq_layout_sizes(&layout, &packed_bytes, &groups) != ACTQ_OK) return 1;
  {
    uint8_t *x = aligned_alloc(64, (n * 4 + 63) / 64 * 64);
    void *y = aligned_alloc(64, (n * 4 + 63) / 64 * 64);
    size_t e;
    for (e = 0; e < n; e++) { /* a fixed pseudo-random pattern in [-0.5, 0.5) */
      const float v = (float)((e * 2654435761u) % 100003u) / 100003.0f - 0.5f;
      uint32_t u;
      memcpy(&u, &v, 4);
      if (es == 4) memcpy(x + 4 * e, &v, 4);
      else {
        /* the float's upper half: its bf16 by truncation; as f16 bits a finite value too */
        const uint16_t h = (uint16_t)(u >> 16);
        memcpy(x + 2 * e, &h, 2);
      }
    }
    for (i = 0; i < 2; i++) {
      packed[i] = calloc(packed_bytes + 64, 1);
      gmin[i] = calloc(groups, 4);
      gscale[i] = calloc(groups, 4);
      t[i] = malloc(sizeof(double) * (size_t)calls);
      /* dequantize reads a quantized stream: make it with the library under test */
      if (quantize[i](ctx[i], &layout, dt, x, ACTQ_ROUND_NEAREST, 1, 0, packed[i], gmin[i],
                      gscale[i]) != ACTQ_OK)
        return 1;
    }
    ratio = malloc(sizeof(double) * (size_t)calls);
    for (r = -2; r < calls; r++) /* two rounds of warm-up */
      for (int k = 0; k < 2; k++) {
        const int which = (r & 1) ? 1 - k : k;
        const double t0 = now();
        const actq_status s =
            kernel == 'd'
                ? dequantize[which](ctx[which], &layout, packed[which], gmin[which],
                                    gscale[which], dt, y)
                : quantize[which](ctx[which], &layout, dt, x,
                                  kernel == 'q' ? ACTQ_ROUND_STOCHASTIC : ACTQ_ROUND_NEAREST, 1, 0,
                                  packed[which], gmin[which], gscale[which]);
        const double dt1 = now() - t0;
        if (s != ACTQ_OK) {
          fprintf(stderr, "call failed: %d\n", (int)s);
          return 1;
        }
        if (r >= 0) t[which][r] = dt1;
      }
    if (memcmp(packed[0], packed[1], packed_bytes) || memcmp(gmin[0], gmin[1], groups * 4) ||
        memcmp(gscale[0], gscale[1], groups * 4)) {
      fprintf(stderr, "the two builds wrote different bytes\n");
      return 1;
    }
    free(x);
    free(y);
  }
  for (r = 0; r < calls; r++) ratio[r] = t[0][r] / t[1][r];
  qsort(ratio, (size_t)calls, sizeof(double), cmp_double);
  for (i = 0; i < 2; i++) qsort(t[i], (size_t)calls, sizeof(double), cmp_double);
  printf("%c dtype %d b%u G%u n %zu threads %d calls %d: A median %.3f ms (%.2f G elem/s), "
         "fastest %.3f | B median %.3f ms (%.2f G elem/s), fastest %.3f | A/B median %.3f "
         "[quartiles %.3f %.3f]\n",
         kernel, (int)dt, bits, group, n, threads, calls, t[0][calls / 2] * 1e3,
         (double)n / t[0][calls / 2] / 1e9, t[0][0] * 1e3, t[1][calls / 2] * 1e3,
         (double)n / t[1][calls / 2] / 1e9, t[1][0] * 1e3, ratio[calls / 2], ratio[calls / 4],
         ratio[3 * calls / 4]);
  return 0;
}
