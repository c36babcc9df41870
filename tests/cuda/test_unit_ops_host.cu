// test_unit_ops_host.cu - runs without a GPU: the per-lane code of the CUDA kernels
// (cuda/unit_ops.cuh, compiled here for the host) walked serially in the kernels' order
// (every group; every lane of its team; the team's minmax combined; metadata; codes)
// must give the reference's bytes. What this cannot check (warp shuffles, CUB's block
// reduction, the grid-stride loop, real device arithmetic) is left to the device tests.
// Pack/unpack and fewbit (cuda/pack_ops.cuh, cuda/fewbit_ops.cuh) are walked chunk by
// chunk, as their kernels map threads, and warp by warp where a warp stores through its
// shared-memory tile (cuda/warp_tile.cuh).
#include <criterion/criterion.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cuda/fewbit_ops.cuh"
#include "cuda/instances.cuh"
#include "cuda/pack_ops.cuh"
#include "cuda/unit_ops.cuh"

extern "C" {
#include "fewbit.h"
#include "src/layout.h"
#include "support/bytes_compare.h"
#include "support/data_gen.h"
}

using namespace actq_cuda_team;
using namespace actq_cuda_unit;

namespace {

// The kernel's grid: `blocks` blocks of 256/TEAM teams, each team walking its groups
// (group_walk) in the kernel's block-uniform loop.
template <actq_dtype DT, int TEAM, bool FAST, bool STOCH, int MDT = ANY_META, int BITS = 0>
void emulate_quantize(const quant_args &a, unsigned blocks) {
  constexpr int PER_BLOCK = ACTQ_CUDA_BLOCK / TEAM, CACHE = ACTQ_CUDA_LANE_UNITS;
  const size_t stride = (size_t)blocks * PER_BLOCK;
  std::vector<unit_cache<DT, CACHE>> c(TEAM);
  for (unsigned b = 0; b < blocks; b++)
    for (int slot = 0; slot < PER_BLOCK; slot++) {
      group_walk w(a.grid, (size_t)b * PER_BLOCK + slot, stride);
      for (size_t first = (size_t)b * PER_BLOCK; first < a.grid.groups; first += stride) {
        const group_pos p = group_at(a.grid, w.row, w.gi);
        w.next(a.grid);
        minmax m = minmax_identity();
        for (int lane = 0; lane < TEAM; lane++)
          m = minmax_op()(m, quantize_lane_scan<DT, TEAM, CACHE, FAST>(a, p, lane, c[lane]));
        if (!p.valid) continue;
        actq_group_meta g;
        const uint32_t bits = quantize_group_meta<MDT, BITS>(a, p, m, true, &g);
        if (g.nonfinite && *a.error == 0) *a.error = ACTQ_ERR_NONFINITE;
        for (int lane = 0; lane < TEAM; lane++)
          quantize_lane_codes<DT, TEAM, CACHE, FAST, STOCH, BITS != 0>(a, p, lane, g, bits, c[lane]);
      }
    }
}

// Calls that ran an instance with the metadata dtype (and, quantize, the width) compiled
// in: the test checks that it reached them.
int g_quantize_exact = 0, g_dequantize_exact = 0;

// The instance quantize_kernel.cuh's launcher starts (cuda/instances.cuh), walked.
template <actq_dtype DT>
void emulate_quantize_dtype(const quant_args &a, int team, bool fast, bool stoch, unsigned blocks) {
  actq_cuda_instance::quantize<DT>(a, team, fast, stoch, [&](auto tm, auto fa, auto st, auto md, auto bi) {
    g_quantize_exact += decltype(md)::value != ANY_META;
    emulate_quantize<DT, decltype(tm)::value, decltype(fa)::value, decltype(st)::value,
                     decltype(md)::value, decltype(bi)::value>(a, blocks);
  });
}

template <actq_dtype DT, int BITS, bool FAST, int MDT = ANY_META>
void emulate_dequantize(const dequant_args &a, int team, unsigned blocks) {
  const size_t per_block = ACTQ_CUDA_BLOCK / team;
  for (unsigned b = 0; b < blocks; b++)
    for (size_t slot = 0; slot < per_block; slot++)
      for (int lane = 0; lane < team; lane++)
        for (group_walk w(a.grid, b * per_block + slot, blocks * per_block); w.more(a.grid);
             w.next(a.grid))
          dequantize_lane<DT, BITS, FAST, MDT>(a, group_at(a.grid, w.row, w.gi), lane, team);
}

// The instance dequantize.cu's launcher starts (cuda/instances.cuh), walked; bits 0 =
// per-row widths.
template <actq_dtype DT>
void emulate_dequantize_dtype(const dequant_args &a, uint32_t bits, int team, bool fast, unsigned blocks) {
  actq_cuda_instance::dequantize<DT>(a, bits, fast, [&](auto bi, auto fa, auto md) {
    g_dequantize_exact += decltype(md)::value != ANY_META;
    emulate_dequantize<DT, decltype(bi)::value, decltype(fa)::value, decltype(md)::value>(a, team, blocks);
  });
}

// Row tables as cuda/scratch.cu builds them.
void rows_of(const actq_grid &gr, row_map *rm, std::vector<size_t> &off, std::vector<uint8_t> &w) {
  rm->offsets = nullptr;
  rm->widths = nullptr;
  rm->bits = gr.bits;
  rm->row_bytes = gr.row_bits ? 0 : actq_stream_bytes(gr.cols, gr.bits);
  if (!gr.row_bits) return;
  off.resize(gr.rows);
  w.assign(gr.row_bits, gr.row_bits + gr.rows);
  size_t o = 0;
  for (size_t r = 0; r < gr.rows; r++) {
    off[r] = o;
    o += actq_stream_bytes(gr.cols, gr.row_bits[r]);
  }
  rm->offsets = off.data();
  rm->widths = w.data();
}

const uint32_t kGroups[] = {8, 16, 24, 40, 64, 128, 136, 256, 512, 1024, 1032, 2048, 8192, 9000 / 8 * 8, 65536};

}  // namespace

