/* test_threads.c - many contexts used at once from several threads give the same bytes as
 * one context on one thread: 8 threads, 3 rounds each, every job of threads_check.c
 * (quantize, dequantize, unpack, few-bit tables, encode and backward, bit allocation). */
#include <criterion/criterion.h>

#include "support/threads_check.h"

Test(threads, many_contexts_same_bytes_as_one_thread, .timeout = 600) {
  char msg[1024];
  cr_assert_eq(threads_check_run(8, 3, msg, sizeof msg), 0, "%s", msg);
}
