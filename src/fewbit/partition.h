/* partition.h - the exact optimal partition of a sequence of weighted cells into at most
 * K contiguous intervals, each approximated by its weighted mean (dynamic programming). */
#ifndef ACTQ_FEWBIT_PARTITION_H
#define ACTQ_FEWBIT_PARTITION_H

#include <stddef.h>
#include <stdint.h>

#include "actq.h"

/* Cell c carries W = integral of w, S = integral of w*g, Q = integral of w*g^2 over it,
 * for some function g. The cost of an interval of cells is Q - S^2/W: the weighted
 * squared error of its best constant. Finds interval ends minimizing the total cost with
 * at most K intervals, borders only at edges e with allowed[e] != 0 (allowed may be NULL;
 * edge e lies between cell e-1 and cell e, 1 <= e < n).
 * Output: ends[0..K-1], strictly increasing cell indices with ends[K-1] = n; interval k
 * covers cells [ends[k-1], ends[k]) (ends[-1] = 0). When the optimum needs fewer than K
 * intervals, the largest intervals are split further at allowed edges (cost unchanged, as
 * the pieces keep their common level); returns ACTQ_ERR_INVALID_ARGUMENT when fewer than
 * K-1 allowed edges exist. */
actq_status actq_partition(size_t n, const double *W, const double *S, const double *Q,
                           const uint8_t *allowed, uint32_t K, size_t *ends);

#endif
