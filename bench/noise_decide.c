/* noise_decide.c - the statistics of ABI.md section 3's decision tests, applied to each
 * generator's raw noise stream (not through quantize: the candidates are not wired into
 * the library, so tests/test_stochastic.c cannot run on them).
 *
 * For a rounding fraction f, the decision of element e is d = [u >= 1 - f] (floor(t + u)
 * rounds up), u = r16 * 2^-16 + 2^-17. Reported as z-scores (|z| > 4 would be suspect):
 *   mean     (mean(d) - f) / sqrt(f (1-f) / n), f = 0.5, 0.1, 0.01
 *   var      sample variance of u against 1/12 (exact for the 2^16 midpoints: (1 - 2^-32)/12)
 *   pairs    Pearson correlation r of u between two streams, and of decisions at f = 0.5
 *            and 0.1, as z = r sqrt(n): neighbours (e, e+1), (e, e + 2^32), seeds (s, s+1),
 *            offsets (o, o+1); each over several base seeds, offsets and positions.
 * usage: noise_decide [log2 n per comparison (default 20)] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noise_gen.h"

typedef void (*gen_fn)(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out);

static void g_philox10(uint64_t s, uint64_t o, uint64_t e0, size_t n, uint16_t *out) {
  size_t i;
  for (i = 0; i < n; i += 8) actq_noise_block(s, o, (e0 + i) >> 3, out + i);
}
static void g_philox7(uint64_t s, uint64_t o, uint64_t e0, size_t n, uint16_t *out) {
  size_t i;
  for (i = 0; i < n; i += 8) ng_philox_block(7, s, o, (e0 + i) >> 3, out + i);
}
static void g_mx3(uint64_t s, uint64_t o, uint64_t e0, size_t n, uint16_t *out) {
  const ng_mx_key k = ng_mx_derive(s, o);
  size_t i;
  for (i = 0; i < n; i += 2) {
    const uint32_t x = ng_mx3(&k, (e0 + i) >> 1);
    out[i] = (uint16_t)x;
    out[i + 1] = (uint16_t)(x >> 16);
  }
}
static void g_mx2(uint64_t s, uint64_t o, uint64_t e0, size_t n, uint16_t *out) {
  const ng_mx_key k = ng_mx_derive(s, o);
  size_t i;
  for (i = 0; i < n; i += 2) {
    const uint32_t x = ng_mx2(&k, (e0 + i) >> 1);
    out[i] = (uint16_t)x;
    out[i + 1] = (uint16_t)(x >> 16);
  }
}
static uint32_t te[256];
static void g_ars5(uint64_t s, uint64_t o, uint64_t e0, size_t n, uint16_t *out) {
  const ng_ars_rk k = ng_ars_rk_derive(s);
  size_t i;
  for (i = 0; i < n; i += 8) ng_ars5_soft(&k, te, o, (e0 + i) >> 3, (uint32_t *)(out + i));
}

static const struct {
  const char *name;
  gen_fn fn;
} gens[] = {{"philox10", g_philox10}, {"philox7", g_philox7}, {"mx3", g_mx3},
            {"mx2", g_mx2},           {"ars5", g_ars5}};

static double u_of(uint16_t r) { return (double)r * (1.0 / 65536.0) + 1.0 / 131072.0; }

/* z of the correlation of (a, b), values or decisions at f (f = 0: the values u) */
static double corr_z(const uint16_t *a, const uint16_t *b, size_t n, double f) {
  double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0, r;
  size_t i;
  for (i = 0; i < n; i++) {
    double x = u_of(a[i]), y = u_of(b[i]);
    if (f > 0) {
      x = x >= 1 - f;
      y = y >= 1 - f;
    }
    sa += x;
    sb += y;
    saa += x * x;
    sbb += y * y;
    sab += x * y;
  }
  r = (sab - sa * sb / n) / sqrt((saa - sa * sa / n) * (sbb - sb * sb / n));
  return r * sqrt((double)n);
}

