/* parallel.h - fork-join over a range of independent work units. */
#ifndef ACTQ_CPU_PARALLEL_H
#define ACTQ_CPU_PARALLEL_H

#include "cpu/state.h"

/* fn(arg, u0, u1) processes units [u0, u1) and returns a count; the counts are summed.
 * Up to st->threads threads, no more than units / min_units rounded up. With `balance`,
 * the units go out in chunks of min_units or more (the last may be shorter) that the
 * threads take in order until none is left, so that a thread that runs behind takes fewer;
 * without, in one contiguous range a thread. Starts st->pool when a call first needs it. */
typedef size_t (*actq_range_fn)(void *arg, size_t u0, size_t u1);
size_t actq_cpu_parallel(actq_cpu_state *st, size_t units, size_t min_units, int balance,
                         actq_range_fn fn, void *arg);

/* The thread count a request means: 0 = the online CPUs; capped at the pool's limit. */
int actq_cpu_thread_count(int requested);

/* Stops and frees a pool (NULL is fine). */
void actq_cpu_pool_destroy(struct actq_cpu_pool *pool);

#endif /* ACTQ_CPU_PARALLEL_H */
