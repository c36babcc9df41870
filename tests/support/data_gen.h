/* data_gen.h - reproducible test inputs: a small PRNG and group-wise value patterns that
 * reach every case of the quantizer (ordinary, constant, huge, tiny, NaN/Inf groups). */
#ifndef ACTQ_TEST_DATA_GEN_H
#define ACTQ_TEST_DATA_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "actq.h"

typedef struct test_rng {
  uint64_t s;
} test_rng;

uint64_t rng_next(test_rng *r);                 /* splitmix64: test_rand_u64 */
uint64_t rng_below(test_rng *r, uint64_t n);    /* uniform in [0, n), n > 0 */
double rng_unit(test_rng *r);                   /* uniform in [0, 1) */

/* Fills rows x cols elements of dtype group by group, each group
 * with a pattern drawn from rng. special != 0 makes constant, huge, denormal and NaN/Inf
 * groups common; special == 0 keeps every group ordinary and finite. */
void fill_groups(test_rng *rng, actq_dtype dtype, void *x, size_t rows, size_t cols,
                 size_t group_size, int special);

/* Fills n codes with values below 2^bits (and, when bad != 0, one code >= 2^bits). */
void fill_codes(test_rng *rng, uint8_t *codes, size_t n, uint32_t bits, int bad);

#endif
