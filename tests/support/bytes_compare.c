/* bytes_compare.c - see bytes_compare.h. */
#include "support/bytes_compare.h"

#include <stdio.h>

int bytes_equal(const char *what, const void *got, const void *want, size_t n, char *msg,
                size_t cap) {
  const unsigned char *g = (const unsigned char *)got, *w = (const unsigned char *)want;
  size_t i, first = n, count = 0;
  for (i = 0; i < n; i++) {
    if (g[i] != w[i]) {
      if (first == n) first = i;
      count++;
    }
  }
  if (count == 0) return 1;
  if (msg && cap)
    snprintf(msg, cap, "%s: byte %zu of %zu differs: got 0x%02x want 0x%02x (%zu bytes differ)",
             what, first, n, g[first], w[first], count);
  return 0;
}

int bytes_all(const char *what, const void *p, unsigned char value, size_t n, char *msg,
              size_t cap) {
  const unsigned char *b = (const unsigned char *)p;
  size_t i;
  for (i = 0; i < n; i++) {
    if (b[i] != value) {
      if (msg && cap)
        snprintf(msg, cap, "%s: byte %zu of %zu was written (0x%02x, expected 0x%02x)", what, i,
                 n, b[i], value);
      return 0;
    }
  }
  return 1;
}
