/* cells.h - the solver's grid for an analytic activation: cell edges (float values) and
 * the weighted moments of f' on each cell, by Gauss-Legendre quadrature. */
#ifndef ACTQ_FEWBIT_CELLS_H
#define ACTQ_FEWBIT_CELLS_H

#include <stddef.h>

#include "fewbit.h"

typedef struct actq_weight_fn {
  fewbit_weight kind;
  double mean, std; /* NORMAL */
  double lo, hi;    /* the domain, for both kinds */
} actq_weight_fn;

double actq_weight_at(const actq_weight_fn *w, double x);

typedef struct actq_cells {
  size_t n;           /* cells */
  double *edge;       /* n + 1 increasing edges, each a float value */
  double *W, *S, *Q;  /* per cell: integral of w, w*(f'-shift), w*(f'-shift)^2 */
  double shift;       /* f' is centred by its weighted mean, for accurate prefix sums */
} actq_cells;

/* Builds about `n` cells over the weight's domain, denser where an optimal table puts its
 * borders (density (w f''^2)^(1/3), the asymptotically optimal border density, plus a
 * uniform floor), with every kink of f' on an edge. */
actq_status actq_cells_build(fewbit_activation act, double param, const actq_weight_fn *w,
                             size_t n, actq_cells *cells);
void actq_cells_free(actq_cells *cells);

/* integral over [a, b] of w and of w*f', unshifted (for levels: an exactly constant f'
 * gives exactly its value). */
void actq_cells_mean_parts(fewbit_activation act, double param, const actq_weight_fn *w,
                           double a, double b, double *W, double *S);

/* integral over [a, b] of w(x) * (f'(x) - level)^2, by the same quadrature per cell
 * (a and b are edges of the grid: exact to the quadrature's accuracy). */
double actq_cells_error(fewbit_activation act, double param, const actq_weight_fn *w, double a,
                        double b, double level);

#endif
