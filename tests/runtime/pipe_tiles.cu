// The row pipe's host-side arithmetic (runtime/include/stencilc/runtime/cuda/pipe.cuh), on the host
// (no GPU): pipe_tiles must split a chunk into tiles that cover its rows once (bands of at least
// STENCILC_PIPE_MIN_ROWS rows, in order) and its columns once (tiles of V * block threads columns
// from a multiple of V, none outside the box), STENCILC_PIPE_TILES tiles a block at most (unless a
// row needs more tiles across) in bands no thicker than that many need, or decline (count 0) only
// for thin bands, narrow rows or blocks of part of a warp, in either claim order (band by band, or
// down the columns of tiles first: STENCILC_PIPE_ORDER); pipe_span must give
// the aligned 16-byte chunks that hold every column a tile's reads reach, inside the tile's ring
// slot; the rings' sizes (pipe_ahead, pipe_ring_bytes) must be what the emitter's slots add up to.
// Built with nvcc, run on the host. Prints a line per failure and `N passed, M failed`.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <stencilc/runtime/cuda/pipe.cuh>

#include "tally.h"

namespace rc = stencilc::rt::cuda;

namespace {

using tally::check;

template <int V>
void one_case(int c0, int n0, int lo1, int hi1, int blocks, int threads) {
  const std::string c = "V " + std::to_string(V) + ", rows [" + std::to_string(c0) + ", " + std::to_string(c0 + n0) + "), columns [" +
                        std::to_string(lo1) + ", " + std::to_string(hi1) + "), " + std::to_string(blocks) + " blocks of " +
                        std::to_string(threads);
  const rc::PipeTiles p = rc::pipe_tiles<V>(c0, n0, lo1, hi1, blocks, threads);
  const int cols = V * threads;
  check(p.cols == cols && p.x_first % V == 0 && p.x_first <= lo1 && p.x_first > lo1 - V, c + ": tiles from lo rounded down to V");
  if (p.count == 0) {
    // Declined: a row narrower than half a tile, or bands thinner than the least.
    const int across = (hi1 - p.x_first + cols - 1) / cols;
    int bands = blocks / across;
    bands = bands < 1 ? 1 : bands > n0 ? n0 : bands;
    const int band = (n0 + bands - 1) / bands;
    check(2 * (hi1 - lo1) < cols || band < STENCILC_PIPE_MIN_ROWS || threads % 32 != 0, c + ": declined only where it does not pay");
    return;
  }
  check(p.band >= STENCILC_PIPE_MIN_ROWS, c + ": bands thick enough");
  check(p.count <= (blocks > p.across ? blocks : p.across) * STENCILC_PIPE_TILES, c + ": STENCILC_PIPE_TILES tiles a block at most");
  {
    int bands = blocks / p.across;
    bands = bands < 1 ? 1 : bands;
    bands = bands * STENCILC_PIPE_TILES < n0 ? bands * STENCILC_PIPE_TILES : n0;
    const int thin = (n0 + bands - 1) / bands;
    check(p.band == (thin > STENCILC_PIPE_MIN_ROWS ? thin : STENCILC_PIPE_MIN_ROWS), c + ": bands as thin as the tiles a block ask");
  }
  check(p.count % p.across == 0, c + ": whole bands");
  // Either claim order (PipeTiles::down, STENCILC_PIPE_ORDER) takes every band's every column
  // tile once; band-first order walks the bands in order, a band's tiles side by side.
  const int bands = p.count / p.across;
  for (const bool down : {false, true}) {
    rc::PipeTiles q = p;
    q.down = down;
    const std::string o = c + (down ? ", down the columns first" : ", band by band");
    std::vector<int> seen(static_cast<std::size_t>(p.count), 0);
    int next_row = c0;
    bool rows_ok = true, cols_ok = true, inside = true, order_ok = true;
    for (int t = 0; t < p.count; ++t) {
      int i0 = 0, i1 = 0, x0 = 0;
      q.tile(t, &i0, &i1, &x0);
      const int by = (i0 - c0) / p.band, tx = (x0 - p.x_first) / cols;
      rows_ok = rows_ok && (i0 - c0) % p.band == 0 && by >= 0 && by < bands && i1 == (i0 + p.band < c0 + n0 ? i0 + p.band : c0 + n0) &&
                i1 > i0;
      cols_ok = cols_ok && (x0 - p.x_first) % cols == 0 && tx >= 0 && tx < p.across && x0 % V == 0;
      if (rows_ok && cols_ok) ++seen[static_cast<std::size_t>(by * p.across + tx)];
      order_ok = order_ok && (down ? (by == t % bands && tx == t / bands) : (by == t / p.across && tx == t % p.across));
      if (!down && tx == 0) {  // a new band: right after the last
        order_ok = order_ok && i0 == next_row;
        next_row = i1;
      }
      inside = inside && x0 < hi1 && x0 + cols > lo1;
      if (down) continue;  // the spans depend on the tile, not on the order
      for (int r1 = 0; r1 <= V; ++r1) {
        const rc::PipeSpan s = rc::pipe_span<V>(x0, cols, lo1, hi1, r1);
        const int from = (x0 > lo1 ? x0 : lo1) - r1, to = (x0 + cols < hi1 ? x0 + cols : hi1) + r1;
        const bool covers = s.first % V == 0 && s.first <= from && s.first > from - V && s.first + s.chunks * V >= to &&
                            s.first + (s.chunks - 1) * V < to;
        const bool in_slot = s.at == s.first - x0 + V && s.at >= 0 && s.at + s.chunks * V <= rc::pipe_slot_cells<V>(threads);
        if (!covers || !in_slot) {
          check(false, c + ", tile " + std::to_string(t) + ", reach " + std::to_string(r1) + ": span " + std::to_string(s.first) +
                           " x " + std::to_string(s.chunks) + " at " + std::to_string(s.at));
        }
      }
    }
    bool once = true;
    for (int n : seen) once = once && n == 1;
    check(rows_ok && once && p.c0 + (bands - 1) * p.band < c0 + n0 && c0 + bands * p.band >= c0 + n0,
          o + ": the bands cover the rows once, each band's column tiles once");
    check(order_ok && (down || next_row == c0 + n0), o + ": claimed in its order");
    check(cols_ok && p.x_first + p.across * cols >= hi1 && p.x_first + (p.across - 1) * cols < hi1, o + ": the tiles cover the columns once");
    check(inside, o + ": no tile outside the box");
  }
  check(p.down == (STENCILC_PIPE_ORDER != 0), c + ": the order STENCILC_PIPE_ORDER names");
}

void sizes() {
  check(rc::pipe_ahead(1) == STENCILC_PIPE_AHEAD, "pipe_ahead(1) is kPipeAhead");
  for (int g = 1; g <= 6; ++g) {
    const int a = rc::pipe_ahead(g);
    check(a >= 2 && (a == 2 || a * g >= STENCILC_PIPE_AHEAD) && (a - 1) * g < STENCILC_PIPE_AHEAD + g, "pipe_ahead(" + std::to_string(g) + ")");
  }
  // jacobi2d: one ring of 3 + ahead slots of 256 * 4 + 8 floats; wave2d: rings of 3, 5, 3 + ahead.
  check(rc::pipe_ring_bytes(1, 3, 4, 256) == static_cast<std::size_t>(3 + rc::pipe_ahead(1)) * 1032 * 4, "jacobi2d's ring bytes");
  check(rc::pipe_ring_bytes(3, 11, 4, 256) == static_cast<std::size_t>(11 + 3 * rc::pipe_ahead(3)) * 1032 * 4, "wave2d's ring bytes");
  check(rc::pipe_ring_bytes(2, 5, 8, 256) == static_cast<std::size_t>(5 + 2 * rc::pipe_ahead(2)) * 516 * 8, "fp64 ring bytes");
  check(rc::pipe_most({3, 9, 4}) == 9 && rc::pipe_most({}) == 0, "pipe_most");
}

}  // namespace

