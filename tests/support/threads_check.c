/* threads_check.c - many contexts used at once from several threads give the same bytes
 * as one context on one thread (see threads_check.h).
 *
 * A fixed list of jobs (quantize with random layouts, dtypes, widths and seeds, then
 * dequantize, pack, few-bit encode and backward, table builds and bit allocation) is run
 * once on one thread for the expected bytes. Then 8 threads each create their own contexts
 * (reference and CPU backends, 1 to 3 worker threads each, created and destroyed while the
 * others run) and run every job several times in a thread-specific order, comparing every
 * output byte. The contract allows one thread per context; different contexts must be
 * independent, and so must the context-free calls. Criterion-free, so that it also runs
 * under ThreadSanitizer (Criterion's shared-memory arena cannot start under TSan):
 * tests/test_threads.c and tests/threads_main.c drive it.
 */
#include "support/threads_check.h"

#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "actq.h"
#include "fewbit.h"

#define NJOBS 16

typedef struct job {
  actq_layout layout;
  uint8_t row_bits[8];
  actq_dtype x_dtype, y_dtype;
  actq_rounding rounding;
  uint64_t seed, offset;
  float *x;        /* rows*cols f32 values, converted by the library for other dtypes */
  size_t n, packed_bytes, groups;
  fewbit_activation act;
  uint32_t fbits;
  /* expected outputs */
  uint8_t *packed, *gmin, *gscale, *y, *codes, *fcodes, *fy, *grad;
  actq_status q_status, e_status;
  fewbit_table table;
  uint8_t alloc_bits[64];
  double alloc_obj;
} job;

typedef struct outputs {
  uint8_t *packed, *gmin, *gscale, *y, *codes, *fcodes, *fy, *grad;
  actq_status q_status, e_status;
  fewbit_table table;
  uint8_t alloc_bits[64];
  double alloc_obj;
} outputs;

static job jobs[NJOBS];
static double alloc_s[64];
static uint64_t alloc_n[64];

static uint64_t mix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static size_t dsize(actq_dtype t) { return t == ACTQ_F32 ? 4 : 2; }

static void outputs_alloc(const job *j, outputs *o) {
  const size_t ms = dsize(j->layout.meta_dtype);
  o->packed = calloc(j->packed_bytes + 1, 1);
  o->gmin = calloc(j->groups * ms + 1, 1);
  o->gscale = calloc(j->groups * ms + 1, 1);
  o->y = calloc(j->n * 4 + 1, 1);
  o->codes = calloc(j->n + 1, 1);
  o->fcodes = calloc(j->n + 1, 1);
  o->fy = calloc(j->n * 4 + 1, 1);
  o->grad = calloc(j->n * 4 + 1, 1);
  if (!(o->packed && o->gmin && o->gscale && o->y && o->codes && o->fcodes && o->fy && o->grad)) abort();
}

static void outputs_free(outputs *o) {
  free(o->packed); free(o->gmin); free(o->gscale); free(o->y);
  free(o->codes); free(o->fcodes); free(o->fy); free(o->grad);
}

