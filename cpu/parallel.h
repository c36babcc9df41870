/* parallel.h - static fork-join over a range of independent work units. */
#ifndef ACTQ_CPU_PARALLEL_H
#define ACTQ_CPU_PARALLEL_H

#include "backend.h"

/* fn(arg, u0, u1) processes units [u0, u1) and returns a count; the counts are summed.
 * Each thread gets one contiguous range; no thread gets fewer than min_units units. */
typedef size_t (*actq_range_fn)(void *arg, size_t u0, size_t u1);
size_t actq_cpu_parallel(const actq_context *ctx, size_t units, size_t min_units,
                         actq_range_fn fn, void *arg);

actq_status actq_cpu_parallel_init(actq_context *ctx, int single_threaded);
actq_status actq_cpu_parallel_set_threads(actq_context *ctx, int threads);
void actq_cpu_parallel_release(actq_context *ctx);

/* The kernel table ACTQ_BACKEND_CPU runs (cpu/select.c). */
const struct actq_cpu_kernels *actq_cpu_select_kernels(void);

#endif /* ACTQ_CPU_PARALLEL_H */
