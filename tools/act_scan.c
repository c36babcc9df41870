/* act_scan.c - exhaustive accuracy scan of one activation forward (src/arith/act.h) over
 * every float32 of both signs whose biased exponent lies in [e_lo, e_hi), against the
 * double references of tests/support/act_ref.h. Prints the max ulp error, where it
 * occurs, and a histogram. [90, 160) covers |x| in [2^-37, 2^33), every input where the
 * activations compute anything but their limits or their first-order term.
 *
 *   cc -O2 -std=c99 -ffp-contract=off -mfma -I. -Itests -Iinclude -o act_scan tools/act_scan.c -lm
 * (-mfma makes the fmaf() of GELU, GELU_TANH, SiLU, Sigmoid and Tanh one instruction
 * instead of a library call: the same correctly rounded result, faster; drop it on a CPU
 * without FMA)
 *   ./act_scan ACT PARAM [E_LO E_HI]      e.g. ./act_scan 1 0 90 160   (GELU, ~1 min)
 */
#include <stdio.h>
#include <stdlib.h>

#include "support/act_ref.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s ACT PARAM [E_LO E_HI]\n", argv[0]);
    return 2;
  }
  int act = atoi(argv[1]);
  float param = (float)atof(argv[2]);
  uint32_t e_lo = argc > 4 ? (uint32_t)atoi(argv[3]) : 90u;
  uint32_t e_hi = argc > 4 ? (uint32_t)atoi(argv[4]) : 160u;
  double worst = 0, hist[6] = {0};
  float worst_x = 0;
  for (uint32_t sign = 0; sign < 2; sign++)
    for (uint32_t b = e_lo << 23; b < (e_hi << 23); b++) {
      float x = actq_f32_from_bits(b | (sign << 31));
      double e = ulp_error(actq_act_forward(act, param, x), reference(act, param, x));
      if (e > worst) {
        worst = e;
        worst_x = x;
      }
      hist[e < 0.5 ? 0 : e < 1 ? 1 : e < 2 ? 2 : e < 3 ? 3 : e < 4 ? 4 : 5] += 1;
    }
  printf("act %d param %g, exponents [%u, %u): max %.3f ulp at x = %a (%.9g)\n", act,
         (double)param, e_lo, e_hi, worst, worst_x, (double)worst_x);
  printf("  ulp <0.5: %.0f  [0.5,1): %.0f  [1,2): %.0f  [2,3): %.0f  [3,4): %.0f  >=4: %.0f\n",
         hist[0], hist[1], hist[2], hist[3], hist[4], hist[5]);
  return worst <= 4.0 ? 0 : 1;
}
