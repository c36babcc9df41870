/* bytes_compare.h - byte-for-byte comparison of a backend's output with the reference's,
 * with a message naming the first difference. Plain C, no CUDA: tests/cuda/
 * test_bytes_compare.c proves on any machine that a one-byte difference is caught. */
#ifndef ACTQ_TEST_BYTES_COMPARE_H
#define ACTQ_TEST_BYTES_COMPARE_H

#include <stddef.h>

/* 1 when got[0..n) == want[0..n); else 0, and msg receives
 * "<what>: byte i of n differs: got 0x.. want 0x.. (k bytes differ)". */
int bytes_equal(const char *what, const void *got, const void *want, size_t n, char *msg,
                size_t cap);

/* 1 when every byte of p[0..n) is `value` (an untouched guard or poison area). */
int bytes_all(const char *what, const void *p, unsigned char value, size_t n, char *msg,
              size_t cap);

#endif
