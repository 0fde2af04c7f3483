// Moving a global grid into blocks and back (include/stencilc/compiled.hpp: fill_cells and
// gather_cells, which every GPU launcher and the host backend use), checked without a GPU on the
// layouts the GPU uses (rt::cuda::dblock_shape: rows padded to 16 bytes, a lead before the first
// halo cell) and on the host backend's: for 1 to 3 dimensions, random extents, periodic and fixed
// dimensions, halos of 0 to 3 and process grids of 1 to 6 PEs, every halo'd cell of every PE's
// block must hold what an independent cell-by-cell rule gives (the global cell, wrapped where
// periodic, or the poison where there is none), the padding and lead cells must stay untouched,
// and gathering the blocks' owned cells must give the grid back. Built with nvcc (the DBlock
// header is CUDA), run on the host. Prints a line per failure and `N passed, M failed`.
#include <cstdio>
#include <random>
#include <stencilc/compiled.hpp>
#include <stencilc/runtime/cuda/dblock.cuh>
#include <vector>

namespace sc = stencilc::compiled;
namespace rc = stencilc::rt::cuda;

namespace {

int passed = 0, failed = 0;
constexpr double kUntouched = -7.5, kNone = -1.25;

void check(bool ok, const char* what, int n, int seed, int pe, long cell) {
  if (ok) {
    ++passed;
    return;
  }
  ++failed;
  if (failed < 20) std::printf("FAIL %s (%d-D, case %d, PE %d, cell %ld)\n", what, n, seed, pe, cell);
}

// The value cell `l` (local, halos allowed) of a block at `origin` must hold: the rule of the
// reference build, written out cell by cell.
template <int N>
double expected(const stencilc::Grid<double, N>& g, const int* origin, const std::array<int, N>& l) {
  std::array<int, N> gi{};
  for (int d = 0; d < N; ++d) {
    gi[d] = origin[d] + l[d];
    const int n = g.extent(d);
    if (g.boundary(d).kind == stencilc::Boundary::Kind::Periodic) gi[d] = ((gi[d] % n) + n) % n;
    if (gi[d] < 0 || gi[d] >= n) return kNone;
  }
  if constexpr (N == 1) return g(gi[0]);
  if constexpr (N == 2) return g(gi[0], gi[1]);
  if constexpr (N == 3) return g(gi[0], gi[1], gi[2]);
}

template <int N>
void one_case(std::mt19937& rng, int seed, bool gpu_layout) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::array<int, N> extent{}, lo{}, hi{};
  std::array<stencilc::Boundary, N> bounds{};
  std::array<int, 3> e3{1, 1, 1}, lo3{0, 0, 0}, hi3{0, 0, 0};
  for (int d = 0; d < N; ++d) {
    extent[d] = pick(1, N == 3 ? 9 : 23);
    lo[d] = pick(0, 3);
    hi[d] = pick(0, 3);
    bounds[d] = pick(0, 1) ? stencilc::periodic() : stencilc::fixed(pick(0, 2));
    e3[d] = extent[d], lo3[d] = lo[d], hi3[d] = hi[d];
  }
  stencilc::Grid<double, N> g(extent, bounds);
  std::uniform_real_distribution<double> value(0.0, 1.0);
  std::vector<double> v(g.size());
  for (double& x : v) x = value(rng);
  g.copy_from(v);
  std::string error;
  const int pes = pick(1, 6);
  const std::optional<stencilc::rt::ProcessGrid> grid = stencilc::rt::choose_process_grid(pes, N, e3, lo3, hi3, "", &error);
  if (!grid) return;  // more PEs than cells somewhere: not a layout this test is about
  stencilc::Grid<double, N> back(extent, bounds);
  for (int pe = 0; pe < grid->size(); ++pe) {
    rc::DBlock<double, N> b = rc::dblock_shape<double, N>(*grid, pe, extent, lo, hi);
    if (!gpu_layout) {  // the host backend's layout: unpadded rows, no lead
      const stencilc::rt::Block<double, N> h = stencilc::rt::block_shape<double, N>(*grid, pe, extent, lo, hi);
      b = rc::to_dblock<double, N>(h);
    }
    std::vector<double> cells(static_cast<std::size_t>(b.allocated()), kUntouched);
    sc::fill_cells<double, N>(g, sc::layout_of<rc::DBlock<double, N>, N>(b), cells.data() + b.data_offset(), kNone);
    // Every halo'd cell by the rule; every other cell of the allocation untouched.
    std::vector<char> seen(cells.size(), 0);
    std::array<int, N> l{};
    for (int d = 0; d < N; ++d) l[d] = -lo[d];
    bool all = true, untouched = true;
    for (;;) {
      long at = b.data_offset();
      for (int d = 0; d < N; ++d) at += l[d] * b.stride[d];
      seen[static_cast<std::size_t>(at)] = 1;
      all = all && cells[static_cast<std::size_t>(at)] == expected<N>(g, b.origin, l);
      int d = N - 1;
      while (d >= 0 && ++l[d] == b.extent[d] + hi[d]) l[d] = -lo[d], --d;
      if (d < 0) break;
    }
    for (std::size_t k = 0; k < cells.size(); ++k) untouched = untouched && (seen[k] || cells[k] == kUntouched);
    check(all, "fill_cells: a halo'd cell differs from the rule", N, seed, pe, 0);
    check(untouched, "fill_cells: wrote a padding or lead cell", N, seed, pe, 0);
    sc::gather_cells<double, N>(cells.data() + b.data_offset(), sc::layout_of<rc::DBlock<double, N>, N>(b), back);
  }
  std::vector<double> got;
  back.copy_to(got);
  check(got == v, "gather_cells: the owned cells do not give the grid back", N, seed, -1, 0);
}

}  // namespace

int main() {
  std::mt19937 rng(20261122);
  for (int seed = 0; seed < 300; ++seed) {
    for (bool gpu : {true, false}) {
      one_case<1>(rng, seed, gpu);
      one_case<2>(rng, seed, gpu);
      one_case<3>(rng, seed, gpu);
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
