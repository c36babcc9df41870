/* test_abi_layout.c - the binary interface of include/actq.h and include/fewbit.h, frozen.
 *
 * Every public struct's size, alignment and field offsets, the size of every enum, every
 * enum constant and status code, and the version macros are compared with the numbers of
 * ABI major 0 (x86-64 and other LP64 targets). A change here breaks every program built
 * against the old header: if it is intended, bump ACTQ_ABI_MAJOR (CMakeLists.txt) and
 * update these numbers and abi/symbols.txt in the same commit (docs/reliability.md).
 */
#include <criterion/criterion.h>
#include <stddef.h>

#include "fewbit.h"

/* C99 has no alignof: the offset of T after one char is its alignment. */
#define ALIGNOF(T) offsetof(struct { char c; T t; }, t)
#define FROZEN(expr, value) cr_expect_eq((long long)(expr), (long long)(value), "%s is %lld, frozen at %lld", #expr, (long long)(expr), (long long)(value))

Test(abi_layout, actq_layout) {
  FROZEN(sizeof(actq_layout), 40);
  FROZEN(ALIGNOF(actq_layout), 8);
  FROZEN(offsetof(actq_layout, rows), 0);
  FROZEN(offsetof(actq_layout, cols), 8);
  FROZEN(offsetof(actq_layout, group_size), 16);
  FROZEN(offsetof(actq_layout, bits), 20);
  FROZEN(offsetof(actq_layout, row_bits), 24);
  FROZEN(offsetof(actq_layout, meta_dtype), 32);
}

Test(abi_layout, fewbit_options) {
  FROZEN(sizeof(fewbit_options), 48);
  FROZEN(ALIGNOF(fewbit_options), 8);
  FROZEN(offsetof(fewbit_options, weight), 0);
  FROZEN(offsetof(fewbit_options, mean), 8);
  FROZEN(offsetof(fewbit_options, std), 16);
  FROZEN(offsetof(fewbit_options, lo), 24);
  FROZEN(offsetof(fewbit_options, hi), 32);
  FROZEN(offsetof(fewbit_options, grid), 40);
}

Test(abi_layout, fewbit_table) {
  FROZEN(sizeof(fewbit_table), 2064);
  FROZEN(ALIGNOF(fewbit_table), 8);
  FROZEN(offsetof(fewbit_table, bits), 0);
  FROZEN(offsetof(fewbit_table, activation), 4);
  FROZEN(offsetof(fewbit_table, param), 8);
  FROZEN(offsetof(fewbit_table, bounds), 12);
  FROZEN(sizeof(((fewbit_table *)0)->bounds), 255 * 4);
  FROZEN(offsetof(fewbit_table, levels), 1032);
  FROZEN(sizeof(((fewbit_table *)0)->levels), 256 * 4);
  FROZEN(offsetof(fewbit_table, error), 2056);
}

Test(abi_layout, enum_sizes) {
  FROZEN(sizeof(actq_status), 4);
  FROZEN(sizeof(actq_backend), 4);
  FROZEN(sizeof(actq_dtype), 4);
  FROZEN(sizeof(actq_rounding), 4);
  FROZEN(sizeof(actq_alloc_method), 4);
  FROZEN(sizeof(fewbit_activation), 4);
  FROZEN(sizeof(fewbit_weight), 4);
}

Test(abi_layout, status_codes) {
  FROZEN(ACTQ_OK, 0);
  FROZEN(ACTQ_ERR_INVALID_ARGUMENT, 1);
  FROZEN(ACTQ_ERR_UNSUPPORTED, 2);
  FROZEN(ACTQ_ERR_OUT_OF_MEMORY, 3);
  FROZEN(ACTQ_ERR_SIZE_OVERFLOW, 4);
  FROZEN(ACTQ_ERR_NONFINITE, 5);
  FROZEN(ACTQ_ERR_DEVICE, 6);
  FROZEN(ACTQ_ERR_INTERNAL, 7);
}

Test(abi_layout, enum_constants) {
  FROZEN(ACTQ_BACKEND_CPU_REFERENCE, 0);
  FROZEN(ACTQ_BACKEND_CPU, 1);
  FROZEN(ACTQ_BACKEND_CUDA, 2);
  FROZEN(ACTQ_F32, 0);
  FROZEN(ACTQ_F16, 1);
  FROZEN(ACTQ_BF16, 2);
  FROZEN(ACTQ_ROUND_STOCHASTIC, 0);
  FROZEN(ACTQ_ROUND_NEAREST, 1);
  FROZEN(ACTQ_ALLOC_GREEDY, 0);
  FROZEN(ACTQ_ALLOC_EXACT, 1);
  FROZEN(FEWBIT_WEIGHT_NORMAL, 0);
  FROZEN(FEWBIT_WEIGHT_UNIFORM, 1);
}

Test(abi_layout, fewbit_activations) {
  FROZEN(FEWBIT_GELU, 1);
  FROZEN(FEWBIT_GELU_TANH, 2);
  FROZEN(FEWBIT_SILU, 3);
  FROZEN(FEWBIT_SIGMOID, 4);
  FROZEN(FEWBIT_TANH, 5);
  FROZEN(FEWBIT_SOFTPLUS, 6);
  FROZEN(FEWBIT_ELU, 7);
  FROZEN(FEWBIT_SELU, 8);
  FROZEN(FEWBIT_CELU, 9);
  FROZEN(FEWBIT_MISH, 10);
  FROZEN(FEWBIT_HARDSWISH, 11);
  FROZEN(FEWBIT_HARDSIGMOID, 12);
  FROZEN(FEWBIT_HARDTANH, 13);
  FROZEN(FEWBIT_SOFTSIGN, 14);
  FROZEN(FEWBIT_LOGSIGMOID, 15);
  FROZEN(FEWBIT_TANHSHRINK, 16);
  FROZEN(FEWBIT_RELU, 17);
  FROZEN(FEWBIT_RELU6, 18);
  FROZEN(FEWBIT_LEAKY_RELU, 19);
  FROZEN(FEWBIT_CUSTOM, 20);
}

Test(abi_layout, versions) {
  /* the format version is part of the contract: stored tensors must stay readable */
  FROZEN(ACTQ_FORMAT_VERSION, 1);
  FROZEN(ACTQ_VERSION_MAJOR, 0);
  FROZEN(ACTQ_VERSION_NUMBER, ACTQ_VERSION_MAJOR * 10000 + ACTQ_VERSION_MINOR * 100 + ACTQ_VERSION_PATCH);
  /* the header and the loaded library agree */
  FROZEN(actq_version(), ACTQ_VERSION_NUMBER);
}