Test(cuda_unit_ops_host, quantize_dequantize_equal_reference) {
  test_rng rng = {11};
  char msg[512];
  actq_context *ref = nullptr;
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ref), ACTQ_OK);
  g_quantize_exact = g_dequantize_exact = 0;
  for (int it = 0; it < 400; it++) {
    actq_layout l;
    std::memset(&l, 0, sizeof l);
    const bool big = it % 25 == 0;
    // Every other case is one the kernels' exact instances take (aligned whole units, a
    // width of 2, 4 or 8 for every row, metadata in f32 or x's dtype) unless big.
    const bool exact = it % 2 == 1;
    const actq_dtype xd = (actq_dtype)rng_below(&rng, 3), yd = (actq_dtype)rng_below(&rng, 3);
    l.group_size = kGroups[big ? 12 + rng_below(&rng, 3) : rng_below(&rng, 12)];
    l.rows = 1 + rng_below(&rng, big ? 2 : 6);
    l.cols = rng_below(&rng, 2) || exact ? 8 * (1 + rng_below(&rng, 300)) : 1 + rng_below(&rng, 2500);
    if (big) l.cols = l.group_size + rng_below(&rng, l.group_size);
    l.bits = exact ? 2u << rng_below(&rng, 3) : 1 + (uint32_t)rng_below(&rng, 8);
    l.meta_dtype = exact ? (rng_below(&rng, 2) ? ACTQ_F32 : xd) : (actq_dtype)rng_below(&rng, 3);
    std::vector<uint8_t> rb(l.rows);
    if (!exact && rng_below(&rng, 3) == 0) {
      for (auto &b : rb) b = (uint8_t)(1 + rng_below(&rng, 8));
      l.row_bits = rb.data();
    }
    const actq_rounding rd = (actq_rounding)rng_below(&rng, 2);
    const uint64_t seed = rng_next(&rng), offset = rng_next(&rng);
    const size_t n = l.rows * l.cols, xs = xd == ACTQ_F32 ? 4 : 2, ys = yd == ACTQ_F32 ? 4 : 2;
    const size_t ms = l.meta_dtype == ACTQ_F32 ? 4 : 2;
    size_t pbytes = 0, groups = 0;
    cr_assert_eq(actq_layout_sizes(&l, &pbytes, &groups), ACTQ_OK);
    // Buffers with a random misalignment of x (in elements) and of packed (in bytes).
    // packed: at any byte, but 8-byte aligned in 3 of 4 exact cases (the exact instances
    // need it; the others take the generic kernel with an exact layout).
    const size_t sx = rng_below(&rng, 2) || exact ? 0 : 1 + rng_below(&rng, 7);
    const size_t sp = exact && it % 8 != 7 ? 0 : rng_below(&rng, 5);
    std::vector<unsigned char> xbuf(n * xs + 64), pr(pbytes), pg(pbytes + 8, 0xA5);
    std::vector<unsigned char> minr(groups * ms), scr(groups * ms), ming(groups * ms), scg(groups * ms);
    std::vector<unsigned char> yr(n * ys), ygbuf(n * ys + 64);
    unsigned char *x = xbuf.data() + (16 - ((uintptr_t)xbuf.data() % 16)) % 16 + sx * xs;
    fill_groups(&rng, xd, x, l.rows, l.cols, l.group_size, 1);

    const actq_status rst = actq_quantize(ref, &l, xd, x, rd, seed, offset, pr.data(), minr.data(), scr.data());
    cr_assert(rst == ACTQ_OK || rst == ACTQ_ERR_NONFINITE);
    cr_assert_eq(actq_dequantize(ref, &l, pr.data(), minr.data(), scr.data(), yd, yr.data()), ACTQ_OK);

    actq_grid gr;
    cr_assert_eq(actq_grid_from_layout(&l, &gr), ACTQ_OK);
    std::vector<size_t> off;
    std::vector<uint8_t> widths;
    uint32_t error = 0;
    quant_args a;
    a.grid.rows = gr.rows;
    a.grid.cols = gr.cols;
    a.grid.group_size = gr.group_size;
    a.grid.groups_per_row = gr.groups_per_row;
    a.grid.groups = gr.rows * gr.groups_per_row;
    rows_of(gr, &a.rows, off, widths);
    a.x = x;
    a.meta_dtype = l.meta_dtype;
    actq_noise_round_keys(seed, a.rk);
    a.offset = offset;
    actq_noise_round0_terms(a.rk, a.offset, a.r0);
    a.packed = pg.data() + sp;
    std::memmove(pg.data() + sp, pg.data() + sp, 0);
    a.group_min = ming.data();
    a.group_scale = scg.data();
    a.error = &error;
    const bool fast = l.cols % 8 == 0 && (uintptr_t)x % 16 == 0;
    const bool stoch = rd == ACTQ_ROUND_STOCHASTIC;
    // The team of a call of this size on a device of 1-200 SMs (team_for_call may widen
    // team_for's for small calls; every choice must give the same bytes).
    const int tc = team_for_call(l.group_size, a.grid.groups, 1 + (int)rng_below(&rng, 200));
    // A grid of a few blocks (as on a device with 1-3 SMs, 1-2 resident blocks each), so
    // that teams walk several groups.
    const unsigned blocks = blocks_for(a.grid.groups, tc, 1 + (int)rng_below(&rng, 3), 1 + (int)rng_below(&rng, 2));
    if (xd == ACTQ_F32) emulate_quantize_dtype<ACTQ_F32>(a, tc, fast, stoch, blocks);
    else if (xd == ACTQ_F16) emulate_quantize_dtype<ACTQ_F16>(a, tc, fast, stoch, blocks);
    else emulate_quantize_dtype<ACTQ_BF16>(a, tc, fast, stoch, blocks);

    cr_assert_eq(error == 0 ? ACTQ_OK : (actq_status)error, rst, "case %d: status", it);
    cr_assert(bytes_equal("packed", pg.data() + sp, pr.data(), pbytes, msg, sizeof msg),
              "case %d G=%u b=%u rows=%zu cols=%zu x=%d fast=%d: %s", it, l.group_size, l.bits,
              l.rows, l.cols, (int)xd, (int)fast, msg);
    cr_assert(bytes_equal("group_min", ming.data(), minr.data(), groups * ms, msg, sizeof msg), "case %d: %s", it, msg);
    cr_assert(bytes_equal("group_scale", scg.data(), scr.data(), groups * ms, msg, sizeof msg), "case %d: %s", it, msg);

    dequant_args d;
    d.grid = a.grid;
    d.rows = a.rows;
    d.packed = a.packed;
    d.group_min = ming.data();
    d.group_scale = scg.data();
    d.meta_dtype = l.meta_dtype;
    unsigned char *y = ygbuf.data() + (16 - ((uintptr_t)ygbuf.data() % 16)) % 16 +
                       (rng_below(&rng, 2) ? 0 : ys);
    d.y = y;
    const bool yfast = l.cols % 8 == 0 && (uintptr_t)y % 16 == 0;
    const int team = team_for_call(l.group_size, a.grid.groups, 1 + (int)rng_below(&rng, 200));
    const unsigned dblocks = blocks_for(d.grid.groups, team, 1 + (int)rng_below(&rng, 3), 1 + (int)rng_below(&rng, 2));
    const uint32_t dbits = l.row_bits ? 0u : l.bits;
    if (yd == ACTQ_F32) emulate_dequantize_dtype<ACTQ_F32>(d, dbits, team, yfast, dblocks);
    else if (yd == ACTQ_F16) emulate_dequantize_dtype<ACTQ_F16>(d, dbits, team, yfast, dblocks);
    else emulate_dequantize_dtype<ACTQ_BF16>(d, dbits, team, yfast, dblocks);
    cr_assert(bytes_equal("y", y, yr.data(), n * ys, msg, sizeof msg), "case %d: %s", it, msg);
  }
  actq_context_destroy(ref);
  // The exact instances were reached (most exact cases; dequantize also needs y aligned).
  cr_assert_geq(g_quantize_exact, 100, "quantize's exact instances ran %d times", g_quantize_exact);
  cr_assert_geq(g_dequantize_exact, 60, "dequantize's exact instances ran %d times", g_dequantize_exact);
}

