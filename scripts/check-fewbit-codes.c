/* check-fewbit-codes.c - every one of the 2^32 float32 bit patterns: the code of the
 * constant-time table (src/fewbit/code_lut.h) and the code fewbit_encode writes on the CPU
 * backend (the AVX2 kernels where the CPU has them) against the reference binary search
 * actq_fewbit_code, for GELU tables at the given widths and an adversarial 8-bit table
 * (255 consecutive floats around 1.0). Built and run by scripts/check-fewbit-codes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actq.h"
#include "src/arith/fewbit_elem.h"
#include "fewbit.h"
#include "src/fewbit/code_lut.h"

#define CHUNK ((size_t)1 << 24)
#define THREADS 2

typedef struct work {
  const fewbit_table *t;
  const actq_fewbit_lut *lut;
  const uint8_t *codes; /* unpacked, from fewbit_encode */
  uint64_t p0;
  size_t i0, i1;
  size_t bad_lut, bad_encode;
} work;

static void *check_range(void *arg) {
  work *w = (work *)arg;
  size_t i;
  for (i = w->i0; i < w->i1; i++) {
    const uint32_t u = (uint32_t)(w->p0 + i);
    float x;
    uint32_t want;
    memcpy(&x, &u, 4);
    want = actq_fewbit_code(w->t->bounds, w->t->bits, x);
    if (actq_fewbit_lut_code(w->lut, x) != want && w->bad_lut++ < 4)
      fprintf(stderr, "table: bits %u x=0x%08x\n", w->t->bits, u);
    if (w->codes[i] != want && w->bad_encode++ < 4)
      fprintf(stderr, "encode: bits %u x=0x%08x\n", w->t->bits, u);
  }
  return NULL;
}

static int check(actq_context *ctx, const fewbit_table *t, const char *name) {
  actq_fewbit_lut *lut = malloc(actq_fewbit_lut_size(t->bounds, t->bits));
  uint32_t *x = malloc(CHUNK * 4);
  uint8_t *packed = malloc(CHUNK), *codes = malloc(CHUNK);
  size_t bad_lut = 0, bad_encode = 0, k;
  uint64_t p0;
  if (!lut || !x || !packed || !codes) return 1;
  actq_fewbit_lut_build(lut, t->bounds, t->bits);
  for (p0 = 0; p0 < ((uint64_t)1 << 32); p0 += CHUNK) {
    pthread_t th[THREADS];
    work w[THREADS];
    actq_status s;
    for (k = 0; k < CHUNK; k++) x[k] = (uint32_t)(p0 + k);
    s = fewbit_encode(ctx, t, CHUNK, ACTQ_F32, x, NULL, packed);
    if (s != ACTQ_OK && s != ACTQ_ERR_NONFINITE) return 1;
    if (actq_unpack(ctx, t->bits, CHUNK, packed, codes) != ACTQ_OK) return 1;
    for (k = 0; k < THREADS; k++) {
      w[k] = (work){t, lut, codes, p0, CHUNK * k / THREADS, CHUNK * (k + 1) / THREADS, 0, 0};
      pthread_create(&th[k], NULL, check_range, &w[k]);
    }
    for (k = 0; k < THREADS; k++) {
      pthread_join(th[k], NULL);
      bad_lut += w[k].bad_lut;
      bad_encode += w[k].bad_encode;
    }
  }
  printf("%-26s bits %u: 4294967296 patterns, table mismatches %zu, encode mismatches %zu\n",
         name, t->bits, bad_lut, bad_encode);
  fflush(stdout);
  free(lut);
  free(x);
  free(packed);
  free(codes);
  return bad_lut || bad_encode;
}

int main(int argc, char **argv) {
  actq_context *ctx;
  fewbit_table t;
  int i, fail = 0;
  uint32_t k, one;
  float f1 = 1.0f;
  if (actq_context_create(ACTQ_BACKEND_CPU, &ctx) != ACTQ_OK) return 1;
  printf("backend: %s\n", actq_context_describe(ctx));
  fflush(stdout);
  for (i = 1; i < argc; i++) {
    const uint32_t bits = (uint32_t)atoi(argv[i]);
    char name[32];
    if (fewbit_table_build(FEWBIT_GELU, 0, bits, NULL, &t) != ACTQ_OK) return 1;
    snprintf(name, sizeof name, "gelu");
    fail |= check(ctx, &t, name);
  }
  memset(&t, 0, sizeof t);
  t.bits = 8;
  t.activation = FEWBIT_CUSTOM;
  memcpy(&one, &f1, 4);
  for (k = 0; k < 255; k++) {
    const uint32_t u = one - 127 + k;
    memcpy(&t.bounds[k], &u, 4);
  }
  fail |= check(ctx, &t, "255 floats around 1.0");
  actq_context_destroy(ctx);
  printf(fail ? "FAILED\n" : "all equal\n");
  return fail;
}
