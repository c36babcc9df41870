/* cells.c - see cells.h. */
#include "src/fewbit/cells.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/fewbit/deriv.h"

/* 8-point Gauss-Legendre on [-1, 1]: exact for polynomials of degree 15; cells are small
 * and f' is smooth inside a cell (kinks sit on edges), so the error is far below what the
 * tables resolve. Nodes and weights to double precision. */
static const double GL_X[4] = {0.1834346424956498049394761, 0.5255324099163289858177390,
                               0.7966664774136267395915539, 0.9602898564975362316835609};
static const double GL_W[4] = {0.3626837833783619829651504, 0.3137066458778872873379622,
                               0.2223810344533744705443560, 0.1012285362903762591525314};

double actq_weight_at(const actq_weight_fn *w, double x) {
  if (w->kind == FEWBIT_WEIGHT_UNIFORM) return (x >= w->lo && x <= w->hi) ? 1.0 : 0.0;
  {
    const double z = (x - w->mean) / w->std;
    return exp(-0.5 * z * z) / (w->std * 2.5066282746310005024157652848110);
  }
}

typedef struct moments {
  double W, S, Q;
} moments;

static moments cell_moments(fewbit_activation act, double p, const actq_weight_fn *w, double a,
                            double b, double shift) {
  const double h = 0.5 * (b - a), c = 0.5 * (a + b);
  moments m = {0, 0, 0};
  int i, sgn;
  for (i = 0; i < 4; i++)
    for (sgn = -1; sgn <= 1; sgn += 2) {
      const double x = c + sgn * h * GL_X[i], ww = GL_W[i] * h * actq_weight_at(w, x);
      const double g = actq_deriv(act, p, x) - shift;
      m.W += ww;
      m.S += ww * g;
      m.Q += ww * g * g;
    }
  return m;
}

void actq_cells_mean_parts(fewbit_activation act, double param, const actq_weight_fn *w,
                           double a, double b, double *W, double *S) {
  const moments m = cell_moments(act, param, w, a, b, 0.0);
  *W += m.W;
  *S += m.S;
}

double actq_cells_error(fewbit_activation act, double param, const actq_weight_fn *w, double a,
                        double b, double level) {
  return cell_moments(act, param, w, a, b, level).Q;
}


