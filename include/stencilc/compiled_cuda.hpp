// What stencilc-generated CUDA (the cpu-free schedule, p2p backend) needs on the host besides the
// runtime: moving the user's global grids into every GPU's block and back. Included by
// generated .cu files only.
#pragma once

#include "stencilc/compiled.hpp"

#include <stencilc/runtime/cuda/generated.cuh>
#include <stencilc/runtime/cuda/halo.cuh>

#include <vector>

namespace stencilc::compiled {

/// Every PE's block of `g` in the GPUs' symmetric memory, owned and halo cells filled from the
/// grid (see fill_cells; halo cells with no source are poisoned). Only the PEs this process holds
/// are filled: all of them with P2PTeam, its own with NvshmemTeam.
template <typename T, int N, class Team>
std::vector<rt::cuda::DBlock<T, N>> upload_grid(Team& team, const rt::ProcessGrid& grid,
                                                const Grid<T, N>& g, Ints<N> halo_lo, Ints<N> halo_hi) {
  std::array<int, N> extent;
  for (int k = 0; k < N; ++k) extent[k] = g.extent(k);
  std::vector<rt::cuda::DBlock<T, N>> blocks = rt::cuda::alloc_blocks<T, N>(team, grid, extent, halo_lo, halo_hi);
  for (int pe = 0; pe < team.n(); ++pe) {
    if (!team.holds(pe)) continue;
    const rt::cuda::DBlock<T, N>& b = blocks[pe];
    std::vector<T> cells(static_cast<std::size_t>(b.allocated()), poison<T>());
    fill_cells<T, N>(g, layout_of<rt::cuda::DBlock<T, N>, N>(b), cells.data() + b.data_offset(), poison<T>());
    team.upload(pe, b.data - b.data_offset(), cells.data(), cells.size());
  }
  return blocks;
}

/// Copies the owned cells of the blocks the kernel ended with (one per PE) back into `g`.
template <typename T, int N>
void download_grid(rt::cuda::P2PTeam& team, const std::vector<rt::cuda::DBlock<T, N>>& blocks, Grid<T, N>& g) {
  for (int pe = 0; pe < team.n(); ++pe) {
    const rt::cuda::DBlock<T, N>& b = blocks[pe];
    std::vector<T> cells(static_cast<std::size_t>(b.allocated()));
    team.download(pe, cells.data(), b.data - b.data_offset(), cells.size());
    gather_cells<T, N>(cells.data() + b.data_offset(), layout_of<rt::cuda::DBlock<T, N>, N>(b), g);
  }
}

template <int N>
rt::cuda::SBox<N> sbox(const Box<N>& b) {
  rt::cuda::SBox<N> s;
  for (int k = 0; k < N; ++k) s.lo[k] = b.lo[k], s.hi[k] = b.hi[k];
  return s;
}

/// A grid's shape for the device: global extents and which dimensions are periodic.
template <int N>
struct DeviceShape {
  int extent[N];
  bool periodic[N];
};

template <int N>
DeviceShape<N> device_shape(const GridDesc<N>& g) {
  DeviceShape<N> s;
  for (int k = 0; k < N; ++k) {
    s.extent[k] = g.extent[k];
    s.periodic[k] = g.bounds[k].kind == Boundary::Kind::Periodic;
  }
  return s;
}

}  // namespace stencilc::compiled