namespace {

// Lengths that reach every path of the chunk mapping: short calls, whole chunks, a
// partial last unit, a partial last chunk, and big calls (several blocks of threads).
size_t pack_length(test_rng *rng, int it) {
  const size_t chunk = 8 * PACK_CHUNK_UNITS;
  switch (it % 6) {
    case 0: return 1 + rng_below(rng, 40);
    case 1: return chunk * (1 + rng_below(rng, 40));
    case 2: return chunk * (1 + rng_below(rng, 40)) + 8 * rng_below(rng, PACK_CHUNK_UNITS);
    case 3: return chunk * rng_below(rng, 40) + 1 + rng_below(rng, chunk - 1);
    case 4: return 1 + rng_below(rng, 5000);
    default: return chunk * 256 * (1 + rng_below(rng, 3)) + rng_below(rng, 3 * chunk);
  }
}

// A kernel's threads walked warp by warp (32 chunks from a multiple of 32): a warp that
// the kernel sends through its shared-memory tile (tiled(c), the same for its 32 chunks)
// loads it lane by lane, fills it lane by lane, then flushes it lane by lane, as
// __syncwarp orders them; the lanes of other warps each do their own chunk. The tile
// starts as garbage, as shared memory does, so a slot that no lane wrote shows in the
// output.
template <uint32_t TNV, class Tiled, class Load, class Fill, class Flush, class Own>
uint32_t walk_warps(size_t chunks, Tiled tiled, Load load, Fill fill, Flush flush, Own own) {
  std::vector<uint4> tile(actq_cuda_tile::warp_tile<TNV>::VECTORS);
  uint32_t flag = 0;
  for (size_t c0 = 0; c0 < chunks; c0 += 32) {
    if (tiled(c0)) {
      cr_assert(tiled(c0 + 31), "a warp's chunks disagree about the tile at chunk %zu", c0);
      std::memset(tile.data(), 0xA5, tile.size() * sizeof(uint4));
      for (uint32_t lane = 0; lane < 32; lane++) load(c0 + lane, tile.data(), lane);
      for (uint32_t lane = 0; lane < 32; lane++) flag |= fill(c0 + lane, tile.data(), lane);
      for (uint32_t lane = 0; lane < 32; lane++) flush(c0 + lane, tile.data(), lane);
    } else {
      for (size_t c = c0; c < chunks && c < c0 + 32; c++) flag |= own(c);
    }
  }
  return flag;
}

// Both kernels walked as pack.cu launches them: the same vector choice and tiles.
uint32_t emulate_pack(uint32_t bits, size_t n, const uint8_t *codes, uint8_t *packed) {
  using namespace actq_cuda_packing;
  uint32_t over = 0;
  const bool vec = pack_vec_ok(codes, packed);
  with_bits(bits, [&](auto b) {
    auto walk = [&](auto v) {
      over = walk_warps<PACK_TILE_NV>(
          pack_chunks(n), [&](size_t c) { return pack_tiled<b, v>(n, c); },
          [&](size_t c, uint4 *t, uint32_t l) { pack_load<b>(codes, c, t, l); },
          [&](size_t, uint4 *t, uint32_t l) { return pack_fill<b>(t, l); },
          [&](size_t c, const uint4 *t, uint32_t l) { pack_flush<b>(packed, c, t, l); },
          [&](size_t c) { return pack_chunk<b, v>(n, codes, packed, c); });
    };
    vec ? walk(std::true_type()) : walk(std::false_type());
  });
  return over;
}

void emulate_unpack(uint32_t bits, size_t n, const uint8_t *packed, uint8_t *codes) {
  using namespace actq_cuda_packing;
  const bool vec = pack_vec_ok(codes, packed);
  with_bits(bits, [&](auto b) {
    auto walk = [&](auto v) {
      walk_warps<PACK_TILE_NV>(
          pack_chunks(n), [&](size_t c) { return unpack_tiled<v>(n, c); },
          [&](size_t c, uint4 *t, uint32_t l) { unpack_load<b>(packed, c, t, l); },
          [&](size_t, uint4 *t, uint32_t l) { unpack_fill<b>(t, l); return 0u; },
          [&](size_t c, const uint4 *t, uint32_t l) { unpack_flush(codes, c, t, l); },
          [&](size_t c) { unpack_chunk<b, v>(n, packed, codes, c); return 0u; });
    };
    vec ? walk(std::true_type()) : walk(std::false_type());
  });
}

// A 16-byte aligned address plus shift bytes inside buf (which has 32 bytes to spare).
uint8_t *at_shift(std::vector<uint8_t> &buf, size_t shift) {
  uint8_t *p = buf.data();
  return p + (16 - (uintptr_t)p % 16) % 16 + shift;
}

}  // namespace

