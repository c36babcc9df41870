/* test_parallel.c - actq_cpu_parallel (cpu/parallel.c) hands out every unit exactly once.
 *
 * For unit counts around the chunk boundaries, minimum shares from 1 to past the whole,
 * 1 to 5 threads and both ways of cutting (chunks taken in turn, one range a thread): each
 * unit is counted once, the per-range counts add up, in chunks every range but a call's last
 * holds min_units or more, and without `balance` there are no more ranges than threads. The
 * ranges' function spins on some ranges, so that the threads take chunks in uneven turns.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/parallel.h"
#include "cpu/state.h"

#define MAX_UNITS 4099

typedef struct seen {
  size_t units, min_units;
  int balance;
  unsigned hits[MAX_UNITS];
  unsigned ranges, short_ranges, bad_ranges;
} seen;

static size_t mark(void *arg, size_t u0, size_t u1) {
  seen *s = (seen *)arg;
  size_t u;
  /* counted, not asserted: this runs on the pool's threads too */
  if (!(u0 < u1 && u1 <= s->units)) {
    __atomic_fetch_add(&s->bad_ranges, 1u, __ATOMIC_RELAXED);
    return 0;
  }
  for (u = u0; u < u1; u++) __atomic_fetch_add(&s->hits[u], 1u, __ATOMIC_RELAXED);
  __atomic_fetch_add(&s->ranges, 1u, __ATOMIC_RELAXED);
  if (s->balance && u1 - u0 < s->min_units && u1 != s->units)
    __atomic_fetch_add(&s->short_ranges, 1u, __ATOMIC_RELAXED);
  if ((u0 / 3) % 2 == 0) { /* a range that runs behind */
    volatile unsigned spin;
    for (spin = 0; spin < 20000u; spin++) continue;
  }
  return u1 - u0 + 1; /* its units and one: the sum counts the ranges too */
}

Test(parallel, every_unit_once) {
  static const size_t unit_counts[] = {1, 2, 7, 8, 9, 63, 64, 65, 1000, 4096, 4099};
  static const size_t min_shares[] = {1, 3, 64, 1000, 5000};
  static seen s;
  int threads, balance;
  size_t i, j, u;
  for (threads = 1; threads <= 5; threads++) {
    actq_cpu_state st;
    memset(&st, 0, sizeof st);
    st.threads = threads;
    for (balance = 0; balance <= 1; balance++)
      for (i = 0; i < sizeof unit_counts / sizeof unit_counts[0]; i++)
        for (j = 0; j < sizeof min_shares / sizeof min_shares[0]; j++) {
          size_t total;
          memset(&s, 0, sizeof s);
          s.units = unit_counts[i];
          s.min_units = min_shares[j];
          s.balance = balance;
          total = actq_cpu_parallel(&st, s.units, s.min_units, balance, mark, &s);
          cr_assert_eq(s.bad_ranges, 0u, "an empty or out-of-bounds range");
          for (u = 0; u < s.units; u++)
            cr_assert_eq(s.hits[u], 1u, "unit %zu of %zu hit %u times (threads %d, min %zu, balance %d)",
                         u, s.units, s.hits[u], threads, s.min_units, balance);
          cr_assert_eq(total, s.units + s.ranges, "counts not summed");
          cr_assert_eq(s.short_ranges, 0u, "a range under min_units %zu", s.min_units);
          if (!balance)
            cr_assert_leq(s.ranges, (unsigned)threads, "%u ranges for %d threads", s.ranges, threads);
          if (balance && threads > 1 && s.units >= 8 * (size_t)threads * s.min_units)
            cr_assert_gt(s.ranges, (unsigned)threads, "no chunks: %u ranges", s.ranges);
        }
    actq_cpu_pool_destroy(st.pool);
  }
}