int main() {
  // The benchmark's cases (at the default 8 tiles a block, 24 rows at least): jacobi2d 4096^2 on
  // 2 GPUs (a PE's 2047 interior rows, 260 compute blocks: a tile a block would be 32 rows thick;
  // 4 x 86 tiles of 24 rows), 16384^2 on 1 GPU (16 x 128 tiles of 128 rows).
  if (STENCILC_PIPE_TILES == 8 && STENCILC_PIPE_MIN_ROWS == 24) {
    const rc::PipeTiles j4096 = rc::pipe_tiles<4>(1, 2047, 1, 4095, 260, 256);
    check(j4096.across == 4 && j4096.band == 24 && j4096.count == 344, "jacobi2d 4096^2 on 2 GPUs: 344 tiles of 24 rows");
    const rc::PipeTiles j16384 = rc::pipe_tiles<4>(1, 16382, 1, 16383, 264, 256);
    check(j16384.across == 16 && j16384.band == 128 && j16384.count == 2048, "jacobi2d 16384^2 on 1 GPU: 2048 tiles of 128 rows");
  }
  check(rc::pipe_tiles<4>(1, 254, 1, 255, 264, 256).count == 0, "jacobi2d 256^2: the strips");
  check(rc::pipe_tiles<4>(1, 16382, 1, 16383, 264, 240).count == 0, "blocks of part of a warp: the strips (pipe_side's shuffles)");
  std::mt19937 rng(20261123);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int k = 0; k < 3000; ++k) {
    const int threads = 32 << pick(0, 3), blocks = pick(1, 300), c0 = pick(-2, 6), n0 = pick(1, 3000);
    const int lo1 = pick(-3, 6), hi1 = lo1 + pick(1, k % 3 == 0 ? 300 : 5000);
    one_case<4>(c0, n0, lo1, hi1, blocks, threads);
    one_case<2>(c0, n0, lo1, hi1, blocks, threads);
  }
  sizes();
  return tally::finish();
}
