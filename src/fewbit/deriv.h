/* deriv.h - the derivatives f' of the activations, in double, for the table solver. */
#ifndef ACTQ_FEWBIT_DERIV_H
#define ACTQ_FEWBIT_DERIV_H

#include "fewbit.h"

/* Nonzero when act (not CUSTOM) and its parameter are valid. */
int actq_deriv_valid(fewbit_activation act, float param);

/* f'(x), written from the math. At a kink the value is either one-sided limit (the
 * solver never evaluates there: kinks are cell edges). */
double actq_deriv(fewbit_activation act, double param, double x);

/* The points where f' jumps or has a corner, sorted; returns how many (<= 4). */
int actq_deriv_kinks(fewbit_activation act, double param, double kinks[4]);

#endif
