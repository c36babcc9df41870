/* quotient_exhaustive.c - every float32 significand of the scale through
 * quot_check_significand (quotient_cases.h): all inputs on which actq_quot_rcp could
 * round differently from the division. Run by scripts/check-quotient; prints one summary
 * line and exits non-zero on a disagreement. Optional arguments: first and last B. */
#include <stdlib.h>

#include "quotient_cases.h"

int main(int argc, char **argv) {
  uint32_t first = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 1u << 23;
  uint32_t last = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : (1u << 24) - 1;
  uint64_t tested = 0, fails = 0;
  uint32_t B;
  for (B = first; B <= last; B++) tested += quot_check_significand(B, &fails);
  printf("significands %#x..%#x: %llu inputs within |k| <= %d of a midpoint, %llu disagree\n",
         first, last, (unsigned long long)tested, QUOT_K, (unsigned long long)fails);
  return fails != 0;
}