Test(cuda_unit_ops_host, pack_unpack_equal_reference) {
  test_rng rng = {12};
  char msg[512];
  actq_context *ref = nullptr;
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ref), ACTQ_OK);
  for (int it = 0; it < 960; it++) {
    const uint32_t bits = 1 + (uint32_t)(it % 8);
    const size_t n = pack_length(&rng, it / 8);
    // Half the cases 16-byte aligned (the vector form), the others shifted at random.
    const bool aligned = (it / 8) % 2 == 0;
    const size_t sc = aligned ? 0 : rng_below(&rng, 16), sp = aligned ? 0 : rng_below(&rng, 16);
    const size_t pbytes = actq_stream_bytes(n, bits);
    std::vector<uint8_t> cbuf(n + 64), pr(pbytes), pbuf(pbytes + 64, 0xA5), ur(n), ubuf(n + 64, 0xA5);
    uint8_t *codes = at_shift(cbuf, sc), *pg = at_shift(pbuf, sp), *ug = at_shift(ubuf, sc);
    fill_codes(&rng, codes, n, bits, it % 7 == 0);
    const actq_status rst = actq_pack(ref, bits, n, codes, pr.data());
    actq_unpack(ref, bits, n, pr.data(), ur.data());
    const uint32_t over = emulate_pack(bits, n, codes, pg);
    emulate_unpack(bits, n, pg, ug);
    cr_assert_eq(over ? ACTQ_ERR_INVALID_ARGUMENT : ACTQ_OK, rst, "case %d: status", it);
    cr_assert(bytes_equal("packed", pg, pr.data(), pbytes, msg, sizeof msg),
              "case %d b=%u n=%zu sc=%zu sp=%zu: %s", it, bits, n, sc, sp, msg);
    cr_assert(bytes_all("after packed", pg + pbytes, 0xA5, pbuf.data() + pbuf.size() - pg - pbytes, msg, sizeof msg),
              "case %d b=%u n=%zu: %s", it, bits, n, msg);
    cr_assert(bytes_equal("codes", ug, ur.data(), n, msg, sizeof msg),
              "case %d b=%u n=%zu sc=%zu sp=%zu: %s", it, bits, n, sc, sp, msg);
    cr_assert(bytes_all("after codes", ug + n, 0xA5, ubuf.data() + ubuf.size() - ug - n, msg, sizeof msg),
              "case %d b=%u n=%zu: %s", it, bits, n, msg);
  }
  actq_context_destroy(ref);
}

