/* table.c - fewbit_table_build and fewbit_table_build_custom: grid, exact partition,
 * levels as weighted means, and the error of the table actually returned. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fewbit.h"
#include "src/fewbit/cells.h"
#include "src/fewbit/deriv.h"
#include "src/fewbit/evaluate.h"
#include "src/fewbit/partition.h"

/* Cells per level at the default grid: enough that the table's error is within 0.1% of
 * the continuous optimum (tests/fewbit/test_table.c checks it against a grid 8x finer),
 * with a floor for the few-level tables. */
static size_t default_cells(uint32_t bits) {
  const size_t per_level = 32, floor_cells = 1024;
  const size_t n = per_level << bits;
  return n > floor_cells ? n : floor_cells;
}

static int options_valid(const fewbit_options *o) {
  if (o->weight == FEWBIT_WEIGHT_NORMAL)
    return isfinite(o->mean) && isfinite(o->std) && o->std > 0 && isfinite(o->mean + 10 * o->std);
  if (o->weight == FEWBIT_WEIGHT_UNIFORM)
    return isfinite(o->lo) && isfinite(o->hi) && o->lo < o->hi && isfinite(o->hi - o->lo);
  return 0;
}

actq_status fewbit_table_build(fewbit_activation act, float param, uint32_t bits,
                               const fewbit_options *opt, fewbit_table *table) {
  static const fewbit_options normal01 = {FEWBIT_WEIGHT_NORMAL, 0.0, 1.0, 0.0, 0.0, 0};
  const fewbit_options *o = opt ? opt : &normal01;
  const uint32_t K = bits >= 1 && bits <= 8 ? 1u << bits : 0;
  actq_weight_fn w;
  actq_cells cells;
  size_t ends[256], k;
  fewbit_table t;
  actq_status st;
  if (!table || !K || !actq_deriv_valid(act, param) || !options_valid(o))
    return ACTQ_ERR_INVALID_ARGUMENT;
  if (o->grid != 0 && (o->grid < 16 || o->grid > (1u << 20))) return ACTQ_ERR_INVALID_ARGUMENT;
  /* fewbit.h: a grid of fewer than 2^bits cells is invalid, even where the activation's
   * kinks would add the missing cells */
  if (o->grid != 0 && o->grid < K) return ACTQ_ERR_INVALID_ARGUMENT;
  w = actq_weight_from_options(o);

  st = actq_cells_build(act, param, &w, o->grid ? o->grid : default_cells(bits), &cells);
  if (st != ACTQ_OK) return st;
  if (cells.n < K) {
    actq_cells_free(&cells);
    return ACTQ_ERR_INVALID_ARGUMENT; /* a grid too coarse for 2^bits levels */
  }
  st = actq_partition(cells.n, cells.W, cells.S, cells.Q, NULL, K, ends);
  if (st != ACTQ_OK) {
    actq_cells_free(&cells);
    return st;
  }

  memset(&t, 0, sizeof t);
  t.bits = bits;
  t.activation = (uint32_t)act;
  t.param = param;
  t.error = 0;
  for (k = 0; k < K; k++) {
    const size_t c0 = k ? ends[k - 1] : 0, c1 = ends[k];
    double W = 0, S = 0;
    size_t c;
    for (c = c0; c < c1; c++)
      actq_cells_mean_parts(act, param, &w, cells.edge[c], cells.edge[c + 1], &W, &S);
    /* the weighted mean; an interval without weight takes f' at its middle */
    t.levels[k] = W > 0 ? (float)(S / W)
                        : (float)actq_deriv(act, param, 0.5 * (cells.edge[c0] + cells.edge[c1]));
    if (k + 1 < K) t.bounds[k] = (float)cells.edge[c1];
    for (c = c0; c < c1; c++)
      t.error += actq_cells_error(act, param, &w, cells.edge[c], cells.edge[c + 1], t.levels[k]);
  }
  actq_cells_free(&cells);
  *table = t;
  return ACTQ_OK;
}

/* The K - used intervals the samples cannot fill (table bounds [0, used - 1) and levels
 * [0, used) are the partition's): their bounds are the floats just above the last sample,
 * levels the last interval's. Where the float range ends first (a sample at or beyond
 * FLT_MAX), the rest go just below the first sample, and where that ends too, at the free
 * floats from -FLT_MAX up. Each new bound splits an interval into two with the same level,
 * so the approximation, its error and every element's gradient are unchanged; the bounds
 * stay strictly increasing, as encode requires. */
static int bound_taken(const float *b, size_t nb, float v) {
  size_t i;
  for (i = 0; i < nb; i++)
    if (b[i] == v) return 1;
  return 0;
}

