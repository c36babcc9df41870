/* test_deriv.c - the solver's closed-form derivatives against numerical derivatives of
 * the forward functions, away from kinks, for every activation and several parameters. */
#include <criterion/criterion.h>

#include "src/fewbit/deriv.h"
#include "fewbit/forward_double.h"

Test(deriv, closed_forms_match_numerical_derivatives) {
  size_t a;
  for (a = 0; a < N_ACTS; a++) {
    const act_case c = ALL_ACTS[a];
    double kinks[4], x;
    int nk = actq_deriv_kinks(c.act, c.param, kinks), k;
    for (x = -12.0; x <= 12.0; x += 0.01) {
      int near = 0;
      double want, got;
      for (k = 0; k < nk; k++) near |= fabs(x - kinks[k]) < 0.05 * (1 + fabs(x));
      if (near) continue;
      want = ref_numeric_deriv(c.act, c.param, x);
      got = actq_deriv(c.act, c.param, x);
      cr_assert(fabs(got - want) <= 1e-7 * (1 + fabs(want)), "act %d p %g x %g: %.12g vs %.12g",
                c.act, c.param, x, got, want);
    }
  }
}

Test(deriv, parameters) {
  cr_assert(actq_deriv_valid(FEWBIT_ELU, 1.0f));
  cr_assert(!actq_deriv_valid(FEWBIT_ELU, 0.0f));
  cr_assert(!actq_deriv_valid(FEWBIT_ELU, -1.0f));
  cr_assert(!actq_deriv_valid(FEWBIT_CELU, NAN));
  cr_assert(!actq_deriv_valid(FEWBIT_SOFTPLUS, 0.0f));
  cr_assert(!actq_deriv_valid(FEWBIT_SOFTPLUS, INFINITY));
  cr_assert(actq_deriv_valid(FEWBIT_LEAKY_RELU, -3.0f));
  cr_assert(!actq_deriv_valid(FEWBIT_LEAKY_RELU, NAN));
  cr_assert(actq_deriv_valid(FEWBIT_GELU, NAN), "parameterless activations ignore param");
  cr_assert(!actq_deriv_valid(FEWBIT_CUSTOM, 0));
  cr_assert(!actq_deriv_valid((fewbit_activation)0, 0));
  cr_assert(!actq_deriv_valid((fewbit_activation)21, 0));
}
