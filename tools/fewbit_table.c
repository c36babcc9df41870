/* fewbit_table.c - the `fewbit-table` tool: builds an optimal derivative table, prints it
 * with its error, or emits it as C source so that a framework can freeze it.
 *
 *   fewbit-table ACT [--param P] [--bits B] [--normal MEAN STD | --uniform LO HI]
 *                    [--grid N] [--c NAME]
 *   fewbit-table --weighting-report      (the README's N(0,1) vs uniform[-100,100] table)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fewbit.h"
#include "src/fewbit/evaluate.h"

static const char *const NAMES[] = {NULL,          "gelu",       "gelu_tanh", "silu",
                                    "sigmoid",     "tanh",       "softplus",  "elu",
                                    "selu",        "celu",       "mish",      "hardswish",
                                    "hardsigmoid", "hardtanh",   "softsign",  "logsigmoid",
                                    "tanhshrink",  "relu",       "relu6",     "leaky_relu"};
#define N_NAMES (sizeof NAMES / sizeof *NAMES)

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int usage(void) {
  fprintf(stderr,
          "usage: fewbit-table ACT [--param P] [--bits B] [--normal MEAN STD | --uniform LO HI]\n"
          "                        [--grid N] [--c NAME]\n"
          "       fewbit-table --weighting-report\n"
          "ACT: gelu gelu_tanh silu sigmoid tanh softplus elu selu celu mish hardswish\n"
          "     hardsigmoid hardtanh softsign logsigmoid tanhshrink relu relu6 leaky_relu\n"
          "defaults: --bits 2, --normal 0 1; param: softplus beta 1, elu/celu alpha 1,\n"
          "leaky_relu slope 0.01\n");
  return 2;
}

static float default_param(fewbit_activation act) {
  return act == FEWBIT_LEAKY_RELU ? 0.01f : 1.0f;
}

static void print_c(const fewbit_table *t, const char *name) {
  const uint32_t K = 1u << t->bits;
  uint32_t k;
  printf("/* fewbit-table: %s, %u bits, param %a; error %.9g */\n",
         NAMES[t->activation], t->bits, t->param, t->error);
  printf("static const fewbit_table %s = {\n  %u, %u, %af,\n  {", name, t->bits, t->activation,
         t->param);
  for (k = 0; k + 1 < K; k++) printf("%s%af", k % 6 ? ", " : (k ? ",\n   " : ""), t->bounds[k]);
  printf("},\n  {");
  for (k = 0; k < K; k++) printf("%s%af", k % 6 ? ", " : (k ? ",\n   " : ""), t->levels[k]);
  printf("},\n  %.17g};\n", t->error);
}

static void print_table(const fewbit_table *t, double ms) {
  const uint32_t K = 1u << t->bits;
  uint32_t k;
  printf("%s, %u bits, param %g: error %.6e (built in %.1f ms)\n", NAMES[t->activation], t->bits,
         t->param, t->error, ms);
  printf("%5s  %14s  %14s  %12s\n", "code", "from (excl.)", "to (incl.)", "level f'");
  for (k = 0; k < K; k++) {
    char lo[32], hi[32];
    if (k) snprintf(lo, sizeof lo, "%.7g", t->bounds[k - 1]); else strcpy(lo, "-inf");
    if (k + 1 < K) snprintf(hi, sizeof hi, "%.7g", t->bounds[k]); else strcpy(hi, "+inf");
    printf("%5u  %14s  %14s  %12.7g\n", k, lo, hi, t->levels[k]);
  }
}

/* Expected squared gradient error under N(0,1) inputs of a table fitted for N(0,1) and of
 * one fitted for uniform weight on [-100, 100] (the published Few-Bit objective). */
static int weighting_report(void) {
  static const fewbit_activation acts[] = {FEWBIT_GELU, FEWBIT_SILU, FEWBIT_SIGMOID,
                                           FEWBIT_TANH, FEWBIT_ELU,  FEWBIT_SOFTPLUS,
                                           FEWBIT_MISH, FEWBIT_HARDSWISH};
  const fewbit_options uniform = {FEWBIT_WEIGHT_UNIFORM, 0, 0, -100, 100, 0};
  const actq_weight_fn normal = actq_weight_from_options(NULL);
  size_t a;
  uint32_t bits;
  printf("| activation | bits | error, N(0,1) table | error, uniform[-100,100] table | ratio |\n");
  printf("| --- | ---: | ---: | ---: | ---: |\n");
  for (a = 0; a < sizeof acts / sizeof *acts; a++)
    for (bits = 1; bits <= 4; bits++) {
      fewbit_table tn, tu;
      double eu;
      if (fewbit_table_build(acts[a], default_param(acts[a]), bits, NULL, &tn) != ACTQ_OK ||
          fewbit_table_build(acts[a], default_param(acts[a]), bits, &uniform, &tu) != ACTQ_OK)
        return 1;
      eu = actq_fewbit_table_error(&tu, &normal);
      printf("| %s | %u | %.3e | %.3e | %.1fx |\n", NAMES[acts[a]], bits, tn.error, eu,
             tn.error > 0 ? eu / tn.error : 0.0);
    }
  return 0;
}

int main(int argc, char **argv) {
  fewbit_options o = {FEWBIT_WEIGHT_NORMAL, 0, 1, 0, 0, 0};
  fewbit_activation act = (fewbit_activation)0;
  const char *c_name = NULL;
  uint32_t bits = 2;
  float param = 0;
  int have_param = 0, i;
  size_t k;
  fewbit_table t;
  actq_status st;
  double t0;
  if (argc == 2 && strcmp(argv[1], "--weighting-report") == 0) return weighting_report();
  if (argc < 2) return usage();
  for (k = 1; k < N_NAMES; k++)
    if (strcmp(argv[1], NAMES[k]) == 0) act = (fewbit_activation)k;
  if (!act) return usage();
  for (i = 2; i < argc; i++) {
    const int left = argc - i - 1;
    if (strcmp(argv[i], "--param") == 0 && left >= 1) {
      param = strtof(argv[++i], NULL);
      have_param = 1;
    } else if (strcmp(argv[i], "--bits") == 0 && left >= 1) {
      bits = (uint32_t)strtoul(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--normal") == 0 && left >= 2) {
      o.weight = FEWBIT_WEIGHT_NORMAL;
      o.mean = strtod(argv[++i], NULL);
      o.std = strtod(argv[++i], NULL);
    } else if (strcmp(argv[i], "--uniform") == 0 && left >= 2) {
      o.weight = FEWBIT_WEIGHT_UNIFORM;
      o.lo = strtod(argv[++i], NULL);
      o.hi = strtod(argv[++i], NULL);
    } else if (strcmp(argv[i], "--grid") == 0 && left >= 1) {
      o.grid = (uint32_t)strtoul(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--c") == 0 && left >= 1) {
      c_name = argv[++i];
    } else {
      return usage();
    }
  }
  if (!have_param) param = default_param(act);
  t0 = now();
  st = fewbit_table_build(act, param, bits, &o, &t);
  if (st != ACTQ_OK) {
    fprintf(stderr, "fewbit-table: %s\n", actq_status_string(st));
    return 1;
  }
  if (c_name)
    print_c(&t, c_name);
  else
    print_table(&t, (now() - t0) * 1e3);
  return 0;
}
