/* act_lanes16_emu.c - act_lanes16.c over SIMDe's AVX-512, for machines without AVX-512. */
#define ACT16_EMULATED
#define ACT16_FN actq_test_act16_emulated
#include "act_lanes16.c"
