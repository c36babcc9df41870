/* ab_pair.c - paired A/B timing of two builds of libactq in one process.
 *
 * usage: ab_pair LIB_A LIB_B N THREADS CALLS KERNEL DTYPE BITS GROUP
 *   KERNEL: q (quantize, stochastic), n (quantize, nearest), d (dequantize to DTYPE),
 *           c (fewbit_encode, GELU codes only), y (fewbit_encode with y),
 *           b (fewbit_backward); the few-bit kernels take BITS as the table's width and
 *           ignore GROUP
 *   DTYPE:  0 f32, 1 f16, 2 bf16 (the input of quantize, the output of dequantize, the
 *           few-bit kernels' x, y, grad_out and grad_in)
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
#include "fewbit.h"

typedef actq_status (*create_fn)(actq_backend, actq_context **);
typedef actq_status (*threads_fn)(actq_context *, int);
typedef actq_status (*quantize_fn)(actq_context *, const actq_layout *, actq_dtype, const void *,
                                   actq_rounding, uint64_t, uint64_t, void *, void *, void *);
typedef actq_status (*dequantize_fn)(actq_context *, const actq_layout *, const void *,
                                     const void *, const void *, actq_dtype, void *);
typedef actq_status (*table_fn)(fewbit_activation, float, uint32_t, const fewbit_options *,
                                fewbit_table *);
typedef actq_status (*encode_fn)(actq_context *, const fewbit_table *, size_t, actq_dtype,
                                 const void *, void *, void *);
typedef actq_status (*backward_fn)(actq_context *, const fewbit_table *, size_t, const void *,
                                   actq_dtype, const void *, void *);

static int is_fewbit(char kernel) { return kernel == 'c' || kernel == 'y' || kernel == 'b'; }

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
    fprintf(stderr, "usage: %s LIB_A LIB_B N THREADS CALLS KERNEL(q|n|d|c|y|b) DTYPE BITS GROUP\n",
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
  encode_fn encode[2];
  backward_fn backward[2];
  fewbit_table table;
  uint8_t *packed[2];
  float *gmin[2], *gscale[2];
  double *t[2], *ratio;
  int i, r;

  if (calls < 1 || n == 0 || (kernel != 'q' && kernel != 'n' && kernel != 'd' && !is_fewbit(kernel)))
    return 2;
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
    encode[i] = (encode_fn)dlsym(lib[i], "fewbit_encode");
    backward[i] = (backward_fn)dlsym(lib[i], "fewbit_backward");
  }
  if (is_fewbit(kernel) &&
      ((table_fn)dlsym(lib[0], "fewbit_table_build"))(FEWBIT_GELU, 0.0f, bits, NULL, &table) !=
          ACTQ_OK)
    return 1;
  if (is_fewbit(kernel)) { /* the outputs compared below: codes, or grad_in in packed */
    packed_bytes = (n * bits + 7) / 8;
    groups = 0;
  }
  if (actq_layout_sizes(&layout, &packed_bytes, &groups) != ACTQ_OK) return 1;
  {
    uint8_t *x = aligned_alloc(64, (n * 4 + 63) / 64 * 64), *codes = NULL;
    /* each build's own y, compared below (dequantize's output; encode's y) */
    void *yb[2] = {aligned_alloc(64, (n * 4 + 63) / 64 * 64), aligned_alloc(64, (n * 4 + 63) / 64 * 64)};
    size_t e;
    for (e = 0; e < n; e++) { /* a fixed pseudo-random pattern in [-0.5, 0.5) */
      const float v = ((float)((e * 2654435761u) % 100003u) / 100003.0f - 0.5f) *
                      (is_fewbit(kernel) ? 8.0f : 1.0f); /* GELU's codes: [-4, 4) */
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
      packed[i] = calloc((kernel == 'b' ? n * es : packed_bytes) + 64, 1);
      gmin[i] = calloc(groups, 4);
      gscale[i] = calloc(groups, 4);
      t[i] = malloc(sizeof(double) * (size_t)calls);
      /* dequantize reads a quantized stream: make it with the library under test */
      if (!is_fewbit(kernel) &&
          quantize[i](ctx[i], &layout, dt, x, ACTQ_ROUND_NEAREST, 1, 0, packed[i], gmin[i],
                      gscale[i]) != ACTQ_OK)
        return 1;
    }
    ratio = malloc(sizeof(double) * (size_t)calls);
    if (kernel == 'b') { /* backward reads codes of x (library A's) and writes packed */
      codes = calloc(packed_bytes + 64, 1);
      if (encode[0](ctx[0], &table, n, dt, x, NULL, codes) != ACTQ_OK) return 1;
      packed_bytes = n * es;
    }
    for (r = -2; r < calls; r++) /* two rounds of warm-up */
      for (int k = 0; k < 2; k++) {
        const int which = (r & 1) ? 1 - k : k;
        const double t0 = now();
        const actq_status s =
            kernel == 'c' || kernel == 'y'
                ? encode[which](ctx[which], &table, n, dt, x, kernel == 'y' ? yb[which] : NULL,
                                packed[which])
            : kernel == 'b'
                ? backward[which](ctx[which], &table, n, codes, dt, x, packed[which])
            : kernel == 'd'
                ? dequantize[which](ctx[which], &layout, packed[which], gmin[which],
                                    gscale[which], dt, yb[which])
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
        memcmp(gscale[0], gscale[1], groups * 4) ||
        ((kernel == 'd' || kernel == 'y') && memcmp(yb[0], yb[1], n * es))) {
      fprintf(stderr, "the two builds wrote different bytes\n");
      return 1;
    }
    free(x);
    free(yb[0]);
    free(yb[1]);
    free(codes);
  }
  for (r = 0; r < calls; r++) ratio[r] = t[0][r] / t[1][r];
  qsort(ratio, (size_t)calls, sizeof(double), cmp_double);
  for (i = 0; i < 2; i++) qsort(t[i], (size_t)calls, sizeof(double), cmp_double);
  printf("%c dtype %d b%u G%u n %zu threads %d calls %d: A median %.4f ms (%.2f G elem/s), "
         "fastest %.4f | B median %.4f ms (%.2f G elem/s), fastest %.4f | A/B median %.3f "
         "[quartiles %.3f %.3f]\n",
         kernel, (int)dt, bits, group, n, threads, calls, t[0][calls / 2] * 1e3,
         (double)n / t[0][calls / 2] / 1e9, t[0][0] * 1e3, t[1][calls / 2] * 1e3,
         (double)n / t[1][calls / 2] / 1e9, t[1][0] * 1e3, ratio[calls / 2], ratio[calls / 4],
         ratio[3 * calls / 4]);
  return 0;
}