static int cmp_dbl(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Rounds the sorted edges e[0..m) to floats (borders are stored as floats) and returns how
 * many distinct ones remain, in place. spread = 0 merges edges that round together;
 * spread = 1 moves them apart one float at a time, upward, then back down from the last
 * (the domain's end), and merges only what still collides (a domain with too few floats). */
static size_t float_edges(double *e, size_t m, int spread) {
  const double first = (double)(float)e[0], end = (double)(float)e[m - 1];
  size_t i, at;
  for (i = 0; i < m; i++) {
    e[i] = (double)(float)e[i];
    if (spread && i > 0 && e[i] <= e[i - 1]) e[i] = (double)nextafterf((float)e[i - 1], INFINITY);
  }
  if (spread) {
    e[m - 1] = end; /* nothing past the domain */
    for (i = m - 1; i > 0; i--)
      if (e[i - 1] >= e[i]) e[i - 1] = (double)nextafterf((float)e[i], -INFINITY);
    for (i = 0; i < m && e[i] < first; i++) e[i] = first; /* nor before it */
  }
  for (i = 1, at = 1; i < m; i++)
    if (e[i] > e[at - 1]) e[at++] = e[i];
  return at;
}

/* Border density for the grid: (w f''^2)^(1/3) normalized, plus a uniform floor and a
 * weight-following term so that flat stretches of f' still get cells. */
enum { AUX = 1 << 14 };

actq_status actq_cells_build(fewbit_activation act, double p, const actq_weight_fn *w, size_t n,
                             actq_cells *cells) {
  double kinks[4], *dens = malloc((AUX + 1) * sizeof(double)), *cum = malloc((AUX + 1) * sizeof(double));
  double *edge = malloc((n + 8) * sizeof(double)), *raw = malloc((n + 8) * sizeof(double));
  const double lo = w->lo, hi = w->hi, step = (hi - lo) / AUX;
  double gsum = 0, wsum = 0, total, shift_num = 0, shift_den = 0;
  int nk = actq_deriv_kinks(act, p, kinks), k;
  size_t i, m, at;
  cells->edge = cells->W = cells->S = cells->Q = NULL;
  if (!dens || !cum || !edge || !raw) {
    free(dens);
    free(cum);
    free(edge);
    free(raw);
    return ACTQ_ERR_OUT_OF_MEMORY;
  }
  for (i = 0; i <= AUX; i++) {
    const double x = lo + step * (double)i, e = step * 1e-3;
    const double d2 = (actq_deriv(act, p, x + e) - actq_deriv(act, p, x - e)) / (2 * e);
    dens[i] = cbrt(actq_weight_at(w, x) * d2 * d2);
    cum[i] = cbrt(actq_weight_at(w, x));
    if (!isfinite(dens[i])) dens[i] = 0;
    gsum += dens[i];
    wsum += cum[i];
  }
  for (i = 0; i <= AUX; i++)
    dens[i] = (gsum > 0 ? dens[i] / gsum : 0) + 0.25 * cum[i] / wsum + 0.25 / (AUX + 1);
  cum[0] = 0;
  for (i = 1; i <= AUX; i++) cum[i] = cum[i - 1] + 0.5 * (dens[i - 1] + dens[i]);
  total = cum[AUX];

  /* edges at equal steps of the cumulative density, linear inside an aux step */
  m = 0;
  edge[m++] = lo;
  for (i = 1, at = 0; i < n; i++) {
    const double target = total * (double)i / (double)n;
    while (at < AUX && cum[at + 1] < target) at++;
    edge[m++] = lo + step * ((double)at + (target - cum[at]) / (cum[at + 1] - cum[at]));
  }
  edge[m++] = hi;
  for (k = 0; k < nk; k++)
    if (kinks[k] > lo && kinks[k] < hi) edge[m++] = kinks[k];
  qsort(edge, m, sizeof *edge, cmp_dbl);
  memcpy(raw, edge, m * sizeof *edge); /* the edges before rounding */
  at = float_edges(edge, m, 0);
  if (at - 1 < n) {
    /* Where the density crams several edges into one float's spacing (f'' concentrated at a
     * kink on the domain's end) rounding merged some, and a grid of n >= 2^bits cells could
     * end up with fewer than 2^bits: spread them one float apart instead, while the domain
     * has room (it always keeps the merged ones' order). */
    memcpy(edge, raw, m * sizeof *edge);
    at = float_edges(edge, m, 1);
  }
  m = at; /* m edges, m - 1 cells */
  free(dens);
  free(cum);
  free(raw);

  cells->n = m - 1;
  cells->edge = edge;
  cells->W = malloc(cells->n * sizeof(double));
  cells->S = malloc(cells->n * sizeof(double));
  cells->Q = malloc(cells->n * sizeof(double));
  if (!cells->W || !cells->S || !cells->Q) {
    actq_cells_free(cells);
    return ACTQ_ERR_OUT_OF_MEMORY;
  }
  for (i = 0; i < cells->n; i++) {
    moments mo = cell_moments(act, p, w, edge[i], edge[i + 1], 0.0);
    shift_num += mo.S;
    shift_den += mo.W;
  }
  cells->shift = shift_den > 0 ? shift_num / shift_den : 0;
  for (i = 0; i < cells->n; i++) {
    moments mo = cell_moments(act, p, w, edge[i], edge[i + 1], cells->shift);
    cells->W[i] = mo.W;
    cells->S[i] = mo.S;
    cells->Q[i] = mo.Q;
  }
  return ACTQ_OK;
}

void actq_cells_free(actq_cells *cells) {
  free(cells->edge);
  free(cells->W);
  free(cells->S);
  free(cells->Q);
  cells->edge = cells->W = cells->S = cells->Q = NULL;
}
