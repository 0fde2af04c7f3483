// The layout test behind a global-view swap (codegen's swap_buffers trades only the data pointers,
// and the launcher's compiled::check_swap_layouts stops a run whose swapped blocks differ):
// DBlock::same_buffer_layout must hold for the two blocks alloc_blocks makes of one grid shape on
// every PE (dblock_shape with the same arguments: what the launcher uploads for a swapped pair)
// and fail for any field a swap would then get wrong. Built with nvcc, run on the host (no GPU).
// Prints a line per failure and `N passed, M failed`.
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <stencilc/runtime/cuda/dblock.cuh>

#include "tally.h"

namespace rc = stencilc::rt::cuda;

namespace {

using tally::check;

template <int N>
void run_case(std::mt19937& rng, int seed) {
  std::uniform_int_distribution<int> extent(1, 40), halo(0, 3), pes(1, 6);
  std::array<int, N> global{}, lo{}, hi{};
  std::array<int, 3> e3{1, 1, 1}, lo3{0, 0, 0}, hi3{0, 0, 0};
  for (int d = 0; d < N; ++d) {
    global[d] = extent(rng) + 8;
    lo[d] = halo(rng);
    hi[d] = halo(rng);
    e3[d] = global[d];
    lo3[d] = lo[d];
    hi3[d] = hi[d];
  }
  std::string error;
  const std::optional<stencilc::rt::ProcessGrid> grid =
      stencilc::rt::choose_process_grid(pes(rng), N, e3, lo3, hi3, "", &error);
  if (!grid) return;  // too thin for that many PEs: nothing to check
  const std::string where = std::to_string(N) + "-D case " + std::to_string(seed);
  for (int pe = 0; pe < grid->size(); ++pe) {
    const auto a = rc::dblock_shape<float, N>(*grid, pe, global, lo, hi);
    const auto b = rc::dblock_shape<float, N>(*grid, pe, global, lo, hi);
    check(a.same_buffer_layout(b), where + ": the two blocks of one shape on PE " + std::to_string(pe));
    // Each field a data-only swap would carry over wrongly, changed alone.
    auto other = b;
    other.halo_lo[0] += 1;
    check(!a.same_buffer_layout(other), where + ": another low halo");
    other = b;
    other.extent[N - 1] += 1;
    check(!a.same_buffer_layout(other), where + ": another extent");
    other = b;
    other.lead += 1;
    check(!a.same_buffer_layout(other), where + ": another lead");
    other = b;
    other.stride[0] += 4;
    check(!a.same_buffer_layout(other), where + ": another row pitch");
    other = b;
    other.origin[0] += 1;
    check(!a.same_buffer_layout(other), where + ": another origin");
    other = b;
    other.data = reinterpret_cast<float*>(0x1000);
    check(a.same_buffer_layout(other), where + ": only the buffer differs");
    // A block of a grid with other halos (a different swap group) is not the same layout.
    auto wider = hi;
    wider[N - 1] += 1;
    const auto c = rc::dblock_shape<float, N>(*grid, pe, global, lo, wider);
    check(!a.same_buffer_layout(c), where + ": a grid with a wider high halo");
  }
}

}  // namespace

int main() {
  std::mt19937 rng(20261122);
  for (int seed = 0; seed < 60; ++seed) {
    run_case<1>(rng, seed);
    run_case<2>(rng, seed);
    run_case<3>(rng, seed);
  }
  return tally::finish();
}
