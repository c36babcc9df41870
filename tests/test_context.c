/* test_context.c - statuses, versions, contexts and their settings. */
#include <criterion/criterion.h>
#include <string.h>

#include "actq.h"

Test(status, every_status_has_a_distinct_string) {
  const char *seen[8];
  int s, t;
  for (s = 0; s < 8; s++) {
    seen[s] = actq_status_string((actq_status)s);
    cr_assert_not_null(seen[s]);
    cr_assert(strlen(seen[s]) > 0);
    for (t = 0; t < s; t++) cr_assert_str_neq(seen[s], seen[t]);
  }
  cr_assert_str_eq(actq_status_string((actq_status)8), "unknown actq status");
  cr_assert_str_eq(actq_status_string((actq_status)-1), "unknown actq status");
  cr_assert_str_eq(actq_status_string(ACTQ_OK), "ok");
}

Test(status, fixed_values) {
  cr_assert_eq(ACTQ_OK, 0);
  cr_assert_eq(ACTQ_ERR_INVALID_ARGUMENT, 1);
  cr_assert_eq(ACTQ_ERR_UNSUPPORTED, 2);
  cr_assert_eq(ACTQ_ERR_OUT_OF_MEMORY, 3);
  cr_assert_eq(ACTQ_ERR_SIZE_OVERFLOW, 4);
  cr_assert_eq(ACTQ_ERR_NONFINITE, 5);
  cr_assert_eq(ACTQ_ERR_DEVICE, 6);
  cr_assert_eq(ACTQ_ERR_INTERNAL, 7);
}

Test(version, runtime_matches_macros) {
  cr_assert_eq(actq_version(),
               ACTQ_VERSION_MAJOR * 10000 + ACTQ_VERSION_MINOR * 100 + ACTQ_VERSION_PATCH);
  cr_assert_eq(ACTQ_FORMAT_VERSION, 1);
}

Test(context, cpu_backends_create_and_describe) {
  actq_context *ctx = (actq_context *)0x1;
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ctx), ACTQ_OK);
  cr_assert_not_null(ctx);
  cr_assert(strstr(actq_context_describe(ctx), "reference") != NULL);
  cr_assert_eq(actq_context_set_threads(ctx, 4), ACTQ_OK);
  cr_assert(strstr(actq_context_describe(ctx), "1 thread") != NULL,
            "the reference stays single-threaded: %s", actq_context_describe(ctx));
  cr_assert_eq(actq_context_set_stream(ctx, NULL), ACTQ_ERR_UNSUPPORTED);
  cr_assert_eq(actq_context_synchronize(ctx), ACTQ_OK);
  actq_context_destroy(ctx);

  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU, &ctx), ACTQ_OK);
  cr_assert(strncmp(actq_context_describe(ctx), "cpu ", 4) == 0);
  cr_assert_eq(actq_context_set_threads(ctx, 3), ACTQ_OK);
  cr_assert(strstr(actq_context_describe(ctx), "3 threads") != NULL, "%s",
            actq_context_describe(ctx));
  cr_assert_eq(actq_context_set_threads(ctx, 0), ACTQ_OK);
  cr_assert_eq(actq_context_set_threads(ctx, -1), ACTQ_ERR_INVALID_ARGUMENT);
  actq_context_destroy(ctx);
}

Test(context, bad_arguments) {
  actq_context *ctx = (actq_context *)0x1;
  cr_assert_eq(actq_context_create((actq_backend)3, &ctx), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_null(ctx);
  cr_assert_eq(actq_context_create((actq_backend)-1, &ctx), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU, NULL), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(actq_context_set_threads(NULL, 1), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(actq_context_set_stream(NULL, NULL), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(actq_context_synchronize(NULL), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_str_eq(actq_context_describe(NULL), "(null)");
  actq_context_destroy(NULL);
}

Test(context, cuda_is_unsupported_or_works) {
  actq_context *ctx = NULL;
  actq_status st = actq_context_create(ACTQ_BACKEND_CUDA, &ctx);
  cr_assert(st == ACTQ_OK || st == ACTQ_ERR_UNSUPPORTED, "status %d", st);
  if (st == ACTQ_OK) {
    cr_assert_eq(actq_context_set_threads(ctx, 2), ACTQ_ERR_UNSUPPORTED);
    actq_context_destroy(ctx);
  } else {
    cr_assert_null(ctx);
  }
}
