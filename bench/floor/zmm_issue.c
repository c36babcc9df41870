/* zmm_issue.c - how many 512-bit permutes and multiplies one core issues a cycle: the rate
 * that bounds the 16-lane activations (GELU's 9 vpermps and 11 FMAs and products a vector,
 * docs/fewbit.md). Eight independent instructions a round (vmulps stands for the FMA
 * pipes: an FMA's accumulator would chain the rounds by its latency), each kind alone and
 * the two interleaved; a dependent vaddps chain shows the clock (its latency, 2 or 3
 * cycles by the vendors' tables).
 *
 *   cc -O2 -mavx512f bench/floor/zmm_issue.c -o zmm_issue && ./zmm_issue
 */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define EIGHT(op) op " %%zmm0,%%zmm12,%%zmm1\n" op " %%zmm0,%%zmm12,%%zmm2\n" \
  op " %%zmm0,%%zmm12,%%zmm3\n" op " %%zmm0,%%zmm12,%%zmm4\n" op " %%zmm0,%%zmm12,%%zmm5\n" \
  op " %%zmm0,%%zmm12,%%zmm6\n" op " %%zmm0,%%zmm12,%%zmm7\n" op " %%zmm0,%%zmm12,%%zmm8\n"
#define MIX "vpermps %%zmm0,%%zmm12,%%zmm1\n vmulps %%zmm0,%%zmm12,%%zmm2\n" \
  "vpermps %%zmm0,%%zmm12,%%zmm3\n vmulps %%zmm0,%%zmm12,%%zmm4\n" \
  "vpermps %%zmm0,%%zmm12,%%zmm5\n vmulps %%zmm0,%%zmm12,%%zmm6\n" \
  "vpermps %%zmm0,%%zmm12,%%zmm7\n vmulps %%zmm0,%%zmm12,%%zmm8\n"
#define MIX3 "vpermps %%zmm0,%%zmm12,%%zmm1\n vmulps %%zmm0,%%zmm12,%%zmm2\n" \
  "vaddps %%zmm0,%%zmm12,%%zmm3\n vpermps %%zmm0,%%zmm12,%%zmm4\n" \
  "vmulps %%zmm0,%%zmm12,%%zmm5\n vaddps %%zmm0,%%zmm12,%%zmm6\n" \
  "vpermps %%zmm0,%%zmm12,%%zmm7\n vmulps %%zmm0,%%zmm12,%%zmm8\n"
#define CLOBBER "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8"

/* n instructions of `body` (eight a round) and the ns each took */
#define RATE(label, body)                                                               \
  do {                                                                                  \
    const double t0 = now();                                                            \
    for (i = 0; i < n / 8; i++) __asm__ volatile(body ::: CLOBBER);                     \
    printf("%s: %.3f ns each\n", label, (now() - t0) / (double)n * 1e9);                \
  } while (0)

int main(void) {
  const long n = 100000000;
  __m512 c = _mm512_set1_ps(1.0f);
  double t0;
  long i;
  t0 = now();
  for (i = 0; i < n; i++) __asm__ volatile("vaddps %0,%0,%0" : "+v"(c));
  printf("dependent vaddps zmm: %.3f ns each (its latency)\n", (now() - t0) / (double)n * 1e9);
  RATE("vpermps zmm, independent", EIGHT("vpermps"));
  RATE("vmulps zmm, independent", EIGHT("vmulps"));
  RATE("vaddps zmm, independent", EIGHT("vaddps"));
  RATE("vpermps and vmulps alternating", MIX);
  RATE("vpermps, vmulps, vaddps in turn", MIX3);
  return 0;
}
