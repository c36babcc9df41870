/* test_bytes_compare.c - runs on any machine: the comparison every CUDA equivalence test
 * uses (support/bytes_compare.c) must catch a single differing byte, wherever it is, and
 * a single stray write into a guard. This is what makes a CUDA byte difference fail. */
#include <criterion/criterion.h>
#include <string.h>

#include "support/bytes_compare.h"

Test(bytes_compare, equal_buffers_pass) {
  unsigned char a[257], b[257];
  char msg[256];
  size_t i;
  for (i = 0; i < sizeof a; i++) a[i] = b[i] = (unsigned char)(i * 37u);
  cr_assert(bytes_equal("x", a, b, sizeof a, msg, sizeof msg));
  cr_assert(bytes_equal("empty", a, b, 0, msg, sizeof msg));
}

Test(bytes_compare, one_byte_difference_anywhere_fails) {
  unsigned char a[257], b[257];
  char msg[256];
  size_t pos;
  for (pos = 0; pos < sizeof a; pos++) {
    memset(a, 0x5a, sizeof a);
    memset(b, 0x5a, sizeof b);
    b[pos] ^= 0x01; /* one bit of one byte */
    cr_assert_not(bytes_equal("packed", a, b, sizeof a, msg, sizeof msg), "missed byte %zu", pos);
    cr_assert(strstr(msg, "packed: byte ") != NULL, "message: %s", msg);
  }
}

Test(bytes_compare, guard_write_fails) {
  unsigned char g[64];
  char msg[256];
  memset(g, 0xA5, sizeof g);
  cr_assert(bytes_all("guard", g, 0xA5, sizeof g, msg, sizeof msg));
  g[63] = 0;
  cr_assert_not(bytes_all("guard", g, 0xA5, sizeof g, msg, sizeof msg));
}
