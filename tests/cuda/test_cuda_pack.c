/* test_cuda_pack.c - CUDA pack and unpack equal the reference for every width, odd n and
 * misaligned pointers; a code >= 2^bits is reported at synchronize. */
#include <stdlib.h>

#include "support/cuda_check.h"
#include "support/cuda_test.h"
#include "support/data_gen.h"

Test(cuda_pack, random_lengths_widths_alignments) {
  actq_context *cuda = NULL;
  test_rng rng = {7};
  char msg[1024];
  int i;
  CUDA_CONTEXT_OR_SKIP(cuda);
  for (i = 0; i < 200; i++) {
    const uint32_t bits = 1 + (uint32_t)rng_below(&rng, 8);
    const size_t n = i < 40 ? (size_t)i + 1 : 1 + rng_below(&rng, i < 190 ? 5000 : 3000000);
    uint8_t *codes = (uint8_t *)malloc(n);
    int ok;
    fill_codes(&rng, codes, n, bits, 0);
    ok = check_pack_case(cuda, bits, n, codes, rng_below(&rng, 9), rng_below(&rng, 9), msg,
                         sizeof msg);
    free(codes);
    cr_assert(ok, "%s", msg);
  }
  actq_context_destroy(cuda);
}

Test(cuda_pack, out_of_range_code_is_deferred_invalid_argument) {
  actq_context *cuda = NULL;
  test_rng rng = {8};
  char msg[1024];
  uint32_t bits;
  CUDA_CONTEXT_OR_SKIP(cuda);
  for (bits = 1; bits < 8; bits++) {
    uint8_t codes[1001];
    fill_codes(&rng, codes, sizeof codes, bits, 1);
    /* check_pack_case requires the synchronize status to equal the reference's return. */
    cr_assert(check_pack_case(cuda, bits, sizeof codes, codes, 1, 3, msg, sizeof msg), "%s", msg);
  }
  cr_assert_eq(actq_context_synchronize(cuda), ACTQ_OK, "the deferred error is cleared");
  actq_context_destroy(cuda);
}
