/* test_cuda_errors.c - the CUDA backend's error paths: argument errors at once, data
 * errors deferred to synchronize, device faults as ACTQ_ERR_DEVICE with the CUDA message
 * in the description, settings that CUDA does not have, stream switching. */
#include <stdint.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "support/cuda_check.h"
#include "support/cuda_test.h"
#include "support/data_gen.h"

static actq_layout small_layout(void) {
  actq_layout l;
  memset(&l, 0, sizeof l);
  l.rows = 2;
  l.cols = 64;
  l.group_size = 32;
  l.bits = 2;
  l.meta_dtype = ACTQ_F32;
  return l;
}

Test(cuda_errors, bad_arguments_return_at_once) {
  actq_context *cuda = NULL;
  actq_layout l = small_layout();
  void *d = NULL;
  CUDA_CONTEXT_OR_SKIP(cuda);
  cr_assert_eq(cudaMalloc(&d, 4096), cudaSuccess);
  cr_assert_eq(actq_quantize(cuda, &l, ACTQ_F32, NULL, ACTQ_ROUND_NEAREST, 0, 0, d, d, d),
               ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(actq_quantize(cuda, &l, (actq_dtype)7, d, ACTQ_ROUND_NEAREST, 0, 0, d, d, d),
               ACTQ_ERR_INVALID_ARGUMENT);
  l.group_size = 12;
  cr_assert_eq(actq_quantize(cuda, &l, ACTQ_F32, d, ACTQ_ROUND_NEAREST, 0, 0, d, d, d),
               ACTQ_ERR_INVALID_ARGUMENT);
  l = small_layout();
  l.bits = 9;
  cr_assert_eq(actq_dequantize(cuda, &l, d, d, d, ACTQ_F32, d), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(actq_pack(cuda, 0, 10, (const uint8_t *)d, d), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(actq_unpack(cuda, 9, 10, d, (uint8_t *)d), ACTQ_ERR_INVALID_ARGUMENT);
  l = small_layout();
  l.rows = 0; /* empty work: OK without touching anything, NULL allowed */
  cr_assert_eq(actq_quantize(cuda, &l, ACTQ_F32, NULL, ACTQ_ROUND_NEAREST, 0, 0, NULL, NULL, NULL),
               ACTQ_OK);
  cr_assert_eq(actq_pack(cuda, 3, 0, NULL, NULL), ACTQ_OK);
  cr_assert_eq(actq_context_synchronize(cuda), ACTQ_OK);
  cudaFree(d);
  actq_context_destroy(cuda);
}

Test(cuda_errors, settings) {
  actq_context *cuda = NULL;
  CUDA_CONTEXT_OR_SKIP(cuda);
  cr_assert_eq(actq_context_set_threads(cuda, 4), ACTQ_ERR_UNSUPPORTED);
  cr_assert(strncmp(actq_context_describe(cuda), "cuda ", 5) == 0, "%s",
            actq_context_describe(cuda));
  actq_context_destroy(cuda);
}

Test(cuda_errors, nonfinite_group_is_reported_at_synchronize) {
  actq_context *cuda = NULL;
  actq_layout l = small_layout();
  float x[128];
  float *dx = NULL, *dmin = NULL, *dsc = NULL;
  uint8_t *dp = NULL;
  int i;
  CUDA_CONTEXT_OR_SKIP(cuda);
  for (i = 0; i < 128; i++) x[i] = (float)i;
  x[70] = 1.0f / 0.0f;
  cr_assert_eq(cudaMalloc((void **)&dx, sizeof x), cudaSuccess);
  cr_assert_eq(cudaMalloc((void **)&dp, 64), cudaSuccess);
  cr_assert_eq(cudaMalloc((void **)&dmin, 64), cudaSuccess);
  cr_assert_eq(cudaMalloc((void **)&dsc, 64), cudaSuccess);
  cr_assert_eq(cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice), cudaSuccess);
  cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
  cr_assert_eq(actq_quantize(cuda, &l, ACTQ_F32, dx, ACTQ_ROUND_STOCHASTIC, 1, 2, dp, dmin, dsc),
               ACTQ_OK, "data errors are not known when the call returns");
  cr_assert_eq(actq_context_synchronize(cuda), ACTQ_ERR_NONFINITE);
  cr_assert_eq(actq_context_synchronize(cuda), ACTQ_OK, "reported once, then cleared");
  x[70] = 70.0f; /* finite again: no report */
  cr_assert_eq(cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice), cudaSuccess);
  cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
  cr_assert_eq(actq_quantize(cuda, &l, ACTQ_F32, dx, ACTQ_ROUND_NEAREST, 1, 2, dp, dmin, dsc),
               ACTQ_OK);
  cr_assert_eq(actq_context_synchronize(cuda), ACTQ_OK);
  cudaFree(dx);
  cudaFree(dp);
  cudaFree(dmin);
  cudaFree(dsc);
  actq_context_destroy(cuda);
}

Test(cuda_errors, user_stream_and_legacy_stream) {
  actq_context *cuda = NULL;
  cudaStream_t s = NULL;
  test_rng rng = {99};
  char msg[1024];
  float x[5 * 300];
  quant_case c;
  int pass;
  CUDA_CONTEXT_OR_SKIP(cuda);
  cr_assert_eq(cudaStreamCreate(&s), cudaSuccess);
  memset(&c, 0, sizeof c);
  c.layout.rows = 5;
  c.layout.cols = 300;
  c.layout.group_size = 64;
  c.layout.bits = 3;
  c.layout.meta_dtype = ACTQ_BF16;
  c.x_dtype = ACTQ_F32;
  c.y_dtype = ACTQ_F16;
  c.rounding = ACTQ_ROUND_STOCHASTIC;
  for (pass = 0; pass < 3; pass++) {
    cr_assert_eq(actq_context_set_stream(cuda, pass == 0 ? (void *)s : NULL), ACTQ_OK);
    if (pass == 2) cr_assert_eq(actq_context_set_stream(cuda, (void *)s), ACTQ_OK);
    c.seed = rng_next(&rng);
    fill_groups(&rng, ACTQ_F32, x, c.layout.rows, c.layout.cols, c.layout.group_size, 1);
    cr_assert(check_quant_case(cuda, &c, x, msg, sizeof msg), "pass %d: %s", pass, msg);
  }
  cr_assert_eq(actq_context_set_stream(cuda, NULL), ACTQ_OK);
  cr_assert_eq(cudaStreamDestroy(s), cudaSuccess);
  actq_context_destroy(cuda);
}

/* Last in its process (Criterion runs each test in its own): a fault poisons the CUDA
 * context for good. The address is mapped neither on the host nor on the device. */
Test(cuda_errors, device_fault_is_device_error_with_message) {
  actq_context *cuda = NULL;
  actq_layout l = small_layout();
  void *bad = (void *)(uintptr_t)0x1000;
  actq_status st;
  CUDA_CONTEXT_OR_SKIP(cuda);
  cr_assert_eq(actq_quantize(cuda, &l, ACTQ_F32, bad, ACTQ_ROUND_NEAREST, 0, 0, bad, bad, bad),
               ACTQ_OK);
  st = actq_context_synchronize(cuda);
  cr_assert_eq(st, ACTQ_ERR_DEVICE, "got %s", actq_status_string(st));
  cr_assert(strstr(actq_context_describe(cuda), "cudaError") != NULL, "%s",
            actq_context_describe(cuda));
  actq_context_destroy(cuda);
}
