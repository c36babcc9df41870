/* evaluate.c - see evaluate.h. */
#include "src/fewbit/evaluate.h"

#include "src/fewbit/deriv.h"

actq_weight_fn actq_weight_from_options(const fewbit_options *o) {
  actq_weight_fn w;
  w.kind = o ? o->weight : FEWBIT_WEIGHT_NORMAL;
  w.mean = o ? o->mean : 0.0;
  w.std = o ? o->std : 1.0;
  /* NORMAL: +-10 std holds all but 1.5e-23 of the mass */
  w.lo = w.kind == FEWBIT_WEIGHT_NORMAL ? w.mean - 10 * w.std : o->lo;
  w.hi = w.kind == FEWBIT_WEIGHT_NORMAL ? w.mean + 10 * w.std : o->hi;
  return w;
}

/* [a, b] in pieces no wider than 1/4096 of the domain, never across a kink. */
static double interval_error(const fewbit_table *t, const actq_weight_fn *w, double a, double b,
                             float level) {
  const fewbit_activation act = (fewbit_activation)t->activation;
  const double piece = (w->hi - w->lo) / 4096;
  double kinks[4], err = 0, x = a;
  int nk = actq_deriv_kinks(act, t->param, kinks), k = 0;
  while (x < b) {
    double end = x + piece < b ? x + piece : b;
    while (k < nk && kinks[k] <= x) k++;
    if (k < nk && kinks[k] < end) end = kinks[k];
    err += actq_cells_error(act, t->param, w, x, end, level);
    x = end;
  }
  return err;
}

double actq_fewbit_table_error(const fewbit_table *t, const actq_weight_fn *w) {
  const uint32_t K = 1u << t->bits;
  double err = 0;
  uint32_t k;
  for (k = 0; k < K; k++) {
    double a = k ? t->bounds[k - 1] : w->lo, b = k + 1 < K ? t->bounds[k] : w->hi;
    a = a > w->lo ? a : w->lo;
    b = b < w->hi ? b : w->hi;
    if (b > a) err += interval_error(t, w, a, b, t->levels[k]);
  }
  return err;
}
