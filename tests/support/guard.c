/* guard.c - guard-page buffers (see guard.h). */
#define _DEFAULT_SOURCE
#include "guard.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct guard_header {
  void *base;
  size_t length;
} guard_header;

void *guard_alloc(size_t bytes) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  /* data ends at the guard page; its start is (end - bytes); the header sits in front */
  size_t data_pages = (bytes + sizeof(guard_header) + page - 1) / page;
  size_t length = (data_pages + 1) * page;
  uint8_t *base = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  uint8_t *guard, *data;
  guard_header h;
  if (base == MAP_FAILED) {
    perror("guard_alloc: mmap");
    abort();
  }
  guard = base + data_pages * page;
  if (mprotect(guard, page, PROT_NONE) != 0) {
    perror("guard_alloc: mprotect");
    abort();
  }
  data = guard - bytes;
  h.base = base;
  h.length = length;
  /* header stored just below the data, unaligned-safe */
  __builtin_memcpy(data - sizeof h, &h, sizeof h);
  return data;
}

void guard_free(void *p) {
  guard_header h;
  if (!p) return;
  __builtin_memcpy(&h, (uint8_t *)p - sizeof h, sizeof h);
  munmap(h.base, h.length);
}
