/* abi_values.c - what the C compiler says about the public ABI: struct sizes, field
 * offsets, enum values and version macros, by name. The language bindings mirror these by
 * hand; their tests compare against this file, so a header change that a binding missed
 * fails a test instead of corrupting memory.
 *
 * Linked into the Fortran test: actq_abi_value("actq_layout.cols") returns the offset
 * (-1 for an unknown name). Built with -DACTQ_ABI_MAIN it is a program that prints every
 * "name value" line (the Rust test runs it). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fewbit.h"

typedef struct abi_value {
  const char *name;
  int64_t value;
} abi_value;

#define SIZE(t) {#t ".size", (int64_t)sizeof(t)}
#define ALIGN(t) {#t ".align", (int64_t)offsetof(struct { char c; t v; }, v)}
#define FIELD(t, f) {#t "." #f, (int64_t)offsetof(t, f)}
#define VALUE(v) {#v, (int64_t)(v)}

static const abi_value abi_values[] = {
  SIZE(actq_layout), ALIGN(actq_layout),
  FIELD(actq_layout, rows), FIELD(actq_layout, cols), FIELD(actq_layout, group_size),
  FIELD(actq_layout, bits), FIELD(actq_layout, row_bits), FIELD(actq_layout, meta_dtype),
  SIZE(fewbit_options), ALIGN(fewbit_options),
  FIELD(fewbit_options, weight), FIELD(fewbit_options, mean), FIELD(fewbit_options, std),
  FIELD(fewbit_options, lo), FIELD(fewbit_options, hi), FIELD(fewbit_options, grid),
  SIZE(fewbit_table), ALIGN(fewbit_table),
  FIELD(fewbit_table, bits), FIELD(fewbit_table, activation), FIELD(fewbit_table, param),
  FIELD(fewbit_table, bounds), FIELD(fewbit_table, levels), FIELD(fewbit_table, error),
  SIZE(actq_status), SIZE(actq_backend), SIZE(actq_dtype), SIZE(actq_rounding),
  SIZE(actq_alloc_method), SIZE(fewbit_activation), SIZE(fewbit_weight),
  VALUE(ACTQ_VERSION_MAJOR), VALUE(ACTQ_VERSION_MINOR), VALUE(ACTQ_VERSION_PATCH),
  VALUE(ACTQ_VERSION_NUMBER), VALUE(ACTQ_FORMAT_VERSION),
  VALUE(ACTQ_OK), VALUE(ACTQ_ERR_INVALID_ARGUMENT), VALUE(ACTQ_ERR_UNSUPPORTED),
  VALUE(ACTQ_ERR_OUT_OF_MEMORY), VALUE(ACTQ_ERR_SIZE_OVERFLOW), VALUE(ACTQ_ERR_NONFINITE),
  VALUE(ACTQ_ERR_DEVICE), VALUE(ACTQ_ERR_INTERNAL),
  VALUE(ACTQ_BACKEND_CPU_REFERENCE), VALUE(ACTQ_BACKEND_CPU), VALUE(ACTQ_BACKEND_CUDA),
  VALUE(ACTQ_F32), VALUE(ACTQ_F16), VALUE(ACTQ_BF16),
  VALUE(ACTQ_ROUND_STOCHASTIC), VALUE(ACTQ_ROUND_NEAREST),
  VALUE(ACTQ_ALLOC_GREEDY), VALUE(ACTQ_ALLOC_EXACT),
  VALUE(FEWBIT_GELU), VALUE(FEWBIT_GELU_TANH), VALUE(FEWBIT_SILU), VALUE(FEWBIT_SIGMOID),
  VALUE(FEWBIT_TANH), VALUE(FEWBIT_SOFTPLUS), VALUE(FEWBIT_ELU), VALUE(FEWBIT_SELU),
  VALUE(FEWBIT_CELU), VALUE(FEWBIT_MISH), VALUE(FEWBIT_HARDSWISH), VALUE(FEWBIT_HARDSIGMOID),
  VALUE(FEWBIT_HARDTANH), VALUE(FEWBIT_SOFTSIGN), VALUE(FEWBIT_LOGSIGMOID),
  VALUE(FEWBIT_TANHSHRINK), VALUE(FEWBIT_RELU), VALUE(FEWBIT_RELU6), VALUE(FEWBIT_LEAKY_RELU),
  VALUE(FEWBIT_CUSTOM), VALUE(FEWBIT_WEIGHT_NORMAL), VALUE(FEWBIT_WEIGHT_UNIFORM),
};

int64_t actq_abi_value(const char *name);

int64_t actq_abi_value(const char *name) {
  size_t i;
  for (i = 0; i < sizeof abi_values / sizeof abi_values[0]; i++)
    if (strcmp(abi_values[i].name, name) == 0) return abi_values[i].value;
  return -1;
}

#ifdef ACTQ_ABI_MAIN
int main(void) {
  size_t i;
  for (i = 0; i < sizeof abi_values / sizeof abi_values[0]; i++)
    printf("%s %lld\n", abi_values[i].name, (long long)abi_values[i].value);
  return 0;
}
#endif
