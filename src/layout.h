/* layout.h - validation of layouts and the sizes they imply. */
#ifndef ACTQ_LAYOUT_H
#define ACTQ_LAYOUT_H

#include "src/job.h"

/* Checks a layout and fills grid. Order of checks: NULL layout, group size, uniform
 * width, meta dtype (ACTQ_ERR_INVALID_ARGUMENT); sizes (ACTQ_ERR_SIZE_OVERFLOW when
 * rows*cols elements of 4 bytes cannot be addressed); then the row_bits entries. */
actq_status actq_grid_from_layout(const actq_layout *layout, actq_grid *grid);

/* Bytes of the packed stream of a validated grid. */
size_t actq_grid_packed_bytes(const actq_grid *grid);

static inline int actq_dtype_valid(actq_dtype t) {
  return t == ACTQ_F32 || t == ACTQ_F16 || t == ACTQ_BF16;
}

#endif /* ACTQ_LAYOUT_H */