namespace {

using namespace actq_cuda_fewbit;

// Both fewbit kernels walked as fewbit.cu launches them: the same vector choice, tiles
// and y instance (with_y_act), warp by warp, then (encode with y) every lane of every block
// in the y pass.
template <actq_dtype DT>
int emulate_encode(const fewbit_table &t, const encode_args &a) {
  int nan = 0;
  actq_cuda_packing::with_bits(t.bits, [&](auto b) {
    const bool vec = a.y ? encode_y_vec_ok<DT, b>(a.x, a.y, a.codes) : encode_vec_ok<DT, b>(a.x, a.codes);
    const size_t nc = chunks(a.n, chunk_units<DT>());
    auto walk = [&](auto v) {
      nan = (int)walk_warps<chunk_vectors<DT>()>(
          nc, [&](size_t c) { return chunk_tiled<DT, v>(a.n, c); },
          [&](size_t c, uint4 *tl, uint32_t l) { encode_load<DT>(a, c, tl, l); },
          [&](size_t c, uint4 *tl, uint32_t l) { return (uint32_t)encode_fill<DT, b>(a, c, tl, l); },
          [&](size_t c, const uint4 *tl, uint32_t l) { encode_flush<DT, b>(a, c, tl, l); },
          [&](size_t c) { return (uint32_t)encode_chunk<DT, b, v>(a, c); });
    };
    vec ? walk(std::true_type()) : walk(std::false_type());
    if (a.y)
      with_y_act(a.act, vec, [&](auto act) {
        for (size_t blk = 0; blk * FEWBIT_BLOCK < nc; blk++)
          for (size_t lane = 0; lane < FEWBIT_BLOCK; lane++)
            vec ? encode_y_block<DT, act, true>(a, blk, lane) : encode_y_block<DT, act, false>(a, blk, lane);
      });
  });
  return nan;
}

template <actq_dtype DT>
void emulate_backward(const fewbit_table &t, const backward_args &a) {
  actq_cuda_packing::with_bits(t.bits, [&](auto b) {
    auto walk = [&](auto v) {
      walk_warps<chunk_vectors<DT>()>(
          chunks(a.n, chunk_units<DT>()), [&](size_t c) { return chunk_tiled<DT, v>(a.n, c); },
          [](size_t, uint4 *, uint32_t) {},
          [&](size_t c, uint4 *tl, uint32_t l) { backward_fill<DT, b>(a, c, tl, l); return 0u; },
          [&](size_t c, const uint4 *tl, uint32_t l) { backward_flush<DT>(a, c, tl, l); },
          [&](size_t c) { backward_chunk<DT, b, v>(a, c); return 0u; });
    };
    backward_vec_ok<DT, b>(a.codes, a.grad_out, a.grad_in) ? walk(std::true_type()) : walk(std::false_type());
  });
}

// x values that reach every case of the search: the bounds and their neighbours, NaN,
// +-0, +-Inf, denormals, ordinary values, and (16-bit types) random bit patterns.
void fill_fewbit(test_rng *rng, const fewbit_table &t, actq_dtype dt, uint8_t *x, size_t n) {
  const uint32_t nb = (1u << t.bits) - 1u;
  for (size_t i = 0; i < n; i++) {
    float v;
    const uint32_t r = (uint32_t)rng_below(rng, 16);
    if (r < 5) v = t.bounds[rng_below(rng, nb)];
    else if (r < 7) v = std::nextafter(t.bounds[rng_below(rng, nb)], r == 5 ? -INFINITY : INFINITY);
    else if (r == 7) {
      const float sp[7] = {NAN, -NAN, 0.0f, -0.0f, INFINITY, -INFINITY, 1e-40f};
      v = sp[rng_below(rng, 7)];
    } else if (r == 8) {
      const uint32_t u = (uint32_t)rng_next(rng);
      std::memcpy(&v, &u, 4);
    } else {
      v = (float)(12.0 * (rng_unit(rng) - 0.5));
    }
    if (dt == ACTQ_F32) std::memcpy(x + 4 * i, &v, 4);
    else if (r == 8) ((uint16_t *)x)[i] = (uint16_t)rng_next(rng);
    else ((uint16_t *)x)[i] = actq_f32_to_h16(v, dt);
  }
}

// Lengths in units of the f32 chunk (32 elements) that reach every path: short, whole
// chunks of both chunk sizes, partial units and chunks, several blocks.
size_t fewbit_length(test_rng *rng, int it) {
  switch (it % 5) {
    case 0: return 1 + rng_below(rng, 70);
    case 1: return 64 * (1 + rng_below(rng, 60));
    case 2: return 32 * (1 + rng_below(rng, 120)) + 1 + rng_below(rng, 31);
    case 3: return 8 * (1 + rng_below(rng, 600));
    default: return 64 * 256 * (1 + rng_below(rng, 2)) + rng_below(rng, 200);
  }
}

}  // namespace

