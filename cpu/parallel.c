/* parallel.c - fork-join with POSIX threads: T-1 helper threads per call, the caller runs
 * the first range itself. Ranges are contiguous and equal, which suits memory-bound
 * kernels whose cost per unit is uniform. The reference backend stays single-threaded. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "cpu/kernels.h"
#include "cpu/parallel.h"

#define ACTQ_MAX_THREADS 256

typedef struct range_call {
  actq_range_fn fn;
  void *arg;
  size_t u0, u1, result;
} range_call;

static void *run_range(void *p) {
  range_call *c = (range_call *)p;
  c->result = c->fn(c->arg, c->u0, c->u1);
  return NULL;
}

size_t actq_cpu_parallel(const actq_context *ctx, size_t units, size_t min_units,
                         actq_range_fn fn, void *arg) {
  range_call calls[ACTQ_MAX_THREADS];
  pthread_t tids[ACTQ_MAX_THREADS];
  int started[ACTQ_MAX_THREADS];
  size_t t, nt = (size_t)ctx->threads, total = 0;
  if (units == 0) return 0;
  if (min_units == 0) min_units = 1;
  if (nt > (units + min_units - 1) / min_units) nt = (units + min_units - 1) / min_units;
  if (nt <= 1) return fn(arg, 0, units);

  for (t = 0; t < nt; t++) {
    calls[t].fn = fn;
    calls[t].arg = arg;
    calls[t].u0 = units / nt * t + (t < units % nt ? t : units % nt);
    calls[t].u1 = calls[t].u0 + units / nt + (t < units % nt ? 1 : 0);
    calls[t].result = 0;
  }
  for (t = 1; t < nt; t++)
    started[t] = pthread_create(&tids[t], NULL, run_range, &calls[t]) == 0;
  run_range(&calls[0]);
  /* A thread that could not be started has its range run here: never a wrong result. */
  for (t = 1; t < nt; t++) {
    if (started[t])
      pthread_join(tids[t], NULL);
    else
      run_range(&calls[t]);
  }
  for (t = 0; t < nt; t++) total += calls[t].result;
  return total;
}

static int online_cpus(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  if (n > ACTQ_MAX_THREADS) n = ACTQ_MAX_THREADS;
  return (int)n;
}

static void describe(actq_context *ctx) {
  snprintf(ctx->description, sizeof ctx->description, "cpu %s, %d thread%s",
           ctx->kernels->isa, ctx->threads, ctx->threads == 1 ? "" : "s");
}

actq_status actq_cpu_parallel_init(actq_context *ctx, int single_threaded) {
  ctx->threads = single_threaded ? 1 : online_cpus();
  describe(ctx);
  return ACTQ_OK;
}

actq_status actq_cpu_parallel_set_threads(actq_context *ctx, int threads) {
  if (threads < 0) return ACTQ_ERR_INVALID_ARGUMENT;
  if (ctx->backend == ACTQ_BACKEND_CPU_REFERENCE) return ACTQ_OK; /* documented: stays 1 */
  ctx->threads = threads == 0 ? online_cpus()
                              : (threads > ACTQ_MAX_THREADS ? ACTQ_MAX_THREADS : threads);
  describe(ctx);
  return ACTQ_OK;
}

void actq_cpu_parallel_release(actq_context *ctx) { (void)ctx; }
