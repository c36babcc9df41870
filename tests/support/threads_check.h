/* threads_check.h - the threads test's engine: a fixed list of jobs run once on one thread,
 * then by several threads at once, each on contexts of its own (threads_check.c). Free of
 * Criterion so that it runs under ThreadSanitizer too. */
#ifndef ACTQ_TEST_THREADS_CHECK_H
#define ACTQ_TEST_THREADS_CHECK_H

#include <stddef.h>

#define THREADS_CHECK_MAX 16

/* Runs every job `rounds` times on each of `nthreads` threads (1..THREADS_CHECK_MAX).
 * Returns 0 when every call succeeded and every output byte equals the one-thread run;
 * otherwise 1, with what went wrong in msg. */
int threads_check_run(int nthreads, int rounds, char *msg, size_t msglen);

#endif