Test(cuda_unit_ops_host, fewbit_equal_reference) {
  test_rng rng = {13};
  char msg[512];
  actq_context *ref = nullptr;
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ref), ACTQ_OK);
  for (uint32_t bits = 1; bits <= 8; bits++) {
    // Every activation with a y kernel of its own, and others (the run-time one).
    const fewbit_activation acts[] = {FEWBIT_LEAKY_RELU, FEWBIT_GELU, FEWBIT_SILU, FEWBIT_GELU_TANH,
                                      FEWBIT_SIGMOID, FEWBIT_TANH, FEWBIT_ELU};
    fewbit_table tabs[2];
    for (int i = 0; i < 2; i++) {
      const fewbit_activation act = acts[(bits + 4 * i) % 7];
      cr_assert_eq(fewbit_table_build(act, act == FEWBIT_LEAKY_RELU ? 0.01f : 1.0f, bits, NULL, &tabs[i]), ACTQ_OK);
    }
    for (int it = 0; it < 60; it++) {
      const fewbit_table &t = tabs[(it / 2) % 2];
      const actq_dtype dt = (actq_dtype)(it % 3);
      const size_t es = dt == ACTQ_F32 ? 4 : 2, n = fewbit_length(&rng, it / 3);
      const bool with_y = it % 2 == 0, aligned = (it / 6) % 2 == 0;
      const size_t sx = aligned ? 0 : es * rng_below(&rng, 4), sy = aligned ? 0 : es * rng_below(&rng, 4);
      const size_t sc = aligned ? 0 : rng_below(&rng, 8), cb = actq_stream_bytes(n, bits);
      std::vector<uint8_t> xbuf(n * es + 64), ybuf(n * es + 64, 0xA5), cbuf(cb + 64, 0xA5);
      std::vector<uint8_t> gbuf(n * es + 64), ginbuf(n * es + 64, 0xA5);
      std::vector<uint8_t> yr(n * es), cr(cb), ginr(n * es);
      uint8_t *x = at_shift(xbuf, sx), *y = at_shift(ybuf, sy), *codes = at_shift(cbuf, sc);
      uint8_t *g = at_shift(gbuf, sx), *gin = at_shift(ginbuf, sy);
      fill_fewbit(&rng, t, dt, x, n);
      fill_fewbit(&rng, t, dt, g, n);
      const actq_status rst = fewbit_encode(ref, &t, n, dt, x, with_y ? yr.data() : NULL, cr.data());
      cr_assert(rst == ACTQ_OK || rst == ACTQ_ERR_NONFINITE);
      cr_assert_eq(fewbit_backward(ref, &t, n, cr.data(), dt, g, ginr.data()), ACTQ_OK);

      float bounds[256] = {0}, levels[256] = {0};
      level_order_bounds(t.bounds, bits, bounds);
      std::memcpy(levels, t.levels, (1u << bits) * sizeof(float));
      const encode_args ea = {bounds, (int)t.activation, t.param, n, x, with_y ? y : nullptr, codes};
      const int nan = dt == ACTQ_F32 ? emulate_encode<ACTQ_F32>(t, ea)
                      : dt == ACTQ_F16 ? emulate_encode<ACTQ_F16>(t, ea)
                                             : emulate_encode<ACTQ_BF16>(t, ea);
      const backward_args ba = {levels, n, codes, g, gin};
      if (dt == ACTQ_F32) emulate_backward<ACTQ_F32>(t, ba);
      else if (dt == ACTQ_F16) emulate_backward<ACTQ_F16>(t, ba);
      else emulate_backward<ACTQ_BF16>(t, ba);

      cr_assert_eq(nan ? ACTQ_ERR_NONFINITE : ACTQ_OK, rst, "b=%u case %d: status", bits, it);
      cr_assert(bytes_equal("codes", codes, cr.data(), cb, msg, sizeof msg),
                "b=%u case %d dt=%d n=%zu sx=%zu sc=%zu: %s", bits, it, (int)dt, n, sx, sc, msg);
      cr_assert(bytes_all("after codes", codes + cb, 0xA5, cbuf.data() + cbuf.size() - codes - cb, msg, sizeof msg),
                "b=%u case %d: %s", bits, it, msg);
      if (with_y)
        cr_assert(bytes_equal("y", y, yr.data(), n * es, msg, sizeof msg), "b=%u case %d dt=%d n=%zu: %s",
                  bits, it, dt, n, msg);
      cr_assert(bytes_all("after y", y + (with_y ? n * es : 0), 0xA5,
                          ybuf.data() + ybuf.size() - y - (with_y ? n * es : 0), msg, sizeof msg),
                "b=%u case %d: %s", bits, it, msg);
      cr_assert(bytes_equal("grad_in", gin, ginr.data(), n * es, msg, sizeof msg),
                "b=%u case %d dt=%d n=%zu sx=%zu sy=%zu sc=%zu: %s", bits, it, dt, n, sx, sy, sc, msg);
      cr_assert(bytes_all("after grad_in", gin + n * es, 0xA5, ginbuf.data() + ginbuf.size() - gin - n * es, msg, sizeof msg),
                "b=%u case %d: %s", bits, it, msg);
    }
  }
  actq_context_destroy(ref);
}

// The kernels' two-instruction noise value equals actq_noise_u for every 16-bit value, in
// both halves of a word (the host build of noise_u_half; the device build differs only in
// how it places the 16 bits).
Test(cuda_unit_ops_host, noise_u_half_equals_noise_u) {
  for (uint32_t r = 0; r < 65536; r++) {
    const uint32_t other = (r * 2654435761u) >> 16;
    cr_assert_eq(noise_u_half(r | other << 16, 0), actq_noise_u((uint16_t)r), "low r16 %u", r);
    cr_assert_eq(noise_u_half(other | r << 16, 1), actq_noise_u((uint16_t)r), "high r16 %u", r);
  }
}