static double worst(double cur, double z) { return fabs(z) > fabs(cur) ? z : cur; }

int main(int argc, char **argv) {
  const unsigned lg = argc > 1 ? (unsigned)atoi(argv[1]) : 20u;
  const size_t n = (size_t)1 << lg;
  static const uint64_t seeds[] = {0, 1, 0xffffffffull, 0x0123456789abcdefull, ~0ull - 1};
  static const uint64_t offs[] = {0, 1, 0xfffffffeull, 0x8000000000000000ull};
  uint16_t *a = malloc((n + 8) * 2), *b = malloc((n + 8) * 2);
  size_t g;
  ng_aes_te0_init(te, ng_aes_sbox);
  printf("# noise_decide: n = 2^%u per comparison; worst z over %zu seeds x %zu offsets\n", lg,
         sizeof seeds / sizeof seeds[0], sizeof offs / sizeof offs[0]);
  printf("%-9s %8s %8s %8s %8s | %-26s %-26s %-26s %-26s\n", "gen", "mean.5", "mean.1",
         "mean.01", "var", "neighbour u/d.5/d.1", "e vs e+2^32 u/d.5/d.1", "seed s+1 u/d.5/d.1",
         "offset o+1 u/d.5/d.1");
  for (g = 0; g < sizeof gens / sizeof gens[0]; g++) {
    double zm[3] = {0, 0, 0}, zv = 0, zp[4][3];
    size_t si, oi, i;
    int k, c;
    memset(zp, 0, sizeof zp);
    for (si = 0; si < sizeof seeds / sizeof seeds[0]; si++)
      for (oi = 0; oi < sizeof offs / sizeof offs[0]; oi++) {
        const uint64_t s = seeds[si], o = offs[oi];
        const uint64_t e0 = (uint64_t)(si * 7 + oi) << 24; /* different places */
        static const double fs[3] = {0.5, 0.1, 0.01};
        double su = 0, suu = 0, var;
        gens[g].fn(s, o, e0, n + 8, a);
        for (k = 0; k < 3; k++) {
          size_t up = 0;
          for (i = 0; i < n; i++) up += u_of(a[i]) >= 1 - fs[k];
          zm[k] = worst(zm[k], ((double)up / n - fs[k]) / sqrt(fs[k] * (1 - fs[k]) / n));
        }
        for (i = 0; i < n; i++) {
          su += u_of(a[i]);
          suu += u_of(a[i]) * u_of(a[i]);
        }
        var = suu / n - (su / n) * (su / n);
        /* Var of a sample variance of uniforms: (mu4 - sigma^4) / n = (1/80 - 1/144) / n */
        zv = worst(zv, (var - (1 - 0x1p-32) / 12) / sqrt((1.0 / 80 - 1.0 / 144) / n));
        for (c = 0; c < 4; c++) {
          const uint16_t *x = a, *y = b;
          if (c == 0) y = a + 1; /* neighbours: e and e + 1 */
          else if (c == 1) gens[g].fn(s, o, e0 + ((uint64_t)1 << 32), n, b);
          else if (c == 2) gens[g].fn(s + 1, o, e0, n, b);
          else gens[g].fn(s, o + 1, e0, n, b);
          zp[c][0] = worst(zp[c][0], corr_z(x, y, n, 0));
          zp[c][1] = worst(zp[c][1], corr_z(x, y, n, 0.5));
          zp[c][2] = worst(zp[c][2], corr_z(x, y, n, 0.1));
        }
      }
    printf("%-9s %8.2f %8.2f %8.2f %8.2f |", gens[g].name, zm[0], zm[1], zm[2], zv);
    for (c = 0; c < 4; c++) printf(" %8.2f %8.2f %8.2f ", zp[c][0], zp[c][1], zp[c][2]);
    printf("\n");
    fflush(stdout);
  }
  free(a);
  free(b);
  return 0;
}
