/* act_lanes16.h - the 16-lane activation forwards of act_lanes16.c, native and emulated. */
#ifndef ACTQ_TEST_ACT_LANES16_H
#define ACTQ_TEST_ACT_LANES16_H

#include <stddef.h>

void actq_test_act16_native(int act, float param, const float *in, float *out, size_t n);
void actq_test_act16_emulated(int act, float param, const float *in, float *out, size_t n);

#endif
