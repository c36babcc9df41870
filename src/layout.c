/* layout.c - validation of layouts and the sizes they imply. */
#include <stdint.h>

#include "src/layout.h"

actq_status actq_grid_from_layout(const actq_layout *layout, actq_grid *grid) {
  size_t r;
  if (!layout) return ACTQ_ERR_INVALID_ARGUMENT;
  if (layout->group_size < 8 || layout->group_size > 65536 || layout->group_size % 8 != 0)
    return ACTQ_ERR_INVALID_ARGUMENT;
  if (!layout->row_bits && (layout->bits < 1 || layout->bits > 8))
    return ACTQ_ERR_INVALID_ARGUMENT;
  if (!actq_dtype_valid(layout->meta_dtype)) return ACTQ_ERR_INVALID_ARGUMENT;
  /* Every element must be addressable as 4 bytes (f32 input or output); then every
   * derived count (packed bytes, groups, metadata bytes) fits as well. */
  if (layout->cols != 0 && layout->rows > SIZE_MAX / 4 / layout->cols)
    return ACTQ_ERR_SIZE_OVERFLOW;
  /* Only now is `rows` known to be an array length that can exist. */
  if (layout->row_bits)
    for (r = 0; r < layout->rows; r++)
      if (layout->row_bits[r] < 1 || layout->row_bits[r] > 8) return ACTQ_ERR_INVALID_ARGUMENT;

  grid->rows = layout->rows;
  grid->cols = layout->cols;
  grid->group_size = layout->group_size;
  grid->groups_per_row = layout->cols / layout->group_size +
                         (layout->cols % layout->group_size != 0);
  grid->bits = layout->row_bits ? 0 : layout->bits;
  grid->row_bits = layout->row_bits;
  grid->meta_dtype = layout->meta_dtype;
  return ACTQ_OK;
}

size_t actq_grid_packed_bytes(const actq_grid *grid) {
  return actq_grid_row_offset(grid, grid->rows);
}

actq_status actq_layout_sizes(const actq_layout *layout, size_t *packed_bytes,
                              size_t *groups) {
  actq_grid grid;
  actq_status st = actq_grid_from_layout(layout, &grid);
  if (st != ACTQ_OK) return st;
  if (packed_bytes) *packed_bytes = actq_grid_packed_bytes(&grid);
  if (groups) *groups = grid.rows * grid.groups_per_row;
  return ACTQ_OK;
}
