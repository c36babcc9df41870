/* status.c - status strings and the run-time version. */
#include "actq.h"

int actq_version(void) { return ACTQ_VERSION_NUMBER; }

const char *actq_status_string(actq_status s) {
  switch (s) {
    case ACTQ_OK: return "ok";
    case ACTQ_ERR_INVALID_ARGUMENT: return "invalid argument";
    case ACTQ_ERR_UNSUPPORTED: return "unsupported: backend or feature not available";
    case ACTQ_ERR_OUT_OF_MEMORY: return "out of memory";
    case ACTQ_ERR_SIZE_OVERFLOW: return "size overflow";
    case ACTQ_ERR_NONFINITE: return "nonfinite values met (NaN or Inf), stored as NaN groups";
    case ACTQ_ERR_DEVICE: return "device error (CUDA runtime or launch failure)";
    case ACTQ_ERR_INTERNAL: return "internal error";
  }
  return "unknown actq status";
}
