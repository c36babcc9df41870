/* act_fma_lanes_undef.h - forgets the operation macros of one cpu/act_fma_lanes.h
 * instantiation, so that the next width defines its own. No include guard. */
#undef ACTQ_L_FN
#undef ACTQ_L
#undef LV
#undef LM
#undef LI
#undef L_SET
#undef L_ADD
#undef L_SUB
#undef L_MUL
#undef L_DIV
#undef L_MIN
#undef L_MAX
#undef L_FMA
#undef L_FMS
#undef L_OR
#undef L_XOR
#undef L_LT
#undef L_GT
#undef L_SEL
#undef L_ABS
#undef L_WITH_SIGN
#undef L_POW2
#undef L_ROW16
#undef L_CVTT
#undef L_ANY
