/* threads_main.c - the threads test without Criterion, for ThreadSanitizer builds
 * (scripts/test-sanitizers tsan): exits 0 when every thread gave the one-thread bytes. */
#include <stdio.h>

#include "support/threads_check.h"

int main(void) {
  char msg[1024];
  const int bad = threads_check_run(8, 2, msg, sizeof msg);
  printf("threads_main: %s\n", bad ? msg : "8 threads, same bytes as one thread");
  return bad;
}
