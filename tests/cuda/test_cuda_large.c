/* test_cuda_large.c - more than 2^31 elements, where the device and host have the memory:
 * 64-bit element, group and byte indices (and the noise counter past 2^31) on the device
 * equal the CPU backend's bytes (the threaded CPU backend equals the reference by
 * contract and keeps this test to seconds). ACTQ_TEST_LARGE=0 skips it; =1 runs it without
 * looking at the host's MemAvailable (a VM whose memory grows on use reports too little). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "support/bytes_compare.h"
#include "support/cuda_check.h"
#include "support/cuda_test.h"
#include "support/data_gen.h"

static size_t host_available_bytes(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  size_t kb = 0;
  if (!f) return 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %zu kB", &kb) == 1) break;
  fclose(f);
  return kb * 1024;
}

Test(cuda_large, past_2_pow_31_elements, .timeout = 240) {
  actq_context *cuda = NULL, *cpu = NULL;
  actq_layout l;
  size_t n, packed_bytes, groups, need_dev, need_host, i;
  uint16_t *x;
  uint8_t *rp, *gp;
  uint16_t *rmin, *gmin, *rsc, *gsc;
  void *dx = NULL, *dp = NULL, *dmin = NULL, *dsc = NULL;
  char msg[512];
  const char *env = getenv("ACTQ_TEST_LARGE");
  test_rng rng = {2024};
  uint16_t tile[4099];

  if (env && strcmp(env, "0") == 0) cr_skip_test("ACTQ_TEST_LARGE=0");
  CUDA_CONTEXT_OR_SKIP(cuda);
  memset(&l, 0, sizeof l);
  l.rows = 2049;
  l.cols = ((size_t)1 << 20) + 8; /* rows * cols = 2^31 + 2^20 + 16392 elements */
  l.group_size = 256;
  l.bits = 2;
  l.meta_dtype = ACTQ_BF16;
  n = l.rows * l.cols;
  cr_assert_eq(actq_layout_sizes(&l, &packed_bytes, &groups), ACTQ_OK);
  need_dev = 2 * n * 2 + packed_bytes + 4 * groups;
  need_host = 3 * n * 2 + 2 * packed_bytes + 8 * groups;
  if (cuda_free_bytes() < need_dev + ((size_t)1 << 30))
    cr_skip_test("needs %zu MiB of free device memory, has %zu MiB", need_dev >> 20,
                 cuda_free_bytes() >> 20);
  if (!(env && strcmp(env, "1") == 0) && host_available_bytes() < need_host + ((size_t)2 << 30))
    cr_skip_test("needs %zu MiB of host memory, has %zu MiB", need_host >> 20,
                 host_available_bytes() >> 20);

  x = (uint16_t *)malloc(n * 2);
  rp = (uint8_t *)malloc(packed_bytes);
  gp = (uint8_t *)malloc(packed_bytes);
  rmin = (uint16_t *)malloc(groups * 2);
  gmin = (uint16_t *)malloc(groups * 2);
  rsc = (uint16_t *)malloc(groups * 2);
  gsc = (uint16_t *)malloc(groups * 2);
  cr_assert(x && rp && gp && rmin && gmin && rsc && gsc, "host allocation");
  /* A random tile of a length prime to the group and row sizes, repeated: cheap to make,
   * and no two groups see the same values at the same noise counters. */
  fill_groups(&rng, ACTQ_BF16, tile, 1, 4099, 4099, 0);
  for (i = 0; i < n; i += 4099) memcpy(x + i, tile, (n - i < 4099 ? n - i : 4099) * 2);

  cr_assert_eq(cudaMalloc(&dx, n * 2), cudaSuccess);
  cr_assert_eq(cudaMalloc(&dp, packed_bytes), cudaSuccess);
  cr_assert_eq(cudaMalloc(&dmin, groups * 2), cudaSuccess);
  cr_assert_eq(cudaMalloc(&dsc, groups * 2), cudaSuccess);
  cr_assert_eq(cudaMemcpy(dx, x, n * 2, cudaMemcpyHostToDevice), cudaSuccess);
  cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
  cr_assert_eq(actq_quantize(cuda, &l, ACTQ_BF16, dx, ACTQ_ROUND_STOCHASTIC, 0x0123456789abcdefull,
                             0xfedcba9876543210ull, dp, dmin, dsc),
               ACTQ_OK);
  cr_assert_eq(actq_context_synchronize(cuda), ACTQ_OK, "%s", actq_context_describe(cuda));
  cr_assert_eq(cudaMemcpy(gp, dp, packed_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  cr_assert_eq(cudaMemcpy(gmin, dmin, groups * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  cr_assert_eq(cudaMemcpy(gsc, dsc, groups * 2, cudaMemcpyDeviceToHost), cudaSuccess);

  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU, &cpu), ACTQ_OK);
  cr_assert_eq(actq_quantize(cpu, &l, ACTQ_BF16, x, ACTQ_ROUND_STOCHASTIC, 0x0123456789abcdefull,
                             0xfedcba9876543210ull, rp, rmin, rsc),
               ACTQ_OK);
  cr_assert(bytes_equal("group_min", gmin, rmin, groups * 2, msg, sizeof msg), "%s", msg);
  cr_assert(bytes_equal("group_scale", gsc, rsc, groups * 2, msg, sizeof msg), "%s", msg);
  cr_assert(bytes_equal("packed", gp, rp, packed_bytes, msg, sizeof msg), "%s", msg);

  /* Dequantize back into bf16 on both (x's device buffer is reused for y). */
  {
    uint16_t *ry = (uint16_t *)malloc(n * 2), *gy = x;
    cr_assert(ry != NULL, "host allocation");
    cr_assert_eq(actq_dequantize(cuda, &l, dp, dmin, dsc, ACTQ_BF16, dx), ACTQ_OK);
    cr_assert_eq(actq_context_synchronize(cuda), ACTQ_OK, "%s", actq_context_describe(cuda));
    cr_assert_eq(cudaMemcpy(gy, dx, n * 2, cudaMemcpyDeviceToHost), cudaSuccess);
    cr_assert_eq(actq_dequantize(cpu, &l, rp, rmin, rsc, ACTQ_BF16, ry), ACTQ_OK);
    cr_assert(bytes_equal("y", gy, ry, n * 2, msg, sizeof msg), "%s", msg);
    free(ry);
  }

  cudaFree(dx);
  cudaFree(dp);
  cudaFree(dmin);
  cudaFree(dsc);
  free(x);
  free(rp);
  free(gp);
  free(rmin);
  free(gmin);
  free(rsc);
  free(gsc);
  actq_context_destroy(cpu);
  actq_context_destroy(cuda);
}
