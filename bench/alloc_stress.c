/* alloc_stress.c - ACTQ_ALLOC_EXACT over families of 1024-layer instances: numel
 * log-uniform over four orders of magnitude (1e3..1e7), sensitivities proportional to numel
 * or independent of it with spreads e^0.01..e^12, every usual width set and budgets from 1.5 to
 * 4.5 bits. Prints, per width set, how many instances were proved optimal, how many came back
 * ACTQ_ERR_UNSUPPORTED, the median and worst time (wall, and the worst in CPU time, which
 * a loaded machine inflates less), and how far the greedy was from the optimum.
 *   alloc_stress [instances_per_cell=2] [layers=1024 (at most 65536)]
 * Exit status 1 if any answer breaks the budget or is worse than the greedy's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "actq.h"

enum { MMAX = 65536 };

static uint64_t rng = 0x243f6a8885a308d3ull;
static double rnd01(void) { /* xorshift64* */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (double)((rng * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

static double now_on(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  static double s[MMAX], times[4096], cpu_max;
  static uint64_t n[MMAX];
  static uint8_t bg[MMAX], be[MMAX];
  const uint32_t sets[4] = {0x116, 0x1fe, 0x11e, 0x01c};
  const char *names[4] = {"{1,2,4,8}", "{1..8}", "{1,2,3,4,8}", "{2,3,4}"};
  const double avgs[5] = {1.5, 2.0, 2.5, 3.0, 4.5};
  /* e^spread: the range of sensitivity per element; 0.01 makes nearly equal ratios, where
   * every item is contested */
  const double spreads[4] = {0.01, 2.0, 6.0, 12.0};
  int per = argc > 1 ? atoi(argv[1]) : 2, bad = 0;
  size_t M = argc > 2 ? (size_t)atol(argv[2]) : 1024;
  if (per < 1 || per > 25 || M < 1 || M > MMAX) {
    fprintf(stderr, "usage: alloc_stress [instances_per_cell 1..25] [layers 1..65536]\n");
    return 2;
  }
  printf("%zu layers, numel log-uniform in [1e3, 1e7], %d instances per cell\n", M, per);
  unsigned si;
  for (si = 0; si < 4; si++) {
    int ok = 0, unsup = 0, count = 0, worse = 0;
    cpu_max = 0.0;
    double gap = 0.0;
    unsigned ai, sp, model;
    int r;
    for (ai = 0; ai < 5; ai++)
      for (sp = 0; sp < 4; sp++)
        for (model = 0; model < 2; model++)
          for (r = 0; r < per; r++) {
            uint64_t total = 0, cost = 0;
            double og, oe, t0, c0, avg = avgs[ai];
            size_t i;
            actq_status st;
            if (sets[si] == 0x01c && avg < 2.0) avg = 2.0 + 0.5 * ai;
            for (i = 0; i < M; i++) {
              n[i] = (uint64_t)exp(log(1e3) + log(1e4) * rnd01());
              s[i] = exp(spreads[sp] * rnd01()) * (model == 0 ? (double)n[i] : 1e4);
              total += n[i];
            }
            if (actq_allocate_bits(M, s, n, avg, sets[si], ACTQ_ALLOC_GREEDY, bg, &og) != ACTQ_OK) {
              printf("greedy failed\n");
              return 1;
            }
            t0 = now_on(CLOCK_MONOTONIC);
            c0 = now_on(CLOCK_PROCESS_CPUTIME_ID);
            st = actq_allocate_bits(M, s, n, avg, sets[si], ACTQ_ALLOC_EXACT, be, &oe);
            times[count++] = now_on(CLOCK_MONOTONIC) - t0;
            if (now_on(CLOCK_PROCESS_CPUTIME_ID) - c0 > cpu_max) cpu_max = now_on(CLOCK_PROCESS_CPUTIME_ID) - c0;
            if (st == ACTQ_ERR_UNSUPPORTED) {
              unsup++;
              continue;
            }
            if (st != ACTQ_OK) {
              printf("exact: status %d\n", (int)st);
              return 1;
            }
            for (i = 0; i < M; i++) cost += n[i] * be[i];
            if (cost > (uint64_t)floor(avg * (double)total)) { bad = 1; printf("budget broken\n"); }
            if (oe > og * (1.0 + 1e-12)) { bad = 1; worse++; }
            if ((og - oe) / og > gap) gap = (og - oe) / og;
            ok++;
          }
    qsort(times, (size_t)count, sizeof *times, cmp_double);
    printf("%-12s instances %3d  proved %3d  unsupported %3d  worse-than-greedy %d  "
           "time median %7.2f ms  max %7.2f ms (cpu %7.2f ms)  greedy gap max %.2e\n",
           names[si], count, ok, unsup, worse, 1e3 * times[count / 2], 1e3 * times[count - 1], 1e3 * cpu_max, gap);
  }
  return bad;
}
