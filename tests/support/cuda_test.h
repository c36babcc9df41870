/* cuda_test.h - the CUDA context of a test, or the test reported as skipped with the
 * reason where no device can be used (a CI machine with nvcc and no GPU). */
#ifndef ACTQ_TEST_CUDA_TEST_H
#define ACTQ_TEST_CUDA_TEST_H

#include <criterion/criterion.h>

#include "actq.h"

#define CUDA_CONTEXT_OR_SKIP(ctx)                                                        \
  do {                                                                                   \
    actq_status st_ = actq_context_create(ACTQ_BACKEND_CUDA, &(ctx));                    \
    if (st_ == ACTQ_ERR_UNSUPPORTED)                                                     \
      cr_skip_test("no usable CUDA device: actq_context_create(ACTQ_BACKEND_CUDA) = %s", \
                   actq_status_string(st_));                                             \
    cr_assert_eq(st_, ACTQ_OK, "actq_context_create(CUDA): %s", actq_status_string(st_)); \
  } while (0)

#endif