/* Everything a job computes; returns nonzero on an unexpected status. */
static int run_job(actq_context *ctx, const job *j, outputs *o) {
  void *xbuf = malloc(j->n * 4 + 1);
  const size_t xs = dsize(j->x_dtype);
  size_t i;
  int bad = 0;
  /* x in x_dtype: f32 as is; f16/bf16 through the library's own rounding (dequantize of
   * an 8-bit identity would be circular, so narrow by truncating the f32 bits: any bits do) */
  for (i = 0; i < j->n; i++) {
    uint32_t u;
    memcpy(&u, &j->x[i], 4);
    if (xs == 4) memcpy((uint8_t *)xbuf + 4 * i, &u, 4);
    else {
      const uint16_t h = (uint16_t)(j->x_dtype == ACTQ_BF16 ? u >> 16 : (u >> 13) & 0x7fffu);
      memcpy((uint8_t *)xbuf + 2 * i, &h, 2);
    }
  }
  o->q_status = actq_quantize(ctx, &j->layout, j->x_dtype, xbuf, j->rounding, j->seed, j->offset,
                              o->packed, o->gmin, o->gscale);
  bad |= o->q_status != ACTQ_OK && o->q_status != ACTQ_ERR_NONFINITE;
  bad |= actq_dequantize(ctx, &j->layout, o->packed, o->gmin, o->gscale, j->y_dtype, o->y) != ACTQ_OK;
  bad |= actq_unpack(ctx, 8, j->packed_bytes, o->packed, o->codes) != ACTQ_OK;
  bad |= fewbit_table_build(j->act, 1.0f, j->fbits, NULL, &o->table) != ACTQ_OK;
  o->e_status = fewbit_encode(ctx, &o->table, j->n, j->x_dtype, xbuf, o->fy, o->fcodes);
  bad |= o->e_status != ACTQ_OK && o->e_status != ACTQ_ERR_NONFINITE;
  bad |= fewbit_backward(ctx, &o->table, j->n, o->fcodes, j->x_dtype, xbuf, o->grad) != ACTQ_OK;
  bad |= actq_allocate_bits(64, alloc_s, alloc_n, 2.0 + (double)(j->seed % 5) / 2.0, 0x1fe,
                            (actq_alloc_method)(j->seed % 2), o->alloc_bits, &o->alloc_obj) != ACTQ_OK;
  free(xbuf);
  return bad;
}

static int same(const job *j, const outputs *o) {
  const size_t ms = dsize(j->layout.meta_dtype), xs = dsize(j->x_dtype), ys = dsize(j->y_dtype);
  return o->q_status == j->q_status && o->e_status == j->e_status &&
         memcmp(o->packed, j->packed, j->packed_bytes) == 0 &&
         memcmp(o->gmin, j->gmin, j->groups * ms) == 0 &&
         memcmp(o->gscale, j->gscale, j->groups * ms) == 0 &&
         memcmp(o->y, j->y, j->n * ys) == 0 && memcmp(o->codes, j->codes, j->packed_bytes) == 0 &&
         memcmp(&o->table, &j->table, sizeof o->table) == 0 &&
         memcmp(o->fcodes, j->fcodes, (j->n * j->fbits + 7) / 8) == 0 &&
         memcmp(o->fy, j->fy, j->n * xs) == 0 && memcmp(o->grad, j->grad, j->n * xs) == 0 &&
         memcmp(o->alloc_bits, j->alloc_bits, 64) == 0 && o->alloc_obj == j->alloc_obj;
}

static int make_jobs(char *msg, size_t msglen) {
  uint64_t s = 12345;
  int k;
  size_t i;
  for (i = 0; i < 64; i++) {
    alloc_s[i] = (double)(mix(&s) >> 11) / 9007199254740992.0 * 100.0;
    alloc_n[i] = 1 + mix(&s) % 5000;
  }
  for (k = 0; k < NJOBS; k++) {
    job *j = &jobs[k];
    outputs o;
    actq_context *ctx;
    memset(j, 0, sizeof *j);
    j->layout.rows = 1 + mix(&s) % 8;
    j->layout.cols = 1 + mix(&s) % 3000;
    j->layout.group_size = 8u * (uint32_t)(1 + mix(&s) % 32);
    j->layout.bits = 1 + (uint32_t)(mix(&s) % 8);
    if (k % 3 == 0) {
      for (i = 0; i < j->layout.rows; i++) j->row_bits[i] = (uint8_t)(1 + mix(&s) % 8);
      j->layout.row_bits = j->row_bits;
    }
    j->layout.meta_dtype = (actq_dtype)(mix(&s) % 3);
    j->x_dtype = (actq_dtype)(mix(&s) % 3);
    j->y_dtype = (actq_dtype)(mix(&s) % 3);
    j->rounding = (actq_rounding)(k % 2);
    j->seed = mix(&s);
    j->offset = mix(&s);
    j->act = (fewbit_activation)(1 + k % 18);
    j->fbits = 1 + (uint32_t)(k % 4);
    j->n = j->layout.rows * j->layout.cols;
    j->x = malloc(j->n * sizeof(float));
    if (!j->x) abort();
    for (i = 0; i < j->n; i++) j->x[i] = ((float)(mix(&s) >> 40) / 16777216.0f - 0.5f) * 8.0f;
    if (k % 4 == 1) j->x[mix(&s) % j->n] = NAN; /* a nonfinite group on some jobs */
    /* the expected bytes: one CPU context on this thread */
    if (actq_layout_sizes(&j->layout, &j->packed_bytes, &j->groups) != ACTQ_OK ||
        actq_context_create(ACTQ_BACKEND_CPU, &ctx) != ACTQ_OK) {
      snprintf(msg, msglen, "job %d: layout or context failed", k);
      return 1;
    }
    outputs_alloc(j, &o);
    if (actq_context_set_threads(ctx, 1) != ACTQ_OK || run_job(ctx, j, &o)) {
      snprintf(msg, msglen, "job %d failed on one thread", k);
      actq_context_destroy(ctx);
      return 1;
    }
    actq_context_destroy(ctx);
    j->packed = o.packed; j->gmin = o.gmin; j->gscale = o.gscale; j->y = o.y;
    j->codes = o.codes; j->fcodes = o.fcodes; j->fy = o.fy; j->grad = o.grad;
    j->q_status = o.q_status; j->e_status = o.e_status; j->table = o.table;
    memcpy(j->alloc_bits, o.alloc_bits, 64);
    j->alloc_obj = o.alloc_obj;
  }
  return 0;
}

