/* parallel.c - fork-join over a persistent pool of POSIX threads, one pool per context.
 *
 * A call splits its units into T contiguous, equal ranges (memory-bound kernels cost the
 * same per unit); the caller runs the first range, T-1 pool threads the others. The pool
 * is started at the first call that needs it and kept until the thread count changes or
 * the context is destroyed: starting and joining threads on every call cost 15-20 us here,
 * more than a small call's work. The reference backend stays single-threaded. Any failure
 * to start a thread falls back to running its range on the caller: never a wrong result.
 * A context is used by one thread at a time (contract), so calls never overlap on a pool.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "cpu/parallel.h"

#define ACTQ_MAX_THREADS 256

typedef struct range_call {
  actq_range_fn fn;
  void *arg;
  size_t u0, u1, result;
} range_call;

typedef struct worker {
  struct actq_cpu_pool *pool;
  int index; /* takes calls[index] of each job that has that many ranges */
} worker;

typedef struct actq_cpu_pool {
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  unsigned long generation; /* bumped for every job */
  int shutdown;
  int pending;              /* ranges of the current job not finished by the workers */
  range_call *calls;        /* the current job */
  size_t ncalls;
  int nworkers;             /* threads started (they hold indices 1..nworkers) */
  pthread_t tids[ACTQ_MAX_THREADS];
  worker workers[ACTQ_MAX_THREADS];
} pool;

static void *worker_main(void *p) {
  worker *w = (worker *)p;
  pool *pl = w->pool;
  unsigned long seen = 0;
  pthread_mutex_lock(&pl->mu);
  for (;;) {
    while (pl->generation == seen && !pl->shutdown) pthread_cond_wait(&pl->go, &pl->mu);
    if (pl->shutdown) break;
    seen = pl->generation;
    if ((size_t)w->index < pl->ncalls) {
      range_call *c = &pl->calls[w->index];
      pthread_mutex_unlock(&pl->mu);
      c->result = c->fn(c->arg, c->u0, c->u1);
      pthread_mutex_lock(&pl->mu);
      if (--pl->pending == 0) pthread_cond_signal(&pl->done);
    }
  }
  pthread_mutex_unlock(&pl->mu);
  return NULL;
}

void actq_cpu_pool_destroy(pool *pl) {
  int i;
  if (!pl) return;
  pthread_mutex_lock(&pl->mu);
  pl->shutdown = 1;
  pthread_cond_broadcast(&pl->go);
  pthread_mutex_unlock(&pl->mu);
  for (i = 0; i < pl->nworkers; i++) pthread_join(pl->tids[i], NULL);
  pthread_cond_destroy(&pl->go);
  pthread_cond_destroy(&pl->done);
  pthread_mutex_destroy(&pl->mu);
  free(pl);
}

/* A pool with up to `helpers` threads; NULL if not even the pool could be made. */
static pool *pool_create(int helpers) {
  pool *pl = (pool *)calloc(1, sizeof *pl);
  int i;
  if (!pl) return NULL;
  if (pthread_mutex_init(&pl->mu, NULL) != 0) {
    free(pl);
    return NULL;
  }
  pthread_cond_init(&pl->go, NULL);
  pthread_cond_init(&pl->done, NULL);
  for (i = 0; i < helpers; i++) {
    pl->workers[i].pool = pl;
    pl->workers[i].index = i + 1;
    if (pthread_create(&pl->tids[i], NULL, worker_main, &pl->workers[i]) != 0) break;
    pl->nworkers++;
  }
  return pl;
}

size_t actq_cpu_parallel(actq_cpu_state *st, size_t units, size_t min_units, actq_range_fn fn,
                         void *arg) {
  range_call calls[ACTQ_MAX_THREADS];
  size_t t, nt = (size_t)st->threads, total = 0, by_workers;
  pool *pl;
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
  if (!st->pool) st->pool = pool_create(st->threads - 1);
  pl = st->pool;
  by_workers = pl ? (size_t)pl->nworkers + 1 : 1; /* ranges [1, by_workers) go to workers */
  if (by_workers > nt) by_workers = nt;
  if (by_workers > 1) {
    pthread_mutex_lock(&pl->mu);
    pl->calls = calls;
    pl->ncalls = by_workers;
    pl->pending = (int)by_workers - 1;
    pl->generation++;
    pthread_cond_broadcast(&pl->go);
    pthread_mutex_unlock(&pl->mu);
  }
  calls[0].result = fn(arg, calls[0].u0, calls[0].u1);
  for (t = by_workers; t < nt; t++) /* threads that could not be started */
    calls[t].result = fn(arg, calls[t].u0, calls[t].u1);
  if (by_workers > 1) {
    pthread_mutex_lock(&pl->mu);
    while (pl->pending > 0) pthread_cond_wait(&pl->done, &pl->mu);
    pl->calls = NULL;
    pl->ncalls = 0;
    pthread_mutex_unlock(&pl->mu);
  }
  for (t = 0; t < nt; t++) total += calls[t].result;
  return total;
}

int actq_cpu_thread_count(int requested) {
  long n = requested > 0 ? requested : sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  if (n > ACTQ_MAX_THREADS) n = ACTQ_MAX_THREADS;
  return (int)n;
}
