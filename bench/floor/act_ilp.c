/* act_ilp.c - is an AVX2 activation forward bound by its dependency chain or by the issue
 * rate? The same function (cpu/avx2/act_avx2.h, as fewbit_encode computes y) over a
 * 1024-float buffer that stays in L1, with 1, 2 and 4 independent vectors per loop
 * iteration. If one vector's chain were the limit (a chain longer than the reorder window
 * leaves the core idle), 2 and 4 vectors would run up to 2x and 4x faster; if the core's
 * issue rate is the limit, all three take the same time per element.
 *
 *   cc -O3 -mavx2 -mfma -mf16c -ffp-contract=off -fno-fast-math -I. -Iinclude \
 *      bench/floor/act_ilp.c -o act_ilp && ./act_ilp
 *
 * Prints ns per element (best of 7 runs of 2000 passes) for GELU, SiLU, Sigmoid, Tanh and
 * GELU_TANH. Compiled with AVX-512 flags as well (-mavx512f -mavx512dq -mavx512bw
 * -mavx512vl), it adds the 16-lane functions of cpu/avx512/act_avx512.h (1 and 2 vectors
 * an iteration), run where the CPU has AVX-512.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu/avx2/act_avx2.h"
#ifdef __AVX512F__
#  include "cpu/avx512/act_avx512.h"
#endif

#define N 1024
#define PASSES 2000

static float x[N] __attribute__((aligned(64))), y[N] __attribute__((aligned(64)));

#define RUNNERS(NAME, FN)                                                                  \
  static __attribute__((noinline)) void NAME##_1(void) {                                  \
    for (int i = 0; i < N; i += 8) _mm256_store_ps(y + i, FN(_mm256_load_ps(x + i)));     \
  }                                                                                        \
  static __attribute__((noinline)) void NAME##_2(void) {                                  \
    for (int i = 0; i < N; i += 16) {                                                      \
      const __m256 a = FN(_mm256_load_ps(x + i)), b = FN(_mm256_load_ps(x + i + 8));      \
      _mm256_store_ps(y + i, a);                                                           \
      _mm256_store_ps(y + i + 8, b);                                                       \
    }                                                                                      \
  }                                                                                        \
  static __attribute__((noinline)) void NAME##_4(void) {                                  \
    for (int i = 0; i < N; i += 32) {                                                      \
      const __m256 a = FN(_mm256_load_ps(x + i)), b = FN(_mm256_load_ps(x + i + 8));      \
      const __m256 c = FN(_mm256_load_ps(x + i + 16)), d = FN(_mm256_load_ps(x + i + 24)); \
      _mm256_store_ps(y + i, a);                                                           \
      _mm256_store_ps(y + i + 8, b);                                                       \
      _mm256_store_ps(y + i + 16, c);                                                      \
      _mm256_store_ps(y + i + 24, d);                                                      \
    }                                                                                      \
  }

RUNNERS(gelu, actq_avx2_act_gelu)
RUNNERS(silu, actq_avx2_act_silu)
RUNNERS(sigmoid, actq_avx2_act_sigmoid)
RUNNERS(tanh, actq_avx2_act_tanh)
RUNNERS(gelu_tanh, actq_avx2_act_gelu_tanh)

#ifdef __AVX512F__
#  define RUNNERS16(NAME, FN)                                                              \
  static __attribute__((noinline)) void NAME##_16_1(void) {                               \
    for (int i = 0; i < N; i += 16) _mm512_store_ps(y + i, FN(_mm512_load_ps(x + i)));    \
  }                                                                                        \
  static __attribute__((noinline)) void NAME##_16_2(void) {                               \
    for (int i = 0; i < N; i += 32) {                                                      \
      const __m512 a = FN(_mm512_load_ps(x + i)), b = FN(_mm512_load_ps(x + i + 16));     \
      _mm512_store_ps(y + i, a);                                                           \
      _mm512_store_ps(y + i + 16, b);                                                      \
    }                                                                                      \
  }
RUNNERS16(gelu, actq_avx512_act_gelu)
RUNNERS16(silu, actq_avx512_act_silu)
RUNNERS16(sigmoid, actq_avx512_act_sigmoid)
RUNNERS16(tanh, actq_avx512_act_tanh)
RUNNERS16(gelu_tanh, actq_avx512_act_gelu_tanh)
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double ns_per_elem(void (*f)(void)) {
  double best = 1e30;
  for (int r = 0; r < 7; r++) {
    const double t0 = now();
    for (int k = 0; k < PASSES; k++) f();
    const double t = (now() - t0) / ((double)PASSES * N);
    if (t < best) best = t;
  }
  return best * 1e9;
}

int main(void) {
  const struct {
    const char *name;
    void (*f[3])(void);
  } acts[] = {{"gelu", {gelu_1, gelu_2, gelu_4}},
              {"silu", {silu_1, silu_2, silu_4}},
              {"sigmoid", {sigmoid_1, sigmoid_2, sigmoid_4}},
              {"tanh", {tanh_1, tanh_2, tanh_4}},
              {"gelu_tanh", {gelu_tanh_1, gelu_tanh_2, gelu_tanh_4}}};
  if (!__builtin_cpu_supports("avx2")) {
    puts("no AVX2 on this CPU");
    return 0;
  }
  for (int i = 0; i < N; i++) x[i] = (float)((double)rand() / RAND_MAX * 8.0 - 4.0); /* [-4, 4] */
  puts("activation | 1 vector | 2 vectors | 4 vectors (ns per element, L1-resident)");
  for (size_t a = 0; a < sizeof acts / sizeof *acts; a++)
    printf("%s | %.2f | %.2f | %.2f\n", acts[a].name, ns_per_elem(acts[a].f[0]),
           ns_per_elem(acts[a].f[1]), ns_per_elem(acts[a].f[2]));
#ifdef __AVX512F__
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) {
    const struct {
      const char *name;
      void (*f[2])(void);
    } acts16[] = {{"gelu", {gelu_16_1, gelu_16_2}},
                  {"silu", {silu_16_1, silu_16_2}},
                  {"sigmoid", {sigmoid_16_1, sigmoid_16_2}},
                  {"tanh", {tanh_16_1, tanh_16_2}},
                  {"gelu_tanh", {gelu_tanh_16_1, gelu_tanh_16_2}}};
    puts("activation, 16 lanes | 1 vector | 2 vectors (ns per element, L1-resident)");
    for (size_t a = 0; a < sizeof acts16 / sizeof *acts16; a++)
      printf("%s | %.2f | %.2f\n", acts16[a].name, ns_per_elem(acts16[a].f[0]),
             ns_per_elem(acts16[a].f[1]));
  }
#endif
  return 0;
}