static void pad_empty_intervals(fewbit_table *t, size_t used, size_t K, float first,
                                float last) {
  float plevel[256], b[255];
  size_t nb = used - 1, i, j, p;
  float c = last;
  if (used < 1 || used > K || K > 256) return; /* not reached: 1 <= used <= K */
  for (i = 0; i < used; i++) plevel[i] = t->levels[i];
  for (i = 0; i < nb; i++) b[i] = t->bounds[i];
  while (nb < K - 1 && (c = nextafterf(c, INFINITY)) < INFINITY) b[nb++] = c;
  for (c = first; nb < K - 1 && (c = nextafterf(c, -INFINITY)) > -INFINITY;) b[nb++] = c;
  for (c = -FLT_MAX; nb < K - 1; c = nextafterf(c, INFINITY))
    if (!bound_taken(b, nb, c)) b[nb++] = c;
  for (i = 1; i < nb; i++) /* insertion sort: at most 255 bounds */
    for (j = i; j > 0 && b[j - 1] > b[j]; j--) {
      const float tmp = b[j];
      b[j] = b[j - 1];
      b[j - 1] = tmp;
    }
  /* interval k is (b[k-1], b[k]]: inside the partition's interval p, p = the partition
   * bounds at or below b[k-1] */
  for (i = 0, p = 0; i < K; i++) {
    if (i > 0)
      while (p + 1 < used && t->bounds[p] <= b[i - 1]) p++;
    t->levels[i] = plevel[p];
  }
  for (i = 0; i + 1 < K; i++) t->bounds[i] = b[i];
}

actq_status fewbit_table_build_custom(size_t n, const double *x, const double *dydx,
                                      const double *weight, uint32_t bits, fewbit_table *table) {
  const uint32_t K = bits >= 1 && bits <= 8 ? 1u << bits : 0;
  double *W, *S, *Q, shift_num = 0, shift_den = 0, shift;
  uint8_t *allowed;
  size_t ends[256], i, k, used;
  fewbit_table t;
  actq_status st;
  if (!table || !K || n < 2 || !x || !dydx) return ACTQ_ERR_INVALID_ARGUMENT;
  for (i = 0; i < n; i++) {
    if (!isfinite(x[i]) || !isfinite(dydx[i]) || (weight && (!isfinite(weight[i]) || weight[i] < 0)))
      return ACTQ_ERR_INVALID_ARGUMENT;
    if (i && !(x[i] > x[i - 1])) return ACTQ_ERR_INVALID_ARGUMENT;
  }
  W = malloc(n * sizeof(double));
  S = malloc(n * sizeof(double));
  Q = malloc(n * sizeof(double));
  allowed = malloc(n);
  if (!W || !S || !Q || !allowed) {
    st = ACTQ_ERR_OUT_OF_MEMORY;
    goto done;
  }
  /* trapezoid rule: sample i carries weight w_i * (x_{i+1} - x_{i-1}) / 2 */
  for (i = 0; i < n; i++) {
    const double left = i ? x[i] - x[i - 1] : 0, right = i + 1 < n ? x[i + 1] - x[i] : 0;
    W[i] = (weight ? weight[i] : 1.0) * 0.5 * (left + right);
    shift_num += W[i] * dydx[i];
    shift_den += W[i];
  }
  shift = shift_den > 0 ? shift_num / shift_den : 0;
  for (i = 0; i < n; i++) {
    const double g = dydx[i] - shift;
    S[i] = W[i] * g;
    Q[i] = W[i] * g * g;
    /* a border between samples i-1 and i sits at their float midpoint, which must
     * separate them once rounded: code(x[i-1]) < code(x[i]) */
    allowed[i] = i > 0 && (float)x[i - 1] <= (float)(0.5 * (x[i - 1] + x[i])) &&
                 (float)(0.5 * (x[i - 1] + x[i])) < (float)x[i];
  }
  /* Fewer separable gaps than borders (few samples): the intervals the samples can fill
   * come first, the rest are empty intervals above the last sample. */
  for (i = 0, used = 1; i < n; i++) used += allowed[i];
  if (used > K) used = K;
  st = actq_partition(n, W, S, Q, allowed, used, ends);
  if (st != ACTQ_OK) goto done;
  memset(&t, 0, sizeof t);
  t.bits = bits;
  t.activation = FEWBIT_CUSTOM;
  t.error = 0;
  for (k = 0; k < used; k++) {
    const size_t c0 = k ? ends[k - 1] : 0, c1 = ends[k];
    double w = 0, s = 0, plain = 0;
    size_t c;
    for (c = c0; c < c1; c++) {
      w += W[c];
      s += W[c] * dydx[c];
      plain += dydx[c];
    }
    t.levels[k] = (float)(w > 0 ? s / w : plain / (double)(c1 - c0));
    if (k + 1 < used) t.bounds[k] = (float)(0.5 * (x[c1 - 1] + x[c1]));
    for (c = c0; c < c1; c++) t.error += W[c] * (dydx[c] - t.levels[k]) * (dydx[c] - t.levels[k]);
  }
  pad_empty_intervals(&t, used, K, (float)x[0], (float)x[n - 1]);
  *table = t;
done:
  free(W);
  free(S);
  free(Q);
  free(allowed);
  return st;
}
