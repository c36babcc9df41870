/* guard.h - test buffers that end right before an inaccessible page, so that a kernel
 * writing (or reading) one byte past its buffer dies with SIGSEGV instead of passing. */
#ifndef ACTQ_TEST_GUARD_H
#define ACTQ_TEST_GUARD_H

#include <stddef.h>

/* `bytes` usable bytes whose last byte is followed by a PROT_NONE page; the start is
 * wherever that puts it (so the alignment follows from `bytes`). Aborts on failure.
 * bytes == 0 gives a pointer right at the guard page. To test a start misaligned by k
 * bytes, allocate bytes + k and use p + k: the end still touches the guard. */
void *guard_alloc(size_t bytes);
void guard_free(void *p);

#endif