typedef struct worker {
  pthread_t tid;
  int id;
  int mismatches, failures;
} worker;

static int rounds_per_thread;

static void *worker_main(void *arg) {
  worker *w = arg;
  int round, t;
  for (round = 0; round < rounds_per_thread; round++) {
    /* fresh contexts every round: creation and destruction race with the other threads' work */
    actq_context *ctx[2] = {NULL, NULL};
    if (actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ctx[0]) != ACTQ_OK ||
        actq_context_create(ACTQ_BACKEND_CPU, &ctx[1]) != ACTQ_OK ||
        actq_context_set_threads(ctx[1], 1 + (w->id + round) % 3) != ACTQ_OK) {
      w->failures++;
      actq_context_destroy(ctx[0]);
      actq_context_destroy(ctx[1]);
      continue;
    }
    for (t = 0; t < NJOBS; t++) {
      const job *j = &jobs[(t * 5 + w->id * 3 + round) % NJOBS]; /* an order per thread */
      outputs o;
      outputs_alloc(j, &o);
      if (run_job(ctx[(t + w->id) % 2], j, &o)) w->failures++;
      else if (!same(j, &o)) w->mismatches++;
      outputs_free(&o);
    }
    actq_context_destroy(ctx[0]);
    actq_context_destroy(ctx[1]);
  }
  return NULL;
}

int threads_check_run(int nthreads, int rounds, char *msg, size_t msglen) {
  worker w[THREADS_CHECK_MAX];
  int i, bad = 0;
  size_t k;
  msg[0] = 0;
  if (nthreads < 1 || nthreads > THREADS_CHECK_MAX) nthreads = THREADS_CHECK_MAX;
  rounds_per_thread = rounds;
  if (make_jobs(msg, msglen)) return 1;
  for (i = 0; i < nthreads; i++) {
    w[i].id = i;
    w[i].mismatches = w[i].failures = 0;
    if (pthread_create(&w[i].tid, NULL, worker_main, &w[i]) != 0) abort();
  }
  for (i = 0; i < nthreads; i++) pthread_join(w[i].tid, NULL);
  for (i = 0; i < nthreads; i++)
    if (w[i].failures || w[i].mismatches) {
      const size_t used = strlen(msg);
      snprintf(msg + used, msglen - used, "thread %d: %d calls failed, %d jobs differ from one "
               "thread; ", i, w[i].failures, w[i].mismatches);
      bad = 1;
    }
  for (k = 0; k < NJOBS; k++) {
    outputs o;
    memset(&o, 0, sizeof o);
    o.packed = jobs[k].packed; o.gmin = jobs[k].gmin; o.gscale = jobs[k].gscale;
    o.y = jobs[k].y; o.codes = jobs[k].codes; o.fcodes = jobs[k].fcodes; o.fy = jobs[k].fy;
    o.grad = jobs[k].grad;
    outputs_free(&o);
    free(jobs[k].x);
  }
  return bad;
}
