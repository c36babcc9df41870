/* tensor.h - helpers the tests share: element conversion, a seeded generator for test
 * data (independent of the library's Philox), and backend loops. */
#ifndef ACTQ_TEST_TENSOR_H
#define ACTQ_TEST_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "actq.h"

/* splitmix64: test data only */
uint64_t test_rand_u64(uint64_t *state);
double test_rand_uniform(uint64_t *state);  /* [0, 1) */
double test_rand_normal(uint64_t *state);   /* N(0, 1) */

size_t test_dtype_size(actq_dtype t);
const char *test_dtype_name(actq_dtype t);
/* Element i of a typed buffer as float, and a float rounded to nearest-even into one. */
float test_load(const void *base, actq_dtype t, size_t i);
void test_store(void *base, actq_dtype t, size_t i, float v);
/* Largest finite value of a dtype. */
float test_dtype_max(actq_dtype t);

/* The backends every test runs on (CPU ones always; CUDA is tested under tests/cuda). */
#define TEST_CPU_BACKENDS 2
extern const actq_backend test_cpu_backends[TEST_CPU_BACKENDS];

#endif
