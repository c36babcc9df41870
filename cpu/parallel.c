/* parallel.c - fork-join over a persistent pool of POSIX threads, one pool per context.
 *
 * A call cuts its units into chunks, about ACTQ_CHUNKS_PER_THREAD a thread and none
 * smaller than the caller's min_units; the caller and T-1 pool threads take them in
 * order from one shared counter until none is left. Equal shares fixed in advance left
 * a call waiting for its slowest thread: on a shared 2-vCPU VM one thread of a 2-thread
 * call often ran 10-25% behind the other (stochastic bf16 quantize from memory: 2.1-2.9 G
 * elements/s as one 2-thread call against 2.8-3.3 for two 1-thread processes), and a pool
 * thread woken by a condition variable starts tens of microseconds after the caller. A
 * caller that asks for contiguous ranges (`balance` 0) gets one range a thread: walks whose
 * range start costs O(rows) (per-row widths, cpu/driver.c).
 * The pool is started at the first call that needs it and kept until the thread count
 * changes or the context is destroyed: starting and joining threads on every call cost
 * 15-20 us here, more than a small call's work. The reference backend stays
 * single-threaded. Any failure to start a thread leaves its chunks to the others: never a
 * wrong result. A context is used by one thread at a time (contract), so calls never
 * overlap on a pool.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "cpu/parallel.h"

#define ACTQ_MAX_THREADS 256

/* Chunks of ACTQ_CHUNKS_PER_THREAD a thread: enough that a thread 10-25% slower than the
 * others costs a call about one chunk, few enough that the per-range start of a kernel
 * (its prefetch ramp, a fence after streaming stores) stays negligible. */
#define ACTQ_CHUNKS_PER_THREAD 8

/* One call's work: units [0, units) in chunks of `chunk`; `next` the next chunk not taken,
 * `total` the sum of the chunks' counts (both updated with __atomic built-ins). */
typedef struct range_job {
  actq_range_fn fn;
  void *arg;
  size_t units, chunk, chunks;
  size_t next, total;
} range_job;

/* Takes chunks of `j` until none is left, adding their counts to j->total. */
static void run_chunks(range_job *j) {
  size_t total = 0, c;
  while ((c = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->chunks) {
    const size_t u0 = c * j->chunk;
    total += j->fn(j->arg, u0, j->units - u0 < j->chunk ? j->units : u0 + j->chunk);
  }
  __atomic_fetch_add(&j->total, total, __ATOMIC_RELAXED);
}

typedef struct worker {
  struct actq_cpu_pool *pool;
  int index; /* joins the jobs that ask for more than `index` threads */
} worker;

typedef struct actq_cpu_pool {
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  unsigned long generation; /* bumped for every job */
  int shutdown;
  int pending;              /* workers still running the current job */
  range_job *job;           /* the current job */
  size_t threads;           /* its threads, the caller's included */
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
    if ((size_t)w->index < pl->threads) {
      range_job *job = pl->job;
      pthread_mutex_unlock(&pl->mu);
      run_chunks(job);
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

size_t actq_cpu_parallel(actq_cpu_state *st, size_t units, size_t min_units, int balance,
                         actq_range_fn fn, void *arg) {
  range_job job;
  size_t nt = (size_t)st->threads, by_workers;
  pool *pl;
  if (units == 0) return 0;
  if (min_units == 0) min_units = 1;
  if (nt > (units + min_units - 1) / min_units) nt = (units + min_units - 1) / min_units;
  if (nt <= 1) return fn(arg, 0, units);

  job.fn = fn;
  job.arg = arg;
  job.units = units;
  job.chunk = (units + nt - 1) / nt; /* one range a thread */
  if (balance) {
    const size_t want = (units + nt * ACTQ_CHUNKS_PER_THREAD - 1) / (nt * ACTQ_CHUNKS_PER_THREAD);
    job.chunk = want > min_units ? want : min_units;
  }
  job.chunks = (units + job.chunk - 1) / job.chunk;
  job.next = 0;
  job.total = 0;
  if (!st->pool) st->pool = pool_create(st->threads - 1);
  pl = st->pool;
  by_workers = pl ? (size_t)pl->nworkers + 1 : 1; /* the caller and the workers that join */
  if (by_workers > nt) by_workers = nt;
  if (by_workers > 1) {
    pthread_mutex_lock(&pl->mu);
    pl->job = &job;
    pl->threads = by_workers;
    pl->pending = (int)by_workers - 1;
    pl->generation++;
    pthread_cond_broadcast(&pl->go);
    pthread_mutex_unlock(&pl->mu);
  }
  /* the caller takes chunks too, and every chunk no worker took (threads not started) */
  run_chunks(&job);
  if (by_workers > 1) {
    pthread_mutex_lock(&pl->mu);
    while (pl->pending > 0) pthread_cond_wait(&pl->done, &pl->mu);
    pl->job = NULL;
    pl->threads = 0;
    pthread_mutex_unlock(&pl->mu);
  }
  return job.total;
}

int actq_cpu_thread_count(int requested) {
  long n = requested > 0 ? requested : sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  if (n > ACTQ_MAX_THREADS) n = ACTQ_MAX_THREADS;
  return (int)n;
}
