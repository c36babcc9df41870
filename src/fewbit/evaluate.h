/* evaluate.h - the objective of any table under any weight (used by the fewbit-table
 * tool and the weighting comparison: what a table fitted for one input distribution
 * costs under another). */
#ifndef ACTQ_FEWBIT_EVALUATE_H
#define ACTQ_FEWBIT_EVALUATE_H

#include "src/fewbit/cells.h"

/* integral of w (f' - q)^2 over the weight's domain, for an analytic table. */
double actq_fewbit_table_error(const fewbit_table *t, const actq_weight_fn *w);

/* The weight the builder uses for options (NULL: N(0, 1)); options must be valid. */
actq_weight_fn actq_weight_from_options(const fewbit_options *o);

#endif
