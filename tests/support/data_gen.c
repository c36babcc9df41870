/* data_gen.c - see data_gen.h. One generator (splitmix64) and one element store for
 * every test: those of support/tensor.c. */
#include "support/data_gen.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "support/tensor.h"

uint64_t rng_next(test_rng *r) { return test_rand_u64(&r->s); }

uint64_t rng_below(test_rng *r, uint64_t n) { return rng_next(r) % n; }

double rng_unit(test_rng *r) { return test_rand_uniform(&r->s); }

static float random_bits_value(test_rng *rng) {
  uint32_t u = (uint32_t)rng_next(rng);
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* One group's values, by pattern. */
static float pattern_value(test_rng *rng, int pattern, float scale, float center, float cval,
                           size_t j, size_t len) {
  switch (pattern) {
    case 0: return center + scale * (float)(2.0 * rng_unit(rng) - 1.0);
    case 1: return cval;                                      /* constant group */
    case 2: return (j % 2 ? FLT_MAX : -FLT_MAX) * (float)(rng_unit(rng) < 0.8 ? 1.0 : 0.5);
    case 3: return (float)(rng_unit(rng) * 2.0 - 1.0) * 1e-39f; /* denormals and zeros */
    case 4: {                                                  /* one NaN or Inf */
      float v = center + scale * (float)rng_unit(rng);
      if (j == len / 2) v = rng_unit(rng) < 0.5 ? NAN : (rng_unit(rng) < 0.5 ? INFINITY : -INFINITY);
      return v;
    }
    case 5: return random_bits_value(rng);                    /* anything, NaNs included */
    case 6: return (j % 3 == 0) ? -0.0f : 0.0f;               /* signed zeros */
    default: return (float)(rng_unit(rng) * 65504.0 * 2.0 - 65504.0) * 1.01f; /* f16 edge */
  }
}

void fill_groups(test_rng *rng, actq_dtype dtype, void *x, size_t rows, size_t cols,
                 size_t group_size, int special) {
  size_t r, c0, j;
  for (r = 0; r < rows; r++) {
    for (c0 = 0; c0 < cols; c0 += group_size) {
      const size_t len = cols - c0 < group_size ? cols - c0 : group_size;
      const int pattern = special && rng_unit(rng) < 0.4 ? 1 + (int)rng_below(rng, 7) : 0;
      const float scale = (float)pow(10.0, (double)rng_below(rng, 13) - 6.0);
      const float center = (float)(rng_unit(rng) - 0.5) * scale * 4.0f;
      const float cval = rng_unit(rng) < 0.3 ? 0.0f : center;
      for (j = 0; j < len; j++)
        test_store(x, dtype, r * cols + c0 + j,
                   pattern_value(rng, pattern, scale, center, cval, j, len));
    }
  }
}

void fill_codes(test_rng *rng, uint8_t *codes, size_t n, uint32_t bits, int bad) {
  size_t i;
  for (i = 0; i < n; i++) codes[i] = (uint8_t)rng_below(rng, (uint64_t)1 << bits);
  if (bad && bits < 8 && n > 0) codes[rng_below(rng, n)] = (uint8_t)(1u << bits);
}
